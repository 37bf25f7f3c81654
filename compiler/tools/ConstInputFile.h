//===- ConstInputFile.h - tensor files for dlc --const-input ----*- C++ -*-===//
//
/// \file
/// Reads the `.npy` and ONNX TensorProto `.pb` files `dlc --const-input`
/// binds to graph inputs, with the reader dlc-run uses
/// (runtime/tools/tensor_io.h), so both tools accept the same files.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_TOOLS_CONSTINPUTFILE_H
#define DLC_COMPILER_TOOLS_CONSTINPUTFILE_H

#include "compiler/onnx/Importer.h"

#include <string>

namespace mlir {
namespace dlc {

/// Reads `path` (.npy or .pb, told apart by the .npy magic) into `out`
/// (dtype, shape, raw little-endian data; `source` is set to `path`).
/// Returns false with a message naming the file in `error`.
bool readConstInputFile(const std::string &path, ConstInput &out,
                        std::string &error);

} // namespace dlc
} // namespace mlir

#endif // DLC_COMPILER_TOOLS_CONSTINPUTFILE_H
