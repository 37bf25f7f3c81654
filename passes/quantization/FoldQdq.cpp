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
// Before that, a first step moves quantize_linear ops up through the ops
// that commute with quantization (Relu, Clip, MaxPool, Reshape, Transpose,
// Concat), towards an op that folds or a dequantize_linear with the same
// parameters (the pair cancels), so that int8 tensors flow between
// quantized layers instead of float ones.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
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
  std::function<Value(PatternRewriter &, Type, Value xq, Value wq, Value xzp,
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

/// What folding one float op computes before it rewrites anything, so the
/// quantize-chaining step can ask whether an op will fold.
struct FoldPlan {
  Dequantized x, w;
  int64_t channels;
  /// x_scale * w_scale[c] * alpha, as the QLinear importers compute it.
  SmallVector<float> accScale;
  std::optional<SmallVector<int32_t>> bias;
};

/// The fold of `spec`, or failure with the reason in `why`.
FailureOr<FoldPlan> planFold(const FoldSpec &spec, const char *&why) {
  Operation *op = spec.op;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  why = "not f32";
  if (!resultType.getElementType().isF32())
    return failure();
  std::optional<Dequantized> x = matchDequantized(spec.x);
  std::optional<Dequantized> w = matchDequantized(spec.w);
  why = "operands are not constant-parameter dequantize_linear of i8/ui8";
  if (!x || !w)
    return failure();
  why = "activation is not quantized per tensor";
  if (x->perAxis || x->scale.size() != 1)
    return failure();
  why = "weight is not quantized per output channel";
  if (w->perAxis && (int64_t)w->op.getAxis() != spec.weightAxis)
    return failure();
  int64_t channels = resultType.getDimSize(spec.channelAxis);
  why = "channel count mismatch";
  if (ShapedType::isDynamic(channels) ||
      (w->scale.size() != 1 && (int64_t)w->scale.size() != channels))
    return failure();

  FoldPlan plan{*x, *w, channels, {}, std::nullopt};
  for (int64_t c = 0; c < channels; ++c)
    plan.accScale.push_back(
        x->scale[0] * w->scale[w->scale.size() == 1 ? 0 : c] * spec.alpha);
  if (spec.bias) {
    plan.bias = biasOnAccScale(spec.bias, spec.beta, plan.accScale);
    why = "bias is not a per-channel constant";
    if (!plan.bias)
      return failure();
  }
  return plan;
}

LogicalResult foldQdq(PatternRewriter &rw, const FoldSpec &spec) {
  Operation *op = spec.op;
  const char *why = "";
  FailureOr<FoldPlan> planned = planFold(spec, why);
  if (failed(planned))
    return rw.notifyMatchFailure(op, why);
  const FoldPlan &plan = *planned;
  Dequantized x = plan.x, w = plan.w;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t channels = plan.channels;
  const std::optional<SmallVector<int32_t>> &bias = plan.bias;

  // Each quantize_linear user must be per tensor with constant parameters,
  // to an 8-bit type; otherwise it reads the float epilogue (a 16-bit
  // activation after an int8 layer, as ONNX Runtime's mixed-precision
  // overrides write, is quantized from the dequantized accumulator).
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
        isQuantType(q.getType().getElementType()) &&
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
  Value acc = spec.build(rw, accType, x.op.getInput(), w.op.getInput(),
                         x.op.getZeroPoint(), w.op.getZeroPoint());
  bool perChannel = w.scale.size() != 1 || bias;
  Value biasValue = bias ? i32Constant(rw, loc, {channels}, *bias) : Value();

  for (Requant r : requants) {
    SmallVector<float> m;
    for (float wsc : w.scale)
      m.push_back(x.scale[0] * wsc / r.scale);
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
      scale = f32Constant(rw, loc, {channels}, plan.accScale);
      zp = i32Constant(rw, loc, {channels}, negBias);
    } else {
      scale = f32Constant(rw, loc, {}, plan.accScale[0]);
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

/// The fold description of a dlc.conv, dlc.gemm or dlc.matmul (nullopt for
/// other ops and the forms that never fold).
std::optional<FoldSpec> foldSpec(Operation *operation) {
  if (auto op = dyn_cast<ConvOp>(operation)) {
    // Folding reads the channel axis as dim 1 (it runs before
    // dlc-convert-conv-layout).
    if (op.getChannelsLast())
      return std::nullopt;
    auto build = [op](PatternRewriter &rw, Type type, Value xq, Value wq,
                      Value xzp, Value wzp) mutable -> Value {
      return rw.create<ConvIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                      op.getStridesAttr(), op.getPadsAttr(),
                                      op.getDilationsAttr(), op.getGroupAttr(),
                                      /*channels_last=*/nullptr);
    };
    return FoldSpec{op,
                    op.getInput(),
                    op.getWeight(),
                    op.getBias(),
                    /*channelAxis=*/1,
                    /*weightAxis=*/0,
                    1.0f,
                    1.0f,
                    build};
  }
  if (auto op = dyn_cast<GemmOp>(operation)) {
    if (op.getTransA() || op.getA().getType().getRank() != 2 ||
        op.getAlpha().convertToFloat() == 0.0f)
      return std::nullopt;
    bool transB = op.getTransB();
    auto build = [op, transB](PatternRewriter &rw, Type type, Value xq,
                              Value wq, Value xzp, Value wzp) mutable -> Value {
      return rw.create<MatMulIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                        rw.getBoolAttr(transB));
    };
    return FoldSpec{op,
                    op.getA(),
                    op.getB(),
                    op.getC(),
                    /*channelAxis=*/1,
                    /*weightAxis=*/transB ? 0 : 1,
                    op.getAlpha().convertToFloat(),
                    op.getBeta().convertToFloat(),
                    build};
  }
  if (auto op = dyn_cast<MatMulOp>(operation)) {
    int64_t rank = op.getType().getRank();
    int64_t rhsRank = op.getRhs().getType().getRank();
    auto build = [op](PatternRewriter &rw, Type type, Value xq, Value wq,
                      Value xzp, Value wzp) mutable -> Value {
      return rw.create<MatMulIntegerOp>(op.getLoc(), type, xq, wq, xzp, wzp,
                                        rw.getBoolAttr(false));
    };
    return FoldSpec{op,          op.getLhs(), op.getRhs(), Value(), rank - 1,
                    rhsRank - 1, 1.0f,        1.0f,        build};
  }
  return std::nullopt;
}

template <typename OpTy> struct FoldQdqOp : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<FoldSpec> spec = foldSpec(op);
    if (!spec)
      return rewriter.notifyMatchFailure(op, "transposed or non-2-D A, or "
                                             "alpha = 0");
    return foldQdq(rewriter, *spec);
  }
};

//===----------------------------------------------------------------------===//
// Chaining: quantize_linear moves up through quantization-commuting ops
//===----------------------------------------------------------------------===//

/// Constant per-tensor quantization parameters of a quantize_linear or
/// dequantize_linear. Two equal ones describe the same int8 grid.
struct QuantParams {
  float scale;
  int64_t zeroPoint;
  Type quantType; // i8 or ui8
  bool operator==(const QuantParams &o) const {
    return scale == o.scale && zeroPoint == o.zeroPoint &&
           quantType == o.quantType;
  }
};

std::optional<QuantParams> perTensorParams(Value scale, Value zeroPoint,
                                           Type quantType) {
  if (cast<RankedTensorType>(scale.getType()).getRank() != 0)
    return std::nullopt;
  std::optional<SmallVector<float>> s = constFloats(scale);
  std::optional<SmallVector<int64_t>> zp = constInts(zeroPoint);
  // Normal scales only: then (q - zp) * s / s gives q - zp back exactly, so
  // a quantize of a dequantize with the same parameters is the identity.
  if (!s || !zp || s->size() != 1 || zp->size() != 1 ||
      !std::isnormal((*s)[0]) || (*s)[0] < 0.0f || (*s)[0] > 1e30f)
    return std::nullopt;
  return QuantParams{(*s)[0], (*zp)[0], quantType};
}

std::optional<QuantParams> paramsOf(QuantizeLinearOp q) {
  // 16-bit grids stay with their float ops: the integer kernels, and the
  // commuting ops' integer forms, are 8-bit.
  if (!isQuantType(q.getType().getElementType()))
    return std::nullopt;
  return perTensorParams(q.getScale(), q.getZeroPoint(),
                         q.getType().getElementType());
}

std::optional<QuantParams> paramsOf(DequantizeLinearOp dq) {
  if (!dq.getType().getElementType().isF32() ||
      !isQuantType(dq.getInput().getType().getElementType()))
    return std::nullopt;
  return perTensorParams(dq.getScale(), dq.getZeroPoint(),
                         dq.getInput().getType().getElementType());
}

/// The ops q(op(x...)) = op(q(x)...) holds for, for a quantization q with
/// a positive scale: data movement, and the monotone ones (q is
/// non-decreasing, so it commutes with max and clamping).
bool commutesWithQuantize(Operation *op) {
  if (isa<ReshapeOp, TransposeOp, ConcatOp, ReluOp, ClipOp>(op))
    return true;
  // Float padding reads -inf, the integer one the type's lowest value:
  // q(-inf) saturates to that value.
  return isa<MaxPoolOp>(op);
}

/// Every reader of `v`, when each is a quantize_linear to the grid `p`;
/// nullopt when `v` has another reader (a model output, an fp32 op, another
/// grid), which needs the float value itself.
std::optional<SmallVector<QuantizeLinearOp>>
quantizesOnGrid(Value v, const QuantParams &p) {
  SmallVector<QuantizeLinearOp> quantizes;
  for (Operation *user : v.getUsers()) {
    auto q = dyn_cast<QuantizeLinearOp>(user);
    std::optional<QuantParams> qp = q ? paramsOf(q) : std::nullopt;
    if (!qp || !(*qp == p))
      return std::nullopt;
    quantizes.push_back(q);
  }
  return quantizes;
}

/// Whether `v` is only read by `user`: then quantizing it in its producer
/// removes the float tensor.
bool onlyReadBy(Value v, Operation *user) {
  return !v.use_empty() &&
         llvm::all_of(v.getUsers(), [&](Operation *u) { return u == user; });
}

/// Whether quantizing `v` (read by `user`) with `p` never stores `v` in
/// float: `v` is a dequantize_linear with the same parameters (the pair
/// cancels), or, read by `user` alone, a Conv/Gemm/MatMul (whose epilogue
/// quantizes) or a commuting op whose inputs chain in turn.
bool chainsToInt8(Value v, Operation *user, const QuantParams &p,
                  unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (auto dq = dyn_cast<DequantizeLinearOp>(def)) {
    std::optional<QuantParams> dp = paramsOf(dq);
    return dp && *dp == p;
  }
  // A value with another reader stays float; quantizing it too would only
  // add an epilogue.
  if (!onlyReadBy(v, user))
    return false;
  // A Conv/Gemm/MatMul: one that folds takes the quantize as its
  // requantizing epilogue; one left in float (a kept first layer: ResNet's
  // stem before its MaxPool) quantizes in its float epilogue. Either way it
  // stores int8.
  if (isa<ConvOp, GemmOp, MatMulOp>(def))
    return true;
  if (!commutesWithQuantize(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value in) {
    return chainsToInt8(in, def, p, depth + 1);
  });
}

/// q = saturate(round_half_even(x / scale) + zp) of one float, as
/// dlc.quantize_linear computes it (in f32).
int64_t quantizeScalar(double x, const QuantParams &p) {
  bool isUnsigned = p.quantType.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -128, hi = isUnsigned ? 255 : 127;
  float v = (float)x / p.scale;
  if (std::isnan(v))
    return (int64_t)lo;
  double q =
      std::clamp((double)std::nearbyint(v) + (double)p.zeroPoint, lo, hi);
  return (int64_t)q;
}

/// quantize_linear(op(x...)) -> op'(quantize_linear(x)...) for an op that
/// commutes with quantization, when every input chains to int8 work (see
/// chainsToInt8) and the op's float result is read by nothing but
/// quantize_linear ops with the same parameters. Relu becomes a Clip at
/// the zero point, a Clip gets its quantized bounds: q is non-decreasing,
/// so q(clip(x, lo, hi)) = clip(q(x), q(lo), q(hi)).
struct QuantizeThroughCommutingOp : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp q,
                                PatternRewriter &rw) const override {
    std::optional<QuantParams> p = paramsOf(q);
    Operation *op = q.getInput().getDefiningOp();
    if (!p || !op || op->getNumResults() != 1 || !commutesWithQuantize(op))
      return rw.notifyMatchFailure(q, "not a per-tensor quantize of a "
                                      "commuting op");
    auto floatType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!floatType.getElementType().isF32())
      return rw.notifyMatchFailure(q, "not f32");
    // Every reader of the float result is a quantize_linear to the same
    // grid; a model output or an fp32 consumer keeps the float op.
    std::optional<SmallVector<QuantizeLinearOp>> quantizes =
        quantizesOnGrid(op->getResult(0), *p);
    if (!quantizes)
      return rw.notifyMatchFailure(q, "the float result has other readers");
    if (auto clip = dyn_cast<ClipOp>(op);
        clip && (std::isnan(clip.getMin().convertToDouble()) ||
                 std::isnan(clip.getMax().convertToDouble())))
      return rw.notifyMatchFailure(q, "NaN clip bound");
    for (Value in : op->getOperands())
      if (!chainsToInt8(in, op, *p))
        return rw.notifyMatchFailure(q, "an input does not chain to int8");

    // The parameters are constants; copies at `op` dominate its inputs'
    // new quantize ops wherever the originals were defined.
    rw.setInsertionPoint(op);
    Value scale = rw.clone(*q.getScale().getDefiningOp())->getResult(0);
    Value zeroPoint = rw.clone(*q.getZeroPoint().getDefiningOp())->getResult(0);
    IRMapping mapping;
    for (Value in : op->getOperands()) {
      if (mapping.contains(in))
        continue;
      auto inType = cast<RankedTensorType>(in.getType());
      Value qin =
          rw.create<QuantizeLinearOp>(q.getLoc(), inType.clone(p->quantType),
                                      in, scale, zeroPoint, q.getAxisAttr());
      mapping.map(in, qin);
    }
    Type intType = floatType.clone(p->quantType);
    Value result;
    if (isa<ReluOp, ClipOp>(op)) {
      int64_t typeMin = p->quantType.isUnsignedInteger() ? 0 : -128;
      int64_t typeMax = p->quantType.isUnsignedInteger() ? 255 : 127;
      int64_t lo = p->zeroPoint, hi = typeMax; // relu: q(0) = zp
      if (auto clip = dyn_cast<ClipOp>(op)) {
        lo = quantizeScalar(clip.getMin().convertToDouble(), *p);
        hi = quantizeScalar(clip.getMax().convertToDouble(), *p);
      }
      result = mapping.lookup(op->getOperand(0));
      // A clamp to the whole type (a Relu whose zero point is the lowest
      // value, as calibrated post-Relu ranges give) is the saturation the
      // producer's quantize already does.
      if (lo > typeMin || hi < typeMax)
        result = rw.create<ClipOp>(op->getLoc(), intType, result,
                                   rw.getF64FloatAttr((double)lo),
                                   rw.getF64FloatAttr((double)hi));
    } else {
      Operation *intOp = rw.clone(*op, mapping);
      intOp->getResult(0).setType(intType);
      result = intOp->getResult(0);
    }
    for (QuantizeLinearOp other : *quantizes)
      rw.replaceOp(other, result);
    return success();
  }
};

/// quantize_linear(dequantize_linear(x)) -> x on the same grid: exact, since
/// (x - zp) * s / s rounds back to x - zp for normal scales.
struct CancelQuantizeOfDequantize : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp q,
                                PatternRewriter &rw) const override {
    auto dq = q.getInput().getDefiningOp<DequantizeLinearOp>();
    std::optional<QuantParams> p = paramsOf(q);
    std::optional<QuantParams> dp = dq ? paramsOf(dq) : std::nullopt;
    if (!p || !dp || !(*p == *dp) || dq.getInput().getType() != q.getType())
      return rw.notifyMatchFailure(q, "not a dequantize on the same grid");
    rw.replaceOp(q, dq.getInput());
    return success();
  }
};

/// quantize_linear(relu?(add(dequantize_linear(a, sa), dequantize_linear(b,
/// sb))), sy) -> quantize_linear(relu?(add(dequantize_linear(a, sa / sy),
/// dequantize_linear(b, sb / sy))), 1): the output scale joins the inputs'
/// scales (relu(x) / sy = relu(x / sy) for sy > 0), as dlc.requantize's
/// multiplier and ONNX Runtime's QLinearAdd do, so the epilogue of a
/// residual block scales each input once and divides by nothing. The
/// rounding differs from the float sum's by an ulp before the quantize.
struct RescaleDequantizedSum : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp q,
                                PatternRewriter &rw) const override {
    std::optional<QuantParams> p = paramsOf(q);
    if (!p || p->scale == 1.0f)
      return rw.notifyMatchFailure(q, "not a per-tensor quantize, or "
                                      "already on a unit scale");
    Value sum = q.getInput();
    auto relu = sum.getDefiningOp<ReluOp>();
    if (relu)
      sum = relu.getInput();
    auto add = sum.getDefiningOp<AddOp>();
    if (!add || !add.getType().getElementType().isF32())
      return rw.notifyMatchFailure(q, "not a quantize of an f32 add (or of "
                                      "its relu)");
    // The float sum is read by nothing else: another reader would need
    // it on its own scale.
    std::optional<SmallVector<QuantizeLinearOp>> quantizes =
        quantizesOnGrid(q.getInput(), *p);
    if (!quantizes)
      return rw.notifyMatchFailure(q, "the float sum has other readers");
    if (relu && !add->hasOneUse())
      return rw.notifyMatchFailure(q, "the sum before the relu has other "
                                      "readers");

    // Each input's scale over the output's, still a normal f32.
    SmallVector<SmallVector<float>> scales;
    for (Value in : add->getOperands()) {
      auto dq = in.getDefiningOp<DequantizeLinearOp>();
      std::optional<SmallVector<float>> s =
          dq && dq.getType().getElementType().isF32()
              ? constFloats(dq.getScale())
              : std::nullopt;
      if (!s)
        return rw.notifyMatchFailure(q, "an addend is not a constant-scale "
                                        "dequantize_linear to f32");
      for (float &v : *s) {
        v /= p->scale;
        if (!std::isnormal(v) || v < 0.0f)
          return rw.notifyMatchFailure(q, "a rescaled scale is not a "
                                          "positive normal f32");
      }
      scales.push_back(std::move(*s));
    }

    Location loc = add.getLoc();
    rw.setInsertionPoint(add);
    SmallVector<Value> addends;
    for (auto [in, s] : llvm::zip_equal(add->getOperands(), scales)) {
      auto dq = in.getDefiningOp<DequantizeLinearOp>();
      Value scale = f32Constant(
          rw, dq.getLoc(),
          cast<RankedTensorType>(dq.getScale().getType()).getShape(), s);
      addends.push_back(rw.create<DequantizeLinearOp>(
          dq.getLoc(), dq.getType(), dq.getInput(), scale, dq.getZeroPoint(),
          dq.getAxisAttr()));
    }
    Value rescaled =
        rw.create<AddOp>(loc, add.getType(), addends[0], addends[1]);
    if (relu)
      rescaled = rw.create<ReluOp>(relu.getLoc(), relu.getType(), rescaled);
    Value unit = f32Constant(rw, q.getLoc(), {}, {1.0f});
    Value zeroPoint = rw.clone(*q.getZeroPoint().getDefiningOp())->getResult(0);
    Value quantized = rw.create<QuantizeLinearOp>(
        q.getLoc(), q.getType(), rescaled, unit, zeroPoint, q.getAxisAttr());
    for (QuantizeLinearOp other : *quantizes)
      rw.replaceOp(other, quantized);
    return success();
  }
};

struct FoldQdqPass : dlc::impl::FoldQdqPassBase<FoldQdqPass> {
  void runOnOperation() override {
    // Chaining first, on the float graph: a Conv must see the quantize
    // moved up to it before it folds, or it would fold with a float
    // epilogue.
    RewritePatternSet chain(&getContext());
    populateQuantizeChainPatterns(chain);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(chain))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateFoldQdqPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    markNotFolded();
  }

  /// Marks each float Conv/Gemm/MatMul that reads a dequantize_linear (the
  /// model meant it quantized) with why it stayed float: a QDQ model's
  /// layers that run in fp32 are then listed in --report-json, as
  /// TensorRT's build log lists its fallbacks.
  void markNotFolded() {
    getOperation().walk([](Operation *op) {
      if (!isa<ConvOp, GemmOp, MatMulOp>(op) ||
          llvm::none_of(op->getOperands(), [](Value v) {
            return isa_and_nonnull<DequantizeLinearOp>(v.getDefiningOp());
          }))
        return;
      const char *why = "transposed or non-2-D A, or alpha = 0";
      if (std::optional<FoldSpec> spec = foldSpec(op))
        if (succeeded(planFold(*spec, why)))
          why = "foldable, but not folded";
      op->setAttr(attrs::kNotFolded, StringAttr::get(op->getContext(), why));
    });
  }
};
} // namespace

void mlir::dlc::populateQuantizeChainPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantizeThroughCommutingOp, CancelQuantizeOfDequantize>(
      patterns.getContext());
}

void mlir::dlc::populateFoldQdqPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldQdqOp<ConvOp>, FoldQdqOp<GemmOp>, FoldQdqOp<MatMulOp>,
               RescaleDequantizedSum>(patterns.getContext());
}
