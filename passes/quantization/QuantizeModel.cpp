//===- QuantizeModel.cpp - fp32 layers to QDQ int8 ----------------*- C++ -*-=//
//
// Post-training quantization of the float layers the driver chose: every
// dlc.conv / dlc.gemm / dlc.matmul (and global average pool) carrying
// `dlc.input_ranges` gets its activation operands quantized per tensor
// (asymmetric int8 from the calibrated range) and its constant weight
// quantized per output channel (symmetric int8), both as quantize/dequantize
// pairs that dlc-fold-qdq then folds into conv_integer / matmul_integer with a
// dequantizing epilogue. Residual adds reading a quantized activation read its
// int8 form too. The math lives in Quantization.cpp, next to the readers
// dlc-fold-qdq uses.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_QUANTIZEMODELPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Whether [lo, hi] is a calibrated range: finite, lo <= hi.
bool isRange(float lo, float hi) {
  return std::isfinite(lo) && std::isfinite(hi) && lo <= hi;
}

/// The [lo, hi] pairs of `op`'s `dlc.input_ranges`, or a diagnostic.
FailureOr<SmallVector<std::pair<float, float>>>
readRanges(Operation *op, unsigned expected, bool emitErrors) {
  auto error =
      [&](const Twine &msg) -> FailureOr<SmallVector<std::pair<float, float>>> {
    if (emitErrors)
      op->emitError() << "'" << kInputRangesAttr << "' " << msg;
    return failure();
  };
  auto ranges = op->getAttrOfType<ArrayAttr>(kInputRangesAttr);
  if (!ranges)
    return error("must be an array of array<f32: lo, hi>");
  if (ranges.size() != expected)
    return error("has " + Twine(ranges.size()) + " ranges, but the op has " +
                 Twine(expected) + " activation operand" +
                 (expected == 1 ? "" : "s"));
  SmallVector<std::pair<float, float>> out;
  for (Attribute a : ranges) {
    auto pair = dyn_cast<DenseF32ArrayAttr>(a);
    if (!pair || pair.size() != 2)
      return error("must be an array of array<f32: lo, hi>");
    float lo = pair[0], hi = pair[1];
    if (!isRange(lo, hi)) {
      if (emitErrors)
        op->emitError() << "'" << kInputRangesAttr << "' holds [" << lo << ", "
                        << hi << "]: a range must be finite with lo <= hi";
      return failure();
    }
    out.push_back({lo, hi});
  }
  return out;
}

/// The [lo, hi] of `op`'s `dlc.output_range`, if any, or a diagnostic.
FailureOr<std::optional<std::pair<float, float>>>
readOutputRange(Operation *op, bool emitErrors) {
  Attribute attr = op->getAttr(kOutputRangeAttr);
  if (!attr)
    return std::optional<std::pair<float, float>>();
  auto pair = dyn_cast<DenseF32ArrayAttr>(attr);
  if (!pair || pair.size() != 2 || !isRange(pair[0], pair[1])) {
    if (emitErrors)
      op->emitError() << "'" << kOutputRangeAttr
                      << "' must be a finite array<f32: lo, hi> with lo <= hi";
    return failure();
  }
  return std::optional<std::pair<float, float>>({pair[0], pair[1]});
}

/// The uses of `op`'s result by a dlc.add whose other operand is the
/// result of a Conv/Gemm/MatMul after `op`: that layer's kernel will take
/// the add as its epilogue, so `op`'s result crosses kernels to reach it.
SmallVector<OpOperand *> addsWithLaterLayer(Operation *op) {
  SmallVector<OpOperand *> adds;
  for (OpOperand &use : op->getResult(0).getUses()) {
    auto add = dyn_cast<AddOp>(use.getOwner());
    if (!add)
      continue;
    Operation *other =
        add->getOperand(1 - use.getOperandNumber()).getDefiningOp();
    if (other && isa<ConvOp, GemmOp, MatMulOp>(other) &&
        other->getBlock() == op->getBlock() && op->isBeforeInBlock(other))
      adds.push_back(&use);
  }
  return adds;
}

/// `x` through quantize_linear and dequantize_linear with the int8
/// parameters of [lo, hi].
Value fakeQuantizeActivation(PatternRewriter &rw, Location loc, Value x,
                             std::pair<float, float> range) {
  ActivationQuantParams p = activationQuantParams(range.first, range.second);
  Type qType =
      p.isUnsigned ? rw.getIntegerType(8, /*isSigned=*/false) : rw.getI8Type();
  auto scaleType = RankedTensorType::get({}, rw.getF32Type());
  auto zpType = RankedTensorType::get({}, qType);
  Value scale = rw.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(scaleType, p.scale));
  Value zp = rw.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(zpType, APInt(8, (uint64_t)p.zeroPoint,
                                                /*isSigned=*/true)));
  auto xType = cast<RankedTensorType>(x.getType());
  Value q = rw.create<QuantizeLinearOp>(loc, xType.clone(qType), x, scale, zp,
                                        rw.getI64IntegerAttr(0));
  return rw.create<DequantizeLinearOp>(loc, xType, q, scale, zp,
                                       rw.getI64IntegerAttr(0));
}

/// The constant weight `w` as dequantize_linear of per-channel symmetric
/// int8 values along `axis`.
Value quantizeWeight(PatternRewriter &rw, Location loc, Value w, int64_t axis) {
  auto type = cast<RankedTensorType>(w.getType());
  SmallVector<float> values = *constFloats(w);
  QuantizedWeights q = quantizeWeightsPerChannel(values, type.getShape(), axis);
  auto qType = type.clone(rw.getI8Type());
  ArrayRef<char> raw(reinterpret_cast<const char *>(q.values.data()),
                     q.values.size());
  Attribute qAttr = makeWeightAttr(qType, raw, "dlc_int8_weight");
  int64_t channels = type.getDimSize(axis);
  auto scaleType = RankedTensorType::get({channels}, rw.getF32Type());
  auto zpType = RankedTensorType::get({channels}, rw.getI8Type());
  Value wq = rw.create<arith::ConstantOp>(loc, cast<TypedAttr>(qAttr));
  Value scale = rw.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(scaleType, ArrayRef<float>(q.scales)));
  Value zp = rw.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(zpType, APInt(8, 0)));
  return rw.create<DequantizeLinearOp>(loc, type, wq, scale, zp,
                                       rw.getI64IntegerAttr(axis));
}

/// Quantizes one marked Conv/Gemm/MatMul: operands `activations` through
/// their calibrated quantize/dequantize pairs, operand `weight` (if any) per
/// channel along `weightAxis`. With `residuals`, the dlc.add ops reading an
/// activation operand (residual connections) read its dequantized value too.
LogicalResult quantizeLayer(PatternRewriter &rw, Operation *op,
                            ArrayRef<unsigned> activations,
                            std::optional<unsigned> weight, int64_t weightAxis,
                            bool residuals) {
  if (!op->hasAttr(kInputRangesAttr))
    return failure();
  unsigned expected = quantizableActivationOperands(op);
  if (expected != activations.size())
    return failure();
  FailureOr<SmallVector<std::pair<float, float>>> ranges =
      readRanges(op, expected, /*emitErrors=*/false);
  if (failed(ranges))
    return failure();
  rw.setInsertionPoint(op);
  Location loc = op->getLoc();
  SmallVector<Value> newOperands(op->getOperands());
  for (auto [i, operand] : llvm::enumerate(activations)) {
    Value x = op->getOperand(operand);
    SmallVector<OpOperand *> adds;
    if (residuals)
      for (OpOperand &use : x.getUses())
        if (isa<AddOp>(use.getOwner()))
          adds.push_back(&use);
    // Next to x's definition when an add shares the pair: it may come first.
    OpBuilder::InsertionGuard guard(rw);
    if (!adds.empty())
      rw.setInsertionPointAfterValue(x);
    // A pool's quantize ends the previous layer's kernel: that layer's
    // name, not the pool's, names it.
    Location qLoc = isa<ReduceMeanOp>(op) ? x.getLoc() : loc;
    Value xd = fakeQuantizeActivation(rw, qLoc, x, (*ranges)[i]);
    newOperands[operand] = xd;
    for (OpOperand *use : adds)
      rw.modifyOpInPlace(use->getOwner(), [&] { use->set(xd); });
  }
  if (weight)
    newOperands[*weight] =
        quantizeWeight(rw, loc, op->getOperand(*weight), weightAxis);
  // The result, where it crosses kernels to a residual add (a ResNet
  // block's last conv, added to its downsample conv): dlc-fold-qdq then
  // requantizes it to int8 instead of storing the i32 accumulator.
  FailureOr<std::optional<std::pair<float, float>>> outputRange =
      readOutputRange(op, /*emitErrors=*/false);
  if (residuals && succeeded(outputRange) && *outputRange) {
    SmallVector<OpOperand *> adds = addsWithLaterLayer(op);
    if (!adds.empty()) {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointAfter(op);
      Value yd = fakeQuantizeActivation(rw, loc, op->getResult(0),
                                        **outputRange);
      for (OpOperand *use : adds)
        rw.modifyOpInPlace(use->getOwner(), [&] { use->set(yd); });
    }
  }
  rw.modifyOpInPlace(op, [&] {
    op->setOperands(newOperands);
    op->removeAttr(kInputRangesAttr);
    op->removeAttr(kOutputRangeAttr);
  });
  return success();
}

/// A quantizing pattern with the pass's `residuals` choice.
template <typename OpTy>
struct QuantizeLayerPattern : OpRewritePattern<OpTy> {
  QuantizeLayerPattern(MLIRContext *context, bool residuals)
      : OpRewritePattern<OpTy>(context), residuals(residuals) {}
  bool residuals;
};

struct QuantizeConv : QuantizeLayerPattern<ConvOp> {
  using QuantizeLayerPattern::QuantizeLayerPattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    return quantizeLayer(rewriter, op, {0}, 1u, /*weightAxis=*/0, residuals);
  }
};

struct QuantizeGemm : QuantizeLayerPattern<GemmOp> {
  using QuantizeLayerPattern::QuantizeLayerPattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    return quantizeLayer(rewriter, op, {0}, 1u, op.getTransB() ? 0 : 1,
                         residuals);
  }
};

struct QuantizeMatMul : QuantizeLayerPattern<MatMulOp> {
  using QuantizeLayerPattern::QuantizeLayerPattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    if (quantizableActivationOperands(op) == 2)
      return quantizeLayer(rewriter, op, {0, 1}, std::nullopt, 0, residuals);
    return quantizeLayer(rewriter, op, {0}, 1u,
                         op.getRhs().getType().getRank() - 1, residuals);
  }
};

/// A global average pool's input, so that the layer before it requantizes
/// to int8 (ResNet's last block: 3.2 instead of 12.8 MB at batch 32).
struct QuantizeGlobalAveragePool : QuantizeLayerPattern<ReduceMeanOp> {
  using QuantizeLayerPattern::QuantizeLayerPattern;
  LogicalResult matchAndRewrite(ReduceMeanOp op,
                                PatternRewriter &rewriter) const override {
    return quantizeLayer(rewriter, op, {0}, std::nullopt, 0, residuals);
  }
};

struct QuantizeModelPass : dlc::impl::QuantizeModelPassBase<QuantizeModelPass> {
  using QuantizeModelPassBase::QuantizeModelPassBase;
  void runOnOperation() override {
    // Every marked op must be quantizable and carry well-formed ranges; a
    // mark that cannot be honoured is an error, never a silent float op.
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (op->hasAttr(kOutputRangeAttr) && !op->hasAttr(kInputRangesAttr)) {
        op->emitError() << "'" << kOutputRangeAttr << "' without '"
                        << kInputRangesAttr << "'";
        ok = false;
        return;
      }
      if (!op->hasAttr(kInputRangesAttr))
        return;
      ok &= succeeded(readOutputRange(op, /*emitErrors=*/true));
      std::string why;
      unsigned n = quantizableActivationOperands(op, &why);
      if (n == 0) {
        op->emitError() << "cannot quantize: " << why;
        ok = false;
        return;
      }
      ok &= succeeded(readRanges(op, n, /*emitErrors=*/true));
    });
    if (!ok)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateQuantizeModelPatterns(patterns, quantizeResiduals);
    // The quantization ops have no folders: the new weight
    // quantize/dequantize pairs stay for dlc-fold-qdq.
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateQuantizeModelPatterns(RewritePatternSet &patterns,
                                              bool residuals) {
  patterns.add<QuantizeConv, QuantizeGemm, QuantizeMatMul,
               QuantizeGlobalAveragePool>(patterns.getContext(), residuals);
}
