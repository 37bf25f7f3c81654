//===- ReassociateHostSums.cpp - host sums LLVM may vectorize -----*- C++
//-*-===//
//
// A host work item of one output element that reduces (a Gemm with a
// transposed B, a GEMV, a pooled sum) adds its products into a private
// scalar one step at a time: a chain of dependent adds, 4 cycles each,
// which LLVM may not reorder into vector partial sums without `reassoc`.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_REASSOCIATEHOSTSUMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Adds `flags` to the fastmath flags of `op` (an arith float op).
void addFlags(Operation *op, arith::FastMathFlags flags) {
  auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
  if (!fmf)
    return;
  op->setAttr(
      fmf.getFastMathAttrName(),
      arith::FastMathFlagsAttr::get(
          op->getContext(), fmf.getFastMathFlagsAttr().getValue() | flags));
}

/// The float sum `loop` carries in a private scalar: the store, directly
/// in its body, of `load(slot) + x` back to that rank-0 alloca, the load
/// in the same body. Null when the loop carries none.
arith::AddFOp carriedSum(memref::StoreOp store, scf::ForOp loop) {
  if (store->getBlock() != loop.getBody() ||
      store.getMemRefType().getRank() != 0 ||
      !store.getMemRef().getDefiningOp<memref::AllocaOp>())
    return nullptr;
  auto add = store.getValueToStore().getDefiningOp<arith::AddFOp>();
  if (!add)
    return nullptr;
  for (Value operand : add->getOperands()) {
    auto load = operand.getDefiningOp<memref::LoadOp>();
    if (load && load.getMemRef() == store.getMemRef() &&
        load->getBlock() == loop.getBody())
      return add;
  }
  return nullptr;
}

struct ReassociateHostSumsPass
    : dlc::impl::ReassociateHostSumsPassBase<ReassociateHostSumsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(attrs::kKernel) || func->hasAttr(attrs::kCtaThreads))
        continue;
      func.walk([](scf::ForOp loop) {
        for (auto store : loop.getBody()->getOps<memref::StoreOp>()) {
          arith::AddFOp add = carriedSum(store, loop);
          if (!add)
            continue;
          addFlags(add, arith::FastMathFlags::reassoc |
                            arith::FastMathFlags::contract);
          for (Value operand : add->getOperands())
            if (Operation *product = operand.getDefiningOp<arith::MulFOp>())
              addFlags(product, arith::FastMathFlags::contract);
        }
      });
    }
  }
};
} // namespace
