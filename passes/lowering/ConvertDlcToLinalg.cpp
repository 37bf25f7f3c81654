//===- ConvertDlcToLinalg.cpp - dlc to linalg on tensors --------*- C++ -*-===//
//
// Every dlc op becomes one linalg.generic (plus the fill that initializes a
// reduction), so each op is one kernel after outlining. Ops that read their
// input at computed positions with bounds (padded windows, gather, concat)
// read it with tensor.extract inside the generic; everything else is pure
// indexing maps, which later passes can fuse and tile.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/Float8.h"
#include "passes/lowering/KernelForm.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_CONVERTDLCTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
using utils::IteratorType;
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Scalar helpers: one spelling for float and integer element types.
//===----------------------------------------------------------------------===//

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(ft, value));
  return b.create<arith::ConstantOp>(loc,
                                     b.getIntegerAttr(type, (int64_t)value));
}

/// True for an unsigned integer element type (ONNX uint8 is `ui8` in the
/// dialect) and for bools (i1 orders false < true). Scalars in the bodies
/// built here keep the dlc element type until eraseUnsignedIntegerTypes()
/// makes them signless at the end of the pass, so the builders below pick
/// unsigned arithmetic from the type.
bool isUnsignedInt(Type type) {
  return type.isUnsignedInteger() || type.isInteger(1);
}

/// `pred` with signed orderings made unsigned for unsigned `type`.
arith::CmpIPredicate intPredicate(arith::CmpIPredicate pred, Type type) {
  if (!isUnsignedInt(type))
    return pred;
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::ult;
  case P::sle:
    return P::ule;
  case P::sgt:
    return P::ugt;
  case P::sge:
    return P::uge;
  default:
    return pred;
  }
}

/// Integer comparison of two element values, unsigned for unsigned types.
Value cmpi(OpBuilder &b, Location loc, arith::CmpIPredicate pred, Value x,
           Value y) {
  return b.create<arith::CmpIOp>(loc, intPredicate(pred, x.getType()), x, y);
}

Value lowestValue(OpBuilder &b, Location loc, Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, isUnsignedInt(type)
                                      ? APInt::getMinValue(width)
                                      : APInt::getSignedMinValue(width)));
}

Value highestValue(OpBuilder &b, Location loc, Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics())));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, isUnsignedInt(type)
                                      ? APInt::getMaxValue(width)
                                      : APInt::getSignedMaxValue(width)));
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::AddFOp>(loc, x, y);
  return b.create<arith::AddIOp>(loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::SubFOp>(loc, x, y);
  return b.create<arith::SubIOp>(loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MulFOp>(loc, x, y);
  return b.create<arith::MulIOp>(loc, x, y);
}
Value div(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::DivFOp>(loc, x, y);
  if (isUnsignedInt(x.getType()))
    return b.create<arith::DivUIOp>(loc, x, y);
  return b.create<arith::DivSIOp>(loc, x, y);
}
Value max(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MaximumFOp>(loc, x, y);
  if (isUnsignedInt(x.getType()))
    return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}
Value min(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MinimumFOp>(loc, x, y);
  if (isUnsignedInt(x.getType()))
    return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

/// `value` (a Clip bound, possibly infinite) saturated to the range of the
/// integer type `type`, as a constant.
Value intBound(OpBuilder &b, Location loc, Type type, double value) {
  unsigned width = type.getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedInt(type);
  APInt lowest =
      isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  APInt highest =
      isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  APInt v;
  if (std::isnan(value) || value <= (isUnsigned ? 0.0 : lowest.getSExtValue()))
    v = lowest;
  else if (value >= (isUnsigned ? highest.roundToDouble(false)
                                : highest.roundToDouble(true)))
    v = highest;
  else
    v = APInt(width, (uint64_t)(int64_t)value, /*isSigned=*/true);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, v));
}

/// Converts a scalar between element types with ONNX Cast semantics;
/// `saturate` is Cast's attribute (float8 results only).
Value castScalar(OpBuilder &b, Location loc, Value v, Type to,
                 bool saturate = true) {
  Type from = v.getType();
  if (from == to)
    return v;
  // float8 goes through f32 (exact for f16/bf16 sources; f64 rounds twice).
  if (isOnnxFloat8(from))
    return castScalar(b, loc, extFloat8ToF32(b, loc, v), to);
  if (isOnnxFloat8(to))
    return truncF32ToFloat8(b, loc, castScalar(b, loc, v, b.getF32Type()), to,
                            saturate);
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (fromF)
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v, zero);
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
  }
  // int8 <-> uint8: the same bits (the lowering erases signedness).
  if (!fromF && !toF &&
      from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    return v;
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? b.create<arith::ExtFOp>(loc, to, v).getResult()
               : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (fromF)
    return isUnsignedInt(to)
               ? b.create<arith::FPToUIOp>(loc, to, v).getResult()
               : b.create<arith::FPToSIOp>(loc, to, v).getResult();
  // Bools and unsigned integers widen with zeros.
  bool fromBool = from.isInteger(1) || isUnsignedInt(from);
  if (toF)
    return fromBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                    : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return fromBool ? b.create<arith::ExtUIOp>(loc, to, v).getResult()
                    : b.create<arith::ExtSIOp>(loc, to, v).getResult();
  return b.create<arith::TruncIOp>(loc, to, v);
}

//===----------------------------------------------------------------------===//
// Structured-op builders
//===----------------------------------------------------------------------===//

/// Map from an iteration space shaped like `outShape` to an operand of shape
/// `inShape` that broadcasts to it (numpy rules: align right, size-1 dims
/// read index 0).
AffineMap broadcastMap(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape,
                       MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  size_t offset = outShape.size() - inShape.size();
  for (size_t i = 0; i < inShape.size(); ++i)
    exprs.push_back(inShape[i] == 1 && outShape[offset + i] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(offset + i, ctx));
  return AffineMap::get(outShape.size(), 0, exprs, ctx);
}

/// A parallel linalg.generic over `outType` whose inputs broadcast to it.
Value elementwise(OpBuilder &b, Location loc, RankedTensorType outType,
                  ValueRange inputs, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(
        broadcastMap(tensorType(in).getShape(), outType.getShape(), ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(outType.getRank(), ctx));
  Value init = b.create<tensor::EmptyOp>(loc, outType.getShape(),
                                         outType.getElementType());
  SmallVector<IteratorType> iters(outType.getRank(), IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{outType}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        nb.create<linalg::YieldOp>(nloc, r);
      });
  return generic.getResult(0);
}

/// A tensor of `type` filled with `value`.
Value filled(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  Value init =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::FillOp>(loc, value, init).getResult(0);
}

/// GEMMs and convolutions on 16-bit floats accumulate in f32 (the result is
/// rounded once, at the end), as tensor cores and cuBLAS do.
RankedTensorType accumulatorType(RankedTensorType type) {
  Type elt = type.getElementType();
  if (elt.isF16() || elt.isBF16())
    return type.clone(Float32Type::get(type.getContext()));
  return type;
}

/// The initial accumulator of a convolution: `bias` broadcast along the
/// channel dim (1), converted to the accumulator's type, or zeros.
Value convAccumulatorInit(OpBuilder &b, Location loc, Value bias,
                          RankedTensorType accType, int64_t channelDim = 1) {
  Type elt = accType.getElementType();
  if (!bias)
    return filled(b, loc, accType, scalarConstant(b, loc, elt, 0));
  MLIRContext *ctx = b.getContext();
  int64_t rank = accType.getRank();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{accType}, ValueRange{bias},
          ValueRange{b.create<tensor::EmptyOp>(loc, accType.getShape(), elt)},
          ArrayRef<AffineMap>{AffineMap::get(rank, 0,
                                             getAffineDimExpr(channelDim, ctx)),
                              AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<IteratorType>(rank, IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(l, castScalar(nb, l, a[0], elt));
          })
      .getResult(0);
}

/// The accumulator `acc` rounded to the op's result `type` (no-op for f32).
Value roundAccumulator(OpBuilder &b, Location loc, Value acc,
                       RankedTensorType type) {
  if (tensorType(acc) == type)
    return acc;
  return elementwise(b, loc, type, {acc},
                     [&](OpBuilder &nb, Location l, ValueRange a) {
                       return castScalar(nb, l, a[0], type.getElementType());
                     });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename OpTy> struct BinaryLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          if constexpr (std::is_same_v<OpTy, AddOp>)
            return add(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, SubOp>)
            return sub(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, MulOp>)
            return mul(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, DivOp>)
            return div(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, MaxOp>)
            return max(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, MinOp>)
            return min(b, loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, PReluOp>) {
            Value neg = b.create<arith::CmpFOp>(
                loc, arith::CmpFPredicate::OLT, a[0],
                scalarConstant(b, loc, a[0].getType(), 0));
            return b.create<arith::SelectOp>(
                loc, neg, b.create<arith::MulFOp>(loc, a[0], a[1]), a[0]);
          }
          if constexpr (std::is_same_v<OpTy, PowOp>) {
            if (isa<FloatType>(a[0].getType()))
              return b.create<math::PowFOp>(loc, a[0], a[1]);
            return b.create<math::IPowIOp>(loc, a[0], a[1]);
          }
          llvm_unreachable("unhandled binary op");
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|)).
Value softplus(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value e = b.create<math::ExpOp>(
      loc, b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x)));
  Value l = b.create<math::LogOp>(
      loc, b.create<arith::AddFOp>(loc, scalarConstant(b, loc, t, 1), e));
  return b.create<arith::AddFOp>(
      loc, b.create<arith::MaximumFOp>(loc, x, scalarConstant(b, loc, t, 0)),
      l);
}

/// Tan, the inverse trigonometric and the hyperbolic functions from the
/// math ops both targets lower (the host to libm, CUDA to libdevice: MLIR
/// 19's NVVM lowering has no asin, acos, sinh, cosh or the inverse
/// hyperbolics), in forms without cancellation near 0: asin(x) =
/// atan2(x, sqrt((1 - x)(1 + x))), sinh(x) = (expm1(x) - expm1(-x)) / 2,
/// asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), acosh(x) =
/// log1p(x - 1 + sqrt((x - 1)(x + 1))), atanh(x) = sign(x) log1p(2|x| / (1 -
/// |x|)) / 2.
/// Past 2^60 the squares would overflow: asinh and acosh take
/// log(|x|) + log(2) there.
template <typename OpTy>
Value inverseOrHyperbolic(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  auto c = [&](double v) { return scalarConstant(b, loc, t, v); };
  auto add = [&](Value l, Value r) -> Value {
    return b.create<arith::AddFOp>(loc, l, r);
  };
  auto subf = [&](Value l, Value r) -> Value {
    return b.create<arith::SubFOp>(loc, l, r);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return b.create<arith::MulFOp>(loc, l, r);
  };
  auto sqrt = [&](Value v) -> Value { return b.create<math::SqrtOp>(loc, v); };
  auto log1p = [&](Value v) -> Value {
    return b.create<math::Log1pOp>(loc, v);
  };
  auto negative = [&](Value v) -> Value {
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, v, c(0));
  };
  // Where |v| is past 2^60: log(|v|) + log(2), else `near`.
  auto farOr = [&](Value v, Value near) -> Value {
    Value a = b.create<math::AbsFOp>(loc, v);
    Value far = add(b.create<math::LogOp>(loc, a), c(0.693147180559945309));
    Value big = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, a,
                                        c(1152921504606846976.0));
    return b.create<arith::SelectOp>(loc, big, far, near);
  };
  if constexpr (std::is_same_v<OpTy, TanOp>)
    return b.create<math::TanOp>(loc, x);
  if constexpr (std::is_same_v<OpTy, AtanOp>)
    return b.create<math::AtanOp>(loc, x);
  if constexpr (llvm::is_one_of<OpTy, AsinOp, AcosOp>::value) {
    Value root = sqrt(mul(subf(c(1), x), add(c(1), x)));
    if constexpr (std::is_same_v<OpTy, AsinOp>)
      return b.create<math::Atan2Op>(loc, x, root);
    else
      return b.create<math::Atan2Op>(loc, root, x);
  }
  if constexpr (std::is_same_v<OpTy, SinhOp>)
    return mul(c(0.5), subf(b.create<math::ExpM1Op>(loc, x),
                            b.create<math::ExpM1Op>(
                                loc, b.create<arith::NegFOp>(loc, x))));
  if constexpr (std::is_same_v<OpTy, CoshOp>)
    return mul(c(0.5), add(b.create<math::ExpOp>(loc, x),
                           b.create<math::ExpOp>(
                               loc, b.create<arith::NegFOp>(loc, x))));
  if constexpr (std::is_same_v<OpTy, AsinhOp>) {
    Value a = b.create<math::AbsFOp>(loc, x);
    Value sq = mul(x, x);
    Value near = log1p(add(
        a, b.create<arith::DivFOp>(loc, sq, add(c(1), sqrt(add(c(1), sq))))));
    Value r = farOr(x, near);
    return b.create<arith::SelectOp>(loc, negative(x),
                                     b.create<arith::NegFOp>(loc, r), r);
  }
  if constexpr (std::is_same_v<OpTy, AcoshOp>) {
    Value m = subf(x, c(1));
    return farOr(x, log1p(add(m, sqrt(mul(m, add(x, c(1)))))));
  }
  if constexpr (std::is_same_v<OpTy, AtanhOp>) {
    // On |x|: log1p's argument tends to -1 as x does, where its rounding
    // costs the result digits.
    Value a = b.create<math::AbsFOp>(loc, x);
    Value r =
        mul(c(0.5),
            log1p(b.create<arith::DivFOp>(loc, mul(c(2), a), subf(c(1), a))));
    return b.create<arith::SelectOp>(loc, negative(x),
                                     b.create<arith::NegFOp>(loc, r), r);
  }
  llvm_unreachable("not an inverse or hyperbolic function");
}

/// Round half to even from floor (math.roundeven has no NVVM lowering):
/// r = floor(x), d = x - r; d > 1/2 or (d == 1/2 and r odd) rounds up.
/// NaN and infinities give NaN comparisons and keep r.
Value roundHalfEven(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  using P = arith::CmpFPredicate;
  Value r = b.create<math::FloorOp>(loc, x);
  Value d = b.create<arith::SubFOp>(loc, x, r);
  Value half = scalarConstant(b, loc, t, 0.5);
  Value halfR = b.create<arith::MulFOp>(loc, r, half);
  Value odd = b.create<arith::CmpFOp>(
      loc, P::ONE, b.create<math::FloorOp>(loc, halfR), halfR);
  Value above = b.create<arith::CmpFOp>(loc, P::OGT, d, half);
  Value tie = b.create<arith::CmpFOp>(loc, P::OEQ, d, half);
  Value up = b.create<arith::OrIOp>(loc, above,
                                    b.create<arith::AndIOp>(loc, tie, odd));
  return b.create<arith::SelectOp>(
      loc, up, b.create<arith::AddFOp>(loc, r, scalarConstant(b, loc, t, 1)),
      r);
}

template <typename OpTy> struct UnaryLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getInput()},
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value x = a[0];
          Type t = x.getType();
          if constexpr (std::is_same_v<OpTy, ReluOp>)
            return b.create<arith::MaximumFOp>(loc, x,
                                               scalarConstant(b, loc, t, 0));
          if constexpr (std::is_same_v<OpTy, SigmoidOp>) {
            Value e =
                b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
            Value d =
                b.create<arith::AddFOp>(loc, scalarConstant(b, loc, t, 1), e);
            return b.create<arith::DivFOp>(loc, scalarConstant(b, loc, t, 1),
                                           d);
          }
          if constexpr (std::is_same_v<OpTy, TanhOp>)
            return b.create<math::TanhOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, ErfOp>)
            return b.create<math::ErfOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, SqrtOp>)
            return b.create<math::SqrtOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, ExpOp>)
            return b.create<math::ExpOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, LogOp>)
            return b.create<math::LogOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, SinOp>)
            return b.create<math::SinOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, CosOp>)
            return b.create<math::CosOp>(loc, x);
          if constexpr (llvm::is_one_of<OpTy, TanOp, AsinOp, AcosOp, AtanOp,
                                        SinhOp, CoshOp, AsinhOp, AcoshOp,
                                        AtanhOp>::value)
            return inverseOrHyperbolic<OpTy>(b, loc, x);
          if constexpr (std::is_same_v<OpTy, FloorOp>)
            return b.create<math::FloorOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, CeilOp>)
            return b.create<math::CeilOp>(loc, x);
          if constexpr (std::is_same_v<OpTy, RoundOp>)
            return roundHalfEven(b, loc, x);
          if constexpr (std::is_same_v<OpTy, ReciprocalOp>)
            return b.create<arith::DivFOp>(loc, scalarConstant(b, loc, t, 1),
                                           x);
          if constexpr (std::is_same_v<OpTy, SoftplusOp>)
            return softplus(b, loc, x);
          if constexpr (std::is_same_v<OpTy, SoftsignOp>) {
            Value d = b.create<arith::AddFOp>(loc, scalarConstant(b, loc, t, 1),
                                              b.create<math::AbsFOp>(loc, x));
            return b.create<arith::DivFOp>(loc, x, d);
          }
          if constexpr (std::is_same_v<OpTy, MishOp>)
            return b.create<arith::MulFOp>(
                loc, x, b.create<math::TanhOp>(loc, softplus(b, loc, x)));
          if constexpr (std::is_same_v<OpTy, HardSwishOp>) {
            // x * max(0, min(1, x / 6 + 1 / 2))
            Value h = b.create<arith::AddFOp>(
                loc,
                b.create<arith::MulFOp>(loc, x,
                                        scalarConstant(b, loc, t, 1.0 / 6.0)),
                scalarConstant(b, loc, t, 0.5));
            h = b.create<arith::MaximumFOp>(loc, h,
                                            scalarConstant(b, loc, t, 0));
            h = b.create<arith::MinimumFOp>(loc, h,
                                            scalarConstant(b, loc, t, 1));
            return b.create<arith::MulFOp>(loc, x, h);
          }
          if constexpr (std::is_same_v<OpTy, AbsOp>) {
            if (isa<FloatType>(t))
              return b.create<math::AbsFOp>(loc, x);
            Value neg = cmpi(b, loc, arith::CmpIPredicate::slt, x,
                             scalarConstant(b, loc, t, 0));
            return b.create<arith::SelectOp>(
                loc, neg, sub(b, loc, scalarConstant(b, loc, t, 0), x), x);
          }
          if constexpr (std::is_same_v<OpTy, NegOp>) {
            if (isa<FloatType>(t))
              return b.create<arith::NegFOp>(loc, x);
            return sub(b, loc, scalarConstant(b, loc, t, 0), x);
          }
          if constexpr (std::is_same_v<OpTy, SignOp>) {
            Value zero = scalarConstant(b, loc, t, 0);
            Value pos, neg;
            if (isa<FloatType>(t)) {
              pos = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x,
                                            zero);
              neg = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                            zero);
            } else {
              pos = cmpi(b, loc, arith::CmpIPredicate::sgt, x, zero);
              neg = cmpi(b, loc, arith::CmpIPredicate::slt, x, zero);
            }
            Value r = b.create<arith::SelectOp>(
                loc, neg, scalarConstant(b, loc, t, -1), zero);
            return b.create<arith::SelectOp>(loc, pos,
                                             scalarConstant(b, loc, t, 1), r);
          }
          if constexpr (std::is_same_v<OpTy, ClipOp>) {
            if (!isa<FloatType>(t)) {
              Value lo = intBound(b, loc, t, op.getMin().convertToDouble());
              Value hi = intBound(b, loc, t, op.getMax().convertToDouble());
              return min(b, loc, max(b, loc, x, lo), hi);
            }
            // Bounds beyond the element type's range saturate to +-inf.
            Value lo = b.create<arith::ConstantOp>(
                loc, b.getFloatAttr(t, op.getMin().convertToDouble()));
            Value hi = b.create<arith::ConstantOp>(
                loc, b.getFloatAttr(t, op.getMax().convertToDouble()));
            return b.create<arith::MinimumFOp>(
                loc, b.create<arith::MaximumFOp>(loc, x, lo), hi);
          }
          llvm_unreachable("unhandled unary op");
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// ONNX Mod: fmod keeps the dividend's sign; otherwise (integers) the
/// remainder takes the divisor's sign.
struct ModLowering : OpRewritePattern<ModOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ModOp op,
                                PatternRewriter &rewriter) const override {
    bool fmod = op.getFmod();
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          bool isFloat = isa<FloatType>(a[0].getType());
          // Unsigned: no signs to fix.
          if (isUnsignedInt(a[0].getType()))
            return b.create<arith::RemUIOp>(l, a[0], a[1]);
          Value rem = isFloat
                          ? b.create<arith::RemFOp>(l, a[0], a[1]).getResult()
                          : b.create<arith::RemSIOp>(l, a[0], a[1]).getResult();
          if (fmod)
            return rem;
          Value zero = scalarConstant(b, l, a[0].getType(), 0);
          Value nonZero, remNeg, divNeg;
          if (isFloat) {
            using P = arith::CmpFPredicate;
            nonZero = b.create<arith::CmpFOp>(l, P::ONE, rem, zero);
            remNeg = b.create<arith::CmpFOp>(l, P::OLT, rem, zero);
            divNeg = b.create<arith::CmpFOp>(l, P::OLT, a[1], zero);
          } else {
            using P = arith::CmpIPredicate;
            nonZero = b.create<arith::CmpIOp>(l, P::ne, rem, zero);
            remNeg = b.create<arith::CmpIOp>(l, P::slt, rem, zero);
            divNeg = b.create<arith::CmpIOp>(l, P::slt, a[1], zero);
          }
          Value fix = b.create<arith::AndIOp>(
              l, nonZero, b.create<arith::XOrIOp>(l, remNeg, divNeg));
          return b.create<arith::SelectOp>(l, fix, add(b, l, rem, a[1]), rem);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Activations with float attributes.
template <typename OpTy> struct ActivationLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getInput()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x = a[0];
          Type t = x.getType();
          auto c = [&](double v) { return scalarConstant(b, l, t, v); };
          auto attr = [](FloatAttr f) { return f.getValueAsDouble(); };
          auto cmp = [&](arith::CmpFPredicate p, Value y, Value z) -> Value {
            return b.create<arith::CmpFOp>(l, p, y, z);
          };
          auto expm1 = [&](Value y) -> Value {
            return b.create<arith::SubFOp>(l, b.create<math::ExpOp>(l, y),
                                           c(1));
          };
          using P = arith::CmpFPredicate;
          if constexpr (std::is_same_v<OpTy, LeakyReluOp>)
            return b.create<arith::SelectOp>(
                l, cmp(P::OLT, x, c(0)),
                b.create<arith::MulFOp>(l, x, c(attr(op.getAlphaAttr()))), x);
          if constexpr (std::is_same_v<OpTy, EluOp>)
            return b.create<arith::SelectOp>(
                l, cmp(P::OLT, x, c(0)),
                b.create<arith::MulFOp>(l, expm1(x),
                                        c(attr(op.getAlphaAttr()))),
                x);
          if constexpr (std::is_same_v<OpTy, SeluOp>) {
            Value neg = b.create<arith::MulFOp>(l, expm1(x),
                                                c(attr(op.getAlphaAttr())));
            Value y =
                b.create<arith::SelectOp>(l, cmp(P::OLE, x, c(0)), neg, x);
            return b.create<arith::MulFOp>(l, y, c(attr(op.getGammaAttr())));
          }
          if constexpr (std::is_same_v<OpTy, CeluOp>) {
            double alpha = attr(op.getAlphaAttr());
            Value e = expm1(b.create<arith::DivFOp>(l, x, c(alpha)));
            Value neg = b.create<arith::MinimumFOp>(
                l, b.create<arith::MulFOp>(l, e, c(alpha)), c(0));
            return b.create<arith::AddFOp>(
                l, b.create<arith::MaximumFOp>(l, x, c(0)), neg);
          }
          if constexpr (std::is_same_v<OpTy, HardSigmoidOp>) {
            Value y = b.create<arith::AddFOp>(
                l, b.create<arith::MulFOp>(l, x, c(attr(op.getAlphaAttr()))),
                c(attr(op.getBetaAttr())));
            y = b.create<arith::MaximumFOp>(l, y, c(0));
            return b.create<arith::MinimumFOp>(l, y, c(1));
          }
          if constexpr (std::is_same_v<OpTy, ThresholdedReluOp>)
            return b.create<arith::SelectOp>(
                l, cmp(P::OGT, x, c(attr(op.getAlphaAttr()))), x, c(0));
          if constexpr (std::is_same_v<OpTy, GeluOp>) {
            Value phi;
            if (op.getTanhApproximation()) {
              // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
              Value x3 = b.create<arith::MulFOp>(
                  l, x, b.create<arith::MulFOp>(l, x, x));
              Value in = b.create<arith::AddFOp>(
                  l, x, b.create<arith::MulFOp>(l, x3, c(0.044715)));
              phi = b.create<math::TanhOp>(
                  l, b.create<arith::MulFOp>(l, in, c(std::sqrt(2.0 / M_PI))));
            } else {
              phi = b.create<math::ErfOp>(
                  l, b.create<arith::MulFOp>(l, x, c(M_SQRT1_2)));
            }
            Value half = b.create<arith::MulFOp>(l, x, c(0.5));
            return b.create<arith::MulFOp>(
                l, half, b.create<arith::AddFOp>(l, phi, c(1)));
          }
          llvm_unreachable("unhandled activation");
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Comparisons: ordered float predicates (NaN compares false), signed
/// integers, bools as unsigned 0/1.
template <typename OpTy> struct CompareLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto [fPred, iPred, bPred] = predicates();
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Type t = a[0].getType();
          if (isa<FloatType>(t))
            return b.create<arith::CmpFOp>(loc, fPred, a[0], a[1]);
          return b.create<arith::CmpIOp>(
              loc, t.isInteger(1) || isUnsignedInt(t) ? bPred : iPred, a[0],
              a[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }

  static std::tuple<arith::CmpFPredicate, arith::CmpIPredicate,
                    arith::CmpIPredicate>
  predicates() {
    using F = arith::CmpFPredicate;
    using I = arith::CmpIPredicate;
    if constexpr (std::is_same_v<OpTy, EqualOp>)
      return {F::OEQ, I::eq, I::eq};
    if constexpr (std::is_same_v<OpTy, LessOp>)
      return {F::OLT, I::slt, I::ult};
    if constexpr (std::is_same_v<OpTy, LessOrEqualOp>)
      return {F::OLE, I::sle, I::ule};
    if constexpr (std::is_same_v<OpTy, GreaterOp>)
      return {F::OGT, I::sgt, I::ugt};
    if constexpr (std::is_same_v<OpTy, GreaterOrEqualOp>)
      return {F::OGE, I::sge, I::uge};
    llvm_unreachable("unhandled comparison");
  }
};

/// And, Or, Xor (broadcasting) and Not: logical on i1, bitwise on
/// integers.
template <typename OpTy> struct LogicalLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          if constexpr (std::is_same_v<OpTy, AndOp>)
            return b.create<arith::AndIOp>(loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, OrOp>)
            return b.create<arith::OrIOp>(loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, XorOp>)
            return b.create<arith::XOrIOp>(loc, a[0], a[1]);
          if constexpr (std::is_same_v<OpTy, NotOp>) {
            // All ones: true for bools, ~x for integers.
            Type t = a[0].getType();
            return b.create<arith::XOrIOp>(
                loc, a[0],
                b.create<arith::ConstantOp>(
                    loc, b.getIntegerAttr(
                             t, APInt::getAllOnes(t.getIntOrFloatBitWidth()))));
          }
          llvm_unreachable("unhandled logical op");
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// BitShift: amounts outside [0, width) (negative ones compare as huge
/// unsigned) give the fill: the sign for a signed right shift, else 0.
struct BitShiftLowering : OpRewritePattern<BitShiftOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BitShiftOp op,
                                PatternRewriter &rewriter) const override {
    bool left = op.getLeft();
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Type t = a[0].getType();
          bool isUnsigned = isUnsignedInt(t);
          unsigned width = t.getIntOrFloatBitWidth();
          Value widthV = scalarConstant(b, l, t, width);
          Value inRange = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult,
                                                  a[1], widthV);
          Value amount = b.create<arith::SelectOp>(l, inRange, a[1],
                                                   scalarConstant(b, l, t, 0));
          Value shifted, fill;
          if (left) {
            shifted = b.create<arith::ShLIOp>(l, a[0], amount);
          } else if (isUnsigned) {
            shifted = b.create<arith::ShRUIOp>(l, a[0], amount);
          } else {
            shifted = b.create<arith::ShRSIOp>(l, a[0], amount);
            fill = b.create<arith::ShRSIOp>(l, a[0],
                                            scalarConstant(b, l, t, width - 1));
          }
          if (!fill)
            fill = scalarConstant(b, l, t, 0);
          return b.create<arith::SelectOp>(l, inRange, shifted, fill);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct WhereLowering : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhereOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        {op.getCondition(), op.getX(), op.getY()},
                        [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                          return b.create<arith::SelectOp>(loc, a[0], a[1],
                                                           a[2]);
                        }));
    return success();
  }
};

struct IsNaNLowering : OpRewritePattern<IsNaNOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IsNaNOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                          return b.create<arith::CmpFOp>(
                              loc, arith::CmpFPredicate::UNO, a[0], a[0]);
                        }));
    return success();
  }
};

struct IsInfLowering : OpRewritePattern<IsInfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IsInfOp op,
                                PatternRewriter &rewriter) const override {
    bool neg = op.getDetectNegative(), pos = op.getDetectPositive();
    rewriter.replaceOp(
        op,
        elementwise(
            rewriter, op.getLoc(), op.getType(), {op.getInput()},
            [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
              auto ft = cast<FloatType>(a[0].getType());
              auto inf = [&](bool negative) -> Value {
                Value c = b.create<arith::ConstantOp>(
                    loc,
                    b.getFloatAttr(
                        ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
                return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ,
                                               a[0], c);
              };
              Value r = b.create<arith::ConstantOp>(loc, b.getBoolAttr(false));
              if (pos)
                r = b.create<arith::OrIOp>(loc, r, inf(false));
              if (neg)
                r = b.create<arith::OrIOp>(loc, r, inf(true));
              return r;
            }));
    return success();
  }
};

/// Expand is a broadcast copy: the input's indexing map does it all.
struct ExpandLowering : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [](OpBuilder &, Location, ValueRange a) -> Value {
                          return a[0];
                        }));
    return success();
  }
};

struct CastLowering : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    bool saturate = op.getSaturate();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange a) {
                          return castScalar(b, loc, a[0], to, saturate);
                        }));
    return success();
  }
};

/// Each element's bits as the result's type: arith.bitcast between a float
/// and an integer, nothing between integers of one width (signedness is
/// erased); a bool is the byte 0 or 1.
struct BitcastLowering : OpRewritePattern<BitcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BitcastOp op,
                                PatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(), {op.getInput()},
                        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                          Value v = a[0];
                          // Integers and bools convert as a cast does: the
                          // same bits at one width, a bool as its byte.
                          if (!isa<FloatType>(v.getType()) &&
                              !isa<FloatType>(to))
                            return castScalar(b, loc, v, to);
                          Type target = isa<FloatType>(to)
                                            ? to
                                            : b.getIntegerType(
                                                  to.getIntOrFloatBitWidth());
                          return b.create<arith::BitcastOp>(loc, target, v);
                        }));
    return success();
  }
};

struct BatchNormLowering : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    // Per-channel operands broadcast along dim 1: view them as [C, 1, ...].
    auto type = op.getType();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    SmallVector<AffineMap> maps{identity, channel, channel,
                                channel,  channel, identity};
    Location loc = op.getLoc();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    double eps = op.getEpsilon().convertToDouble();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type},
        ValueRange{op.getInput(), op.getScale(), op.getBias(), op.getMean(),
                   op.getVariance()},
        ValueRange{init}, maps,
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type t = a[0].getType();
          Value v =
              b.create<arith::AddFOp>(l, a[4], scalarConstant(b, l, t, eps));
          Value inv =
              b.create<arith::DivFOp>(l, a[1], b.create<math::SqrtOp>(l, v));
          Value c = b.create<arith::SubFOp>(l, a[0], a[3]);
          Value r = b.create<arith::AddFOp>(
              l, b.create<arith::MulFOp>(l, c, inv), a[2]);
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// A channels-last 2-D convolution: the padded input first (its own
/// generic), then one reduction generic with pure affine maps over (n, oh,
/// ow, o, kh, kw, c) on the bias/zero init, then the rounding epilogue --
/// the init; acc += ext(x) * ext(w); epilogue form of a GEMM kernel. A
/// depthwise conv reads its constant weight as [1, KH, KW, O]
/// (channelsLastConvWeight).
LogicalResult lowerChannelsLastConv(ConvOp op, PatternRewriter &rewriter,
                                    bool padChannels) {
  Location loc = op.getLoc();
  auto resultType = op.getType();
  auto outType = accumulatorType(resultType);
  auto wType = tensorType(op.getWeight());
  Type elt = outType.getElementType();
  int64_t groups = op.getGroup();
  // A 16-bit conv whose channels do not fill 16-byte chunks (the stem's
  // RGB) reads zero-padded input channels against zero weights: 8 / 3 of
  // the products on tensor cores beat the scalar kernel.
  Value weight = op.getWeight();
  Value input = op.getInput();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads();
  int64_t channels = 0;
  Type inElt = tensorType(op.getInput()).getElementType();
  if (padChannels && groups == 1 && inElt.getIntOrFloatBitWidth() == 16) {
    if (auto s2d =
            spaceToDepthConv(rewriter, loc, input, weight, outType.getShape(),
                             strides, pads, op.getDilations(), groups)) {
      input = s2d->input;
      weight = s2d->weight;
      strides = SpaceToDepthConv::kStrides;
      pads = SpaceToDepthConv::kPads;
    } else if (Value padded =
                   paddedConvWeight(rewriter, loc, weight, 8, channels)) {
      weight = padded;
    }
    wType = tensorType(weight);
  }
  Window win{tensorType(input).getShape(),
             outType.getShape(),
             wType.getShape().slice(1, 2),
             strides,
             pads,
             op.getDilations(),
             /*firstSpatial=*/1};
  // Grouped convolutions never run as implicit GEMMs (which need the pure
  // affine map of a padded copy): they read the input under the window
  // with bounds checks, one kernel and a pass over the input fewer
  // (mobilenet_v2's depthwise layers).
  bool boundedReads = groups != 1 && win.padded() && !channels;
  if ((win.padded() || channels) && !boundedReads)
    input = padChannelsLast(rewriter, loc, input, pads, Value(), channels);
  Value init = convAccumulatorInit(rewriter, loc, op.getBias(), outType,
                                   /*channelDim=*/3);
  ChannelsLastConvIndexing conv{strides,
                                op.getDilations(),
                                groups,
                                outType.getDimSize(3) / groups,
                                wType.getDimSize(3),
                                rewriter.getContext()};
  weight = channelsLastConvWeight(rewriter, loc, weight, conv);
  SmallVector<Value> inputs{input, weight};
  SmallVector<AffineMap> maps{conv.inputMap(), conv.weightMap(),
                              conv.outputMap()};
  if (boundedReads) {
    inputs.erase(inputs.begin());
    maps.erase(maps.begin());
  }
  auto generic = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{outType}, inputs, ValueRange{init}, maps, conv.iterators(),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value x = boundedReads ? conv.readInput(b, l, input, win,
                                                scalarConstant(b, l, inElt, 0))
                               : a[0];
        x = castScalar(b, l, x, elt);
        Value w = castScalar(b, l, a[a.size() - 2], elt);
        Value r = b.create<arith::AddFOp>(l, a.back(),
                                          b.create<arith::MulFOp>(l, x, w));
        b.create<linalg::YieldOp>(l, r);
      });
  rewriter.replaceOp(
      op, roundAccumulator(rewriter, loc, generic.getResult(0), resultType));
  return success();
}

/// The body of a float conv's generic over (x, w, acc): `acc + x * w`, its
/// operands cast to the accumulator's type.
void multiplyAccumulate(OpBuilder &b, Location l, ValueRange a, Type elt) {
  Value x = castScalar(b, l, a[0], elt);
  Value w = castScalar(b, l, a[1], elt);
  Value sum =
      b.create<arith::AddFOp>(l, a[2], b.create<arith::MulFOp>(l, x, w));
  b.create<linalg::YieldOp>(l, sum);
}

/// Host: the conv on its input's plane or phases (RowConv), its body
/// multiplyAccumulate. Nothing when it does not qualify.
Value rowConvolution(PatternRewriter &rewriter, Location loc, Value input,
                     Value weight, Value bias, const Window &win,
                     RankedTensorType outType, int64_t maxRow, int64_t groups) {
  std::optional<RowConv> conv = rowConv(rewriter, loc, input, win, maxRow,
                                        /*rowMultiple=*/1, Value(),
                                        /*channels=*/0, groups);
  if (!conv)
    return {};
  Type elt = outType.getElementType();
  auto accType = RankedTensorType::get(conv->accShape, elt);
  Value acc =
      rewriter
          .create<linalg::GenericOp>(
              loc, TypeRange{accType}, ValueRange{conv->source, weight},
              ValueRange{convAccumulatorInit(rewriter, loc, bias, accType)},
              ArrayRef<AffineMap>{conv->inputMap(), conv->weightMap(false),
                                  conv->outputMap()},
              conv->iterators(),
              [&](OpBuilder &b, Location l, ValueRange a) {
                multiplyAccumulate(b, l, a, elt);
              })
          .getResult(0);
  return conv->outputs(rewriter, loc, acc, outType);
}

struct ConvLowering : OpRewritePattern<ConvOp> {
  ConvLowering(MLIRContext *ctx, bool padChannels, bool padInput,
               int64_t planeRows, bool padGroupedInput)
      : OpRewritePattern(ctx), padChannels(padChannels), padInput(padInput),
        padGroupedInput(padGroupedInput), planeRows(planeRows) {}
  /// Channels-last 16-bit convs: input channels padded to a multiple of 8.
  bool padChannels;
  /// NC[D]HW convs of one group whose windows leave the input read a
  /// padded copy.
  bool padInput;
  /// So do grouped ones (depthwise).
  bool padGroupedInput;
  /// Host: rowConv's longest row (0: off).
  int64_t planeRows;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return lowerChannelsLastConv(op, rewriter, padChannels);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = op.getType();
    auto outType = accumulatorType(resultType);
    auto inType = tensorType(op.getInput());
    auto wType = tensorType(op.getWeight());
    Type elt = outType.getElementType();
    Type inElt = resultType.getElementType();
    Window win{
        inType.getShape(), outType.getShape(), wType.getShape().drop_front(2),
        op.getStrides(),   op.getPads(),       op.getDilations()};
    int64_t groups = op.getGroup();
    int64_t outPerGroup = outType.getDimSize(1) / groups;
    int64_t inPerGroup = wType.getDimSize(1);

    bool padded = win.padded();
    Value input = op.getInput();
    // Output rows shorter than a tile run on the input's plane; a strided
    // conv reads its input's phases. Their copies take the pads. So do
    // depthwise ones (mobilenet_v2's 14- and 7-wide rows were a work item
    // each, 7 or 14 lanes of 16).
    if (padInput && (groups == 1 || padGroupedInput))
      if (Value out =
              rowConvolution(rewriter, loc, input, op.getWeight(), op.getBias(),
                             win, outType, planeRows, groups)) {
        rewriter.replaceOp(op,
                           roundAccumulator(rewriter, loc, out, resultType));
        return success();
      }
    Window paddedWin;
    SmallVector<int64_t> paddedShape;
    // A depthwise conv's 9 taps an output pay for a whole copy only where
    // the copy's affine reads let the host vectorize its rows: the bounded
    // reads ran scalar (mobilenet_v2's depthwise convs 2-3x slower than
    // the copy and the vector rows together).
    if (padded && (groups == 1 ? padInput : padGroupedInput) &&
        win.insideWhenPadded()) {
      input = padSpatial(rewriter, loc, input, win, Value(), paddedWin,
                         paddedShape, /*channels=*/0,
                         /*fillThenCopy=*/groups != 1,
                         /*alignInterior=*/groups != 1 ? kHostByteTile : 0);
      win = paddedWin;
      padded = false;
    }
    // A strided 1x1 conv reads a copy of the positions it reads: stride 1
    // then, and its plane contiguous (resnet50's downsampling convs ran
    // their 7- and 14-wide rows on stride-2 reads).
    Window subsampledWin;
    SmallVector<int64_t> subsampledShape;
    if (padInput && !padded && groups == 1)
      if (Value copy = subsampleSpatial(rewriter, loc, input, win,
                                        subsampledWin, subsampledShape)) {
        input = copy;
        win = subsampledWin;
      }
    // Output initialized with the bias (or zero); the generic accumulates.
    Value init = convAccumulatorInit(rewriter, loc, op.getBias(), outType);
    ConvIndexing conv{win, outPerGroup, inPerGroup, ctx};
    SmallVector<Value> inputs{op.getWeight()};
    SmallVector<AffineMap> maps{conv.weightMap()};
    if (!padded) {
      // Every window is inside the input: pure indexing map.
      inputs.insert(inputs.begin(), input);
      maps.insert(maps.begin(), conv.inputMap());
    }
    maps.push_back(conv.outputMap());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{outType}, inputs, ValueRange{init}, maps,
        conv.iterators(), [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = padded ? conv.readInput(b, l, input,
                                            scalarConstant(b, l, inElt, 0))
                           : a[0];
          Value w = padded ? a[0] : a[1];
          x = castScalar(b, l, x, elt);
          w = castScalar(b, l, w, elt);
          Value r = b.create<arith::AddFOp>(l, a.back(),
                                            b.create<arith::MulFOp>(l, x, w));
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(
        op, roundAccumulator(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};

struct GemmLowering : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = op.getType();
    auto type = accumulatorType(resultType);
    Type elt = type.getElementType();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value init;
    if (op.getC() && beta != 0.0) {
      init = elementwise(rewriter, loc, type, {op.getC()},
                         [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                           Value c = castScalar(b, l, a[0], elt);
                           if (beta == 1.0)
                             return c;
                           return b.create<arith::MulFOp>(
                               l, c, scalarConstant(b, l, elt, beta));
                         });
    } else {
      init = filled(rewriter, loc, type, scalarConstant(rewriter, loc, elt, 0));
    }
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               kk = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps{
        AffineMap::get(3, 0,
                       op.getTransA() ? ArrayRef<AffineExpr>{kk, m}
                                      : ArrayRef<AffineExpr>{m, kk},
                       ctx),
        AffineMap::get(3, 0,
                       op.getTransB() ? ArrayRef<AffineExpr>{n, kk}
                                      : ArrayRef<AffineExpr>{kk, n},
                       ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getA(), op.getB()},
        ValueRange{init}, maps,
        ArrayRef<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                               IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = castScalar(b, l, a[0], elt);
          if (alpha != 1.0)
            x = b.create<arith::MulFOp>(l, x, scalarConstant(b, l, elt, alpha));
          Value r = b.create<arith::AddFOp>(
              l, a[2],
              b.create<arith::MulFOp>(l, x, castScalar(b, l, a[1], elt)));
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(
        op, roundAccumulator(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};

struct MatMulLowering : OpRewritePattern<MatMulOp> {
  MatMulLowering(MLIRContext *ctx, bool f32WeightsNK, bool halfWeightsNK)
      : OpRewritePattern(ctx), f32WeightsNK(f32WeightsNK),
        halfWeightsNK(halfWeightsNK) {}
  /// Constant 2-D f32 rhs laid out [N, K] (TF32 mma.sync reads B that way).
  bool f32WeightsNK;
  /// Likewise f16/bf16 (wgmma reads a K-major B).
  bool halfWeightsNK;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = op.getType();
    auto type = accumulatorType(resultType);
    Type elt = type.getElementType();
    int64_t rank = type.getRank(), batch = rank - 2;
    // Iteration space: batch..., m, n (parallel), k (reduction).
    int64_t numDims = rank + 1;
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(batch + 1, ctx),
               kk = getAffineDimExpr(batch + 2, ctx);
    Value rhs = op.getRhs();
    AffineMap rhsMap = batchedOperandMap(type, rhs, kk, n);
    Type rhsElt = tensorType(rhs).getElementType();
    if ((f32WeightsNK && rhsElt.isF32()) ||
        (halfWeightsNK && (rhsElt.isF16() || rhsElt.isBF16())))
      if (Value nk = transposedConstant2D(rewriter, loc, rhs)) {
        rhs = nk;
        rhsMap = batchedOperandMap(type, rhs, n, kk);
      }
    SmallVector<AffineMap> maps{
        batchedOperandMap(type, op.getLhs(), m, kk), rhsMap,
        AffineMap::getMultiDimIdentityMap(numDims, ctx).getMajorSubMap(rank)};
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.push_back(IteratorType::reduction);
    Value init =
        filled(rewriter, loc, type, scalarConstant(rewriter, loc, elt, 0));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getLhs(), rhs},
        ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value r = b.create<arith::AddFOp>(
              l, a[2],
              b.create<arith::MulFOp>(l, castScalar(b, l, a[0], elt),
                                      castScalar(b, l, a[1], elt)));
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(
        op, roundAccumulator(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};

/// A reduction of `input` over `axes` into a tensor shaped like the input
/// with those dims kept as 1 (`keptType`). The iteration space lists the
/// kept dims first so the loops come out parallel-outside. `body` gets
/// (input element, accumulators...) and yields the new accumulators.
SmallVector<Value> reduce(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
    ArrayRef<Value> inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  auto inShape = tensorType(input).getShape();
  int64_t rank = inShape.size();
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : axes)
    reduced[a] = true;
  // Position of each input dim in the iteration space.
  SmallVector<int64_t> pos(rank);
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i])
      pos[i] = next++;
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i])
      pos[i] = next++;
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t i = 0; i < rank; ++i) {
    inExprs.push_back(getAffineDimExpr(pos[i], ctx));
    outExprs.push_back(reduced[i] ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(pos[i], ctx));
  }
  int64_t kept = rank - axes.size();
  SmallVector<IteratorType> iters(kept, IteratorType::parallel);
  iters.append(axes.size(), IteratorType::reduction);
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, inExprs, ctx)};
  SmallVector<Type> types;
  for (Value init : inits) {
    maps.push_back(AffineMap::get(rank, 0, outExprs, ctx));
    types.push_back(init.getType());
  }
  auto generic = b.create<linalg::GenericOp>(
      loc, types, ValueRange{input}, inits, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        nb.create<linalg::YieldOp>(l, body(nb, l, a));
      });
  return SmallVector<Value>(generic.getResults());
}

RankedTensorType keptDimsType(RankedTensorType type, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  return RankedTensorType::get(shape, type.getElementType());
}

int64_t product(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= type.getDimSize(a);
  return n;
}

/// Reshape between static shapes with the same element count as a collapse
/// to 1-D followed by an expand (both views after bufferization).
Value reshapeTensor(OpBuilder &b, Location loc, Value input,
                    RankedTensorType to) {
  auto from = tensorType(input);
  if (from == to)
    return input;
  auto reassoc = [](int64_t rank) {
    SmallVector<ReassociationIndices> r;
    if (rank > 0) {
      r.emplace_back();
      for (int64_t i = 0; i < rank; ++i)
        r.back().push_back(i);
    }
    return r;
  };
  // Rank 0 <-> all-ones shapes: an empty reassociation, directly.
  if (to.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, to, input,
                                             ArrayRef<ReassociationIndices>{});
  if (from.getRank() == 0)
    return b.create<tensor::ExpandShapeOp>(loc, to, input,
                                           ArrayRef<ReassociationIndices>{});
  Value flat = input;
  if (from.getRank() != 1)
    flat =
        b.create<tensor::CollapseShapeOp>(loc, input, reassoc(from.getRank()));
  if (to.getRank() == 1)
    return flat;
  return b.create<tensor::ExpandShapeOp>(loc, to, flat, reassoc(to.getRank()));
}

struct ReduceMeanLowering : OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMeanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = tensorType(op.getInput());
    auto keptType = keptDimsType(inType, op.getAxes());
    Type elt = inType.getElementType();
    double scale = 1.0 / (double)product(inType, op.getAxes());
    Value init =
        filled(rewriter, loc, keptType, scalarConstant(rewriter, loc, elt, 0));
    Value sum =
        reduce(rewriter, loc, op.getInput(), op.getAxes(), {init},
               [&](OpBuilder &b, Location l, ValueRange a) {
                 Value s = b.create<arith::MulFOp>(
                     l, a[0], scalarConstant(b, l, elt, scale));
                 return SmallVector<Value>{b.create<arith::AddFOp>(l, a[1], s)};
               })[0];
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, sum, op.getType()));
    return success();
  }
};

/// ReduceSum/Prod/Max/Min/L1/L2/SumSquare/LogSum/LogSumExp: one reduction
/// into the kept-dims shape, then a finishing elementwise step where the
/// op needs one, then a reshape when the dims are dropped.
template <typename OpTy> struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = tensorType(op.getInput());
    auto keptType = keptDimsType(inType, op.getAxes());
    Type elt = inType.getElementType();
    constexpr bool isLogSumExp = std::is_same_v<OpTy, ReduceLogSumExpOp>;
    Value init;
    if constexpr (std::is_same_v<OpTy, ReduceProdOp>)
      init = scalarConstant(rewriter, loc, elt, 1);
    else if constexpr (std::is_same_v<OpTy, ReduceMaxOp>)
      init = lowestValue(rewriter, loc, elt);
    else if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
      init = highestValue(rewriter, loc, elt);
    else
      init = scalarConstant(rewriter, loc, elt, 0);
    SmallVector<Value> inits{filled(rewriter, loc, keptType, init)};
    if constexpr (isLogSumExp) {
      // Online max and rescaled sum, as in softmax.
      inits.insert(inits.begin(), filled(rewriter, loc, keptType,
                                         lowestValue(rewriter, loc, elt)));
    }
    auto acc = reduce(
        rewriter, loc, op.getInput(), op.getAxes(), inits,
        [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
          Value x = a[0], s = a.back();
          if constexpr (std::is_same_v<OpTy, ReduceProdOp>)
            return {mul(b, l, s, x)};
          if constexpr (std::is_same_v<OpTy, ReduceMaxOp>)
            return {max(b, l, s, x)};
          if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
            return {min(b, l, s, x)};
          if constexpr (std::is_same_v<OpTy, ReduceL1Op>) {
            Value ax;
            if (isa<FloatType>(x.getType())) {
              ax = b.create<math::AbsFOp>(l, x);
            } else {
              Value zero = scalarConstant(b, l, x.getType(), 0);
              Value neg = cmpi(b, l, arith::CmpIPredicate::slt, x, zero);
              ax = b.create<arith::SelectOp>(l, neg, sub(b, l, zero, x), x);
            }
            return {add(b, l, s, ax)};
          }
          if constexpr (std::is_same_v<OpTy, ReduceSumSquareOp> ||
                        std::is_same_v<OpTy, ReduceL2Op>)
            return {add(b, l, s, mul(b, l, x, x))};
          if constexpr (isLogSumExp) {
            Value m = a[1];
            Value mNew = b.create<arith::MaximumFOp>(l, m, x);
            // exp(m - mNew) with both -inf is exp(NaN): guard it.
            Value same =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, m, mNew);
            Value scale = b.create<arith::SelectOp>(
                l, same, scalarConstant(b, l, x.getType(), 1),
                b.create<math::ExpOp>(l, b.create<arith::SubFOp>(l, m, mNew)));
            Value sameX =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, x, mNew);
            Value e = b.create<arith::SelectOp>(
                l, sameX, scalarConstant(b, l, x.getType(), 1),
                b.create<math::ExpOp>(l, b.create<arith::SubFOp>(l, x, mNew)));
            return {mNew, b.create<arith::AddFOp>(
                              l, b.create<arith::MulFOp>(l, s, scale), e)};
          }
          return {add(b, l, s, x)};
        });
    Value r = acc.back();
    if constexpr (std::is_same_v<OpTy, ReduceL2Op>)
      r = elementwise(rewriter, loc, keptType, {r},
                      [](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<math::SqrtOp>(l, a[0]);
                      });
    if constexpr (std::is_same_v<OpTy, ReduceLogSumOp>)
      r = elementwise(rewriter, loc, keptType, {r},
                      [](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<math::LogOp>(l, a[0]);
                      });
    if constexpr (isLogSumExp)
      r = elementwise(rewriter, loc, keptType, {acc[0], acc[1]},
                      [](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<arith::AddFOp>(
                            l, a[0], b.create<math::LogOp>(l, a[1]));
                      });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, r, op.getType()));
    return success();
  }
};

/// ArgMax/ArgMin: the reduction carries (best value, its index); the index
/// of the reduced dim is the last loop of the iteration space.
template <typename OpTy> struct ArgReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;
    Location loc = op.getLoc();
    auto inType = tensorType(op.getInput());
    Type elt = inType.getElementType();
    int64_t axis = op.getAxis(), rank = inType.getRank();
    bool last = op.getSelectLastIndex();
    auto keptType = keptDimsType(inType, {axis});
    auto idxType = keptType.clone(rewriter.getI64Type());
    Value v0 = filled(rewriter, loc, keptType,
                      isMax ? lowestValue(rewriter, loc, elt)
                            : highestValue(rewriter, loc, elt));
    Value i0 = filled(rewriter, loc, idxType,
                      scalarConstant(rewriter, loc, rewriter.getI64Type(), 0));
    auto acc = reduce(
        rewriter, loc, op.getInput(), {axis}, {v0, i0},
        [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
          Value x = a[0], best = a[1], bestIdx = a[2];
          Value i = b.create<arith::IndexCastOp>(
              l, b.getI64Type(), b.create<linalg::IndexOp>(l, rank - 1));
          Value better;
          if (isa<FloatType>(elt)) {
            using P = arith::CmpFPredicate;
            better = b.create<arith::CmpFOp>(
                l, isMax ? (last ? P::OGE : P::OGT) : (last ? P::OLE : P::OLT),
                x, best);
          } else {
            using P = arith::CmpIPredicate;
            better = cmpi(b, l,
                          isMax ? (last ? P::sge : P::sgt)
                                : (last ? P::sle : P::slt),
                          x, best);
          }
          // The first element always counts (it may equal the init value).
          Value first =
              b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i,
                                      scalarConstant(b, l, b.getI64Type(), 0));
          better = b.create<arith::OrIOp>(l, better, first);
          return {b.create<arith::SelectOp>(l, better, x, best),
                  b.create<arith::SelectOp>(l, better, i, bestIdx)};
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, acc[1], op.getType()));
    return success();
  }
};

/// The max of float `input` along `axis`, that dim kept as 1.
Value maxAlong(OpBuilder &b, Location loc, Value input, int64_t axis) {
  auto keptType = keptDimsType(tensorType(input), {axis});
  Value init =
      filled(b, loc, keptType, lowestValue(b, loc, keptType.getElementType()));
  return reduce(b, loc, input, {axis}, {init},
                [](OpBuilder &nb, Location l, ValueRange a) {
                  return SmallVector<Value>{
                      nb.create<arith::MaximumFOp>(l, a[1], a[0])};
                })[0];
}

struct LogSoftmaxLowering : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    // x - m - log(sum(exp(x - m))) with m the max along the axis.
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    int64_t axis = op.getAxis();
    auto keptType = keptDimsType(type, {axis});
    Value m = maxAlong(rewriter, loc, op.getInput(), axis);
    Value shifted = elementwise(rewriter, loc, type, {op.getInput(), m},
                                [](OpBuilder &b, Location l, ValueRange a) {
                                  return sub(b, l, a[0], a[1]);
                                });
    Value s = reduce(rewriter, loc, shifted, {axis},
                     {filled(rewriter, loc, keptType,
                             scalarConstant(rewriter, loc, elt, 0))},
                     [](OpBuilder &b, Location l, ValueRange a) {
                       return SmallVector<Value>{b.create<arith::AddFOp>(
                           l, a[1], b.create<math::ExpOp>(l, a[0]))};
                     })[0];
    Value r = elementwise(rewriter, loc, type, {shifted, s},
                          [](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return b.create<arith::SubFOp>(
                                l, a[0], b.create<math::LogOp>(l, a[1]));
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  SoftmaxLowering(MLIRContext *ctx, bool twoPass)
      : OpRewritePattern(ctx), twoPass(twoPass) {}

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    int64_t axis = op.getAxis();
    auto keptType = keptDimsType(type, {axis});
    Value s0 =
        filled(rewriter, loc, keptType, scalarConstant(rewriter, loc, elt, 0));
    if (twoPass) {
      // m = max(x), e = exp(x - m), s = sum(e), e * (1 / s): each reduction
      // a plain max or sum that vectorizes along the row, one exp an
      // element. The reciprocal is invariant along the row (LLVM hoists
      // it): a division an element took 40% of a 128-long row softmax, as
      // in ONNX Runtime's kernel, which also multiplies by 1 / s.
      Value m = maxAlong(rewriter, loc, op.getInput(), axis);
      Value e = elementwise(rewriter, loc, type, {op.getInput(), m},
                            [](OpBuilder &b, Location l, ValueRange a) {
                              return b.create<math::ExpOp>(
                                  l, b.create<arith::SubFOp>(l, a[0], a[1]));
                            });
      Value s = reduce(rewriter, loc, e, {axis}, {s0},
                       [](OpBuilder &b, Location l, ValueRange a) {
                         return SmallVector<Value>{
                             b.create<arith::AddFOp>(l, a[1], a[0])};
                       })[0];
      rewriter.replaceOp(
          op, elementwise(rewriter, loc, type, {e, s},
                          [](OpBuilder &b, Location l, ValueRange a) -> Value {
                            Value inv = b.create<arith::DivFOp>(
                                l, scalarConstant(b, l, a[1].getType(), 1),
                                a[1]);
                            return b.create<arith::MulFOp>(l, a[0], inv);
                          }));
      return success();
    }
    // One pass for max and sum with the online rescaling
    //   m' = max(m, x), s' = s * exp(m - m') + exp(x - m'),
    // then one pass to normalize.
    Value m0 = filled(rewriter, loc, keptType, lowestValue(rewriter, loc, elt));
    auto stats = reduce(
        rewriter, loc, op.getInput(), {axis}, {m0, s0},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0], m = a[1], s = a[2];
          Value mNew = b.create<arith::MaximumFOp>(l, m, x);
          // While the row has seen only -inf (a masked first column), the
          // exponents are taken relative to 0: exp(-inf - -inf) is NaN.
          Value base = dlc::onlineSoftmaxBase(b, l, mNew);
          Value scaled = b.create<arith::MulFOp>(
              l, s,
              b.create<math::ExpOp>(l, b.create<arith::SubFOp>(l, m, base)));
          Value e =
              b.create<math::ExpOp>(l, b.create<arith::SubFOp>(l, x, base));
          return SmallVector<Value>{mNew,
                                    b.create<arith::AddFOp>(l, scaled, e)};
        });
    Value r =
        elementwise(rewriter, loc, type, {op.getInput(), stats[0], stats[1]},
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value e = b.create<math::ExpOp>(
                          l, b.create<arith::SubFOp>(l, a[0], a[1]));
                      return b.create<arith::DivFOp>(l, e, a[2]);
                    });
    rewriter.replaceOp(op, r);
    return success();
  }

private:
  bool twoPass;
};

struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    SmallVector<int64_t> axes;
    for (int64_t i = op.getAxis(); i < type.getRank(); ++i)
      axes.push_back(i);
    auto keptType = keptDimsType(type, axes);
    double invN = 1.0 / (double)product(type, axes);
    Value zero = scalarConstant(rewriter, loc, elt, 0);
    // An input stored narrower and widened for the normalization (f16 at
    // --precision=fp16) is read as stored and widened per element: the
    // widening then never materializes an f32 copy between kernels.
    Value input = op.getInput();
    if (auto widened = input.getDefiningOp<CastOp>();
        widened &&
        isa<FloatType>(tensorType(widened.getInput()).getElementType()) &&
        tensorType(widened.getInput()).getElementTypeBitWidth() <
            elt.getIntOrFloatBitWidth())
      input = widened.getInput();
    Value mean = reduce(
        rewriter, loc, input, axes, {filled(rewriter, loc, keptType, zero)},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value s = b.create<arith::MulFOp>(l, castScalar(b, l, a[0], elt),
                                            scalarConstant(b, l, elt, invN));
          return SmallVector<Value>{b.create<arith::AddFOp>(l, a[1], s)};
        })[0];
    Value centered =
        elementwise(rewriter, loc, type, {input, mean},
                    [&](OpBuilder &b, Location l, ValueRange a) {
                      return sub(b, l, castScalar(b, l, a[0], elt), a[1]);
                    });
    Value var = reduce(
        rewriter, loc, centered, axes, {filled(rewriter, loc, keptType, zero)},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value sq = b.create<arith::MulFOp>(l, a[0], a[0]);
          Value s =
              b.create<arith::MulFOp>(l, sq, scalarConstant(b, l, elt, invN));
          return SmallVector<Value>{b.create<arith::AddFOp>(l, a[1], s)};
        })[0];
    SmallVector<Value> ins{centered, var, op.getScale()};
    if (op.getBias())
      ins.push_back(op.getBias());
    double eps = op.getEpsilon().convertToDouble();
    Value r = elementwise(rewriter, loc, type, ins,
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            Value v = b.create<arith::AddFOp>(
                                l, a[1], scalarConstant(b, l, elt, eps));
                            Value inv = b.create<math::RsqrtOp>(l, v);
                            Value y = b.create<arith::MulFOp>(
                                l, b.create<arith::MulFOp>(l, a[0], inv), a[2]);
                            if (a.size() > 3)
                              y = b.create<arith::AddFOp>(l, y, a[3]);
                            return y;
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

template <typename OpTy> struct PoolLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto inType = tensorType(op.getInput());
    Type elt = type.getElementType();
    // NC[D]HW, or NHWC with channels_last.
    int64_t first = op.getChannelsLast() ? 1 : 2;
    Window win{inType.getShape(), type.getShape(), op.getKernelShape(),
               op.getStrides(),   op.getPads(),    op.getDilations(),
               first};
    int64_t k = win.spatial(), rank = type.getRank();
    Value padValue = isMax ? lowestValue(rewriter, loc, elt)
                           : scalarConstant(rewriter, loc, elt, 0);
    Value init = filled(rewriter, loc, type, padValue);
    // Iteration space: n, c, o_1..o_k (parallel), r_1..r_k (reduction). The
    // window dims only size the loops: a tensor.empty of the kernel shape.
    Value window =
        rewriter.create<tensor::EmptyOp>(loc, op.getKernelShape(), elt);
    SmallVector<AffineExpr> wExprs, outExprs;
    for (int64_t i = 0; i < k; ++i)
      wExprs.push_back(getAffineDimExpr(rank + i, ctx));
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.append(k, IteratorType::reduction);
    Value input = op.getInput();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{window}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(rank + k, 0, wExprs, ctx),
                            AffineMap::get(rank + k, 0, outExprs, ctx)},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> dims;
          for (int64_t i = 0; i < rank + k; ++i)
            dims.push_back(b.create<linalg::IndexOp>(l, i));
          SmallVector<Value> idx(dims.begin(), dims.begin() + rank);
          SmallVector<bool> check(rank, false);
          for (int64_t i = 0; i < k; ++i) {
            idx[first + i] =
                win.position(b, l, i, dims[first + i], dims[rank + i]);
            check[first + i] = win.mayLeave(i);
          }
          Value pad =
              isMax ? lowestValue(b, l, elt) : scalarConstant(b, l, elt, 0);
          Value x = readWithPadding(b, l, input, idx, check, pad);
          Value r = isMax ? max(b, l, a.back(), x) : add(b, l, a.back(), x);
          b.create<linalg::YieldOp>(l, r);
        });
    Value result = generic.getResult(0);
    if constexpr (!isMax) {
      // Divide by the number of window positions that count: inside the
      // input, or also inside the pads with count_include_pad.
      bool includePad = op.getCountIncludePad();
      result =
          rewriter
              .create<linalg::GenericOp>(
                  loc, TypeRange{type}, ValueRange{result},
                  ValueRange{rewriter.create<tensor::EmptyOp>(
                      loc, type.getShape(), elt)},
                  ArrayRef<AffineMap>{
                      AffineMap::getMultiDimIdentityMap(rank, ctx),
                      AffineMap::getMultiDimIdentityMap(rank, ctx)},
                  SmallVector<IteratorType>(rank, IteratorType::parallel),
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value count = index(b, l, 1);
                    for (int64_t i = 0; i < k; ++i) {
                      int64_t lo = includePad ? -win.pads[i] : 0;
                      int64_t hi = win.inShape[first + i] +
                                   (includePad ? win.pads[k + i] : 0);
                      int64_t dil = win.dilations[i];
                      Value o = b.create<linalg::IndexOp>(l, first + i);
                      Value start = win.position(b, l, i, o, index(b, l, 0));
                      // r in [ceil((lo-start)/d), floor((hi-1-start)/d)]
                      Value rMin = b.create<arith::MaxSIOp>(
                          l, index(b, l, 0),
                          b.create<arith::CeilDivSIOp>(
                              l,
                              b.create<arith::SubIOp>(l, index(b, l, lo),
                                                      start),
                              index(b, l, dil)));
                      Value rMax = b.create<arith::MinSIOp>(
                          l, index(b, l, win.kernel[i] - 1),
                          b.create<arith::FloorDivSIOp>(
                              l,
                              b.create<arith::SubIOp>(l, index(b, l, hi - 1),
                                                      start),
                              index(b, l, dil)));
                      Value n = b.create<arith::MaxSIOp>(
                          l, index(b, l, 0),
                          b.create<arith::AddIOp>(
                              l, b.create<arith::SubIOp>(l, rMax, rMin),
                              index(b, l, 1)));
                      count = b.create<arith::MulIOp>(l, count, n);
                    }
                    Value c =
                        b.create<arith::IndexCastOp>(l, b.getI64Type(), count);
                    Value f = b.create<arith::SIToFPOp>(l, elt, c);
                    b.create<linalg::YieldOp>(
                        l, Value(b.create<arith::DivFOp>(l, a[0], f)));
                  })
              .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, op.getLoc(), op.getInput(), op.getType()));
    return success();
  }
};

/// Ops that are a pure gather through an affine map of the output index:
/// Transpose and Slice.
struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank();
    // Result dim i is input dim perm[i]: input dim perm[i] reads index d_i.
    SmallVector<AffineExpr> exprs(rank);
    for (int64_t i = 0; i < rank; ++i)
      exprs[op.getPerm()[i]] = getAffineDimExpr(i, ctx);
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), op.getInput(),
                                          type,
                                          AffineMap::get(rank, 0, exprs, ctx)));
    return success();
  }

  static Value copyThroughMap(OpBuilder &b, Location loc, Value input,
                              RankedTensorType type, AffineMap map) {
    int64_t rank = type.getRank();
    Value init =
        b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
    return b
        .create<linalg::GenericOp>(
            loc, TypeRange{type}, ValueRange{input}, ValueRange{init},
            ArrayRef<AffineMap>{
                map, AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
            SmallVector<IteratorType>(rank, IteratorType::parallel),
            [](OpBuilder &nb, Location l, ValueRange a) {
              nb.create<linalg::YieldOp>(l, a[0]);
            })
        .getResult(0);
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    // An empty slice reads nothing (its index map would point outside).
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    int64_t rank = type.getRank();
    auto inShape = tensorType(op.getInput()).getShape();
    SmallVector<AffineExpr> exprs;
    bool pureCrop = false;
    for (int64_t i = 0; i < rank; ++i) {
      exprs.push_back(getAffineDimExpr(i, ctx) * op.getSteps()[i] +
                      op.getStarts()[i]);
      // linalg requires a plain dim expression to span the whole operand.
      pureCrop |= op.getSteps()[i] == 1 && op.getStarts()[i] == 0 &&
                  type.getDimSize(i) != inShape[i];
    }
    if (pureCrop) {
      // Read the input with tensor.extract at the mapped index instead.
      Location loc = op.getLoc();
      Value input = op.getInput();
      Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                    type.getElementType());
      auto generic = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{type}, ValueRange{}, ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<IteratorType>(rank, IteratorType::parallel),
          [&](OpBuilder &b, Location l, ValueRange) {
            SmallVector<Value> idx;
            for (int64_t i = 0; i < rank; ++i) {
              Value d = b.create<linalg::IndexOp>(l, i);
              if (op.getSteps()[i] != 1)
                d = b.create<arith::MulIOp>(l, d,
                                            index(b, l, op.getSteps()[i]));
              if (op.getStarts()[i] != 0)
                d = b.create<arith::AddIOp>(l, d,
                                            index(b, l, op.getStarts()[i]));
              idx.push_back(d);
            }
            b.create<linalg::YieldOp>(
                l, Value(b.create<tensor::ExtractOp>(l, input, idx)));
          });
      rewriter.replaceOp(op, generic.getResult(0));
      return success();
    }
    rewriter.replaceOp(op, TransposeLowering::copyThroughMap(
                               rewriter, op.getLoc(), op.getInput(), type,
                               AffineMap::get(rank, 0, exprs, ctx)));
    return success();
  }
};

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    // One pass over the output; each element reads the input that covers
    // its position along the axis (select chain, inputs are few).
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    // Empty inputs cover no position (and have no element to clamp to).
    SmallVector<Value> inputs;
    for (Value in : op.getInputs())
      if (tensorType(in).getDimSize(axis) > 0)
        inputs.push_back(in);
    if (inputs.empty() || type.getNumElements() == 0) {
      rewriter.replaceOp(op, init);
      return success();
    }
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> idx;
          for (int64_t i = 0; i < rank; ++i)
            idx.push_back(b.create<linalg::IndexOp>(l, i));
          Value pos = idx[axis];
          Value result;
          int64_t offset = 0;
          for (Value in : inputs) {
            int64_t size = tensorType(in).getDimSize(axis);
            SmallVector<Value> at(idx);
            Value local = b.create<arith::SubIOp>(l, pos, index(b, l, offset));
            local = b.create<arith::MaxSIOp>(l, local, index(b, l, 0));
            at[axis] =
                b.create<arith::MinSIOp>(l, local, index(b, l, size - 1));
            Value v = b.create<tensor::ExtractOp>(l, in, at);
            if (!result) {
              result = v;
            } else {
              Value here = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                   pos, index(b, l, offset));
              result = b.create<arith::SelectOp>(l, here, v, result);
            }
            offset += size;
          }
          b.create<linalg::YieldOp>(l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Where an op reports an out-of-range index: the function's status word
/// and the op's check number (registerIndexChecks). Null when unchecked.
struct IndexCheck {
  Value status;
  int64_t id = 0;
};

IndexCheck indexCheckOf(Operation *op) {
  auto id = op->getAttrOfType<IntegerAttr>(attrs::kCheck);
  auto func = op->getParentOfType<func::FuncOp>();
  if (!id || !func || func.isExternal())
    return {};
  for (auto get : func.getBody().front().getOps<memref::GetGlobalOp>())
    if (get.getName() == attrs::kStatusGlobal)
      return {get.getResult(), id.getInt()};
  return {};
}

/// Wraps a negative index `i` (any integer type) once; an index still
/// outside [0, n) stores the check's number into the status word (the run
/// then fails with a message naming the node) and is clamped so that the
/// access stays inside the buffer.
Value normalizeIndex(OpBuilder &b, Location l, Value i, int64_t n,
                     const IndexCheck &check) {
  i = b.create<arith::IndexCastOp>(l, b.getIndexType(), i);
  Value neg =
      b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i, index(b, l, 0));
  i = b.create<arith::SelectOp>(
      l, neg, b.create<arith::AddIOp>(l, i, index(b, l, n)), i);
  if (check.status) {
    // Unsigned: indices still negative compare above n too.
    Value bad = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::uge, i,
                                        index(b, l, n));
    b.create<scf::IfOp>(l, bad, [&](OpBuilder &tb, Location tl) {
      Value code = tb.create<arith::ConstantIntOp>(tl, check.id, 32);
      tb.create<memref::StoreOp>(tl, code, check.status,
                                 ValueRange{index(tb, tl, 0)});
      tb.create<scf::YieldOp>(tl);
    });
  }
  i = b.create<arith::MaxSIOp>(l, i, index(b, l, 0));
  return b.create<arith::MinSIOp>(l, i, index(b, l, n - 1));
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto dataType = tensorType(op.getData());
    int64_t rank = type.getRank(), axis = op.getAxis();
    int64_t idxRank = tensorType(op.getIndices()).getRank();
    int64_t n = dataType.getDimSize(axis);
    IndexCheck check = indexCheckOf(op);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    Value data = op.getData();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getIndices()}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(rank, 0, idxExprs, ctx),
                            AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = normalizeIndex(b, l, a[0], n, check);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(b.create<linalg::IndexOp>(l, d));
          at.push_back(i);
          for (int64_t d = axis + idxRank; d < rank; ++d)
            at.push_back(b.create<linalg::IndexOp>(l, d));
          b.create<linalg::YieldOp>(
              l, Value(b.create<tensor::ExtractOp>(l, data, at)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct GatherElementsLowering : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    int64_t n = tensorType(op.getData()).getDimSize(axis);
    IndexCheck check = indexCheckOf(op);
    Value data = op.getData();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getIndices()}, ValueRange{init},
        ArrayRef<AffineMap>{id, id},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == axis ? normalizeIndex(b, l, a[0], n, check)
                                   : b.create<linalg::IndexOp>(l, d));
          b.create<linalg::YieldOp>(
              l, Value(b.create<tensor::ExtractOp>(l, data, at)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Tile is pure indexing: output index i reads input index i mod n.
struct TileLowering : OpRewritePattern<TileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto inShape = tensorType(op.getInput()).getShape();
    int64_t rank = type.getRank();
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i) {
      AffineExpr d = getAffineDimExpr(i, ctx);
      exprs.push_back(op.getRepeats()[i] == 1 ? d : d % inShape[i]);
    }
    rewriter.replaceOp(op, TransposeLowering::copyThroughMap(
                               rewriter, op.getLoc(), op.getInput(), type,
                               AffineMap::get(rank, 0, exprs, ctx)));
    return success();
  }
};

/// Pad reads the input at (output index - begin pad), mapped back into
/// range by the mode; constant mode selects the value outside the input.
struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    Type elt = type.getElementType();
    auto inShape = tensorType(op.getInput()).getShape();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    StringRef mode = op.getMode();
    double padValue = op.getValue().convertToDouble();
    Value input = op.getInput();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(), elt);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> idx;
          SmallVector<bool> check;
          for (int64_t i = 0; i < rank; ++i) {
            int64_t n = inShape[i];
            Value j = b.create<linalg::IndexOp>(l, i);
            if (pads[i] != 0)
              j = b.create<arith::SubIOp>(l, j, index(b, l, pads[i]));
            bool grows = pads[i] > 0 || pads[rank + i] > 0;
            check.push_back(grows && mode == "constant");
            if (grows && mode == "reflect") {
              // -j before the start, 2(n-1)-j past the end.
              Value neg = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                  j, index(b, l, 0));
              j = b.create<arith::SelectOp>(
                  l, neg, b.create<arith::SubIOp>(l, index(b, l, 0), j), j);
              Value past = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                   j, index(b, l, n));
              j = b.create<arith::SelectOp>(
                  l, past,
                  b.create<arith::SubIOp>(l, index(b, l, 2 * (n - 1)), j), j);
            } else if (grows && mode == "edge") {
              j = b.create<arith::MaxSIOp>(l, j, index(b, l, 0));
              j = b.create<arith::MinSIOp>(l, j, index(b, l, n - 1));
            } else if (grows && mode == "wrap") {
              Value r = b.create<arith::RemSIOp>(l, j, index(b, l, n));
              j = b.create<arith::RemSIOp>(
                  l, b.create<arith::AddIOp>(l, r, index(b, l, n)),
                  index(b, l, n));
            }
            idx.push_back(j);
          }
          Value v = readWithPadding(b, l, input, idx, check,
                                    scalarConstant(b, l, elt, padValue));
          b.create<linalg::YieldOp>(l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct TriluLowering : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    bool upper = op.getUpper();
    int64_t k = static_cast<int64_t>(op.getK());
    Value r = elementwise(
        rewriter, op.getLoc(), op.getType(), {op.getInput()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value i = b.create<linalg::IndexOp>(l, rank - 2);
          Value j = b.create<linalg::IndexOp>(l, rank - 1);
          Value diff = b.create<arith::SubIOp>(l, j, i);
          Value keep = b.create<arith::CmpIOp>(
              l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, index(b, l, k));
          return b.create<arith::SelectOp>(
              l, keep, a[0], scalarConstant(b, l, a[0].getType(), 0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// CumSum and CumProd as a reduction over a copy of the axis: output i
/// along the axis combines the inputs r with r <= i (r < i exclusive; >= /
/// > reversed), starting from 0 (sum) or 1 (product).
template <typename OpTy> struct CumulativeLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static constexpr bool isProduct = std::is_same_v<OpTy, CumProdOp>;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Type elt = type.getElementType();
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t i = 0; i < rank; ++i) {
      inExprs.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
      outExprs.push_back(getAffineDimExpr(i, ctx));
    }
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    double identity = isProduct ? 1 : 0;
    Value init = filled(rewriter, loc, type,
                        scalarConstant(rewriter, loc, elt, identity));
    arith::CmpIPredicate pred = reverse
                                    ? (exclusive ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::sge)
                                    : (exclusive ? arith::CmpIPredicate::slt
                                                 : arith::CmpIPredicate::sle);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getInput()}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, inExprs, ctx),
                            AffineMap::get(rank + 1, 0, outExprs, ctx)},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = b.create<linalg::IndexOp>(l, axis);
          Value r = b.create<linalg::IndexOp>(l, rank);
          Value in = b.create<arith::CmpIOp>(l, pred, r, i);
          Value x = b.create<arith::SelectOp>(
              l, in, a[0], scalarConstant(b, l, elt, identity));
          b.create<linalg::YieldOp>(l, isProduct ? mul(b, l, a[1], x)
                                                 : add(b, l, a[1], x));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Combines an existing element with a scattered update.
Value scatterCombine(OpBuilder &b, Location l, StringRef reduction, Value acc,
                     Value update) {
  if (reduction == "add")
    return isa<IntegerType>(acc.getType()) && acc.getType().isInteger(1)
               ? b.create<arith::OrIOp>(l, acc, update).getResult()
               : add(b, l, acc, update);
  if (reduction == "mul")
    return acc.getType().isInteger(1)
               ? b.create<arith::AndIOp>(l, acc, update).getResult()
               : mul(b, l, acc, update);
  if (reduction == "max")
    return max(b, l, acc, update);
  if (reduction == "min")
    return min(b, l, acc, update);
  return update;
}

/// Index values of the iteration space's dims [0, n).
SmallVector<Value> loopIndices(OpBuilder &b, Location l, int64_t n) {
  SmallVector<Value> dims;
  for (int64_t i = 0; i < n; ++i)
    dims.push_back(b.create<linalg::IndexOp>(l, i));
  return dims;
}

/// A tensor.empty whose only purpose is to size reduction loops.
Value loopShape(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return b.create<tensor::EmptyOp>(loc, shape, b.getI8Type());
}

struct GatherNDLowering : OpRewritePattern<GatherNDOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherNDOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto dataShape = tensorType(op.getData()).getShape();
    auto idxType = tensorType(op.getIndices());
    int64_t rank = type.getRank(), q = idxType.getRank();
    int64_t k = idxType.getShape().back(), batch = op.getBatchDims();
    Value data = op.getData(), indices = op.getIndices();
    IndexCheck check = indexCheckOf(op);
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> o = loopIndices(b, l, rank);
          SmallVector<Value> at(o.begin(), o.begin() + batch);
          for (int64_t j = 0; j < k; ++j) {
            SmallVector<Value> i(o.begin(), o.begin() + q - 1);
            i.push_back(index(b, l, j));
            Value v = b.create<tensor::ExtractOp>(l, indices, i);
            at.push_back(normalizeIndex(b, l, v, dataShape[batch + j], check));
          }
          at.append(o.begin() + q - 1, o.end());
          b.create<linalg::YieldOp>(
              l, Value(b.create<tensor::ExtractOp>(l, data, at)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// ScatterElements: each output element reduces over the updates along the
/// axis (the other dims line up), keeping the ones whose index hits it.
struct ScatterElementsLowering : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto idxShape = tensorType(op.getIndices()).getShape();
    int64_t rank = type.getRank(), axis = op.getAxis();
    int64_t n = type.getDimSize(axis);
    StringRef reduction = op.getReduction();
    Value indices = op.getIndices(), updates = op.getUpdates();
    IndexCheck check = indexCheckOf(op);
    if (tensorType(indices).getNumElements() == 0) {
      rewriter.replaceOp(op, op.getData());
      return success();
    }
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.push_back(IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type},
        ValueRange{loopShape(rewriter, loc, idxShape[axis])},
        ValueRange{op.getData()},
        ArrayRef<AffineMap>{
            AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
            AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                .getMajorSubMap(rank)},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> d = loopIndices(b, l, rank + 1);
          // Update position: the output's index in every dim but the axis.
          SmallVector<Value> u(d.begin(), d.begin() + rank);
          u[axis] = d[rank];
          Value valid;
          for (int64_t i = 0; i < rank; ++i) {
            if (i == axis || idxShape[i] == type.getDimSize(i))
              continue;
            Value ok = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                               d[i], index(b, l, idxShape[i]));
            valid =
                valid ? b.create<arith::AndIOp>(l, valid, ok).getResult() : ok;
            u[i] =
                b.create<arith::MinSIOp>(l, d[i], index(b, l, idxShape[i] - 1));
          }
          Value target = normalizeIndex(
              b, l, b.create<tensor::ExtractOp>(l, indices, u), n, check);
          Value hit = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                              target, d[axis]);
          if (valid)
            hit = b.create<arith::AndIOp>(l, hit, valid);
          Value upd = b.create<tensor::ExtractOp>(l, updates, u);
          Value acc = a.back();
          b.create<linalg::YieldOp>(
              l, Value(b.create<arith::SelectOp>(
                     l, hit, scatterCombine(b, l, reduction, acc, upd), acc)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// ScatterND: each output element reduces over the index tuples, keeping
/// the updates whose tuple addresses it.
struct ScatterNDLowering : OpRewritePattern<ScatterNDOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterNDOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    auto idxShape = tensorType(op.getIndices()).getShape();
    int64_t rank = type.getRank(), q = idxShape.size(), k = idxShape.back();
    StringRef reduction = op.getReduction();
    Value indices = op.getIndices(), updates = op.getUpdates();
    IndexCheck check = indexCheckOf(op);
    ArrayRef<int64_t> tuples = idxShape.drop_back();
    if (tensorType(indices).getNumElements() == 0) {
      rewriter.replaceOp(op, op.getData());
      return success();
    }
    int64_t numDims = rank + q - 1;
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.append(q - 1, IteratorType::reduction);
    SmallVector<AffineExpr> tupleExprs;
    for (int64_t i = 0; i < q - 1; ++i)
      tupleExprs.push_back(getAffineDimExpr(rank + i, ctx));
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    if (q > 1) {
      ins.push_back(loopShape(rewriter, loc, tuples));
      maps.push_back(AffineMap::get(numDims, 0, tupleExprs, ctx));
    }
    maps.push_back(
        AffineMap::getMultiDimIdentityMap(numDims, ctx).getMajorSubMap(rank));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ins, ValueRange{op.getData()}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> d = loopIndices(b, l, numDims);
          SmallVector<Value> t(d.begin() + rank, d.end());
          Value hit;
          for (int64_t j = 0; j < k; ++j) {
            SmallVector<Value> at(t);
            at.push_back(index(b, l, j));
            Value target = normalizeIndex(
                b, l, b.create<tensor::ExtractOp>(l, indices, at),
                type.getDimSize(j), check);
            Value eq = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                               target, d[j]);
            hit = hit ? b.create<arith::AndIOp>(l, hit, eq).getResult() : eq;
          }
          SmallVector<Value> u(t);
          u.append(d.begin() + k, d.begin() + rank);
          Value upd = b.create<tensor::ExtractOp>(l, updates, u);
          Value acc = a.back();
          Value r = scatterCombine(b, l, reduction, acc, upd);
          if (hit)
            r = b.create<arith::SelectOp>(l, hit, r, acc);
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct OneHotLowering : OpRewritePattern<OneHotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OneHotOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    int64_t depth = op.getDepth();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        idxExprs.push_back(getAffineDimExpr(i, ctx));
    Value values = op.getValues();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                  type.getElementType());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{op.getIndices()}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(rank, 0, idxExprs, ctx),
                            AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<IteratorType>(rank, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = b.create<arith::IndexCastOp>(l, b.getIndexType(), a[0]);
          Value neg = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i,
                                              index(b, l, 0));
          i = b.create<arith::SelectOp>(
              l, neg, b.create<arith::AddIOp>(l, i, index(b, l, depth)), i);
          Value hit =
              b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i,
                                      b.create<linalg::IndexOp>(l, axis));
          Value off = b.create<tensor::ExtractOp>(l, values, index(b, l, 0));
          Value on = b.create<tensor::ExtractOp>(l, values, index(b, l, 1));
          b.create<linalg::YieldOp>(
              l, Value(b.create<arith::SelectOp>(l, hit, on, off)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Einsum: output letters are the parallel loops, the others reductions;
/// every operand is a pure indexing map.
struct EinsumLowering : OpRewritePattern<EinsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EinsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    SmallVector<ArrayRef<int64_t>> shapes;
    for (Value v : op.getInputs())
      shapes.push_back(tensorType(v).getShape());
    FailureOr<EinsumEquation> eq =
        parseEinsumEquation(op.getEquation(), shapes, [](const Twine &) {});
    if (failed(eq))
      return rewriter.notifyMatchFailure(op, "invalid equation");
    int64_t numLetters = eq->extents.size();
    SmallVector<int64_t> pos(numLetters, -1);
    int64_t next = 0;
    for (int64_t l : eq->output)
      pos[l] = next++;
    for (int64_t l = 0; l < numLetters; ++l)
      if (pos[l] < 0)
        pos[l] = next++;
    SmallVector<AffineMap> maps;
    for (auto [dims, shape] : llvm::zip(eq->inputs, shapes)) {
      SmallVector<AffineExpr> exprs;
      for (auto [l, size] : llvm::zip(dims, shape))
        exprs.push_back(size == 1 && eq->extents[l] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(pos[l], ctx));
      maps.push_back(AffineMap::get(numLetters, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t l : eq->output)
      outExprs.push_back(getAffineDimExpr(pos[l], ctx));
    maps.push_back(AffineMap::get(numLetters, 0, outExprs, ctx));
    SmallVector<IteratorType> iters(eq->output.size(), IteratorType::parallel);
    iters.append(numLetters - eq->output.size(), IteratorType::reduction);
    Value init =
        filled(rewriter, loc, type,
               scalarConstant(rewriter, loc, type.getElementType(), 0));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, op.getInputs(), ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value p = a[0];
          for (Value v : a.drop_front().drop_back())
            p = mul(b, l, p, v);
          b.create<linalg::YieldOp>(l, add(b, l, a.back(), p));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// TopK in two generics: the rank of every element along the axis (how
/// many elements beat it; ties go to the lower index), then each output
/// position j picks the element of rank j.
struct TopKLowering : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = op.getInput();
    auto inType = tensorType(input);
    Type elt = inType.getElementType();
    Type i64 = rewriter.getI64Type();
    int64_t rank = inType.getRank(), axis = op.getAxis();
    bool largest = op.getLargest();
    SmallVector<AffineExpr> other, same;
    for (int64_t i = 0; i < rank; ++i) {
      same.push_back(getAffineDimExpr(i, ctx));
      other.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    }
    AffineMap sameMap = AffineMap::get(rank + 1, 0, same, ctx);
    AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
    SmallVector<IteratorType> iters(rank, IteratorType::parallel);
    iters.push_back(IteratorType::reduction);
    auto rankType = inType.clone(i64);
    Value zero64 = scalarConstant(rewriter, loc, i64, 0);
    Value ranks =
        rewriter
            .create<linalg::GenericOp>(
                loc, TypeRange{rankType}, ValueRange{input, input},
                ValueRange{filled(rewriter, loc, rankType, zero64)},
                ArrayRef<AffineMap>{sameMap, otherMap, sameMap}, iters,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value x = a[0], y = a[1];
                  Value i = b.create<linalg::IndexOp>(l, axis);
                  Value r = b.create<linalg::IndexOp>(l, rank);
                  Value strict, equal;
                  if (isa<FloatType>(elt)) {
                    strict = b.create<arith::CmpFOp>(
                        l,
                        largest ? arith::CmpFPredicate::OGT
                                : arith::CmpFPredicate::OLT,
                        y, x);
                    equal = b.create<arith::CmpFOp>(
                        l, arith::CmpFPredicate::OEQ, y, x);
                  } else {
                    strict = cmpi(b, l,
                                  largest ? arith::CmpIPredicate::sgt
                                          : arith::CmpIPredicate::slt,
                                  y, x);
                    equal = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                                    y, x);
                  }
                  Value earlier = b.create<arith::CmpIOp>(
                      l, arith::CmpIPredicate::slt, r, i);
                  Value beats = b.create<arith::OrIOp>(
                      l, strict, b.create<arith::AndIOp>(l, equal, earlier));
                  Value inc = b.create<arith::ExtUIOp>(l, i64, beats);
                  b.create<linalg::YieldOp>(
                      l, Value(b.create<arith::AddIOp>(l, a[2], inc)));
                })
            .getResult(0);
    auto valuesType = op.getValues().getType();
    auto indicesType = op.getIndices().getType();
    auto pick = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{valuesType, indicesType}, ValueRange{input, ranks},
        ValueRange{filled(rewriter, loc, valuesType,
                          scalarConstant(rewriter, loc, elt, 0)),
                   filled(rewriter, loc, indicesType, zero64)},
        ArrayRef<AffineMap>{otherMap, otherMap, sameMap, sameMap}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value j = b.create<arith::IndexCastOp>(
              l, i64, b.create<linalg::IndexOp>(l, axis));
          Value r = b.create<arith::IndexCastOp>(
              l, i64, b.create<linalg::IndexOp>(l, rank));
          Value hit =
              b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, a[1], j);
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, hit, a[0], a[2]),
                            b.create<arith::SelectOp>(l, hit, r, a[3])});
        });
    rewriter.replaceOp(op, pick.getResults());
    return success();
  }
};

/// Keys' cubic kernel with coefficient `a` at distance |d| <= 1
/// (`keysNear`) and 1 < |d| < 2 (`keysFar`), in Horner form.
Value keysNear(OpBuilder &b, Location l, Value d, double a) {
  auto c = [&](double v) { return scalarConstant(b, l, d.getType(), v); };
  Value v = b.create<arith::AddFOp>(l, b.create<arith::MulFOp>(l, c(a + 2), d),
                                    c(-(a + 3)));
  v = b.create<arith::MulFOp>(l, b.create<arith::MulFOp>(l, v, d), d);
  return b.create<arith::AddFOp>(l, v, c(1));
}
Value keysFar(OpBuilder &b, Location l, Value d, double a) {
  auto c = [&](double v) { return scalarConstant(b, l, d.getType(), v); };
  Value v = b.create<arith::AddFOp>(l, b.create<arith::MulFOp>(l, c(a), d),
                                    c(-5 * a));
  v = b.create<arith::AddFOp>(l, b.create<arith::MulFOp>(l, v, d), c(8 * a));
  return b.create<arith::AddFOp>(l, b.create<arith::MulFOp>(l, v, d),
                                 c(-4 * a));
}

/// Keys' cubic convolution weights (coefficient `a`) of the 4 taps at
/// floor(x) - 1 .. floor(x) + 2 for t = x - floor(x) in [0, 1): distances
/// t + 1, t, 1 - t, 2 - t; ((a + 2)d - (a + 3))d^2 + 1 within 1, ((ad - 5a)d
/// + 8a)d - 4a beyond (ONNX Runtime's and onnx's reference's form).
SmallVector<Value, 4> cubicWeights(OpBuilder &b, Location l, Value t,
                                   double a) {
  Type f32 = t.getType();
  auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
  auto add = [&](Value p, Value q) -> Value {
    return b.create<arith::AddFOp>(l, p, q);
  };
  auto near = [&](Value d) { return keysNear(b, l, d, a); };
  auto far = [&](Value d) { return keysFar(b, l, d, a); };
  Value oneMinus = b.create<arith::SubFOp>(l, c(1), t);
  return {far(add(t, c(1))), near(t), near(oneMinus),
          far(b.create<arith::SubFOp>(l, c(2), t))};
}

/// One tap of an interpolation along a dim: the index it reads, its
/// weight, and whether it lies inside the input (null: always; outside it
/// reads 0).
struct Tap {
  Value index;
  Value weight;
  Value inside = {};
};

/// The sum, over every choice of one tap in each of `dims`, of the taps'
/// weights' product times `input` (as f32) read at `at` with those dims at
/// the taps' indices; the first dim's taps vary fastest.
Value blendTaps(OpBuilder &b, Location l, Value input, ArrayRef<Value> at,
                ArrayRef<int64_t> dims, ArrayRef<SmallVector<Tap, 4>> taps) {
  Type f32 = b.getF32Type();
  int64_t count = 1;
  for (const SmallVector<Tap, 4> &t : taps)
    count *= t.size();
  Value acc = scalarConstant(b, l, f32, 0);
  for (int64_t corner = 0; corner < count; ++corner) {
    SmallVector<Value> read(at);
    Value weight = scalarConstant(b, l, f32, 1);
    Value inside;
    int64_t rest = corner;
    for (auto [k, dim] : llvm::enumerate(dims)) {
      const Tap &tap = taps[k][rest % taps[k].size()];
      rest /= taps[k].size();
      read[dim] = tap.index;
      weight = b.create<arith::MulFOp>(l, weight, tap.weight);
      if (tap.inside)
        inside = inside ? b.create<arith::AndIOp>(l, inside, tap.inside)
                        : tap.inside;
    }
    Value v =
        castScalar(b, l, b.create<tensor::ExtractOp>(l, input, read), f32);
    if (inside)
      v = b.create<arith::SelectOp>(l, inside, v, scalarConstant(b, l, f32, 0));
    acc =
        b.create<arith::AddFOp>(l, acc, b.create<arith::MulFOp>(l, v, weight));
  }
  return acc;
}

/// GridSample, as onnx's reference: each output element reads its grid
/// coordinates (the last grid dim in reverse dim order), denormalizes them,
/// rounds them half to even (nearest), moves those outside the border in
/// (border: clamped, but not for cubic, as PyTorch and ONNX Runtime;
/// reflection: reflected), then blends its 1, 2 or 4 taps a dim, each tap's
/// index padded (zeros: 0 outside, border: clamped, reflection: reflected).
struct GridSampleLowering : OpRewritePattern<GridSampleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GridSampleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value input = op.getInput(), grid = op.getGrid();
    ArrayRef<int64_t> inShape = tensorType(input).getShape();
    int64_t rank = type.getRank(), spatial = rank - 2;
    StringRef mode = op.getMode(), padding = op.getPaddingMode();
    bool alignCorners = op.getAlignCorners();
    Type f32 = rewriter.getF32Type();
    Value result = elementwise(
        rewriter, loc, type, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
          auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
            return b.create<arith::CmpFOp>(l, p, x, y);
          };
          auto sel = [&](Value cond, Value x, Value y) -> Value {
            return b.create<arith::SelectOp>(l, cond, x, y);
          };
          auto sub = [&](Value x, Value y) -> Value {
            return b.create<arith::SubFOp>(l, x, y);
          };
          using P = arith::CmpFPredicate;
          SmallVector<Value> o = loopIndices(b, l, rank);
          // Reflects `x` by the near border until it is in [lo, hi].
          auto reflect = [&](Value x, double lo, double hi) -> Value {
            double range = hi - lo;
            if (range <= 0)
              return c(lo);
            Value below = cmp(P::OLT, x, c(lo)), above = cmp(P::OGT, x, c(hi));
            Value dx = sel(below, sub(c(lo), x), sub(x, c(hi)));
            Value turns = b.create<math::FloorOp>(
                l, b.create<arith::DivFOp>(l, dx, c(range)));
            Value r = sub(dx, b.create<arith::MulFOp>(l, turns, c(range)));
            Value half = b.create<math::FloorOp>(
                l, b.create<arith::MulFOp>(l, turns, c(0.5)));
            Value even =
                cmp(P::OEQ, b.create<arith::MulFOp>(l, half, c(2)), turns);
            Value fromLo = b.create<arith::AddFOp>(l, c(lo), r);
            Value fromHi = sub(c(hi), r);
            // Below: even turns end at lo + r; above: at hi - r.
            Value reflectedBelow = sel(even, fromLo, fromHi);
            Value reflectedAbove = sel(even, fromHi, fromLo);
            return sel(below, reflectedBelow, sel(above, reflectedAbove, x));
          };
          auto clampF = [&](Value x, double lo, double hi) -> Value {
            return b.create<arith::MinimumFOp>(
                l, b.create<arith::MaximumFOp>(l, x, c(lo)), c(hi));
          };
          // Per spatial dim: its taps.
          SmallVector<SmallVector<Tap, 4>> taps;
          SmallVector<int64_t> dims;
          for (int64_t k = 0; k < spatial; ++k) {
            int64_t size = inShape[2 + k];
            SmallVector<Value> at{o[0]};
            for (int64_t j = 0; j < spatial; ++j)
              at.push_back(o[2 + j]);
            at.push_back(index(b, l, spatial - 1 - k));
            Value g =
                castScalar(b, l, b.create<tensor::ExtractOp>(l, grid, at), f32);
            Value x =
                alignCorners
                    ? b.create<arith::MulFOp>(
                          l,
                          b.create<arith::MulFOp>(
                              l, b.create<arith::AddFOp>(l, g, c(1)), c(0.5)),
                          c(size - 1))
                    : b.create<arith::MulFOp>(
                          l,
                          sub(b.create<arith::MulFOp>(
                                  l, b.create<arith::AddFOp>(l, g, c(1)),
                                  c(size)),
                              c(1)),
                          c(0.5));
            if (mode == "nearest")
              x = roundHalfEven(b, l, x);
            double lo = alignCorners ? 0 : -0.5;
            double hi = alignCorners ? size - 1 : size - 0.5;
            Value outside = b.create<arith::OrIOp>(l, cmp(P::OLT, x, c(lo)),
                                                   cmp(P::OGT, x, c(hi)));
            // (Cubic taps at a border coordinate clamp only the taps, as
            // PyTorch and ONNX Runtime do; onnx's reference clamps the
            // coordinate first.)
            if (padding == "border" && mode != "cubic")
              x = sel(outside, clampF(x, 0, size - 1), x);
            else if (padding == "reflection")
              x = reflect(x, lo, hi);
            SmallVector<Value, 4> at4, w4;
            if (mode == "nearest") {
              // Truncated toward zero, as the reference's int cast.
              at4.push_back(b.create<math::TruncOp>(l, x));
              w4.push_back(c(1));
            } else {
              Value f = b.create<math::FloorOp>(l, x);
              Value t = sub(x, f);
              if (mode == "linear") {
                at4 = {f, b.create<arith::AddFOp>(l, f, c(1))};
                w4 = {sub(c(1), t), t};
              } else {
                for (int64_t j = 0; j < 4; ++j)
                  at4.push_back(b.create<arith::AddFOp>(l, f, c(j - 1)));
                w4 = cubicWeights(b, l, t, -0.75);
              }
            }
            // Each tap's index padded: reflected or clamped into range;
            // zeros keep it and the tap reads 0 outside.
            SmallVector<Tap, 4> dimTaps;
            for (auto [i, w] : llvm::zip_equal(at4, w4)) {
              Tap tap{{}, w};
              if (padding == "reflection")
                i = b.create<math::TruncOp>(l, reflect(i, lo, hi));
              else if (padding == "border")
                i = clampF(i, 0, size - 1);
              else
                tap.inside = b.create<arith::AndIOp>(
                    l, cmp(P::OGE, i, c(0)), cmp(P::OLE, i, c(size - 1)));
              tap.index = b.create<arith::IndexCastOp>(
                  l, b.getIndexType(),
                  b.create<arith::FPToSIOp>(l, b.getI64Type(),
                                            clampF(i, 0, size - 1)));
              dimTaps.push_back(tap);
            }
            taps.push_back(dimTaps);
            dims.push_back(2 + k);
          }
          return castScalar(b, l, blendTaps(b, l, input, o, dims, taps),
                            type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Resize: each output element maps its index to a source coordinate
/// (in f32, as ONNX Runtime computes it) per resized dim, then reads the
/// nearest element or blends the 2^d neighbours (linear) or 4^d taps
/// (cubic) of the resized dims.
/// Resize's antialiased taps along one dim at source coordinate `x`, as
/// onnx's reference: a downsampling `scale` stretches the triangle (linear)
/// or Keys (cubic, `a`) filter by 1 / scale; the taps are the neighbours
/// from ceil(x) - 1 on (edge-clamped), their weights normalized (those
/// outside the input zeroed first with `excludeOutside`).
SmallVector<Tap, 4> antialiasTaps(OpBuilder &b, Location l, Value x,
                                  int64_t inLen, double scale, bool cubic,
                                  double a, bool excludeOutside) {
  Type f32 = b.getF32Type();
  auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
  scale = std::min(scale, 1.0);
  int64_t start = (int64_t)std::floor((cubic ? -2.0 : -1.0) / scale) + 1;
  int64_t count = 2 - 2 * start;
  Value base = b.create<arith::SubFOp>(l, b.create<math::CeilOp>(l, x), c(1));
  Value ratio = b.create<arith::SubFOp>(l, x, base);
  Value baseIndex = b.create<arith::IndexCastOp>(
      l, b.getIndexType(), b.create<arith::FPToSIOp>(l, b.getI64Type(), base));
  SmallVector<Tap, 4> taps;
  Value total = c(0);
  for (int64_t j = 0; j < count; ++j) {
    Value d = b.create<math::AbsFOp>(
        l, b.create<arith::MulFOp>(
               l, b.create<arith::SubFOp>(l, c(double(start + j)), ratio),
               c(scale)));
    Value w;
    if (!cubic) {
      w = b.create<arith::MaximumFOp>(l, b.create<arith::SubFOp>(l, c(1), d),
                                      c(0));
    } else {
      // Keys: |d| <= 1, 1 < |d| < 2, else 0.
      Value nearW = keysNear(b, l, d, a);
      Value farW = keysFar(b, l, d, a);
      Value isNear =
          b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLE, d, c(1));
      Value isFar =
          b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, d, c(2));
      w = b.create<arith::SelectOp>(
          l, isNear, nearW, b.create<arith::SelectOp>(l, isFar, farW, c(0)));
    }
    Value raw = b.create<arith::AddIOp>(l, baseIndex, index(b, l, start + j));
    if (excludeOutside) {
      Value inside = b.create<arith::AndIOp>(
          l,
          b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, raw,
                                  index(b, l, 0)),
          b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, raw,
                                  index(b, l, inLen)));
      w = b.create<arith::SelectOp>(l, inside, w, c(0));
    }
    total = b.create<arith::AddFOp>(l, total, w);
    Value clamped = b.create<arith::MinSIOp>(
        l, b.create<arith::MaxSIOp>(l, raw, index(b, l, 0)),
        index(b, l, inLen - 1));
    taps.push_back({clamped, w});
  }
  for (Tap &tap : taps)
    tap.weight = b.create<arith::DivFOp>(l, tap.weight, total);
  return taps;
}

struct ResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value input = op.getInput();
    auto inShape = tensorType(input).getShape();
    int64_t rank = type.getRank();
    bool nearest = op.getMode() == "nearest";
    StringRef ct = op.getCoordinateTransformationMode();
    StringRef nm = op.getNearestMode();
    ArrayRef<double> scales = op.getScales();
    Type f32 = rewriter.getF32Type();
    std::optional<ArrayRef<double>> roi = op.getRoi();
    auto cropped = [&](int64_t i) {
      return roi && ((*roi)[i] != 0.0 || (*roi)[rank + i] != 1.0);
    };
    SmallVector<int64_t> resized;
    for (int64_t i = 0; i < rank; ++i)
      if (inShape[i] != type.getDimSize(i) || scales[i] != 1.0 || cropped(i))
        resized.push_back(i);
    Value out = elementwise(
        rewriter, loc, type, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
          SmallVector<Value> o = loopIndices(b, l, rank);
          // tf_crop_and_resize: whether some source coordinate fell outside
          // the input (the result is then extrapolation_value).
          Value outside;
          // Source coordinate of output index x along dim i.
          auto source = [&](int64_t i) -> Value {
            int64_t inLen = inShape[i], outLen = type.getDimSize(i);
            double s = scales[i];
            Value x = b.create<arith::SIToFPOp>(
                l, f32, b.create<arith::IndexCastOp>(l, b.getI64Type(), o[i]));
            if (roi) {
              double start = (*roi)[i], end = (*roi)[rank + i];
              Value v =
                  outLen > 1
                      ? b.create<arith::AddFOp>(
                            l, c(start * (inLen - 1)),
                            b.create<arith::MulFOp>(
                                l, x,
                                c((end - start) * (inLen - 1) / (outLen - 1))))
                      : c(0.5 * (start + end) * (inLen - 1));
              Value out = b.create<arith::OrIOp>(
                  l,
                  b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, v,
                                          c(0)),
                  b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, v,
                                          c(inLen - 1)));
              outside = outside ? b.create<arith::OrIOp>(l, outside, out) : out;
              return v;
            }
            auto halfPixel = [&](double offset) -> Value {
              Value v = b.create<arith::DivFOp>(
                  l, b.create<arith::AddFOp>(l, x, c(0.5)), c(s));
              return b.create<arith::SubFOp>(l, v, c(0.5 - offset));
            };
            if (ct == "asymmetric")
              return b.create<arith::DivFOp>(l, x, c(s));
            if (ct == "align_corners") {
              // ONNX's length_resized is input * scale before rounding.
              double resized = s * inLen;
              return outLen == 1 || resized == 1
                         ? c(0)
                         : b.create<arith::MulFOp>(
                               l, x, c((inLen - 1) / (resized - 1)));
            }
            if (ct == "pytorch_half_pixel")
              return outLen > 1 ? halfPixel(0) : c(0);
            if (ct == "half_pixel_symmetric") {
              double adjustment = outLen / (s * inLen);
              double center = inLen / 2.0;
              return halfPixel(center * (1 - adjustment));
            }
            return halfPixel(0);
          };
          auto clampIndex = [&](Value v, int64_t n) -> Value {
            v = b.create<arith::MaxSIOp>(l, v, index(b, l, 0));
            return b.create<arith::MinSIOp>(l, v, index(b, l, n - 1));
          };
          auto toIndex = [&](Value f) -> Value {
            return b.create<arith::IndexCastOp>(
                l, b.getIndexType(),
                b.create<arith::FPToSIOp>(l, b.getI64Type(), f));
          };
          Value result;
          if (op.getAntialias()) {
            bool cubic = op.getMode() == "cubic";
            double a = op.getCubicCoeffA().convertToDouble();
            SmallVector<SmallVector<Tap, 4>> taps;
            for (int64_t i : resized)
              taps.push_back(antialiasTaps(b, l, source(i), inShape[i],
                                           scales[i], cubic, a,
                                           op.getExcludeOutside()));
            result = castScalar(b, l, blendTaps(b, l, input, o, resized, taps),
                                type.getElementType());
          } else if (nearest) {
            SmallVector<Value> at(o);
            for (int64_t i : resized) {
              Value x = source(i);
              Value r;
              if (nm == "floor")
                r = b.create<math::FloorOp>(l, x);
              else if (nm == "ceil")
                r = b.create<math::CeilOp>(l, x);
              else if (nm == "round_prefer_ceil")
                r = b.create<math::FloorOp>(
                    l, b.create<arith::AddFOp>(l, x, c(0.5)));
              else
                r = b.create<math::CeilOp>(
                    l, b.create<arith::SubFOp>(l, x, c(0.5)));
              at[i] = clampIndex(toIndex(r), inShape[i]);
            }
            result = b.create<tensor::ExtractOp>(l, input, at);
          } else if (op.getMode() == "cubic") {
            // Per resized dim: 4 taps around floor(x) at clamped indices,
            // Keys' weights for t = x - floor(x) (ONNX Runtime's).
            double a = op.getCubicCoeffA().convertToDouble();
            SmallVector<SmallVector<Tap, 4>> taps;
            for (int64_t i : resized) {
              Value x = source(i);
              Value f = b.create<math::FloorOp>(l, x);
              Value t = b.create<arith::SubFOp>(l, x, f);
              Value base = toIndex(f);
              SmallVector<Value, 4> keys = cubicWeights(b, l, t, a);
              SmallVector<Tap, 4> dimTaps;
              Value total = c(0);
              for (int64_t k = 0; k < 4; ++k) {
                Value raw =
                    b.create<arith::AddIOp>(l, base, index(b, l, k - 1));
                Value weight = keys[k];
                if (op.getExcludeOutside()) {
                  Value inside = b.create<arith::AndIOp>(
                      l,
                      b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, raw,
                                              index(b, l, 0)),
                      b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, raw,
                                              index(b, l, inShape[i])));
                  weight = b.create<arith::SelectOp>(l, inside, weight, c(0));
                  total = b.create<arith::AddFOp>(l, total, weight);
                }
                dimTaps.push_back({clampIndex(raw, inShape[i]), weight});
              }
              if (op.getExcludeOutside())
                for (Tap &tap : dimTaps)
                  tap.weight = b.create<arith::DivFOp>(l, tap.weight, total);
              taps.push_back(dimTaps);
            }
            result = castScalar(b, l, blendTaps(b, l, input, o, resized, taps),
                                type.getElementType());
          } else {
            // Per resized dim: the low and high neighbours, weighted 1 - w
            // and w.
            SmallVector<SmallVector<Tap, 4>> taps;
            for (int64_t i : resized) {
              Value x = source(i);
              x = b.create<arith::MaximumFOp>(l, x, c(0));
              x = b.create<arith::MinimumFOp>(l, x, c(inShape[i] - 1));
              Value f = b.create<math::FloorOp>(l, x);
              Value i0 = clampIndex(toIndex(f), inShape[i]);
              Value w = b.create<arith::SubFOp>(l, x, f);
              Value i1 = clampIndex(
                  b.create<arith::AddIOp>(l, i0, index(b, l, 1)), inShape[i]);
              taps.push_back(
                  {{i0, b.create<arith::SubFOp>(l, c(1), w)}, {i1, w}});
            }
            result = castScalar(b, l, blendTaps(b, l, input, o, resized, taps),
                                type.getElementType());
          }
          if (outside)
            result = b.create<arith::SelectOp>(
                l, outside,
                scalarConstant(b, l, type.getElementType(),
                               op.getExtrapolationValue().convertToDouble()),
                result);
          return result;
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// ConvTranspose: output position o gathers input i with
/// o = i * stride - pad + k * dilation, i.e. i = (o + pad - k * d) / s
/// when that divides exactly and lands inside the input.
struct ConvTransposeLowering : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = op.getType();
    auto outType = accumulatorType(resultType);
    auto inType = tensorType(op.getInput());
    auto wType = tensorType(op.getWeight());
    Type elt = outType.getElementType();
    Type inElt = resultType.getElementType();
    int64_t rank = outType.getRank(), k = rank - 2;
    int64_t groups = op.getGroup();
    int64_t inPerGroup = inType.getDimSize(1) / groups;
    int64_t outPerGroup = wType.getDimSize(1);
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    Value init = convAccumulatorInit(rewriter, loc, op.getBias(), outType);
    // Iteration space: n, m, o_1..o_k (parallel), c, r_1..r_k (reduction).
    int64_t numDims = 2 + k + 1 + k;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    // Weight [C, M/group, k...]: channel = group * C/group + c.
    SmallVector<AffineExpr> wExprs{
        d(1).floorDiv(outPerGroup) * inPerGroup + d(2 + k), d(1) % outPerGroup};
    for (int64_t i = 0; i < k; ++i)
      wExprs.push_back(d(3 + k + i));
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < 2 + k; ++i)
      outExprs.push_back(d(i));
    SmallVector<IteratorType> iters(2 + k, IteratorType::parallel);
    iters.append(1 + k, IteratorType::reduction);
    Value input = op.getInput();
    // The input channel within the group only appears inside the weight's
    // compound channel expression: a [C/group] operand sizes its loop.
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{outType},
        ValueRange{op.getWeight(), loopShape(rewriter, loc, inPerGroup)},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(numDims, 0, wExprs, ctx),
                            AffineMap::get(numDims, 0, d(2 + k)),
                            AffineMap::get(numDims, 0, outExprs, ctx)},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> dims = loopIndices(b, l, numDims);
          Value g =
              b.create<arith::DivUIOp>(l, dims[1], index(b, l, outPerGroup));
          Value ch = b.create<arith::AddIOp>(
              l, b.create<arith::MulIOp>(l, g, index(b, l, inPerGroup)),
              dims[2 + k]);
          SmallVector<Value> idx{dims[0], ch};
          Value valid;
          for (int64_t i = 0; i < k; ++i) {
            // t = o + pad - r * dilation; i = t / s when s divides t.
            Value t = b.create<arith::SubIOp>(
                l,
                b.create<arith::AddIOp>(l, dims[2 + i], index(b, l, pads[i])),
                b.create<arith::MulIOp>(l, dims[3 + k + i],
                                        index(b, l, dilations[i])));
            Value q =
                b.create<arith::FloorDivSIOp>(l, t, index(b, l, strides[i]));
            Value exact = b.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::eq,
                b.create<arith::MulIOp>(l, q, index(b, l, strides[i])), t);
            valid = valid ? b.create<arith::AndIOp>(l, valid, exact).getResult()
                          : exact;
            idx.push_back(q);
          }
          SmallVector<bool> check(2, false);
          check.append(k, true);
          Value x = readWithPadding(b, l, input, idx, check,
                                    scalarConstant(b, l, inElt, 0));
          x = castScalar(b, l, x, elt);
          x = b.create<arith::SelectOp>(l, valid, x,
                                        scalarConstant(b, l, elt, 0));
          Value r = b.create<arith::AddFOp>(
              l, a.back(),
              b.create<arith::MulFOp>(l, x, castScalar(b, l, a[0], elt)));
          b.create<linalg::YieldOp>(l, r);
        });
    rewriter.replaceOp(
        op, roundAccumulator(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};

struct ShapeLowering : OpRewritePattern<ShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto shape = tensorType(op.getInput())
                     .getShape()
                     .slice(op.getStart(), op.getEnd() - op.getStart());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(op.getType(), shape));
    return success();
  }
};

/// The ONNX node name of `loc` (the importer's NameLoc), or "".
StringRef nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (StringRef name = nodeName(l); !name.empty())
        return name;
  return "";
}

/// An op reading indices at run time: its ONNX name, the indices, and the
/// size of the one dim they address (-1: several dims, as in GatherND).
struct IndexedAccess {
  StringRef onnxName;
  Value indices;
  int64_t axis = -1, dimSize = -1;
};

std::optional<IndexedAccess> indexedAccess(Operation *op) {
  auto axisOf = [](Value v, int64_t axis) {
    return cast<RankedTensorType>(v.getType()).getDimSize(axis);
  };
  if (auto g = dyn_cast<GatherOp>(op))
    return IndexedAccess{"Gather", g.getIndices(), int64_t(g.getAxis()),
                         axisOf(g.getData(), g.getAxis())};
  if (auto g = dyn_cast<GatherElementsOp>(op))
    return IndexedAccess{"GatherElements", g.getIndices(), int64_t(g.getAxis()),
                         axisOf(g.getData(), g.getAxis())};
  if (auto s = dyn_cast<ScatterElementsOp>(op))
    return IndexedAccess{"ScatterElements", s.getIndices(),
                         int64_t(s.getAxis()),
                         axisOf(s.getData(), s.getAxis())};
  if (auto g = dyn_cast<GatherNDOp>(op))
    return IndexedAccess{"GatherND", g.getIndices()};
  if (auto s = dyn_cast<ScatterNDOp>(op))
    return IndexedAccess{"ScatterND", s.getIndices()};
  return std::nullopt;
}

/// True if the constant integer tensor `v` holds only indices in [-n, n).
bool constantIndicesInRange(Value v, int64_t n) {
  DenseIntElementsAttr values;
  if (n < 0 || !matchPattern(v, m_Constant(&values)))
    return false;
  return llvm::all_of(values.getValues<APInt>(), [&](const APInt &i) {
    int64_t x = i.getSExtValue();
    return x >= -n && x < n;
  });
}

/// Numbers every op that reads indices at run time (attribute dlc.check,
/// message in the module's dlc.checks table) and gives each function with
/// such ops its status word: a memref.get_global of @__dlc_status at the
/// entry, which the lowering patterns store the check number into.
/// Constant indices known to be in range need no check.
void registerIndexChecks(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Attribute> messages;
  if (auto existing = module->getAttrOfType<ArrayAttr>(attrs::kChecks))
    messages.append(existing.begin(), existing.end());
  auto statusType = MemRefType::get({1}, IntegerType::get(ctx, 32));
  OpBuilder b(ctx);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    Value status;
    func.walk([&](Operation *op) {
      std::optional<IndexedAccess> access = indexedAccess(op);
      if (!access || op->hasAttr(attrs::kCheck) ||
          constantIndicesInRange(access->indices, access->dimSize))
        return;
      if (!status) {
        if (!module.lookupSymbol(attrs::kStatusGlobal)) {
          b.setInsertionPointToStart(module.getBody());
          b.create<memref::GlobalOp>(
              module.getLoc(), attrs::kStatusGlobal, b.getStringAttr("private"),
              statusType, b.getUnitAttr(), /*constant=*/false, IntegerAttr());
        }
        b.setInsertionPointToStart(&func.getBody().front());
        status = b.create<memref::GetGlobalOp>(func.getLoc(), statusType,
                                               attrs::kStatusGlobal);
      }
      std::string message;
      llvm::raw_string_ostream os(message);
      os << access->onnxName;
      if (StringRef name = nodeName(op->getLoc()); !name.empty())
        os << " node '" << name << "'";
      os << ": index out of range";
      if (access->dimSize >= 0)
        os << " (axis " << access->axis << " has " << access->dimSize
           << " entries)";
      messages.push_back(b.getStringAttr(message));
      op->setAttr(attrs::kCheck, b.getI64IntegerAttr(messages.size()));
    });
  }
  if (!messages.empty())
    module->setAttr(attrs::kChecks, b.getArrayAttr(messages));
}

/// dlc.attention -> dlc.attention_kernel writing into a tensor.empty: the
/// destination-passing form that bufferizes like a linalg op and that the
/// kernel form lowers to an online-softmax loop nest.
struct AttentionLowering : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value init = rewriter.create<tensor::EmptyOp>(op.getLoc(), type.getShape(),
                                                  type.getElementType());
    rewriter.replaceOpWithNewOp<AttentionKernelOp>(
        op, type, op.getQuery(), op.getKey(), op.getValue(), op.getMask(), init,
        op.getScaleAttr(), op.getKTransposedAttr(), op.getNanToZeroAttr(),
        op.getQueryPermAttr(), op.getKeyPermAttr(), op.getValuePermAttr(),
        op.getResultPermAttr(), op.getQuerySelectAttr(), op.getKeySelectAttr(),
        op.getValueSelectAttr(), op.getResultScaleAttr(),
        op.getResultZeroPointAttr());
    return success();
  }
};

struct ConvertDlcToLinalgPass
    : dlc::impl::ConvertDlcToLinalgPassBase<ConvertDlcToLinalgPass> {
  using ConvertDlcToLinalgPassBase::ConvertDlcToLinalgPassBase;
  void runOnOperation() override {
    registerIndexChecks(getOperation());
    ConversionTarget target(getContext());
    target.addIllegalDialect<DlcDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, memref::MemRefDialect,
                           scf::SCFDialect, tensor::TensorDialect,
                           func::FuncDialect>();
    target.addLegalOp<AttentionKernelOp>();
    RewritePatternSet patterns(&getContext());
    populateDlcToLinalgPatterns(patterns, f32WeightsNK, halfWeightsNK,
                                padConvChannels, padConvInput, convPlaneRows,
                                padGroupedConvInput, twoPassSoftmax);
    populateDlcQuantToLinalgPatterns(
        patterns, int8WeightsNK, padConvChannels, reciprocalQuantize,
        padConvInput, vnniConvs, pairConvWeights, wideConvWeights,
        convPlaneRows, pairMatMulWeights, quadMatMulWeights,
        padConvInput && padGroupedConvInput, padConvInput && quadConvInputs);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    eraseUnsignedIntegerTypes(getOperation());
  }
};
} // namespace

void mlir::dlc::populateDlcToLinalgPatterns(
    RewritePatternSet &patterns, bool f32WeightsNK, bool halfWeightsNK,
    bool padConvChannels, bool padConvInput, int64_t convPlaneRows,
    bool padGroupedConvInput, bool twoPassSoftmax) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<BinaryLowering<AddOp>, BinaryLowering<SubOp>, BinaryLowering<MulOp>,
           BinaryLowering<DivOp>, BinaryLowering<PowOp>, UnaryLowering<ReluOp>,
           UnaryLowering<SigmoidOp>, UnaryLowering<TanhOp>,
           UnaryLowering<ErfOp>, UnaryLowering<SqrtOp>, UnaryLowering<ExpOp>,
           UnaryLowering<ClipOp>, CastLowering, BitcastLowering,
           BatchNormLowering, GemmLowering, ReduceMeanLowering,
           LayerNormLowering, PoolLowering<MaxPoolOp>,
           PoolLowering<AveragePoolOp>, ReshapeLowering, TransposeLowering,
           SliceLowering, ConcatLowering, GatherLowering, ShapeLowering>(ctx);
  patterns.add<CompareLowering<EqualOp>, CompareLowering<LessOp>,
               CompareLowering<LessOrEqualOp>, CompareLowering<GreaterOp>,
               CompareLowering<GreaterOrEqualOp>, LogicalLowering<AndOp>,
               LogicalLowering<OrOp>, LogicalLowering<XorOp>,
               LogicalLowering<NotOp>, WhereLowering, IsNaNLowering,
               IsInfLowering, ExpandLowering, GatherElementsLowering>(ctx);
  patterns.add<
      UnaryLowering<LogOp>, UnaryLowering<SinOp>, UnaryLowering<CosOp>,
      UnaryLowering<TanOp>, UnaryLowering<AsinOp>, UnaryLowering<AcosOp>,
      UnaryLowering<AtanOp>, UnaryLowering<SinhOp>, UnaryLowering<CoshOp>,
      UnaryLowering<AsinhOp>, UnaryLowering<AcoshOp>, UnaryLowering<AtanhOp>,
      UnaryLowering<FloorOp>, UnaryLowering<CeilOp>, UnaryLowering<RoundOp>,
      UnaryLowering<ReciprocalOp>, UnaryLowering<SoftplusOp>,
      UnaryLowering<SoftsignOp>, UnaryLowering<MishOp>,
      UnaryLowering<HardSwishOp>, UnaryLowering<AbsOp>, UnaryLowering<NegOp>,
      UnaryLowering<SignOp>, BinaryLowering<MaxOp>, BinaryLowering<MinOp>,
      BinaryLowering<PReluOp>, ModLowering>(ctx);
  patterns
      .add<ActivationLowering<LeakyReluOp>, ActivationLowering<EluOp>,
           ActivationLowering<SeluOp>, ActivationLowering<CeluOp>,
           ActivationLowering<HardSigmoidOp>,
           ActivationLowering<ThresholdedReluOp>, ActivationLowering<GeluOp>>(
          ctx);
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceProdOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               ReduceLowering<ReduceL1Op>, ReduceLowering<ReduceSumSquareOp>,
               ReduceLowering<ReduceL2Op>, ReduceLowering<ReduceLogSumOp>,
               ReduceLowering<ReduceLogSumExpOp>, ArgReduceLowering<ArgMaxOp>,
               ArgReduceLowering<ArgMinOp>, LogSoftmaxLowering>(ctx);
  patterns.add<TileLowering, PadLowering, TriluLowering,
               CumulativeLowering<CumSumOp>, CumulativeLowering<CumProdOp>,
               BitShiftLowering, GatherNDLowering, ScatterElementsLowering,
               ScatterNDLowering, OneHotLowering, EinsumLowering, TopKLowering,
               ResizeLowering, GridSampleLowering, ConvTransposeLowering,
               AttentionLowering>(ctx);
  patterns.add<MatMulLowering>(ctx, f32WeightsNK, halfWeightsNK);
  patterns.add<SoftmaxLowering>(ctx, twoPassSoftmax);
  patterns.add<ConvLowering>(ctx, padConvChannels, padConvInput, convPlaneRows,
                             padConvInput && padGroupedConvInput);
}
