//===- SubByteImporter.cpp - ONNX's coded narrow types --------------------===//
//
// int4, uint4, int2, uint2, float4e2m1 and float8e8m0 live in the IR as a
// byte each: the integers widened (i8 for the signed ones, ui8 for the
// others), float4e2m1 and float8e8m0 as their codes (MLIR 19 has neither
// type). The value is marked with its ONNX dtype (kOnnxDtypeAttr on the
// defining op) for the importers that must tell it apart: Cast and
// QuantizeLinear wrap, saturate or encode; Cast and DequantizeLinear decode
// the float codes. At the model's edges the values are packed as ONNX lays
// them out (the first element in the low bits of each byte): a graph input
// arrives as its bytes and is unpacked with shifts and masks, a graph
// output is packed the same way, so model.so exchanges exactly ONNX's
// bytes.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

int onnx_import::subByteBits(int32_t dtype) {
  switch (dtype) {
  case kDtypeInt4:
  case kDtypeUint4:
  case kDtypeFloat4E2M1:
    return 4;
  case kDtypeInt2:
  case kDtypeUint2:
    return 2;
  case kDtypeFloat8E8M0:
    return 8;
  default:
    return 0;
  }
}

bool onnx_import::isSignedSubByte(int32_t dtype) {
  return dtype == kDtypeInt4 || dtype == kDtypeInt2;
}

Type onnx_import::widenedSubByteType(MLIRContext *ctx, int32_t dtype) {
  return IntegerType::get(ctx, 8,
                          isSignedSubByte(dtype) ? IntegerType::Signless
                                                 : IntegerType::Unsigned);
}

int32_t onnx_import::subByteDtypeOf(Value v) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  auto name =
      def ? def->getAttrOfType<StringAttr>(kOnnxDtypeAttr) : StringAttr();
  if (!name)
    return 0;
  for (int32_t dtype : {kDtypeInt4, kDtypeUint4, kDtypeInt2, kDtypeUint2,
                        kDtypeFloat4E2M1, kDtypeFloat8E8M0})
    if (name.getValue() == getDtypeName(dtype))
      return dtype;
  return 0;
}

Value onnx_import::markSubByte(Value v, int32_t dtype) {
  if (v && v.getDefiningOp())
    v.getDefiningOp()->setAttr(
        kOnnxDtypeAttr, StringAttr::get(v.getContext(), getDtypeName(dtype)));
  return v;
}

namespace {

/// A byte tensor constant of `shape` with every element `value`.
Value byteConstant(NodeContext &n, ArrayRef<int64_t> shape, Type type,
                   int64_t value) {
  return splat(n, shape, type, double(value));
}

/// float4e2m1's magnitudes by code (0-7); codes 8-15 are their negations.
constexpr float kFloat4Values[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/// `x` rounded to float4e2m1's code: the magnitude's code counts the
/// midpoints it passes (at a tie, the even code: a strict compare where the
/// lower neighbour is even), so values past 6 saturate at 7; the sign bit
/// adds 8, and NaN becomes 8 (-0), as ml_dtypes converts.
Value encodeFloat4(NodeContext &n, Value x) {
  RankedTensorType type = NodeContext::getType(x);
  Type f32 = n.b.getF32Type(),
       u8 = widenedSubByteType(n.b.getContext(), kDtypeFloat4E2M1);
  if (type.getElementType() != f32)
    x = n.create<CastOp>(x, {}, type.clone(f32));
  Value m = x ? n.create<AbsOp>({x}) : Value();
  Value code;
  for (int k = 0; k < 7 && m; ++k) {
    Value mid =
        splat(n, {}, f32, (kFloat4Values[k] + kFloat4Values[k + 1]) / 2);
    Value past = k % 2 == 0 ? n.create<GreaterOp>({m, mid})
                            : n.create<GreaterOrEqualOp>({m, mid});
    Value step =
        past ? n.create<CastOp>(past, {}, NodeContext::getType(past).clone(u8))
             : Value();
    code = code && step ? n.create<AddOp>({code, step}) : step;
    if (!code)
      return {};
  }
  Value bits = x ? n.create<BitcastOp>(
                       x, {}, NodeContext::getType(x).clone(n.b.getI32Type()))
                 : Value();
  Value negative =
      bits ? n.create<LessOp>({bits, splat(n, {}, n.b.getI32Type(), 0)})
           : Value();
  Value eight = splat(n, {}, u8, 8);
  if (!code || !negative)
    return {};
  code = n.create<WhereOp>({negative, n.create<AddOp>({code, eight}), code});
  Value nan = n.create<IsNaNOp>({x});
  return code && nan ? n.create<WhereOp>({nan, eight, code}) : Value();
}

/// Integers or floats (truncated toward zero) converted to the integer
/// `dtype` as ml_dtypes does: the low bits kept, sign-extended for the
/// signed types; widened and marked.
Value wrapToSubByte(NodeContext &n, Value x, int32_t dtype) {
  int bits = subByteBits(dtype);
  RankedTensorType type = NodeContext::getType(x);
  Type wide = widenedSubByteType(n.b.getContext(), dtype);
  // Floats truncate toward zero through i32 (as ml_dtypes converts), then
  // keep their low byte.
  if (isa<FloatType>(type.getElementType()))
    x = n.create<CastOp>(x, {}, type.clone(n.b.getI32Type()));
  if (x && NodeContext::getType(x).getElementType() != wide)
    x = n.create<CastOp>(x, {}, type.clone(wide));
  if (!x)
    return {};
  int64_t mask = (int64_t(1) << bits) - 1;
  Value low = n.create<AndOp>({x, byteConstant(n, {}, wide, mask)});
  if (low && isSignedSubByte(dtype)) {
    // (v ^ sign) - sign sign-extends the low `bits` bits.
    Value sign = byteConstant(n, {}, wide, int64_t(1) << (bits - 1));
    low = n.create<XorOp>({low, sign});
    low = low ? n.create<SubOp>({low, sign}) : Value();
  }
  return markSubByte(low, dtype);
}

} // namespace

Value onnx_import::decodeFloat4(NodeContext &n, Value x) {
  int32_t dtype = subByteDtypeOf(x);
  if (dtype != kDtypeFloat4E2M1 && dtype != kDtypeFloat8E8M0)
    return x;
  SmallVector<float> table;
  if (dtype == kDtypeFloat4E2M1) {
    table.assign(kFloat4Values, kFloat4Values + 8);
    for (float v : kFloat4Values)
      table.push_back(-v);
  } else {
    for (int code = 0; code < 255; ++code)
      table.push_back(std::ldexp(1.0f, code - 127));
    table.push_back(std::numeric_limits<float>::quiet_NaN());
  }
  Value index =
      n.create<CastOp>(x, {}, NodeContext::getType(x).clone(n.b.getI64Type()));
  return index ? n.create<GatherOp>(
                     {f32Constant(n, {int64_t(table.size())}, table), index},
                     {n.i64("axis", 0)})
               : Value();
}

Value onnx_import::encodeFloat8E8M0(NodeContext &n, Value x,
                                    StringRef roundMode, bool saturate) {
  RankedTensorType type = NodeContext::getType(x);
  Type i32 = n.b.getI32Type();
  auto c = [&](int64_t v) { return splat(n, {}, i32, double(v)); };
  auto nonzero = [&](Value v, int64_t mask) -> Value {
    Value m = v ? n.create<AndOp>({v, c(mask)}) : Value();
    Value zero = m ? n.create<EqualOp>({m, c(0)}) : Value();
    return zero ? n.create<NotOp>({zero}) : Value();
  };
  if (type.getElementType() != n.b.getF32Type())
    x = n.create<CastOp>(x, {}, type.clone(n.b.getF32Type()));
  Value bits =
      x ? n.create<BitcastOp>(x, {}, NodeContext::getType(x).clone(i32))
        : Value();
  Value exponent =
      bits ? n.create<BitShiftOp>({bits, c(23)}, {n.boolean("left", false)})
           : Value();
  exponent = exponent ? n.create<AndOp>({exponent, c(0xFF)}) : Value();
  if (!exponent)
    return {};
  Value up; // where the exponent goes one up
  if (roundMode == "up") {
    up = nonzero(bits, 0x7FFFFF);
  } else if (roundMode == "nearest") {
    // onnx's reference: guard and (round or sticky or a nonzero exponent).
    Value guard = nonzero(bits, 0x400000);
    Value rest = nonzero(bits, 0x3FFFFF);
    Value normal = n.create<GreaterOp>({exponent, c(0)});
    Value either = rest && normal ? n.create<OrOp>({rest, normal}) : Value();
    up = guard && either ? n.create<AndOp>({guard, either}) : Value();
  }
  Value special = n.create<EqualOp>({exponent, c(0xFF)});
  if (up) {
    Value atMax = n.create<EqualOp>({exponent, c(0xFE)});
    Value stays =
        saturate && atMax ? n.create<OrOp>({special, atMax}) : special;
    up = stays ? n.create<AndOp>({up, n.create<NotOp>({stays})}) : Value();
    exponent = up ? n.create<WhereOp>(
                        {up, n.create<AddOp>({exponent, c(1)}), exponent})
                  : Value();
  } else if (roundMode != "down") {
    n.emitError() << "unsupported round_mode '" << roundMode
                  << "' (up, down and nearest are)";
    return {};
  }
  Type u8 = widenedSubByteType(n.b.getContext(), kDtypeFloat8E8M0);
  return exponent ? n.create<CastOp>(exponent, {},
                                     NodeContext::getType(exponent).clone(u8))
                  : Value();
}

Value onnx_import::convertToSubByte(NodeContext &n, Value x, int32_t dtype) {
  if (dtype == kDtypeFloat4E2M1)
    return markSubByte(encodeFloat4(n, decodeFloat4(n, x)), dtype);
  if (dtype == kDtypeFloat8E8M0)
    return markSubByte(encodeFloat8E8M0(n, decodeFloat4(n, x),
                                        n.getString("round_mode", "up"),
                                        n.getInt("saturate", 1) != 0),
                       dtype);
  return wrapToSubByte(n, decodeFloat4(n, x), dtype);
}

Value onnx_import::unpackSubByte(NodeContext &n, Value bytes,
                                 ArrayRef<int64_t> shape, int32_t dtype) {
  int bits = subByteBits(dtype), perByte = 8 / bits;
  int64_t count =
      RankedTensorType::get(shape, n.b.getI8Type()).getNumElements();
  int64_t packed = NodeContext::getType(bytes).getNumElements();
  Type u8 = NodeContext::getType(bytes).getElementType();
  SmallVector<Value> parts;
  for (int k = 0; k < perByte; ++k) {
    Value part = bytes;
    if (k)
      part = n.create<BitShiftOp>({part, byteConstant(n, {}, u8, k * bits)},
                                  {n.boolean("left", false)});
    part =
        part ? n.create<AndOp>({part, byteConstant(n, {}, u8, (1 << bits) - 1)})
             : Value();
    parts.push_back(part ? n.reshape(part, {packed, 1}) : Value());
    if (!parts.back())
      return {};
  }
  Value all =
      perByte == 1 ? parts[0] : n.create<ConcatOp>(parts, {n.i64("axis", 1)});
  all = all ? n.reshape(all, {packed * perByte}) : Value();
  if (all && packed * perByte != count)
    all = sliceAxis(n, all, 0, 0, count);
  all = all ? n.reshape(all, shape) : Value();
  if (!all)
    return {};
  if (!isSignedSubByte(dtype))
    return markSubByte(all, dtype);
  return wrapToSubByte(n, all, dtype);
}

Value onnx_import::packSubByte(NodeContext &n, Value v, int32_t dtype) {
  int bits = subByteBits(dtype), perByte = 8 / bits;
  RankedTensorType type = NodeContext::getType(v);
  int64_t count = type.getNumElements();
  int64_t packed = (count + perByte - 1) / perByte;
  Type u8 = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  Value bytes =
      type.getElementType() == u8 ? v : n.create<CastOp>(v, {}, type.clone(u8));
  bytes =
      bytes ? n.create<AndOp>({bytes, byteConstant(n, {}, u8, (1 << bits) - 1)})
            : Value();
  bytes = bytes ? n.reshape(bytes, {count}) : Value();
  if (bytes && packed * perByte != count)
    bytes = n.create<ConcatOp>(
        {bytes, byteConstant(n, {packed * perByte - count}, u8, 0)},
        {n.i64("axis", 0)});
  bytes = bytes ? n.reshape(bytes, {packed, perByte}) : Value();
  if (!bytes)
    return {};
  Value out;
  for (int k = 0; k < perByte; ++k) {
    Value part = n.reshape(sliceAxis(n, bytes, 1, k, k + 1), {packed});
    if (part && k)
      part = n.create<BitShiftOp>({part, byteConstant(n, {}, u8, k * bits)},
                                  {n.boolean("left", true)});
    out = out && part ? n.create<OrOp>({out, part}) : part;
    if (!out)
      return {};
  }
  return out;
}
