//===- FuseAttention.cpp - MatMul-Softmax-MatMul as one op -------*- C++
//-*-===//
//
// Recognizes scaled dot-product attention in the dlc dialect, as exporters
// write it: MatMul(Q, K^T) -> Mul/Div by a scalar (optional) -> Add mask
// (optional) -> Softmax over the last axis -> MatMul(., V), and replaces it
// with one dlc.attention, whose lowering never materializes the scores.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/fusion/ScalarConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Fills of Where masks that become additive masks: s + fill rounds to
/// fill for every score |s| < 3e22 (-inf, or torch.finfo.min as GPT-2 uses).
constexpr float kMaskFill = -1e30f;

/// The value of a one-element f32 constant (shape [] or [1, ...]).
std::optional<float> scalarConstant(Value v) {
  std::optional<APFloat> c = scalarFloatConstant(v);
  if (!c || &c->getSemantics() != &APFloat::IEEEsingle())
    return std::nullopt;
  return c->convertToFloat();
}

/// `x` as a scalar scaling of another value: Mul(input, c), Mul(c, input)
/// or Div(input, c), `c` a one-element f32 constant (nonzero to divide) and
/// `input` of `x`'s type. A Mul of two such values gives both readings.
struct ScalarScaling {
  Value input;
  float c;
  bool divides;
};
SmallVector<ScalarScaling, 2> scalarScalings(Value x) {
  SmallVector<ScalarScaling, 2> out;
  if (auto mul = x.getDefiningOp<MulOp>()) {
    for (unsigned side : {0u, 1u})
      if (std::optional<float> c = scalarConstant(mul->getOperand(1 - side));
          c && mul->getOperand(side).getType() == x.getType())
        out.push_back({mul->getOperand(side), *c, false});
  } else if (auto div = x.getDefiningOp<DivOp>()) {
    if (std::optional<float> c = scalarConstant(div.getRhs());
        c && *c != 0.0f && div.getLhs().getType() == x.getType())
      out.push_back({div.getLhs(), *c, true});
  }
  return out;
}

/// Whether `perm` swaps the last two dims and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t n = perm.size();
  if (n < 2 || perm[n - 2] != n - 1 || perm[n - 1] != n - 2)
    return false;
  for (int64_t i = 0; i + 2 < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/// softmax(scale * (Q K^T) + mask, axis = -1) V -> dlc.attention. Every
/// intermediate (scores, scaled, masked, probabilities) must have no other
/// user: a model output (--keep-outputs) or a second reader keeps the chain.
struct FuseAttentionPattern : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp pv,
                                PatternRewriter &rewriter) const override {
    // Where(IsNaN(p), 0, p): torch's SDPA export zeroes the NaN rows of a
    // softmax whose keys are all masked with -inf.
    Value probs = pv.getLhs();
    WhereOp guard;
    IsNaNOp isNan;
    if (auto where = probs.getDefiningOp<WhereOp>();
        where && where->hasOneUse() &&
        where.getType() == where.getY().getType()) {
      auto test = where.getCondition().getDefiningOp<IsNaNOp>();
      std::optional<float> zero = scalarConstant(where.getX());
      if (test && test->hasOneUse() && test.getInput() == where.getY() &&
          zero && *zero == 0.0f) {
        guard = where;
        isNan = test;
        probs = where.getY();
      }
    }
    auto softmax = probs.getDefiningOp<SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(pv, "lhs is not a softmax");
    // The probabilities have no other reader than this chain.
    for (Operation *user : softmax->getUsers())
      if (user != pv && user != guard && user != isNan)
        return rewriter.notifyMatchFailure(pv, "probabilities escape");
    auto probsType = softmax.getType();
    int64_t rank = probsType.getRank();
    if ((int64_t)softmax.getAxis() != rank - 1 ||
        !probsType.getElementType().isF32())
      return rewriter.notifyMatchFailure(pv, "softmax not over the last axis "
                                             "of f32 scores");
    SmallVector<Location> locs;
    Value x = softmax.getInput();

    // Add mask (either operand), the other side leading to the scores.
    Chain chain;
    Value addMask;
    auto add = x.getDefiningOp<AddOp>();
    if (add && add->hasOneUse()) {
      for (unsigned side : {0u, 1u}) {
        Chain candidate;
        if (add->getOperand(side).getType() == probsType &&
            matchSelected(add->getOperand(side), probsType, candidate)) {
          chain = candidate;
          addMask = add->getOperand(1 - side);
          break;
        }
      }
    }
    if (!chain.qk) {
      add = nullptr;
      if (!matchSelected(x, probsType, chain))
        return rewriter.notifyMatchFailure(pv, "no MatMul(Q, K^T) scores");
    }
    MatMulOp qk = chain.qk;

    Value q = qk.getLhs(), kt = qk.getRhs(), v = pv.getRhs();
    auto qType = cast<RankedTensorType>(q.getType());
    if (qType.getRank() != rank ||
        cast<RankedTensorType>(kt.getType()).getRank() != rank ||
        cast<RankedTensorType>(v.getType()).getRank() != rank)
      return rewriter.notifyMatchFailure(pv, "operands of different ranks");
    // The query is not broadcast: its batch dims are the scores'.
    if (qType.getShape().drop_back(2) != probsType.getShape().drop_back(2))
      return rewriter.notifyMatchFailure(pv, "broadcast query");

    // K^T as a Transpose of the last two dims: read K directly.
    Value key = kt;
    bool kTransposed = true;
    Operation *transpose = nullptr;
    if (auto t = kt.getDefiningOp<TransposeOp>();
        t && swapsLastTwo(t.getPerm())) {
      key = t.getInput();
      kTransposed = false;
      if (t->hasOneUse())
        transpose = t;
    }

    // The mask: the Add's, plus Where(c, 0, fill) for a Where(c, s, fill)
    // (fill -inf or the lowest float: s + fill is fill, exactly or to far
    // below any score's weight).
    Type f32 = probsType.getElementType();
    RankedTensorType selectType;
    if (chain.select) {
      SmallVector<int64_t> shape;
      if (!OpTrait::util::getBroadcastedShape(
              chain.select.getCondition().getType().getShape(),
              cast<RankedTensorType>(chain.fill.getType()).getShape(), shape))
        return rewriter.notifyMatchFailure(pv, "select mask shape");
      selectType = RankedTensorType::get(shape, f32);
    }
    RankedTensorType combinedType;
    if (addMask && selectType) {
      SmallVector<int64_t> shape;
      if (!OpTrait::util::getBroadcastedShape(
              cast<RankedTensorType>(addMask.getType()).getShape(),
              selectType.getShape(), shape))
        return rewriter.notifyMatchFailure(pv, "mask shapes");
      combinedType = RankedTensorType::get(shape, f32);
    } else if (addMask) {
      combinedType = cast<RankedTensorType>(addMask.getType());
    } else {
      combinedType = selectType;
    }

    // A mask of lower rank broadcasts right-aligned: give it the scores'
    // rank with leading unit dims.
    RankedTensorType maskType;
    if (combinedType) {
      auto type = combinedType;
      if (type.getRank() > rank)
        return rewriter.notifyMatchFailure(pv, "mask of higher rank");
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      maskType = RankedTensorType::get(shape, type.getElementType());
    }
    FailureOr<SmallVector<int64_t>> shape = inferAttentionShape(
        qType, cast<ShapedType>(key.getType()), cast<ShapedType>(v.getType()),
        maskType, kTransposed, AttentionLayout::get({}, {}, {}, {}, rank),
        [](const Twine &) {});
    if (failed(shape) || ArrayRef<int64_t>(*shape) != pv.getType().getShape())
      return rewriter.notifyMatchFailure(pv, "shapes do not fit attention");
    Value mask = addMask;
    if (chain.select) {
      Location loc = chain.select.getLoc();
      auto scalar = [&](float value) -> Value {
        return rewriter.create<arith::ConstantOp>(
            loc, DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                        rewriter.getF32FloatAttr(value)));
      };
      Value zero = scalar(0.0f), fill = chain.fill;
      Value selected = rewriter.create<WhereOp>(
          loc, chain.select.getCondition(), chain.scoresInX ? zero : fill,
          chain.scoresInX ? fill : zero);
      mask = addMask ? rewriter.create<AddOp>(add.getLoc(), addMask, selected)
                           .getResult()
                     : selected;
    }
    if (mask && maskType != mask.getType())
      mask = rewriter.create<ReshapeOp>(
          add ? add.getLoc() : chain.select.getLoc(), maskType, mask);

    // The kernel computes the ONNX nodes of the whole chain.
    for (Operation *op : {qk.getOperation(), transpose, chain.scaleOp,
                          chain.select.getOperation(), add.getOperation(),
                          softmax.getOperation(), isNan.getOperation(),
                          guard.getOperation(), pv.getOperation()})
      if (op)
        locs.push_back(op->getLoc());
    auto attention = rewriter.create<AttentionOp>(
        rewriter.getFusedLoc(locs), pv.getType(), q, key, v, mask,
        rewriter.getF32FloatAttr(chain.scale),
        rewriter.getBoolAttr(kTransposed),
        guard ? rewriter.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(),
        DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
        DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
        FloatAttr(), IntegerAttr());
    rewriter.replaceOp(pv, attention.getResult());
    return success();
  }

  /// The scores side of the softmax input below the Add of a mask.
  struct Chain {
    MatMulOp qk;
    float scale = 1.0f;
    Operation *scaleOp = nullptr;
    /// Where(c, scores, fill) (scoresInX) or Where(c, fill, scores).
    WhereOp select;
    bool scoresInX = false;
    Value fill;
  };

  /// `x` = [Where(c, scores, fill) | Where(c, fill, scores)] (scores), the
  /// Where used once and `fill` a scalar constant <= kMaskFill (a boolean
  /// mask as GPT-2 and masked_fill export it).
  static bool matchSelected(Value x, Type type, Chain &chain) {
    if (auto where = x.getDefiningOp<WhereOp>();
        where && where->hasOneUse() && where.getType() == type) {
      for (bool inX : {true, false}) {
        Value scores = inX ? where.getX() : where.getY();
        Value fill = inX ? where.getY() : where.getX();
        // Only a fill that absorbs any score (s + fill == fill) is a mask.
        std::optional<float> value = scalarConstant(fill);
        if (scores.getType() != type || !value || !(*value <= kMaskFill))
          continue;
        Chain candidate;
        if ((candidate.qk =
                 matchScores(scores, candidate.scale, candidate.scaleOp))) {
          candidate.select = where;
          candidate.scoresInX = inX;
          candidate.fill = fill;
          chain = candidate;
          return true;
        }
      }
      return false;
    }
    return bool(chain.qk = matchScores(x, chain.scale, chain.scaleOp));
  }

  /// `scores` = [scale] (MatMul(Q, K^T)): an optional Mul/Div by a scalar
  /// constant, used once, over a MatMul used once. Returns the MatMul and
  /// multiplies `scale` by the factor.
  static MatMulOp matchScores(Value scores, float &scale, Operation *&scaleOp) {
    if (scores.hasOneUse())
      for (const ScalarScaling &s : scalarScalings(scores))
        if (MatMulOp mm = matchMatMul(s.input)) {
          scale = s.divides ? scale / s.c : scale * s.c;
          scaleOp = scores.getDefiningOp();
          return mm;
        }
    return matchMatMul(scores);
  }

  static MatMulOp matchMatMul(Value v) {
    auto mm = v.getDefiningOp<MatMulOp>();
    return mm && mm->hasOneUse() ? mm : nullptr;
  }
};

/// `x` as one of n equal parts of the last dim of a larger tensor:
/// slice(whole) over [index * L, (index + 1) * L) of its last dim F (the
/// others whole), optionally reshaped to [lead..., tail...] with prod(tail)
/// = L. The attention reads it as `whole` viewed as [lead..., F / L,
/// tail...] at `index` of dim lead.size(): GPT-2's Split of c_attn's output
/// into Q, K and V, each reshaped into heads.
struct LastDimPart {
  Value whole;
  SmallVector<int64_t> viewShape;
  AttentionLayout::Select select;
};
static std::optional<LastDimPart> matchLastDimPart(Value x) {
  auto reshape = x.getDefiningOp<ReshapeOp>();
  auto slice = (reshape ? reshape.getInput() : x).getDefiningOp<SliceOp>();
  if (!slice)
    return std::nullopt;
  auto whole = cast<RankedTensorType>(slice.getInput().getType());
  auto part = cast<RankedTensorType>(slice.getType());
  auto read = cast<RankedTensorType>(x.getType());
  int64_t rank = whole.getRank();
  if (!whole.hasStaticShape() || !read.hasStaticShape())
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d) {
    bool last = d == rank - 1;
    if (slice.getSteps()[d] != 1 ||
        (!last && (slice.getStarts()[d] != 0 ||
                   slice.getEnds()[d] != whole.getDimSize(d))))
      return std::nullopt;
  }
  int64_t full = whole.getShape().back(), size = part.getShape().back();
  int64_t start = slice.getStarts().back();
  if (size <= 0 || full % size || start % size || full == size)
    return std::nullopt;
  // The reshape may only split the last dim: [lead..., L] -> [lead...,
  // tail...].
  ArrayRef<int64_t> lead = part.getShape().drop_back();
  if (read.getRank() < (int64_t)lead.size() + 1 ||
      read.getShape().take_front(lead.size()) != lead)
    return std::nullopt;
  ArrayRef<int64_t> tail = read.getShape().drop_front(lead.size());
  LastDimPart p;
  p.whole = slice.getInput();
  p.viewShape.assign(lead.begin(), lead.end());
  p.viewShape.push_back(full / size);
  p.viewShape.append(tail.begin(), tail.end());
  p.select = {(int64_t)lead.size(), start / size};
  return p;
}

/// The copies exporters write around attention, folded into dlc.attention:
/// a Transpose of Q, K or V (used only there) becomes the operand's
/// permutation, a Transpose of the result (its only user) the result's; a
/// Mul or Div of Q or K by a finite scalar constant (used only there)
/// multiplies `scale` (softmax((cQ) K^T s) = softmax(Q K^T cs)). BERT's
/// `transpose(reshape(q) * c, [0, 2, 1, 3])` leaves the [B, S, H, D]
/// projection itself, and the attention reads it there. An operand that is
/// one of equal parts of a larger tensor's last dim (matchLastDimPart) is
/// read from that tensor through a `*_select`.
struct AbsorbAttentionLayoutPattern : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    AttentionLayout layout = op.getLayout();
    SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue()};
    SmallVector<int64_t> *perms[] = {&layout.query, &layout.key, &layout.value};
    AttentionLayout::Select *selects[] = {
        &layout.querySelect, &layout.keySelect, &layout.valueSelect};
    float scale = op.getScale().convertToFloat();
    // The kernel is named after its last node: keep the attention's last.
    SmallVector<Location> locs;
    for (int i = 0; i < 3; ++i) {
      while (true) {
        Value x = operands[i];
        // The op reads transpose(transpose(y, p), c): dim j is y's p[c[j]].
        if (auto t = x.getDefiningOp<TransposeOp>(); t && t->hasOneUse()) {
          for (int64_t &c : *perms[i])
            c = t.getPerm()[c];
          operands[i] = t.getInput();
          locs.push_back(t.getLoc());
          continue;
        }
        if (!*selects[i])
          if (std::optional<LastDimPart> part = matchLastDimPart(x)) {
            auto type = cast<RankedTensorType>(part->whole.getType());
            auto view =
                RankedTensorType::get(part->viewShape, type.getElementType());
            // Q, K and V of one tensor share the view.
            Value shared;
            for (int j = 0; j < 3; ++j)
              if (auto r = operands[j].getDefiningOp<ReshapeOp>();
                  r && j != i && *selects[j] && r.getInput() == part->whole &&
                  r.getType() == view)
                shared = r;
            operands[i] = shared ? shared
                                 : rewriter.create<ReshapeOp>(x.getLoc(), view,
                                                              part->whole);
            *selects[i] = part->select;
            locs.push_back(x.getLoc());
            continue;
          }
        // Only Q and K scale the scores.
        if (i == 2 || !x.hasOneUse())
          break;
        SmallVector<ScalarScaling, 2> scalings = scalarScalings(x);
        if (scalings.empty())
          break;
        const ScalarScaling &s = scalings.front();
        float factor = s.divides ? 1.0f / s.c : s.c;
        if (!std::isfinite(factor))
          break;
        scale *= factor;
        operands[i] = s.input;
        locs.push_back(x.getDefiningOp()->getLoc());
      }
    }
    // The result's only user transposes it: stored = transpose(transpose(
    // r, c), p), i.e. transpose(r, c o p).
    Operation *resultTranspose = nullptr;
    if (op->hasOneUse())
      if (auto t = dyn_cast<TransposeOp>(*op->user_begin())) {
        SmallVector<int64_t> composed;
        for (int64_t p : t.getPerm())
          composed.push_back(layout.result[p]);
        layout.result = composed;
        resultTranspose = t;
        locs.push_back(t.getLoc());
      }
    if (locs.empty())
      return rewriter.notifyMatchFailure(op, "nothing to absorb");
    locs.push_back(op.getLoc());

    auto selectAttr = [&](AttentionLayout::Select select) {
      return select ? rewriter.getDenseI64ArrayAttr({select.dim, select.index})
                    : DenseI64ArrayAttr();
    };
    auto permAttr = [&](ArrayRef<int64_t> perm) {
      for (auto [i, p] : llvm::enumerate(perm))
        if (p != (int64_t)i)
          return rewriter.getDenseI64ArrayAttr(perm);
      return DenseI64ArrayAttr();
    };
    auto attention = rewriter.create<AttentionOp>(
        rewriter.getFusedLoc(locs),
        resultTranspose ? resultTranspose->getResult(0).getType()
                        : op.getType(),
        operands[0], operands[1], operands[2], op.getMask(),
        rewriter.getF32FloatAttr(scale), op.getKTransposedAttr(),
        op.getNanToZeroAttr(), permAttr(layout.query), permAttr(layout.key),
        permAttr(layout.value), permAttr(layout.result),
        selectAttr(layout.querySelect), selectAttr(layout.keySelect),
        selectAttr(layout.valueSelect), op.getResultScaleAttr(),
        op.getResultZeroPointAttr());
    rewriter.replaceOp(resultTranspose ? resultTranspose : op.getOperation(),
                       attention.getResult());
    return success();
  }
};

/// A per-tensor QuantizeLinear to i8 of an attention result (its only
/// user), folded into the attention, which then stores i8: an int8 model
/// whose attention stays in float (`--quantize-attention=false`) quantizes
/// its result for the output projection, and the quantizing kernel (with
/// the head transpose after it, which AbsorbAttentionLayoutPattern then
/// takes) never runs. The attention's f32 values are quantized directly,
/// without the f16 rounding of a stored half result in between.
struct QuantizeAttentionResultPattern : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto attention = op.getInput().getDefiningOp<AttentionOp>();
    if (!attention || !attention->hasOneUse() || attention.getResultScale())
      return rewriter.notifyMatchFailure(op, "not an attention's only user");
    if (!op.getType().getElementType().isSignlessInteger(8))
      return rewriter.notifyMatchFailure(op, "not quantizing to i8");
    std::optional<float> scale = scalarConstant(op.getScale());
    std::optional<APInt> zeroPoint = scalarIntConstant(op.getZeroPoint());
    if (!scale || !zeroPoint || !std::isfinite(*scale) || *scale <= 0)
      return rewriter.notifyMatchFailure(op, "scale or zero point not a "
                                             "per-tensor constant");
    rewriter.startOpModification(attention);
    attention.getResult().setType(op.getType());
    attention.setResultScaleAttr(rewriter.getF32FloatAttr(*scale));
    attention.setResultZeroPointAttr(
        rewriter.getI64IntegerAttr(zeroPoint->getSExtValue()));
    // The kernel is named after its last node: keep the attention's last.
    attention->setLoc(rewriter.getFusedLoc({op.getLoc(), attention.getLoc()}));
    rewriter.finalizeOpModification(attention);
    rewriter.replaceOp(op, attention.getResult());
    return success();
  }
};

struct FuseAttentionPass : dlc::impl::FuseAttentionPassBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseAttentionPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::dlc::populateFuseAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseAttentionPattern, AbsorbAttentionLayoutPattern,
               QuantizeAttentionResultPattern>(patterns.getContext());
}
