//===- ConvertQuantToLinalg.cpp - dlc quantization ops to linalg -*- C++
//-*-===//
//
// Lowers quantize_linear, dequantize_linear, conv_integer, matmul_integer and
// requantize to linalg.generic on tensors, like ConvertDlcToLinalg.cpp does
// for the float ops: the integer Conv/MatMul are one reduction generic with
// i32 accumulation over a zero fill, the requantize epilogue one elementwise
// generic that dlc-fuse-kernels merges into the reduction's kernel.
//
// Signedness: dlc types say `ui8` for ONNX uint8. Generics are built on
// signless i8 tensors (extui where the dlc type was unsigned), with a
// tensor.bitcast (ui8 <-> i8) at their boundaries; after the conversion
// eraseUnsignedIntegerTypes() makes every type signless (function
// signatures, constants) and drops the bitcasts, which have become
// identities, so bufferization and the host/NVVM lowerings only see i8.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <climits>

using namespace mlir;
using namespace mlir::dlc;

namespace {
using utils::IteratorType;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `type` with unsigned integers made signless (same width).
Type signless(Type type) {
  if (auto it = dyn_cast<IntegerType>(type))
    return it.isUnsigned() ? IntegerType::get(type.getContext(), it.getWidth())
                           : type;
  if (auto rt = dyn_cast<RankedTensorType>(type))
    return rt.clone(signless(rt.getElementType()));
  if (auto mt = dyn_cast<MemRefType>(type))
    return mt.clone(signless(mt.getElementType()));
  if (auto ut = dyn_cast<UnrankedTensorType>(type))
    return UnrankedTensorType::get(signless(ut.getElementType()));
  return type;
}

/// `v` as a signless tensor (a cast when its dlc type is unsigned).
Value toSignless(OpBuilder &b, Location loc, Value v) {
  Type to = signless(v.getType());
  if (to == v.getType())
    return v;
  return b.create<tensor::BitcastOp>(loc, to, v);
}

/// `v` (signless) back as `type`.
Value fromSignless(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return b.create<tensor::BitcastOp>(loc, type, v);
}

bool isUnsigned(Value tensor) {
  return tensorType(tensor).getElementType().isUnsignedInteger();
}

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(v));
}
Value f32(OpBuilder &b, Location loc, Type t, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v));
}
/// Widens a signless integer scalar to i32, zero-extending when the dlc
/// type it came from was unsigned.
Value toI32(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  Type i32Type = b.getI32Type();
  if (x.getType() == i32Type)
    return x;
  if (isUnsigned)
    return b.create<arith::ExtUIOp>(loc, i32Type, x);
  return b.create<arith::ExtSIOp>(loc, i32Type, x);
}

/// The range of a quantized element type (8 or 16 bits).
std::pair<int64_t, int64_t> quantRange(Type dlcElementType) {
  unsigned bits = dlcElementType.getIntOrFloatBitWidth();
  if (dlcElementType.isUnsignedInteger())
    return {0, (int64_t(1) << bits) - 1};
  return {-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
}

/// 1.5 * 2^23: the f32 values magic + n, |n| < 2^22, are encoded as
/// kMagicBits + n (their ulp is 1), so an integer add or a bitcast converts
/// such n exactly. The conversion instructions (cvt.rn.f32.s32,
/// cvt.rzi.s32.f32) issue at a quarter of the FP32 rate on sm_80/sm_90, and
/// an int8 epilogue did three per element.
constexpr double kMagic = 12582912.0;
constexpr int32_t kMagicBits = 0x4B400000;

/// f32(n) for an i32 `n` with |n| < 2^22 (an 8- or 16-bit value minus its
/// zero point), exactly, without a conversion: (kMagicBits + n) as f32 is
/// magic + n, minus magic.
Value smallIntToF32(OpBuilder &b, Location loc, Value n) {
  Value bits = b.create<arith::AddIOp>(loc, n, i32(b, loc, kMagicBits));
  Value f = b.create<arith::BitcastOp>(loc, b.getF32Type(), bits);
  return b.create<arith::SubFOp>(loc, f, f32(b, loc, b.getF32Type(), kMagic));
}

/// Rounds `x` (|x| < 2^22) half to even: adding and subtracting 1.5 *
/// 2^23 leaves the integer the IEEE default rounding mode chose, as MLAS
/// does; two adds that vectorize and have the same meaning on NVPTX.
Value roundHalfEven(OpBuilder &b, Location loc, Value x) {
  Value magic = f32(b, loc, x.getType(), kMagic);
  return b.create<arith::SubFOp>(loc, b.create<arith::AddFOp>(loc, x, magic),
                                 magic);
}

/// Whether the reciprocal `r` of a scale is exact: a power of two.
bool isPowerOfTwo(const APFloat &r) { return r.getExactLog2Abs() != INT_MIN; }

/// RN(1 / s) in f32, for an s that is an f32 value and where s and its
/// reciprocal lie in [2^-64, 2^64] (where `exactQuotient` was checked).
std::optional<APFloat> exactReciprocal(APFloat s) {
  const llvm::fltSemantics &f32 = APFloat::IEEEsingle();
  bool lost = false;
  s.convert(f32, APFloat::rmNearestTiesToEven, &lost);
  APFloat r(f32, 1);
  r.divide(s, APFloat::rmNearestTiesToEven);
  for (const APFloat &v : {s, r}) {
    double m = std::abs(v.convertToFloat());
    if (lost || !v.isFiniteNonZero() || m < 0x1p-64 || m > 0x1p64)
      return std::nullopt;
  }
  return r;
}

/// The f32 reciprocals of a constant scale, each correctly rounded, with
/// the scale's own type and shape (as f32): null unless every scale and
/// its reciprocal lie in [2^-64, 2^64], where `exactQuotient` was checked.
/// `exact` tells whether every reciprocal is exact (the scales are powers
/// of two): then x * r is x / s, both one rounding of the same real.
DenseElementsAttr scaleReciprocals(Value scale, bool &exact) {
  exact = false;
  Attribute attr;
  if (!matchPattern(scale, m_Constant(&attr)))
    return {};
  // Initializers come as resource blobs; scales are small.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    bool splat = false;
    if (!blob || resource.getType().getNumElements() > 65536 ||
        !DenseElementsAttr::isValidRawBuffer(resource.getType(),
                                             blob->getData(), splat))
      return {};
    attr = DenseElementsAttr::getFromRawBuffer(resource.getType(),
                                               blob->getData());
  }
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense)
    return {};
  SmallVector<APFloat> reciprocals;
  bool powersOfTwo = true;
  for (const APFloat &s : dense.getValues<APFloat>()) {
    std::optional<APFloat> r = exactReciprocal(s);
    if (!r)
      return {};
    powersOfTwo = powersOfTwo && isPowerOfTwo(*r);
    reciprocals.push_back(*r);
  }
  exact = powersOfTwo;
  auto type = RankedTensorType::get(dense.getType().getShape(),
                                    Float32Type::get(scale.getContext()));
  return DenseElementsAttr::get(type, reciprocals);
}

/// x / s, correctly rounded, from r = RN(1 / s) without a division
/// (Markstein): q = x * r is within an ulp of x / s, the fma gives the
/// remainder x - q * s exactly, and q + remainder * r rounds to RN(x / s).
/// Where |q| >= 2^22 (quantization saturates there) or x * r overflows, q
/// itself. Checked against division for scales in [2^-64, 2^64]: equal
/// wherever |x / s| >= 2^-60 (below, both round to the same integer).
Value exactQuotient(OpBuilder &b, Location loc, Value x, Value s, Value r) {
  Value q = b.create<arith::MulFOp>(loc, x, r);
  Value rem = b.create<math::FmaOp>(loc, b.create<arith::NegFOp>(loc, q), s, x);
  Value refined = b.create<math::FmaOp>(loc, rem, r, q);
  Value below = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, q,
                                        f32(b, loc, q.getType(), 0x1p22));
  Value above = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, q,
                                        f32(b, loc, q.getType(), -0x1p22));
  Value inRange = b.create<arith::AndIOp>(loc, below, above);
  return b.create<arith::SelectOp>(loc, inRange, refined, q);
}

/// x / s as QuantizeLinear computes it, given `r` = RN(1 / s) (null when
/// there is none): x * r when the reciprocal is `exact` (one rounding of
/// the same real as x / s), the corrected product when `correct`
/// (exactQuotient: the CUDA form), else the division.
Value quotient(OpBuilder &b, Location loc, Value x, Value s, Value r,
               bool exact, bool correct) {
  if (r && exact)
    return b.create<arith::MulFOp>(loc, x, r);
  if (r && correct)
    return exactQuotient(b, loc, x, s, r);
  return b.create<arith::DivFOp>(loc, x, s);
}

/// acc + (x - x_zp) * (w - w_zp) in i32 (x, w and their zero points
/// zero-extended when unsigned); without zero points (null) acc + x * w,
/// the body dlc-tile-gemm-kernels runs on tensor cores.
Value mulAccumulate(OpBuilder &b, Location loc, Value acc, Value x,
                    bool xUnsigned, Value w, bool wUnsigned, Value xzp = {},
                    Value wzp = {}) {
  Value xi = toI32(b, loc, x, xUnsigned);
  if (xzp)
    xi = b.create<arith::SubIOp>(loc, xi, toI32(b, loc, xzp, xUnsigned));
  Value wi = toI32(b, loc, w, wUnsigned);
  if (wzp)
    wi = b.create<arith::SubIOp>(loc, wi, toI32(b, loc, wzp, wUnsigned));
  return b.create<arith::AddIOp>(loc, acc,
                                 b.create<arith::MulIOp>(loc, xi, wi));
}

/// saturate(round(v) + zp) as the signless integer of a `dlcType` element
/// (8 or 16 bits), with `zp` the zero point as i32: clamps to the range
/// shifted by zp first, so the rounding is in range. An f32 `v`, then within
/// 65535 of 0, rounds half to even by adding 1.5 * 2^23 and converts by
/// reading the sum's encoding (kMagicBits + round(v)) as an integer: no
/// conversion instruction.
Value saturateToQuant(OpBuilder &b, Location loc, Value v, Value zp,
                      Type dlcType) {
  auto [lo, hi] = quantRange(dlcType);
  Type t = v.getType();
  // Folded where the zero point is a constant (attention's result).
  Value zpF = b.createOrFold<arith::SIToFPOp>(loc, t, zp);
  Value loV = b.createOrFold<arith::SubFOp>(loc, f32(b, loc, t, lo), zpF);
  Value hiV = b.createOrFold<arith::SubFOp>(loc, f32(b, loc, t, hi), zpF);
  // maxnum/minnum: a NaN saturates to the range's low end (as ONNX
  // Runtime's vector quantize, max then min, does), and x86 takes each as
  // one vmaxps/vminps where maximumf/minimumf's NaN propagation took three
  // (2 of the ~11 instructions of an int8 epilogue).
  v = b.create<arith::MaxNumFOp>(loc, v, loV);
  v = b.create<arith::MinNumFOp>(loc, v, hiV);
  Value i;
  APInt zpValue;
  if (t.isF32() && matchPattern(zp, m_ConstantInt(&zpValue)) &&
      zpValue.getSExtValue() % 2 == 0) {
    // An even constant zero point rides in the magic number: v + zp rounds
    // half to even as v does (zp keeps the parity), and the sum's low 16
    // bits are the quantized value itself (kMagicBits' are zero): no
    // integer add after the narrowing (1 of an int8 epilogue's ~9 vector
    // instructions; -128 and 0 are what QDQ models and calibration give).
    double magic = kMagic + (double)zpValue.getSExtValue();
    Value sum = b.create<arith::AddFOp>(loc, v, f32(b, loc, t, magic));
    Value bits = b.create<arith::BitcastOp>(loc, b.getI32Type(), sum);
    i = b.create<arith::SubIOp>(loc, bits, i32(b, loc, kMagicBits));
  } else if (t.isF32()) {
    Value sum = b.create<arith::AddFOp>(loc, v, f32(b, loc, t, kMagic));
    Value bits = b.create<arith::BitcastOp>(loc, b.getI32Type(), sum);
    i = b.create<arith::AddIOp>(
        loc, bits,
        b.createOrFold<arith::SubIOp>(loc, zp, i32(b, loc, kMagicBits)));
  } else {
    v = b.create<arith::AddFOp>(loc, roundHalfEven(b, loc, v), zpF);
    i = b.create<arith::FPToSIOp>(loc, b.getI32Type(), v);
  }
  return b.create<arith::TruncIOp>(
      loc, b.getIntegerType(dlcType.getIntOrFloatBitWidth()), i);
}

/// Indexing map of a per-tensor (rank 0) or per-axis (1-D along `axis`)
/// parameter in a `rank`-D iteration space.
AffineMap paramMap(Value param, int64_t rank, int64_t axis, MLIRContext *ctx) {
  if (tensorType(param).getRank() == 0)
    return AffineMap::get(rank, 0, ctx);
  return AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx));
}

/// The value of a zero point that is one constant (a per-tensor one, as
/// calibrated and QDQ models have): the lowering builds it in the body, so
/// LLVM folds the clamp bounds and a zero point of 0 costs nothing. nullopt
/// when the generic must read it.
std::optional<int64_t> constantZeroPoint(Value zp) {
  if (tensorType(zp).getNumElements() != 1)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> v = constInts(zp);
  if (!v || v->size() != 1)
    return std::nullopt;
  return v->front();
}

/// Appends the zero point `zp`, read through `map`, to a generic's inputs,
/// unless it is one constant: then returns it for the body to build.
std::optional<int64_t> addZeroPoint(OpBuilder &b, Location loc, Value zp,
                                    AffineMap map,
                                    SmallVectorImpl<Value> &inputs,
                                    SmallVectorImpl<AffineMap> &maps) {
  std::optional<int64_t> constant = constantZeroPoint(zp);
  if (!constant) {
    inputs.push_back(toSignless(b, loc, zp));
    maps.push_back(map);
  }
  return constant;
}

/// In a body, the zero point as i32: the constant `constant`, else the
/// block argument `arg` (zero-extended when `isUnsigned`).
Value zeroPointI32(OpBuilder &b, Location loc, std::optional<int64_t> constant,
                   Value arg, bool isUnsigned) {
  return constant ? i32(b, loc, *constant) : toI32(b, loc, arg, isUnsigned);
}

/// A parallel generic over `outType` (signless) reading `inputs` (signless)
/// through `maps`.
Value parallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType outType, ValueRange inputs,
    SmallVector<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  maps.push_back(AffineMap::getMultiDimIdentityMap(outType.getRank(), ctx));
  Value init = b.create<tensor::EmptyOp>(loc, outType.getShape(),
                                         outType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{outType}, inputs, ValueRange{init}, maps,
      SmallVector<IteratorType>(outType.getRank(), IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value zeroFilled(OpBuilder &b, Location loc, RankedTensorType type) {
  Value init =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::FillOp>(loc, i32(b, loc, 0), init).getResult(0);
}

/// sum((x - x_zp) * w) = sum(x * w) - x_zp * sum(w). With a constant weight
/// and an all-zero weight zero point, the contraction multiplies the raw
/// operands (the form tensor cores run: mma.sync takes no zero point) and
/// the accumulator starts at -x_zp * wsum[c], wsum being the weight's sum
/// per output channel. Padding still reads x_zp, so it still contributes 0.
struct ZeroPointSplit {
  /// The sum over each output channel's weights.
  SmallVector<int64_t> weightSums;

  /// `channelOf(i)`: the output channel of the weight's i-th element.
  static std::optional<ZeroPointSplit>
  get(Value weight, Value weightZeroPoint, int64_t channels,
      function_ref<int64_t(int64_t)> channelOf) {
    std::optional<SmallVector<int64_t>> wzp = constInts(weightZeroPoint);
    if (!wzp || llvm::any_of(*wzp, [](int64_t z) { return z != 0; }))
      return std::nullopt;
    std::optional<SmallVector<int64_t>> w = constInts(weight);
    if (!w)
      return std::nullopt;
    ZeroPointSplit split;
    split.weightSums.assign(channels, 0);
    for (auto [i, v] : llvm::enumerate(*w))
      split.weightSums[channelOf(i)] += v;
    return split;
  }

  /// The accumulator's initial value: zeros, or -(x_zp + zpOffset) *
  /// wsum[c] with c the iteration dim `channelDim` of the `type`-shaped
  /// result (zpOffset: 128 where the body reads x + 128).
  Value init(OpBuilder &b, Location loc, RankedTensorType type,
             int64_t channelDim, Value inputZeroPoint,
             int64_t zpOffset = 0) const {
    std::optional<SmallVector<int64_t>> xzp = constInts(inputZeroPoint);
    if (xzp && xzp->size() == 1 && (*xzp)[0] + zpOffset == 0)
      return zeroFilled(b, loc, type);
    bool xUnsigned = isUnsigned(inputZeroPoint);
    MLIRContext *ctx = b.getContext();
    SmallVector<int32_t> sums(weightSums.begin(), weightSums.end());
    auto sumsType =
        RankedTensorType::get({(int64_t)sums.size()}, b.getI32Type());
    Value sumsConst = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(sumsType, ArrayRef<int32_t>(sums)));
    int64_t rank = type.getRank();
    return parallelGeneric(
        b, loc, type, {toSignless(b, loc, inputZeroPoint), sumsConst},
        {AffineMap::get(rank, 0, ctx),
         AffineMap::get(rank, 0, getAffineDimExpr(channelDim, ctx))},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value z = toI32(nb, l, a[0], xUnsigned);
          if (zpOffset)
            z = nb.create<arith::AddIOp>(l, z, i32(nb, l, zpOffset));
          return nb
              .create<arith::MulIOp>(
                  l, nb.create<arith::SubIOp>(l, i32(nb, l, 0), z), a[1])
              .getResult();
        });
  }
};

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct QuantizeLinearLowering : OpRewritePattern<QuantizeLinearOp> {
  QuantizeLinearLowering(MLIRContext *ctx, bool reciprocal)
      : OpRewritePattern(ctx), reciprocal(reciprocal) {}
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank();
    Type dlcElt = type.getElementType();
    bool zpUnsigned = isUnsigned(op.getZeroPoint());
    AffineMap pm = paramMap(op.getScale(), rank, op.getAxis(), ctx);
    SmallVector<Value> inputs{op.getInput(), op.getScale()};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                pm};
    std::optional<int64_t> zpConst =
        addZeroPoint(rewriter, loc, op.getZeroPoint(), pm, inputs, maps);
    // Power-of-two scales (the unit scale dlc-fold-qdq leaves on a
    // rescaled sum) multiply exactly on every target; the others, in the
    // CUDA form, by the reciprocal with a correction.
    bool exact = false;
    DenseElementsAttr r = scaleReciprocals(op.getScale(), exact);
    if (!exact && !reciprocal)
      r = nullptr;
    bool unit =
        exact && r.isSplat() && r.getSplatValue<APFloat>().isExactlyValue(1.0);
    size_t rIndex = inputs.size();
    if (r && !unit) {
      inputs.push_back(rewriter.create<arith::ConstantOp>(loc, r));
      maps.push_back(pm);
    }
    Value out = parallelGeneric(
        rewriter, loc, cast<RankedTensorType>(signless(type)), inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type f32Type = b.getF32Type();
          Value x = a[0], s = a[1];
          if (x.getType() != f32Type) {
            x = b.create<arith::ExtFOp>(l, f32Type, x);
            s = b.create<arith::ExtFOp>(l, f32Type, s);
          }
          Value q = unit ? x
                         : quotient(b, l, x, s, r ? a[rIndex] : Value(), exact,
                                    reciprocal);
          return saturateToQuant(
              b, l, q, zeroPointI32(b, l, zpConst, a[2], zpUnsigned), dlcElt);
        });
    rewriter.replaceOp(op, fromSignless(rewriter, loc, out, type));
    return success();
  }

private:
  /// x * RN(1 / scale) with an exact correction instead of x / scale.
  bool reciprocal;
};

struct DequantizeLinearLowering : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank();
    bool unsignedIn = isUnsigned(op.getInput());
    // 8 or 16 bits: |x - zp| <= 65535 < 2^22.
    bool narrow = !tensorType(op.getInput()).getElementType().isInteger(32);
    AffineMap pm = paramMap(op.getScale(), rank, op.getAxis(), ctx);
    SmallVector<Value> inputs{toSignless(rewriter, loc, op.getInput()),
                              op.getScale()};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                pm};
    std::optional<int64_t> zpConst =
        addZeroPoint(rewriter, loc, op.getZeroPoint(), pm, inputs, maps);
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, loc, type, inputs, maps,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value d = toI32(b, l, a[0], unsignedIn);
                  if (!zpConst)
                    d = b.create<arith::SubIOp>(l, d,
                                                toI32(b, l, a[2], unsignedIn));
                  else if (*zpConst != 0)
                    d = b.create<arith::SubIOp>(l, d, i32(b, l, *zpConst));
                  // A narrow input, converted by its encoding.
                  Value f =
                      a[1].getType().isF32() && narrow
                          ? smallIntToF32(b, l, d)
                          : b.create<arith::SIToFPOp>(l, a[1].getType(), d)
                                .getResult();
                  return b.create<arith::MulFOp>(l, f, a[1]).getResult();
                }));
    return success();
  }
};

struct RequantizeLowering : OpRewritePattern<RequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    Type dlcElt = type.getElementType();
    bool zpUnsigned = isUnsigned(op.getZeroPoint());
    SmallVector<Value> inputs{op.getInput(), op.getMultiplier()};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                paramMap(op.getMultiplier(), rank, axis, ctx)};
    std::optional<int64_t> zpConst =
        addZeroPoint(rewriter, loc, op.getZeroPoint(),
                     AffineMap::get(rank, 0, ctx), inputs, maps);
    Value bias = op.getBias();
    size_t biasIndex = inputs.size();
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(paramMap(bias, rank, axis, ctx));
    }
    Value out = parallelGeneric(
        rewriter, loc, cast<RankedTensorType>(signless(type)), inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value acc = a[0];
          if (bias)
            acc = b.create<arith::AddIOp>(l, acc, a[biasIndex]);
          Type f32Type = b.getF32Type();
          Value v = b.create<arith::MulFOp>(
              l, b.create<arith::SIToFPOp>(l, f32Type, acc), a[1]);
          return saturateToQuant(
              b, l, v, zeroPointI32(b, l, zpConst, a[2], zpUnsigned), dlcElt);
        });
    rewriter.replaceOp(op, fromSignless(rewriter, loc, out, type));
    return success();
  }
};

/// A channels-last conv_integer: the input padded with its zero point
/// first (its own generic), then one reduction generic with pure affine
/// maps over (n, oh, ow, o, kh, kw, c). With a constant weight whose zero
/// point is 0 (ZeroPointSplit) it reads ins(input, weight) and accumulates
/// ext(x) * ext(w) onto -x_zp * wsum[o] (the implicit-GEMM form of int8
/// tensor cores); otherwise ins(input, weight, input zp, weight zp) and
/// (x - x_zp) * (w - w_zp) onto zeros. A depthwise conv reads its constant
/// weight as [1, KH, KW, O] (channelsLastConvWeight).
LogicalResult lowerChannelsLastConvInteger(ConvIntegerOp op,
                                           PatternRewriter &rewriter,
                                           bool padChannels) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto outType = op.getType();
  auto wType = tensorType(op.getWeight());
  bool xUnsigned = isUnsigned(op.getInput());
  bool wUnsigned = isUnsigned(op.getWeight());
  int64_t groups = op.getGroup();
  int64_t outChannels = outType.getDimSize(3);
  int64_t perChannel = wType.getNumElements() / outChannels;
  std::optional<ZeroPointSplit> split =
      ZeroPointSplit::get(op.getWeight(), op.getWeightZeroPoint(), outChannels,
                          [&](int64_t i) { return i / perChannel; });
  // As for float convs: input channels that do not fill 16 bytes (an int8
  // stem) padded to 16, the weight with zeros -- only with the split, where
  // a zero weight contributes nothing whatever the input's zero point.
  Value rawWeight = op.getWeight();
  Value input = toSignless(rewriter, loc, op.getInput());
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads();
  int64_t channels = 0;
  // A strided stem takes the float convs' space-to-depth form: resnet50's
  // 7x7 stride 2 over 3 channels is 4x4 over 16 (K 256 instead of 784 with
  // the channels padded to 16). The copy pads with the input's zero point
  // (a constant: post-training int8's input, ONNX Runtime's QDQ), which
  // the split's init takes away again; its padded channels meet zero
  // weights.
  std::optional<int64_t> inputZeroPoint =
      constantZeroPoint(op.getInputZeroPoint());
  if (padChannels && split && groups == 1 && inputZeroPoint) {
    if (auto s2d = spaceToDepthConv(
            rewriter, loc, input, rawWeight, outType.getShape(), strides, pads,
            op.getDilations(), groups, 16, *inputZeroPoint)) {
      input = s2d->input;
      rawWeight = s2d->weight;
      wType = tensorType(rawWeight);
      strides = SpaceToDepthConv::kStrides;
      pads = SpaceToDepthConv::kPads;
    }
  }
  if (padChannels && split && groups == 1 && rawWeight == op.getWeight())
    if (Value padded =
            paddedConvWeight(rewriter, loc, rawWeight, 16, channels)) {
      rawWeight = padded;
      wType = tensorType(padded);
    }
  Window win{tensorType(input).getShape(),
             outType.getShape(),
             wType.getShape().slice(1, 2),
             strides,
             pads,
             op.getDilations(),
             /*firstSpatial=*/1};
  Value xzp = toSignless(rewriter, loc, op.getInputZeroPoint());
  Value wzp = toSignless(rewriter, loc, op.getWeightZeroPoint());
  // Padding reads the zero point: it contributes 0 (with the split, the
  // init takes it away again). Grouped convolutions, never implicit GEMMs,
  // read their window with bounds checks instead of a padded copy (as the
  // float ones do): one kernel and a pass over the input fewer per
  // depthwise layer.
  // A zero point of 0 (uint8 activations from --calibrate) pads with the
  // constant zero, as float convolutions do: dlc-tile-gemm-kernels then
  // folds the padding into zero-filling copies.
  bool boundedReads = groups != 1 && win.padded() && !channels;
  Value padValue =
      constantZeroPoint(op.getInputZeroPoint()) == 0 ? Value() : xzp;
  if ((win.padded() || channels) && !boundedReads)
    input = padChannelsLast(rewriter, loc, input, pads, padValue, channels);
  ChannelsLastConvIndexing conv{strides,
                                op.getDilations(),
                                groups,
                                outType.getDimSize(3) / groups,
                                wType.getDimSize(3),
                                ctx};
  int64_t numDims = ChannelsLastConvIndexing::numDims;
  AffineMap scalarMap = AffineMap::get(numDims, 0, ctx);
  Value weight = toSignless(
      rewriter, loc, channelsLastConvWeight(rewriter, loc, rawWeight, conv));
  // With bounded reads the input is no operand: the body reads it under
  // the window, the zero point (operand 1) where the window leaves it.
  auto inputElement = [&](OpBuilder &b, Location l, ValueRange a) {
    return boundedReads ? conv.readInput(b, l, input, win, a[1]) : a[0];
  };
  if (split) {
    Value init = split->init(rewriter, loc, outType, /*channelDim=*/3,
                             op.getInputZeroPoint());
    SmallVector<Value> inputs{input, weight};
    SmallVector<AffineMap> maps{conv.inputMap(), conv.weightMap(),
                                conv.outputMap()};
    if (boundedReads) {
      inputs = {weight, xzp};
      maps = {conv.weightMap(), scalarMap, conv.outputMap()};
    }
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{outType}, inputs, ValueRange{init}, maps,
        conv.iterators(), [&](OpBuilder &b, Location l, ValueRange a) {
          Value w = boundedReads ? a[0] : a[1];
          b.create<linalg::YieldOp>(l, mulAccumulate(b, l, a.back(),
                                                     inputElement(b, l, a),
                                                     xUnsigned, w, wUnsigned));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
  SmallVector<Value> inputs{input, weight, xzp, wzp};
  SmallVector<AffineMap> maps{
      conv.inputMap(), conv.weightMap(), scalarMap,
      tensorType(wzp).getRank() == 0
          ? scalarMap
          : AffineMap::get(numDims, 0, getAffineDimExpr(3, ctx)),
      conv.outputMap()};
  if (boundedReads) {
    // weight, xzp, wzp: the zero point stays operand 1 for inputElement.
    inputs.erase(inputs.begin());
    maps.erase(maps.begin());
  }
  Value init = zeroFilled(rewriter, loc, outType);
  auto generic = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{outType}, inputs, ValueRange{init}, maps, conv.iterators(),
      [&](OpBuilder &b, Location l, ValueRange a) {
        size_t w = boundedReads ? 0 : 1;
        b.create<linalg::YieldOp>(
            l, mulAccumulate(b, l, a.back(), inputElement(b, l, a), xUnsigned,
                             a[w], wUnsigned, a[w + 1], a[w + 2]));
      });
  rewriter.replaceOp(op, generic.getResult(0));
  return success();
}

/// quad-conv-inputs: the signless plane `plane` [N, C, L] (C a multiple of
/// 4) as byte quadruples [N, C / 4, 4 L], x[4 c2 + q][p] at [c2, 4 p + q]
/// (x xor 0x80 with `flipX`), written by a parallel generic over (n, c2, p,
/// q): a work item runs (p, q) as loops (KernelForm's interleaving copy),
/// which LLVM vectorizes as 4 row loads and an interleaved store.
static Value quadPlane(OpBuilder &b, Location loc, Value plane, bool flipX) {
  auto type = tensorType(plane);
  MLIRContext *ctx = b.getContext();
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          l = type.getDimSize(2);
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  Value packed = parallelGeneric(
      b, loc, RankedTensorType::get({n, c / 4, l, 4}, b.getI8Type()), {plane},
      {AffineMap::get(4, 0, {d0, d1 * 4 + d3, d2}, ctx)},
      [&](OpBuilder &nb, Location loc, ValueRange a) -> Value {
        if (!flipX)
          return a[0];
        return nb.create<arith::XOrIOp>(
            loc, a[0], nb.create<arith::ConstantIntOp>(loc, 0x80, 8));
      });
  return b.create<tensor::CollapseShapeOp>(
      loc, packed, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// quad-conv-inputs: the 1x1 stride-1 conv of the signless `input` [N, C,
/// H, W] and `weight` [O, C, 1, 1] (bytes, its zero point split out) into
/// `init` [N, O, H, W], reading the input as byte quadruples [N, C / 4, H,
/// 4 W] (x[4 c2 + q][h][w] at [c2, h, 4 w + q], x xor 0x80 with `flipX`)
/// that a parallel generic of its own writes, the reduction split in c2 and
/// q (a tensor.empty of [C / 4, 4] sizes them). A 16-lane tile's 4 steps of
/// q are then one 64-byte load, where dlc-vectorize-host-rows loaded 16
/// bytes of 4 channel rows and interleaved them for each tile and pass.
static Value quadConv(OpBuilder &b, Location loc, Value input, Value weight,
                      Value init, bool flipX, bool xUnsigned, bool wUnsigned);

/// Whether quadConv applies to a conv of input `inType`, weight `wType`
/// and output `outType`: a 1x1 window over a static 2-D plane at stride 1,
/// byte weights, whole channel quadruples.
static bool isQuadConv(RankedTensorType inType, RankedTensorType wType,
                       RankedTensorType outType) {
  return inType.getRank() == 4 && wType.getRank() == 4 &&
         inType.hasStaticShape() && wType.getElementType().isInteger(8) &&
         wType.getDimSize(2) == 1 && wType.getDimSize(3) == 1 &&
         inType.getDimSize(2) == outType.getDimSize(2) &&
         inType.getDimSize(3) == outType.getDimSize(3) &&
         inType.getDimSize(1) % 4 == 0;
}

static Value quadConv(OpBuilder &b, Location loc, Value input, Value weight,
                      Value init, bool flipX, bool xUnsigned, bool wUnsigned) {
  auto inType = tensorType(input);
  auto accType = tensorType(init);
  MLIRContext *ctx = b.getContext();
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          h = inType.getDimSize(2), w = inType.getDimSize(3);
  Value flat = quadPlane(
      b, loc,
      b.create<tensor::CollapseShapeOp>(
          loc, input, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}),
      flipX);
  Value quads = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({n, c / 4, h, 4 * w}, b.getI8Type()), flat,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value window = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{c / 4, 4},
                                           b.getI8Type());
  AffineExpr d0, d1, d2, d3, d4, d5;
  bindDims(ctx, d0, d1, d2, d3, d4, d5);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  // (n, o, h, w, c2, q).
  SmallVector<AffineMap> maps{
      AffineMap::get(6, 0, {d1, d4 * 4 + d5, zero, zero}, ctx),
      AffineMap::get(6, 0, {d0, d4, d2, d3 * 4 + d5}, ctx),
      AffineMap::get(6, 0, {d4, d5}, ctx),
      AffineMap::get(6, 0, {d0, d1, d2, d3}, ctx)};
  SmallVector<IteratorType> iters(4, IteratorType::parallel);
  iters.append(2, IteratorType::reduction);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{accType}, ValueRange{weight, quads, window},
      ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        nb.create<linalg::YieldOp>(l, mulAccumulate(nb, l, a[3], a[1],
                                                    xUnsigned || flipX, a[0],
                                                    wUnsigned));
      });
  return generic.getResult(0);
}

struct ConvIntegerLowering : OpRewritePattern<ConvIntegerOp> {
  ConvIntegerLowering(MLIRContext *ctx, bool padChannels, bool padInput,
                      bool vnni, bool pairWeights, bool wideWeights,
                      int64_t planeRows, bool padGroupedInput, bool quadInputs)
      : OpRewritePattern(ctx), padChannels(padChannels), padInput(padInput),
        vnni(vnni), pairWeights(pairWeights), wideWeights(wideWeights),
        planeRows(planeRows), padGroupedInput(padGroupedInput),
        quadInputs(quadInputs) {}
  /// Channels-last: input channels padded to a multiple of 16.
  bool padChannels;
  /// NC[D]HW convs whose windows leave the input read a copy padded with
  /// the input's zero point.
  bool padInput;
  /// NC[D]HW convs of one group, laid out for AVX512-VNNI: constant
  /// weights [O, KH, KW, C] (a tap's input channels consecutive), and an s8
  /// input times s8 weights read as u8 (x + 128).
  bool vnni;
  /// The same weight layout alone, for pmaddwd: a step pair's weights in
  /// one 16-bit word.
  bool pairWeights;
  /// Constant weights as i16 where the zero point is split out, for
  /// pmaddwd (not with `vnni`: vpdpbusd multiplies bytes).
  bool wideWeights;
  /// Host: rowConv's longest row (0: off).
  int64_t planeRows;
  /// Grouped (depthwise) convs whose windows leave the input read a padded
  /// copy too, as the float ones do.
  bool padGroupedInput;
  /// With `vnni`: 1x1 convs read their input as byte quadruples
  /// (`quad-conv-inputs`, quadConv).
  bool quadInputs;
  LogicalResult matchAndRewrite(ConvIntegerOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return lowerChannelsLastConvInteger(op, rewriter, padChannels);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto outType = op.getType();
    auto inShape = tensorType(op.getInput()).getShape();
    auto wType = tensorType(op.getWeight());
    bool xUnsigned = isUnsigned(op.getInput());
    bool wUnsigned = isUnsigned(op.getWeight());
    Window win{
        inShape,         outType.getShape(), wType.getShape().drop_front(2),
        op.getStrides(), op.getPads(),       op.getDilations()};
    bool padded = win.padded();
    bool oneGroup = op.getGroup() == 1;
    Value input = toSignless(rewriter, loc, op.getInput());
    Value inputZeroPoint = toSignless(rewriter, loc, op.getInputZeroPoint());
    // Constant weights of a window larger than 1 as [O, KH, KW, C]: a
    // tap's input channels consecutive for the byte dot products, which take
    // them 4 (vpdpbusd) or 2 (pmaddwd) at a time. Where C is no multiple (a
    // stem's 3 RGB channels ran without a dot form), the weights get zeros
    // up to one and the input's copy (if it gets one) the zero point, which
    // contributes 0 either way.
    Value weight = op.getWeight();
    bool channelsLast = false;
    if ((vnni || pairWeights) && oneGroup &&
        wType.getNumElements() > wType.getDimSize(0) * wType.getDimSize(1)) {
      SmallVector<int64_t> perm{0};
      for (int64_t i = 2; i < wType.getRank(); ++i)
        perm.push_back(i);
      perm.push_back(1);
      if (Value permuted =
              permutedConstant(rewriter, loc, weight, perm, "_khwc")) {
        weight = permuted;
        channelsLast = true;
      }
    }
    int64_t inChannels = wType.getDimSize(1);
    int64_t dotChannels =
        channelsLast ? llvm::alignTo(inChannels, vnni ? 4 : 2) : inChannels;
    Value paddedWeight;
    if (dotChannels != inChannels) {
      paddedWeight = paddedLastDimConstant(rewriter, loc, weight, dotChannels,
                                           ("_c" + Twine(dotChannels)).str());
      if (!paddedWeight)
        dotChannels = inChannels;
    }
    int64_t channels = inChannels;
    Value wzp = op.getWeightZeroPoint();
    int64_t outChannels = outType.getDimSize(1);
    int64_t perChannel = wType.getNumElements() / outChannels;
    std::optional<ZeroPointSplit> split =
        ZeroPointSplit::get(op.getWeight(), wzp, outChannels,
                            [&](int64_t i) { return i / perChannel; });
    bool flipX = vnni && split && !xUnsigned && !wUnsigned;
    // A grouped conv's window rows as byte quadruples of consecutive taps
    // (vpdpbusd on dlc-vectorize-host-rows' sliding reads, 3 taps an
    // instruction where each took a widening and a pmaddwd): its weight
    // rows get zero taps up to a multiple of 4, which read the copy's next
    // column and, the zero point split out, add nothing.
    int64_t kw = wType.getShape().back();
    int64_t tapWidth = kw;
    if (vnni && split && !oneGroup && win.dilations.back() == 1 &&
        (xUnsigned || flipX) != wUnsigned)
      tapWidth = llvm::alignTo(kw, 4);
    // Output rows shorter than a tile run on the input's plane, a strided
    // conv on its input's phases (RowConv), their copies padded with the
    // zero point. A byte row's positions round up to whole tiles: AVX2 has
    // no masked byte loads, and a rest ran as pieces of 8, 4, 2 and 1
    // lanes, each a pass of the reductions (7x7 outputs on the padded
    // width: 61 = 3 x 16 + 8 + 4 + 1, 64 is 4 tiles); with AVX-512 a byte
    // dot product takes a pass a tile either way.
    std::optional<RowConv> rows;
    if (padInput && (oneGroup || padGroupedInput))
      rows = rowConv(rewriter, loc, input, win, planeRows,
                     /*rowMultiple=*/kHostByteTile, inputZeroPoint, dotChannels,
                     op.getGroup(), tapWidth);
    Window paddedWin, subsampledWin;
    SmallVector<int64_t> paddedShape, subsampledShape;
    // The last spatial dim's extent that the window rows' taps read.
    int64_t last = win.spatial() - 1;
    int64_t tapsReach =
        (win.outShape[win.firstSpatial + last] - 1) * win.strides[last] +
        tapWidth;
    if (rows) {
      input = rows->source;
      padded = false;
      // A depthwise conv reduces over one channel a group.
      if (!rows->depthwise)
        channels = rows->channels;
      if (rows->readWidth < tapWidth)
        tapWidth = kw;
    } else if (padded && (oneGroup ? padInput : padGroupedInput) &&
               win.insideWhenPadded()) {
      // A grouped conv's bounds-checked byte reads kept its rows scalar:
      // mobilenet_v2's int8 depthwise convs took 5x the float ones' time.
      // The copy takes the columns the zero taps read past its end pad.
      SmallVector<int64_t> pads(win.pads);
      pads[win.spatial() + last] += std::max<int64_t>(
          0, tapsReach - win.inShape[win.firstSpatial + last] - pads[last] -
                 pads[win.spatial() + last]);
      Window extended = win;
      extended.pads = pads;
      input = padSpatial(rewriter, loc, input, extended, inputZeroPoint,
                         paddedWin, paddedShape, dotChannels,
                         /*fillThenCopy=*/!oneGroup,
                         /*alignInterior=*/oneGroup ? 0 : kHostByteTile);
      win = paddedWin;
      padded = false;
      channels = dotChannels;
    } else if (padded || tapsReach > win.inShape[win.firstSpatial + last]) {
      tapWidth = kw;
    }
    if (tapWidth != kw)
      if (Value taps = paddedLastDimConstant(rewriter, loc, weight, tapWidth,
                                             ("_kw" + Twine(tapWidth)).str()))
        weight = taps;
    if (channels != inChannels)
      weight = paddedWeight;
    // A strided 1x1 conv reads a copy of the positions it reads: stride 1,
    // its plane contiguous (dlc-collapse-row-planes).
    if (!rows && padInput && !padded && oneGroup)
      if (Value copy = subsampleSpatial(rewriter, loc, input, win,
                                        subsampledWin, subsampledShape)) {
        input = copy;
        win = subsampledWin;
      }
    ConvIndexing conv{win, outType.getDimSize(1) / (int64_t)op.getGroup(),
                      channels, ctx};
    conv.weightChannelsLast = channelsLast;
    if (quadInputs && vnni && split && oneGroup && !rows && !padded &&
        channels == inChannels &&
        isQuadConv(tensorType(input), tensorType(weight), outType)) {
      Value init = split->init(rewriter, loc, outType, 1,
                               op.getInputZeroPoint(), flipX ? 128 : 0);
      rewriter.replaceOp(op, quadConv(rewriter, loc, input,
                                      toSignless(rewriter, loc, weight), init,
                                      flipX, xUnsigned, wUnsigned));
      return success();
    }
    int64_t numDims = rows ? rows->numDims() : conv.numDims();
    // pmaddwd multiplies 16-bit lanes: i16 weights make a step pair one
    // 32-bit broadcast from memory (a load), where a byte pair took a
    // 16-bit broadcast and a widening, two of the shuffle ports' uops that
    // pmaddwd's inputs compete for.
    bool weightUnsigned = wUnsigned;
    if (wideWeights && !vnni && split && oneGroup)
      if (Value wide = widenedConstant(rewriter, loc, weight, "_i16")) {
        weight = wide;
        weightUnsigned = false;
      }
    // Operands: w, x_zp, [w_zp when not split], [x when unpadded].
    SmallVector<Value> inputs{toSignless(rewriter, loc, weight),
                              inputZeroPoint};
    SmallVector<AffineMap> maps{rows ? rows->weightMap(conv.weightChannelsLast)
                                     : conv.weightMap(),
                                AffineMap::get(numDims, 0, ctx)};
    if (!split) {
      inputs.push_back(toSignless(rewriter, loc, wzp));
      maps.push_back(
          tensorType(wzp).getRank() == 0
              ? AffineMap::get(numDims, 0, ctx)
              : AffineMap::get(numDims, 0, getAffineDimExpr(1, ctx)));
    }
    if (!padded) {
      inputs.push_back(input);
      maps.push_back(rows ? rows->inputMap() : conv.inputMap());
      if (split) {
        // Only x and w: the x_zp operand is not read.
        inputs.erase(inputs.begin() + 1);
        maps.erase(maps.begin() + 1);
      }
    }
    maps.push_back(rows ? rows->outputMap() : conv.outputMap());
    auto accType =
        rows ? RankedTensorType::get(rows->accShape, outType.getElementType())
             : outType;
    // vpdpbusd multiplies u8 by s8: with s8 x s8 and the zero point split
    // out, the body reads x + 128 as u8 and the init subtracts
    // (x_zp + 128) * wsum.
    Value init = split ? split->init(rewriter, loc, accType, 1,
                                     op.getInputZeroPoint(), flipX ? 128 : 0)
                       : zeroFilled(rewriter, loc, accType);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{accType}, inputs, ValueRange{init}, maps,
        rows ? rows->iterators() : conv.iterators(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value w = a[0];
          if (split) {
            // Padding reads the zero point, which the init subtracts again.
            Value x = padded ? conv.readInput(b, l, input, a[1]) : a[1];
            if (flipX)
              x = b.create<arith::XOrIOp>(
                  l, x, b.create<arith::ConstantIntOp>(l, 0x80, 8));
            b.create<linalg::YieldOp>(l, mulAccumulate(b, l, a.back(), x,
                                                       xUnsigned || flipX, w,
                                                       weightUnsigned));
            return;
          }
          Value xzp = a[1];
          // Padding reads the zero point: it contributes 0.
          Value x = padded ? conv.readInput(b, l, input, xzp) : a[3];
          b.create<linalg::YieldOp>(l,
                                    mulAccumulate(b, l, a.back(), x, xUnsigned,
                                                  w, wUnsigned, xzp, a[2]));
        });
    Value acc = generic.getResult(0);
    rewriter.replaceOp(op,
                       rows ? rows->outputs(rewriter, loc, acc, outType) : acc);
    return success();
  }
};

struct MatMulIntegerLowering : OpRewritePattern<MatMulIntegerOp> {
  MatMulIntegerLowering(MLIRContext *ctx, bool weightsNK, bool pairWeights,
                        bool quadWeights)
      : OpRewritePattern(ctx), weightsNK(weightsNK), pairWeights(pairWeights),
        quadWeights(quadWeights) {}
  /// Constant 2-D rhs laid out [N, K] (int8 mma.sync reads B that way).
  bool weightsNK;
  /// Constant 2-D rhs of an even K with its zero point split out laid out
  /// as 16-bit pairs [K / 2, 2 N] (pmaddwd's lane pairs, see the pass's
  /// `pair-matmul-weights`).
  bool pairWeights;
  /// The same as byte quadruples [K / 4, 4 N] (vpdpbusd's lane words, see
  /// `quad-matmul-weights`).
  bool quadWeights;

  /// The constant 8-bit `rhs` ([K, N], or [N, K] when `transposed`) as
  /// groups of `group` [K / group, L] holding w[group k2 + p][n] at [k2,
  /// group n + p], pairs widened to i16, quadruples bytes; null if it is
  /// not one. Where it outgrows L1, a row's L >= group N elements are an
  /// odd number of 64-byte lines: a tile's lanes are then one line, and
  /// the lines a reduction walks down fall in every L1 set (rows of 3 x 4
  /// KB, bert's FFN-up, all fell in one, each step missing L1); else L =
  /// group N.
  static Value groupedConstant(OpBuilder &b, Location loc, Value rhs,
                               bool transposed, int64_t group) {
    auto type = tensorType(rhs);
    int64_t k = type.getDimSize(transposed ? 1 : 0),
            n = type.getDimSize(transposed ? 0 : 1);
    if (k % group != 0)
      return {};
    bool widen = group == 2;
    int64_t elementBytes = widen ? 2 : 1;
    constexpr int64_t lineBytes = 64, l1Bytes = 32 * 1024;
    int64_t lineElements = lineBytes / elementBytes;
    int64_t row = group * n;
    if ((k / group) * row * elementBytes > l1Bytes)
      row = (llvm::divideCeil(row, lineElements) | 1) * lineElements;
    Value groups = gatheredConstant(
        b, loc, rhs, {k / group, row},
        [&](ArrayRef<int64_t> idx, ArrayRef<int64_t>) -> int64_t {
          if (idx[1] >= group * n)
            return -1;
          int64_t r = group * idx[0] + idx[1] % group, c = idx[1] / group;
          return transposed ? c * k + r : r * n + c;
        },
        widen ? "_pairs" : "_quads");
    if (!groups || !widen)
      return groups;
    return widenedConstant(b, loc, groups, "_i16");
  }

  /// The product of `op` on weights grouped by `groupedConstant`: the
  /// reduction as k2 (K / group) and p (group), so that a dot product's
  /// steps of the inner one read each lane's weights from consecutive
  /// elements. Pairs: the lhs widened to i16 by a kernel of its own, so
  /// that a row's pair of it is one 32-bit broadcast from memory (a load),
  /// where two bytes took a broadcast and a widening on the shuffle ports.
  /// Quadruples: with `flipLhs` an s8 lhs is read as u8 (x xor 0x80, by a
  /// kernel of its own), which vpdpbusd multiplies by the s8 weights; the
  /// init has subtracted 128 * wsum for it.
  LogicalResult rewriteGrouped(MatMulIntegerOp op, PatternRewriter &rewriter,
                               Value groups, Value init, int64_t group,
                               bool flipLhs) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), batch = rank - 2;
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(batch + 1, ctx),
               k2 = getAffineDimExpr(batch + 2, ctx),
               p = getAffineDimExpr(batch + 3, ctx);
    int64_t numDims = rank + 2;
    // batchedOperandMap's maps have rank + 1 dims: its batch and row
    // results, the column group k2 + p over one more.
    SmallVector<AffineExpr> lhsExprs(
        batchedOperandMap(type, op.getLhs(), m, k2).getResults());
    lhsExprs.back() = k2 * group + p;
    // k2 and p only size the loops through the reads: a tensor.empty of
    // [K / group, group] gives them their extents (as a pooling window
    // does).
    int64_t groupedK = tensorType(groups).getDimSize(0);
    Value window = rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<int64_t>{groupedK, group}, rewriter.getI8Type());
    SmallVector<AffineMap> maps{
        AffineMap::get(numDims, 0, lhsExprs, ctx),
        AffineMap::get(numDims, 0, {k2, n * group + p}, ctx),
        AffineMap::get(numDims, 0, {k2, p}, ctx),
        AffineMap::getMultiDimIdentityMap(numDims, ctx).getMajorSubMap(rank)};
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.append(2, IteratorType::reduction);
    bool lhsUnsigned = isUnsigned(op.getLhs());
    bool wUnsigned = group == 4 && isUnsigned(op.getRhs());
    auto lhsType = tensorType(op.getLhs());
    Value lhs = toSignless(rewriter, loc, op.getLhs());
    auto identity = AffineMap::getMultiDimIdentityMap(lhsType.getRank(), ctx);
    if (group == 2) {
      lhs = parallelGeneric(
          rewriter, loc,
          RankedTensorType::get(lhsType.getShape(), rewriter.getI16Type()),
          {lhs}, {identity}, [&](OpBuilder &b, Location l, ValueRange a) {
            if (lhsUnsigned)
              return b.create<arith::ExtUIOp>(l, b.getI16Type(), a[0])
                  .getResult();
            return b.create<arith::ExtSIOp>(l, b.getI16Type(), a[0])
                .getResult();
          });
      lhsUnsigned = false;
    } else if (flipLhs) {
      lhs = parallelGeneric(
          rewriter, loc, cast<RankedTensorType>(lhs.getType()), {lhs},
          {identity}, [&](OpBuilder &b, Location l, ValueRange a) {
            return b
                .create<arith::XOrIOp>(
                    l, a[0], b.create<arith::ConstantIntOp>(l, 0x80, 8))
                .getResult();
          });
      lhsUnsigned = true;
    }
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{lhs, groups, window}, ValueRange{init},
        maps, iters, [&](OpBuilder &b, Location l, ValueRange a) {
          b.create<linalg::YieldOp>(
              l, mulAccumulate(b, l, a[3], a[0], lhsUnsigned, a[1], wUnsigned));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }

  /// The signless `y` [.., K, N] as a new tensor [.., N, K].
  static Value transposeLastTwo(OpBuilder &b, Location loc, Value y) {
    auto type = tensorType(y);
    int64_t r = type.getRank();
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[r - 2], shape[r - 1]);
    SmallVector<AffineExpr> in;
    for (int64_t i = 0; i < r; ++i)
      in.push_back(
          b.getAffineDimExpr(i < r - 2 ? i : (i == r - 2 ? r - 1 : r - 2)));
    return parallelGeneric(
        b, loc, type.clone(shape), {y},
        {AffineMap::get(r, 0, in, b.getContext())},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }

  /// Sums over the last dim of the signless `v` [.., R, K] into i32 [.., R].
  static Value rowSums(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
    MLIRContext *ctx = b.getContext();
    auto vType = tensorType(v);
    int64_t r = vType.getRank();
    auto sumsType =
        RankedTensorType::get(vType.getShape().drop_back(), b.getI32Type());
    SmallVector<IteratorType> iters(r - 1, IteratorType::parallel);
    iters.push_back(IteratorType::reduction);
    return b
        .create<linalg::GenericOp>(
            loc, TypeRange{sumsType}, ValueRange{v},
            ValueRange{zeroFilled(b, loc, sumsType)},
            ArrayRef<AffineMap>{
                AffineMap::getMultiDimIdentityMap(r, ctx),
                AffineMap::getMultiDimIdentityMap(r, ctx).getMajorSubMap(r -
                                                                         1)},
            iters,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              nb.create<linalg::YieldOp>(
                  l, nb.create<arith::AddIOp>(l, a[1],
                                              toI32(nb, l, a[0], isUnsigned))
                         .getResult());
            })
        .getResult(0);
  }

  /// The map of per-row sums `sums` [.., R] in the iteration space of the
  /// `type`-shaped result, R being result dim `dim`; batch dims broadcast
  /// as the operand they came from does.
  static AffineMap sumsMap(RankedTensorType type, Value sums, int64_t dim) {
    MLIRContext *ctx = type.getContext();
    auto sumsType = tensorType(sums);
    int64_t rank = type.getRank(), batch = rank - 2,
            vb = sumsType.getRank() - 1;
    SmallVector<AffineExpr> at;
    for (int64_t i = 0; i < vb; ++i)
      at.push_back(sumsType.getDimSize(i) == 1 &&
                           type.getDimSize(batch - vb + i) != 1
                       ? getAffineConstantExpr(0, ctx)
                       : getAffineDimExpr(batch - vb + i, ctx));
    at.push_back(getAffineDimExpr(dim, ctx));
    return AffineMap::get(rank, 0, at, ctx);
  }

  /// The accumulator's initial value when both operands are activations:
  /// sum (x - x_zp)(y - y_zp) = sum x y - x_zp * colsum(y)[n] -
  /// y_zp * rowsum(x)[m] + K x_zp y_zp, the sums computed at run time (only
  /// those whose zero point is not a constant 0). x [.., M, K] and y
  /// [.., N, K] are signless.
  static Value runtimeSplitInit(OpBuilder &b, Location loc,
                                RankedTensorType type, Value x, bool xUnsigned,
                                Value xzp, Value y, bool yUnsigned, Value yzp) {
    auto isZero = [](Value zp) {
      std::optional<SmallVector<int64_t>> z = constInts(zp);
      return z && z->size() == 1 && (*z)[0] == 0;
    };
    bool useX = !isZero(xzp), useY = !isZero(yzp);
    if (!useX && !useY)
      return zeroFilled(b, loc, type);
    MLIRContext *ctx = b.getContext();
    int64_t rank = type.getRank();
    int64_t k = tensorType(x).getShape().back();
    SmallVector<Value> inputs{toSignless(b, loc, xzp), toSignless(b, loc, yzp)};
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, ctx),
                                AffineMap::get(rank, 0, ctx)};
    if (useX) { // x_zp * colsum(y)
      inputs.push_back(rowSums(b, loc, y, yUnsigned));
      maps.push_back(sumsMap(type, inputs.back(), rank - 1));
    }
    if (useY) { // y_zp * rowsum(x)
      inputs.push_back(rowSums(b, loc, x, xUnsigned));
      maps.push_back(sumsMap(type, inputs.back(), rank - 2));
    }
    return parallelGeneric(
        b, loc, type, inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value zx = toI32(nb, l, a[0], xUnsigned);
          Value zy = toI32(nb, l, a[1], yUnsigned);
          Value v = i32(nb, l, 0);
          unsigned next = 2;
          if (useX)
            v = nb.create<arith::SubIOp>(
                l, v, nb.create<arith::MulIOp>(l, zx, a[next++]));
          if (useY)
            v = nb.create<arith::SubIOp>(
                l, v, nb.create<arith::MulIOp>(l, zy, a[next++]));
          if (useX && useY)
            v = nb.create<arith::AddIOp>(
                l, v,
                nb.create<arith::MulIOp>(l, i32(nb, l, k),
                                         nb.create<arith::MulIOp>(l, zx, zy)));
          return v;
        });
  }

  LogicalResult matchAndRewrite(MatMulIntegerOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), batch = rank - 2;
    bool aUnsigned = isUnsigned(op.getLhs()),
         bUnsigned = isUnsigned(op.getRhs());
    Value rhs = op.getRhs();
    bool rhsTransposed = op.getRhsTransposed();
    if (weightsNK && !rhsTransposed)
      if (Value nk = transposedConstant2D(rewriter, loc, rhs)) {
        rhs = nk;
        rhsTransposed = true;
      }
    // Iteration space: batch..., m, n (parallel), k (reduction).
    int64_t numDims = rank + 1;
    auto operandMap = [&](Value v, AffineExpr row, AffineExpr col) {
      return batchedOperandMap(type, v, row, col);
    };
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(batch + 1, ctx),
               kk = getAffineDimExpr(batch + 2, ctx);
    Value bzp = op.getRhsZeroPoint();
    SmallVector<AffineMap> maps{
        operandMap(op.getLhs(), m, kk),
        rhsTransposed ? operandMap(rhs, n, kk) : operandMap(rhs, kk, n),
        AffineMap::get(numDims, 0, ctx),
        tensorType(bzp).getRank() == 0 ? AffineMap::get(numDims, 0, ctx)
                                       : AffineMap::get(numDims, 0, n),
        AffineMap::getMultiDimIdentityMap(numDims, ctx).getMajorSubMap(rank)};
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.push_back(IteratorType::reduction);
    // A 2-D constant rhs (a weight): the zero point moves into the init.
    auto rhsType = tensorType(rhs);
    int64_t cols = type.getDimSize(rank - 1);
    std::optional<ZeroPointSplit> split;
    if (rhsType.getRank() == 2)
      split = ZeroPointSplit::get(rhs, bzp, cols, [&](int64_t i) {
        return rhsTransposed ? i / rhsType.getDimSize(1) : i % cols;
      });
    Value init;
    if (split) {
      // vpdpbusd multiplies u8 by s8: an s8 x s8 product reads the lhs as
      // u8 (x + 128), and u8 x u8 has no such form.
      bool flipLhs = !aUnsigned && !bUnsigned;
      if (quadWeights && !(aUnsigned && bUnsigned))
        if (Value quads = groupedConstant(rewriter, loc, rhs, rhsTransposed,
                                          /*group=*/4))
          return rewriteGrouped(op, rewriter, quads,
                                split->init(rewriter, loc, type, rank - 1,
                                            op.getLhsZeroPoint(),
                                            flipLhs ? 128 : 0),
                                /*group=*/4, flipLhs);
      init = split->init(rewriter, loc, type, rank - 1, op.getLhsZeroPoint());
      if (pairWeights)
        if (Value pairs = groupedConstant(rewriter, loc, rhs, rhsTransposed,
                                          /*group=*/2))
          return rewriteGrouped(op, rewriter, pairs, init, /*group=*/2,
                                /*flipLhs=*/false);
    } else if (weightsNK && tensorType(bzp).getRank() == 0 &&
               !matchPattern(rhs, m_Constant())) {
      // An activation rhs in the CUDA form (attention's Q.K^T and P.V): a
      // transpose kernel stores it [.., N, K] and the zero points leave the
      // product through row and column sums computed at run time, so the
      // product is tensor-core shaped too.
      rhs = toSignless(rewriter, loc, rhs);
      if (!rhsTransposed) {
        rhs = transposeLastTwo(rewriter, loc, rhs);
        rhsTransposed = true;
        maps[1] = operandMap(rhs, n, kk);
      }
      init = runtimeSplitInit(rewriter, loc, type,
                              toSignless(rewriter, loc, op.getLhs()), aUnsigned,
                              op.getLhsZeroPoint(), rhs, bUnsigned, bzp);
    }
    if (init) {
      auto generic = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{type},
          ValueRange{toSignless(rewriter, loc, op.getLhs()),
                     toSignless(rewriter, loc, rhs)},
          ValueRange{init}, ArrayRef<AffineMap>{maps[0], maps[1], maps[4]},
          iters, [&](OpBuilder &b, Location l, ValueRange a) {
            b.create<linalg::YieldOp>(
                l, mulAccumulate(b, l, a[2], a[0], aUnsigned, a[1], bUnsigned));
          });
      rewriter.replaceOp(op, generic.getResult(0));
      return success();
    }
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type},
        ValueRange{toSignless(rewriter, loc, op.getLhs()),
                   toSignless(rewriter, loc, rhs),
                   toSignless(rewriter, loc, op.getLhsZeroPoint()),
                   toSignless(rewriter, loc, bzp)},
        ValueRange{zeroFilled(rewriter, loc, type)}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          b.create<linalg::YieldOp>(l,
                                    mulAccumulate(b, l, a[4], a[0], aUnsigned,
                                                  a[1], bUnsigned, a[2], a[3]));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};
} // namespace

Value mlir::dlc::quantizeToI8(OpBuilder &b, Location loc, Value x, double scale,
                              int64_t zeroPoint, bool reciprocal) {
  Type f32Type = b.getF32Type();
  if (x.getType() != f32Type)
    x = b.create<arith::ExtFOp>(loc, f32Type, x);
  Value s = f32(b, loc, f32Type, scale);
  std::optional<APFloat> r = exactReciprocal(APFloat(float(scale)));
  bool exact = r && isPowerOfTwo(*r);
  Value rv = r && (exact || reciprocal)
                 ? b.create<arith::ConstantOp>(loc, b.getFloatAttr(f32Type, *r))
                       .getResult()
                 : Value();
  Value q = quotient(b, loc, x, s, rv, exact, reciprocal);
  return saturateToQuant(b, loc, q, i32(b, loc, zeroPoint), b.getI8Type());
}

void mlir::dlc::populateDlcQuantToLinalgPatterns(
    RewritePatternSet &patterns, bool int8WeightsNK, bool padConvChannels,
    bool reciprocalQuantize, bool padConvInput, bool vnniConvs,
    bool pairConvWeights, bool wideConvWeights, int64_t convPlaneRows,
    bool pairMatMulWeights, bool quadMatMulWeights, bool padGroupedConvInput,
    bool quadConvInputs) {
  patterns.add<QuantizeLinearLowering>(patterns.getContext(),
                                       reciprocalQuantize);
  patterns.add<DequantizeLinearLowering, RequantizeLowering>(
      patterns.getContext());
  patterns.add<ConvIntegerLowering>(patterns.getContext(), padConvChannels,
                                    padConvInput, vnniConvs, pairConvWeights,
                                    wideConvWeights, convPlaneRows,
                                    padGroupedConvInput, quadConvInputs);
  patterns.add<MatMulIntegerLowering>(patterns.getContext(), int8WeightsNK,
                                      pairMatMulWeights, quadMatMulWeights);
}

void mlir::dlc::eraseUnsignedIntegerTypes(Operation *root) {
  SmallVector<tensor::BitcastOp> casts;
  root->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(signless(r.getType()));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      FunctionType ft = func.getFunctionType();
      SmallVector<Type> ins, outs;
      for (Type t : ft.getInputs())
        ins.push_back(signless(t));
      for (Type t : ft.getResults())
        outs.push_back(signless(t));
      func.setFunctionType(FunctionType::get(op->getContext(), ins, outs));
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Attribute value = constant.getValue();
      if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
        if (dense.getElementType().isUnsignedInteger())
          constant.setValueAttr(
              dense.bitcast(signless(dense.getElementType())));
      } else if (auto i = dyn_cast<IntegerAttr>(value)) {
        // Scalars of unsigned elementwise bodies (ConvertDlcToLinalg.cpp).
        if (i.getType().isUnsignedInteger())
          constant.setValueAttr(
              IntegerAttr::get(signless(i.getType()), i.getValue()));
      } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
        if (res.getElementType().isUnsignedInteger())
          constant.setValueAttr(DenseResourceElementsAttr::get(
              cast<ShapedType>(signless(res.getType())), res.getRawHandle()));
      }
    }
    if (auto cast = dyn_cast<tensor::BitcastOp>(op))
      casts.push_back(cast);
  });
  for (tensor::BitcastOp cast : casts) {
    if (cast.getSource().getType() == cast.getType()) {
      cast.getResult().replaceAllUsesWith(cast.getSource());
      cast.erase();
    }
  }
}
