//===- CollapseRowPlanes.cpp - host rows over whole planes --------*- C++
//-*-===//
//
// A host kernel's row is its innermost parallel dim: a convolution's output
// width. Where the two innermost parallel dims (height, width) are read and
// written as one contiguous plane by every op of the kernel (a 1x1 stride-1
// convolution, its bias, residual and activation), they merge into one row
// of height x width elements over collapsed views.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dlc/DlcDialect.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_COLLAPSEROWPLANESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// How one structured op of a kernel collapses: the plane's dims `a` and
/// `a + 1` of its iteration domain merge; the reduction dims of extent 1
/// (a 1x1 window's) go, their indices 0.
struct OpPlane {
  linalg::LinalgOp op;
  unsigned a = 0;
  int64_t height = 0, width = 0;
  /// The rows the other parallel dims span (work items x row block).
  int64_t rows = 1;
  llvm::SmallBitVector unitReductions;
  /// Each operand's maps with the unit reductions at 0, and the result
  /// position of the plane's first dim (-1: the operand does not span it).
  SmallVector<AffineMap> maps;
  SmallVector<int> planeResult;
};

/// The group g of a plane operand's second result `e`: `second * g + r`,
/// r not reading the plane's dims (a row of byte quadruples, `4 w + q`:
/// dlc-convert-to-linalg quad-conv-inputs), g = 1 for `second` itself.
/// Merged with the first result `first` over a memref dim of width * g
/// elements, it reads `first * g + r`.
std::optional<int64_t> groupOf(AffineExpr e, AffineExpr first,
                               AffineExpr second, unsigned numDims) {
  if (e == second)
    return 1;
  if (e.isFunctionOfDim(cast<AffineDimExpr>(first).getPosition()))
    return std::nullopt;
  AffineExpr zero = getAffineConstantExpr(0, e.getContext());
  AffineExpr rest = simplifyAffineExpr(e.replace(second, zero), numDims, 0);
  AffineExpr scaled = simplifyAffineExpr(e - rest, numDims, 0);
  auto mul = dyn_cast<AffineBinaryOpExpr>(scaled);
  if (!mul || mul.getKind() != AffineExprKind::Mul || mul.getLHS() != second)
    return std::nullopt;
  auto g = dyn_cast<AffineConstantExpr>(mul.getRHS());
  if (!g || g.getValue() < 1)
    return std::nullopt;
  return g.getValue();
}

/// The plane of `op`: its last two parallel dims, consecutive in its
/// iteration domain, which every operand indexes either not at all or as
/// two consecutive results that are those dims over two memref dims of the
/// same extents, or the first and a group of the second (groupOf) over
/// the height and g times the width. Nothing when the op does not qualify.
std::optional<OpPlane> planeOf(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.hasIndexSemantics() ||
      op->getNumRegions() != 1)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel;
  for (auto [d, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel)
      parallel.push_back(d);
  if (parallel.size() < 2 ||
      parallel.back() != parallel[parallel.size() - 2] + 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  OpPlane plane;
  plane.op = op;
  plane.a = parallel[parallel.size() - 2];
  plane.height = ranges[plane.a];
  plane.width = ranges[plane.a + 1];
  if (ShapedType::isDynamic(plane.height) || ShapedType::isDynamic(plane.width))
    return std::nullopt;
  for (unsigned d : ArrayRef<unsigned>(parallel).drop_back(2))
    plane.rows *= ranges[d];
  MLIRContext *ctx = op->getContext();
  plane.unitReductions.resize(op.getNumLoops());
  SmallVector<AffineExpr> substitution;
  for (auto [d, it] : llvm::enumerate(iterators)) {
    bool unit = it == utils::IteratorType::reduction && ranges[d] == 1;
    plane.unitReductions[d] = unit;
    substitution.push_back(unit ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d, ctx));
  }
  AffineExpr first = getAffineDimExpr(plane.a, ctx);
  AffineExpr second = getAffineDimExpr(plane.a + 1, ctx);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = simplifyAffineMap(
        op.getMatchingIndexingMap(&operand).replaceDimsAndSymbols(
            substitution, {}, op.getNumLoops(), 0));
    int position = -1;
    int64_t group = 1;
    for (auto [i, result] : llvm::enumerate(map.getResults())) {
      bool usesPlane = result.isFunctionOfDim(plane.a) ||
                       result.isFunctionOfDim(plane.a + 1);
      if (!usesPlane)
        continue;
      if (result == first && position < 0 && i + 1 < map.getNumResults()) {
        std::optional<int64_t> g =
            groupOf(map.getResult(i + 1), first, second, map.getNumDims());
        if (!g)
          return std::nullopt;
        position = i;
        group = *g;
        continue;
      }
      if (position >= 0 && static_cast<int>(i) == position + 1)
        continue;
      return std::nullopt;
    }
    if (position >= 0) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !type.getLayout().isIdentity() ||
          type.getDimSize(position) != plane.height ||
          type.getDimSize(position + 1) != plane.width * group)
        return std::nullopt;
    }
    plane.maps.push_back(map);
    plane.planeResult.push_back(position);
  }
  return plane;
}

/// The view of `buffer` with dims `position` and `position + 1` merged,
/// one per buffer and position, at the top of the kernel.
Value collapsedView(RewriterBase &rewriter, func::FuncOp kernel, Value buffer,
                    int position,
                    DenseMap<std::pair<Value, int>, Value> &views) {
  Value &view = views[{buffer, position}];
  if (view)
    return view;
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == position + 1)
      groups.back().push_back(d);
    else
      groups.push_back({d});
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&kernel.getBody().front());
  view =
      rewriter.create<memref::CollapseShapeOp>(buffer.getLoc(), buffer, groups);
  return view;
}

/// Rewrites `plane.op` as a generic over the merged dim.
void collapse(RewriterBase &rewriter, func::FuncOp kernel, const OpPlane &plane,
              DenseMap<std::pair<Value, int>, Value> &views) {
  linalg::LinalgOp op = plane.op;
  MLIRContext *ctx = op->getContext();
  unsigned numLoops = op.getNumLoops();
  // Old dim -> new dim; the second plane dim and the unit reductions go.
  SmallVector<AffineExpr> renumber(numLoops, getAffineConstantExpr(0, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (d == plane.a + 1 || plane.unitReductions[d])
      continue;
    renumber[d] = getAffineDimExpr(iterators.size(), ctx);
    iterators.push_back(it);
  }
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  for (auto [operand, map, position] :
       llvm::zip(op->getOpOperands(), plane.maps, plane.planeResult)) {
    SmallVector<AffineExpr> results(map.getResults());
    Value value = operand.get();
    if (position >= 0) {
      // (h, w) -> hw; a group (h, g w + r) -> g hw + r.
      AffineExpr first = getAffineDimExpr(plane.a, ctx),
                 second = getAffineDimExpr(plane.a + 1, ctx);
      results[position] = results[position + 1].replace(second, first);
      results.erase(results.begin() + position + 1);
      value = collapsedView(rewriter, kernel, value, position, views);
    }
    maps.push_back(
        AffineMap::get(numLoops, 0, results, ctx)
            .replaceDimsAndSymbols(renumber, {}, iterators.size(), 0));
    operands.push_back(value);
  }
  unsigned numInputs = op.getNumDpsInputs();
  rewriter.setInsertionPoint(op);
  auto generic = rewriter.create<linalg::GenericOp>(
      op.getLoc(), TypeRange{}, ValueRange(operands).take_front(numInputs),
      ValueRange(operands).drop_front(numInputs), maps, iterators);
  rewriter.inlineRegionBefore(op->getRegion(0), generic.getRegion(),
                              generic.getRegion().begin());
  rewriter.eraseOp(op);
}

struct CollapseRowPlanesPass
    : dlc::impl::CollapseRowPlanesPassBase<CollapseRowPlanesPass> {
  using CollapseRowPlanesPassBase::CollapseRowPlanesPassBase;

  void runOnOperation() override {
    if (maxRow <= 0)
      return;
    for (auto kernel : getOperation().getOps<func::FuncOp>())
      if (kernel->hasAttr(attrs::kKernel) && !kernel.isExternal())
        collapseKernel(kernel);
  }

  void collapseKernel(func::FuncOp kernel) {
    SmallVector<linalg::LinalgOp> ops;
    bool reduces = false, other = false;
    kernel.walk([&](Operation *op) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        ops.push_back(linalgOp);
        reduces |= linalgOp.getNumReductionLoops() > 0;
      } else if (isa<AttentionKernelOp>(op)) {
        other = true;
      }
    });
    if (ops.empty() || !reduces || other)
      return;
    SmallVector<OpPlane> planes;
    for (linalg::LinalgOp op : ops) {
      std::optional<OpPlane> plane = planeOf(op);
      // One plane for all: their loop nests must still fuse.
      if (!plane || plane->op->getParentOp() != kernel.getOperation() ||
          (!planes.empty() && (plane->height != planes.front().height ||
                               plane->width != planes.front().width)))
        return;
      planes.push_back(*plane);
    }
    // Rows of a register row (or of whole byte tiles where a row's
    // width would end in pieces), and enough of them for the threads.
    int64_t height = planes.front().height, width = planes.front().width;
    bool bytePieces = width % kHostByteTile != 0 &&
                      (height * width) % kHostByteTile == 0 &&
                      llvm::any_of(ops, [](linalg::LinalgOp op) {
                        return op.getNumReductionLoops() > 0 &&
                               llvm::any_of(op.getDpsInputs(), [](Value v) {
                                 Type elt = getElementTypeOrSelf(v.getType());
                                 return elt.isInteger(8);
                               });
                      });
    int64_t limit = bytePieces ? std::max(maxRow, byteMaxRow) : maxRow;
    // Longer planes of whole tiles split into panels of the row form's
    // vector width (resnet50's 28x28 1x1 convs: 1.23-1.49 -> 0.97-1.07 ms).
    if ((height * width) % kHostByteTile == 0)
      limit = std::max(limit, panelMaxRow.getValue());
    if (height * width > limit ||
        llvm::any_of(planes, [&](const OpPlane &plane) {
          return plane.rows < std::max<int64_t>(minRows, kMinHostRows);
        }))
      return;
    // The views' sources must dominate the top of the kernel.
    for (const OpPlane &plane : planes)
      for (auto [operand, position] :
           llvm::zip(plane.op->getOpOperands(), plane.planeResult))
        if (position >= 0 && !isa<BlockArgument>(operand.get()))
          return;
    IRRewriter rewriter(kernel.getContext());
    DenseMap<std::pair<Value, int>, Value> views;
    for (const OpPlane &plane : planes)
      collapse(rewriter, kernel, plane, views);
  }
};
} // namespace
