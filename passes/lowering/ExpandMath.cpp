//===- ExpandMath.cpp - math ops the host cannot lower -----------*- C++
//-*-===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
    // elements a layer) ran scalar, 2.4 ms of a 4.5 ms kernel. MLIR's
    // rational approximation is plain arithmetic that LLVM vectorizes.
    populatePolynomialApproximateErfPattern(patterns);
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
      signalPassFailure();
  }
};
} // namespace
