//===- Float8.h - ONNX float8 conversions in integer arithmetic -*- C++ -*-===//
//
// LLVM has no 8-bit float types and MLIR 19's arith has no expansion of
// extf/truncf for them, so dlc converts between f32 and the four float8
// formats ONNX defines (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ) with i32
// arithmetic on the bits, which every target (the host's LLVM, NVPTX) runs.
// The float8 value itself only ever moves as its byte (arith.bitcast to and
// from i8).
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_LOWERING_FLOAT8_H
#define DLC_PASSES_LOWERING_FLOAT8_H

#include "mlir/IR/Builders.h"

namespace mlir::dlc {

/// Whether `type` is one of the float8 formats ONNX defines.
bool isOnnxFloat8(Type type);

/// `value` (f32) rounded to the float8 type `to` (nearest, ties to even), as
/// ONNX Cast does: with `saturate`, values beyond the format's largest finite
/// value (and infinities) become that value; without, they become infinity
/// (f8E5M2) or NaN (the formats without infinity). NaN stays NaN; the FNUZ
/// formats have no -0 and give +0.
Value truncF32ToFloat8(OpBuilder &b, Location loc, Value value, Type to,
                       bool saturate);

/// The float8 `value` as the f32 it denotes (exact).
Value extFloat8ToF32(OpBuilder &b, Location loc, Value value);

} // namespace mlir::dlc

#endif // DLC_PASSES_LOWERING_FLOAT8_H
