//===- ScatterImporter.cpp - ONNX Col2Im, MaxUnpool and TensorScatter -----===//
//
// Operators that write values to computed positions, composed from dlc's
// data movement ops:
//
// - Col2Im (PyTorch's fold) sums column blocks back into an image: a
//   transposed convolution of the blocks with an identity kernel, each
//   (batch, channel) image a batch of its own, or a reshape and transpose
//   when the blocks tile the image exactly;
// - MaxUnpool writes the pooled values at their flat indices into zeros;
// - TensorScatter writes a KV cache update at each batch's write index.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>
#include <string>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

using Results = SmallVectorImpl<Value>;

/// Largest attribute value (strides, pads, block sizes) the importers
/// accept, so that window arithmetic stays far from overflow.
constexpr int64_t kMaxWindowValue = int64_t(1) << 31;
/// Largest element count of a tensor these importers build.
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// The product of `v`, or nullopt past kMaxElements.
std::optional<int64_t> product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    if (x < 0 || llvm::MulOverflow(p, x, p) || p > kMaxElements)
      return std::nullopt;
  return p;
}

/// A spatial attribute of `rank` values, `fill` each when absent; reports
/// a wrong length or a value below `min`.
FailureOr<SmallVector<int64_t>> spatialAttr(NodeContext &n, StringRef name,
                                            size_t rank, int64_t fill,
                                            int64_t min) {
  std::optional<SmallVector<int64_t>> v = n.getInts(name);
  if (n.hasFailed())
    return failure();
  if (!v)
    return SmallVector<int64_t>(rank, fill);
  if (v->size() != rank)
    return n.emitError() << name << " must have " << rank << " values, got "
                         << v->size();
  for (int64_t x : *v)
    if (x < min || x > kMaxWindowValue)
      return n.emitError() << name << " must be in [" << min << ", 2^31], got "
                           << x;
  return *v;
}

} // namespace

/// Col2Im(input [N, C * prod(block_shape), L], image_shape, block_shape),
/// dilations, pads, strides: [N, C, image_shape...].
LogicalResult onnx_import::importCol2Im(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs({"dilations", "pads", "strides"})))
    return failure();
  Value x = n.input(0);
  auto type = n.getType(x);
  std::optional<SmallVector<int64_t>> image =
      n.getConstInts(n.input(1), "image_shape");
  std::optional<SmallVector<int64_t>> block =
      n.getConstInts(n.input(2), "block_shape");
  if (!image || !block)
    return failure();
  size_t rank = image->size();
  if (rank == 0 || block->size() != rank)
    return n.emitError() << "image_shape and block_shape must have one value "
                            "a spatial dim each, got "
                         << rank << " and " << block->size();
  if (type.getRank() != 3 || !isa<FloatType>(type.getElementType()))
    return n.emitError() << "input must be a float [N, C * prod(block_shape), "
                            "L] tensor, got "
                         << type;
  FailureOr<SmallVector<int64_t>> strides =
      spatialAttr(n, "strides", rank, 1, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      spatialAttr(n, "dilations", rank, 1, 1);
  FailureOr<SmallVector<int64_t>> pads = spatialAttr(n, "pads", 2 * rank, 0, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  for (size_t i = 0; i < rank; ++i)
    if ((*image)[i] < 1 || (*block)[i] < 1 || (*image)[i] > kMaxWindowValue ||
        (*block)[i] > kMaxWindowValue)
      return n.emitError()
             << "image_shape and block_shape must be in [1, 2^31]";
  int64_t batch = type.getDimSize(0), columns = type.getDimSize(1);
  std::optional<int64_t> kernel = product(*block);
  if (!kernel || *kernel > columns || columns % *kernel != 0)
    return n.emitError() << "input dim 1 (" << columns
                         << ") must be a multiple of the block's size "
                         << (kernel ? std::to_string(*kernel) : "(too large)");
  int64_t channels = columns / *kernel;

  // Block positions along each dim, as a convolution's output.
  SmallVector<int64_t> blocks(rank);
  bool tiles = true;
  for (size_t i = 0; i < rank; ++i) {
    int64_t s = (*strides)[i], d = (*dilations)[i], k = (*block)[i];
    int64_t extent = d * (k - 1) + 1;
    int64_t padded = (*image)[i] + (*pads)[i] + (*pads)[rank + i];
    if (padded < extent)
      return n.emitError() << "block dim " << i << " (" << extent
                           << " with dilation) exceeds the padded image ("
                           << padded << ")";
    blocks[i] = (padded - extent) / s + 1;
    tiles &= s == k && (k == 1 || d == 1) && (*pads)[i] == 0 &&
             (*pads)[rank + i] == 0 && blocks[i] * k == (*image)[i];
  }
  std::optional<int64_t> blockCount = product(blocks);
  if (blockCount != type.getDimSize(2))
    return n.emitError() << "input has " << type.getDimSize(2)
                         << " blocks (dim 2), but the image, block, strides, "
                            "dilations and pads give "
                         << (blockCount ? std::to_string(*blockCount)
                                        : "too many");

  SmallVector<int64_t> resultShape{batch, channels};
  resultShape.append(*image);
  if (!product(resultShape))
    return n.fail("the image is too large");
  if (tiles) {
    // [N, C, k..., o...] -> [N, C, o1, k1, o2, k2, ...]: the blocks tile
    // the image, so folding them is moving data.
    SmallVector<int64_t> split{batch, channels};
    split.append(*block);
    split.append(blocks);
    SmallVector<int64_t> perm{0, 1};
    for (size_t i = 0; i < rank; ++i)
      perm.append({int64_t(2 + rank + i), int64_t(2 + i)});
    Value v = n.reshape(x, split);
    v = v ? n.create<TransposeOp>(v, {n.i64Array("perm", perm)}) : Value();
    r.push_back(v ? n.reshape(v, resultShape) : Value());
    return success(r.back() != nullptr);
  }

  // Overlapping or padded blocks sum: each (batch, channel) image is a
  // transposed convolution of its K block planes with the identity kernel
  // [K, 1, k...]. End padding beyond what the blocks cover is trimmed, the
  // rest of the image (past the last block) comes from output_padding.
  SmallVector<int64_t> planes{batch * channels, *kernel};
  planes.append(blocks);
  SmallVector<double> identity(*kernel * *kernel, 0.0);
  for (int64_t k = 0; k < *kernel; ++k)
    identity[k * *kernel + k] = 1;
  SmallVector<int64_t> weightShape{*kernel, 1};
  weightShape.append(*block);
  Value weight = constantOf(n, weightShape, type.getElementType(), identity);
  SmallVector<int64_t> convPads(2 * rank), outputPadding(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t full = (blocks[i] - 1) * (*strides)[i] +
                   (*dilations)[i] * ((*block)[i] - 1) + 1;
    int64_t begin = (*pads)[i];
    int64_t end = std::max<int64_t>(0, full - begin - (*image)[i]);
    convPads[i] = begin;
    convPads[rank + i] = end;
    outputPadding[i] = (*image)[i] - (full - begin - end);
  }
  Value v = n.reshape(x, planes);
  v = v ? n.create<ConvTransposeOp>(
              {v, weight},
              {n.i64Array("strides", *strides), n.i64Array("pads", convPads),
               n.i64Array("dilations", *dilations),
               n.i64Array("output_padding", outputPadding), n.i64("group", 1)})
        : Value();
  r.push_back(v ? n.reshape(v, resultShape) : Value());
  return success(r.back() != nullptr);
}

/// MaxUnpool(X [N, C, d...], I, output_shape?), kernel_shape, pads, strides:
/// zeros of the output shape with X written at its flat indices I (MaxPool's
/// Indices: positions in the whole output tensor).
LogicalResult onnx_import::importMaxUnpool(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"kernel_shape", "pads", "strides"})))
    return failure();
  Value x = n.input(0), indices = n.input(1);
  auto type = n.getType(x), iType = n.getType(indices);
  int64_t rank = type.getRank();
  if (rank < 3 || !isa<FloatType>(type.getElementType()))
    return n.emitError() << "X must be a float tensor of rank >= 3, got "
                         << type;
  if (iType.getShape() != type.getShape() ||
      !iType.getElementType().isInteger(64))
    return n.emitError() << "I must be an int64 tensor of X's shape, got "
                         << iType;
  size_t spatial = rank - 2;
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (n.hasFailed())
    return failure();
  if (!kernel || kernel->size() != spatial)
    return n.emitError() << "kernel_shape must have " << spatial << " values";
  FailureOr<SmallVector<int64_t>> strides =
      spatialAttr(n, "strides", spatial, 1, 1);
  FailureOr<SmallVector<int64_t>> pads =
      spatialAttr(n, "pads", 2 * spatial, 0, 0);
  if (failed(strides) || failed(pads))
    return failure();
  // I indexes the unpooled shape the attributes give; output_shape only
  // pads its end with zeros (as onnx's reference).
  SmallVector<int64_t> unpooled(type.getShape().take_front(2));
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = (*kernel)[i], d;
    if (k < 1 || k > kMaxWindowValue)
      return n.emitError() << "kernel_shape must be in [1, 2^31], got " << k;
    if (llvm::MulOverflow(type.getDimSize(2 + i) - 1, (*strides)[i], d) ||
        d > kMaxElements)
      return n.fail("the unpooled shape is too large");
    d += k - (*pads)[i] - (*pads)[spatial + i];
    if (d < 1)
      return n.emitError() << "the unpooled dim " << 2 + i << " would be " << d;
    unpooled.push_back(d);
  }
  if (!product(unpooled))
    return n.fail("the unpooled shape is too large");
  SmallVector<int64_t> outShape(unpooled);
  if (Value shape = n.input(2)) {
    std::optional<SmallVector<int64_t>> given =
        n.getConstInts(shape, "output_shape");
    if (!given)
      return failure();
    bool fits = (int64_t)given->size() == rank;
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d < 2 ? (*given)[d] == unpooled[d] : (*given)[d] >= unpooled[d];
    if (!fits) {
      InFlightDiagnostic diag = n.emitError();
      diag << "output_shape must have rank " << rank
           << ", X's first two dims and spatial dims no smaller than the "
              "unpooled [";
      llvm::interleaveComma(unpooled, diag);
      return diag << "]";
    }
    if (!product(*given))
      return n.fail("output_shape is too large");
    outShape = *given;
  }
  int64_t inCount = type.getNumElements(), outCount = *product(unpooled);
  Value zero = zeros(n, {outCount}, type.getElementType());
  Value flatX = n.reshape(x, {inCount});
  Value flatI = n.reshape(indices, {inCount});
  Value v = flatX && flatI
                ? n.create<ScatterElementsOp>(
                      {zero, flatI, flatX},
                      {n.i64("axis", 0),
                       n.attr("reduction", n.b.getStringAttr("none"))})
                : Value();
  v = v ? n.reshape(v, unpooled) : Value();
  if (v && outShape != unpooled) {
    SmallVector<int64_t> endPads(rank, 0);
    for (int64_t d = 0; d < rank; ++d)
      endPads.push_back(outShape[d] - unpooled[d]);
    v = n.create<PadOp>(v, {n.i64Array("pads", endPads),
                            n.attr("mode", n.b.getStringAttr("constant")),
                            n.f64("value", 0.0)});
  }
  r.push_back(v);
  return success(v != nullptr);
}

/// TensorScatter(past_cache, update, write_indices?), axis, mode (opset 24):
/// past_cache with update's positions along `axis` written from each
/// batch's write index on (modulo the cache's length when circular).
LogicalResult onnx_import::importTensorScatter(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"axis", "mode"})))
    return failure();
  Value cache = n.input(0), update = n.input(1), writeIndices = n.input(2);
  auto cType = n.getType(cache), uType = n.getType(update);
  int64_t rank = cType.getRank();
  std::string mode = n.getString("mode", "linear");
  int64_t axisAttr = n.getInt("axis", -2);
  if (n.hasFailed())
    return failure();
  if (mode != "linear" && mode != "circular")
    return n.emitError() << "mode must be linear or circular, got '" << mode
                         << "'";
  std::optional<int64_t> axis = n.normalizeAxis(axisAttr, rank);
  if (!axis)
    return failure();
  if (*axis == 0)
    return n.fail("axis must not be the batch dim 0");
  bool shapesMatch = uType.getRank() == rank &&
                     uType.getElementType() == cType.getElementType();
  for (int64_t d = 0; shapesMatch && d < rank; ++d)
    shapesMatch = d == *axis ? uType.getDimSize(d) <= cType.getDimSize(d)
                             : uType.getDimSize(d) == cType.getDimSize(d);
  if (!shapesMatch)
    return n.emitError() << "update " << uType << " must have past_cache's "
                         << cType << " shape and type, its dim " << *axis
                         << " no longer";
  int64_t batch = cType.getDimSize(0), length = cType.getDimSize(*axis),
          steps = uType.getDimSize(*axis);
  Type i64 = n.b.getI64Type();

  // Each update position's cache position: write_indices[b] + j along the
  // axis, broadcast over the other dims.
  SmallVector<int64_t> along(rank, 1), perBatch(rank, 1);
  along[*axis] = steps;
  perBatch[0] = batch;
  SmallVector<double> iota(steps);
  std::iota(iota.begin(), iota.end(), 0.0);
  Value position = constantOf(n, along, i64, iota);
  if (writeIndices) {
    auto wType = n.getType(writeIndices);
    if (wType.getRank() != 1 || wType.getDimSize(0) != batch ||
        !wType.getElementType().isInteger(64))
      return n.emitError() << "write_indices must be tensor<" << batch
                           << "xi64>, got " << wType;
    Value start = n.reshape(writeIndices, perBatch);
    position = start ? n.create<AddOp>({start, position}) : Value();
    if (position && mode == "circular")
      position = n.create<ModOp>({position, splat(n, {}, i64, length)},
                                 {n.boolean("fmod", false)});
  }
  Value index =
      position ? n.create<ExpandOp>(position,
                                    {n.i64Array("shape", uType.getShape())})
               : Value();
  Value v = index ? n.create<ScatterElementsOp>(
                        {cache, index, update},
                        {n.i64("axis", *axis),
                         n.attr("reduction", n.b.getStringAttr("none"))})
                  : Value();
  r.push_back(v);
  return success(v != nullptr);
}
