//===- FuseElementwise.cpp - elementwise fusion on tensors -------*- C++ -*-===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Fuse only what is computed once per element: a single-use producer read
/// through a permutation (no broadcast, no window, no reduction reuse).
bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!consumer)
    return false;
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

struct FuseElementwisePass
    : dlc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDlcElementwiseFusionPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateDlcElementwiseFusionPatterns(
    RewritePatternSet &patterns) {
  linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
}
