//===- Importer.cpp - ONNX ModelProto to the dlc dialect --------*- C++ -*-===//
//
// Walks the graph in order: graph inputs become arguments of @main,
// initializers and Constant nodes become arith.constant, every node goes
// through the operator table (OpImporters.cpp). Problems are reported as
// they are found and the walk goes on, so one run lists all of them; values
// produced by failed nodes are poisoned and their users skipped silently.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

Type onnx_import::getElementType(MLIRContext *ctx, int32_t dtype) {
  Builder b(ctx);
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT8:
    // Unsigned in the dialect (as uint16/32/64): the ops whose result
    // depends on signedness use unsigned arithmetic; the lowering erases
    // it.
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  // Newer than the ONNX 1.12 schema dlc builds against: by number.
  case kDtypeFloat8E4M3FN:
    return b.getFloat8E4M3FNType();
  case kDtypeFloat8E4M3FNUZ:
    return b.getFloat8E4M3FNUZType();
  case kDtypeFloat8E5M2:
    return b.getFloat8E5M2Type();
  case kDtypeFloat8E5M2FNUZ:
    return b.getFloat8E5M2FNUZType();
  default:
    // Strings, float8e8m0 and the sub-byte types need ops that know them.
    return {};
  }
}

std::string onnx_import::getDtypeName(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::UNDEFINED:
    return "undefined";
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::INT16:
    return "int16";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  // Newer than the ONNX 1.12 schema dlc builds against: by number.
  case 17:
    return "float8e4m3fn";
  case 18:
    return "float8e4m3fnuz";
  case 19:
    return "float8e5m2";
  case 20:
    return "float8e5m2fnuz";
  case 21:
    return "uint4";
  case 22:
    return "int4";
  case 23:
    return "float4e2m1";
  case 24:
    return "float8e8m0";
  case 25:
    return "uint2";
  case 26:
    return "int2";
  default:
    return "dtype " + std::to_string(dtype);
  }
}

/// No device holds a tensor this large; rejecting larger ones keeps the int64
/// byte arithmetic of later stages (planning, codegen) from overflowing.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

bool onnx_import::isSaneTensorType(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return false;
  Type e = t.getElementType();
  int64_t bytes = e.isIntOrFloat() ? std::max(1u, e.getIntOrFloatBitWidth() / 8)
                                   : 1;
  for (int64_t d : t.getShape()) {
    if (d < 0 || (d > 0 && bytes > kMaxTensorBytes / d))
      return false;
    bytes *= d;
  }
  return true;
}

namespace {
/// Storage bytes of one element as ONNX raw_data lays it out.
int64_t getRawElementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

/// Tensors up to this many elements stay inline so folders can read them.
constexpr int64_t kMaxInlineElements = 8;

/// Resource keys are printed as bare identifiers; keep them parseable.
std::string sanitizeBlobName(StringRef name) {
  std::string out = name.empty() ? "tensor" : name.str();
  for (char &c : out)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (llvm::isDigit(out.front()) || out.front() == '.')
    out.insert(out.begin(), '_');
  return out;
}

/// Appends the typed-field values of `t` to `bytes` in raw_data layout.
/// Returns the number of values found.
int64_t copyTypedData(const onnx::TensorProto &t, Type elementType,
                      std::vector<char> &bytes) {
  auto append = [&](const auto &values, auto convert) {
    for (auto v : values) {
      auto c = convert(v);
      const char *p = reinterpret_cast<const char *>(&c);
      bytes.insert(bytes.end(), p, p + sizeof(c));
    }
    return (int64_t)values.size();
  };
  auto same = [](auto v) { return v; };
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    return append(t.float_data(), same);
  case onnx::TensorProto::DOUBLE:
    return append(t.double_data(), same);
  case onnx::TensorProto::INT64:
    return append(t.int64_data(), same);
  case onnx::TensorProto::INT32:
    return append(t.int32_data(), same);
  case onnx::TensorProto::INT8:
    return append(t.int32_data(), [](int32_t v) { return (int8_t)v; });
  case onnx::TensorProto::UINT8:
    return append(t.int32_data(), [](int32_t v) { return (uint8_t)v; });
  case onnx::TensorProto::INT16:
    return append(t.int32_data(), [](int32_t v) { return (int16_t)v; });
  case onnx::TensorProto::UINT16:
    return append(t.int32_data(), [](int32_t v) { return (uint16_t)v; });
  case onnx::TensorProto::UINT32:
    return append(t.uint64_data(), [](uint64_t v) { return (uint32_t)v; });
  case onnx::TensorProto::UINT64:
    return append(t.uint64_data(), same);
  case onnx::TensorProto::BOOL:
    return append(t.int32_data(), [](int32_t v) { return (uint8_t)(v != 0); });
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    // The 16 bits of each value are stored in an int32.
    return append(t.int32_data(), [](int32_t v) { return (uint16_t)v; });
  case kDtypeFloat8E4M3FN:
  case kDtypeFloat8E4M3FNUZ:
  case kDtypeFloat8E5M2:
  case kDtypeFloat8E5M2FNUZ:
    // The byte of each value, in an int32.
    return append(t.int32_data(), [](int32_t v) { return (uint8_t)v; });
  default:
    return 0;
  }
}
} // namespace

TypedAttr
onnx_import::convertTensor(MLIRContext *ctx, const onnx::TensorProto &t,
                           StringRef blobName,
                           llvm::function_ref<InFlightDiagnostic()> emitError) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL ||
      t.external_data_size() > 0) {
    emitError() << "external data is not supported";
    return {};
  }
  if (t.has_segment()) {
    emitError() << "segmented tensors are not supported";
    return {};
  }
  // int4/uint4/int2/uint2 widen to int8/uint8 (the same integers).
  int bits = subByteBits(t.data_type());
  Type elementType = bits ? widenedSubByteType(ctx, t.data_type())
                          : getElementType(ctx, t.data_type());
  if (!elementType) {
    emitError() << "unsupported dtype '" << getDtypeName(t.data_type()) << "'";
    return {};
  }
  SmallVector<int64_t> shape;
  int64_t numElements = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && numElements > std::numeric_limits<int64_t>::max() /
                                             d / 8)) {
      emitError() << "invalid dims";
      return {};
    }
    shape.push_back(d);
    numElements *= d;
  }
  auto type = RankedTensorType::get(shape, elementType);
  int64_t elementBytes = getRawElementBytes(elementType);
  int64_t expectedBytes = numElements * elementBytes;

  std::vector<char> typed;
  ArrayRef<char> raw;
  if (bits) {
    // 8 / bits values a byte, the first in the low bits (raw_data, or one
    // byte per int32_data entry), widened to a byte each: the signed types
    // sign-extended.
    int perByte = 8 / bits;
    int64_t packed = (numElements + perByte - 1) / perByte;
    std::vector<uint8_t> bytes;
    if (t.has_raw_data()) {
      bytes.assign(t.raw_data().begin(), t.raw_data().end());
    } else {
      for (int32_t v : t.int32_data())
        bytes.push_back(uint8_t(v));
    }
    if ((int64_t)bytes.size() != packed) {
      emitError() << "has " << bytes.size() << " bytes of packed " << bits
                  << "-bit values, expected " << packed << " for "
                  << numElements << " elements";
      return {};
    }
    bool isSigned = isSignedSubByte(t.data_type());
    int half = 1 << (bits - 1);
    for (int64_t i = 0; i < numElements; ++i) {
      int v =
          (bytes[i / perByte] >> (bits * (i % perByte))) & ((1 << bits) - 1);
      typed.push_back(char(isSigned && v >= half ? v - 2 * half : v));
    }
    raw = ArrayRef<char>(typed.data(), typed.size());
  } else if (t.has_raw_data()) {
    raw = ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
    if ((int64_t)raw.size() != expectedBytes) {
      emitError() << "raw_data has " << raw.size() << " bytes, expected "
                  << expectedBytes << " for " << type;
      return {};
    }
  } else {
    int64_t count = copyTypedData(t, elementType, typed);
    if (count != numElements) {
      emitError() << "has " << count << " values, expected " << numElements
                  << " for " << type;
      return {};
    }
    raw = ArrayRef<char>(typed.data(), typed.size());
  }

  if (elementType.isInteger(1)) {
    // i1 is bit-packed in MLIR attributes; booleans are never weights.
    SmallVector<bool> values;
    for (char c : raw)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  if (numElements <= kMaxInlineElements)
    return DenseElementsAttr::getFromRawBuffer(type, raw);
  // One copy into a heap blob owned by the context's resource manager; 64-byte
  // alignment suits vector loads when the blob is later embedded.
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, 64);
  return DenseResourceElementsAttr::get(type, sanitizeBlobName(blobName),
                                        std::move(blob));
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

namespace {
class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, StringRef filename,
                const ImportOptions &options)
      : ctx(ctx), b(&ctx), options(options),
        fileLoc(FileLineColLoc::get(&ctx, filename, 0, 0)) {}

  /// Imports `model`; consumes the weights' raw data as it converts them.
  OwningOpRef<ModuleOp> run(onnx::ModelProto &model, StringRef bytes);

private:
  Location nameLoc(StringRef name) {
    return NameLoc::get(b.getStringAttr(name), fileLoc);
  }
  InFlightDiagnostic error(Location loc) {
    hadError = true;
    return mlir::emitError(loc);
  }

  LogicalResult readOpsets(const onnx::ModelProto &model);
  void importInputs(const onnx::GraphProto &graph,
                    SmallVectorImpl<Type> &argTypes,
                    SmallVectorImpl<std::string> &argNames);
  std::optional<RankedTensorType> getInputType(const onnx::ValueInfoProto &in);
  /// Makes graph input `in` the constant `c` (`--const-input`): checks it
  /// against the declared dtype and shape and records it as an initializer.
  /// Returns false after reporting an error.
  bool bindConstInput(const onnx::ValueInfoProto &in, const ConstInput &c);
  void importNode(const onnx::NodeProto &node, int index);
  /// Imports `graph` inline with `args` bound to its inputs (see
  /// SubgraphImporter). The names it binds are unbound afterwards, so a
  /// loop body imports once per iteration.
  FailureOr<SmallVector<Value>> importSubgraph(const onnx::GraphProto &graph,
                                               ArrayRef<Value> args,
                                               Location loc);
  /// The value named `name`, materializing initializers on first use.
  /// Returns null for unknown or poisoned names.
  Value lookup(StringRef name);

  MLIRContext &ctx;
  OpBuilder b;
  const ImportOptions &options;
  Location fileLoc;
  bool hadError = false;
  int64_t opset = 0;

  /// Defined values by ONNX name.
  llvm::StringMap<Value> values;
  /// Converted initializers not yet materialized as constants.
  llvm::StringMap<TypedAttr> initializers;
  /// Subgraphs' initializers, converted on their first import.
  llvm::DenseMap<const onnx::TensorProto *, TypedAttr> subgraphInitializers;
  /// Initializers stored as int4/uint4/int2/uint2 (widened to 8 bits), by
  /// ONNX dtype.
  llvm::StringMap<int32_t> subByteInitializers;
  /// Graph inputs of a sub-byte dtype: the dtype and the widened type of
  /// their values (the argument holds the packed bytes).
  llvm::StringMap<std::pair<int32_t, RankedTensorType>> subByteInputs;

  /// Packs or unpacks a sub-byte graph input or output `name` with the
  /// importers' ops, under a node named after it.
  Value convertSubByte(StringRef name, Value v, int32_t dtype,
                       std::optional<RankedTensorType> unpackedType);
  /// Names produced by failed nodes or inputs; users are skipped silently.
  llvm::StringSet<> poisoned;
  /// Node index producing each name, to diagnose out-of-order graphs.
  llvm::StringMap<int> producers;
  /// Names consumed by some node or by the graph outputs.
  llvm::StringSet<> used;
};
} // namespace

LogicalResult GraphImporter::readOpsets(const onnx::ModelProto &model) {
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  // IR version 3 models may omit opset_import: they are opset 1 anyway.
  if (opset == 0) {
    error(fileLoc) << "model imports no version of the default ONNX domain";
    return failure();
  }
  // The newest opset of onnx 1.23.2's node tests, which CI runs.
  constexpr int64_t kNewestTestedOpset = 28;
  if (opset < 7) {
    error(fileLoc) << "opset " << opset
                   << " is not supported (dlc imports opsets 7 to "
                   << kNewestTestedOpset << ")";
    return failure();
  }
  if (opset > kNewestTestedOpset)
    mlir::emitWarning(fileLoc)
        << "opset " << opset << " is newer than the newest dlc was tested "
        << "with (" << kNewestTestedOpset << "); operators that changed "
        << "since are imported with their opset " << kNewestTestedOpset
        << " semantics";
  return success();
}

std::optional<RankedTensorType>
GraphImporter::getInputType(const onnx::ValueInfoProto &in) {
  Location loc = nameLoc(in.name());
  const std::string &name = in.name();
  if (!in.type().has_tensor_type()) {
    error(loc) << "input '" << name << "' is not a tensor";
    return std::nullopt;
  }
  const auto &tt = in.type().tensor_type();
  auto checkSize = [&](RankedTensorType t) -> std::optional<RankedTensorType> {
    if (isSaneTensorType(t))
      return t;
    error(loc) << "input '" << name << "': " << t
               << " is too large (more than 2^48 bytes)";
    return std::nullopt;
  };
  Type elementType = getElementType(&ctx, tt.elem_type());
  if (!elementType && subByteBits(tt.elem_type()))
    elementType = widenedSubByteType(&ctx, tt.elem_type());
  if (!elementType) {
    error(loc) << "input '" << name << "' has unsupported dtype '"
               << getDtypeName(tt.elem_type()) << "'";
    return std::nullopt;
  }
  auto binding = options.inputShapes.find(name);
  bool bound = binding != options.inputShapes.end();
  std::string bindHint = "bind it with --input-shape " + name + "=...";
  if (!tt.has_shape()) {
    if (!bound) {
      error(loc) << "input '" << name << "' has an unknown rank; " << bindHint;
      return std::nullopt;
    }
    return checkSize(RankedTensorType::get(binding->second, elementType));
  }
  SmallVector<int64_t> shape;
  SmallVector<std::string> dynamicDims;
  for (const auto &dim : tt.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    std::string what = std::to_string(shape.size());
    if (dim.has_dim_param() && !dim.dim_param().empty())
      what += " ('" + dim.dim_param() + "')";
    dynamicDims.push_back(what);
    shape.push_back(ShapedType::kDynamic);
  }
  if (bound) {
    ArrayRef<int64_t> bind = binding->second;
    if (bind.size() != shape.size()) {
      error(loc) << "--input-shape " << name << " has rank " << bind.size()
                 << " but input '" << name << "' has rank " << shape.size();
      return std::nullopt;
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      if (bind[i] <= 0) {
        error(loc) << "--input-shape " << name << ": dim " << i
                   << " must be positive";
        return std::nullopt;
      }
      if (!ShapedType::isDynamic(shape[i]) && shape[i] != bind[i]) {
        error(loc) << "--input-shape " << name << ": dim " << i << " is "
                   << bind[i] << " but input '" << name << "' has static dim "
                   << shape[i];
        return std::nullopt;
      }
    }
    return checkSize(RankedTensorType::get(bind, elementType));
  }
  if (!dynamicDims.empty()) {
    error(loc) << "input '" << name << "' has dynamic dim"
               << (dynamicDims.size() > 1 ? "s " : " ")
               << llvm::join(dynamicDims, ", ") << "; "
               << (dynamicDims.size() > 1 ? "bind them" : "bind it")
               << " with --input-shape " << name << "=...";
    return std::nullopt;
  }
  return checkSize(RankedTensorType::get(shape, elementType));
}

namespace {
/// "int64[2,3]": a dtype and shape as diagnostics print them.
std::string describeTensor(int32_t dtype, ArrayRef<int64_t> shape) {
  std::string s = getDtypeName(dtype) + "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}
} // namespace

bool GraphImporter::bindConstInput(const onnx::ValueInfoProto &in,
                                   const ConstInput &c) {
  Location loc = nameLoc(in.name());
  const std::string &name = in.name();
  std::string what = "--const-input " + name + ": '" + c.source + "' holds " +
                     describeTensor(c.dtype, c.shape);
  if (options.inputShapes.count(name)) {
    error(loc) << "input '" << name
               << "' is bound by both --input-shape and --const-input; "
                  "the constant fixes its shape";
    return false;
  }
  if (!in.type().has_tensor_type()) {
    error(loc) << "input '" << name << "' is not a tensor";
    return false;
  }
  const auto &tt = in.type().tensor_type();
  if (tt.elem_type() != c.dtype) {
    error(loc) << what << " but input '" << name << "' is "
               << getDtypeName(tt.elem_type());
    return false;
  }
  if (tt.has_shape()) {
    SmallVector<int64_t> declared;
    for (const auto &dim : tt.shape().dim())
      declared.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                             ? dim.dim_value()
                             : ShapedType::kDynamic);
    bool rankOk = declared.size() == c.shape.size();
    for (size_t i = 0; rankOk && i < declared.size(); ++i)
      rankOk = ShapedType::isDynamic(declared[i]) || declared[i] == c.shape[i];
    if (!rankOk) {
      error(loc) << what << " but input '" << name << "' is "
                 << describeTensor(tt.elem_type(), declared);
      return false;
    }
  }
  // Through a TensorProto, so the constant is checked and stored exactly as
  // an initializer would be (inline when small, a resource blob otherwise).
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(c.dtype);
  for (int64_t d : c.shape)
    t.add_dims(d);
  t.set_raw_data(c.data.data(), c.data.size());
  TypedAttr value = convertTensor(&ctx, t, name, [&]() {
    return error(loc) << "--const-input " << name << ": '" << c.source << "': ";
  });
  if (!value || !isSaneTensorType(value.getType())) {
    if (value)
      error(loc) << what << ", which is too large (more than 2^48 bytes)";
    return false;
  }
  initializers[name] = value;
  return true;
}

void GraphImporter::importInputs(const onnx::GraphProto &graph,
                                 SmallVectorImpl<Type> &argTypes,
                                 SmallVectorImpl<std::string> &argNames) {
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    inputNames.insert(in.name());
    // A bound constant replaces the input (and an initializer listed as an
    // input, which ONNX treats as a default value).
    auto constant = options.constInputs.find(in.name());
    if (constant != options.constInputs.end()) {
      initializers.erase(in.name());
      poisoned.erase(in.name());
      if (!bindConstInput(in, constant->second))
        poisoned.insert(in.name());
      continue;
    }
    // Before IR version 4 initializers were listed as inputs too; they are
    // weights, not arguments.
    if (initializers.count(in.name()))
      continue;
    std::optional<RankedTensorType> type = getInputType(in);
    if (!type) {
      poisoned.insert(in.name());
      continue;
    }
    // Sub-byte inputs arrive as ONNX's packed bytes, unpacked in @main.
    int32_t dtype = in.type().tensor_type().elem_type();
    if (int bits = subByteBits(dtype)) {
      subByteInputs[in.name()] = {dtype, *type};
      int64_t packed = (type->getNumElements() * bits + 7) / 8;
      type = RankedTensorType::get(
          {packed}, IntegerType::get(&ctx, 8, IntegerType::Unsigned));
    }
    argTypes.push_back(*type);
    argNames.push_back(in.name());
  }
  for (const auto &binding : options.inputShapes)
    if (!inputNames.contains(binding.getKey()))
      error(fileLoc) << "--input-shape names '" << binding.getKey()
                     << "', which is not an input of the graph";
  for (const auto &binding : options.constInputs)
    if (!inputNames.contains(binding.getKey()))
      error(fileLoc) << "--const-input names '" << binding.getKey()
                     << "', which is not an input of the graph";
}

Value GraphImporter::convertSubByte(
    StringRef name, Value v, int32_t dtype,
    std::optional<RankedTensorType> unpackedType) {
  onnx::NodeProto node;
  node.set_op_type(unpackedType ? "graph input" : "graph output");
  NodeContext n(b, node, name.str(), opset, nameLoc(name), {});
  Value r = unpackedType ? unpackSubByte(n, v, unpackedType->getShape(), dtype)
                         : packSubByte(n, v, dtype);
  if (!r || n.hasFailed()) {
    hadError = true;
    return {};
  }
  return r;
}

Value GraphImporter::lookup(StringRef name) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = initializers.find(name);
  if (init == initializers.end())
    return {};
  // Constants are materialized where first used, keeping weights next to
  // their users in the output.
  Value v = b.create<arith::ConstantOp>(nameLoc(name), init->second);
  // Importers that must tell sub-byte values apart (Cast, QuantizeLinear,
  // graph outputs) recognize them by this mark.
  if (auto it = subByteInitializers.find(name); it != subByteInitializers.end())
    v.getDefiningOp()->setAttr(kOnnxDtypeAttr,
                               b.getStringAttr(getDtypeName(it->second)));
  values[name] = v;
  initializers.erase(init);
  return v;
}

void GraphImporter::importNode(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  Location loc = nameLoc(name);
  auto poisonOutputs = [&] {
    for (const std::string &out : node.output())
      if (!out.empty())
        poisoned.insert(out);
  };

  // Operands first: a node after a failure is skipped without more noise.
  SmallVector<Value> inputs;
  bool inputsOk = true, skip = false;
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      inputs.push_back({});
      continue;
    }
    if (poisoned.contains(in)) {
      skip = true;
      continue;
    }
    Value v = lookup(in);
    if (!v) {
      auto producer = producers.find(in);
      InFlightDiagnostic d = error(loc);
      d << "node '" << name << "' (" << node.op_type() << ", opset " << opset
        << "): input '" << in << "' ";
      if (producer != producers.end())
        d << "is produced by a later node (the graph is not topologically "
             "sorted or has a cycle)";
      else
        d << "is not defined";
      inputsOk = false;
      continue;
    }
    inputs.push_back(v);
  }
  // Support does not depend on operands: report unknown domains and
  // operators even after a failure upstream, so one run lists them all.
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  if (!defaultDomain && node.domain() != kMicrosoftDomain &&
      node.domain() != kPreviewDomain) {
    error(loc) << "node '" << name << "' (" << node.op_type()
               << "): unknown domain '" << node.domain() << "'";
    return poisonOutputs();
  }
  OpImporter importer = lookupOpImporter(node.domain(), node.op_type());
  if (!importer) {
    InFlightDiagnostic d = error(loc);
    d << "node '" << name << "' (" << node.op_type();
    if (defaultDomain)
      d << ", opset " << opset << "): unsupported operator";
    else
      d << "): unsupported operator in domain '" << node.domain() << "'";
    return poisonOutputs();
  }
  if (skip || !inputsOk)
    return poisonOutputs();
  // float8 only moves and converts: ONNX defines it for these ops alone, and
  // dlc.cast is the one dlc op that reads its values.
  static const llvm::StringSet<> float8Ops = {
      "BitCast",        "Cast",    "CastLike",  "DequantizeLinear",
      "Dropout",        "Flatten", "Identity",  "If",
      "IsInf",          "IsNaN",   "Loop",      "Pad",
      "QuantizeLinear", "Reshape", "Scan",      "Shape",
      "Size",           "Squeeze", "Transpose", "Unsqueeze"};
  if (!float8Ops.contains(node.op_type()))
    for (Value v : inputs)
      if (v && isFloat8(cast<ShapedType>(v.getType()).getElementType())) {
        error(loc) << "node '" << name << "' (" << node.op_type() << ", opset "
                   << opset << "): float8 input " << v.getType()
                   << " is not supported by this op (ONNX defines float8 "
                      "for conversions and data movement)";
        return poisonOutputs();
      }

  NodeContext n(b, node, name, opset, loc, inputs);
  auto subgraphs = [&](const onnx::GraphProto &graph, ArrayRef<Value> args) {
    return importSubgraph(graph, args, loc);
  };
  n.subgraphImporter = subgraphs;
  SmallVector<Value> results;
  if (failed(importer(n, results)) || n.hasFailed() ||
      llvm::any_of(results, [](Value v) { return !v; })) {
    if (!n.hasFailed())
      (void)n.fail("import failed");
    hadError = true;
    return poisonOutputs();
  }
  for (int i = 0, e = node.output_size(); i < e; ++i) {
    const std::string &out = node.output(i);
    if (out.empty())
      continue;
    if (values.count(out) || initializers.count(out)) {
      (void)n.fail("output '" + out + "' redefines an existing value");
      hadError = true;
      continue;
    }
    if (i < (int)results.size()) {
      // Shape inference on absurd dims can overflow into dynamic or
      // negative dims; later stages assume static shapes of sane sizes.
      if (!isSaneTensorType(results[i].getType())) {
        (void)n.fail("output '" + out + "': " +
                     (isa<RankedTensorType>(results[i].getType()) &&
                              cast<RankedTensorType>(results[i].getType())
                                  .hasStaticShape()
                          ? "the result is too large (more than 2^48 bytes)"
                          : "the result has an invalid shape"));
        hadError = true;
        poisoned.insert(out);
        continue;
      }
      values[out] = results[i];
      continue;
    }
    // Outputs the importer does not produce (MaxPool indices, BatchNorm
    // running statistics, Dropout mask...) are fine as long as no one
    // reads them.
    if (used.contains(out)) {
      (void)n.fail("output " + Twine(i) + " ('" + out + "') is used, but only " +
             Twine(results.size()) + " output" +
             (results.size() == 1 ? " is" : "s are") + " supported");
      hadError = true;
    }
    poisoned.insert(out);
  }
}

FailureOr<SmallVector<Value>>
GraphImporter::importSubgraph(const onnx::GraphProto &graph,
                              ArrayRef<Value> args, Location loc) {
  if (graph.input_size() != (int)args.size()) {
    error(loc) << "subgraph '" << graph.name() << "' has " << graph.input_size()
               << " inputs, expected " << args.size();
    return failure();
  }
  // Each name the subgraph binds, with the outer binding it shadows.
  llvm::StringMap<std::optional<Value>> shadowed;
  auto save = [&](const std::string &name) {
    if (name.empty() || shadowed.count(name))
      return;
    auto it = values.find(name);
    shadowed[name] =
        it == values.end() ? std::nullopt : std::optional<Value>(it->second);
    values.erase(name);
  };
  auto restore = [&] {
    for (auto &entry : shadowed) {
      poisoned.erase(entry.getKey());
      if (entry.getValue())
        values[entry.getKey()] = *entry.getValue();
      else
        values.erase(entry.getKey());
    }
  };
  for (auto [in, arg] : llvm::zip(graph.input(), args)) {
    save(in.name());
    values[in.name()] = arg;
  }
  bool ok = true;
  for (const onnx::TensorProto &t : graph.initializer()) {
    save(t.name());
    // Converted once: a loop body imports once per iteration, and its
    // weights must not become one blob each time.
    TypedAttr &value = subgraphInitializers[&t];
    if (!value)
      value = convertTensor(&ctx, t, t.name(), [&]() {
        return error(loc) << "subgraph '" << graph.name() << "' initializer '"
                          << t.name() << "': ";
      });
    if (!value) {
      ok = false;
      continue;
    }
    values[t.name()] = b.create<arith::ConstantOp>(nameLoc(t.name()), value);
  }
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      used.insert(in);
    for (const std::string &out : node.output())
      save(out);
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    used.insert(out.name());
  bool errorsBefore = hadError;
  hadError = false;
  for (auto [i, node] : llvm::enumerate(graph.node()))
    if (ok)
      importNode(node, i);
  ok = ok && !hadError;
  hadError |= errorsBefore;
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    if (!ok)
      break;
    Value v = lookup(out.name());
    if (!v) {
      if (!poisoned.contains(out.name()))
        error(loc) << "subgraph '" << graph.name() << "' output '" << out.name()
                   << "' is not defined";
      ok = false;
    }
    results.push_back(v);
  }
  restore();
  if (!ok)
    return failure();
  return results;
}

OwningOpRef<ModuleOp> GraphImporter::run(onnx::ModelProto &model,
                                          StringRef bytes) {
  if (!model.has_graph()) {
    error(fileLoc) << "the model has no graph";
    return {};
  }
  if (failed(readOpsets(model)))
    return {};
  onnx::GraphProto &graph = *model.mutable_graph();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("dlc.opset", b.getI64IntegerAttr(opset));
  std::string producer = model.producer_name();
  if (!model.producer_version().empty())
    producer += (producer.empty() ? "" : " ") + model.producer_version();
  module->getOperation()->setAttr("dlc.producer", b.getStringAttr(producer));
  std::string hash;
  llvm::raw_string_ostream(hash)
      << llvm::format_hex_no_prefix(llvm::xxh3_64bits(bytes), 16);
  module->getOperation()->setAttr("dlc.model_hash", b.getStringAttr(hash));

  // Initializers: converted (and checked) up front, materialized lazily.
  for (onnx::TensorProto &t : *graph.mutable_initializer()) {
    Location loc = nameLoc(t.name());
    if (t.name().empty()) {
      error(loc) << "an initializer has no name";
      continue;
    }
    TypedAttr value = convertTensor(&ctx, t, t.name(), [&] {
      return error(loc) << "initializer '" << t.name() << "': ";
    });
    // The blob holds the data now; dropping protobuf's copy keeps the peak
    // at about two copies of the weights (file bytes and blobs).
    std::string().swap(*t.mutable_raw_data());
    if (!value) {
      poisoned.insert(t.name());
      continue;
    }
    initializers[t.name()] = value;
    if (subByteBits(t.data_type()))
      subByteInitializers[t.name()] = t.data_type();
  }
  if (graph.sparse_initializer_size() > 0)
    error(fileLoc) << "sparse initializers are not supported";

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  importInputs(graph, argTypes, argNames);

  for (int i = 0, e = graph.node_size(); i < e; ++i)
    for (const std::string &out : graph.node(i).output())
      if (!out.empty())
        producers.try_emplace(out, i);
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &in : node.input())
      used.insert(in);
  for (const onnx::ValueInfoProto &out : graph.output())
    used.insert(out.name());

  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(fileLoc, "main",
                                     b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "dlc.name", b.getStringAttr(name));
    entry->getArgument(i).setLoc(nameLoc(name));
    values[name] = entry->getArgument(i);
    auto sub = subByteInputs.find(name);
    if (sub == subByteInputs.end())
      continue;
    auto [dtype, type] = sub->second;
    func.setArgAttr(i, "dlc.dtype", b.getI32IntegerAttr(dtype));
    func.setArgAttr(i, "dlc.shape", b.getDenseI64ArrayAttr(type.getShape()));
    values[name] = convertSubByte(name, entry->getArgument(i), dtype, type);
    if (!values[name])
      poisoned.insert(name);
  }

  for (int i = 0, e = graph.node_size(); i < e; ++i)
    importNode(graph.node(i), i);

  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  llvm::DenseMap<size_t, std::pair<int32_t, RankedTensorType>> resultSubBytes;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    if (poisoned.contains(out.name()))
      continue;
    Value v = lookup(out.name());
    if (!v) {
      error(nameLoc(out.name()))
          << "graph output '" << out.name() << "' is not defined";
      continue;
    }
    // Sub-byte outputs leave as ONNX's packed bytes.
    int32_t dtype = out.type().tensor_type().elem_type();
    if (!subByteBits(dtype))
      dtype = subByteDtypeOf(v);
    if (subByteBits(dtype)) {
      resultSubBytes[results.size()] = {dtype,
                                        cast<RankedTensorType>(v.getType())};
      v = convertSubByte(out.name(), v, dtype, std::nullopt);
      if (!v)
        continue;
    }
    results.push_back(v);
    resultNames.push_back(out.name());
  }
  for (const std::string &name : options.keepOutputs) {
    if (llvm::is_contained(resultNames, name) || poisoned.contains(name))
      continue;
    Value v = lookup(name);
    if (!v) {
      error(fileLoc) << "--keep-outputs: the graph has no tensor named '"
                     << name << "'";
      continue;
    }
    results.push_back(v);
    resultNames.push_back(name);
  }
  if (resultNames.empty() && !hadError)
    error(fileLoc) << "the graph has no outputs";
  if (hadError)
    return {};

  b.create<func::ReturnOp>(fileLoc, results);
  // Folding leaves dead operands behind (shape-subgraph constants, Clip
  // bounds turned into attributes); users come after producers, so one
  // backward sweep removes whole dead chains.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isOpTriviallyDead(&op))
      op.erase();
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "dlc.name", b.getStringAttr(name));
  for (auto &[i, sub] : resultSubBytes) {
    func.setResultAttr(i, "dlc.dtype", b.getI32IntegerAttr(sub.first));
    func.setResultAttr(i, "dlc.shape",
                       b.getDenseI64ArrayAttr(sub.second.getShape()));
  }
  if (failed(mlir::verify(*module)))
    return {};
  return module;
}

OwningOpRef<ModuleOp> mlir::dlc::importOnnxModel(MLIRContext &ctx,
                                                 StringRef bytes,
                                                 StringRef filename,
                                                 const ImportOptions &options) {
  ctx.loadDialect<DlcDialect, arith::ArithDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (bytes.size() > (size_t)std::numeric_limits<int>::max() ||
      !model.ParseFromArray(bytes.data(), (int)bytes.size())) {
    mlir::emitError(FileLineColLoc::get(&ctx, filename, 0, 0))
        << "cannot parse '" << filename
        << "' as an ONNX model (the file is truncated or not a ModelProto)";
    return {};
  }
  return GraphImporter(ctx, filename, options).run(model, bytes);
}
