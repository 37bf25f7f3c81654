//===- Quantization.cpp - int8 quantization math shared by passes -*- C++ -*-=//

#include "passes/quantization/Quantization.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Whether `v` is a constant f32 tensor (without reading its values).
bool isF32Constant(Value v) {
  auto constant = constantTensor(v);
  if (!constant || !constant->second.getElementType().isF32())
    return false;
  auto [a, type] = *constant;
  if (isa<DenseFPElementsAttr>(a))
    return true;
  // A blob of the wrong size (or an elided one) is not a usable weight.
  std::optional<ArrayRef<char>> data = resourceData(a);
  return data && (int64_t)data->size() == type.getNumElements() * 4;
}

bool isF32Tensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32() && t.hasStaticShape();
}

/// A bias dlc-fold-qdq folds: absent, or a constant f32 with one value per
/// output channel ([C] or [1, C]) or a single value.
bool isFoldableBias(Value bias, int64_t channels) {
  if (!bias)
    return true;
  auto type = cast<RankedTensorType>(bias.getType());
  if (!isF32Constant(bias))
    return false;
  if (type.getNumElements() == 1)
    return true;
  return type.getNumElements() == channels &&
         type.getShape().back() == channels;
}

unsigned fail(std::string *why, const char *reason) {
  if (why)
    *why = reason;
  return 0;
}
} // namespace

Attribute mlir::dlc::makeWeightAttr(RankedTensorType type, ArrayRef<char> raw,
                                    StringRef blobName) {
  if (type.getNumElements() <= 8)
    return DenseElementsAttr::getFromRawBuffer(type, raw);
  return DenseResourceElementsAttr::get(
      type, blobName, HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, 64));
}

RankedTensorType mlir::dlc::permutedType(RankedTensorType type,
                                         ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

bool mlir::dlc::isReshapeLike(RankedTensorType type, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (type.getDimSize(p) == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

namespace {
/// The constant of type `to` whose element i is `attr`'s element
/// sourceOf[i] (of `type`), or zero where sourceOf[i] is -1; a blob result
/// is named after the source blob plus `blobSuffix`.
Attribute gatherConstant(Attribute attr, RankedTensorType type,
                         RankedTensorType to, ArrayRef<int64_t> sourceOf,
                         StringRef blobSuffix) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    SmallVector<Attribute> values(dense.getValues<Attribute>());
    Attribute zero = Builder(attr.getContext()).getZeroAttr(
        type.getElementType());
    SmallVector<Attribute> out;
    out.reserve(sourceOf.size());
    for (int64_t s : sourceOf)
      out.push_back(s < 0 ? zero : values[s]);
    return DenseElementsAttr::get(to, out);
  }
  std::optional<ArrayRef<char>> data = resourceData(attr);
  unsigned bits = type.getElementTypeBitWidth();
  int64_t n = type.getNumElements();
  if (!data || bits % 8 != 0 || (int64_t)data->size() != n * (bits / 8))
    return {};
  int64_t bytes = bits / 8;
  std::vector<char> raw(sourceOf.size() * bytes, 0);
  for (size_t flat = 0; flat < sourceOf.size(); ++flat)
    if (sourceOf[flat] >= 0)
      std::memcpy(raw.data() + flat * bytes,
                  data->data() + sourceOf[flat] * bytes, bytes);
  StringRef name =
      cast<DenseResourceElementsAttr>(attr).getRawHandle().getKey();
  return makeWeightAttr(to, raw, (name + blobSuffix).str());
}

} // namespace

Attribute mlir::dlc::permuteConstant(Attribute attr, RankedTensorType type,
                                     ArrayRef<int64_t> perm,
                                     StringRef blobSuffix) {
  RankedTensorType to = permutedType(type, perm);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat() || isReshapeLike(type, perm))
      return dense.reshape(to);
  }
  int64_t n = type.getNumElements();
  int64_t rank = type.getRank();
  // Source strides, and for each result index the source offset.
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.getDimSize(i + 1);
  SmallVector<int64_t> sourceOf(n);
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t off = 0;
    for (int64_t i = 0; i < rank; ++i)
      off += idx[i] * strides[perm[i]];
    sourceOf[flat] = off;
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < to.getDimSize(i))
        break;
      idx[i] = 0;
    }
  }
  return gatherConstant(attr, type, to, sourceOf, blobSuffix);
}

Value mlir::dlc::gatheredConstant(
    OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
    function_ref<int64_t(ArrayRef<int64_t>, ArrayRef<int64_t>)> sourceOf,
    StringRef blobSuffix) {
  auto constant = constantTensor(v);
  if (!constant)
    return {};
  auto [a, type] = *constant;
  auto to = RankedTensorType::get(shape, type.getElementType());
  SmallVector<int64_t> sources;
  sources.reserve(to.getNumElements());
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0, n = to.getNumElements(); flat < n; ++flat) {
    sources.push_back(sourceOf(idx, type.getShape()));
    for (int64_t i = int64_t(shape.size()) - 1; i >= 0; --i) {
      if (++idx[i] < shape[i])
        break;
      idx[i] = 0;
    }
  }
  Attribute gathered = gatherConstant(a, type, to, sources, blobSuffix);
  if (!gathered)
    return {};
  return b.create<arith::ConstantOp>(loc, cast<TypedAttr>(gathered));
}

Value mlir::dlc::paddedLastDimConstant(OpBuilder &b, Location loc, Value v,
                                       int64_t size, StringRef blobSuffix) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || size < type.getShape().back())
    return {};
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = size;
  return gatheredConstant(
      b, loc, v, shape,
      [](ArrayRef<int64_t> idx, ArrayRef<int64_t> from) -> int64_t {
        int64_t last = from.back();
        if (idx.back() >= last)
          return -1;
        int64_t flat = 0;
        for (size_t i = 0; i < idx.size(); ++i)
          flat = flat * from[i] + idx[i];
        return flat;
      },
      blobSuffix);
}

Value mlir::dlc::permutedConstant(OpBuilder &b, Location loc, Value v,
                                  ArrayRef<int64_t> perm,
                                  StringRef blobSuffix) {
  auto constant = constantTensor(v);
  if (!constant || constant->second.getRank() != (int64_t)perm.size())
    return {};
  Attribute permuted =
      permuteConstant(constant->first, constant->second, perm, blobSuffix);
  if (!permuted)
    return {};
  return b.create<arith::ConstantOp>(loc, cast<TypedAttr>(permuted));
}

Value mlir::dlc::widenedConstant(OpBuilder &b, Location loc, Value v,
                                 StringRef blobSuffix) {
  auto constant = constantTensor(v);
  if (!constant || !constant->second.getElementType().isInteger(8))
    return {};
  std::optional<SmallVector<int64_t>> values = constInts(v);
  auto [a, type] = *constant;
  if (!values || (int64_t)values->size() != type.getNumElements())
    return {};
  auto to = RankedTensorType::get(type.getShape(), b.getI16Type());
  SmallVector<int16_t> wide(values->begin(), values->end());
  Attribute attr;
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(a))
    attr = makeWeightAttr(
        to,
        ArrayRef<char>(reinterpret_cast<const char *>(wide.data()),
                       wide.size() * sizeof(int16_t)),
        (blob.getRawHandle().getKey() + blobSuffix).str());
  else
    attr = DenseElementsAttr::get(to, ArrayRef<int16_t>(wide));
  return b.create<arith::ConstantOp>(loc, cast<TypedAttr>(attr));
}

Value mlir::dlc::transposedConstant2D(OpBuilder &b, Location loc, Value v) {
  return permutedConstant(b, loc, v, {1, 0}, "_nk");
}

ActivationQuantParams mlir::dlc::activationQuantParams(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  ActivationQuantParams p;
  double range = (double)hi - (double)lo;
  if (!(range > 0.0) || !std::isfinite(range))
    return p;
  p.scale = (float)(range / 255.0);
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) {
    p.scale = 1.0f;
    return p;
  }
  if (lo == 0.0f) {
    p.isUnsigned = true;
    return p;
  }
  double zp = std::nearbyint(-128.0 - (double)lo / (double)p.scale);
  p.zeroPoint = (int8_t)std::clamp(zp, -128.0, 127.0);
  return p;
}

QuantizedWeights mlir::dlc::quantizeWeightsPerChannel(ArrayRef<float> weights,
                                                      ArrayRef<int64_t> shape,
                                                      int64_t axis) {
  int64_t channels = shape[axis], inner = 1;
  for (int64_t d : shape.drop_front(axis + 1))
    inner *= d;
  QuantizedWeights q;
  q.scales.assign(channels, 0.0f);
  q.values.resize(weights.size());
  // Element i lies in channel (i / inner) % channels.
  for (size_t i = 0; i < weights.size(); ++i) {
    float &m = q.scales[(i / inner) % channels];
    m = std::max(m, std::fabs(weights[i]));
  }
  for (float &s : q.scales)
    s = s > 0.0f && std::isfinite(s) ? s / 127.0f : 1.0f;
  for (size_t i = 0; i < weights.size(); ++i) {
    double v = std::nearbyint((double)weights[i] /
                              (double)q.scales[(i / inner) % channels]);
    q.values[i] = (int8_t)std::clamp(std::isfinite(v) ? v : 0.0, -127.0, 127.0);
  }
  return q;
}

unsigned mlir::dlc::quantizableActivationOperands(Operation *op,
                                                  std::string *why) {
  if (op->getNumResults() != 1 || !isF32Tensor(op->getResult(0)))
    return fail(why, "the result is not a static f32 tensor");
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (auto conv = dyn_cast<ConvOp>(op)) {
    if (conv.getChannelsLast())
      return fail(why, "the convolution is channels-last");
    if (!isF32Tensor(conv.getInput()))
      return fail(why, "the input is not a static f32 tensor");
    if (!isF32Constant(conv.getWeight()))
      return fail(why, "the weight is not an f32 constant");
    if (!isFoldableBias(conv.getBias(), resultType.getDimSize(1)))
      return fail(why, "the bias is not a per-channel f32 constant");
    return 1;
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    if (gemm.getTransA() || gemm.getA().getType().getRank() != 2 ||
        !isF32Tensor(gemm.getA()))
      return fail(why, "A is transposed or not a 2-D f32 tensor");
    if (gemm.getAlpha().convertToFloat() == 0.0f)
      return fail(why, "alpha is 0");
    if (!isF32Constant(gemm.getB()))
      return fail(why, "B is not an f32 constant");
    if (!isFoldableBias(gemm.getC(), resultType.getDimSize(1)))
      return fail(why, "C is not a per-column f32 constant");
    return 1;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    if (!isF32Tensor(matmul.getLhs()) || !isF32Tensor(matmul.getRhs()))
      return fail(why, "an operand is not a static f32 tensor");
    if (isF32Constant(matmul.getLhs()))
      return fail(why, "the lhs is a constant");
    return isF32Constant(matmul.getRhs()) ? 1 : 2;
  }
  if (auto mean = dyn_cast<ReduceMeanOp>(op)) {
    if (!isGlobalAveragePool(mean))
      return fail(why, "the mean is not a global average pool (the H and W "
                       "of an NCHW tensor)");
    if (!isF32Tensor(mean.getInput()))
      return fail(why, "the input is not a static f32 tensor");
    return 1;
  }
  return fail(why, "only dlc.conv, dlc.gemm, dlc.matmul and global average "
                   "pools are quantized");
}

bool mlir::dlc::isGlobalAveragePool(ReduceMeanOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  return type && type.getRank() == 4 && op.getAxes() == ArrayRef<int64_t>{2, 3};
}
