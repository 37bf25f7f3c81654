//===- PrivatizeAccumulators.cpp - kernel-local buffers into registers ----===//
//
// A kernel that reduces into a buffer only it uses (the f32 accumulator of
// a 16-bit convolution left in the one-thread-per-output form: mobilenet_v2's
// depthwise convolutions at fp16) still stores each element's final value
// to global memory: the buffer is a kernel argument, and nothing tells LLVM
// that no one reads it afterwards. Each work item's accesses to one element
// become accesses to a private scalar, which LLVM keeps in a register; the
// argument and the caller's allocation go. An output the kernel reduces
// into (a max pool's) gets one too, stored to the element once at the end,
// so that its work item's element loop can be interchanged.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_PRIVATIZEACCUMULATORSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// The element `access` (a memref.load or memref.store of `buffer`) reads
/// or writes, or nullopt for any other use of the buffer.
std::optional<ValueRange> elementOf(Operation *access, Value buffer) {
  if (auto load = dyn_cast<memref::LoadOp>(access))
    return ValueRange(load.getIndices());
  if (auto store = dyn_cast<memref::StoreOp>(access);
      store && store.getMemRef() == buffer && store.getValueToStore() != buffer)
    return ValueRange(store.getIndices());
  return std::nullopt;
}

/// Replaces `arg`'s accesses by accesses to one private scalar when they
/// all touch one element, in one block that each work item runs on its
/// own and that starts that element by storing to it (so no execution of
/// the block reads what an earlier one left). With `writeBack` (a buffer
/// read after the kernel) the scalar's final value is stored to the
/// element after the block's last access, and only buffers the kernel
/// reduces into (some access reads) qualify. Returns whether it did.
bool privatize(BlockArgument arg, bool writeBack) {
  SmallVector<Operation *> accesses(arg.getUsers());
  if (accesses.empty())
    return false;
  if (writeBack && llvm::none_of(accesses, [](Operation *a) {
        return isa<memref::LoadOp>(a);
      }))
    return false;
  std::optional<ValueRange> element = elementOf(accesses.front(), arg);
  for (Operation *access : accesses) {
    std::optional<ValueRange> e = elementOf(access, arg);
    if (!e || !element || !llvm::equal(*e, *element))
      return false;
  }
  // The innermost block holding every access: the index values are
  // defined in it or above it (each access uses them), so it touches one
  // element each time it runs.
  Block *scope = accesses.front()->getBlock();
  while (llvm::any_of(accesses, [&](Operation *a) {
    return !scope->findAncestorOpInBlock(*a);
  })) {
    Operation *parent = scope->getParentOp();
    if (!parent || !parent->getBlock())
      return false;
    scope = parent->getBlock();
  }
  // Inside a work item: each thread (or host chunk) runs it on its own.
  if (!scope->getParentOp()->getParentOfType<scf::ParallelOp>() &&
      !isa<scf::ParallelOp>(scope->getParentOp()))
    return false;
  // Its first access, in order, is a store directly in the block.
  Operation *first = nullptr, *last = nullptr;
  for (Operation *a : accesses) {
    Operation *at = scope->findAncestorOpInBlock(*a);
    if (!first || at->isBeforeInBlock(scope->findAncestorOpInBlock(*first)))
      first = a;
    if (!last || scope->findAncestorOpInBlock(*last)->isBeforeInBlock(at))
      last = a;
  }
  if (first->getBlock() != scope || !isa<memref::StoreOp>(first))
    return false;
  // The element's indices are operands of `first`, so they are defined
  // before it and reach past the last access.
  SmallVector<Value> indices(*element);
  Operation *lastInScope = scope->findAncestorOpInBlock(*last);

  auto type = cast<MemRefType>(arg.getType());
  OpBuilder b(scope, scope->begin());
  Value slot = b.create<memref::AllocaOp>(
      arg.getLoc(), MemRefType::get({}, type.getElementType()));
  if (writeBack) {
    OpBuilder wb(scope, ++Block::iterator(lastInScope));
    Value value = wb.create<memref::LoadOp>(arg.getLoc(), slot);
    wb.create<memref::StoreOp>(arg.getLoc(), value, arg, indices);
  }
  for (Operation *access : accesses) {
    OpBuilder ab(access);
    if (auto load = dyn_cast<memref::LoadOp>(access)) {
      load.replaceAllUsesWith(
          ab.create<memref::LoadOp>(load.getLoc(), slot).getResult());
    } else {
      auto store = cast<memref::StoreOp>(access);
      ab.create<memref::StoreOp>(store.getLoc(), store.getValueToStore(), slot);
    }
    access->erase();
  }
  return true;
}

/// Whether the callers pass argument `i`'s buffer to the kernel only there
/// (a second argument would reach it behind the private scalar's back).
bool passedOnce(ArrayRef<func::CallOp> calls, unsigned i) {
  return llvm::all_of(calls, [&](func::CallOp call) {
    Value root = rootBuffer(call.getOperand(i));
    return llvm::count_if(call.getOperands(),
                          [&](Value v) { return rootBuffer(v) == root; }) == 1;
  });
}

struct PrivatizeAccumulatorsPass
    : dlc::impl::PrivatizeAccumulatorsPassBase<PrivatizeAccumulatorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    KernelCalls calls(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(attrs::kKernel) || func.isExternal())
        continue;
      SmallVector<func::CallOp> callers = calls.of(func);
      bool changed = false;
      for (BlockArgument arg : func.getArguments()) {
        if (!isa<MemRefType>(arg.getType()) ||
            !passedOnce(callers, arg.getArgNumber()))
          continue;
        // A buffer read after the kernel (a max pool's output, which is
        // also its accumulator) keeps its final value.
        bool local = isCallLocalArgument(callers, arg.getArgNumber());
        changed |= privatize(arg, /*writeBack=*/!local) && local;
      }
      if (changed)
        dropDeadBufferArguments(func, callers);
    }
  }
};
} // namespace
