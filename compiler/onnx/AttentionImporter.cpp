//===- AttentionImporter.cpp - ONNX Attention (opsets 23-25) --------------===//
//
// ONNX's own Attention (opset 23; 24 added nonpad_kv_seqlen, 25 the sliding
// window) as dlc ops, following onnx's reference implementation
// (onnx/reference/ops/op_attention.py), which its node tests check: heads
// split from 3-D inputs, the key/value cache concatenated, one additive
// bias from the mask, the causal frontier, the window and the per-batch
// key counts, grouped heads repeated, scaled scores, softcap, softmax with
// fully masked rows zeroed, and the optional outputs. In f32 the chain is
// the one dlc-fuse-attention makes one kernel of.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

/// Builds the op's values on one node, stopping at the first failure (each
/// step returns null after the node reported it).
class AttentionBuilder {
public:
  AttentionBuilder(NodeContext &n, Type elt) : n(n), elt(elt) {}

  /// A rank-0 constant of the element type `t`.
  Value scalar(Type t, double v) { return splat(n, {}, t, v); }
  Value scalar(double v) { return scalar(elt, v); }
  Value negInf() { return scalar(-std::numeric_limits<double>::infinity()); }

  /// 0, 1, ... `count` - 1 as int64, along dim `dim` of a rank-`rank` shape
  /// of ones otherwise.
  Value iota(int64_t count, int64_t rank, int64_t dim) {
    SmallVector<int64_t> shape(rank, 1);
    shape[dim] = count;
    SmallVector<int64_t> values(count);
    std::iota(values.begin(), values.end(), 0);
    return n.b.create<arith::ConstantOp>(
        n.loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, n.b.getI64Type()),
                               ArrayRef<int64_t>(values)));
  }

  /// 0 where `allowed`, -inf elsewhere.
  Value bias(Value allowed) {
    return allowed ? n.create<WhereOp>({allowed, scalar(0), negInf()})
                   : Value();
  }
  /// `a + b`, either of which may be absent (no bias yet).
  Value add(Value a, Value b) {
    if (!a || !b)
      return a ? a : b;
    return n.create<AddOp>({a, b});
  }

  /// [B, S, H * D] -> [B, H, S, D].
  Value splitHeads(Value x, int64_t heads) {
    ArrayRef<int64_t> s = NodeContext::getType(x).getShape();
    Value r = n.reshape(x, {s[0], s[1], heads, s[2] / heads});
    return r ? n.create<TransposeOp>(r, {n.i64Array("perm", {0, 2, 1, 3})})
             : Value();
  }

  /// Grouped heads: [B, kvH, S, D] -> [B, kvH * g, S, D], each head g times
  /// in a row.
  Value repeatHeads(Value x, int64_t g) {
    if (g == 1)
      return x;
    ArrayRef<int64_t> s = NodeContext::getType(x).getShape();
    Value r = n.reshape(x, {s[0], s[1], 1, s[2], s[3]});
    Value e = r ? n.create<ExpandOp>(
                      r, {n.i64Array("shape", {s[0], s[1], g, s[2], s[3]})})
                : Value();
    return e ? n.reshape(e, {s[0], s[1] * g, s[2], s[3]}) : Value();
  }

  /// `j <= i + offset` (causal) or the window's bounds, as a bias over
  /// [q, kv], or [B, 1, q, kv] where `offsets` (int64 [B]) varies by batch;
  /// `offset` otherwise.
  Value frontier(int64_t q, int64_t kv, int64_t offset, Value offsets,
                 bool causal, int64_t left, int64_t right) {
    Value rows, cols;
    if (offsets) {
      int64_t batch = NodeContext::getType(offsets).getDimSize(0);
      Value o = n.reshape(offsets, {batch, 1, 1});
      rows = o ? n.create<AddOp>({iota(q, 3, 1), o}) : Value();
      cols = iota(kv, 3, 2);
    } else {
      rows = n.create<AddOp>(
          {iota(q, 2, 0), scalar(n.b.getI64Type(), (double)offset)});
      cols = iota(kv, 2, 1);
    }
    if (!rows)
      return {};
    Value allowed;
    if (causal) {
      allowed = n.create<LessOrEqualOp>({cols, rows});
    } else {
      // diff = (i + offset) - j: left <= diff, -diff <= right.
      Value diff = n.create<SubOp>({rows, cols});
      if (!diff)
        return {};
      if (left >= 0)
        allowed = n.create<LessOrEqualOp>(
            {diff, scalar(n.b.getI64Type(), (double)left)});
      if (right >= 0) {
        Value r = n.create<GreaterOrEqualOp>(
            {diff, scalar(n.b.getI64Type(), -(double)right)});
        allowed = allowed && r ? n.create<AndOp>({allowed, r}) : r;
      }
    }
    Value b = bias(allowed);
    if (b && offsets) {
      ArrayRef<int64_t> s = NodeContext::getType(b).getShape();
      b = n.reshape(b, {s[0], 1, s[1], s[2]});
    }
    return b;
  }

  NodeContext &n;
  Type elt;
};

} // namespace

LogicalResult onnx_import::importAttention(NodeContext &n,
                                           SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 7)) ||
      failed(n.checkKnownAttrs({"is_causal", "kv_num_heads", "q_num_heads",
                                "qk_matmul_output_mode", "scale", "softcap",
                                "softmax_precision", "left_window_size",
                                "right_window_size"})))
    return failure();
  Value q = n.input(0), k = n.input(1), v = n.input(2), mask = n.input(3),
        pastKey = n.input(4), pastValue = n.input(5), nonpad = n.input(6);
  auto qType = NodeContext::getType(q);
  Type elt = qType.getElementType();
  if (!isa<FloatType>(elt))
    return n.emitError() << "Q must be floating point, got " << qType;
  int64_t rank = qType.getRank();
  if ((rank != 3 && rank != 4) || NodeContext::getRank(k) != rank ||
      NodeContext::getRank(v) != rank)
    return n.emitError() << "Q, K and V must all be 3-D or all 4-D, got "
                         << q.getType() << ", " << k.getType() << " and "
                         << v.getType();
  if (NodeContext::getType(k).getElementType() != elt ||
      NodeContext::getType(v).getElementType() != elt)
    return n.emitError() << "Q, K and V must have one element type";
  for (Value x : {k, v})
    if (NodeContext::getType(x).getDimSize(0) != qType.getDimSize(0))
      return n.emitError() << "Q, K and V must have one batch size, got "
                           << q.getType() << ", " << k.getType() << " and "
                           << v.getType();
  if (NodeContext::getType(k).getDimSize(rank - 2) !=
      NodeContext::getType(v).getDimSize(rank - 2))
    return n.emitError() << "K and V must have one sequence length, got "
                         << k.getType() << " and " << v.getType();
  if (!pastKey != !pastValue)
    return n.fail("past_key and past_value must be given together");
  if (nonpad && pastKey)
    return n.fail("nonpad_kv_seqlen cannot be combined with past_key");
  bool causal = n.getInt("is_causal", 0) != 0;
  int64_t mode = n.getInt("qk_matmul_output_mode", 0);
  float softcap = n.getFloat("softcap", 0.0f);
  int64_t left = n.getInt("left_window_size", -1),
          right = n.getInt("right_window_size", -1);
  if (n.hasFailed())
    return failure();
  if (mode < 0 || mode > 3)
    return n.emitError() << "qk_matmul_output_mode must be 0-3, got " << mode;
  if (left < -1 || right < -1)
    return n.fail("window sizes must be -1 or non-negative");

  AttentionBuilder a(n, elt);
  int64_t batch = qType.getDimSize(0);
  if (rank == 3) {
    if (!n.hasAttr("q_num_heads") || !n.hasAttr("kv_num_heads"))
      return n.fail("3-D inputs need q_num_heads and kv_num_heads");
    int64_t qHeads = n.getInt("q_num_heads", 1),
            kvHeads = n.getInt("kv_num_heads", 1);
    if (n.hasFailed())
      return failure();
    if (qHeads <= 0 || kvHeads <= 0 || qType.getDimSize(2) % qHeads ||
        NodeContext::getType(k).getDimSize(2) % kvHeads ||
        NodeContext::getType(v).getDimSize(2) % kvHeads)
      return n.emitError() << "hidden sizes must divide by the head counts ("
                           << qHeads << " and " << kvHeads << ")";
    q = a.splitHeads(q, qHeads);
    k = q ? a.splitHeads(k, kvHeads) : Value();
    v = k ? a.splitHeads(v, kvHeads) : Value();
    if (!v)
      return failure();
  }
  if (pastKey) {
    k = n.create<ConcatOp>({pastKey, k}, {n.i64("axis", 2)});
    v = k ? n.create<ConcatOp>({pastValue, v}, {n.i64("axis", 2)}) : Value();
    if (!v)
      return failure();
  }
  Value presentKey = k, presentValue = v;
  auto kType = NodeContext::getType(k);
  int64_t qHeads = NodeContext::getType(q).getDimSize(1),
          kvHeads = kType.getDimSize(1);
  int64_t qLen = NodeContext::getType(q).getDimSize(2),
          kvLen = kType.getDimSize(2);
  int64_t headSize = NodeContext::getType(q).getDimSize(3);
  if (qHeads % kvHeads || NodeContext::getType(v).getDimSize(1) != kvHeads)
    return n.emitError() << "query heads (" << qHeads
                         << ") must be a multiple of the key/value heads ("
                         << kvHeads << ")";

  // The additive bias: the mask (bool: 0 where true, else -inf; padded with
  // -inf to the keys), the causal frontier, the window, the key counts.
  Value bias;
  if (mask) {
    auto maskType = NodeContext::getType(mask);
    Type maskElt = maskType.getElementType();
    if (maskElt.isInteger(1))
      mask = a.bias(mask);
    else if (maskElt != elt)
      return n.emitError() << "attn_mask must be bool or Q's type, got "
                           << maskType;
    if (!mask)
      return failure();
    auto shape = llvm::to_vector(NodeContext::getType(mask).getShape());
    if (shape.empty() || shape.size() > 4)
      return n.emitError() << "attn_mask must have rank 1 to 4, got "
                           << maskType;
    if (shape.back() > kvLen)
      return n.emitError() << "attn_mask " << maskType << " is longer than the "
                           << kvLen << " keys";
    if (shape.back() < kvLen) {
      SmallVector<int64_t> padShape = shape;
      padShape.back() = kvLen - shape.back();
      Value pad =
          n.create<ExpandOp>(a.negInf(), {n.i64Array("shape", padShape)});
      mask = pad ? n.create<ConcatOp>(
                       {mask, pad}, {n.i64("axis", (int64_t)shape.size() - 1)})
                 : Value();
      if (!mask)
        return failure();
    }
    bias = mask;
  }
  // The frontier's offset: the cache's length, or per batch the valid keys
  // past the queries (an external cache: nonpad_kv_seqlen without a past).
  int64_t offset = pastKey ? NodeContext::getType(pastKey).getDimSize(2) : 0;
  Value offsets;
  if (nonpad) {
    auto nonpadType = NodeContext::getType(nonpad);
    if (!nonpadType.getElementType().isInteger(64) ||
        nonpadType.getRank() != 1 || nonpadType.getDimSize(0) != batch)
      return n.emitError() << "nonpad_kv_seqlen must be int64 [" << batch
                           << "], got " << nonpadType;
    offsets =
        n.create<SubOp>({nonpad, a.scalar(n.b.getI64Type(), (double)qLen)});
    if (!offsets)
      return failure();
  }
  if (causal) {
    Value c = a.frontier(qLen, kvLen, offset, offsets, true, -1, -1);
    if (!c || !(bias = a.add(bias, c)))
      return failure();
  }
  if (left >= 0 || right >= 0) {
    Value w = a.frontier(qLen, kvLen, offset, offsets, false, left, right);
    if (!w || !(bias = a.add(bias, w)))
      return failure();
  }
  if (nonpad) {
    Value counts = n.reshape(nonpad, {batch, 1});
    Value valid =
        counts ? n.create<LessOp>({a.iota(kvLen, 2, 1), counts}) : Value();
    Value b = a.bias(valid);
    b = b ? n.reshape(b, {batch, 1, 1, kvLen}) : Value();
    if (!b || !(bias = a.add(bias, b)))
      return failure();
  }

  // Scores: Q sqrt(scale) (K sqrt(scale))^T as the reference computes
  // them, the grouped heads repeated. In f32 without softcap they are
  // scale Q K^T instead (within rounding), the chain dlc-fuse-attention
  // turns into one dlc.attention whose kernel never stores the scores.
  double scale = n.hasAttr("scale") ? n.getFloat("scale", 1.0f)
                                    : 1.0 / std::sqrt((double)headSize);
  bool fusable = elt.isF32() && softcap <= 0;
  k = a.repeatHeads(k, qHeads / kvHeads);
  v = k ? a.repeatHeads(v, qHeads / kvHeads) : Value();
  Value scores;
  if (v && fusable) {
    Value kt = n.create<TransposeOp>(k, {n.i64Array("perm", {0, 1, 3, 2})});
    scores = kt ? n.create<MatMulOp>({q, kt}) : Value();
    scores = scores ? n.create<MulOp>({scores, a.scalar(scale)}) : Value();
  } else if (v) {
    Value root = a.scalar(std::sqrt(scale));
    Value qs = n.create<MulOp>({q, root});
    Value ks = qs ? n.create<MulOp>({k, root}) : Value();
    Value kt =
        ks ? n.create<TransposeOp>(ks, {n.i64Array("perm", {0, 1, 3, 2})})
           : Value();
    scores = kt ? n.create<MatMulOp>({qs, kt}) : Value();
  }
  if (!scores)
    return failure();
  // Softcap before the bias, so that masked scores stay -inf.
  if (softcap > 0) {
    Value t = n.create<DivOp>({scores, a.scalar(softcap)});
    t = t ? n.create<TanhOp>(t, {}, t.getType()) : Value();
    scores = t ? n.create<MulOp>({t, a.scalar(softcap)}) : Value();
    if (!scores)
      return failure();
  }
  // The bias at the scores' rank (dlc.attention's mask has it).
  if (bias && NodeContext::getRank(bias) < 4) {
    auto shape = llvm::to_vector(NodeContext::getType(bias).getShape());
    shape.insert(shape.begin(), 4 - shape.size(), 1);
    if (!(bias = n.reshape(bias, shape)))
      return failure();
  }
  Value qk = scores;
  Value biased = bias ? n.create<AddOp>({scores, bias}) : scores;
  if (!biased)
    return failure();
  if (mode == 2)
    qk = biased;
  // The softmax, in softmax_precision's type when it has one.
  Value logits = biased;
  Type softmaxType = elt;
  if (n.hasAttr("softmax_precision")) {
    int64_t dtype = n.getInt("softmax_precision", 1);
    softmaxType = getElementType(n.b.getContext(), dtype);
    if (!softmaxType || !isa<FloatType>(softmaxType))
      return n.emitError() << "unsupported softmax_precision '"
                           << getDtypeName(dtype) << "'";
    if (softmaxType != elt)
      logits = n.create<CastOp>(
          logits, {}, NodeContext::getType(logits).clone(softmaxType));
  }
  Value probs =
      logits ? n.create<SoftmaxOp>(logits, {n.i64("axis", 3)}, logits.getType())
             : Value();
  if (probs && softmaxType != elt)
    probs = n.create<CastOp>(probs, {}, NodeContext::getType(biased));
  if (!probs)
    return failure();
  // Rows the bias masks entirely attend nothing: zeros where the softmax of
  // their -inf scores is NaN (dlc.attention's nan_to_zero; with finite
  // inputs only those rows are NaN).
  if (bias) {
    Value nan = n.create<IsNaNOp>(probs);
    probs = nan ? n.create<WhereOp>({nan, a.scalar(0), probs}) : Value();
    if (!probs)
      return failure();
  }
  if (mode == 3)
    qk = probs;
  Value y = n.create<MatMulOp>({probs, v});
  if (y && rank == 3) {
    ArrayRef<int64_t> s = NodeContext::getType(y).getShape();
    y = n.create<TransposeOp>(y, {n.i64Array("perm", {0, 2, 1, 3})});
    y = y ? n.reshape(y, {s[0], s[2], s[1] * s[3]}) : Value();
  }
  if (!y)
    return failure();
  r.append({y, presentKey, presentValue, qk});
  return success();
}

/// RotaryEmbedding(input, cos_cache, sin_cache, position_ids), interleaved,
/// num_heads, rotary_embedding_dim (opset 23), after onnx's reference: the
/// first rotary_embedding_dim features of each head rotate by the caches'
/// angles (gathered at position_ids, or [B, S, .] caches as given), as
/// halves or as interleaved pairs; the rest pass through. 4-D inputs are
/// [B, heads, S, head], 3-D [B, S, heads * head].
LogicalResult onnx_import::importRotaryEmbedding(NodeContext &n,
                                                 SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 4)) ||
      failed(n.checkKnownAttrs(
          {"interleaved", "num_heads", "rotary_embedding_dim"})))
    return failure();
  Value x = n.input(0), cosCache = n.input(1), sinCache = n.input(2),
        positions = n.input(3);
  auto xType = NodeContext::getType(x);
  Type elt = xType.getElementType();
  if (!isa<FloatType>(elt))
    return n.emitError() << "input must be floating point, got " << xType;
  bool interleaved = n.getInt("interleaved", 0) != 0;
  int64_t heads = n.getInt("num_heads", 0);
  int64_t rotary = n.getInt("rotary_embedding_dim", 0);
  if (n.hasFailed())
    return failure();
  int64_t rank = xType.getRank();
  if (rank != 3 && rank != 4)
    return n.emitError() << "input must have rank 3 or 4, got " << xType;
  ArrayRef<int64_t> shape = xType.getShape();
  int64_t batch = shape[0], seq = rank == 4 ? shape[2] : shape[1];
  if (rank == 3 && (heads <= 0 || shape[2] % heads != 0))
    return n.emitError() << "a 3-D input needs num_heads dividing its "
                         << shape[2] << " features, got " << heads;
  int64_t head = rank == 4 ? shape[3] : shape[2] / heads;
  if (rotary == 0)
    rotary = head;
  if (rotary < 0 || rotary > head || rotary % 2 != 0)
    return n.emitError() << "rotary_embedding_dim must be even and at most "
                         << "the head size " << head << ", got " << rotary;
  int64_t half = rotary / 2;

  // The angles' cos and sin as [B, S, half].
  auto angles = [&](Value cache, StringRef what) -> Value {
    auto type = NodeContext::getType(cache);
    if (type.getElementType() != elt) {
      n.emitError() << what << " must have the input's element type, got "
                    << type;
      return {};
    }
    Value table = cache;
    if (positions) {
      auto posType = NodeContext::getType(positions);
      if (posType.getShape() != ArrayRef<int64_t>{batch, seq} ||
          !posType.getElementType().isSignlessInteger()) {
        n.emitError() << "position_ids must be an integer [" << batch << ", "
                      << seq << "] tensor, got " << posType;
        return {};
      }
      if (type.getRank() != 2 || type.getDimSize(1) < half) {
        n.emitError() << what << " must be [positions, >= " << half
                      << "] with position_ids, got " << type;
        return {};
      }
      table = n.create<GatherOp>({cache, positions}, {n.i64("axis", 0)});
    } else if (type.getRank() != 3 || type.getDimSize(0) != batch ||
               type.getDimSize(1) != seq || type.getDimSize(2) < half) {
      n.emitError() << what << " must be [" << batch << ", " << seq
                    << ", >= " << half << "] without position_ids, got "
                    << type;
      return {};
    }
    if (!table)
      return {};
    if (NodeContext::getType(table).getDimSize(2) != half)
      table = sliceAxis(n, table, 2, 0, half);
    // Broadcast over the heads: [B, 1, S, half] for 4-D inputs, [B, S, 1,
    // half] for the 3-D input as [B, S, heads, head].
    return table ? n.reshape(table,
                             rank == 4
                                 ? SmallVector<int64_t>{batch, 1, seq, half}
                                 : SmallVector<int64_t>{batch, seq, 1, half})
                 : Value();
  };
  Value cos = angles(cosCache, "cos_cache");
  Value sin = cos ? angles(sinCache, "sin_cache") : Value();
  if (!sin)
    return failure();

  Value in = rank == 4 ? x : n.reshape(x, {batch, seq, heads, head});
  if (!in)
    return failure();
  SmallVector<int64_t> dims(NodeContext::getType(in).getShape());
  // Features [begin, end) by `step` of the last dim.
  auto features = [&](int64_t begin, int64_t end, int64_t step) {
    return sliceAxis(n, in, 3, begin, end, step);
  };
  Value x1 = interleaved ? features(0, rotary, 2) : features(0, half, 1);
  Value x2 = interleaved ? features(1, rotary, 2) : features(half, rotary, 1);
  if (!x1 || !x2)
    return failure();
  auto mul = [&](Value a, Value b) { return n.create<MulOp>({a, b}); };
  Value c1 = mul(cos, x1), s2 = mul(sin, x2), s1 = mul(sin, x1),
        c2 = mul(cos, x2);
  if (!c1 || !s2 || !s1 || !c2)
    return failure();
  Value real = n.create<SubOp>({c1, s2});
  Value imag = n.create<AddOp>({s1, c2});
  if (!real || !imag)
    return failure();
  Value rotated;
  if (interleaved) {
    // (real, imag) pairs back in place: [.., half, 2] -> [.., rotary].
    SmallVector<int64_t> pairShape(dims);
    pairShape[3] = half;
    pairShape.push_back(1);
    Value re = n.reshape(real, pairShape), im = n.reshape(imag, pairShape);
    Value pairs =
        re && im ? n.create<ConcatOp>({re, im}, {n.i64("axis", 4)}) : Value();
    SmallVector<int64_t> rotatedShape(dims);
    rotatedShape[3] = rotary;
    rotated = pairs ? n.reshape(pairs, rotatedShape) : Value();
  } else {
    rotated = n.create<ConcatOp>({real, imag}, {n.i64("axis", 3)});
  }
  if (rotated && rotary < head) {
    Value rest = features(rotary, head, 1);
    rotated = rest ? n.create<ConcatOp>({rotated, rest}, {n.i64("axis", 3)})
                   : Value();
  }
  if (rotated && rank == 3)
    rotated = n.reshape(rotated, shape);
  if (!rotated)
    return failure();
  r.push_back(rotated);
  return success();
}

//===----------------------------------------------------------------------===//
// LinearAttention (opset 27)
//===----------------------------------------------------------------------===//

namespace {

/// `x` as f32 (itself when it is).
Value toF32(NodeContext &n, Value x) { return castTo(n, x, n.b.getF32Type()); }

/// [B, T, H * D] -> [B, H, D, T]: one column a step, for the per-step
/// slices of the keys (as columns), the decay and beta.
Value stepsLast(NodeContext &n, Value x, int64_t heads) {
  ArrayRef<int64_t> s = NodeContext::getType(x).getShape();
  Value r = n.reshape(x, {s[0], s[1], heads, s[2] / heads});
  return r ? n.create<TransposeOp>(r, {n.i64Array("perm", {0, 2, 3, 1})})
           : Value();
}

} // namespace

/// The recurrence of onnx's reference (op_linear_attention.py) unrolled over
/// the static sequence, in f32, on [B, H_kv, ...] batches: per step the
/// state decays (exp(g), per head or per key dim), reads the key's value
/// back for the delta rule (k^T S), adds the outer product k (v - ...)
/// (a [d_k, 1] x [1, d_v] matmul), and the query heads of each KV head read
/// it as one [g, d_k] x [d_k, d_v] matmul (grouped query heads share their
/// KV head's state without repeating it).
LogicalResult onnx_import::importLinearAttention(NodeContext &n,
                                                 SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 6)) ||
      failed(n.checkKnownAttrs({"chunk_size", "kv_num_heads", "q_num_heads",
                                "scale", "update_rule"})))
    return failure();
  Value q = n.input(0), k = n.input(1), v = n.input(2), past = n.input(3),
        decay = n.input(4), beta = n.input(5);
  if (!n.hasAttr("q_num_heads") || !n.hasAttr("kv_num_heads"))
    return n.emitError() << "q_num_heads and kv_num_heads are required";
  int64_t hq = n.getInt("q_num_heads", 0), hkv = n.getInt("kv_num_heads", 0);
  std::string rule = n.getString("update_rule", "gated_delta");
  float scaleAttr = n.getFloat("scale", 0);
  if (n.hasFailed())
    return failure();
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return n.emitError() << "q_num_heads (" << hq
                         << ") must be a positive multiple of kv_num_heads ("
                         << hkv << ")";
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return n.emitError() << "unsupported update_rule '" << rule
                         << "' (linear, gated, delta and gated_delta are)";
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != bool(decay))
    return n.emitError() << "update_rule '" << rule << "' "
                         << (gating ? "requires" : "forbids")
                         << " the decay input";
  if (delta != bool(beta))
    return n.emitError() << "update_rule '" << rule << "' "
                         << (delta ? "requires" : "forbids")
                         << " the beta input";

  auto qType = NodeContext::getType(q);
  Type elt = qType.getElementType();
  if (!isa<FloatType>(elt))
    return n.emitError() << "query must be floating point, got " << qType;
  for (Value x : {q, k, v})
    if (NodeContext::getRank(x) != 3 ||
        !NodeContext::getType(x).hasStaticShape())
      return n.emitError() << "query, key and value must be static 3-D "
                              "[B, T, H * D], got "
                           << x.getType();
  ArrayRef<int64_t> qs = qType.getShape();
  int64_t batch = qs[0], steps = qs[1];
  if (steps > kMaxUnrolledIterations)
    return n.emitError() << "the sequence has " << steps
                         << " steps, more than the " << kMaxUnrolledIterations
                         << " dlc unrolls";
  for (Value x : {k, v}) {
    ArrayRef<int64_t> s = NodeContext::getType(x).getShape();
    if (s[0] != batch || s[1] != steps)
      return n.emitError() << "key and value must have query's batch and "
                              "sequence ["
                           << batch << ", " << steps << ", *], got "
                           << x.getType();
  }
  int64_t dk = qs[2] / hq, dv = NodeContext::getType(v).getDimSize(2) / hkv;
  if (qs[2] % hq != 0 || NodeContext::getType(k).getDimSize(2) != hkv * dk ||
      NodeContext::getType(v).getDimSize(2) % hkv != 0 || dk == 0 || dv == 0)
    return n.emitError() << "query's last dim must be q_num_heads * d_k, "
                            "key's kv_num_heads * d_k and value's "
                            "kv_num_heads * d_v; got "
                         << q.getType() << ", " << k.getType() << ", "
                         << v.getType() << " for " << hq << " and " << hkv
                         << " heads";
  int64_t group = hq / hkv;
  auto check3d = [&](Value x, StringRef what,
                     ArrayRef<int64_t> lasts) -> LogicalResult {
    ArrayRef<int64_t> s = NodeContext::getType(x).getShape();
    if (s.size() == 3 && s[0] == batch && s[1] == steps &&
        llvm::is_contained(lasts, s[2]))
      return success();
    InFlightDiagnostic d = n.emitError();
    d << what << " must be [" << batch << ", " << steps << ", X] with X in {";
    llvm::interleaveComma(lasts, d);
    return d << "}, got " << x.getType();
  };
  if (decay && failed(check3d(decay, "decay", {hkv, hkv * dk})))
    return failure();
  if (beta && failed(check3d(beta, "beta", {hkv, 1})))
    return failure();
  SmallVector<int64_t> stateShape = {batch, hkv, dk, dv};
  if (past && NodeContext::getType(past).getShape() != ArrayRef(stateShape))
    return n.emitError() << "past_state must be [" << batch << ", " << hkv
                         << ", " << dk << ", " << dv << "], got "
                         << past.getType();
  Type f32 = n.b.getF32Type();

  // Per-step operands, sliced from whole-sequence layouts.
  Value qf = toF32(n, q), kf = toF32(n, k), vf = toF32(n, v);
  // query: [B, T, Hq * dk] -> [B, Hkv, g, T, dk].
  Value q5 = qf ? n.reshape(qf, {batch, steps, hkv, group, dk}) : Value();
  if (q5)
    q5 = n.create<TransposeOp>(q5, {n.i64Array("perm", {0, 2, 3, 1, 4})});
  // key rows [B, Hkv, T, dk] and columns [B, Hkv, dk, T]; value rows.
  Value kCols = kf ? stepsLast(n, kf, hkv) : Value();
  Value kRows =
      kCols ? n.create<TransposeOp>(kCols, {n.i64Array("perm", {0, 1, 3, 2})})
            : Value();
  Value vRows = vf ? stepsLast(n, vf, hkv) : Value();
  if (vRows)
    vRows = n.create<TransposeOp>(vRows, {n.i64Array("perm", {0, 1, 3, 2})});
  // exp(decay): [B, Hkv, 1 or dk, T]; beta: [B, Hkv or 1, 1, T].
  Value growth = decay ? toF32(n, decay) : Value();
  if (growth)
    growth = n.create<ExpOp>({growth});
  if (growth)
    growth = stepsLast(n, growth, hkv);
  Value rate = beta ? toF32(n, beta) : Value();
  if (rate)
    rate = stepsLast(n, rate, NodeContext::getType(beta).getDimSize(2));
  Value state = past ? toF32(n, past) : zeros(n, stateShape, f32);
  if (n.hasFailed() || !q5 || !kRows || !kCols || !vRows || !state ||
      (decay && !growth) || (beta && !rate))
    return failure();

  auto step = [&](Value x, int64_t axis, int64_t t) {
    return sliceAxis(n, x, axis, t, t + 1);
  };
  SmallVector<Value> outputs;
  for (int64_t t = 0; t < steps && !n.hasFailed(); ++t) {
    if (growth)
      state = n.create<MulOp>({state, step(growth, 3, t)});
    Value kRow = step(kRows, 2, t); // [B, Hkv, 1, dk]
    Value vRow = step(vRows, 2, t); // [B, Hkv, 1, dv]
    if (delta) {
      Value read = n.create<MatMulOp>({kRow, state});
      Value diff = read ? n.create<SubOp>({vRow, read}) : Value();
      vRow = diff ? n.create<MulOp>({step(rate, 3, t), diff}) : Value();
    }
    Value write =
        vRow ? n.create<MatMulOp>({step(kCols, 3, t), vRow}) : Value();
    state = write ? n.create<AddOp>({state, write}) : Value();
    // [B, Hkv, g, 1, dk] -> [B, Hkv, g, dk] x [B, Hkv, dk, dv].
    Value qRows = n.reshape(step(q5, 3, t), {batch, hkv, group, dk});
    Value o = state && qRows ? n.create<MatMulOp>({qRows, state}) : Value();
    outputs.push_back(o ? n.reshape(o, {batch, hkv, group, 1, dv}) : Value());
    if (!state || !outputs.back())
      return failure();
  }
  if (n.hasFailed())
    return failure();
  // [B, Hkv, g, T, dv] -> [B, T, Hq * dv], scaled once.
  Value out = outputs.size() == 1
                  ? outputs[0]
                  : n.create<ConcatOp>(outputs, {n.i64("axis", 3)});
  float scale = scaleAttr != 0 ? scaleAttr : float(1.0 / std::sqrt(double(dk)));
  if (out)
    out = n.create<MulOp>({out, f32Constant(n, {}, {scale})});
  if (out)
    out = n.create<TransposeOp>(out, {n.i64Array("perm", {0, 3, 1, 2, 4})});
  if (out)
    out = n.reshape(out, {batch, steps, hq * dv});
  if (out && elt != f32)
    out = n.create<CastOp>(out, {}, NodeContext::getType(out).clone(elt));
  Type stateElt = past ? NodeContext::getType(past).getElementType() : elt;
  Value present = state;
  if (stateElt != f32)
    present = n.create<CastOp>(state, {},
                               NodeContext::getType(state).clone(stateElt));
  if (!out || !present)
    return failure();
  r.push_back(out);
  r.push_back(present);
  return success();
}

//===----------------------------------------------------------------------===//
// FlexAttention (ai.onnx.preview 1)
//===----------------------------------------------------------------------===//

/// onnx's reference (aionnx_preview/op_flex_attention.py): 4-D Q, K, V with
/// grouped KV heads repeated, Q and K each scaled by sqrt(scale) in their
/// type, the scores in the softmax precision (f32 for f16/bf16) passed
/// through the `score_mod` graph (imported inline on the whole [B, H, L, S]
/// tensor: PyTorch's score_mod as ONNX ops), softmax over the keys, the
/// probabilities through `prob_mod`, and a matmul with V in that precision,
/// cast back to V's type.
LogicalResult onnx_import::importFlexAttention(NodeContext &n,
                                               SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs(
          {"prob_mod", "scale", "score_mod", "softmax_precision"})))
    return failure();
  Value q = n.input(0), k = n.input(1), v = n.input(2);
  for (Value x : {q, k, v})
    if (NodeContext::getRank(x) != 4)
      return n.emitError() << "Q, K and V must be 4-D [B, H, L, E], got "
                           << q.getType() << ", " << k.getType() << " and "
                           << v.getType();
  auto qType = NodeContext::getType(q);
  Type elt = qType.getElementType();
  if (!isa<FloatType>(elt) || NodeContext::getType(k).getElementType() != elt ||
      NodeContext::getType(v).getElementType() != elt)
    return n.emitError() << "Q, K and V must have one float element type, got "
                         << q.getType() << ", " << k.getType() << " and "
                         << v.getType();
  ArrayRef<int64_t> qs = qType.getShape(),
                    ks = NodeContext::getType(k).getShape(),
                    vs = NodeContext::getType(v).getShape();
  int64_t hq = qs[1], hkv = ks[1];
  if (ks[0] != qs[0] || vs[0] != qs[0] || vs[1] != hkv || vs[2] != ks[2] ||
      ks[3] != qs[3] || hkv <= 0 || hq % hkv != 0)
    return n.emitError()
           << "K must be [B, H_kv, S, E] and V [B, H_kv, S, Ev] for Q [B, H, "
              "L, E] with H a multiple of H_kv; got "
           << q.getType() << ", " << k.getType() << " and " << v.getType();
  std::optional<double> scale;
  if (n.hasAttr("scale"))
    scale = n.getFloat("scale", 0);
  Type compute = elt.isF16() || elt.isBF16() ? n.b.getF32Type() : elt;
  if (n.hasAttr("softmax_precision")) {
    compute =
        getElementType(n.b.getContext(), n.getInt("softmax_precision", 0));
    if (!compute || !isa<FloatType>(compute) || isFloat8(compute))
      return n.emitError() << "softmax_precision must name float, float16, "
                              "bfloat16 or double, got "
                           << n.getInt("softmax_precision", 0);
  }
  if (n.hasFailed())
    return failure();

  AttentionBuilder a(n, elt);
  // The reference computes sqrt(scale) in f32 and rounds it to Q's type.
  float root =
      std::sqrt(float(scale ? *scale : 1.0 / std::sqrt(double(qs[3]))));
  Value rootInElt = castTo(n, f32Constant(n, {}, {root}), elt);
  Value qScaled = n.create<MulOp>({q, rootInElt});
  Value kScaled = n.create<MulOp>({k, rootInElt});
  kScaled = kScaled ? a.repeatHeads(kScaled, hq / hkv) : Value();
  Value kT = kScaled ? n.create<TransposeOp>(kScaled,
                                             {n.i64Array("perm", {0, 1, 3, 2})})
                     : Value();
  Value scores = qScaled && kT
                     ? castTo(n, n.create<MatMulOp>({qScaled, kT}), compute)
                     : Value();
  if (!scores)
    return failure();
  auto applyMod = [&](StringRef attr, Value x) -> Value {
    if (!n.hasAttr(attr))
      return x;
    FailureOr<SmallVector<Value>> outs = n.importGraph(attr, {x});
    if (failed(outs))
      return {};
    if (outs->size() != 1 ||
        NodeContext::getType((*outs)[0]) != NodeContext::getType(x)) {
      n.emitError() << attr << " must map the " << x.getType()
                    << " tensor to one tensor of its type";
      return {};
    }
    return (*outs)[0];
  };
  scores = applyMod("score_mod", scores);
  Value probs =
      scores ? n.create<SoftmaxOp>(scores, {n.i64("axis", 3)}) : Value();
  probs = probs ? applyMod("prob_mod", probs) : Value();
  Value vAligned = castTo(n, a.repeatHeads(v, hq / hkv), compute);
  Value out =
      probs && vAligned ? n.create<MatMulOp>({probs, vAligned}) : Value();
  out = castTo(n, out, elt);
  if (!out)
    return failure();
  r.push_back(out);
  return success();
}
