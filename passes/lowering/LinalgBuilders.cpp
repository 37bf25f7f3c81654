//===- LinalgBuilders.cpp - shared pieces of the dlc -> linalg lowering ---===//

#include "passes/lowering/LinalgBuilders.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dlc;

Value mlir::dlc::readWithPadding(OpBuilder &b, Location loc, Value source,
                                 ArrayRef<Value> indices,
                                 ArrayRef<bool> mayBeOutside, Value padValue) {
  auto shape = cast<RankedTensorType>(source.getType()).getShape();
  Value valid;
  SmallVector<Value> clamped;
  Value zero = indexConstant(b, loc, 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!mayBeOutside[i]) {
      clamped.push_back(indices[i]);
      continue;
    }
    Value upper = indexConstant(b, loc, shape[i]);
    Value ge = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                       indices[i], zero);
    Value lt = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                       indices[i], upper);
    Value ok = b.create<arith::AndIOp>(loc, ge, lt);
    valid = valid ? b.create<arith::AndIOp>(loc, valid, ok).getResult() : ok;
    Value c = b.create<arith::MaxSIOp>(loc, indices[i], zero);
    clamped.push_back(
        b.create<arith::MinSIOp>(loc, c, indexConstant(b, loc, shape[i] - 1)));
  }
  Value v = b.create<tensor::ExtractOp>(loc, source, clamped);
  if (!valid)
    return v;
  return b.create<arith::SelectOp>(loc, valid, v, padValue);
}

Value Window::position(OpBuilder &b, Location loc, int64_t i, Value o,
                       Value r) const {
  Value p = b.create<arith::MulIOp>(loc, o, indexConstant(b, loc, strides[i]));
  Value q =
      b.create<arith::MulIOp>(loc, r, indexConstant(b, loc, dilations[i]));
  Value s = b.create<arith::AddIOp>(loc, p, q);
  return b.create<arith::SubIOp>(loc, s, indexConstant(b, loc, pads[i]));
}

SmallVector<utils::IteratorType> ConvIndexing::iterators() const {
  SmallVector<utils::IteratorType> iters(2 + k(),
                                         utils::IteratorType::parallel);
  iters.append(1 + k(), utils::IteratorType::reduction);
  return iters;
}

AffineMap ConvIndexing::weightMap() const {
  SmallVector<AffineExpr> exprs{getAffineDimExpr(1, ctx)};
  if (!weightChannelsLast)
    exprs.push_back(getAffineDimExpr(2 + k(), ctx));
  for (int64_t i = 0; i < k(); ++i)
    exprs.push_back(getAffineDimExpr(3 + k() + i, ctx));
  if (weightChannelsLast)
    exprs.push_back(getAffineDimExpr(2 + k(), ctx));
  return AffineMap::get(numDims(), 0, exprs, ctx);
}

AffineMap ConvIndexing::outputMap() const {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < 2 + k(); ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(numDims(), 0, exprs, ctx);
}

AffineMap ConvIndexing::inputMap() const {
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  // One group: the input channel does not depend on the output channel.
  AffineExpr channel =
      window.outShape[1] == outPerGroup
          ? d(2 + k())
          : d(1).floorDiv(outPerGroup) * inPerGroup + d(2 + k());
  SmallVector<AffineExpr> exprs{d(0), channel};
  for (int64_t i = 0; i < k(); ++i)
    exprs.push_back(d(2 + i) * window.strides[i] +
                    d(3 + k() + i) * window.dilations[i]);
  return AffineMap::get(numDims(), 0, exprs, ctx);
}

/// The input channel a grouped convolution reads for output channel `o`
/// and channel `c` of the group: (o / outPerGroup) * inPerGroup + c.
static Value groupedInputChannel(OpBuilder &b, Location loc, Value o, Value c,
                                 int64_t outPerGroup, int64_t inPerGroup) {
  Value g =
      b.create<arith::DivUIOp>(loc, o, indexConstant(b, loc, outPerGroup));
  return b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, g, indexConstant(b, loc, inPerGroup)),
      c);
}

Value ConvIndexing::readInput(OpBuilder &b, Location loc, Value input,
                              Value padValue) const {
  SmallVector<Value> dims;
  for (int64_t i = 0; i < numDims(); ++i)
    dims.push_back(b.create<linalg::IndexOp>(loc, i));
  Value c = groupedInputChannel(b, loc, dims[1], dims[2 + k()], outPerGroup,
                                inPerGroup);
  SmallVector<Value> idx{dims[0], c};
  SmallVector<bool> check{false, false};
  for (int64_t i = 0; i < k(); ++i) {
    idx.push_back(window.position(b, loc, i, dims[2 + i], dims[3 + k() + i]));
    check.push_back(window.mayLeave(i));
  }
  return readWithPadding(b, loc, input, idx, check, padValue);
}

AffineMap mlir::dlc::batchedOperandMap(RankedTensorType out, Value operand,
                                       AffineExpr row, AffineExpr col) {
  MLIRContext *ctx = out.getContext();
  int64_t batch = out.getRank() - 2, numDims = out.getRank() + 1;
  auto shape = cast<RankedTensorType>(operand.getType()).getShape();
  int64_t vb = shape.size() - 2;
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < vb; ++i)
    exprs.push_back(shape[i] == 1 && out.getDimSize(batch - vb + i) != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(batch - vb + i, ctx));
  exprs.push_back(row);
  exprs.push_back(col);
  return AffineMap::get(numDims, 0, exprs, ctx);
}

SmallVector<utils::IteratorType> ChannelsLastConvIndexing::iterators() const {
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  iters.append(3, utils::IteratorType::reduction);
  return iters;
}

AffineMap ChannelsLastConvIndexing::inputMap() const {
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr c = d(6);
  if (groups != 1)
    c = d(3).floorDiv(outPerGroup) * inPerGroup + c;
  return AffineMap::get(numDims, 0,
                        {d(0), d(1) * strides[0] + d(4) * dilations[0],
                         d(2) * strides[1] + d(5) * dilations[1], c},
                        ctx);
}

Value ChannelsLastConvIndexing::readInput(OpBuilder &b, Location loc,
                                          Value input, const Window &win,
                                          Value padValue) const {
  SmallVector<Value> d;
  for (int64_t i = 0; i < numDims; ++i)
    d.push_back(b.create<linalg::IndexOp>(loc, i));
  Value c = groups == 1 ? d[6]
                        : groupedInputChannel(b, loc, d[3], d[6], outPerGroup,
                                              inPerGroup);
  SmallVector<Value> idx{d[0], win.position(b, loc, 0, d[1], d[4]),
                         win.position(b, loc, 1, d[2], d[5]), c};
  return readWithPadding(b, loc, input, idx,
                         {false, win.mayLeave(0), win.mayLeave(1), false},
                         padValue);
}

AffineMap ChannelsLastConvIndexing::weightMap() const {
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  if (weightOutputsInnermost)
    return AffineMap::get(numDims, 0, {d(6), d(4), d(5), d(3)}, ctx);
  return AffineMap::get(numDims, 0, {d(3), d(4), d(5), d(6)}, ctx);
}

Value mlir::dlc::channelsLastConvWeight(OpBuilder &b, Location loc,
                                        Value weight,
                                        ChannelsLastConvIndexing &conv) {
  // Only without input channels to reduce over per output channel: a dense
  // conv keeps [O, KH, KW, C], the B operand of its implicit GEMM.
  if (conv.inPerGroup != 1)
    return weight;
  Value permuted = permutedConstant(b, loc, weight, {3, 1, 2, 0}, "_dw");
  if (!permuted)
    return weight;
  conv.weightOutputsInnermost = true;
  return permuted;
}

AffineMap ChannelsLastConvIndexing::outputMap() const {
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  return AffineMap::get(numDims, 0, {d(0), d(1), d(2), d(3)}, ctx);
}

Value mlir::dlc::paddedConvWeight(OpBuilder &b, Location loc, Value weight,
                                  int64_t multiple, int64_t &channels) {
  int64_t c = cast<RankedTensorType>(weight.getType()).getDimSize(3);
  if (c % multiple == 0)
    return {};
  int64_t padded = llvm::alignTo(c, multiple);
  Value w = paddedLastDimConstant(b, loc, weight, padded,
                                  ("_c" + Twine(multiple)).str());
  if (w)
    channels = padded;
  return w;
}

/// A parallel linalg.generic over a new tensor of `shape` whose only input
/// is `padValue` (a rank-0 tensor) when given; `body` gets the pad value
/// (`padValue`'s element, or zero when null) and yields the element.
static linalg::GenericOp
padValueGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elt,
                Value padValue,
                function_ref<Value(OpBuilder &, Location, Value)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  Value init = b.create<tensor::EmptyOp>(loc, shape, elt);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (padValue) {
    inputs.push_back(padValue);
    maps.push_back(AffineMap::get(rank, 0, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return b.create<linalg::GenericOp>(
      loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value pad = padValue ? a[0]
                             : nb.create<arith::ConstantOp>(
                                   l, cast<TypedAttr>(nb.getZeroAttr(elt)));
        nb.create<linalg::YieldOp>(l, body(nb, l, pad));
      });
}

/// `input` copied into a tensor of `shape`, element i at i + `begin`, the
/// rest `padValue` (a rank-0 tensor, read as an input) or zero when null:
/// one linalg.generic over the padded tensor.
static linalg::GenericOp paddedCopy(OpBuilder &b, Location loc, Value input,
                                    ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> begin, Value padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  return padValueGeneric(
      b, loc, shape, type.getElementType(), padValue,
      [&](OpBuilder &nb, Location l, Value pad) {
        SmallVector<Value> idx;
        SmallVector<bool> outside;
        for (int64_t i = 0; i < rank; ++i) {
          idx.push_back(nb.create<linalg::IndexOp>(l, i));
          if (begin[i] != 0)
            idx[i] = nb.create<arith::SubIOp>(l, idx[i],
                                              indexConstant(nb, l, begin[i]));
          outside.push_back(shape[i] != type.getDimSize(i));
        }
        return readWithPadding(nb, l, input, idx, outside, pad);
      });
}

/// The input `makeInput` builds (after the fill) copied over a new tensor of
/// `shape` and element `elt` that holds `padValue` (a rank-0 tensor, read as
/// an input; zero when null) everywhere: one generic fills it, one more
/// writes input element `read`'s dims at `write` (a shifted map: the host
/// runs both as rows of consecutive elements, where one generic reading the
/// input at clamped indices stayed scalar or gathered).
static Value fillThenCopyOver(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, Type elt, Value padValue,
                              function_ref<Value()> makeInput, AffineMap read,
                              AffineMap write) {
  Value filled =
      padValueGeneric(b, loc, shape, elt, padValue,
                      [](OpBuilder &, Location, Value pad) { return pad; })
          .getResult(0);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{filled.getType()}, ValueRange{makeInput()},
          ValueRange{filled}, ArrayRef<AffineMap>{read, write},
          SmallVector<utils::IteratorType>(read.getNumDims(),
                                           utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(l, a[0]);
          })
      .getResult(0);
}

bool mlir::dlc::writesShifted(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return !op.getMatchingIndexingMap(&init).isProjectedPermutation(
        /*allowZeroInResults=*/true);
  });
}

Value mlir::dlc::padChannelsLast(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> pads, Value padValue,
                                 int64_t channels) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[1] += pads[0] + pads[2];
  shape[2] += pads[1] + pads[3];
  bool padC = channels > shape[3];
  if (padC)
    shape[3] = channels;
  linalg::GenericOp generic =
      paddedCopy(b, loc, input, shape, {0, pads[0], pads[1], 0}, padValue);
  if (!padC)
    generic->setAttr(attrs::kPadding, b.getDenseI64ArrayAttr(pads));
  return generic.getResult(0);
}

Value mlir::dlc::padSpatial(OpBuilder &b, Location loc, Value input,
                            const Window &win, Value padValue,
                            Window &paddedWin,
                            SmallVectorImpl<int64_t> &storage, int64_t channels,
                            bool fillThenCopy, int64_t alignInterior) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), k = win.spatial();
  // storage: the padded shape, then k zero pads (begin and end).
  storage.assign(type.getShape().begin(), type.getShape().end());
  if (win.firstSpatial == 2)
    storage[1] = std::max(storage[1], channels);
  SmallVector<int64_t> begin(rank, 0);
  for (int64_t i = 0; i < k; ++i) {
    storage[win.firstSpatial + i] += win.pads[i] + win.pads[k + i];
    begin[win.firstSpatial + i] = win.pads[i];
  }
  storage.append(2 * k, 0);
  ArrayRef<int64_t> shape = ArrayRef<int64_t>(storage).take_front(rank);
  paddedWin = win;
  paddedWin.inShape = shape;
  paddedWin.pads = ArrayRef<int64_t>(storage).drop_front(rank);
  // The shifted map's result along a dim padded at its end only is that
  // dim itself, whose extent linalg then requires to be the input's.
  bool endOnly = false;
  for (int64_t i = 0; i < k; ++i)
    endOnly |= win.pads[i] == 0 && win.pads[k + i] != 0;
  if (!fillThenCopy || endOnly || shape[1] != type.getDimSize(1))
    return paddedCopy(b, loc, input, shape, begin, padValue).getResult(0);
  // The padding value everywhere, then the input copied over it through a
  // shifted output map (the one generic over the padded tensor read the
  // input at clamped indices, which kept it scalar: ~1 byte a cycle).
  MLIRContext *ctx = b.getContext();
  // With `alignInterior` the rows start `alignInterior` elements into a
  // buffer whose rows are a multiple of that long, and the copy is a view
  // of it: whatever writes the interior (the copy, or its producer:
  // dlc-fold-padded-copies) stores aligned vectors.
  int64_t last = rank - 1, lead = begin[last];
  SmallVector<int64_t> bufferShape(shape);
  // (Rows shorter than that gain no aligned vector and take one more.)
  if (alignInterior > lead && type.getShape()[last] >= alignInterior) {
    begin[last] = alignInterior;
    bufferShape[last] =
        llvm::alignTo(alignInterior - lead + shape[last], alignInterior);
  }
  SmallVector<AffineExpr> shifted;
  for (int64_t i = 0; i < rank; ++i)
    shifted.push_back(getAffineDimExpr(i, ctx) + begin[i]);
  Value buffer = fillThenCopyOver(
      b, loc, bufferShape, type.getElementType(), padValue,
      [&] { return input; }, AffineMap::getMultiDimIdentityMap(rank, ctx),
      AffineMap::get(rank, 0, shifted, ctx));
  if (bufferShape == shape)
    return buffer;
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  offsets[last] = begin[last] - lead;
  return b.create<tensor::ExtractSliceOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), buffer,
      ValueRange{}, ValueRange{}, ValueRange{}, offsets, shape, strides);
}

/// The phases [N, C, s, s, Hq, Wq] phaseSplitSpatial makes of an input of
/// `type` under `win`, or nothing when it does not apply.
static std::optional<SmallVector<int64_t>> phaseShape(RankedTensorType type,
                                                      const Window &win) {
  if (!type.hasStaticShape() || type.getRank() != 4 || win.spatial() != 2 ||
      win.firstSpatial != 2)
    return std::nullopt;
  // (At most 4 and the window's size: more phases than taps hold inputs
  // no tap reads.)
  int64_t s = win.strides[0];
  if (s < 2 || s > 4 || s > std::max(win.kernel[0], win.kernel[1]) ||
      win.strides[1] != s ||
      llvm::any_of(win.dilations, [](int64_t d) { return d != 1; }) ||
      (win.kernel[0] == 1 && win.kernel[1] == 1))
    return std::nullopt;
  int64_t hp = type.getDimSize(2) + win.pads[0] + win.pads[2];
  int64_t wp = type.getDimSize(3) + win.pads[1] + win.pads[3];
  return SmallVector<int64_t>{type.getDimSize(0), type.getDimSize(1), s, s,
                              (hp + s - 1) / s,   (wp + s - 1) / s};
}

Value mlir::dlc::phaseSplitSpatial(OpBuilder &b, Location loc, Value input,
                                   const Window &win, Value padValue,
                                   int64_t extraRows, int64_t channels) {
  auto type = cast<RankedTensorType>(input.getType());
  std::optional<SmallVector<int64_t>> shape = phaseShape(type, win);
  if (!shape)
    return {};
  (*shape)[4] += extraRows;
  bool moreChannels = channels > (*shape)[1];
  if (moreChannels)
    (*shape)[1] = channels;
  int64_t s = win.strides[0];
  Type elt = type.getElementType();
  MLIRContext *ctx = b.getContext();
  // Input dims that are whole multiples of s: the padding value
  // everywhere, then the input copied over it, as [N, C, H / s, s, W / s,
  // s] over (n, c, a, b, y, x) to phase ((a + pad) mod s, (b + pad) mod s)
  // at (y + (a + pad) floordiv s, x + (b + pad) floordiv s), its rows read
  // s apart and written consecutively. The one generic over the phases
  // read the input at clamped indices, which LLVM gathered (0.21-0.30 ms
  // for a 224x224 stem's phases, 6% of int8 mobilenet_v2).
  int64_t h = type.getDimSize(2), w = type.getDimSize(3);
  if (h % s == 0 && w % s == 0) {
    auto split = [&]() -> Value {
      return b.create<tensor::ExpandShapeOp>(
          loc,
          RankedTensorType::get(
              {type.getDimSize(0), type.getDimSize(1), h / s, s, w / s, s},
              elt),
          input, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
    };
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr a = d(2) + win.pads[0], c = d(3) + win.pads[1];
    AffineMap read =
        AffineMap::get(6, 0, {d(0), d(1), d(4), d(2), d(5), d(3)}, ctx);
    // With more channels than the input's (their padding value from the
    // fill), the channel is written as c mod channels, which equals c: a
    // plain c would make the phases' channels the loop's extent.
    AffineExpr channel = moreChannels ? d(1) % (*shape)[1] : d(1);
    AffineMap write =
        AffineMap::get(6, 0,
                       {d(0), channel, a % s, c % s, d(4) + a.floorDiv(s),
                        d(5) + c.floorDiv(s)},
                       ctx);
    return fillThenCopyOver(b, loc, *shape, elt, padValue, split, read, write);
  }
  Value init = b.create<tensor::EmptyOp>(loc, *shape, elt);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (padValue) {
    inputs.push_back(padValue);
    maps.push_back(AffineMap::get(6, 0, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(6, ctx));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            auto index = [&](int64_t d) -> Value {
              return nb.create<linalg::IndexOp>(l, d);
            };
            // (y * s + a - pad, x * s + b - pad) of the input.
            auto position = [&](int64_t phase, int64_t at, int64_t pad) {
              Value p = nb.create<arith::AddIOp>(
                  l,
                  nb.create<arith::MulIOp>(l, index(at),
                                           indexConstant(nb, l, s)),
                  index(phase));
              return nb.create<arith::SubIOp>(l, p, indexConstant(nb, l, pad))
                  .getResult();
            };
            Value pad = padValue
                            ? a[0]
                            : nb.create<arith::ConstantOp>(
                                    l, cast<TypedAttr>(nb.getZeroAttr(elt)))
                                  .getResult();
            SmallVector<Value> idx{index(0), index(1),
                                   position(2, 4, win.pads[0]),
                                   position(3, 5, win.pads[1])};
            nb.create<linalg::YieldOp>(
                l, readWithPadding(nb, l, input, idx,
                                   {false, moreChannels, true, true}, pad));
          })
      .getResult(0);
}

SmallVector<utils::IteratorType> RowConv::iterators() const {
  SmallVector<utils::IteratorType> iters(numDims() - 3,
                                         utils::IteratorType::parallel);
  iters.append(3, utils::IteratorType::reduction);
  return iters;
}

AffineMap RowConv::inputMap() const {
  unsigned rank = numDims();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr c = d(rank - 3), i = d(rank - 2), j = d(rank - 1);
  SmallVector<AffineExpr> read{d(0), depthwise ? d(1) : c};
  if (stride > 1)
    read.append({i % stride, j % stride});
  AffineExpr di = stride > 1 ? i.floorDiv(stride) : i;
  AffineExpr dj = stride > 1 ? j.floorDiv(stride) : j;
  if (onPlane)
    read.push_back(d(2) + di * width + dj);
  else
    read.append({d(2) + di, d(3) + dj});
  return AffineMap::get(rank, 0, read, ctx);
}

AffineMap RowConv::weightMap(bool channelsLast) const {
  unsigned rank = numDims();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (channelsLast)
    return AffineMap::get(rank, 0,
                          {d(1), d(rank - 2), d(rank - 1), d(rank - 3)}, ctx);
  return AffineMap::get(rank, 0, {d(1), d(rank - 3), d(rank - 2), d(rank - 1)},
                        ctx);
}

AffineMap RowConv::outputMap() const {
  SmallVector<AffineExpr> out;
  for (unsigned i = 0; i < numDims() - 3; ++i)
    out.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(numDims(), 0, out, ctx);
}

Value RowConv::outputs(OpBuilder &b, Location loc, Value acc,
                       RankedTensorType outType) const {
  if (!onPlane)
    return acc;
  AffineExpr y = getAffineDimExpr(2, ctx), x = getAffineDimExpr(3, ctx);
  Type elt = outType.getElementType();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{outType}, ValueRange{acc},
          ValueRange{b.create<tensor::EmptyOp>(loc, outType.getShape(), elt)},
          ArrayRef<AffineMap>{
              AffineMap::get(4, 0,
                             {getAffineDimExpr(0, ctx),
                              getAffineDimExpr(1, ctx), y * width + x},
                             ctx),
              AffineMap::getMultiDimIdentityMap(4, ctx)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(l, a[0]);
          })
      .getResult(0);
}

/// The positions of a plane of `width` whose outputs end at `plane`, rounded
/// up to `multiple` within `maxRow`, and the rows of `width` the window's
/// reads (`reach` past a position) then need: at least `rows`.
static std::pair<int64_t, int64_t> roundedPlane(int64_t plane, int64_t width,
                                                int64_t rows, int64_t reach,
                                                int64_t multiple,
                                                int64_t maxRow) {
  int64_t positions = llvm::alignTo(plane, std::max<int64_t>(multiple, 1));
  if (positions > maxRow)
    positions = plane;
  int64_t needed = (positions + reach + width - 1) / width;
  return {positions, std::max(rows, needed)};
}

std::optional<RowConv> mlir::dlc::rowConv(OpBuilder &b, Location loc,
                                          Value input, const Window &win,
                                          int64_t maxRow, int64_t rowMultiple,
                                          Value padValue, int64_t channels,
                                          int64_t groups, int64_t readWidth) {
  auto inType = cast<RankedTensorType>(input.getType());
  if (maxRow <= 0 || win.spatial() != 2 || win.firstSpatial != 2 ||
      !inType.hasStaticShape() || inType.getRank() != 4 ||
      llvm::any_of(win.outShape, ShapedType::isDynamic) ||
      llvm::any_of(win.kernel, ShapedType::isDynamic) ||
      llvm::any_of(win.dilations, [](int64_t d) { return d != 1; }) ||
      win.kernel[0] * win.kernel[1] == 1)
    return std::nullopt;
  int64_t n = win.outShape[0], k = win.outShape[1];
  int64_t oh = win.outShape[2], ow = win.outShape[3];
  int64_t kh = win.kernel[0], kw = win.kernel[1];
  // A depthwise conv of one output channel a group.
  bool depthwise = groups != 1;
  if (depthwise && (groups != inType.getDimSize(1) || groups != k))
    return std::nullopt;
  // Output rows shorter than a tile, a register row, and enough rows (a 1x1
  // window's plane is its input's: dlc-collapse-row-planes; fewer rows, and
  // the plane's rows were the work items' parallelism).
  auto qualifies = [&](int64_t plane) {
    return ow < 16 && oh >= 2 && plane <= maxRow && n * k >= kMinPlaneRows;
  };
  MLIRContext *ctx = b.getContext();
  RowConv conv;
  conv.ctx = ctx;
  conv.depthwise = depthwise;
  conv.stride = win.strides[0];
  conv.channels = inType.getDimSize(1);
  // A depthwise conv's channels are its groups: none to add.
  channels = depthwise ? conv.channels : std::max(channels, conv.channels);
  if (llvm::all_of(win.strides, [](int64_t s) { return s == 1; })) {
    bool padded = win.padded();
    if (padded && !win.insideWhenPadded())
      return std::nullopt;
    int64_t hp = inType.getDimSize(2) + win.pads[0] + win.pads[2];
    int64_t wp = inType.getDimSize(3) + win.pads[1] + win.pads[3];
    int64_t plane = (oh - 1) * wp + ow;
    if (!qualifies(plane))
      return std::nullopt;
    // An unpadded input holds the extra taps' reads where they stay in it.
    conv.readWidth = std::max(kw, readWidth);
    if (!padded && plane + (kh - 1) * wp + conv.readWidth - 1 > hp * wp)
      conv.readWidth = kw;
    int64_t reach = (kh - 1) * wp + conv.readWidth - 1;
    auto [positions, rows] =
        roundedPlane(plane, wp, hp, reach, padded ? rowMultiple : 1, maxRow);
    Value source = input;
    if (padded) {
      // The rounded positions' windows read rows past the bottom pad.
      SmallVector<int64_t> pads(win.pads);
      pads[2] += rows - hp;
      Window extended = win;
      extended.pads = pads;
      Window paddedWin;
      SmallVector<int64_t> storage;
      // A depthwise conv's copy as the fill and a copy over it, rows the
      // host vectorizes (its 9 taps an output pay for little else).
      source = padSpatial(b, loc, input, extended, padValue, paddedWin, storage,
                          channels, /*fillThenCopy=*/depthwise);
      conv.channels = channels;
    }
    conv.width = wp;
    conv.accShape = {n, k, positions};
    conv.source = b.create<tensor::CollapseShapeOp>(
        loc, source, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return conv;
  }
  // A strided depthwise conv keeps its padded copy: its phases' copy (a
  // work item for each 7 elements, read at stride 2) took 3x the 14x14
  // to 7x7 conv's time.
  std::optional<SmallVector<int64_t>> shape = phaseShape(inType, win);
  if (!shape || depthwise)
    return std::nullopt;
  conv.readWidth = kw;
  int64_t s = conv.stride, hq = (*shape)[4], wq = (*shape)[5];
  // Every window inside the phases.
  if (oh - 1 + (kh - 1) / s >= hq || ow - 1 + (kw - 1) / s >= wq)
    return std::nullopt;
  int64_t plane = (oh - 1) * wq + ow;
  conv.onPlane = qualifies(plane);
  conv.width = wq;
  if (!conv.onPlane) {
    conv.accShape = {n, k, oh, ow};
    conv.source = phaseSplitSpatial(b, loc, input, win, padValue, 0, channels);
    conv.channels = channels;
    return conv;
  }
  auto [positions, rows] = roundedPlane(
      plane, wq, hq, ((kh - 1) / s) * wq + (kw - 1) / s, rowMultiple, maxRow);
  conv.accShape = {n, k, positions};
  Value phases =
      phaseSplitSpatial(b, loc, input, win, padValue, rows - hq, channels);
  conv.channels = channels;
  conv.source = b.create<tensor::CollapseShapeOp>(
      loc, phases, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3}, {4, 5}});
  return conv;
}

Value mlir::dlc::subsampleSpatial(OpBuilder &b, Location loc, Value input,
                                  const Window &win, Window &subsampledWin,
                                  SmallVectorImpl<int64_t> &storage) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), k = win.spatial();
  if (!type.hasStaticShape() || win.padded() ||
      llvm::any_of(win.kernel, [](int64_t r) { return r != 1; }) ||
      llvm::all_of(win.strides, [](int64_t s) { return s == 1; }))
    return {};
  MLIRContext *ctx = b.getContext();
  // storage: the copy's shape, then k unit strides.
  storage.assign(type.getShape().begin(), type.getShape().end());
  SmallVector<AffineExpr> reads;
  for (int64_t d = 0; d < rank; ++d)
    reads.push_back(getAffineDimExpr(d, ctx));
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = win.firstSpatial + i;
    storage[d] = win.outShape[d];
    reads[d] = reads[d] * win.strides[i];
  }
  storage.append(k, 1);
  ArrayRef<int64_t> shape = ArrayRef<int64_t>(storage).take_front(rank);
  Value init = b.create<tensor::EmptyOp>(loc, shape, type.getElementType());
  Value copy =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
           ArrayRef<AffineMap>{AffineMap::get(rank, 0, reads, ctx),
                               AffineMap::getMultiDimIdentityMap(rank, ctx)},
           SmallVector<utils::IteratorType>(rank,
                                            utils::IteratorType::parallel),
           [](OpBuilder &nb, Location l, ValueRange a) {
             nb.create<linalg::YieldOp>(l, a[0]);
           })
          .getResult(0);
  subsampledWin = win;
  subsampledWin.inShape = shape;
  subsampledWin.strides = ArrayRef<int64_t>(storage).drop_front(rank);
  return copy;
}

std::optional<SpaceToDepthConv>
mlir::dlc::spaceToDepthConv(OpBuilder &b, Location loc, Value input,
                            Value weight, ArrayRef<int64_t> outShape,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> dilations, int64_t groups,
                            int64_t channelMultiple, int64_t padValue) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  if (groups != 1 || strides.size() != 2 || pads.size() != 4 ||
      !inType.hasStaticShape() || !wType.hasStaticShape() ||
      llvm::any_of(strides, [](int64_t s) { return s != 2; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return std::nullopt;
  int64_t kh = wType.getDimSize(1), kw = wType.getDimSize(2);
  int64_t c = wType.getDimSize(3);
  int64_t kh2 = llvm::divideCeil(kh, 2), kw2 = llvm::divideCeil(kw, 2);
  int64_t cs = llvm::alignTo(4 * c, channelMultiple);
  // Only where the stride-1 form reduces over fewer (padded) products.
  if (kh2 * kw2 * cs >= kh * kw * int64_t(llvm::alignTo(c, channelMultiple)))
    return std::nullopt;
  SmallVector<int64_t> wShape{wType.getDimSize(0), kh2, kw2, cs};
  Value w = gatheredConstant(
      b, loc, weight, wShape,
      [&](ArrayRef<int64_t> idx, ArrayRef<int64_t>) -> int64_t {
        int64_t s = idx[3] / c;
        int64_t r = 2 * idx[1] + s / 2, q = 2 * idx[2] + s % 2;
        if (s >= 4 || r >= kh || q >= kw)
          return -1;
        return ((idx[0] * kh + r) * kw + q) * c + idx[3] % c;
      },
      "_s2d");
  if (!w)
    return std::nullopt;

  // The copy: [n, h, w, (sh * 2 + sw) * C + c] = x[n, 2h + sh - pad, 2w +
  // sw - pad, c], zero (an 8-bit `padValue`) outside x and in the padded
  // channels.
  MLIRContext *ctx = b.getContext();
  Type elt = inType.getElementType();
  SmallVector<int64_t> shape{inType.getDimSize(0), outShape[1] + kh2 - 1,
                             outShape[2] + kw2 - 1, cs};
  auto type = RankedTensorType::get(shape, elt);
  Value init = b.create<tensor::EmptyOp>(loc, shape, elt);
  bool padC = cs > 4 * c;
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t i = 0; i < 4; ++i)
          idx.push_back(nb.create<linalg::IndexOp>(l, i));
        Value cst = indexConstant(nb, l, c);
        Value two = indexConstant(nb, l, 2);
        Value s = nb.create<arith::DivUIOp>(l, idx[3], cst);
        Value ch = nb.create<arith::RemUIOp>(l, idx[3], cst);
        if (padC) {
          // Past the 4 * C real channels: C, outside x, so zero.
          Value real =
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult, idx[3],
                                       indexConstant(nb, l, 4 * c));
          ch = nb.create<arith::SelectOp>(l, real, ch, cst);
        }
        auto at = [&](Value o, Value sub, int64_t pad) -> Value {
          Value p = nb.create<arith::AddIOp>(
              l, nb.create<arith::MulIOp>(l, o, two), sub);
          return nb.create<arith::SubIOp>(l, p, indexConstant(nb, l, pad));
        };
        Value x = readWithPadding(
            nb, l, input,
            {idx[0], at(idx[1], nb.create<arith::DivUIOp>(l, s, two), pads[0]),
             at(idx[2], nb.create<arith::RemUIOp>(l, s, two), pads[1]), ch},
            {false, true, true, padC},
            nb.create<arith::ConstantOp>(
                l, elt.isInteger(8)
                       ? cast<TypedAttr>(nb.getIntegerAttr(
                             elt, APInt(8, uint64_t(padValue) & 0xff)))
                       : cast<TypedAttr>(nb.getZeroAttr(elt))));
        nb.create<linalg::YieldOp>(l, x);
      });
  return SpaceToDepthConv{generic.getResult(0), w};
}
