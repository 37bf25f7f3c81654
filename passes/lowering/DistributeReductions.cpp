//===- DistributeReductions.cpp - one warp per reduced row --------*- C++
//-*-===//
//
// In the one-thread-per-work-item form, a kernel reducing rows (LayerNorm,
// Softmax, ReduceMean/Sum over the last axis) runs one thread per row,
// looping over the row: neighbouring threads read addresses a row apart and
// there are only as many threads as rows. This pass rebuilds such kernels as
// CTA programs (the launch contract of dlc-tile-gemm-kernels: work items are
// CTAs of `dlc.cta_threads` threads) in which one warp owns a row: every
// phase of the row (a reduction or an elementwise pass over it) is spread
// over the 32 lanes, consecutive lanes taking consecutive vectors of the
// row, and each reduction's lane partials are combined with an xor
// butterfly (gpu.shuffle xor). With `emulate` (the host's
// --cuda-kernel-form) the same schedule is built with the lanes as loops and
// the shuffle reading a per-warp scratch array, so the distribution and the
// butterfly are checked numerically without a GPU.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_DISTRIBUTEREDUCTIONSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
constexpr int64_t kWarp = 32;

//===----------------------------------------------------------------------===//
// Matching: a work item that is a sequence of row phases
//===----------------------------------------------------------------------===//

/// An accumulator of a reduction phase: `acc[i]` (with `i` invariant in
/// the row loop) loaded once and stored once per element. Two forms are
/// known to merge lane partials:
/// - a combiner: `acc = combine(acc, x)` with `x` independent of every
///   accumulator and `combine` an arith op with a neutral element;
/// - the online softmax sum next to a running max `m` (accumulator
///   `partner`): `s = s * exp(m - m') + t` with `m' = max(m, x)`, which two
///   partials (m1, s1), (m2, s2) merge into `s1 exp(m1 - m) + s2 exp(m2 -
///   m)` with `m = max(m1, m2)`.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
  Operation *combine = nullptr; // the combiner form
  TypedAttr neutral;
  int64_t partner = -1; // the online softmax sum: the running max's index
};

/// One top-level op of the work item: straight-line code run by every lane,
/// or a loop over the row (elementwise when it has no accumulators).
struct Phase {
  Operation *op;
  scf::ForOp loop;         // null for straight-line ops
  int64_t length = 0;      // trip count of `loop`
  int64_t width = 1;       // consecutive elements per lane and step
  SmallVector<Accumulator> accs;
  bool writes = false;     // stores to memory
};

std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  if (auto apply = v.getDefiningOp<affine::AffineApplyOp>())
    if (apply.getMapOperands().empty())
      if (auto c = dyn_cast<AffineConstantExpr>(
              apply.getAffineMap().getResult(0)))
        return c.getValue();
  return std::nullopt;
}

bool sameIndex(Value a, Value b) {
  a = stripIdentityApply(a), b = stripIdentityApply(b);
  if (a == b)
    return true;
  auto ca = constantOf(a), cb = constantOf(b);
  return ca && cb && *ca == *cb;
}

/// Whether `v` depends on one of `roots` through ops of `body`.
bool dependsOn(Value v, ArrayRef<Value> roots, Block *body) {
  if (llvm::is_contained(roots, v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body)
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value o) { return dependsOn(o, roots, body); });
}
bool dependsOn(Value v, Value iv, Block *body) {
  return dependsOn(v, ArrayRef<Value>{iv}, body);
}

/// `v` defined by an `OpTy` in `body`, or null.
template <typename OpTy>
OpTy defIn(Value v, Block *body) {
  auto op = v.getDefiningOp<OpTy>();
  return op && op->getBlock() == body ? op : OpTy();
}

/// Matches the online softmax sum `s * exp(m - m') + t` of accumulator
/// `sum` against the running max accumulators of `accs`.
bool matchOnlineSum(Accumulator &sum, MutableArrayRef<Accumulator> accs,
                    Block *body) {
  auto add = defIn<arith::AddFOp>(sum.store.getValueToStore(), body);
  if (!add || !sum.store.getValueToStore().getType().isF32())
    return false;
  for (unsigned side = 0; side < 2; ++side) {
    auto scale = defIn<arith::MulFOp>(add->getOperand(side), body);
    Value t = add->getOperand(1 - side);
    if (!scale || dependsOn(t, sum.load.getResult(), body))
      continue;
    for (unsigned m = 0; m < 2; ++m) {
      if (scale->getOperand(m) != sum.load.getResult())
        continue;
      auto exp = defIn<math::ExpOp>(scale->getOperand(1 - m), body);
      auto sub = exp ? defIn<arith::SubFOp>(exp.getOperand(), body)
                     : arith::SubFOp();
      if (!sub)
        continue;
      // The exponents' base: m', or onlineSoftmaxBase's select(m' == -inf,
      // 0, m') (dlc-convert-to-linalg's Softmax).
      Value base = sub.getRhs();
      if (auto select = defIn<arith::SelectOp>(base, body))
        if (auto cmp = defIn<arith::CmpFOp>(select.getCondition(), body);
            cmp && cmp.getPredicate() == arith::CmpFPredicate::OEQ &&
            cmp.getLhs() == select.getFalseValue() &&
            matchPattern(cmp.getRhs(), m_NegInfFloat()) &&
            matchPattern(select.getTrueValue(), m_AnyZeroFloat()))
          base = select.getFalseValue();
      for (auto [i, max] : llvm::enumerate(accs))
        if (max.combine &&
            isa<arith::MaximumFOp, arith::MaxNumFOp>(max.combine) &&
            sub.getLhs() == max.load.getResult() &&
            base == max.store.getValueToStore()) {
          sum.partner = i;
          sum.neutral = FloatAttr::get(add.getType(), 0.0);
          return true;
        }
    }
  }
  return false;
}

/// Indices that either ignore `k` or read it as the last (contiguous) index
/// of an identity-layout buffer. Returns 0: k-invariant, 1: k last, -1: not
/// distributable.
int classifyAccess(Value memref, ValueRange indices, Value k, Block *body) {
  bool any = false;
  for (auto [i, index] : llvm::enumerate(indices)) {
    if (!dependsOn(index, k, body))
      continue;
    if (i + 1 != indices.size() || stripIdentityApply(index) != k)
      return -1;
    any = true;
  }
  if (!any)
    return 0;
  auto type = cast<MemRefType>(memref.getType());
  return type.getLayout().isIdentity() ? 1 : -1;
}

/// Classifies a loop over the row; failure when it is neither an
/// elementwise pass nor a reduction whose accumulators can be combined by
/// a butterfly.
/// The trip count of a row loop: `for k = 0 to length step 1` without
/// results; nullopt for any other loop.
std::optional<int64_t> rowLoopLength(scf::ForOp loop) {
  auto lb = constantOf(loop.getLowerBound()),
       ub = constantOf(loop.getUpperBound()), step = constantOf(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step != 1 ||
      loop.getNumResults() != 0)
    return std::nullopt;
  return *ub;
}

LogicalResult matchRowLoop(scf::ForOp loop, Phase &phase) {
  std::optional<int64_t> length = rowLoopLength(loop);
  if (!length)
    return failure();
  phase.length = *length;
  Block *body = loop.getBody();
  Value k = loop.getInductionVar();
  bool elementwise = false;
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() != 0)
      return failure();
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (classifyAccess(load.getMemRef(), load.getIndices(), k, body) < 0)
        return failure();
      continue;
    }
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store) {
      if (!isMemoryEffectFree(&op))
        return failure();
      continue;
    }
    phase.writes = true;
    int kind = classifyAccess(store.getMemRef(), store.getIndices(), k, body);
    if (kind < 0)
      return failure();
    if (kind == 1) {
      elementwise = true;
      continue;
    }
    Type type = store.getValueToStore().getType();
    if (!(type.isF32() || type.isInteger(32)))
      return failure();
    memref::LoadOp load;
    for (Operation &other : body->without_terminator()) {
      auto l = dyn_cast<memref::LoadOp>(other);
      if (!l || l.getMemRef() != store.getMemRef())
        continue;
      if (load || !llvm::all_of(llvm::zip(l.getIndices(), store.getIndices()),
                                [](auto p) {
                                  return sameIndex(std::get<0>(p),
                                                   std::get<1>(p));
                                }))
        return failure();
      load = l;
    }
    if (!load)
      return failure();
    Accumulator acc;
    acc.load = load;
    acc.store = store;
    phase.accs.push_back(acc);
  }
  if (elementwise && !phase.accs.empty())
    return failure();
  SmallVector<Value> accValues;
  for (Accumulator &acc : phase.accs) {
    accValues.push_back(acc.load.getResult());
    // Each accumulator buffer is touched only by its own load and store.
    for (Operation &op : body->without_terminator())
      if (&op != acc.load && &op != acc.store &&
          llvm::is_contained(op.getOperands(), acc.store.getMemRef()))
        return failure();
  }
  // The combiners first: the online sum refers to its running max.
  for (Accumulator &acc : phase.accs) {
    Operation *combine = acc.store.getValueToStore().getDefiningOp();
    if (!combine || combine->getBlock() != body ||
        combine->getNumOperands() != 2 || combine->getNumResults() != 1)
      continue;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
    Value x = combine->getOperand(0) == acc.load.getResult()
                  ? combine->getOperand(1)
                  : combine->getOperand(0);
    if (!neutral || x == acc.load.getResult() ||
        !llvm::is_contained(combine->getOperands(), acc.load.getResult()) ||
        dependsOn(x, accValues, body))
      continue;
    acc.combine = combine;
    acc.neutral = *neutral;
  }
  for (Accumulator &acc : phase.accs)
    if (!acc.combine && !matchOnlineSum(acc, phase.accs, body))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Fewer phases: rematerialized and merged elementwise passes
//===----------------------------------------------------------------------===//

/// An elementwise row loop: `for k in [0, length)` without results whose
/// body has no regions, reads anything (indexed by k last, or not at all)
/// and writes only at k.
bool isElementwiseRowLoop(scf::ForOp loop, int64_t &length) {
  std::optional<int64_t> trips = rowLoopLength(loop);
  if (!trips)
    return false;
  Block *body = loop.getBody();
  Value k = loop.getInductionVar();
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() != 0)
      return false;
    if (auto access = memoryAccess(&op)) {
      int kind = classifyAccess(access->first, access->second, k, body);
      if (kind < 0 || (isa<memref::StoreOp>(op) && kind != 1))
        return false;
    } else if (!isMemoryEffectFree(&op)) {
      return false;
    }
  }
  length = *trips;
  return length > 0;
}

/// Whether `load` (in row loop `loop`) reads the element `store` (in
/// another row loop of the same length) wrote at the same row position:
/// same buffer, the same indices but the last, which is each loop's k.
bool readsWhatStoreWrote(memref::LoadOp load, scf::ForOp loop,
                         memref::StoreOp store) {
  if (load.getMemRef() != store.getMemRef())
    return false;
  ValueRange li = load.getIndices(), si = store.getIndices();
  if (li.empty() || li.size() != si.size() ||
      stripIdentityApply(li.back()) != loop.getInductionVar() ||
      stripIdentityApply(si.back()) !=
          store->getParentOfType<scf::ForOp>().getInductionVar())
    return false;
  for (size_t i = 0; i + 1 < li.size(); ++i)
    if (!sameIndex(li[i], si[i]))
      return false;
  return true;
}

/// The ops of `loop`'s body that `v` is computed from (loads and their
/// indices included), in body order.
SmallVector<Operation *> sliceIn(scf::ForOp loop, Value v) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !slice.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Rematerializes the elementwise passes that write a kernel-local row
/// buffer (LayerNorm's centered x - mean, which its variance and its
/// normalization read): each read of it in a later row loop recomputes
/// the element from the pass's inputs instead, and the pass, then unread,
/// goes. The row is re-read from L1 rather than written and read back
/// through L2, and a phase (a lane round trip through memory) is gone.
/// Requires the inputs of the pass to be written by nobody after it.
void rematerializeLocalPasses(RewriterBase &rw, Block *item,
                              function_ref<bool(Value)> isLocal) {
  // The loop nest loads every output element, read or not.
  SmallVector<memref::LoadOp> unread;
  item->walk([&](memref::LoadOp load) {
    if (load->use_empty())
      unread.push_back(load);
  });
  for (memref::LoadOp load : unread)
    rw.eraseOp(load);
  for (Operation &op : llvm::make_early_inc_range(*item)) {
    auto pass = dyn_cast<scf::ForOp>(op);
    int64_t length;
    if (!pass || !isElementwiseRowLoop(pass, length))
      continue;
    SmallVector<memref::StoreOp> stores;
    SmallVector<Value> inputs;
    for (Operation &inner : pass.getBody()->without_terminator()) {
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        stores.push_back(store);
      else if (auto load = dyn_cast<memref::LoadOp>(inner))
        inputs.push_back(load.getMemRef());
    }
    auto laterWrites = [&](Value buffer) {
      for (Operation *it = pass->getNextNode(); it; it = it->getNextNode()) {
        bool writes = false;
        it->walk([&](memref::StoreOp s) { writes |= s.getMemRef() == buffer; });
        if (writes)
          return true;
      }
      return false;
    };
    if (llvm::any_of(inputs, laterWrites))
      continue;
    for (memref::StoreOp store : stores) {
      Value buffer = store.getMemRef();
      if (!isLocal(buffer) || llvm::is_contained(inputs, buffer))
        continue;
      // Every other use: a load at the same row position in a later row
      // loop of the same length.
      SmallVector<std::pair<memref::LoadOp, scf::ForOp>> reads;
      bool ok = true;
      for (Operation *user : buffer.getUsers()) {
        if (user == store.getOperation())
          continue;
        auto load = dyn_cast<memref::LoadOp>(user);
        auto loop = load ? load->getParentOfType<scf::ForOp>() : scf::ForOp();
        if (!loop || loop->getBlock() != item || !pass->isBeforeInBlock(loop) ||
            load->getBlock() != loop.getBody() ||
            constantOf(loop.getUpperBound()) != length ||
            !readsWhatStoreWrote(load, loop, store)) {
          ok = false;
          break;
        }
        reads.push_back({load, loop});
      }
      // (No reads at all: the store is dead.)
      if (!ok)
        continue;
      SmallVector<Operation *> slice = sliceIn(pass, store.getValueToStore());
      for (auto [load, loop] : reads) {
        IRMapping mapping;
        mapping.map(pass.getInductionVar(), loop.getInductionVar());
        rw.setInsertionPoint(load);
        for (Operation *def : slice)
          rw.clone(*def, mapping);
        rw.replaceOp(load, mapping.lookupOrDefault(store.getValueToStore()));
      }
      rw.eraseOp(store);
    }
    if (llvm::none_of(pass.getBody()->without_terminator(),
                      [](Operation &o) { return isa<memref::StoreOp>(o); }))
      rw.eraseOp(pass);
  }
}

/// Merges each elementwise pass into the one before it when they cover the
/// same row and the later reads what the earlier wrote only at its own
/// position (LayerNorm's normalization and the f16 rounding of its
/// result): the value goes through a register instead of memory.
void mergeElementwisePasses(RewriterBase &rw, Block *item) {
  for (Operation &op : llvm::make_early_inc_range(*item)) {
    auto later = dyn_cast<scf::ForOp>(op);
    int64_t length, earlierLength;
    if (!later || !isElementwiseRowLoop(later, length))
      continue;
    Operation *prev = later->getPrevNode();
    while (prev && isMemoryEffectFree(prev) && prev->getNumRegions() == 0)
      prev = prev->getPrevNode();
    auto earlier = dyn_cast_or_null<scf::ForOp>(prev);
    if (!earlier || !isElementwiseRowLoop(earlier, earlierLength) ||
        earlierLength != length)
      continue;
    DenseMap<Value, memref::StoreOp> written;
    DenseSet<Value> read;
    for (Operation &inner : earlier.getBody()->without_terminator()) {
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        written[store.getMemRef()] = store;
      else if (auto load = dyn_cast<memref::LoadOp>(inner))
        read.insert(load.getMemRef());
    }
    bool ok = true;
    SmallVector<std::pair<memref::LoadOp, memref::StoreOp>> forwarded;
    for (Operation &inner : later.getBody()->without_terminator()) {
      auto access = memoryAccess(&inner);
      if (!access)
        continue;
      Value buffer = access->first;
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        auto it = written.find(buffer);
        if (it == written.end())
          continue;
        if (!readsWhatStoreWrote(load, later, it->second)) {
          ok = false;
          break;
        }
        forwarded.push_back({load, it->second});
      } else if (read.contains(buffer) || written.contains(buffer)) {
        ok = false;
        break;
      }
    }
    if (!ok)
      continue;
    IRMapping mapping;
    mapping.map(later.getInductionVar(), earlier.getInductionVar());
    for (auto [load, store] : forwarded)
      mapping.map(load.getResult(), store.getValueToStore());
    rw.setInsertionPoint(earlier.getBody()->getTerminator());
    for (Operation &inner : later.getBody()->without_terminator()) {
      auto load = dyn_cast<memref::LoadOp>(inner);
      if (load && mapping.contains(load.getResult()))
        continue;
      rw.clone(inner, mapping);
    }
    rw.eraseOp(later);
  }
}

/// Consecutive elements each lane takes per step: 128-bit accesses for the
/// narrowest element the kernel moves, halved until the width divides the
/// row and every lane gets a vector.
int64_t widthFor(int64_t length, unsigned minBits) {
  int64_t width = 128 / std::max(8u, minBits);
  while (width > 1 && (length % width != 0 || length / width < kWarp))
    width /= 2;
  return width;
}

struct RowKernel {
  scf::ParallelOp loop;
  SmallVector<int64_t> rowShape; // the work item loop's extents
  SmallVector<Phase> phases;
  /// Loads of an accumulator after its reduction: they read the total,
  /// which every lane holds in registers (the store of the accumulator
  /// reducing it -> its loads).
  DenseMap<Operation *, Operation *> forwarded;
};

/// The lanes of a warp communicate only through registers: a phase reads
/// what an earlier one wrote either at its own elements (same row position
/// k, same distribution over the lanes) or as a reduction total (forwarded
/// from registers). Anything else (another lane's element, an accumulator
/// at another place) would need memory ordering between lanes that the
/// compiler does not see (kernel buffers are noalias), so the kernel keeps
/// its old form.
LogicalResult checkLaneDataFlow(RowKernel &row) {
  DenseMap<Value, int64_t> rowWritten; // buffer -> length of its writer
  SmallVector<Accumulator> totals;
  Block *rowBody = row.loop.getBody();
  for (Phase &phase : row.phases) {
    Value k = phase.loop ? phase.loop.getInductionVar() : Value();
    Block *body = phase.loop ? phase.loop.getBody() : rowBody;
    auto visit = [&](Operation &op) -> LogicalResult {
      auto access = memoryAccess(&op);
      if (!access)
        return success();
      Value memref = access->first;
      ValueRange indices = access->second;
      bool usesK = k && llvm::any_of(indices, [&](Value index) {
                     return dependsOn(index, k, body);
                   });
      if (auto it = rowWritten.find(memref); it != rowWritten.end())
        if (!usesK || it->second != phase.length)
          return failure();
      for (Accumulator &total : totals) {
        if (total.store.getMemRef() != memref)
          continue;
        auto load = dyn_cast<memref::LoadOp>(op);
        if (!load || usesK ||
            !llvm::all_of(llvm::zip(load.getIndices(),
                                    total.store.getIndices()),
                          [](auto p) {
                            return sameIndex(std::get<0>(p), std::get<1>(p));
                          }))
          return failure();
        row.forwarded[load] = total.store;
      }
      if (isa<memref::StoreOp>(op) && usesK)
        rowWritten[memref] = phase.length;
      return success();
    };
    if (!phase.loop) {
      if (failed(visit(*phase.op)))
        return failure();
      continue;
    }
    for (Operation &op : body->without_terminator()) {
      bool isAcc = llvm::any_of(phase.accs, [&](Accumulator &acc) {
        return &op == acc.load || &op == acc.store;
      });
      if (!isAcc && failed(visit(op)))
        return failure();
    }
    for (Accumulator &acc : phase.accs) {
      if (rowWritten.count(acc.store.getMemRef()) ||
          llvm::any_of(totals, [&](Accumulator &t) {
            return t.store.getMemRef() == acc.store.getMemRef();
          }))
        return failure();
      totals.push_back(acc);
    }
  }
  return success();
}

FailureOr<RowKernel> matchRowKernel(scf::ParallelOp loop,
                                    int64_t minRowLength) {
  RowKernel row;
  row.loop = loop;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = constantOf(lb), u = constantOf(ub), s = constantOf(step);
    if (!l || !u || !s || *l != 0 || *s != 1)
      return failure();
    row.rowShape.push_back(*u);
  }
  bool longReduction = false;
  unsigned minBits = 32;
  loop.getBody()->walk([&](Operation *op) {
    Type t;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      t = load.getType();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      t = store.getValueToStore().getType();
    if (t && t.isIntOrFloat())
      minBits = std::min(minBits, t.getIntOrFloatBitWidth());
  });
  for (Operation &op : loop.getBody()->without_terminator()) {
    Phase phase{&op, {}};
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      phase.loop = forOp;
      if (failed(matchRowLoop(forOp, phase)))
        return failure();
      phase.width = widthFor(phase.length, minBits);
      longReduction |= !phase.accs.empty() && phase.length >= minRowLength;
    } else if (op.getNumRegions() != 0) {
      return failure();
    } else if (isa<memref::StoreOp>(op)) {
      // Fills and initializers (a GEMV's bias): straight-line code, which
      // every lane runs on the same values (the row loops yield nothing),
      // so every lane stores the same value.
      phase.writes = true;
    } else if (!isa<memref::LoadOp>(op) && !isMemoryEffectFree(&op)) {
      return failure();
    }
    row.phases.push_back(phase);
  }
  if (!longReduction || failed(checkLaneDataFlow(row)))
    return failure();
  return row;
}

//===----------------------------------------------------------------------===//
// Building the warp program
//===----------------------------------------------------------------------===//

class WarpBuilder {
public:
  WarpBuilder(RewriterBase &rw, RowKernel &row, int64_t warps, bool emulate)
      : rw(rw), row(row), warps(warps), emulate(emulate),
        loc(row.loop.getLoc()) {}

  /// Replaces the work item loop with the CTA program; returns the CTA
  /// count.
  int64_t build();

private:
  RewriterBase &rw;
  RowKernel &row;
  int64_t warps;
  bool emulate;
  Location loc;
  Value gpuLane; // the GPU program's lane id
  IRMapping rowMapping; // the old work item's values -> this row's

  Value c(int64_t v) { return rw.create<arith::ConstantIndexOp>(loc, v); }
  Value add(Value a, Value b) { return rw.create<arith::AddIOp>(loc, a, b); }
  Value mul(Value a, int64_t b) { return rw.create<arith::MulIOp>(loc, a, c(b)); }

  /// Runs `body(lane)` for every lane of the warp: on the GPU for this lane
  /// only; in the emulation, for the 32 lanes in turn.
  void forEachLane(function_ref<void(Value)> body) {
    if (!emulate)
      return body(gpuLane);
    auto loop = rw.create<scf::ForOp>(loc, c(0), c(kWarp), c(1));
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  }

  /// Orders the warp's memory accesses between phases (__syncwarp); the
  /// emulation runs phases one after the other.
  void syncWarp() {
    if (!emulate)
      rw.create<NVVM::SyncWarpOp>(
          loc, rw.create<arith::ConstantIntOp>(loc, -1, 32));
  }

  /// The lane's share of a row loop of `phase`: chunks of `width` elements,
  /// chunk j for lane j mod 32, carrying `inits` through `body(k, acc)`.
  SmallVector<Value>
  laneLoop(Value lane, Phase &phase, ValueRange inits,
           function_ref<SmallVector<Value>(Value, ValueRange)> body);

  DenseMap<Operation *, Value> totals; // accumulator store -> its total

  /// Clones `op`, or maps a load of a reduced accumulator to its total.
  void cloneOp(Operation &op, IRMapping &mapping) {
    if (auto it = row.forwarded.find(&op); it != row.forwarded.end()) {
      mapping.map(op.getResult(0), totals.lookup(it->second));
      return;
    }
    rw.clone(op, mapping);
  }
  void cloneStraight(Operation *op) { cloneOp(*op, rowMapping); }
  void buildMap(Phase &phase);
  void buildReduce(Phase &phase);
  Value merge(Phase &phase, unsigned i, ValueRange a, ValueRange b);
  void buildRow(Value rowId);
};

SmallVector<Value> WarpBuilder::laneLoop(
    Value lane, Phase &phase, ValueRange inits,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  int64_t width = phase.width;
  auto yieldInto = [&](scf::ForOp loop, function_ref<SmallVector<Value>()> fn) {
    OpBuilder::InsertionGuard guard(rw);
    if (!loop.getBody()->empty())
      rw.eraseOp(loop.getBody()->getTerminator());
    rw.setInsertionPointToEnd(loop.getBody());
    SmallVector<Value> results = fn();
    rw.create<scf::YieldOp>(loc, results);
  };
  // One chunk of `width` elements from `iters`: the body per element.
  auto chunkStep = [&](Value chunk, ValueRange iters) -> SmallVector<Value> {
    if (width == 1)
      return body(chunk, iters);
    Value base = mul(chunk, width);
    auto inner = rw.create<scf::ForOp>(loc, c(0), c(width), c(1), iters);
    yieldInto(inner, [&] {
      return body(add(base, inner.getInductionVar()),
                  inner.getRegionIterArgs());
    });
    return SmallVector<Value>(inner.getResults());
  };
  // The lane's chunks lane, lane + 32, ...: with a whole number of them
  // per lane (up to 8), written out one after the other, so that the
  // row's loads are all in flight at once instead of one per loop
  // iteration (a loop from the lane id has no trip count LLVM knows, and
  // it leaves longer constant ones rolled).
  int64_t chunks = phase.length / width;
  if (chunks % kWarp == 0 && chunks / kWarp <= 8) {
    SmallVector<Value> iters(inits);
    for (int64_t j = 0; j < chunks / kWarp; ++j)
      iters = chunkStep(add(lane, c(j * kWarp)), iters);
    return iters;
  }
  auto outer = rw.create<scf::ForOp>(loc, lane, c(chunks), c(kWarp), inits);
  yieldInto(outer, [&]() -> SmallVector<Value> {
    return chunkStep(outer.getInductionVar(), outer.getRegionIterArgs());
  });
  return SmallVector<Value>(outer.getResults());
}

void WarpBuilder::buildMap(Phase &phase) {
  forEachLane([&](Value lane) {
    laneLoop(lane, phase, {}, [&](Value k, ValueRange) {
      IRMapping mapping = rowMapping;
      mapping.map(phase.loop.getInductionVar(), k);
      for (Operation &op : phase.loop.getBody()->without_terminator())
        cloneOp(op, mapping);
      return SmallVector<Value>{};
    });
  });
}

/// Accumulator `i` of two partial states `a` and `b` merged.
Value WarpBuilder::merge(Phase &phase, unsigned i, ValueRange a, ValueRange b) {
  Accumulator &acc = phase.accs[i];
  if (acc.combine) {
    IRMapping mapping;
    for (Value operand : acc.combine->getOperands())
      mapping.map(operand, operand == acc.load.getResult() ? a[i] : b[i]);
    return rw.clone(*acc.combine, mapping)->getResult(0);
  }
  // s1 exp(m1 - m) + s2 exp(m2 - m), m = max(m1, m2); exponents relative
  // to 0 where m is -inf (both states saw only -inf: exp(-inf - -inf) is
  // NaN).
  unsigned p = acc.partner;
  Value m = merge(phase, p, a, b);
  Value base = dlc::onlineSoftmaxBase(rw, loc, m);
  auto scaled = [&](Value s, Value mi) {
    Value e =
        rw.create<math::ExpOp>(loc, rw.create<arith::SubFOp>(loc, mi, base));
    return rw.create<arith::MulFOp>(loc, s, e);
  };
  return rw.create<arith::AddFOp>(loc, scaled(a[i], a[p]), scaled(b[i], b[p]));
}

void WarpBuilder::buildReduce(Phase &phase) {
  Block *body = phase.loop.getBody();
  llvm::SmallPtrSet<Operation *, 8> skip;
  SmallVector<Value> neutral;
  for (Accumulator &acc : phase.accs) {
    skip.insert(acc.load);
    skip.insert(acc.store);
    neutral.push_back(rw.create<arith::ConstantOp>(loc, acc.neutral));
  }
  unsigned n = phase.accs.size();
  // A lane's partial: the row loop's body on the lane's elements, the
  // accumulators carried from the neutral elements.
  auto partial = [&](Value lane) {
    return laneLoop(lane, phase, neutral, [&](Value k, ValueRange accs) {
      IRMapping mapping = rowMapping;
      mapping.map(phase.loop.getInductionVar(), k);
      for (auto [acc, value] : llvm::zip(phase.accs, accs))
        mapping.map(acc.load.getResult(), value);
      for (Operation &op : body->without_terminator())
        if (!skip.contains(&op))
          cloneOp(op, mapping);
      SmallVector<Value> next;
      for (Accumulator &acc : phase.accs)
        next.push_back(mapping.lookupOrDefault(acc.store.getValueToStore()));
      return next;
    });
  };
  // The accumulators' places, computed outside the row loop, and their
  // values before the reduction (what the fills stored; every lane reads
  // its own store, before any lane writes a total).
  IRMapping placeMapping = rowMapping;
  placeMapping.map(phase.loop.getInductionVar(), c(0));
  SmallVector<Operation *> slice;
  std::function<void(Value)> collect = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || llvm::is_contained(slice, def))
      return;
    for (Value o : def->getOperands())
      collect(o);
    slice.push_back(def);
  };
  for (Accumulator &acc : phase.accs) {
    for (Value index : acc.store.getIndices())
      collect(index);
    for (Value index : acc.load.getIndices())
      collect(index);
  }
  for (Operation *op : slice)
    rw.clone(*op, placeMapping);
  SmallVector<Value> old;
  for (Accumulator &acc : phase.accs)
    old.push_back(rw.clone(*acc.load, placeMapping)->getResult(0));
  // Every lane merges the total into the old value (later phases read it
  // from registers); one writes it.
  auto mergeTotals = [&](ValueRange total) {
    SmallVector<Value> results;
    for (unsigned i = 0; i < n; ++i)
      results.push_back(merge(phase, i, old, total));
    for (auto [acc, result] : llvm::zip(phase.accs, results))
      totals[acc.store] = result;
    return results;
  };
  auto storeTotals = [&](ValueRange results) {
    for (auto [acc, result] : llvm::zip(phase.accs, results)) {
      IRMapping storeMapping = placeMapping;
      storeMapping.map(acc.store.getValueToStore(), result);
      rw.clone(*acc.store, storeMapping);
    }
  };

  if (!emulate) {
    SmallVector<Value> p = partial(gpuLane);
    // Butterfly: after the step of `offset`, every lane holds the merge of
    // the 64 / offset lanes its index agrees with above `offset`; after 1,
    // of all 32, in every lane (the merges are symmetric, so all lanes
    // agree bitwise).
    for (int64_t offset = kWarp / 2; offset >= 1; offset /= 2) {
      SmallVector<Value> q;
      for (Value v : p)
        q.push_back(rw.create<gpu::ShuffleOp>(
                          loc, v, rw.create<arith::ConstantIntOp>(loc, offset, 32),
                          rw.create<arith::ConstantIntOp>(loc, kWarp, 32),
                          gpu::ShuffleMode::XOR)
                        .getShuffleResult());
      SmallVector<Value> merged;
      for (unsigned i = 0; i < n; ++i)
        merged.push_back(merge(phase, i, p, q));
      p = merged;
    }
    SmallVector<Value> results = mergeTotals(p);
    Value first = rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           gpuLane, c(0));
    auto ifOp = rw.create<scf::IfOp>(loc, first, false);
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    storeTotals(results);
    return;
  }

  // Emulation: lane registers in a scratch array per accumulator; the
  // shuffle reads lane ^ offset's slot as shfl.sync.bfly defines it.
  SmallVector<Value> regs, next;
  for (Accumulator &acc : phase.accs) {
    auto type = MemRefType::get({kWarp}, acc.neutral.getType());
    regs.push_back(rw.create<memref::AllocaOp>(loc, type));
    next.push_back(rw.create<memref::AllocaOp>(loc, type));
  }
  forEachLane([&](Value lane) {
    SmallVector<Value> p = partial(lane);
    for (auto [reg, value] : llvm::zip(regs, p))
      rw.create<memref::StoreOp>(loc, value, reg, lane);
  });
  for (int64_t offset = kWarp / 2; offset >= 1; offset /= 2) {
    forEachLane([&](Value lane) {
      Value other = rw.create<arith::XOrIOp>(loc, lane, c(offset));
      SmallVector<Value> mine, theirs;
      for (Value reg : regs) {
        mine.push_back(rw.create<memref::LoadOp>(loc, reg, lane));
        theirs.push_back(rw.create<memref::LoadOp>(loc, reg, other));
      }
      for (unsigned i = 0; i < n; ++i)
        rw.create<memref::StoreOp>(loc, merge(phase, i, mine, theirs), next[i],
                                   lane);
    });
    forEachLane([&](Value lane) {
      for (auto [reg, nxt] : llvm::zip(regs, next))
        rw.create<memref::StoreOp>(
            loc, rw.create<memref::LoadOp>(loc, nxt, lane), reg, lane);
    });
  }
  SmallVector<Value> total;
  for (Value reg : regs)
    total.push_back(rw.create<memref::LoadOp>(loc, reg, c(0)));
  storeTotals(mergeTotals(total));
}

void WarpBuilder::buildRow(Value rowId) {
  // The work item's induction variables from the row number.
  Value rest = rowId;
  for (int64_t d = row.rowShape.size() - 1; d >= 0; --d) {
    Value iv = d == 0 ? rest
                      : rw.create<arith::RemUIOp>(loc, rest, c(row.rowShape[d]))
                            .getResult();
    rowMapping.map(row.loop.getInductionVars()[d], iv);
    if (d > 0)
      rest = rw.create<arith::DivUIOp>(loc, rest, c(row.rowShape[d]));
  }
  for (Phase &phase : row.phases) {
    if (!phase.loop)
      cloneStraight(phase.op);
    else if (phase.accs.empty())
      buildMap(phase);
    else
      buildReduce(phase);
    if (phase.writes)
      syncWarp();
  }
}

int64_t WarpBuilder::build() {
  int64_t rows = 1;
  for (int64_t n : row.rowShape)
    rows *= n;
  int64_t ctas = (rows + warps - 1) / warps;
  rw.setInsertionPoint(row.loop);
  auto par = rw.create<scf::ParallelOp>(loc, ValueRange{c(0)},
                                        ValueRange{c(ctas)}, ValueRange{c(1)});
  rw.setInsertionPoint(par.getBody()->getTerminator());
  Value cta = par.getInductionVars()[0];
  auto forRow = [&](Value warp) {
    Value rowId = add(mul(cta, warps), warp);
    if (rows % warps == 0)
      return buildRow(rowId);
    Value inRange = rw.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                             rowId, c(rows));
    auto ifOp = rw.create<scf::IfOp>(loc, inRange, false);
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    buildRow(rowId);
  };
  if (emulate) {
    auto loop = rw.create<scf::ForOp>(loc, c(0), c(warps), c(1));
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    forRow(loop.getInductionVar());
  } else {
    Value tid = rw.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    gpuLane = rw.create<arith::RemUIOp>(loc, tid, c(kWarp));
    forRow(rw.create<arith::DivUIOp>(loc, tid, c(kWarp)));
  }
  rw.eraseOp(row.loop);
  return ctas;
}

struct DistributeReductionsPass
    : dlc::impl::DistributeReductionsPassBase<DistributeReductionsPass> {
  using DistributeReductionsPassBase::DistributeReductionsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (warpsPerCta < 1 || warpsPerCta > 32) {
      module.emitError("warps-per-cta must be in [1, 32]");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    KernelCalls calls(module);
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attrs::kKernel) && !func->hasAttr(attrs::kCtaThreads))
        kernels.push_back(func);
    for (func::FuncOp func : kernels) {
      // Lower a detached copy to its work item loop nest; keep the kernel
      // as it is unless that is a sequence of row phases.
      auto trial = cast<func::FuncOp>(func->clone());
      FailureOr<scf::ParallelOp> loop =
          lowerKernelToLoopNest(rewriter, trial, /*rowWorkItems=*/false);
      if (succeeded(loop)) {
        SmallVector<func::CallOp> funcCalls = calls.of(func);
        // The argument itself, not a view: every access to it is then a
        // use of it that rematerializeLocalPasses sees.
        auto isLocal = [&](Value buffer) {
          auto arg = dyn_cast<BlockArgument>(buffer);
          return arg && arg.getOwner()->isEntryBlock() &&
                 arg.getOwner()->getParentOp() == trial.getOperation() &&
                 isCallLocalArgument(funcCalls, arg.getArgNumber());
        };
        rematerializeLocalPasses(rewriter, loop->getBody(), isLocal);
        mergeElementwisePasses(rewriter, loop->getBody());
      }
      FailureOr<RowKernel> row = failed(loop)
                                     ? FailureOr<RowKernel>(failure())
                                     : matchRowKernel(*loop, minRowLength);
      if (failed(row)) {
        trial.erase();
        continue;
      }
      WarpBuilder builder(rewriter, *row, warpsPerCta, emulate);
      int64_t ctas = builder.build();
      func.getBody().takeBody(trial.getBody());
      trial.erase();
      Builder b(&getContext());
      func->setAttr(attrs::kWorkItems, b.getI64IntegerAttr(ctas));
      func->setAttr(attrs::kCtaThreads,
                    b.getI64IntegerAttr(warpsPerCta * kWarp));
    }
  }
};
} // namespace
