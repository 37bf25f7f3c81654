//===- QuantImporters.cpp - ONNX quantization operators --------*- C++ -*-===//
//
// QuantizeLinear and DequantizeLinear map to dlc.quantize_linear /
// dlc.dequantize_linear; the integer operators (ConvInteger, MatMulInteger,
// QLinearConv, QLinearMatMul) to dlc.conv_integer / dlc.matmul_integer, with
// dlc.requantize as the QLinear epilogue; DynamicQuantizeLinear to
// reductions and quantize_linear. The table entries are in OpImporters.cpp.
//
// Normal form: a scale and its zero point are rank 0 (per tensor) or 1-D
// along `axis`; absent zero points become constant zeros of the right type.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"

#include "dialects/dlc/ConstantValues.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {
using Results = SmallVectorImpl<Value>;

/// The values of a constant f32 tensor (inline or a resource blob), or of an
/// inline f16/bf16 one widened to f32 (exactly): QLinear scales.
std::optional<SmallVector<float>> scaleValues(Value v) {
  if (std::optional<SmallVector<float>> f32 = constFloats(v))
    return f32;
  auto constant = constantTensor(v);
  auto dense =
      constant ? dyn_cast<DenseFPElementsAttr>(constant->first) : nullptr;
  if (!dense ||
      !(dense.getElementType().isF16() || dense.getElementType().isBF16()))
    return std::nullopt;
  SmallVector<float> out;
  for (APFloat f : dense.getValues<APFloat>()) {
    bool losesInfo;
    f.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
    out.push_back(f.convertToFloat());
  }
  return out;
}

/// Reads the `axis` attribute (default 1) against `rank` when `scale` is
/// per axis; per-tensor scales ignore it (normalized to 0).
std::optional<int64_t> readAxis(NodeContext &n, Value scale, int64_t rank) {
  int64_t axis = n.getInt("axis", 1);
  if (NodeContext::getType(scale).getRank() == 0)
    return 0;
  return n.normalizeAxis(axis, rank);
}

/// Opset 21's blocked quantization: a scale (and zero point) per `size`
/// consecutive elements along `axis`; size 0 when the node is not blocked.
struct Blocks {
  int64_t size = 0, axis = 0;
};

/// Reads `block_size` (> 0, 0 when absent), and then checks the scale (and
/// zero point) has x's rank with ceil(D / block_size) entries along `axis`
/// (D: x's extent there) and x's extents elsewhere.
FailureOr<Blocks> readBlocks(NodeContext &n, Value x, Value scale, Value zp) {
  int64_t block = n.getInt("block_size", 0);
  if (n.hasFailed())
    return failure();
  if (block == 0)
    return Blocks{};
  if (block < 0)
    return n.emitError() << "block_size must be positive, got " << block;
  RankedTensorType xType = NodeContext::getType(x);
  if (!xType.hasStaticShape())
    return n.emitError() << "blocked quantization needs a static input shape, "
                            "got "
                         << xType;
  ArrayRef<int64_t> xs = xType.getShape();
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 1), xs.size());
  if (!axis)
    return failure();
  SmallVector<int64_t> expected(xs);
  expected[*axis] = llvm::divideCeil(xs[*axis], block);
  for (auto [what, v] : {std::pair<StringRef, Value>{"scale", scale},
                         std::pair<StringRef, Value>{"zero point", zp}}) {
    if (v && NodeContext::getType(v).getShape() != ArrayRef(expected)) {
      InFlightDiagnostic d = n.emitError();
      d << "blocked quantization (block_size " << block << ", axis " << *axis
        << "): the " << what << " must have shape [";
      llvm::interleave(expected, d, "x");
      return d << "] for input " << x.getType() << ", got " << v.getType();
    }
  }
  return Blocks{block, *axis};
}

/// `v` (a blocked scale or zero point, ceil(D / block) entries along
/// `axis`) repeated `block` times along it and cut to `shape`'s D.
Value expandBlocks(NodeContext &n, Value v, Blocks blocks,
                   ArrayRef<int64_t> shape) {
  auto [block, axis] = blocks;
  SmallVector<int64_t> split(NodeContext::getType(v).getShape());
  int64_t count = split[axis];
  split.insert(split.begin() + axis + 1, 1);
  Value u = n.reshape(v, split);
  split[axis + 1] = block;
  if (u)
    u = n.create<ExpandOp>(u, {n.i64Array("shape", split)});
  SmallVector<int64_t> whole(shape);
  whole[axis] = count * block;
  if (u)
    u = n.reshape(u, whole);
  if (!u || whole[axis] == shape[axis])
    return u;
  SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1);
  return n.create<SliceOp>(u, {n.i64Array("starts", starts),
                               n.i64Array("ends", shape),
                               n.i64Array("steps", steps)});
}

/// Checks a float8 zero point, which ONNX requires to be zero and which the
/// float8 formulas then leave out: a constant one must have all its bits
/// clear; a run-time one is not read (as onnx's reference and ONNX Runtime
/// do for QuantizeLinear).
LogicalResult checkFloat8ZeroPoint(NodeContext &n, Value zp) {
  std::optional<std::pair<Attribute, RankedTensorType>> c =
      zp ? constantTensor(zp) : std::nullopt;
  if (!c)
    return success();
  auto allZero = [](ArrayRef<char> bytes) {
    return llvm::all_of(bytes, [](char b) { return b == 0; });
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(c->first))
    if (allZero(dense.getRawData()))
      return success();
  if (std::optional<ArrayRef<char>> raw = resourceData(c->first))
    if (allZero(*raw))
      return success();
  return n.emitError() << "a float8 zero point must be 0, got a nonzero "
                          "constant";
}

/// A per-axis scale ([D], one entry per index of x's dim `axis`) shaped to
/// broadcast against x (D at `axis`, 1 elsewhere); a scalar as it is.
Value broadcastAlong(NodeContext &n, Value scale, int64_t axis, int64_t rank) {
  RankedTensorType type = NodeContext::getType(scale);
  if (type.getRank() == 0)
    return scale;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getNumElements();
  return n.reshape(scale, shape);
}

/// `v` (a scale or zero point: a scalar, per axis or blocked) shaped to
/// broadcast against x of `shape`.
Value broadcastQuantParam(NodeContext &n, Value v, ArrayRef<int64_t> shape,
                          std::optional<Blocks> blocks) {
  if (blocks && blocks->size)
    return expandBlocks(n, v, *blocks, shape);
  v = scalarIfSingle(n, v);
  std::optional<int64_t> axis = readAxis(n, v, shape.size());
  return axis ? broadcastAlong(n, v, *axis, shape.size()) : Value();
}

/// QuantizeLinear computed in f32 to a type dlc.quantize_linear does not
/// saturate to: a float8 type, x / scale rounded to it by dlc.cast (nearest
/// even, `saturate`; the zero point is 0), or a sub-byte integer
/// (`subByte`), round(x / scale) + zp clipped to its range, widened and
/// marked.
Value quantizeInF32(NodeContext &n, Value x, Value scale, Value zp,
                    Type quantType, int32_t subByte,
                    std::optional<Blocks> blocks) {
  ArrayRef<int64_t> shape = NodeContext::getType(x).getShape();
  Type f32 = n.b.getF32Type();
  Value s = castTo(n, broadcastQuantParam(n, scale, shape, blocks), f32);
  Value xs = castTo(n, x, f32);
  Value t = s && xs ? n.create<DivOp>({xs, s}) : Value();
  if (!t)
    return {};
  if (!subByte) {
    SmallVector<NamedAttribute> attrs;
    if (!n.getInt("saturate", 1))
      attrs.push_back(n.b.getNamedAttr("saturate", n.b.getBoolAttr(false)));
    return n.create<CastOp>(t, attrs, NodeContext::getType(t).clone(quantType));
  }
  if (subByte == kDtypeFloat4E2M1) {
    // onnx's reference adds the zero point's value, then rounds to float4.
    if (zp) {
      Value z = castTo(
          n, broadcastQuantParam(n, decodeFloat4(n, zp), shape, blocks), f32);
      t = z ? n.create<AddOp>({t, z}) : Value();
    }
    return t ? convertToSubByte(n, t, subByte) : Value();
  }
  t = n.create<RoundOp>({t});
  if (t && zp) {
    Value z = castTo(n, broadcastQuantParam(n, zp, shape, blocks), f32);
    t = z ? n.create<AddOp>({t, z}) : Value();
  }
  int bits = subByteBits(subByte);
  double lo = isSignedSubByte(subByte) ? -double(1 << (bits - 1)) : 0.0;
  double hi = isSignedSubByte(subByte) ? double((1 << (bits - 1)) - 1)
                                       : double((1 << bits) - 1);
  if (t)
    t = n.create<ClipOp>({t}, {n.f64("min", lo), n.f64("max", hi)});
  Type wide = widenedSubByteType(n.b.getContext(), subByte);
  return t ? markSubByte(
                 n.create<CastOp>(t, {}, NodeContext::getType(t).clone(wide)),
                 subByte)
           : Value();
}

/// DequantizeLinear of a float8 tensor (or of float4e2m1 codes decoded to
/// f32): x * scale in f32, returned in the scale's type (the zero point is
/// 0).
Value dequantizeFloat8(NodeContext &n, Value x, Value scale) {
  ArrayRef<int64_t> shape = NodeContext::getType(x).getShape();
  Type f32 = n.b.getF32Type();
  Value s = castTo(n, broadcastQuantParam(n, scale, shape, std::nullopt), f32);
  Value xs = castTo(n, x, f32);
  if (!s || !xs)
    return {};
  return castTo(n, n.create<MulOp>({xs, s}),
                NodeContext::getType(scale).getElementType());
}

/// A blocked DequantizeLinear of constants (blocked weights) computed here:
/// the same f32 arithmetic as dequantizeBlocks, once. Null when an operand
/// is not constant or the scale is not f32.
Value foldDequantizeBlocks(NodeContext &n, Value x, Value scale, Value zp,
                           Blocks blocks) {
  auto [block, axis] = blocks;
  auto scaleType = NodeContext::getType(scale);
  if (!scaleType.getElementType().isF32())
    return {};
  std::optional<SmallVector<int64_t>> xs = constInts(x), zs;
  std::optional<SmallVector<float>> ss = constFloats(scale);
  if (zp && !(zs = constInts(zp)))
    return {};
  if (!xs || !ss)
    return {};
  ArrayRef<int64_t> shape = NodeContext::getType(x).getShape();
  // x's linear index -> (outer, along axis, inner) -> the scale's index.
  int64_t inner = 1;
  for (int64_t d : shape.drop_front(axis + 1))
    inner *= d;
  int64_t dim = shape[axis], count = scaleType.getShape()[axis];
  SmallVector<float> y(xs->size());
  for (int64_t i = 0, e = xs->size(); i < e; ++i) {
    int64_t in = i % inner, along = i / inner % dim, outer = i / inner / dim;
    int64_t j = (outer * count + along / block) * inner + in;
    y[i] = float((*xs)[i] - (zs ? (*zs)[j] : 0)) * (*ss)[j];
  }
  return f32Constant(n, shape, y);
}

/// Blocked DequantizeLinear as float arithmetic, what the spec defines:
/// (x - zp) * scale with the scale and zero point expanded over their
/// blocks, computed in f32 and returned in the scale's type.
Value dequantizeBlocks(NodeContext &n, Value x, Value scale, Value zp,
                       Blocks blocks) {
  ArrayRef<int64_t> shape = NodeContext::getType(x).getShape();
  Type f32 = n.b.getF32Type();
  Value y = castTo(n, x, f32);
  if (y && zp) {
    Value z = castTo(n, expandBlocks(n, zp, blocks, shape), f32);
    y = z ? n.create<SubOp>({y, z}) : Value();
  }
  Value s = y ? castTo(n, expandBlocks(n, scale, blocks, shape), f32)
              : Value();
  if (!s)
    return {};
  return castTo(n, n.create<MulOp>({y, s}),
                NodeContext::getType(scale).getElementType());
}

/// Blocked QuantizeLinear: round(x / scale) + zp in f32 (integers, exact),
/// then saturated to the zero point's type by a unit-scale
/// dlc.quantize_linear.
Value quantizeBlocks(NodeContext &n, Value x, Value scale, Value zp,
                     Type quantType, Blocks blocks) {
  ArrayRef<int64_t> shape = NodeContext::getType(x).getShape();
  Type f32 = n.b.getF32Type();
  Value s = castTo(n, expandBlocks(n, scale, blocks, shape), f32);
  Value xs = castTo(n, x, f32);
  Value t = s && xs ? n.create<DivOp>({xs, s}) : Value();
  if (t)
    t = n.create<RoundOp>({t});
  if (t && zp) {
    Value z = castTo(n, expandBlocks(n, zp, blocks, shape), f32);
    t = z ? n.create<AddOp>({t, z}) : Value();
  }
  if (!t)
    return {};
  Value one = f32Constant(n, {}, {1.0f});
  return n.create<QuantizeLinearOp>({t, one, zeros(n, {}, quantType)},
                                    {n.i64("axis", 0)});
}

/// Whether `t` is an integer quantized type dlc computes with (int8, uint8,
/// int16 and uint16, and int32 for dequantized accumulators when `int32`);
/// reports it otherwise (the float8 types take their own path before this
/// check).
bool checkQuantType(NodeContext &n, Type t, bool int32) {
  if (t.isInteger(8) || t.isInteger(16) || (int32 && t.isSignlessInteger(32)))
    return true;
  std::string name = isa<IntegerType>(t)
                         ? (t.isUnsignedInteger() ? "uint" : "int") +
                               std::to_string(t.getIntOrFloatBitWidth())
                         : "a float";
  n.emitError() << "unsupported quantized dtype '" << name
                << "' (int8, uint8, int16, uint16" << (int32 ? ", int32" : "")
                << ", int4, uint4, int2, uint2 and the float8 types are)";
  return false;
}

/// Element type named by QuantizeLinear-21's `output_dtype`.
Type quantElementType(NodeContext &n, int64_t dtype) {
  if (dtype == onnx::TensorProto::INT8 || dtype == onnx::TensorProto::UINT8 ||
      dtype == onnx::TensorProto::INT16 || dtype == onnx::TensorProto::UINT16 ||
      (dtype >= kDtypeFloat8E4M3FN && dtype <= kDtypeFloat8E5M2FNUZ))
    return getElementType(n.b.getContext(), dtype);
  n.emitError() << "unsupported quantized dtype '" << getDtypeName(dtype)
                << "' (int8, uint8, int16, uint16, int4, uint4, int2, uint2 "
                   "and the float8 types are)";
  return {};
}

LogicalResult importQuantizeLinearImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs(
          {"axis", "saturate", "block_size", "output_dtype"})))
    return failure();
  FailureOr<Blocks> blocks =
      readBlocks(n, n.input(0), n.input(1), n.input(2));
  if (failed(blocks))
    return failure();
  // The zero point's type, or output_dtype's: float8 and the sub-byte
  // integers (a 4- or 2-bit zero point is imported widened and marked)
  // quantize in f32, the others with dlc.quantize_linear.
  Value zp = n.input(2);
  int32_t subByte = subByteDtypeOf(zp);
  Type quantType = zp ? NodeContext::getType(zp).getElementType() : Type();
  if (!zp) {
    int64_t dtype = n.getInt("output_dtype", onnx::TensorProto::UINT8);
    if (subByteBits(dtype))
      subByte = dtype;
    else if (dtype >= kDtypeFloat8E4M3FN && dtype <= kDtypeFloat8E5M2FNUZ)
      quantType = quantElementType(n, dtype);
  }
  if (quantType && isFloat8(quantType) && failed(checkFloat8ZeroPoint(n, zp)))
    return failure();
  // Given beside a zero point, output_dtype must name its type (0, its
  // default, is unset).
  if (int64_t dtype = n.getInt("output_dtype", 0); zp && dtype != 0) {
    MLIRContext *ctx = n.b.getContext();
    int32_t zpDtype = subByte;
    for (int32_t d = 1; !zpDtype && d <= kDtypeFloat8E5M2FNUZ; ++d)
      if (getElementType(ctx, d) == quantType)
        zpDtype = d;
    if (dtype != zpDtype) {
      n.emitError() << "output_dtype '" << getDtypeName(dtype)
                    << "' differs from the zero point's type '"
                    << getDtypeName(zpDtype) << "'";
      return failure();
    }
  }
  if (subByte || (quantType && isFloat8(quantType))) {
    r.push_back(quantizeInF32(n, n.input(0), n.input(1), subByte ? zp : Value(),
                              quantType, subByte, *blocks));
    return success(r.back() != nullptr);
  }
  if (blocks->size) {
    Type elt = zp ? NodeContext::getType(zp).getElementType()
                  : quantElementType(
                        n, n.getInt("output_dtype", onnx::TensorProto::UINT8));
    if (!elt || (zp && !checkQuantType(n, elt, false)))
      return failure();
    Value y = quantizeBlocks(n, n.input(0), n.input(1), zp, elt, *blocks);
    if (!y)
      return failure();
    r.push_back(y);
    return success();
  }
  Value x = n.input(0), scale = scalarIfSingle(n, n.input(1));
  std::optional<int64_t> axis = readAxis(n, scale, n.getRank(x));
  if (!axis || n.hasFailed())
    return failure();
  if (zp) {
    if (!checkQuantType(n, NodeContext::getType(zp).getElementType(), false))
      return failure();
    zp = scalarIfSingle(n, zp);
  } else {
    Type elt = quantElementType(
        n, n.getInt("output_dtype", onnx::TensorProto::UINT8));
    if (!elt)
      return failure();
    zp = zeros(n, NodeContext::getType(scale).getShape(), elt);
  }
  if (n.hasFailed())
    return failure();
  r.push_back(n.create<QuantizeLinearOp>({x, scale, zp},
                                         {n.i64("axis", *axis)}));
  return success();
}

LogicalResult importDequantizeLinearImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"axis", "block_size"})))
    return failure();
  FailureOr<Blocks> blocks =
      readBlocks(n, n.input(0), n.input(1), n.input(2));
  if (failed(blocks))
    return failure();
  Value zeroPoint = n.input(2);
  // float4e2m1 codes dequantize as their values times the scale (onnx's
  // reference reads no zero point for them).
  if (subByteDtypeOf(n.input(0)) == kDtypeFloat4E2M1) {
    Value x = decodeFloat4(n, n.input(0));
    r.push_back(blocks->size ? dequantizeBlocks(n, x, n.input(1), {}, *blocks)
                             : dequantizeFloat8(n, x, n.input(1)));
    return success(r.back() != nullptr);
  }
  if (isFloat8(NodeContext::getType(n.input(0)).getElementType())) {
    if (failed(checkFloat8ZeroPoint(n, zeroPoint)))
      return failure();
    zeroPoint = {};
    if (!blocks->size) {
      r.push_back(dequantizeFloat8(n, n.input(0), n.input(1)));
      return success(r.back() != nullptr);
    }
  }
  if (blocks->size) {
    Value y =
        foldDequantizeBlocks(n, n.input(0), n.input(1), zeroPoint, *blocks);
    if (!y)
      y = dequantizeBlocks(n, n.input(0), n.input(1), zeroPoint, *blocks);
    if (!y)
      return failure();
    r.push_back(y);
    return success();
  }
  Value x = n.input(0), scale = scalarIfSingle(n, n.input(1));
  if (!checkQuantType(n, NodeContext::getType(x).getElementType(), true))
    return failure();
  std::optional<int64_t> axis = readAxis(n, scale, n.getRank(x));
  if (!axis || n.hasFailed())
    return failure();
  Value zp = n.input(2);
  zp = zp ? scalarIfSingle(n, zp)
          : zeros(n, NodeContext::getType(scale).getShape(),
                  NodeContext::getType(x).getElementType());
  if (n.hasFailed())
    return failure();
  r.push_back(n.create<DequantizeLinearOp>({x, scale, zp},
                                           {n.i64("axis", *axis)}));
  return success();
}

/// Window attributes of ConvInteger/QLinearConv, normalized as for Conv
/// (auto_pad resolved to explicit pads).
struct ConvAttrs : Window {
  int64_t group = 1;
};

LogicalResult readConvAttrs(NodeContext &n, Value x, Value w, ConvAttrs &c) {
  if (failed(n.checkKnownAttrs({"auto_pad", "dilations", "group",
                                "kernel_shape", "pads", "strides"})))
    return failure();
  auto shape = NodeContext::getType(x).getShape();
  if (shape.size() < 3 || n.getRank(w) != (int64_t)shape.size())
    return n.emitError() << "input " << x.getType() << " and weight "
                         << w.getType() << " must have the same rank >= 3";
  if (failed(readWindow(n, x, NodeContext::getType(w).getShape().drop_front(2),
                        /*hasDilations=*/true, c)))
    return failure();
  c.group = n.getInt("group", 1);
  if (n.hasFailed())
    return failure();
  return success();
}

Value createConvInteger(NodeContext &n, Value x, Value w, Value xzp, Value wzp,
                        const ConvAttrs &c) {
  return n.create<ConvIntegerOp>(
      {x, w, xzp, wzp},
      {n.i64Array("strides", c.strides), n.i64Array("pads", c.pads),
       n.i64Array("dilations", c.dilations), n.i64("group", c.group)});
}

/// x_scale * w_scale[c] / y_scale in f32, as ONNX Runtime computes the
/// QLinear output scale; rank 0 unless w_scale is per channel.
Value requantMultiplier(NodeContext &n, Value xScale, Value wScale,
                        Value yScale) {
  std::optional<SmallVector<float>> xs = scaleValues(xScale),
                                    ws = scaleValues(wScale),
                                    ys = scaleValues(yScale);
  if (!xs || !ws || !ys || xs->size() != 1 || ys->size() != 1) {
    (void)n.fail("x_scale and y_scale must be constant float scalars and "
                 "w_scale a constant float tensor (f32, or inline f16/bf16)");
    return {};
  }
  SmallVector<float> m;
  for (float w : *ws)
    m.push_back((*xs)[0] * w / (*ys)[0]);
  if (m.size() == 1)
    return f32Constant(n, {}, m);
  return f32Constant(n, {(int64_t)m.size()}, m);
}

LogicalResult importConvIntegerImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 4)))
    return failure();
  Value x = n.input(0), w = n.input(1);
  ConvAttrs c;
  if (failed(readConvAttrs(n, x, w, c)))
    return failure();
  Value xzp = n.input(2) ? scalarIfSingle(n, n.input(2))
                         : zeros(n, {}, NodeContext::getType(x).getElementType());
  Value wzp = n.input(3) ? scalarIfSingle(n, n.input(3))
                         : zeros(n, {}, NodeContext::getType(w).getElementType());
  if (n.hasFailed())
    return failure();
  r.push_back(createConvInteger(n, x, w, xzp, wzp, c));
  return success();
}

LogicalResult importQLinearConvImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(8, 9)))
    return failure();
  Value x = n.input(0), w = n.input(3);
  ConvAttrs c;
  if (failed(readConvAttrs(n, x, w, c)))
    return failure();
  Value xzp = scalarIfSingle(n, n.input(2)), wzp = scalarIfSingle(n, n.input(5));
  Value yzp = scalarIfSingle(n, n.input(7));
  Value mult = requantMultiplier(n, n.input(1), n.input(4), n.input(6));
  if (!mult || n.hasFailed())
    return failure();
  Value acc = createConvInteger(n, x, w, xzp, wzp, c);
  if (!acc)
    return failure();
  SmallVector<Value> operands{acc};
  if (Value bias = n.input(8))
    operands.push_back(bias);
  operands.append({mult, yzp});
  r.push_back(n.create<RequantizeOp>(operands, {n.i64("axis", 1)}));
  return success();
}

/// Checks MatMulInteger/QLinearMatMul operands are at least 2-D.
LogicalResult checkMatMulRanks(NodeContext &n, Value a, Value b) {
  if (n.getRank(a) < 2 || n.getRank(b) < 2)
    return n.emitError() << "1-D operands are not supported, got "
                         << a.getType() << " and " << b.getType();
  return success();
}

LogicalResult importMatMulIntegerImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 4)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value a = n.input(0), b = n.input(1);
  if (failed(checkMatMulRanks(n, a, b)))
    return failure();
  Value azp = n.input(2) ? scalarIfSingle(n, n.input(2))
                         : zeros(n, {}, NodeContext::getType(a).getElementType());
  Value bzp = n.input(3) ? scalarIfSingle(n, n.input(3))
                         : zeros(n, {}, NodeContext::getType(b).getElementType());
  if (n.hasFailed())
    return failure();
  r.push_back(n.create<MatMulIntegerOp>(
      {a, b, azp, bzp}, {n.boolean("rhs_transposed", false)}));
  return success();
}

LogicalResult importQLinearMatMulImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(8, 8)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value a = n.input(0), b = n.input(3);
  if (failed(checkMatMulRanks(n, a, b)))
    return failure();
  Value azp = scalarIfSingle(n, n.input(2)), bzp = scalarIfSingle(n, n.input(5));
  Value yzp = scalarIfSingle(n, n.input(7));
  Value mult = requantMultiplier(n, n.input(1), n.input(4), n.input(6));
  if (!mult || n.hasFailed())
    return failure();
  Value acc = n.create<MatMulIntegerOp>({a, b, azp, bzp},
                                        {n.boolean("rhs_transposed", false)});
  if (!acc)
    return failure();
  r.push_back(n.create<RequantizeOp>(
      {acc, mult, yzp}, {n.i64("axis", n.getRank(acc) - 1)}));
  return success();
}

/// DynamicQuantizeLinear: uint8 with scale and zero point from the range of
/// x widened to include 0, as ONNX Runtime computes them:
/// scale = (max - min) / 255 (1 when max == min), zp = sat(round(-min / s)).
LogicalResult importDynamicQuantizeLinearImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  auto type = NodeContext::getType(x);
  if (!type.getElementType().isF32())
    return n.emitError() << "input must be f32, got " << x.getType();
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  auto reduceAll = [&](auto tag) {
    using OpTy = decltype(tag);
    return n.create<OpTy>({x}, {n.i64Array("axes", all),
                                n.boolean("keepdims", false)});
  };
  Value zero = f32Constant(n, {}, {0.0f});
  Value lo = reduceAll(ReduceMinOp());
  Value hi = reduceAll(ReduceMaxOp());
  if (!lo || !hi)
    return failure();
  lo = n.create<MinOp>({lo, zero});
  hi = n.create<MaxOp>({hi, zero});
  Value range = n.create<SubOp>({hi, lo});
  Value scale = n.create<DivOp>({range, f32Constant(n, {}, {255.0f})});
  Value isZero = n.create<EqualOp>({scale, zero});
  scale = n.create<WhereOp>({isZero, f32Constant(n, {}, {1.0f}), scale});
  Type u8 = getElementType(n.b.getContext(), onnx::TensorProto::UINT8);
  Value zpFloat = n.create<DivOp>({n.create<NegOp>({lo}), scale});
  Value zp = n.create<QuantizeLinearOp>(
      {zpFloat, f32Constant(n, {}, {1.0f}), zeros(n, {}, u8)},
      {n.i64("axis", 0)});
  if (!zp)
    return failure();
  r.push_back(n.create<QuantizeLinearOp>({x, scale, zp}, {n.i64("axis", 0)}));
  r.push_back(scale);
  r.push_back(zp);
  return success();
}

//===----------------------------------------------------------------------===//
// ONNX Runtime's quantized operators (com.microsoft)
//===----------------------------------------------------------------------===//
//
// ONNX Runtime's QOperator-format quantizer writes these around the standard
// QLinearConv and QLinearMatMul (and the ONNX model zoo's *-int8 models use
// them). Each is its float operator between DequantizeLinear and
// QuantizeLinear, as in a QDQ model; dlc-fold-qdq then folds QGemm into an
// integer GEMM as it folds QLinearMatMul's equivalent, and fusion puts the
// elementwise ones in one kernel.

/// The element type of an int8/uint8 tensor, or null after an error naming
/// `what`.
Type quantizedType(NodeContext &n, Value v, StringRef what) {
  Type elt = NodeContext::getType(v).getElementType();
  if (!elt.isInteger(8)) {
    n.emitError() << what << " must be int8 or uint8, got " << v.getType();
    return {};
  }
  return elt;
}

/// The element type `x` (named `xName`) and `y` share, int8 or uint8, or
/// null after an error.
Type sharedQuantizedType(NodeContext &n, Value x, StringRef xName, Value y,
                         StringRef yName) {
  Type elt = quantizedType(n, x, xName);
  if (!elt || !quantizedType(n, y, yName))
    return {};
  if (NodeContext::getType(y).getElementType() != elt) {
    n.emitError() << xName << " " << x.getType() << " and " << yName << " "
                  << y.getType() << " must have the same element type";
    return {};
  }
  return elt;
}

/// dlc.dequantize_linear of `x` with `scale` (f32, per tensor unless
/// `axis` is given) and `zp` (zeros of x's type when absent).
Value dequantize(NodeContext &n, Value x, Value scale, Value zp,
                 std::optional<int64_t> axis = std::nullopt) {
  if (!NodeContext::getType(scale).getElementType().isF32()) {
    n.emitError() << "scales must be f32, got " << scale.getType();
    return {};
  }
  scale = scalarIfSingle(n, scale);
  if (!axis && NodeContext::getType(scale).getRank() != 0) {
    n.emitError() << "scale of " << x.getType()
                  << " must have one element, got " << scale.getType();
    return {};
  }
  zp = zp ? scalarIfSingle(n, zp)
          : zeros(n, NodeContext::getType(scale).getShape(),
                  NodeContext::getType(x).getElementType());
  if (n.hasFailed())
    return {};
  return n.create<DequantizeLinearOp>({x, scale, zp},
                                      {n.i64("axis", axis.value_or(0))});
}

/// dlc.quantize_linear of `y` to `elt` with a per-tensor `scale` and `zp`
/// (zero when absent).
Value quantize(NodeContext &n, Value y, Value scale, Value zp, Type elt) {
  if (!y)
    return {};
  if (!NodeContext::getType(scale).getElementType().isF32() ||
      NodeContext::getType(scale).getNumElements() != 1) {
    n.emitError() << "the output scale must be one f32, got "
                  << scale.getType();
    return {};
  }
  scale = scalarIfSingle(n, scale);
  if (zp && NodeContext::getType(zp).getElementType() != elt) {
    n.emitError() << "the output zero point " << zp.getType()
                  << " must have the type " << elt;
    return {};
  }
  zp = zp ? scalarIfSingle(n, zp) : zeros(n, {}, elt);
  if (n.hasFailed())
    return {};
  return n.create<QuantizeLinearOp>({y, scale, zp}, {n.i64("axis", 0)});
}

/// QLinearAdd, QLinearMul: (A, A_scale, A_zero_point, B, B_scale,
/// B_zero_point, C_scale, C_zero_point), numpy broadcasting.
template <const char *FloatOp>
LogicalResult importQLinearBinary(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(7, 8, {0, 1, 3, 4, 6})) ||
      failed(n.checkKnownAttrs({})))
    return failure();
  Value a = n.input(0), b = n.input(3);
  Type elt = sharedQuantizedType(n, a, "A", b, "B");
  if (!elt)
    return failure();
  Value y = importFloatOp(n, FloatOp,
                          {dequantize(n, a, n.input(1), n.input(2)),
                           dequantize(n, b, n.input(4), n.input(5))},
                          {});
  r.push_back(quantize(n, y, n.input(6), n.input(7), elt));
  return success(r.back() != nullptr);
}
constexpr char kAdd[] = "Add", kMul[] = "Mul";

/// The unary quantized operators: (X, X_scale, X_zero_point, Y_scale,
/// Y_zero_point) around `FloatOp`, whose attributes they take
/// (QLinearLeakyRelu's alpha), ONNX Runtime's `channels_last` (the pools)
/// and QLinearSoftmax's `opset` (the Softmax it replaced: the axis
/// semantics) aside.
template <const char *FloatOp>
LogicalResult importQLinearUnary(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(4, 5, {0, 1, 3})))
    return failure();
  Value x = n.input(0);
  Type elt = quantizedType(n, x, "X");
  if (!elt)
    return failure();
  Value y = dequantize(n, x, n.input(1), n.input(2));
  StringRef op = FloatOp;
  std::optional<int64_t> opset;
  if (op == "Softmax") {
    if (!n.hasAttr("opset"))
      return n.fail("attribute 'opset' is required");
    opset = n.getInt("opset", 13);
    if (*opset < 1)
      return n.emitError() << "attribute 'opset' must be positive, got "
                           << *opset;
  }
  bool pool = op == "AveragePool" || op == "GlobalAveragePool";
  if (!pool && n.hasAttr("channels_last"))
    return n.fail("unsupported attribute 'channels_last' (pools only)");
  if (op != "Softmax" && n.hasAttr("opset"))
    return n.fail("unsupported attribute 'opset' (QLinearSoftmax only)");
  bool channelsLast = n.getInt("channels_last", 0) != 0;
  int64_t rank = n.getRank(x);
  if (pool && rank < 3)
    return n.emitError() << "X must have rank >= 3, got " << x.getType();
  SmallVector<int64_t> toFirst{0, rank - 1}, toLast{0};
  for (int64_t i = 1; i < rank - 1; ++i) {
    toFirst.push_back(i);
    toLast.push_back(i + 1);
  }
  toLast.push_back(1);
  if (channelsLast && y)
    y = n.create<TransposeOp>(y, {n.i64Array("perm", toFirst)});
  y = importFloatOp(n, op, {y}, {"channels_last", "opset"}, opset);
  if (channelsLast && y)
    y = n.create<TransposeOp>(y, {n.i64Array("perm", toLast)});
  r.push_back(quantize(n, y, n.input(3), n.input(4), elt));
  return success(r.back() != nullptr);
}
constexpr char kSigmoid[] = "Sigmoid", kLeakyRelu[] = "LeakyRelu",
               kSoftmax[] = "Softmax", kAveragePool[] = "AveragePool",
               kGlobalAveragePool[] = "GlobalAveragePool";

/// QLinearConcat: (Y_scale, Y_zero_point, then X, X_scale, X_zero_point for
/// each input), axis.
LogicalResult importQLinearConcatImpl(NodeContext &n, Results &r) {
  unsigned count = n.getNumInputs();
  if (count < 5 || (count - 2) % 3 != 0)
    return n.emitError() << "expected Y_scale, Y_zero_point and a (X, "
                            "X_scale, X_zero_point) triple per input, got "
                         << count << " inputs";
  if (failed(n.checkInputs(count, count, {0, 1})))
    return failure();
  Type elt = quantizedType(n, n.input(1), "Y_zero_point");
  if (!elt)
    return failure();
  SmallVector<Value> floats;
  for (unsigned i = 2; i < count; i += 3) {
    if (!n.input(i) || !n.input(i + 1))
      return n.emitError() << "input " << (i + 2) / 3 - 1
                           << " needs X and X_scale";
    if (!quantizedType(n, n.input(i), "X"))
      return failure();
    floats.push_back(dequantize(n, n.input(i), n.input(i + 1), n.input(i + 2)));
  }
  Value y = importFloatOp(n, "Concat", floats, {});
  r.push_back(quantize(n, y, n.input(0), n.input(1), elt));
  return success(r.back() != nullptr);
}

/// QLinearWhere: (condition, X, x_scale, x_zero_point, Y, y_scale,
/// y_zero_point, z_scale, z_zero_point), three-way broadcasting.
LogicalResult importQLinearWhereImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(9, 9, {0, 1, 2, 4, 5, 7})) ||
      failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(1), y = n.input(4);
  Type elt = sharedQuantizedType(n, x, "X", y, "Y");
  if (!elt)
    return failure();
  Value z = importFloatOp(n, "Where",
                          {n.input(0), dequantize(n, x, n.input(2), n.input(3)),
                           dequantize(n, y, n.input(5), n.input(6))},
                          {});
  r.push_back(quantize(n, z, n.input(7), n.input(8), elt));
  return success(r.back() != nullptr);
}

/// QGemm: (A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale,
/// y_zero_point), alpha, transA, transB. B's scale and zero point may be
/// per output column; C is int32 at scale a_scale * b_scale, added before
/// alpha (ONNX Runtime quantizes it at alpha / beta * a_scale * b_scale);
/// without y_scale the result stays f32.
LogicalResult importQGemmImpl(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(6, 9, {0, 1, 3, 4})) ||
      failed(n.checkKnownAttrs({"alpha", "transA", "transB"})))
    return failure();
  Value a = n.input(0), b = n.input(3);
  Type elt = quantizedType(n, a, "A");
  if (!elt || !quantizedType(n, b, "B"))
    return failure();
  if (n.getRank(a) != 2 || n.getRank(b) != 2)
    return n.emitError() << "A " << a.getType() << " and B " << b.getType()
                         << " must be 2-D";
  bool transB = n.getInt("transB", 0) != 0;
  int64_t columns = NodeContext::getType(b).getDimSize(transB ? 0 : 1);
  Value bScale = scalarIfSingle(n, n.input(4));
  std::optional<int64_t> bAxis;
  if (NodeContext::getType(bScale).getRank() != 0) {
    if (NodeContext::getType(bScale).getShape() != ArrayRef<int64_t>{columns})
      return n.emitError() << "b_scale " << bScale.getType()
                           << " must have one element or one per column ("
                           << columns << ")";
    bAxis = transB ? 0 : 1;
  }
  SmallVector<Value> operands{dequantize(n, a, n.input(1), n.input(2)),
                              dequantize(n, b, bScale, n.input(5), bAxis)};
  float alpha = n.getFloat("alpha", 1.0f);
  if (Value c = n.input(6)) {
    if (!NodeContext::getType(c).getElementType().isInteger(32))
      return n.emitError() << "C must be int32, got " << c.getType();
    if (!operands[0] || !operands[1])
      return failure();
    // A constant product, as the QDQ form's bias scale is, so that
    // dlc-fold-qdq recognizes C as the integer accumulators' bias.
    Value aScale = scalarIfSingle(n, n.input(1)), cScale;
    std::optional<SmallVector<float>> as = scaleValues(aScale),
                                      bs = scaleValues(bScale);
    if (as && bs && as->size() == 1) {
      SmallVector<float> product;
      for (float w : *bs)
        product.push_back((*as)[0] * w);
      cScale = bAxis ? f32Constant(n, {columns}, product)
                     : f32Constant(n, {}, product);
    } else {
      cScale = n.create<MulOp>({aScale, bScale});
    }
    // Per column, C's scale and zero point run along its last dim.
    std::optional<int64_t> cAxis;
    if (bAxis) {
      if (n.getRank(c) == 0 ||
          NodeContext::getType(c).getShape().back() != columns)
        return n.emitError() << "C " << c.getType() << " must have " << columns
                             << " columns where b_scale is per column";
      cAxis = n.getRank(c) - 1;
    }
    operands.push_back(dequantize(n, c, cScale, Value(), cAxis));
  }
  // Gemm's beta scales C: alpha * (A B + C) is alpha A B + alpha C.
  Value y = importFloatOp(n, "Gemm", operands, {}, std::nullopt,
                          {floatAttribute("beta", alpha)});
  if (!y)
    return failure();
  if (!n.input(7)) {
    if (n.input(8))
      return n.fail("y_zero_point without y_scale");
    r.push_back(y);
    return success();
  }
  Type outType =
      n.input(8) ? quantizedType(n, n.input(8), "y_zero_point") : elt;
  if (!outType)
    return failure();
  r.push_back(quantize(n, y, n.input(7), n.input(8), outType));
  return success(r.back() != nullptr);
}

} // namespace

LogicalResult onnx_import::importQuantizeLinear(NodeContext &n, Results &r) {
  return importQuantizeLinearImpl(n, r);
}
LogicalResult onnx_import::importDequantizeLinear(NodeContext &n, Results &r) {
  return importDequantizeLinearImpl(n, r);
}
LogicalResult onnx_import::importConvInteger(NodeContext &n, Results &r) {
  return importConvIntegerImpl(n, r);
}
LogicalResult onnx_import::importMatMulInteger(NodeContext &n, Results &r) {
  return importMatMulIntegerImpl(n, r);
}
LogicalResult onnx_import::importQLinearConv(NodeContext &n, Results &r) {
  return importQLinearConvImpl(n, r);
}
LogicalResult onnx_import::importQLinearMatMul(NodeContext &n, Results &r) {
  return importQLinearMatMulImpl(n, r);
}
LogicalResult onnx_import::importDynamicQuantizeLinear(NodeContext &n,
                                                       Results &r) {
  return importDynamicQuantizeLinearImpl(n, r);
}

LogicalResult onnx_import::importQLinearAdd(NodeContext &n, Results &r) {
  return importQLinearBinary<kAdd>(n, r);
}
LogicalResult onnx_import::importQLinearMul(NodeContext &n, Results &r) {
  return importQLinearBinary<kMul>(n, r);
}
LogicalResult onnx_import::importQLinearSigmoid(NodeContext &n, Results &r) {
  return importQLinearUnary<kSigmoid>(n, r);
}
LogicalResult onnx_import::importQLinearLeakyRelu(NodeContext &n, Results &r) {
  return importQLinearUnary<kLeakyRelu>(n, r);
}
LogicalResult onnx_import::importQLinearSoftmax(NodeContext &n, Results &r) {
  return importQLinearUnary<kSoftmax>(n, r);
}
LogicalResult onnx_import::importQLinearAveragePool(NodeContext &n,
                                                    Results &r) {
  return importQLinearUnary<kAveragePool>(n, r);
}
LogicalResult onnx_import::importQLinearGlobalAveragePool(NodeContext &n,
                                                          Results &r) {
  return importQLinearUnary<kGlobalAveragePool>(n, r);
}
LogicalResult onnx_import::importQLinearConcat(NodeContext &n, Results &r) {
  return importQLinearConcatImpl(n, r);
}
LogicalResult onnx_import::importQLinearWhere(NodeContext &n, Results &r) {
  return importQLinearWhereImpl(n, r);
}
LogicalResult onnx_import::importQGemm(NodeContext &n, Results &r) {
  return importQGemmImpl(n, r);
}
