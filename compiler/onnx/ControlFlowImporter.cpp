//===- ControlFlowImporter.cpp - ONNX If, Loop and Scan -------------------===//
//
// Control flow in a compiler of static shapes (docs/architecture.md,
// *Control flow*): the subgraphs import inline through the graph walker's
// hook (NodeContext::importGraph). If takes the branch of a constant
// condition, or computes both and selects when their outputs agree in type;
// Loop unrolls a constant trip count while its condition folds to true;
// Scan unrolls over the scan axis. Nothing here builds a region: the
// results are straight-line dlc ops that fusion and planning see whole.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

/// The value of a one-element constant, or nullopt.
std::optional<int64_t> constantScalar(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  if (attr.getElementType().isIntOrIndex())
    return (*attr.getValues<APInt>().begin()).getSExtValue();
  return std::nullopt;
}

/// Threads one iteration's body outputs: `outs` starts with the new
/// `states` (each keeping its type; `stateName` names them in the error),
/// the rest are the iteration's scan outputs, appended to `scans` (each
/// keeping its type too).
LogicalResult threadIteration(NodeContext &n, ArrayRef<Value> outs,
                              MutableArrayRef<Value> states,
                              SmallVectorImpl<SmallVector<Value>> &scans,
                              StringRef stateName, int64_t iteration) {
  for (auto [i, v] : llvm::enumerate(outs.take_front(states.size()))) {
    if (v.getType() != states[i].getType())
      return n.emitError() << stateName << " " << i << " changes from "
                           << states[i].getType() << " to " << v.getType()
                           << " in iteration " << iteration;
    states[i] = v;
  }
  ArrayRef<Value> scanValues = outs.drop_front(states.size());
  if (scans.empty())
    scans.resize(scanValues.size());
  for (auto [i, v] : llvm::enumerate(scanValues)) {
    if (!scans[i].empty() && scans[i][0].getType() != v.getType())
      return n.emitError() << "scan output " << i << " changes from "
                           << scans[i][0].getType() << " to " << v.getType()
                           << " in iteration " << iteration;
    scans[i].push_back(v);
  }
  return success();
}

/// `parts` (each of one shape) stacked along a new dim `axis`.
Value stack(NodeContext &n, ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value p : parts) {
    SmallVector<int64_t> shape(NodeContext::getType(p).getShape());
    shape.insert(shape.begin() + axis, 1);
    Value e = n.reshape(p, shape);
    if (!e)
      return {};
    expanded.push_back(e);
  }
  if (expanded.size() == 1)
    return expanded[0];
  return n.create<ConcatOp>(expanded, {n.i64("axis", axis)});
}

} // namespace

/// If(cond), then_branch, else_branch.
LogicalResult onnx_import::importIf(NodeContext &n, SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"then_branch", "else_branch"})))
    return failure();
  Value cond = n.input(0);
  auto condType = NodeContext::getType(cond);
  if (!condType.getElementType().isInteger(1) || condType.getNumElements() != 1)
    return n.emitError() << "cond must be one bool, got " << condType;
  if (std::optional<int64_t> c = constantScalar(cond)) {
    FailureOr<SmallVector<Value>> taken =
        n.importGraph(*c ? "then_branch" : "else_branch", {});
    if (failed(taken))
      return failure();
    r.append(*taken);
    return success();
  }
  // A condition known only at run time: both branches, then a select per
  // output (the ops are pure, so computing the untaken one is harmless).
  FailureOr<SmallVector<Value>> thenValues = n.importGraph("then_branch", {});
  if (failed(thenValues))
    return failure();
  FailureOr<SmallVector<Value>> elseValues = n.importGraph("else_branch", {});
  if (failed(elseValues))
    return failure();
  if (thenValues->size() != elseValues->size())
    return n.emitError() << "the branches have " << thenValues->size()
                         << " and " << elseValues->size() << " outputs";
  Value scalarCond = n.reshape(cond, {});
  if (!scalarCond)
    return failure();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(*thenValues, *elseValues))) {
    auto [t, e] = pair;
    if (t.getType() != e.getType())
      return n.emitError() << "output " << i << " is " << t.getType()
                           << " in then_branch and " << e.getType()
                           << " in else_branch, and cond is not a constant";
    Value y = n.create<WhereOp>({scalarCond, t, e});
    if (!y)
      return failure();
    r.push_back(y);
  }
  return success();
}

/// Loop(M, cond, v_initial...), body: unrolled M times (a constant), or
/// while cond folds to true. Every iteration's condition must fold: an exit
/// decided at run time would make the scan outputs' length dynamic.
LogicalResult onnx_import::importLoop(NodeContext &n,
                                      SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(2, 2 + 4096, {})) ||
      failed(n.checkKnownAttrs({"body"})))
    return failure();
  Value tripCount = n.input(0), cond = n.input(1);
  std::optional<int64_t> trips;
  if (tripCount && !(trips = constantScalar(tripCount)))
    return n.fail("the trip count M must be a constant (dlc unrolls loops)");
  bool running = true;
  if (cond) {
    std::optional<int64_t> c = constantScalar(cond);
    if (!c)
      return n.fail("the initial cond must be a constant (dlc unrolls loops)");
    running = *c != 0;
  }
  if (!trips && !cond)
    return n.fail("a loop with neither M nor cond never ends");
  int64_t limit = trips ? std::max<int64_t>(*trips, 0) : INT64_MAX;
  SmallVector<Value> carried;
  for (unsigned i = 2; i < n.getNumInputs(); ++i) {
    if (!n.input(i))
      return n.emitError() << "loop-carried input " << i - 2 << " is absent";
    carried.push_back(n.input(i));
  }
  Type i64 = n.b.getI64Type(), i1 = n.b.getI1Type();
  SmallVector<SmallVector<Value>> scans;
  int64_t iteration = 0;
  for (; running && iteration < limit; ++iteration) {
    if (iteration == kMaxUnrolledIterations)
      return n.emitError() << "the loop runs more than "
                           << kMaxUnrolledIterations
                           << " iterations, too many to unroll";
    SmallVector<Value> args{splat(n, {}, i64, (double)iteration),
                            splat(n, {}, i1, 1)};
    args.append(carried);
    FailureOr<SmallVector<Value>> outs = n.importGraph("body", args);
    if (failed(outs))
      return failure();
    if (outs->size() < 1 + carried.size())
      return n.emitError() << "body has " << outs->size()
                           << " outputs, expected at least "
                           << 1 + carried.size();
    std::optional<int64_t> next = constantScalar((*outs)[0]);
    if (!next)
      return n.emitError()
             << "the body's cond does not fold to a constant in iteration "
             << iteration << " (dlc unrolls loops: exits must be static)";
    running = *next != 0;
    if (failed(threadIteration(n, ArrayRef<Value>(*outs).drop_front(), carried,
                               scans, "loop-carried value", iteration)))
      return failure();
  }
  r.append(carried);
  // The body's scan outputs, stacked; without iterations their shapes are
  // unknown.
  int64_t numScans = n.node.output_size() - (int64_t)carried.size();
  if (numScans > 0 && iteration == 0)
    return n.fail("the loop runs no iterations, so its scan outputs have no "
                  "shape");
  for (const SmallVector<Value> &parts : scans) {
    Value y = stack(n, parts, 0);
    if (!y)
      return failure();
    r.push_back(y);
  }
  return success();
}

/// Scan(initial_state..., scan_input...), body, num_scan_inputs, axes and
/// directions (opset 9+): unrolled over the scan axis.
LogicalResult onnx_import::importScan(NodeContext &n,
                                      SmallVectorImpl<Value> &r) {
  if (failed(n.checkKnownAttrs({"body", "num_scan_inputs", "scan_input_axes",
                                "scan_input_directions", "scan_output_axes",
                                "scan_output_directions"})))
    return failure();
  if (n.opset < 9)
    return n.fail("Scan before opset 9 (batched, with sequence_lens) is not "
                  "supported");
  if (!n.hasAttr("num_scan_inputs"))
    return n.fail("attribute 'num_scan_inputs' is required");
  int64_t numScanInputs = n.getInt("num_scan_inputs", 0);
  if (n.hasFailed())
    return failure();
  int64_t numInputs = n.getNumInputs();
  if (numScanInputs < 1 || numScanInputs > numInputs)
    return n.emitError() << "num_scan_inputs must be in [1, " << numInputs
                         << "], got " << numScanInputs;
  int64_t numStates = numInputs - numScanInputs;
  for (int64_t i = 0; i < numInputs; ++i)
    if (!n.input(i))
      return n.emitError() << "input " << i << " is absent";
  auto readList = [&](StringRef attrName,
                      int64_t count) -> std::optional<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = n.getInts(attrName);
    if (n.hasFailed())
      return std::nullopt;
    if (!v)
      return SmallVector<int64_t>(count, 0);
    if ((int64_t)v->size() != count) {
      n.emitError() << "attribute '" << attrName << "' must have " << count
                    << " entries, got " << v->size();
      return std::nullopt;
    }
    return v;
  };
  std::optional<SmallVector<int64_t>> inAxes =
      readList("scan_input_axes", numScanInputs);
  std::optional<SmallVector<int64_t>> inDirs =
      readList("scan_input_directions", numScanInputs);
  if (!inAxes || !inDirs)
    return failure();

  // Each scan input's axis and the common length.
  SmallVector<Value> states, scanInputs;
  for (int64_t i = 0; i < numStates; ++i)
    states.push_back(n.input(i));
  int64_t length = -1;
  for (int64_t j = 0; j < numScanInputs; ++j) {
    Value x = n.input(numStates + j);
    std::optional<int64_t> axis =
        n.normalizeAxis((*inAxes)[j], n.getRank(x), "scan_input_axes");
    if (!axis)
      return failure();
    (*inAxes)[j] = *axis;
    int64_t dim = n.getType(x).getDimSize(*axis);
    if (length >= 0 && dim != length)
      return n.emitError() << "scan inputs have lengths " << length << " and "
                           << dim << " along their axes";
    length = dim;
    scanInputs.push_back(x);
  }
  if (length > kMaxUnrolledIterations)
    return n.emitError() << "the scan runs " << length
                         << " iterations, more than the "
                         << kMaxUnrolledIterations << " dlc unrolls";

  SmallVector<SmallVector<Value>> scans;
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<Value> args(states);
    for (auto [j, x] : llvm::enumerate(scanInputs)) {
      int64_t axis = (*inAxes)[j];
      int64_t at = (*inDirs)[j] ? length - 1 - t : t;
      Value slice = sliceAxis(n, x, axis, at, at + 1);
      SmallVector<int64_t> sliceShape(n.getType(x).getShape());
      sliceShape.erase(sliceShape.begin() + axis);
      Value arg = slice ? n.reshape(slice, sliceShape) : Value();
      if (!arg)
        return failure();
      args.push_back(arg);
    }
    FailureOr<SmallVector<Value>> outs = n.importGraph("body", args);
    if (failed(outs))
      return failure();
    if ((int64_t)outs->size() < numStates)
      return n.emitError() << "body has " << outs->size()
                           << " outputs, expected at least " << numStates;
    if (failed(threadIteration(n, *outs, states, scans, "state", t)))
      return failure();
  }
  r.append(states);
  int64_t numScanOutputs = n.node.output_size() - numStates;
  if (numScanOutputs > 0 && length == 0)
    return n.fail("the scan runs no iterations, so its outputs have no shape");
  std::optional<SmallVector<int64_t>> outAxes =
      readList("scan_output_axes", scans.size());
  std::optional<SmallVector<int64_t>> outDirs =
      readList("scan_output_directions", scans.size());
  if (!outAxes || !outDirs)
    return failure();
  for (auto [k, parts] : llvm::enumerate(scans)) {
    std::optional<int64_t> axis = n.normalizeAxis(
        (*outAxes)[k], n.getRank(parts[0]) + 1, "scan_output_axes");
    if (!axis)
      return failure();
    if ((*outDirs)[k])
      std::reverse(parts.begin(), parts.end());
    Value y = stack(n, parts, *axis);
    if (!y)
      return failure();
    r.push_back(y);
  }
  return success();
}
