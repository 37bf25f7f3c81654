//===- ConstInputFile.cpp - tensor files for dlc --const-input ------------===//

#include "compiler/tools/ConstInputFile.h"

#include "tensor_io.h"

bool mlir::dlc::readConstInputFile(const std::string &path, ConstInput &out,
                                   std::string &error) {
  ::dlc::io::Tensor tensor;
  if (!::dlc::io::readTensorFile(path, &tensor, &error))
    return false;
  // dlc_dtype numbers are ONNX's TensorProto.DataType numbers.
  out.dtype = tensor.dtype;
  out.shape.assign(tensor.shape.begin(), tensor.shape.end());
  out.data.assign(tensor.data.begin(), tensor.data.end());
  out.source = path;
  return true;
}
