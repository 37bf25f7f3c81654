//===- FoldConstantDequantize.cpp - dequantized weights as constants -----===//
//
// A dequantize_linear of constants (a quantized weight that dlc-fold-qdq
// left to a float layer) becomes its f32 value, computed here once with the
// arithmetic of its lowering (dlc-convert-to-linalg): f32(q - zp), exact,
// times the scale in f32.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FOLDCONSTANTDEQUANTIZEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct FoldConstantDequantize : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp op,
                                PatternRewriter &rw) const override {
    auto type = op.getType();
    if (!type.getElementType().isF32() || !type.hasStaticShape())
      return rw.notifyMatchFailure(op, "not a static f32 result");
    auto input = constantTensor(op.getInput());
    std::optional<SmallVector<int64_t>> q = constInts(op.getInput());
    std::optional<SmallVector<int64_t>> zp = constInts(op.getZeroPoint());
    std::optional<SmallVector<float>> scale = constFloats(op.getScale());
    if (!input || !q || !zp || !scale ||
        (int64_t)q->size() != type.getNumElements() ||
        scale->size() != zp->size())
      return rw.notifyMatchFailure(op, "input, scale or zero point is not a "
                                       "readable constant");

    // Per axis: element i reads the parameters at its index along `axis`.
    ArrayRef<int64_t> shape = type.getShape();
    bool perAxis = cast<RankedTensorType>(op.getScale().getType()).getRank();
    int64_t inner = 1, dim = 1;
    if (perAxis) {
      int64_t axis = op.getAxis();
      for (int64_t d : shape.drop_front(axis + 1))
        inner *= d;
      dim = shape[axis];
    }
    SmallVector<float> values(q->size());
    for (size_t i = 0, e = q->size(); i < e; ++i) {
      size_t c = perAxis ? (i / inner) % dim : 0;
      // The lowering subtracts in i32 (wrapping, for i32 inputs) and
      // converts with rounding to nearest.
      auto d = (int32_t)(uint32_t)((*q)[i] - (*zp)[c]);
      values[i] = float(d) * (*scale)[c];
    }

    auto blob = dyn_cast<DenseResourceElementsAttr>(input->first);
    std::string name =
        blob ? (blob.getRawHandle().getKey() + "_dequantized").str()
             : "dequantized";
    Attribute attr = makeWeightAttr(
        type,
        ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float)),
        name);
    rw.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(attr));
    return success();
  }
};

struct FoldConstantDequantizePass
    : dlc::impl::FoldConstantDequantizePassBase<FoldConstantDequantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldConstantDequantizePatterns(patterns);
    // Only the dequantize ops change: their constants are new, and the
    // rest of the graph is as it was.
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      return signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateFoldConstantDequantizePatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldConstantDequantize>(patterns.getContext());
}
