//===- PlanMemory.cpp - one arena for all intermediates ---------*- C++ -*-===//
//
// The model function after outlining is a straight-line plan. Every
// memref.alloc in it lives from its definition to the last use of it or of
// a view of it. Buffers are placed greedily, each at the best fit among the
// gaps between placed buffers with an intersecting live range, in five
// orders (by decreasing size or breadth, the most bytes live over the
// buffer's range, ties from the plan's start or its end; by last use from
// the end); the smallest arena wins. The
// strategies TFLite and others use: in practice within a few percent of the
// lower bound.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct Buffer {
  memref::AllocOp alloc;
  int64_t size = 0;
  int64_t first = 0, last = 0; // Live range in op positions, inclusive.
  int64_t offset = -1;
};

int64_t alignTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

bool isView(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::ReshapeOp,
             memref::CastOp, ViewLikeOpInterface>(op);
}

/// Whether kernel `callee` may write its argument `out` over its argument
/// `in`: every work item reads `in` only at the elements it then writes to
/// `out`, all reads before the first write, and nothing else touches them
/// (an elementwise kernel whose input dies at that call).
bool canWriteInPlace(func::FuncOp callee, unsigned in, unsigned out) {
  if (callee.isExternal())
    return false;
  auto loops =
      llvm::to_vector(callee.getBody().front().getOps<scf::ParallelOp>());
  if (loops.size() != 1)
    return false;
  Block *body = loops.front().getBody();
  Value a = callee.getArgument(in), b = callee.getArgument(out);
  std::optional<SmallVector<Value>> indices;
  bool seenStore = false, ok = true;
  callee.walk([&](Operation *op) {
    bool touchesA = llvm::is_contained(op->getOperands(), a);
    bool touchesB = llvm::is_contained(op->getOperands(), b);
    if (!touchesA && !touchesB)
      return;
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    if (op->getBlock() != body || (touchesA && !load) || (touchesB && !store) ||
        (load && load.getMemRef() != a) || (store && store.getMemRef() != b) ||
        (store && store.getValueToStore() == a)) {
      ok = false;
      return;
    }
    SmallVector<Value> idx(load ? load.getIndices() : store.getIndices());
    if (!indices)
      indices = idx;
    ok &= *indices == idx;
    if (load)
      ok &= !seenStore;
    seenStore |= bool(store);
  });
  return ok && indices && seenStore;
}

struct PlanMemoryPass : dlc::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr(attrs::kKernel) || func.isExternal())
        continue;
      if (failed(plan(func)))
        return signalPassFailure();
    }
  }

  /// Places `order`'s buffers one by one, each at the best fit among the
  /// gaps between the placed buffers live at the same time (the smallest
  /// gap that holds it, else above them all); returns the arena's size.
  static int64_t place(ArrayRef<Buffer *> order) {
    int64_t arena = 0;
    SmallVector<Buffer *> placed;
    for (Buffer *b : order) {
      SmallVector<Buffer *> conflicts;
      for (Buffer *p : placed)
        if (p->first <= b->last && b->first <= p->last)
          conflicts.push_back(p);
      llvm::sort(conflicts,
                 [](Buffer *x, Buffer *y) { return x->offset < y->offset; });
      int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
      for (Buffer *c : conflicts) {
        int64_t gap = c->offset - cursor;
        if (gap >= b->size && gap < bestGap) {
          best = cursor;
          bestGap = gap;
        }
        cursor = std::max(cursor, c->offset + c->size);
      }
      b->offset = best >= 0 ? best : cursor;
      arena = std::max(arena, b->offset + b->size);
      placed.push_back(b);
    }
    return arena;
  }

  LogicalResult plan(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError("expected a straight-line model function");
    DenseMap<Operation *, int64_t> position;
    int64_t pos = 0;
    for (Operation &op : func.getBody().front())
      position[&op] = pos++;

    SmallVector<Buffer> buffers;
    for (auto alloc : func.getBody().front().getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return alloc.emitOpError("dynamic allocation in the model function");
      Buffer buf;
      buf.alloc = alloc;
      int64_t bits = type.getElementTypeBitWidth();
      buf.size = alignTo(
          std::max<int64_t>(1, type.getNumElements() * ((bits + 7) / 8)),
          alignment);
      buf.first = buf.last = position[alloc];
      // Uses through views extend the live range.
      SmallVector<Value> worklist{alloc.getResult()};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          buf.last = std::max(buf.last, position.lookup(user));
          if (isView(user))
            llvm::append_range(worklist, user->getResults());
        }
      }
      buffers.push_back(buf);
    }

    // In place: an output born at a call where an input of the same size
    // dies is written over it when the kernel allows (elementwise).
    DenseMap<Operation *, unsigned> bufferOf;
    for (auto [i, b] : llvm::enumerate(buffers))
      bufferOf[b.alloc] = i;
    SmallVector<int> inPlaceOf(buffers.size(), -1);
    for (auto call : func.getBody().front().getOps<func::CallOp>()) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee)
        continue;
      int64_t p = position[call];
      for (auto [i, in] : llvm::enumerate(call.getOperands())) {
        auto ai = in.getDefiningOp<memref::AllocOp>();
        if (!ai || buffers[bufferOf[ai]].last != p)
          continue;
        for (auto [j, out] : llvm::enumerate(call.getOperands())) {
          auto bi = out.getDefiningOp<memref::AllocOp>();
          if (!bi || bi == ai || inPlaceOf[bufferOf[bi]] >= 0)
            continue;
          Buffer &A = buffers[bufferOf[ai]], &B = buffers[bufferOf[bi]];
          // B's first use must be this call (its alloc precedes it).
          bool bornHere = llvm::all_of(bi->getUsers(), [&](Operation *u) {
            return position.lookup(u) >= p;
          });
          if (!bornHere || A.size != B.size || A.last != p ||
              ai.getType() != bi.getType() || !canWriteInPlace(callee, i, j))
            continue;
          inPlaceOf[bufferOf[bi]] = bufferOf[ai];
          // The buffer that is placed holds the whole chain.
          unsigned root = bufferOf[ai];
          while (inPlaceOf[root] >= 0)
            root = inPlaceOf[root];
          buffers[root].last = std::max(buffers[root].last, B.last);
          break;
        }
      }
    }
    // Resolve chains (C over B over A) to the buffer that is placed.
    auto placedOf = [&](unsigned i) {
      while (inPlaceOf[i] >= 0)
        i = inPlaceOf[i];
      return i;
    };

    // Lower bound: the largest total of buffers live at one position.
    int64_t lowerBound = 0, naive = 0;
    for (int64_t p = 0; p < pos; ++p) {
      int64_t live = 0;
      for (auto [i, b] : llvm::enumerate(buffers))
        if (inPlaceOf[i] < 0 && b.first <= p && p <= b.last)
          live += b.size;
      lowerBound = std::max(lowerBound, live);
    }
    for (const Buffer &b : buffers)
      naive += b.size;

    SmallVector<Buffer *> order;
    for (auto [i, b] : llvm::enumerate(buffers))
      if (inPlaceOf[i] < 0)
        order.push_back(&b);
    // Several greedy orders, the smallest arena kept (TFLite's planner
    // tries by size and by breadth the same way): one order leaves gaps
    // another fills. The breadth of a buffer: the most bytes live at one
    // position of its range.
    SmallVector<int64_t> liveAt(pos, 0);
    for (Buffer *b : order)
      for (int64_t p = b->first; p <= b->last; ++p)
        liveAt[p] += b->size;
    DenseMap<Buffer *, int64_t> breadth;
    for (Buffer *b : order)
      breadth[b] = *std::max_element(liveAt.begin() + b->first,
                                     liveAt.begin() + b->last + 1);
    // Ties (and the rest) broken from the end of the plan backwards, or
    // from its start: which one leaves the alternating big buffers of a
    // residual chain where the next block's buffers fit depends on the
    // model (resnet50 on the host: 7.2 MB against 8.0).
    auto fromEnd = [](Buffer *a, Buffer *b) { return a->last > b->last; };
    auto fromStart = [](Buffer *a, Buffer *b) { return a->first < b->first; };
    auto by = [](auto key, auto tie) {
      return [=](Buffer *a, Buffer *b) {
        if (key(a) != key(b))
          return key(a) > key(b);
        return tie(a, b);
      };
    };
    auto size = [](Buffer *b) { return b->size; };
    auto wide = [&](Buffer *b) { return std::make_pair(breadth[b], b->size); };
    SmallVector<SmallVector<Buffer *>> orders(5, order);
    llvm::stable_sort(orders[0], by(size, fromStart));
    llvm::stable_sort(orders[1], by(size, fromEnd));
    llvm::stable_sort(orders[2], by(wide, fromStart));
    llvm::stable_sort(orders[3], by(wide, fromEnd));
    llvm::stable_sort(orders[4], fromEnd);
    int64_t arena = INT64_MAX;
    SmallVector<int64_t> bestOffsets;
    for (ArrayRef<Buffer *> candidate : orders) {
      int64_t bytes = place(candidate);
      if (bytes >= arena)
        continue;
      arena = bytes;
      bestOffsets.clear();
      for (Buffer *b : order)
        bestOffsets.push_back(b->offset);
    }
    for (auto [b, offset] : llvm::zip(order, bestOffsets))
      b->offset = offset;

    for (unsigned i = 0; i < buffers.size(); ++i)
      if (inPlaceOf[i] >= 0)
        buffers[i].offset = buffers[placedOf(i)].offset;

    // The plan's invariant, checked on every compile: buffers live at the
    // same time never share a byte (but where one is written in place over
    // the other, at the one call where the first dies).
    for (size_t i = 0; i < buffers.size(); ++i)
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        Buffer &x = buffers[i], &y = buffers[j];
        if (placedOf(i) == placedOf(j))
          continue;
        bool liveTogether = x.first <= y.last && y.first <= x.last;
        bool overlap =
            x.offset < y.offset + y.size && y.offset < x.offset + x.size;
        if (liveTogether && overlap)
          return x.alloc.emitOpError("arena plan overlaps a buffer live at "
                                     "the same time (planner bug)");
      }

    OpBuilder builder(func.getContext());
    for (auto [i, b] : llvm::enumerate(buffers)) {
      if (inPlaceOf[i] >= 0)
        b.alloc->setAttr(attrs::kInPlaceOf,
                         builder.getI64IntegerAttr(inPlaceOf[i]));
      b.alloc->setAttr(attrs::kArenaOffset,
                       builder.getI64IntegerAttr(b.offset));
      b.alloc->setAttr(attrs::kLiveRange,
                       builder.getDenseI64ArrayAttr({b.first, b.last}));
    }
    func->setAttr(attrs::kArenaSize, builder.getI64IntegerAttr(arena));
    func->setAttr(attrs::kNaiveSize, builder.getI64IntegerAttr(naive));
    func->setAttr(attrs::kLowerBound, builder.getI64IntegerAttr(lowerBound));
    return success();
  }
};
} // namespace
