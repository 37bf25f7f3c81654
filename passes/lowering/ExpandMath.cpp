//===- ExpandMath.cpp - math ops the host cannot lower -----------*- C++
//-*-===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;

namespace {
/// `math.fma` (the approximations' own) as a product and a sum that LLVM may
/// contract: one FMA where the CPU has it, and not a call of libm's `fmaf`
/// an element where it does not (the default x86-64-v2).
struct ContractFma : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    auto contract = arith::FastMathFlagsAttr::get(
        op.getContext(), op.getFastmath() | arith::FastMathFlags::contract);
    Value product = rewriter.create<arith::MulFOp>(op.getLoc(), op.getA(),
                                                   op.getB(), contract);
    rewriter.replaceOpWithNewOp<arith::AddFOp>(op, product, op.getC(),
                                               contract);
    return success();
  }
};

/// `math.erf` on f32 (scalars or vectors) as one odd rational function on
/// [-4, 4] (outside it erf is +-1 in f32): x P(x^2) / Q(x^2), P of degree 6
/// and Q of degree 4, the coefficients Eigen's and XLA's float erf use; at
/// most 4.5e-7 from erf (7 ulp near |x| = 3.2). MLIR's approximation picks
/// one of three rational functions by |x| (18 selects of coefficients a
/// vector, each constant loaded again beside a GEMM's accumulators): BERT's
/// GELU epilogues spent ~80 instructions on 16 outputs, now ~18.
struct RationalErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    auto constant = [&](float c) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(c);
      if (auto vec = dyn_cast<VectorType>(type))
        attr = DenseElementsAttr::get(vec, rewriter.getF32FloatAttr(c));
      return rewriter.create<arith::ConstantOp>(loc, attr);
    };
    auto contract = arith::FastMathFlagsAttr::get(
        op.getContext(), arith::FastMathFlags::contract);
    auto mul = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::MulFOp>(loc, a, b, contract);
    };
    // Horner's rule in x^2, highest coefficient first.
    auto poly = [&](Value x2, ArrayRef<float> coefficients) {
      Value p = constant(coefficients.front());
      for (float c : coefficients.drop_front())
        p = rewriter.create<arith::AddFOp>(loc, mul(x2, p), constant(c),
                                           contract);
      return p;
    };
    // Clamped by compares that keep a NaN (x > 4 ? 4 : x is one minps).
    Value x = op.getOperand();
    auto clamp = [&](arith::CmpFPredicate pred, float bound) {
      Value b = constant(bound);
      Value out = rewriter.create<arith::CmpFOp>(loc, pred, x, b);
      x = rewriter.create<arith::SelectOp>(loc, out, b, x);
    };
    clamp(arith::CmpFPredicate::OGT, 4.0f);
    clamp(arith::CmpFPredicate::OLT, -4.0f);
    Value x2 = mul(x, x);
    Value p = mul(x, poly(x2, {-2.72614225801306e-10f, 2.77068142495902e-08f,
                               -2.10102402082508e-06f, -5.69250639462346e-05f,
                               -7.34990630326855e-04f, -2.95459980854025e-03f,
                               -1.60960333262415e-02f}));
    Value q = poly(x2, {-1.45660718464996e-05f, -2.13374055278905e-04f,
                        -1.68282697438203e-03f, -7.37332916720468e-03f,
                        -1.42647390514189e-02f});
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, p, q);
    return success();
  }
};

/// A constant that is not NaN: a float scalar, a splat, or a broadcast of
/// one (dlc-vectorize-host-rows broadcasts an epilogue's scalars).
bool isOrderedConstant(Value v) {
  if (auto broadcast = v.getDefiningOp<vector::BroadcastOp>())
    v = broadcast.getSource();
  FloatAttr scalar;
  DenseFPElementsAttr dense;
  if (matchPattern(v, m_Constant(&scalar)))
    return !scalar.getValue().isNaN();
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return !dense.getSplatValue<APFloat>().isNaN();
  return false;
}

/// `maximumf(x, c)` (`minimumf`) against a constant that is not NaN (ReLU,
/// Clip, a clamp) as `x < c ? c : x` (`x > c ? c : x`): still NaN for a
/// NaN x, and x86 takes it as one `vmaxps` with the constant first, which
/// returns its second operand when either is NaN. `llvm.maximum` needs a
/// NaN compare and a masked move besides (3 instructions; 1459 of them in
/// fp32 resnet50's model.so). Only a zero's sign differs: max(-0, +0) is
/// -0 here, as in numpy's clip.
template <typename Op, arith::CmpFPredicate kPredicate>
struct ClampToConstant : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getLhs(), c = op.getRhs();
    if (!isOrderedConstant(c))
      std::swap(x, c);
    if (!isOrderedConstant(c) || isOrderedConstant(x))
      return failure();
    Value beyond =
        rewriter.create<arith::CmpFOp>(op.getLoc(), kPredicate, x, c);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, beyond, c, x);
    return success();
  }
};

/// maximumf/minimumf against a constant as compare and select.
void populateClampToConstantPatterns(RewritePatternSet &patterns) {
  patterns.add<ClampToConstant<arith::MaximumFOp, arith::CmpFPredicate::OLT>,
               ClampToConstant<arith::MinimumFOp, arith::CmpFPredicate::OGT>>(
      patterns.getContext());
}

struct ExpandMathPass : dlc::impl::ExpandMathPassBase<ExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // arith-expand's ceil/floor divisions and bf16 conversions as integer
    // arithmetic, but not its minimumf/maximumf: as cmpf + select (an
    // unordered compare, a NaN select) LLVM's loop vectorizer takes them
    // for an fmin pattern that needs nnan and nsz, and a reduction to one
    // value (DynamicQuantizeLinear's range) ran scalar; llvm.minimum and
    // llvm.maximum it vectorizes.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    populateExpandRsqrtPattern(patterns);
    // libm's erff is a call per element: a GELU epilogue (BERT's FFN, 393K
    // elements a layer) ran scalar, 2.4 ms of a 4.5 ms kernel. A rational
    // approximation is plain arithmetic that LLVM vectorizes.
    patterns.add<RationalErf>(&getContext());
    // The fmas dlc writes itself must stay fused (QuantizeLinear's exact
    // division refines its quotient with them): only the approximations'
    // own become contractable.
    // (Marked, not remembered by address: the rewrites free and allocate
    // ops.)
    constexpr StringLiteral kExact = "dlc.exact_fma";
    getOperation()->walk([&](math::FmaOp op) {
      op->setAttr(kExact, UnitAttr::get(op.getContext()));
    });
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // llvm.exp is a call of libm's expf an element, of a vector too (x86 has
    // no vector exp): softmax and attention kernels ran their exponentials
    // one call at a time. MLIR's Cephes approximation (range reduction and
    // a polynomial, ~1 ulp) is plain arithmetic that LLVM vectorizes. Only
    // math.exp takes it: the pattern set approximates other functions too.
    SmallVector<Operation *> exps;
    getOperation()->walk([&](math::ExpOp op) {
      if (mlir::getElementTypeOrSelf(op.getType()).isF32())
        exps.push_back(op);
    });
    if (!exps.empty()) {
      RewritePatternSet approximate(&getContext());
      populateMathPolynomialApproximationPatterns(approximate);
      GreedyRewriteConfig config;
      config.strictMode = GreedyRewriteStrictness::ExistingOps;
      if (failed(applyOpPatternsAndFold(exps, std::move(approximate), config)))
        return signalPassFailure();
    }
    SmallVector<Operation *> approximations;
    getOperation()->walk([&](math::FmaOp op) {
      if (!op->removeAttr(kExact))
        approximations.push_back(op);
    });
    RewritePatternSet contract(&getContext());
    contract.add<ContractFma>(&getContext());
    if (!approximations.empty() &&
        failed(applyOpPatternsAndFold(approximations, std::move(contract))))
      return signalPassFailure();
    // Last, so that the exponentials' range clamps take it too.
    RewritePatternSet clamps(&getContext());
    populateClampToConstantPatterns(clamps);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(clamps))))
      signalPassFailure();
  }
};
} // namespace
