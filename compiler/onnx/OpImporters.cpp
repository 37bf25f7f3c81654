//===- OpImporters.cpp - one importer per ONNX operator ---------*- C++ -*-===//
//
// Each importer maps one ONNX node to dlc ops, normalizing opset differences
// (attributes that became inputs, negative axes, implicit defaults, auto_pad)
// so that passes see one form per operator. The table at the end is the
// single list of supported operators.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeContext::importGraph(StringRef attrName,
                                                       ArrayRef<Value> args) {
  const onnx::AttributeProto *a = getAttr(attrName);
  if (!a) {
    (void)fail("attribute '" + attrName + "' is required");
    return failure();
  }
  if (a->type() != onnx::AttributeProto::GRAPH) {
    (void)fail("attribute '" + attrName + "' must be a graph");
    return failure();
  }
  if (!subgraphImporter) {
    (void)fail("subgraphs are not supported here");
    return failure();
  }
  FailureOr<SmallVector<Value>> results = subgraphImporter(a->g(), args);
  if (failed(results))
    markFailed();
  return results;
}

InFlightDiagnostic NodeContext::emitError() {
  hadError = true;
  InFlightDiagnostic d = mlir::emitError(loc);
  d << "node '" << name << "' (" << node.op_type() << ", opset " << opset
    << "): ";
  return d;
}

Attribute onnx_import::scalarAttr(OpBuilder &b, Type elementType,
                                  double value) {
  return isa<FloatType>(elementType)
             ? Attribute(b.getFloatAttr(elementType, value))
             : Attribute(b.getIntegerAttr(elementType, (int64_t)value));
}

Value onnx_import::splat(NodeContext &n, ArrayRef<int64_t> shape,
                         Type elementType, double value) {
  return n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(RankedTensorType::get(shape, elementType),
                                    scalarAttr(n.b, elementType, value)));
}

Value onnx_import::castTo(NodeContext &n, Value v, Type elementType) {
  if (!v || NodeContext::getType(v).getElementType() == elementType)
    return v;
  return n.create<CastOp>(v, {}, NodeContext::getType(v).clone(elementType));
}

Value onnx_import::sliceAxis(NodeContext &n, Value v, int64_t axis,
                             int64_t begin, int64_t end, int64_t step) {
  if (!v)
    return {};
  ArrayRef<int64_t> shape = NodeContext::getType(v).getShape();
  SmallVector<int64_t> starts(shape.size(), 0), ends(shape),
      steps(shape.size(), 1);
  starts[axis] = begin;
  ends[axis] = end;
  steps[axis] = step;
  return n.create<SliceOp>(v, {n.i64Array("starts", starts),
                               n.i64Array("ends", ends),
                               n.i64Array("steps", steps)});
}

Value onnx_import::zeros(NodeContext &n, ArrayRef<int64_t> shape,
                         Type elementType) {
  return splat(n, shape, elementType, 0);
}

Value onnx_import::constantOf(NodeContext &n, ArrayRef<int64_t> shape,
                              Type elementType, ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, elementType);
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> floats;
    floats.reserve(values.size());
    for (double v : values) {
      APFloat f(v);
      bool losesInfo;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      floats.push_back(f);
    }
    return n.b.create<arith::ConstantOp>(n.loc,
                                         DenseElementsAttr::get(type, floats));
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> ints;
  ints.reserve(values.size());
  for (double v : values) {
    // Out of int64's range (NaN included) is undefined in C++: saturate.
    int64_t i = std::isnan(v)  ? 0
                : v <= -0x1p63 ? INT64_MIN
                : v >= 0x1p63  ? INT64_MAX
                               : (int64_t)v;
    ints.push_back(width == 1 ? APInt(1, v != 0)
                              : APInt(width, i, /*isSigned=*/true));
  }
  return n.b.create<arith::ConstantOp>(n.loc,
                                       DenseElementsAttr::get(type, ints));
}

Value onnx_import::f32Constant(NodeContext &n, ArrayRef<int64_t> shape,
                               ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, n.b.getF32Type());
  return n.b.create<arith::ConstantOp>(n.loc,
                                       DenseElementsAttr::get(type, values));
}

Value onnx_import::scalarIfSingle(NodeContext &n, Value v) {
  auto type = NodeContext::getType(v);
  if (type.getRank() == 0 || type.getNumElements() != 1)
    return v;
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Attribute a;
  if (matchPattern(v, m_Constant(&a)))
    if (auto dense = dyn_cast<DenseElementsAttr>(a))
      return n.b.create<arith::ConstantOp>(n.loc, dense.reshape(scalarType));
  return n.reshape(v, {});
}

onnx::AttributeProto onnx_import::floatAttribute(StringRef name, float v) {
  onnx::AttributeProto a;
  a.set_name(name.str());
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}

SmallVector<Value> onnx_import::importNested(
    NodeContext &n, StringRef opType, ArrayRef<Value> inputs,
    ArrayRef<StringRef> dropped, std::optional<int64_t> opset,
    ArrayRef<onnx::AttributeProto> extra, unsigned outputs) {
  if (llvm::any_of(inputs, [](Value v) { return !v; }))
    return {};
  onnx::NodeProto inner;
  inner.set_op_type(n.node.op_type());
  for (const onnx::AttributeProto &a : n.node.attribute())
    if (!llvm::is_contained(dropped, StringRef(a.name())))
      *inner.add_attribute() = a;
  for (const onnx::AttributeProto &a : extra)
    *inner.add_attribute() = a;
  for (unsigned i = 0; i < outputs; ++i)
    inner.add_output(i < (unsigned)n.node.output_size() ? n.node.output(i)
                                                        : std::string());
  NodeContext nested(n.b, inner, n.name, opset.value_or(n.opset), n.loc,
                     inputs);
  SmallVector<Value> results;
  if (failed(lookupOpImporter(opType)(nested, results)) || nested.hasFailed() ||
      results.size() < outputs ||
      llvm::any_of(results, [](Value v) { return !v; })) {
    if (!nested.hasFailed())
      (void)n.fail("import failed");
    n.markFailed();
    return {};
  }
  return results;
}

Value onnx_import::importFloatOp(NodeContext &n, StringRef opType,
                                 ArrayRef<Value> inputs,
                                 ArrayRef<StringRef> dropped,
                                 std::optional<int64_t> opset,
                                 ArrayRef<onnx::AttributeProto> extra) {
  SmallVector<Value> results =
      importNested(n, opType, inputs, dropped, opset, extra, 1);
  return results.empty() ? Value() : results.front();
}

LogicalResult NodeContext::checkInputs(unsigned min, unsigned max) {
  SmallVector<unsigned> required;
  for (unsigned i = 0; i < min; ++i)
    required.push_back(i);
  return checkInputs(min, max, required);
}

LogicalResult NodeContext::checkInputs(unsigned min, unsigned max,
                                       ArrayRef<unsigned> required) {
  unsigned n = getNumInputs();
  if (n < min || n > max) {
    InFlightDiagnostic d = emitError();
    d << "expected ";
    if (min == max)
      d << min;
    else if (max == std::numeric_limits<unsigned>::max())
      d << "at least " << min;
    else
      d << min << " to " << max;
    return d << " input" << (max == 1 ? "" : "s") << ", got " << n;
  }
  for (unsigned i : required)
    if (!input(i))
      return fail("input " + Twine(i) + " is required");
  return success();
}

const onnx::AttributeProto *NodeContext::getAttr(StringRef attrName) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == attrName)
      return &a;
  return nullptr;
}

InFlightDiagnostic NodeContext::attrTypeError(const onnx::AttributeProto &a,
                                              StringRef expected) {
  return emitError() << "attribute '" << a.name() << "' must be " << expected;
}

// Old exporters leave AttributeProto.type unset; the populated field decides.
int64_t NodeContext::getInt(StringRef attrName, int64_t defaultValue) {
  const onnx::AttributeProto *a = getAttr(attrName);
  if (!a)
    return defaultValue;
  if (a->type() == onnx::AttributeProto::INT ||
      (a->type() == onnx::AttributeProto::UNDEFINED && a->has_i()))
    return a->i();
  attrTypeError(*a, "an int");
  return defaultValue;
}

float NodeContext::getFloat(StringRef attrName, float defaultValue) {
  const onnx::AttributeProto *a = getAttr(attrName);
  if (!a)
    return defaultValue;
  if (a->type() == onnx::AttributeProto::FLOAT ||
      (a->type() == onnx::AttributeProto::UNDEFINED && a->has_f()))
    return a->f();
  attrTypeError(*a, "a float");
  return defaultValue;
}

std::string NodeContext::getString(StringRef attrName,
                                   StringRef defaultValue) {
  const onnx::AttributeProto *a = getAttr(attrName);
  if (!a)
    return defaultValue.str();
  if (a->type() == onnx::AttributeProto::STRING ||
      (a->type() == onnx::AttributeProto::UNDEFINED && a->has_s()))
    return a->s();
  attrTypeError(*a, "a string");
  return defaultValue.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::getInts(StringRef attrName) {
  const onnx::AttributeProto *a = getAttr(attrName);
  if (!a)
    return std::nullopt;
  if (a->type() == onnx::AttributeProto::INTS ||
      a->type() == onnx::AttributeProto::UNDEFINED)
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  attrTypeError(*a, "a list of ints");
  return std::nullopt;
}

LogicalResult NodeContext::checkKnownAttrs(ArrayRef<StringRef> known) {
  bool ok = true;
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (llvm::is_contained(known, a.name()))
      continue;
    emitError() << "unsupported attribute '" << a.name() << "'";
    ok = false;
  }
  return success(ok);
}

std::optional<SmallVector<int64_t>> NodeContext::getConstInts(Value v,
                                                              StringRef what) {
  Attribute a;
  if (matchPattern(v, m_Constant(&a))) {
    if (auto dense = dyn_cast<DenseIntElementsAttr>(a)) {
      SmallVector<int64_t> out;
      for (const APInt &i : dense.getValues<APInt>())
        out.push_back(i.getBitWidth() == 1 ? i.getZExtValue()
                                           : i.getSExtValue());
      return out;
    }
    if (auto r = dyn_cast<DenseI64ResourceElementsAttr>(a))
      if (std::optional<ArrayRef<int64_t>> data = r.tryGetAsArrayRef())
        return SmallVector<int64_t>(*data);
    if (auto r = dyn_cast<DenseI32ResourceElementsAttr>(a))
      if (std::optional<ArrayRef<int32_t>> data = r.tryGetAsArrayRef())
        return SmallVector<int64_t>(data->begin(), data->end());
  }
  emitError() << "'" << what << "' must be a constant integer tensor";
  return std::nullopt;
}

std::optional<double> NodeContext::getConstScalar(Value v, StringRef what) {
  Attribute a;
  if (matchPattern(v, m_Constant(&a))) {
    auto dense = dyn_cast<DenseElementsAttr>(a);
    if (dense && dense.getNumElements() == 1) {
      if (auto fp = dyn_cast<DenseFPElementsAttr>(dense)) {
        APFloat f = *fp.value_begin<APFloat>();
        bool losesInfo;
        f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
        return f.convertToDouble();
      }
      if (auto i = dyn_cast<DenseIntElementsAttr>(dense))
        return (double)(*i.value_begin<APInt>()).getSExtValue();
    }
  }
  emitError() << "'" << what << "' must be a constant scalar";
  return std::nullopt;
}

std::optional<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank,
                                                  StringRef what) {
  if (axis < -rank || axis >= rank) {
    emitError() << what << " " << axis << " is out of range for rank " << rank;
    return std::nullopt;
  }
  return axis < 0 ? axis + rank : axis;
}

Value NodeContext::createOp(StringRef opName, ValueRange operands,
                            ArrayRef<NamedAttribute> attrs, Type resultType) {
  MLIRContext *ctx = b.getContext();
  OperationName name(opName, ctx);
  // Inference and verifier messages are re-emitted with the node's prefix.
  SmallVector<std::string> messages;
  Operation *op = nullptr;
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        messages.push_back(d.str());
      return success();
    });
    SmallVector<Type> types;
    if (resultType) {
      types.push_back(resultType);
    } else {
      // Inference runs on an unlinked probe: the generated builders abort
      // when inference fails, and a failing op must never be created.
      OperationState probeState(loc, name);
      probeState.addOperands(operands);
      probeState.addAttributes(attrs);
      Operation *probe = Operation::create(probeState);
      auto infer = dyn_cast<InferTypeOpInterface>(probe);
      LogicalResult inferred =
          infer ? infer.inferReturnTypes(
                      ctx, loc, probe->getOperands(),
                      probe->getRawDictionaryAttrs(),
                      probe->getPropertiesStorage(), probe->getRegions(), types)
                : failure();
      probe->destroy();
      if (!infer)
        messages.push_back(("cannot infer the result type of " + opName).str());
      if (failed(inferred) && messages.empty())
        messages.push_back(("cannot infer the result type of " + opName).str());
    }
    // Composed importers build values the graph never names: bound them
    // as the graph's own values are (a node's outputs are checked again).
    for (Type t : types)
      if (messages.empty() && !isSaneTensorType(t)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "a value of " << t << " (" << opName
           << ") is too large (more than 2^48 bytes)";
        messages.push_back(os.str());
      }
    if (messages.empty()) {
      OperationState state(loc, name);
      state.addOperands(operands);
      state.addAttributes(attrs);
      state.addTypes(types);
      op = b.create(state);
      if (failed(mlir::verify(op))) {
        op->erase();
        op = nullptr;
        if (messages.empty())
          messages.push_back(("invalid " + opName).str());
      }
    }
  }
  if (!op) {
    for (const std::string &m : messages)
      emitError() << m;
    return {};
  }
  // An in-place fold (reshape of reshape) may enable another one (the
  // reshape becomes an identity), so fold until nothing changes.
  for (int i = 0; i < 4; ++i) {
    SmallVector<Value, 1> folded;
    if (failed(b.tryFold(op, folded)))
      break;
    if (!folded.empty()) {
      op->erase();
      return folded.front();
    }
  }
  return op->getResult(0);
}

Value NodeContext::reshape(Value v, ArrayRef<int64_t> shape) {
  return create<ReshapeOp>(
      v, {}, RankedTensorType::get(shape, getType(v).getElementType()));
}

//===----------------------------------------------------------------------===//
// Operator importers
//===----------------------------------------------------------------------===//

namespace {
using Results = SmallVectorImpl<Value>;

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

std::string formatList(ArrayRef<int64_t> v) {
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(v))
    s += (i ? ", " : "") + std::to_string(x);
  return s + "]";
}

template <typename OpTy>
LogicalResult importUnary(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  r.push_back(n.create<OpTy>(x, {}, x.getType()));
  return success();
}

template <typename OpTy>
LogicalResult importBinary(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value lhs = n.input(0), rhs = n.input(1);
  if (n.getType(lhs).getElementType() != n.getType(rhs).getElementType())
    return n.emitError() << "operands have different element types: "
                         << lhs.getType() << " and " << rhs.getType();
  r.push_back(n.create<OpTy>({lhs, rhs}));
  return success();
}

/// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: bool result.
template <typename OpTy>
LogicalResult importCompare(NodeContext &n, Results &r) {
  return importBinary<OpTy>(n, r);
}

/// An integer that is not a bool: the bitwise ops' element types.
bool isBitwiseInteger(Type t) { return isa<IntegerType>(t) && !t.isInteger(1); }

/// And, Or, Xor on bools, and with `bitwise` BitwiseAnd, BitwiseOr,
/// BitwiseXor on integers of one type: the same dlc ops.
template <typename OpTy, bool bitwise = false>
LogicalResult importLogical(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value lhs = n.input(0), rhs = n.input(1);
  Type elt = n.getType(lhs).getElementType();
  bool ok = bitwise ? isBitwiseInteger(elt) : elt.isInteger(1);
  if (!ok || n.getType(rhs).getElementType() != elt)
    return n.emitError() << "operands must be "
                         << (bitwise ? "integers of one type" : "bool")
                         << ", got " << lhs.getType() << " and "
                         << rhs.getType();
  r.push_back(n.create<OpTy>({lhs, rhs}));
  return success();
}

/// Not on bools, BitwiseNot (`bitwise`) on integers: dlc.not.
template <bool bitwise = false>
LogicalResult importNot(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  Type elt = n.getType(x).getElementType();
  if (bitwise ? !isBitwiseInteger(elt) : !elt.isInteger(1))
    return n.emitError() << "operand must be "
                         << (bitwise ? "an integer" : "bool") << ", got "
                         << x.getType();
  r.push_back(n.create<NotOp>(x, {}, x.getType()));
  return success();
}

/// BitShift(X, Y), direction: dlc.bit_shift (arithmetic right shifts of
/// signed types, as ONNX's latest definition).
LogicalResult importBitShift(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"direction"})))
    return failure();
  if (!n.hasAttr("direction"))
    return n.fail("attribute 'direction' is required");
  std::string direction = n.getString("direction", "");
  if (n.hasFailed())
    return failure();
  if (direction != "LEFT" && direction != "RIGHT")
    return n.emitError() << "direction must be LEFT or RIGHT, got '"
                         << direction << "'";
  Value x = n.input(0), y = n.input(1);
  Type elt = n.getType(x).getElementType();
  if (!isBitwiseInteger(elt) || n.getType(y).getElementType() != elt)
    return n.emitError() << "operands must be integers of one type, got "
                         << x.getType() << " and " << y.getType();
  r.push_back(
      n.create<BitShiftOp>({x, y}, {n.boolean("left", direction == "LEFT")}));
  return success();
}

LogicalResult importWhere(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value c = n.input(0), x = n.input(1), y = n.input(2);
  if (!n.getType(c).getElementType().isInteger(1))
    return n.emitError() << "condition must be bool, got " << c.getType();
  if (n.getType(x).getElementType() != n.getType(y).getElementType())
    return n.emitError() << "X and Y have different element types: "
                         << x.getType() << " and " << y.getType();
  r.push_back(n.create<WhereOp>({c, x, y}));
  return success();
}

/// IsNaN and IsInf accept float inputs only.
LogicalResult checkFloatInput(NodeContext &n, Value x) {
  if (!isa<FloatType>(n.getType(x).getElementType()))
    return n.emitError() << "input must be a float tensor, got "
                         << x.getType();
  return success();
}

/// `x`, widened to f32 when it is float8 (IsNaN, IsInf: exact).
Value widenFloat8(NodeContext &n, Value x) {
  RankedTensorType type = n.getType(x);
  if (!isFloat8(type.getElementType()))
    return x;
  return n.create<CastOp>(x, {}, type.clone(n.b.getF32Type()));
}

/// The float input of a one-input node whose attributes are `known`, or
/// null after reporting what is wrong.
Value floatUnaryInput(NodeContext &n, ArrayRef<StringRef> known) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs(known)) ||
      failed(checkFloatInput(n, n.input(0))))
    return {};
  return n.input(0);
}

LogicalResult importIsNaN(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = widenFloat8(n, n.input(0));
  if (failed(checkFloatInput(n, x)))
    return failure();
  r.push_back(n.create<IsNaNOp>(x));
  return success();
}

LogicalResult importIsInf(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"detect_negative", "detect_positive"})))
    return failure();
  Value x = widenFloat8(n, n.input(0));
  if (failed(checkFloatInput(n, x)))
    return failure();
  r.push_back(n.create<IsInfOp>(
      x, {n.boolean("detect_negative", n.getInt("detect_negative", 1) != 0),
          n.boolean("detect_positive", n.getInt("detect_positive", 1) != 0)}));
  return success();
}

/// Sum, Mean, Max, Min: variadic with broadcasting, folded left into
/// binary ops; Mean divides the sum by the input count.
template <typename OpTy, bool isMean = false>
LogicalResult importVariadic(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, std::numeric_limits<unsigned>::max())) ||
      failed(n.checkKnownAttrs({})))
    return failure();
  Value acc = n.input(0);
  Type elementType = n.getType(acc).getElementType();
  for (unsigned i = 1; i < n.getNumInputs(); ++i) {
    Value v = n.input(i);
    if (!v)
      return n.emitError() << "input " << i << " is required";
    if (n.getType(v).getElementType() != elementType)
      return n.emitError() << "inputs have different element types: "
                           << acc.getType() << " and " << v.getType();
    if (!(acc = n.create<OpTy>({acc, v})))
      return failure();
  }
  if (isMean && n.getNumInputs() > 1) {
    if (!isa<FloatType>(elementType))
      return n.fail("Mean needs float inputs");
    Value count = n.b.create<arith::ConstantOp>(
        n.loc, DenseElementsAttr::get(
                   RankedTensorType::get({}, elementType),
                   n.b.getFloatAttr(elementType, n.getNumInputs())));
    acc = n.create<DivOp>({acc, count});
  }
  r.push_back(acc);
  return success();
}

LogicalResult importMod(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"fmod"})))
    return failure();
  Value lhs = n.input(0), rhs = n.input(1);
  if (n.getType(lhs).getElementType() != n.getType(rhs).getElementType())
    return n.emitError() << "operands have different element types: "
                         << lhs.getType() << " and " << rhs.getType();
  // Float inputs with fmod=0 (allowed by newer opsets) take the divisor's
  // sign like integers.
  bool fmod = n.getInt("fmod", 0) != 0;
  r.push_back(n.create<ModOp>({lhs, rhs}, {n.boolean("fmod", fmod)}));
  return success();
}

LogicalResult importPRelu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0), slope = n.input(1);
  // The slope broadcasts to X (unidirectionally): the result is X's type.
  r.push_back(n.create<PReluOp>({x, slope}, {}, x.getType()));
  return success();
}

/// A float attribute of an activation and its ONNX default.
struct FloatAttrSpec {
  StringRef name;
  float defaultValue;
};

/// Unary float ops whose only attributes are floats with defaults.
template <typename OpTy>
LogicalResult importActivation(NodeContext &n, Results &r,
                               ArrayRef<FloatAttrSpec> specs) {
  SmallVector<StringRef> known;
  for (const FloatAttrSpec &s : specs)
    known.push_back(s.name);
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs(known)))
    return failure();
  SmallVector<NamedAttribute> attrs;
  for (const FloatAttrSpec &s : specs)
    attrs.push_back(n.f32(s.name, n.getFloat(s.name, s.defaultValue)));
  if (n.hasFailed())
    return failure();
  Value x = n.input(0);
  r.push_back(n.create<OpTy>(x, attrs, x.getType()));
  return success();
}

LogicalResult importLeakyRelu(NodeContext &n, Results &r) {
  return importActivation<LeakyReluOp>(n, r, {{"alpha", 0.01f}});
}
LogicalResult importElu(NodeContext &n, Results &r) {
  return importActivation<EluOp>(n, r, {{"alpha", 1.0f}});
}
LogicalResult importSelu(NodeContext &n, Results &r) {
  return importActivation<SeluOp>(
      n, r, {{"alpha", 1.67326319217681884765625f},
             {"gamma", 1.05070102214813232421875f}});
}
LogicalResult importCelu(NodeContext &n, Results &r) {
  return importActivation<CeluOp>(n, r, {{"alpha", 1.0f}});
}
LogicalResult importHardSigmoid(NodeContext &n, Results &r) {
  return importActivation<HardSigmoidOp>(n, r,
                                         {{"alpha", 0.2f}, {"beta", 0.5f}});
}
LogicalResult importThresholdedRelu(NodeContext &n, Results &r) {
  return importActivation<ThresholdedReluOp>(n, r, {{"alpha", 1.0f}});
}

LogicalResult importGelu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"approximate"})))
    return failure();
  std::string approximate = n.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.emitError() << "unsupported approximate '" << approximate << "'";
  Value x = n.input(0);
  r.push_back(n.create<GeluOp>(
      x, {n.boolean("tanh_approximation", approximate == "tanh")},
      x.getType()));
  return success();
}

LogicalResult importPow(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value base = n.input(0), exponent = n.input(1);
  // ONNX lets the exponent have its own type (x ** 2 with an int64 2).
  Type elementType = n.getType(base).getElementType();
  if (n.getType(exponent).getElementType() != elementType)
    exponent = n.create<CastOp>(
        exponent, {},
        n.getType(exponent).clone(elementType));
  if (!exponent)
    return failure();
  r.push_back(n.create<PowOp>({base, exponent}));
  return success();
}

LogicalResult importClip(NodeContext &n, Results &r) {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (n.opset < 11) {
    if (failed(n.checkInputs(1, 1)) ||
        failed(n.checkKnownAttrs({"min", "max"})))
      return failure();
    if (n.hasAttr("min"))
      lo = n.getFloat("min", 0);
    if (n.hasAttr("max"))
      hi = n.getFloat("max", 0);
  } else {
    // Opset 11 turned the bounds into optional inputs.
    if (failed(n.checkInputs(1, 3)) || failed(n.checkKnownAttrs({})))
      return failure();
    if (Value v = n.input(1)) {
      std::optional<double> c = n.getConstScalar(v, "min");
      if (!c)
        return failure();
      lo = *c;
    }
    if (Value v = n.input(2)) {
      std::optional<double> c = n.getConstScalar(v, "max");
      if (!c)
        return failure();
      hi = *c;
    }
  }
  Value x = n.input(0);
  r.push_back(n.create<ClipOp>(x, {n.f64("min", lo), n.f64("max", hi)},
                               x.getType()));
  return success();
}

/// Cast's `saturate` (float8 results; default 1) as dlc.cast's attribute,
/// which is left off when it holds its default.
SmallVector<NamedAttribute> saturateAttr(NodeContext &n) {
  if (n.getInt("saturate", 1))
    return {};
  return {n.b.getNamedAttr("saturate", n.b.getBoolAttr(false))};
}

/// Cast(input), to, saturate, and BitCast(input), to (opset 26): `OpTy`
/// to the element type `to` names.
template <typename OpTy>
LogicalResult importCastTo(NodeContext &n, Results &r) {
  bool bitcast = std::is_same_v<OpTy, BitcastOp>;
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs(
          bitcast ? ArrayRef<StringRef>{"to"}
                  : ArrayRef<StringRef>{"to", "saturate", "round_mode"})))
    return failure();
  if (!n.hasAttr("to"))
    return n.fail("attribute 'to' is required");
  int64_t to = n.getInt("to", 0);
  if (!bitcast && subByteBits(to)) {
    r.push_back(convertToSubByte(n, n.input(0), to));
    return success(r.back() != nullptr);
  }
  Type elementType = getElementType(n.b.getContext(), to);
  if (!elementType)
    return n.emitError() << "unsupported target dtype '" << getDtypeName(to)
                         << "'";
  // float4e2m1 codes are read as their values.
  Value x = bitcast ? n.input(0) : decodeFloat4(n, n.input(0));
  if (!x)
    return failure();
  if constexpr (std::is_same_v<OpTy, CastOp>)
    r.push_back(
        n.create<OpTy>(x, saturateAttr(n), n.getType(x).clone(elementType)));
  else
    r.push_back(n.create<OpTy>(x, {}, n.getType(x).clone(elementType)));
  return success(r.back() != nullptr);
}

/// CastLike(input, target_type): Cast to target_type's element type.
LogicalResult importCastLike(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"saturate", "round_mode"})))
    return failure();
  Value x = n.input(0);
  if (int32_t dtype = subByteDtypeOf(n.input(1))) {
    r.push_back(convertToSubByte(n, x, dtype));
    return success(r.back() != nullptr);
  }
  x = decodeFloat4(n, x);
  if (!x)
    return failure();
  Type elementType = n.getType(n.input(1)).getElementType();
  r.push_back(
      n.create<CastOp>(x, saturateAttr(n), n.getType(x).clone(elementType)));
  return success(r.back() != nullptr);
}

/// Size: the element count, an int64 scalar (shapes are static).
LogicalResult importSize(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  r.push_back(splat(n, {}, n.b.getI64Type(),
                    (double)n.getType(n.input(0)).getNumElements()));
  return success();
}

/// EyeLike(input), k, dtype: a constant of the input's 2-D shape, ones on
/// diagonal k.
LogicalResult importEyeLike(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"dtype", "k"})))
    return failure();
  auto type = n.getType(n.input(0));
  if (type.getRank() != 2)
    return n.emitError() << "input must be 2-D, got " << type;
  Type elementType = type.getElementType();
  if (n.hasAttr("dtype")) {
    int64_t dtype = n.getInt("dtype", 0);
    if (!(elementType = getElementType(n.b.getContext(), dtype)))
      return n.emitError() << "unsupported dtype '" << getDtypeName(dtype)
                           << "'";
  }
  int64_t k = n.getInt("k", 0);
  if (n.hasFailed())
    return failure();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto resultType = RankedTensorType::get({rows, cols}, elementType);
  SmallVector<Attribute> values;
  values.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      values.push_back(scalarAttr(n.b, elementType, j - i == k ? 1 : 0));
  r.push_back(n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(resultType, values)));
  return success();
}

/// Shrink(input), lambd, bias: x < -lambd ? x + bias : x > lambd ? x - bias
/// : 0.
LogicalResult importShrink(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"bias", "lambd"})))
    return failure();
  Value x = n.input(0);
  Type elt = n.getType(x).getElementType();
  if (elt.isInteger(1))
    return n.emitError() << "input must be numeric, got " << x.getType();
  double lambd = n.getFloat("lambd", 0.5f), bias = n.getFloat("bias", 0.0f);
  if (n.hasFailed())
    return failure();
  Value below = n.create<LessOp>({x, splat(n, {}, elt, -lambd)});
  Value above = n.create<GreaterOp>({x, splat(n, {}, elt, lambd)});
  Value up = n.create<AddOp>({x, splat(n, {}, elt, bias)});
  Value down = n.create<SubOp>({x, splat(n, {}, elt, bias)});
  if (!below || !above || !up || !down)
    return failure();
  Value inner = n.create<WhereOp>({above, down, splat(n, {}, elt, 0)});
  r.push_back(inner ? n.create<WhereOp>({below, up, inner}) : Value());
  return success(r.back() != nullptr);
}

/// GlobalMaxPool: dlc.reduce_max over the spatial dims, keepdims.
LogicalResult importGlobalMaxPool(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  r.push_back(n.create<ReduceMaxOp>(
      x, {n.i64Array("axes", axes), n.boolean("keepdims", true)}));
  return success(r.back() != nullptr);
}

/// Hardmax(input), axis: 1 at the first maximum along `axis`, 0 elsewhere:
/// dlc.arg_max compared with the axis' indices. Before opset 13 over the
/// input flattened to 2-D at `axis`, as Softmax.
LogicalResult importHardmax(NodeContext &n, Results &r) {
  Value x = floatUnaryInput(n, {"axis"});
  if (!x)
    return failure();
  auto type = n.getType(x);
  int64_t rank = type.getRank();
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  Value in = x;
  int64_t a = *axis;
  if (n.opset < 13 && a != rank - 1) {
    in = n.reshape(
        x, {product(shape.take_front(a)), product(shape.drop_front(a))});
    a = 1;
  }
  if (!in)
    return failure();
  auto inType = n.getType(in);
  Value index =
      n.create<ArgMaxOp>(in, {n.i64("axis", a), n.boolean("keepdims", true),
                              n.boolean("select_last_index", false)});
  if (!index)
    return failure();
  // 0, 1, ... along the axis, broadcast over the others.
  int64_t extent = inType.getDimSize(a);
  SmallVector<int64_t> iotaShape(inType.getRank(), 1);
  iotaShape[a] = extent;
  SmallVector<int64_t> iota(extent);
  std::iota(iota.begin(), iota.end(), 0);
  Value positions = n.b.create<arith::ConstantOp>(
      n.loc,
      DenseElementsAttr::get(RankedTensorType::get(iotaShape, n.b.getI64Type()),
                             ArrayRef<int64_t>(iota)));
  Value hit = n.create<EqualOp>({index, positions});
  Value y = hit ? n.create<CastOp>(hit, {}, inType) : Value();
  if (y && in != x)
    y = n.reshape(y, shape);
  r.push_back(y);
  return success(y != nullptr);
}

/// LpNormalization(input), axis, p: input / ReduceL<p>(input) along axis
/// (a zero norm taken as 1).
LogicalResult importLpNormalization(NodeContext &n, Results &r) {
  Value x = floatUnaryInput(n, {"axis", "p"});
  if (!x)
    return failure();
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", -1), n.getRank(x));
  int64_t p = n.getInt("p", 2);
  if (!axis || n.hasFailed())
    return failure();
  if (p != 1 && p != 2)
    return n.emitError() << "p must be 1 or 2, got " << p;
  SmallVector<NamedAttribute> attrs{n.i64Array("axes", {*axis}),
                                    n.boolean("keepdims", true)};
  Value norm =
      p == 1 ? n.create<ReduceL1Op>(x, attrs) : n.create<ReduceL2Op>(x, attrs);
  // A zero norm (an all-zero slice) divides by 1: zeros, not NaNs, as ONNX's
  // reference and ONNX Runtime give.
  Type elt = n.getType(x).getElementType();
  Value zero = norm ? n.create<EqualOp>({norm, splat(n, {}, elt, 0)}) : Value();
  Value safe =
      zero ? n.create<WhereOp>({zero, splat(n, {}, elt, 1), norm}) : Value();
  r.push_back(safe ? n.create<DivOp>({x, safe}) : Value());
  return success(r.back() != nullptr);
}

/// MeanVarianceNormalization(X), axes: (X - E[X]) / (sqrt(E[X^2] - E[X]^2)
/// + 1e-9) over `axes` (default N, H, W), as ONNX's function body.
LogicalResult importMeanVarianceNormalization(NodeContext &n, Results &r) {
  Value x = floatUnaryInput(n, {"axes"});
  if (!x)
    return failure();
  Type elt = n.getType(x).getElementType();
  int64_t rank = n.getRank(x);
  SmallVector<int64_t> axes;
  for (int64_t a : n.getInts("axes").value_or(SmallVector<int64_t>{0, 2, 3})) {
    std::optional<int64_t> axis = n.normalizeAxis(a, rank, "axes");
    if (!axis)
      return failure();
    axes.push_back(*axis);
  }
  if (n.hasFailed())
    return failure();
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  SmallVector<NamedAttribute> attrs{n.i64Array("axes", axes),
                                    n.boolean("keepdims", true)};
  Value mean = n.create<ReduceMeanOp>(x, attrs);
  Value square = n.create<MulOp>({x, x});
  Value meanSquare = square ? n.create<ReduceMeanOp>(square, attrs) : Value();
  Value squareMean = mean ? n.create<MulOp>({mean, mean}) : Value();
  if (!meanSquare || !squareMean)
    return failure();
  Value variance = n.create<SubOp>({meanSquare, squareMean});
  Value deviation =
      variance ? n.create<SqrtOp>(variance, {}, variance.getType()) : Value();
  Value denominator =
      deviation ? n.create<AddOp>({deviation, splat(n, {}, elt, 1e-9)})
                : Value();
  Value centered = n.create<SubOp>({x, mean});
  r.push_back(denominator && centered ? n.create<DivOp>({centered, denominator})
                                      : Value());
  return success(r.back() != nullptr);
}

/// LRN(X), alpha, beta, bias, size: X / (bias + alpha / size * (sum of X^2
/// over `size` channels around each))^beta. The window sum is an average
/// pool of X^2 over [N, 1, C, rest] with the channels as its height,
/// padded with zeros that it counts: alpha times the average is alpha /
/// size times the sum.
LogicalResult importLRN(NodeContext &n, Results &r) {
  Value x = floatUnaryInput(n, {"alpha", "beta", "bias", "size"});
  if (!x)
    return failure();
  auto type = n.getType(x);
  Type elt = type.getElementType();
  if (type.getRank() < 3)
    return n.emitError() << "input must have rank >= 3, got " << type;
  if (!n.hasAttr("size"))
    return n.fail("attribute 'size' is required");
  int64_t size = n.getInt("size", 1);
  double alpha = n.getFloat("alpha", 1e-4f), beta = n.getFloat("beta", 0.75f),
         bias = n.getFloat("bias", 1.0f);
  if (n.hasFailed())
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t channels = shape[1];
  if (size < 1 || size > 2 * channels + 1)
    return n.emitError() << "size must be in [1, " << 2 * channels + 1
                         << "], got " << size;
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value square = n.create<MulOp>({x, x});
  Value planes = square ? n.reshape(square, {shape[0], 1, channels,
                                             product(shape.drop_front(2))})
                        : Value();
  if (!planes)
    return failure();
  Value mean = n.create<AveragePoolOp>(
      planes,
      {n.i64Array("kernel_shape", {size, 1}), n.i64Array("strides", {1, 1}),
       n.i64Array("pads", {before, 0, after, 0}),
       n.i64Array("dilations", {1, 1}), n.boolean("ceil_mode", false),
       n.boolean("count_include_pad", true)});
  Value back = mean ? n.reshape(mean, shape) : Value();
  Value scaled =
      back ? n.create<MulOp>({back, splat(n, {}, elt, alpha)}) : Value();
  Value shifted =
      scaled ? n.create<AddOp>({scaled, splat(n, {}, elt, bias)}) : Value();
  Value power =
      shifted ? n.create<PowOp>({shifted, splat(n, {}, elt, beta)}) : Value();
  r.push_back(power ? n.create<DivOp>({x, power}) : Value());
  return success(r.back() != nullptr);
}

/// x * sigmoid(alpha * x).
Value swish(NodeContext &n, Value x, double alpha) {
  Value scaled =
      n.create<MulOp>({x, splat(n, {}, n.getType(x).getElementType(), alpha)});
  Value gate = scaled ? n.create<SigmoidOp>(scaled, {}, x.getType()) : Value();
  return gate ? n.create<MulOp>({x, gate}) : Value();
}

/// Swish(X), alpha (opset 24): X * sigmoid(alpha * X).
LogicalResult importSwish(NodeContext &n, Results &r) {
  Value x = floatUnaryInput(n, {"alpha"});
  if (!x)
    return failure();
  double alpha = n.getFloat("alpha", 1.0f);
  if (n.hasFailed())
    return failure();
  r.push_back(swish(n, x, alpha));
  return success(r.back() != nullptr);
}

/// SwiGLU(A, B), alpha (opset 28): Swish(A) * B, A and B of one shape.
LogicalResult importSwiGLU(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"alpha"})))
    return failure();
  Value a = n.input(0), b = n.input(1);
  double alpha = n.getFloat("alpha", 1.0f);
  if (n.hasFailed())
    return failure();
  if (a.getType() != b.getType() ||
      !isa<FloatType>(n.getType(a).getElementType()))
    return n.emitError() << "A and B must be float tensors of one type, got "
                         << a.getType() << " and " << b.getType();
  Value gate = swish(n, a, alpha);
  r.push_back(gate ? n.create<MulOp>({gate, b}) : Value());
  return success(r.back() != nullptr);
}

/// RMSNormalization(X, scale), axis, epsilon, stash_type (opset 23): ONNX
/// Runtime's SimplifiedLayerNormalization without its second output.
LogicalResult importRMSNormalization(NodeContext &n, Results &r) {
  if (failed(importSimplifiedLayerNorm(n, r)))
    return failure();
  r.resize(1);
  return success();
}

/// AffineGrid(theta [N, S, S + 1], size [N, C, spatial...]), align_corners
/// (opset 20): the constant homogeneous base grid [P, S + 1] (x fastest, as
/// onnx's reference) times theta^T, [N, spatial..., S].
LogicalResult importAffineGrid(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"align_corners"})))
    return failure();
  Value theta = n.input(0);
  auto type = n.getType(theta);
  std::optional<SmallVector<int64_t>> size = n.getConstInts(n.input(1), "size");
  bool align = n.getInt("align_corners", 0);
  if (!size || n.hasFailed())
    return failure();
  int64_t spatial = (int64_t)size->size() - 2;
  if (spatial != 2 && spatial != 3)
    return n.emitError() << "size must be [N, C, H, W] or [N, C, D, H, W], got "
                         << size->size() << " values";
  int64_t batch = (*size)[0];
  if (!isa<FloatType>(type.getElementType()) ||
      type.getShape() != ArrayRef<int64_t>{batch, spatial, spatial + 1})
    return n.emitError() << "theta must be a float [" << batch << ", "
                         << spatial << ", " << spatial + 1
                         << "] tensor for size's batch and rank, got " << type;
  ArrayRef<int64_t> dims = ArrayRef<int64_t>(*size).drop_front(2);
  if (llvm::any_of(dims, [](int64_t d) { return d < 1; }))
    return n.fail("size's spatial dims must be positive");
  int64_t points = 1;
  for (int64_t d : dims)
    if (llvm::MulOverflow(points, d, points) || points > (int64_t(1) << 24))
      return n.fail("the grid has more than 2^24 points");
  auto coordinate = [&](int64_t i, int64_t extent) -> double {
    if (align)
      return extent == 1 ? -1.0 : -1.0 + 2.0 * i / (extent - 1);
    return -1.0 + (2.0 * i + 1.0) / extent;
  };
  // Row p holds (x, y[, z], 1) of point p; dims are [D,] H, W.
  SmallVector<double> base;
  base.reserve(points * (spatial + 1));
  SmallVector<int64_t> at(spatial, 0);
  for (int64_t p = 0; p < points; ++p) {
    for (int64_t d = spatial - 1; d >= 0; --d)
      base.push_back(coordinate(at[d], dims[d]));
    base.push_back(1.0);
    for (int64_t d = spatial - 1; d >= 0 && ++at[d] == dims[d]; --d)
      at[d] = 0;
  }
  Value grid =
      constantOf(n, {points, spatial + 1}, type.getElementType(), base);
  Value thetaT = n.create<TransposeOp>(theta, {n.i64Array("perm", {0, 2, 1})});
  Value product = thetaT ? n.create<MatMulOp>({grid, thetaT}) : Value();
  SmallVector<int64_t> shape{batch};
  shape.append(dims.begin(), dims.end());
  shape.push_back(spatial);
  r.push_back(product ? n.reshape(product, shape) : Value());
  return success(r.back() != nullptr);
}

/// Compress(input, condition), axis: a dlc.gather of the positions where
/// the constant condition holds (of the flattened input without axis).
LogicalResult importCompress(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value x = n.input(0);
  auto cType = n.getType(n.input(1));
  if (cType.getRank() != 1 || !cType.getElementType().isInteger(1))
    return n.emitError() << "condition must be a 1-D bool tensor, got "
                         << cType;
  if (!matchPattern(n.input(1), m_Constant()))
    return n.fail("condition must be a constant: it fixes the output's shape, "
                  "and dlc compiles static shapes");
  std::optional<SmallVector<int64_t>> cond =
      n.getConstInts(n.input(1), "condition");
  if (!cond)
    return failure();
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    std::optional<int64_t> a =
        n.normalizeAxis(n.getInt("axis", 0), n.getRank(x));
    if (!a)
      return failure();
    axis = *a;
  } else {
    x = n.reshape(x, {n.getType(x).getNumElements()});
  }
  if (!x)
    return failure();
  int64_t extent = n.getType(x).getDimSize(axis);
  if ((int64_t)cond->size() > extent)
    return n.emitError() << "condition has " << cond->size()
                         << " values, more than the " << extent
                         << " positions it selects from";
  SmallVector<double> picked;
  for (auto [i, c] : llvm::enumerate(*cond))
    if (c)
      picked.push_back((double)i);
  if (picked.empty())
    return n.fail("condition selects nothing (dlc has no empty tensors)");
  Value index =
      constantOf(n, {(int64_t)picked.size()}, n.b.getI64Type(), picked);
  r.push_back(n.create<GatherOp>({x, index}, {n.i64("axis", axis)}));
  return success(r.back() != nullptr);
}

/// GridSample(X, grid), mode, padding_mode, align_corners: dlc.grid_sample
/// (opset 16's bilinear and bicubic are opset 20's linear and cubic).
LogicalResult importGridSample(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"align_corners", "mode", "padding_mode"})))
    return failure();
  Value x = n.input(0), grid = n.input(1);
  if (failed(checkFloatInput(n, x)))
    return failure();
  std::string mode = n.getString("mode", n.opset < 20 ? "bilinear" : "linear");
  std::string padding = n.getString("padding_mode", "zeros");
  bool alignCorners = n.getInt("align_corners", 0) != 0;
  if (n.hasFailed())
    return failure();
  if (mode == "bilinear")
    mode = "linear";
  else if (mode == "bicubic")
    mode = "cubic";
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return n.emitError() << "unsupported mode '" << mode << "'";
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.emitError() << "unsupported padding_mode '" << padding << "'";
  auto xType = n.getType(x), gridType = n.getType(grid);
  int64_t rank = xType.getRank();
  if (rank < 3 || gridType.getRank() != rank ||
      gridType.getDimSize(0) != xType.getDimSize(0) ||
      gridType.getDimSize(rank - 1) != rank - 2)
    return n.emitError() << "grid must be [N, out..., " << rank - 2
                         << "] for input " << xType << ", got " << gridType;
  if (gridType.getElementType() != xType.getElementType())
    return n.emitError() << "grid must have the input's element type, got "
                         << gridType;
  SmallVector<int64_t> shape{xType.getDimSize(0), xType.getDimSize(1)};
  llvm::append_range(shape, gridType.getShape().slice(1, rank - 2));
  r.push_back(n.create<GridSampleOp>(
      {x, grid},
      {n.attr("mode", n.b.getStringAttr(mode)),
       n.attr("padding_mode", n.b.getStringAttr(padding)),
       n.boolean("align_corners", alignCorners)},
      xType.clone(shape)));
  return success(r.back() != nullptr);
}
} // namespace

LogicalResult onnx_import::readWindow(NodeContext &n, Value x,
                                      ArrayRef<int64_t> kernel,
                                      bool hasDilations, Window &w) {
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  size_t spatial = shape.size() - 2;
  SmallVector<int64_t> ones(spatial, 1);
  w.strides = n.getInts("strides").value_or(ones);
  w.dilations = hasDilations ? n.getInts("dilations").value_or(ones) : ones;
  std::optional<SmallVector<int64_t>> pads = n.getInts("pads");
  if (n.hasFailed())
    return failure();
  if (w.strides.size() != spatial)
    return n.emitError() << "expected " << spatial << " strides, got "
                         << w.strides.size();
  if (w.dilations.size() != spatial)
    return n.emitError() << "expected " << spatial << " dilations, got "
                         << w.dilations.size();
  if (pads && pads->size() != 2 * spatial)
    return n.emitError() << "expected " << 2 * spatial << " pads, got "
                         << pads->size();
  for (size_t i = 0; i < spatial; ++i)
    if (w.strides[i] <= 0 || w.dilations[i] <= 0)
      return n.fail("strides and dilations must be positive");

  std::string autoPad = n.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    w.pads = pads.value_or(SmallVector<int64_t>(2 * spatial, 0));
  } else if (autoPad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Output = ceil(in / stride); the odd pad goes to the end for
    // SAME_UPPER and to the beginning for SAME_LOWER.
    w.pads.assign(2 * spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
      int64_t in = shape[2 + i], s = w.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(
          0, (out - 1) * s + (kernel[i] - 1) * w.dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : big;
      w.pads[spatial + i] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else {
    return n.emitError() << "unsupported auto_pad '" << autoPad << "'";
  }
  // A window larger than the padded input leaves no output; huge attributes
  // must not overflow the shape arithmetic either.
  for (size_t i = 0; i < spatial && i < kernel.size(); ++i) {
    int64_t padBegin = w.pads[i], padEnd = w.pads[spatial + i];
    if (kernel[i] <= 0 || padBegin < 0 || padEnd < 0)
      continue; // The op's verifier names these.
    int64_t window, padded;
    if (llvm::MulOverflow(kernel[i] - 1, w.dilations[i], window) ||
        llvm::AddOverflow(window, int64_t(1), window) ||
        llvm::AddOverflow(shape[2 + i], padBegin, padded) ||
        llvm::AddOverflow(padded, padEnd, padded))
      return n.emitError() << "kernel, dilations or pads of spatial dim " << i
                           << " are too large";
    if (window > padded)
      return n.emitError() << "the kernel window " << window
                           << " (dilated) is larger than the padded input "
                           << padded << " in spatial dim " << i;
  }
  return success();
}

namespace {

LogicalResult importConv(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"auto_pad", "dilations", "group",
                                "kernel_shape", "pads", "strides"})))
    return failure();
  Value x = n.input(0), w = n.input(1), bias = n.input(2);
  int64_t rank = n.getRank(x);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  if (n.getRank(w) != rank)
    return n.emitError() << "weight " << w.getType()
                         << " must have the input's rank " << rank;
  SmallVector<int64_t> kernel(n.getType(w).getShape().drop_front(2));
  if (std::optional<SmallVector<int64_t>> k = n.getInts("kernel_shape"))
    if (*k != kernel)
      return n.emitError() << "kernel_shape " << formatList(*k)
                           << " does not match the weight's spatial dims "
                           << formatList(kernel);
  Window win;
  if (failed(readWindow(n, x, kernel, /*hasDilations=*/true, win)))
    return failure();
  int64_t group = n.getInt("group", 1);
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  r.push_back(n.create<ConvOp>(
      operands, {n.i64Array("strides", win.strides),
                 n.i64Array("pads", win.pads),
                 n.i64Array("dilations", win.dilations), n.i64("group", group)}));
  return success();
}

/// LpPool's arithmetic around the average pool (see importPool).
LogicalResult buildLpPool(NodeContext &n, Results &r, Value x,
                          ArrayRef<int64_t> kernel, Window win, bool ceilMode) {
  if (failed(checkFloatInput(n, x)))
    return failure();
  int64_t p = n.getInt("p", 2);
  if (n.hasFailed())
    return failure();
  if (p < 1)
    return n.emitError() << "p must be >= 1, got " << p;
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  size_t spatial = kernel.size();
  int64_t volume = 1;
  for (size_t i = 0; i < spatial; ++i) {
    volume *= kernel[i];
    if (!ceilMode || win.strides[i] <= 0)
      continue;
    int64_t in = shape[2 + i], s = win.strides[i];
    int64_t &padEnd = win.pads[spatial + i];
    int64_t window = (kernel[i] - 1) * win.dilations[i] + 1;
    int64_t span = in + win.pads[i] + padEnd - window;
    int64_t out = span / s + 1;
    // ONNX's ceil: one more window unless it would start in the end pad.
    if (span % s != 0 && out * s < in + win.pads[i])
      ++out;
    padEnd += std::max<int64_t>(0, (out - 1) * s + window -
                                       (in + win.pads[i] + padEnd));
  }
  Type elt = n.getType(x).getElementType();
  Value magnitude = p == 2 ? x : n.create<AbsOp>(x, {}, x.getType());
  Value powered =
      !magnitude || p == 1 ? magnitude
      : p == 2             ? n.create<MulOp>({x, x})
               : n.create<PowOp>({magnitude, splat(n, {}, elt, (double)p)});
  if (!powered)
    return failure();
  Value mean = n.create<AveragePoolOp>(
      powered,
      {n.i64Array("kernel_shape", kernel), n.i64Array("strides", win.strides),
       n.i64Array("pads", win.pads), n.i64Array("dilations", win.dilations),
       n.boolean("ceil_mode", false), n.boolean("count_include_pad", true)});
  Value sum = mean ? n.create<MulOp>({mean, splat(n, {}, elt, (double)volume)})
                   : Value();
  Value y = !sum || p == 1 ? sum
            : p == 2       ? n.create<SqrtOp>(sum, {}, sum.getType())
                           : n.create<PowOp>({sum, splat(n, {}, elt, 1.0 / p)});
  r.push_back(y);
  return success(y != nullptr);
}

/// MaxPool's Indices output: the flat index, in x's whole tensor, of each
/// window's maximum (the first on ties; padding never wins). Every window
/// is gathered from x's planes with constant indices ([N, C, P, K], padding
/// at an extra -inf slot), dlc.arg_max picks k, and the flat index is the
/// window's base plus k's offset (constant tables) plus the plane's.
/// `columnMajor` is storage_order 1.
Value maxPoolIndices(NodeContext &n, Value x, RankedTensorType yType,
                     ArrayRef<int64_t> kernel, const Window &win,
                     bool columnMajor) {
  auto type = NodeContext::getType(x);
  int64_t spatial = type.getRank() - 2;
  ArrayRef<int64_t> dims = type.getShape().drop_front(2),
                    outDims = yType.getShape().drop_front(2);
  int64_t batch = type.getDimSize(0), channels = type.getDimSize(1);
  int64_t plane = 1, positions = 1, taps = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    plane *= dims[i];
    positions *= outDims[i];
    taps *= kernel[i];
  }
  if (positions > (int64_t(1) << 24) / taps) {
    n.emitError() << "the Indices output gathers " << positions
                  << " windows of " << taps << " values, more than dlc builds";
    return {};
  }
  // Strides of the flat index within a plane, and of the gather (always
  // row-major).
  SmallVector<int64_t> flatStride(spatial), rowStride(spatial);
  int64_t acc = 1;
  for (int64_t i = spatial - 1; i >= 0; --i) {
    rowStride[i] = acc;
    acc *= dims[i];
  }
  acc = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t j = columnMajor ? i : spatial - 1 - i;
    flatStride[j] = acc;
    acc *= dims[j];
  }
  SmallVector<double> gather, base, offset(taps);
  gather.reserve(positions * taps);
  SmallVector<int64_t> o(spatial, 0), k(spatial, 0);
  for (int64_t p = 0; p < positions; ++p) {
    double b = 0;
    for (int64_t i = 0; i < spatial; ++i)
      b += double(o[i] * win.strides[i] - win.pads[i]) * flatStride[i];
    base.push_back(b);
    std::fill(k.begin(), k.end(), 0);
    for (int64_t t = 0; t < taps; ++t) {
      int64_t at = 0;
      bool inside = true;
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t c =
            o[i] * win.strides[i] + k[i] * win.dilations[i] - win.pads[i];
        inside &= c >= 0 && c < dims[i];
        at += c * rowStride[i];
      }
      gather.push_back(inside ? (double)at : (double)plane);
      for (int64_t i = spatial - 1; i >= 0 && ++k[i] == kernel[i]; --i)
        k[i] = 0;
    }
    for (int64_t i = spatial - 1; i >= 0 && ++o[i] == outDims[i]; --i)
      o[i] = 0;
  }
  std::fill(k.begin(), k.end(), 0);
  for (int64_t t = 0; t < taps; ++t) {
    double off = 0;
    for (int64_t i = 0; i < spatial; ++i)
      off += double(k[i] * win.dilations[i]) * flatStride[i];
    offset[t] = off;
    for (int64_t i = spatial - 1; i >= 0 && ++k[i] == kernel[i]; --i)
      k[i] = 0;
  }

  Type elt = type.getElementType(), i64 = n.b.getI64Type();
  double lowest = isa<FloatType>(elt) ? -INFINITY
                  : elt.isUnsignedInteger()
                      ? 0.0
                      : -std::ldexp(1.0, elt.getIntOrFloatBitWidth() - 1);
  Value planes = n.reshape(x, {batch, channels, plane});
  Value padded =
      planes ? n.create<ConcatOp>(
                   {planes, splat(n, {batch, channels, 1}, elt, lowest)},
                   {n.i64("axis", 2)})
             : Value();
  Value windows =
      padded ? n.create<GatherOp>(
                   {padded, constantOf(n, {positions, taps}, i64, gather)},
                   {n.i64("axis", 2)})
             : Value();
  Value tap =
      windows ? n.create<ArgMaxOp>(
                    windows, {n.i64("axis", 3), n.boolean("keepdims", false),
                              n.boolean("select_last_index", false)})
              : Value();
  Value within =
      tap ? n.create<GatherOp>({constantOf(n, {taps}, i64, offset), tap},
                               {n.i64("axis", 0)})
          : Value();
  SmallVector<double> planeBase(batch * channels);
  for (int64_t i = 0; i < batch * channels; ++i)
    planeBase[i] = double(i) * plane;
  Value index = within
                    ? n.create<AddOp>(
                          {within, constantOf(n, {1, 1, positions}, i64, base)})
                    : Value();
  index = index ? n.create<AddOp>({index, constantOf(n, {batch, channels, 1},
                                                     i64, planeBase)})
                : Value();
  return index ? n.reshape(index, yType.clone(i64).getShape()) : Value();
}

enum class PoolKind { Max, Average, Lp };

/// MaxPool, AveragePool and LpPool. LpPool is (sum of |x|^p over each
/// window)^(1/p): an average pool of |x|^p that counts the pads (zeros)
/// times the window's size. With ceil_mode the last windows get end padding
/// to be whole, which adds nothing to a sum.
LogicalResult importPool(NodeContext &n, Results &r, PoolKind kind) {
  if (failed(n.checkInputs(1, 1)))
    return failure();
  SmallVector<StringRef> known{"auto_pad",     "ceil_mode", "dilations",
                               "kernel_shape", "pads",      "strides"};
  if (kind == PoolKind::Max)
    known.push_back("storage_order");
  else if (kind == PoolKind::Average)
    known.push_back("count_include_pad");
  else
    known.push_back("p");
  if (failed(n.checkKnownAttrs(known)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (!kernel)
    return n.fail("attribute 'kernel_shape' is required");
  if ((int64_t)kernel->size() != rank - 2)
    return n.emitError() << "expected " << rank - 2
                         << " kernel_shape entries, got " << kernel->size();
  Window win;
  if (failed(readWindow(n, x, *kernel, /*hasDilations=*/true, win)))
    return failure();
  bool ceilMode = n.getInt("ceil_mode", 0) != 0;
  if (kind == PoolKind::Lp)
    return buildLpPool(n, r, x, *kernel, win, ceilMode);
  SmallVector<NamedAttribute> attrs{
      n.i64Array("kernel_shape", *kernel), n.i64Array("strides", win.strides),
      n.i64Array("pads", win.pads), n.i64Array("dilations", win.dilations),
      n.boolean("ceil_mode", ceilMode)};
  if (kind == PoolKind::Max) {
    r.push_back(n.create<MaxPoolOp>(x, attrs));
    bool indices = n.node.output_size() > 1 && !n.node.output(1).empty();
    if (r.back() && indices) {
      Value argmax =
          maxPoolIndices(n, x, NodeContext::getType(r.back()), *kernel, win,
                         n.getInt("storage_order", 0) != 0);
      if (!argmax)
        return failure();
      r.push_back(argmax);
    }
  } else {
    attrs.push_back(
        n.boolean("count_include_pad", n.getInt("count_include_pad", 0) != 0));
    r.push_back(n.create<AveragePoolOp>(x, attrs));
  }
  return success();
}

LogicalResult importMaxPool(NodeContext &n, Results &r) {
  return importPool(n, r, PoolKind::Max);
}

LogicalResult importAveragePool(NodeContext &n, Results &r) {
  return importPool(n, r, PoolKind::Average);
}

LogicalResult importLpPool(NodeContext &n, Results &r) {
  return importPool(n, r, PoolKind::Lp);
}

LogicalResult importGlobalAveragePool(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  r.push_back(n.create<ReduceMeanOp>(
      x, {n.i64Array("axes", axes), n.boolean("keepdims", true)}));
  return success();
}

LogicalResult importGemm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"alpha", "beta", "transA", "transB"})))
    return failure();
  SmallVector<Value> operands{n.input(0), n.input(1)};
  if (Value c = n.input(2))
    operands.push_back(c);
  r.push_back(n.create<GemmOp>(
      operands, {n.f32("alpha", n.getFloat("alpha", 1.0f)),
                 n.f32("beta", n.getFloat("beta", 1.0f)),
                 n.boolean("transA", n.getInt("transA", 0) != 0),
                 n.boolean("transB", n.getInt("transB", 0) != 0)}));
  return success();
}

LogicalResult importMatMul(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  Value lhs = n.input(0), rhs = n.input(1);
  int64_t lhsRank = n.getRank(lhs), rhsRank = n.getRank(rhs);
  if (lhsRank == 0 || rhsRank == 0)
    return n.fail("operands must have rank >= 1");
  // numpy.matmul: a 1-D lhs is a row vector, a 1-D rhs a column vector, and
  // the added dim is removed from the result.
  if (lhsRank == 1)
    lhs = n.reshape(lhs, {1, n.getType(lhs).getDimSize(0)});
  if (rhsRank == 1)
    rhs = n.reshape(rhs, {n.getType(rhs).getDimSize(0), 1});
  if (!lhs || !rhs)
    return failure();
  Value product = n.create<MatMulOp>({lhs, rhs});
  if (!product)
    return failure();
  if (lhsRank == 1 || rhsRank == 1) {
    ArrayRef<int64_t> shape = n.getType(product).getShape();
    int64_t rank = shape.size();
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i)
      if (!(lhsRank == 1 && i == rank - 2) && !(rhsRank == 1 && i == rank - 1))
        out.push_back(shape[i]);
    product = n.reshape(product, out);
  }
  r.push_back(product);
  return success();
}

LogicalResult importBatchNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(5, 5)) ||
      failed(n.checkKnownAttrs(
          {"epsilon", "momentum", "training_mode", "spatial"})))
    return failure();
  if (n.getInt("training_mode", 0) != 0)
    return n.fail("training_mode=1 is not supported (inference only)");
  if (n.getInt("spatial", 1) != 1)
    return n.fail("spatial=0 is not supported");
  SmallVector<Value> operands;
  for (unsigned i = 0; i < 5; ++i)
    operands.push_back(n.input(i));
  r.push_back(n.create<BatchNormOp>(
      operands, {n.f32("epsilon", n.getFloat("epsilon", 1e-5f))}));
  return success();
}

LogicalResult importLayerNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"axis", "epsilon", "stash_type"})))
    return failure();
  Value x = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", -1), n.getRank(x));
  if (!axis)
    return failure();
  float epsilon = n.getFloat("epsilon", 1e-5f);
  SmallVector<Value> operands{x, n.input(1)};
  if (Value bias = n.input(2))
    operands.push_back(bias);
  r.push_back(n.create<LayerNormOp>(
      operands, {n.i64("axis", *axis), n.f32("epsilon", epsilon)}));
  if (!r.back() || n.node.output_size() < 2)
    return success(r.back() != nullptr);

  // Mean and InvStdDev (training outputs) in the stash type, computed beside
  // the fused normalization; dropped as dead code when nothing reads them.
  int64_t stash = n.getInt("stash_type", onnx::TensorProto::FLOAT);
  Type stashType = getElementType(n.b.getContext(), stash);
  if (!stashType || !isa<FloatType>(stashType))
    return n.emitError() << "unsupported stash_type '" << getDtypeName(stash)
                         << "'";
  Value xs = x;
  if (n.getType(x).getElementType() != stashType)
    xs = n.create<CastOp>(x, {}, n.getType(x).clone(stashType));
  SmallVector<int64_t> axes;
  for (int64_t i = *axis, e = n.getRank(x); i < e; ++i)
    axes.push_back(i);
  auto reduceAttrs = {n.i64Array("axes", axes), n.boolean("keepdims", true)};
  Value eps = n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(RankedTensorType::get({}, stashType),
                                    n.b.getFloatAttr(stashType, epsilon)));
  Value mean, d, sq, var, shifted, stddev, inv;
  if (!xs || !(mean = n.create<ReduceMeanOp>(xs, reduceAttrs)) ||
      !(d = n.create<SubOp>({xs, mean})) || !(sq = n.create<MulOp>({d, d})) ||
      !(var = n.create<ReduceMeanOp>(sq, reduceAttrs)) ||
      !(shifted = n.create<AddOp>({var, eps})) ||
      !(stddev = n.create<SqrtOp>(shifted)) ||
      !(inv = n.create<ReciprocalOp>(stddev)))
    return failure();
  r.push_back(mean);
  r.push_back(inv);
  return success();
}


/// Reduce* ops: the axes attribute became an optional input at opset
/// `axesInputSince` (13 for ReduceSum, 18 for the others).
template <typename OpTy>
LogicalResult importReduce(NodeContext &n, Results &r,
                           int64_t axesInputSince) {
  if (failed(n.checkKnownAttrs({"axes", "keepdims", "noop_with_empty_axes"})))
    return failure();
  std::optional<SmallVector<int64_t>> axes;
  if (n.opset < axesInputSince) {
    if (failed(n.checkInputs(1, 1)))
      return failure();
    if (n.getInt("noop_with_empty_axes", 0) != 0)
      return n.fail("attribute 'noop_with_empty_axes' needs opset " +
                    Twine(axesInputSince));
    axes = n.getInts("axes");
  } else {
    if (failed(n.checkInputs(1, 2)))
      return failure();
    if (n.hasAttr("axes"))
      return n.fail("attribute 'axes' became an input in opset " +
                    Twine(axesInputSince));
    if (Value v = n.input(1))
      if (!(axes = n.getConstInts(v, "axes")))
        return failure();
  }
  if (n.hasFailed())
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  SmallVector<int64_t> normalized;
  if (!axes || axes->empty()) {
    if (n.getInt("noop_with_empty_axes", 0) != 0) {
      r.push_back(x);
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      normalized.push_back(i);
  } else {
    for (int64_t a : *axes) {
      std::optional<int64_t> axis = n.normalizeAxis(a, rank);
      if (!axis)
        return failure();
      normalized.push_back(*axis);
    }
    llvm::sort(normalized);
  }
  r.push_back(n.create<OpTy>(
      x, {n.i64Array("axes", normalized),
          n.boolean("keepdims", n.getInt("keepdims", 1) != 0)}));
  return success();
}

LogicalResult importReduceMean(NodeContext &n, Results &r) {
  return importReduce<ReduceMeanOp>(n, r, 18);
}
LogicalResult importReduceSum(NodeContext &n, Results &r) {
  return importReduce<ReduceSumOp>(n, r, 13);
}
LogicalResult importReduceProd(NodeContext &n, Results &r) {
  return importReduce<ReduceProdOp>(n, r, 18);
}
LogicalResult importReduceMax(NodeContext &n, Results &r) {
  return importReduce<ReduceMaxOp>(n, r, 18);
}
LogicalResult importReduceMin(NodeContext &n, Results &r) {
  return importReduce<ReduceMinOp>(n, r, 18);
}
LogicalResult importReduceL1(NodeContext &n, Results &r) {
  return importReduce<ReduceL1Op>(n, r, 18);
}
LogicalResult importReduceL2(NodeContext &n, Results &r) {
  return importReduce<ReduceL2Op>(n, r, 18);
}
LogicalResult importReduceSumSquare(NodeContext &n, Results &r) {
  return importReduce<ReduceSumSquareOp>(n, r, 18);
}
LogicalResult importReduceLogSum(NodeContext &n, Results &r) {
  return importReduce<ReduceLogSumOp>(n, r, 18);
}
LogicalResult importReduceLogSumExp(NodeContext &n, Results &r) {
  return importReduce<ReduceLogSumExpOp>(n, r, 18);
}

template <typename OpTy>
LogicalResult importArgReduce(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"axis", "keepdims", "select_last_index"})))
    return failure();
  Value x = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.getRank(x));
  if (!axis)
    return failure();
  r.push_back(n.create<OpTy>(
      x, {n.i64("axis", *axis),
          n.boolean("keepdims", n.getInt("keepdims", 1) != 0),
          n.boolean("select_last_index",
                    n.getInt("select_last_index", 0) != 0)}));
  return success();
}

template <typename OpTy>
LogicalResult importSoftmaxLike(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value x = n.input(0);
  auto type = n.getType(x);
  int64_t rank = type.getRank();
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return failure();
  // Before opset 13 Softmax flattened the input to 2-D at `axis` and
  // normalized over everything after it; with axis = rank-1 both agree.
  if (n.opset >= 13 || *axis == rank - 1) {
    r.push_back(n.create<OpTy>(x, {n.i64("axis", *axis)}, type));
    return success();
  }
  ArrayRef<int64_t> shape = type.getShape();
  Value flat = n.reshape(x, {product(shape.take_front(*axis)),
                             product(shape.drop_front(*axis))});
  if (!flat)
    return failure();
  Value s = n.create<OpTy>(flat, {n.i64("axis", 1)}, flat.getType());
  if (!s)
    return failure();
  r.push_back(n.reshape(s, shape));
  return success();
}

LogicalResult importReshape(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"allowzero"})))
    return failure();
  Value x = n.input(0);
  std::optional<SmallVector<int64_t>> target =
      n.getConstInts(n.input(1), "shape");
  if (!target)
    return failure();
  bool allowZero = n.getInt("allowzero", 0) != 0;
  ArrayRef<int64_t> inShape = n.getType(x).getShape();
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError() << "shape " << formatList(*target)
                             << " has more than one -1";
      inferred = i;
      shape.push_back(-1);
      continue;
    }
    // 0 copies the input dim, unless allowzero makes it a real 0.
    if (d == 0 && !allowZero) {
      if (i >= inShape.size())
        return n.emitError() << "shape " << formatList(*target)
                             << " copies dim " << i << " (0) but the input "
                             << x.getType() << " has rank " << inShape.size();
      d = inShape[i];
    }
    if (d < 0)
      return n.emitError() << "shape " << formatList(*target)
                           << " has invalid dim " << d;
    if (d > 0 && known > std::numeric_limits<int64_t>::max() / d)
      return n.emitError() << "cannot reshape " << x.getType() << " to "
                           << formatList(*target);
    shape.push_back(d);
    known *= d;
  }
  int64_t total = n.getType(x).getNumElements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return n.emitError() << "cannot reshape " << x.getType() << " to "
                           << formatList(*target);
    shape[inferred] = total / known;
  } else if (known != total) {
    return n.emitError() << "cannot reshape " << x.getType() << " to "
                         << formatList(*target);
  }
  r.push_back(n.reshape(x, shape));
  return success();
}

LogicalResult importFlatten(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  int64_t rank = shape.size();
  int64_t axis = n.getInt("axis", 1);
  // Flatten's axis ranges over [-rank, rank]: rank gives [N, 1].
  if (axis < -rank || axis > rank)
    return n.emitError() << "axis " << axis << " is out of range for rank "
                         << rank;
  if (axis < 0)
    axis += rank;
  r.push_back(n.reshape(x, {product(shape.take_front(axis)),
                            product(shape.drop_front(axis))}));
  return success();
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, then an input.
LogicalResult readSqueezeAxes(NodeContext &n,
                              std::optional<SmallVector<int64_t>> &axes) {
  if (n.opset < 13) {
    if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"axes"})))
      return failure();
    axes = n.getInts("axes");
    return success(!n.hasFailed());
  }
  if (failed(n.checkInputs(1, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  if (Value v = n.input(1))
    if (!(axes = n.getConstInts(v, "axes")))
      return failure();
  return success();
}

LogicalResult importSqueeze(NodeContext &n, Results &r) {
  std::optional<SmallVector<int64_t>> axes;
  if (failed(readSqueezeAxes(n, axes)))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  int64_t rank = shape.size();
  SmallVector<bool> drop(rank, false);
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = shape[i] == 1;
  } else {
    for (int64_t a : *axes) {
      std::optional<int64_t> axis = n.normalizeAxis(a, rank);
      if (!axis)
        return failure();
      if (shape[*axis] != 1)
        return n.emitError() << "cannot squeeze dim " << *axis << " of size "
                             << shape[*axis];
      drop[*axis] = true;
    }
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(shape[i]);
  r.push_back(n.reshape(x, out));
  return success();
}

LogicalResult importUnsqueeze(NodeContext &n, Results &r) {
  std::optional<SmallVector<int64_t>> axes;
  if (failed(readSqueezeAxes(n, axes)))
    return failure();
  if (!axes)
    return n.fail(n.opset < 13 ? "attribute 'axes' is required"
                               : "input 1 (axes) is required");
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  // Axes index the output, whose rank includes the new dims.
  int64_t outRank = shape.size() + axes->size();
  SmallVector<bool> inserted(outRank, false);
  for (int64_t a : *axes) {
    std::optional<int64_t> axis = n.normalizeAxis(a, outRank);
    if (!axis)
      return failure();
    if (inserted[*axis])
      return n.emitError() << "axis " << a << " is repeated";
    inserted[*axis] = true;
  }
  SmallVector<int64_t> out;
  const int64_t *next = shape.begin();
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(inserted[i] ? 1 : *next++);
  r.push_back(n.reshape(x, out));
  return success();
}

LogicalResult importIdentity(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({})))
    return failure();
  r.push_back(n.input(0));
  return success();
}

LogicalResult importDropout(NodeContext &n, Results &r) {
  // Inference: Dropout is the identity and its mask all true.
  if (failed(n.checkKnownAttrs({"ratio", "seed"})) ||
      failed(n.checkInputs(1, n.opset < 12 ? 1 : 3)))
    return failure();
  if (Value training = n.input(2)) {
    std::optional<SmallVector<int64_t>> mode =
        n.getConstInts(training, "training_mode");
    if (!mode)
      return failure();
    if (llvm::any_of(*mode, [](int64_t v) { return v != 0; }))
      return n.fail("training_mode=true is not supported (inference only)");
  }
  r.push_back(n.input(0));
  // The mask (opset 12+) keeps every element in inference.
  if (n.opset >= 12 && n.node.output_size() > 1 && !n.node.output(1).empty()) {
    auto maskType = n.getType(n.input(0)).clone(n.b.getI1Type());
    r.push_back(n.b.create<arith::ConstantOp>(
        n.loc, DenseElementsAttr::get(maskType, true)));
  }
  return success();
}

LogicalResult importShape(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"start", "end"})))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  // Opset 15 start/end: negative counts from the end, then clamp.
  auto clampDim = [&](int64_t d) {
    if (d < 0)
      d += rank;
    return std::clamp<int64_t>(d, 0, rank);
  };
  int64_t start = clampDim(n.getInt("start", 0));
  int64_t end = std::max(start, clampDim(n.getInt("end", rank)));
  r.push_back(n.create<ShapeOp>(x, {n.i64("start", start), n.i64("end", end)}));
  return success();
}

LogicalResult importGather(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value data = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.getRank(data));
  if (!axis)
    return failure();
  r.push_back(n.create<GatherOp>({data, n.input(1)}, {n.i64("axis", *axis)}));
  return success();
}

LogicalResult importConcat(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, std::numeric_limits<unsigned>::max())) ||
      failed(n.checkKnownAttrs({"axis"})))
    return failure();
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.getNumInputs(); ++i) {
    if (!n.input(i))
      return n.emitError() << "input " << i << " is required";
    inputs.push_back(n.input(i));
  }
  if (!n.hasAttr("axis"))
    return n.fail("attribute 'axis' is required");
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.getRank(inputs.front()));
  if (!axis)
    return failure();
  r.push_back(n.create<ConcatOp>(inputs, {n.i64("axis", *axis)}));
  return success();
}

LogicalResult importTranspose(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"perm"})))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> p = n.getInts("perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  r.push_back(n.create<TransposeOp>(x, {n.i64Array("perm", perm)}));
  return success();
}

LogicalResult importSlice(NodeContext &n, Results &r) {
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (n.opset < 10) {
    if (failed(n.checkInputs(1, 1)) ||
        failed(n.checkKnownAttrs({"starts", "ends", "axes"})))
      return failure();
    starts = n.getInts("starts");
    ends = n.getInts("ends");
    axes = n.getInts("axes");
    if (!starts || !ends)
      return n.fail("attributes 'starts' and 'ends' are required");
  } else {
    // Opset 10 turned starts/ends/axes into inputs and added steps.
    if (failed(n.checkInputs(3, 5)) || failed(n.checkKnownAttrs({})))
      return failure();
    if (!(starts = n.getConstInts(n.input(1), "starts")) ||
        !(ends = n.getConstInts(n.input(2), "ends")))
      return failure();
    if (Value v = n.input(3))
      if (!(axes = n.getConstInts(v, "axes")))
        return failure();
    if (Value v = n.input(4))
      if (!(steps = n.getConstInts(v, "steps")))
        return failure();
  }
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  int64_t rank = shape.size();
  size_t count = starts->size();
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < count; ++i)
      axes->push_back(i);
  }
  if (!steps)
    steps = SmallVector<int64_t>(count, 1);
  if (ends->size() != count || axes->size() != count || steps->size() != count)
    return n.emitError() << "starts, ends, axes and steps differ in length";

  // One (start, end, step) per dim, clamped as ONNX specifies.
  SmallVector<int64_t> outStarts(rank, 0), outEnds(shape), outSteps(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t k = 0; k < count; ++k) {
    std::optional<int64_t> axis = n.normalizeAxis((*axes)[k], rank);
    if (!axis)
      return failure();
    if (seen[*axis])
      return n.emitError() << "axis " << (*axes)[k] << " is repeated";
    seen[*axis] = true;
    int64_t dim = shape[*axis], step = (*steps)[k];
    int64_t start = (*starts)[k], end = (*ends)[k];
    if (step == 0)
      return n.fail("steps must be non-zero");
    // A step beyond the dim takes at most one element, as a step of dim
    // does; clamping keeps the size arithmetic from overflowing.
    step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1),
                               std::max<int64_t>(dim, 1));
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0 || dim == 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (dim == 0)
        step = 1;
    } else {
      // Going backwards, end -1 means "through index 0".
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    outStarts[*axis] = start;
    outEnds[*axis] = end;
    outSteps[*axis] = step;
  }
  r.push_back(n.create<SliceOp>(x, {n.i64Array("starts", outStarts),
                                    n.i64Array("ends", outEnds),
                                    n.i64Array("steps", outSteps)}));
  return success();
}

LogicalResult importConstantOfShape(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 1)) || failed(n.checkKnownAttrs({"value"})))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      n.getConstInts(n.input(0), "shape");
  if (!shape)
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return n.emitError() << "shape " << formatList(*shape)
                           << " has a negative dim";
  // The value defaults to a float 0; otherwise it is a one-element tensor.
  Attribute element = n.b.getF32FloatAttr(0);
  if (const onnx::AttributeProto *a = n.getAttr("value")) {
    if (a->type() != onnx::AttributeProto::TENSOR &&
        !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_t()))
      return n.fail("attribute 'value' must be a tensor");
    TypedAttr value = convertTensor(n.b.getContext(), a->t(), "", [&] {
      return n.emitError() << "attribute 'value': ";
    });
    if (!value)
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (!dense || dense.getNumElements() != 1)
      return n.fail("attribute 'value' must hold exactly one element");
    element = *dense.value_begin<Attribute>();
  }
  auto type = RankedTensorType::get(*shape, cast<TypedAttr>(element).getType());
  r.push_back(n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(type, element)));
  return success();
}

LogicalResult importExpand(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      n.getConstInts(n.input(1), "shape");
  if (!shape)
    return failure();
  r.push_back(n.create<ExpandOp>(n.input(0), {n.i64Array("shape", *shape)}));
  return success();
}

LogicalResult importGatherElements(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value data = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.getRank(data));
  if (!axis)
    return failure();
  r.push_back(
      n.create<GatherElementsOp>({data, n.input(1)}, {n.i64("axis", *axis)}));
  return success();
}

/// Range with constant inputs folds to a constant (its length depends on
/// the values).
LogicalResult importRange(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) || failed(n.checkKnownAttrs({})))
    return failure();
  Type elt = n.getType(n.input(0)).getElementType();
  for (unsigned i = 1; i < 3; ++i)
    if (n.getType(n.input(i)).getElementType() != elt)
      return n.fail("start, limit and delta must have the same element type");
  std::optional<double> start = n.getConstScalar(n.input(0), "start");
  std::optional<double> limit = n.getConstScalar(n.input(1), "limit");
  std::optional<double> delta = n.getConstScalar(n.input(2), "delta");
  if (!start || !limit || !delta)
    return failure();
  if (*delta == 0)
    return n.fail("delta must be non-zero");
  // The values become a constant: refuse counts no model needs (and NaN)
  // before converting the count to an integer.
  constexpr double kMaxRangeElements = 1 << 24;
  double steps = std::ceil((*limit - *start) / *delta);
  if (!(steps <= kMaxRangeElements))
    return n.emitError() << "Range of " << steps
                         << " elements is too large to become a constant "
                            "(at most 16777216)";
  int64_t count = steps > 0 ? (int64_t)steps : 0;
  auto type = RankedTensorType::get({count}, elt);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    if (isa<FloatType>(elt))
      values.push_back(n.b.getFloatAttr(elt, *start + i * *delta));
    else
      values.push_back(
          n.b.getIntegerAttr(elt, (int64_t)*start + i * (int64_t)*delta));
  }
  r.push_back(
      n.b.create<arith::ConstantOp>(n.loc, DenseElementsAttr::get(type, values)));
  return success();
}

LogicalResult importTile(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({})))
    return failure();
  std::optional<SmallVector<int64_t>> repeats =
      n.getConstInts(n.input(1), "repeats");
  if (!repeats)
    return failure();
  for (auto [d, k] : llvm::zip(n.getType(n.input(0)).getShape(), *repeats))
    if (k > 0 && d > std::numeric_limits<int64_t>::max() / k)
      return n.emitError() << "repeats " << formatList(*repeats)
                           << " overflow the dims of "
                           << n.input(0).getType();
  r.push_back(n.create<TileOp>(n.input(0), {n.i64Array("repeats", *repeats)}));
  return success();
}

/// Split becomes one dlc.slice per output.
LogicalResult importSplit(NodeContext &n, Results &r) {
  std::optional<SmallVector<int64_t>> split;
  if (n.opset < 13) {
    if (failed(n.checkInputs(1, 1)) ||
        failed(n.checkKnownAttrs({"axis", "split"})))
      return failure();
    split = n.getInts("split");
  } else {
    if (failed(n.checkInputs(1, 2)) ||
        failed(n.checkKnownAttrs(n.opset < 18
                                     ? ArrayRef<StringRef>{"axis"}
                                     : ArrayRef<StringRef>{"axis",
                                                           "num_outputs"})))
      return failure();
    if (Value v = n.input(1))
      if (!(split = n.getConstInts(v, "split")))
        return failure();
  }
  if (n.hasFailed())
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  int64_t rank = shape.size();
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), rank);
  if (!axis)
    return failure();
  int64_t dim = shape[*axis];
  int64_t outputs = n.node.output_size();
  if (!split) {
    // num_outputs (opset 18) allows a smaller last chunk; otherwise the
    // outputs split the dim evenly.
    int64_t parts = n.getInt("num_outputs", outputs);
    if (parts <= 0 || parts != outputs)
      return n.emitError() << "num_outputs " << parts << " differs from the "
                           << outputs << " outputs";
    int64_t chunk = n.hasAttr("num_outputs") ? (dim + parts - 1) / parts
                                              : dim / parts;
    if (!n.hasAttr("num_outputs") && dim % parts != 0)
      return n.emitError() << "dim " << dim << " does not split evenly into "
                           << parts << " outputs";
    split.emplace();
    for (int64_t i = 0, left = dim; i < parts; ++i) {
      split->push_back(std::min(chunk, left));
      left -= split->back();
    }
  }
  if ((int64_t)split->size() != outputs)
    return n.emitError() << "split has " << split->size() << " entries for "
                         << outputs << " outputs";
  int64_t start = 0;
  for (int64_t size : *split) {
    if (size < 0)
      return n.fail("split sizes must be non-negative");
    if (llvm::AddOverflow(start, size, start))
      return n.fail("split sizes overflow");
  }
  if (start != dim)
    return n.emitError() << "split " << formatList(*split) << " does not sum "
                         << "to dim " << dim;
  start = 0;
  for (int64_t size : *split) {
    Value part = sliceAxis(n, x, *axis, start, start + size);
    start += size;
    if (!part)
      return failure();
    r.push_back(part);
  }
  return success();
}

LogicalResult importPad(NodeContext &n, Results &r) {
  std::optional<SmallVector<int64_t>> pads, axes;
  double value = 0;
  if (n.opset < 11) {
    if (failed(n.checkInputs(1, 1)) ||
        failed(n.checkKnownAttrs({"mode", "pads", "value"})))
      return failure();
    pads = n.getInts("pads");
    value = n.getFloat("value", 0);
    if (!pads)
      return n.fail("attribute 'pads' is required");
  } else {
    if (failed(n.checkInputs(2, n.opset < 18 ? 3 : 4)) ||
        failed(n.checkKnownAttrs({"mode"})))
      return failure();
    if (!(pads = n.getConstInts(n.input(1), "pads")))
      return failure();
    if (Value v = n.input(2)) {
      std::optional<double> c = n.getConstScalar(v, "constant_value");
      if (!c)
        return failure();
      value = *c;
    }
    if (Value v = n.input(3))
      if (!(axes = n.getConstInts(v, "axes")))
        return failure();
  }
  std::string mode = n.getString("mode", "constant");
  if (n.hasFailed())
    return failure();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      !(mode == "wrap" && n.opset >= 19))
    return n.emitError() << "unsupported mode '" << mode << "'";
  Value x = n.input(0);
  int64_t rank = n.getRank(x);
  SmallVector<int64_t> full(2 * rank, 0);
  if (axes) {
    if (pads->size() != 2 * axes->size())
      return n.emitError() << "expected " << 2 * axes->size()
                           << " pads for " << axes->size() << " axes";
    for (auto [k, a] : llvm::enumerate(*axes)) {
      std::optional<int64_t> axis = n.normalizeAxis(a, rank);
      if (!axis)
        return failure();
      full[*axis] = (*pads)[k];
      full[rank + *axis] = (*pads)[axes->size() + k];
    }
  } else {
    if ((int64_t)pads->size() != 2 * rank)
      return n.emitError() << "expected " << 2 * rank << " pads, got "
                           << pads->size();
    full = *pads;
  }
  r.push_back(n.create<PadOp>(x, {n.i64Array("pads", full),
                                  n.attr("mode", n.b.getStringAttr(mode)),
                                  n.f64("value", value)}));
  return success();
}

/// CenterCropPad(input, shape), axes: each axis cropped around its center
/// (dlc.slice) or zero-padded around it (dlc.pad) to the constant shape;
/// the odd element goes to the end, as onnx's reference.
LogicalResult importCenterCropPad(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"axes"})))
    return failure();
  Value x = n.input(0);
  std::optional<SmallVector<int64_t>> sizes =
      n.getConstInts(n.input(1), "shape");
  if (!sizes)
    return failure();
  ArrayRef<int64_t> shape = n.getType(x).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = n.getInts("axes")) {
    for (int64_t a : *attr) {
      std::optional<int64_t> axis = n.normalizeAxis(a, rank, "axes");
      if (!axis)
        return failure();
      axes.push_back(*axis);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (n.hasFailed())
    return failure();
  if (sizes->size() != axes.size())
    return n.emitError() << "shape has " << sizes->size() << " entries for "
                         << axes.size() << " axes";
  SmallVector<int64_t> starts(rank, 0), ends(shape), steps(rank, 1),
      pads(2 * rank, 0);
  for (auto [axis, size] : llvm::zip(axes, *sizes)) {
    if (size < 0)
      return n.emitError() << "shape entries must be >= 0, got " << size;
    int64_t dim = shape[axis];
    if (size < dim) {
      starts[axis] = (dim - size) / 2;
      ends[axis] = starts[axis] + size;
    } else {
      pads[axis] = (size - dim) / 2;
      pads[rank + axis] = size - dim - pads[axis];
    }
  }
  Value y = x;
  if (llvm::any_of(llvm::zip(starts, ends, shape), [](auto t) {
        return std::get<0>(t) != 0 || std::get<1>(t) != std::get<2>(t);
      }))
    y = n.create<SliceOp>(x, {n.i64Array("starts", starts),
                              n.i64Array("ends", ends),
                              n.i64Array("steps", steps)});
  if (y && llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    y = n.create<PadOp>(y, {n.i64Array("pads", pads),
                            n.attr("mode", n.b.getStringAttr("constant")),
                            n.f64("value", 0)});
  r.push_back(y);
  return success(y != nullptr);
}

/// ReverseSequence(input, sequence_lens), batch_axis, time_axis: each
/// batch's first sequence_lens[b] steps reversed, the rest kept: a
/// dlc.gather_elements along the time axis at len - 1 - t where t < len.
LogicalResult importReverseSequence(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"batch_axis", "time_axis"})))
    return failure();
  Value x = n.input(0), lens = n.input(1);
  auto type = n.getType(x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return n.emitError() << "input must have rank >= 2, got " << type;
  std::optional<int64_t> batchAxis =
      n.normalizeAxis(n.getInt("batch_axis", 1), rank, "batch_axis");
  std::optional<int64_t> timeAxis =
      n.normalizeAxis(n.getInt("time_axis", 0), rank, "time_axis");
  if (!batchAxis || !timeAxis || n.hasFailed())
    return failure();
  if (*batchAxis == *timeAxis)
    return n.fail("batch_axis and time_axis must differ");
  int64_t batch = type.getDimSize(*batchAxis),
          steps = type.getDimSize(*timeAxis);
  auto lensType = n.getType(lens);
  if (lensType.getShape() != ArrayRef<int64_t>{batch} ||
      !isBitwiseInteger(lensType.getElementType()))
    return n.emitError() << "sequence_lens must be an integer [" << batch
                         << "] tensor, got " << lensType;
  Type i64 = n.b.getI64Type();
  // len along the batch axis, t along the time axis, 1 elsewhere.
  SmallVector<int64_t> lensShape(rank, 1), timeShape(rank, 1);
  lensShape[*batchAxis] = batch;
  timeShape[*timeAxis] = steps;
  Value len = lensType.getElementType() == i64
                  ? lens
                  : n.create<CastOp>(lens, {}, lensType.clone(i64));
  len = len ? n.reshape(len, lensShape) : Value();
  SmallVector<int64_t> iota(steps);
  std::iota(iota.begin(), iota.end(), 0);
  Value t = n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(RankedTensorType::get(timeShape, i64),
                                    ArrayRef<int64_t>(iota)));
  if (!len)
    return failure();
  Value inside = n.create<LessOp>({t, len});
  Value last = n.create<SubOp>({len, splat(n, {}, i64, 1)});
  Value mirrored = last ? n.create<SubOp>({last, t}) : Value();
  Value index =
      inside && mirrored ? n.create<WhereOp>({inside, mirrored, t}) : Value();
  Value full =
      index ? n.create<ExpandOp>(index, {n.i64Array("shape", type.getShape())})
            : Value();
  r.push_back(
      full ? n.create<GatherElementsOp>({x, full}, {n.i64("axis", *timeAxis)})
           : Value());
  return success(r.back() != nullptr);
}

LogicalResult importTrilu(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, 2)) || failed(n.checkKnownAttrs({"upper"})))
    return failure();
  int64_t k = 0;
  if (Value v = n.input(1)) {
    std::optional<SmallVector<int64_t>> c = n.getConstInts(v, "k");
    if (!c)
      return failure();
    if (c->size() != 1)
      return n.fail("'k' must be a scalar");
    k = c->front();
  }
  Value x = n.input(0);
  r.push_back(n.create<TriluOp>(
      x, {n.boolean("upper", n.getInt("upper", 1) != 0), n.i64("k", k)},
      x.getType()));
  return success();
}

/// CumSum and CumProd: dlc.cumsum / dlc.cumprod along a constant axis.
template <typename OpTy>
LogicalResult importCumulative(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"exclusive", "reverse"})))
    return failure();
  std::optional<SmallVector<int64_t>> a = n.getConstInts(n.input(1), "axis");
  if (!a)
    return failure();
  if (a->size() != 1)
    return n.fail("'axis' must be a scalar");
  Value x = n.input(0);
  std::optional<int64_t> axis = n.normalizeAxis(a->front(), n.getRank(x));
  if (!axis)
    return failure();
  r.push_back(
      n.create<OpTy>(x,
                     {n.i64("axis", *axis),
                      n.boolean("exclusive", n.getInt("exclusive", 0) != 0),
                      n.boolean("reverse", n.getInt("reverse", 0) != 0)},
                     x.getType()));
  return success();
}

/// A rank-1 tensor of ones of `x`'s element type: the neutral LayerNorm
/// scale when InstanceNorm/GroupNorm apply their own scale.
Value onesScale(NodeContext &n, Value x) {
  Type elt = n.getType(x).getElementType();
  return n.b.create<arith::ConstantOp>(
      n.loc, DenseElementsAttr::get(RankedTensorType::get({1}, elt),
                                    n.b.getFloatAttr(elt, 1.0)));
}

/// y * scale + bias with scale and bias reshaped to `paramShape`.
Value scaleAndShift(NodeContext &n, Value y, Value scale, Value bias,
                    ArrayRef<int64_t> paramShape) {
  Value s = n.reshape(scale, paramShape);
  Value b = n.reshape(bias, paramShape);
  if (!y || !s || !b)
    return {};
  Value scaled = n.create<MulOp>({y, s});
  if (!scaled)
    return {};
  return n.create<AddOp>({scaled, b});
}

/// InstanceNormalization: statistics over the spatial dims of each (n, c),
/// i.e. dlc.layer_norm from axis 2, then the per-channel scale and bias.
LogicalResult importInstanceNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) || failed(n.checkKnownAttrs({"epsilon"})))
    return failure();
  Value x = n.input(0);
  auto type = n.getType(x);
  int64_t rank = type.getRank();
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  if (!isa<FloatType>(type.getElementType()))
    return n.emitError() << "input must be a float tensor, got "
                         << x.getType();
  int64_t c = type.getDimSize(1);
  for (unsigned i = 1; i < 3; ++i)
    if (n.getType(n.input(i)).getShape() != ArrayRef<int64_t>{c})
      return n.emitError() << "scale and bias must have shape [" << c << "]";
  Value norm = n.create<LayerNormOp>(
      {x, onesScale(n, x)},
      {n.i64("axis", 2), n.f32("epsilon", n.getFloat("epsilon", 1e-5f))});
  SmallVector<int64_t> paramShape(rank - 1, 1);
  paramShape[0] = c;
  r.push_back(scaleAndShift(n, norm, n.input(1), n.input(2), paramShape));
  return success();
}

/// GroupNormalization: dlc.layer_norm over [N, G, C/G * spatial]; the scale
/// and bias are per group before opset 21 and per channel from 21.
LogicalResult importGroupNorm(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs({"epsilon", "num_groups", "stash_type"})))
    return failure();
  if (!n.hasAttr("num_groups"))
    return n.fail("attribute 'num_groups' is required");
  Value x = n.input(0);
  auto type = n.getType(x);
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  if (!isa<FloatType>(type.getElementType()))
    return n.emitError() << "input must be a float tensor, got "
                         << x.getType();
  int64_t groups = n.getInt("num_groups", 1), c = shape[1];
  if (groups <= 0 || c % groups != 0)
    return n.emitError() << "num_groups " << groups
                         << " must divide the channels " << c;
  int64_t params = n.opset < 21 ? groups : c;
  for (unsigned i = 1; i < 3; ++i)
    if (n.getType(n.input(i)).getShape() != ArrayRef<int64_t>{params})
      return n.emitError() << "scale and bias must have shape [" << params
                           << "]";
  Value grouped =
      n.reshape(x, {shape[0], groups, product(shape.drop_front(1)) / groups});
  if (!grouped)
    return failure();
  Value norm = n.create<LayerNormOp>(
      {grouped, onesScale(n, x)},
      {n.i64("axis", 2), n.f32("epsilon", n.getFloat("epsilon", 1e-5f))});
  if (n.opset < 21) {
    r.push_back(n.reshape(
        scaleAndShift(n, norm, n.input(1), n.input(2), {groups, 1}), shape));
    return success();
  }
  SmallVector<int64_t> paramShape(shape.size() - 1, 1);
  paramShape[0] = c;
  r.push_back(scaleAndShift(n, n.reshape(norm, shape), n.input(1),
                            n.input(2), paramShape));
  return success();
}

/// DepthToSpace and SpaceToDepth: reshape, transpose, reshape.
LogicalResult importDepthSpace(NodeContext &n, Results &r, bool toSpace) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"blocksize", "mode"})))
    return failure();
  if (!n.hasAttr("blocksize"))
    return n.fail("attribute 'blocksize' is required");
  int64_t bs = n.getInt("blocksize", 1);
  std::string mode = n.getString("mode", "DCR");
  if (n.hasFailed())
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> s = n.getType(x).getShape();
  if (s.size() != 4)
    return n.emitError() << "input must be 4-D, got " << x.getType();
  if (bs <= 0)
    return n.fail("blocksize must be positive");
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  SmallVector<int64_t> split, perm, out;
  if (toSpace) {
    if (C % (bs * bs) != 0)
      return n.emitError() << "channels " << C << " are not divisible by "
                           << "blocksize^2 " << bs * bs;
    int64_t c = C / (bs * bs);
    if (mode == "DCR") {
      split = {N, bs, bs, c, H, W};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      split = {N, c, bs, bs, H, W};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return n.emitError() << "unsupported mode '" << mode << "'";
    }
    out = {N, c, H * bs, W * bs};
  } else {
    if (H % bs != 0 || W % bs != 0)
      return n.emitError() << "spatial dims " << H << "x" << W
                           << " are not divisible by blocksize " << bs;
    split = {N, C, H / bs, bs, W / bs, bs};
    // DCR (the default; SpaceToDepth has `mode` since opset 25): blocks
    // outermost in the channels; CRD: channels outermost.
    if (mode == "DCR")
      perm = {0, 3, 5, 1, 2, 4};
    else if (mode == "CRD")
      perm = {0, 1, 3, 5, 2, 4};
    else
      return n.emitError() << "unsupported mode '" << mode << "'";
    out = {N, C * bs * bs, H / bs, W / bs};
  }
  Value v = n.reshape(x, split);
  if (!v || !(v = n.create<TransposeOp>(v, {n.i64Array("perm", perm)})))
    return failure();
  r.push_back(n.reshape(v, out));
  return success();
}

LogicalResult importDepthToSpace(NodeContext &n, Results &r) {
  return importDepthSpace(n, r, /*toSpace=*/true);
}

LogicalResult importSpaceToDepth(NodeContext &n, Results &r) {
  return importDepthSpace(n, r, /*toSpace=*/false);
}

LogicalResult importGatherND(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 2)) ||
      failed(n.checkKnownAttrs({"batch_dims"})))
    return failure();
  r.push_back(n.create<GatherNDOp>(
      {n.input(0), n.input(1)},
      {n.i64("batch_dims", n.getInt("batch_dims", 0))}));
  return success();
}

/// The reduction attribute of ScatterElements/ScatterND (opset 16: none,
/// add, mul; 18: max, min).
std::optional<std::string> readScatterReduction(NodeContext &n) {
  std::string reduction = n.getString("reduction", "none");
  if (n.hasFailed())
    return std::nullopt;
  bool known = reduction == "none" || reduction == "add" || reduction == "mul" ||
               ((reduction == "max" || reduction == "min") && n.opset >= 18);
  if (!known) {
    n.emitError() << "unsupported reduction '" << reduction << "'";
    return std::nullopt;
  }
  return reduction;
}

LogicalResult checkScatterTypes(NodeContext &n) {
  if (n.getType(n.input(0)).getElementType() !=
      n.getType(n.input(2)).getElementType())
    return n.emitError() << "data and updates have different element types: "
                         << n.input(0).getType() << " and "
                         << n.input(2).getType();
  return success();
}

LogicalResult importScatterElements(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs({"axis", "reduction"})) ||
      failed(checkScatterTypes(n)))
    return failure();
  std::optional<std::string> reduction = readScatterReduction(n);
  if (!reduction)
    return failure();
  Value data = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.getRank(data));
  if (!axis)
    return failure();
  r.push_back(n.create<ScatterElementsOp>(
      {data, n.input(1), n.input(2)},
      {n.i64("axis", *axis),
       n.attr("reduction", n.b.getStringAttr(*reduction))}));
  return success();
}

LogicalResult importScatterND(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) ||
      failed(n.checkKnownAttrs({"reduction"})) ||
      failed(checkScatterTypes(n)))
    return failure();
  std::optional<std::string> reduction = readScatterReduction(n);
  if (!reduction)
    return failure();
  r.push_back(n.create<ScatterNDOp>(
      {n.input(0), n.input(1), n.input(2)},
      {n.attr("reduction", n.b.getStringAttr(*reduction))}));
  return success();
}

LogicalResult importOneHot(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(3, 3)) || failed(n.checkKnownAttrs({"axis"})))
    return failure();
  Value indices = n.input(0), values = n.input(2);
  std::optional<double> depth = n.getConstScalar(n.input(1), "depth");
  if (!depth)
    return failure();
  int64_t outRank = n.getRank(indices) + 1;
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", -1), outRank);
  if (!axis)
    return failure();
  Type indexType = n.getType(indices).getElementType();
  if (indexType.isInteger(1))
    return n.emitError() << "indices must be numeric, got "
                         << indices.getType();
  // ONNX allows any numeric indices: floats truncate, narrow ints widen.
  if (!indexType.isSignlessInteger(32) && !indexType.isSignlessInteger(64))
    if (!(indices = n.create<CastOp>(
              indices, {}, n.getType(indices).clone(n.b.getI64Type()))))
      return failure();
  r.push_back(n.create<OneHotOp>(
      {indices, values},
      {n.i64("axis", *axis), n.i64("depth", (int64_t)std::floor(*depth))}));
  return success();
}

/// Einsum: the equation is normalized to an explicit output without
/// ellipses ("..." becomes unused letters, right-aligned across inputs).
LogicalResult importEinsum(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(1, std::numeric_limits<unsigned>::max())) ||
      failed(n.checkKnownAttrs({"equation"})))
    return failure();
  if (!n.hasAttr("equation"))
    return n.fail("attribute 'equation' is required");
  std::string equation;
  for (char c : n.getString("equation", ""))
    if (!isspace((unsigned char)c))
      equation += c;
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.getNumInputs(); ++i) {
    if (!n.input(i))
      return n.emitError() << "input " << i << " is required";
    inputs.push_back(n.input(i));
  }
  StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = lhs.size() != eq.size();
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size())
    return n.emitError() << "equation '" << equation << "' has "
                         << terms.size() << " inputs, the node has "
                         << inputs.size();
  // Letters free for the ellipsis dims.
  std::string unused;
  for (char c = 'A'; c <= 'z'; ++c)
    if (isalpha((unsigned char)c) && equation.find(c) == std::string::npos)
      unused += c;
  SmallVector<std::string> expanded;
  SmallVector<int64_t> ellipsisRanks;
  int64_t maxEllipsis = 0;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    int64_t e = dots == StringRef::npos ? 0 : n.getRank(v) - letters;
    if (e < 0)
      return n.emitError() << "term '" << term << "' has more letters than "
                           << "input rank " << n.getRank(v);
    ellipsisRanks.push_back(dots == StringRef::npos ? -1 : e);
    maxEllipsis = std::max(maxEllipsis, e);
  }
  if ((int64_t)unused.size() < maxEllipsis)
    return n.fail("too many dims under '...'");
  std::string ellipsis = unused.substr(0, maxEllipsis);
  std::string normalized;
  llvm::StringMap<int> counts;
  for (auto [i, term] : llvm::enumerate(terms)) {
    std::string t = term.str();
    if (ellipsisRanks[i] >= 0)
      t.replace(t.find("..."), 3,
                ellipsis.substr(maxEllipsis - ellipsisRanks[i]));
    for (char c : t)
      ++counts[std::string(1, c)];
    normalized += (i ? "," : "") + t;
  }
  std::string out;
  if (explicitOutput) {
    out = rhs.str();
    size_t dots = out.find("...");
    if (dots != std::string::npos)
      out.replace(dots, 3, ellipsis);
  } else {
    // Implicit output: the ellipsis dims, then letters used once, sorted.
    out = ellipsis;
    std::string once;
    for (auto &entry : counts)
      if (entry.second == 1 && ellipsis.find(entry.first()[0]) ==
                                   std::string::npos)
        once += entry.first()[0];
    llvm::sort(once);
    out += once;
  }
  r.push_back(n.create<EinsumOp>(
      inputs,
      {n.attr("equation", n.b.getStringAttr(normalized + "->" + out))}));
  return success();
}

LogicalResult importTopK(NodeContext &n, Results &r) {
  int64_t k;
  if (n.opset < 10) {
    if (failed(n.checkInputs(1, 1)) ||
        failed(n.checkKnownAttrs({"axis", "k"})))
      return failure();
    if (!n.hasAttr("k"))
      return n.fail("attribute 'k' is required");
    k = n.getInt("k", 0);
  } else {
    if (failed(n.checkInputs(2, 2)) ||
        failed(n.checkKnownAttrs({"axis", "largest", "sorted"})))
      return failure();
    std::optional<SmallVector<int64_t>> kv = n.getConstInts(n.input(1), "K");
    if (!kv)
      return failure();
    if (kv->size() != 1)
      return n.fail("'K' must hold one value");
    k = kv->front();
  }
  Value x = n.input(0);
  std::optional<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", -1), n.getRank(x));
  if (!axis)
    return failure();
  // sorted=0 leaves the order unspecified: sorted output satisfies it.
  Value values = n.create<TopKOp>(
      x, {n.i64("axis", *axis), n.i64("k", k),
          n.boolean("largest", n.getInt("largest", 1) != 0)});
  if (!values)
    return failure();
  r.push_back(values);
  r.push_back(values.getDefiningOp()->getResult(1));
  return success();
}

/// Float values of a small constant tensor.
std::optional<SmallVector<double>> getConstFloats(NodeContext &n, Value v,
                                                  StringRef what) {
  Attribute a;
  if (matchPattern(v, m_Constant(&a)))
    if (auto dense = dyn_cast<DenseFPElementsAttr>(a)) {
      SmallVector<double> out;
      for (APFloat f : dense.getValues<APFloat>()) {
        bool losesInfo;
        f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
        out.push_back(f.convertToDouble());
      }
      return out;
    }
  n.emitError() << "'" << what << "' must be a constant float tensor";
  return std::nullopt;
}

LogicalResult importResize(NodeContext &n, Results &r) {
  std::optional<SmallVector<double>> scales, roi;
  std::optional<SmallVector<int64_t>> sizes, axes;
  bool antialias = false;
  std::string ct = "half_pixel", nm = "round_prefer_floor";
  std::string policy = "stretch";
  if (n.opset < 11) {
    // Resize-10: asymmetric coordinates, nearest rounds down.
    if (failed(n.checkInputs(2, 2)) || failed(n.checkKnownAttrs({"mode"})) ||
        !(scales = getConstFloats(n, n.input(1), "scales")))
      return failure();
    ct = "asymmetric";
    nm = "floor";
  } else {
    if (failed(n.checkInputs(1, 4)) ||
        failed(n.checkKnownAttrs(
            {"antialias", "axes", "coordinate_transformation_mode",
             "cubic_coeff_a", "exclude_outside", "extrapolation_value",
             "keep_aspect_ratio_policy", "mode", "nearest_mode"})))
      return failure();
    ct = n.getString("coordinate_transformation_mode", ct);
    nm = n.getString("nearest_mode", nm);
    antialias = n.getInt("antialias", 0) != 0;
    policy = n.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller")
      return n.emitError() << "unsupported keep_aspect_ratio_policy '"
                           << policy << "'";
    if (ct == "tf_crop_and_resize") {
      Value v = n.input(1);
      if (!v || n.getType(v).getNumElements() == 0)
        return n.fail("tf_crop_and_resize needs the roi input");
      if (!(roi = getConstFloats(n, v, "roi")))
        return failure();
    }
    if (Value v = n.input(2))
      if (n.getType(v).getNumElements() > 0 &&
          !(scales = getConstFloats(n, v, "scales")))
        return failure();
    if (Value v = n.input(3))
      if (n.getType(v).getNumElements() > 0 &&
          !(sizes = n.getConstInts(v, "sizes")))
        return failure();
    axes = n.getInts("axes");
  }
  std::string mode = n.getString("mode", "nearest");
  if (n.hasFailed())
    return failure();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return n.emitError() << "unsupported mode '" << mode << "'";
  if (antialias && mode == "nearest")
    return n.fail("antialias applies to linear and cubic modes only");
  double cubicA = n.getFloat("cubic_coeff_a", -0.75f);
  double extrapolation = n.getFloat("extrapolation_value", 0.0f);
  bool excludeOutside = n.getInt("exclude_outside", 0) != 0;
  if (n.hasFailed())
    return failure();
  if (!scales == !sizes)
    return n.fail("exactly one of 'scales' and 'sizes' must be given");
  Value x = n.input(0);
  auto type = n.getType(x);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> dims;
  if (axes) {
    for (int64_t a : *axes) {
      std::optional<int64_t> axis = n.normalizeAxis(a, rank);
      if (!axis)
        return failure();
      dims.push_back(*axis);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  }
  size_t given = scales ? scales->size() : sizes->size();
  if (given != dims.size())
    return n.emitError() << "expected " << dims.size() << " "
                         << (scales ? "scales" : "sizes") << ", got "
                         << given;
  // tf_crop_and_resize's box, normalized: starts of every dim, then ends.
  SmallVector<double> fullRoi(rank, 0.0);
  fullRoi.append(rank, 1.0);
  if (roi) {
    if (roi->size() != 2 * dims.size())
      return n.emitError() << "roi must have " << 2 * dims.size()
                           << " values (starts, then ends), got "
                           << roi->size();
    for (auto [k, d] : llvm::enumerate(dims)) {
      fullRoi[d] = (*roi)[k];
      fullRoi[rank + d] = (*roi)[dims.size() + k];
    }
  }
  SmallVector<double> fullScales(rank, 1.0);
  SmallVector<int64_t> outShape(shape);
  if (sizes && policy != "stretch") {
    // One scale for every resized dim, the smallest (not_larger) or largest
    // (not_smaller) of sizes / input; each size rounds half up.
    std::optional<double> scale;
    for (auto [k, d] : llvm::enumerate(dims)) {
      if ((*sizes)[k] <= 0 || shape[d] == 0)
        return n.fail("sizes must be positive");
      double sc = (double)(*sizes)[k] / shape[d];
      if (!scale || (policy == "not_larger" ? sc < *scale : sc > *scale))
        scale = sc;
    }
    for (int64_t d : dims) {
      fullScales[d] = *scale;
      outShape[d] = (int64_t)std::floor(shape[d] * *scale + 0.5);
      if (outShape[d] <= 0)
        return n.fail("sizes must be positive");
    }
    sizes.reset();
  }
  for (auto [k, d] : llvm::enumerate(dims)) {
    if (!sizes && !scales)
      break;
    if (scales) {
      double sc = (*scales)[k];
      if (!(sc > 0))
        return n.fail("scales must be positive");
      fullScales[d] = sc;
      // tf_crop_and_resize scales the box's extent, not the input's.
      outShape[d] =
          (int64_t)std::floor(shape[d] * (fullRoi[rank + d] - fullRoi[d]) * sc);
    } else {
      int64_t sz = (*sizes)[k];
      if (sz <= 0 || shape[d] == 0)
        return n.fail("sizes must be positive");
      outShape[d] = sz;
      fullScales[d] = (double)sz / shape[d];
    }
  }
  // 8-bit integers (ONNX Runtime's QOperator quantizer resizes quantized
  // tensors as they are) resize in f32, exactly for nearest, and convert
  // back truncating toward zero, as ONNX Runtime does after its float
  // interpolation.
  bool bytes = type.getElementType().isInteger(8);
  if (bytes)
    x = n.create<CastOp>(x, {}, type.clone(n.b.getF32Type()));
  if (!x)
    return failure();
  SmallVector<NamedAttribute> attrs{
      n.attr("mode", n.b.getStringAttr(mode)),
      n.attr("coordinate_transformation_mode", n.b.getStringAttr(ct)),
      n.attr("nearest_mode", n.b.getStringAttr(nm)),
      n.attr("scales", n.b.getDenseF64ArrayAttr(fullScales)),
      n.f64("cubic_coeff_a", cubicA),
      n.boolean("exclude_outside", excludeOutside),
      n.f64("extrapolation_value", extrapolation),
      n.boolean("antialias", antialias)};
  if (roi)
    attrs.push_back(n.attr("roi", n.b.getDenseF64ArrayAttr(fullRoi)));
  Value y = n.create<ResizeOp>(x, attrs, n.getType(x).clone(outShape));
  if (bytes && y)
    y = n.create<CastOp>(y, {}, type.clone(outShape));
  r.push_back(y);
  return success(y != nullptr);
}

/// Upsample(X, scales (opset 9) | scales attribute (7-8)), mode: Resize-10,
/// which ONNX defined as Upsample's successor (asymmetric coordinates,
/// nearest rounding down).
LogicalResult importUpsample(NodeContext &n, Results &r) {
  bool scalesInput = n.opset >= 9;
  if (failed(n.checkInputs(scalesInput ? 2 : 1, scalesInput ? 2 : 1)) ||
      failed(n.checkKnownAttrs(scalesInput
                                   ? ArrayRef<StringRef>{"mode"}
                                   : ArrayRef<StringRef>{"mode", "scales"})))
    return failure();
  Value scales = n.input(1);
  if (!scalesInput) {
    std::optional<SmallVector<float>> attr;
    if (const onnx::AttributeProto *a = n.getAttr("scales"))
      attr = SmallVector<float>(a->floats().begin(), a->floats().end());
    if (!attr || (int64_t)attr->size() != n.getRank(n.input(0)))
      return n.emitError() << "scales must have one value a dim of "
                           << n.input(0).getType();
    scales = f32Constant(n, {(int64_t)attr->size()}, *attr);
  }
  Value y = importFloatOp(n, "Resize", {n.input(0), scales}, {"scales"},
                          /*opset=*/10);
  if (!y)
    return failure();
  r.push_back(y);
  return success();
}

LogicalResult importConvTranspose(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"auto_pad", "dilations", "group",
                                "kernel_shape", "output_padding",
                                "output_shape", "pads", "strides"})))
    return failure();
  Value x = n.input(0), w = n.input(1), bias = n.input(2);
  int64_t rank = n.getRank(x);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3, got " << x.getType();
  if (n.getRank(w) != rank)
    return n.emitError() << "weight " << w.getType()
                         << " must have the input's rank " << rank;
  size_t spatial = rank - 2;
  ArrayRef<int64_t> inShape = n.getType(x).getShape();
  SmallVector<int64_t> kernel(n.getType(w).getShape().drop_front(2));
  if (std::optional<SmallVector<int64_t>> k = n.getInts("kernel_shape"))
    if (*k != kernel)
      return n.emitError() << "kernel_shape " << formatList(*k)
                           << " does not match the weight's spatial dims "
                           << formatList(kernel);
  SmallVector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  SmallVector<int64_t> strides = n.getInts("strides").value_or(ones);
  SmallVector<int64_t> dilations = n.getInts("dilations").value_or(ones);
  SmallVector<int64_t> outPad = n.getInts("output_padding").value_or(zeros);
  std::optional<SmallVector<int64_t>> pads = n.getInts("pads");
  std::optional<SmallVector<int64_t>> outShape = n.getInts("output_shape");
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  if (n.hasFailed())
    return failure();
  if (strides.size() != spatial || dilations.size() != spatial ||
      outPad.size() != spatial)
    return n.emitError() << "expected " << spatial
                         << " strides, dilations and output_padding";
  for (size_t i = 0; i < spatial; ++i)
    if (strides[i] <= 0 || dilations[i] <= 0)
      return n.fail("strides and dilations must be positive");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return n.emitError() << "unsupported auto_pad '" << autoPad << "'";
  SmallVector<int64_t> fullPads(2 * spatial, 0);
  if (outShape && outShape->size() >= spatial) {
    // Pads that produce the requested spatial shape.
    ArrayRef<int64_t> target = ArrayRef<int64_t>(*outShape).take_back(spatial);
    for (size_t i = 0; i < spatial; ++i) {
      int64_t full = strides[i] * (inShape[2 + i] - 1) + outPad[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
      // A negative total (output_shape beyond the full output) gives
      // negative pads that extend the output, mostly at the end (the ONNX
      // reference's floor division; ONNX Runtime agrees in every mode).
      int64_t total = full - target[i];
      bool upper = autoPad == "SAME_UPPER" || total < 0;
      fullPads[i] = upper ? total / 2 : total - total / 2;
      fullPads[spatial + i] = upper ? total - total / 2 : total / 2;
    }
  } else if (outShape) {
    return n.emitError() << "output_shape needs " << spatial << " entries";
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t full = strides[i] * (inShape[2 + i] - 1) + outPad[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, full - inShape[2 + i] * strides[i]);
      bool upper = autoPad == "SAME_UPPER";
      fullPads[i] = upper ? total / 2 : total - total / 2;
      fullPads[spatial + i] = upper ? total - total / 2 : total / 2;
    }
  } else if (autoPad == "NOTSET" && pads) {
    if (pads->size() != 2 * spatial)
      return n.emitError() << "expected " << 2 * spatial << " pads, got "
                           << pads->size();
    fullPads = *pads;
  }
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  r.push_back(n.create<ConvTransposeOp>(
      operands,
      {n.i64Array("strides", strides), n.i64Array("pads", fullPads),
       n.i64Array("dilations", dilations),
       n.i64Array("output_padding", outPad),
       n.i64("group", n.getInt("group", 1))}));
  return success();
}

LogicalResult importConstant(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(0, 0)))
    return failure();
  if (n.node.attribute_size() != 1)
    return n.fail("expected exactly one attribute");
  const onnx::AttributeProto &a = n.node.attribute(0);
  MLIRContext *ctx = n.b.getContext();
  TypedAttr value;
  StringRef attrName = a.name();
  if (attrName == "value") {
    if (a.type() != onnx::AttributeProto::TENSOR &&
        !(a.type() == onnx::AttributeProto::UNDEFINED && a.has_t()))
      return n.fail("attribute 'value' must be a tensor");
    value = convertTensor(ctx, a.t(), n.node.output_size() ? n.node.output(0) : "",
                          [&] { return n.emitError() << "attribute 'value': "; });
    if (!value)
      return failure();
  } else if (attrName == "value_float") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, n.b.getF32Type()), n.getFloat("value_float", 0));
  } else if (attrName == "value_floats") {
    SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, n.b.getF32Type()),
        ArrayRef<float>(v));
  } else if (attrName == "value_int") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, n.b.getI64Type()), n.getInt("value_int", 0));
  } else if (attrName == "value_ints") {
    SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, n.b.getI64Type()),
        ArrayRef<int64_t>(v));
  } else {
    return n.emitError() << "unsupported attribute '" << attrName << "'";
  }
  if (n.hasFailed())
    return failure();
  r.push_back(n.b.create<arith::ConstantOp>(n.loc, value));
  return success();
}

// Sorted by op type: lookupOpImporter does a binary search.
const OpTableEntry kOpTable[] = {
    {"Abs", importUnary<AbsOp>, "dlc.abs"},
    {"Acos", importUnary<AcosOp>, "dlc.acos"},
    {"Acosh", importUnary<AcoshOp>, "dlc.acosh"},
    {"Add", importBinary<AddOp>, "dlc.add; numpy broadcasting, same dtypes"},
    {"AffineGrid", importAffineGrid,
     "dlc.matmul of the constant base grid with theta^T; 2-D and 3-D, "
     "constant size, align_corners"},
    {"And", importLogical<AndOp>, "dlc.and; bool operands, broadcasting"},
    {"ArgMax", importArgReduce<ArgMaxOp>,
     "dlc.arg_max; negative axis, keepdims, select_last_index"},
    {"ArgMin", importArgReduce<ArgMinOp>,
     "dlc.arg_min; negative axis, keepdims, select_last_index"},
    {"Asin", importUnary<AsinOp>, "dlc.asin"},
    {"Asinh", importUnary<AsinhOp>, "dlc.asinh"},
    {"Atan", importUnary<AtanOp>, "dlc.atan"},
    {"Atanh", importUnary<AtanhOp>, "dlc.atanh"},
    {"Attention", importAttention,
     "dlc.matmul/softmax of heads split from 3-D inputs; past key/value "
     "concatenated, bool or float masks (padded), is_causal and windows "
     "offset by the cache or nonpad_kv_seqlen, grouped heads, scale, "
     "softcap, softmax_precision, qk_matmul_output_mode 0-3"},
    {"AveragePool", importAveragePool,
     "dlc.average_pool; auto_pad resolved, ceil_mode, count_include_pad"},
    {"BatchNormalization", importBatchNorm,
     "dlc.batch_norm; inference only (training_mode=0, statistics outputs "
     "unused)"},
    {"BitCast", importCastTo<BitcastOp>,
     "dlc.bitcast; to a type of the same width (bool as its byte)"},
    {"BitShift", importBitShift,
     "dlc.bit_shift; LEFT/RIGHT (arithmetic for signed types), amounts "
     "outside [0, width) give the fill; broadcasting"},
    {"BitwiseAnd", importLogical<AndOp, true>,
     "dlc.and on integers; broadcasting"},
    {"BitwiseNot", importNot<true>, "dlc.not on integers"},
    {"BitwiseOr", importLogical<OrOp, true>,
     "dlc.or on integers; broadcasting"},
    {"BitwiseXor", importLogical<XorOp, true>,
     "dlc.xor on integers; broadcasting"},
    {"BlackmanWindow", importBlackmanWindow,
     "constant; constant size, output_datatype, periodic"},
    {"Cast", importCastTo<CastOp>,
     "dlc.cast; to f16/bf16/f32/f64/bool/int8/uint8/int16/uint16/int32/"
     "uint32/int64/uint64, the float8 types (saturate), int4/uint4/int2/"
     "uint2 (widened to a byte, the low bits kept), float4e2m1 (its code, "
     "nearest even, saturating), float8e8m0 (its code; round_mode)"},
    {"CastLike", importCastLike, "dlc.cast to the element type of target_type"},
    {"Ceil", importUnary<CeilOp>, "dlc.ceil"},
    {"Celu", importCelu, "dlc.celu; alpha"},
    {"CenterCropPad", importCenterCropPad,
     "dlc.slice around the center and/or zero dlc.pad to a constant shape; "
     "axes"},
    {"Clip", importClip,
     "dlc.clip; min/max attributes (<11) or constant inputs; float and "
     "integer; min > max gives max"},
    {"Col2Im", importCol2Im,
     "dlc.conv_transpose of each image's block planes with the identity "
     "kernel, or reshape + transpose when the blocks tile the image; "
     "constant image_shape and block_shape, N-d, dilations, pads, strides"},
    {"Compress", importCompress,
     "dlc.gather of the positions a constant condition selects; axis (none: "
     "the flattened input)"},
    {"Concat", importConcat, "dlc.concat; negative axis"},
    {"Constant", importConstant,
     "arith.constant; value, value_float(s), value_int(s)"},
    {"ConstantOfShape", importConstantOfShape,
     "arith.constant splat; constant shape input, value (default float 0)"},
    {"Conv", importConv,
     "dlc.conv; N-d, auto_pad resolved, group, kernel_shape from weight"},
    {"ConvInteger", importConvInteger,
     "dlc.conv_integer; int8/uint8, zero points scalar or per output "
     "channel, auto_pad"},
    {"ConvTranspose", importConvTranspose,
     "dlc.conv_transpose; N-d, group, output_padding, output_shape and "
     "auto_pad resolved to pads"},
    {"Cos", importUnary<CosOp>, "dlc.cos"},
    {"Cosh", importUnary<CoshOp>, "dlc.cosh"},
    {"CumProd", importCumulative<CumProdOp>,
     "dlc.cumprod; constant axis, exclusive, reverse"},
    {"CumSum", importCumulative<CumSumOp>,
     "dlc.cumsum; constant axis, exclusive, reverse"},
    {"DFT", importDFT,
     "dlc.matmul with the constant DFT matrix (the axis transposed next to "
     "the complex dim); constant dft_length and axis, inverse, onesided "
     "(with inverse: irfft); at most 2^24 matrix coefficients"},
    {"DeformConv", importDeformConv,
     "2-D: each tap's bilinear sample at its position plus the run-time "
     "offset (zeros outside) gathered (dlc.gather_elements), times the "
     "mask, then one grouped dlc.matmul with W; group, offset_group, "
     "strides, pads, dilations, B"},
    {"DepthToSpace", importDepthToSpace,
     "dlc.reshape + dlc.transpose + dlc.reshape; mode DCR/CRD"},
    {"DequantizeLinear", importDequantizeLinear,
     "dlc.dequantize_linear; int8/uint8/int16/uint16/int32 (int4/uint4 "
     "initializers, widened), per tensor or per axis; blocked (block_size): "
     "f32 arithmetic on the expanded scales, folded for constants"},
    {"Div", importBinary<DivOp>, "dlc.div; numpy broadcasting, same dtypes"},
    {"Dropout", importDropout, "forwarded (inference); mask output all true"},
    {"DynamicQuantizeLinear", importDynamicQuantizeLinear,
     "reduce_min/max + dlc.quantize_linear; uint8 as ONNX Runtime"},
    {"Einsum", importEinsum,
     "dlc.einsum; explicit or implicit output, '...' broadcasting"},
    {"Elu", importElu, "dlc.elu; alpha"},
    {"Equal", importCompare<EqualOp>, "dlc.equal; broadcasting, bool result"},
    {"Erf", importUnary<ErfOp>, "dlc.erf"},
    {"Exp", importUnary<ExpOp>, "dlc.exp"},
    {"Expand", importExpand, "dlc.expand; constant shape input"},
    {"EyeLike", importEyeLike,
     "arith.constant; k, dtype (default the input's)"},
    {"Flatten", importFlatten, "dlc.reshape; negative axis"},
    {"Floor", importUnary<FloorOp>, "dlc.floor"},
    {"GRU", importGRU,
     "unrolled over the static sequence: one GEMM of all steps' inputs, then "
     "per step a GEMM of the state and the gates; direction (bidirectional), "
     "layout, sequence_lens, initial states, clip, activations with "
     "alpha/beta, linear_before_reset"},
    {"Gather", importGather, "dlc.gather; negative axis"},
    {"GatherElements", importGatherElements,
     "dlc.gather_elements; negative axis and indices"},
    {"GatherND", importGatherND, "dlc.gather_nd; batch_dims, negative indices"},
    {"Gelu", importGelu, "dlc.gelu; approximate none/tanh"},
    {"Gemm", importGemm, "dlc.gemm; alpha, beta, transA, transB, optional C"},
    {"GlobalAveragePool", importGlobalAveragePool,
     "dlc.reduce_mean over the spatial dims, keepdims"},
    {"GlobalMaxPool", importGlobalMaxPool,
     "dlc.reduce_max over the spatial dims, keepdims"},
    {"Greater", importCompare<GreaterOp>,
     "dlc.greater; broadcasting, bool result"},
    {"GreaterOrEqual", importCompare<GreaterOrEqualOp>,
     "dlc.greater_or_equal; broadcasting, bool result"},
    {"GridSample", importGridSample,
     "dlc.grid_sample; N-d, mode nearest/linear/cubic (bilinear/bicubic "
     "before 20), padding_mode zeros/border/reflection, align_corners"},
    {"GroupNormalization", importGroupNorm,
     "dlc.layer_norm over the groups, then scale and bias (per group "
     "before opset 21, per channel from 21)"},
    {"HammingWindow", importHammingWindow,
     "constant; constant size, output_datatype, periodic"},
    {"HannWindow", importHannWindow,
     "constant; constant size, output_datatype, periodic"},
    {"HardSigmoid", importHardSigmoid, "dlc.hard_sigmoid; alpha, beta"},
    {"HardSwish", importUnary<HardSwishOp>, "dlc.hard_swish"},
    {"Hardmax", importHardmax,
     "dlc.arg_max == the axis' indices, cast; opset < 13 semantics via 2-D "
     "reshape"},
    {"Identity", importIdentity, "forwarded"},
    {"If", importIf,
     "the branch of a constant cond inlined; otherwise both branches and "
     "dlc.where per output (the branches' outputs of one type)"},
    {"InstanceNormalization", importInstanceNorm,
     "dlc.layer_norm from axis 2, then per-channel scale and bias"},
    {"IsInf", importIsInf,
     "dlc.is_inf; detect_negative, detect_positive; float8 as f32"},
    {"IsNaN", importIsNaN, "dlc.is_nan; float8 as f32"},
    {"LRN", importLRN,
     "x / (bias + alpha * average_pool of x^2 over the channels)^beta; size, "
     "alpha, beta, bias"},
    {"LSTM", importLSTM,
     "unrolled over the static sequence: one GEMM of all steps' inputs, then "
     "per step a GEMM of the state and the gates; direction (bidirectional), "
     "layout, sequence_lens, initial states, clip, activations with "
     "alpha/beta, peepholes, input_forget"},
    {"LayerNormalization", importLayerNorm,
     "dlc.layer_norm; Mean/InvStdDev outputs (stash_type) as "
     "reduce_mean chains"},
    {"LeakyRelu", importLeakyRelu, "dlc.leaky_relu; alpha"},
    {"Less", importCompare<LessOp>, "dlc.less; broadcasting, bool result"},
    {"LessOrEqual", importCompare<LessOrEqualOp>,
     "dlc.less_or_equal; broadcasting, bool result"},
    {"LinearAttention", importLinearAttention,
     "the recurrence unrolled over the static sequence in f32 (batched "
     "matmuls a step); linear/gated/delta/gated_delta, per-head or per-key "
     "decay, GQA/MQA, past and present state, scale"},
    {"Log", importUnary<LogOp>, "dlc.log"},
    {"LogSoftmax", importSoftmaxLike<LogSoftmaxOp>,
     "dlc.log_softmax; opset < 13 semantics via 2-D reshape"},
    {"Loop", importLoop,
     "unrolled: constant M and/or cond, every iteration's cond folding to a "
     "constant; carried values of fixed types, scan outputs stacked; at most "
     "4096 iterations"},
    {"LpNormalization", importLpNormalization,
     "dlc.div by dlc.reduce_l1/l2 along axis (zero norms as 1); p 1 or 2"},
    {"LpPool", importLpPool,
     "(average_pool of |x|^p counting pads) * window size, ^(1/p); p, "
     "auto_pad, ceil_mode (as end padding), dilations"},
    {"MatMul", importMatMul, "dlc.matmul; 1-D operands reshaped"},
    {"MatMulInteger", importMatMulInteger,
     "dlc.matmul_integer; int8/uint8, rank >= 2, scalar a zero point"},
    {"Max", importVariadic<MaxOp>, "dlc.max chain; variadic, broadcasting"},
    {"MaxPool", importMaxPool,
     "dlc.max_pool; float, int8, uint8; auto_pad resolved, ceil_mode; the "
     "Indices output (storage_order 0 or 1) as dlc.arg_max over the "
     "windows gathered with constant indices"},
    {"MaxUnpool", importMaxUnpool,
     "dlc.scatter_elements of X at its flat indices into zeros; "
     "kernel_shape, pads, strides, constant output_shape"},
    {"Mean", importVariadic<AddOp, true>,
     "dlc.add chain and dlc.div by the count; variadic, broadcasting"},
    {"MeanVarianceNormalization", importMeanVarianceNormalization,
     "(x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9) over axes"},
    {"MelWeightMatrix", importMelWeightMatrix,
     "constant; constant inputs, output_datatype"},
    {"Min", importVariadic<MinOp>, "dlc.min chain; variadic, broadcasting"},
    {"Mish", importUnary<MishOp>, "dlc.mish"},
    {"Mod", importMod, "dlc.mod; fmod (float fmod=0 as Python %)"},
    {"Mul", importBinary<MulOp>, "dlc.mul; numpy broadcasting, same dtypes"},
    {"Neg", importUnary<NegOp>, "dlc.neg"},
    {"NegativeLogLikelihoodLoss", importNegativeLogLikelihoodLoss,
     "dlc.gather_elements of the target's class, negated, times the class "
     "weights; ignore_index, reduction none/sum/mean (weighted)"},
    {"Not", importNot<>, "dlc.not"},
    {"OneHot", importOneHot, "dlc.one_hot; constant depth, negative axis"},
    {"Or", importLogical<OrOp>, "dlc.or; bool operands, broadcasting"},
    {"PRelu", importPRelu, "dlc.prelu; slope broadcast to X"},
    {"Pad", importPad,
     "dlc.pad; pads/value attributes (<11) or constant inputs, axes (18), "
     "mode constant/reflect/edge/wrap (19)"},
    {"Pow", importPow, "dlc.pow; exponent cast to the base type"},
    {"QLinearConv", importQLinearConv,
     "dlc.conv_integer + dlc.requantize; constant scales, per-channel w"},
    {"QLinearMatMul", importQLinearMatMul,
     "dlc.matmul_integer + dlc.requantize; constant scales, rank >= 2"},
    {"QuantizeLinear", importQuantizeLinear,
     "dlc.quantize_linear; int8/uint8/int16/uint16 (output_dtype), per "
     "tensor or per axis, half to even, saturating; blocked (block_size): "
     "x / scale rounded in f32, then a unit-scale dlc.quantize_linear"},
    {"RMSNormalization", importRMSNormalization,
     "reduce_mean of squares in f32 over the dims from axis; epsilon; "
     "stash_type 1"},
    {"RNN", importRNN,
     "unrolled over the static sequence: one GEMM of all steps' inputs, then "
     "per step a GEMM of the state and the gates; direction (bidirectional), "
     "layout, sequence_lens, initial states, clip, activations with "
     "alpha/beta"},
    {"Range", importRange, "arith.constant; constant start, limit and delta"},
    {"Reciprocal", importUnary<ReciprocalOp>, "dlc.reciprocal"},
    {"ReduceL1", importReduceL1,
     "dlc.reduce_l1; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceL2", importReduceL2,
     "dlc.reduce_l2; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceLogSum", importReduceLogSum,
     "dlc.reduce_log_sum; axes attribute (<18) or constant input, "
     "keepdims, noop_with_empty_axes"},
    {"ReduceLogSumExp", importReduceLogSumExp,
     "dlc.reduce_log_sum_exp; axes attribute (<18) or constant input, "
     "keepdims, noop_with_empty_axes"},
    {"ReduceMax", importReduceMax,
     "dlc.reduce_max; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceMean", importReduceMean,
     "dlc.reduce_mean; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceMin", importReduceMin,
     "dlc.reduce_min; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceProd", importReduceProd,
     "dlc.reduce_prod; axes attribute (<18) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceSum", importReduceSum,
     "dlc.reduce_sum; axes attribute (<13) or constant input, keepdims, "
     "noop_with_empty_axes"},
    {"ReduceSumSquare", importReduceSumSquare,
     "dlc.reduce_sum_square; axes attribute (<18) or constant input, "
     "keepdims, noop_with_empty_axes"},
    {"Relu", importUnary<ReluOp>, "dlc.relu"},
    {"Reshape", importReshape,
     "dlc.reshape; constant shape with 0 and -1, allowzero"},
    {"Resize", importResize,
     "dlc.resize; nearest (all nearest_modes) and linear, scales or sizes, "
     "axes; int8/uint8 through f32, truncated back as ONNX Runtime does; "
     "cubic (cubic_coeff_a, exclude_outside); antialias (linear, cubic); "
     "tf_crop_and_resize (constant roi, extrapolation_value)"},
    {"ReverseSequence", importReverseSequence,
     "dlc.gather_elements along time_axis at len - 1 - t where t < len; "
     "batch_axis, time_axis"},
    {"RoiAlign", importRoiAlign,
     "bilinear samples at coordinates computed from the run-time boxes, "
     "their neighbours gathered (dlc.gather_elements), weighted and "
     "reduced; avg/max, half_pixel/output_half_pixel, output_height/width, "
     "sampling_ratio > 0, spatial_scale"},
    {"RotaryEmbedding", importRotaryEmbedding,
     "dlc.mul/sub/add of the halves or interleaved pairs with the caches "
     "(gathered at position_ids); 3-D (num_heads) or 4-D, "
     "rotary_embedding_dim"},
    {"Round", importUnary<RoundOp>, "dlc.round; half to even"},
    {"STFT", importSTFT,
     "dlc.gather of the frames + dlc.matmul with the constant DFT matrix "
     "(a constant window folded in); constant frame_step and frame_length, "
     "onesided"},
    {"Scan", importScan,
     "unrolled over the scan axis (opset 9+): scan_input/output axes and "
     "directions; at most 4096 iterations"},
    {"Scatter", importScatterElements,
     "dlc.scatter_elements (ScatterElements before opset 11); negative axis"},
    {"ScatterElements", importScatterElements,
     "dlc.scatter_elements; negative axis, reduction none/add/mul/max/min"},
    {"ScatterND", importScatterND,
     "dlc.scatter_nd; reduction none/add/mul/max/min"},
    {"Selu", importSelu, "dlc.selu; alpha, gamma"},
    {"Shape", importShape, "dlc.shape (folds to a constant); start/end"},
    {"Shrink", importShrink, "dlc.less/greater/where; lambd, bias"},
    {"Sigmoid", importUnary<SigmoidOp>, "dlc.sigmoid"},
    {"Sign", importUnary<SignOp>, "dlc.sign"},
    {"SimplifiedLayerNormalization", importSimplifiedLayerNorm,
     "ONNX Runtime's RMS normalization (not ONNX's): reduce_mean of squares "
     "in f32; axis, epsilon; the inverse root as output 1"},
    {"Sin", importUnary<SinOp>, "dlc.sin"},
    {"Sinh", importUnary<SinhOp>, "dlc.sinh"},
    {"Size", importSize, "arith.constant int64 element count"},
    {"Slice", importSlice,
     "dlc.slice; attributes (<10) or constant inputs, negative steps, "
     "clamped"},
    {"Softmax", importSoftmaxLike<SoftmaxOp>,
     "dlc.softmax; opset < 13 semantics via 2-D reshape"},
    {"SoftmaxCrossEntropyLoss", importSoftmaxCrossEntropyLoss,
     "dlc.log_softmax over the classes (output 1), then as "
     "NegativeLogLikelihoodLoss"},
    {"Softplus", importUnary<SoftplusOp>, "dlc.softplus"},
    {"Softsign", importUnary<SoftsignOp>, "dlc.softsign"},
    {"SpaceToDepth", importSpaceToDepth,
     "dlc.reshape + dlc.transpose + dlc.reshape; mode DCR or CRD"},
    {"Split", importSplit,
     "one dlc.slice per output; split attribute (<13) or constant input, "
     "num_outputs (18), even split"},
    {"Sqrt", importUnary<SqrtOp>, "dlc.sqrt"},
    {"Squeeze", importSqueeze,
     "dlc.reshape; axes attribute (<13) or constant input"},
    {"Sub", importBinary<SubOp>, "dlc.sub; numpy broadcasting, same dtypes"},
    {"Sum", importVariadic<AddOp>, "dlc.add chain; variadic, broadcasting"},
    {"SwiGLU", importSwiGLU, "x * sigmoid(alpha * x) * b; alpha"},
    {"Swish", importSwish, "x * sigmoid(alpha * x); alpha"},
    {"Tan", importUnary<TanOp>, "dlc.tan"},
    {"Tanh", importUnary<TanhOp>, "dlc.tanh"},
    {"TensorScatter", importTensorScatter,
     "dlc.scatter_elements at write_indices + iota along axis (modulo the "
     "cache's length when circular)"},
    {"ThresholdedRelu", importThresholdedRelu, "dlc.thresholded_relu; alpha"},
    {"Tile", importTile, "dlc.tile; constant repeats"},
    {"TopK", importTopK,
     "dlc.top_k; k attribute (<10) or constant input, largest"},
    {"Transpose", importTranspose, "dlc.transpose; default perm reverses"},
    {"Trilu", importTrilu, "dlc.trilu; upper, constant k"},
    {"Unsqueeze", importUnsqueeze,
     "dlc.reshape; axes attribute (<13) or constant input"},
    {"Upsample", importUpsample,
     "Resize-10 (asymmetric, nearest rounds down); scales input (opset 9) "
     "or attribute (7-8), mode nearest/linear"},
    {"Where", importWhere, "dlc.where; three-way broadcasting"},
    {"Xor", importLogical<XorOp>, "dlc.xor; bool operands, broadcasting"},
};
} // namespace

ArrayRef<OpTableEntry> onnx_import::getOpTable() { return kOpTable; }

OpImporter onnx_import::lookupOpImporter(StringRef opType) {
  assert(llvm::is_sorted(kOpTable,
                         [](const OpTableEntry &a, const OpTableEntry &b) {
                           return a.opType < b.opType;
                         }) &&
         "kOpTable must be sorted");
  auto *it = llvm::lower_bound(kOpTable, opType,
                               [](const OpTableEntry &e, StringRef name) {
                                 return e.opType < name;
                               });
  if (it != std::end(kOpTable) && it->opType == opType)
    return it->importer;
  return nullptr;
}

ArrayRef<OpTableEntry> onnx_import::getPreviewOpTable() {
  static const OpTableEntry table[] = {
      {"FlexAttention", importFlexAttention,
       "onnx's reference: 4-D Q, K, V, grouped KV heads repeated, Q and K "
       "scaled by sqrt(scale), the score_mod and prob_mod graphs inline on "
       "the [B, H, L, S] scores and probabilities, softmax_precision (f32 "
       "for f16/bf16)"},
  };
  return table;
}

OpImporter onnx_import::lookupOpImporter(StringRef domain, StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return lookupOpImporter(opType);
  if (domain != kMicrosoftDomain && domain != kPreviewDomain)
    return nullptr;
  ArrayRef<OpTableEntry> table =
      domain == kPreviewDomain ? getPreviewOpTable() : getMicrosoftOpTable();
  const auto *it = llvm::find_if(
      table, [&](const OpTableEntry &e) { return e.opType == opType; });
  return it == table.end() ? nullptr : it->importer;
}

SmallVector<OnnxOpSupport> mlir::dlc::getSupportedOnnxOps() {
  SmallVector<OnnxOpSupport> out;
  for (const OpTableEntry &e : kOpTable)
    out.push_back({e.opType, "", e.notes});
  for (const OpTableEntry &e : getMicrosoftOpTable())
    out.push_back({e.opType, kMicrosoftDomain, e.notes});
  for (const OpTableEntry &e : getPreviewOpTable())
    out.push_back({e.opType, kPreviewDomain, e.notes});
  return out;
}
