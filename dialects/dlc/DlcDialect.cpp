//===- DlcDialect.cpp - dlc dialect registration ----------------*- C++ -*-===//

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::dlc;

#include "dialects/dlc/DlcDialect.cpp.inc"

void DlcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/dlc/DlcOps.cpp.inc"
      >();
  registerAttentionBufferization(*getContext());
}

Operation *DlcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (typed.getType() == type)
      return builder.create<arith::ConstantOp>(loc, type, typed);
  return nullptr;
}
