//===- run_model.cpp - Load a model.so and run it once --------------------===//
//
// Usage: dlc-example MODEL.so [INPUT.npy ...]
//
// Prints the model's signature, fills its inputs (from .npy files if given,
// else with ones), runs it and prints the first values of each output. Uses
// only the public C++ header dlc/runtime.hpp.
//
//===----------------------------------------------------------------------===//

#include "dlc/runtime.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

/// Reads the data of a .npy file (v1-v3). The model checks the byte size;
/// this example trusts the dtype and shape.
bool readNpyData(const std::string &path, std::vector<uint8_t> *data) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return false;
  size_t start = bytes[6] == 1 ? 10 : 12;
  size_t len = bytes[6] == 1 ? bytes[8] | bytes[9] << 8
                             : bytes[8] | bytes[9] << 8 | bytes[10] << 16 |
                                   size_t(bytes[11]) << 24;
  if (start + len > bytes.size())
    return false;
  data->assign(bytes.begin() + start + len, bytes.end());
  return true;
}

/// Sets every element of a buffer of `dtype` to one.
void fillOnes(dlc_dtype dtype, std::vector<uint8_t> &buf) {
  size_t elem = dlc_dtype_size(dtype);
  if (!elem) { // int4/uint4 (0x11: 1, 1) and int2/uint2 (0x55: 1, 1, 1, 1)
    std::fill(buf.begin(), buf.end(),
              uint8_t(dlc_dtype_bits(dtype) == 4 ? 0x11 : 0x55));
    return;
  }
  for (size_t i = 0; i + elem <= buf.size(); i += elem) {
    switch (dtype) {
    case DLC_DTYPE_FLOAT32: {
      float one = 1.0f;
      std::memcpy(&buf[i], &one, 4);
      break;
    }
    case DLC_DTYPE_FLOAT64: {
      double one = 1.0;
      std::memcpy(&buf[i], &one, 8);
      break;
    }
    case DLC_DTYPE_FLOAT16:
      buf[i + 1] = 0x3c; // 1.0 = 0x3c00
      break;
    case DLC_DTYPE_BFLOAT16:
      buf[i] = 0x80, buf[i + 1] = 0x3f; // 1.0 = 0x3f80
      break;
    case DLC_DTYPE_FLOAT8E4M3FN:
      buf[i] = 0x38; // 1.0: exponent bias 7
      break;
    case DLC_DTYPE_FLOAT8E5M2:
      buf[i] = 0x3c; // bias 15
      break;
    case DLC_DTYPE_FLOAT8E4M3FNUZ:
    case DLC_DTYPE_FLOAT8E5M2FNUZ:
      buf[i] = 0x40; // bias 8 and 16
      break;
    default: // integers and bool, little-endian
      buf[i] = 1;
    }
  }
}

void printValues(const dlc::TensorInfo &info, const std::vector<uint8_t> &buf) {
  int64_t n = std::min<int64_t>(info.numElements(), 8);
  std::cout << "  " << info.name << " = [";
  for (int64_t i = 0; i < n; ++i) {
    std::cout << (i ? ", " : "");
    // Sub-byte types print their packed bytes.
    const uint8_t *p =
        buf.data() + i * std::max<size_t>(1, dlc_dtype_size(info.dtype));
    switch (info.dtype) {
    case DLC_DTYPE_FLOAT32: {
      float v;
      std::memcpy(&v, p, 4);
      std::cout << v;
      break;
    }
    case DLC_DTYPE_INT64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      std::cout << v;
      break;
    }
    case DLC_DTYPE_INT32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      std::cout << v;
      break;
    }
    default:
      std::cout << "0x" << std::hex << int(p[0]) << std::dec;
    }
  }
  std::cout << (info.numElements() > n ? ", ...]" : "]") << "\n";
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " MODEL.so [INPUT.npy ...]\n";
    return 1;
  }
  dlc::Expected<dlc::Model> model = dlc::Model::load(argv[1]);
  if (!model) {
    std::cerr << "error: " << model.status().message() << "\n";
    return 1;
  }

  std::cout << "model " << argv[1] << " (" << model->arch() << ")\n";
  for (const dlc::TensorInfo &t : model->inputs())
    std::cout << "  input  " << t.name << ": " << t.typeString() << "\n";
  for (const dlc::TensorInfo &t : model->outputs())
    std::cout << "  output " << t.name << ": " << t.typeString() << "\n";

  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < model->inputs().size(); ++i) {
    const dlc::TensorInfo &t = model->inputs()[i];
    std::vector<uint8_t> buf(t.sizeBytes);
    if (int(i) + 2 < argc) {
      if (!readNpyData(argv[i + 2], &buf)) {
        std::cerr << "error: cannot read " << argv[i + 2] << "\n";
        return 1;
      }
    } else {
      fillOnes(t.dtype, buf);
    }
    inputs.push_back(std::move(buf));
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (const dlc::TensorInfo &t : model->outputs())
    outputs.emplace_back(t.sizeBytes);

  dlc::Expected<dlc::Context> ctx = model->createContext();
  if (!ctx) {
    std::cerr << "error: " << ctx.status().message() << "\n";
    return 1;
  }
  std::vector<dlc::ConstBuffer> in(inputs.begin(), inputs.end());
  std::vector<dlc::Buffer> out(outputs.begin(), outputs.end());
  // Errors (a wrong .npy size, say) name the offending input.
  if (dlc::Status s = ctx->run(in, out); !s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  std::cout << "outputs:\n";
  for (size_t i = 0; i < outputs.size(); ++i)
    printValues(model->outputs()[i], outputs[i]);
  return 0;
}
