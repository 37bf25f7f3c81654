//===- Registration.cpp - dialects and passes the tools know ----*- C++ -*-===//

#include "compiler/tools/Registration.h"

#include "compiler/pipeline/Pipeline.h"
#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::dlc::registerDlcDialects(DialectRegistry &registry) {
  registry.insert<DlcDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::dlc::registerAllDlcPasses() {
  registerAllPasses();
  registerDlcPasses();
  registerPipelines();
}
