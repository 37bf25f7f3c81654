//===- Codegen.h - kernels to machine code, plan to model.so -----*- C++
//-*-===//
//
/// \file
/// The last stage: the kernels of a planned model module become PTX (+ a
/// cubin from ptxas) or a host object file, and the model function becomes
/// the execution plan of a model.so.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_TARGET_CODEGEN_H
#define DLC_COMPILER_TARGET_CODEGEN_H

#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::dlc {

/// One model input or output, as the importer saw it.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; ///< onnx.TensorProto.DataType
  std::vector<int64_t> shape;
};

struct ModelSignature {
  std::vector<TensorSignature> inputs, outputs;
  std::string modelHash;
};

/// Reads the signature of `@main` (dlc.name attributes, tensor types).
FailureOr<ModelSignature> readSignature(ModuleOp module);

/// A new module holding copies of the `dlc.kernel` functions of `model`, in
/// the order the plan numbers them.
OwningOpRef<ModuleOp> cloneKernelModule(ModuleOp model);

/// Runs `program` with `args`; on failure returns its output in `error`, on
/// success in `*output` when given.
LogicalResult runTool(llvm::StringRef program, llvm::ArrayRef<std::string> args,
                      std::string &error, std::string *output = nullptr);

/// Machine code for the kernels of a planned model module.
struct KernelCode {
  std::string ptx;        ///< cuda: every kernel, one module
  std::string cubin;      ///< cuda: ptxas output for the arch (may be empty)
  std::string hostObject; ///< cpu: ELF relocatable with every kernel
  /// cuda: every kernel begins with griddepcontrol.wait (--overlap-launches).
  bool waitsForGridDependencies = false;
};

/// Lowers the `dlc.kernel` functions to PTX through NVVM and assembles it
/// with ptxas when the toolkit is found.
FailureOr<KernelCode> emitCudaKernels(ModuleOp model,
                                      const CompileOptions &options);

/// The PTX only (for --emit=ptx), without running ptxas.
FailureOr<std::string> emitPtx(ModuleOp model, const CompileOptions &options);

/// Lowers the `dlc.kernel` functions to an x86-64 object file.
FailureOr<KernelCode> emitHostKernels(ModuleOp model,
                                      const CompileOptions &options);

/// Points `options` at this machine's CPU (--cpu=native, and the
/// calibration builds, which run where they are built): its LLVM name, and
/// the features its cpuid reports (a VM may mask some the name implies).
void useNativeHostCpu(CompileOptions &options);

/// Sets what the kernels may use of options.hostCpu (with its features):
/// hostVectorBits, its widest vector registers (512 with AVX-512F, 256 with
/// AVX2, else 128: SSE); hostVnni (AVX512-VNNI with AVX512-VL) unless
/// `allowVnni` is false; hostPmaddwdBits, the pmaddwd width (256 with
/// AVX2, else SSE2's 128; 0 with AVX-512, where it measured slower than
/// LLVM's own code, or unless `allowPmaddwd`).
void deriveHostIsa(CompileOptions &options, bool allowVnni = true,
                   bool allowPmaddwd = true);

/// Writes the compile report of a planned model module as JSON: every
/// kernel with the ONNX nodes it computes and its work items, the kernel
/// count, and the arena figures (arena, naive sum, lower bound); with
/// `quantization`, that object under "quantization" (--precision=int8).
LogicalResult writeReport(ModuleOp model, const ModelSignature &signature,
                          llvm::StringRef path,
                          const llvm::json::Object *quantization = nullptr);

/// Writes the ONNX graph of `imported` (the module right after import) as
/// Graphviz DOT, each kernel of `planned` drawn as a cluster around the
/// ONNX nodes it computes.
void writeDot(ModuleOp imported, ModuleOp planned, llvm::raw_ostream &os);

/// Writes `outputPath` (model.so): descriptor, plan, weights and kernels.
LogicalResult writeModelLibrary(ModuleOp model, const ModelSignature &signature,
                                const KernelCode &code,
                                const CompileOptions &options,
                                llvm::StringRef optionsJson,
                                llvm::StringRef outputPath);

} // namespace mlir::dlc

#endif
