//===- DlcFolders.cpp - constant folding of dlc ops -------------*- C++ -*-===//
//
// Exporters compute shapes at run time (Shape -> Gather -> Concat -> Reshape).
// With static shapes these subgraphs are constant: the folders below evaluate
// them on small constants so that the importer, which builds ops with
// createOrFold, never emits them. Large tensors (weights) are never folded.
//
//===----------------------------------------------------------------------===//

#include "dialects/dlc/DlcDialect.h"
#include "llvm/ADT/APSInt.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Only shape-sized constants are folded; weights stay resources.
constexpr int64_t kMaxFoldElements = 4096;

/// A constant of at most kMaxFoldElements elements: inline, or a resource
/// blob of i64 or i1 (the importer inlines only a few elements). Those are
/// index and mask tensors, never weights: BertModel's position_ids buffer
/// and the ranges and comparisons of its attention mask.
DenseElementsAttr smallConstant(Attribute attr) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(attr))
    return dense.getNumElements() <= kMaxFoldElements ? dense
                                                      : DenseElementsAttr();
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(attr);
  if (!resource || resource.getType().getNumElements() > kMaxFoldElements ||
      !(resource.getElementType().isInteger(64) ||
        resource.getElementType().isInteger(1)))
    return {};
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  bool splat = false;
  if (!blob || !DenseElementsAttr::isValidRawBuffer(resource.getType(),
                                                    blob->getData(), splat))
    return {};
  return DenseElementsAttr::getFromRawBuffer(resource.getType(),
                                             blob->getData());
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `fn(resultIndex, multiIndex)` for every element of `shape`.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t linear = 0; linear < total; ++linear) {
    fn(linear, ArrayRef<int64_t>(idx));
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

int64_t linearize(ArrayRef<int64_t> idx, ArrayRef<int64_t> strides) {
  int64_t l = 0;
  for (auto [i, s] : llvm::zip(idx, strides))
    l += i * s;
  return l;
}

/// Index of `resultIdx` in a broadcast operand of shape `shape`.
int64_t broadcastIndex(ArrayRef<int64_t> resultIdx, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx;
  size_t offset = resultIdx.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    idx.push_back(shape[i] == 1 ? 0 : resultIdx[offset + i]);
  return linearize(idx, stridesOf(shape));
}

/// Folds an integer binary op elementwise with broadcasting.
template <typename Fn>
OpFoldResult foldIntBinary(ArrayRef<Attribute> operands, RankedTensorType type,
                           Fn fn) {
  auto lhs = smallConstant(operands[0]), rhs = smallConstant(operands[1]);
  if (!lhs || !rhs || !isa<IntegerType>(type.getElementType()))
    return {};
  auto lv = llvm::to_vector(lhs.getValues<APInt>());
  auto rv = llvm::to_vector(rhs.getValues<APInt>());
  auto ls = lhs.getType().getShape(), rs = rhs.getType().getShape();
  SmallVector<APInt> out;
  bool ok = true;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    std::optional<APInt> v =
        fn(lv[broadcastIndex(idx, ls)], rv[broadcastIndex(idx, rs)]);
    if (!v)
      ok = false;
    else
      out.push_back(*v);
  });
  if (!ok)
    return {};
  return DenseElementsAttr::get(type, out);
}

/// Folds an elementwise op over small constant operands that broadcast to
/// `type`. `fn` maps one element of each operand (IntegerAttr or FloatAttr)
/// to the result element as an APInt or APFloat wrapped in an Attribute of
/// the result element type, or null to give up.
template <typename Fn>
OpFoldResult foldElementwise(ArrayRef<Attribute> operands,
                             RankedTensorType type, Fn fn) {
  SmallVector<SmallVector<Attribute>> values;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Attribute a : operands) {
    auto dense = smallConstant(a);
    if (!dense)
      return {};
    values.push_back(llvm::to_vector(dense.getValues<Attribute>()));
    shapes.push_back(dense.getType().getShape());
  }
  if (type.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<Attribute> out;
  bool ok = true;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    if (!ok)
      return;
    SmallVector<Attribute> args;
    for (size_t i = 0; i < values.size(); ++i)
      args.push_back(values[i][broadcastIndex(idx, shapes[i])]);
    Attribute r = fn(args);
    if (!r)
      ok = false;
    else
      out.push_back(r);
  });
  if (!ok)
    return {};
  return DenseElementsAttr::get(type, out);
}

/// Folds an f32 op whose result has one element (a scale computed from a
/// Shape, as torch's SDPA export writes `sqrt(1 / sqrt(d))`): `fn` on the
/// operands' values as floats. Only IEEE-exact operations use it (+, *, /,
/// sqrt round correctly on the host and the GPU alike), so the folded
/// constant is what the kernel would have computed.
template <typename Fn>
OpFoldResult foldF32Scalar(ArrayRef<Attribute> operands, RankedTensorType type,
                           Fn fn) {
  if (!type.getElementType().isF32() || type.getNumElements() != 1)
    return {};
  SmallVector<float> args;
  for (Attribute a : operands) {
    auto dense = dyn_cast_or_null<DenseFPElementsAttr>(a);
    if (!dense || !dense.getElementType().isF32() ||
        dense.getNumElements() != 1)
      return {};
    args.push_back(*dense.getValues<float>().begin());
  }
  return DenseElementsAttr::get(type, fn(args));
}

/// Folds a comparison; `pred` gets the ordering of the two elements
/// (-1, 0, 1) or std::nullopt when they are unordered (NaN).
template <typename Pred>
OpFoldResult foldCompare(ArrayRef<Attribute> operands, RankedTensorType type,
                         Pred pred) {
  Builder b(type.getContext());
  return foldElementwise(operands, type, [&](ArrayRef<Attribute> a) {
    std::optional<int> order;
    if (auto lf = dyn_cast<FloatAttr>(a[0])) {
      APFloat::cmpResult c =
          lf.getValue().compare(cast<FloatAttr>(a[1]).getValue());
      if (c != APFloat::cmpUnordered)
        order = c == APFloat::cmpLessThan ? -1 : c == APFloat::cmpEqual ? 0 : 1;
    } else {
      const APInt &l = cast<IntegerAttr>(a[0]).getValue();
      const APInt &r = cast<IntegerAttr>(a[1]).getValue();
      bool isUnsigned = l.getBitWidth() == 1 ||
                        cast<IntegerAttr>(a[0]).getType().isUnsignedInteger();
      bool less = isUnsigned ? l.ult(r) : l.slt(r);
      order = l == r ? 0 : less ? -1 : 1;
    }
    return Attribute(b.getBoolAttr(order && pred(*order)));
  });
}

/// Folds a logical (bools) or bitwise (integers) op: `fn` on the operands'
/// bits, which for bools are 1-bit APInts.
template <typename Fn>
OpFoldResult foldLogical(ArrayRef<Attribute> operands, RankedTensorType type,
                         Fn fn) {
  Type elt = type.getElementType();
  return foldElementwise(operands, type, [&](ArrayRef<Attribute> a) {
    SmallVector<APInt> v;
    for (Attribute x : a)
      v.push_back(cast<IntegerAttr>(x).getValue());
    return Attribute(IntegerAttr::get(elt, fn(v)));
  });
}
} // namespace

OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(adaptor.getOperands(), getType(),
                     [](int order) { return order == 0; });
}

OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldCompare(adaptor.getOperands(), getType(),
                     [](int order) { return order < 0; });
}

OpFoldResult LessOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(adaptor.getOperands(), getType(),
                     [](int order) { return order <= 0; });
}

OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldCompare(adaptor.getOperands(), getType(),
                     [](int order) { return order > 0; });
}

OpFoldResult GreaterOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(adaptor.getOperands(), getType(),
                     [](int order) { return order >= 0; });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldLogical(adaptor.getOperands(), getType(),
                     [](ArrayRef<APInt> v) { return v[0] & v[1]; });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldLogical(adaptor.getOperands(), getType(),
                     [](ArrayRef<APInt> v) { return v[0] | v[1]; });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldLogical(adaptor.getOperands(), getType(),
                     [](ArrayRef<APInt> v) { return v[0] ^ v[1]; });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldLogical(adaptor.getOperands(), getType(),
                     [](ArrayRef<APInt> v) { return ~v[0]; });
}

OpFoldResult BitShiftOp::fold(FoldAdaptor adaptor) {
  bool left = getLeft();
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  return foldLogical(
      adaptor.getOperands(), getType(), [&](ArrayRef<APInt> v) -> APInt {
        const APInt &x = v[0];
        unsigned width = x.getBitWidth();
        // The amount is read as signed: negative amounts are out of range.
        int64_t amount =
            isUnsigned ? (int64_t)v[1].getZExtValue() : v[1].getSExtValue();
        bool inRange = amount >= 0 && amount < (int64_t)width;
        if (left)
          return inRange ? x.shl(amount) : APInt(width, 0);
        if (isUnsigned)
          return inRange ? x.lshr(amount) : APInt(width, 0);
        return x.ashr(inRange ? amount : width - 1);
      });
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // where(c, x, x) == x when no broadcast is involved.
  if (getX() == getY() && getX().getType() == getType())
    return getX();
  return foldElementwise(
      adaptor.getOperands(), getType(), [](ArrayRef<Attribute> a) {
        return cast<IntegerAttr>(a[0]).getValue().isZero() ? a[2] : a[1];
      });
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldElementwise(adaptor.getOperands(), getType(),
                         [](ArrayRef<Attribute> a) { return a[0]; });
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult f =
          foldF32Scalar(adaptor.getOperands(), getType(),
                        [](ArrayRef<float> a) { return a[0] + a[1]; }))
    return f;
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult f =
          foldF32Scalar(adaptor.getOperands(), getType(),
                        [](ArrayRef<float> a) { return a[0] - a[1]; }))
    return f;
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult f =
          foldF32Scalar(adaptor.getOperands(), getType(),
                        [](ArrayRef<float> a) { return a[0] * a[1]; }))
    return f;
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult f =
          foldF32Scalar(adaptor.getOperands(), getType(),
                        [](ArrayRef<float> a) { return a[0] / a[1]; }))
    return f;
  // ONNX integer Div truncates toward zero, as APInt::sdiv does.
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        return isUnsigned ? a.udiv(b) : a.sdiv(b);
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  auto in = smallConstant(adaptor.getInput());
  if (!in || !isa<IntegerType>(getType().getElementType()))
    return {};
  return in.mapValues(getType().getElementType(),
                      [](const APInt &v) { return -v; });
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  bool fmod = getFmod();
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        if (isUnsigned)
          return a.urem(b);
        // srem takes the dividend's sign (fmod); Python's % the divisor's.
        APInt r = a.srem(b);
        if (!fmod && !r.isZero() && r.isNegative() != b.isNegative())
          r += b;
        return r;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor) { return {}; }

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldF32Scalar(adaptor.getOperands(), getType(),
                       [](ArrayRef<float> a) { return std::sqrt(a[0]); });
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldF32Scalar(adaptor.getOperands(), getType(),
                       [](ArrayRef<float> a) { return std::ceil(a[0]); });
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldF32Scalar(adaptor.getOperands(), getType(),
                       [](ArrayRef<float> a) { return std::floor(a[0]); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  return foldF32Scalar(adaptor.getOperands(), getType(), [](ArrayRef<float> a) {
    return a[0] > 0 ? a[0] : 0.0f;
  });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return (isUnsigned ? a.uge(b) : a.sge(b)) ? a : b;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  return foldIntBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return (isUnsigned ? a.ule(b) : a.sle(b)) ? a : b;
      });
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto in = smallConstant(adaptor.getInput());
  if (!in)
    return {};
  Type src = in.getElementType(), dst = getType().getElementType();
  auto srcInt = dyn_cast<IntegerType>(src), dstInt = dyn_cast<IntegerType>(dst);
  if (srcInt && dstInt) {
    SmallVector<APInt> out;
    for (APInt v : in.getValues<APInt>())
      out.push_back(srcInt.getWidth() == 1 || srcInt.isUnsigned()
                        ? v.zextOrTrunc(dstInt.getWidth())
                        : v.sextOrTrunc(dstInt.getWidth()));
    return DenseElementsAttr::get(getType(), out);
  }
  // Integer to float (window functions compute Range's limit from an integer
  // size), float to float.
  if (auto dstFloat = dyn_cast<FloatType>(dst)) {
    // To float8, ONNX saturates (and the FNUZ formats drop -0), which
    // APFloat's conversion does not: the lowering's rounding decides.
    if (dstFloat.getWidth() == 8)
      return {};
    const llvm::fltSemantics &sem = dstFloat.getFloatSemantics();
    SmallVector<APFloat> out;
    if (srcInt && srcInt.getWidth() > 1) {
      for (const APInt &v : in.getValues<APInt>()) {
        APFloat f(sem);
        f.convertFromAPInt(v, !srcInt.isUnsigned(),
                           APFloat::rmNearestTiesToEven);
        out.push_back(f);
      }
    } else if (isa<FloatType>(src)) {
      for (APFloat v : in.getValues<APFloat>()) {
        bool losesInfo;
        v.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
        out.push_back(v);
      }
    } else {
      return {};
    }
    return DenseElementsAttr::get(getType(), out);
  }
  // Float to integer truncates toward zero, to bool tests for nonzero, as
  // the kernels do; values out of the integer's range stay ops.
  if (dstInt && isa<FloatType>(src)) {
    SmallVector<APInt> out;
    for (APFloat v : in.getValues<APFloat>()) {
      if (dstInt.getWidth() == 1) {
        out.push_back(APInt(1, !v.isZero()));
        continue;
      }
      APSInt i(dstInt.getWidth(), dstInt.isUnsigned());
      bool exact;
      if (v.convertToInteger(i, APFloat::rmTowardZero, &exact) &
          APFloat::opInvalidOp)
        return {};
      out.push_back(i);
    }
    return DenseElementsAttr::get(getType(), out);
  }
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) == reshape(x).
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto in = smallConstant(adaptor.getInput()))
    return in.reshape(getType());
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<DenseElementsAttr> ins;
  for (Attribute a : adaptor.getInputs()) {
    auto d = smallConstant(a);
    if (!d)
      return {};
    ins.push_back(d);
  }
  int64_t axis = getAxis();
  SmallVector<Attribute> out(getType().getNumElements());
  auto outStrides = stridesOf(getType().getShape());
  int64_t base = 0;
  for (DenseElementsAttr in : ins) {
    auto values = llvm::to_vector(in.getValues<Attribute>());
    forEachIndex(in.getType().getShape(),
                 [&](int64_t linear, ArrayRef<int64_t> idx) {
                   SmallVector<int64_t> o(idx);
                   o[axis] += base;
                   out[linearize(o, outStrides)] = values[linear];
                 });
    base += in.getType().getDimSize(axis);
  }
  return DenseElementsAttr::get(getType(), out);
}

/// Folds a gather along `axis` of the constant `data` into `type`: result
/// element r (row-major number `linear`) takes the index
/// `indexAt(linear, r)`, counted from the end when negative, and reads
/// `data` at `source(r, i)` for that index i in [0, n). Null when an index
/// is out of range: that is left to the run-time policy.
template <typename IndexAt, typename Source>
static OpFoldResult foldGather(DenseElementsAttr data, int64_t axis,
                        RankedTensorType type, IndexAt indexAt,
                        Source source) {
  auto dataShape = data.getType().getShape();
  int64_t n = dataShape[axis];
  auto values = llvm::to_vector(data.getValues<Attribute>());
  auto dataStrides = stridesOf(dataShape);
  SmallVector<Attribute> out;
  bool ok = true;
  forEachIndex(type.getShape(), [&](int64_t linear, ArrayRef<int64_t> r) {
    int64_t i = indexAt(linear, r);
    if (!ok || i < -n || i >= n) {
      ok = false;
      return;
    }
    out.push_back(
        values[linearize(source(r, i < 0 ? i + n : i), dataStrides)]);
  });
  if (!ok)
    return {};
  return DenseElementsAttr::get(type, out);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto data = smallConstant(adaptor.getData());
  auto indices = smallConstant(adaptor.getIndices());
  if (!data || !indices)
    return {};
  int64_t axis = getAxis();
  auto idxValues = llvm::to_vector(indices.getValues<APInt>());
  int64_t idxRank = indices.getType().getRank();
  auto idxStrides = stridesOf(indices.getType().getShape());
  return foldGather(
      data, axis, getType(),
      [&](int64_t, ArrayRef<int64_t> r) {
        return idxValues[linearize(r.slice(axis, idxRank), idxStrides)]
            .getSExtValue();
      },
      [&](ArrayRef<int64_t> r, int64_t i) {
        SmallVector<int64_t> d(r.take_front(axis));
        d.push_back(i);
        llvm::append_range(d, r.drop_front(axis + idxRank));
        return d;
      });
}

LogicalResult GatherOp::canonicalize(GatherOp op, PatternRewriter &rewriter) {
  Attribute attr;
  if (!matchPattern(op.getIndices(), m_Constant(&attr)))
    return failure();
  DenseElementsAttr indices = smallConstant(attr);
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  int64_t axis = op.getAxis();
  if (!indices || axis < 0 || axis >= dataType.getRank() ||
      indices.getNumElements() != dataType.getDimSize(axis) ||
      !op.getType().hasStaticShape())
    return failure();
  int64_t expected = 0;
  for (const APInt &i : indices.getValues<APInt>())
    if (i.getSExtValue() != expected++)
      return failure();
  rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getData());
  return success();
}

OpFoldResult GatherElementsOp::fold(FoldAdaptor adaptor) {
  auto data = smallConstant(adaptor.getData());
  auto indices = smallConstant(adaptor.getIndices());
  if (!data || !indices)
    return {};
  int64_t axis = getAxis();
  if (axis < 0 || axis >= data.getType().getRank() ||
      !getType().hasStaticShape())
    return {};
  auto idxValues = llvm::to_vector(indices.getValues<APInt>());
  return foldGather(
      data, axis, getType(),
      [&](int64_t linear, ArrayRef<int64_t>) {
        return idxValues[linear].getSExtValue();
      },
      [&](ArrayRef<int64_t> r, int64_t i) {
        SmallVector<int64_t> d(r);
        d[axis] = i;
        return d;
      });
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto in = smallConstant(adaptor.getInput());
  if (!in)
    return {};
  auto values = llvm::to_vector(in.getValues<Attribute>());
  auto inStrides = stridesOf(in.getType().getShape());
  SmallVector<Attribute> out;
  forEachIndex(getType().getShape(), [&](int64_t, ArrayRef<int64_t> r) {
    SmallVector<int64_t> idx;
    for (size_t d = 0; d < r.size(); ++d)
      idx.push_back(getStarts()[d] + r[d] * getSteps()[d]);
    out.push_back(values[linearize(idx, inStrides)]);
  });
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto shape = cast<RankedTensorType>(getInput().getType())
                   .getShape()
                   .slice(getStart(), getEnd() - getStart());
  return DenseElementsAttr::get(getType(), shape);
}
