//===- Float8.cpp - ONNX float8 conversions in integer arithmetic ---------===//
//
// Rounding is done on the f32 bit pattern: a value in the target's normal
// range rebiases its exponent and rounds the mantissa to nearest-even with
// the carry running into the exponent (which is also how a value rounds up to
// the next binade, or past the largest finite value); a value below it
// shifts its mantissa, implicit bit included, into the subnormal position.
// The result matches onnx's reference (ml_dtypes' conversions, after a clip
// to the finite range when saturating) bit for bit.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Float8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;

namespace {

/// One float8 encoding: mantissa bits, exponent bias, the largest finite
/// magnitude's code, and how it spells NaN and overflow.
struct Format {
  unsigned mantissa;
  int bias;
  uint32_t maxAbs;
  /// FNUZ: NaN is 0x80 (the would-be -0), there is no -0 and no infinity.
  bool unsignedZero;
  /// The magnitude code of NaN (not FNUZ) and of a non-saturated overflow.
  uint32_t nanAbs, overflowAbs;
};

std::optional<Format> formatOf(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format{3, 7, 0x7E, false, 0x7F, 0x7F};
  if (isa<Float8E4M3FNUZType>(type))
    return Format{3, 8, 0x7F, true, 0, 0};
  if (isa<Float8E5M2Type>(type))
    return Format{2, 15, 0x7B, false, 0x7E, 0x7C};
  if (isa<Float8E5M2FNUZType>(type))
    return Format{2, 16, 0x7F, true, 0, 0};
  return std::nullopt;
}

/// i32 arithmetic with the few operations the conversions need.
struct I32 {
  OpBuilder &b;
  Location loc;
  Type type = b.getI32Type();

  Value c(uint32_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(int32_t(v)));
  }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubIOp>(loc, x, y); }
  Value andi(Value x, uint32_t m) {
    return b.create<arith::AndIOp>(loc, x, c(m));
  }
  Value ori(Value x, Value y) { return b.create<arith::OrIOp>(loc, x, y); }
  Value shl(Value x, Value s) { return b.create<arith::ShLIOp>(loc, x, s); }
  Value shr(Value x, Value s) { return b.create<arith::ShRUIOp>(loc, x, s); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return b.create<arith::CmpIOp>(loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return b.create<arith::SelectOp>(loc, cond, x, y);
  }
  /// x / 2^s rounded to nearest, ties to even (1 <= s <= 31, no overflow).
  Value roundShift(Value x, Value s) {
    Value halfMinusOne = sub(shl(c(1), sub(s, c(1))), c(1));
    Value lsb = andi(shr(x, s), 1);
    return shr(add(add(x, halfMinusOne), lsb), s);
  }
};

} // namespace

bool mlir::dlc::isOnnxFloat8(Type type) { return formatOf(type).has_value(); }

Value mlir::dlc::truncF32ToFloat8(OpBuilder &b, Location loc, Value value,
                                  Type to, bool saturate) {
  Format f = *formatOf(to);
  using P = arith::CmpIPredicate;
  I32 i{b, loc};
  Value u = b.create<arith::BitcastOp>(loc, i.type, value);
  Value sign = i.andi(i.shr(u, i.c(24)), 0x80);
  Value a = i.andi(u, 0x7fffffff);
  Value isNaN = i.cmp(P::ugt, a, i.c(0x7f800000));
  Value e = i.shr(a, i.c(23));

  // In the target's normal range: rebias, round off 23 - mantissa bits.
  Value rebiased = i.sub(a, i.c(uint32_t(127 - f.bias) << 23));
  Value normal = i.roundShift(rebiased, i.c(23 - f.mantissa));
  // Below it: the mantissa with its implicit bit, shifted to the subnormal
  // unit 2^(1 - bias - mantissa); shifts past 31 leave 0 anyway.
  Value full = i.ori(i.andi(a, 0x7fffff), i.c(0x800000));
  Value shift = b.create<arith::MinUIOp>(
      loc, i.sub(i.c(uint32_t(151 - f.bias - int(f.mantissa))), e), i.c(31));
  Value subnormal = i.roundShift(full, shift);
  Value r = i.select(i.cmp(P::uge, e, i.c(uint32_t(128 - f.bias))), normal,
                     i.select(i.cmp(P::eq, e, i.c(0)), i.c(0), subnormal));

  Value overflow = i.cmp(P::ugt, r, i.c(f.maxAbs));
  Value mag = i.select(overflow, i.c(saturate ? f.maxAbs : f.overflowAbs), r);
  Value bits;
  if (f.unsignedZero) {
    Value signedBits =
        i.select(i.cmp(P::eq, mag, i.c(0)), i.c(0), i.ori(sign, mag));
    Value nan = isNaN;
    if (!saturate)
      nan = b.create<arith::OrIOp>(loc, nan, overflow);
    bits = i.select(nan, i.c(0x80), signedBits);
  } else {
    bits = i.ori(sign, i.select(isNaN, i.c(f.nanAbs), mag));
  }
  Value byte = b.create<arith::TruncIOp>(loc, b.getI8Type(), bits);
  return b.create<arith::BitcastOp>(loc, to, byte);
}

Value mlir::dlc::extFloat8ToF32(OpBuilder &b, Location loc, Value value) {
  Format f = *formatOf(value.getType());
  using P = arith::CmpIPredicate;
  I32 i{b, loc};
  Value byte = b.create<arith::BitcastOp>(loc, b.getI8Type(), value);
  Value c = b.create<arith::ExtUIOp>(loc, i.type, byte);
  Value sign = i.shl(i.andi(c, 0x80), i.c(24));
  Value abs = i.andi(c, 0x7f);
  Value e = i.shr(abs, i.c(f.mantissa));
  Value m = i.andi(abs, (1u << f.mantissa) - 1);
  Value normal = i.ori(i.shl(i.add(e, i.c(uint32_t(127 - f.bias))), i.c(23)),
                       i.shl(m, i.c(23 - f.mantissa)));
  // Subnormals: m units of 2^(1 - bias - mantissa), exact in f32.
  Type f32 = b.getF32Type();
  Value unit = b.create<arith::ConstantOp>(
      loc, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias - int(f.mantissa))));
  Value subnormal = b.create<arith::BitcastOp>(
      loc, i.type,
      b.create<arith::MulFOp>(loc, b.create<arith::UIToFPOp>(loc, f32, m),
                              unit));
  Value bits =
      i.ori(sign, i.select(i.cmp(P::eq, e, i.c(0)), subnormal, normal));
  Value qnan = i.c(0x7fc00000);
  if (f.unsignedZero) {
    bits = i.select(i.cmp(P::eq, c, i.c(0x80)), qnan, bits);
  } else if (f.overflowAbs != f.nanAbs) {
    // f8E5M2: the top exponent is infinity (mantissa 0) or NaN.
    Value top = i.cmp(P::eq, e, i.c((0x7Fu >> f.mantissa)));
    Value special =
        i.select(i.cmp(P::eq, m, i.c(0)), i.ori(sign, i.c(0x7f800000)), qnan);
    bits = i.select(top, special, bits);
  } else {
    bits = i.select(i.cmp(P::eq, abs, i.c(f.nanAbs)), qnan, bits);
  }
  return b.create<arith::BitcastOp>(loc, f32, bits);
}
