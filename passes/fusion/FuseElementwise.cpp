//===- FuseElementwise.cpp - elementwise fusion on tensors -------*- C++
//-*-===//

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
  // Each fusion rebuilds the consumer with the producer's operands: bound
  // the fused op's size (and the quadratic cost of long chains such as a
  // Sum of thousands of inputs).
  constexpr unsigned kMaxFusedOperands = 32;
  if (consumer->getNumOperands() + producer->getNumOperands() >
      kMaxFusedOperands)
    return false;
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

/// Upstream's elementwise fusion step with dlc's control, keeping the ONNX
/// node names of both ops on the fused op (reports name every node).
struct FuseElementwiseOps : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!linalg::areElementwiseOpsFusable(&operand) || !shouldFuse(&operand))
        continue;
      Operation *producer = operand.get().getDefiningOp();
      Location loc =
          rewriter.getFusedLoc({producer->getLoc(), consumer.getLoc()});
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != producer;
        });
      fused->fusedOp->setLoc(loc);
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass
    : dlc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDlcElementwiseFusionPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateDlcElementwiseFusionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseElementwiseOps>(patterns.getContext());
}
