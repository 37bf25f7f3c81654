//===- ConvertConvLayout.cpp - channels-last 2-D convolutions ---*- C++ -*-===//
//
// dlc-convert-conv-layout: every 2-D NCHW dlc.conv / dlc.conv_integer becomes
// transpose(x, [0, 2, 3, 1]) -> channels_last conv -> transpose(y, [0, 3, 1,
// 2]), with constant weights permuted to [O, KH, KW, C] here, once. Then the
// transposes sink towards the consumers through every op that commutes with
// a permutation of its operand's dims (elementwise ops with broadcasting,
// activations, quantize/dequantize/requantize with their axis remapped,
// reductions with their axes remapped, concat, pooling as channels_last)
// and inverse pairs cancel, so a chain of convolutions keeps its activations
// in NHWC and the only transposes left are where the network enters or
// leaves the convolutional part. A transpose that only moves unit dims is a
// reshape.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::dlc {
#define GEN_PASS_DEF_CONVERTCONVLAYOUTPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// NCHW -> NHWC and back.
constexpr int64_t kToLast[] = {0, 2, 3, 1};
constexpr int64_t kToFirst[] = {0, 3, 1, 2};

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

SmallVector<int64_t> inversePerm(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = i;
  return inv;
}

bool isIdentityPerm(ArrayRef<int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != (int64_t)i)
      return false;
  return true;
}

/// `v` transposed by `perm`: a permuted constant, a reshape where only unit
/// dims move, else a dlc.transpose.
Value transposeValue(PatternRewriter &rw, Location loc, Value v,
                     ArrayRef<int64_t> perm) {
  if (isIdentityPerm(perm))
    return v;
  if (auto t = v.getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(t.getPerm()[p]);
    return transposeValue(rw, loc, t.getInput(), composed);
  }
  auto type = tensorType(v);
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr)))
    if (Attribute permuted = permuteConstant(attr, type, perm, "_nhwc"))
      return rw.create<arith::ConstantOp>(loc, cast<TypedAttr>(permuted));
  if (isReshapeLike(type, perm))
    return rw.create<ReshapeOp>(loc, permutedType(type, perm), v);
  return rw.create<TransposeOp>(loc, v, perm);
}

//===----------------------------------------------------------------------===//
// NCHW convolutions -> channels_last
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ConvToChannelsLast : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rw) const override {
    if (op.getChannelsLast() || tensorType(op.getInput()).getRank() != 4)
      return failure();
    Location loc = op.getLoc();
    Value x = transposeValue(rw, loc, op.getInput(), kToLast);
    Value w = transposeValue(rw, loc, op.getWeight(), kToLast);
    SmallVector<Value> operands(op->getOperands());
    operands[0] = x;
    operands[1] = w;
    auto resultType = permutedType(op.getType(), kToLast);
    auto conv = rw.create<OpTy>(loc, TypeRange{resultType}, operands,
                                op->getAttrs());
    conv.setChannelsLast(true);
    rw.replaceOp(op, rw.create<TransposeOp>(loc, conv.getResult(), kToFirst)
                         .getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Transposes: fold, cancel, sink
//===----------------------------------------------------------------------===//

/// transpose(transpose(x, p), q) -> transpose(x, p o q) or x; a transpose
/// of a constant folds; one that only moves unit dims is a reshape.
struct SimplifyTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rw) const override {
    ArrayRef<int64_t> perm = op.getPerm();
    if (isIdentityPerm(perm)) {
      rw.replaceOp(op, op.getInput());
      return success();
    }
    if (auto inner = op.getInput().getDefiningOp<TransposeOp>()) {
      SmallVector<int64_t> composed;
      for (int64_t p : perm)
        composed.push_back(inner.getPerm()[p]);
      if (isIdentityPerm(composed))
        rw.replaceOp(op, inner.getInput());
      else
        rw.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), composed);
      return success();
    }
    auto type = tensorType(op.getInput());
    Attribute attr;
    if (matchPattern(op.getInput(), m_Constant(&attr)))
      if (Attribute permuted = permuteConstant(attr, type, perm, "_nhwc")) {
        rw.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(permuted));
        return success();
      }
    if (!isReshapeLike(type, perm))
      return failure();
    rw.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// Ops computed element by element over the numpy broadcast of their
/// operands: a permutation of the dims commutes with them.
bool isElementwise(Operation *op) {
  return isa<
      // unary
      ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, LogOp, SinOp, CosOp,
      TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
      FloorOp, CeilOp, RoundOp, ReciprocalOp, SoftplusOp, SoftsignOp, MishOp,
      HardSwishOp, AbsOp, NegOp, SignOp, LeakyReluOp, EluOp, SeluOp, CeluOp,
      HardSigmoidOp, ThresholdedReluOp, GeluOp, ClipOp, CastOp, NotOp, IsNaNOp,
      IsInfOp,
      // binary and ternary, broadcasting
      AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, ModOp, PReluOp, EqualOp,
      LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp, XorOp,
      WhereOp>(op);
}

/// How `op` is rebuilt when its operands are `transpose(.., perm)`: which
/// operands are data (permuted), the result's perm, and attributes to
/// change. Empty when the transpose cannot move below `op`.
struct SinkPlan {
  /// For each operand: whether it is transposed (else left as is).
  SmallVector<bool> permuted;
  /// Result i of the new op is transposed by resultPerms[i] to give the old
  /// result i.
  SmallVector<SmallVector<int64_t>> resultPerms;
  SmallVector<NamedAttribute> attrs;
};

std::optional<SinkPlan> planSink(Operation *op, ArrayRef<int64_t> perm,
                                 int depth);

/// Whether `v` can be given as transpose^-1(v) cheaply: a transpose by
/// `perm` (which then cancels) or a constant (permuted here). With `depth`
/// > 0 also a value whose producer a transpose by `perm` will sink through
/// (looking `depth` producers up): when a transpose has several readers,
/// concat(relu(t), t) or add(t, ...) -> relu -> concat(.., t), it moves only
/// if all of them will take it.
bool isFreeToPermute(Value v, ArrayRef<int64_t> perm, int depth) {
  if (auto other = v.getDefiningOp<TransposeOp>())
    return other.getPerm() == perm;
  if (matchPattern(v, m_Constant()))
    return true;
  Operation *def = v.getDefiningOp();
  return depth > 0 && def && isa<DlcDialect>(def->getDialect()) &&
         planSink(def, perm, depth - 1).has_value();
}

/// `axes` (dims of transpose(x, perm)) as dims of x.
SmallVector<int64_t> mapAxes(ArrayRef<int64_t> axes, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (int64_t a : axes)
    out.push_back(perm[a]);
  llvm::sort(out);
  return out;
}

/// How `op` is rebuilt with the transposes by `perm` of its operands moved
/// below it; nullopt when they cannot move. `depth` as in isFreeToPermute.
std::optional<SinkPlan> planSink(Operation *op, ArrayRef<int64_t> perm,
                                 int depth) {
  MLIRContext *ctx = op->getContext();
  int64_t rank = perm.size();
  SinkPlan plan;
  plan.attrs.assign(op->getAttrs().begin(), op->getAttrs().end());
  auto setAttr = [&](StringRef name, Attribute value) {
    for (NamedAttribute &a : plan.attrs)
      if (a.getName() == name) {
        a = NamedAttribute(a.getName(), value);
        return;
      }
    plan.attrs.push_back(NamedAttribute(StringAttr::get(ctx, name), value));
  };
  auto single = [&]() {
    plan.resultPerms.assign(op->getNumResults(),
                            SmallVector<int64_t>(perm.begin(), perm.end()));
  };
  auto firstOnly = [&]() {
    plan.permuted.assign(op->getNumOperands(), false);
    plan.permuted[0] = true;
  };
  if (op->getNumOperands() == 0 ||
      !llvm::all_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>) ||
      !llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
    return std::nullopt;

  if (isElementwise(op)) {
    // Every operand broadcasts to the result: all are permuted (after rank
    // expansion), and each must be a matching transpose or a constant.
    if (op->getNumResults() != 1 || tensorType(op->getResult(0)).getRank() !=
                                        rank)
      return std::nullopt;
    for (Value v : op->getOperands()) {
      if (tensorType(v).getNumElements() == 1 ||
          isFreeToPermute(v, perm, depth))
        continue;
      return std::nullopt;
    }
    plan.permuted.assign(op->getNumOperands(), true);
    single();
    return plan;
  }
  if (auto c = dyn_cast<ConcatOp>(op)) {
    for (Value v : c.getInputs())
      if (!isFreeToPermute(v, perm, depth))
        return std::nullopt;
    plan.permuted.assign(op->getNumOperands(), true);
    single();
    setAttr("axis",
            IntegerAttr::get(c.getAxisAttr().getType(), perm[c.getAxis()]));
    return plan;
  }
  // The other ops permute their first operand only.
  if (!isFreeToPermute(op->getOperand(0), perm, depth) ||
      tensorType(op->getOperand(0)).getRank() != rank)
    return std::nullopt;
  if (auto q = dyn_cast<QuantizeLinearOp>(op)) {
    firstOnly();
    single();
    setAttr("axis", IntegerAttr::get(q.getAxisAttr().getType(),
                                     perm[q.getAxis() < (uint64_t)rank
                                              ? q.getAxis()
                                              : 0]));
    return plan;
  }
  if (auto dq = dyn_cast<DequantizeLinearOp>(op)) {
    firstOnly();
    single();
    setAttr("axis", IntegerAttr::get(dq.getAxisAttr().getType(),
                                     perm[dq.getAxis() < (uint64_t)rank
                                              ? dq.getAxis()
                                              : 0]));
    return plan;
  }
  if (auto rq = dyn_cast<RequantizeOp>(op)) {
    firstOnly();
    single();
    setAttr("axis", IntegerAttr::get(rq.getAxisAttr().getType(),
                                     perm[rq.getAxis() < (uint64_t)rank
                                              ? rq.getAxis()
                                              : 0]));
    return plan;
  }
  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    firstOnly();
    single();
    auto axis = cast<IntegerAttr>(op->getAttr("axis"));
    setAttr("axis", IntegerAttr::get(axis.getType(), perm[axis.getInt()]));
    return plan;
  }
  if (isa<ReduceMeanOp, ReduceSumOp, ReduceProdOp, ReduceMaxOp, ReduceMinOp,
          ReduceL1Op, ReduceSumSquareOp, ReduceL2Op, ReduceLogSumOp,
          ReduceLogSumExpOp>(op)) {
    auto axesAttr = dyn_cast_or_null<DenseI64ArrayAttr>(op->getAttr("axes"));
    auto keep = dyn_cast_or_null<BoolAttr>(op->getAttr("keepdims"));
    if (!axesAttr || !keep || op->getNumOperands() != 1)
      return std::nullopt;
    SmallVector<int64_t> axes = mapAxes(axesAttr.asArrayRef(), perm);
    firstOnly();
    setAttr("axes", DenseI64ArrayAttr::get(ctx, axes));
    if (keep.getValue()) {
      single();
      return plan;
    }
    // Without keepdims: the kept dims of x, renumbered.
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : axes)
      reduced[a] = true;
    SmallVector<int64_t> newPos(rank, -1);
    int64_t next = 0;
    for (int64_t i = 0; i < rank; ++i)
      if (!reduced[i])
        newPos[i] = next++;
    SmallVector<int64_t> resultPerm;
    for (int64_t j = 0; j < rank; ++j)
      if (!reduced[perm[j]])
        resultPerm.push_back(newPos[perm[j]]);
    plan.resultPerms.assign(1, resultPerm);
    return plan;
  }
  if (isa<MaxPoolOp, AveragePoolOp>(op)) {
    // pool(nchw(y)) == nchw(pool_channels_last(y)).
    if (rank != 4 || perm != ArrayRef<int64_t>(kToFirst) ||
        op->hasAttr("channels_last"))
      return std::nullopt;
    firstOnly();
    single();
    setAttr("channels_last", UnitAttr::get(ctx));
    return plan;
  }
  return std::nullopt;
}

/// op(transpose(x, p), ...) -> transpose(op'(x, ...), p).
struct SinkTranspose : RewritePattern {
  SinkTranspose(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (isa<TransposeOp>(op) || op->getNumResults() == 0 ||
        !isa<DlcDialect>(op->getDialect()))
      return failure();
    // The first transposed operand decides the permutation.
    TransposeOp t;
    for (Value v : op->getOperands())
      if ((t = v.getDefiningOp<TransposeOp>()))
        break;
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    std::optional<SinkPlan> plan = planSink(op, perm, /*depth=*/0);
    // Something to sink: `t` must be one of the permuted operands.
    if (!plan || !llvm::any_of(op->getOpOperands(), [&](OpOperand &o) {
          return o.get() == t.getResult() &&
                 plan->permuted[o.getOperandNumber()];
        }))
      return failure();
    // A transpose with other readers stays unless they can all take it
    // (then it dies once they have).
    for (Operation *user : t->getUsers())
      if (user != op && !isa<TransposeOp>(user) &&
          !planSink(user, perm, /*depth=*/3))
        return failure();
    Location loc = op->getLoc();
    SmallVector<int64_t> inv = inversePerm(perm);
    SmallVector<Value> operands;
    for (auto [v, permuted] : llvm::zip(op->getOperands(), plan->permuted)) {
      if (!permuted) {
        operands.push_back(v);
        continue;
      }
      // Broadcast operands of lower rank get leading unit dims first.
      auto type = tensorType(v);
      if (type.getRank() < (int64_t)perm.size()) {
        SmallVector<int64_t> shape(perm.size() - type.getRank(), 1);
        llvm::append_range(shape, type.getShape());
        auto expanded = RankedTensorType::get(shape, type.getElementType());
        Attribute attr;
        if (matchPattern(v, m_Constant(&attr)) &&
            isa<DenseElementsAttr>(attr))
          v = rw.create<arith::ConstantOp>(
              loc, cast<DenseElementsAttr>(attr).reshape(expanded));
        else
          v = rw.create<ReshapeOp>(loc, expanded, v);
      }
      operands.push_back(transposeValue(rw, loc, v, inv));
    }
    SmallVector<Type> types;
    for (auto [r, p] : llvm::zip(op->getResults(), plan->resultPerms))
      types.push_back(permutedType(tensorType(r), inversePerm(p)));
    OperationState state(loc, op->getName(), operands, types, plan->attrs);
    Operation *clone = rw.create(state);
    SmallVector<Value> results;
    for (auto [r, p] : llvm::zip(clone->getResults(), plan->resultPerms))
      results.push_back(transposeValue(rw, loc, r, p));
    rw.replaceOp(op, results);
    return success();
  }
};

/// batch_norm(transpose(x)) with constant f32 parameters -> x * s + b with
/// s = scale / sqrt(var + eps), b = bias - mean * s as [C, 1, ...]
/// constants: elementwise ops the transpose then sinks through.
struct BatchNormOfTranspose : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rw) const override {
    if (!op.getInput().getDefiningOp<TransposeOp>())
      return failure();
    auto scale = constFloats(op.getScale()), bias = constFloats(op.getBias()),
         mean = constFloats(op.getMean()),
         var = constFloats(op.getVariance());
    auto type = op.getType();
    if (!scale || !bias || !mean || !var || !type.getElementType().isF32())
      return failure();
    int64_t c = scale->size();
    float eps = op.getEpsilon().convertToFloat();
    SmallVector<float> s(c), b(c);
    for (int64_t i = 0; i < c; ++i) {
      s[i] = (*scale)[i] / std::sqrt((*var)[i] + eps);
      b[i] = (*bias)[i] - (*mean)[i] * s[i];
    }
    SmallVector<int64_t> shape(type.getRank() - 1, 1);
    shape[0] = c;
    auto paramType = RankedTensorType::get(shape, rw.getF32Type());
    Location loc = op.getLoc();
    Value sv = rw.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(paramType, ArrayRef<float>(s)));
    Value bv = rw.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(paramType, ArrayRef<float>(b)));
    Value y = rw.create<MulOp>(loc, op.getInput(), sv);
    rw.replaceOpWithNewOp<AddOp>(op, y, bv);
    return success();
  }
};

struct ConvertConvLayoutPass
    : dlc::impl::ConvertConvLayoutPassBase<ConvertConvLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateConvertConvLayoutPatterns(patterns);
    GreedyRewriteConfig config;
    config.maxIterations = 64;
    // Every step keeps the IR valid: a graph that has not settled after
    // the iteration limit is still correct, only with more transposes.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
  }
};
} // namespace

void mlir::dlc::populateConvertConvLayoutPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConvToChannelsLast<ConvOp>, ConvToChannelsLast<ConvIntegerOp>,
               SimplifyTranspose, SinkTranspose, BatchNormOfTranspose>(
      patterns.getContext());
}
