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
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/dlc/DlcDialect.h.inc"

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

/// The result shape of attention over `query`, `key`, `value` and the
/// optional `mask` (null type: none), as dlc.attention documents it;
/// reports the first problem through `emitError`.
FailureOr<SmallVector<int64_t>>
inferAttentionShape(ShapedType query, ShapedType key, ShapedType value,
                    ShapedType mask, bool kTransposed,
                    function_ref<void(const Twine &)> emitError);

/// Attaches the one-shot bufferization model of dlc.attention_kernel.
void registerAttentionBufferization(MLIRContext &context);
} // namespace mlir::dlc

#endif // DLC_DIALECTS_DLC_DLCDIALECT_H
