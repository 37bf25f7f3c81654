//===- SubByteImporter.cpp - ONNX int4, uint4, int2 and uint2 -------------===//
//
// The sub-byte integer types live in the IR widened to a byte each (i8 for
// int4/int2, ui8 for uint4/uint2), the value marked with its ONNX dtype
// (kFourBitDtypeAttr on the defining op) for the importers that must tell
// it apart: Cast and QuantizeLinear wrap or saturate to the narrow range.
// At the model's edges the values are packed as ONNX lays them out (the
// first element in the low bits of each byte): a graph input arrives as
// its bytes and is unpacked with shifts and masks, a graph output is packed
// the same way, so model.so exchanges exactly ONNX's bytes.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

int onnx_import::subByteBits(int32_t dtype) {
  switch (dtype) {
  case kDtypeInt4:
  case kDtypeUint4:
    return 4;
  case kDtypeInt2:
  case kDtypeUint2:
    return 2;
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
      def ? def->getAttrOfType<StringAttr>(kFourBitDtypeAttr) : StringAttr();
  if (!name)
    return 0;
  for (int32_t dtype : {kDtypeInt4, kDtypeUint4, kDtypeInt2, kDtypeUint2})
    if (name.getValue() == getDtypeName(dtype))
      return dtype;
  return 0;
}

Value onnx_import::markSubByte(Value v, int32_t dtype) {
  if (v && v.getDefiningOp())
    v.getDefiningOp()->setAttr(
        kFourBitDtypeAttr,
        StringAttr::get(v.getContext(), getDtypeName(dtype)));
  return v;
}

namespace {

/// A byte tensor constant of `shape` with every element `value`.
Value byteConstant(NodeContext &n, ArrayRef<int64_t> shape, Type type,
                   int64_t value) {
  return splat(n, shape, type, double(value));
}

} // namespace

Value onnx_import::wrapToSubByte(NodeContext &n, Value x, int32_t dtype) {
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
