//===- Quantization.h - int8 quantization math shared by passes --*- C++
//-*-===//
//
/// \file
/// The quantization parameters dlc chooses (per-tensor asymmetric int8
/// activations, per-channel symmetric int8 weights), the constant readers
/// dlc-fold-qdq and dlc-quantize share, and the rule for which float layers
/// dlc-quantize can turn into integer kernels (the driver asks it before
/// marking layers, so the two never disagree).
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_QUANTIZATION_QUANTIZATION_H
#define DLC_PASSES_QUANTIZATION_QUANTIZATION_H

#include "dialects/dlc/ConstantValues.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::dlc {

class ReduceMeanOp;

/// On a dlc.conv / dlc.gemm / dlc.matmul or a global average pool's
/// dlc.reduce_mean: the calibrated range of each activation operand,
/// `[array<f32: lo, hi>, ...]`, in operand order (the input of a Conv or a
/// pool, A of a Gemm, the lhs of a MatMul and its rhs when that is not a
/// constant). dlc-quantize quantizes exactly the ops carrying it.
constexpr const char kInputRangesAttr[] = "dlc.input_ranges";

/// On an op carrying kInputRangesAttr: the calibrated range of its result,
/// `array<f32: lo, hi>`. dlc-quantize (quantize-residuals) quantizes the
/// result where a residual add reads it together with a later layer's
/// result, so that it crosses kernels in int8 rather than as i32
/// accumulators.
constexpr const char kOutputRangeAttr[] = "dlc.output_range";

/// A constant of `type` holding `raw` (the little-endian element bytes):
/// inline when it has at most 8 elements, else a resource blob named
/// `blobName` (the weights blob of model.so), as the importer stores
/// weights. For the passes that make new weights.
Attribute makeWeightAttr(RankedTensorType type, llvm::ArrayRef<char> raw,
                         llvm::StringRef blobName);

/// The type of transpose(value of `type`, perm).
RankedTensorType permutedType(RankedTensorType type,
                              llvm::ArrayRef<int64_t> perm);

/// Whether transposing `type` by `perm` keeps the order of its non-unit
/// dims, i.e. is a reshape of the same bytes.
bool isReshapeLike(RankedTensorType type, llvm::ArrayRef<int64_t> perm);

/// `attr` (a constant of `type`, inline or a resource blob) transposed by
/// `perm`; a blob result is named after the source blob plus `blobSuffix`.
/// Null when it cannot be read (an elided blob, i1 data in a blob).
Attribute permuteConstant(Attribute attr, RankedTensorType type,
                          llvm::ArrayRef<int64_t> perm,
                          llvm::StringRef blobSuffix);

/// The constant tensor `v` transposed by `perm` as a new constant (a blob
/// named as in permuteConstant); null if `v` is not a statically shaped
/// constant or cannot be read.
Value permutedConstant(OpBuilder &b, Location loc, Value v,
                       llvm::ArrayRef<int64_t> perm,
                       llvm::StringRef blobSuffix);

/// A new constant of `shape` whose element at `idx` is the element of the
/// constant `v` at flat offset `sourceOf(idx, shape of v)`, or zero where
/// that is -1 (a blob named after the source plus `blobSuffix`); null if
/// `v` is not a statically shaped constant or cannot be read.
Value gatheredConstant(OpBuilder &b, Location loc, Value v,
                       llvm::ArrayRef<int64_t> shape,
                       llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>,
                                                  llvm::ArrayRef<int64_t>)>
                           sourceOf,
                       llvm::StringRef blobSuffix);

/// The constant tensor `v` with its last dim zero-padded to `size` (a blob
/// named after the source plus `blobSuffix`); null if `v` is not a
/// statically shaped constant or cannot be read.
Value paddedLastDimConstant(OpBuilder &b, Location loc, Value v, int64_t size,
                            llvm::StringRef blobSuffix);

/// The constant 8-bit tensor `v` (i8 or ui8) as a new i16 constant of the
/// same values, sign- or zero-extended by its element type (a blob named
/// after the source plus `blobSuffix`); null if `v` is not one.
Value widenedConstant(OpBuilder &b, Location loc, Value v,
                      llvm::StringRef blobSuffix);

/// The constant 2-D tensor `v` ([K, N]) as a new constant [N, K]; null if
/// `v` is not one.
Value transposedConstant2D(OpBuilder &b, Location loc, Value v);

/// Per-tensor asymmetric 8-bit parameters of an activation in [lo, hi]: the
/// range is widened to hold 0 (so zero padding is exact) and scale =
/// (hi - lo) / 255. A range with negative values is int8, its zero point
/// mapping lo to -128; a non-negative one (a ReLU's output) is uint8 with
/// zero point 0, the same grid (q_u8 = q_i8 + 128) without zero-point
/// arithmetic in the kernels that read and write it.
struct ActivationQuantParams {
  float scale = 1.0f;
  int8_t zeroPoint = 0;
  bool isUnsigned = false;
};
ActivationQuantParams activationQuantParams(float lo, float hi);

/// Symmetric int8 weights with one scale per slice along `axis`:
/// scale[c] = max|w[c]| / 127, q = clamp(round_half_even(w / scale[c]),
/// -127, 127). An all-zero slice gets scale 1.
struct QuantizedWeights {
  llvm::SmallVector<int8_t> values;
  llvm::SmallVector<float> scales;
};
QuantizedWeights quantizeWeightsPerChannel(llvm::ArrayRef<float> weights,
                                           llvm::ArrayRef<int64_t> shape,
                                           int64_t axis);

/// How many activation operands `op` has (1 for Conv/Gemm, 1 or 2 for
/// MatMul) if dlc-quantize can turn it into an integer op that dlc-fold-qdq
/// folds; otherwise 0 and, with `why`, the reason. A global average pool
/// has one: its input is quantized (as ONNX Runtime's QDQ models do), so
/// that the layer before it requantizes to int8 in its epilogue and the
/// pool reads bytes instead of that layer's i32 accumulators.
unsigned quantizableActivationOperands(Operation *op,
                                       std::string *why = nullptr);

/// Whether `op` is ONNX's GlobalAveragePool: a mean over the H and W of an
/// NCHW tensor (the layout before dlc-convert-conv-layout).
bool isGlobalAveragePool(ReduceMeanOp op);

} // namespace mlir::dlc

#endif // DLC_PASSES_QUANTIZATION_QUANTIZATION_H
