//===- InterchangeElementLoops.cpp - a work item's elements innermost -----===//
//
// A CUDA-form work item handles several consecutive output elements (8 at
// 16 bits) in a loop. When each element is a reduction (a depthwise
// convolution's window, a pooling window), that loop holds the reduction
// loops, so the element's loads of consecutive channels sit in different
// iterations and LLVM issues one 16-bit load per element and tap. With the
// element loop moved inside the reduction loops (one private accumulator
// per element) and unrolled, the loads of a tap's consecutive elements are
// adjacent in one block, where dlc-vectorize-element-accesses makes one
// 16-byte load of them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_INTERCHANGEELEMENTLOOPSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// An element loop `for %e = 0 to W { allocas; pre; nest; post }`: private
/// scalar accumulators, the ops before the reduction nest, the nest (a
/// perfect nest of scf.for, `innermost` the deepest), the ops after.
struct ElementLoop {
  scf::ForOp loop;
  int64_t width = 0;
  SmallVector<memref::AllocaOp> accs;
  SmallVector<Operation *> pre, post;
  SmallVector<scf::ForOp> nest;
  /// `pre` ops that can be recomputed wherever the element index is known:
  /// free of memory effects, from values defined outside the loop, the
  /// element index and other such ops.
  DenseSet<Operation *> recomputable;
};

bool isAcc(ElementLoop &l, Value v) {
  return llvm::any_of(l.accs,
                      [&](memref::AllocaOp a) { return a.getResult() == v; });
}

/// Whether `op` (and what it nests) writes only the accumulators and has
/// no effects but reads and those writes.
bool writesOnlyAccs(ElementLoop &l, Operation *root) {
  WalkResult r = root->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return isAcc(l, store.getMemRef()) ? WalkResult::advance()
                                         : WalkResult::interrupt();
    if (isa<memref::LoadOp>(op) || isMemoryEffectFree(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// The buffers `root` (with what it nests) reads, or stores to.
void collectBuffers(Operation *root, SmallVectorImpl<Value> &reads,
                    SmallVectorImpl<Value> &writes) {
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      reads.push_back(rootBuffer(load.getMemRef()));
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      writes.push_back(rootBuffer(store.getMemRef()));
  });
}

/// The width of a work item's element loop `for %e = 0 to W step 1`
/// without results, 2 <= W <= 16.
std::optional<int64_t> elementLoopWidth(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (loop.getNumResults() != 0 || !lb || !ub || !step || *lb != 0 ||
      *step != 1 || *ub < 2 || *ub > 16)
    return std::nullopt;
  return *ub;
}

std::optional<ElementLoop> matchElementLoop(scf::ForOp loop) {
  ElementLoop l;
  l.loop = loop;
  std::optional<int64_t> width = elementLoopWidth(loop);
  if (!width)
    return std::nullopt;
  l.width = *width;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (alloca.getType().getRank() != 0 || !l.nest.empty() ||
          !l.pre.empty() || llvm::any_of(alloca->getUsers(), [&](Operation *u) {
            auto store = dyn_cast<memref::StoreOp>(u);
            return !isa<memref::LoadOp>(u) &&
                   !(store && store.getMemRef() == alloca &&
                     store.getValueToStore() != alloca);
          }))
        return std::nullopt;
      l.accs.push_back(alloca);
      continue;
    }
    if (auto inner = dyn_cast<scf::ForOp>(op)) {
      if (!l.nest.empty())
        return std::nullopt;
      l.nest.push_back(inner);
      continue;
    }
    (l.nest.empty() ? l.pre : l.post).push_back(&op);
  }
  if (l.accs.empty() || l.nest.empty())
    return std::nullopt;
  // A perfect nest without loop-carried values, its bounds from outside.
  while (true) {
    scf::ForOp f = l.nest.back();
    if (f.getNumResults() != 0)
      return std::nullopt;
    for (Value v : {f.getLowerBound(), f.getUpperBound(), f.getStep()})
      if (Operation *def = v.getDefiningOp(); def && loop->isAncestor(def))
        return std::nullopt;
    Block *b = f.getBody();
    if (b->getOperations().size() == 2)
      if (auto next = dyn_cast<scf::ForOp>(b->front())) {
        l.nest.push_back(next);
        continue;
      }
    break;
  }
  // The accumulators are accessed only where the rewrite retargets them:
  // directly in the element loop or in the nest's innermost body.
  for (memref::AllocaOp acc : l.accs)
    for (Operation *user : acc->getUsers())
      if (user->getBlock() != body &&
          user->getBlock() != l.nest.back().getBody())
        return std::nullopt;
  // Before and in the nest only reads and the accumulators' writes: the
  // elements' reductions may then run interleaved.
  for (Operation *op : l.pre)
    if (op->getNumRegions() || !writesOnlyAccs(l, op))
      return std::nullopt;
  if (!writesOnlyAccs(l, l.nest.front()))
    return std::nullopt;
  // What the ops after the nest write nothing before it reads (they now
  // run after every element's reduction, not after its own).
  SmallVector<Value> reads, writes, postReads;
  for (Operation *op : l.pre)
    collectBuffers(op, reads, writes);
  collectBuffers(l.nest.front(), reads, writes);
  writes.clear();
  for (Operation *op : l.post) {
    if (op->getNumRegions())
      return std::nullopt;
    collectBuffers(op, postReads, writes);
  }
  for (Value w : writes)
    if (isAcc(l, w) || llvm::is_contained(reads, w))
      return std::nullopt;
  // Values of `pre` used further on must be recomputable there.
  Value e = loop.getInductionVar();
  for (Operation *op : l.pre) {
    bool ok = isMemoryEffectFree(op);
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      ok &= v == e ||
            (def ? !loop->isAncestor(def) || l.recomputable.count(def)
                 : !loop->isAncestor(v.getParentBlock()->getParentOp()));
    }
    if (ok)
      l.recomputable.insert(op);
  }
  auto usesOnlyRecomputable = [&](Operation *root) {
    WalkResult r = root->walk([&](Operation *op) {
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && def->getBlock() == loop.getBody() &&
            llvm::is_contained(l.pre, def) && !l.recomputable.count(def))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return !r.wasInterrupted();
  };
  if (!usesOnlyRecomputable(l.nest.front()) ||
      !llvm::all_of(l.post, usesOnlyRecomputable))
    return std::nullopt;
  return l;
}

/// Clones `ops` at `b`'s insertion point for element `e` (values mapped
/// by `map` first): with `withRecomputable` the recomputable `pre` ops
/// before them, and accesses of an accumulator `acc` as accesses of
/// element `e` of `wide[acc]`.
void cloneForElement(OpBuilder &b, ElementLoop &l, ArrayRef<Operation *> ops,
                     Value e, const DenseMap<Value, Value> &wide, IRMapping map,
                     bool withRecomputable) {
  map.map(l.loop.getInductionVar(), e);
  if (withRecomputable)
    for (Operation *op : l.pre)
      if (l.recomputable.count(op))
        b.clone(*op, map);
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && isAcc(l, load.getMemRef())) {
      map.map(load.getResult(),
              b.create<memref::LoadOp>(loc, wide.lookup(load.getMemRef()), e));
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && isAcc(l, store.getMemRef())) {
      b.create<memref::StoreOp>(loc,
                                map.lookupOrDefault(store.getValueToStore()),
                                wide.lookup(store.getMemRef()), e);
      continue;
    }
    b.clone(*op, map);
  }
}

/// An scf.for over the elements at `b`'s insertion point; `body(e)` fills it.
scf::ForOp elementLoop(OpBuilder &b, ElementLoop &l,
                       function_ref<void(OpBuilder &, Value)> body) {
  scf::ForOp f = b.create<scf::ForOp>(l.loop.getLoc(), l.loop.getLowerBound(),
                                      l.loop.getUpperBound(), l.loop.getStep());
  OpBuilder inner = OpBuilder::atBlockTerminator(f.getBody());
  body(inner, f.getInductionVar());
  return f;
}

void interchange(ElementLoop &l) {
  OpBuilder b(l.loop);
  Location loc = l.loop.getLoc();
  DenseMap<Value, Value> wide;
  for (memref::AllocaOp acc : l.accs)
    wide[acc] = b.create<memref::AllocaOp>(
        loc, MemRefType::get({l.width}, acc.getType().getElementType()));
  SmallVector<scf::ForOp> created;
  created.push_back(elementLoop(b, l, [&](OpBuilder &ib, Value e) {
    cloneForElement(ib, l, l.pre, e, wide, IRMapping(),
                    /*withRecomputable=*/false);
  }));
  // The nest's loops, the element loop innermost around the body.
  OpBuilder nb = b;
  IRMapping outer;
  for (scf::ForOp f : l.nest) {
    auto copy = nb.create<scf::ForOp>(f.getLoc(), f.getLowerBound(),
                                      f.getUpperBound(), f.getStep());
    outer.map(f.getInductionVar(), copy.getInductionVar());
    nb = OpBuilder::atBlockTerminator(copy.getBody());
  }
  SmallVector<Operation *> body;
  for (Operation &op : l.nest.back().getBody()->without_terminator())
    body.push_back(&op);
  created.push_back(elementLoop(nb, l, [&](OpBuilder &ib, Value e) {
    cloneForElement(ib, l, body, e, wide, outer, /*withRecomputable=*/true);
  }));
  created.push_back(elementLoop(b, l, [&](OpBuilder &ib, Value e) {
    cloneForElement(ib, l, l.post, e, wide, IRMapping(),
                    /*withRecomputable=*/true);
  }));
  l.loop.erase();
  for (scf::ForOp f : created)
    (void)loopUnrollByFactor(f, l.width);
}

/// A work item's loop over its 2 to 16 elements with no loop inside: its
/// induction variable is the offset of the innermost index of a store (the
/// element `W * i + e` of splitInnermostDim), which no reduction loop's is.
bool isFlatElementLoop(scf::ForOp loop) {
  if (!isa<scf::ParallelOp>(loop->getParentOp()) || !elementLoopWidth(loop))
    return false;
  Value e = loop.getInductionVar();
  bool storesElement = false;
  WalkResult r = loop.getBody()->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op))
      return WalkResult::interrupt();
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      ValueRange idx = store.getIndices();
      Value last = idx.empty() ? Value() : stripIdentityApply(idx.back());
      auto add = last ? last.getDefiningOp<arith::AddIOp>() : nullptr;
      storesElement |=
          last == e || (add && (add.getLhs() == e || add.getRhs() == e));
    }
    return WalkResult::advance();
  });
  return !r.wasInterrupted() && storesElement;
}

struct InterchangeElementLoopsPass
    : dlc::impl::InterchangeElementLoopsPassBase<InterchangeElementLoopsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(attrs::kKernel) || func->hasAttr(attrs::kCtaThreads) ||
          !func->hasAttr(attrs::kDistinctArgs))
        return;
      SmallVector<ElementLoop, 2> loops;
      func.walk([&](scf::ForOp loop) {
        if (!isa<scf::ParallelOp>(loop->getParentOp()))
          return;
        if (std::optional<ElementLoop> l = matchElementLoop(loop))
          loops.push_back(std::move(*l));
      });
      for (ElementLoop &l : loops)
        interchange(l);
      // The element loops of elementwise work items (no loop inside),
      // unrolled too: a body LLVM finds too long to unroll (the stem's
      // space-to-depth copy, gathering NCHW f32 with bounds checks) kept
      // one 2-byte store per iteration where the unrolled stores of
      // consecutive elements become one 16-byte store.
      SmallVector<scf::ForOp> flat;
      func.walk([&](scf::ForOp loop) {
        if (isFlatElementLoop(loop))
          flat.push_back(loop);
      });
      for (scf::ForOp loop : flat)
        (void)loopUnrollByFactor(loop, *elementLoopWidth(loop));
    });
  }
};
} // namespace
