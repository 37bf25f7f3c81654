//===- ImportTest.cpp - run the ONNX importer alone -------------*- C++ -*-===//
//
// dlc-import-test MODEL.onnx [--input-shape NAME=AxB]... : imports the model
// and prints the module (or the diagnostics). Accepts and ignores the `dlc`
// flags --emit=mlir and --stop-after=import (the latter is libLLVM's own
// codegen option, harmless here) so tests read the same with both.
// Not installed: a test tool for the importer.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::Required);
static cl::list<std::string>
    inputShapes("input-shape", cl::desc("Bind an input shape: NAME=AxBxC"));
static cl::opt<std::string> emit("emit", cl::desc("Ignored (always mlir)"),
                                 cl::init("mlir"));
static cl::opt<bool> listOps("list-ops",
                             cl::desc("Print the supported ONNX operators"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "dlc ONNX importer test driver\n");

  if (listOps) {
    for (const dlc::OnnxOpSupport &op : dlc::getSupportedOnnxOps())
      llvm::outs() << op.opType << ": " << op.notes << "\n";
    return 0;
  }

  dlc::ImportOptions options;
  for (const std::string &binding : inputShapes) {
    auto [name, dims] = llvm::StringRef(binding).rsplit('=');
    llvm::SmallVector<int64_t> shape;
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    bool ok = !name.empty() && !dims.empty();
    for (llvm::StringRef p : parts) {
      int64_t d;
      ok &= !p.getAsInteger(10, d);
      shape.push_back(d);
    }
    if (!ok) {
      llvm::errs() << "error: --input-shape expects NAME=AxBxC, got '"
                   << binding << "'\n";
      return 1;
    }
    options.inputShapes[name] = shape;
  }

  auto buffer = llvm::MemoryBuffer::getFile(inputFile, /*IsText=*/false);
  if (!buffer) {
    llvm::errs() << "error: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  MLIRContext ctx;
  // "FILE: error: message": the model is binary, no source line to show.
  ctx.getDiagEngine().registerHandler([](Diagnostic &d) {
    auto &os = llvm::errs();
    if (auto file = d.getLocation()->findInstanceOf<FileLineColLoc>())
      os << file.getFilename().getValue() << ": ";
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    default:
      os << "note: ";
      break;
    }
    os << d.str() << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = dlc::importOnnxModel(
      ctx, (*buffer)->getBuffer(), inputFile, options);
  if (!module)
    return 1;
  module->print(llvm::outs(), OpPrintingFlags().elideLargeResourceString());
  return 0;
}
