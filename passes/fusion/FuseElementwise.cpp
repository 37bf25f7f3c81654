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
unsigned elementBits(Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
}

/// The reductions (linalg ops with a reduction loop: Conv, Gemm, MatMul,
/// pooling) whose results `op` or its elementwise producers read: what
/// `op` may read once everything fusable is fused into it.
void collectReductionInputs(Operation *op,
                            llvm::SmallPtrSetImpl<Operation *> &reductions,
                            llvm::SmallPtrSetImpl<Operation *> &visited) {
  if (!visited.insert(op).second || visited.size() > 64)
    return;
  for (Value operand : op->getOperands()) {
    auto producer = operand.getDefiningOp<linalg::LinalgOp>();
    if (!producer)
      continue;
    if (producer.getNumReductionLoops() > 0)
      reductions.insert(producer);
    else if (isa<linalg::GenericOp>(producer))
      collectReductionInputs(producer, reductions, visited);
  }
}

/// Whether `producer` narrows the result of a reduction (requantize i32 ->
/// i8, the f32 -> f16 rounding) that should stay with that reduction rather
/// than join `consumer`, because `consumer` will not share the reduction's
/// kernel: it is a reduction itself (a pooling of the layer's output), or
/// it also reads a later reduction, whose kernel it joins (kernel fusion
/// merges neighbours). Fused there, the epilogue would leave the wide
/// result in memory between kernels.
bool narrowsAnotherKernelsReduction(Operation *producer,
                                    linalg::GenericOp consumer) {
  SmallVector<Operation *> narrowed;
  for (Value in : producer->getOperands()) {
    auto reduction = in.getDefiningOp<linalg::LinalgOp>();
    if (reduction && reduction.getNumReductionLoops() > 0 &&
        elementBits(in) > elementBits(producer->getResult(0)))
      narrowed.push_back(reduction);
  }
  if (narrowed.empty())
    return false;
  if (consumer.getNumReductionLoops() > 0)
    return true;
  llvm::SmallPtrSet<Operation *, 8> reductions, visited;
  collectReductionInputs(consumer, reductions, visited);
  return llvm::any_of(narrowed, [&](Operation *mine) {
    return llvm::any_of(reductions, [&](Operation *other) {
      return other != mine && other->getBlock() == mine->getBlock() &&
             mine->isBeforeInBlock(other);
    });
  });
}

/// Whether `consumer` widens what it reads from `operand` (a dequantize,
/// an f16 -> f32 extension) for a reduction that will fuse it (its only
/// user, reading it through a permutation): the narrow tensor is the one
/// to store, so the reduction should read it, not the producer's wider
/// inputs (a Q -> DQ -> GlobalAveragePool after a conv's epilogue).
bool widensForAReduction(OpOperand *operand, linalg::GenericOp consumer) {
  if (consumer->getNumResults() != 1 || !consumer->hasOneUse() ||
      elementBits(consumer->getResult(0)) <= elementBits(operand->get()))
    return false;
  OpOperand &use = *consumer->getResult(0).getUses().begin();
  auto reduction = dyn_cast<linalg::GenericOp>(use.getOwner());
  return reduction && reduction.getNumReductionLoops() > 0 &&
         reduction.isDpsInput(&use) &&
         reduction.getMatchingIndexingMap(&use).isPermutation();
}

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
  if (!consumer.getMatchingIndexingMap(operand).isPermutation())
    return false;
  return !narrowsAnotherKernelsReduction(producer, consumer) &&
         !widensForAReduction(operand, consumer);
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
