//===- ExpandMath.cpp - math ops the host cannot lower -----------*- C++
//-*-===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;

namespace {
struct ExpandMathPass : dlc::impl::ExpandMathPassBase<ExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandRsqrtPattern(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
