//===- FoldAccumulatorBias.cpp - integer biases start the accumulator ----===//
//
// An int8 Conv's or MatMul's requantize adds its i32 bias to every
// accumulator element; the accumulator's init is computed once a row (the
// zero point's correction). Integer addition is associative, so the bias
// joins the init and the epilogue loses an add an element.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FOLDACCUMULATORBIASPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Whether `value` is defined where `reduction` can read it: a block
/// argument of an enclosing region, or an op before it in its block.
bool definedBefore(Value value, Operation *reduction) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return value.getParentRegion()->isAncestor(reduction->getParentRegion());
  return def->getBlock() == reduction->getBlock() &&
         def->isBeforeInBlock(reduction);
}

/// A parallel generic whose input `acc` is an integer reduction's result
/// (its only use, read at the same index) and whose body first adds
/// another input (the bias) to it, the add being acc's only use: the
/// reduction starts from `init + bias` and the generic reads acc as is.
struct FoldBiasIntoInit : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer.getNumReductionLoops() != 0 ||
        !consumer.hasPureTensorSemantics())
      return failure();
    for (OpOperand *accOperand : consumer.getDpsInputOperands())
      if (succeeded(fold(consumer, accOperand, rewriter)))
        return success();
    return failure();
  }

  static LogicalResult fold(linalg::GenericOp consumer, OpOperand *accOperand,
                            PatternRewriter &rewriter) {
    auto reduction = accOperand->get().getDefiningOp<linalg::GenericOp>();
    if (!reduction || reduction.getNumReductionLoops() == 0 ||
        reduction->getNumResults() != 1 || !accOperand->get().hasOneUse() ||
        !consumer.getMatchingIndexingMap(accOperand).isIdentity())
      return failure();
    OpOperand &initOperand = reduction.getDpsInitsMutable()[0];
    if (!reduction.payloadUsesValueFromOperand(&initOperand))
      return failure();
    BlockArgument acc = consumer.getMatchingBlockArgument(accOperand);
    if (!acc.getType().isSignlessInteger() || !acc.hasOneUse())
      return failure();
    auto add = dyn_cast<arith::AddIOp>(*acc.getUsers().begin());
    if (!add)
      return failure();
    auto biasArg = dyn_cast<BlockArgument>(add.getLhs() == acc ? add.getRhs()
                                                               : add.getLhs());
    if (!biasArg || biasArg.getOwner() != consumer.getBody() ||
        biasArg.getArgNumber() >= consumer.getNumDpsInputs() || biasArg == acc)
      return failure();
    OpOperand *biasOperand =
        consumer.getDpsInputOperand(biasArg.getArgNumber());
    // A bias defined after the reduction may still be a constant, which a
    // copy before it replaces.
    Value bias = biasOperand->get();
    bool biasBefore = definedBefore(bias, reduction);
    if (!biasBefore &&
        !(bias.getDefiningOp() &&
          bias.getDefiningOp()->hasTrait<OpTrait::ConstantLike>()))
      return failure();

    // The reduction's location: its ONNX nodes name the kernel.
    Location loc = reduction.getLoc();
    Value init = initOperand.get();
    auto type = cast<RankedTensorType>(init.getType());
    unsigned rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    // The init is a generic of its own that computes it from its inputs
    // alone (the zero point's correction), which the bias's generic
    // computes too, so that the init stays a generic of broadcast inputs
    // (elementwise fusion would keep the old init as a second result: its
    // loops' bounds come from its output). A constant init (a fill) keeps
    // its epilogue add: resnet50_int8's layer2 3x3 convs (zero inits) took
    // 0.595 -> 0.65 ms with the bias as their init, LLVM's register
    // allocation moving 4 registers more a step of their inner loop.
    auto producer = init.getDefiningOp<linalg::GenericOp>();
    if (!producer || !init.hasOneUse() || producer->getNumResults() != 1 ||
        producer.getNumLoops() != rank ||
        producer.getNumReductionLoops() != 0 ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity())
      return failure();
    rewriter.setInsertionPoint(reduction);
    if (!biasBefore)
      bias = rewriter.clone(*bias.getDefiningOp())->getResult(0);
    SmallVector<Value> inputs{bias};
    SmallVector<AffineMap> maps{consumer.getMatchingIndexingMap(biasOperand)};
    llvm::append_range(inputs, producer.getDpsInputs());
    for (OpOperand *in : producer.getDpsInputOperands())
      maps.push_back(producer.getMatchingIndexingMap(in));
    maps.push_back(identity);
    Value empty = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                   type.getElementType());
    auto start = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, inputs, ValueRange{empty}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          IRMapping mapping;
          Block *body = producer.getBody();
          for (auto [i, in] : llvm::enumerate(producer.getDpsInputs()))
            mapping.map(body->getArgument(i), args[1 + i]);
          for (Operation &op : body->without_terminator())
            b.clone(op, mapping);
          Value part =
              mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
          b.create<linalg::YieldOp>(
              l, b.create<arith::AddIOp>(l, args[0], part).getResult());
        });
    rewriter.modifyOpInPlace(reduction,
                             [&] { initOperand.set(start.getResult(0)); });
    rewriter.eraseOp(producer);
    rewriter.replaceOp(add, acc);
    return success();
  }
};

struct FoldAccumulatorBiasPass
    : dlc::impl::FoldAccumulatorBiasPassBase<FoldAccumulatorBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldAccumulatorBiasPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateFoldAccumulatorBiasPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldBiasIntoInit>(patterns.getContext());
  // The consumers' bias inputs, read no more.
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
}
