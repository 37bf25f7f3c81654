//===- ReconcileIndexCasts.cpp - index width casts between lowerings -*- C++
//-*-===//
//
// convert-nvgpu-to-nvvm has no index-bitwidth option: it lowers `index` to
// i64 while convert-gpu-to-nvvm lowers it to i32 for 32-bit kernel index
// arithmetic. The casts the two leave between them, i32 -> index -> i64
// and back, become LLVM sign extensions and truncations, and so do the
// offsets, sizes and strides of memref descriptors cast likewise.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_RECONCILEINDEXCASTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;

namespace {
/// cast(cast(x : iN -> index) : index -> iM), N != M: sext or trunc of x.
struct IndexCastChain : OpRewritePattern<UnrealizedConversionCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnrealizedConversionCastOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumOperands() != 1 || op.getNumResults() != 1 ||
        !op.getOperand(0).getType().isIndex())
      return failure();
    auto inner = op.getOperand(0).getDefiningOp<UnrealizedConversionCastOp>();
    if (!inner || inner.getNumOperands() != 1 || inner.getNumResults() != 1)
      return failure();
    Value x = inner.getOperand(0);
    auto from = dyn_cast<IntegerType>(x.getType());
    auto to = dyn_cast<IntegerType>(op.getResult(0).getType());
    if (!from || !to || from == to)
      return failure();
    // index is signed where it widens (arith.index_cast's rule).
    if (from.getWidth() < to.getWidth())
      rewriter.replaceOpWithNewOp<LLVM::SExtOp>(op, to, x);
    else
      rewriter.replaceOpWithNewOp<LLVM::TruncOp>(op, to, x);
    return success();
  }
};

/// The same for memref descriptors, cast(cast(d : struct<(ptr, ptr, iN,
/// array<R x iN>, array<R x iN>)> -> memref) : memref -> struct of iM):
/// the pointers as they are, offset, sizes and strides extended or
/// truncated.
struct DescriptorCastChain : OpRewritePattern<UnrealizedConversionCastOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The integer width of a memref descriptor's offset, if `t` is one.
  static std::optional<unsigned> indexWidth(Type t) {
    auto s = dyn_cast<LLVM::LLVMStructType>(t);
    if (!s || s.getBody().size() < 3 ||
        !isa<LLVM::LLVMPointerType>(s.getBody()[0]) ||
        !isa<LLVM::LLVMPointerType>(s.getBody()[1]))
      return std::nullopt;
    auto offset = dyn_cast<IntegerType>(s.getBody()[2]);
    if (!offset)
      return std::nullopt;
    return offset.getWidth();
  }

  LogicalResult matchAndRewrite(UnrealizedConversionCastOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumOperands() != 1 || op.getNumResults() != 1 ||
        !isa<MemRefType>(op.getOperand(0).getType()))
      return failure();
    auto inner = op.getOperand(0).getDefiningOp<UnrealizedConversionCastOp>();
    if (!inner || inner.getNumOperands() != 1 || inner.getNumResults() != 1)
      return failure();
    Value from = inner.getOperand(0);
    auto fromType = dyn_cast<LLVM::LLVMStructType>(from.getType());
    auto toType = dyn_cast<LLVM::LLVMStructType>(op.getResult(0).getType());
    std::optional<unsigned> fromWidth = indexWidth(from.getType()),
                            toWidth = indexWidth(op.getResult(0).getType());
    if (!fromType || !toType || !fromWidth || !toWidth ||
        *fromWidth == *toWidth ||
        fromType.getBody().size() != toType.getBody().size())
      return failure();
    Location loc = op.getLoc();
    Type to = rewriter.getIntegerType(*toWidth);
    auto convert = [&](Value v) -> Value {
      if (*fromWidth < *toWidth)
        return rewriter.create<LLVM::SExtOp>(loc, to, v);
      return rewriter.create<LLVM::TruncOp>(loc, to, v);
    };
    Value result = rewriter.create<LLVM::UndefOp>(loc, toType);
    for (auto [i, field] : llvm::enumerate(fromType.getBody())) {
      int64_t pos = i;
      if (auto array = dyn_cast<LLVM::LLVMArrayType>(field)) {
        for (int64_t j = 0, n = array.getNumElements(); j < n; ++j) {
          Value v = rewriter.create<LLVM::ExtractValueOp>(
              loc, from, ArrayRef<int64_t>{pos, j});
          result = rewriter.create<LLVM::InsertValueOp>(
              loc, result, convert(v), ArrayRef<int64_t>{pos, j});
        }
        continue;
      }
      Value v = rewriter.create<LLVM::ExtractValueOp>(loc, from, pos);
      if (isa<IntegerType>(field))
        v = convert(v);
      result = rewriter.create<LLVM::InsertValueOp>(loc, result, v, pos);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A global or generic pointer taken as a 32-bit index and widened back
/// (memref.extract_aligned_pointer_as_index, then index_castui to i64: the
/// tensor maps' addresses TMA reads) lost its upper half in the index:
/// ptrtoint to 64 bits directly. Shared-memory pointers (address space 3)
/// fit in 32 bits and keep the cast.
template <typename ExtOp> struct WidenedPointer : OpRewritePattern<ExtOp> {
  using OpRewritePattern<ExtOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ExtOp op,
                                PatternRewriter &rewriter) const override {
    auto toInt = op.getArg().template getDefiningOp<LLVM::PtrToIntOp>();
    auto to = dyn_cast<IntegerType>(op.getType());
    if (!toInt || !to || to.getWidth() != 64)
      return failure();
    auto ptr = cast<LLVM::LLVMPointerType>(toInt.getArg().getType());
    if (ptr.getAddressSpace() == 3)
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, to, toInt.getArg());
    return success();
  }
};

struct ReconcileIndexCastsPass
    : dlc::impl::ReconcileIndexCastsPassBase<ReconcileIndexCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<IndexCastChain, DescriptorCastChain,
                 WidenedPointer<LLVM::ZExtOp>, WidenedPointer<LLVM::SExtOp>>(
        &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
