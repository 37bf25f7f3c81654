//===- UnflattenGemms.cpp - flattened-row Gemms to batched MatMuls --------===//
//
// PyTorch exports GPT-2's Conv1D (and TF/Keras dense layers) as
// Reshape [B, S, K] -> [B*S, K], Gemm, Reshape [B*S, N] -> [B, S, N]. The
// reshapes sit between the GEMM and what fuses with it: the LayerNorm and
// f16 cast before it, the bias, GELU and residual Add after it. As a batched
// MatMul plus a bias Add the layer takes the path of BERT's nn.Linear.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_UNFLATTENGEMMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

struct UnflattenGemmPattern : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp gemm,
                                PatternRewriter &rewriter) const override {
    if (gemm.getTransA() || gemm.getAlpha().convertToDouble() != 1.0 ||
        !gemm->hasOneUse())
      return rewriter.notifyMatchFailure(gemm, "not a plain row GEMM");
    auto flatten = gemm.getA().getDefiningOp<ReshapeOp>();
    auto unflatten = dyn_cast<ReshapeOp>(*gemm->user_begin());
    if (!flatten || !unflatten)
      return rewriter.notifyMatchFailure(gemm, "rows not flattened");
    auto x = cast<RankedTensorType>(flatten.getInput().getType());
    auto out = cast<RankedTensorType>(unflatten.getType());
    auto flat = cast<RankedTensorType>(gemm.getA().getType());
    auto result = cast<RankedTensorType>(gemm.getType());
    auto b = cast<RankedTensorType>(gemm.getB().getType());
    // [M, N] -> [d..., N]; the rows come from any shape of M * K elements
    // (an attention output [B, S, H, D] too), read as [d..., K].
    if (out.getRank() < 3 || !x.hasStaticShape() || !out.hasStaticShape() ||
        !result.hasStaticShape() || !flat.hasStaticShape() ||
        out.getShape().back() != result.getDimSize(1) ||
        x.getNumElements() != flat.getNumElements())
      return rewriter.notifyMatchFailure(gemm, "reshapes change the rows");
    Type elt = out.getElementType();
    if (x.getElementType() != elt || b.getElementType() != elt)
      return rewriter.notifyMatchFailure(gemm, "mixed element types");

    // The bias: broadcast along the rows as before ([N], [1, N], a
    // scalar), or per row ([M, N], [M, 1]) reshaped like the result.
    Value c = gemm.getC();
    double beta = gemm.getBeta().convertToDouble();
    if (c && beta == 0.0)
      c = Value();
    RankedTensorType cType = c ? cast<RankedTensorType>(c.getType()) : nullptr;
    bool cPerRow = cType && cType.getRank() == 2 &&
                   cType.getDimSize(0) == result.getDimSize(0) &&
                   result.getDimSize(0) != 1;
    if (c && (beta != 1.0 || cType.getElementType() != elt ||
              !cType.hasStaticShape() ||
              (cType.getRank() == 2 && cType.getDimSize(0) != 1 && !cPerRow)))
      return rewriter.notifyMatchFailure(gemm, "bias not a row broadcast");

    Location loc = gemm.getLoc();
    Value rhs = gemm.getB();
    if (gemm.getTransB()) {
      rhs = permutedConstant(rewriter, loc, rhs, {1, 0}, "_kn");
      if (!rhs)
        rhs = rewriter.create<TransposeOp>(
            loc, gemm.getB(), rewriter.getDenseI64ArrayAttr({1, 0}));
    }
    Value lhs = flatten.getInput();
    SmallVector<int64_t> rows(out.getShape().drop_back());
    rows.push_back(flat.getDimSize(1));
    if (x.getShape() != ArrayRef<int64_t>(rows))
      lhs = rewriter.create<ReshapeOp>(
          flatten.getLoc(), RankedTensorType::get(rows, x.getElementType()),
          lhs);
    Value y = rewriter.create<MatMulOp>(loc, lhs, rhs);
    if (c) {
      if (cPerRow) {
        SmallVector<int64_t> shape(out.getShape().drop_back());
        shape.push_back(cType.getDimSize(1));
        c = rewriter.create<ReshapeOp>(loc, RankedTensorType::get(shape, elt),
                                       c);
      }
      y = rewriter.create<AddOp>(loc, y, c);
    }
    rewriter.replaceOp(unflatten, y);
    return success();
  }
};

struct UnflattenGemmsPass
    : dlc::impl::UnflattenGemmsPassBase<UnflattenGemmsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateUnflattenGemmsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::dlc::populateUnflattenGemmsPatterns(RewritePatternSet &patterns) {
  patterns.add<UnflattenGemmPattern>(patterns.getContext());
}
