//===- KernelForm.cpp - the shared linearized kernel form --------*- C++ -*-===//

#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "passes/Passes.h"

using namespace mlir;

namespace {
/// How an index of a load or store relates to the work item: the work
/// item's own coordinate `iv`, or a constant.
struct IndexPattern {
  int64_t iv = -1;       // position of the loop's induction variable
  int64_t constant = -1; // else a constant index
  bool operator==(const IndexPattern &o) const {
    return iv == o.iv && constant == o.constant;
  }
};

/// The pattern of `indices` in `loop`, or nothing if some index depends on
/// anything else (a window, a gather, an inner loop).
std::optional<SmallVector<IndexPattern>> patternOf(scf::ParallelOp loop,
                                                   ValueRange indices) {
  SmallVector<IndexPattern> pattern;
  for (Value index : indices) {
    // Loop generation spells identity and constant indices as affine.apply.
    while (auto apply = index.getDefiningOp<affine::AffineApplyOp>()) {
      AffineMap map = apply.getAffineMap();
      if (map.isSingleConstant()) {
        index = Value();
        pattern.push_back({-1, map.getSingleConstantResult()});
        break;
      }
      if (map.getNumResults() != 1 || map.getNumInputs() != 1 ||
          map.getResult(0) != getAffineDimExpr(0, map.getContext()))
        return std::nullopt;
      index = apply.getOperand(0);
    }
    if (!index)
      continue;
    IndexPattern p;
    auto arg = dyn_cast<BlockArgument>(index);
    APInt c;
    if (arg && arg.getOwner() == loop.getBody())
      p.iv = arg.getArgNumber();
    else if (matchPattern(index, m_ConstantInt(&c)))
      p.constant = c.getSExtValue();
    else
      return std::nullopt;
    pattern.push_back(p);
  }
  return pattern;
}

/// The one pattern every store of `loop` writes each buffer with; null
/// (failure) if a buffer is written with several or unknown patterns.
FailureOr<DenseMap<Value, SmallVector<IndexPattern>>>
writesOf(scf::ParallelOp loop) {
  DenseMap<Value, SmallVector<IndexPattern>> writes;
  bool ok = true;
  loop.getBody()->walk([&](memref::StoreOp store) {
    auto p = patternOf(loop, store.getIndices());
    if (!p) {
      ok = false;
      return;
    }
    auto [it, inserted] = writes.try_emplace(store.getMemRef(), *p);
    if (!inserted && it->second != *p)
      ok = false;
  });
  if (!ok)
    return failure();
  return writes;
}

/// Whether every access of `reader` to a buffer `writer` writes is at the
/// writer's own element: then running the two bodies one work item after
/// the other keeps every dependence inside one work item.
bool readsOnlyOwnElement(
    scf::ParallelOp reader,
    const DenseMap<Value, SmallVector<IndexPattern>> &writerWrites) {
  auto result = reader.getBody()->walk([&](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef(), indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef(), indices = store.getIndices();
    else
      return WalkResult::advance();
    auto it = writerWrites.find(memref);
    if (it == writerWrites.end())
      return WalkResult::advance();
    auto p = patternOf(reader, indices);
    return p && *p == it->second ? WalkResult::advance()
                                 : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

bool sameIterationSpace(scf::ParallelOp a, scf::ParallelOp b) {
  if (a.getNumLoops() != b.getNumLoops())
    return false;
  auto same = [](ValueRange x, ValueRange y) {
    for (auto [u, v] : llvm::zip(x, y)) {
      APInt cu, cv;
      if (u != v && !(matchPattern(u, m_ConstantInt(&cu)) &&
                      matchPattern(v, m_ConstantInt(&cv)) && cu == cv))
        return false;
    }
    return true;
  };
  return same(a.getLowerBound(), b.getLowerBound()) &&
         same(a.getUpperBound(), b.getUpperBound()) &&
         same(a.getStep(), b.getStep());
}

/// Runs `first`'s body at the start of each work item of `second` when that
/// keeps every dependence within one work item (distinct buffers never
/// alias: kernels take distinct whole buffers).
bool fuseInto(RewriterBase &rewriter, scf::ParallelOp first,
              scf::ParallelOp second) {
  if (!sameIterationSpace(first, second))
    return false;
  auto firstWrites = writesOf(first);
  auto secondWrites = writesOf(second);
  if (failed(firstWrites) || failed(secondWrites))
    return false;
  if (!readsOnlyOwnElement(second, *firstWrites) ||
      !readsOnlyOwnElement(first, *secondWrites))
    return false;
  IRMapping mapping;
  mapping.map(first.getBody()->getArguments(),
              second.getBody()->getArguments());
  rewriter.setInsertionPointToStart(second.getBody());
  for (Operation &op : first.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(first);
  return true;
}
} // namespace

Value mlir::dlc::rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      v = def->getOperand(0);
    else
      break;
  }
  return v;
}

void mlir::dlc::markNoAliasArguments(FunctionOpInterface kernel) {
  if (!kernel->hasAttr(attrs::kDistinctArgs))
    return;
  UnitAttr unit = UnitAttr::get(kernel->getContext());
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (isa<MemRefType>(kernel.getArgument(i).getType()))
      kernel.setArgAttr(i, "llvm.noalias", unit);
}

FailureOr<scf::ParallelOp>
mlir::dlc::lowerKernelToLoopNest(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  if (ops.empty())
    return failure();
  for (linalg::LinalgOp op : ops) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
      return failure();
    rewriter.eraseOp(op);
  }
  Block &body = func.getBody().front();
  // A kernel whose ops have no parallel dims is one work item.
  if (body.getOps<scf::ParallelOp>().empty()) {
    if (ops.size() != 1)
      return failure();
    return wrapInSingleWorkItem(rewriter, func);
  }
  // Only constants may sit between the loop nests.
  scf::ParallelOp fused;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (fused && !fuseInto(rewriter, fused, loop))
        return failure();
      fused = loop;
      continue;
    }
    if (!op.hasTrait<OpTrait::ConstantLike>())
      return failure();
  }
  return fused;
}
