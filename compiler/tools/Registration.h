//===- Registration.h - dialects and passes the tools know ------*- C++ -*-===//

#ifndef DLC_COMPILER_TOOLS_REGISTRATION_H
#define DLC_COMPILER_TOOLS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace dlc {
/// Adds the dlc dialect and every upstream dialect (with its external
/// models: bufferization, translation) the pipelines produce.
void registerDlcDialects(DialectRegistry &registry);
/// Registers dlc passes, pipelines and the upstream passes they use, so that
/// dlc-opt and --mlir-print-ir-after-all know them by name.
void registerAllDlcPasses();
} // namespace dlc
} // namespace mlir

#endif
