//===- FoldPaddedCopies.cpp - producers write a padded copy's interior ---===//
//
// A host conv whose window leaves its input reads a padded copy: one kernel
// fills the copy with the pad value, another copies the input into its
// interior (dlc-convert-to-linalg's padSpatial, fillThenCopy). Where the
// input is a buffer only its producer writes and only the copy reads, the
// producer writes the interior itself, through a subview, and the copy
// goes. The fill then writes the border alone, through strided views.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FOLDPADDEDCOPIESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// The only structured op of a kernel's body, if the rest is constants
/// (and the return).
linalg::GenericOp soleGeneric(func::FuncOp kernel) {
  linalg::GenericOp generic;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g || generic)
      return nullptr;
    generic = g;
  }
  return generic;
}

/// Whether `type` is a statically shaped identity-layout memref.
bool isPlain(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getLayout().isIdentity();
}

/// The offsets of a copy kernel's single generic that writes its input
/// (identity map, `input` its argument number) into the interior of its
/// output (argument `output`) through a shifted map (d_i + c_i, c_i >= 0).
std::optional<SmallVector<int64_t>>
interiorCopy(func::FuncOp kernel, unsigned &input, unsigned &output) {
  linalg::GenericOp copy = soleGeneric(kernel);
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      copy.getNumReductionLoops() != 0)
    return std::nullopt;
  auto in = dyn_cast<BlockArgument>(copy.getDpsInputs()[0]);
  auto out = dyn_cast<BlockArgument>(copy.getDpsInits()[0]);
  if (!in || !out || in == out || !isPlain(in.getType()) ||
      !isPlain(out.getType()))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(copy.getBody()->getTerminator());
  if (yield.getValues().size() != 1 ||
      yield.getValues()[0] != copy.getBody()->getArgument(0))
    return std::nullopt;
  AffineMap inMap = copy.getIndexingMapsArray()[0];
  AffineMap outMap = copy.getIndexingMapsArray()[1];
  if (!inMap.isIdentity() || outMap.getNumResults() != outMap.getNumDims())
    return std::nullopt;
  SmallVector<int64_t> offsets;
  for (auto [i, e] : llvm::enumerate(outMap.getResults())) {
    AffineExpr shift = e - getAffineDimExpr(i, e.getContext());
    auto c = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(shift, outMap.getNumDims(), 0));
    if (!c || c.getValue() < 0)
      return std::nullopt;
    offsets.push_back(c.getValue());
  }
  input = in.getArgNumber();
  output = out.getArgNumber();
  return offsets;
}

/// Whether a kernel only fills its argument `output` (every element, from
/// rank-0 inputs or constants).
bool fillsArgument(func::FuncOp kernel, unsigned output) {
  linalg::GenericOp fill = soleGeneric(kernel);
  if (!fill || fill.getNumDpsInits() != 1 ||
      fill.getDpsInits()[0] != kernel.getArgument(output) ||
      fill.getNumReductionLoops() != 0 ||
      !fill.getMatchingIndexingMap(fill.getDpsInitOperand(0)).isIdentity())
    return false;
  return llvm::all_of(fill.getDpsInputOperands(),
                      [&](OpOperand *o) {
                        return fill.getMatchingIndexingMap(o).getNumResults() ==
                               0;
                      }) &&
         fill.getBody()->getOps<linalg::IndexOp>().empty();
}

/// A view of a buffer with static offset, sizes and strides.
struct View {
  int64_t offset;
  SmallVector<int64_t> sizes, strides;
};

/// The views that cover what a buffer of shape `shape` holds outside the
/// box at `offsets` of `sizes`, where the box spans every dim but the last
/// two (a padded plane's interior): per plane, the span before the first
/// interior row, the spans between interior rows (one row each: a row's
/// right border and the next row's left one), and the span after the last.
/// Empty when the box is not of that form.
SmallVector<View> borderViews(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> offsets,
                              ArrayRef<int64_t> sizes) {
  unsigned rank = shape.size();
  if (rank < 2)
    return {};
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (offsets[i] != 0 || sizes[i] != shape[i])
      return {};
  int64_t planes = 1;
  for (unsigned i = 0; i + 2 < rank; ++i)
    planes *= shape[i];
  int64_t width = shape[rank - 1], plane = shape[rank - 2] * width;
  int64_t top = offsets[rank - 2], rows = sizes[rank - 2];
  int64_t left = offsets[rank - 1], cols = sizes[rank - 1];
  // First interior element, and the element after the last row's end.
  int64_t first = top * width + left,
          end = (top + rows - 1) * width + left + cols;
  SmallVector<View> views;
  if (first > 0)
    views.push_back({0, {planes, first}, {plane, 1}});
  if (cols < width)
    views.push_back(
        {first + cols, {planes, rows - 1, width - cols}, {plane, width, 1}});
  if (end < plane)
    views.push_back({end, {planes, plane - end}, {plane, 1}});
  // Rows of one element or none (a 1-row interior's middle view) go.
  llvm::erase_if(views,
                 [](const View &v) { return llvm::is_contained(v.sizes, 0); });
  return views;
}

struct FoldPaddedCopiesPass
    : dlc::impl::FoldPaddedCopiesPassBase<FoldPaddedCopiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    KernelCalls calls(module);
    // The copy kernels' calls not folded yet.
    DenseMap<Operation *, int64_t> remaining;
    for (func::FuncOp model : modelFunctions(module)) {
      SmallVector<func::CallOp> candidates;
      model.walk([&](func::CallOp call) { candidates.push_back(call); });
      for (func::CallOp copy : candidates)
        fold(copy, symbols, calls, remaining);
    }
  }

  /// The kernel with a body `call` calls, if it calls one.
  static func::FuncOp kernelOf(func::CallOp call, SymbolTable &symbols) {
    func::FuncOp callee = calledKernel(call, symbols);
    return callee && !callee.isExternal() ? callee : nullptr;
  }

  void fold(func::CallOp copy, SymbolTable &symbols, const KernelCalls &calls,
            DenseMap<Operation *, int64_t> &remaining) {
    func::FuncOp copyKernel = kernelOf(copy, symbols);
    unsigned in = 0, out = 0;
    std::optional<SmallVector<int64_t>> offsets =
        copyKernel ? interiorCopy(copyKernel, in, out) : std::nullopt;
    if (!offsets)
      return;
    Value source = copy.getOperand(in), padded = copy.getOperand(out);
    // Rows shorter than a tile: the producer (a 1x1 conv) runs its plane
    // as one row (dlc-collapse-row-planes), which a strided view breaks
    // (mobilenet_v2's 7x7 expand convs took 1.35x the copy's savings).
    if (cast<MemRefType>(source.getType()).getShape().back() < kHostByteTile)
      return;
    auto sourceAlloc = source.getDefiningOp<memref::AllocOp>();
    auto paddedAlloc = padded.getDefiningOp<memref::AllocOp>();
    Block *block = copy->getBlock();
    if (!sourceAlloc || !paddedAlloc || sourceAlloc->getBlock() != block ||
        paddedAlloc->getBlock() != block)
      return;
    // The source: written by one kernel called once (the producer), read
    // by the copy alone.
    func::CallOp producer;
    for (Operation *user : source.getUsers()) {
      if (user == copy.getOperation())
        continue;
      auto call = dyn_cast<func::CallOp>(user);
      if (producer || !call || call->getBlock() != block ||
          !call->isBeforeInBlock(copy))
        return;
      producer = call;
    }
    func::FuncOp producerKernel =
        producer ? kernelOf(producer, symbols) : nullptr;
    if (!producerKernel || calls.of(producerKernel).size() != 1 ||
        llvm::count(producer.getOperands(), source) != 1)
      return;
    unsigned arg = llvm::find(producer.getOperands(), source) -
                   producer.getOperands().begin();
    // Its body reaches the buffer through structured ops alone, which take
    // a strided view as they take the buffer.
    if (!llvm::all_of(producerKernel.getArgument(arg).getUsers(),
                      [](Operation *op) { return isa<linalg::LinalgOp>(op); }))
      return;
    // The padded copy: filled by one kernel between its allocation and the
    // copy, which moves before the producer (its other operands are
    // defined there already).
    func::CallOp fill;
    for (Operation *op = paddedAlloc->getNextNode(); op != copy;
         op = op->getNextNode()) {
      if (!llvm::is_contained(op->getOperands(), padded))
        continue;
      auto call = dyn_cast<func::CallOp>(op);
      if (fill || !call)
        return;
      fill = call;
    }
    func::FuncOp fillKernel = fill ? kernelOf(fill, symbols) : nullptr;
    if (!fillKernel || llvm::count(fill.getOperands(), padded) != 1)
      return;
    unsigned filled =
        llvm::find(fill.getOperands(), padded) - fill.getOperands().begin();
    if (!fillsArgument(fillKernel, filled))
      return;
    DominanceInfo dominance;
    for (Value v : fill.getOperands())
      if (v != padded && !dominance.properlyDominates(v, producer))
        return;

    paddedAlloc->moveBefore(producer);
    fill->moveBefore(producer);
    OpBuilder b(producer);
    auto sourceType = cast<MemRefType>(source.getType());
    SmallVector<int64_t> ones(sourceType.getRank(), 1);
    auto interior = b.create<memref::SubViewOp>(copy.getLoc(), padded, *offsets,
                                                sourceType.getShape(), ones);
    producer->setOperand(arg, interior);
    producerKernel.getArgument(arg).setType(interior.getType());
    producerKernel.setFunctionType(b.getFunctionType(
        producerKernel.getBody().front().getArgumentTypes(), {}));
    copy.erase();
    sourceAlloc.erase();
    release(copyKernel, symbols, calls, remaining);
    fillBorder(fill, fillKernel, filled, *offsets, sourceType.getShape(),
               symbols, calls, remaining);
  }

  /// Erases `kernel` once the last of its calls went.
  static void release(func::FuncOp kernel, SymbolTable &symbols,
                      const KernelCalls &calls,
                      DenseMap<Operation *, int64_t> &remaining) {
    auto left = remaining.try_emplace(kernel, calls.of(kernel).size());
    if (--left.first->second == 0)
      symbols.erase(kernel);
  }

  /// Replaces the call `fill` of a kernel that fills its argument `filled`,
  /// a buffer whose interior (`offsets`, `sizes`) a producer now writes, by
  /// calls that fill the border alone: the interior's lines were written
  /// twice, the fill's lines read from memory first (features.2 of
  /// mobilenet_v2: 6.3 MB a run, a quarter of it border).
  void fillBorder(func::CallOp fill, func::FuncOp fillKernel, unsigned filled,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                  SymbolTable &symbols, const KernelCalls &calls,
                  DenseMap<Operation *, int64_t> &remaining) {
    Value padded = fill.getOperand(filled);
    auto paddedType = cast<MemRefType>(padded.getType());
    SmallVector<View> views =
        borderViews(paddedType.getShape(), offsets, sizes);
    if (views.empty())
      return;
    OpBuilder b(fill);
    for (const View &view : views) {
      auto type = MemRefType::get(
          view.sizes, paddedType.getElementType(),
          StridedLayoutAttr::get(b.getContext(), view.offset, view.strides));
      func::FuncOp kernel = borderKernel(fillKernel, filled, type, symbols);
      Value border = b.create<memref::ReinterpretCastOp>(
          fill.getLoc(), type, padded, view.offset, view.sizes, view.strides);
      SmallVector<Value> operands(fill.getOperands());
      operands[filled] = border;
      b.create<func::CallOp>(fill.getLoc(), kernel, operands);
    }
    fill.erase();
    release(fillKernel, symbols, calls, remaining);
  }

  /// A copy of the fill kernel `fill` that fills its argument `filled` of
  /// type `type` instead (one per kernel and type).
  func::FuncOp borderKernel(func::FuncOp fill, unsigned filled, MemRefType type,
                            SymbolTable &symbols) {
    func::FuncOp &kernel = borderKernels[{fill, type}];
    if (kernel)
      return kernel;
    kernel = fill.clone();
    kernel.setName((fill.getName() + "_border").str());
    symbols.insert(kernel, Block::iterator(fill));
    BlockArgument arg = kernel.getArgument(filled);
    arg.setType(type);
    kernel.setFunctionType(FunctionType::get(
        kernel.getContext(), kernel.getBody().front().getArgumentTypes(), {}));
    linalg::GenericOp old = soleGeneric(kernel);
    OpBuilder b(old);
    unsigned rank = type.getRank();
    SmallVector<AffineMap> maps(old.getNumDpsInputs(),
                                AffineMap::get(rank, 0, b.getContext()));
    maps.push_back(b.getMultiDimIdentityMap(rank));
    auto generic = b.create<linalg::GenericOp>(
        old.getLoc(), TypeRange{}, old.getDpsInputs(), ValueRange{arg}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel));
    generic.getRegion().takeBody(old.getRegion());
    generic->setDiscardableAttrs(old->getDiscardableAttrDictionary());
    old.erase();
    return kernel;
  }

  /// The fill kernels' copies for border views, by kernel and view type.
  DenseMap<std::pair<Operation *, Type>, func::FuncOp> borderKernels;
};
} // namespace
