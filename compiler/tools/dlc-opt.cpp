//===- dlc-opt.cpp - the dlc dialect and passes for lit tests ---*- C++ -*-===//

#include "compiler/tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dlc::registerDlcDialects(registry);
  mlir::dlc::registerAllDlcPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dlc optimizer driver\n", registry));
}
