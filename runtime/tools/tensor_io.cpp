//===- tensor_io.cpp - .npy and ONNX TensorProto files --------------------===//

#include "tensor_io.h"

#include "dlc_runtime.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace dlc {
namespace io {

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string describe(int32_t dtype, const std::vector<int64_t> &shape) {
  std::string s = dlc_dtype_name(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ']';
}

//===----------------------------------------------------------------------===//
// Half precision
//===----------------------------------------------------------------------===//

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) // inf / nan
    return floatOf(sign | 0x7f800000 | (mant << 13));
  if (exp == 0) { // zero / subnormal: mant * 2^-24
    float v = float(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t floatToHalf(float f) {
  uint32_t u = bitsOf(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t exp = (u >> 23) & 0xff, mant = u & 0x7fffff;
  if (exp == 0xff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  int32_t e = int32_t(exp) - 127 + 15;
  if (e >= 0x1f)
    return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10)
      return sign;
    // Subnormal: shift the implicit-1 mantissa, round to nearest even.
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return sign | uint16_t(half);
  }
  uint32_t h = (uint32_t(e) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, which is the right result
  return sign | uint16_t(h);
}

float bfloat16ToFloat(uint16_t b) { return floatOf(uint32_t(b) << 16); }

uint16_t floatToBfloat16(float f) {
  uint32_t u = bitsOf(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    return uint16_t((u >> 16) | 0x40); // quiet NaN
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

/// Element `i` of a packed sub-byte tensor: an integer (sign-extended for
/// the signed types), or float4e2m1's value.
double subByteElement(const Tensor &t, int64_t i) {
  int bits = int(dlc_dtype_bits(t.dtype)), perByte = 8 / bits;
  int v = (t.data[size_t(i / perByte)] >> (bits * (i % perByte))) &
          ((1 << bits) - 1);
  if (t.dtype == DLC_DTYPE_FLOAT4E2M1) {
    static const double magnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return v & 8 ? -magnitudes[v & 7] : magnitudes[v & 7];
  }
  bool isSigned = t.dtype == DLC_DTYPE_INT4 || t.dtype == DLC_DTYPE_INT2;
  return isSigned && v >= (1 << (bits - 1)) ? v - (1 << bits) : v;
}

bool isFloat8(int32_t dtype) {
  return (dtype >= DLC_DTYPE_FLOAT8E4M3FN &&
          dtype <= DLC_DTYPE_FLOAT8E5M2FNUZ) ||
         dtype == DLC_DTYPE_FLOAT8E8M0;
}

float float8ToFloat(uint8_t bits, int32_t dtype) {
  if (dtype == DLC_DTYPE_FLOAT8E8M0) // 2^(bits - 127), 255 NaN
    return bits == 0xff ? NAN : std::ldexp(1.0f, int(bits) - 127);
  bool e5m2 =
      dtype == DLC_DTYPE_FLOAT8E5M2 || dtype == DLC_DTYPE_FLOAT8E5M2FNUZ;
  bool fnuz =
      dtype == DLC_DTYPE_FLOAT8E4M3FNUZ || dtype == DLC_DTYPE_FLOAT8E5M2FNUZ;
  int mantissaBits = e5m2 ? 2 : 3;
  int bias = (e5m2 ? 15 : 7) + (fnuz ? 1 : 0);
  uint32_t abs = bits & 0x7f, exp = abs >> mantissaBits,
           mant = abs & ((1u << mantissaBits) - 1);
  float sign = bits & 0x80 ? -1.0f : 1.0f;
  if (fnuz && bits == 0x80)
    return NAN;
  if (!fnuz && !e5m2 && abs == 0x7f)
    return NAN;
  if (!fnuz && e5m2 && exp == 0x1f)
    return mant ? NAN : sign * INFINITY;
  if (exp == 0) // subnormal: mant units of 2^(1 - bias - mantissaBits)
    return sign * std::ldexp(float(mant), 1 - bias - mantissaBits);
  return sign * std::ldexp(float((1u << mantissaBits) | mant),
                           int(exp) - bias - mantissaBits);
}

double elementAsDouble(const Tensor &t, int64_t i) {
  if (dlc_dtype_bits(t.dtype) < 8)
    return subByteElement(t, i);
  const uint8_t *p = t.data.data() + i * int64_t(dlc_dtype_size(t.dtype));
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case DLC_DTYPE_FLOAT32:
    return load(float());
  case DLC_DTYPE_FLOAT64:
    return load(double());
  case DLC_DTYPE_FLOAT16:
    return halfToFloat(load(uint16_t()));
  case DLC_DTYPE_BFLOAT16:
    return bfloat16ToFloat(load(uint16_t()));
  case DLC_DTYPE_FLOAT8E4M3FN:
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
  case DLC_DTYPE_FLOAT8E5M2:
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
  case DLC_DTYPE_FLOAT8E8M0:
    return float8ToFloat(load(uint8_t()), t.dtype);
  case DLC_DTYPE_INT64:
    return double(load(int64_t()));
  case DLC_DTYPE_UINT64:
    return double(load(uint64_t()));
  case DLC_DTYPE_INT32:
    return load(int32_t());
  case DLC_DTYPE_UINT32:
    return load(uint32_t());
  case DLC_DTYPE_INT16:
    return load(int16_t());
  case DLC_DTYPE_UINT16:
    return load(uint16_t());
  case DLC_DTYPE_INT8:
    return load(int8_t());
  case DLC_DTYPE_UINT8:
  case DLC_DTYPE_BOOL:
    return load(uint8_t());
  default:
    return 0;
  }
}

std::string formatValues(const Tensor &t, int64_t maxValues) {
  int64_t n = t.numElements();
  std::string s = "[";
  char buf[64];
  bool isFloat = t.dtype == DLC_DTYPE_FLOAT32 || t.dtype == DLC_DTYPE_FLOAT64 ||
                 t.dtype == DLC_DTYPE_FLOAT16 ||
                 t.dtype == DLC_DTYPE_BFLOAT16 || isFloat8(t.dtype);
  for (int64_t i = 0; i < n && i < maxValues; ++i) {
    double v = elementAsDouble(t, i);
    if (isFloat)
      std::snprintf(buf, sizeof(buf), "%.6g", v);
    else
      std::snprintf(buf, sizeof(buf), "%" PRId64, int64_t(v));
    s += (i ? ", " : "") + std::string(buf);
  }
  if (n > maxValues)
    s += ", ...";
  return s + "]";
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static const char kNpyMagic[] = "\x93NUMPY";

const char *npyDescr(int32_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_FLOAT32:
    return "<f4";
  case DLC_DTYPE_FLOAT64:
    return "<f8";
  case DLC_DTYPE_FLOAT16:
    return "<f2";
  case DLC_DTYPE_INT64:
    return "<i8";
  case DLC_DTYPE_INT32:
    return "<i4";
  case DLC_DTYPE_INT16:
    return "<i2";
  case DLC_DTYPE_UINT64:
    return "<u8";
  case DLC_DTYPE_UINT32:
    return "<u4";
  case DLC_DTYPE_UINT16:
    return "<u2";
  case DLC_DTYPE_INT8:
    return "|i1";
  case DLC_DTYPE_UINT8:
    return "|u1";
  case DLC_DTYPE_BOOL:
    return "|b1";
  default:
    return "";
  }
}

/// dtype of a NumPy descr, 0 if unsupported. Accepts '=' (native is
/// little-endian on every target dlc supports) and any prefix for 1 byte.
static int32_t dtypeOfDescr(const std::string &descr) {
  if (descr.size() < 3 || descr[0] == '>')
    return 0;
  std::string kind = descr.substr(1);
  bool oneByte = kind == "i1" || kind == "u1" || kind == "b1";
  if (!oneByte && descr[0] != '<' && descr[0] != '=')
    return 0;
  for (int32_t d : {DLC_DTYPE_FLOAT32, DLC_DTYPE_FLOAT64, DLC_DTYPE_FLOAT16,
                    DLC_DTYPE_INT64, DLC_DTYPE_INT32, DLC_DTYPE_INT16,
                    DLC_DTYPE_INT8, DLC_DTYPE_UINT64, DLC_DTYPE_UINT32,
                    DLC_DTYPE_UINT16, DLC_DTYPE_UINT8, DLC_DTYPE_BOOL})
    if (kind == npyDescr(d) + 1)
      return d;
  return 0;
}

/// Position just after `key`'s ':' in a header dict, or npos.
static size_t findKey(const std::string &header, const char *key) {
  for (const char *quote : {"'", "\""}) {
    size_t pos = header.find(std::string(quote) + key + quote);
    if (pos == std::string::npos)
      continue;
    pos = header.find(':', pos);
    if (pos == std::string::npos)
      return pos;
    pos = header.find_first_not_of(" \t", pos + 1);
    return pos;
  }
  return std::string::npos;
}

bool parseNpy(const uint8_t *bytes, size_t size, Tensor *out,
              std::string *error) {
  auto fail = [&](const std::string &msg) {
    *error = msg;
    return false;
  };
  if (size < 10 || std::memcmp(bytes, kNpyMagic, 6) != 0)
    return fail("not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t start, headerLen;
  if (major == 1) {
    headerLen = bytes[8] | (size_t(bytes[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fail("truncated .npy header");
    headerLen = bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) |
                (size_t(bytes[11]) << 24);
    start = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (headerLen > size - start)
    return fail("truncated .npy header");
  std::string header(reinterpret_cast<const char *>(bytes + start), headerLen);

  size_t pos = findKey(header, "descr");
  if (pos == std::string::npos || (header[pos] != '\'' && header[pos] != '"'))
    return fail("malformed .npy header (descr): " + header);
  size_t endQuote = header.find(header[pos], pos + 1);
  if (endQuote == std::string::npos)
    return fail("malformed .npy header (descr): " + header);
  std::string descr = header.substr(pos + 1, endQuote - pos - 1);
  int32_t dtype = dtypeOfDescr(descr);
  if (!dtype)
    return fail("unsupported .npy dtype '" + descr +
                "' (supported: <f4 <f8 <f2 <i8 <i4 |i1 |u1 |b1)");

  pos = findKey(header, "fortran_order");
  if (pos == std::string::npos)
    return fail("malformed .npy header (fortran_order): " + header);
  if (header.compare(pos, 4, "True") == 0)
    return fail("Fortran-ordered arrays are not supported; save with "
                "np.ascontiguousarray");

  pos = findKey(header, "shape");
  if (pos == std::string::npos || header[pos] != '(')
    return fail("malformed .npy header (shape): " + header);
  size_t close = header.find(')', pos);
  if (close == std::string::npos)
    return fail("malformed .npy header (shape): " + header);
  std::vector<int64_t> shape;
  const char *p = header.c_str() + pos + 1, *end = header.c_str() + close;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == ','))
      ++p;
    if (p >= end)
      break;
    char *next = nullptr;
    long long v = std::strtoll(p, &next, 10);
    if (next == p || v < 0)
      return fail("malformed .npy shape: " + header);
    shape.push_back(v);
    p = next;
    if (p < end && *p == 'L') // Python 2 longs
      ++p;
  }

  size_t elemSize = dlc_dtype_size(dtype);
  uint64_t expected = elemSize;
  for (int64_t d : shape) {
    if (d && expected > UINT64_MAX / uint64_t(d))
      return fail("tensor too large");
    expected *= uint64_t(d);
  }
  size_t have = size - start - headerLen;
  if (have != expected)
    return fail("data is " + std::to_string(have) + " bytes but " +
                describe(dtype, shape) + " needs " + std::to_string(expected));
  out->name.clear();
  out->dtype = dtype;
  out->shape = std::move(shape);
  out->data.assign(bytes + start + headerLen, bytes + size);
  return true;
}

static bool readFile(const std::string &path, std::vector<uint8_t> *out,
                     std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  if (in.bad()) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

bool readNpy(const std::string &path, Tensor *out, std::string *error) {
  std::vector<uint8_t> bytes;
  if (!readFile(path, &bytes, error))
    return false;
  if (!parseNpy(bytes.data(), bytes.size(), out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

std::vector<uint8_t> encodeNpy(const Tensor &t) {
  int32_t dtype = t.dtype;
  const std::vector<uint8_t> *data = &t.data;
  std::vector<uint8_t> widened;
  if (dtype == DLC_DTYPE_BFLOAT16) {
    widened.resize(t.data.size() * 2);
    for (size_t i = 0; i < t.data.size() / 2; ++i) {
      float f =
          bfloat16ToFloat(uint16_t(t.data[2 * i] | t.data[2 * i + 1] << 8));
      std::memcpy(&widened[4 * i], &f, 4);
    }
    dtype = DLC_DTYPE_FLOAT32;
    data = &widened;
  } else if (dtype == DLC_DTYPE_FLOAT4E2M1) {
    int64_t n = t.numElements();
    widened.resize(size_t(n) * 4);
    for (int64_t i = 0; i < n; ++i) {
      float f = float(subByteElement(t, i));
      std::memcpy(&widened[size_t(i) * 4], &f, 4);
    }
    dtype = DLC_DTYPE_FLOAT32;
    data = &widened;
  } else if (dlc_dtype_bits(dtype) && dlc_dtype_bits(dtype) < 8) {
    // int4/uint4/int2/uint2: a byte each, as int8/uint8.
    int64_t n = t.numElements();
    widened.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      widened[size_t(i)] = uint8_t(subByteElement(t, i));
    dtype = dtype == DLC_DTYPE_INT4 || dtype == DLC_DTYPE_INT2
                ? DLC_DTYPE_INT8
                : DLC_DTYPE_UINT8;
    data = &widened;
  } else if (isFloat8(dtype)) {
    widened.resize(t.data.size() * 4);
    for (size_t i = 0; i < t.data.size(); ++i) {
      float f = float8ToFloat(t.data[i], dtype);
      std::memcpy(&widened[4 * i], &f, 4);
    }
    dtype = DLC_DTYPE_FLOAT32;
    data = &widened;
  }
  std::string header = "{'descr': '";
  header += npyDescr(dtype);
  header += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape.size(); ++i)
    header += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : "") +
              (i + 1 < t.shape.size() ? ", " : "");
  header += "), }";
  // NumPy pads so the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::vector<uint8_t> out(kNpyMagic, kNpyMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(uint8_t(header.size() & 0xff));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data->begin(), data->end());
  return out;
}

bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string *error) {
  bool subByte =
      dlc_dtype_bits(tensor.dtype) && dlc_dtype_bits(tensor.dtype) < 8;
  if (!*npyDescr(tensor.dtype) && tensor.dtype != DLC_DTYPE_BFLOAT16 &&
      !isFloat8(tensor.dtype) && !subByte) {
    *error = std::string("cannot write dtype ") + dlc_dtype_name(tensor.dtype) +
             " to .npy";
    return false;
  }
  std::vector<uint8_t> bytes = encodeNpy(tensor);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  out.close();
  if (!out) {
    *error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// onnx.TensorProto
//===----------------------------------------------------------------------===//

namespace {

/// A cursor over protobuf wire-format bytes.
class Wire {
public:
  Wire(const uint8_t *p, const uint8_t *end) : p(p), end(end) {}

  bool done() const { return p >= end; }

  bool varint(uint64_t *v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end)
        return false;
      uint8_t b = *p++;
      *v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }

  bool fixed(void *out, size_t n) {
    if (size_t(end - p) < n)
      return false;
    std::memcpy(out, p, n);
    p += n;
    return true;
  }

  /// A length-delimited field's payload.
  bool bytes(Wire *sub) {
    uint64_t len;
    if (!varint(&len) || len > uint64_t(end - p))
      return false;
    *sub = Wire(p, p + len);
    p += len;
    return true;
  }

  bool skip(int wireType) {
    uint64_t v;
    Wire sub(nullptr, nullptr);
    switch (wireType) {
    case 0:
      return varint(&v);
    case 1:
      return fixed(&v, 8);
    case 2:
      return bytes(&sub);
    case 5:
      return fixed(&v, 4);
    default:
      return false; // groups are not used by onnx.proto
    }
  }

  const uint8_t *p, *end;
};

/// Reads a repeated scalar field: packed (wire type 2) or one element.
template <typename T, typename Read>
bool repeated(Wire &w, int wireType, int scalarType, std::vector<T> *out,
              Read read) {
  if (wireType == 2) {
    Wire sub(nullptr, nullptr);
    if (!w.bytes(&sub))
      return false;
    while (!sub.done()) {
      T v;
      if (!read(sub, &v))
        return false;
      out->push_back(v);
    }
    return true;
  }
  if (wireType != scalarType)
    return false;
  T v;
  if (!read(w, &v))
    return false;
  out->push_back(v);
  return true;
}

const char *onnxTypeName(int32_t t) {
  static const char *names[] = {
      "undefined",      "float",      "uint8",
      "int8",           "uint16",     "int16",
      "int32",          "int64",      "string",
      "bool",           "float16",    "double",
      "uint32",         "uint64",     "complex64",
      "complex128",     "bfloat16",   "float8e4m3fn",
      "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
      "uint4",          "int4",       "float4e2m1",
      "float8e8m0",     "uint2",      "int2"};
  return t >= 0 && t <= 26 ? names[t] : "unknown";
}

} // namespace

bool parseTensorProto(const uint8_t *bytes, size_t size, Tensor *out,
                      std::string *error) {
  auto fail = [&](const std::string &msg) {
    *error = msg;
    return false;
  };
  auto readVarint = [](Wire &w, int64_t *v) {
    uint64_t u;
    if (!w.varint(&u))
      return false;
    *v = int64_t(u);
    return true;
  };
  auto readFloat = [](Wire &w, float *v) { return w.fixed(v, 4); };
  auto readDouble = [](Wire &w, double *v) { return w.fixed(v, 8); };

  std::vector<int64_t> dims, ints32, ints64;
  std::vector<float> floats;
  std::vector<double> doubles;
  int64_t dataType = 0;
  std::string name;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false;

  Wire w(bytes, bytes + size);
  while (!w.done()) {
    uint64_t key;
    if (!w.varint(&key))
      return fail("malformed TensorProto (truncated field key)");
    int field = int(key >> 3), type = int(key & 7);
    bool ok = true;
    switch (field) {
    case 1:
      ok = repeated(w, type, 0, &dims, readVarint);
      break;
    case 2:
      ok = type == 0 && readVarint(w, &dataType);
      break;
    case 4:
      ok = repeated(w, type, 5, &floats, readFloat);
      break;
    case 5:
      ok = repeated(w, type, 0, &ints32, readVarint);
      break;
    case 6:
      return fail("string tensors are not supported");
    case 7:
    case 11: // uint64_data: uint32 and uint64, the same varints
      ok = repeated(w, type, 0, &ints64, readVarint);
      break;
    case 8:
    case 9: {
      Wire sub(nullptr, nullptr);
      ok = type == 2 && w.bytes(&sub);
      if (ok && field == 8)
        name.assign(reinterpret_cast<const char *>(sub.p), sub.end - sub.p);
      if (ok && field == 9) {
        raw = sub.p;
        rawSize = size_t(sub.end - sub.p);
        hasRaw = true;
      }
      break;
    }
    case 10:
      ok = repeated(w, type, 1, &doubles, readDouble);
      break;
    case 13:
      return fail("tensors with external data are not supported; save the "
                  "tensor with its data inline");
    default:
      ok = w.skip(type);
    }
    if (!ok)
      return fail("malformed TensorProto (field " + std::to_string(field) +
                  ")");
  }

  int32_t dtype = int32_t(dataType);
  size_t bits = dlc_dtype_bits(dtype);
  if (!bits)
    return fail(std::string("unsupported TensorProto data_type ") +
                std::to_string(dataType) + " (" + onnxTypeName(dtype) + ")");
  // Sub-byte values are packed, 8 / bits a byte: raw_data and int32_data
  // (one packed byte an entry) hold the bytes.
  size_t elemSize = std::max<size_t>(1, bits / 8);
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return fail("negative dim in TensorProto");
    if (d && n > (UINT64_MAX / elemSize) / uint64_t(d))
      return fail("TensorProto too large");
    n *= uint64_t(d);
  }
  uint64_t packedBytes = bits < 8 ? (n * bits + 7) / 8 : n * elemSize;
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = dims;
  auto count = [&](size_t have, const char *field) {
    uint64_t want = bits < 8 ? packedBytes : n;
    if (have == want)
      return true;
    *error = std::string(field) + " holds " + std::to_string(have) +
             " values but " + describe(dtype, dims) + " needs " +
             std::to_string(want);
    return false;
  };
  if (hasRaw) {
    if (rawSize != packedBytes)
      return fail("raw_data is " + std::to_string(rawSize) + " bytes but " +
                  describe(dtype, dims) + " needs " +
                  std::to_string(packedBytes));
    t.data.assign(raw, raw + rawSize);
  } else if (bits < 8) {
    if (!count(ints32.size(), "int32_data"))
      return false;
    t.data.resize(packedBytes);
    for (size_t i = 0; i < packedBytes; ++i)
      t.data[i] = uint8_t(ints32[i]);
  } else {
    t.data.resize(n * elemSize);
    uint8_t *dst = t.data.data();
    switch (dtype) {
    case DLC_DTYPE_FLOAT32:
      if (!count(floats.size(), "float_data"))
        return false;
      std::memcpy(dst, floats.data(), n * 4);
      break;
    case DLC_DTYPE_FLOAT64:
      if (!count(doubles.size(), "double_data"))
        return false;
      std::memcpy(dst, doubles.data(), n * 8);
      break;
    case DLC_DTYPE_INT64:
    case DLC_DTYPE_UINT64:
      if (!count(ints64.size(),
                 dtype == DLC_DTYPE_INT64 ? "int64_data" : "uint64_data"))
        return false;
      std::memcpy(dst, ints64.data(), n * 8);
      break;
    case DLC_DTYPE_UINT32:
      if (!count(ints64.size(), "uint64_data"))
        return false;
      for (size_t i = 0; i < n; ++i) {
        uint32_t v = uint32_t(ints64[i]);
        std::memcpy(dst + i * 4, &v, 4);
      }
      break;
    default:
      // int32_data carries int32, the narrow ints, bool and the bit patterns
      // of float16/bfloat16; keep the low bytes (little-endian).
      if (!count(ints32.size(), "int32_data"))
        return false;
      for (size_t i = 0; i < n; ++i) {
        uint32_t v = uint32_t(ints32[i]);
        std::memcpy(dst + i * elemSize, &v, elemSize);
      }
    }
  }
  *out = std::move(t);
  return true;
}

bool readTensorFile(const std::string &path, Tensor *out, std::string *error) {
  std::vector<uint8_t> bytes;
  if (!readFile(path, &bytes, error))
    return false;
  bool ok = bytes.size() >= 6 && std::memcmp(bytes.data(), kNpyMagic, 6) == 0
                ? parseNpy(bytes.data(), bytes.size(), out, error)
                : parseTensorProto(bytes.data(), bytes.size(), out, error);
  if (!ok)
    *error = path + ": " + *error;
  return ok;
}

} // namespace io
} // namespace dlc
