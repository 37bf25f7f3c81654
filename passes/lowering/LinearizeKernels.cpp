//===- LinearizeKernels.cpp - kernels as 1-D parallel loops ------*- C++
//-*-===//
//
// Both targets share one kernel form: a single scf.parallel from 0 to the
// number of work items, reductions sequential inside. CUDA maps it to
// threads, the host to ranges on its thread pool.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "dialects/dlc/ConstantValues.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_LINEARIZEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// `width` elements per work item are 128-bit accesses for 32-bit data;
/// kernels that store narrower elements (f16, bf16, i8) take as many more
/// as keep their stores 128-bit wide.
int64_t vectorWidthFor(scf::ParallelOp loop, int64_t width) {
  if (width <= 1)
    return width;
  unsigned minBits = 32;
  loop.walk([&](memref::StoreOp store) {
    Type t = store.getValueToStore().getType();
    if (t.isIntOrFloat())
      minBits = std::min(minBits, std::max(8u, t.getIntOrFloatBitWidth()));
  });
  return width * (32 / minBits);
}

/// Whether the work item runs a loop (a reduction) rather than straight-line
/// code.
bool loopsOverReduction(scf::ParallelOp loop) {
  return loop.getBody()
      ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The work items of `loop` (its static trip counts multiplied); none when a
/// bound is not constant.
std::optional<int64_t> tripCount(scf::ParallelOp loop) {
  int64_t count = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
         s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    count *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
  }
  return count;
}

/// The outer parallel dims each value under `nest` depends on (bit d: the
/// nest's d-th induction variable), through operands and enclosing loops'
/// bounds.
DenseMap<Value, uint64_t> outerDependences(scf::ParallelOp nest) {
  DenseMap<Value, uint64_t> deps;
  for (auto [d, iv] : llvm::enumerate(nest.getInductionVars()))
    deps[iv] = uint64_t(1) << d;
  nest.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    uint64_t mask = 0;
    for (Value v : op->getOperands())
      mask |= deps.lookup(v);
    for (Value r : op->getResults())
      deps[r] = mask;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          deps[arg] = mask;
  });
  return deps;
}

/// Host: the fewest work items a kernel's byte row block leaves when it is
/// longer than its row block (threads to share them).
constexpr int64_t kMinByteBlockItems = 16;

/// Host: the work item of a kernel of parallel dims only whose row is
/// short (a loop of at most 32 elements: a padded copy's 7 or 14, a phase's
/// row, a padded buffer's border spans) takes every value of its innermost
/// outer dim (at most 128: the rows of a plane; 4096 elements in all), a
/// loop around the row, where each was a work item of its own:
/// mobilenet_v2's 960-channel 7x7 copies were 6720 work items of 7 bytes,
/// each with the division and remainder of its index (features.2's border
/// spans, 96 x 111 of 32 floats: 0.046 -> 0.034 ms). Not when fewer than
/// kMinCoarseItems work items would remain.
constexpr int64_t kMinCoarseItems = 64;
void coarsenShortRows(RewriterBase &rewriter, scf::ParallelOp &nest) {
  unsigned dims = nest.getNumLoops();
  std::optional<SmallVector<int64_t>> extents = normalizedExtents(nest);
  std::optional<int64_t> items = tripCount(nest);
  if (dims < 2 || !extents || !items)
    return;
  int64_t inner = extents->back();
  if (inner < 2 || inner > 128 || *items / inner < kMinCoarseItems)
    return;
  Block *body = nest.getBody();
  unsigned rows = 0;
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() == 0) {
      if (!isMemoryEffectFree(&op))
        return;
      continue;
    }
    auto row = dyn_cast<scf::ForOp>(op);
    std::optional<int64_t> trip =
        row ? constantTripCount(row.getLowerBound(), row.getUpperBound(),
                                row.getStep())
            : std::nullopt;
    if (!row || row.getNumRegionIterArgs() != 0 || !trip || *trip > 32 ||
        *trip * inner > 4096 || !isInnermostLoop(row))
      return;
    ++rows;
  }
  if (rows != 1 || !isa<scf::ReduceOp>(body->getTerminator()) ||
      body->getTerminator()->getNumOperands() != 0)
    return;
  Location loc = nest.getLoc();
  rewriter.setInsertionPoint(nest);
  auto outer = rewriter.create<scf::ParallelOp>(
      loc, ValueRange(nest.getLowerBound()).drop_back(),
      ValueRange(nest.getUpperBound()).drop_back(),
      ValueRange(nest.getStep()).drop_back());
  rewriter.setInsertionPointToStart(outer.getBody());
  auto loop = rewriter.create<scf::ForOp>(loc, nest.getLowerBound().back(),
                                          nest.getUpperBound().back(),
                                          nest.getStep().back());
  IRMapping mapping;
  for (unsigned d = 0; d + 1 < dims; ++d)
    mapping.map(nest.getInductionVars()[d], outer.getInductionVars()[d]);
  mapping.map(nest.getInductionVars()[dims - 1], loop.getInductionVar());
  rewriter.setInsertionPointToStart(loop.getBody());
  for (Operation &op : body->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(nest);
  nest = outer;
}

/// Host: the work item of a kernel whose row reduces (a row loop inside
/// reduction loops) takes `block` consecutive values of one outer dim `d`
/// that the row's lane-varying reads (a convolution's input window, a
/// MatMul's B row) do not depend on, and `d` becomes the work items'
/// innermost dim. The row loop becomes 2-D, (u, row) with d = d' * block +
/// u, so that `dlc-vectorize-host-rows` shares each of those reads between
/// `block` rows of accumulators; the other parts of the work item (the
/// accumulators' init, the epilogue) run once for each u. Consecutive work
/// items then read the same input rows while they are in cache. Rows whose
/// varying reads are bytes (int8 convolutions and MatMuls, vpdpbusd rows)
/// take `byteBlock` instead: each tile of byte quadruples the vectorizer
/// loads (or interleaves with shuffles, a 3x3 window's) then serves more
/// rows (resnet50_int8's layer4 3x3 convolutions, 16 instead of 8: 1.06 ->
/// 0.74 ms). Blocks are at most kMaxRowCopies.
void blockRows(RewriterBase &rewriter, scf::ParallelOp &nest, int64_t block,
               int64_t byteBlock, int64_t passTiles) {
  if (std::max(block, byteBlock) < 2 || nest.getNumLoops() > 64)
    return;
  std::optional<SmallVector<int64_t>> extents = normalizedExtents(nest);
  if (!extents)
    return;
  Block *body = nest.getBody();
  if (body->walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return;
  // The reduction nests: top-level scf.fors whose perfect nests end in a
  // 1-D scf.parallel row (a row-fused kernel may hold several: BERT's
  // projections, each a MatMul over the work item's token).
  DenseMap<Operation *, scf::ParallelOp> rows;
  for (Operation &op : body->without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      continue;
    scf::ParallelOp inner;
    loop.getBody()->walk([&](scf::ParallelOp p) { inner = p; });
    if (!inner)
      continue;
    std::optional<int64_t> length =
        inner.getNumLoops() == 1 ? getConstantIntValue(inner.getUpperBound()[0])
                                 : std::nullopt;
    if (!length || *length > kMaxRegisterRow)
      return;
    for (Operation *p = inner->getParentOp(); p != &op; p = p->getParentOp())
      if (!isa<scf::ForOp>(p))
        return;
    rows[&op] = inner;
  }
  if (rows.empty())
    return;
  DenseMap<Value, uint64_t> deps = outerDependences(nest);
  // The dims the rows' varying reads use, those all their stores use, and
  // those what runs between the work item and a row uses (a perfect nest:
  // scalar ops without effects beside each loop).
  uint64_t shared = 0, stored = ~uint64_t(0), between = 0;
  bool byteRow = false;
  for (auto [reduction, row] : rows) {
    Value rowIv = row.getInductionVars()[0];
    DenseSet<Value> storedBuffers;
    row.getBody()->walk([&](memref::StoreOp store) {
      storedBuffers.insert(store.getMemRef());
    });
    DenseSet<Value> varying{rowIv};
    for (Operation &op : row.getBody()->without_terminator()) {
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return varying.contains(v); }))
        for (Value r : op.getResults())
          varying.insert(r);
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && varying.contains(load.getResult()) &&
          !storedBuffers.contains(load.getMemRef())) {
        for (Value v : load.getIndices())
          shared |= deps.lookup(v);
        byteRow |= load.getType().isInteger(8);
      }
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        uint64_t m = 0;
        for (Value v : store.getIndices())
          m |= deps.lookup(v);
        stored &= m;
      }
    }
    for (Operation *p = row; p != reduction;) {
      p = p->getParentOp();
      for (Operation &op :
           cast<scf::ForOp>(p).getBody()->without_terminator()) {
        if (op.isAncestor(row))
          continue;
        if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
          return;
        for (Value r : op.getResults())
          between |= deps.lookup(r);
      }
      for (Value v : p->getOperands())
        between |= deps.lookup(v);
    }
  }
  // A byte block longer than the block leaves at least kMinByteBlockItems
  // work items (mobilenet_v2's 14x14 layers kept 8 of 16 channels).
  int64_t items = 1;
  for (int64_t e : *extents)
    items *= e;
  if (byteRow && byteBlock > block)
    while (byteBlock / 2 >= std::max<int64_t>(block, 1) &&
           items / byteBlock < kMinByteBlockItems)
      byteBlock /= 2;
  block = std::min(byteRow && byteBlock > 0 ? byteBlock : block, kMaxRowCopies);
  if (block < 2)
    return;
  // A float row whose 16-lane tiles, its rest included, overflow one
  // vectorizer pass at `block` rows but fit at a block down to half of it
  // prefers such a block (largest first): fp32 resnet50's 7x7 3x3 plane
  // (61 positions: 4 tiles) ran two passes of 8 rows, 2.79 ms, and 2.36 as
  // one of 4.
  SmallVector<int64_t> preferred;
  if (!byteRow && passTiles > 0 && rows.size() == 1) {
    int64_t length =
        *getConstantIntValue(rows.begin()->second.getUpperBound()[0]);
    int64_t tiles = llvm::divideCeil(length, kHostByteTile);
    if (tiles * block > passTiles)
      for (int64_t b = std::min(block - 1, passTiles / tiles);
           b >= std::max<int64_t>(2, llvm::divideCeil(block, 2)); --b)
        preferred.push_back(b);
  }
  // The innermost such dim; its extent a multiple of the block, or of the
  // largest power of two below it that divides it (6 channels: 2).
  int64_t d = -1;
  for (int64_t i = nest.getNumLoops() - 1; i >= 0 && d < 0; --i) {
    uint64_t bit = uint64_t(1) << i;
    if ((shared & bit) || !(stored & bit) || (between & bit))
      continue;
    for (int64_t b : preferred) {
      if ((*extents)[i] % b == 0) {
        d = i;
        block = b;
        break;
      }
    }
    for (int64_t b = block; b >= 2 && d < 0; b /= 2) {
      if ((*extents)[i] % b == 0) {
        d = i;
        block = b;
        break;
      }
    }
  }
  if (d < 0)
    return;
  uint64_t dBit = uint64_t(1) << d;
  Value dIv = nest.getInductionVars()[d];
  auto dependsOnD = [&](Operation &op) {
    uint64_t m = 0;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op.isAncestor(v.getParentRegion()->getParentOp()))
          m |= deps.lookup(v);
    });
    return (m & dBit) != 0;
  };
  // Parts that depend on d run once for each u; their values cannot leave
  // that loop, so those with results must be recomputable: side-effect
  // free, or reads of buffers the work item does not write.
  DenseSet<Value> written;
  body->walk([&](memref::StoreOp store) { written.insert(store.getMemRef()); });
  SmallVector<Operation *> recomputed;
  for (Operation &op : body->without_terminator()) {
    if (rows.count(&op) || op.getNumResults() == 0 || !dependsOnD(op))
      continue;
    auto load = dyn_cast<memref::LoadOp>(op);
    bool pure = op.getNumRegions() == 0 && isMemoryEffectFree(&op);
    if (!pure && !(load && !written.contains(load.getMemRef())))
      return;
    recomputed.push_back(&op);
  }

  // The new nest: d blocked and innermost.
  Location loc = nest.getLoc();
  rewriter.setInsertionPoint(nest);
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < (int64_t)nest.getNumLoops(); ++i)
    if (i != d)
      order.push_back(i);
  order.push_back(d);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t i : order) {
    lbs.push_back(nest.getLowerBound()[i]);
    steps.push_back(nest.getStep()[i]);
    ubs.push_back(rewriter.create<arith::ConstantIndexOp>(
        loc, i == d ? (*extents)[i] / block : (*extents)[i]));
  }
  auto blocked = rewriter.create<scf::ParallelOp>(loc, lbs, ubs, steps);
  IRMapping outer;
  for (auto [k, i] : llvm::enumerate(order))
    outer.map(nest.getInductionVars()[i], blocked.getInductionVars()[k]);
  rewriter.setInsertionPointToStart(blocked.getBody());
  Value base = rewriter.create<arith::MulIOp>(
      loc, outer.lookup(dIv),
      rewriter.create<arith::ConstantIndexOp>(loc, block));
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value count = rewriter.create<arith::ConstantIndexOp>(loc, block);
  // Top-level values that depend on d are recomputed for each u.
  SmallVector<Operation *> dependent;
  auto withU = [&](Value u, IRMapping &mapping) {
    mapping.map(dIv, rewriter.create<arith::AddIOp>(loc, base, u));
    for (Operation *op : dependent)
      rewriter.clone(*op, mapping);
  };
  for (Operation &op : body->without_terminator()) {
    if (!dependsOnD(op)) {
      rewriter.clone(op, outer);
      continue;
    }
    if (llvm::is_contained(recomputed, &op)) {
      dependent.push_back(&op);
      continue;
    }
    if (!rows.count(&op)) {
      auto each = rewriter.create<scf::ForOp>(loc, zero, count, one);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(each.getBody());
      IRMapping mapping = outer;
      withU(each.getInductionVar(), mapping);
      rewriter.clone(op, mapping);
      continue;
    }
    // A reduction nest: its loops as they are, the row 2-D.
    OpBuilder::InsertionGuard guard(rewriter);
    IRMapping mapping = outer;
    scf::ParallelOp row = rows.lookup(&op);
    Value rowIv = row.getInductionVars()[0];
    std::function<void(Operation &)> cloneLevel = [&](Operation &level) {
      if (&level == row.getOperation()) {
        auto blockedRow = rewriter.create<scf::ParallelOp>(
            row.getLoc(),
            ValueRange{zero, mapping.lookupOrDefault(row.getLowerBound()[0])},
            ValueRange{count, mapping.lookupOrDefault(row.getUpperBound()[0])},
            ValueRange{one, mapping.lookupOrDefault(row.getStep()[0])});
        rewriter.setInsertionPointToStart(blockedRow.getBody());
        withU(blockedRow.getInductionVars()[0], mapping);
        mapping.map(rowIv, blockedRow.getInductionVars()[1]);
        for (Operation &inner : row.getBody()->without_terminator())
          rewriter.clone(inner, mapping);
        return;
      }
      auto loop = cast<scf::ForOp>(level);
      auto clone = rewriter.create<scf::ForOp>(
          loop.getLoc(), mapping.lookupOrDefault(loop.getLowerBound()),
          mapping.lookupOrDefault(loop.getUpperBound()),
          mapping.lookupOrDefault(loop.getStep()));
      mapping.map(loop.getInductionVar(), clone.getInductionVar());
      rewriter.setInsertionPointToStart(clone.getBody());
      for (Operation &inner : loop.getBody()->without_terminator()) {
        if (inner.isAncestor(row)) {
          OpBuilder::InsertionGuard g(rewriter);
          cloneLevel(inner);
        } else {
          rewriter.clone(inner, mapping);
        }
      }
    };
    cloneLevel(op);
  }
  rewriter.eraseOp(nest);
  nest = blocked;
}

/// The initializer of a constant global that packing can permute: a
/// resource blob, or a dense attribute (not of i1, whose bits are packed).
std::optional<Attribute> packableInit(memref::GlobalOp global) {
  std::optional<Attribute> init = global.getInitialValue();
  if (!global.getConstant() || !init)
    return std::nullopt;
  if (resourceData(*init))
    return init;
  auto dense = dyn_cast<DenseElementsAttr>(*init);
  if (!dense || dense.getElementType().isInteger(1))
    return std::nullopt;
  return init;
}

/// A read's column within its panel: the load's last index is `p * panel
/// + c` (`stride` 1), or a lane pair's `(p * panel + c) * stride + q`, an
/// affine.apply (dlc-convert-to-linalg pair-matmul-weights: stride 2, q
/// the pair's step).
struct PanelColumn {
  Value column;
  int64_t stride = 1;
  Value step;
};

/// After splitRowsIntoPanels: kernel arguments that only the rows read, at
/// a panel's column (`p * panel + c`, or its lane pair), and that every
/// call passes as a constant global (a MatMul's weights B[.., k, n]), are
/// read from a copy of the global laid out panel by panel, [n / panel, ..,
/// k, n % panel] (pairs: [.., k2, 2 (n % panel) + q]): a panel's reduction
/// then walks consecutive memory (B's rows were 3 or 12 KB apart, a page a
/// step) instead of a column strip. Columns past the panels' (a pair row's
/// padding) are dropped.
void packPanelOperands(func::FuncOp func, scf::ParallelOp nest, int64_t panel,
                       SmallVector<func::CallOp> calls, SymbolTable &symbols,
                       DenseMap<StringAttr, int64_t> &globalReads) {
  if (calls.empty())
    return;
  Value panelIv = nest.getInductionVars().front();
  std::optional<int64_t> panels =
      getConstantIntValue(nest.getUpperBound().front());
  if (!panels)
    return;
  // `p * panel + c`: the local column c.
  auto localColumn = [&](Value index) -> Value {
    auto add = stripIdentityApply(index).getDefiningOp<arith::AddIOp>();
    auto mul = add ? add.getLhs().getDefiningOp<arith::MulIOp>() : nullptr;
    std::optional<int64_t> width =
        mul ? getConstantIntValue(mul.getRhs()) : std::nullopt;
    if (!mul || mul.getLhs() != panelIv || width != panel)
      return nullptr;
    return add.getRhs();
  };
  auto panelColumn = [&](Value index) -> std::optional<PanelColumn> {
    if (Value c = localColumn(index))
      return PanelColumn{c, 1, Value()};
    auto apply = index.getDefiningOp<affine::AffineApplyOp>();
    if (!apply || apply.getAffineMap().getNumResults() != 1 ||
        apply.getAffineMap().getNumSymbols() != 0 ||
        apply.getNumOperands() != 2)
      return std::nullopt;
    auto sum = dyn_cast<AffineBinaryOpExpr>(apply.getAffineMap().getResult(0));
    if (!sum || sum.getKind() != AffineExprKind::Add)
      return std::nullopt;
    for (auto [scaled, plain] : {std::pair(sum.getLHS(), sum.getRHS()),
                                 std::pair(sum.getRHS(), sum.getLHS())}) {
      auto mul = dyn_cast<AffineBinaryOpExpr>(scaled);
      auto step = dyn_cast<AffineDimExpr>(plain);
      if (!mul || mul.getKind() != AffineExprKind::Mul || !step)
        continue;
      auto dim = dyn_cast<AffineDimExpr>(mul.getLHS());
      auto stride = dyn_cast<AffineConstantExpr>(mul.getRHS());
      if (!dim || !stride || stride.getValue() < 2 ||
          dim.getPosition() == step.getPosition())
        continue;
      Value c = localColumn(apply.getOperand(dim.getPosition()));
      if (!c)
        continue;
      return PanelColumn{c, stride.getValue(),
                         apply.getOperand(step.getPosition())};
    }
    return std::nullopt;
  };
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getRank() < 1 || arg.use_empty())
      continue;
    // Every read at a panel column, all with one stride (a pair's q is
    // below it: the loop over q runs 0..stride-1, which the pairs' maps
    // imply).
    std::optional<int64_t> stride;
    bool rowsOnly = llvm::all_of(arg.getUsers(), [&](Operation *user) {
      auto load = dyn_cast<memref::LoadOp>(user);
      std::optional<PanelColumn> col =
          load ? panelColumn(load.getIndices().back()) : std::nullopt;
      if (!col || (stride && *stride != col->stride))
        return false;
      stride = col->stride;
      return true;
    });
    if (!rowsOnly || !stride)
      continue;
    int64_t width = panel * *stride;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t columns = shape.back(), outer = type.getNumElements() / columns;
    if (*panels * width > columns ||
        (*stride == 1 && *panels * width != columns))
      continue;
    // Every call passes a constant global with bytes to permute.
    SmallVector<memref::GlobalOp> globals;
    for (func::CallOp call : calls) {
      auto get = call.getOperand(arg.getArgNumber())
                     .getDefiningOp<memref::GetGlobalOp>();
      auto global =
          get ? symbols.lookup<memref::GlobalOp>(get.getName()) : nullptr;
      if (!global || !packableInit(global))
        break;
      globals.push_back(global);
    }
    if (globals.size() != calls.size())
      continue;
    // [outer.., n] -> [n / panel, outer.., n % panel].
    SmallVector<int64_t> packedShape{*panels};
    llvm::append_range(packedShape, shape.drop_back());
    packedShape.push_back(width);
    auto packedType = MemRefType::get(packedShape, type.getElementType());
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    for (auto [call, global] : llvm::zip(calls, globals)) {
      std::string name = (global.getSymName() + "_panels" + Twine(panel)).str();
      auto packed = symbols.lookup<memref::GlobalOp>(name);
      if (!packed) {
        auto tensorType =
            RankedTensorType::get(packedShape, type.getElementType());
        Attribute init = *packableInit(global);
        auto dense = dyn_cast<DenseElementsAttr>(init);
        if (dense && dense.isSplat()) {
          init = DenseElementsAttr::get(tensorType,
                                        dense.getSplatValue<Attribute>());
        } else {
          ArrayRef<char> src = dense ? dense.getRawData() : *resourceData(init);
          AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
              *panels * outer * width * bytes, /*align=*/64);
          MutableArrayRef<char> dst = blob.getMutableData();
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t p = 0; p < *panels; ++p)
              std::memcpy(&dst[(p * outer + o) * width * bytes],
                          &src[(o * columns + p * width) * bytes],
                          width * bytes);
          init =
              DenseResourceElementsAttr::get(tensorType, name, std::move(blob));
        }
        OpBuilder b(global);
        b.setInsertionPointAfter(global);
        packed = b.create<memref::GlobalOp>(
            global.getLoc(), name, b.getStringAttr("private"), packedType, init,
            /*constant=*/true, global.getAlignmentAttr());
        symbols.insert(packed);
      }
      OpBuilder b(call);
      Value view = b.create<memref::GetGlobalOp>(call.getLoc(), packedType,
                                                 packed.getSymName());
      Operation *get = call.getOperand(arg.getArgNumber()).getDefiningOp();
      call->setOperand(arg.getArgNumber(), view);
      if (get->use_empty()) {
        get->erase();
        // The original goes when nothing else reads it.
        if (--globalReads[global.getSymNameAttr()] == 0)
          symbols.erase(global);
      }
    }
    arg.setType(packedType);
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      auto load = cast<memref::LoadOp>(user);
      ValueRange idx = load.getIndices();
      SmallVector<Value> packedIdx{panelIv};
      llvm::append_range(packedIdx, idx.drop_back());
      PanelColumn col = *panelColumn(idx.back());
      OpBuilder b(load);
      Value local = col.column;
      if (col.stride != 1) {
        AffineExpr c = b.getAffineDimExpr(0), q = b.getAffineDimExpr(1);
        local = b.create<affine::AffineApplyOp>(
            load.getLoc(), AffineMap::get(2, 0, c * col.stride + q),
            ValueRange{col.column, col.step});
      }
      packedIdx.push_back(local);
      load.getResult().replaceAllUsesWith(
          b.create<memref::LoadOp>(load.getLoc(), arg, packedIdx));
      load.erase();
    }
  }
  SmallVector<Type> inputs(func.front().getArgumentTypes());
  func.setType(FunctionType::get(func.getContext(), inputs, {}));
}

struct LinearizeKernelsPass
    : dlc::impl::LinearizeKernelsPassBase<LinearizeKernelsPass> {
  using LinearizeKernelsPassBase::LinearizeKernelsPassBase;
  std::optional<KernelCalls> calls;
  std::optional<SymbolTable> symbols;
  /// The memref.get_global ops of each global (packPanelOperands drops a
  /// global when its last one goes).
  DenseMap<StringAttr, int64_t> globalReads;

  void runOnOperation() override {
    calls.emplace(getOperation());
    symbols.emplace(getOperation());
    globalReads.clear();
    for (func::FuncOp model : modelFunctions(getOperation()))
      model.walk([&](memref::GetGlobalOp get) {
        ++globalReads[get.getNameAttr().getAttr()];
      });
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      // CTA programs (dlc-tile-gemm-kernels) are already linearized.
      if (func->hasAttr(attrs::kKernel) && !func->hasAttr(attrs::kCtaThreads) &&
          failed(linearize(func)))
        return signalPassFailure();
  }

  LogicalResult linearize(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    unsigned numOps = 0;
    func.walk([&](Operation *op) {
      numOps += isa<linalg::LinalgOp, AttentionKernelOp>(op);
    });
    if (numOps == 0)
      return func.emitOpError("expected structured ops in a kernel");
    FailureOr<scf::ParallelOp> nest =
        lowerKernelToLoopNest(rewriter, func, rowWorkItems, attentionTile);
    if (failed(nest))
      return func.emitOpError("ops do not fuse into one parallel loop nest");
    int64_t panel = 0;
    if (rowWorkItems && rowPanel > 0)
      if ((panel = splitRowsIntoPanels(rewriter, *nest, rowPanel)))
        packPanelOperands(func, *nest, panel, calls->of(func), *symbols,
                          globalReads);
    // MatMul panels keep the row block: 16 rows of BERT's int8 panels ran a
    // tile a pass where 8 ran two (78.7 -> 85.7 ms).
    if (rowWorkItems) {
      blockRows(rewriter, *nest, rowBlock, panel ? 0 : byteRowBlock,
                panel ? 0 : rowPassTiles);
      coarsenShortRows(rewriter, *nest);
    }
    Block &body = func.getBody().front();
    int64_t width = vectorWidth;
    if (minThreads > 0 && width > 1 && loopsOverReduction(*nest))
      if (std::optional<int64_t> items = tripCount(*nest))
        if (*items / width < minThreads)
          width = 1;
    scf::ParallelOp loop =
        splitInnermostDim(rewriter, *nest, vectorWidthFor(*nest, width));
    if (loop == *nest)
      loop = splitInnermostDim(rewriter, *nest, width);
    std::optional<int64_t> workItems = tripCount(loop);
    if (!workItems)
      return loop.emitOpError("expected static loop bounds");
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
      loop = *body.getOps<scf::ParallelOp>().begin();
    }
    // Collapsing computes the bound with arith ops; pin it to the constant
    // so that both targets read the work item count off the loop.
    rewriter.setInsertionPoint(loop);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), 1);
    Value count =
        rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), *workItems);
    auto lb = getConstantIntValue(loop.getLowerBound()[0]);
    auto step = getConstantIntValue(loop.getStep()[0]);
    if (!lb || !step || *lb != 0 || *step != 1)
      return loop.emitOpError("expected a normalized loop");
    loop.getLowerBoundMutable().assign(zero);
    loop.getUpperBoundMutable().assign(count);
    loop.getStepMutable().assign(one);
    func->setAttr(attrs::kWorkItems, rewriter.getI64IntegerAttr(*workItems));
    return success();
  }
};
} // namespace
