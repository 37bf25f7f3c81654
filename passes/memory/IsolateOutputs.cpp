//===- IsolateOutputs.cpp - read-only inputs, distinct outputs ---*- C++
//-*-===//

#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_ISOLATEOUTPUTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct IsolateOutputsPass
    : dlc::impl::IsolateOutputsPassBase<IsolateOutputsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || func->hasAttr(attrs::kKernel))
        continue;
      OpBuilder b(func.getContext());
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
      func.walk([&](func::ReturnOp ret) {
        llvm::SmallPtrSet<Value, 4> seen;
        b.setInsertionPoint(ret);
        for (OpOperand &operand : ret->getOpOperands()) {
          Value v = operand.get();
          auto type = dyn_cast<RankedTensorType>(v.getType());
          if (!type)
            continue;
          bool shared = isa<BlockArgument>(v) || !seen.insert(v).second ||
                        matchPattern(v, m_Constant());
          if (!shared)
            continue;
          auto copy = b.create<bufferization::AllocTensorOp>(
              ret.getLoc(), type, ValueRange{}, /*copy=*/v);
          operand.set(copy);
        }
      });
    }
  }
};
} // namespace
