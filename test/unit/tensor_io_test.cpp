//===- tensor_io_test.cpp - .npy and TensorProto reading/writing ----------===//

#include "tensor_io.h"
#include "test_util.h"

#include "dlc_runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using dlc::io::Tensor;

Tensor floatTensor(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t;
  t.dtype = DLC_DTYPE_FLOAT32;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

std::vector<uint8_t> npyWithHeader(int major, const std::string &dict,
                                   const std::vector<uint8_t> &data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  std::string header = dict + "\n";
  size_t len = header.size();
  out.push_back(uint8_t(len));
  out.push_back(uint8_t(len >> 8));
  if (major > 1) {
    out.push_back(uint8_t(len >> 16));
    out.push_back(uint8_t(len >> 24));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

TEST(Npy, RoundTrip) {
  Tensor t = floatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string path = dlc_test::tempPath("roundtrip.npy");
  std::string error;
  ASSERT_TRUE(dlc::io::writeNpy(path, t, &error)) << error;
  Tensor back;
  ASSERT_TRUE(dlc::io::readNpy(path, &back, &error)) << error;
  EXPECT_EQ(back.dtype, DLC_DTYPE_FLOAT32);
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);

  // NumPy's layout: 64-byte aligned data, "(3,)" for one dim, "()" scalar.
  std::vector<uint8_t> bytes = dlc::io::encodeNpy(t);
  EXPECT_EQ((bytes.size() - t.data.size()) % 64, 0u);
  Tensor vec = floatTensor({3}, {1, 2, 3});
  bytes = dlc::io::encodeNpy(vec);
  std::string header(bytes.begin() + 10, bytes.end() - 12);
  EXPECT_CONTAINS(header, "'shape': (3,)");
  Tensor scalar = floatTensor({}, {7});
  bytes = dlc::io::encodeNpy(scalar);
  ASSERT_TRUE(dlc::io::parseNpy(bytes.data(), bytes.size(), &back, &error));
  EXPECT_TRUE(back.shape.empty());
  EXPECT_EQ(back.numElements(), 1);
}

TEST(Npy, AllDtypesRoundTrip) {
  for (int32_t dtype : {DLC_DTYPE_FLOAT32, DLC_DTYPE_FLOAT64, DLC_DTYPE_FLOAT16,
                        DLC_DTYPE_INT64, DLC_DTYPE_INT32, DLC_DTYPE_INT16,
                        DLC_DTYPE_INT8, DLC_DTYPE_UINT64, DLC_DTYPE_UINT32,
                        DLC_DTYPE_UINT16, DLC_DTYPE_UINT8, DLC_DTYPE_BOOL}) {
    Tensor t;
    t.dtype = dtype;
    t.shape = {2, 2};
    t.data.assign(4 * dlc_dtype_size(dtype), 1);
    std::vector<uint8_t> bytes = dlc::io::encodeNpy(t);
    Tensor back;
    std::string error;
    ASSERT_TRUE(dlc::io::parseNpy(bytes.data(), bytes.size(), &back, &error))
        << dlc_dtype_name(dtype) << ": " << error;
    EXPECT_EQ(back.dtype, dtype);
    EXPECT_EQ(back.data, t.data);
  }
}

TEST(Npy, Bfloat16IsWrittenAsFloat32) {
  Tensor t;
  t.dtype = DLC_DTYPE_BFLOAT16;
  t.shape = {2};
  uint16_t bits[2] = {dlc::io::floatToBfloat16(1.5f),
                      dlc::io::floatToBfloat16(-2.0f)};
  t.data.resize(4);
  std::memcpy(t.data.data(), bits, 4);
  std::vector<uint8_t> bytes = dlc::io::encodeNpy(t);
  Tensor back;
  std::string error;
  ASSERT_TRUE(dlc::io::parseNpy(bytes.data(), bytes.size(), &back, &error));
  ASSERT_EQ(back.dtype, DLC_DTYPE_FLOAT32);
  EXPECT_EQ(dlc::io::elementAsDouble(back, 0), 1.5);
  EXPECT_EQ(dlc::io::elementAsDouble(back, 1), -2.0);
}

TEST(Npy, Version2And3Headers) {
  std::vector<uint8_t> data(8 * 3);
  int64_t values[3] = {-1, 0, 1LL << 40};
  std::memcpy(data.data(), values, data.size());
  for (int major : {2, 3}) {
    std::vector<uint8_t> bytes = npyWithHeader(
        major,
        "{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (3L,)}",
        data);
    Tensor t;
    std::string error;
    ASSERT_TRUE(dlc::io::parseNpy(bytes.data(), bytes.size(), &t, &error))
        << error;
    EXPECT_EQ(t.dtype, DLC_DTYPE_INT64);
    EXPECT_EQ(t.shape, std::vector<int64_t>{3});
    EXPECT_EQ(dlc::io::elementAsDouble(t, 2), double(1LL << 40));
  }
}

TEST(Npy, RejectsWhatItCannotRead) {
  std::string error;
  Tensor t;
  auto parse = [&](const std::vector<uint8_t> &b) {
    return dlc::io::parseNpy(b.data(), b.size(), &t, &error);
  };
  std::vector<uint8_t> four(4 * 4);
  EXPECT_FALSE(parse(npyWithHeader(
      1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four)));
  EXPECT_CONTAINS(error, "unsupported .npy dtype '>f4'");
  EXPECT_FALSE(parse(npyWithHeader(
      1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four)));
  EXPECT_CONTAINS(error, "Fortran");
  EXPECT_FALSE(parse(npyWithHeader(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four)));
  EXPECT_CONTAINS(error, "data is 16 bytes but float32[5] needs 20");
  EXPECT_FALSE(parse(npyWithHeader(
      1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four)));
  EXPECT_FALSE(parse({1, 2, 3}));
  EXPECT_CONTAINS(error, "bad magic");
  EXPECT_FALSE(dlc::io::readNpy("/nonexistent.npy", &t, &error));
  EXPECT_CONTAINS(error, "cannot open '/nonexistent.npy'");
}

// Protobuf wire-format helpers for building TensorProtos by hand.
void varint(std::vector<uint8_t> &out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(b | (v ? 0x80 : 0));
  } while (v);
}
void tag(std::vector<uint8_t> &out, int field, int type) {
  varint(out, uint64_t(field) << 3 | type);
}
void bytesField(std::vector<uint8_t> &out, int field,
                const std::vector<uint8_t> &payload) {
  tag(out, field, 2);
  varint(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
}

TEST(TensorProto, FloatDataWithUnpackedDims) {
  std::vector<uint8_t> pb;
  tag(pb, 1, 0), varint(pb, 2); // dims: 2
  tag(pb, 1, 0), varint(pb, 3); // dims: 3
  tag(pb, 2, 0), varint(pb, 1); // data_type: FLOAT
  bytesField(pb, 8, {'x', ':', '0'});
  std::vector<uint8_t> floats(24);
  float values[6] = {0.5f, -1, 2, 3, 4, 5};
  std::memcpy(floats.data(), values, 24);
  bytesField(pb, 4, floats);           // packed float_data
  bytesField(pb, 12, {'d', 'o', 'c'}); // doc_string: skipped

  Tensor t;
  std::string error;
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.name, "x:0");
  EXPECT_EQ(t.dtype, DLC_DTYPE_FLOAT32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), 0.5);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 5), 5.0);
}

TEST(TensorProto, RawDataWithPackedDims) {
  std::vector<uint8_t> pb;
  std::vector<uint8_t> dims;
  varint(dims, 1), varint(dims, 2);
  bytesField(pb, 1, dims);
  tag(pb, 2, 0), varint(pb, 7); // INT64
  std::vector<uint8_t> raw(16);
  int64_t values[2] = {-5, 300};
  std::memcpy(raw.data(), values, 16);
  bytesField(pb, 9, raw);
  Tensor t;
  std::string error;
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), -5.0);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 1), 300.0);
}

TEST(TensorProto, TypedIntFields) {
  // int64_data, unpacked, with a negative value (10-byte varint).
  std::vector<uint8_t> pb;
  tag(pb, 1, 0), varint(pb, 2);
  tag(pb, 2, 0), varint(pb, 7);
  tag(pb, 7, 0), varint(pb, uint64_t(int64_t(-7)));
  tag(pb, 7, 0), varint(pb, 9);
  Tensor t;
  std::string error;
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), -7.0);

  // bool via packed int32_data; scalar (no dims).
  pb.clear();
  tag(pb, 2, 0), varint(pb, 9);
  bytesField(pb, 5, {1});
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.dtype, DLC_DTYPE_BOOL);
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.data, std::vector<uint8_t>{1});

  // uint32 and uint64 via uint64_data (field 11), int16 via int32_data.
  pb.clear();
  tag(pb, 1, 0), varint(pb, 1);
  tag(pb, 2, 0), varint(pb, 12);
  tag(pb, 11, 0), varint(pb, 4294967295u);
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.dtype, DLC_DTYPE_UINT32);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), 4294967295.0);
  pb.clear();
  tag(pb, 1, 0), varint(pb, 1);
  tag(pb, 2, 0), varint(pb, 13);
  tag(pb, 11, 0), varint(pb, uint64_t(1) << 63);
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), 9223372036854775808.0);
  pb.clear();
  tag(pb, 1, 0), varint(pb, 1);
  tag(pb, 2, 0), varint(pb, 5);
  tag(pb, 5, 0), varint(pb, uint64_t(int64_t(-300)));
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.data.size(), 2u);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), -300.0);
}

TEST(TensorProto, Errors) {
  Tensor t;
  std::string error;
  std::vector<uint8_t> pb;
  tag(pb, 1, 0), varint(pb, 3);
  tag(pb, 2, 0), varint(pb, 1);
  tag(pb, 4, 5);
  pb.insert(pb.end(), {0, 0, 0x80, 0x3f}); // one float, three needed
  EXPECT_FALSE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error));
  EXPECT_CONTAINS(error, "float_data holds 1 values but float32[3] needs 3");

  pb.clear();
  tag(pb, 2, 0), varint(pb, 8); // STRING
  EXPECT_FALSE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error));
  EXPECT_CONTAINS(error, "data_type 8 (string)");

  pb = {0x4a, 0x10, 1, 2}; // raw_data claims 16 bytes, has 2
  EXPECT_FALSE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error));
  EXPECT_CONTAINS(error, "malformed TensorProto");
}

TEST(Half, Conversions) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(dlc::io::halfToFloat(dlc::io::floatToHalf(f)), f) << f;
  EXPECT_EQ(dlc::io::floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(dlc::io::floatToHalf(1e6f), 0x7c00); // overflow to inf
  EXPECT_EQ(dlc::io::floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(dlc::io::bfloat16ToFloat(0xc000), -2.0f);
}

TEST(Float8, Values) {
  using dlc::io::float8ToFloat;
  // f8E4M3FN: bias 7, 0x7e the largest (448), 0x7f/0xff NaN, no infinity.
  EXPECT_EQ(float8ToFloat(0x38, DLC_DTYPE_FLOAT8E4M3FN), 1.0f);
  EXPECT_EQ(float8ToFloat(0x7e, DLC_DTYPE_FLOAT8E4M3FN), 448.0f);
  EXPECT_EQ(float8ToFloat(0x81, DLC_DTYPE_FLOAT8E4M3FN), -0x1p-9f);
  EXPECT_TRUE(std::isnan(float8ToFloat(0xff, DLC_DTYPE_FLOAT8E4M3FN)));
  // FNUZ: bias one more, 0x80 is NaN (no -0).
  EXPECT_EQ(float8ToFloat(0x7f, DLC_DTYPE_FLOAT8E4M3FNUZ), 240.0f);
  EXPECT_EQ(float8ToFloat(0x40, DLC_DTYPE_FLOAT8E4M3FNUZ), 1.0f);
  EXPECT_TRUE(std::isnan(float8ToFloat(0x80, DLC_DTYPE_FLOAT8E4M3FNUZ)));
  EXPECT_EQ(float8ToFloat(0x7f, DLC_DTYPE_FLOAT8E5M2FNUZ), 57344.0f);
  EXPECT_EQ(float8ToFloat(0x01, DLC_DTYPE_FLOAT8E5M2FNUZ), 0x1p-17f);
  // f8E5M2: IEEE-like, 0x7c infinity, 0x7d-0x7f NaN.
  EXPECT_EQ(float8ToFloat(0x7b, DLC_DTYPE_FLOAT8E5M2), 57344.0f);
  EXPECT_EQ(float8ToFloat(0xfc, DLC_DTYPE_FLOAT8E5M2), -INFINITY);
  EXPECT_TRUE(std::isnan(float8ToFloat(0x7d, DLC_DTYPE_FLOAT8E5M2)));
  EXPECT_EQ(float8ToFloat(0x80, DLC_DTYPE_FLOAT8E5M2), 0.0f);
  // f8E8M0: 2^(code - 127), 0xff NaN.
  EXPECT_EQ(float8ToFloat(0x7f, DLC_DTYPE_FLOAT8E8M0), 1.0f);
  EXPECT_EQ(float8ToFloat(0x00, DLC_DTYPE_FLOAT8E8M0), 0x1p-127f);
  EXPECT_TRUE(std::isnan(float8ToFloat(0xff, DLC_DTYPE_FLOAT8E8M0)));
}

TEST(SubByte, PackedProtoToNpy) {
  // int4 [3] = {-1, 7, -8}: raw_data 0x7f, 0x08 (low nibble first).
  std::vector<uint8_t> pb = {0x08, 0x03, 0x10, 22, 0x4a, 0x02, 0x7f, 0x08};
  dlc::io::Tensor t;
  std::string error;
  ASSERT_TRUE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error))
      << error;
  EXPECT_EQ(t.dtype, DLC_DTYPE_INT4);
  EXPECT_EQ(t.data.size(), 2u);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 2), -8.0);
  std::vector<uint8_t> npy = dlc::io::encodeNpy(t);
  dlc::io::Tensor back;
  ASSERT_TRUE(dlc::io::parseNpy(npy.data(), npy.size(), &back, &error))
      << error;
  EXPECT_EQ(back.dtype, DLC_DTYPE_INT8);
  EXPECT_EQ(back.data, (std::vector<uint8_t>{0xff, 0x07, 0xf8}));
  // float4e2m1 codes 0x7 (6) and 0x9 (-0.5) read as their values.
  t.dtype = DLC_DTYPE_FLOAT4E2M1;
  t.data = {0x97};
  t.shape = {2};
  EXPECT_EQ(dlc::io::elementAsDouble(t, 0), 6.0);
  EXPECT_EQ(dlc::io::elementAsDouble(t, 1), -0.5);
  // 3 int4 values need 2 bytes of raw_data.
  pb = {0x08, 0x03, 0x10, 22, 0x4a, 0x01, 0x7f};
  EXPECT_FALSE(dlc::io::parseTensorProto(pb.data(), pb.size(), &t, &error));
  EXPECT_CONTAINS(error, "raw_data is 1 bytes but");
}

TEST(Float8, NpyWidensToFloat32) {
  dlc::io::Tensor t;
  t.dtype = DLC_DTYPE_FLOAT8E5M2;
  t.shape = {2};
  t.data = {0x3c, 0xc0}; // 1, -2
  std::vector<uint8_t> npy = dlc::io::encodeNpy(t);
  dlc::io::Tensor back;
  std::string error;
  ASSERT_TRUE(dlc::io::parseNpy(npy.data(), npy.size(), &back, &error))
      << error;
  EXPECT_EQ(back.dtype, DLC_DTYPE_FLOAT32);
  ASSERT_EQ(back.data.size(), 8u);
  float v[2];
  std::memcpy(v, back.data.data(), 8);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
}

} // namespace
