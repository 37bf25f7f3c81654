//===- DlcDialect.h - The dlc dialect ---------------------------*- C++ -*-===//
//
/// \file
/// The dlc dialect: ONNX operators on statically shaped tensors.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_DIALECTS_DLC_DLCDIALECT_H
#define DLC_DIALECTS_DLC_DLCDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/dlc/DlcDialect.h.inc"

namespace mlir::dlc {
/// Where dlc.attention and dlc.attention_kernel find their operands (the
/// `*_perm` attributes; identity when absent): dim i of the query the op
/// reads is dim `query[i]` of the stored query (key and value likewise),
/// and dim i of the stored result is dim `result[i]` of the result the op
/// computes. Permutations are checked by the verifiers.
///
/// A query, key or value may also be one slice of a larger operand (the
/// `*_select` attributes, [dim, index]): the op reads stored dim `dim` at
/// `index` only, and the permutation applies to the other dims. GPT-2's Q,
/// K and V are read so from c_attn's one output viewed as [B, S, 3, H, D].
struct AttentionLayout {
  /// A stored dim read at one index; dim -1: none (-2: a malformed
  /// attribute, which the verifiers reject).
  struct Select {
    int64_t dim = -1, index = 0;
    explicit operator bool() const { return dim >= 0; }
  };

  SmallVector<int64_t> query, key, value, result;
  Select querySelect, keySelect, valueSelect;

  /// Absent permutations are the identity of `rank` dims.
  static AttentionLayout get(std::optional<ArrayRef<int64_t>> query,
                             std::optional<ArrayRef<int64_t>> key,
                             std::optional<ArrayRef<int64_t>> value,
                             std::optional<ArrayRef<int64_t>> result,
                             int64_t rank);
  /// The layout of an op or of its adaptor; `rank` is the result's.
  template <typename OpOrAdaptor>
  static AttentionLayout of(OpOrAdaptor x, int64_t rank) {
    AttentionLayout layout = get(x.getQueryPerm(), x.getKeyPerm(),
                                 x.getValuePerm(), x.getResultPerm(), rank);
    layout.querySelect = select(x.getQuerySelect());
    layout.keySelect = select(x.getKeySelect());
    layout.valueSelect = select(x.getValueSelect());
    return layout;
  }
  static Select select(std::optional<ArrayRef<int64_t>> attr) {
    if (!attr)
      return {};
    if (attr->size() != 2 || (*attr)[0] < 0)
      return {-2, 0};
    return {(*attr)[0], (*attr)[1]};
  }
  /// `storedShape` without the selected dim: the shape the permutation
  /// applies to.
  static SmallVector<int64_t> selected(ArrayRef<int64_t> storedShape,
                                       Select select) {
    SmallVector<int64_t> shape(storedShape);
    if (select)
      shape.erase(shape.begin() + select.dim);
    return shape;
  }
  /// The shape the op reads of an operand stored as `storedShape`.
  static SmallVector<int64_t> readShape(ArrayRef<int64_t> storedShape,
                                        ArrayRef<int64_t> perm, Select select) {
    return gather(ArrayRef<int64_t>(selected(storedShape, select)), perm);
  }

  /// `xs` gathered through `perm`: out[i] = xs[perm[i]]. The read shape of
  /// a stored operand, the stored shape of the result, the stored indices
  /// of a result element.
  template <typename T>
  static SmallVector<T> gather(ArrayRef<T> xs, ArrayRef<int64_t> perm) {
    SmallVector<T> out;
    for (int64_t p : perm)
      out.push_back(xs[p]);
    return out;
  }
  /// The stored indices into an operand stored with `storedShape` and read
  /// through `perm` (empty: as stored) of element (`row`, `col`) in batch
  /// `batch` of a result computed with shape `outShape`; where the operand
  /// broadcasts a dim (its read size differs from the result's batch dim,
  /// or is 1 in the last two) the index is `zero`. Both attention lowerings
  /// index their operands and the mask this way.
  /// With `select`, `selectIndex` (its index as a value) is inserted at the
  /// selected dim.
  static SmallVector<Value>
  operandIndices(ArrayRef<int64_t> storedShape, ArrayRef<int64_t> perm,
                 ArrayRef<int64_t> outShape, ValueRange batch, Value row,
                 Value col, Value zero, Select select, Value selectIndex);
  /// `xs` scattered through `perm`: out[perm[i]] = xs[i]. The stored
  /// indices of an operand element the op reads at `xs`.
  template <typename T>
  static SmallVector<T> scatter(ArrayRef<T> xs, ArrayRef<int64_t> perm) {
    SmallVector<T> out(xs.size());
    for (auto [i, p] : llvm::enumerate(perm))
      out[p] = xs[i];
    return out;
  }
};
} // namespace mlir::dlc

#define GET_OP_CLASSES
#include "dialects/dlc/DlcOps.h.inc"

namespace mlir::dlc {
/// A parsed dlc.einsum equation: letters are numbered in order of first
/// appearance; `inputs[i][d]` is the letter of dim d of input i.
struct EinsumEquation {
  SmallVector<SmallVector<int64_t>> inputs;
  SmallVector<int64_t> output;
  /// Extent of each letter (the largest size among the dims it labels).
  SmallVector<int64_t> extents;
};

/// Parses `equation` ("ab,bc->ac") against the operand shapes; reports
/// problems through `emitError` and returns failure.
FailureOr<EinsumEquation>
parseEinsumEquation(StringRef equation, ArrayRef<ArrayRef<int64_t>> shapes,
                    function_ref<void(const Twine &)> emitError);

/// The (stored) result shape of attention over the stored `query`, `key`,
/// `value` and the optional `mask` (null type: none) under `layout`, as
/// dlc.attention documents it; reports the first problem through
/// `emitError`.
FailureOr<SmallVector<int64_t>>
inferAttentionShape(ShapedType query, ShapedType key, ShapedType value,
                    ShapedType mask, bool kTransposed,
                    const AttentionLayout &layout,
                    function_ref<void(const Twine &)> emitError);

/// Attaches the one-shot bufferization model of dlc.attention_kernel.
void registerAttentionBufferization(MLIRContext &context);
} // namespace mlir::dlc

#endif // DLC_DIALECTS_DLC_DLCDIALECT_H
