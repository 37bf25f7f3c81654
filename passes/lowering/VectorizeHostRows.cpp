//===- VectorizeHostRows.cpp - host rows reduce in vector registers -------===//
//
// A host work item is a row (`dlc-linearize-kernels`, `row-work-items`):
// its reduction loops hold the row loop, which reads and writes the row's
// accumulators in memory on every reduction step. This pass gives the row
// loop's lanes to vector registers instead: the row is cut in tiles of
// `lanes` elements, each tile's accumulators become vector iter_args of
// the (cloned) reduction loops, and the row body runs on vectors, loaded
// once a tile at the start and stored once at the end.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "dialects/dlc/DlcDialect.h"

#include "llvm/ADT/bit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>

namespace mlir::dlc {
#define GEN_PASS_DEF_VECTORIZEHOSTROWSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Whether `v` is defined outside `op`.
bool definedOutside(Value v, Operation *op) {
  Region *region = v.getParentRegion();
  return !op->isAncestor(region->getParentOp());
}

/// One accumulator of a row: the buffer the row body loads and stores at
/// the same indices, the last of which is the row's induction variable.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// A row loop that can run on vectors: the reduction loops around it
/// (outermost first) and its accumulators.
struct RowNest {
  scf::ParallelOp row;
  SmallVector<scf::ForOp> loops;
  SmallVector<Accumulator> accumulators;
  int64_t length = 0;
  /// A 2-D row's first variable (`dlc-linearize-kernels` `row-block`): the
  /// body runs once for each of its `copies` values, unrolled.
  Value copy;
  int64_t copies = 1;
  /// The row's lane variable.
  Value lane() { return row.getInductionVars().back(); }
};

/// Whether `v` is known before the reduction loops for a given value of
/// the row's copy variable: defined outside them, the copy variable, or a
/// side-effect-free op of the row body over such values.
bool knownBeforeLoops(Value v, RowNest &nest) {
  if (v == nest.copy || definedOutside(v, nest.loops.front()))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != nest.row.getBody() ||
      !isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value o) { return knownBeforeLoops(o, nest); });
}

/// Whether `v` is the row's lane variable plus values known before the
/// loops (a panel's first column, `dlc-linearize-kernels` `row-panel`).
bool isColumn(Value v, RowNest &nest) {
  if (v == nest.lane())
    return true;
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add || add->getBlock() != nest.row.getBody())
    return false;
  return (isColumn(add.getLhs(), nest) &&
          knownBeforeLoops(add.getRhs(), nest)) ||
         (isColumn(add.getRhs(), nest) && knownBeforeLoops(add.getLhs(), nest));
}

bool isScalar(Type t) { return t.isIntOrIndexOrFloat(); }

/// Ops in a reduction loop's body besides the next loop: side-effect free
/// ops on scalars, cloned with the loop.
bool isClonable(Operation &op) {
  return op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
         llvm::all_of(op.getResultTypes(), isScalar);
}

/// The strided-affine form of every lane-varying index value in the row
/// body, derived from the row's induction variable through adds, subtracts
/// and multiplications by constants. Values that vary otherwise are absent.
class RowAnalysis {
public:
  /// Fills `varying` and `affineStride`; failure when some op of the body
  /// cannot run on vectors.
  LogicalResult run(RowNest &nest);

  bool isVarying(Value v) const { return varying.contains(v); }
  std::optional<int64_t> strideOf(Value v) const {
    auto it = affineStride.find(v);
    if (it == affineStride.end())
      return std::nullopt;
    return it->second;
  }

private:
  DenseSet<Value> varying;
  DenseMap<Value, int64_t> affineStride;
};

std::optional<int64_t> constantIndex(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

LogicalResult RowAnalysis::run(RowNest &nest) {
  Value iv = nest.lane();
  varying.insert(iv);
  affineStride[iv] = 1;
  scf::ForOp outer = nest.loops.front();
  for (Operation &op : nest.row.getBody()->without_terminator()) {
    bool anyVarying = llvm::any_of(
        op.getOperands(), [&](Value v) { return varying.contains(v); });
    if (op.getNumRegions() != 0 || !llvm::all_of(op.getResultTypes(), isScalar))
      return failure();
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      // Only accumulators are stored: their load, at the same indices, the
      // row's column last (its induction variable, or a panel's first
      // column plus it) and the rest the same throughout the reduction
      // loops.
      ValueRange idx = store.getIndices();
      if (idx.empty() || !isColumn(idx.back(), nest) ||
          !store.getMemRefType().getLayout().isIdentity() ||
          llvm::any_of(idx.drop_back(),
                       [&](Value v) { return !knownBeforeLoops(v, nest); }))
        return failure();
      memref::LoadOp load;
      for (Operation *user : store.getMemRef().getUsers()) {
        if (!outer->isAncestor(user))
          continue;
        auto l = dyn_cast<memref::LoadOp>(user);
        if (user == store.getOperation())
          continue;
        if (!l || load || l->getBlock() != store->getBlock() ||
            !l->isBeforeInBlock(store) || l.getIndices() != idx)
          return failure();
        load = l;
      }
      if (!load)
        return failure();
      nest.accumulators.push_back({load, store});
      continue;
    }
    if (isa<memref::LoadOp>(op)) {
      if (anyVarying)
        varying.insert(op.getResult(0));
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return failure();
    if (!anyVarying)
      continue;
    if (!op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1)
      return failure();
    Value result = op.getResult(0);
    varying.insert(result);
    // Index arithmetic that keeps lanes evenly spaced.
    auto strideOrZero = [&](Value v) -> std::optional<int64_t> {
      if (!varying.contains(v))
        return 0;
      return strideOf(v);
    };
    if (isa<arith::AddIOp, arith::SubIOp>(op)) {
      auto a = strideOrZero(op.getOperand(0)),
           b = strideOrZero(op.getOperand(1));
      if (a && b)
        affineStride[result] = isa<arith::AddIOp>(op) ? *a + *b : *a - *b;
    } else if (isa<arith::MulIOp>(op)) {
      for (int i = 0; i < 2; ++i) {
        auto s = strideOf(op.getOperand(i));
        auto c = constantIndex(op.getOperand(1 - i));
        if (s && c)
          affineStride[result] = *s * *c;
      }
    }
  }
  // Every accumulator's load must be the only read of its buffer in the
  // nest, and no other buffer may be written there.
  DenseSet<Value> accBuffers;
  for (Accumulator &acc : nest.accumulators)
    accBuffers.insert(acc.store.getMemRef());
  bool ok = !nest.accumulators.empty();
  outer->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      // A varying load must read lanes evenly spaced along its last index,
      // the other indices the same for all lanes.
      if (accBuffers.contains(load.getMemRef()) ||
          !varying.contains(load.getResult()))
        return;
      // (Not of i1: a vector of i1 is bits in memory, a byte an element in
      // the buffer.)
      ValueRange idx = load.getIndices();
      if (!hasContiguousRows(load.getMemRefType()) ||
          load.getType().isInteger(1) ||
          llvm::any_of(idx.drop_back(),
                       [&](Value v) { return varying.contains(v); }))
        ok = false;
      std::optional<int64_t> s = strideOf(idx.back());
      if (!s || *s < 1 || *s > 4)
        ok = false;
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op))
      ok &= accBuffers.contains(store.getMemRef());
  });
  return success(ok);
}

/// Finds the row loops of host kernels that qualify.
std::optional<RowNest> matchRow(scf::ParallelOp row) {
  unsigned dims = row.getNumLoops();
  std::optional<SmallVector<int64_t>> ubs = normalizedExtents(row);
  if (dims > 2 || !ubs || ubs->back() < 2 || ubs->back() > kMaxRegisterRow ||
      (dims == 2 && ((*ubs)[0] < 1 || (*ubs)[0] > kMaxRowCopies)))
    return std::nullopt;
  RowNest nest;
  nest.row = row;
  nest.length = ubs->back();
  if (dims == 2) {
    nest.copy = row.getInductionVars()[0];
    nest.copies = (*ubs)[0];
  }
  // The perfect reduction nest around the row, and what else its bodies
  // hold: scalar ops without effects.
  Operation *inner = row;
  while (auto loop = dyn_cast<scf::ForOp>(inner->getParentOp())) {
    if (loop.getNumRegionIterArgs() != 0)
      break;
    bool perfect = true;
    for (Operation &op : loop.getBody()->without_terminator())
      perfect &= &op == inner || isClonable(op);
    if (!perfect)
      break;
    nest.loops.insert(nest.loops.begin(), loop);
    inner = loop;
  }
  if (nest.loops.empty())
    return std::nullopt;
  if (!isa<scf::ReduceOp>(row.getBody()->getTerminator()) ||
      row.getBody()->getTerminator()->getNumOperands() != 0)
    return std::nullopt;
  return nest;
}

/// A work item's pass over its row's elements beside the reduction nest
/// (the accumulators' fill before it, their epilogue after it): for each
/// of the row's copies, a loop over every column of the row.
struct RowLoops {
  /// The outermost loop (the copies', or the columns').
  scf::ForOp root;
  scf::ForOp columns;
  Value copyIv, columnIv;
};

/// The constant-bounds loop `op` is, from 0 by 1 to `extent`, without
/// iter_args; null otherwise.
scf::ForOp countedLoop(Operation *op, int64_t extent) {
  auto loop = dyn_cast_or_null<scf::ForOp>(op);
  if (!loop || loop.getNumRegionIterArgs() != 0)
    return nullptr;
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *ub != extent || *step != 1)
    return nullptr;
  return loop;
}

/// `op` as a pass over the row's elements: a loop over the copies whose
/// body holds side-effect-free scalar ops and the columns' loop (a 2-D
/// row), or the columns' loop.
std::optional<RowLoops> matchRowLoops(Operation *op, RowNest &nest) {
  RowLoops loops;
  if (nest.copy) {
    scf::ForOp copies = countedLoop(op, nest.copies);
    if (!copies)
      return std::nullopt;
    loops.copyIv = copies.getInductionVar();
    for (Operation &inner : copies.getBody()->without_terminator()) {
      if (isa<scf::ForOp>(inner) && !loops.columns)
        loops.columns = countedLoop(&inner, nest.length);
      else if (!isClonable(inner))
        return std::nullopt;
    }
    loops.root = copies;
  } else {
    loops.columns = countedLoop(op, nest.length);
    loops.root = loops.columns;
  }
  if (!loops.columns)
    return std::nullopt;
  loops.columnIv = loops.columns.getInductionVar();
  return loops;
}

/// Whether `a` (of `loops`) and `b` (of the row body) compute the same
/// index, the loops' copy and column variables standing for the row's.
bool sameIndex(Value a, Value b, RowLoops &loops, RowNest &nest) {
  if (a == loops.copyIv)
    return b == nest.copy;
  if (a == loops.columnIv)
    return b == nest.lane();
  if (a == b)
    return !loops.root->isAncestor(a.getParentRegion()->getParentOp());
  auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
  if (!ra || !rb || ra.getResultNumber() != rb.getResultNumber())
    return false;
  Operation *da = ra.getOwner(), *db = rb.getOwner();
  if (da->getName() != db->getName() ||
      da->getAttrDictionary() != db->getAttrDictionary() ||
      da->getNumOperands() != db->getNumOperands() || !isMemoryEffectFree(da) ||
      da->getNumRegions() != 0)
    return false;
  return llvm::all_of(
      llvm::zip(da->getOperands(), db->getOperands()), [&](auto pair) {
        return sameIndex(std::get<0>(pair), std::get<1>(pair), loops, nest);
      });
}

/// Whether every index of `a` (of `loops`) is the same as `b`'s.
bool sameIndices(ValueRange a, ValueRange b, RowLoops &loops, RowNest &nest) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [&](auto pair) {
           return sameIndex(std::get<0>(pair), std::get<1>(pair), loops, nest);
         });
}

/// The fill of a row's accumulator that the work item runs just before the
/// row's reduction nest: for each of the row's copies and every column of
/// the row, one store of a value the column does not change (a conv's
/// bias). The tiles then start from that value in registers instead of
/// loading what the fill stored, and the fill goes: two of the five memory
/// accesses an output of a short-K conv (mobilenet_v2's 16-channel expand
/// convs were memory-bound on them).
struct RowFill : RowLoops {
  memref::StoreOp store;
  /// The row body's load of the accumulator it fills.
  memref::LoadOp accumulator;
};

/// Whether the fill's stored value `v` is computed before the columns'
/// loop would need it per column: from the copy variable, values outside
/// the fill, side-effect-free ops and loads of buffers other than `acc`.
bool uniformAlongRow(Value v, RowFill &fill, Value accRoot) {
  if (v == fill.columnIv)
    return false;
  if (v == fill.copyIv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !fill.root->isAncestor(def))
    return !fill.root->isAncestor(v.getParentRegion()->getParentOp());
  if (auto load = dyn_cast<memref::LoadOp>(def)) {
    if (dlc::rootBuffer(load.getMemRef()) == accRoot)
      return false;
  } else if (!isMemoryEffectFree(def) || def->getNumRegions() != 0) {
    return false;
  }
  return llvm::all_of(def->getOperands(), [&](Value o) {
    return uniformAlongRow(o, fill, accRoot);
  });
}

/// The pass over the row's elements just before (or `after`) the row's
/// reduction nest, constants between them aside.
std::optional<RowLoops> rowLoopsBeside(RowNest &nest, bool after) {
  Operation *outer = nest.loops.front();
  Operation *op = after ? outer->getNextNode() : outer->getPrevNode();
  while (op && op->hasTrait<OpTrait::ConstantLike>())
    op = after ? op->getNextNode() : op->getPrevNode();
  return matchRowLoops(op, nest);
}

/// The fill of `acc` just before the row's reduction nest (constants
/// between them aside), when it writes exactly the accumulator's elements
/// of the work item: every copy, every column, nothing else.
std::optional<RowFill> matchFill(RowNest &nest, Accumulator &acc) {
  std::optional<RowLoops> loops = rowLoopsBeside(nest, /*after=*/false);
  if (!loops)
    return std::nullopt;
  RowFill fill{*loops};
  fill.accumulator = acc.load;
  for (Operation &op : fill.columns.getBody()->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (fill.store)
        return std::nullopt;
      fill.store = store;
    } else if (!isa<memref::LoadOp>(op) &&
               (!isMemoryEffectFree(&op) || op.getNumRegions() != 0)) {
      return std::nullopt;
    }
  }
  if (!fill.store || fill.store.getMemRef() != acc.load.getMemRef() ||
      !uniformAlongRow(fill.store.getValueToStore(), fill,
                       dlc::rootBuffer(acc.load.getMemRef())) ||
      !sameIndices(fill.store.getIndices(), acc.load.getIndices(), fill, nest))
    return std::nullopt;
  return fill;
}

/// The epilogue of a row's accumulators that the work item runs just after
/// the row's reduction nest: for each copy and every column, elementwise
/// ops on the accumulators' elements and others read along the row (a
/// residual, an activation, a requantization) whose results it stores along
/// the row. The tiles run it on their registers as they finish: the loads
/// of the accumulators go, and so do their stores where nothing else reads
/// them (then the buffer, which the work item wrote and read back an
/// element at a time: mobilenet_v2's 112x112 expand conv stored and
/// reloaded 4.8 MB for 39 MFLOP).
struct RowEpilogue : RowLoops {
  explicit RowEpilogue(const RowLoops &loops) : RowLoops(loops) {}
  /// The epilogue's loads of accumulators, and which accumulator each
  /// reads.
  DenseMap<Operation *, unsigned> accumulatorLoads;
  /// The values that vary along the row.
  DenseSet<Value> varying;
  /// Per accumulator: whether the tiles still store it.
  SmallVector<bool> keepStore;
};

/// Whether `v` is the epilogue's column variable plus values the column
/// does not change.
bool isEpilogueColumn(Value v, RowEpilogue &ep) {
  if (v == ep.columnIv)
    return true;
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add || !ep.varying.contains(v))
    return false;
  return (isEpilogueColumn(add.getLhs(), ep) &&
          !ep.varying.contains(add.getRhs())) ||
         (isEpilogueColumn(add.getRhs(), ep) &&
          !ep.varying.contains(add.getLhs()));
}

/// Whether all of `root`'s uses in the kernel (through views) are the
/// row's: its reduction nest, its fill and the epilogue's loads of it.
bool onlyRowUses(Value buffer, RowNest &nest, RowFill *fill, RowEpilogue &ep) {
  for (Operation *user : buffer.getUsers()) {
    if (dlc::isBufferView(user)) {
      if (user->getNumResults() != 1 ||
          !onlyRowUses(user->getResult(0), nest, fill, ep))
        return false;
      continue;
    }
    if (nest.loops.front()->isAncestor(user) ||
        (fill && fill->root->isAncestor(user)) ||
        ep.accumulatorLoads.contains(user))
      continue;
    return false;
  }
  return true;
}

/// The epilogue just after the row's reduction nest (constants between
/// them aside), if the tiles can run it; `callers` are the kernel's.
std::optional<RowEpilogue> matchEpilogue(RowNest &nest, RowFill *fill,
                                         ArrayRef<func::CallOp> callers) {
  std::optional<RowLoops> loops = rowLoopsBeside(nest, /*after=*/true);
  if (!loops)
    return std::nullopt;
  RowEpilogue ep(*loops);
  DenseMap<Value, unsigned> accRoots;
  for (auto [i, acc] : llvm::enumerate(nest.accumulators))
    accRoots[dlc::rootBuffer(acc.load.getMemRef())] = i;
  ep.keepStore.assign(nest.accumulators.size(), true);
  // Along the row, an access reads or writes consecutive elements (its
  // last index the column plus uniform values) or one element (a 0-d
  // buffer's too: a QDQ residual's scales, which kept resnet50_int8's
  // conv3 epilogues off the registers).
  auto alongRow = [&](ValueRange idx) {
    return idx.empty() ||
           (llvm::none_of(idx.drop_back(),
                          [&](Value v) { return ep.varying.contains(v); }) &&
            (!ep.varying.contains(idx.back()) ||
             isEpilogueColumn(idx.back(), ep)));
  };
  DenseSet<Value> readRoots, writtenRoots;
  DenseSet<unsigned> overwritten;
  ep.varying.insert(ep.columnIv);
  for (Operation &op : ep.columns.getBody()->without_terminator()) {
    bool anyVarying = llvm::any_of(
        op.getOperands(), [&](Value v) { return ep.varying.contains(v); });
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Value root = dlc::rootBuffer(load.getMemRef());
      if (auto it = accRoots.find(root); it != accRoots.end()) {
        Accumulator &acc = nest.accumulators[it->second];
        if (load.getMemRef() != acc.load.getMemRef() ||
            overwritten.contains(it->second) ||
            !sameIndices(load.getIndices(), acc.load.getIndices(), ep, nest))
          return std::nullopt;
        ep.accumulatorLoads[load] = it->second;
        ep.varying.insert(load.getResult());
        continue;
      }
      // (A vector of i1 is bits in memory, where the buffer holds a byte an
      // element: a Where's condition stays scalar.)
      if (!hasContiguousRows(load.getMemRefType()) ||
          !alongRow(load.getIndices()) ||
          (anyVarying && load.getType().isInteger(1)))
        return std::nullopt;
      readRoots.insert(root);
      if (anyVarying)
        ep.varying.insert(load.getResult());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      ValueRange idx = store.getIndices();
      if (!hasContiguousRows(store.getMemRefType()) || idx.empty() ||
          !alongRow(idx) || !ep.varying.contains(idx.back()) ||
          store.getValueToStore().getType().isInteger(1))
        return std::nullopt;
      Value root = dlc::rootBuffer(store.getMemRef());
      if (auto it = accRoots.find(root); it != accRoots.end()) {
        // Written over, at the accumulator's own element.
        Accumulator &acc = nest.accumulators[it->second];
        if (store.getMemRef() != acc.load.getMemRef() ||
            !sameIndices(idx, acc.load.getIndices(), ep, nest))
          return std::nullopt;
        overwritten.insert(it->second);
        continue;
      }
      writtenRoots.insert(root);
      continue;
    }
    if (!isClonable(op))
      return std::nullopt;
    if (!anyVarying)
      continue;
    // Elementwise ops on one value a lane; index values along the row
    // only as an access's column.
    if (op.getNumResults() != 1)
      return std::nullopt;
    Value result = op.getResult(0);
    ep.varying.insert(result);
    bool indexOperand = llvm::any_of(op.getOperands(), [&](Value v) {
      return v.getType().isIndex() && ep.varying.contains(v);
    });
    if (result.getType().isIndex()
            ? !isEpilogueColumn(result, ep)
            : !op.hasTrait<OpTrait::Elementwise>() || indexOperand)
      return std::nullopt;
  }
  // What the epilogue writes, nothing else reads: neither it (the tiles run
  // it interleaved) nor the reduction nest.
  for (Value root : writtenRoots)
    if (readRoots.contains(root))
      return std::nullopt;
  bool nestReadsOutput = false;
  nest.loops.front()->walk([&](Operation *op) {
    if (auto access = dlc::memoryAccess(op))
      nestReadsOutput |= writtenRoots.contains(dlc::rootBuffer(access->first));
  });
  if (nestReadsOutput)
    return std::nullopt;
  for (auto [i, acc] : llvm::enumerate(nest.accumulators)) {
    if (overwritten.contains(i)) {
      ep.keepStore[i] = false;
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(dlc::rootBuffer(acc.load.getMemRef()));
    ep.keepStore[i] =
        !arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
        !dlc::isCallLocalArgument(callers, arg.getArgNumber()) ||
        !onlyRowUses(arg, nest,
                     fill && fill->accumulator == acc.load ? fill : nullptr,
                     ep);
  }
  return ep;
}

/// One accumulator of a byte dot product: `acc + ext(x) * ext(w)`, `x` a
/// lane-varying i8 read and `w` a uniform one.
struct DotTerm {
  memref::LoadOp x, w;
  /// Whether `x` is the zero-extended (u8) operand and `w` the s8 one.
  bool xUnsigned = false;
  /// x is read as `x xor 0x80` (an s8 input as u8: x + 128).
  bool flipX = false;
  bool wUnsigned = false;
  /// The grouped loop's steps' reads of x interleave: lane j's group is
  /// the `steps` consecutive elements at `steps` j, one load of the row's
  /// groups as they are (dlc-convert-to-linalg pair-matmul-weights: 16-bit
  /// pairs for pmaddwd; quad-matmul-weights: byte quadruples for
  /// vpdpbusd).
  bool groupedX = false;
  /// The grouped loop's steps read x consecutively along its lanes' dim,
  /// `slideStride` elements a lane apart: lane j's group is the `steps`
  /// elements at `slideStride` j on (a window row's taps: a grouped conv's
  /// weight rows zero-padded to 4 taps, dlc-convert-to-linalg vnni-convs),
  /// one span of the tile's groups loaded and permuted into place.
  bool slidingX = false;
  int64_t slideStride = 0;
};

/// A row whose every accumulator is a byte dot product, and the reduction
/// loop whose steps it takes `steps` at a time: 4 (vpdpbusd) or 2
/// (pmaddwd).
struct DotForm {
  scf::ForOp loop;
  int64_t steps = 4;
  SmallVector<DotTerm> terms;
  /// The terms' extensions, products and sums: not emitted one by one.
  DenseSet<Operation *> ops;
};

/// Whether `v` depends on `iv` through side-effect-free ops.
bool dependsOn(Value v, Value iv) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value o) { return dependsOn(o, iv); });
}

/// Whether `load` reads consecutive bytes on consecutive steps of `iv`: its
/// innermost index over a dim longer than 1 is `iv` plus what does not
/// depend on it, and its other indices do not depend on `iv` either.
bool readsConsecutively(memref::LoadOp load, Value iv) {
  ArrayRef<int64_t> shape = load.getMemRefType().getShape();
  ValueRange idx = load.getIndices();
  int64_t inner = (int64_t)shape.size() - 1;
  if (inner < 0)
    return false;
  while (inner > 0 && shape[inner] == 1)
    --inner;
  for (int64_t d = 0; d < (int64_t)idx.size(); ++d)
    if (d != inner && dependsOn(idx[d], iv))
      return false;
  Value v = idx[inner];
  if (v == iv)
    return true;
  auto add = v.getDefiningOp<arith::AddIOp>();
  return add && ((add.getLhs() == iv && !dependsOn(add.getRhs(), iv)) ||
                 (add.getRhs() == iv && !dependsOn(add.getLhs(), iv)));
}

/// The vpdpbusd width (4, 8 or 16 lanes) that holds a tile of `lanes`.
int64_t vpdpbusdWidth(int64_t lanes) {
  return lanes <= 4 ? 4 : lanes <= 8 ? 8 : 16;
}

/// The byte dot form of a row (see the pass's `vnni` and `pmaddwd-bits`
/// options), if it has one: for vpdpbusd (`vnni`) one byte is u8 and the
/// other s8, and `w` is read from consecutive bytes; pmaddwd multiplies
/// 16-bit lanes, which hold either.
std::optional<DotForm> matchDot(RowNest &nest, const RowAnalysis &analysis,
                                bool vnni) {
  DotForm form;
  form.steps = vnni ? 4 : 2;
  auto singleUse = [](Value v) { return v && v.hasOneUse(); };
  for (Accumulator &acc : nest.accumulators) {
    Value sum = acc.store.getValueToStore();
    auto add = sum.getDefiningOp<arith::AddIOp>();
    if (!add || !add.getType().isInteger(32) || !singleUse(add) ||
        !singleUse(acc.load.getResult()))
      return std::nullopt;
    Value product = add.getLhs() == acc.load.getResult()   ? add.getRhs()
                    : add.getRhs() == acc.load.getResult() ? add.getLhs()
                                                           : Value();
    auto mul = product ? product.getDefiningOp<arith::MulIOp>() : nullptr;
    if (!mul || !singleUse(mul))
      return std::nullopt;
    DotTerm term;
    std::optional<bool> xUnsigned, wUnsigned;
    for (Value operand : mul->getOperands()) {
      Operation *ext = operand.getDefiningOp();
      if (!ext || !isa<arith::ExtUIOp, arith::ExtSIOp>(ext) ||
          !singleUse(operand))
        return std::nullopt;
      // pmaddwd's weights may be 16-bit already (dlc-convert-to-linalg
      // wide-conv-weights), and a varying read of 16-bit pairs
      // (pair-matmul-weights, checked once the grouped loop is known).
      Type from = ext->getOperand(0).getType();
      bool half = !vnni && from.isInteger(16);
      if (!from.isInteger(8) && !half)
        return std::nullopt;
      Value byte = ext->getOperand(0);
      // x xor 0x80 (dlc-convert-to-linalg vnni-convs).
      bool flip = false;
      if (auto xorOp = byte.getDefiningOp<arith::XOrIOp>()) {
        APInt mask;
        if (!singleUse(byte) ||
            !matchPattern(xorOp.getRhs(), m_ConstantInt(&mask)) ||
            mask.getZExtValue() != 0x80)
          return std::nullopt;
        flip = true;
        form.ops.insert(xorOp);
        byte = xorOp.getLhs();
      }
      auto load = byte.getDefiningOp<memref::LoadOp>();
      if (!load || load->getBlock() != nest.row.getBody())
        return std::nullopt;
      bool isUnsigned = isa<arith::ExtUIOp>(ext);
      if (analysis.isVarying(load.getResult()) && !term.x && !(half && flip)) {
        term.x = load;
        term.flipX = flip;
        term.groupedX = half;
        xUnsigned = isUnsigned;
      } else if (!flip && !analysis.isVarying(load.getResult()) && !term.w) {
        term.w = load;
        wUnsigned = isUnsigned;
      } else {
        return std::nullopt;
      }
      form.ops.insert(ext);
    }
    // vpdpbusd multiplies an unsigned byte by a signed one; pmaddwd widens
    // both to 16 bits as they are (x xor 0x80 is vpdpbusd's u8 form).
    if (!term.x || !term.w || (vnni ? *xUnsigned == *wUnsigned : term.flipX))
      return std::nullopt;
    term.xUnsigned = *xUnsigned;
    term.wUnsigned = *wUnsigned;
    form.ops.insert(mul);
    form.ops.insert(add);
    form.terms.push_back(term);
  }
  // Everything else that varies is index arithmetic or a term's read.
  DenseSet<Operation *> reads;
  for (auto [term, acc] : llvm::zip(form.terms, nest.accumulators)) {
    reads.insert(term.x);
    reads.insert(acc.load);
  }
  for (Operation &op : nest.row.getBody()->without_terminator()) {
    if (isa<memref::StoreOp>(op) || form.ops.contains(&op) ||
        reads.contains(&op) || op.getNumResults() != 1 ||
        !analysis.isVarying(op.getResult(0)))
      continue;
    if (!analysis.strideOf(op.getResult(0)))
      return std::nullopt;
  }
  // The loops move: their bounds must be known before the nest.
  scf::ForOp outer = nest.loops.front();
  for (scf::ForOp loop : nest.loops)
    for (Value bound :
         {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (!definedOutside(bound, outer))
        return std::nullopt;
  // A grouped read holds lane j's group at `steps` j and on: lanes `steps`
  // apart, and the grouped loop's steps 1 apart. A varying 16-bit read
  // must be one; for vpdpbusd a byte read with lanes 4 apart is one where
  // the loop walks its groups.
  // With vnni each term's groupedX (or else slidingX) is decided for the
  // loop being tried.
  auto groupsRead = [&](scf::ForOp loop) {
    bool ok = true;
    for (DotTerm &t : form.terms) {
      std::optional<int64_t> stride =
          analysis.strideOf(t.x.getIndices().back());
      bool consecutive = readsConsecutively(t.x, loop.getInductionVar());
      bool grouped = stride && *stride == form.steps && consecutive;
      if (vnni) {
        t.groupedX = grouped;
        // Spans of up to 4 x 16 bytes, a zmm that vpermb picks from.
        t.slidingX = !grouped && consecutive && stride && *stride >= 1 &&
                     *stride <= form.steps;
        t.slideStride = t.slidingX ? *stride : 0;
      }
      ok &= !t.groupedX || grouped;
    }
    return ok;
  };
  // The grouped loop: `steps` steps at a time, reading w's bytes
  // consecutively (vpdpbusd broadcasts them as one word); pmaddwd packs two
  // bytes itself, and takes the innermost loop of an even length otherwise.
  scf::ForOp any;
  for (scf::ForOp loop : llvm::reverse(nest.loops)) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *lb != 0 || *step != 1 ||
        *ub % form.steps != 0 || *ub == 0)
      continue;
    if (!groupsRead(loop))
      continue;
    if (llvm::all_of(form.terms, [&](DotTerm &t) {
          return readsConsecutively(t.w, loop.getInductionVar());
        })) {
      form.loop = loop;
      return form;
    }
    if (!any)
      any = loop;
  }
  if (vnni || !any)
    return std::nullopt;
  form.loop = any;
  return form;
}

/// Whether every memory access along the row (its lane-varying reads, its
/// accumulators, the epilogue's reads and writes) is of 32- or 64-bit
/// elements, which AVX2 loads and stores under a mask (vmaskmovps/pd,
/// vpmaskmovd/q). x86 has no narrower masked accesses before AVX-512: LLVM
/// would split a masked byte load lane by lane, with a branch each.
bool hasMaskableAccesses(RowNest &nest, const RowAnalysis &analysis,
                         RowEpilogue *epilogue) {
  auto maskable = [](Value memref) {
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    return elt.isIntOrFloat() && (elt.getIntOrFloatBitWidth() == 32 ||
                                  elt.getIntOrFloatBitWidth() == 64);
  };
  for (Accumulator &acc : nest.accumulators)
    if (!maskable(acc.load.getMemRef()))
      return false;
  for (Operation &op : nest.row.getBody()->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (llvm::any_of(load.getIndices(),
                       [&](Value v) { return analysis.isVarying(v); }) &&
          !maskable(load.getMemRef()))
        return false;
  if (!epilogue)
    return true;
  for (Operation &op : epilogue->columns.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (epilogue->varying.contains(load.getResult()) &&
          !maskable(load.getMemRef()))
        return false;
    if (auto store = dyn_cast<memref::StoreOp>(op))
      if (!maskable(store.getMemRef()))
        return false;
  }
  return true;
}

/// Emits tiles of `lanes` lanes starting at `starts`, which share their
/// reduction loops (a register tile: each step's reads that do not vary
/// along the row, a MatMul's A, serve them all).
class TileEmitter {
public:
  /// With `dot`, the accumulators sum byte quadruples (vpdpbusd) or
  /// pairs (pmaddwd on `pmaddwdBits`-bit vectors). With `maskedSpans`
  /// (AVX-512), strided reads load whole registers under a mask. Tile `t`
  /// has `widths[t]` lanes of which the first `valids[t]` exist (fewer in a
  /// row's masked rest: its memory accesses go under a mask, which
  /// suppresses faults past the row).
  TileEmitter(OpBuilder &b, RowNest &nest, const RowAnalysis &analysis,
              ArrayRef<int64_t> widths, ArrayRef<int64_t> valids,
              ValueRange starts, DotForm *dot, int64_t pmaddwdBits,
              bool maskedSpans, RowFill *fill, RowEpilogue *epilogue)
      : b(b), nest(nest), analysis(analysis), widths(widths), valids(valids),
        lanes(widths.front()), valid(valids.front()),
        starts(starts.begin(), starts.end()), dot(dot),
        pmaddwdBits(pmaddwdBits), maskedSpans(maskedSpans), fill(fill),
        epilogue(epilogue) {
    for (scf::ForOp loop : nest.loops)
      if (!dot || loop != dot->loop)
        order.push_back(loop);
    if (dot) {
      order.push_back(dot->loop);
      for (DotTerm &term : dot->terms) {
        if (term.groupedX)
          groupedReads.insert(term.x);
        if (term.slidingX)
          slidingReads[term.x] = term.slideStride;
      }
    }
  }

  void emit();

private:
  OpBuilder &b;
  RowNest &nest;
  const RowAnalysis &analysis;
  SmallVector<int64_t> widths, valids;
  /// The dot form's step being emitted (emitDotBody), else -1.
  int64_t dotStep = -1;
  /// The dot form's grouped reads (DotTerm::groupedX).
  DenseSet<Operation *> groupedReads;
  /// The dot form's sliding reads (DotTerm::slidingX) and their strides.
  DenseMap<Operation *, int64_t> slidingReads;
  /// The current tile's lanes (`selectTile`).
  int64_t lanes;
  /// Those of them the row has (the others are masked off): `lanes` but in
  /// a masked rest.
  int64_t valid;
  void selectTile(int64_t tile) {
    lanes = widths[tile];
    valid = valids[tile];
  }
  SmallVector<Value> starts;
  DotForm *dot;
  int64_t pmaddwdBits;
  bool maskedSpans;
  /// The fill the tiles of its accumulator start from (null: none).
  RowFill *fill;
  /// The epilogue the tiles run on their results (null: none).
  RowEpilogue *epilogue;
  /// The reduction loops as emitted, outermost first: the dot form's loop
  /// innermost.
  SmallVector<scf::ForOp> order;
  /// Scalars (uniform values and loop variables) of the clone.
  IRMapping scalars;
  /// Lane-varying values as vectors.
  DenseMap<Value, Value> vectors;
  /// Bases of the strided-affine index values (lane 0's value).
  DenseMap<Value, Value> bases;

  VectorType vectorOf(Type t) const { return VectorType::get({lanes}, t); }
  Value scalar(Value v) const { return scalars.lookupOrDefault(v); }
  Value vectorFor(Location loc, Value v);
  /// A `type` load of `memref` at `idx` whose first `count` lanes exist:
  /// a plain load when they all do, else a masked one (zeros elsewhere).
  Value loadLanes(Location loc, VectorType type, Value memref, ValueRange idx,
                  int64_t count);
  /// `value`'s first `valid` lanes stored at `idx`.
  void storeLanes(Location loc, Value value, Value memref, ValueRange idx);
  /// The constant mask of `lanes` lanes whose first `count` are set.
  Value prefixMask(Location loc, int64_t lanes, int64_t count);
  void emitLevel(size_t level, ValueRange accs, SmallVectorImpl<Value> &out);
  void emitBody(ValueRange accs, SmallVectorImpl<Value> &out);
  void emitDotBody(Value iv, ValueRange accs, SmallVectorImpl<Value> &out);
  /// The (tile, copy) pairs the body runs for: slot `s` is tile
  /// `s / nest.copies`, copy `s % nest.copies`.
  int64_t slots() const { return (int64_t)starts.size() * nest.copies; }
  /// Slot `slot`'s setup: its lane bases, copy variable and accumulators.
  void beginSlot(int64_t slot, ValueRange accs);
  void emitCopy(SmallVectorImpl<Value> &out, size_t first);
  /// The epilogue of slot `slot`, whose accumulators are `results`' from
  /// `first` on.
  void emitEpilogue(int64_t slot, ValueRange results, size_t first);
  /// The elements a sliding read (DotTerm::slidingX) of lanes `stride`
  /// apart loads for a tile: its groups' span, rounded up to a power of 2.
  int64_t slidingSpan(int64_t stride) const {
    return (int64_t)llvm::PowerOf2Ceil((lanes - 1) * stride + dot->steps);
  }
  /// `acc + sum_g x[g] * w[g]` on one vpdpbusd.
  Value emitDot(Location loc, Value acc, ArrayRef<Value> x, ArrayRef<Value> w,
                const DotTerm &term);
  /// `acc + x[0] * w[0] + x[1] * w[1]` on pmaddwd, a register at a time.
  Value emitPairDot(Location loc, Value acc, ArrayRef<Value> x,
                    ArrayRef<Value> w, const DotTerm &term);
  /// A grouped read's `group` x `lanes` elements padded with zeros to
  /// `group` x `width` (a tile shorter than its instruction's register).
  Value zeroPaddedGroups(Location loc, Value groups, int64_t group,
                         int64_t width);
  /// `v` (of `from` lanes) padded to `to` lanes, the extra ones copies of
  /// lane 0; or its first `to` lanes when shorter.
  Value resize(Location loc, Value v, int64_t from, int64_t to);
  /// The scalars `parts` packed into one word of `words`' element type, in
  /// every lane of `words`.
  Value broadcastWord(Location loc, ValueRange parts, VectorType words);
  /// The op of loop `level`'s body that holds the next level (a loop, or
  /// the row).
  Operation *nextLevel(size_t level) const {
    return level + 1 < nest.loops.size() ? nest.loops[level + 1].getOperation()
                                         : nest.row.getOperation();
  }
  /// `v` cloned where `b` is, with the ops of its definition that
  /// `inside` holds (values `mapping` has are taken as they are).
  Value cloneDefinition(Value v, IRMapping &mapping,
                        function_ref<bool(Operation *)> inside);
  /// `v` (known before the loops) for copy `copy`, cloned where `b` is.
  Value beforeLoops(Value v, IRMapping &mapping) {
    return cloneDefinition(v, mapping, [&](Operation *def) {
      return def->getBlock() == nest.row.getBody();
    });
  }
};

Value TileEmitter::cloneDefinition(Value v, IRMapping &mapping,
                                   function_ref<bool(Operation *)> inside) {
  if (Value mapped = mapping.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (!def || !inside(def))
    return v;
  for (Value o : def->getOperands())
    cloneDefinition(o, mapping, inside);
  return b.clone(*def, mapping)->getResult(cast<OpResult>(v).getResultNumber());
}

Value TileEmitter::vectorFor(Location loc, Value v) {
  if (Value vec = vectors.lookup(v))
    return vec;
  if (Value base = bases.lookup(v)) {
    // base + stride * [0, 1, ...]
    int64_t stride = *analysis.strideOf(v);
    SmallVector<int64_t> steps;
    for (int64_t i = 0; i < lanes; ++i)
      steps.push_back(i * stride);
    Value iota = b.create<arith::ConstantOp>(loc, b.getIndexVectorAttr(steps));
    Value splat =
        b.create<vector::BroadcastOp>(loc, vectorOf(v.getType()), base);
    Value vec = b.create<arith::AddIOp>(loc, splat, iota);
    vectors[v] = vec;
    return vec;
  }
  return b.create<vector::BroadcastOp>(loc, vectorOf(v.getType()), scalar(v));
}

Value TileEmitter::loadLanes(Location loc, VectorType type, Value memref,
                             ValueRange idx, int64_t count) {
  if (count >= type.getNumElements())
    return b.create<vector::LoadOp>(loc, type, memref, idx);
  Value mask = prefixMask(loc, type.getNumElements(), count);
  Value zeros = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
  return b.create<vector::MaskedLoadOp>(loc, type, memref, idx, mask, zeros);
}

void TileEmitter::storeLanes(Location loc, Value value, Value memref,
                             ValueRange idx) {
  if (valid >= lanes) {
    b.create<vector::StoreOp>(loc, value, memref, idx);
    return;
  }
  b.create<vector::MaskedStoreOp>(loc, memref, idx,
                                  prefixMask(loc, lanes, valid), value);
}

Value TileEmitter::prefixMask(Location loc, int64_t lanes, int64_t count) {
  SmallVector<bool> bits(lanes, false);
  std::fill_n(bits.begin(), count, true);
  auto type = VectorType::get({lanes}, b.getI1Type());
  return b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type, ArrayRef<bool>(bits)));
}

void TileEmitter::beginSlot(int64_t slot, ValueRange accs) {
  size_t numAccs = nest.accumulators.size();
  vectors.clear();
  bases.clear();
  selectTile(slot / nest.copies);
  bases[nest.lane()] = starts[slot / nest.copies];
  if (nest.copy)
    scalars.map(nest.copy, b.create<arith::ConstantIndexOp>(
                               nest.row.getLoc(), slot % nest.copies));
  for (auto [i, acc] : llvm::enumerate(nest.accumulators))
    vectors[acc.load.getResult()] = accs[slot * numAccs + i];
}

void TileEmitter::emitBody(ValueRange accs, SmallVectorImpl<Value> &out) {
  out.assign(accs.begin(), accs.end());
  size_t numAccs = nest.accumulators.size();
  // Copy by copy, each over every tile: a copy's broadcast (a MatMul's A
  // element) is then live for its tiles only, the tiles' loads for the
  // whole step: 3 + 1 registers beside 24 accumulators, where tile by
  // tile kept the 8 copies' broadcasts live and spilled an accumulator.
  int64_t tiles = (int64_t)starts.size();
  for (int64_t copy = 0; copy < nest.copies; ++copy)
    for (int64_t tile = 0; tile < tiles; ++tile) {
      int64_t slot = tile * nest.copies + copy;
      beginSlot(slot, accs);
      emitCopy(out, slot * numAccs);
    }
}

void TileEmitter::emitDotBody(Value iv, ValueRange accs,
                              SmallVectorImpl<Value> &out) {
  Location loc = nest.row.getLoc();
  size_t numAccs = nest.accumulators.size();
  // x and w of each accumulator of each copy, for the 4 steps.
  SmallVector<SmallVector<Value, 4>> xs(accs.size()), ws(accs.size());
  for (int64_t g = 0; g < dot->steps; ++g) {
    dotStep = g;
    Value step = b.create<arith::AddIOp>(
        loc, iv, b.create<arith::ConstantIndexOp>(loc, g));
    scalars.map(dot->loop.getInductionVar(), step);
    // Every loop body's scalar ops, in nest order: the loops were reordered
    // and the grouped loop's variable takes 4 values.
    for (auto [level, loop] : llvm::enumerate(nest.loops))
      for (Operation &op : loop.getBody()->without_terminator())
        if (&op != nextLevel(level))
          b.clone(op, scalars);
    for (int64_t slot = 0; slot < slots(); ++slot) {
      beginSlot(slot, accs);
      emitCopy(out, slot * numAccs);
      for (auto [i, term] : llvm::enumerate(dot->terms)) {
        xs[slot * numAccs + i].push_back(vectors.lookup(term.x.getResult()));
        ws[slot * numAccs + i].push_back(scalar(term.w.getResult()));
      }
    }
  }
  dotStep = -1;
  out.clear();
  for (int64_t slot = 0; slot < slots(); ++slot)
    for (auto [i, term] : llvm::enumerate(dot->terms)) {
      size_t k = slot * numAccs + i;
      out.push_back(dot->steps == 4
                        ? emitDot(loc, accs[k], xs[k], ws[k], term)
                        : emitPairDot(loc, accs[k], xs[k], ws[k], term));
    }
}

Value TileEmitter::emitDot(Location loc, Value acc, ArrayRef<Value> x,
                           ArrayRef<Value> w, const DotTerm &term) {
  // A shorter tile fills the next width, its extra lanes computed and
  // dropped (AVX-512 runs such tiles at the width: emitTiles).
  int64_t width = vpdpbusdWidth(lanes);
  auto shuffle = [&](Value a, Value c, ArrayRef<int64_t> mask) -> Value {
    return b.create<vector::ShuffleOp>(loc, a, c, mask);
  };
  auto widen = [&](Value v) { return resize(loc, v, lanes, width); };
  Type i32 = b.getI32Type();
  auto words = VectorType::get({width}, i32);
  Value xWords;
  if (term.slidingX) {
    // Lane j's 4 bytes: the span's from slideStride j on (lanes past the
    // tile's, computed and dropped, read its first).
    SmallVector<int64_t> quads;
    for (int64_t j = 0; j < width; ++j)
      for (int64_t g = 0; g < 4; ++g)
        quads.push_back(j < lanes ? j * term.slideStride + g : 0);
    xWords =
        b.create<vector::BitCastOp>(loc, words, shuffle(x[0], x[0], quads));
  } else if (term.groupedX) {
    // Read as quadruples already (x[1..3] are in x[0]); a short tile's
    // extra lanes are zeros.
    xWords = b.create<vector::BitCastOp>(
        loc, words, zeroPaddedGroups(loc, x[0], /*group=*/4, width));
  } else {
    // Lane j's 4 bytes: x[0][j], x[1][j], x[2][j], x[3][j].
    SmallVector<int64_t> pairs, quads;
    for (int64_t j = 0; j < width; ++j) {
      pairs.append({j, width + j});
      quads.append(
          {2 * j, 2 * j + 1, 2 * width + 2 * j, 2 * width + 2 * j + 1});
    }
    Value x01 = shuffle(widen(x[0]), widen(x[1]), pairs);
    Value x23 = shuffle(widen(x[2]), widen(x[3]), pairs);
    xWords = b.create<vector::BitCastOp>(loc, words, shuffle(x01, x23, quads));
  }
  if (term.flipX) {
    Value signs = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(words,
                                    b.getI32IntegerAttr((int32_t)0x80808080u)));
    xWords = b.create<arith::XOrIOp>(loc, xWords, signs);
  }
  Value wWords = broadcastWord(loc, w, words);
  Value u8 = term.xUnsigned ? xWords : wWords;
  Value s8 = term.xUnsigned ? wWords : xWords;
  std::string name = "llvm.x86.avx512.vpdpbusd." + std::to_string(width * 32);
  Value sum = b.create<LLVM::CallIntrinsicOp>(loc, words, name,
                                              ValueRange{widen(acc), u8, s8})
                  .getResult(0);
  return resize(loc, sum, width, lanes);
}

Value TileEmitter::broadcastWord(Location loc, ValueRange parts,
                                 VectorType words) {
  Value packed = b.create<vector::FromElementsOp>(
      loc, VectorType::get({(int64_t)parts.size()}, parts[0].getType()), parts);
  Type wordType = words.getElementType();
  Value word = b.create<vector::ExtractOp>(
      loc,
      b.create<vector::BitCastOp>(loc, VectorType::get({1}, wordType), packed),
      ArrayRef<int64_t>{0});
  return b.create<vector::BroadcastOp>(loc, words, word);
}

Value TileEmitter::zeroPaddedGroups(Location loc, Value groups, int64_t group,
                                    int64_t width) {
  if (lanes == width)
    return groups;
  SmallVector<int64_t> mask;
  for (int64_t j = 0; j < group * width; ++j)
    mask.push_back(j < group * lanes ? j : group * lanes);
  Value zeros =
      b.create<arith::ConstantOp>(loc, b.getZeroAttr(groups.getType()));
  return b.create<vector::ShuffleOp>(loc, groups, zeros, mask);
}

Value TileEmitter::resize(Location loc, Value v, int64_t from, int64_t to) {
  if (from == to)
    return v;
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < to; ++i)
    mask.push_back(i < from ? i : 0);
  return b.create<vector::ShuffleOp>(loc, v, v, mask);
}

Value TileEmitter::emitPairDot(Location loc, Value acc, ArrayRef<Value> x,
                               ArrayRef<Value> w, const DotTerm &term) {
  // pmaddwd: 16-bit lane pairs, multiplied and summed into 32-bit lanes,
  // one vector register (`chunk` lanes of i32) at a time.
  int64_t chunk = pmaddwdBits / 32;
  int64_t width = llvm::alignTo(lanes, chunk);
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto ext = [&](Value v, Type to, bool isUnsigned) -> Value {
    if (isUnsigned)
      return b.create<arith::ExtUIOp>(loc, to, v);
    return b.create<arith::ExtSIOp>(loc, to, v);
  };
  // Lane j's pair: x[0][j], x[1][j], as 16-bit values. A tile shorter
  // than a register fills it with zeros, not copies of lane 0: LLVM built
  // a 1-lane tile's broadcast pair byte by byte (15 vpinsrb a step, more
  // than a full tile's step), where zeros leave it two bytes to insert.
  auto zeroPadded = [&](Value v) -> Value {
    if (lanes == width)
      return v;
    Value zeros = b.create<arith::ConstantOp>(loc, b.getZeroAttr(v.getType()));
    SmallVector<int64_t> mask;
    for (int64_t j = 0; j < width; ++j)
      mask.push_back(j < lanes ? j : lanes);
    return b.create<vector::ShuffleOp>(loc, v, zeros, mask);
  };
  SmallVector<int64_t> pairs;
  for (int64_t j = 0; j < width; ++j)
    pairs.append({j, width + j});
  Value xPairs;
  if (term.groupedX) {
    // Read as pairs already (x[1] is in x[0]).
    xPairs = zeroPaddedGroups(loc, x[0], /*group=*/2, width);
  } else {
    xPairs = b.create<vector::ShuffleOp>(loc, zeroPadded(x[0]),
                                         zeroPadded(x[1]), pairs);
    xPairs = ext(xPairs, VectorType::get({2 * width}, i16), term.xUnsigned);
  }
  // w's pair in every lane: 16-bit weights as one 32-bit broadcast
  // (vpbroadcastd from memory, a load); a byte pair in 16 bits, then
  // widened (vpbroadcastw, vpmovsxbw), where widening each byte and
  // packing the words took 5 instructions a copy and step.
  auto words = VectorType::get({chunk}, i32);
  auto halves = VectorType::get({2 * chunk}, i16);
  Value wHalves;
  if (w[0].getType().isInteger(16)) {
    wHalves = b.create<vector::BitCastOp>(
        loc, halves, broadcastWord(loc, ValueRange{w[0], w[1]}, words));
  } else {
    Value wBytes = b.create<vector::BitCastOp>(
        loc, VectorType::get({2 * chunk}, w[0].getType()),
        broadcastWord(loc, ValueRange{w[0], w[1]},
                      VectorType::get({chunk}, i16)));
    wHalves = ext(wBytes, halves, term.wUnsigned);
  }
  std::string name = chunk == 4   ? "llvm.x86.sse2.pmadd.wd"
                     : chunk == 8 ? "llvm.x86.avx2.pmadd.wd"
                                  : "llvm.x86.avx512.pmaddw.d.512";
  // The grouped loop may carry the accumulator a register wide already.
  int64_t accLanes = cast<VectorType>(acc.getType()).getNumElements();
  Value sum = resize(loc, acc, accLanes, width);
  for (int64_t q = 0; q < width / chunk; ++q) {
    Value xq = b.create<vector::ExtractStridedSliceOp>(
        loc, xPairs, ArrayRef<int64_t>{2 * chunk * q},
        ArrayRef<int64_t>{2 * chunk}, ArrayRef<int64_t>{1});
    Value products = b.create<LLVM::CallIntrinsicOp>(loc, words, name,
                                                     ValueRange{xq, wHalves})
                         .getResult(0);
    Value accq = b.create<vector::ExtractStridedSliceOp>(
        loc, sum, ArrayRef<int64_t>{chunk * q}, ArrayRef<int64_t>{chunk},
        ArrayRef<int64_t>{1});
    sum = b.create<vector::InsertStridedSliceOp>(
        loc, b.create<arith::AddIOp>(loc, accq, products), sum,
        ArrayRef<int64_t>{chunk * q}, ArrayRef<int64_t>{1});
  }
  return resize(loc, sum, width, accLanes);
}

void TileEmitter::emitCopy(SmallVectorImpl<Value> &out, size_t first) {
  for (Operation &op : nest.row.getBody()->without_terminator()) {
    Location loc = op.getLoc();
    // A dot form's sums are emitDot's.
    if (dot && (dot->ops.contains(&op) || isa<memref::StoreOp>(op)))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      for (auto [i, acc] : llvm::enumerate(nest.accumulators))
        if (acc.store == store)
          out[first + i] = vectorFor(loc, store.getValueToStore());
      continue;
    }
    bool anyVarying = llvm::any_of(
        op.getOperands(), [&](Value v) { return analysis.isVarying(v); });
    if (!anyVarying) {
      b.clone(op, scalars);
      continue;
    }
    Value result = op.getResult(0);
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (vectors.contains(result))
        continue; // an accumulator
      SmallVector<Value> idx;
      for (Value v : load.getIndices().drop_back())
        idx.push_back(scalar(v));
      idx.push_back(bases.lookup(load.getIndices().back()));
      int64_t stride = *analysis.strideOf(load.getIndices().back());
      Type elt = load.getMemRefType().getElementType();
      if (groupedReads.contains(load)) {
        // The first step's read covers every step's lanes, in groups.
        int64_t group = dot->steps;
        if (dotStep == 0)
          vectors[result] =
              loadLanes(loc, VectorType::get({group * lanes}, elt),
                        load.getMemRef(), idx, group * valid);
        continue;
      }
      if (auto sliding = slidingReads.find(load);
          sliding != slidingReads.end()) {
        // The first step's read: the span of every step's lanes (emitDot
        // permutes it), under a mask past the valid lanes' last group.
        if (dotStep == 0)
          vectors[result] = loadLanes(
              loc, VectorType::get({slidingSpan(sliding->second)}, elt),
              load.getMemRef(), idx,
              (valid - 1) * sliding->second + dot->steps);
        continue;
      }
      if (stride == 1) {
        vectors[result] =
            loadLanes(loc, vectorOf(elt), load.getMemRef(), idx, valid);
        continue;
      }
      // Lanes `stride` apart: the span they cover, then every stride-th.
      // With AVX-512 the span rounds up to `lanes * stride` elements under
      // a mask (which suppresses faults past the buffer): whole registers
      // that one permute per register pair picks from, where a span of 31
      // took ~15 inserts and shuffles a tile (resnet50's strided 1x1 convs).
      // A masked rest's span covers its valid lanes only.
      int64_t spanLength = (lanes - 1) * stride + 1;
      Value span;
      if (maskedSpans || valid < lanes) {
        auto spanType = VectorType::get({lanes * stride}, elt);
        span = loadLanes(loc, spanType, load.getMemRef(), idx,
                         (valid - 1) * stride + 1);
      } else {
        auto spanType = VectorType::get({spanLength}, elt);
        span = b.create<vector::LoadOp>(loc, spanType, load.getMemRef(), idx);
      }
      SmallVector<int64_t> pick;
      for (int64_t i = 0; i < lanes; ++i)
        pick.push_back(i * stride);
      vectors[result] = b.create<vector::ShuffleOp>(loc, span, span, pick);
      continue;
    }
    if (std::optional<int64_t> stride = analysis.strideOf(result)) {
      // Index arithmetic: lane 0's value, as a scalar.
      auto baseOf = [&](Value v) {
        Value base = bases.lookup(v);
        return base ? base : scalar(v);
      };
      IRMapping lane0;
      for (Value v : op.getOperands())
        lane0.map(v, baseOf(v));
      bases[result] = b.clone(op, lane0)->getResult(0);
      continue;
    }
    OperationState state(loc, op.getName());
    for (Value v : op.getOperands())
      state.addOperands(vectorFor(loc, v));
    state.addTypes(vectorOf(result.getType()));
    state.addAttributes(op.getAttrs());
    // A product and the sum it feeds may fuse into one FMA where the CPU
    // has one (a GEMM's inner loop: twice the throughput and half the
    // latency of a multiply then an add), as oneDNN and MLAS compute.
    if (auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
        fmf && isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
      state.attributes.set(
          fmf.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(b.getContext(),
                                        fmf.getFastMathFlagsAttr().getValue() |
                                            arith::FastMathFlags::contract));
    vectors[result] = b.create(state)->getResult(0);
  }
}

void TileEmitter::emitLevel(size_t level, ValueRange accs,
                            SmallVectorImpl<Value> &out) {
  if (level == order.size()) {
    emitBody(accs, out);
    return;
  }
  scf::ForOp loop = order[level];
  bool grouped = dot && loop == dot->loop;
  Value step = grouped
                   ? b.create<arith::ConstantIndexOp>(loop.getLoc(), dot->steps)
                   : scalar(loop.getStep());
  // pmaddwd's loop carries a tile shorter than a register a register wide:
  // a vector<1xi32> lives in a general register, and each step moved it
  // to a vector register and back (8 vmovd a step for 4 copies).
  auto lanesOf = [](Value v) {
    return cast<VectorType>(v.getType()).getNumElements();
  };
  SmallVector<Value> inits;
  for (Value acc : accs)
    inits.push_back(grouped && dot->steps == 2
                        ? resize(loop.getLoc(), acc, lanesOf(acc),
                                 llvm::alignTo(lanesOf(acc), pmaddwdBits / 32))
                        : acc);
  auto clone = b.create<scf::ForOp>(loop.getLoc(), scalar(loop.getLowerBound()),
                                    scalar(loop.getUpperBound()), step, inits);
  scalars.map(loop.getInductionVar(), clone.getInductionVar());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(clone.getBody());
  SmallVector<Value> results;
  if (grouped) {
    emitDotBody(clone.getInductionVar(), clone.getRegionIterArgs(), results);
    b.create<scf::YieldOp>(loop.getLoc(), results);
    b.setInsertionPointAfter(clone);
    out.clear();
    for (auto [r, acc] : llvm::zip(clone.getResults(), accs))
      out.push_back(resize(loop.getLoc(), r, lanesOf(r), lanesOf(acc)));
    return;
  }
  // A dot form's loop bodies are cloned innermost, with each step's value
  // of the grouped loop's variable.
  for (Operation &op : loop.getBody()->without_terminator())
    if (!dot && &op != nextLevel(level))
      b.clone(op, scalars);
  emitLevel(level + 1, clone.getRegionIterArgs(), results);
  b.create<scf::YieldOp>(loop.getLoc(), results);
  out.assign(clone.getResults().begin(), clone.getResults().end());
}

void TileEmitter::emit() {
  Location loc = nest.row.getLoc();
  SmallVector<Value> init;
  SmallVector<SmallVector<Value>> indices;
  SmallVector<Accumulator *> accs;
  for (int64_t slot = 0; slot < slots(); ++slot) {
    selectTile(slot / nest.copies);
    IRMapping mapping;
    if (nest.copy)
      mapping.map(nest.copy,
                  b.create<arith::ConstantIndexOp>(loc, slot % nest.copies));
    mapping.map(nest.lane(), starts[slot / nest.copies]);
    for (Accumulator &acc : nest.accumulators) {
      SmallVector<Value> idx;
      for (Value v : acc.load.getIndices())
        idx.push_back(beforeLoops(v, mapping));
      Type elt = acc.load.getMemRefType().getElementType();
      if (fill && fill->accumulator == acc.load) {
        // The fill's value for this copy, in every lane.
        IRMapping values;
        if (fill->copyIv)
          values.map(fill->copyIv, mapping.lookup(nest.copy));
        Value v = cloneDefinition(
            fill->store.getValueToStore(), values,
            [&](Operation *def) { return fill->root->isAncestor(def); });
        init.push_back(b.create<vector::BroadcastOp>(loc, vectorOf(elt), v));
      } else {
        init.push_back(
            loadLanes(loc, vectorOf(elt), acc.load.getMemRef(), idx, valid));
      }
      indices.push_back(idx);
      accs.push_back(&acc);
    }
  }
  SmallVector<Value> results;
  emitLevel(0, init, results);
  size_t numAccs = nest.accumulators.size();
  for (auto [i, acc] : llvm::enumerate(accs))
    if (!epilogue || epilogue->keepStore[i % numAccs]) {
      selectTile(i / numAccs / nest.copies);
      storeLanes(loc, results[i], acc->store.getMemRef(), indices[i]);
    }
  if (epilogue)
    for (int64_t slot = 0; slot < slots(); ++slot)
      emitEpilogue(slot, results, slot * numAccs);
}

/// The values of a loop body run as vectors of `lanes` lanes: the scalars
/// (uniform values, lane 0's indices) in `scalars`, the varying values'
/// vectors in `vectors`.
struct LaneValues {
  OpBuilder &b;
  Location loc;
  int64_t lanes;
  IRMapping scalars;
  DenseMap<Value, Value> vectors;

  VectorType vectorOf(Type t) const { return VectorType::get({lanes}, t); }
  /// `v`'s vector, or its scalar broadcast.
  Value vector(Value v) {
    if (Value vec = vectors.lookup(v))
      return vec;
    return b.create<vector::BroadcastOp>(loc, vectorOf(v.getType()),
                                         scalars.lookupOrDefault(v));
  }
  /// Lane 0's indices.
  SmallVector<Value> scalarsOf(ValueRange idx) const {
    SmallVector<Value> out;
    for (Value v : idx)
      out.push_back(scalars.lookupOrDefault(v));
    return out;
  }
  /// `op` (one scalar result, elementwise) on the lanes' vectors.
  void cloneOnVectors(Operation &op) {
    Value result = op.getResult(0);
    OperationState state(op.getLoc(), op.getName());
    for (Value v : op.getOperands())
      state.addOperands(vector(v));
    state.addTypes(vectorOf(result.getType()));
    state.addAttributes(op.getAttrs());
    vectors[result] = b.create(state)->getResult(0);
  }
};

void TileEmitter::emitEpilogue(int64_t slot, ValueRange results, size_t first) {
  Location loc = epilogue->root.getLoc();
  selectTile(slot / nest.copies);
  // Scalars, and the bases (lane 0's values) of the column indices.
  LaneValues lane{b, loc, lanes, {}, {}};
  if (epilogue->copyIv) {
    lane.scalars.map(epilogue->copyIv,
                     b.create<arith::ConstantIndexOp>(loc, slot % nest.copies));
    for (Operation &op : epilogue->root.getBody()->without_terminator())
      if (&op != epilogue->columns.getOperation())
        b.clone(op, lane.scalars);
  }
  lane.scalars.map(epilogue->columnIv, starts[slot / nest.copies]);
  for (Operation &op : epilogue->columns.getBody()->without_terminator()) {
    auto acc = epilogue->accumulatorLoads.find(&op);
    if (acc != epilogue->accumulatorLoads.end()) {
      lane.vectors[op.getResult(0)] = results[first + acc->second];
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      storeLanes(loc, lane.vector(store.getValueToStore()), store.getMemRef(),
                 lane.scalarsOf(store.getIndices()));
      continue;
    }
    bool varies = llvm::any_of(op.getResults(), [&](Value v) {
      return epilogue->varying.contains(v);
    });
    // Uniform values, and the columns' lane-0 indices.
    if (!varies || op.getResult(0).getType().isIndex()) {
      b.clone(op, lane.scalars);
      continue;
    }
    Value result = op.getResult(0);
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      lane.vectors[result] =
          loadLanes(loc, vectorOf(result.getType()), load.getMemRef(),
                    lane.scalarsOf(load.getIndices()), valid);
      continue;
    }
    lane.cloneOnVectors(op);
  }
}

/// The invariant part `base` of `index` = base + iv (or iv itself: base
/// null), where nothing else of it depends on `iv`.
std::optional<Value> contiguousBase(Value index, Value iv,
                                    const DenseSet<Value> &varying) {
  if (index == iv)
    return Value();
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  Value lhs = add.getLhs(), rhs = add.getRhs();
  if (rhs == iv && !varying.contains(lhs))
    return lhs;
  if (lhs == iv && !varying.contains(rhs))
    return rhs;
  return std::nullopt;
}

/// An innermost scf.for of 2-16 iterations over consecutive elements -- a
/// plane conv's valid columns copied out of its accumulator row with the
/// epilogue (bias, activation, requantize), 7 or 14 of a padded row's 9
/// or 16 -- as one AVX-512 tile of 16 lanes under a mask. LLVM's loop
/// vectorizer takes no loop shorter than its vector and vectorized the
/// loop around it instead, with a gather and a scatter every 8 elements
/// (resnet50's 14x14 3x3 convs: 56 of them a kernel). Nothing happens
/// unless every access is along the loop (its last index the variable
/// plus an invariant) or invariant and the rest is pure scalar arithmetic.
bool vectorizeShortLoop(scf::ForOp loop) {
  constexpr int64_t kLanes = 16;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub < 2 ||
      *ub > kLanes || loop.getNumResults() != 0)
    return false;
  Value iv = loop.getInductionVar();
  Block *body = loop.getBody();
  // Allocas only stored to (an accumulator's leftover) are dead.
  SmallVector<Operation *> dead;
  for (Operation &op : body->without_terminator())
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (!llvm::all_of(alloca->getUsers(), [&](Operation *user) {
            auto store = dyn_cast<memref::StoreOp>(user);
            return store && store.getMemRef() == alloca.getResult();
          }))
        return false;
      dead.push_back(alloca);
    }
  auto isDead = [&](Operation &op) {
    auto store = dyn_cast<memref::StoreOp>(op);
    return llvm::is_contained(dead, &op) ||
           (store &&
            llvm::is_contained(dead, store.getMemRef().getDefiningOp()));
  };
  DenseSet<Value> varying{iv};
  DenseSet<Value> loaded, stored;
  for (Operation &op : body->without_terminator()) {
    if (isDead(op))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      ValueRange idx = store.getIndices();
      if (idx.empty() || !contiguousBase(idx.back(), iv, varying) ||
          llvm::any_of(idx.drop_back(),
                       [&](Value v) { return varying.contains(v); }) ||
          store.getValueToStore().getType().isInteger(1))
        return false;
      stored.insert(dlc::rootBuffer(store.getMemRef()));
      continue;
    }
    if (op.getNumRegions() != 0 || op.getNumResults() != 1)
      return false;
    Value result = op.getResult(0);
    bool varies = llvm::any_of(op.getOperands(),
                               [&](Value v) { return varying.contains(v); });
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      ValueRange idx = load.getIndices();
      if (llvm::any_of(idx.drop_back(),
                       [&](Value v) { return varying.contains(v); }))
        return false;
      if (!idx.empty() && varying.contains(idx.back())) {
        // i1 buffers hold a byte an element: no vector of i1 reads them.
        if (!contiguousBase(idx.back(), iv, varying) ||
            result.getType().isInteger(1))
          return false;
        varying.insert(result);
      }
      loaded.insert(dlc::rootBuffer(load.getMemRef()));
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return false;
    if (varies) {
      Type type = result.getType();
      if (!type.isIntOrFloat() && !type.isIndex())
        return false;
      varying.insert(result);
    }
  }
  for (Value buffer : stored)
    if (loaded.contains(buffer))
      return false;
  // The variable and index values of it serve as accesses' last index only
  // (the variable also through one `base + iv`): lanes of them are never
  // computed.
  auto onlyLastIndex = [&](Value v, bool viaAdd) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      if (auto add = dyn_cast<arith::AddIOp>(user); viaAdd && add)
        return contiguousBase(add.getResult(), iv, varying).has_value();
      auto load = dyn_cast<memref::LoadOp>(user);
      auto store = dyn_cast<memref::StoreOp>(user);
      ValueRange idx = load    ? load.getIndices()
                       : store ? store.getIndices()
                               : ValueRange();
      return !idx.empty() && idx.back() == v &&
             !llvm::is_contained(idx.drop_back(), v) &&
             !(store && store.getValueToStore() == v);
    });
  };
  for (Value v : varying)
    if (v.getType().isIndex() && !onlyLastIndex(v, v == iv))
      return false;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  LaneValues lane{b, loc, kLanes, {}, {}};
  lane.scalars.map(iv, b.create<arith::ConstantIndexOp>(loc, 0));
  SmallVector<bool> bits(kLanes, false);
  std::fill_n(bits.begin(), *ub, true);
  auto maskType = VectorType::get({kLanes}, b.getI1Type());
  Value mask = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(bits)));
  for (Operation &op : body->without_terminator()) {
    if (isDead(op))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      b.create<vector::MaskedStoreOp>(loc, store.getMemRef(),
                                      lane.scalarsOf(store.getIndices()), mask,
                                      lane.vector(store.getValueToStore()));
      continue;
    }
    Value result = op.getResult(0);
    if (!varying.contains(result) || result.getType().isIndex()) {
      // Invariants, and lane 0's index values.
      b.clone(op, lane.scalars);
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      VectorType type = lane.vectorOf(result.getType());
      lane.vectors[result] = b.create<vector::MaskedLoadOp>(
          loc, type, load.getMemRef(), lane.scalarsOf(load.getIndices()), mask,
          b.create<arith::ConstantOp>(loc, b.getZeroAttr(type)));
      continue;
    }
    lane.cloneOnVectors(op);
  }
  loop.erase();
  return true;
}

struct VectorizeHostRowsPass
    : dlc::impl::VectorizeHostRowsPassBase<VectorizeHostRowsPass> {
  using VectorizeHostRowsPassBase::VectorizeHostRowsPassBase;
  void runOnOperation() override {
    dlc::KernelCalls calls(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(attrs::kKernel) || func->hasAttr(attrs::kCtaThreads) ||
          !func->hasAttr(attrs::kDistinctArgs))
        continue;
      SmallVector<scf::ParallelOp> rows;
      func.walk([&](scf::ParallelOp p) {
        if (p->getParentOfType<scf::ParallelOp>())
          rows.push_back(p);
      });
      SmallVector<func::CallOp> callers = calls.of(func);
      for (scf::ParallelOp row : rows)
        vectorize(row, callers);
      // AVX-512 masks any access: a short loop is one tile.
      if (anyLengthTiles) {
        SmallVector<scf::ForOp> loops;
        func.walk([&](scf::ForOp loop) {
          if (isInnermostLoop(loop))
            loops.push_back(loop);
        });
        for (scf::ForOp loop : loops)
          vectorizeShortLoop(loop);
      }
      // Accumulator buffers the epilogues left unused, and their views.
      bool dead = false;
      for (BlockArgument arg : func.getArguments())
        dead |= eraseUnusedViews(arg);
      if (dead)
        dlc::dropDeadBufferArguments(func, callers);
    }
  }

  /// Erases the views of `buffer` nothing uses; whether it is unused then.
  static bool eraseUnusedViews(Value buffer) {
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      if (dlc::isBufferView(user) && user->getNumResults() == 1 &&
          eraseUnusedViews(user->getResult(0)))
        user->erase();
    return buffer.use_empty();
  }

  void vectorize(scf::ParallelOp row, ArrayRef<func::CallOp> callers) {
    std::optional<RowNest> nest = matchRow(row);
    if (!nest)
      return;
    RowAnalysis analysis;
    if (failed(analysis.run(*nest)))
      return;
    scf::ForOp outer = nest->loops.front();
    OpBuilder b(outer);
    Location loc = outer.getLoc();
    std::optional<DotForm> dot;
    if (vnni || pmaddwdBits > 0)
      dot = matchDot(*nest, analysis, vnni);
    // An accumulator filled just before (a bias) starts from the value.
    std::optional<RowFill> fill;
    for (Accumulator &acc : nest->accumulators)
      if ((fill = matchFill(*nest, acc)))
        break;
    // The epilogue after it runs on the tiles' registers.
    std::optional<RowEpilogue> epilogue;
    if (epilogues &&
        (epilogue = matchEpilogue(*nest, fill ? &*fill : nullptr, callers))) {
      // (The constants between the nest and the epilogue serve the tiles.)
      for (Operation *op = outer->getNextNode(); op != epilogue->root;) {
        Operation *constant = op;
        op = op->getNextNode();
        constant->moveBefore(outer);
      }
    }
    // Tiles of a power of two lanes (x86 legalizes other vector lengths
    // lane by lane): full tiles, then the rest in halving pieces, or as one
    // tile under a mask.
    bool maskRest =
        maskedRest && !anyLengthTiles && !dot &&
        hasMaskableAccesses(*nest, analysis, epilogue ? &*epilogue : nullptr);
    int64_t tile = std::min<int64_t>(nest->length, lanes);
    if (maskRest)
      tile = std::min<int64_t>(llvm::bit_ceil((uint64_t)tile), lanes);
    else if (!anyLengthTiles)
      tile = (int64_t)llvm::bit_floor((uint64_t)tile);
    // Tiles from `starts` of `widths` lanes, `valids` of them the row's
    // (all when empty); one entry serves every tile.
    auto emitTiles = [&](ValueRange starts, ArrayRef<int64_t> widths,
                         ArrayRef<int64_t> valids = {}) {
      bool useDot = dot && (dot->steps == 2 || widths.front() <= 16);
      auto perTile = [&](ArrayRef<int64_t> values) {
        return values.size() == 1
                   ? SmallVector<int64_t>(starts.size(), values.front())
                   : SmallVector<int64_t>(values);
      };
      SmallVector<int64_t> w = perTile(widths);
      SmallVector<int64_t> v = valids.empty() ? w : perTile(valids);
      // vpdpbusd's tiles are 4, 8 or 16 lanes: a tile between (a 28-wide
      // row's 12-lane rest) runs as the next width under masks (AVX-512
      // masks any access), where its accumulators of 12 lanes were
      // widened and narrowed around each step, a vpermd each (resnet50's
      // layer2 3x3 convs spent as long on their rest as on a full tile).
      if (useDot && dot->steps == 4 && anyLengthTiles)
        for (int64_t &width : w)
          width = vpdpbusdWidth(width);
      TileEmitter(b, *nest, analysis, w, v, starts, useDot ? &*dot : nullptr,
                  pmaddwdBits, anyLengthTiles, fill ? &*fill : nullptr,
                  epilogue ? &*epilogue : nullptr)
          .emit();
    };
    auto at = [&](int64_t offset) -> Value {
      return b.create<arith::ConstantIndexOp>(loc, offset);
    };
    int64_t full = nest->length / tile, rest = nest->length % tile;
    // Full tiles share their reduction loops, as many as the accumulators
    // allow, in passes as even as possible: 13 tiles (resnet50's 14x14 3x3
    // convs on the padded width) run 3, 3, 3, 2, 2, where passes of a
    // divisor ran 13 of 1 tile, a load or broadcast for each FMA.
    // A dot form whose x is interleaved takes its registers for that: one
    // tile a pass. vpdpbusd on grouped reads (a MatMul's quadruples) loads
    // a tile's words as they are (on sliding reads, a span and a permute)
    // and shares each copy's broadcast among the tiles, as FMAs do.
    int64_t perTile = nest->copies * (int64_t)nest->accumulators.size();
    bool groupedDot =
        dot && dot->steps == 4 && llvm::all_of(dot->terms, [](DotTerm &t) {
          return t.groupedX || t.slidingX;
        });
    // With tiles of any length (AVX-512) the rest is one more tile of the
    // last pass: rows of 28 (resnet50's layer2) ran a pass of one tile and
    // one of the 12-lane rest, each 8 FMAs a step for 8 broadcasts and a
    // load with 8 accumulators in a chain of FMA latencies; now one pass
    // of both, 16 FMAs for 8 broadcasts and 2 loads.
    bool restInPass = anyLengthTiles && !dot && rest > 0 && full > 0;
    int64_t most = dot && !groupedDot
                       ? 1
                       : std::clamp<int64_t>(
                             accumulators / perTile, 1,
                             std::max<int64_t>(full + restInPass, 1));
    // A masked rest of at most half a tile shares the last full tile's pass
    // where passes hold one tile (AVX2: 4 copies x 3 registers of 16): a
    // plane of 49 ran 16, 16, 16, 1 in four passes, now three.
    bool restWithLast = maskRest && rest > 0 && full > 0 && most == 1 &&
                        2 * (int64_t)llvm::bit_ceil((uint64_t)rest) <= tile;
    if (restWithLast)
      --full;
    int64_t tiles = full + (restInPass ? 1 : 0);
    int64_t passes = llvm::divideCeil(tiles, most);
    int64_t smaller = passes ? tiles / passes : 0;
    int64_t larger = passes ? tiles % passes : 0;
    // `count` passes of `size` tiles, from tile `first` on.
    auto emitPasses = [&](int64_t first, int64_t count, int64_t size) {
      if (count == 0 || size == 0)
        return;
      if (count == 1) {
        SmallVector<Value> starts;
        for (int64_t t = 0; t < size; ++t)
          starts.push_back(at((first + t) * tile));
        emitTiles(starts, tile);
        return;
      }
      auto loop = b.create<scf::ForOp>(loc, at(first * tile),
                                       at((first + count * size) * tile),
                                       at(size * tile));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> starts{loop.getInductionVar()};
      for (int64_t t = 1; t < size; ++t)
        starts.push_back(
            b.create<arith::AddIOp>(loc, loop.getInductionVar(), at(t * tile)));
      emitTiles(starts, tile);
    };
    emitPasses(0, larger, smaller + 1);
    emitPasses(larger * (smaller + 1), passes - larger - (restInPass ? 1 : 0),
               smaller);
    if (restInPass) {
      // The last pass: its full tiles, then the rest.
      SmallVector<Value> starts;
      SmallVector<int64_t> widths;
      for (int64_t t = full - (smaller - 1); t < full; ++t) {
        starts.push_back(at(t * tile));
        widths.push_back(tile);
      }
      starts.push_back(at(full * tile));
      widths.push_back(rest);
      emitTiles(starts, widths);
      rest = 0;
    }
    // The rest: one tile, one masked tile of the next power of two lanes,
    // or halving pieces (each a pass of the reduction loops: a row of 63
    // took 16, 16, 16, 8, 4, 2, 1, where the masked rest is 16, 16, 16, 15).
    int64_t offset = full * tile;
    if (restWithLast) {
      int64_t width = (int64_t)llvm::bit_ceil((uint64_t)rest);
      emitTiles({at(offset), at(offset + tile)}, {tile, width}, {tile, rest});
      rest = 0;
    } else if (maskRest && rest > 0) {
      int64_t width = (int64_t)llvm::bit_ceil((uint64_t)rest);
      emitTiles(at(offset), width, rest);
      rest = 0;
    }
    SmallVector<int64_t> pieces;
    if (anyLengthTiles && rest > 0)
      pieces.push_back(rest);
    for (int64_t piece = tile / 2; !anyLengthTiles && piece >= 1; piece /= 2)
      if (rest & piece)
        pieces.push_back(piece);
    for (int64_t piece : pieces) {
      emitTiles(at(offset), piece);
      offset += piece;
    }
    outer.erase();
    // The tiles wrote every element the fill did, and ran the epilogue.
    if (fill)
      fill->root.erase();
    if (epilogue)
      epilogue->root.erase();
  }
};
} // namespace
