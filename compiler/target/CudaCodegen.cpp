//===- CudaCodegen.cpp - kernels to PTX and cubin ----------------*- C++
//-*-===//

#include "compiler/target/Codegen.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dlc;

/// Declares the cluster size of the kernels that have one
/// (`dlc.cluster_ctas`, cluster split-K) after the kernel's parameter list
/// as nvcc does for `__cluster_dims__` (`.explicitcluster` and
/// `.reqnctapercluster`), so that a plain cuLaunchKernel forms the
/// clusters, and the CTAs an SM is to hold (`dlc.min_ctas_per_sm`) as
/// `__launch_bounds__`'s second argument does (`.minnctapersm`, next to the
/// `.maxntid` of every kernel). LLVM 19's NVPTX backend has no annotation
/// for the cluster, and MLIR's gpu.func none for either.
static LogicalResult declareLaunchBounds(ModuleOp model, std::string &ptx) {
  for (auto func : model.getOps<func::FuncOp>()) {
    auto ctas = func->getAttrOfType<IntegerAttr>(attrs::kClusterCtas);
    auto perSm = func->getAttrOfType<IntegerAttr>(attrs::kMinCtasPerSm);
    if (!ctas && !perSm)
      continue;
    std::string entry = ".entry " + func.getName().str() + "(";
    size_t at = ptx.find(entry);
    size_t body = at == std::string::npos ? at : ptx.find("\n{", at);
    if (body == std::string::npos)
      return func.emitError("cannot find the PTX entry of kernel ")
             << func.getName();
    std::string text;
    if (ctas)
      text += ".explicitcluster\n.reqnctapercluster " +
              std::to_string(ctas.getInt()) + ", 1, 1\n";
    if (perSm)
      text += ".minnctapersm " + std::to_string(perSm.getInt()) + "\n";
    ptx.insert(body + 1, text);
  }
  return success();
}

/// Begins every kernel with `griddepcontrol.wait` and
/// `griddepcontrol.launch_dependents` (--overlap-launches): a kernel
/// launched with programmatic stream serialization is scheduled once every
/// CTA of its predecessor has triggered, and reads nothing before that grid
/// has finished and its writes are visible. The trigger comes after the
/// wait, so at most one kernel waits ahead of the one running: it is
/// scheduled as its predecessor's last wave starts and takes the SMs that
/// wave leaves free. The text goes after the entry's declarations, before
/// its first instruction: LLVM 19 has no intrinsic for it, and inline
/// assembly would not keep the `ld.global.nc` loads of `noalias` arguments
/// behind it.
static LogicalResult waitForGridDependencies(ModuleOp model,
                                             std::string &ptx) {
  static constexpr StringLiteral kWait =
      "\tgriddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;\n";
  size_t entries = 0;
  for (size_t at = ptx.find(".entry "); at != std::string::npos;
       at = ptx.find(".entry ", at)) {
    size_t body = ptx.find("\n{\n", at);
    if (body == std::string::npos)
      return model.emitError("cannot find the body of PTX entry #")
             << entries;
    // Skip the declarations (`.reg`, `.shared`, `.local`), comments and
    // blank lines that open the body.
    size_t line = body + 3;
    while (line < ptx.size()) {
      size_t end = ptx.find('\n', line);
      if (end == std::string::npos)
        end = ptx.size();
      StringRef text = StringRef(ptx).slice(line, end).trim();
      if (!text.empty() && !text.starts_with(".reg") &&
          !text.starts_with(".shared") && !text.starts_with(".local") &&
          !text.starts_with("//"))
        break;
      line = end + 1;
    }
    ptx.insert(line, kWait.data(), kWait.size());
    at = line + kWait.size();
    ++entries;
  }
  return success();
}

/// Whether every buffer the kernels of `device` touch has fewer than 2^30
/// elements, so that 32-bit index arithmetic cannot wrap (the margin covers
/// offsets past a buffer's end that the loads clamp or predicate off).
static bool indicesFit32Bits(ModuleOp device) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  auto fits = [&](Type t) {
    auto m = dyn_cast<MemRefType>(t);
    // Shared and local memory (the dynamic shared buffer's views) are
    // bounded by the SM's 227 KiB.
    if (!m || isa_and_nonnull<gpu::AddressSpaceAttr>(m.getMemorySpace()))
      return true;
    return m.hasStaticShape() && m.getNumElements() < kLimit;
  };
  // Every value is a result or a block argument.
  WalkResult walk = device.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (!fits(t))
        return WalkResult::interrupt();
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          if (!fits(a.getType()))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

namespace {
/// Sets an LLVM command-line option for one scope, unless the command line
/// gave it (that value stands); the default comes back after.
class ScopedLlvmOption {
public:
  ScopedLlvmOption(StringRef name, StringRef value) {
    llvm::StringMap<llvm::cl::Option *> &all = llvm::cl::getRegisteredOptions();
    auto it = all.find(name);
    if (it == all.end() || it->second->getNumOccurrences())
      return;
    if (!it->second->addOccurrence(0, name, value))
      option = it->second;
  }
  ~ScopedLlvmOption() {
    if (option)
      option->reset();
  }

private:
  llvm::cl::Option *option = nullptr;
};
} // namespace

FailureOr<std::string> dlc::emitPtx(ModuleOp model,
                                    const CompileOptions &compileOptions) {
  // LLVM's VectorCombine turns a vector load whose users are all element
  // extracts into scalar loads wherever NVPTX's cost model rates v8f16 as
  // four v2f16 loads, undoing dlc-vectorize-element-accesses; the load/store
  // vectorizer then rebuilt only part of them (mobilenet_v2's depthwise
  // taps: one 2-, one 4- and one 8-byte load of 8 halves). Elsewhere the
  // kernels' PTX is the same with it off (resnet50, mobilenet_v2 and
  // bert_base at sm_90a: equal instruction counts in every kernel).
  ScopedLlvmOption noVectorCombine("disable-vector-combine", "true");
  OwningOpRef<ModuleOp> device = cloneKernelModule(model);
  CompileOptions options = compileOptions;
  if (options.kernelIndexBits == 32 && !indicesFit32Bits(*device))
    options.kernelIndexBits = 64;
  PassManager pm(model.getContext());
  // --mlir-print-ir-* and friends reach the kernel pipeline too.
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  buildCudaKernelPipeline(pm, options);
  if (failed(pm.run(*device)))
    return failure();
  std::string ptx;
  device->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (failed(declareLaunchBounds(model, ptx)))
    return failure();
  if (options.overlapLaunches && failed(waitForGridDependencies(model, ptx)))
    return failure();
  if (ptx.empty() && !model.getOps<func::FuncOp>().empty()) {
    bool anyKernel = false;
    for (auto f : model.getOps<func::FuncOp>())
      anyKernel |= f->hasAttr(attrs::kKernel);
    if (anyKernel)
      return model.emitError("NVVM serialization produced no PTX");
  }
  return ptx;
}

FailureOr<KernelCode> dlc::emitCudaKernels(ModuleOp model,
                                           const CompileOptions &options) {
  FailureOr<std::string> ptx = emitPtx(model, options);
  if (failed(ptx))
    return failure();
  KernelCode code;
  code.ptx = std::move(*ptx);
  code.waitsForGridDependencies = options.overlapLaunches;
  if (code.ptx.empty())
    return code;
  std::string toolkit = findCudaToolkit(options);
  if (toolkit.empty()) {
    emitWarning(model.getLoc(),
                "ptxas not found (set CUDA_HOME or PATH); "
                "model.so carries PTX only, JIT-compiled at load");
    return code;
  }
  SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("dlc-ptxas", dir))
    return model.emitError("cannot create a temporary directory: ")
           << ec.message();
  SmallString<128> ptxPath(dir), cubinPath(dir);
  llvm::sys::path::append(ptxPath, "kernels.ptx");
  llvm::sys::path::append(cubinPath, "kernels.cubin");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec);
    if (ec)
      return model.emitError("cannot write ")
             << ptxPath << ": " << ec.message();
    os << code.ptx;
  }
  SmallString<128> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  std::vector<std::string> args{"-arch=" + options.arch, "-O3", "-o",
                                cubinPath.str().str(), ptxPath.str().str()};
  // ptxas optimizes kernels on several threads where it can (CUDA 12.4+);
  // the cubin's kernels are the same.
  unsigned threads = model.getContext()->isMultithreadingEnabled()
                         ? llvm::hardware_concurrency().compute_thread_count()
                         : 1;
  std::string error, help;
  if (threads > 1 && succeeded(runTool(ptxas, {"--help"}, error, &help)) &&
      StringRef(help).contains("--split-compile"))
    args.insert(args.begin(), {"--split-compile", std::to_string(threads)});
  LogicalResult ran = runTool(ptxas, args, error);
  if (succeeded(ran)) {
    auto buffer = llvm::MemoryBuffer::getFile(cubinPath);
    if (buffer)
      code.cubin = (*buffer)->getBuffer().str();
  }
  llvm::sys::fs::remove_directories(dir);
  if (failed(ran))
    return model.emitError("ptxas rejected the generated PTX:\n") << error;
  return code;
}
