//===- FuseActivations.cpp - decomposed activations as one op ----*- C++
//-*-===//
//
// Recognizes GELU as exporters decompose it -- F.gelu below opset 20 as
// Div/Erf/Add/Mul/Mul, GPT-2's gelu_new as Pow/Mul/Add/Mul/Tanh/Add/Mul --
// and replaces the chain with one dlc.gelu.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/fusion/ScalarConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEACTIVATIONSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// The value of a one-element float constant, as a double.
std::optional<double> scalarConstant(Value v) {
  if (std::optional<APFloat> c = scalarFloatConstant(v))
    return c->convertToDouble();
  return std::nullopt;
}

/// Exporters write the constants rounded to f32 (sqrt(2) as
/// 1.4142135381698608); anything within f32 rounding of the exact value is
/// that value.
bool near(double value, double exact) {
  return std::abs(value - exact) <= 1e-6 * std::abs(exact);
}

/// `v` as a product: `constant` times the `factors` (x^2 and x^3 of a Pow
/// count as two and three factors x). Mul, Div by a constant and Pow are
/// looked through where only the product uses them (`root` is the product
/// itself, whatever its users).
struct Product {
  double constant = 1;
  SmallVector<Value, 4> factors;
};
void collect(Value v, Product &p, bool root) {
  Operation *def = v.getDefiningOp();
  if (std::optional<double> c = scalarConstant(v)) {
    p.constant *= *c;
    return;
  }
  if (def && (root || v.hasOneUse())) {
    if (auto mul = dyn_cast<MulOp>(def)) {
      collect(mul.getLhs(), p, false);
      collect(mul.getRhs(), p, false);
      return;
    }
    if (auto div = dyn_cast<DivOp>(def)) {
      std::optional<double> c = scalarConstant(div.getRhs());
      if (c && *c != 0) {
        collect(div.getLhs(), p, false);
        p.constant /= *c;
        return;
      }
    }
    if (auto pow = dyn_cast<PowOp>(def)) {
      std::optional<double> e = scalarConstant(pow.getRhs());
      if (e && (*e == 2 || *e == 3)) {
        p.factors.append(int(*e), pow.getLhs());
        return;
      }
    }
  }
  p.factors.push_back(v);
}

/// `v` = 1 + t (Add of a constant 1 and `t`, used only here): returns t.
Value onePlus(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add || !add->hasOneUse())
    return {};
  for (unsigned side : {0u, 1u})
    if (std::optional<double> c = scalarConstant(add->getOperand(side));
        c && *c == 1)
      return add->getOperand(1 - side);
  return {};
}

/// `v` = c * x: returns x if `v`'s product is one factor times a constant
/// near `c`.
Value scaled(Value v, double c) {
  Product p;
  collect(v, p, false);
  if (p.factors.size() != 1 || !near(p.constant, c))
    return {};
  return p.factors[0];
}

/// The argument of the exact GELU's erf: Erf(x / sqrt(2)), or null.
Value erfArgument(Value phi) {
  auto erf = phi.getDefiningOp<ErfOp>();
  if (!erf || !erf->hasOneUse())
    return {};
  return scaled(erf.getInput(), M_SQRT1_2);
}

/// The argument of the tanh approximation's tanh:
/// Tanh(sqrt(2/pi) * (x + 0.044715 x^3)), or null.
Value tanhArgument(Value phi) {
  auto tanh = phi.getDefiningOp<TanhOp>();
  if (!tanh || !tanh->hasOneUse())
    return {};
  Value inner = scaled(tanh.getInput(), std::sqrt(2.0 / M_PI));
  auto add = inner ? inner.getDefiningOp<AddOp>() : AddOp();
  if (!add || !add->hasOneUse())
    return {};
  for (unsigned side : {0u, 1u}) {
    Value x = add->getOperand(side);
    Product cube;
    collect(add->getOperand(1 - side), cube, false);
    if (near(cube.constant, 0.044715) && cube.factors.size() == 3 &&
        llvm::all_equal(cube.factors) && cube.factors[0] == x)
      return x;
  }
  return {};
}

/// x * 0.5 * (1 + phi(x)) in any association and order, Div by 2 for the
/// 0.5 included (the root is a Mul or that Div), where phi is the erf or
/// the tanh form.
template <typename OpTy> struct GeluPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Product p;
    collect(op.getResult(), p, true);
    if (p.factors.size() != 2 || !near(p.constant, 0.5))
      return rewriter.notifyMatchFailure(op, "not x * 0.5 * (1 + phi)");
    auto type = dyn_cast<RankedTensorType>(op.getType());
    for (unsigned i : {0u, 1u}) {
      Value x = p.factors[i];
      Value phi = onePlus(p.factors[1 - i]);
      if (!phi || x.getType() != type)
        continue;
      bool tanh = false;
      if (erfArgument(phi) != x) {
        if (tanhArgument(phi) != x)
          continue;
        tanh = true;
      }
      rewriter.replaceOpWithNewOp<GeluOp>(op, type, x,
                                          rewriter.getBoolAttr(tanh));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no erf or tanh GELU");
  }
};

struct FuseActivationsPass
    : dlc::impl::FuseActivationsPassBase<FuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseActivationsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateFuseActivationsPatterns(RewritePatternSet &patterns) {
  patterns.add<GeluPattern<MulOp>, GeluPattern<DivOp>>(patterns.getContext());
}
