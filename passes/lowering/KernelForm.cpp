//===- KernelForm.cpp - the shared linearized kernel form --------*- C++
//-*-===//

#include "passes/lowering/KernelForm.h"
#include "passes/lowering/LinalgBuilders.h"

#include "llvm/ADT/SetVector.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "passes/Passes.h"

#include <limits>

using namespace mlir;
using mlir::dlc::stripIdentityApply;

namespace {
/// Trailing parallel dims longer than this are not serialized into a work
/// item when fusing a row reduction with its neighbours: the work items
/// would become too coarse.
constexpr int64_t kMaxSerializedExtent = 4096;
/// Query rows a host attention work item takes (lowerAttentionToLoops).
constexpr int64_t kHostAttentionRowGroup = 16;

/// Which induction variable of `loop` each index is (-1: anything else, a
/// constant, an inner loop's variable or a computed position).
SmallVector<int64_t> ivPositions(scf::ParallelOp loop, ValueRange indices) {
  SmallVector<int64_t> ivs;
  for (Value index : indices) {
    auto arg = dyn_cast<BlockArgument>(stripIdentityApply(index));
    ivs.push_back(arg && arg.getOwner() == loop.getBody()
                      ? (int64_t)arg.getArgNumber()
                      : -1);
  }
  return ivs;
}

/// For every buffer `loop` stores to: where the work item's induction
/// variables appear in the store indices. Failure unless each buffer is
/// always written at the same such positions and they name every induction
/// variable: then a work item writes only elements no other work item
/// writes (its "own" part of the buffer, e.g. its row).
FailureOr<DenseMap<Value, SmallVector<int64_t>>>
ownedWrites(scf::ParallelOp loop) {
  DenseMap<Value, SmallVector<int64_t>> writes;
  bool ok = true;
  loop.getBody()->walk([&](memref::StoreOp store) {
    // Scratch memory a work item allocates for itself is private to it.
    if (Operation *def = store.getMemRef().getDefiningOp();
        def && loop->isProperAncestor(def))
      return;
    SmallVector<int64_t> ivs = ivPositions(loop, store.getIndices());
    auto [it, inserted] = writes.try_emplace(store.getMemRef(), ivs);
    if (!inserted && it->second != ivs)
      ok = false;
  });
  for (auto &[buffer, ivs] : writes)
    for (unsigned iv = 0; iv < loop.getNumLoops(); ++iv)
      ok &= llvm::count(ivs, (int64_t)iv) == 1;
  if (!ok)
    return failure();
  return writes;
}

/// Whether `reader` touches the buffers `writes` describes only inside its
/// own work item's part (the same induction variables at the same
/// positions): then running both bodies one work item after the other keeps
/// every dependence inside one work item.
bool touchesOnlyOwnPart(scf::ParallelOp reader,
                        const DenseMap<Value, SmallVector<int64_t>> &writes) {
  auto result = reader.getBody()->walk([&](Operation *op) {
    auto access = mlir::dlc::memoryAccess(op);
    if (!access)
      return WalkResult::advance();
    Value memref = access->first;
    ValueRange indices = access->second;
    auto it = writes.find(memref);
    if (it == writes.end())
      return WalkResult::advance();
    SmallVector<int64_t> ivs = ivPositions(reader, indices);
    for (auto [want, have] : llvm::zip(it->second, ivs))
      if (want >= 0 && want != have)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

std::optional<int64_t> tripCount(Value lb, Value ub, Value step) {
  APInt l, u, s;
  if (!matchPattern(lb, m_ConstantInt(&l)) ||
      !matchPattern(ub, m_ConstantInt(&u)) ||
      !matchPattern(step, m_ConstantInt(&s)) || s.getSExtValue() <= 0)
    return std::nullopt;
  return std::max<int64_t>(
      0, (u.getSExtValue() - l.getSExtValue() + s.getSExtValue() - 1) /
             s.getSExtValue());
}

/// The static trip counts of `loop`'s dims, or nothing if one is dynamic.
std::optional<SmallVector<int64_t>> extents(scf::ParallelOp loop) {
  SmallVector<int64_t> sizes;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto n = tripCount(lb, ub, step);
    if (!n)
      return std::nullopt;
    sizes.push_back(*n);
  }
  return sizes;
}

/// Rebuilds `loop` keeping only the dims in `kept` parallel; the others
/// become sequential scf.for loops inside each work item (unit dims simply
/// take their lower bound). Returns the new loop.
scf::ParallelOp restructure(RewriterBase &rewriter, scf::ParallelOp loop,
                            ArrayRef<unsigned> kept,
                            ArrayRef<unsigned> serialized) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned d : kept) {
    lbs.push_back(loop.getLowerBound()[d]);
    ubs.push_back(loop.getUpperBound()[d]);
    steps.push_back(loop.getStep()[d]);
  }
  auto newLoop = rewriter.create<scf::ParallelOp>(loc, lbs, ubs, steps);
  IRMapping mapping;
  for (auto [i, d] : llvm::enumerate(kept))
    mapping.map(loop.getBody()->getArgument(d),
                newLoop.getBody()->getArgument(i));
  for (unsigned d = 0; d < loop.getNumLoops(); ++d)
    if (!llvm::is_contained(kept, d) && !llvm::is_contained(serialized, d))
      mapping.map(loop.getBody()->getArgument(d), loop.getLowerBound()[d]);
  rewriter.setInsertionPointToStart(newLoop.getBody());
  for (unsigned d : serialized) {
    auto inner =
        rewriter.create<scf::ForOp>(loc, loop.getLowerBound()[d],
                                    loop.getUpperBound()[d], loop.getStep()[d]);
    mapping.map(loop.getBody()->getArgument(d), inner.getInductionVar());
    rewriter.setInsertionPointToStart(inner.getBody());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
  return newLoop;
}

/// Whether one loop reads or writes a buffer the other writes.
bool dependent(scf::ParallelOp a, scf::ParallelOp b) {
  auto written = [](scf::ParallelOp loop) {
    llvm::SmallPtrSet<Value, 8> buffers;
    loop.getBody()->walk(
        [&](memref::StoreOp store) { buffers.insert(store.getMemRef()); });
    return buffers;
  };
  auto touches = [](scf::ParallelOp loop,
                    const llvm::SmallPtrSet<Value, 8> &buffers) {
    return loop.getBody()
        ->walk([&](Operation *op) {
          for (Value v : op->getOperands())
            if (buffers.contains(v))
              return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  };
  return touches(b, written(a)) || touches(a, written(b));
}

/// Brings `a` and `b` to one iteration space when the non-unit dims of one
/// are a prefix of the other's: unit dims are dropped and the longer one's
/// trailing dims become sequential loops inside each work item (a row
/// reduction and its elementwise neighbours then share a work item per row).
bool alignIterationSpaces(RewriterBase &rewriter, scf::ParallelOp &a,
                          scf::ParallelOp &b) {
  auto sa = extents(a), sb = extents(b);
  if (!sa || !sb)
    return false;
  if (*sa == *sb)
    return true;
  auto nonUnit = [](ArrayRef<int64_t> sizes) {
    SmallVector<unsigned> dims;
    for (auto [d, n] : llvm::enumerate(sizes))
      if (n != 1)
        dims.push_back(d);
    return dims;
  };
  SmallVector<unsigned> da = nonUnit(*sa), db = nonUnit(*sb);
  bool swap = da.size() > db.size();
  scf::ParallelOp &shortLoop = swap ? b : a, &longLoop = swap ? a : b;
  ArrayRef<int64_t> shortSizes = swap ? *sb : *sa, longSizes = swap ? *sa : *sb;
  ArrayRef<unsigned> shortDims = swap ? db : da, longDims = swap ? da : db;
  for (auto [s, l] : llvm::zip(shortDims, longDims))
    if (shortSizes[s] != longSizes[l])
      return false;
  SmallVector<unsigned> shortKept(shortDims),
      longKept(longDims.take_front(shortDims.size())),
      serialized(longDims.drop_front(shortDims.size()));
  int64_t serializedExtent = 1;
  for (unsigned d : serialized)
    serializedExtent *= longSizes[d];
  // Coarser work items only pay off for a producer and its consumer, and
  // only when what becomes sequential is elementwise work (no loops of its
  // own): a row of a MatMul would put rows x K multiply-adds in one thread.
  bool longHasLoops =
      longLoop.getBody()
          ->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (!serialized.empty() && (serializedExtent > kMaxSerializedExtent ||
                              !dependent(a, b) || longHasLoops))
    return false;
  if (shortKept.empty()) {
    // One work item in all: keep one unit dim on each side.
    auto unit = llvm::find(longSizes, 1);
    if (unit == longSizes.end())
      return false;
    shortKept.push_back(0);
    longKept.push_back(unit - longSizes.begin());
  }
  if (shortKept.size() != shortSizes.size())
    shortLoop = restructure(rewriter, shortLoop, shortKept, {});
  longLoop = restructure(rewriter, longLoop, longKept, serialized);
  return true;
}

/// Runs `first`'s body at the start of each work item of `second` when that
/// keeps every dependence within one work item (distinct buffers never
/// alias: kernels take distinct whole buffers).
bool fuseInto(RewriterBase &rewriter, scf::ParallelOp first,
              scf::ParallelOp &second) {
  if (!alignIterationSpaces(rewriter, first, second))
    return false;
  auto firstWrites = ownedWrites(first);
  auto secondWrites = ownedWrites(second);
  if (failed(firstWrites) || failed(secondWrites))
    return false;
  if (!touchesOnlyOwnPart(second, *firstWrites) ||
      !touchesOnlyOwnPart(first, *secondWrites))
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

bool mlir::dlc::isInnermostLoop(scf::ForOp loop) {
  return !loop.getBody()
              ->walk([](Operation *op) {
                return op->getNumRegions() ? WalkResult::interrupt()
                                           : WalkResult::advance();
              })
              .wasInterrupted();
}

std::optional<SmallVector<int64_t>>
mlir::dlc::normalizedExtents(scf::ParallelOp loop) {
  SmallVector<int64_t> ubs;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
         s = getConstantIntValue(step);
    if (!l || !u || !s || *l != 0 || *s != 1)
      return std::nullopt;
    ubs.push_back(*u);
  }
  return ubs;
}

scf::ParallelOp mlir::dlc::splitInnermostDim(RewriterBase &rewriter,
                                             scf::ParallelOp loop,
                                             int64_t width) {
  auto sizes = extents(loop);
  unsigned last = loop.getNumLoops() - 1;
  APInt lb, step;
  if (width <= 1 || !sizes || (*sizes)[last] < width ||
      (*sizes)[last] % width != 0 ||
      !matchPattern(loop.getLowerBound()[last], m_ConstantInt(&lb)) ||
      !matchPattern(loop.getStep()[last], m_ConstantInt(&step)) ||
      !lb.isZero() || !step.isOne())
    return loop;
  // Only where the innermost work item dim is the contiguous one: some
  // store writes it as its last index (not for row kernels, whose rows
  // would just get fewer threads).
  Value lastIv = loop.getBody()->getArgument(last);
  bool contiguous =
      loop.getBody()
          ->walk([&](memref::StoreOp store) {
            ValueRange idx = store.getIndices();
            return !idx.empty() && stripIdentityApply(idx.back()) == lastIv
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  if (!contiguous)
    return loop;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> ubs(loop.getUpperBound());
  ubs[last] =
      rewriter.create<arith::ConstantIndexOp>(loc, (*sizes)[last] / width);
  auto newLoop = rewriter.create<scf::ParallelOp>(loc, loop.getLowerBound(),
                                                  ubs, loop.getStep());
  IRMapping mapping;
  for (unsigned d = 0; d < last; ++d)
    mapping.map(loop.getBody()->getArgument(d),
                newLoop.getBody()->getArgument(d));
  rewriter.setInsertionPointToStart(newLoop.getBody());
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value w = rewriter.create<arith::ConstantIndexOp>(loc, width);
  auto lane = rewriter.create<scf::ForOp>(loc, zero, w, one);
  rewriter.setInsertionPointToStart(lane.getBody());
  Value base = rewriter.create<arith::MulIOp>(
      loc, newLoop.getBody()->getArgument(last), w);
  mapping.map(loop.getBody()->getArgument(last),
              rewriter.create<arith::AddIOp>(loc, base, lane.getInductionVar())
                  .getResult());
  for (Operation &op : loop.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
  return newLoop;
}

Value mlir::dlc::stripIdentityApply(Value index) {
  while (auto apply = index.getDefiningOp<affine::AffineApplyOp>()) {
    AffineMap map = apply.getAffineMap();
    if (map.getNumResults() != 1 || map.getNumInputs() != 1 ||
        map.getResult(0) != getAffineDimExpr(0, map.getContext()))
      break;
    index = apply.getOperand(0);
  }
  return index;
}

std::optional<std::pair<Value, ValueRange>>
mlir::dlc::memoryAccess(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return std::make_pair(load.getMemRef(), ValueRange(load.getIndices()));
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return std::make_pair(store.getMemRef(), ValueRange(store.getIndices()));
  return std::nullopt;
}

SmallVector<func::FuncOp> mlir::dlc::modelFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> models;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr(attrs::kKernel) && !func.isExternal())
      models.push_back(func);
  return models;
}

bool mlir::dlc::isDataFree(Operation &op) {
  return isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::GetGlobalOp>(op) ||
         (isMemoryEffectFree(&op) && op.getNumRegions() == 0);
}

func::FuncOp mlir::dlc::calledKernel(Operation *op, SymbolTable &symbols) {
  auto call = dyn_cast<func::CallOp>(op);
  auto callee = call ? symbols.lookup<func::FuncOp>(call.getCallee()) : nullptr;
  return callee && callee->hasAttr(attrs::kKernel) ? callee : nullptr;
}

mlir::dlc::KernelCalls::KernelCalls(ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(&module.getBodyRegion());
  if (!uses)
    return;
  for (SymbolTable::SymbolUse use : *uses)
    users[use.getSymbolRef().getRootReference()].push_back(use.getUser());
}

SmallVector<func::CallOp> mlir::dlc::KernelCalls::of(func::FuncOp func) const {
  SmallVector<func::CallOp> calls;
  for (Operation *user : users.lookup(func.getSymNameAttr())) {
    auto call = dyn_cast<func::CallOp>(user);
    if (!call)
      return {};
    calls.push_back(call);
  }
  return calls;
}

bool mlir::dlc::isCallLocalArgument(ArrayRef<func::CallOp> calls,
                                    unsigned argNumber) {
  if (calls.empty())
    return false;
  for (func::CallOp call : calls) {
    Value root = rootBuffer(call.getOperand(argNumber));
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    // Every use is the call itself or a view the call reads it through.
    std::function<bool(Value)> onlyThisCall = [&](Value v) {
      for (Operation *user : v.getUsers()) {
        if (user == call.getOperation() || isa<memref::DeallocOp>(user))
          continue;
        if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
            onlyThisCall(user->getResult(0)))
          continue;
        return false;
      }
      return true;
    };
    if (!alloc || !onlyThisCall(alloc))
      return false;
  }
  return true;
}

void mlir::dlc::dropDeadBufferArguments(func::FuncOp func,
                                        ArrayRef<func::CallOp> calls) {
  if (calls.empty())
    return;
  llvm::BitVector dead(func.getNumArguments());
  for (BlockArgument arg : func.getArguments()) {
    if (!arg.use_empty() || !isa<MemRefType>(arg.getType()))
      continue;
    bool allLocal = true;
    for (func::CallOp call : calls) {
      Value v = call.getOperand(arg.getArgNumber());
      auto alloc = v.getDefiningOp<memref::AllocOp>();
      allLocal &=
          alloc && llvm::all_of(alloc->getUsers(), [&](Operation *u) {
            return u == call.getOperation() || isa<memref::DeallocOp>(u);
          });
    }
    if (allLocal)
      dead.set(arg.getArgNumber());
  }
  if (dead.none())
    return;
  for (func::CallOp call : calls) {
    llvm::SetVector<Operation *> allocs;
    for (unsigned i : dead.set_bits())
      allocs.insert(call.getOperand(i).getDefiningOp());
    call->eraseOperands(dead);
    // (An allocation the call still takes at a live argument stays.)
    for (Operation *alloc : allocs) {
      if (!llvm::all_of(alloc->getUsers(),
                        [](Operation *u) { return isa<memref::DeallocOp>(u); }))
        continue;
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc->erase();
    }
  }
  (void)func.eraseArguments(dead);
}

Value mlir::dlc::onlineSoftmaxBase(OpBuilder &b, Location loc, Value m) {
  Type t = m.getType();
  Value negInf = b.create<arith::ConstantOp>(
      loc, b.getFloatAttr(t, -std::numeric_limits<double>::infinity()));
  Value allMasked =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, m, negInf);
  return b.create<arith::SelectOp>(
      loc, allMasked, b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, 0.0)),
      m);
}

bool mlir::dlc::isBufferView(Operation *op) {
  return isa<ViewLikeOpInterface, memref::ExpandShapeOp,
             memref::CollapseShapeOp>(op);
}

bool mlir::dlc::hasContiguousRows(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  return succeeded(getStridesAndOffset(type, strides, offset)) &&
         !ShapedType::isDynamic(offset) && !strides.empty() &&
         strides.back() == 1 && llvm::none_of(strides, ShapedType::isDynamic);
}

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

void mlir::dlc::markAlignedArguments(FunctionOpInterface kernel) {
  // Arena offsets are 256-byte aligned, weight offsets 64, and the runtime
  // allocates every base with the driver (256) or aligned host memory.
  Builder b(kernel->getContext());
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (isa<MemRefType>(kernel.getArgument(i).getType()))
      kernel.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(16));
}

namespace {
/// Whether rows fit `op`'s `parallel` dims: the innermost is long enough
/// for a row (4) and the others span enough rows for the work items. With
/// `panels` (an op that reduces), fewer rows do when the row is long enough
/// for splitRowsIntoPanels to make work items of its columns (longer than
/// kMaxRegisterRow, a multiple of 8): a matrix-vector product (a
/// classifier's Gemm at batch 1) ran one output a work item, its integer
/// form scalar (int8 resnet50's 2048 -> 1000 Gemm: 0.71 ms, a fifth of a
/// core's byte-product rate).
bool rowsFit(linalg::LinalgOp op, ArrayRef<unsigned> parallel,
             bool panels = false) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (parallel.size() < 2 || ranges[parallel.back()] < 4)
    return false;
  int64_t rows = 1;
  for (unsigned d : parallel.drop_back())
    rows *= ranges[d];
  if (rows >= dlc::kMinHostRows)
    return true;
  int64_t length = ranges[parallel.back()];
  if (!panels || rows <= 0 || length <= dlc::kMaxRegisterRow || length % 8)
    return false;
  // The row's reads run along it: a transposed B (a Gemm's [N, K] weights)
  // would be read a lane a row apart, where one output a work item reads
  // it contiguously along K (resnet50's fp32 Gemm: 0.25 -> 4.6 ms as rows).
  unsigned row = parallel.back();
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    ArrayRef<AffineExpr> results = map.getResults();
    return !map.isFunctionOfDim(row) ||
           (results.back().isFunctionOfDim(row) &&
            llvm::none_of(results.drop_back(), [&](AffineExpr e) {
              return e.isFunctionOfDim(row);
            }));
  });
}

/// Whether `op` reduces along its inputs' contiguous dim, each of its
/// inputs that reads the innermost parallel dim `row` reading it strided:
/// every input that reads `row` has a reduction dim of at least
/// kMinContiguousReduction as its last index, and every input that reads a
/// reduction dim reads `row` too (no operand is shared along the row, as a
/// MatMul's lhs is). Rows would gather (a softmax's max over a score row,
/// a LayerNorm's mean); one output a work item reads along the reduction.
bool reducesContiguously(linalg::LinalgOp op, unsigned row,
                         ArrayRef<unsigned> reduction) {
  constexpr int64_t kMinContiguousReduction = 16;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool readsRow = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    bool reads = map.isFunctionOfDim(row);
    bool reduces = llvm::any_of(
        reduction, [&](unsigned d) { return map.isFunctionOfDim(d); });
    if (reduces && !reads)
      return false;
    if (!reads)
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || !llvm::is_contained(reduction, last.getPosition()) ||
        ranges[last.getPosition()] < kMinContiguousReduction)
      return false;
    readsRow = true;
  }
  return readsRow;
}

/// Host loop order: the innermost parallel dim moves inside the reductions
/// and leaves the work item (which becomes a row), when rows are long enough
/// to vectorize and there are enough of them to keep the threads busy (or,
/// with `panels`, the row will split into panels: rowsFit), and the
/// reduction does not run along the inputs' contiguous dim.
FailureOr<linalg::LinalgOp>
rowMajorLoopOrder(RewriterBase &rewriter, linalg::LinalgOp op, bool panels) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (linalg::isParallelIterator(it) ? parallel : reduction).push_back(d);
  if (!rowsFit(op, parallel, panels && !reduction.empty()) ||
      (!reduction.empty() &&
       reducesContiguously(op, parallel.back(), reduction)))
    return op;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
    if (failed(g))
      return op;
    generic = *g;
  }
  SmallVector<unsigned> order(ArrayRef<unsigned>(parallel).drop_back());
  llvm::append_range(order, reduction);
  order.push_back(parallel.back());
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(interchanged))
    return failure();
  return cast<linalg::LinalgOp>(interchanged->getOperation());
}

/// Whether some result of `map` steps through dim `d` more than one
/// element at a time (`d * s`, s > 1).
bool readsStrided(AffineMap map, unsigned d) {
  bool strided = false;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr e) {
      auto mul = dyn_cast<AffineBinaryOpExpr>(e);
      if (!mul || mul.getKind() != AffineExprKind::Mul)
        return;
      auto dim = dyn_cast<AffineDimExpr>(mul.getLHS());
      auto scale = dyn_cast<AffineConstantExpr>(mul.getRHS());
      strided |= dim && scale && dim.getPosition() == d && scale.getValue() > 1;
    });
  return strided;
}

/// Whether `op` (parallel dims only, its inits in loop order) reads an
/// input at its own index beside one broadcast along its rows: a map of
/// dims in loop order that drops some dim (a softmax's per-row sum, a
/// per-channel bias) and reads the innermost dim, if at all, as its last
/// index (contiguous along the row). A broadcast alone (a conv's bias
/// written as its accumulator's init) keeps the element form: as rows, a
/// conv kernel would merge with an independent one (dlc-fuse-kernels'
/// trial), and resnet50's two 1x1 convs of a downsampling block ran 30%
/// slower in one kernel.
bool readsBroadcast(linalg::LinalgOp op) {
  unsigned innermost = op.getNumLoops() - 1;
  if (llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return !op.getMatchingIndexingMap(&init).isIdentity();
      }))
    return false;
  if (llvm::none_of(op.getDpsInputOperands(), [&](OpOperand *input) {
        return op.getMatchingIndexingMap(input).isIdentity();
      }))
    return false;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<unsigned> dims;
    for (AffineExpr e : map.getResults()) {
      if (isa<AffineConstantExpr>(e))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || (!dims.empty() && dim.getPosition() <= dims.back()))
        return false;
      dims.push_back(dim.getPosition());
    }
    if (dims.empty() || dims.size() == op.getNumLoops())
      return false;
    return !llvm::is_contained(dims, innermost) ||
           isa<AffineDimExpr>(map.getResults().back());
  });
}

/// Host: an op of parallel dims only that computes from its indices (a
/// padded copy: the read clamped to the input, the pad selected outside),
/// reads along its innermost dim strided (a subsampled copy), reads an
/// input broadcast along its rows (readsBroadcast), writes through a
/// shifted map or reads scalars alone (a depthwise conv's padded copy and
/// the fill before it, padSpatial's fillThenCopy), whose innermost dim is
/// long enough and whose other dims span enough rows. As one element a
/// work item, LLVM could not vectorize it (the linearized index's
/// divisions by the padded width, or by the row length for a broadcast
/// read); as rows, each work item runs the innermost dim as a loop.
bool isIndexedCopy(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 0 || op.getNumLoops() < 2)
    return false;
  unsigned innermost = op.getNumLoops() - 1;
  bool fills = llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *o) {
    return op.getMatchingIndexingMap(o).getNumResults() == 0;
  });
  if (!op.hasIndexSemantics() && !dlc::writesShifted(op) && !fills &&
      llvm::none_of(
          op.getIndexingMapsArray(),
          [&](AffineMap map) { return readsStrided(map, innermost); }) &&
      !readsBroadcast(op))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  return rowsFit(op, llvm::to_vector(llvm::seq<unsigned>(0, op.getNumLoops())));
}

/// Host: a copy that interleaves rows (dlc-convert-to-linalg
/// quad-conv-inputs' byte quadruples, x[4 c + q][p] to [c, p, q]): parallel
/// dims only, identity outputs, a short innermost dim (at most 4) that an
/// input reads in a result before its last, whose last is the dim before
/// it. A work item runs the last two dims as loops, (p, q) with q innermost,
/// which LLVM vectorizes as `q` row loads and one interleaved store; as
/// rows of q a work item was 4 bytes, as rows of p (the innermost dim moved
/// out) a loop of scalar stores 4 bytes apart (about a byte a cycle).
bool interleavesRows(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (op.getNumReductionLoops() != 0 || loops < 3)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned q = loops - 1, p = loops - 2;
  if (ranges[q] > 4 || ranges[q] < 2 || ShapedType::isDynamic(ranges[p]))
    return false;
  if (llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return !op.getMatchingIndexingMap(&init).isIdentity();
      }))
    return false;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    ArrayRef<AffineExpr> results = map.getResults();
    auto last = dyn_cast<AffineDimExpr>(results.back());
    return last && last.getPosition() == p &&
           llvm::any_of(results.drop_back(),
                        [&](AffineExpr e) { return e.isFunctionOfDim(q); });
  });
}

/// Turns `loop` (a parallel loop nested in a work item) into scf.for loops.
void sequentialize(RewriterBase &rewriter, scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  IRMapping mapping;
  for (auto [iv, lb, ub, step] :
       llvm::zip(loop.getInductionVars(), loop.getLowerBound(),
                 loop.getUpperBound(), loop.getStep())) {
    auto inner = rewriter.create<scf::ForOp>(loop.getLoc(), lb, ub, step);
    mapping.map(iv, inner.getInductionVar());
    rewriter.setInsertionPointToStart(inner.getBody());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
}
/// Whether `op` may sit between a kernel's loop nests: a constant or a view
/// of an argument (dlc-collapse-row-planes).
bool isConstantOrArgumentView(Operation &op) {
  return op.hasTrait<OpTrait::ConstantLike>() ||
         (isa<memref::CollapseShapeOp>(op) &&
          isa<BlockArgument>(op.getOperand(0)));
}

/// Host: whether the lowered ops of `body` are one work item in all, some
/// op having no parallel dims (a whole-tensor reduction, arithmetic on
/// scalars) and the others parallel loops of unit extents (a fill of one
/// element); if so, inlines those loops' bodies in place so that the whole
/// body runs as one work item, its ops one after the other. A
/// DynamicQuantizeLinear's whole-tensor min and max, its scale and zero
/// point were 8 kernels of one work item, each dispatched on its own.
bool inlineSingleWorkItems(RewriterBase &rewriter, Block &body) {
  SmallVector<scf::ParallelOp> unitLoops;
  bool withoutParallelDims = false;
  for (Operation &op : body.without_terminator()) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      std::optional<SmallVector<int64_t>> sizes = dlc::normalizedExtents(loop);
      if (!sizes || llvm::any_of(*sizes, [](int64_t n) { return n != 1; }))
        return false;
      unitLoops.push_back(loop);
      continue;
    }
    withoutParallelDims |= !isConstantOrArgumentView(op);
  }
  if (!withoutParallelDims)
    return false;
  for (scf::ParallelOp loop : unitLoops) {
    Block *inner = loop.getBody();
    rewriter.eraseOp(inner->getTerminator());
    SmallVector<Value> ivs(loop.getLowerBound());
    rewriter.inlineBlockBefore(inner, loop, ivs);
    rewriter.eraseOp(loop);
  }
  return true;
}

/// Whether some op of `func` takes the row form only as panels (rowsFit's
/// `panels`): fewer rows than kMinHostRows, a long reduced row.
bool takesPanelRows(func::FuncOp func) {
  bool panels = false;
  func.walk([&](linalg::LinalgOp op) {
    SmallVector<unsigned> parallel;
    op.getParallelDims(parallel);
    panels |= op.getNumReductionLoops() != 0 && !rowsFit(op, parallel) &&
              rowsFit(op, parallel, /*panels=*/true);
  });
  return panels;
}

FailureOr<scf::ParallelOp> lowerToLoopNest(RewriterBase &rewriter,
                                           func::FuncOp func, bool rowWorkItems,
                                           bool panels, int64_t attentionTile) {
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<dlc::AttentionKernelOp> attentions;
  func.walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
    else if (auto attention = dyn_cast<dlc::AttentionKernelOp>(op))
      attentions.push_back(attention);
  });
  if (ops.empty() && attentions.empty())
    return failure();
  // Attention lowers to its own work item loop nest (one query row each).
  // On the host, alone in its kernel (nothing to fuse a row at a time), a
  // work item takes 16 rows: a row streamed its head's whole K and V (64
  // KB for bert's 128 x 64, past L1) from L2, 16 rows take each 32 KB
  // block of them from L1 (bert_base's attention 6% faster).
  int64_t rowGroup = rowWorkItems && ops.empty() && attentions.size() == 1
                         ? kHostAttentionRowGroup
                         : 1;
  for (dlc::AttentionKernelOp op : attentions)
    if (failed(dlc::lowerAttentionToLoops(rewriter, op, rowWorkItems, rowGroup,
                                          attentionTile)))
      return failure();
  for (linalg::LinalgOp op : ops) {
    // The innermost dims a work item runs as loops: a row's (1), an
    // interleaving copy's (p, q) (2), or none.
    unsigned inner = 0;
    if (rowWorkItems && interleavesRows(op)) {
      inner = 2;
    } else if (rowWorkItems) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgOp> reordered =
          rowMajorLoopOrder(rewriter, op, panels);
      if (failed(reordered))
        return failure();
      inner = *reordered != op || isIndexedCopy(*reordered) ? 1 : 0;
      op = *reordered;
    }
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToParallelLoops(rewriter, op);
    if (failed(loops))
      return failure();
    rewriter.eraseOp(op);
    if (inner == 0 || loops->empty())
      continue;
    // The row (or the copy's dims): the innermost loops, sequential inside
    // the work item.
    auto outer = dyn_cast<scf::ParallelOp>(loops->front());
    if (!outer)
      continue;
    SmallVector<scf::ParallelOp> nested;
    outer.getBody()->walk([&](scf::ParallelOp p) { nested.push_back(p); });
    for (scf::ParallelOp p : nested)
      sequentialize(rewriter, p);
    unsigned n = outer.getNumLoops();
    if (nested.empty() && n > inner) {
      auto dims = llvm::to_vector(llvm::seq<unsigned>(0, n));
      restructure(rewriter, outer, ArrayRef<unsigned>(dims).drop_back(inner),
                  ArrayRef<unsigned>(dims).take_back(inner));
    }
  }
  Block &body = func.getBody().front();
  if (rowWorkItems && attentions.empty() &&
      inlineSingleWorkItems(rewriter, body))
    return dlc::wrapInSingleWorkItem(rewriter, func);
  // A kernel whose ops have no parallel dims is one work item.
  if (body.getOps<scf::ParallelOp>().empty()) {
    if (ops.size() + attentions.size() != 1)
      return failure();
    return dlc::wrapInSingleWorkItem(rewriter, func);
  }
  // Only constants and views of the arguments (dlc-collapse-row-planes)
  // may sit between the loop nests.
  SmallVector<scf::ParallelOp> loops;
  for (Operation &op : body.without_terminator()) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      loops.push_back(loop);
      continue;
    }
    if (!isConstantOrArgumentView(op))
      return failure();
  }
  if (loops.size() == 1)
    return loops.front();
  scf::ParallelOp fused;
  for (scf::ParallelOp loop : loops) {
    if (fused && !fuseInto(rewriter, fused, loop))
      return failure();
    fused = loop;
  }
  return fused;
}
} // namespace

FailureOr<scf::ParallelOp>
mlir::dlc::lowerKernelToLoopNest(RewriterBase &rewriter, func::FuncOp func,
                                 bool rowWorkItems, int64_t attentionTile) {
  // Rows that take work items only as panels are a trial: the kernel's
  // other ops may keep its rows from splitting (a global average pool's
  // channel row, written at a constant index), and an unsplit row is one
  // work item for all the threads.
  if (rowWorkItems && takesPanelRows(func)) {
    OpBuilder b(func);
    auto trial = cast<func::FuncOp>(b.clone(*func));
    FailureOr<scf::ParallelOp> nest = lowerToLoopNest(
        rewriter, trial, rowWorkItems, /*panels=*/true, attentionTile);
    if (succeeded(nest) && splittableRowLength(*nest)) {
      func.getBody().takeBody(trial.getBody());
      trial.erase();
      return nest;
    }
    trial.erase();
  }
  return lowerToLoopNest(rewriter, func, rowWorkItems, /*panels=*/false,
                         attentionTile);
}

void mlir::dlc::hoistPrivateAllocas(FunctionOpInterface kernel) {
  Block &entry = kernel.getFunctionBody().front();
  SmallVector<memref::AllocaOp> allocas;
  kernel->walk([&](memref::AllocaOp alloca) {
    if (alloca->getBlock() != &entry && alloca.getType().hasStaticShape() &&
        alloca->getNumOperands() == 0)
      allocas.push_back(alloca);
  });
  for (memref::AllocaOp alloca : allocas)
    alloca->moveBefore(&entry, entry.begin());
}

namespace {
/// Whether `v` is computed from `iv` (through any ops of its definition).
bool computedFrom(Value v, Value iv, DenseMap<Value, bool> &memo) {
  if (v == iv)
    return true;
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  memo[v] = false;
  bool result = false;
  if (Operation *def = v.getDefiningOp())
    result = llvm::any_of(def->getOperands(),
                          [&](Value o) { return computedFrom(o, iv, memo); });
  return memo[v] = result;
}

/// The row loop of a top-level op of a row-form work item: the loop whose
/// induction variable is the last index of every store under `op`.
struct RowLoop {
  Operation *loop = nullptr;
  Value column;
  int64_t length = 0;
};

std::optional<RowLoop> rowLoopOf(Operation &op) {
  Value column;
  bool same = true;
  op.walk([&](memref::StoreOp store) {
    Value last = store.getIndices().empty()
                     ? Value()
                     : stripIdentityApply(store.getIndices().back());
    same &= last && (!column || last == column);
    column = last;
  });
  auto arg = dyn_cast_or_null<BlockArgument>(column);
  if (!same || !arg)
    return std::nullopt;
  Operation *owner = arg.getOwner()->getParentOp();
  if (!op.isAncestor(owner))
    return std::nullopt;
  RowLoop row{owner, column, 0};
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    auto lb = getConstantIntValue(loop.getLowerBound()),
         ub = getConstantIntValue(loop.getUpperBound()),
         step = getConstantIntValue(loop.getStep());
    if (loop.getInductionVar() != column || loop.getNumRegionIterArgs() != 0 ||
        !lb || !ub || !step || *lb != 0 || *step != 1)
      return std::nullopt;
    row.length = *ub;
    return row;
  }
  if (auto loop = dyn_cast<scf::ParallelOp>(owner)) {
    std::optional<SmallVector<int64_t>> ubs = dlc::normalizedExtents(loop);
    if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0 || !ubs)
      return std::nullopt;
    row.length = ubs->front();
    return row;
  }
  return std::nullopt;
}

/// The row loops of `nest` (see splittableRowLength), one for each
/// top-level op with regions; nothing when they do not qualify.
std::optional<SmallVector<RowLoop>> splittableRows(scf::ParallelOp nest) {
  Block *body = nest.getBody();
  DenseSet<Value> written;
  bool otherEffects = false;
  body->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      written.insert(dlc::rootBuffer(store.getMemRef()));
    else if (!isa<memref::LoadOp>(op) && op->getNumRegions() == 0 &&
             !isMemoryEffectFree(op))
      otherEffects = true;
  });
  if (otherEffects)
    return std::nullopt;
  SmallVector<RowLoop> rows;
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() == 0) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (isMemoryEffectFree(&op) ||
          (load && !written.contains(dlc::rootBuffer(load.getMemRef()))))
        continue;
      return std::nullopt;
    }
    std::optional<RowLoop> row = rowLoopOf(op);
    if (!row || (!rows.empty() && row->length != rows.front().length))
      return std::nullopt;
    // A written buffer is accessed at the row's column only, in the row.
    DenseMap<Value, bool> memo;
    WalkResult walk = op.walk([&](Operation *inner) {
      std::optional<std::pair<Value, ValueRange>> access =
          dlc::memoryAccess(inner);
      if (!access || !written.contains(dlc::rootBuffer(access->first)))
        return WalkResult::advance();
      ValueRange idx = access->second;
      auto type = cast<MemRefType>(access->first.getType());
      if (!row->loop->isAncestor(inner) || idx.empty() ||
          stripIdentityApply(idx.back()) != row->column ||
          type.getShape().back() != row->length)
        return WalkResult::interrupt();
      for (Value v : idx.drop_back())
        if (computedFrom(v, row->column, memo))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return std::nullopt;
    rows.push_back(*row);
  }
  if (rows.empty())
    return std::nullopt;
  return rows;
}

/// splittableRows when they are longer than kMaxRegisterRow and some row
/// reduces (sits inside a loop of its top-level op).
std::optional<SmallVector<RowLoop>> longReducedRows(scf::ParallelOp nest) {
  std::optional<SmallVector<RowLoop>> rows = splittableRows(nest);
  if (!rows || rows->front().length <= dlc::kMaxRegisterRow ||
      llvm::none_of(*rows, [&](const RowLoop &row) {
        return row.loop->getParentOp() != nest.getOperation();
      }))
    return std::nullopt;
  return rows;
}

/// The largest multiple of 16 (of 8 failing that) that divides `length`
/// and is at most `maxPanel`; 0 when none does.
int64_t rowPanelFor(int64_t length, int64_t maxPanel) {
  for (int64_t multiple : {16, 8})
    for (int64_t panel = std::min(maxPanel, length) / multiple * multiple;
         panel >= multiple; panel -= multiple)
      if (length % panel == 0)
        return panel;
  return 0;
}
} // namespace

std::optional<int64_t> mlir::dlc::splittableRowLength(scf::ParallelOp nest) {
  std::optional<SmallVector<RowLoop>> rows = longReducedRows(nest);
  if (!rows)
    return std::nullopt;
  return rows->front().length;
}

int64_t mlir::dlc::splitRowsIntoPanels(RewriterBase &rewriter,
                                       scf::ParallelOp &nest,
                                       int64_t maxPanel) {
  std::optional<SmallVector<RowLoop>> rows = longReducedRows(nest);
  int64_t panel = rows ? rowPanelFor(rows->front().length, maxPanel) : 0;
  if (panel == 0)
    return 0;
  Location loc = nest.getLoc();
  rewriter.setInsertionPoint(nest);
  auto constant = [&](int64_t v) -> Value {
    return rewriter.create<arith::ConstantIndexOp>(loc, v);
  };
  SmallVector<Value> lbs{constant(0)},
      ubs{constant(rows->front().length / panel)}, steps{constant(1)};
  llvm::append_range(lbs, nest.getLowerBound());
  llvm::append_range(ubs, nest.getUpperBound());
  llvm::append_range(steps, nest.getStep());
  auto split = rewriter.create<scf::ParallelOp>(loc, lbs, ubs, steps);
  IRMapping mapping;
  for (auto [from, to] :
       llvm::zip(nest.getInductionVars(),
                 ValueRange(split.getInductionVars()).drop_front()))
    mapping.map(from, to);
  rewriter.setInsertionPointToStart(split.getBody());
  for (Operation &op : nest.getBody()->without_terminator())
    rewriter.clone(op, mapping);
  Value panelIndex = split.getInductionVars().front();
  for (RowLoop &row : *rows) {
    Operation *loop = mapping.lookup(row.loop);
    Value column = mapping.lookup(row.column);
    rewriter.setInsertionPoint(loop);
    Value width = constant(panel);
    if (auto forOp = dyn_cast<scf::ForOp>(loop))
      forOp.getUpperBoundMutable().assign(width);
    else
      cast<scf::ParallelOp>(loop).getUpperBoundMutable().assign(width);
    rewriter.setInsertionPointToStart(column.getParentBlock());
    Value first = rewriter.create<arith::MulIOp>(loc, panelIndex, width);
    auto global = rewriter.create<arith::AddIOp>(loc, first, column);
    rewriter.replaceUsesWithIf(column, global, [&](OpOperand &use) {
      return use.getOwner() != global.getOperation();
    });
  }
  rewriter.eraseOp(nest);
  nest = split;
  return panel;
}
