//===- LossImporter.cpp - ONNX NegativeLogLikelihoodLoss and friends ------===//
//
// The loss operators exported with a model's head (evaluation graphs,
// distillation), composed from dlc ops after onnx's reference: the
// target's entry of each position gathered along the class dim, negated,
// weighted by the class weights, ignore_index positions zeroed, then
// reduced (a weighted mean divides by the weights' sum).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/DlcDialect.h"

#include <numeric>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

/// The loss of log-probabilities `x` [N, C, d...] at `target` [N, d...]
/// with optional class `weight` [C]; attributes ignore_index and reduction
/// read from the node.
Value negativeLogLikelihood(NodeContext &n, Value x, Value target,
                            Value weight) {
  auto xType = NodeContext::getType(x), tType = NodeContext::getType(target);
  Type elt = xType.getElementType();
  if (!isa<FloatType>(elt)) {
    n.emitError() << "input must be a float tensor, got " << xType;
    return {};
  }
  int64_t rank = xType.getRank();
  SmallVector<int64_t> expected{xType.getDimSize(0)};
  llvm::append_range(expected, xType.getShape().drop_front(2));
  if (rank < 2 || tType.getShape() != ArrayRef<int64_t>(expected) ||
      !tType.getElementType().isSignlessInteger() ||
      tType.getElementType().isInteger(1)) {
    n.emitError() << "target must be an integer tensor of the input's shape "
                     "without the class dim (input "
                  << xType << "), got " << tType;
    return {};
  }
  int64_t classes = xType.getDimSize(1);
  if (weight &&
      NodeContext::getType(weight) != RankedTensorType::get({classes}, elt)) {
    n.emitError() << "weight must be " << RankedTensorType::get({classes}, elt)
                  << ", got " << weight.getType();
    return {};
  }
  std::string reduction = n.getString("reduction", "mean");
  std::optional<int64_t> ignore;
  if (n.hasAttr("ignore_index"))
    ignore = n.getInt("ignore_index", 0);
  if (n.hasFailed())
    return {};
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    n.emitError() << "reduction must be none, sum or mean, got '" << reduction
                  << "'";
    return {};
  }

  // Positions whose target is ignore_index gather class 0 and count 0.
  Value valid, index = target;
  if (ignore) {
    Value ignored = splat(n, {}, tType.getElementType(), (double)*ignore);
    Value same = n.create<EqualOp>({target, ignored});
    valid = same ? n.create<NotOp>(same, {}, same.getType()) : Value();
    index = valid ? n.create<WhereOp>(
                        {valid, target, zeros(n, {}, tType.getElementType())})
                  : Value();
    if (!index)
      return {};
  }
  SmallVector<int64_t> pickShape(tType.getShape());
  pickShape.insert(pickShape.begin() + 1, 1);
  Value pickIndex = n.reshape(index, pickShape);
  Value picked =
      pickIndex ? n.create<GatherElementsOp>({x, pickIndex}, {n.i64("axis", 1)})
                : Value();
  picked = picked ? n.reshape(picked, tType.getShape()) : Value();
  Value loss = picked ? n.create<NegOp>(picked, {}, picked.getType()) : Value();
  // The per-position weights: the target's class weight, 0 where ignored.
  Value positionWeight;
  if (weight)
    positionWeight = n.create<GatherOp>({weight, index}, {n.i64("axis", 0)});
  if (ignore) {
    Value zero = zeros(n, {}, elt);
    positionWeight =
        positionWeight
            ? n.create<WhereOp>({valid, positionWeight, zero})
            : n.create<CastOp>(valid, {},
                               RankedTensorType::get(tType.getShape(), elt));
  }
  if (!loss || ((weight || ignore) && !positionWeight))
    return {};
  if (positionWeight)
    loss = n.create<MulOp>({loss, positionWeight});
  if (!loss || reduction == "none")
    return loss;
  SmallVector<int64_t> all(tType.getRank());
  std::iota(all.begin(), all.end(), 0);
  SmallVector<NamedAttribute> attrs{n.i64Array("axes", all),
                                    n.boolean("keepdims", false)};
  if (reduction == "sum")
    return n.create<ReduceSumOp>(loss, attrs);
  if (!positionWeight)
    return n.create<ReduceMeanOp>(loss, attrs);
  Value total = n.create<ReduceSumOp>(loss, attrs);
  Value count = n.create<ReduceSumOp>(positionWeight, attrs);
  return total && count ? n.create<DivOp>({total, count}) : Value();
}

} // namespace

/// NegativeLogLikelihoodLoss(input, target, weight), ignore_index,
/// reduction.
LogicalResult
onnx_import::importNegativeLogLikelihoodLoss(NodeContext &n,
                                             SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"ignore_index", "reduction"})))
    return failure();
  Value loss = negativeLogLikelihood(n, n.input(0), n.input(1), n.input(2));
  if (!loss)
    return failure();
  r.push_back(loss);
  return success();
}

/// SoftmaxCrossEntropyLoss(scores, labels, weights), ignore_index,
/// reduction: the loss of LogSoftmax(scores) over the class dim, which is
/// the optional second output.
LogicalResult
onnx_import::importSoftmaxCrossEntropyLoss(NodeContext &n,
                                           SmallVectorImpl<Value> &r) {
  if (failed(n.checkInputs(2, 3)) ||
      failed(n.checkKnownAttrs({"ignore_index", "reduction"})))
    return failure();
  Value scores = n.input(0);
  auto type = NodeContext::getType(scores);
  if (!isa<FloatType>(type.getElementType()) || type.getRank() < 2)
    return n.emitError() << "scores must be a float tensor of rank >= 2, got "
                         << type;
  Value logProb = n.create<LogSoftmaxOp>(scores, {n.i64("axis", 1)}, type);
  Value loss = logProb
                   ? negativeLogLikelihood(n, logProb, n.input(1), n.input(2))
                   : Value();
  if (!loss)
    return failure();
  r.append({loss, logProb});
  return success();
}
