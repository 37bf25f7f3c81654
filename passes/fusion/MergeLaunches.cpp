//===- MergeLaunches.cpp - independent CTA programs as one launch -*- C++
//-*-===//
//
// Consecutive calls of CTA-program kernels with the same launch shape
// (threads, shared memory, cluster) that touch disjoint data become one
// kernel whose CTAs [0, n1) run the first program and [n1, n1 + n2) the
// second: BERT's Q, K and V projections are one launch instead of three.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_MERGELAUNCHESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// What a launch needs to be merged: a CTA program (one 1-D scf.parallel
/// over its CTAs at the top of the body) and its launch shape.
struct Program {
  func::FuncOp func;
  scf::ParallelOp loop;
  int64_t ctas, threads, sharedBytes, clusterCtas;

  bool sameLaunchShape(const Program &o) const {
    return threads == o.threads && sharedBytes == o.sharedBytes &&
           clusterCtas == o.clusterCtas;
  }
};

int64_t intAttr(Operation *op, StringRef name, int64_t absent) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getInt() : absent;
}

std::optional<Program> programOf(func::FuncOp func) {
  if (!func || !func->hasAttr(attrs::kKernel) ||
      !func->hasAttr(attrs::kCtaThreads) || !func->hasAttr(attrs::kWorkItems) ||
      func->hasAttr(attrs::kPersistent))
    return std::nullopt;
  auto loops =
      llvm::to_vector(func.getBody().front().getOps<scf::ParallelOp>());
  if (loops.size() != 1 || loops[0].getNumLoops() != 1 ||
      !matchPattern(loops[0].getLowerBound()[0], m_Zero()) ||
      !matchPattern(loops[0].getStep()[0], m_One()))
    return std::nullopt;
  Program p{func,
            loops[0],
            intAttr(func, attrs::kWorkItems, 0),
            intAttr(func, attrs::kCtaThreads, 0),
            intAttr(func, attrs::kSharedBytes, 0),
            intAttr(func, attrs::kClusterCtas, 1)};
  std::optional<int64_t> ub = getConstantIntValue(p.loop.getUpperBound()[0]);
  if (!ub || *ub != p.ctas)
    return std::nullopt;
  return p;
}

/// The arguments of `func` it writes (through views), or failure when an
/// argument reaches an op whose effect on it is unknown.
FailureOr<llvm::SmallBitVector> writtenArguments(func::FuncOp func) {
  llvm::SmallBitVector written(func.getNumArguments());
  DenseMap<Value, unsigned> argOf;
  for (BlockArgument arg : func.getArguments())
    argOf[arg] = arg.getArgNumber();
  bool unknown = false;
  func.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto it = argOf.find(rootBuffer(operand));
      if (it == argOf.end() || !isa<MemRefType>(operand.getType()))
        continue;
      // Views are followed to their users by rootBuffer. An argument's
      // address leaves for inline PTX only as a tensor map (TMA loads).
      if (isa<ViewLikeOpInterface, memref::LoadOp, vector::LoadOp,
              vector::TransferReadOp, memref::ExtractAlignedPointerAsIndexOp,
              memref::DimOp>(op))
        continue;
      if (isa<memref::StoreOp, vector::StoreOp, vector::TransferWriteOp,
              memref::AtomicRMWOp, memref::CopyOp>(op)) {
        written.set(it->second);
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        unknown = true;
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffectsOnValue(operand, list);
      for (const MemoryEffects::EffectInstance &e : list)
        if (isa<MemoryEffects::Write>(e.getEffect()))
          written.set(it->second);
    }
  });
  if (unknown)
    return failure();
  return written;
}

struct MergeLaunchesPass : dlc::impl::MergeLaunchesPassBase<MergeLaunchesPass> {
  using MergeLaunchesPassBase::MergeLaunchesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> models = modelFunctions(module);
    // Calls per kernel, kept up to date: symbol-use queries walk the whole
    // module (bert_base: seconds per merge).
    for (func::FuncOp model : models)
      model.walk([&](func::CallOp call) { ++callCount[call.getCallee()]; });
    for (func::FuncOp model : models) {
      func::CallOp current;
      for (Operation &op :
           llvm::make_early_inc_range(model.getBody().front())) {
        auto call = dyn_cast<func::CallOp>(op);
        if (!call) {
          if (!isDataFree(op))
            current = nullptr;
          continue;
        }
        if (current)
          if (func::CallOp merged = tryMerge(current, call, symbols)) {
            current = merged;
            continue;
          }
        current = call;
      }
    }
  }

  llvm::StringMap<unsigned> callCount;

  /// Merges the launch `second` into `first` when both are CTA programs of
  /// one launch shape on disjoint data; returns the merged call or null.
  func::CallOp tryMerge(func::CallOp first, func::CallOp second,
                        SymbolTable &symbols) {
    std::optional<Program> p1 =
        programOf(symbols.lookup<func::FuncOp>(first.getCallee()));
    std::optional<Program> p2 =
        programOf(symbols.lookup<func::FuncOp>(second.getCallee()));
    if (!p1 || !p2 || !p1->sameLaunchShape(*p2) ||
        first.getNumOperands() + second.getNumOperands() > kMaxKernelArgs)
      return nullptr;
    // Both run at once: neither may touch what the other writes.
    FailureOr<llvm::SmallBitVector> w1 = writtenArguments(p1->func),
                                    w2 = writtenArguments(p2->func);
    if (failed(w1) || failed(w2))
      return nullptr;
    auto disjoint = [](func::CallOp writer, const llvm::SmallBitVector &w,
                       func::CallOp other) {
      for (unsigned i : w.set_bits())
        for (Value v : other.getOperands())
          if (rootBuffer(writer.getOperand(i)) == rootBuffer(v))
            return false;
      return true;
    };
    if (!disjoint(first, *w1, second) || !disjoint(second, *w2, first))
      return nullptr;

    // Built before the kernels go (it copies them), named after the first.
    func::FuncOp merged = buildMerged(*p1, *p2);
    SmallVector<Value> args(first.getOperands());
    llvm::append_range(args, second.getOperands());
    for (func::CallOp c : {first, second})
      --callCount[c.getCallee()];
    Operation *insertBefore = second->getNextNode();
    Location loc = second.getLoc();
    first.erase();
    second.erase();
    // (One kernel called twice is erased once.)
    if (callCount.lookup(p1->func.getName()) == 0)
      symbols.erase(p1->func);
    if (p2->func != p1->func && callCount.lookup(p2->func.getName()) == 0)
      symbols.erase(p2->func);
    symbols.insert(merged); // renamed only if the first kernel stays
    ++callCount[merged.getName()];
    OpBuilder b(merged.getContext());
    b.setInsertionPoint(insertBefore);
    return b.create<func::CallOp>(loc, merged, args);
  }

  /// A kernel taking the arguments of both (no deduplication: a tensor-map
  /// argument's attribute belongs to its program) whose CTA c runs the
  /// first program's CTA c, or the second's CTA c - n1.
  func::FuncOp buildMerged(Program p1, Program p2) {
    MLIRContext *ctx = &getContext();
    IRRewriter rw(ctx);
    SmallVector<Type> types(p1.func.getArgumentTypes());
    llvm::append_range(types, p2.func.getArgumentTypes());
    rw.setInsertionPoint(p2.func);
    auto merged = rw.create<func::FuncOp>(
        rw.getFusedLoc({p1.func.getLoc(), p2.func.getLoc()}), p1.func.getName(),
        rw.getFunctionType(types, {}));
    merged.setPrivate();
    for (NamedAttribute a : p1.func->getAttrs())
      if (a.getName() != SymbolTable::getSymbolAttrName() &&
          a.getName() != p1.func.getFunctionTypeAttrName() &&
          a.getName() != p1.func.getArgAttrsAttrName())
        merged->setAttr(a.getName(), a.getValue());
    // An argument of both programs is only read (tryMerge), so distinct
    // arguments stay noalias where they were.
    if (!p2.func->hasAttr(attrs::kDistinctArgs))
      merged->removeAttr(attrs::kDistinctArgs);
    merged->setAttr(attrs::kWorkItems, rw.getI64IntegerAttr(p1.ctas + p2.ctas));
    SmallVector<Attribute> nodes;
    for (func::FuncOp f : {p1.func, p2.func})
      if (auto n = f->getAttrOfType<ArrayAttr>(attrs::kNodes))
        llvm::append_range(nodes, n);
    merged->setAttr(attrs::kNodes, rw.getArrayAttr(nodes));
    unsigned offset = p1.func.getNumArguments();
    for (auto [f, base] :
         {std::make_pair(p1.func, 0u), std::make_pair(p2.func, offset)})
      for (unsigned i = 0; i < f.getNumArguments(); ++i)
        if (DictionaryAttr attrs = f.getArgAttrDict(i))
          merged.setArgAttrs(base + i, attrs);

    Block *entry = merged.addEntryBlock();
    rw.setInsertionPointToStart(entry);
    Location loc = merged.getLoc();
    Value c0 = rw.create<arith::ConstantIndexOp>(loc, 0);
    Value c1 = rw.create<arith::ConstantIndexOp>(loc, 1);
    Value n1 = rw.create<arith::ConstantIndexOp>(loc, p1.ctas);
    Value total = rw.create<arith::ConstantIndexOp>(loc, p1.ctas + p2.ctas);
    auto loop = rw.create<scf::ParallelOp>(loc, ValueRange{c0},
                                           ValueRange{total}, ValueRange{c1});
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    Value cta = loop.getInductionVars()[0];
    auto which = rw.create<scf::IfOp>(
        loc, rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, cta, n1),
        /*withElseRegion=*/true);
    // Each program's ops outside its loop (constants, views) go before the
    // loop; its loop body runs in its branch.
    for (auto [p, base, block] :
         {std::make_tuple(&p1, 0u, which.thenBlock()),
          std::make_tuple(&p2, offset, which.elseBlock())}) {
      IRMapping mapping;
      for (BlockArgument arg : p->func.getArguments())
        mapping.map(arg, entry->getArgument(base + arg.getArgNumber()));
      rw.setInsertionPoint(loop);
      for (Operation &op : p->func.getBody().front().without_terminator())
        if (&op != p->loop.getOperation())
          rw.clone(op, mapping);
      rw.setInsertionPoint(block->getTerminator());
      Value iv = block == which.thenBlock()
                     ? cta
                     : rw.create<arith::SubIOp>(loc, cta, n1).getResult();
      mapping.map(p->loop.getInductionVars()[0], iv);
      for (Operation &op : p->loop.getBody()->without_terminator())
        rw.clone(op, mapping);
      // LLVM would otherwise sink the programs' common tails (their
      // epilogues) below the branch, behind phis of their pointers and
      // indices, where it no longer proves the paired stores aligned and
      // splits them. An empty side-effecting asm, different in each branch
      // (whitespace: valid PTX and host assembly alike), stops the sinking.
      if (sinkBarrier)
        rw.create<LLVM::InlineAsmOp>(
            loc, TypeRange(), ValueRange(),
            block == which.thenBlock() ? " " : "  ", "",
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
            ArrayAttr());
    }
    rw.setInsertionPointToEnd(entry);
    rw.create<func::ReturnOp>(loc);
    return merged;
  }
};
} // namespace
