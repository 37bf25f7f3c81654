//===- DlcQuantOps.cpp - dlc quantization op shape inference ----*- C++ -*-===//
//
// Type inference for the quantization ops of DlcOps.td (QuantizeLinear,
// DequantizeLinear, the integer Conv/MatMul and the requantize epilogue).
// The checks here are the verifier: InferTypeOpAdaptor compares every
// declared type with the inferred one.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::dlc;

namespace {
LogicalResult fail(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}

RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Checks that `param` (a scale, zero point or bias named `what`) is rank 0
/// (when `allowScalar`) or 1-D with `extent` elements.
LogicalResult checkPerAxis(std::optional<Location> loc, Value param,
                           StringRef what, int64_t extent, bool allowScalar) {
  auto t = rankedType(param);
  if (t.getRank() == 0 && allowScalar)
    return success();
  if (t.getRank() == 1 && t.getDimSize(0) == extent)
    return success();
  std::string got;
  llvm::raw_string_ostream os(got);
  if (t.getRank() == 1)
    os << "1-D with " << t.getDimSize(0) << " elements";
  else
    os << t.getRank() << "-D";
  return fail(loc, Twine(what) + " must be " +
                       (allowScalar ? "rank 0 or " : "") + "1-D with " +
                       Twine(extent) + " elements, got " + got);
}

/// Shared checks of quantize_linear / dequantize_linear.
LogicalResult checkLinearQuant(std::optional<Location> loc, Value input,
                               Value scale, Value zeroPoint, int64_t axis) {
  auto in = rankedType(input);
  auto s = rankedType(scale), zp = rankedType(zeroPoint);
  if (s.getShape() != zp.getShape())
    return fail(loc, "scale and zero point shapes differ");
  if (s.getRank() == 0)
    return success();
  if (axis < 0 || axis >= in.getRank())
    return fail(loc, "axis " + Twine(axis) + " is out of range for rank " +
                         Twine(in.getRank()));
  return checkPerAxis(loc, scale, "scale", in.getDimSize(axis),
                      /*allowScalar=*/true);
}

int64_t windowOutput(int64_t in, int64_t k, int64_t stride, int64_t padBegin,
                     int64_t padEnd, int64_t dilation) {
  int64_t span = in + padBegin + padEnd - dilation * (k - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}
} // namespace

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  if (failed(checkLinearQuant(loc, adaptor.getInput(), adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  auto in = rankedType(adaptor.getInput());
  if (rankedType(adaptor.getScale()).getElementType() != in.getElementType())
    return fail(loc, "scale must have the input's element type");
  types.push_back(RankedTensorType::get(
      in.getShape(), rankedType(adaptor.getZeroPoint()).getElementType()));
  return success();
}

LogicalResult
DequantizeLinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  if (failed(checkLinearQuant(loc, adaptor.getInput(), adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  auto in = rankedType(adaptor.getInput());
  if (rankedType(adaptor.getZeroPoint()).getElementType() !=
      in.getElementType())
    return fail(loc, "zero point must have the input's element type");
  types.push_back(RankedTensorType::get(
      in.getShape(), rankedType(adaptor.getScale()).getElementType()));
  return success();
}

LogicalResult ConvIntegerOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  auto w = rankedType(adaptor.getWeight());
  int64_t rank = in.getRank();
  if (rank < 3 || w.getRank() != rank)
    return fail(loc, "input and weight must have the same rank >= 3");
  bool last = adaptor.getChannelsLast();
  if (last && rank != 4)
    return fail(loc, "channels_last needs a 2-D convolution (rank 4), got "
                     "rank " +
                         Twine(rank));
  // Positions of the channel and first spatial dims (NCHW or NHWC).
  int64_t cDim = last ? rank - 1 : 1, sDim = last ? 1 : 2;
  int64_t spatial = rank - 2;
  auto strides = adaptor.getStrides(), pads = adaptor.getPads(),
       dilations = adaptor.getDilations();
  if ((int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return fail(loc, "expected " + Twine(spatial) +
                         " strides and dilations and " + Twine(2 * spatial) +
                         " pads");
  for (int64_t i = 0; i < spatial; ++i)
    if (strides[i] <= 0 || dilations[i] <= 0 || pads[i] < 0 ||
        pads[spatial + i] < 0)
      return fail(loc, "strides and dilations must be positive, pads >= 0");
  int64_t group = adaptor.getGroup();
  int64_t c = in.getDimSize(cDim), m = w.getDimSize(0);
  if (group <= 0 || c % group != 0 || m % group != 0 ||
      w.getDimSize(cDim) * group != c)
    return fail(loc, "group " + Twine(group) + " does not fit input channels " +
                         Twine(c) + " and weight " + Twine(m) + "x" +
                         Twine(w.getDimSize(cDim)));
  if (rankedType(adaptor.getInputZeroPoint()).getElementType() !=
          in.getElementType() ||
      rankedType(adaptor.getWeightZeroPoint()).getElementType() !=
          w.getElementType())
    return fail(loc, "zero points must have their operand's element type");
  if (rankedType(adaptor.getInputZeroPoint()).getRank() != 0)
    return fail(loc, "input zero point must be rank 0");
  if (failed(checkPerAxis(loc, adaptor.getWeightZeroPoint(),
                          "weight zero point", m, /*allowScalar=*/true)))
    return failure();
  SmallVector<int64_t> shape{in.getDimSize(0)};
  if (!last)
    shape.push_back(m);
  for (int64_t i = 0; i < spatial; ++i)
    shape.push_back(windowOutput(in.getDimSize(sDim + i),
                                 w.getDimSize(sDim + i), strides[i], pads[i],
                                 pads[spatial + i], dilations[i]));
  if (last)
    shape.push_back(m);
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *ctx,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto a = rankedType(adaptor.getLhs()), b = rankedType(adaptor.getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return fail(loc, "operands must have rank >= 2");
  bool bt = adaptor.getRhsTransposed();
  int64_t m = a.getDimSize(a.getRank() - 2), k = a.getDimSize(a.getRank() - 1);
  int64_t bk = b.getDimSize(b.getRank() - (bt ? 1 : 2));
  int64_t n = b.getDimSize(b.getRank() - (bt ? 2 : 1));
  if (k != bk)
    return fail(loc,
                "contraction sizes differ: " + Twine(k) + " vs " + Twine(bk));
  if (rankedType(adaptor.getLhsZeroPoint()).getElementType() !=
          a.getElementType() ||
      rankedType(adaptor.getRhsZeroPoint()).getElementType() !=
          b.getElementType())
    return fail(loc, "zero points must have their operand's element type");
  if (rankedType(adaptor.getLhsZeroPoint()).getRank() != 0)
    return fail(loc, "lhs zero point must be rank 0");
  if (failed(checkPerAxis(loc, adaptor.getRhsZeroPoint(), "rhs zero point", n,
                          /*allowScalar=*/true)))
    return failure();
  // Batch dims broadcast (numpy rules).
  auto aBatch = a.getShape().drop_back(2), bBatch = b.getShape().drop_back(2);
  size_t rank = std::max(aBatch.size(), bBatch.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x =
        i + aBatch.size() >= rank ? aBatch[i + aBatch.size() - rank] : 1;
    int64_t y =
        i + bBatch.size() >= rank ? bBatch[i + bBatch.size() - rank] : 1;
    if (x != y && x != 1 && y != 1)
      return fail(loc, "batch dims do not broadcast");
    shape[i] = x == 1 ? y : x;
  }
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult RequantizeOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= in.getRank())
    return fail(loc, "axis " + Twine(axis) + " is out of range for rank " +
                         Twine(in.getRank()));
  int64_t extent = in.getDimSize(axis);
  if (failed(checkPerAxis(loc, adaptor.getMultiplier(), "multiplier", extent,
                          /*allowScalar=*/true)))
    return failure();
  if (Value bias = adaptor.getBias())
    if (failed(checkPerAxis(loc, bias, "bias", extent, /*allowScalar=*/false)))
      return failure();
  auto zp = rankedType(adaptor.getZeroPoint());
  if (zp.getRank() != 0)
    return fail(loc, "zero point must be rank 0");
  types.push_back(RankedTensorType::get(in.getShape(), zp.getElementType()));
  return success();
}
