//===- DlcAttentionOps.cpp - dlc.attention and its kernel form --*- C++ -*-===//
//
// Shape rules shared by dlc.attention (graph level, inferred result type) and
// dlc.attention_kernel (destination-passing style on tensors or buffers), and
// the bufferization model of the kernel form.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlc;

AttentionLayout AttentionLayout::get(std::optional<ArrayRef<int64_t>> query,
                                     std::optional<ArrayRef<int64_t>> key,
                                     std::optional<ArrayRef<int64_t>> value,
                                     std::optional<ArrayRef<int64_t>> result,
                                     int64_t rank) {
  auto perm = [&](std::optional<ArrayRef<int64_t>> p) {
    if (p)
      return SmallVector<int64_t>(*p);
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  };
  return {perm(query), perm(key), perm(value), perm(result)};
}

SmallVector<Value> AttentionLayout::operandIndices(
    ArrayRef<int64_t> storedShape, ArrayRef<int64_t> perm,
    ArrayRef<int64_t> outShape, ValueRange batch, Value row, Value col,
    Value zero, Select select, Value selectIndex) {
  SmallVector<int64_t> stored = selected(storedShape, select);
  SmallVector<int64_t> shape =
      perm.empty() ? stored : gather(ArrayRef<int64_t>(stored), perm);
  int64_t rank = shape.size();
  SmallVector<Value> idx;
  for (int64_t d = 0; d < rank - 2; ++d)
    idx.push_back(shape[d] == outShape[d] ? batch[d] : zero);
  idx.push_back(shape[rank - 2] == 1 ? zero : row);
  idx.push_back(shape[rank - 1] == 1 ? zero : col);
  if (!perm.empty())
    idx = scatter(ArrayRef<Value>(idx), perm);
  if (select)
    idx.insert(idx.begin() + select.dim, selectIndex);
  return idx;
}

FailureOr<SmallVector<int64_t>>
mlir::dlc::inferAttentionShape(ShapedType storedQuery, ShapedType storedKey,
                               ShapedType storedValue, ShapedType mask,
                               bool kTransposed, const AttentionLayout &layout,
                               function_ref<void(const Twine &)> emitError) {
  for (ShapedType t : {storedQuery, storedKey, storedValue, mask})
    if (t && !t.hasStaticShape()) {
      emitError("operands must have static shapes");
      return failure();
    }
  // A selected dim is read at one index: from here on, the operands as if
  // stored without it.
  for (auto [t, select, what] :
       {std::make_tuple(&storedQuery, layout.querySelect, "query_select"),
        std::make_tuple(&storedKey, layout.keySelect, "key_select"),
        std::make_tuple(&storedValue, layout.valueSelect, "value_select")}) {
    if (select.dim == -1)
      continue;
    int64_t storedRank = t->getRank();
    // Never the innermost dim: the lowerings stage along the stored
    // contiguous dim, which must stay a dim the op reads.
    if (select.dim < 0 || select.dim >= storedRank - 1 || select.index < 0 ||
        select.index >= t->getDimSize(select.dim)) {
      emitError(Twine(what) + " must be [dim, index] with dim below the " +
                "innermost of the " + Twine(storedRank) +
                " dims and index within it");
      return failure();
    }
    *t = RankedTensorType::get(AttentionLayout::selected(t->getShape(), select),
                               t->getElementType());
  }
  int64_t rank = storedQuery.getRank();
  if (rank < 2) {
    emitError("query must have rank >= 2");
    return failure();
  }
  Type elt = storedQuery.getElementType();
  for (auto [t, what] :
       {std::make_pair(storedKey, "key"), std::make_pair(storedValue, "value"),
        std::make_pair(mask, "mask")}) {
    if (!t)
      continue;
    if (t.getRank() != rank) {
      emitError(Twine(what) + " must have the query's rank " + Twine(rank));
      return failure();
    }
    // The mask is added in f32 whatever it is stored in (q, k and v may be
    // half precision under an f32 mask: dlc-reduce-precision).
    bool isMask = StringRef(what) == "mask";
    if (isMask ? !isa<FloatType>(t.getElementType())
               : t.getElementType() != elt) {
      emitError(Twine(what) + (isMask ? " must be floating-point"
                                      : " must have the query's element type"));
      return failure();
    }
  }
  for (auto [perm, what] : {std::make_pair(&layout.query, "query_perm"),
                            std::make_pair(&layout.key, "key_perm"),
                            std::make_pair(&layout.value, "value_perm"),
                            std::make_pair(&layout.result, "result_perm")}) {
    SmallVector<bool> seen(rank, false);
    bool valid = (int64_t)perm->size() == rank;
    for (int64_t p : *perm) {
      valid = valid && p >= 0 && p < rank && !seen[p];
      if (valid)
        seen[p] = true;
    }
    if (!valid) {
      emitError(Twine(what) + " must be a permutation of the " + Twine(rank) +
                " dims");
      return failure();
    }
  }
  // From here on, the shapes the op reads.
  auto read = [&](ShapedType t, ArrayRef<int64_t> perm) -> ShapedType {
    return RankedTensorType::get(AttentionLayout::gather(t.getShape(), perm),
                                 t.getElementType());
  };
  ShapedType query = read(storedQuery, layout.query),
             key = read(storedKey, layout.key),
             value = read(storedValue, layout.value);
  ArrayRef<int64_t> q = query.getShape();
  int64_t sq = q[rank - 2], d = q[rank - 1];
  int64_t kd = key.getDimSize(rank - (kTransposed ? 2 : 1));
  int64_t skv = key.getDimSize(rank - (kTransposed ? 1 : 2));
  if (kd != d) {
    emitError("key head size " + Twine(kd) + " differs from the query's " +
              Twine(d));
    return failure();
  }
  if (value.getDimSize(rank - 2) != skv) {
    emitError("value has " + Twine(value.getDimSize(rank - 2)) +
              " keys, key has " + Twine(skv));
    return failure();
  }
  for (auto [t, what] :
       {std::make_pair(key, "key"), std::make_pair(value, "value"),
        std::make_pair(mask, "mask")}) {
    if (!t)
      continue;
    for (int64_t i = 0; i < rank - 2; ++i)
      if (t.getDimSize(i) != q[i] && t.getDimSize(i) != 1) {
        emitError(Twine(what) + " batch dim " + Twine(i) + " (" +
                  Twine(t.getDimSize(i)) + ") is neither the query's (" +
                  Twine(q[i]) + ") nor 1");
        return failure();
      }
  }
  if (mask &&
      ((mask.getDimSize(rank - 2) != sq && mask.getDimSize(rank - 2) != 1) ||
       (mask.getDimSize(rank - 1) != skv && mask.getDimSize(rank - 1) != 1))) {
    emitError("mask must broadcast to the scores [..., " + Twine(sq) + ", " +
              Twine(skv) + "]");
    return failure();
  }
  SmallVector<int64_t> result(q.drop_back());
  result.push_back(value.getDimSize(rank - 1));
  return AttentionLayout::gather(ArrayRef<int64_t>(result), layout.result);
}

/// The result's element type: the query's, or f16/bf16 (rounded once from
/// the f32 computation).
static bool isResultElementType(Type result, Type query) {
  return result == query || result.isF16() || result.isBF16() || result.isF32();
}

/// `result_scale` and `result_zero_point` come together, with an i8 result
/// only: a finite positive scale, a zero point within i8.
static LogicalResult verifyResultQuantization(Operation *op, Type result,
                                              FloatAttr scale,
                                              IntegerAttr zeroPoint) {
  if (bool(scale) != bool(zeroPoint))
    return op->emitOpError(
        "result_scale and result_zero_point must be given together");
  if (!scale) {
    if (!isa<FloatType>(result))
      return op->emitOpError("an integer result needs result_scale and "
                             "result_zero_point");
    return success();
  }
  if (!result.isSignlessInteger(8))
    return op->emitOpError("a quantized result (result_scale) must be i8, "
                           "got ")
           << result;
  double s = scale.getValueAsDouble();
  if (!std::isfinite(s) || s <= 0)
    return op->emitOpError("result_scale must be finite and positive, got ")
           << s;
  int64_t z = zeroPoint.getInt();
  if (z < -128 || z > 127)
    return op->emitOpError("result_zero_point ")
           << z << " is outside i8's [-128, 127]";
  return success();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string dims;
  for (int64_t d : shape)
    dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return dims;
}

LogicalResult AttentionOp::verify() {
  ShapedType mask;
  if (getMask())
    mask = cast<ShapedType>(getMask().getType());
  auto shape = inferAttentionShape(
      getQuery().getType(), getKey().getType(), getValue().getType(), mask,
      getKTransposed(), getLayout(),
      [&](const Twine &msg) { (void)emitOpError(msg); });
  if (failed(shape))
    return failure();
  RankedTensorType type = getType();
  Type elt = getQuery().getType().getElementType();
  if (failed(verifyResultQuantization(*this, type.getElementType(),
                                      getResultScaleAttr(),
                                      getResultZeroPointAttr())))
    return failure();
  if (type.getShape() != ArrayRef<int64_t>(*shape) ||
      (!getResultScale() && !isResultElementType(type.getElementType(), elt)))
    return emitOpError("result must have shape ")
           << shapeString(*shape) << " and element type " << elt
           << " (or f16, bf16, f32)";
  return success();
}

LogicalResult AttentionKernelOp::verify() {
  auto query = cast<ShapedType>(getQuery().getType());
  auto init = cast<ShapedType>(getInit().getType());
  bool buffers = isa<MemRefType>(init);
  SmallVector<Value> operands = {getQuery(), getKey(), getValue(), getInit()};
  if (getMask())
    operands.push_back(getMask());
  for (Value v : operands)
    if (isa<MemRefType>(v.getType()) != buffers)
      return emitOpError("operands must be all tensors or all buffers");
  if (!isa<FloatType>(query.getElementType()))
    return emitOpError("expected floating-point operands");
  if (buffers != !getResult())
    return emitOpError(buffers ? "on buffers has no result"
                               : "on tensors returns its result");
  if (getResult() && getResult().getType() != Type(init))
    return emitOpError("result type must be the init type");
  ShapedType mask;
  if (getMask())
    mask = cast<ShapedType>(getMask().getType());
  auto shape = inferAttentionShape(
      query, cast<ShapedType>(getKey().getType()),
      cast<ShapedType>(getValue().getType()), mask, getKTransposed(),
      getLayout(), [&](const Twine &msg) { (void)emitOpError(msg); });
  if (failed(shape))
    return failure();
  if (failed(verifyResultQuantization(*this, init.getElementType(),
                                      getResultScaleAttr(),
                                      getResultZeroPointAttr())))
    return failure();
  if (init.getShape() != ArrayRef<int64_t>(*shape) ||
      (!getResultScale() &&
       !isResultElementType(init.getElementType(), query.getElementType())))
    return emitOpError("init must have shape ")
           << shapeString(*shape) << " and element type "
           << query.getElementType() << " (or f16, bf16, f32)";
  return success();
}

void AttentionKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (&operand == &getInitMutable())
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

namespace {
/// One-shot bufferization of dlc.attention_kernel: reads its inputs, writes
/// its init (which it overwrites entirely, so the init's contents are never
/// read), and becomes the same op on the operands' buffers.
struct AttentionKernelBufferization
    : bufferization::DstBufferizableOpInterfaceExternalModel<
          AttentionKernelBufferization, AttentionKernelOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const bufferization::AnalysisState &) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  LogicalResult
  bufferize(Operation *op, RewriterBase &rewriter,
            const bufferization::BufferizationOptions &options) const {
    auto attention = cast<AttentionKernelOp>(op);
    if (attention.hasPureBufferSemantics())
      return success();
    auto buffer = [&](Value v) -> FailureOr<Value> {
      if (!v)
        return Value();
      return bufferization::getBuffer(rewriter, v, options);
    };
    FailureOr<Value> q = buffer(attention.getQuery()),
                     k = buffer(attention.getKey()),
                     v = buffer(attention.getValue()),
                     mask = buffer(attention.getMask()),
                     init = buffer(attention.getInit());
    if (failed(q) || failed(k) || failed(v) || failed(mask) || failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    rewriter.create<AttentionKernelOp>(
        op->getLoc(), /*result=*/Type(), *q, *k, *v, *mask, *init,
        attention.getScaleAttr(), attention.getKTransposedAttr(),
        attention.getNanToZeroAttr(), attention.getQueryPermAttr(),
        attention.getKeyPermAttr(), attention.getValuePermAttr(),
        attention.getResultPermAttr(), attention.getQuerySelectAttr(),
        attention.getKeySelectAttr(), attention.getValueSelectAttr(),
        attention.getResultScaleAttr(), attention.getResultZeroPointAttr());
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlir::dlc::registerAttentionBufferization(MLIRContext &context) {
  AttentionKernelOp::attachInterface<AttentionKernelBufferization>(context);
}
