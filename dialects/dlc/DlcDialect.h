//===- DlcDialect.h - The dlc dialect ---------------------------*- C++ -*-===//
//
/// \file
/// The dlc dialect: ONNX operators on statically shaped tensors.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_DIALECTS_DLC_DLCDIALECT_H
#define DLC_DIALECTS_DLC_DLCDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/dlc/DlcDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/dlc/DlcOps.h.inc"

#endif // DLC_DIALECTS_DLC_DLCDIALECT_H
