//===- VectorizeElementAccesses.cpp - vectors of unrolled elements --------===//
//
// After dlc-interchange-element-loops unrolls a work item's element loop,
// a tap's loads of its 8 consecutive channels (and the final stores) are
// scalar accesses side by side in one block. LLVM's load/store vectorizer
// was left to combine them, and did so only in part: InstCombine rewrites
// element 0's address as `(base + row) + channel` and the others' as
// `(base + channel) + row + k`, the vectorizer no longer sees one chain, and
// splits the rest by alignment (mobilenet_v2's depthwise taps: one b16, one
// b32 and one v4.b16 load for 8 halves). This pass makes each aligned run
// of consecutive elements one vector access before LLVM sees it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>

namespace mlir::dlc {
#define GEN_PASS_DEF_VECTORIZEELEMENTACCESSESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The bytes of the widest access.
constexpr int64_t kVectorBytes = 16;

/// `v` as `base + offset` through additions of constants; a null base for
/// a constant index.
std::pair<Value, int64_t> splitOffset(Value v) {
  int64_t offset = 0;
  while (auto add = v.getDefiningOp<arith::AddIOp>()) {
    if (auto c = getConstantIntValue(add.getRhs())) {
      offset += *c;
      v = add.getLhs();
    } else if (auto c = getConstantIntValue(add.getLhs())) {
      offset += *c;
      v = add.getRhs();
    } else {
      break;
    }
  }
  if (auto c = getConstantIntValue(v))
    return {Value(), offset + *c};
  return {v, offset};
}

/// Scalar accesses of one buffer in one block that differ only in the
/// innermost index's constant offset from `base`.
struct Group {
  Value memref, base;
  SmallVector<Value> leading;
  /// Offset -> access; nullptr once an offset repeats.
  std::map<int64_t, Operation *> at;
  bool repeated = false;
};

/// Whether the ops strictly between `from` and `to` (one block), other than
/// `group`, may touch `buffer`: reading it when `readsMatter`, writing it
/// always. Kernels with
/// `dlc.distinct_args` pass no buffer twice, so accesses of other
/// arguments and of private allocas cannot.
bool touchedBetween(Operation *from, Operation *to, Value buffer,
                    bool readsMatter, ArrayRef<Operation *> group) {
  Value root = rootBuffer(buffer);
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (llvm::is_contained(group, op))
      continue;
    WalkResult r = op->walk([&](Operation *inner) {
      if (auto load = dyn_cast<memref::LoadOp>(inner))
        return readsMatter && rootBuffer(load.getMemRef()) == root
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        return rootBuffer(store.getMemRef()) == root ? WalkResult::interrupt()
                                                     : WalkResult::advance();
      if (isMemoryEffectFree(inner) || isa<memref::AllocaOp>(inner) ||
          inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      return true;
  }
  return false;
}

/// Replaces the accesses at offsets [first, first + width) of `g` by one
/// vector access, if they all exist and moving them together is safe.
bool vectorize(Group &g, int64_t first, int64_t width, DominanceInfo &dom) {
  SmallVector<Operation *> ops;
  for (int64_t o = first; o < first + width; ++o) {
    auto it = g.at.find(o);
    if (it == g.at.end())
      return false;
    ops.push_back(it->second);
  }
  Operation *begin = ops.front(), *end = ops.front();
  for (Operation *op : ops) {
    if (op->isBeforeInBlock(begin))
      begin = op;
    if (end->isBeforeInBlock(op))
      end = op;
  }
  bool loads = isa<memref::LoadOp>(begin);
  // Loads meet at the first, stores at the last.
  Operation *where = loads ? begin : end;
  for (Value v : g.leading)
    if (!dom.properlyDominates(v, where))
      return false;
  if (g.base && !dom.properlyDominates(g.base, where))
    return false;
  if (touchedBetween(begin, end, g.memref, /*readsMatter=*/!loads, ops))
    return false;

  OpBuilder b(where);
  if (!loads)
    b.setInsertionPointAfter(where);
  Location loc = where->getLoc();
  Value index =
      g.base ? g.base : b.create<arith::ConstantIndexOp>(loc, 0).getResult();
  if (first != 0)
    index = b.create<arith::AddIOp>(
        loc, index, b.create<arith::ConstantIndexOp>(loc, first));
  SmallVector<Value> indices(g.leading);
  indices.push_back(index);
  auto type = VectorType::get(
      {width}, cast<MemRefType>(g.memref.getType()).getElementType());
  if (loads) {
    Value v = b.create<vector::LoadOp>(loc, type, g.memref, indices);
    for (auto [k, op] : llvm::enumerate(ops))
      op->getResult(0).replaceAllUsesWith(
          b.create<vector::ExtractOp>(loc, v, int64_t(k)));
    for (Operation *op : ops)
      op->erase();
  } else {
    SmallVector<Value> elements;
    for (Operation *op : ops)
      elements.push_back(cast<memref::StoreOp>(op).getValueToStore());
    Value v = b.create<vector::FromElementsOp>(loc, type, elements);
    b.create<vector::StoreOp>(loc, v, g.memref, indices);
    for (Operation *op : ops)
      op->erase();
  }
  for (int64_t o = first; o < first + width; ++o)
    g.at.erase(o);
  return true;
}

/// Vectorizes the groups of `block`'s direct loads and stores of kernel
/// arguments: runs of consecutive offsets, aligned to their width from the
/// base, of at most 16 bytes (the widest first).
void vectorizeBlock(Block &block, DominanceInfo &dom) {
  SmallVector<Group> groups;
  for (Operation &op : block) {
    std::optional<std::pair<Value, ValueRange>> access = memoryAccess(&op);
    if (!access)
      continue;
    auto [memref, idx] = *access;
    auto arg = dyn_cast<BlockArgument>(memref);
    auto type = cast<MemRefType>(memref.getType());
    if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
        type.getRank() == 0 || !isLastMemrefDimUnitStride(type) ||
        !type.getElementType().isIntOrFloat())
      continue;
    auto [base, offset] = splitOffset(idx.back());
    SmallVector<Value> leading(idx.drop_back());
    auto it = llvm::find_if(groups, [&](Group &g) {
      return g.memref == memref && g.base == base && g.leading == leading &&
             isa<memref::LoadOp>(g.at.begin()->second) ==
                 isa<memref::LoadOp>(op);
    });
    if (it == groups.end()) {
      groups.push_back(Group{memref, base, leading, {}, false});
      it = std::prev(groups.end());
    }
    if (!it->at.emplace(offset, &op).second)
      it->repeated = true;
  }
  for (Group &g : groups) {
    if (g.repeated || g.at.size() < 2)
      continue;
    int64_t bytes = cast<MemRefType>(g.memref.getType())
                        .getElementType()
                        .getIntOrFloatBitWidth() /
                    8;
    if (bytes == 0)
      continue;
    for (int64_t width = kVectorBytes / bytes; width >= 2; width /= 2) {
      SmallVector<int64_t> starts;
      for (auto &[o, op] : g.at)
        if (o % width == 0)
          starts.push_back(o);
      for (int64_t s : starts)
        (void)vectorize(g, s, width, dom);
    }
  }
}

struct VectorizeElementAccessesPass
    : dlc::impl::VectorizeElementAccessesPassBase<
          VectorizeElementAccessesPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(attrs::kKernel) || func->hasAttr(attrs::kCtaThreads) ||
          !func->hasAttr(attrs::kDistinctArgs))
        return;
      DominanceInfo dom(func);
      SmallVector<Block *> blocks;
      func.walk([&](Block *b) { blocks.push_back(b); });
      for (Block *b : blocks)
        vectorizeBlock(*b, dom);
    });
  }
};
} // namespace
