//===- LinalgBuilders.h - shared pieces of the dlc -> linalg lowering -*- C++
//-*-===//
//
// The indexing of convolutions, pooling windows and batched matmuls as one
// linalg.generic, shared by the float lowering (ConvertDlcToLinalg.cpp) and
// the integer one (ConvertQuantToLinalg.cpp), so both read padded windows
// and broadcast batch dims the same way.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_LOWERING_LINALGBUILDERS_H
#define DLC_PASSES_LOWERING_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::dlc {

inline Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

/// Reads `source[indices]` where `indices` may fall outside the tensor
/// (padding): returns `padValue` there. `mayBeOutside[i]` says which dims
/// need the check, so unpadded dims cost nothing.
Value readWithPadding(OpBuilder &b, Location loc, Value source,
                      ArrayRef<Value> indices, ArrayRef<bool> mayBeOutside,
                      Value padValue);

/// Sliding-window geometry shared by Conv and pooling (NC[D]HW, or NHWC
/// with `firstSpatial` 1).
struct Window {
  ArrayRef<int64_t> inShape, outShape, kernel, strides, pads, dilations;
  /// The dim of inShape/outShape holding the first spatial dim.
  int64_t firstSpatial = 2;

  int64_t spatial() const { return kernel.size(); }

  /// Whether positions along spatial dim `i` can leave the input.
  bool mayLeave(int64_t i) const {
    int64_t last = (outShape[firstSpatial + i] - 1) * strides[i] - pads[i] +
                   (kernel[i] - 1) * dilations[i];
    return pads[i] > 0 || last >= inShape[firstSpatial + i];
  }

  bool padded() const {
    for (int64_t i = 0; i < spatial(); ++i)
      if (mayLeave(i))
        return true;
    return false;
  }

  /// Whether every window stays inside the input once it is padded by
  /// `pads` (begin and end): then a padded copy needs no bounds checks.
  bool insideWhenPadded() const {
    for (int64_t i = 0; i < spatial(); ++i) {
      int64_t last = (outShape[firstSpatial + i] - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i];
      if (last >= inShape[firstSpatial + i] + pads[i] + pads[spatial() + i])
        return false;
    }
    return true;
  }

  /// Input position along spatial dim `i` for output `o` and window `r`.
  Value position(OpBuilder &b, Location loc, int64_t i, Value o, Value r) const;
};

/// A (grouped) convolution as one linalg.generic over
///   n, m, o_1..o_k (parallel), c, r_1..r_k (reduction),
/// c running over the input channels of m's group.
struct ConvIndexing {
  Window window;
  int64_t outPerGroup, inPerGroup;
  MLIRContext *ctx;
  /// The weight is laid out [m, r..., c] (its input channels innermost).
  bool weightChannelsLast = false;

  int64_t k() const { return window.spatial(); }
  int64_t numDims() const { return 3 + 2 * k(); }
  SmallVector<utils::IteratorType> iterators() const;
  /// weight[m, c, r...], or weight[m, r..., c] with weightChannelsLast.
  AffineMap weightMap() const;
  /// out[n, m, o...]
  AffineMap outputMap() const;
  /// input[n, group(m) * inPerGroup + c, o*s + r*d...]: valid only when no
  /// window leaves the input (!window.padded()).
  AffineMap inputMap() const;
  /// Inside the generic's body: the input element under the window, or
  /// `padValue` where the window leaves the input.
  Value readInput(OpBuilder &b, Location loc, Value input,
                  Value padValue) const;
};

/// A channels-last 2-D convolution as one linalg.generic over
///   d0..d6 = n, oh, ow, o (parallel), kh, kw, c (reduction)
/// on an input every window stays inside (padChannelsLast first), so that
/// all three operands are pure affine maps (an implicit GEMM: M = n*oh*ow,
/// N = o, K = kh*kw*c):
///   input  (d0, d1*sh + d4*dh, d2*sw + d5*dw, d6)
///   weight (d3, d4, d5, d6)
///   output (d0, d1, d2, d3)
/// Grouped: c runs over the group's input channels and the input's channel
/// is (d3 floordiv outPerGroup) * inPerGroup + d6. With one input channel
/// per group (depthwise), a constant weight is read as [1, KH, KW, O]
/// (weightOutputsInnermost, see channelsLastConvWeight):
///   weight (d6, d4, d5, d3)
struct ChannelsLastConvIndexing {
  ArrayRef<int64_t> strides, dilations;
  int64_t groups, outPerGroup, inPerGroup;
  MLIRContext *ctx;
  /// The weight is [C/group, KH, KW, O] instead of [O, KH, KW, C/group].
  bool weightOutputsInnermost = false;

  static constexpr int64_t numDims = 7;
  SmallVector<utils::IteratorType> iterators() const;
  /// The input under the window on a padded copy (padChannelsLast): the
  /// map of the implicit GEMM.
  AffineMap inputMap() const;
  /// Inside the generic's body, without a padded copy: the element of the
  /// unpadded `input` under the window of `win` (its pads), `padValue`
  /// where the window leaves it.
  Value readInput(OpBuilder &b, Location loc, Value input, const Window &win,
                  Value padValue) const;
  AffineMap weightMap() const;
  AffineMap outputMap() const;
};

/// The weight operand of a channels-last convolution's generic: `weight`
/// itself, or, when it is a constant with one input channel per group
/// ([O, KH, KW, 1], depthwise), that constant permuted once to [1, KH, KW,
/// O] (and `conv.weightOutputsInnermost` set). The scalar kernels give a
/// work item consecutive output channels and consecutive work items the
/// next ones: they then read consecutive weights (vector loads, coalesced)
/// instead of weights KH * KW apart. A non-constant weight keeps its form.
Value channelsLastConvWeight(OpBuilder &b, Location loc, Value weight,
                             ChannelsLastConvIndexing &conv);

/// A channels-last conv's constant weight [O, KH, KW, C] with C zero-padded
/// to a multiple of `multiple` (the elements of a 16-byte chunk), so that
/// the conv runs as an implicit GEMM; `channels` gets the padded C. Null
/// (and `channels` untouched) when C is one already, or the weight is not a
/// readable constant.
Value paddedConvWeight(OpBuilder &b, Location loc, Value weight,
                       int64_t multiple, int64_t &channels);

/// `input` [N, H, W, C] padded along H and W by `pads` (begin H, begin W,
/// end H, end W), and along C up to `channels` when that is larger, as one
/// linalg.generic over the padded tensor. The padding is `padValue` (a
/// rank-0 tensor, read as an input) or, when null, zero.
Value padChannelsLast(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> pads, Value padValue,
                      int64_t channels = 0);

/// `input` [N, C, S_1..S_k] padded along its spatial dims as `win` says
/// (its pads, begin then end), as one linalg.generic over the padded
/// tensor: the convolution then reads it through a pure affine map. The
/// padding is `padValue` (a rank-0 tensor, read as an input) or, when null,
/// zero. `paddedWin` gets the window on the padded tensor (no pads; its
/// shapes point into `storage`).
/// `channels` larger than the input's extends its channel dim (1) the
/// same way (integer convs whose byte dot products take channels 2 or 4 at
/// a time, their weights zero there).
/// `fillThenCopy` (the host's depthwise convs) builds it as two generics
/// instead, the padding value everywhere and the input copied over it
/// through a shifted map, which the host runs as rows of consecutive
/// elements (not with extended channels). `alignInterior` (with
/// `fillThenCopy`) puts each row's interior that many elements into a
/// buffer whose rows are a multiple of it long, the padded tensor a slice
/// of that buffer: the interior's rows start aligned (16 elements: a
/// 64-byte line of f32, a 16-byte tile of bytes).
Value padSpatial(OpBuilder &b, Location loc, Value input, const Window &win,
                 Value padValue, Window &paddedWin,
                 SmallVectorImpl<int64_t> &storage, int64_t channels = 0,
                 bool fillThenCopy = false, int64_t alignInterior = 0);

/// Whether `op` writes through a map that is not a projected permutation:
/// padSpatial's `fillThenCopy` copy, the input written into the padded
/// tensor's interior through a shifted map.
bool writesShifted(linalg::LinalgOp op);

/// Host: `input` [N, C, S_1..S_k] of a 1x1 conv with strides (`win`, no
/// pads) as the positions its windows read, `[.., o * s, ..]`, one
/// linalg.generic: the conv then reads it at stride 1, its plane
/// contiguous (dlc-collapse-row-planes). `subsampledWin` gets the window on
/// the copy (stride 1; its shapes and strides point into `storage`).
/// Null when `win` is not such a conv's.
Value subsampleSpatial(OpBuilder &b, Location loc, Value input,
                       const Window &win, Window &subsampledWin,
                       SmallVectorImpl<int64_t> &storage);

/// Host: `input` [N, C, H, W] of a 2-D conv with stride 1 < s <= 4 in both
/// dims, no larger than its window, and a window larger than 1x1 (`win`; its
/// pads applied here) as its s x s phases [N, C, s, s, Hq, Wq]: phase (a, b)
/// at (y, x) is the padded input at (y * s + a, x * s + b), `padValue` (a
/// rank-0 tensor, read as an input; zero when null) outside the input and
/// past its end, and `extraRows` more rows of it. Where s divides H and W,
/// two generics: the padding value everywhere, then the input (viewed as
/// [N, C, H / s, s, W / s, s]) copied over it through a shifted map, which
/// the host runs as rows; otherwise one generic reading the input at
/// clamped indices. The
/// conv then reads phase (i mod s, j mod s) at (o_y + i floordiv s, o_x + j
/// floordiv s): at stride 1, its rows contiguous. `channels` larger than the
/// input's extends the channel dim with `padValue` too. Null when `win` is
/// not such a conv's.
Value phaseSplitSpatial(OpBuilder &b, Location loc, Value input,
                        const Window &win, Value padValue = {},
                        int64_t extraRows = 0, int64_t channels = 0);

/// Host: a 2-D conv of one group whose rows are a work item's vector rows
/// (dlc-convert-to-linalg `conv-plane-rows`), one generic over n, k, the
/// position q (or y, x), then the reductions c, i, j:
/// - at stride 1, every position q = y * Wp + x of its padded input's width
///   Wp up to the last output, its window reading input[n, c, q + i * Wp +
///   j] of the collapsed plane, contiguous along q: the plane is one row
///   (7x7 outputs: 61 positions, 49 of them kept, where rows of 7 left 9 of
///   a 16-lane tile idle);
/// - at stride s > 1, on its input's s x s phases (phaseSplitSpatial), tap
///   (i, j) reading phase (i mod s, j mod s) at (y + i floordiv s, x + j
///   floordiv s), at stride 1: on the phases' width Wq the same way, or in
///   rows of the output's width where the plane does not qualify.
/// A second op (outputs) keeps the valid columns of a plane.
struct RowConv {
  /// What the generic reads: the padded input's plane [N, C, Hp * Wp], the
  /// phases' [N, C, s, s, Hq * Wq], or the phases [N, C, s, s, Hq, Wq].
  Value source;
  /// The accumulator: [N, K, positions] on a plane, else [N, K, OH, OW].
  SmallVector<int64_t> accShape;
  int64_t stride = 1;
  /// The plane's width (Wp or Wq): output (y, x) is position y * width + x.
  int64_t width = 0;
  bool onPlane = true;
  /// The source's channels: the input's, or more of `padValue` (rowConv's
  /// `channels`) where a copy holds them.
  int64_t channels = 0;
  /// A depthwise conv (as many groups as channels, one output channel
  /// each): output channel k reads input channel k; the channel reduction
  /// dim has extent 1 (the weight's [K, 1, KH, KW]).
  bool depthwise = false;
  /// The taps of a window row its source holds reads for: the window's
  /// width, or rowConv's `readWidth` where the source holds those.
  int64_t readWidth = 0;
  MLIRContext *ctx = nullptr;

  unsigned numDims() const { return onPlane ? 6 : 7; }
  SmallVector<utils::IteratorType> iterators() const;
  AffineMap inputMap() const;
  /// weight[k, c, i, j], or weight[k, i, j, c] with `channelsLast`.
  AffineMap weightMap(bool channelsLast) const;
  AffineMap outputMap() const;
  /// The conv's outputs `outType` [N, K, OH, OW] of the accumulator `acc`.
  Value outputs(OpBuilder &b, Location loc, Value acc,
                RankedTensorType outType) const;
};

/// The RowConv of a conv of one group (or a depthwise one: `groups` equal
/// to its input and output channels) over `input` [N, C, H, W] (`win`, its
/// pads not yet applied: its padded copy or phases hold them, filled with
/// `padValue`, a rank-0 tensor, or zero when null), created here. A stride-1
/// conv qualifies when its output rows are shorter than a 16-lane tile and
/// its plane has at most `maxRow` positions and kMinPlaneRows rows (output
/// channels) besides; a strided one as phaseSplitSpatial says. The plane's
/// positions round up to a multiple of `rowMultiple` (within `maxRow`),
/// where the copy takes the rows they read. Nothing (and nothing created)
/// when the conv does not qualify: dilations, a 1x1 window (its plane is
/// dlc-collapse-row-planes'), windows that leave a padded copy. A copy
/// extends the channels to `channels` where that is more (RowConv::channels
/// says whether it did). `readWidth` larger than the window's width (a
/// weight whose rows are zero-padded to that many taps) makes a stride-1
/// conv's copy hold what those taps read too (RowConv::readWidth says
/// whether its source does).
std::optional<RowConv> rowConv(OpBuilder &b, Location loc, Value input,
                               const Window &win, int64_t maxRow,
                               int64_t rowMultiple = 1, Value padValue = {},
                               int64_t channels = 0, int64_t groups = 1,
                               int64_t readWidth = 0);

/// A stride-2 channels-last conv of few input channels (a stem: 3 RGB
/// channels padded to 8 would make K = KH * KW * 8) rewritten as the same
/// conv at stride 1 on a space-to-depth copy of its input: every 2x2 block
/// of input pixels becomes one pixel of 4 * C channels, and the weight
/// [O, KH, KW, C] becomes [O, ceil(KH / 2), ceil(KW / 2), 4 * C] (zeros
/// where 2 * kh + sh >= KH), channels zero-padded to a multiple of 8.
/// ResNet's 7x7 stem: K = 392 -> 256.
struct SpaceToDepthConv {
  /// [N, OH + KH' - 1, OW + KW' - 1, C'] and [O, KH', KW', C'].
  Value input, weight;
  /// The conv over them: stride 1, no padding.
  static constexpr int64_t kStrides[] = {1, 1}, kPads[] = {0, 0, 0, 0};
};

/// The space-to-depth form of a channels-last conv with constant weight
/// `weight` (see SpaceToDepthConv), when it applies: strides 2, dilations
/// 1, one group, and a smaller K than padding the channels to
/// `channelMultiple` (16 bytes: 8 16-bit or 16 8-bit elements) gives.
/// Outside the input the copy holds zeros, or `padValue` for 8-bit
/// elements (an int8 input's zero point).
std::optional<SpaceToDepthConv>
spaceToDepthConv(OpBuilder &b, Location loc, Value input, Value weight,
                 ArrayRef<int64_t> outShape, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                 int64_t groups, int64_t channelMultiple = 8,
                 int64_t padValue = 0);

/// QuantizeLinear of one float value `x` to i8 with a per-tensor `scale`
/// and `zeroPoint`: saturate(round_half_even(x / scale) + zeroPoint), as
/// the dlc.quantize_linear lowering computes it (in f32). With
/// `reciprocal` (the CUDA form), x / scale is computed without a division,
/// as its `reciprocal-quantize` option does (same result).
Value quantizeToI8(OpBuilder &b, Location loc, Value x, double scale,
                   int64_t zeroPoint, bool reciprocal = false);

/// The indexing map of a batched-matmul operand with numpy-broadcast batch
/// dims, in the iteration space batch..., m, n, k of an `out` result: the
/// operand's two matrix dims read `row` and `col`.
AffineMap batchedOperandMap(RankedTensorType out, Value operand, AffineExpr row,
                            AffineExpr col);

} // namespace mlir::dlc

#endif
