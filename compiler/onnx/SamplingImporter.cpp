//===- SamplingImporter.cpp - ONNX RoiAlign and DeformConv ----------------===//
//
// Operators that read their input at positions computed at run time, as
// bilinear samples, composed from dlc ops after onnx's reference
// implementations: the sample coordinates are tensors, the four neighbours
// of every sample are gathered with one dlc.gather_elements, weighted and
// reduced.
//
// - RoiAlign (Mask R-CNN's and torchvision's box pooling,
//   onnx/reference/ops/op_roi_align.py): each output bin of each box
//   averages (or takes the max of) a fixed sampling_ratio x sampling_ratio
//   grid of samples, their coordinates [R, bins, samples] per axis in the
//   reference's order of f32 operations.
// - DeformConv (deformable convolution v1/v2, op_deform_conv.py): each
//   kernel tap samples the input at its position plus a learned offset
//   (zeros outside, GridSample's bilinear with align_corners), scaled by
//   the mask; the sampled columns then meet the weights in one grouped
//   matmul.
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

class SamplingBuilder {
public:
  explicit SamplingBuilder(NodeContext &n) : n(n) {}

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
  /// `v` as element type `t` (itself when it is; null stays null).
  Value cast(Value v, Type t) { return castTo(n, v, t); }
  Value toI64(Value v) { return cast(v, n.b.getI64Type()); }
  Value toF32(Value v) { return cast(v, n.b.getF32Type()); }

  /// The op's result: `out` back in the input's element type `elt`.
  LogicalResult finish(Value out, Type elt, SmallVectorImpl<Value> &r) {
    out = cast(out, elt);
    if (!out)
      return failure();
    r.push_back(out);
    return success();
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

  SamplingBuilder a(n);
  auto toF32 = [&](Value v) { return a.toF32(v); };
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
  return a.finish(out, elt, r);
}

//===----------------------------------------------------------------------===//
// DeformConv
//===----------------------------------------------------------------------===//

LogicalResult onnx_import::importDeformConv(NodeContext &n,
                                            SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 5)) ||
      failed(n.checkKnownAttrs({"dilations", "group", "kernel_shape",
                                "offset_group", "pads", "strides"})))
    return failure();
  Value x = n.input(0), w = n.input(1), offset = n.input(2), bias = n.input(3),
        mask = n.input(4);
  auto xType = NodeContext::getType(x);
  Type elt = xType.getElementType();
  if (xType.getRank() != 4 || !isa<FloatType>(elt))
    return n.emitError() << "X must be a float [N, C, H, W] tensor (2-D "
                            "deformable convolution), got "
                         << x.getType();
  for (Value v : {w, offset, bias, mask})
    if (v && NodeContext::getType(v).getElementType() != elt)
      return n.emitError() << "W, offset, B and mask must have X's type, got "
                           << v.getType();
  ArrayRef<int64_t> xs = xType.getShape(),
                    ws = NodeContext::getType(w).getShape(),
                    os = NodeContext::getType(offset).getShape();
  int64_t batch = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  int64_t group = n.getInt("group", 1),
          offsetGroup = n.getInt("offset_group", 1);
  auto kernel = n.getInts("kernel_shape");
  auto strides = n.getInts("strides"), dilations = n.getInts("dilations"),
       pads = n.getInts("pads");
  if (n.hasFailed())
    return failure();
  if (ws.size() != 4 || os.size() != 4)
    return n.emitError() << "W must be [OC, C / group, kH, kW] and offset [N, "
                            "offset_group * kH * kW * 2, oH, oW], got "
                         << w.getType() << " and " << offset.getType();
  SmallVector<int64_t> k =
      kernel ? *kernel : SmallVector<int64_t>{ws[2], ws[3]};
  SmallVector<int64_t> s = strides ? *strides : SmallVector<int64_t>{1, 1};
  SmallVector<int64_t> d = dilations ? *dilations : SmallVector<int64_t>{1, 1};
  SmallVector<int64_t> p = pads ? *pads : SmallVector<int64_t>{0, 0, 0, 0};
  auto inRange = [](ArrayRef<int64_t> v, size_t size, int64_t lo) {
    return v.size() == size && llvm::all_of(v, [&](int64_t e) {
             return e >= lo && e <= (int64_t(1) << 20);
           });
  };
  if (!inRange(k, 2, 1) || !inRange(s, 2, 1) || !inRange(d, 2, 1) ||
      !inRange(p, 4, 0))
    return n.emitError() << "kernel_shape, strides and dilations must be 2 "
                            "values in [1, 2^20] and pads 4 in [0, 2^20]";
  int64_t outChannels = ws[0];
  if (group < 1 || offsetGroup < 1 || channels % group != 0 ||
      channels % offsetGroup != 0 || outChannels % group != 0 ||
      ws[1] * group != channels || ws[2] != k[0] || ws[3] != k[1])
    return n.emitError() << "W " << w.getType() << " does not fit X "
                         << x.getType() << " with group " << group
                         << ", offset_group " << offsetGroup << " and kernel ["
                         << k[0] << ", " << k[1] << "]";
  int64_t taps = k[0] * k[1];
  int64_t outH = (height + p[0] + p[2] - ((k[0] - 1) * d[0] + 1)) / s[0] + 1;
  int64_t outW = (width + p[1] + p[3] - ((k[1] - 1) * d[1] + 1)) / s[1] + 1;
  if (os[0] != batch || os[1] != offsetGroup * taps * 2 || os[2] != outH ||
      os[3] != outW || outH < 1 || outW < 1)
    return n.emitError() << "offset must be [" << batch << ", "
                         << offsetGroup * taps * 2 << ", " << outH << ", "
                         << outW << "], got " << offset.getType();
  if (mask && NodeContext::getType(mask).getShape() !=
                  ArrayRef<int64_t>{batch, offsetGroup * taps, outH, outW})
    return n.emitError() << "mask must be [" << batch << ", "
                         << offsetGroup * taps << ", " << outH << ", " << outW
                         << "], got " << mask.getType();
  if (bias &&
      NodeContext::getType(bias).getShape() != ArrayRef<int64_t>{outChannels})
    return n.emitError() << "B must be [" << outChannels << "], got "
                         << bias.getType();
  int64_t positions = outH * outW;
  int64_t perGroup = channels / offsetGroup;
  if (batch * channels > kMaxGathered / (4 * taps) / positions)
    return n.emitError() << "gathers " << batch * channels << " x " << 4 * taps
                         << " x " << positions << " samples, more than 2^31";

  SamplingBuilder a(n);
  auto toF32 = [&](Value v) { return a.toF32(v); };
  // Each tap's position without its offset: [1, 1, taps, positions] per axis.
  SmallVector<float> baseH, baseW;
  for (int64_t ki = 0; ki < k[0]; ++ki)
    for (int64_t kj = 0; kj < k[1]; ++kj)
      for (int64_t i = 0; i < outH; ++i)
        for (int64_t j = 0; j < outW; ++j) {
          baseH.push_back(float(i * s[0] - p[0] + ki * d[0]));
          baseW.push_back(float(j * s[1] - p[1] + kj * d[1]));
        }
  // offset: [N, G * taps * 2, oH, oW] -> [N, G, taps, 2, positions].
  Value off =
      n.reshape(toF32(offset), {batch, offsetGroup, taps, 2, positions});
  auto along = [&](int64_t i, ArrayRef<float> base) -> Value {
    Value o = off ? sliceAxis(n, off, 3, i, i + 1) : Value();
    o = o ? n.reshape(o, {batch, offsetGroup, taps, positions}) : Value();
    return a.add(a.f32({1, 1, taps, positions}, base), o);
  };
  Value py = along(0, baseH), px = along(1, baseW);
  if (!py || !px)
    return failure();
  // Bilinear with zeros outside (GridSample, align_corners): each neighbour
  // inside the image weighs (1 - |t - neighbour|).
  Value widthI = splat(n, {}, n.b.getI64Type(), double(width));
  auto neighbours =
      [&](Value t, int64_t extent) -> std::array<std::pair<Value, Value>, 2> {
    Value lo = n.create<FloorOp>({t});
    Value frac = lo ? n.create<SubOp>({t, lo}) : Value();
    Value hi = lo ? n.create<AddOp>({lo, a.scalar(1.0)}) : Value();
    Value loW = frac ? n.create<SubOp>({a.scalar(1.0), frac}) : Value();
    std::array<std::pair<Value, Value>, 2> out;
    for (auto [i, pos, weight] :
         {std::tuple(0, lo, loW), std::tuple(1, hi, frac)}) {
      if (!pos || !weight)
        return {};
      Value inside = n.create<AndOp>(
          {n.create<GreaterOrEqualOp>({pos, a.scalar(0.0)}),
           n.create<LessOrEqualOp>({pos, a.scalar(double(extent - 1))})});
      Value clamped = n.create<MinOp>({n.create<MaxOp>({pos, a.scalar(0.0)}),
                                       a.scalar(double(extent - 1))});
      out[i] = {a.toI64(clamped),
                n.create<WhereOp>({inside, weight, a.scalar(0.0)})};
    }
    return out;
  };
  auto ny = neighbours(py, height), nx = neighbours(px, width);
  if (!ny[1].first || !nx[1].first)
    return failure();
  Value maskF =
      mask ? n.reshape(toF32(mask), {batch, offsetGroup, taps, positions})
           : Value();
  SmallVector<Value> indices, weights;
  for (auto [yPos, yWeight] : ny)
    for (auto [xPos, xWeight] : nx) {
      Value index = a.add(a.mul(yPos, widthI), xPos);
      Value weight = a.mul(yWeight, xWeight);
      if (maskF)
        weight = a.mul(weight, maskF);
      if (!index || !weight)
        return failure();
      indices.push_back(
          n.reshape(index, {batch, offsetGroup, 1, 1, taps * positions}));
      weights.push_back(
          n.reshape(weight, {batch, offsetGroup, 1, 1, taps * positions}));
    }
  // [N, G, 1, 4, taps * positions], the index over each group's channels.
  Value index = n.create<ConcatOp>(indices, {n.i64("axis", 3)});
  Value weight = n.create<ConcatOp>(weights, {n.i64("axis", 3)});
  if (!index || !weight)
    return failure();
  index = n.create<ExpandOp>(
      index, {n.i64Array("shape",
                         {batch, offsetGroup, perGroup, 4, taps * positions})});
  index = index ? n.reshape(index, {batch, channels, 4 * taps * positions})
                : Value();
  Value image = n.reshape(toF32(x), {batch, channels, height * width});
  Value samples =
      image && index
          ? n.create<GatherElementsOp>({image, index}, {n.i64("axis", 2)})
          : Value();
  samples = samples ? n.reshape(samples, {batch, offsetGroup, perGroup, 4,
                                          taps * positions})
                    : Value();
  Value columns = a.mul(samples, weight);
  columns = columns
                ? n.create<ReduceSumOp>(columns, {n.i64Array("axes", {3}),
                                                  n.boolean("keepdims", false)})
                : Value();
  // The grouped convolution as a matmul: [N, group, (C / group) * taps, P].
  int64_t inPerGroup = channels / group, outPerGroup = outChannels / group;
  columns =
      columns ? n.reshape(columns, {batch, group, inPerGroup * taps, positions})
              : Value();
  Value weights2 =
      n.reshape(toF32(w), {1, group, outPerGroup, inPerGroup * taps});
  Value out =
      columns && weights2 ? n.create<MatMulOp>({weights2, columns}) : Value();
  out = out ? n.reshape(out, {batch, outChannels, outH, outW}) : Value();
  if (out && bias)
    out = a.add(out, n.reshape(toF32(bias), {1, outChannels, 1, 1}));
  return a.finish(out, elt, r);
}
