//===- OutlineKernels.cpp - one kernel function per structured op -*- C++
//-*-===//
//
// After bufferization the model function holds structured ops on memrefs.
// Each moves into its own function so that the model function becomes the
// execution plan (allocs, views, calls, copies) and every kernel can be
// compiled on its own for either target.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// The ONNX node names carried by a (possibly fused) location.
void collectNodeNames(Location loc, llvm::SetVector<StringRef> &names) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    names.insert(name.getName().strref());
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      collectNodeNames(l, names);
}

/// A readable, unique, C-identifier kernel name: k<index>_<node name>.
std::string kernelName(unsigned index, ArrayRef<StringRef> nodes) {
  std::string name = "k" + std::to_string(index);
  if (!nodes.empty()) {
    StringRef node = nodes.back();
    name += "_";
    for (char c : node.take_back(40))
      name += std::isalnum((unsigned char)c) ? c : '_';
  }
  return name;
}

/// Kernels take whole buffers as bare pointers: static identity layouts.
bool isKernelBuffer(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return false;
  // A static subview with contiguous rows (a padded copy's aligned view,
  // dlc-convert-to-linalg's alignInterior): the plan passes its source's
  // pointer, the kernel's layout holds the offset.
  return type.getLayout().isIdentity() ||
         (v.getDefiningOp<memref::SubViewOp>() && hasContiguousRows(type));
}

struct OutlineKernelsPass
    : dlc::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    unsigned counter = 0;
    for (func::FuncOp model : modelFunctions(module)) {
      // Structured ops: linalg, and dlc.attention_kernel (which the
      // kernel form lowers itself).
      SmallVector<DestinationStyleOpInterface> ops;
      for (Operation &op : model.getBody().getOps())
        if (isa<linalg::LinalgOp, AttentionKernelOp>(op))
          ops.push_back(cast<DestinationStyleOpInterface>(op));
      for (DestinationStyleOpInterface op : ops)
        if (failed(outline(op, symbols, counter++)))
          return signalPassFailure();
    }
  }

  LogicalResult outline(DestinationStyleOpInterface op, SymbolTable &symbols,
                        unsigned index) {
    if (!op.hasPureBufferSemantics())
      return op->emitOpError("expected buffer semantics when outlining");
    // Arguments: the operands, then buffers the body reads from above
    // (tensor.extract became memref.load). Constants are cloned in.
    llvm::SetVector<Value> args;
    llvm::SetVector<Value> captured(op->getOperands().begin(),
                                    op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    llvm::SetVector<Operation *> constants;
    for (Value v : captured) {
      if (isa<MemRefType>(v.getType())) {
        args.insert(v);
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (!def || !def->hasTrait<OpTrait::ConstantLike>())
        return op->emitOpError(
            "captures a non-constant scalar; cannot outline");
      constants.insert(def);
    }
    for (Value v : args)
      if (!isKernelBuffer(v))
        return op->emitOpError("kernel operand of type ")
               << v.getType()
               << " is not a static identity-layout buffer or subview";

    OpBuilder b(op->getParentOfType<func::FuncOp>());
    auto type =
        b.getFunctionType(TypeRange(ValueRange(args.getArrayRef())), {});
    llvm::SetVector<StringRef> nodes;
    collectNodeNames(op.getLoc(), nodes);
    auto kernel = b.create<func::FuncOp>(
        op.getLoc(), kernelName(index, nodes.getArrayRef()), type);
    kernel.setPrivate();
    kernel->setAttr(attrs::kKernel, b.getUnitAttr());
    kernel->setAttr(attrs::kNodes, b.getStrArrayAttr(nodes.getArrayRef()));
    llvm::SmallPtrSet<Value, 8> roots;
    if (llvm::all_of(
            args, [&](Value v) { return roots.insert(rootBuffer(v)).second; }))
      kernel->setAttr(attrs::kDistinctArgs, b.getUnitAttr());
    symbols.insert(kernel);
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip(args, entry->getArguments()))
      mapping.map(v, arg);
    for (Operation *c : constants)
      b.clone(*c, mapping);
    b.clone(*op, mapping);
    b.create<func::ReturnOp>(op.getLoc());

    b.setInsertionPoint(op);
    b.create<func::CallOp>(op.getLoc(), kernel, args.getArrayRef());
    op->erase();
    return success();
  }
};
} // namespace
