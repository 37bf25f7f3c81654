//===- Importer.h - ONNX model importer -------------------------*- C++ -*-===//
//
/// \file
/// Imports a serialized ONNX ModelProto into the dlc dialect: one
/// `func.func @main` whose arguments are the graph inputs and whose results
/// are the graph outputs, with static shapes, weights as `dense_resource`
/// constants and opset differences normalized.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_ONNX_IMPORTER_H
#define DLC_COMPILER_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace dlc {

/// A constant bound to a graph input (`dlc --const-input NAME=FILE`).
struct ConstInput {
  /// ONNX TensorProto.DataType of the data (the runtime's dlc_dtype uses the
  /// same numbers).
  int32_t dtype = 0;
  llvm::SmallVector<int64_t> shape;
  /// The elements in C order and little-endian, laid out as ONNX raw_data
  /// (one byte per bool).
  std::vector<char> data;
  /// Where the data came from (the FILE), for diagnostics.
  std::string source;
};

/// Options of the ONNX importer.
struct ImportOptions {
  /// `--input-shape NAME=AxBxC` bindings: the full shape of graph input NAME.
  /// A binding must have the input's rank and agree with its static dims; it
  /// fixes the dynamic ones.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// `--const-input NAME=FILE` bindings: graph input NAME becomes this
  /// constant at import (it is no longer a model input). Its dtype must be
  /// the input's and its shape must agree with the input's static dims.
  /// This is how inputs that fix shapes (Reshape's shape, reduction axes,
  /// Resize's scales...) become the constants static shapes need.
  llvm::StringMap<ConstInput> constInputs;
  /// `--keep-outputs`: intermediate ONNX tensors exposed as extra model
  /// outputs (after the graph's own), to debug a fused model.
  std::vector<std::string> keepOutputs;
  /// Only check support (a future `dlc --check`): report every problem. The
  /// importer already reports every problem it finds; reserved for now.
  bool checkOnly = false;
};

/// Parses `bytes` (a serialized onnx.ModelProto; `filename` names it in
/// locations and diagnostics) and returns a module holding `func.func @main`
/// with the graph. On failure, emits one diagnostic per problem through the
/// context's diagnostic engine and returns null. Loads the dialects it uses
/// (dlc, func, arith) into `ctx`.
///
/// Module attributes: `dlc.opset` (i64, default-domain opset),
/// `dlc.producer` (string), `dlc.model_hash` (16 hex digits, xxh3 of `bytes`).
OwningOpRef<ModuleOp> importOnnxModel(MLIRContext &ctx, llvm::StringRef bytes,
                                      llvm::StringRef filename,
                                      const ImportOptions &options);

/// One entry of the importer's operator table.
struct OnnxOpSupport {
  /// ONNX op type, e.g. "Conv".
  llvm::StringRef opType;
  /// Its domain: empty for the default one, "com.microsoft" or
  /// "ai.onnx.preview".
  llvm::StringRef domain;
  /// What the importer accepts and how it maps the op, for support tables.
  llvm::StringRef notes;
};

/// Every ONNX operator the importer handles: the default domain's, then
/// com.microsoft's, each sorted by op type.
llvm::SmallVector<OnnxOpSupport> getSupportedOnnxOps();

} // namespace dlc
} // namespace mlir

#endif // DLC_COMPILER_ONNX_IMPORTER_H
