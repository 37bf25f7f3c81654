//===- RecurrentImporter.cpp - ONNX RNN, GRU and LSTM ---------------------===//
//
// ONNX's recurrent operators, unrolled over their static sequence length
// (docs/architecture.md, *Recurrent operators*). Every step's input
// projection is one GEMM up front, [T * B, I] x W^T with both biases; each
// step then runs one GEMM of the hidden state against R, accumulating onto
// that step's rows (two for GRU without linear_before_reset, whose candidate
// multiplies R by the reset hidden state), and the gates' elementwise ops,
// which the fusion passes merge. Per-batch sequence_lens hold the state and
// zero the output where a step is past a sequence's end.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

enum class CellKind { RNN, GRU, LSTM };

/// An activation function the recurrent ops accept, how many of
/// activation_alpha/activation_beta it consumes (0, 1: alpha, 2: both) and
/// their defaults: those of the ONNX operator of the same name; Affine and
/// ScaledTanh, which have none, default to the identity.
struct ActivationKind {
  StringRef name;
  int numParams;
  float alpha, beta;
};
constexpr ActivationKind kActivationKinds[] = {
    {"relu", 0, 0, 0},          {"tanh", 0, 0, 0},
    {"sigmoid", 0, 0, 0},       {"affine", 2, 1, 0},
    {"leakyrelu", 1, 0.01f, 0}, {"thresholdedrelu", 1, 1, 0},
    {"scaledtanh", 2, 1, 1},    {"hardsigmoid", 2, 0.2f, 0.5f},
    {"elu", 1, 1, 0},           {"softsign", 0, 0, 0},
    {"softplus", 0, 0, 0}};

/// One activation of a cell with the parameters it took.
struct Activation {
  std::string name;
  float alpha, beta;
};

/// Builds one recurrent node. Each helper returns null once an op failed
/// (the node has reported it), and passes nulls through, so a step's
/// failure surfaces once at the end.
class RecurrentBuilder {
public:
  RecurrentBuilder(NodeContext &n, CellKind kind) : n(n), kind(kind) {}

  LogicalResult import(SmallVectorImpl<Value> &results);

private:
  /// Gates per cell: W and R hold them stacked (LSTM: i, o, f, c; GRU: z,
  /// r, h; RNN: one).
  int64_t numGates() const {
    return kind == CellKind::LSTM ? 4 : kind == CellKind::GRU ? 3 : 1;
  }
  /// Activations per direction (LSTM: f, g, h; GRU: f, g; RNN: f).
  int64_t numActivations() const {
    return kind == CellKind::LSTM ? 3 : kind == CellKind::GRU ? 2 : 1;
  }

  LogicalResult parseActivations(int64_t directions);
  /// Checks `v` (when present) is `shape` of the op's element type (or
  /// `elementType`).
  LogicalResult checkShape(Value v, StringRef what, ArrayRef<int64_t> shape,
                           Type elementType = {});

  Value slice(Value v, int64_t axis, int64_t begin, int64_t end) {
    return sliceAxis(n, v, axis, begin, end);
  }
  /// `v`'s slice `index` along dim 0, reshaped to `shape`.
  Value part(Value v, int64_t index, ArrayRef<int64_t> shape);
  /// Gate `g` (columns [g * H, (g + 1) * H)) of [B, k * H].
  Value gate(Value v, int64_t g) {
    return slice(v, 1, g * hidden, (g + 1) * hidden);
  }
  /// a * b^T (+ c); just `c` when `a` is the zero initial state and `c`
  /// is the result's shape.
  Value gemm(Value a, Value b, Value c);
  Value add(Value a, Value b) {
    if (!a || !b)
      return a ? a : b;
    return n.create<AddOp>({a, b});
  }
  Value mul(Value a, Value b) {
    return a && b ? n.create<MulOp>({a, b}) : Value();
  }
  Value scalar(double v) { return splat(n, {}, elt, v); }
  /// activation(clip(x)) where the op clips, and `gate` (not the cell
  /// state's h: ONNX Runtime clips only the gates' inputs).
  Value activate(Value x, const Activation &a, bool gate = true);

  /// One step from the state; `xw` is the step's input projection [B, G *
  /// H] with its biases. Returns the new hidden state (and cell state).
  std::pair<Value, Value> step(Value xw, Value h, Value c, int64_t dir);

  NodeContext &n;
  CellKind kind;
  Type elt;
  int64_t seqLength = 0, batch = 0, inputSize = 0, hidden = 0;
  std::optional<double> clip;
  bool linearBeforeReset = false, inputForget = false;
  SmallVector<Activation> activations;
  // Per direction.
  SmallVector<Value> rWeights, rBiases, peepholes;
};

LogicalResult RecurrentBuilder::checkShape(Value v, StringRef what,
                                           ArrayRef<int64_t> shape,
                                           Type elementType) {
  if (!v)
    return success();
  auto type = NodeContext::getType(v);
  if (type.getShape() == shape &&
      type.getElementType() == (elementType ? elementType : elt))
    return success();
  auto expected = RankedTensorType::get(shape, elementType ? elementType : elt);
  return n.emitError() << what << " must be " << expected << ", got " << type;
}

LogicalResult RecurrentBuilder::parseActivations(int64_t directions) {
  int64_t perDirection = numActivations();
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = n.getAttr("activations")) {
    if (a->type() != onnx::AttributeProto::STRINGS)
      return n.fail("attribute 'activations' must be a list of strings");
    for (const std::string &s : a->strings())
      names.push_back(llvm::StringRef(s).lower());
    // A list for one direction serves both, as in ONNX Runtime.
    if ((int64_t)names.size() == perDirection && directions == 2)
      names.append(SmallVector<std::string>(names));
    if ((int64_t)names.size() != perDirection * directions)
      return n.emitError() << "attribute 'activations' must have "
                           << perDirection * directions << " entries, got "
                           << a->strings_size();
  } else {
    SmallVector<std::string> defaults =
        kind == CellKind::LSTM
            ? SmallVector<std::string>{"sigmoid", "tanh", "tanh"}
        : kind == CellKind::GRU ? SmallVector<std::string>{"sigmoid", "tanh"}
                                : SmallVector<std::string>{"tanh"};
    for (int64_t d = 0; d < directions; ++d)
      names.append(defaults);
  }
  auto floats = [&](StringRef attrName) -> std::optional<SmallVector<float>> {
    SmallVector<float> values;
    if (const onnx::AttributeProto *a = n.getAttr(attrName)) {
      if (a->type() != onnx::AttributeProto::FLOATS) {
        n.emitError() << "attribute '" << attrName
                      << "' must be a list of floats";
        return std::nullopt;
      }
      values.assign(a->floats().begin(), a->floats().end());
    }
    return values;
  };
  std::optional<SmallVector<float>> alphas = floats("activation_alpha");
  std::optional<SmallVector<float>> betas = floats("activation_beta");
  if (!alphas || !betas)
    return failure();
  // The values are consumed in order by the activations that take them.
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &name : names) {
    const ActivationKind *k =
        llvm::find_if(kActivationKinds,
                      [&](const ActivationKind &k) { return k.name == name; });
    if (k == std::end(kActivationKinds))
      return n.emitError() << "unsupported activation '" << name << "'";
    Activation a{name, k->alpha, k->beta};
    if (k->numParams >= 1 && nextAlpha < alphas->size())
      a.alpha = (*alphas)[nextAlpha++];
    if (k->numParams >= 2 && nextBeta < betas->size())
      a.beta = (*betas)[nextBeta++];
    activations.push_back(a);
  }
  return success();
}

Value RecurrentBuilder::part(Value v, int64_t index, ArrayRef<int64_t> shape) {
  Value s = slice(v, 0, index, index + 1);
  return s ? n.reshape(s, shape) : Value();
}

Value RecurrentBuilder::gemm(Value a, Value b, Value c) {
  if (!a || !b)
    return {};
  if (c && NodeContext::getType(c).getRank() == 2 &&
      matchPattern(a, m_AnyZeroFloat()))
    return c;
  SmallVector<Value> operands{a, b};
  if (c)
    operands.push_back(c);
  return n.create<GemmOp>(operands, {n.f32("alpha", 1.0f), n.f32("beta", 1.0f),
                                     n.boolean("transA", false),
                                     n.boolean("transB", true)});
}

Value RecurrentBuilder::activate(Value x, const Activation &a, bool gate) {
  if (x && clip && gate)
    x = n.create<ClipOp>(x, {n.f64("min", -*clip), n.f64("max", *clip)},
                         x.getType());
  if (!x)
    return {};
  Type type = x.getType();
  StringRef name = a.name;
  if (name == "relu")
    return n.create<ReluOp>(x, {}, type);
  if (name == "tanh")
    return n.create<TanhOp>(x, {}, type);
  if (name == "sigmoid")
    return n.create<SigmoidOp>(x, {}, type);
  if (name == "softsign")
    return n.create<SoftsignOp>(x, {}, type);
  if (name == "softplus")
    return n.create<SoftplusOp>(x, {}, type);
  if (name == "leakyrelu")
    return n.create<LeakyReluOp>(x, {n.f32("alpha", a.alpha)}, type);
  if (name == "thresholdedrelu")
    return n.create<ThresholdedReluOp>(x, {n.f32("alpha", a.alpha)}, type);
  if (name == "elu")
    return n.create<EluOp>(x, {n.f32("alpha", a.alpha)}, type);
  if (name == "hardsigmoid")
    return n.create<HardSigmoidOp>(
        x, {n.f32("alpha", a.alpha), n.f32("beta", a.beta)}, type);
  if (name == "affine")
    return add(mul(x, scalar(a.alpha)), scalar(a.beta));
  // scaledtanh: alpha * tanh(beta * x).
  Value inner = mul(x, scalar(a.beta));
  return mul(inner ? n.create<TanhOp>(inner, {}, type) : Value(),
             scalar(a.alpha));
}

std::pair<Value, Value> RecurrentBuilder::step(Value xw, Value h, Value c,
                                               int64_t dir) {
  ArrayRef<Activation> act =
      ArrayRef<Activation>(activations).slice(dir * numActivations());
  Value r = rWeights[dir];
  if (kind == CellKind::RNN)
    return {activate(gemm(h, r, xw), act[0]), {}};

  if (kind == CellKind::LSTM) {
    Value pre = gemm(h, r, xw);
    Value p = peepholes[dir];
    Value i = activate(
        add(gate(pre, 0), p ? mul(slice(p, 0, 0, hidden), c) : Value()),
        act[0]);
    Value f;
    if (inputForget) // Coupled gates: f = 1 - i.
      f = i ? n.create<SubOp>({scalar(1), i}) : Value();
    else
      f = activate(
          add(gate(pre, 2),
              p ? mul(slice(p, 0, 2 * hidden, 3 * hidden), c) : Value()),
          act[0]);
    Value cell = activate(gate(pre, 3), act[1]);
    Value newC = add(mul(f, c), mul(i, cell));
    if (!newC)
      return {};
    Value o =
        activate(add(gate(pre, 1),
                     p ? mul(slice(p, 0, hidden, 2 * hidden), newC) : Value()),
                 act[0]);
    return {mul(o, activate(newC, act[2], /*gate=*/false)), newC};
  }

  // GRU.
  Value z, reset, candidate;
  if (linearBeforeReset) {
    // h~ = g(Xh + r (.) (H Rh^T + Rbh)); xw holds only W's bias.
    Value hr = gemm(h, r, rBiases[dir]);
    z = activate(add(gate(xw, 0), gate(hr, 0)), act[0]);
    reset = activate(add(gate(xw, 1), gate(hr, 1)), act[0]);
    candidate = activate(add(gate(xw, 2), mul(reset, gate(hr, 2))), act[1]);
  } else {
    // h~ = g(Xh + (r (.) H) Rh^T + Rbh + Wbh): R's z and r rows first.
    Value zr = gemm(h, slice(r, 0, 0, 2 * hidden), slice(xw, 1, 0, 2 * hidden));
    z = activate(gate(zr, 0), act[0]);
    reset = activate(gate(zr, 1), act[0]);
    candidate = activate(
        gemm(mul(reset, h), slice(r, 0, 2 * hidden, 3 * hidden), gate(xw, 2)),
        act[1]);
  }
  // H = (1 - z) (.) h~ + z (.) H.
  Value keep = z ? n.create<SubOp>({scalar(1), z}) : Value();
  return {add(mul(keep, candidate), mul(z, h)), {}};
}

LogicalResult RecurrentBuilder::import(SmallVectorImpl<Value> &results) {
  bool lstm = kind == CellKind::LSTM, gru = kind == CellKind::GRU;
  if (failed(n.checkInputs(3, lstm ? 8 : 6, {0, 1, 2})))
    return failure();
  SmallVector<StringRef> known{
      "activation_alpha", "activation_beta", "activations", "clip",
      "direction",        "hidden_size",     "layout",      "output_sequence"};
  if (gru)
    known.push_back("linear_before_reset");
  if (lstm)
    known.push_back("input_forget");
  if (failed(n.checkKnownAttrs(known)))
    return failure();

  Value x = n.input(0), w = n.input(1), rw = n.input(2), b = n.input(3),
        lens = n.input(4), h0 = n.input(5), c0 = n.input(6), p = n.input(7);
  auto xType = NodeContext::getType(x);
  elt = xType.getElementType();
  if (!isa<FloatType>(elt))
    return n.emitError() << "X must be a float tensor, got " << xType;
  if (xType.getRank() != 3)
    return n.emitError() << "X must have rank 3, got " << xType;
  std::string direction = n.getString("direction", "forward");
  int64_t layout = n.getInt("layout", 0);
  if (n.hasAttr("clip")) {
    clip = n.getFloat("clip", 0);
    if (*clip <= 0 && !n.hasFailed()) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", *clip);
      return n.emitError() << "clip must be positive, got " << text;
    }
  }
  linearBeforeReset = n.getInt("linear_before_reset", 0) != 0;
  inputForget = n.getInt("input_forget", 0) != 0;
  if (n.hasFailed())
    return failure();
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.emitError() << "direction must be forward, reverse or "
                            "bidirectional, got '"
                         << direction << "'";
  if (layout != 0 && layout != 1)
    return n.emitError() << "layout must be 0 or 1, got " << layout;
  int64_t directions = direction == "bidirectional" ? 2 : 1;

  // [T, B, I] from here on.
  if (layout == 1 &&
      !(x = n.create<TransposeOp>(x, {n.i64Array("perm", {1, 0, 2})})))
    return failure();
  ArrayRef<int64_t> xShape = NodeContext::getType(x).getShape();
  seqLength = xShape[0];
  batch = xShape[1];
  inputSize = xShape[2];
  int64_t gates = numGates();
  auto wType = NodeContext::getType(w);
  if (wType.getRank() != 3 || wType.getDimSize(1) % gates != 0)
    return n.emitError() << "W must be [" << directions << ", " << gates
                         << " * hidden_size, " << inputSize << "], got "
                         << wType;
  hidden = wType.getDimSize(1) / gates;
  if (n.hasAttr("hidden_size")) {
    int64_t attr = n.getInt("hidden_size", 0);
    if (n.hasFailed())
      return failure();
    if (attr != hidden)
      return n.emitError() << "hidden_size is " << attr << " but W has "
                           << gates << " * " << hidden << " rows";
  }
  if (seqLength < 1 || hidden < 1)
    return n.emitError() << "X and W must be non-empty, got " << xType
                         << " and " << wType;
  if (seqLength > kMaxUnrolledIterations)
    return n.emitError() << "the sequence has " << seqLength
                         << " steps, more than the " << kMaxUnrolledIterations
                         << " dlc unrolls";
  auto stateShape = [&](int64_t d0) -> SmallVector<int64_t> {
    return layout == 1 ? SmallVector<int64_t>{batch, d0, hidden}
                       : SmallVector<int64_t>{d0, batch, hidden};
  };
  if (failed(checkShape(w, "W", {directions, gates * hidden, inputSize})) ||
      failed(checkShape(rw, "R", {directions, gates * hidden, hidden})) ||
      failed(checkShape(b, "B", {directions, 2 * gates * hidden})) ||
      failed(checkShape(h0, "initial_h", stateShape(directions))) ||
      failed(checkShape(c0, "initial_c", stateShape(directions))) ||
      failed(checkShape(p, "P", {directions, 3 * hidden})))
    return failure();
  if (lens) {
    auto lensType = NodeContext::getType(lens);
    if (lensType.getRank() != 1 || lensType.getDimSize(0) != batch ||
        !lensType.getElementType().isSignlessInteger())
      return n.emitError() << "sequence_lens must be an integer [" << batch
                           << "] tensor, got " << lensType;
  }
  if (failed(parseActivations(directions)))
    return failure();

  // Lengths that are all T mask nothing.
  if (lens) {
    DenseElementsAttr attr;
    if (matchPattern(lens, m_Constant(&attr)) &&
        llvm::all_of(attr.getValues<APInt>(), [&](const APInt &v) {
          return v.getSExtValue() == seqLength;
        }))
      lens = {};
    Type i64 = n.b.getI64Type();
    if (lens && NodeContext::getType(lens).getElementType() != i64)
      lens = n.create<CastOp>(lens, {}, RankedTensorType::get({batch}, i64));
    if (lens && !(lens = n.reshape(lens, {batch, 1})))
      return failure();
  }
  if (layout == 1) {
    for (Value *state : {&h0, &c0})
      if (*state && !(*state = n.create<TransposeOp>(
                          *state, {n.i64Array("perm", {1, 0, 2})})))
        return failure();
  }

  Value inputs = n.reshape(x, {seqLength * batch, inputSize});
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    Value wd = part(w, d, {gates * hidden, inputSize});
    rWeights.push_back(part(rw, d, {gates * hidden, hidden}));
    Value inputBias;
    rBiases.push_back({});
    if (b) {
      Value bd = part(b, d, {2 * gates * hidden});
      Value wb = slice(bd, 0, 0, gates * hidden);
      Value rb = slice(bd, 0, gates * hidden, 2 * gates * hidden);
      // GRU with linear_before_reset adds R's bias inside the reset.
      if (gru && linearBeforeReset) {
        inputBias = wb;
        rBiases.back() = rb;
      } else {
        inputBias = add(wb, rb);
      }
    }
    peepholes.push_back(p ? part(p, d, {3 * hidden}) : Value());
    Value projected = gemm(inputs, wd, inputBias);
    projected = projected
                    ? n.reshape(projected, {seqLength, batch, gates * hidden})
                    : Value();
    Value h =
        h0 ? part(h0, d, {batch, hidden}) : zeros(n, {batch, hidden}, elt);
    Value c = lstm ? (c0 ? part(c0, d, {batch, hidden})
                         : zeros(n, {batch, hidden}, elt))
                   : Value();
    bool reverse = direction == "reverse" || d == 1;
    SmallVector<Value> outputs(seqLength);
    for (int64_t i = 0; i < seqLength; ++i) {
      int64_t t = reverse ? seqLength - 1 - i : i;
      auto [newH, newC] =
          step(part(projected, t, {batch, gates * hidden}), h, c, d);
      if (!newH || (lstm && !newC))
        return failure();
      Value y = newH;
      if (lens) {
        // Steps at or past a sequence's end keep its state and output 0.
        Value active =
            n.create<LessOp>({splat(n, {}, n.b.getI64Type(), (double)t), lens});
        if (!active)
          return failure();
        newH = n.create<WhereOp>({active, newH, h});
        y = n.create<WhereOp>({active, y, scalar(0)});
        if (lstm)
          newC = n.create<WhereOp>({active, newC, c});
      }
      h = newH;
      c = newC;
      if (!(outputs[t] = y ? n.reshape(y, {1, 1, batch, hidden}) : Value()))
        return failure();
    }
    ys.push_back(n.create<ConcatOp>(outputs, {n.i64("axis", 0)}));
    hs.push_back(h ? n.reshape(h, {1, batch, hidden}) : Value());
    cs.push_back(c ? n.reshape(c, {1, batch, hidden}) : Value());
    if (!ys.back() || !hs.back() || (lstm && !cs.back()))
      return failure();
  }
  auto join = [&](ArrayRef<Value> values, int64_t axis) {
    return values.size() == 1
               ? values[0]
               : n.create<ConcatOp>(values, {n.i64("axis", axis)});
  };
  // Y: [T, D, B, H] (layout 1: [B, T, D, H]); Y_h, Y_c: [D, B, H] (layout 1:
  // [B, D, H]).
  Value y = join(ys, 1), yh = join(hs, 0), yc = lstm ? join(cs, 0) : Value();
  if (y && layout == 1)
    y = n.create<TransposeOp>(y, {n.i64Array("perm", {2, 0, 1, 3})});
  for (Value *state : {&yh, &yc})
    if (*state && layout == 1)
      *state = n.create<TransposeOp>(*state, {n.i64Array("perm", {1, 0, 2})});
  if (!y || !yh || (lstm && !yc))
    return failure();
  results.push_back(y);
  results.push_back(yh);
  if (lstm)
    results.push_back(yc);
  return success();
}

} // namespace

LogicalResult onnx_import::importRNN(NodeContext &n,
                                     SmallVectorImpl<Value> &results) {
  return RecurrentBuilder(n, CellKind::RNN).import(results);
}

LogicalResult onnx_import::importGRU(NodeContext &n,
                                     SmallVectorImpl<Value> &results) {
  return RecurrentBuilder(n, CellKind::GRU).import(results);
}

LogicalResult onnx_import::importLSTM(NodeContext &n,
                                      SmallVectorImpl<Value> &results) {
  return RecurrentBuilder(n, CellKind::LSTM).import(results);
}
