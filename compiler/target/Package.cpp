//===- Package.cpp - the planned model as a model.so -------------*- C++
//-*-===//
//
// The model function after planning is straight-line code: allocations with
// arena offsets, weight globals, views, kernel calls and copies. It becomes
// the descriptor of runtime/include/dlc/model_format.h, written as C source
// (the weights and the PTX/cubin pulled in with .incbin) and linked by the
// system C compiler with the host kernels into one shared library.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/Codegen.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dlc;

namespace {
const char kFormatHeader[] =
#include "compiler/target/ModelFormatHeader.inc"
    ;

constexpr int64_t kWeightAlignment = 64;

enum BufferKind {
  kArena = 0,
  kWeight = 1,
  kInput = 2,
  kOutput = 3,
  kStatus = 4,
  kTensorMap = 5
};

struct BufferRef {
  int kind = kArena;
  int index = 0;
  int64_t offset = 0;
  int64_t size = 0;
};

/// A dlc_tensor_map: the runtime encodes it per context.
struct TensorMap {
  BufferRef tensor;
  int32_t dtype = 0;
  SmallVector<int64_t> dims, strides, box;
  int64_t swizzle = 0;
  /// Im2col mode (DLC_TENSOR_MAP_IM2COL): the bounding box's corners
  /// (innermost spatial dimension first), the channels and pixels one copy
  /// moves and the traversal strides (innermost first); else tiled.
  bool im2col = false;
  SmallVector<int64_t> lower, upper, elementStrides;
  int64_t channels = 0, pixels = 0;

  bool operator==(const TensorMap &o) const {
    return tensor.kind == o.tensor.kind && tensor.index == o.tensor.index &&
           tensor.offset == o.tensor.offset && dtype == o.dtype &&
           dims == o.dims && box == o.box && swizzle == o.swizzle &&
           im2col == o.im2col && lower == o.lower && upper == o.upper &&
           elementStrides == o.elementStrides && channels == o.channels &&
           pixels == o.pixels;
  }
};

struct Step {
  bool copy = false;
  int kernel = -1;
  LaunchShape launch{1, 1};
  int64_t sharedBytes = 0;
  std::vector<BufferRef> args;
};

int32_t onnxDtype(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF16())
    return 10;
  if (t.isBF16())
    return 16;
  if (t.isF64())
    return 11;
  if (t.isFloat8E4M3FN())
    return 17;
  if (t.isFloat8E4M3FNUZ())
    return 18;
  if (t.isFloat8E5M2())
    return 19;
  if (t.isFloat8E5M2FNUZ())
    return 20;
  if (t.isUnsignedInteger(64))
    return 13;
  if (t.isUnsignedInteger(32))
    return 12;
  if (t.isUnsignedInteger(16))
    return 4;
  if (t.isUnsignedInteger(8))
    return 2;
  if (t.isInteger(64))
    return 7;
  if (t.isInteger(32))
    return 6;
  if (t.isInteger(16))
    return 5;
  if (t.isInteger(8))
    return 3;
  if (t.isInteger(1))
    return 9;
  return 0;
}

/// Bytes of an element of ONNX dtype `dtype` (one of onnxDtype's).
int64_t dtypeBytes(int32_t dtype) {
  switch (dtype) {
  case 7:  // int64
  case 11: // double
  case 13: // uint64
    return 8;
  case 1:  // float
  case 6:  // int32
  case 12: // uint32
    return 4;
  case 4:  // uint16
  case 5:  // int16
  case 10: // float16
  case 16: // bfloat16
    return 2;
  default: // int8, uint8, bool, the float8 types (17-20)
    return 1;
  }
}

/// Bits of an element of ONNX dtype `dtype` (one of onnxDtype's, or a
/// sub-byte one named by dlc.dtype).
int64_t dtypeBits(int32_t dtype) {
  switch (dtype) {
  case 21: // uint4
  case 22: // int4
  case 23: // float4e2m1
    return 4;
  case 25: // uint2
  case 26: // int2
    return 2;
  default:
    return 8 * dtypeBytes(dtype);
  }
}

int64_t byteSize(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

/// The bytes of a weight initializer, one byte per bool, splats expanded.
FailureOr<std::string> initializerBytes(memref::GlobalOp global) {
  auto init = global.getInitialValue();
  if (!init)
    return global.emitOpError("weight without an initializer");
  MemRefType type = global.getType();
  int64_t size = byteSize(type);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(*init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return global.emitOpError("weight blob is missing");
    ArrayRef<char> data = blob->getData();
    if ((int64_t)data.size() != size)
      return global.emitOpError("weight blob holds ")
             << data.size() << " bytes, expected " << size;
    return std::string(data.data(), data.size());
  }
  auto dense = dyn_cast<DenseElementsAttr>(*init);
  if (!dense)
    return global.emitOpError("unsupported weight initializer");
  std::string bytes;
  bytes.reserve(size);
  if (dense.getElementType().isInteger(1)) {
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
  } else {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < type.getNumElements(); ++i)
        bytes.append(raw.data(), raw.size());
    } else {
      bytes.assign(raw.data(), raw.size());
    }
  }
  if ((int64_t)bytes.size() != size)
    return global.emitOpError("weight holds ")
           << bytes.size() << " bytes, expected " << size;
  return bytes;
}

std::string cString(StringRef s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c >= 32 && c < 127)
      out += c;
    else {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

/// The model function: the one function that is not a kernel.
FailureOr<func::FuncOp> modelFunction(ModuleOp module) {
  func::FuncOp model;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f->hasAttr(attrs::kKernel) || f.isExternal())
      continue;
    if (model)
      return module.emitError("expected one model function, found @")
             << model.getName() << " and @" << f.getName();
    model = f;
  }
  if (!model)
    return module.emitError("no model function");
  return model;
}

struct Plan {
  std::vector<Step> steps;
  std::vector<std::string> kernelNames;
  std::vector<unsigned> kernelArity;
  std::string weights;
  int64_t arenaSize = 0;
  /// Messages of the run-time checks, check k at k - 1.
  std::vector<std::string> checks;
  std::vector<TensorMap> tensorMaps;
};

/// `map` in im2col mode as `spec` (dlc.tensor_map's `im2col`: lower, upper,
/// strides, channels, pixels) asks, with what cuTensorMapEncodeIm2col
/// requires checked: a channels-last tensor of rank 3 to 5, corners within
/// the range its rank allows, a bounding box that is not empty.
template <typename Fail>
FailureOr<TensorMap> im2colMapFor(TensorMap map, DictionaryAttr spec,
                                  Fail fail) {
  auto lower = spec.getAs<DenseI64ArrayAttr>("lower");
  auto upper = spec.getAs<DenseI64ArrayAttr>("upper");
  auto strides = spec.getAs<DenseI64ArrayAttr>("strides");
  auto channels = spec.getAs<IntegerAttr>("channels");
  auto pixels = spec.getAs<IntegerAttr>("pixels");
  size_t rank = map.dims.size();
  if (!lower || !upper || !strides || !channels || !pixels || rank < 3 ||
      (size_t)lower.size() != rank - 2 || (size_t)upper.size() != rank - 2 ||
      (size_t)strides.size() != rank)
    return fail("malformed im2col dlc.tensor_map (a rank 3 to 5 tensor; "
                "lower and upper corners of rank - 2 entries, strides of "
                "rank; channels; pixels)");
  map.im2col = true;
  map.lower.assign(lower.asArrayRef().begin(), lower.asArrayRef().end());
  map.upper.assign(upper.asArrayRef().begin(), upper.asArrayRef().end());
  map.elementStrides.assign(strides.asArrayRef().begin(),
                            strides.asArrayRef().end());
  map.channels = channels.getInt();
  map.pixels = pixels.getInt();
  int64_t limit = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (map.lower[i] < -limit || map.lower[i] >= limit ||
        map.upper[i] < -limit || map.upper[i] >= limit)
      return fail("im2col corners of a rank-" + Twine(rank) +
                  " tensor must lie in [" + Twine(-limit) + ", " +
                  Twine(limit - 1) + "]");
    if (map.dims[1 + i] + map.upper[i] - map.lower[i] < 1)
      return fail("im2col bounding box is empty in dimension " + Twine(1 + i));
  }
  for (int64_t s : map.elementStrides)
    if (s < 1 || s > 8)
      return fail("im2col traversal strides must be 1 to 8, not " + Twine(s));
  if (map.channels < 1 || map.channels > 256 || map.pixels < 1 ||
      map.pixels > 1024)
    return fail("im2col copies move 1 to 256 channels of 1 to 1024 pixels, "
                "not " +
                Twine(map.channels) + " of " + Twine(map.pixels));
  int64_t rowBytes = map.channels * map.strides[0];
  if (rowBytes % 16 || (map.swizzle && rowBytes > map.swizzle))
    return fail("im2col pixels of " + Twine(rowBytes) +
                " bytes: TMA needs a multiple of 16, at most the swizzle's " +
                Twine(map.swizzle));
  return map;
}

/// The tensor map that kernel argument `arg` (marked dlc.tensor_map) asks
/// for over `tensor`, with what TMA requires of it checked.
FailureOr<TensorMap> tensorMapFor(func::CallOp call, BlockArgument arg,
                                  DictionaryAttr spec,
                                  const BufferRef &tensor) {
  auto fail = [&](const Twine &why) {
    return call.emitOpError("argument ") << arg.getArgNumber() << " of kernel '"
                                         << call.getCallee() << "': " << why;
  };
  auto dims = spec.getAs<DenseI64ArrayAttr>("dims");
  auto box = spec.getAs<DenseI64ArrayAttr>("box");
  auto swizzle = spec.getAs<IntegerAttr>("swizzle");
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!dims || !box || !swizzle || !type || dims.size() != box.size() ||
      dims.empty() || dims.size() > 5)
    return fail("malformed dlc.tensor_map (dims, box: 1 to 5 entries each; "
                "swizzle)");
  TensorMap map;
  map.tensor = tensor;
  map.dtype = onnxDtype(type.getElementType());
  map.dims.assign(dims.asArrayRef().begin(), dims.asArrayRef().end());
  map.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
  map.swizzle = swizzle.getInt();
  int64_t elemBytes = (type.getElementTypeBitWidth() + 7) / 8;
  // Row-major and contiguous: each stride is the extent below it.
  int64_t stride = elemBytes;
  for (int64_t d : map.dims) {
    map.strides.push_back(stride);
    stride *= d;
  }
  if (stride > tensor.size)
    return fail("tensor map covers " + Twine(stride) + " bytes of a " +
                Twine(tensor.size) + "-byte buffer");
  if (tensor.offset % 16)
    return fail("TMA needs a 16-byte aligned buffer; this one is at offset " +
                Twine(tensor.offset));
  if (map.dims.size() > 1 && map.strides[1] % 16)
    return fail("TMA needs rows of a multiple of 16 bytes, not " +
                Twine(map.strides[1]));
  if (auto im2col = spec.getAs<DictionaryAttr>("im2col"))
    return im2colMapFor(std::move(map), im2col, fail);
  for (size_t d = 0; d < map.dims.size(); ++d)
    if (map.box[d] < 1 || map.box[d] > 256 || map.box[d] > map.dims[d])
      return fail("TMA box dimension " + Twine(d) + " is " + Twine(map.box[d]) +
                  "; it must be 1 to 256 and at most " + "the tensor's " +
                  Twine(map.dims[d]));
  return map;
}

FailureOr<Plan> buildPlan(ModuleOp module, const ModelSignature &signature,
                          const CompileOptions &options) {
  FailureOr<func::FuncOp> model = modelFunction(module);
  if (failed(model))
    return failure();
  Plan plan;
  llvm::StringMap<int> kernelIndex;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f->hasAttr(attrs::kKernel))
      continue;
    kernelIndex[f.getName()] = plan.kernelNames.size();
    plan.kernelNames.push_back(f.getName().str());
    plan.kernelArity.push_back(f.getNumArguments());
  }
  if (auto size = (*model)->getAttrOfType<IntegerAttr>(attrs::kArenaSize))
    plan.arenaSize = size.getInt();
  if (auto checks = module->getAttrOfType<ArrayAttr>(attrs::kChecks))
    for (Attribute c : checks)
      plan.checks.push_back(cast<StringAttr>(c).str());

  size_t numInputs = signature.inputs.size();
  if (model->getNumArguments() != numInputs + signature.outputs.size())
    return model->emitOpError("has ")
           << model->getNumArguments() << " buffer arguments, expected "
           << numInputs + signature.outputs.size();
  DenseMap<Value, BufferRef> buffers;
  for (BlockArgument arg : model->getArguments()) {
    BufferRef ref;
    bool isInput = arg.getArgNumber() < numInputs;
    ref.kind = isInput ? kInput : kOutput;
    ref.index = isInput ? arg.getArgNumber() : arg.getArgNumber() - numInputs;
    ref.size = byteSize(cast<MemRefType>(arg.getType()));
    buffers[arg] = ref;
  }
  llvm::StringMap<int64_t> weightOffsets;
  auto resolve = [&](Value v, Operation *user) -> FailureOr<BufferRef> {
    auto it = buffers.find(v);
    if (it == buffers.end())
      return user->emitOpError("uses a buffer the plan does not know");
    return it->second;
  };

  for (Operation &op : model->getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto offset = alloc->getAttrOfType<IntegerAttr>(attrs::kArenaOffset);
      if (!offset)
        return alloc.emitOpError("has no arena offset (run dlc-plan-memory)");
      buffers[alloc] = {kArena, 0, offset.getInt(), byteSize(alloc.getType())};
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op);
               get && get.getName() == attrs::kStatusGlobal) {
      if (plan.checks.empty())
        return get.emitOpError("uses the status word but the module has no "
                               "dlc.checks table");
      buffers[get] = {kStatus, 0, 0, byteSize(get.getType())};
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      auto it = weightOffsets.find(get.getName());
      if (it == weightOffsets.end()) {
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        if (!global)
          return get.emitOpError("refers to an unknown global");
        FailureOr<std::string> bytes = initializerBytes(global);
        if (failed(bytes))
          return failure();
        plan.weights.resize((plan.weights.size() + kWeightAlignment - 1) /
                                kWeightAlignment * kWeightAlignment,
                            '\0');
        it = weightOffsets.insert({get.getName(), (int64_t)plan.weights.size()})
                 .first;
        plan.weights += *bytes;
      }
      buffers[get] = {kWeight, 0, it->second, byteSize(get.getType())};
    } else if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
                   memref::CastOp, memref::ReshapeOp, memref::SubViewOp,
                   memref::ReinterpretCastOp>(op)) {
      // A subview or reinterpret_cast (dlc-fold-padded-copies) passes its
      // source's pointer: the kernel's strided layout holds the offset.
      FailureOr<BufferRef> src = resolve(op.getOperand(0), &op);
      if (failed(src))
        return failure();
      buffers[op.getResult(0)] = *src;
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      auto it = kernelIndex.find(call.getCallee());
      if (it == kernelIndex.end())
        return call.emitOpError("calls a function that is not a kernel");
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      int64_t items =
          callee->getAttrOfType<IntegerAttr>(attrs::kWorkItems).getInt();
      Step step;
      step.kernel = it->second;
      auto ctaThreads = callee->getAttrOfType<IntegerAttr>(attrs::kCtaThreads);
      auto sharedBytes =
          callee->getAttrOfType<IntegerAttr>(attrs::kSharedBytes);
      if (options.target != Target::Cuda)
        step.launch = LaunchShape{items, 1};
      else if (ctaThreads)
        step.launch = LaunchShape{items, ctaThreads.getInt()};
      else
        step.launch = cudaLaunchShape(items, options.cudaBlockSize);
      if (options.target == Target::Cuda && sharedBytes)
        step.sharedBytes = sharedBytes.getInt();
      for (auto [v, arg] :
           llvm::zip(call.getOperands(), callee.getArguments())) {
        FailureOr<BufferRef> ref = resolve(v, call);
        if (failed(ref))
          return failure();
        auto spec = callee.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(),
                                                            attrs::kTensorMap);
        if (spec && options.target != Target::Cuda)
          return call.emitOpError("passes a TMA tensor map, which only the "
                                  "cuda target has");
        if (spec) {
          FailureOr<TensorMap> map = tensorMapFor(call, arg, spec, *ref);
          if (failed(map))
            return failure();
          auto it = llvm::find(plan.tensorMaps, *map);
          int index = it - plan.tensorMaps.begin();
          if (it == plan.tensorMaps.end())
            plan.tensorMaps.push_back(*map);
          ref = BufferRef{kTensorMap, index, 0, 128};
        }
        step.args.push_back(*ref);
      }
      plan.steps.push_back(std::move(step));
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      FailureOr<BufferRef> src = resolve(copy.getSource(), copy);
      FailureOr<BufferRef> dst = resolve(copy.getTarget(), copy);
      if (failed(src) || failed(dst))
        return failure();
      Step step;
      step.copy = true;
      step.args = {*src, *dst};
      plan.steps.push_back(std::move(step));
    } else if (isa<func::ReturnOp, memref::DeallocOp>(op) ||
               (isMemoryEffectFree(&op) &&
                llvm::none_of(op.getResultTypes(),
                              [](Type t) { return isa<MemRefType>(t); }))) {
      continue;
    } else {
      return op.emitOpError("cannot be part of an execution plan");
    }
  }
  return plan;
}

void writeTensorTable(llvm::raw_ostream &os, StringRef name,
                      const std::vector<TensorSignature> &tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    os << "static const int64_t " << name << "_shape" << i << "[] = {";
    for (int64_t d : tensors[i].shape)
      os << d << ", ";
    os << "0};\n";
  }
  os << "static const dlc_tensor_desc " << name << "[] = {\n";
  for (size_t i = 0; i < tensors.size(); ++i) {
    int64_t elements = 1;
    for (int64_t d : tensors[i].shape)
      elements *= d;
    // Sub-byte elements are packed (ONNX's layout, the last byte padded).
    int64_t bytes = (elements * dtypeBits(tensors[i].dtype) + 7) / 8;
    os << "  {" << cString(tensors[i].name) << ", " << tensors[i].dtype << ", "
       << tensors[i].shape.size() << ", " << name << "_shape" << i << ", "
       << bytes << "u},\n";
  }
  os << "  {0, 0, 0, 0, 0}\n};\n";
}

/// Emits `.incbin` of `path` as a hidden, aligned, read-only symbol.
void writeIncbin(llvm::raw_ostream &os, StringRef symbol, StringRef path,
                 bool terminate) {
  os << "__asm__(\".section .rodata\\n.balign 64\\n.hidden " << symbol
     << "\\n.globl " << symbol << "\\n"
     << symbol << ":\\n.incbin \\\"" << path << "\\\"\\n"
     << (terminate ? ".byte 0\\n" : "") << ".previous\\n\");\n";
  os << "extern const unsigned char " << symbol << "[];\n";
}

LogicalResult writeFile(Location loc, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc, "cannot write ") << path << ": " << ec.message();
  os << data;
  return success();
}
} // namespace

OwningOpRef<ModuleOp> dlc::cloneKernelModule(ModuleOp model) {
  OpBuilder b(model.getContext());
  OwningOpRef<ModuleOp> kernels = b.create<ModuleOp>(model.getLoc());
  b.setInsertionPointToEnd(kernels->getBody());
  for (auto f : model.getOps<func::FuncOp>())
    if (f->hasAttr(attrs::kKernel))
      b.clone(*f);
  return kernels;
}

LogicalResult dlc::runTool(StringRef program, ArrayRef<std::string> args,
                           std::string &error, std::string *output) {
  SmallString<128> log;
  llvm::sys::fs::createTemporaryFile("dlc-tool", "log", log);
  std::vector<StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0,
                                     0, &execError);
  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    text = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (rc != 0)
    error = program.str() + " exited with " + std::to_string(rc) + ": " +
            execError + text;
  else if (output)
    *output = std::move(text);
  return success(rc == 0);
}

FailureOr<ModelSignature> dlc::readSignature(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("no @main function");
  ModelSignature sig;
  if (auto hash = module->getAttrOfType<StringAttr>("dlc.model_hash"))
    sig.modelHash = hash.str();
  auto read = [&](Type type, DictionaryAttr attrs, size_t i,
                  StringRef kind) -> FailureOr<TensorSignature> {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return main.emitOpError()
             << kind << " " << i << " is not a static tensor";
    TensorSignature t;
    t.dtype = onnxDtype(tensor.getElementType());
    t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    // Sub-byte tensors travel as their packed bytes: the importer names
    // their ONNX dtype and shape.
    if (auto dtype =
            attrs ? attrs.getAs<IntegerAttr>("dlc.dtype") : IntegerAttr()) {
      auto shape = attrs.getAs<DenseI64ArrayAttr>("dlc.shape");
      if (!shape)
        return main.emitOpError()
               << kind << " " << i << " has dlc.dtype but no dlc.shape";
      t.dtype = int32_t(dtype.getInt());
      t.shape.assign(shape.asArrayRef().begin(), shape.asArrayRef().end());
    }
    if (!t.dtype)
      return main.emitOpError()
             << kind << " " << i << " has element type "
             << tensor.getElementType() << ", which models cannot exchange";
    auto name = attrs ? attrs.getAs<StringAttr>("dlc.name") : StringAttr();
    t.name = name ? name.str() : (kind + std::to_string(i)).str();
    return t;
  };
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto t =
        read(main.getArgument(i).getType(), main.getArgAttrDict(i), i, "input");
    if (failed(t))
      return failure();
    sig.inputs.push_back(*t);
  }
  for (unsigned i = 0; i < main.getNumResults(); ++i) {
    auto t =
        read(main.getResultTypes()[i], main.getResultAttrDict(i), i, "output");
    if (failed(t))
      return failure();
    sig.outputs.push_back(*t);
  }
  return sig;
}

LogicalResult
dlc::writeModelLibrary(ModuleOp module, const ModelSignature &signature,
                       const KernelCode &code, const CompileOptions &options,
                       StringRef optionsJson, StringRef outputPath) {
  Location loc = module.getLoc();
  FailureOr<Plan> plan = buildPlan(module, signature, options);
  if (failed(plan))
    return failure();
  bool cuda = options.target == Target::Cuda;

  SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("dlc-package", dir))
    return emitError(loc, "cannot create a temporary directory: ")
           << ec.message();
  auto path = [&](StringRef name) {
    SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  };
  auto cleanup =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });

  if (failed(writeFile(loc, path("dlc_model_format.h"), kFormatHeader)) ||
      failed(writeFile(loc, path("weights.bin"), plan->weights)))
    return failure();
  if (cuda && (failed(writeFile(loc, path("kernels.ptx"), code.ptx)) ||
               failed(writeFile(loc, path("kernels.cubin"), code.cubin))))
    return failure();
  if (!cuda && failed(writeFile(loc, path("kernels.o"), code.hostObject)))
    return failure();

  std::string source;
  llvm::raw_string_ostream os(source);
  os << "/* Generated by dlc " << DLC_VERSION << ". Do not edit. */\n"
     << "#include \"dlc_model_format.h\"\n\n";
  writeIncbin(os, "dlc_weights", path("weights.bin"), false);
  if (cuda) {
    writeIncbin(os, "dlc_ptx", path("kernels.ptx"), true);
    writeIncbin(os, "dlc_cubin", path("kernels.cubin"), false);
  }
  os << "\n";
  writeTensorTable(os, "dlc_inputs", signature.inputs);
  writeTensorTable(os, "dlc_outputs", signature.outputs);

  // Kernels: the host target calls them through uniform wrappers.
  if (!cuda) {
    for (size_t k = 0; k < plan->kernelNames.size(); ++k) {
      const std::string &name = plan->kernelNames[k];
      unsigned arity = plan->kernelArity[k];
      os << "void " << name << "(";
      for (unsigned i = 0; i < arity; ++i)
        os << "void *, ";
      os << "int64_t, int64_t);\n";
      os << "static void " << name
         << "_entry(void *const *a, int64_t b, int64_t e) { " << name << "(";
      for (unsigned i = 0; i < arity; ++i)
        os << "a[" << i << "], ";
      os << "b, e); }\n";
    }
  }
  os << "static const dlc_kernel_desc dlc_kernels[] = {\n";
  for (const std::string &name : plan->kernelNames)
    os << "  {" << cString(name) << ", "
       << (cuda ? std::string("0") : name + "_entry") << "},\n";
  os << "  {0, 0}\n};\n";

  for (size_t s = 0; s < plan->steps.size(); ++s) {
    os << "static const dlc_buffer_ref dlc_args" << s << "[] = {";
    for (const BufferRef &r : plan->steps[s].args)
      os << "{" << r.kind << ", " << r.index << ", " << r.offset << "u, "
         << r.size << "u}, ";
    os << "{0, 0, 0, 0}};\n";
  }
  os << "static const dlc_step dlc_steps[] = {\n";
  for (size_t s = 0; s < plan->steps.size(); ++s) {
    const Step &step = plan->steps[s];
    os << "  {" << (step.copy ? 1 : 0) << ", " << step.kernel << ", {"
       << step.launch.grid << "u, 1u, 1u}, {" << step.launch.block
       << "u, 1u, 1u}, " << step.sharedBytes << "u, " << step.args.size()
       << ", dlc_args" << s << "},\n";
  }
  os << "  {0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0}\n};\n";
  os << "static const dlc_tensor_map dlc_tensor_maps[] = {\n";
  // A C array of `n` entries (unsigned: "u"), v's then zeros.
  auto list = [&](ArrayRef<int64_t> v, size_t n = 5, StringRef suffix = "u") {
    os << "{";
    for (size_t i = 0; i < n; ++i)
      os << (i ? ", " : "") << (i < v.size() ? v[i] : 0) << suffix;
    os << "}";
  };
  for (const TensorMap &m : plan->tensorMaps) {
    os << "  {{" << m.tensor.kind << ", " << m.tensor.index << ", "
       << m.tensor.offset << "u, " << m.tensor.size << "u}, " << m.dtype << ", "
       << m.dims.size() << ", ";
    list(m.dims);
    os << ", ";
    list(m.strides);
    os << ", ";
    list(m.box);
    os << ", " << m.swizzle;
    if (m.im2col) {
      os << ", DLC_TENSOR_MAP_IM2COL, ";
      list(m.lower, 3, "");
      os << ", ";
      list(m.upper, 3, "");
      os << ", " << m.channels << "u, " << m.pixels << "u, ";
      list(m.elementStrides);
    }
    os << "},\n";
  }
  os << "  {{0, 0, 0, 0}, 0, 0, {0}, {0}, {0}, 0}\n};\n";
  os << "static const char *const dlc_checks[] = {";
  for (const std::string &check : plan->checks)
    os << cString(check) << ", ";
  os << "0};\n\n";

  std::string manifest;
  llvm::raw_string_ostream ms(manifest);
  ms << "{\"dlc_version\": \"" << DLC_VERSION << "\", \"target\": \""
     << (cuda ? "cuda" : "cpu") << "\", \"arch\": \""
     << (cuda ? options.arch : options.hostCpu) << "\", \"model_hash\": \""
     << signature.modelHash << "\", \"options\": " << optionsJson
     << ", \"kernels\": " << plan->kernelNames.size()
     << ", \"steps\": " << plan->steps.size() << "}";

  os << "static const dlc_model_desc dlc_model = {\n"
     << "  DLC_MODEL_ABI_VERSION, "
     << (cuda ? "DLC_TARGET_CUDA" : "DLC_TARGET_CPU") << ", "
     << cString(cuda ? options.arch : options.hostCpu) << ",\n"
     << "  " << signature.inputs.size() << ", dlc_inputs, "
     << signature.outputs.size() << ", dlc_outputs,\n"
     << "  dlc_weights, " << plan->weights.size() << "u, " << plan->arenaSize
     << "u,\n"
     << "  " << plan->kernelNames.size() << ", dlc_kernels,\n";
  if (cuda)
    os << "  (const char *)dlc_ptx, " << code.ptx.size() << "u, "
       << (code.cubin.empty() ? "0" : "dlc_cubin") << ", " << code.cubin.size()
       << "u,\n";
  else
    os << "  0, 0, 0, 0,\n";
  os << "  " << plan->steps.size() << ", dlc_steps,\n"
     << "  " << cString(manifest) << ",\n"
     << "  " << plan->checks.size() << ", dlc_checks,\n"
     << "  " << plan->tensorMaps.size() << ", dlc_tensor_maps,\n"
     << "  "
     << (code.waitsForGridDependencies
             ? "DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES"
             : "0")
     << "\n};\n\n"
     << "__attribute__((visibility(\"default\"))) const dlc_model_desc *"
     << "dlc_model_query(void) { return &dlc_model; }\n";
  os.flush();
  if (failed(writeFile(loc, path("model.c"), source)))
    return failure();

  const char *cc = std::getenv("CC");
  auto compiler = llvm::sys::findProgramByName(cc && *cc ? cc : "cc");
  if (!compiler)
    return emitError(loc, "no C compiler found (set CC): it links model.so");
  std::vector<std::string> args{"-shared",
                                "-fPIC",
                                "-O1",
                                "-fvisibility=hidden",
                                "-Wl,--build-id=none",
                                "-o",
                                outputPath.str(),
                                path("model.c")};
  if (!cuda) {
    args.push_back(path("kernels.o"));
    args.push_back("-lm");
  }
  std::string error;
  if (failed(runTool(*compiler, args, error)))
    return emitError(loc, "linking model.so failed: ") << error;
  return success();
}
