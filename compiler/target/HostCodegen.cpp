//===- HostCodegen.cpp - kernels to an x86-64 object -------------*- C++
//-*-===//

#include "compiler/target/Codegen.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::dlc;

namespace {
void optimize(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, mam);
}

/// Defines `__truncsfbf2` (f32 to bf16, round to nearest even, NaNs kept
/// quiet) in `module`, hidden. The MLIR passes compute bf16 in f32 and
/// round with integer arithmetic, but LLVM's vectorizers can turn the
/// emulated kernels' scalar bf16 selects and moves into `<2 x bfloat>`
/// ones, which the x86 backend promotes to float and rounds back through
/// this compiler-rt builtin -- one the toolchain's libgcc lacks, so
/// model.so would not load. Added after the optimizer, which would drop
/// it as unused: the calls only appear during instruction selection.
void defineTruncSfBf2(llvm::Module &module) {
  if (module.getFunction("__truncsfbf2"))
    return;
  llvm::LLVMContext &ctx = module.getContext();
  auto *fnType = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                         {llvm::Type::getFloatTy(ctx)}, false);
  auto *fn = llvm::Function::Create(fnType, llvm::GlobalValue::ExternalLinkage,
                                    "__truncsfbf2", module);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *x = fn->getArg(0);
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *bits = b.CreateBitCast(x, i32);
  llvm::Value *lsb =
      b.CreateAnd(b.CreateLShr(bits, b.getInt32(16)), b.getInt32(1));
  llvm::Value *rounded =
      b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff)));
  llvm::Value *quietNan = b.CreateOr(bits, b.getInt32(0x00400000));
  llvm::Value *isNan = b.CreateFCmpUNO(x, x);
  llvm::Value *r = b.CreateSelect(isNan, quietNan, rounded);
  llvm::Value *half =
      b.CreateTrunc(b.CreateLShr(r, b.getInt32(16)), b.getInt16Ty());
  b.CreateRet(b.CreateBitCast(half, llvm::Type::getBFloatTy(ctx)));
}
} // namespace

namespace {
const char kTriple[] = "x86_64-unknown-linux-gnu";

/// LLVM's x86-64 backend (null, and `error` set, when it is not linked).
const llvm::Target *x86Target(std::string &error) {
  llvm::InitializeNativeTarget();
  return llvm::TargetRegistry::lookupTarget(kTriple, error);
}
} // namespace

FailureOr<KernelCode> dlc::emitHostKernels(ModuleOp model,
                                           const CompileOptions &options) {
  OwningOpRef<ModuleOp> host = cloneKernelModule(model);
  PassManager pm(model.getContext());
  buildHostKernelPipeline(pm, options);
  if (failed(pm.run(*host)))
    return failure();

  llvm::InitializeNativeTargetAsmPrinter();
  std::string error;
  const llvm::Target *target = x86Target(error);
  if (!target)
    return model.emitError("no x86-64 backend: ") << error;
  // Without F16C every f16 <-> f32 conversion is a libgcc call (~10x
  // slower kernels); every x86-64 CPU since 2012 has it, so kernels that
  // touch f16 (--precision=fp16, fp16 models) may use it.
  bool usesF16 = false, usesBf16 = false;
  host->walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      usesF16 |= getElementTypeOrSelf(t).isF16();
      usesBf16 |= getElementTypeOrSelf(t).isBF16();
    }
  });
  // LLVM ignores an unknown CPU with a warning, then aborts on the
  // features it lacks ("64-bit code requested on a subtarget that doesn't
  // support it").
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(kTriple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(options.hostCpu))
    return model.emitError("unknown host CPU '")
           << options.hostCpu
           << "' (expected an LLVM x86-64 CPU name such as x86-64-v2, "
              "x86-64-v3, znver4, or native)";
  std::string features = options.hostFeatures;
  if (usesF16)
    features += features.empty() ? "+f16c" : ",+f16c";
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      kTriple, options.hostCpu, features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return model.emitError("unknown host CPU '") << options.hostCpu << "'";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(*host, llvmContext, "dlc_kernels");
  if (!module)
    return model.emitError("translation of the host kernels to LLVM IR failed");
  module->setDataLayout(tm->createDataLayout());
  module->setTargetTriple(kTriple);
  for (llvm::Function &f : *module) {
    if (f.isDeclaration())
      continue;
    // Only the descriptor is exported from model.so.
    f.setVisibility(llvm::GlobalValue::HiddenVisibility);
    f.addFnAttr("target-cpu", options.hostCpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
    // LLVM's own vectorizers pick 256-bit vectors on Intel's AVX-512 CPUs
    // (against frequency drops on older cores); dlc's row kernels use 512
    // bits already, and the loops LLVM vectorizes (attention's dot
    // products and value rows, softmax, normalization) ran in half-width
    // registers beside them.
    if (options.hostVectorBits >= 512)
      f.addFnAttr("prefer-vector-width", "512");
  }
  optimize(*module, *tm);
  if (usesBf16)
    defineTruncSfBf2(*module);

  KernelCode code;
  {
    llvm::raw_string_ostream os(code.hostObject);
    llvm::buffer_ostream bos(os);
    llvm::legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, bos, nullptr,
                                llvm::CodeGenFileType::ObjectFile))
      return model.emitError("the x86-64 backend cannot emit object files");
    codegen.run(*module);
  }
  return code;
}

void dlc::deriveHostIsa(CompileOptions &options, bool allowVnni,
                        bool allowPmaddwd) {
  options.hostVectorBits = 128;
  options.hostVnni = false;
  options.hostPmaddwdBits = allowPmaddwd ? 128 : 0;
  std::string error;
  const llvm::Target *target = x86Target(error);
  if (!target)
    return;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(kTriple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(options.hostCpu))
    return;
  subtarget.reset(target->createMCSubtargetInfo(kTriple, options.hostCpu,
                                                options.hostFeatures));
  if (subtarget->checkFeatures("+avx512f"))
    options.hostVectorBits = 512;
  else if (subtarget->checkFeatures("+avx2"))
    options.hostVectorBits = 256;
  options.hostVnni =
      allowVnni && subtarget->checkFeatures("+avx512vnni,+avx512vl");
  // On AVX-512 without VNNI, LLVM's own vpmaddwd (half its lanes zero) ran
  // resnet50_int8 faster (247 ms against 278 on a Sapphire Rapids).
  if (options.hostVectorBits == 512)
    options.hostPmaddwdBits = 0;
  else if (allowPmaddwd && subtarget->checkFeatures("+avx2"))
    options.hostPmaddwdBits = 256;
}

void dlc::useNativeHostCpu(CompileOptions &options) {
  options.hostCpu = llvm::sys::getHostCPUName().str();
  // Sorted, so that the string (and the object file) is the same each run.
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.push_back((feature.second ? "+" : "-") + feature.first().str());
  llvm::sort(features);
  options.hostFeatures = llvm::join(features, ",");
  deriveHostIsa(options);
}
