//===- RoiAlignImporter.cpp - ONNX RoiAlign -------------------------------===//
//
// RoiAlign (Mask R-CNN's and torchvision's box pooling) composed from dlc
// ops, following onnx's reference (onnx/reference/ops/op_roi_align.py):
// each output bin of each box averages (or takes the max of) a fixed
// sampling_ratio x sampling_ratio grid of bilinear samples. The sample
// coordinates come from the run-time boxes, so they are computed as tensors
// ([R, bins, samples] per axis, in the reference's order of f32 operations);
// the four neighbours of every sample are gathered from the box's image with
// one dlc.gather_elements, weighted, and reduced.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

/// Largest sample count a box may have (R * C * bins * samples * 4
/// gathered elements): past it a model wants a kernel of its own.
constexpr int64_t kMaxGathered = int64_t(1) << 31;

/// One axis' samples of every box: the low and high neighbours (i64), their
/// weights (f32), and whether the sample lies inside [-1, extent], all
/// [R, bins, samples].
struct AxisSamples {
  Value low, high, lowWeight, highWeight, valid;
};

class RoiAlignBuilder {
public:
  explicit RoiAlignBuilder(NodeContext &n) : n(n) {}

  Value f32(ArrayRef<int64_t> shape, ArrayRef<float> values) {
    return f32Constant(n, shape, values);
  }
  Value scalar(double v) { return splat(n, {}, n.b.getF32Type(), v); }

  /// start + b * bin + ((i + 0.5) * bin) / samples for bin b and sample i,
  /// the reference's expression, clamped and split into neighbours.
  AxisSamples axis(Value start, Value bin, int64_t bins, int64_t samples,
                   int64_t extent) {
    int64_t rois = NodeContext::getType(start).getDimSize(0);
    SmallVector<float> binIndex, sampleOffset;
    for (int64_t b = 0; b < bins; ++b)
      binIndex.push_back(float(b));
    for (int64_t i = 0; i < samples; ++i)
      sampleOffset.push_back(float(i) + 0.5f);
    Value start3 = n.reshape(start, {rois, 1, 1});
    Value bin3 = n.reshape(bin, {rois, 1, 1});
    Value origin = add(start3, mul(f32({1, bins, 1}, binIndex), bin3));
    Value offset = div(mul(f32({1, 1, samples}, sampleOffset), bin3),
                       scalar(double(samples)));
    Value y = add(origin, offset);
    if (!y)
      return {};
    Value valid =
        n.create<AndOp>({n.create<GreaterOrEqualOp>({y, scalar(-1.0)}),
                         n.create<LessOrEqualOp>({y, scalar(double(extent))})});
    y = n.create<MaxOp>({y, scalar(0.0)});
    Value low = y ? n.create<FloorOp>({y}) : Value();
    Value last = scalar(double(extent - 1));
    Value atEnd = low ? n.create<GreaterOrEqualOp>({low, last}) : Value();
    if (!atEnd)
      return {};
    low = n.create<WhereOp>({atEnd, last, low});
    y = n.create<WhereOp>({atEnd, low, y});
    Value high =
        n.create<WhereOp>({atEnd, low, n.create<AddOp>({low, scalar(1.0)})});
    Value l = n.create<SubOp>({y, low});
    Value h = l ? n.create<SubOp>({scalar(1.0), l}) : Value();
    return {toI64(low), toI64(high), h, l, valid};
  }

  Value add(Value a, Value b) {
    return a && b ? n.create<AddOp>({a, b}) : Value();
  }
  Value mul(Value a, Value b) {
    return a && b ? n.create<MulOp>({a, b}) : Value();
  }
  Value div(Value a, Value b) {
    return a && b ? n.create<DivOp>({a, b}) : Value();
  }
  Value toI64(Value v) {
    return v ? n.create<CastOp>(v, {},
                                NodeContext::getType(v).clone(n.b.getI64Type()))
             : Value();
  }

  NodeContext &n;
};

} // namespace

LogicalResult onnx_import::importRoiAlign(NodeContext &n,
                                          SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs({"coordinate_transformation_mode", "mode",
                                "output_height", "output_width",
                                "sampling_ratio", "spatial_scale"})))
    return failure();
  Value x = n.input(0), rois = n.input(1), batchIndices = n.input(2);
  auto xType = NodeContext::getType(x);
  Type elt = xType.getElementType();
  if (xType.getRank() != 4 || !isa<FloatType>(elt))
    return n.emitError() << "X must be a float [N, C, H, W] tensor, got "
                         << x.getType();
  auto roisType = NodeContext::getType(rois);
  int64_t boxes = roisType.getRank() == 2 ? roisType.getDimSize(0) : -1;
  if (roisType.getRank() != 2 || roisType.getDimSize(1) != 4 ||
      roisType.getElementType() != elt)
    return n.emitError() << "rois must be [num_rois, 4] of X's type, got "
                         << rois.getType();
  auto indexType = NodeContext::getType(batchIndices);
  if (indexType.getRank() != 1 || indexType.getDimSize(0) != boxes ||
      !isa<IntegerType>(indexType.getElementType()))
    return n.emitError() << "batch_indices must be [" << boxes
                         << "] integers, got " << batchIndices.getType();
  std::string ctm =
      n.getString("coordinate_transformation_mode",
                  n.opset >= 16 ? "half_pixel" : "output_half_pixel");
  std::string mode = n.getString("mode", "avg");
  int64_t outH = n.getInt("output_height", 1),
          outW = n.getInt("output_width", 1);
  int64_t samples = n.getInt("sampling_ratio", 0);
  float spatialScale = n.getFloat("spatial_scale", 1.0f);
  if (n.hasFailed())
    return failure();
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return n.emitError() << "unsupported coordinate_transformation_mode '"
                         << ctm << "' (half_pixel and output_half_pixel are)";
  if (mode != "avg" && mode != "max")
    return n.emitError() << "unsupported mode '" << mode
                         << "' (avg and max are)";
  if (outH < 1 || outW < 1 || outH > 4096 || outW > 4096)
    return n.emitError() << "output_height and output_width must be in [1, "
                            "4096], got "
                         << outH << " and " << outW;
  if (samples <= 0)
    return n.emitError()
           << "sampling_ratio " << samples
           << " (adaptive: each box's size sets its sample count at run time) "
              "is not supported; set sampling_ratio > 0 (torchvision uses 2)";
  if (samples > 64)
    return n.emitError() << "sampling_ratio must be at most 64, got "
                         << samples;
  ArrayRef<int64_t> xs = xType.getShape();
  int64_t channels = xs[1], height = xs[2], width = xs[3];
  int64_t taps = outH * samples * outW * samples;
  if (boxes && channels > kMaxGathered / (4 * taps) / boxes)
    return n.emitError() << "gathers " << boxes << " x " << channels << " x "
                         << 4 * taps << " samples, more than 2^31";

  RoiAlignBuilder a(n);
  Type f32 = n.b.getF32Type();
  auto toF32 = [&](Value v) -> Value {
    return NodeContext::getType(v).getElementType() == f32
               ? v
               : n.create<CastOp>(v, {}, NodeContext::getType(v).clone(f32));
  };
  // The box in input coordinates, [R] per corner.
  Value box = toF32(rois);
  bool halfPixel = ctm == "half_pixel";
  Value scaled = a.mul(box, a.scalar(spatialScale));
  if (halfPixel)
    scaled = scaled ? n.create<SubOp>({scaled, a.scalar(0.5)}) : Value();
  if (!scaled)
    return failure();
  auto corner = [&](int64_t i) {
    return n.reshape(sliceAxis(n, scaled, 1, i, i + 1), {boxes});
  };
  Value startW = corner(0), startH = corner(1), endW = corner(2),
        endH = corner(3);
  Value roiW = startW && endW ? n.create<SubOp>({endW, startW}) : Value();
  Value roiH = startH && endH ? n.create<SubOp>({endH, startH}) : Value();
  if (!halfPixel && roiW && roiH) {
    roiW = n.create<MaxOp>({roiW, a.scalar(1.0)});
    roiH = n.create<MaxOp>({roiH, a.scalar(1.0)});
  }
  Value binH = a.div(roiH, a.scalar(double(outH)));
  Value binW = a.div(roiW, a.scalar(double(outW)));
  if (!binH || !binW)
    return failure();
  AxisSamples ys = a.axis(startH, binH, outH, samples, height);
  AxisSamples xsamp = a.axis(startW, binW, outW, samples, width);
  if (!ys.valid || !xsamp.valid || !ys.low || !xsamp.low)
    return failure();

  // [R, outH, s, 1, 1] x [R, 1, 1, outW, s] -> [R, outH, s, outW, s].
  auto rows = [&](Value v) {
    return n.reshape(v, {boxes, outH, samples, 1, 1});
  };
  auto cols = [&](Value v) {
    return n.reshape(v, {boxes, 1, 1, outW, samples});
  };
  Value valid = n.create<AndOp>({rows(ys.valid), cols(xsamp.valid)});
  Value widthI = splat(n, {}, n.b.getI64Type(), double(width));
  Value zeroI = splat(n, {}, n.b.getI64Type(), 0);
  SmallVector<Value> positions, weights;
  for (auto [yPos, yWeight] :
       {std::pair(ys.low, ys.lowWeight), std::pair(ys.high, ys.highWeight)})
    for (auto [xPos, xWeight] : {std::pair(xsamp.low, xsamp.lowWeight),
                                 std::pair(xsamp.high, xsamp.highWeight)}) {
      Value pos = a.add(a.mul(rows(yPos), widthI), cols(xPos));
      Value w = a.mul(rows(yWeight), cols(xWeight));
      if (!pos || !w || !valid)
        return failure();
      // Samples outside [-1, extent] read position 0 with weight 0.
      positions.push_back(
          n.reshape(n.create<WhereOp>({valid, pos, zeroI}), {boxes, 1, taps}));
      weights.push_back(n.reshape(n.create<WhereOp>({valid, w, a.scalar(0.0)}),
                                  {boxes, 1, taps}));
    }
  Value index = n.create<ConcatOp>(positions, {n.i64("axis", 1)});
  Value weight = n.create<ConcatOp>(weights, {n.i64("axis", 1)});
  if (!index || !weight)
    return failure();
  index = n.reshape(index, {boxes, 1, 4 * taps});
  index = index ? n.create<ExpandOp>(
                      index, {n.i64Array("shape", {boxes, channels, 4 * taps})})
                : Value();
  // Each box's image, [R, C, H * W], then its samples' neighbours.
  Value images = n.create<GatherOp>({x, batchIndices}, {n.i64("axis", 0)});
  images = images ? n.reshape(toF32(images), {boxes, channels, height * width})
                  : Value();
  Value gathered =
      images && index
          ? n.create<GatherElementsOp>({images, index}, {n.i64("axis", 2)})
          : Value();
  gathered =
      gathered ? n.reshape(gathered, {boxes, channels, 4, taps}) : Value();
  Value weighted = a.mul(gathered, n.reshape(weight, {boxes, 1, 4, taps}));
  if (!weighted)
    return failure();
  // The four neighbours, then the bin's samples.
  bool avg = mode == "avg";
  auto reduce = [&](Value v, ArrayRef<int64_t> axes) -> Value {
    SmallVector<NamedAttribute> attrs = {n.i64Array("axes", axes),
                                         n.boolean("keepdims", false)};
    return avg ? n.create<ReduceSumOp>(v, attrs)
               : n.create<ReduceMaxOp>(v, attrs);
  };
  Value perSample = reduce(weighted, {2});
  perSample = perSample ? n.reshape(perSample, {boxes, channels, outH, samples,
                                                outW, samples})
                        : Value();
  Value out = perSample ? reduce(perSample, {3, 5}) : Value();
  if (avg)
    out = a.div(out, a.scalar(double(samples * samples)));
  if (out && elt != f32)
    out = n.create<CastOp>(out, {}, NodeContext::getType(out).clone(elt));
  if (!out)
    return failure();
  r.push_back(out);
  return success();
}
