//===- tensor_io.h - .npy and ONNX TensorProto files -------------*- C++
//-*-===//
//
// Reading and writing the tensor files dlc-run and dlc-bench take: NumPy
// .npy (format versions 1-3, little-endian, C order) and ONNX TensorProto
// .pb files (decoded from the protobuf wire format here, so the tools need
// no libprotobuf). Not part of libdlcrt's ABI.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TOOLS_TENSOR_IO_H
#define DLC_TOOLS_TENSOR_IO_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dlc {
namespace io {

/// A dense, C-ordered host tensor.
struct Tensor {
  std::string name;  ///< From a .pb file; empty for .npy.
  int32_t dtype = 0; ///< dlc_dtype
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
};

/// Parses a whole .npy file held in memory.
bool parseNpy(const uint8_t *bytes, size_t size, Tensor *out,
              std::string *error);
bool readNpy(const std::string &path, Tensor *out, std::string *error);

/// Serializes as a version 1.0 .npy file. bfloat16, the float8 types and
/// float4e2m1, which NumPy lacks, are widened to float32; the sub-byte
/// integers to int8/uint8.
std::vector<uint8_t> encodeNpy(const Tensor &tensor);
bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string *error);

/// Parses a serialized onnx.TensorProto. Typed fields (float_data,
/// int32_data, ...) and raw_data are supported; external data is not.
bool parseTensorProto(const uint8_t *bytes, size_t size, Tensor *out,
                      std::string *error);

/// Reads a .npy or .pb file, told apart by the .npy magic bytes.
bool readTensorFile(const std::string &path, Tensor *out, std::string *error);

/// NumPy's name for a dtype ("<f4") or "" if NumPy has none.
const char *npyDescr(int32_t dtype);

float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
uint16_t floatToBfloat16(float value);
/// Whether `dtype` is one of the float8 types (DLC_DTYPE_FLOAT8*, e8m0
/// included).
bool isFloat8(int32_t dtype);
/// The value of the float8 `bits` of type `dtype` (exact; NaN, +-inf).
float float8ToFloat(uint8_t bits, int32_t dtype);

/// Element i of a tensor as a double, whatever its dtype.
double elementAsDouble(const Tensor &tensor, int64_t i);

/// "[0.5, 1, 2, ...]": the first `maxValues` elements.
std::string formatValues(const Tensor &tensor, int64_t maxValues);

/// "float32[1,3,224,224]".
std::string describe(int32_t dtype, const std::vector<int64_t> &shape);

} // namespace io
} // namespace dlc

#endif // DLC_TOOLS_TENSOR_IO_H
