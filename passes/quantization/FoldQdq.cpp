//===- FoldQdq.cpp - QDQ Conv/Gemm/MatMul to integer ops ---------*- C++
//-*-===//
//
// dequantize_linear -> dlc.conv / dlc.gemm / dlc.matmul -> quantize_linear
// becomes conv_integer / matmul_integer + requantize, with the same math as
// the QLinearConv / QLinearMatMul importers (compiler/onnx/QuantImporters.cpp):
// multiplier x_scale * w_scale[c] / y_scale in f32, i32 bias on the
// accumulator's scale x_scale * w_scale[c]. Uses of the float result other
// than a quantize_linear read dequantize_linear(acc, x_scale * w_scale[c],
// -bias[c]) = (acc + bias[c]) * x_scale * w_scale[c].
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::dlc {
#define GEN_PASS_DEF_FOLDQDQPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
bool isQuantType(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() == 8 && !i.isSigned();
}

/// A dequantize_linear of an i8/ui8 tensor with a constant f32 scale and a
/// constant zero point, producing f32.
struct Dequantized {
  DequantizeLinearOp op;
  SmallVector<float> scale;
  bool perAxis = false;
};

std::optional<Dequantized> matchDequantized(Value v) {
  auto op = v.getDefiningOp<DequantizeLinearOp>();
  if (!op || !op.getType().getElementType().isF32())
    return std::nullopt;
  if (!isQuantType(op.getInput().getType().getElementType()))
    return std::nullopt;
  std::optional<SmallVector<float>> scale = constFloats(op.getScale());
  if (!scale || !constInts(op.getZeroPoint()))
    return std::nullopt;
  Dequantized d{op, *scale,
                cast<RankedTensorType>(op.getScale().getType()).getRank() != 0};
  return d;
}

/// The description of one float op to fold.
struct FoldSpec {
  Operation *op;
  Value x, w, bias;
  int64_t channelAxis; // of the result
  int64_t weightAxis;  // output-channel axis of the weight
  float alpha = 1.0f, beta = 1.0f;
  /// Builds the i32 accumulator from the quantized operands.
  function_ref<Value(PatternRewriter &, Type, Value xq, Value wq, Value xzp,
                     Value wzp)>
      build;
};

Value f32Constant(PatternRewriter &rw, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, rw.getF32Type());
  return rw.create<arith::ConstantOp>(loc,
                                      DenseElementsAttr::get(type, values));
}

Value i32Constant(PatternRewriter &rw, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<int32_t> values) {
  auto type = RankedTensorType::get(shape, rw.getI32Type());
  return rw.create<arith::ConstantOp>(loc,
                                      DenseElementsAttr::get(type, values));
}

/// `v[i]`, or its only element when `v` holds one (per-tensor broadcast).
template <typename T> T at(ArrayRef<T> v, size_t i) {
  return v[v.size() == 1 ? 0 : i];
}

/// The bias as i32 on the accumulator scale `accScale[c]`, or nullopt if it
/// is not a constant (float, or dequantized i32) with one value per channel
/// (or a single value).
std::optional<SmallVector<int32_t>> biasOnAccScale(Value bias, float beta,
                                                   ArrayRef<float> accScale) {
  int64_t channels = accScale.size();
  auto type = cast<RankedTensorType>(bias.getType());
  if (!type.getElementType().isF32() ||
      (type.getNumElements() != channels && type.getNumElements() != 1))
    return std::nullopt;
  // Only [C], [1, C] or a single value broadcast along the channels.
  if (type.getNumElements() == channels && channels != 1 &&
      type.getShape().back() != channels)
    return std::nullopt;
  SmallVector<float> floats;
  if (auto dq = bias.getDefiningOp<DequantizeLinearOp>()) {
    std::optional<SmallVector<int64_t>> q = constInts(dq.getInput()),
                                        zp = constInts(dq.getZeroPoint());
    std::optional<SmallVector<float>> s = constFloats(dq.getScale());
    if (!q || !zp || !s ||
        !dq.getInput().getType().getElementType().isInteger(32))
      return std::nullopt;
    // The int32 values as they are when they already are on the
    // accumulator's scale (the QDQ quantizer's bias).
    bool exact = beta == 1.0f && q->size() == (size_t)channels;
    for (int64_t c = 0; c < channels && exact; ++c)
      exact = at<int64_t>(*zp, c) == 0 &&
              std::fabs(at<float>(*s, c) - accScale[c]) <=
                  1e-6f * std::fabs(accScale[c]);
    if (exact)
      return SmallVector<int32_t>(q->begin(), q->end());
    for (size_t i = 0; i < q->size(); ++i)
      floats.push_back((float)((*q)[i] - at<int64_t>(*zp, i)) *
                       at<float>(*s, i));
  } else if (std::optional<SmallVector<float>> f = constFloats(bias)) {
    floats = *f;
  } else {
    return std::nullopt;
  }
  SmallVector<int32_t> out;
  for (int64_t c = 0; c < channels; ++c) {
    double b = (double)floats[floats.size() == 1 ? 0 : c] * beta;
    if (accScale[c] == 0.0f)
      return std::nullopt;
    double q = std::nearbyint(b / (double)accScale[c]);
    if (!(std::fabs(q) < 2147483647.0))
      return std::nullopt;
    out.push_back((int32_t)q);
  }
  return out;
}

LogicalResult foldQdq(PatternRewriter &rw, const FoldSpec &spec) {
  Operation *op = spec.op;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType.getElementType().isF32())
    return rw.notifyMatchFailure(op, "not f32");
  std::optional<Dequantized> x = matchDequantized(spec.x);
  std::optional<Dequantized> w = matchDequantized(spec.w);
  if (!x || !w)
    return rw.notifyMatchFailure(op, "operands are not constant-parameter "
                                     "dequantize_linear of i8/ui8");
  if (x->perAxis || x->scale.size() != 1)
    return rw.notifyMatchFailure(op, "activation is not quantized per tensor");
  if (w->perAxis && (int64_t)w->op.getAxis() != spec.weightAxis)
    return rw.notifyMatchFailure(op, "weight is not quantized per output "
                                     "channel");
  int64_t channels = resultType.getDimSize(spec.channelAxis);
  if (ShapedType::isDynamic(channels) ||
      (w->scale.size() != 1 && (int64_t)w->scale.size() != channels))
    return rw.notifyMatchFailure(op, "channel count mismatch");

  // The accumulator's scale, as the QLinear importers compute it.
  SmallVector<float> accScale;
  for (int64_t c = 0; c < channels; ++c)
    accScale.push_back(x->scale[0] * w->scale[w->scale.size() == 1 ? 0 : c] *
                       spec.alpha);
  std::optional<SmallVector<int32_t>> bias;
  if (spec.bias) {
    bias = biasOnAccScale(spec.bias, spec.beta, accScale);
    if (!bias)
      return rw.notifyMatchFailure(op, "bias is not a per-channel constant");
  }

  // Each quantize_linear user must be per tensor with constant parameters;
  // otherwise it reads the float epilogue.
  struct Requant {
    QuantizeLinearOp op;
    float scale;
  };
  SmallVector<Requant> requants;
  bool needsFloat = false;
  for (Operation *user : op->getResult(0).getUsers()) {
    auto q = dyn_cast<QuantizeLinearOp>(user);
    std::optional<SmallVector<float>> ys =
        q ? constFloats(q.getScale()) : std::nullopt;
    if (q && ys && ys->size() == 1 &&
        cast<RankedTensorType>(q.getScale().getType()).getRank() == 0 &&
        constInts(q.getZeroPoint()) && (*ys)[0] != 0.0f) {
      if (!llvm::any_of(requants, [&](const Requant &r) { return r.op == q; }))
        requants.push_back({q, (*ys)[0]});
    } else {
      needsFloat = true;
    }
  }

  Location loc = op->getLoc();
  auto accType = RankedTensorType::get(resultType.getShape(), rw.getI32Type());
  Value acc = spec.build(rw, accType, x->op.getInput(), w->op.getInput(),
                         x->op.getZeroPoint(), w->op.getZeroPoint());
  bool perChannel = w->scale.size() != 1 || bias;
  Value biasValue = bias ? i32Constant(rw, loc, {channels}, *bias) : Value();

  for (Requant r : requants) {
    SmallVector<float> m;
    for (float wsc : w->scale)
      m.push_back(x->scale[0] * wsc / r.scale);
    if (spec.alpha != 1.0f)
      for (float &v : m)
        v *= spec.alpha;
    Value mult = m.size() == 1 ? f32Constant(rw, loc, {}, m)
                               : f32Constant(rw, loc, {(int64_t)m.size()}, m);
    Value requant = rw.create<RequantizeOp>(
        r.op.getLoc(), r.op.getType(), acc, biasValue, mult,
        r.op.getZeroPoint(), rw.getI64IntegerAttr(spec.channelAxis));
    rw.replaceOp(r.op, requant);
  }

  if (needsFloat) {
    Value scale, zp;
    if (perChannel) {
      SmallVector<int32_t> negBias(channels, 0);
      if (bias)
        for (int64_t c = 0; c < channels; ++c)
          negBias[c] = (*bias)[c] == std::numeric_limits<int32_t>::min()
                           ? std::numeric_limits<int32_t>::max()
                           : -(*bias)[c];
      scale = f32Constant(rw, loc, {channels}, accScale);
      zp = i32Constant(rw, loc, {channels}, negBias);
    } else {
      scale = f32Constant(rw, loc, {}, accScale[0]);
      zp = i32Constant(rw, loc, {}, {0});
    }
    Value result = rw.create<DequantizeLinearOp>(
        loc, resultType, acc, scale, zp,
        rw.getI64IntegerAttr(perChannel ? spec.channelAxis : 0));
    rw.replaceOp(op, result);
  } else {
    rw.eraseOp(op);
  }
  return success();
}

struct FoldQdqConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto build = [&](PatternRewriter &rw, Type type, Value xq, Value wq,
                     Value xzp, Value wzp) -> Value {
      return rw.create<ConvIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                      op.getStridesAttr(), op.getPadsAttr(),
                                      op.getDilationsAttr(), op.getGroupAttr());
    };
    FoldSpec spec{op,
                  op.getInput(),
                  op.getWeight(),
                  op.getBias(),
                  /*channelAxis=*/1,
                  /*weightAxis=*/0,
                  1.0f,
                  1.0f,
                  build};
    return foldQdq(rewriter, spec);
  }
};

struct FoldQdqGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTransA() || op.getA().getType().getRank() != 2)
      return rewriter.notifyMatchFailure(op, "transposed or non-2-D A");
    if (op.getAlpha().convertToFloat() == 0.0f)
      return rewriter.notifyMatchFailure(op, "alpha = 0");
    bool transB = op.getTransB();
    auto build = [&](PatternRewriter &rw, Type type, Value xq, Value wq,
                     Value xzp, Value wzp) -> Value {
      return rw.create<MatMulIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                        rw.getBoolAttr(transB));
    };
    FoldSpec spec{op,
                  op.getA(),
                  op.getB(),
                  op.getC(),
                  /*channelAxis=*/1,
                  /*weightAxis=*/transB ? 0 : 1,
                  op.getAlpha().convertToFloat(),
                  op.getBeta().convertToFloat(),
                  build};
    return foldQdq(rewriter, spec);
  }
};

struct FoldQdqMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    int64_t rhsRank = op.getRhs().getType().getRank();
    auto build = [&](PatternRewriter &rw, Type type, Value xq, Value wq,
                     Value xzp, Value wzp) -> Value {
      return rw.create<MatMulIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                        rw.getBoolAttr(false));
    };
    FoldSpec spec{op,          op.getLhs(), op.getRhs(), Value(), rank - 1,
                  rhsRank - 1, 1.0f,        1.0f,        build};
    return foldQdq(rewriter, spec);
  }
};

struct FoldQdqPass : dlc::impl::FoldQdqPassBase<FoldQdqPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldQdqPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateFoldQdqPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldQdqConv, FoldQdqGemm, FoldQdqMatMul>(patterns.getContext());
}
