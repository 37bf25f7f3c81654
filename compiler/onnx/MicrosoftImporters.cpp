//===- MicrosoftImporters.cpp - ONNX Runtime's operators --------*- C++ -*-===//
//
// ONNX Runtime's contrib domain (com.microsoft). What reaches users' models:
//  - the quantized operators its QOperator-format quantizer writes beside
//    the standard QLinearConv/QLinearMatMul (QuantImporters.cpp), its QDQ
//    format's QuantizeLinear/DequantizeLinear with UseQDQContribOps, and
//    MatMulNBits, its weight-only low-bit MatMul;
//  - the fused operators its transformer optimizer writes into BERT and
//    GPT-2 graphs (onnxruntime.transformers.optimizer, Hugging Face
//    Optimum's ORTOptimizer): Gelu, FastGelu, SkipLayerNormalization,
//    EmbedLayerNormalization, Attention, and QAttention after its
//    quantize_dynamic;
//  - the fusions in the graphs it saves optimized: DynamicQuantizeMatMul,
//    MatMulIntegerToFloat.
// Each imports as the dlc ops of its definition; fusion puts them back
// together (an erf Gelu is dlc.gelu, an Attention one dlc.attention).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"

#include "dialects/dlc/ConstantValues.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

using Results = SmallVectorImpl<Value>;

namespace {

/// `x + bias`, or `x` without a bias.
Value withBias(NodeContext &n, Value x, Value bias) {
  return bias ? n.create<AddOp>({x, bias}) : x;
}

/// Gelu (erf), as ONNX's Gelu without `approximate`.
LogicalResult importMsGelu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  r.push_back(n.create<GeluOp>(x, {n.boolean("tanh_approximation", false)},
                               x.getType()));
  return success(r.back() != nullptr);
}

/// BiasGelu(A, B) = Gelu(A + B), erf; FastGelu(X, bias) the tanh
/// approximation of Gelu(X + bias).
template <bool Tanh> LogicalResult importBiasGelu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(Tanh ? 1 : 2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = withBias(n, n.input(0), n.input(1));
  if (!x)
    return failure();
  r.push_back(n.create<GeluOp>(x, {n.boolean("tanh_approximation", Tanh)},
                               x.getType()));
  return success(r.back() != nullptr);
}

/// QuickGelu(X) = X * Sigmoid(alpha * X), alpha 1.702 by default.
LogicalResult importQuickGelu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"alpha"})))
    return failure();
  Value x = n.input(0);
  auto type = NodeContext::getType(x);
  if (!isa<FloatType>(type.getElementType()))
    return n.emitError() << "input must be floating point, got " << x.getType();
  Value alpha = n.b.create<arith::ConstantOp>(
      n.loc,
      DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                             n.b.getFloatAttr(type.getElementType(),
                                              n.getFloat("alpha", 1.702f))));
  Value scaled = n.create<MulOp>({x, alpha});
  Value gate = scaled ? n.create<SigmoidOp>(scaled, {}, x.getType()) : Value();
  if (!gate)
    return failure();
  r.push_back(n.create<MulOp>({x, gate}));
  return success(r.back() != nullptr);
}

/// SkipLayerNormalization(input, skip, gamma, beta, bias), epsilon: the
/// LayerNormalization over the last dim of input + skip + bias, with
/// ONNX's Mean and InvStdDev as outputs 1 and 2 and the sum as output 3
/// (the next SkipLayerNormalization's skip in ONNX Runtime's graphs).
LogicalResult importSkipLayerNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 5)) || failed(n.checkKnownAttrs({"epsilon"})))
    return failure();
  Value sum = n.create<AddOp>({n.input(0), n.input(1)});
  sum = sum ? withBias(n, sum, n.input(4)) : Value();
  if (!sum)
    return failure();
  SmallVector<Value> operands{sum, n.input(2)};
  if (Value beta = n.input(3))
    operands.push_back(beta);
  unsigned outputs = std::min(n.node.output_size(), 3);
  SmallVector<Value> normalized =
      importNested(n, "LayerNormalization", operands, {}, std::nullopt, {},
                   std::max(outputs, 1u));
  if (normalized.empty())
    return failure();
  r.append(normalized.begin(), normalized.end());
  if (n.node.output_size() > 3) {
    // The stats are there (outputs >= 2 asks for them): the sum follows.
    r.resize(3);
    r.push_back(sum);
  }
  return success();
}

/// Attention's attributes and shapes, checked: what its core needs.
struct AttentionShape {
  int64_t batch, seq, hidden, heads, headSize;
  float scale, filter;
};

/// Reads num_heads (which must divide `a.hidden`), scale (1/sqrt(head size)
/// by default) and mask_filter_value (-10000) into `a`.
LogicalResult readHeads(NodeContext &n, AttentionShape &a) {
  a.heads = n.getInt("num_heads", 0);
  if (a.heads <= 0 || a.hidden % a.heads != 0)
    return n.emitError() << "num_heads " << a.heads
                         << " must be positive and divide the hidden size "
                         << a.hidden;
  a.headSize = a.hidden / a.heads;
  a.scale = n.getFloat("scale", 1.0f / std::sqrt((float)a.headSize));
  a.filter = n.getFloat("mask_filter_value", -10000.0f);
  return failure(n.hasFailed());
}

/// Checks Attention's (or QAttention's) attributes and the shapes of its
/// input [B, S, Hin] and weights [Hin, 3H].
FailureOr<AttentionShape> checkAttention(NodeContext &n, Value x, Value w) {
  if (failed(n.checkKnownAttrs({"num_heads", "unidirectional", "scale",
                                "mask_filter_value", "qkv_hidden_sizes",
                                "do_rotary", "past_present_share_buffer"})))
    return failure();
  if (n.getInt("do_rotary", 0) != 0 ||
      n.getInt("past_present_share_buffer", 0) != 0)
    return n.fail("do_rotary and past_present_share_buffer are not supported");
  auto xType = NodeContext::getType(x), wType = NodeContext::getType(w);
  if (xType.getRank() != 3 || wType.getRank() != 2)
    return n.emitError() << "input " << x.getType() << " must be 3-D and "
                         << "weights " << w.getType() << " 2-D";
  AttentionShape a;
  a.batch = xType.getDimSize(0);
  a.seq = xType.getDimSize(1);
  int64_t hidden3 = wType.getDimSize(1);
  if (hidden3 % 3 != 0)
    return n.emitError() << "weights " << w.getType()
                         << " must have 3 x hidden columns";
  a.hidden = hidden3 / 3;
  if (std::optional<SmallVector<int64_t>> sizes = n.getInts("qkv_hidden_sizes"))
    if (sizes->size() != 3 ||
        llvm::any_of(*sizes, [&](int64_t v) { return v != a.hidden; }))
      return n.fail("qkv_hidden_sizes must be three equal sizes");
  if (failed(readHeads(n, a)))
    return failure();
  return a;
}

/// The attention of `q` [B, S, H] to `k` and `v` [B, L, H] under `mask`
/// (int32 [B, L] or [B], or null) and `unidirectional` (S = L): [B, S, H].
Value attentionHeads(NodeContext &n, const AttentionShape &a, Value q, Value k,
                     Value v, Value mask) {
  int64_t batch = a.batch, seq = a.seq, hidden = a.hidden, heads = a.heads,
          headSize = a.headSize;
  int64_t keys = NodeContext::getType(k).getDimSize(1);
  float scale = a.scale, filter = a.filter;
  // Q and V as [B, heads, T, head], K as [B, heads, head, L].
  auto split = [&](Value x, ArrayRef<int64_t> perm) -> Value {
    int64_t tokens = NodeContext::getType(x).getDimSize(1);
    Value heads4 = n.reshape(x, {batch, tokens, heads, headSize});
    return heads4 ? n.create<TransposeOp>(heads4, {n.i64Array("perm", perm)})
                  : Value();
  };
  q = split(q, {0, 2, 1, 3});
  k = split(k, {0, 2, 3, 1});
  v = split(v, {0, 2, 1, 3});
  if (!q || !k || !v)
    return {};
  Value scores = n.create<MatMulOp>({q, k});
  if (scores)
    scores = n.create<MulOp>({scores, f32Constant(n, {}, {scale})});
  if (!scores)
    return {};
  if (mask) {
    auto maskType = NodeContext::getType(mask);
    if (!maskType.getElementType().isInteger(32)) {
      n.emitError() << "mask_index must be int32, got " << mask.getType();
      return {};
    }
    Value keep; // [B, L] f32, 1 where a key is attended
    if (maskType.getShape() == ArrayRef<int64_t>{batch, keys}) {
      keep = n.create<CastOp>(mask, {}, maskType.clone(n.b.getF32Type()));
    } else if (maskType.getShape() == ArrayRef<int64_t>{batch}) {
      SmallVector<float> positions;
      for (int64_t j = 0; j < keys; ++j)
        positions.push_back((float)j);
      Value lengths =
          n.create<CastOp>(mask, {}, maskType.clone(n.b.getF32Type()));
      Value column = lengths ? n.reshape(lengths, {batch, 1}) : Value();
      Value before =
          column
              ? n.create<LessOp>({f32Constant(n, {1, keys}, positions), column})
              : Value();
      keep = before ? n.create<CastOp>(before, {},
                                       RankedTensorType::get({batch, keys},
                                                             n.b.getF32Type()))
                    : Value();
    } else {
      n.emitError() << "mask_index " << mask.getType() << " must be [" << batch
                    << "] or [" << batch << ", " << keys
                    << "] (other forms are not supported)";
      return {};
    }
    Value dropped =
        keep ? n.create<SubOp>({f32Constant(n, {}, {1.0f}), keep}) : Value();
    Value penalty = dropped
                        ? n.create<MulOp>({dropped, f32Constant(n, {}, {filter})})
                        : Value();
    Value rows = penalty ? n.reshape(penalty, {batch, 1, 1, keys}) : Value();
    scores = rows ? n.create<AddOp>({scores, rows}) : Value();
    if (!scores)
      return {};
  }
  if (n.getInt("unidirectional", 0) != 0) {
    if (keys != seq) {
      n.emitError() << "unidirectional needs as many keys as queries, got "
                    << keys << " and " << seq;
      return {};
    }
    SmallVector<float> causal;
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < seq; ++j)
        causal.push_back(j > i ? filter : 0.0f);
    scores = n.create<AddOp>({scores, f32Constant(n, {seq, seq}, causal)});
  }
  Value probs =
      scores ? n.create<SoftmaxOp>(scores, {n.i64("axis", 3)}, scores.getType())
             : Value();
  Value context = probs ? n.create<MatMulOp>({probs, v}) : Value();
  Value merged =
      context
          ? n.create<TransposeOp>(context, {n.i64Array("perm", {0, 2, 1, 3})})
          : Value();
  return merged ? n.reshape(merged, {batch, seq, hidden}) : Value();
}

/// The slice [k * H, (k + 1) * H) of the last dim of `x` [B, T, 3H].
Value lastDimPart(NodeContext &n, Value x, int64_t k, int64_t hidden) {
  return sliceAxis(n, x, 2, k * hidden, (k + 1) * hidden);
}

/// The attention of packed `qkv` ([B, S, 3H], Q | K | V) under `mask`.
Value attentionCore(NodeContext &n, const AttentionShape &a, Value qkv,
                    Value mask) {
  Value q = lastDimPart(n, qkv, 0, a.hidden),
        k = lastDimPart(n, qkv, 1, a.hidden),
        v = lastDimPart(n, qkv, 2, a.hidden);
  if (!q || !k || !v)
    return {};
  return attentionHeads(n, a, q, k, v, mask);
}

/// Attention(input, weights, bias, mask_index), num_heads, unidirectional,
/// scale, mask_filter_value, qkv_hidden_sizes: ONNX Runtime's fused
/// self-attention (its optimizer writes it for BERT and GPT-2 graphs whose
/// pattern it matches). input [B, S, Hin] x weights [Hin, 3H] + bias is
/// Q | K | V, each [B, S, H] split into num_heads heads; softmax(Q K^T *
/// scale + masks) V back to [B, S, H]. Masks add mask_filter_value (-10000)
/// where the int32 mask_index says a key is padding: [B, S] (1 keeps a key)
/// or [B] (the keys from each row's length on); unidirectional adds it above
/// the diagonal. Past state, attention bias, rotary embedding and unequal
/// Q/K/V sizes are errors. The ops are those of the unfused graph, so
/// dlc-fuse-attention treats both alike.
LogicalResult importMsAttention(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 7)))
    return failure();
  for (unsigned i = 4; i < n.getNumInputs(); ++i)
    if (n.input(i))
      return n.emitError() << "input " << i
                           << (i == 4   ? " (past)"
                               : i == 5 ? " (attention_bias)"
                                        : " (past_sequence_length)")
                           << " is not supported";
  Value x = n.input(0), w = n.input(1), bias = n.input(2);
  FailureOr<AttentionShape> a = checkAttention(n, x, w);
  if (failed(a))
    return failure();
  if (!isa<FloatType>(NodeContext::getType(x).getElementType()))
    return n.emitError() << "input " << x.getType() << " must be float";
  Value qkv = n.create<MatMulOp>({x, w});
  if (qkv && bias)
    qkv = n.create<AddOp>({qkv, bias});
  r.push_back(qkv ? attentionCore(n, *a, qkv, n.input(3)) : Value());
  return success(r.back() != nullptr);
}

/// MultiHeadAttention(query, key, value, bias, key_padding_mask, ...),
/// num_heads, scale, mask_filter_value, unidirectional: ONNX Runtime's
/// attention of separate (already projected) query [B, S, D], key and value
/// [B, L, D] (self- or cross-attention), with an optional bias [3D] added
/// to each and the key padding mask of Attention. Packed QKV, attention
/// bias, past state and a value size other than D are errors.
LogicalResult importMultiHeadAttention(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 10)))
    return failure();
  for (unsigned i = 5; i < n.getNumInputs(); ++i)
    if (n.input(i))
      return n.emitError() << "input " << i
                           << " (attention bias, past state) is not supported";
  if (failed(n.checkKnownAttrs(
          {"num_heads", "scale", "mask_filter_value", "unidirectional"})))
    return failure();
  Value q = n.input(0), k = n.input(1), v = n.input(2), bias = n.input(3);
  if (!k || !v)
    return n.fail("key and value are required (packed QKV or KV is not "
                  "supported)");
  auto qType = NodeContext::getType(q), kType = NodeContext::getType(k),
       vType = NodeContext::getType(v);
  if (qType.getRank() != 3 || kType.getRank() != 3 || vType.getRank() != 3 ||
      !qType.getElementType().isF32() || kType.getShape() != vType.getShape() ||
      kType.getDimSize(0) != qType.getDimSize(0) ||
      kType.getDimSize(2) != qType.getDimSize(2))
    return n.emitError() << "query " << q.getType() << ", key " << k.getType()
                         << " and value " << v.getType()
                         << " must be f32 [B, S, D], [B, L, D], [B, L, D]";
  AttentionShape a;
  a.batch = qType.getDimSize(0);
  a.seq = qType.getDimSize(1);
  a.hidden = qType.getDimSize(2);
  if (failed(readHeads(n, a)))
    return failure();
  if (bias) {
    if (NodeContext::getType(bias).getShape() !=
        ArrayRef<int64_t>{3 * a.hidden})
      return n.emitError() << "bias " << bias.getType() << " must be ["
                           << 3 * a.hidden << "]";
    auto addPart = [&](Value x, int64_t part) -> Value {
      Value b = sliceAxis(n, bias, 0, part * a.hidden, (part + 1) * a.hidden);
      return b ? n.create<AddOp>({x, b}) : Value();
    };
    q = addPart(q, 0);
    k = q ? addPart(k, 1) : Value();
    v = k ? addPart(v, 2) : Value();
    if (!v)
      return failure();
  }
  r.push_back(attentionHeads(n, a, q, k, v, n.input(4)));
  return success(r.back() != nullptr);
}

/// FusedConv(X, W, B, Z), Conv's attributes, activation,
/// activation_params: ONNX Runtime's fusion of a Conv, an optional addend
/// Z and an activation, in the graphs it saves optimized: activation(Conv(X,
/// W, B) + Z) with Relu, Tanh, Sigmoid, LeakyRelu (alpha), Clip (min, max)
/// or HardSigmoid (alpha, beta); fusion makes them one kernel again.
LogicalResult importFusedConv(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 4)))
    return failure();
  std::string activation = n.getString("activation", "");
  std::optional<SmallVector<float>> params;
  if (const onnx::AttributeProto *a = n.getAttr("activation_params"))
    params = SmallVector<float>(a->floats().begin(), a->floats().end());
  SmallVector<Value> operands{n.input(0), n.input(1)};
  if (Value bias = n.input(2))
    operands.push_back(bias);
  Value y =
      importFloatOp(n, "Conv", operands, {"activation", "activation_params"});
  if (y && n.input(3))
    y = n.create<AddOp>({y, n.input(3)});
  if (!y)
    return failure();
  auto param = [&](size_t i, float fallback) {
    return params && params->size() > i ? (*params)[i] : fallback;
  };
  // The activation takes none of the node's attributes.
  const SmallVector<StringRef> all = {
      "activation", "activation_params", "auto_pad", "dilations",
      "group",      "kernel_shape",      "pads",     "strides"};
  if (activation.empty()) {
    r.push_back(y);
  } else if (activation == "Relu" || activation == "Tanh" ||
             activation == "Sigmoid") {
    r.push_back(importFloatOp(n, activation, {y}, all));
  } else if (activation == "LeakyRelu") {
    r.push_back(importFloatOp(n, "LeakyRelu", {y}, all, std::nullopt,
                              {floatAttribute("alpha", param(0, 0.01f))}));
  } else if (activation == "HardSigmoid") {
    r.push_back(importFloatOp(n, "HardSigmoid", {y}, all, std::nullopt,
                              {floatAttribute("alpha", param(0, 0.2f)),
                               floatAttribute("beta", param(1, 0.5f))}));
  } else if (activation == "Clip") {
    float lo = param(0, -std::numeric_limits<float>::infinity()),
          hi = param(1, std::numeric_limits<float>::infinity());
    r.push_back(importFloatOp(
        n, "Clip", {y, f32Constant(n, {}, {lo}), f32Constant(n, {}, {hi})}, all));
  } else {
    return n.emitError() << "unsupported activation '" << activation
                         << "' (Relu, Tanh, Sigmoid, LeakyRelu, Clip, "
                            "HardSigmoid are)";
  }
  return success(r.back() != nullptr);
}

/// FusedMatMul(A, B), alpha, transA, transB: ONNX Runtime's fusion of
/// transposes and a scale into a MatMul, in the graphs it saves optimized:
/// alpha * op(A) op(B), op swapping the last two dims. transBatchA/B (batch
/// dims moved) are errors.
LogicalResult importFusedMatMul(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs(
          {"alpha", "transA", "transB", "transBatchA", "transBatchB"})))
    return failure();
  if (n.getInt("transBatchA", 0) != 0 || n.getInt("transBatchB", 0) != 0)
    return n.fail("transBatchA and transBatchB are not supported");
  auto swapLast = [&](Value x) -> Value {
    int64_t rank = n.getRank(x);
    if (rank < 2) {
      n.emitError() << "a transposed operand must have rank >= 2, got "
                    << x.getType();
      return {};
    }
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      perm.push_back(i);
    std::swap(perm[rank - 1], perm[rank - 2]);
    return n.create<TransposeOp>(x, {n.i64Array("perm", perm)});
  };
  Value a = n.input(0), b = n.input(1);
  if (n.getInt("transA", 0) != 0)
    a = swapLast(a);
  if (a && n.getInt("transB", 0) != 0)
    b = swapLast(b);
  if (!a || !b)
    return failure();
  Value y = importFloatOp(
      n, "MatMul", {a, b},
      {"alpha", "transA", "transB", "transBatchA", "transBatchB"});
  float alpha = n.getFloat("alpha", 1.0f);
  if (y && alpha != 1.0f)
    y = n.create<MulOp>({y, f32Constant(n, {}, {alpha})});
  r.push_back(y);
  return success(y != nullptr);
}

/// f32(MatMulInteger(a, b, aZp, bZp)) * aScale * bScale + bias: a
/// quantized MatMul's float result as ONNX Runtime computes it (aScale one
/// value, bScale one or one per column of b; zero points 0 when absent, the
/// bias optional). Null after an error naming the operands `aName` and
/// `bName`.
Value matMulIntegerToFloat(NodeContext &n, Value a, Value b, Value aScale,
                           Value bScale, Value aZp, Value bZp, Value bias,
                           StringRef aName = "A", StringRef bName = "B") {
  auto aType = NodeContext::getType(a), bType = NodeContext::getType(b);
  if (!aType.getElementType().isInteger(8) ||
      !bType.getElementType().isInteger(8)) {
    n.emitError() << aName << " " << a.getType() << " and " << bName << " "
                  << b.getType() << " must be int8 or uint8";
    return {};
  }
  aScale = scalarIfSingle(n, aScale);
  bScale = scalarIfSingle(n, bScale);
  if (!aScale || !bScale)
    return {};
  auto aScaleType = NodeContext::getType(aScale),
       bScaleType = NodeContext::getType(bScale);
  if (aScaleType.getRank() != 0 || !aScaleType.getElementType().isF32() ||
      !bScaleType.getElementType().isF32() || bScaleType.getRank() > 1) {
    n.emitError() << aName << "'s scale " << aScale.getType()
                  << " must be one f32 and " << bName << "'s "
                  << bScale.getType() << " one or one per column";
    return {};
  }
  int64_t columns = bType.getRank() ? bType.getShape().back() : 1;
  if (bScaleType.getRank() == 1 && !ShapedType::isDynamic(columns) &&
      bScaleType.getDimSize(0) != columns) {
    n.emitError() << bName << "'s scale " << bScale.getType()
                  << " must have one value or one per column of " << bName
                  << " " << b.getType() << " (" << columns << ")";
    return {};
  }
  auto zeroPoint = [&](Value zp, Type elt) {
    return zp ? scalarIfSingle(n, zp) : zeros(n, {}, elt);
  };
  aZp = zeroPoint(aZp, aType.getElementType());
  bZp = zeroPoint(bZp, bType.getElementType());
  if (!aZp || !bZp)
    return {};
  Value acc = n.create<MatMulIntegerOp>({a, b, aZp, bZp},
                                        {n.boolean("rhs_transposed", false)});
  Value f =
      acc ? n.create<CastOp>(acc, {},
                             NodeContext::getType(acc).clone(n.b.getF32Type()))
          : Value();
  Value product = n.create<MulOp>({aScale, bScale});
  Value y = f && product ? n.create<MulOp>({f, product}) : Value();
  return y && bias ? n.create<AddOp>({y, bias}) : y;
}

/// MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point,
/// b_zero_point, bias): ONNX Runtime's fusion of MatMulInteger and the
/// scaling after it, in graphs it saves optimized.
LogicalResult importMatMulIntegerToFloat(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(4, 7)) || failed(n.checkKnownAttrs({})))
    return failure();
  r.push_back(matMulIntegerToFloat(n, n.input(0), n.input(1), n.input(2),
                                   n.input(3), n.input(4), n.input(5),
                                   n.input(6)));
  return success(r.back() != nullptr);
}

/// DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias): ONNX Runtime's
/// fusion of DynamicQuantizeLinear, MatMulInteger and the scaling (and bias
/// add) after them, in graphs it saves optimized: A quantized at run time to
/// uint8 as DynamicQuantizeLinear does, then MatMulIntegerToFloat.
LogicalResult importDynamicQuantizeMatMul(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 5)) || failed(n.checkKnownAttrs({})))
    return failure();
  if (!NodeContext::getType(n.input(0)).getElementType().isF32())
    return n.emitError() << "A must be f32, got " << n.input(0).getType();
  SmallVector<Value> q = importNested(n, "DynamicQuantizeLinear", {n.input(0)},
                                      {}, std::nullopt, {}, 3);
  if (q.empty())
    return failure();
  r.push_back(matMulIntegerToFloat(n, q[0], n.input(1), q[1], n.input(2), q[2],
                                   n.input(3), n.input(4)));
  return success(r.back() != nullptr);
}

/// QAttention(input, weight, bias, input_scale, weight_scale, mask_index,
/// input_zero_point, weight_zero_point, past): ONNX Runtime's dynamic
/// quantization of Attention, its input quantized at run time
/// (DynamicQuantizeLinear). The QKV projection is what ONNX Runtime
/// computes, matMulIntegerToFloat (an integer GEMM); the rest is
/// Attention's.
LogicalResult importQAttention(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(5, 9, {0, 1, 2, 3, 4})))
    return failure();
  if (n.input(8))
    return n.fail("input 8 (past) is not supported");
  FailureOr<AttentionShape> a = checkAttention(n, n.input(0), n.input(1));
  if (failed(a))
    return failure();
  Value qkv = matMulIntegerToFloat(n, n.input(0), n.input(1), n.input(3),
                                   n.input(4), n.input(6), n.input(7),
                                   n.input(2), "input", "weight");
  r.push_back(qkv ? attentionCore(n, *a, qkv, n.input(5)) : Value());
  return success(r.back() != nullptr);
}

/// MatMulNBits(A, B, scales, zero_points, g_idx, bias), K, N, bits,
/// block_size: ONNX Runtime's weight-only quantized MatMul (its
/// MatMul4BitsQuantizer and LLM exports write it), A [..., K] times B's
/// dequantization transposed. B [N, ceil(K / block_size), block_size * bits
/// / 8] packs `bits`-bit values low bits first; each row's blocks have a
/// scale and a zero point (packed the same way, 2^(bits-1) when absent, or
/// f32). With constant B, scales and zero points the f32 weights [K, N] are
/// computed here, as a constant blocked DequantizeLinear is: the MatMul
/// then runs on them (no low-bit arithmetic in the kernels yet).
LogicalResult importMatMulNBits(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 6)) ||
      failed(n.checkKnownAttrs(
          {"K", "N", "bits", "block_size", "accuracy_level"})))
    return failure();
  int64_t k = n.getInt("K", 0), cols = n.getInt("N", 0);
  int64_t bits = n.getInt("bits", 4), block = n.getInt("block_size", 0);
  if (n.hasFailed())
    return failure();
  if (k <= 0 || cols <= 0)
    return n.emitError() << "attributes K and N must be positive, got K = " << k
                         << ", N = " << cols;
  if (bits != 2 && bits != 4 && bits != 8)
    return n.emitError() << "bits must be 2, 4 or 8, got " << bits;
  if (block < 16 || (block & (block - 1)) != 0)
    return n.emitError() << "block_size must be a power of 2, at least 16, "
                         << "got " << block;
  if (n.input(4))
    return n.fail("g_idx is not supported");
  Value a = n.input(0);
  auto aType = NodeContext::getType(a);
  if (!aType.getElementType().isF32() || aType.getRank() < 1 ||
      aType.getShape().back() != k)
    return n.emitError() << "A " << a.getType() << " must be f32 with last "
                         << "dim K = " << k;
  int64_t blocks = llvm::divideCeil(k, block), blob = block * bits / 8;
  auto bType = NodeContext::getType(n.input(1));
  if (bType.getShape() != ArrayRef<int64_t>{cols, blocks, blob})
    return n.emitError() << "B " << n.input(1).getType() << " must be [" << cols
                         << ", " << blocks << ", " << blob << "]";
  std::optional<SmallVector<int64_t>> packed = constInts(n.input(1));
  std::optional<SmallVector<float>> scales = constFloats(n.input(2));
  if (!packed || !scales || (int64_t)scales->size() != cols * blocks)
    return n.emitError() << "B and an f32 scale per block (" << cols * blocks
                         << ") must be constants";
  int64_t zpRow = llvm::divideCeil(blocks * bits, 8);
  std::optional<SmallVector<int64_t>> zpPacked;
  std::optional<SmallVector<float>> zpFloat;
  if (Value zp = n.input(3)) {
    if (NodeContext::getType(zp).getElementType().isF32())
      zpFloat = constFloats(zp);
    else
      zpPacked = constInts(zp);
    if (!(zpFloat && (int64_t)zpFloat->size() == cols * blocks) &&
        !(zpPacked && (int64_t)zpPacked->size() == cols * zpRow))
      return n.emitError() << "zero_points " << zp.getType() << " must be "
                           << "constant: " << cols * zpRow
                           << " packed bytes or " << cols * blocks << " f32";
  }
  int64_t mask = (1 << bits) - 1;
  auto field = [&](int64_t byte, int64_t index) {
    return ((byte & 0xff) >> (index * bits % 8)) & mask;
  };
  SmallVector<float> weights(k * cols); // [K, N]
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t i = 0; i < k; ++i) {
      int64_t b = i / block, within = i % block;
      int64_t q =
          field((*packed)[(c * blocks + b) * blob + within * bits / 8], within);
      float zero = zpFloat ? (*zpFloat)[c * blocks + b]
                   : zpPacked
                       ? (float)field((*zpPacked)[c * zpRow + b * bits / 8], b)
                       : (float)(1 << (bits - 1));
      weights[i * cols + c] = ((float)q - zero) * (*scales)[c * blocks + b];
    }
  Value w = n.b.create<arith::ConstantOp>(
      n.loc,
      DenseElementsAttr::get(RankedTensorType::get({k, cols}, n.b.getF32Type()),
                             ArrayRef<float>(weights)));
  Value y = n.create<MatMulOp>({a, w});
  r.push_back(y ? withBias(n, y, n.input(5)) : Value());
  return success(r.back() != nullptr);
}

/// EmbedLayerNormalization(input_ids, segment_ids, word_embedding,
/// position_embedding, segment_embedding, gamma, beta, mask, position_ids),
/// epsilon: BERT's embeddings as ONNX Runtime fuses them. Outputs: the
/// LayerNormalization of word[ids] + position[position_ids, or 0..S-1] +
/// segment[segment_ids]; mask_index, each row's count of mask ones (int32,
/// zeros without a mask, as ONNX Runtime gives); the sum before the
/// normalization.
LogicalResult importEmbedLayerNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(7, 9, {0, 2, 3, 5, 6})))
    return failure();
  if (failed(n.checkKnownAttrs({"epsilon", "mask_index_type"})))
    return failure();
  Value ids = n.input(0), segments = n.input(1), mask = n.input(7),
        positions = n.input(8);
  auto idsType = NodeContext::getType(ids);
  if (idsType.getRank() != 2)
    return n.emitError() << "input_ids " << ids.getType() << " must be 2-D";
  if (segments && !n.input(4))
    return n.fail("segment_ids without segment_embedding");
  int64_t batch = idsType.getDimSize(0), seq = idsType.getDimSize(1);
  auto gather = [&](Value table, Value indices) {
    return importFloatOp(n, "Gather", {table, indices},
                         {"epsilon", "mask_index_type"});
  };
  if (!positions) {
    SmallVector<int64_t> iota;
    for (int64_t j = 0; j < seq; ++j)
      iota.push_back(j);
    positions = n.b.create<arith::ConstantOp>(
        n.loc, DenseElementsAttr::get(
                   RankedTensorType::get({1, seq}, n.b.getI64Type()),
                   ArrayRef<int64_t>(iota)));
  }
  Value sum = gather(n.input(2), ids);
  Value position = gather(n.input(3), positions);
  sum = sum && position ? n.create<AddOp>({sum, position}) : Value();
  if (sum && segments) {
    Value segment = gather(n.input(4), segments);
    sum = segment ? n.create<AddOp>({sum, segment}) : Value();
  }
  if (!sum)
    return failure();
  Value normalized =
      importFloatOp(n, "LayerNormalization", {sum, n.input(5), n.input(6)},
                    {"mask_index_type"});
  if (!normalized)
    return failure();
  Value maskIndex;
  if (mask) {
    if (!NodeContext::getType(mask).getElementType().isInteger(32) ||
        NodeContext::getType(mask).getShape() != idsType.getShape())
      return n.emitError() << "mask " << mask.getType() << " must be int32 "
                           << "shaped as input_ids " << ids.getType();
    maskIndex = n.create<ReduceSumOp>(
        mask, {n.i64Array("axes", {1}), n.boolean("keepdims", false)});
  } else {
    maskIndex = zeros(n, {batch}, n.b.getI32Type());
  }
  if (!maskIndex)
    return failure();
  r.append({normalized, maskIndex, sum});
  return success();
}

} // namespace

/// RMS normalization of `x` over the dims from `axis` in f32: x /
/// sqrt(mean(x^2) + epsilon) * scale, and that inverse root; both appended
/// to `r`.
static LogicalResult rmsNormalize(NodeContext &n, Value x, Value scale,
                                  int64_t axisAttr, Results &r) {
  auto type = NodeContext::getType(x);
  if (!isa<FloatType>(type.getElementType()))
    return n.emitError() << "input must be floating point, got " << x.getType();
  std::optional<int64_t> axis = n.normalizeAxis(axisAttr, type.getRank());
  if (!axis)
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < type.getRank(); ++i)
    axes.push_back(i);
  Type f32 = n.b.getF32Type();
  Value xs = type.getElementType().isF32()
                 ? x
                 : n.create<CastOp>(x, {}, type.clone(f32));
  Value eps = f32Constant(n, {}, {n.getFloat("epsilon", 1e-5f)});
  Value square, meanSquare, shifted, root, inv, y;
  if (!xs || !(square = n.create<MulOp>({xs, xs})) ||
      !(meanSquare = n.create<ReduceMeanOp>(
            square, {n.i64Array("axes", axes), n.boolean("keepdims", true)})) ||
      !(shifted = n.create<AddOp>({meanSquare, eps})) ||
      !(root = n.create<SqrtOp>(shifted)) ||
      !(inv = n.create<ReciprocalOp>(root)) ||
      !(y = n.create<MulOp>({xs, inv})))
    return failure();
  if (!type.getElementType().isF32() && !(y = n.create<CastOp>(y, {}, type)))
    return failure();
  Value scaled = n.create<MulOp>({y, scale});
  if (!scaled)
    return failure();
  r.push_back(scaled);
  r.push_back(inv);
  return success();
}

/// SimplifiedLayerNormalization(X, scale), axis, epsilon, stash_type: RMS
/// normalization, X / sqrt(mean(X^2) + epsilon) * scale over the dims from
/// `axis` in f32 (stash_type 1), with that inverse root as output 1. ONNX
/// Runtime registers it in the default domain (LLaMA-style exports of its
/// tools carry it there); ONNX itself has RMSNormalization from opset 23.
LogicalResult onnx_import::importSimplifiedLayerNorm(NodeContext &n,
                                                     Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"axis", "epsilon", "stash_type"})))
    return failure();
  if (n.getInt("stash_type", 1) != 1)
    return n.fail("stash_type must be 1 (f32)");
  return rmsNormalize(n, n.input(0), n.input(1), n.getInt("axis", -1), r);
}

namespace {
/// SkipSimplifiedLayerNormalization(input, skip, gamma, bias), epsilon: the
/// RMS normalization of input + skip + bias over the last dim; outputs 1-3
/// as ONNX Runtime gives them: zeros for the mean it does not compute, the
/// inverse root, the sum.
LogicalResult importSkipSimplifiedLayerNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 4)) || failed(n.checkKnownAttrs({"epsilon"})))
    return failure();
  Value sum = n.create<AddOp>({n.input(0), n.input(1)});
  sum = sum ? withBias(n, sum, n.input(3)) : Value();
  if (!sum || failed(rmsNormalize(n, sum, n.input(2), -1, r)))
    return failure();
  Value inv = r.pop_back_val();
  auto statType = cast<RankedTensorType>(inv.getType());
  r.push_back(n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(statType, n.b.getF32FloatAttr(0.0f))));
  r.push_back(inv);
  r.push_back(sum);
  return success();
}
} // namespace

namespace {
// Sorted by op type.
const OpTableEntry kMicrosoftOpTable[] = {
    {"Attention", importMsAttention,
     "dlc.matmul/slice/reshape/transpose, softmax of masked scaled scores; "
     "num_heads, unidirectional, scale, mask_filter_value, mask_index "
     "[B, S] or [B]; not past, attention_bias, rotary"},
    {"BiasGelu", importBiasGelu<false>, "dlc.add + dlc.gelu (erf)"},
    {"DequantizeLinear", onnx_import::importDequantizeLinear,
     "as the default domain's (ONNX Runtime's quantizer writes these with "
     "UseQDQContribOps); int8, uint8, int16 and uint16"},
    {"DynamicQuantizeMatMul", importDynamicQuantizeMatMul,
     "DynamicQuantizeLinear of A, dlc.matmul_integer scaled by the two "
     "scales, + bias"},
    {"EmbedLayerNormalization", importEmbedLayerNorm,
     "dlc.gather of word, position and segment embeddings, dlc.layer_norm; "
     "epsilon, position_ids; mask_index as each row's mask sum"},
    {"FastGelu", importBiasGelu<true>,
     "dlc.gelu, tanh approximation, of X + bias"},
    {"FusedConv", importFusedConv,
     "Conv (its attributes), + Z, then Relu, Tanh, Sigmoid, LeakyRelu, Clip "
     "or HardSigmoid (activation, activation_params)"},
    {"FusedMatMul", importFusedMatMul,
     "dlc.matmul of the operands with transA/transB, times alpha; not "
     "transBatchA/B"},
    {"Gelu", importMsGelu, "dlc.gelu (erf)"},
    {"MatMulIntegerToFloat", importMatMulIntegerToFloat,
     "dlc.matmul_integer scaled by a_scale * b_scale (one or per column) "
     "+ bias"},
    {"MatMulNBits", importMatMulNBits,
     "dlc.matmul with the constant 2/4/8-bit blocked weights dequantized "
     "to f32 at import; zero points packed or f32, bias; not g_idx"},
    {"MultiHeadAttention", importMultiHeadAttention,
     "as Attention on separate query, key and value (self or cross), "
     "bias [3D], key_padding_mask [B, L] or [B]; not packed QKV, attention "
     "bias, past"},
    {"QAttention", importQAttention,
     "dlc.matmul_integer scaled by input_scale * weight_scale (one or per "
     "column) + bias, then as Attention"},
    {"QGemm", onnx_import::importQGemm,
     "dlc.gemm between dequantize_linear and quantize_linear (folded to an "
     "integer GEMM); alpha, transA, transB, per-column b_scale, int32 C, "
     "f32 output without y_scale"},
    {"QLinearAdd", onnx_import::importQLinearAdd,
     "dlc.add between dequantize_linear and quantize_linear; broadcasting"},
    {"QLinearAveragePool", onnx_import::importQLinearAveragePool,
     "dlc.average_pool between dequantize_linear and quantize_linear; "
     "AveragePool's attributes, channels_last"},
    {"QLinearConcat", onnx_import::importQLinearConcat,
     "dlc.concat of dequantized inputs, quantized; axis"},
    {"QLinearGlobalAveragePool", onnx_import::importQLinearGlobalAveragePool,
     "dlc.reduce_mean between dequantize_linear and quantize_linear; "
     "channels_last"},
    {"QLinearLeakyRelu", onnx_import::importQLinearLeakyRelu,
     "dlc.leaky_relu between dequantize_linear and quantize_linear; alpha"},
    {"QLinearMul", onnx_import::importQLinearMul,
     "dlc.mul between dequantize_linear and quantize_linear; broadcasting"},
    {"QLinearSigmoid", onnx_import::importQLinearSigmoid,
     "dlc.sigmoid between dequantize_linear and quantize_linear"},
    {"QLinearSoftmax", onnx_import::importQLinearSoftmax,
     "dlc.softmax between dequantize_linear and quantize_linear; axis, "
     "opset (the replaced Softmax's axis semantics)"},
    {"QLinearWhere", onnx_import::importQLinearWhere,
     "dlc.where of dequantized X and Y, quantized; broadcasting"},
    {"QuantizeLinear", onnx_import::importQuantizeLinear,
     "as the default domain's (UseQDQContribOps); int8, uint8, int16 and "
     "uint16"},
    {"QuickGelu", importQuickGelu, "X * sigmoid(alpha * X); alpha"},
    {"SkipLayerNormalization", importSkipLayerNorm,
     "dlc.layer_norm of input + skip + bias over the last dim; epsilon; "
     "Mean, InvStdDev and the sum as outputs 1-3"},
    {"SkipSimplifiedLayerNormalization", importSkipSimplifiedLayerNorm,
     "RMS normalization of input + skip + bias over the last dim; epsilon; "
     "outputs 1-3: zeros (the mean), the inverse root, the sum"},
};
} // namespace

ArrayRef<OpTableEntry> onnx_import::getMicrosoftOpTable() {
  return kMicrosoftOpTable;
}
