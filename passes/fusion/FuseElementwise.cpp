//===- FuseElementwise.cpp - elementwise fusion on tensors -------*- C++
//-*-===//

#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// The reductions whose results `op` reads through values wider than
/// `bits` only (elementwise generics between): the ones whose epilogue
/// `op` would end by narrowing to `bits`. A value of `bits` or fewer on the
/// way (a requantize already narrowed it) is the cut, and the walk stops
/// there.
void collectWiderReductions(Operation *op, unsigned bits,
                            SmallVectorImpl<Operation *> &reductions,
                            unsigned depth = 0) {
  if (depth > 16)
    return;
  for (Value in : op->getOperands()) {
    auto producer = in.getDefiningOp<linalg::LinalgOp>();
    if (!producer || elementBits(in) <= bits)
      continue;
    if (producer.getNumReductionLoops() > 0) {
      if (!llvm::is_contained(reductions, producer.getOperation()))
        reductions.push_back(producer);
    } else if (isa<linalg::GenericOp>(producer)) {
      collectWiderReductions(producer, bits, reductions, depth + 1);
    }
  }
}

/// The elementwise generic that `op`'s result fuses into next: its only
/// user, reading it through a permutation (null: none).
linalg::GenericOp nextFusedConsumer(Operation *op) {
  if (op->getNumResults() != 1 || !op->hasOneUse())
    return {};
  OpOperand &use = *op->getResult(0).getUses().begin();
  auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!user || !user.isDpsInput(&use) ||
      !user.getMatchingIndexingMap(&use).isPermutation())
    return {};
  return user;
}

/// Whether `producer` narrows the result of a reduction (requantize i32 ->
/// i8, the f32 -> f16 rounding, directly or through wider elementwise ops)
/// that should stay with that reduction rather than join `consumer`,
/// because `consumer` will not share the reduction's kernel: it is a
/// reduction itself (a pooling of the layer's output), or it also reads a
/// later reduction, whose kernel it joins (kernel fusion merges
/// neighbours). Fused there, the epilogue would leave the wide result in
/// memory between kernels. A consumer that widens the value again (a
/// dequantize) carries the epilogue on to its own consumer, which decides
/// in its place: fused into ResNet's dequantize first, the downsample's
/// requantize reached the residual add as an i32 -> f32 op that no longer
/// narrowed, and the downsample stored its i32 accumulators (12 MB of
/// int8 resnet50's 59 MB of traffic between kernels).
bool narrowsAnotherKernelsReduction(Operation *producer,
                                    linalg::GenericOp consumer) {
  // Through elementwise ops not yet fused into the epilogue too (a
  // quantize after the dequantize, residual add and ReLU of an int8 conv's
  // i32 result): fusion order must not decide whether the pool after
  // ResNet's last block reads its int8 input or the conv's accumulators.
  unsigned bits = elementBits(producer->getResult(0));
  SmallVector<Operation *> narrowed;
  collectWiderReductions(producer, bits, narrowed);
  if (narrowed.empty())
    return false;
  for (unsigned depth = 0; consumer && depth < 16; ++depth) {
    if (consumer.getNumReductionLoops() > 0)
      return true;
    llvm::SmallPtrSet<Operation *, 8> reductions, visited;
    collectReductionInputs(consumer, reductions, visited);
    if (llvm::any_of(narrowed, [&](Operation *mine) {
          return llvm::any_of(reductions, [&](Operation *other) {
            return other != mine && other->getBlock() == mine->getBlock() &&
                   mine->isBeforeInBlock(other);
          });
        }))
      return true;
    // Narrow again (a quantize after the dequantize): the cut is there.
    if (consumer->getNumResults() != 1 ||
        elementBits(consumer->getResult(0)) <= bits)
      return false;
    consumer = nextFusedConsumer(consumer);
  }
  return false;
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
  // A copy into a larger tensor (a host conv's padded input, written
  // through a shifted map) stays a copy: the producer's epilogue (a conv's
  // requantize) belongs to the producer's kernel, which would otherwise
  // store its i32 accumulators for the copy to requantize.
  if (writesShifted(consumer))
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

/// The static iteration count of `op`'s loops, or nullopt.
std::optional<int64_t> staticIterations(linalg::GenericOp op) {
  int64_t n = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    n *= range;
  }
  return n;
}

/// A `tensor.extract` in a generic's body from the result of an elementwise
/// generic (its only use) becomes that generic's body at the extracted
/// element: the producer's inputs are read at the indices its maps give for
/// that element. This fuses what upstream's elementwise fusion cannot, a
/// producer the consumer reads through computed indices (a padded copy's
/// clamped reads): ResNet's and MobileNet's stems transposed the NCHW
/// input to NHWC f16 in one kernel and padded it (rows, columns, 3 -> 8
/// channels) in the next; the padding now reads the NCHW input itself. The
/// producer is recomputed once per consumer element, so this applies only
/// when the consumer has at most kMaxRecompute times as many elements as
/// the producer and neither has a reduction loop, and only to bodies of
/// at most kMaxProducerOps pure ops, and only to producers of the model's
/// inputs and constants (a layout change at the model's edge): a producer
/// computed from another op's result may be the tail of a reduction's
/// epilogue (bias, activation, the narrowing to f16 or int8), which stays
/// with its reduction; moved into the consumer, it would leave the wide
/// accumulator in memory between kernels. A padded copy marked
/// `dlc.padding` is left alone: dlc-tile-gemm-kernels folds it into the
/// convolution, which then reads the copy's input, so that input must stay
/// the unpadded tensor itself.
struct InlineProducerAtExtract : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kMaxRecompute = 4;
  static constexpr int64_t kMaxProducerOps = 16;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto producer = extract.getTensor().getDefiningOp<linalg::GenericOp>();
    auto consumer = dyn_cast<linalg::GenericOp>(extract->getParentOp());
    if (!producer || !consumer || !producer->hasOneUse() ||
        producer->getNumResults() != 1 || producer.getNumDpsInits() != 1 ||
        producer.getNumReductionLoops() != 0 ||
        consumer.getNumReductionLoops() != 0 ||
        consumer->hasAttr(attrs::kPadding))
      return rewriter.notifyMatchFailure(extract, "not an elementwise "
                                                  "producer read only here");
    std::optional<int64_t> produced = staticIterations(producer);
    std::optional<int64_t> consumed = staticIterations(consumer);
    if (!produced || !consumed || *consumed > kMaxRecompute * *produced)
      return rewriter.notifyMatchFailure(extract, "would recompute too much");
    OpOperand *init = producer.getDpsInitOperand(0);
    AffineMap outMap = producer.getMatchingIndexingMap(init);
    if (producer.payloadUsesValueFromOperand(init) ||
        !outMap.isPermutation())
      return rewriter.notifyMatchFailure(extract, "not an elementwise map");
    // Each input is read at the element's loop indices or at constants.
    if (llvm::any_of(producer.getIndexingMapsArray(), [](AffineMap map) {
          return llvm::any_of(map.getResults(), [](AffineExpr e) {
            return !isa<AffineDimExpr, AffineConstantExpr>(e);
          });
        }))
      return rewriter.notifyMatchFailure(extract, "input map not simple");
    if (llvm::any_of(producer.getDpsInputs(), [](Value in) {
          Operation *def = in.getDefiningOp();
          return def && !def->hasTrait<OpTrait::ConstantLike>();
        }))
      return rewriter.notifyMatchFailure(extract, "producer reads results");
    Block &body = producer.getRegion().front();
    if (int64_t(body.getOperations().size()) > kMaxProducerOps + 1 ||
        llvm::any_of(body.without_terminator(), [](Operation &op) {
          return op.getNumRegions() != 0 || !isMemoryEffectFree(&op);
        }))
      return rewriter.notifyMatchFailure(extract, "producer body not cheap");

    // The producer's loop indices at the extracted element.
    SmallVector<Value> ivs(outMap.getNumDims());
    for (auto [r, index] : llvm::enumerate(extract.getIndices()))
      ivs[outMap.getDimPosition(r)] = index;
    Location loc = extract.getLoc();
    IRMapping mapping;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      Value arg = producer.getMatchingBlockArgument(input);
      if (!isa<RankedTensorType>(input->get().getType())) {
        mapping.map(arg, input->get());
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr e : producer.getMatchingIndexingMap(input).getResults())
        indices.push_back(
            isa<AffineDimExpr>(e)
                ? ivs[cast<AffineDimExpr>(e).getPosition()]
                : Value(rewriter.create<arith::ConstantIndexOp>(
                      loc, cast<AffineConstantExpr>(e).getValue())));
      mapping.map(arg, rewriter.create<tensor::ExtractOp>(loc, input->get(),
                                                          indices));
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      rewriter.clone(op, mapping);
    }
    Value value = mapping.lookupOrDefault(
        cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
    rewriter.modifyOpInPlace(consumer, [&] {
      consumer->setLoc(
          rewriter.getFusedLoc({producer->getLoc(), consumer->getLoc()}));
    });
    rewriter.replaceOp(extract, value);
    rewriter.eraseOp(producer);
    return success();
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

/// Whether the elementwise generic owning `operand` should take in the
/// reshape producing it (upstream's fold by expansion, which then runs the
/// generic on the reshape's source): only a collapse of unit dims (a
/// squeeze) of a reduction's result, so that the reduction's epilogue reads
/// the result itself and dlc-fuse-kernels merges it into the reduction's
/// kernel. A global pool's flatten before the classifier (ResNet's and
/// MobileNet's [N, 1, 1, C] -> [N, C]) so keeps its f16 rounding with the
/// pool instead of a kernel of its own.
static bool foldsSqueezeOfReduction(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!consumer || !collapse ||
      consumer.getNumParallelLoops() != consumer.getNumLoops())
    return false;
  auto producer = collapse.getSrc().getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer.getNumReductionLoops() == 0)
    return false;
  ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
  for (const ReassociationIndices &group : collapse.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; }) > 1)
      return false;
  return true;
}

void mlir::dlc::populateDlcElementwiseFusionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseElementwiseOps, InlineProducerAtExtract>(
      patterns.getContext());
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                    foldsSqueezeOfReduction);
}
