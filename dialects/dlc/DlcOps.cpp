//===- DlcOps.cpp - dlc op shape inference and verifiers --------*- C++ -*-===//
//
// Result types are inferred from operands and attributes (InferTypeOpAdaptor),
// so the importer never computes shapes by hand and the generated verifier
// checks every op's declared type against the inferred one.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::dlc;

#define GET_OP_CLASSES
#include "dialects/dlc/DlcOps.cpp.inc"

namespace {
LogicalResult failInference(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}

/// The check of ops with one axis attribute. I64Attr getters return
/// uint64_t: a negative axis shows up as a huge value.
LogicalResult verifyAxis(Operation *op, uint64_t rawAxis, int64_t rank) {
  int64_t axis = static_cast<int64_t>(rawAxis);
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " out of range for rank " << rank;
  return success();
}

RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Output extent of a sliding window (Conv, pooling) along one dim.
int64_t windowOutput(int64_t in, int64_t k, int64_t stride, int64_t padBegin,
                     int64_t padEnd, int64_t dilation, bool ceilMode) {
  int64_t span = in + padBegin + padEnd - dilation * (k - 1) - 1;
  if (span < 0)
    return 0;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // With ceil_mode the last window must start inside the input or the begin
  // padding (PyTorch and ONNX Runtime agree on this).
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

/// Checks the window attributes of Conv/pooling against `spatialRank`.
LogicalResult checkWindowAttrs(std::optional<Location> loc, int64_t spatialRank,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations) {
  if ((int64_t)strides.size() != spatialRank ||
      (int64_t)dilations.size() != spatialRank ||
      (int64_t)pads.size() != 2 * spatialRank)
    return failInference(loc, "expected " + Twine(spatialRank) +
                                  " strides and dilations and " +
                                  Twine(2 * spatialRank) + " pads");
  for (int64_t s : strides)
    if (s <= 0)
      return failInference(loc, "strides must be positive");
  for (int64_t d : dilations)
    if (d <= 0)
      return failInference(loc, "dilations must be positive");
  for (int64_t p : pads)
    if (p < 0)
      return failInference(loc, "pads must be non-negative");
  return success();
}

template <typename Adaptor>
LogicalResult inferBinary(std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &types) {
  auto lhs = rankedType(adaptor.getLhs());
  auto rhs = rankedType(adaptor.getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return failInference(loc, "operand element types differ");
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape(), rhs.getShape(),
                                          shape))
    return failInference(loc, "operand shapes are not broadcastable");
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

/// The numpy broadcast of the shapes of `operands`, with element type
/// `elementType`.
LogicalResult inferBroadcast(std::optional<Location> loc, ValueRange operands,
                             Type elementType, SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, rankedType(v).getShape(),
                                            next))
      return failInference(loc, "operand shapes are not broadcastable");
    shape = std::move(next);
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

/// Comparisons: same operand element types, broadcast shape, i1 result.
template <typename Adaptor>
LogicalResult inferCompare(MLIRContext *ctx, std::optional<Location> loc,
                           Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (rankedType(adaptor.getLhs()).getElementType() !=
      rankedType(adaptor.getRhs()).getElementType())
    return failInference(loc, "operand element types differ");
  return inferBroadcast(loc, {adaptor.getLhs(), adaptor.getRhs()},
                        IntegerType::get(ctx, 1), types);
}
} // namespace

#define DLC_BINARY_INFER(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> l, \
                                     Adaptor a, SmallVectorImpl<Type> &t) {    \
    return inferBinary(l, a, t);                                               \
  }
DLC_BINARY_INFER(AddOp)
DLC_BINARY_INFER(SubOp)
DLC_BINARY_INFER(MulOp)
DLC_BINARY_INFER(DivOp)
DLC_BINARY_INFER(PowOp)
DLC_BINARY_INFER(MaxOp)
DLC_BINARY_INFER(MinOp)
DLC_BINARY_INFER(ModOp)
DLC_BINARY_INFER(PReluOp)
DLC_BINARY_INFER(AndOp)
DLC_BINARY_INFER(OrOp)
DLC_BINARY_INFER(XorOp)
DLC_BINARY_INFER(BitShiftOp)
#undef DLC_BINARY_INFER

#define DLC_COMPARE_INFER(OP)                                                  \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> l, Adaptor a,     \
                                     SmallVectorImpl<Type> &t) {               \
    return inferCompare(ctx, l, a, t);                                         \
  }
DLC_COMPARE_INFER(EqualOp)
DLC_COMPARE_INFER(LessOp)
DLC_COMPARE_INFER(LessOrEqualOp)
DLC_COMPARE_INFER(GreaterOp)
DLC_COMPARE_INFER(GreaterOrEqualOp)
#undef DLC_COMPARE_INFER

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type elementType = rankedType(adaptor.getX()).getElementType();
  if (rankedType(adaptor.getY()).getElementType() != elementType)
    return failInference(loc, "x and y element types differ");
  return inferBroadcast(
      loc, {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
      elementType, types);
}

LogicalResult IsNaNOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  types.push_back(
      rankedType(adaptor.getInput()).clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  types.push_back(
      rankedType(adaptor.getInput()).clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult CastOp::verify() {
  if (rankedType(getInput()).getShape() != getType().getShape())
    return emitOpError("result shape differs from the input shape");
  return success();
}

LogicalResult BitcastOp::verify() {
  if (rankedType(getInput()).getShape() != getType().getShape())
    return emitOpError("result shape differs from the input shape");
  auto bits = [](Type t) {
    return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
  };
  Type from = rankedType(getInput()).getElementType(),
       to = getType().getElementType();
  if (bits(from) != bits(to))
    return emitOpError("element types of different widths: ")
           << from << " and " << to;
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  auto w = rankedType(adaptor.getWeight());
  int64_t rank = in.getRank();
  bool last = adaptor.getChannelsLast();
  if (rank < 3)
    return failInference(loc, "input must have rank >= 3 (N, C, spatial...)");
  if (last && rank != 4)
    return failInference(loc, "channels_last needs a 2-D convolution (rank "
                              "4), got rank " +
                                  Twine(rank));
  if (w.getRank() != rank)
    return failInference(loc, "weight rank differs from input rank");
  int64_t spatial = rank - 2;
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations())))
    return failure();
  // Positions of the channel and first spatial dims (NCHW or NHWC).
  int64_t cDim = last ? rank - 1 : 1, sDim = last ? 1 : 2;
  int64_t group = adaptor.getGroup();
  int64_t c = in.getDimSize(cDim), m = w.getDimSize(0);
  if (group <= 0 || c % group != 0 || m % group != 0)
    return failInference(loc, "group " + Twine(group) +
                                  " must divide input channels " + Twine(c) +
                                  " and output channels " + Twine(m));
  if (w.getDimSize(cDim) * group != c)
    return failInference(loc, "weight has " + Twine(w.getDimSize(cDim)) +
                                  " channels per group, input has " +
                                  Twine(c / group));
  if (Value bias = adaptor.getBias()) {
    auto b = rankedType(bias);
    if (b.getRank() != 1 || b.getDimSize(0) != m)
      return failInference(loc,
                           "bias must be 1-D with " + Twine(m) + " elements");
  }
  SmallVector<int64_t> shape{in.getDimSize(0)};
  if (!last)
    shape.push_back(m);
  for (int64_t i = 0; i < spatial; ++i)
    shape.push_back(windowOutput(
        in.getDimSize(sDim + i), w.getDimSize(sDim + i),
        adaptor.getStrides()[i], adaptor.getPads()[i],
        adaptor.getPads()[spatial + i], adaptor.getDilations()[i], false));
  if (last)
    shape.push_back(m);
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto a = rankedType(adaptor.getA());
  auto b = rankedType(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return failInference(loc, "A and B must be 2-D");
  int64_t m = adaptor.getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t ka = adaptor.getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t kb = adaptor.getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = adaptor.getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (ka != kb)
    return failInference(loc, "inner dims differ: " + Twine(ka) + " vs " +
                                  Twine(kb));
  if (Value c = adaptor.getC()) {
    SmallVector<int64_t> shape;
    if (!OpTrait::util::getBroadcastedShape(rankedType(c).getShape(), {m, n},
                                            shape) ||
        shape != SmallVector<int64_t>{m, n})
      return failInference(loc, "C does not broadcast to [M, N]");
  }
  types.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto a = rankedType(adaptor.getLhs());
  auto b = rankedType(adaptor.getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return failInference(loc, "operands must have rank >= 2");
  if (a.getShape().back() != b.getDimSize(b.getRank() - 2))
    return failInference(loc,
                         "inner dims differ: " + Twine(a.getShape().back()) +
                             " vs " + Twine(b.getDimSize(b.getRank() - 2)));
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(a.getShape().drop_back(2),
                                          b.getShape().drop_back(2), batch))
    return failInference(loc, "batch dims are not broadcastable");
  batch.push_back(a.getDimSize(a.getRank() - 2));
  batch.push_back(b.getShape().back());
  types.push_back(RankedTensorType::get(batch, a.getElementType()));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  if (in.getRank() < 2)
    return failInference(loc, "input must have rank >= 2");
  int64_t c = in.getDimSize(1);
  for (Value v : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                  adaptor.getVariance()}) {
    auto t = rankedType(v);
    if (t.getRank() != 1 || t.getDimSize(0) != c)
      return failInference(loc, "scale, bias, mean and variance must be 1-D "
                                "with " +
                                    Twine(c) + " elements");
  }
  types.push_back(in);
  return success();
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  int64_t spatial = in.getRank() - 2;
  if (spatial < 1)
    return failInference(loc, "input must have rank >= 3");
  bool last = adaptor.getChannelsLast();
  if (last && spatial != 2)
    return failInference(loc, "channels_last needs 2-D pooling (rank 4), "
                              "got rank " +
                                  Twine(in.getRank()));
  int64_t sDim = last ? 1 : 2;
  ArrayRef<int64_t> k = adaptor.getKernelShape();
  if ((int64_t)k.size() != spatial)
    return failInference(loc, "expected " + Twine(spatial) +
                                  " kernel_shape entries");
  for (int64_t v : k)
    if (v <= 0)
      return failInference(loc, "kernel_shape must be positive");
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations())))
    return failure();
  SmallVector<int64_t> shape{in.getDimSize(0)};
  if (!last)
    shape.push_back(in.getDimSize(1));
  for (int64_t i = 0; i < spatial; ++i) {
    // A pad as large as the window would produce windows with no input.
    if (adaptor.getPads()[i] >= k[i] * adaptor.getDilations()[i] ||
        adaptor.getPads()[spatial + i] >= k[i] * adaptor.getDilations()[i])
      return failInference(loc, "pads must be smaller than the window");
    shape.push_back(
        windowOutput(in.getDimSize(sDim + i), k[i], adaptor.getStrides()[i],
                     adaptor.getPads()[i], adaptor.getPads()[spatial + i],
                     adaptor.getDilations()[i], adaptor.getCeilMode()));
  }
  if (last)
    shape.push_back(in.getDimSize(in.getRank() - 1));
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor, types);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor, types);
}

/// Result type of a reduction of `input` over `axes`.
static LogicalResult inferReduce(std::optional<Location> loc, Value input,
                                 ArrayRef<int64_t> axes, bool keepdims,
                                 Type elementType,
                                 SmallVectorImpl<Type> &types) {
  auto in = rankedType(input);
  SmallVector<bool> reduced(in.getRank(), false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= in.getRank())
      return failInference(loc, "axis " + Twine(axis) + " out of range");
    if (reduced[axis])
      return failInference(loc, "axis " + Twine(axis) + " repeated");
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (!reduced[i])
      shape.push_back(in.getDimSize(i));
    else if (keepdims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

#define DLC_REDUCE_INFER(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> l, \
                                     Adaptor a, SmallVectorImpl<Type> &t) {    \
    return inferReduce(l, a.getInput(), a.getAxes(), a.getKeepdims(),          \
                       rankedType(a.getInput()).getElementType(), t);          \
  }
DLC_REDUCE_INFER(ReduceSumOp)
DLC_REDUCE_INFER(ReduceProdOp)
DLC_REDUCE_INFER(ReduceMaxOp)
DLC_REDUCE_INFER(ReduceMinOp)
DLC_REDUCE_INFER(ReduceL1Op)
DLC_REDUCE_INFER(ReduceSumSquareOp)
DLC_REDUCE_INFER(ReduceL2Op)
DLC_REDUCE_INFER(ReduceLogSumOp)
DLC_REDUCE_INFER(ReduceLogSumExpOp)
#undef DLC_REDUCE_INFER

#define DLC_ARG_REDUCE_INFER(OP)                                               \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> l, Adaptor a,     \
                                     SmallVectorImpl<Type> &t) {               \
    int64_t axis = a.getAxis();                                                \
    return inferReduce(l, a.getInput(), ArrayRef<int64_t>(axis),               \
                       a.getKeepdims(), IntegerType::get(ctx, 64), t);         \
  }
DLC_ARG_REDUCE_INFER(ArgMaxOp)
DLC_ARG_REDUCE_INFER(ArgMinOp)
#undef DLC_ARG_REDUCE_INFER

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult ReduceMeanOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  SmallVector<bool> reduced(in.getRank(), false);
  for (int64_t axis : adaptor.getAxes()) {
    if (axis < 0 || axis >= in.getRank())
      return failInference(loc, "axis " + Twine(axis) + " out of range");
    if (reduced[axis])
      return failInference(loc, "axis " + Twine(axis) + " repeated");
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (!reduced[i])
      shape.push_back(in.getDimSize(i));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= in.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  ArrayRef<int64_t> normShape = in.getShape().drop_front(axis);
  for (Value v : {adaptor.getScale(), adaptor.getBias()}) {
    if (!v)
      continue;
    SmallVector<int64_t> shape;
    if (!OpTrait::util::getBroadcastedShape(rankedType(v).getShape(), normShape,
                                            shape) ||
        ArrayRef<int64_t>(shape) != normShape)
      return failInference(loc, "scale and bias must broadcast to the "
                                "normalized dims");
  }
  types.push_back(in);
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = rankedType(getInput());
  if (in.getElementType() != getType().getElementType())
    return emitOpError("element type changes");
  if (in.getNumElements() != getType().getNumElements())
    return emitOpError("element count changes from ")
           << in.getNumElements() << " to " << getType().getNumElements();
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return failInference(loc, "perm must have one entry per dim");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return failInference(loc, "perm is not a permutation");
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return failInference(loc, "needs at least one input");
  auto first = rankedType(adaptor.getInputs().front());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = rankedType(v);
    if (t.getElementType() != first.getElementType() ||
        t.getRank() != first.getRank())
      return failInference(loc, "inputs differ in element type or rank");
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != axis && t.getDimSize(i) != first.getDimSize(i))
        return failInference(loc, "inputs differ in dim " + Twine(i));
    shape[axis] += t.getDimSize(axis);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto data = rankedType(adaptor.getData());
  auto indices = rankedType(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  if ((int64_t)starts.size() != in.getRank() || ends.size() != starts.size() ||
      steps.size() != starts.size())
    return failInference(loc, "starts, ends and steps need one entry per dim");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t n = in.getDimSize(i);
    if (steps[i] == 0)
      return failInference(loc, "step must be non-zero");
    if (starts[i] < 0 || starts[i] > n || ends[i] < -1 || ends[i] > n)
      return failInference(loc,
                           "start/end of dim " + Twine(i) + " not normalized");
    int64_t len = steps[i] > 0
                      ? (ends[i] - starts[i] + steps[i] - 1) / steps[i]
                      : (starts[i] - ends[i] - steps[i] - 1) / -steps[i];
    if (steps[i] < 0 && starts[i] == n)
      return failInference(loc, "start of dim " + Twine(i) + " not normalized");
    shape.push_back(std::max<int64_t>(len, 0));
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  int64_t rank = rankedType(adaptor.getInput()).getRank();
  int64_t start = adaptor.getStart(), end = adaptor.getEnd();
  if (start < 0 || end > rank || start > end)
    return failInference(loc, "dims [" + Twine(start) + ", " + Twine(end) +
                                  ") out of range");
  types.push_back(
      RankedTensorType::get({end - start}, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  for (int64_t d : adaptor.getShape())
    if (d < 0)
      return failInference(loc, "shape has a negative dim " + Twine(d));
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(in.getShape(), adaptor.getShape(),
                                          shape))
    return failInference(loc, "input shape does not broadcast to the shape");
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto data = rankedType(adaptor.getData());
  auto indices = rankedType(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  if (indices.getRank() != data.getRank())
    return failInference(loc, "indices rank differs from data rank");
  for (int64_t i = 0; i < data.getRank(); ++i)
    if (i != axis && indices.getDimSize(i) > data.getDimSize(i))
      return failInference(loc,
                           "indices dim " + Twine(i) + " exceeds the data dim");
  types.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  if ((int64_t)repeats.size() != in.getRank())
    return failInference(loc, "repeats must have one entry per dim");
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::zip(in.getShape(), repeats)) {
    if (r < 0)
      return failInference(loc, "repeats must be non-negative");
    shape.push_back(d * r);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> pads = adaptor.getPads();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return failInference(loc, "unknown mode '" + mode + "'");
  if ((int64_t)pads.size() != 2 * rank)
    return failInference(loc, "expected " + Twine(2 * rank) + " pads");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t n = in.getDimSize(i), b = pads[i], e = pads[rank + i];
    int64_t out, partial;
    if (llvm::AddOverflow(n, b, partial) || llvm::AddOverflow(partial, e, out))
      return failInference(loc, "pads of dim " + Twine(i) + " overflow");
    if (out < 0 || b < -n || e < -n)
      return failInference(loc, "pads of dim " + Twine(i) +
                                    " crop more than the dim");
    bool grows = b > 0 || e > 0;
    if (grows && mode != "constant" && n == 0)
      return failInference(loc,
                           "cannot pad an empty dim in mode '" + mode + "'");
    if (grows && mode == "reflect" && (b >= n || e >= n))
      return failInference(loc, "reflect pads of dim " + Twine(i) +
                                    " must be smaller than the dim");
    shape.push_back(out);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult TriluOp::verify() {
  if (getType().getRank() < 2)
    return emitOpError("input must have rank >= 2");
  return success();
}

LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult CumProdOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto data = rankedType(adaptor.getData());
  auto indices = rankedType(adaptor.getIndices());
  int64_t b = adaptor.getBatchDims(), q = indices.getRank();
  if (q < 1)
    return failInference(loc, "indices must have rank >= 1");
  int64_t k = indices.getShape().back();
  if (b < 0 || b >= q || b + k > data.getRank())
    return failInference(loc, "batch_dims " + Twine(b) + " and index depth " +
                                  Twine(k) + " do not fit data rank " +
                                  Twine(data.getRank()));
  for (int64_t i = 0; i < b; ++i)
    if (data.getDimSize(i) != indices.getDimSize(i))
      return failInference(loc, "batch dim " + Twine(i) + " differs");
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(b + k));
  types.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

static LogicalResult checkReduction(std::optional<Location> loc,
                                    StringRef reduction) {
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return failInference(loc, "unknown reduction '" + reduction + "'");
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  auto data = rankedType(adaptor.getData());
  auto indices = rankedType(adaptor.getIndices());
  auto updates = rankedType(adaptor.getUpdates());
  int64_t axis = adaptor.getAxis();
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  if (axis < 0 || axis >= data.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  if (indices.getShape() != updates.getShape() ||
      indices.getRank() != data.getRank())
    return failInference(loc, "indices and updates must have one shape of "
                              "the data's rank");
  if (updates.getElementType() != data.getElementType())
    return failInference(loc, "updates and data element types differ");
  for (int64_t i = 0; i < data.getRank(); ++i)
    if (i != axis && indices.getDimSize(i) > data.getDimSize(i))
      return failInference(loc,
                           "indices dim " + Twine(i) + " exceeds the data dim");
  types.push_back(data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto data = rankedType(adaptor.getData());
  auto indices = rankedType(adaptor.getIndices());
  auto updates = rankedType(adaptor.getUpdates());
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  if (indices.getRank() < 1)
    return failInference(loc, "indices must have rank >= 1");
  int64_t k = indices.getShape().back();
  if (k > data.getRank())
    return failInference(loc, "index depth exceeds the data rank");
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return failInference(loc, "updates shape does not match indices and data");
  if (updates.getElementType() != data.getElementType())
    return failInference(loc, "updates and data element types differ");
  types.push_back(data);
  return success();
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto indices = rankedType(adaptor.getIndices());
  auto values = rankedType(adaptor.getValues());
  int64_t axis = adaptor.getAxis(), depth = adaptor.getDepth();
  if (values.getNumElements() != 2 || values.getRank() != 1)
    return failInference(loc, "values must hold [off, on]");
  if (axis < 0 || axis > indices.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  if (depth <= 0)
    return failInference(loc, "depth must be positive");
  SmallVector<int64_t> shape(indices.getShape());
  shape.insert(shape.begin() + axis, depth);
  types.push_back(RankedTensorType::get(shape, values.getElementType()));
  return success();
}

FailureOr<EinsumEquation>
mlir::dlc::parseEinsumEquation(StringRef equation,
                               ArrayRef<ArrayRef<int64_t>> shapes,
                               function_ref<void(const Twine &)> emitError) {
  auto [lhs, out] = equation.split("->");
  if (lhs.size() == equation.size()) {
    emitError("equation '" + equation + "' has no '->'");
    return failure();
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != shapes.size()) {
    emitError("equation has " + Twine(terms.size()) + " inputs, op has " +
              Twine(shapes.size()));
    return failure();
  }
  EinsumEquation eq;
  llvm::DenseMap<char, int64_t> letters;
  auto letter = [&](char c) -> int64_t {
    auto [it, inserted] = letters.try_emplace(c, letters.size());
    if (inserted)
      eq.extents.push_back(1);
    return it->second;
  };
  for (auto [term, shape] : llvm::zip(terms, shapes)) {
    if (term.size() != shape.size()) {
      emitError("term '" + term + "' does not match rank " +
                Twine(shape.size()));
      return failure();
    }
    SmallVector<int64_t> dims;
    for (auto [c, size] : llvm::zip(term, shape)) {
      if (!llvm::isAlpha(c)) {
        emitError("invalid letter '" + Twine(c) + "'");
        return failure();
      }
      int64_t l = letter(c);
      if (size != 1 && eq.extents[l] != 1 && eq.extents[l] != size) {
        emitError("letter '" + Twine(c) + "' labels dims of sizes " +
                  Twine(eq.extents[l]) + " and " + Twine(size));
        return failure();
      }
      if (size != 1)
        eq.extents[l] = size;
      dims.push_back(l);
    }
    eq.inputs.push_back(std::move(dims));
  }
  SmallVector<bool> seen(letters.size(), false);
  for (char c : out) {
    auto it = letters.find(c);
    if (it == letters.end() || seen[it->second]) {
      emitError("output letter '" + Twine(c) +
                "' is repeated or not in the inputs");
      return failure();
    }
    seen[it->second] = true;
    eq.output.push_back(it->second);
  }
  return eq;
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return failInference(loc, "needs at least one input");
  SmallVector<ArrayRef<int64_t>> shapes;
  Type elt = rankedType(adaptor.getInputs().front()).getElementType();
  for (Value v : adaptor.getInputs()) {
    if (rankedType(v).getElementType() != elt)
      return failInference(loc, "inputs differ in element type");
    shapes.push_back(rankedType(v).getShape());
  }
  bool failedParse = false;
  FailureOr<EinsumEquation> eq =
      parseEinsumEquation(adaptor.getEquation(), shapes, [&](const Twine &msg) {
        failedParse = true;
        (void)failInference(loc, msg);
      });
  if (failed(eq) || failedParse)
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t l : eq->output)
    shape.push_back(eq->extents[l]);
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (axis < 0 || axis >= in.getRank())
    return failInference(loc, "axis " + Twine(axis) + " out of range");
  if (k < 0 || k > in.getDimSize(axis))
    return failInference(loc, "k " + Twine(k) + " exceeds the dim " +
                                  Twine(in.getDimSize(axis)));
  SmallVector<int64_t> shape(in.getShape());
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult GridSampleOp::verify() {
  auto in = rankedType(getInput()), grid = rankedType(getGrid());
  int64_t rank = in.getRank(), spatial = rank - 2;
  if (rank < 3 || grid.getRank() != rank)
    return emitOpError("input and grid must have one rank >= 3");
  if (grid.getDimSize(0) != in.getDimSize(0) ||
      grid.getDimSize(rank - 1) != spatial)
    return emitOpError("grid must be [N, out..., ") << spatial << "]";
  if (grid.getElementType() != in.getElementType() ||
      getType().getElementType() != in.getElementType())
    return emitOpError("input, grid and result must have one element type");
  SmallVector<int64_t> shape{in.getDimSize(0), in.getDimSize(1)};
  llvm::append_range(shape, grid.getShape().slice(1, spatial));
  if (getType().getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("result must be [N, C, out...]");
  if (getMode() != "nearest" && getMode() != "linear" && getMode() != "cubic")
    return emitOpError("unknown mode '") << getMode() << "'";
  StringRef pm = getPaddingMode();
  if (pm != "zeros" && pm != "border" && pm != "reflection")
    return emitOpError("unknown padding_mode '") << pm << "'";
  return success();
}

LogicalResult ResizeOp::verify() {
  auto in = rankedType(getInput());
  if (in.getRank() != getType().getRank() ||
      in.getElementType() != getType().getElementType())
    return emitOpError("result must have the input's rank and element type");
  if ((int64_t)getScales().size() != in.getRank())
    return emitOpError("expected one scale per dim");
  for (double s : getScales())
    if (!(s > 0))
      return emitOpError("scales must be positive");
  if (getMode() != "nearest" && getMode() != "linear" && getMode() != "cubic")
    return emitOpError("unknown mode '") << getMode() << "'";
  StringRef ct = getCoordinateTransformationMode();
  if (ct != "half_pixel" && ct != "half_pixel_symmetric" &&
      ct != "pytorch_half_pixel" && ct != "align_corners" &&
      ct != "asymmetric" && ct != "tf_crop_and_resize")
    return emitOpError("unknown coordinate_transformation_mode '") << ct << "'";
  if (getAntialias() && getMode() == "nearest")
    return emitOpError("antialias applies to linear and cubic modes only");
  if ((ct == "tf_crop_and_resize") !=
      (getRoi() && (int64_t)getRoi()->size() == 2 * in.getRank()))
    return emitOpError("roi must hold two values a dim exactly when "
                       "coordinate_transformation_mode is tf_crop_and_resize");
  StringRef nm = getNearestMode();
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" &&
      nm != "floor" && nm != "ceil")
    return emitOpError("unknown nearest_mode '") << nm << "'";
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto in = rankedType(adaptor.getInput());
  auto w = rankedType(adaptor.getWeight());
  int64_t rank = in.getRank();
  if (rank < 3)
    return failInference(loc, "input must have rank >= 3 (N, C, spatial...)");
  if (w.getRank() != rank)
    return failInference(loc, "weight rank differs from input rank");
  int64_t spatial = rank - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    outPad = adaptor.getOutputPadding();
  // Pads may be negative: an output_shape beyond the full output extends
  // it at the begin (as ONNX Runtime does).
  if ((int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return failInference(loc, "expected " + Twine(spatial) +
                                  " strides and dilations and " +
                                  Twine(2 * spatial) + " pads");
  for (auto [s, d] : llvm::zip(strides, dilations))
    if (s <= 0 || d <= 0)
      return failInference(loc, "strides and dilations must be positive");
  if ((int64_t)outPad.size() != spatial)
    return failInference(loc, "expected " + Twine(spatial) +
                                  " output_padding entries");
  int64_t group = adaptor.getGroup();
  int64_t c = in.getDimSize(1);
  if (group <= 0 || c % group != 0 || w.getDimSize(0) != c)
    return failInference(loc, "weight must be [C, M/group, k...] with group " +
                                  Twine(group) + " dividing C " + Twine(c));
  int64_t m = w.getDimSize(1) * group;
  if (Value bias = adaptor.getBias()) {
    auto b = rankedType(bias);
    if (b.getRank() != 1 || b.getDimSize(0) != m)
      return failInference(loc,
                           "bias must be 1-D with " + Twine(m) + " elements");
  }
  SmallVector<int64_t> shape{in.getDimSize(0), m};
  for (int64_t i = 0; i < spatial; ++i) {
    if (outPad[i] < 0 || (outPad[i] >= strides[i] && outPad[i] >= dilations[i]))
      return failInference(loc, "output_padding must be smaller than the "
                                "stride or the dilation");
    int64_t out = strides[i] * (in.getDimSize(2 + i) - 1) + outPad[i] +
                  (w.getDimSize(2 + i) - 1) * dilations[i] + 1 - pads[i] -
                  pads[spatial + i];
    if (out <= 0)
      return failInference(loc, "pads leave no output in dim " + Twine(i));
    shape.push_back(out);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}
