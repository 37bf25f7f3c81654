//===- mock_cuda.h - The mock driver's tensor maps --------------*- C++ -*-===//
//
// The mock's cuTensorMapEncodeTiled writes a MockTensorMap into the 128-byte
// CUtensorMap (cuTensorMapEncodeIm2col a MockIm2colTensorMap, told apart by
// their magic), so a test can read back from the device copy what the
// runtime asked the driver to encode.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_UNIT_MOCK_CUDA_H
#define DLC_TEST_UNIT_MOCK_CUDA_H

#include <cstdint>

namespace dlc_mock {

constexpr uint32_t kTensorMapMagic = 0x50414d54;       // "TMAP"
constexpr uint32_t kIm2colTensorMapMagic = 0x4c4f4349; // "ICOL"

/// The arguments both encoders take, verbatim, first in either map.
struct MockMapHeader {
  uint32_t magic; // kTensorMapMagic or kIm2colTensorMapMagic
  int32_t dataType;
  uint32_t rank;
  int32_t swizzle; // CU_TENSOR_MAP_SWIZZLE_*: 0 none, 1 32B, 2 64B, 3 128B
  uint64_t globalAddress;
  uint64_t dims[5];
  uint64_t strides[4]; // strides[d - 1] of dimension d >= 1, in bytes
  uint8_t elementStrides[5];
  uint8_t interleave, l2Promotion, oobFill;
};

/// The mock's CUtensorMap: cuTensorMapEncodeTiled's arguments, verbatim.
struct MockTensorMap : MockMapHeader {
  uint32_t box[5];
};
static_assert(sizeof(MockTensorMap) <= 128, "a CUtensorMap is 128 bytes");

/// The mock's im2col CUtensorMap: cuTensorMapEncodeIm2col's arguments,
/// verbatim (the corners, channels and pixels narrowed to the ranges the
/// driver accepts, so that it fits the 128 bytes).
struct MockIm2colTensorMap : MockMapHeader {
  int16_t lowerCorner[3], upperCorner[3]; // innermost spatial dim first
  uint16_t channelsPerPixel, pixelsPerColumn;
};
static_assert(sizeof(MockIm2colTensorMap) <= 128, "a CUtensorMap is 128 bytes");

} // namespace dlc_mock

#endif // DLC_TEST_UNIT_MOCK_CUDA_H
