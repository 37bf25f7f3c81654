//===- SignalImporter.cpp - ONNX DFT, STFT and the window functions -------===//
//
// The audio front ends' operators (opset 17+). Their shapes are static, so
// every length is a compile-time constant:
//
// - the window functions and MelWeightMatrix depend on scalars only and
//   import as constants;
// - DFT and STFT are linear maps of a fixed length: one matrix product with
//   a constant [used samples x complex parts, bins x complex parts] matrix
//   of twiddle factors (and STFT's window, when constant), after a
//   transpose that brings the DFT axis next to the complex dim. A GEMM is
//   what both targets run fastest at the lengths audio models use (a
//   400-point STFT is 400 x 402); longer transforms are bounded by the
//   matrix's size (kMaxDftCoefficients) rather than run as an FFT.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImporterImpl.h"
#include "dialects/dlc/ConstantValues.h"
#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::dlc;
using namespace mlir::dlc::onnx_import;

namespace {

using Results = SmallVectorImpl<Value>;

/// Largest DFT matrix (elements) the importer builds: 64 MB in f32.
constexpr int64_t kMaxDftCoefficients = int64_t(1) << 24;
/// Largest window or mel matrix the importer builds.
constexpr int64_t kMaxSignalConstant = int64_t(1) << 24;

/// A constant integer scalar input `what`, or failure after an error.
FailureOr<int64_t> constInt(NodeContext &n, Value v, StringRef what) {
  auto type = NodeContext::getType(v);
  if (!type.getElementType().isSignlessInteger() ||
      type.getElementType().isInteger(1) || type.getNumElements() != 1)
    return n.emitError() << "'" << what << "' must be an integer scalar, got "
                         << type;
  std::optional<double> c = n.getConstScalar(v, what);
  if (!c)
    return failure();
  return (int64_t)*c;
}

/// The element type named by attribute `output_datatype` (default float).
FailureOr<Type> outputDatatype(NodeContext &n) {
  int64_t dtype = n.getInt("output_datatype", onnx::TensorProto::FLOAT);
  if (n.hasFailed())
    return failure();
  Type elt = getElementType(n.b.getContext(), dtype);
  if (!elt || elt.isInteger(1))
    return n.emitError() << "output_datatype '" << getDtypeName(dtype)
                         << "' is not a supported numeric type";
  return elt;
}

/// HannWindow, HammingWindow, BlackmanWindow(size), output_datatype,
/// periodic: sum_k (-1)^k coeffs[k] cos(2 pi k i / N), N = size when
/// periodic, size - 1 otherwise; a constant.
LogicalResult importCosineWindow(NodeContext &n, Results &r,
                                 ArrayRef<double> coeffs) {
  if (failed(n.checkInputs(1, 1)) ||
      failed(n.checkKnownAttrs({"output_datatype", "periodic"})))
    return failure();
  FailureOr<int64_t> size = constInt(n, n.input(0), "size");
  FailureOr<Type> elt = outputDatatype(n);
  bool periodic = n.getInt("periodic", 1);
  if (failed(size) || failed(elt) || n.hasFailed())
    return failure();
  if (*size < 1 || *size > kMaxSignalConstant)
    return n.emitError() << "size must be in [1, " << kMaxSignalConstant
                         << "], got " << *size;
  // As onnx's reference and ONNX Runtime: a one-point symmetric window
  // divides by zero.
  double period = periodic ? *size : *size - 1;
  SmallVector<double> values(*size);
  for (int64_t i = 0; i < *size; ++i) {
    double w = 0, sign = 1;
    for (auto [k, c] : llvm::enumerate(coeffs)) {
      w += sign * c * std::cos(2 * M_PI * k * i / period);
      sign = -sign;
    }
    values[i] = w;
  }
  r.push_back(constantOf(n, {*size}, *elt, values));
  return success();
}

/// One DFT over a fixed length, as a matrix product over the last two dims
/// [samples or bins, complex parts].
struct DftPlan {
  /// The transform's length N (dft_length).
  int64_t length;
  /// Input positions read along the axis (the rest are zeros or dropped).
  int64_t used;
  /// Output positions: N, or N / 2 + 1 when onesided and forward.
  int64_t produced;
  /// 1 (real) or 2 (complex) parts in and out.
  int64_t partsIn, partsOut;
  bool inverse;
};

/// The [used * partsIn, produced * partsOut] matrix of `plan`, its rows
/// scaled by `window` (one weight a used position) when given.
SmallVector<double> dftMatrix(const DftPlan &plan, ArrayRef<double> window) {
  int64_t cols = plan.produced * plan.partsOut;
  SmallVector<double> m(plan.used * plan.partsIn * cols);
  int64_t len = plan.length;
  // irfft: a one-sided spectrum stands for its conjugate mirror too.
  bool halfComplex = plan.inverse && plan.partsOut == 1;
  for (int64_t j = 0; j < plan.used; ++j) {
    double scale = window.empty() ? 1.0 : window[j];
    if (plan.inverse)
      scale /= len;
    if (halfComplex && j != 0 && !(len % 2 == 0 && j == len / 2))
      scale *= 2;
    for (int64_t k = 0; k < plan.produced; ++k) {
      // Reduced before the division: exact angles for any length.
      double theta = 2 * M_PI * double((j * k) % len) / double(len);
      double c = std::cos(theta) * scale, s = std::sin(theta) * scale;
      if (!plan.inverse)
        s = -s;
      // (re + i im)(c + i s) = (re c - im s) + i (re s + im c)
      double *re = &m[(j * plan.partsIn) * cols + k * plan.partsOut];
      re[0] = c;
      if (plan.partsOut == 2)
        re[1] = s;
      if (plan.partsIn == 2) {
        double *im = re + cols;
        im[0] = -s;
        if (plan.partsOut == 2)
          im[1] = c;
      }
    }
  }
  return m;
}

/// Applies `plan` to `x` [batch..., positions, partsIn] (positions >=
/// plan.used): [batch..., produced, partsOut].
Value applyDft(NodeContext &n, Value x, const DftPlan &plan,
               ArrayRef<double> window = {}) {
  auto type = NodeContext::getType(x);
  int64_t rank = type.getRank();
  if (plan.used * plan.partsIn >
      kMaxDftCoefficients / plan.produced / plan.partsOut) {
    // The factors apart: their products may not fit in 64 bits.
    n.emitError() << "a DFT of length " << plan.length << " over " << plan.used
                  << " positions is a matrix product of " << plan.used << " x "
                  << plan.partsIn << " rows by " << plan.produced << " x "
                  << plan.partsOut << " columns, larger than dlc builds ("
                  << kMaxDftCoefficients << " coefficients)";
    return {};
  }
  if (type.getDimSize(rank - 2) > plan.used)
    x = sliceAxis(n, x, rank - 2, 0, plan.used);
  ArrayRef<int64_t> batch = type.getShape().drop_back(2);
  int64_t rows = std::accumulate(batch.begin(), batch.end(), int64_t(1),
                                 std::multiplies<int64_t>());
  Value matrix =
      constantOf(n, {plan.used * plan.partsIn, plan.produced * plan.partsOut},
                 type.getElementType(), dftMatrix(plan, window));
  Value flat = x ? n.reshape(x, {rows, plan.used * plan.partsIn}) : Value();
  Value product = flat ? n.create<MatMulOp>({flat, matrix}) : Value();
  if (!product)
    return {};
  SmallVector<int64_t> shape(batch);
  shape.append({plan.produced, plan.partsOut});
  return n.reshape(product, shape);
}

/// Checks `x` is a float signal [..., positions, 1 or 2].
LogicalResult checkSignal(NodeContext &n, Value x, int64_t minRank) {
  auto type = NodeContext::getType(x);
  int64_t rank = type.getRank();
  if (!isa<FloatType>(type.getElementType()) || rank < minRank ||
      (type.getDimSize(rank - 1) != 1 && type.getDimSize(rank - 1) != 2))
    return n.emitError() << "input must be a float tensor of rank >= "
                         << minRank
                         << " whose last dim is 1 (real) or 2 (complex), got "
                         << type;
  return success();
}

} // namespace

LogicalResult onnx_import::importHannWindow(NodeContext &n, Results &r) {
  return importCosineWindow(n, r, {0.5, 0.5});
}
LogicalResult onnx_import::importHammingWindow(NodeContext &n, Results &r) {
  return importCosineWindow(n, r, {25.0 / 46.0, 21.0 / 46.0});
}
LogicalResult onnx_import::importBlackmanWindow(NodeContext &n, Results &r) {
  return importCosineWindow(n, r, {0.42, 0.5, 0.08});
}

/// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
/// upper_edge_hertz), output_datatype: the [dft_length / 2 + 1,
/// num_mel_bins] triangular filter bank of onnx's reference, a constant.
LogicalResult onnx_import::importMelWeightMatrix(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(5, 5)) ||
      failed(n.checkKnownAttrs({"output_datatype"})))
    return failure();
  FailureOr<int64_t> mels = constInt(n, n.input(0), "num_mel_bins");
  FailureOr<int64_t> length = constInt(n, n.input(1), "dft_length");
  FailureOr<int64_t> rate = constInt(n, n.input(2), "sample_rate");
  std::optional<double> lower =
      n.getConstScalar(n.input(3), "lower_edge_hertz");
  std::optional<double> upper =
      n.getConstScalar(n.input(4), "upper_edge_hertz");
  FailureOr<Type> elt = outputDatatype(n);
  if (failed(mels) || failed(length) || failed(rate) || !lower || !upper ||
      failed(elt))
    return failure();
  if (*mels < 1 || *length < 1 || *rate < 1)
    return n.emitError() << "num_mel_bins, dft_length and sample_rate must be "
                            "positive, got "
                         << *mels << ", " << *length << ", " << *rate;
  int64_t bins = *length / 2 + 1;
  if (*mels > kMaxSignalConstant / bins)
    return n.emitError() << "a " << bins << " x " << *mels
                         << " mel weight matrix is too large";
  auto hertz = [](double v) { return llvm::formatv("{0}", v).str(); };
  if (!(0 <= *lower && *lower <= *upper))
    return n.emitError() << "the edges must satisfy 0 <= lower_edge_hertz <= "
                            "upper_edge_hertz, got "
                         << hertz(*lower) << " and " << hertz(*upper);

  // The band edges: num_mel_bins + 2 points evenly spaced in mel, as
  // spectrogram bins.
  auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double low = toMel(*lower), step = (toMel(*upper) - low) / (*mels + 2);
  SmallVector<int64_t> edges(*mels + 2);
  for (int64_t i = 0; i < *mels + 2; ++i) {
    double hz = 700 * std::expm1((i * step + low) / 2595 * std::log(10.0));
    double edge = std::floor((*length + 1) * hz / *rate);
    edges[i] = edge >= 0 && edge < bins ? (int64_t)edge : -1;
    if (edges[i] < 0)
      return n.emitError() << "upper_edge_hertz " << hertz(*upper)
                           << " maps past the last of the " << bins
                           << " spectrogram bins (sample_rate " << *rate
                           << ", dft_length " << *length << ")";
  }
  SmallVector<double> values(bins * *mels, 0.0);
  auto at = [&](int64_t bin, int64_t mel) -> double & {
    return values[bin * *mels + mel];
  };
  for (int64_t i = 0; i < *mels; ++i) {
    int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left)
      at(center, i) = 1;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) = double(right - j) / double(right - center);
  }
  r.push_back(constantOf(n, {bins, *mels}, *elt, values));
  return success();
}

/// DFT(input, dft_length?, axis? (opset 20)), axis (opset 17-19), inverse,
/// onesided: the axis moved next to the complex dim, one matrix product,
/// moved back. inverse with onesided is the real inverse of a one-sided
/// spectrum (irfft), as onnx's reference.
LogicalResult onnx_import::importDFT(NodeContext &n, Results &r) {
  bool axisInput = n.opset >= 20;
  if (failed(n.checkInputs(1, axisInput ? 3 : 2, {0})) ||
      failed(n.checkKnownAttrs(
          axisInput ? ArrayRef<StringRef>{"inverse", "onesided"}
                    : ArrayRef<StringRef>{"axis", "inverse", "onesided"})))
    return failure();
  Value x = n.input(0);
  if (failed(checkSignal(n, x, 2)))
    return failure();
  auto type = n.getType(x);
  int64_t rank = type.getRank();
  int64_t axis = axisInput ? -2 : n.getInt("axis", 1);
  if (axisInput && n.input(2)) {
    FailureOr<int64_t> a = constInt(n, n.input(2), "axis");
    if (failed(a))
      return failure();
    axis = *a;
  }
  bool inverse = n.getInt("inverse", 0), onesided = n.getInt("onesided", 0);
  if (n.hasFailed())
    return failure();
  std::optional<int64_t> dim = n.normalizeAxis(axis, rank);
  if (!dim)
    return failure();
  if (*dim == rank - 1)
    return n.emitError() << "axis " << axis
                         << " is the complex dim; it must be a signal dim";
  int64_t positions = type.getDimSize(*dim);
  int64_t length = inverse && onesided ? 2 * (positions - 1) : positions;
  if (n.input(1)) {
    FailureOr<int64_t> l = constInt(n, n.input(1), "dft_length");
    if (failed(l))
      return failure();
    length = *l;
  }
  if (length < 1)
    return n.emitError() << "the DFT's length must be positive, got " << length;

  DftPlan plan;
  plan.length = length;
  plan.inverse = inverse;
  plan.partsIn = type.getDimSize(rank - 1);
  plan.partsOut = inverse && onesided ? 1 : 2;
  int64_t readable = inverse && onesided ? length / 2 + 1 : length;
  plan.used = std::min(positions, readable);
  plan.produced = !inverse && onesided ? length / 2 + 1 : length;

  // The axis goes just before the complex dim, and back afterwards.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != *dim)
      perm.push_back(d);
  perm.append({*dim, rank - 1});
  bool moved = *dim != rank - 2;
  if (moved)
    x = n.create<TransposeOp>(x, {n.i64Array("perm", perm)});
  Value y = x ? applyDft(n, x, plan) : Value();
  if (y && moved) {
    SmallVector<int64_t> inverse(rank);
    for (int64_t d = 0; d < rank; ++d)
      inverse[perm[d]] = d;
    y = n.create<TransposeOp>(y, {n.i64Array("perm", inverse)});
  }
  if (!y)
    return failure();
  r.push_back(y);
  return success();
}

/// STFT(signal [batch, length, 1 or 2], frame_step, window?, frame_length?),
/// onesided: the frames gathered with constant indices, windowed, and
/// transformed by one matrix product: [batch, frames, bins, 2]. A constant
/// window folds into the DFT matrix.
LogicalResult onnx_import::importSTFT(NodeContext &n, Results &r) {
  if (failed(n.checkInputs(2, 4, {0, 1})) ||
      failed(n.checkKnownAttrs({"onesided"})))
    return failure();
  Value x = n.input(0), window = n.input(2);
  if (failed(checkSignal(n, x, 3)))
    return failure();
  auto type = n.getType(x);
  if (type.getRank() != 3)
    return n.emitError() << "signal must be [batch, length, 1 or 2], got "
                         << type;
  FailureOr<int64_t> step = constInt(n, n.input(1), "frame_step");
  bool onesided = n.getInt("onesided", 1);
  if (failed(step) || n.hasFailed())
    return failure();
  int64_t length = type.getDimSize(1), frameLength = length;
  if (window) {
    auto wType = n.getType(window);
    if (wType.getRank() != 1 || wType.getElementType() != type.getElementType())
      return n.emitError() << "window must be a 1-D tensor of the signal's "
                              "element type, got "
                           << wType;
    frameLength = wType.getDimSize(0);
  }
  if (n.input(3)) {
    FailureOr<int64_t> l = constInt(n, n.input(3), "frame_length");
    if (failed(l))
      return failure();
    if (window && *l != frameLength)
      return n.emitError() << "frame_length " << *l
                           << " differs from the window's length "
                           << frameLength;
    frameLength = *l;
  }
  if (*step < 1)
    return n.emitError() << "frame_step must be positive, got " << *step;
  if (frameLength < 1 || frameLength > length)
    return n.emitError() << "frame_length must be in [1, " << length
                         << "] (the signal's length), got " << frameLength;
  int64_t frames = 1 + (length - frameLength) / *step;
  if (frames > kMaxSignalConstant / frameLength)
    return n.emitError() << frames << " frames of " << frameLength
                         << " samples are more than dlc gathers ("
                         << kMaxSignalConstant << " indices)";

  // [batch, frames, frame_length, parts], frame f at f * step.
  SmallVector<double> indices;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLength; ++j)
      indices.push_back(f * *step + j);
  Value index = constantOf(n, {frames, frameLength}, n.b.getI64Type(), indices);
  Value framed = n.create<GatherOp>({x, index}, {n.i64("axis", 1)});

  // A constant window (inline or a weight blob) scales the DFT matrix's
  // rows; any other multiplies the frames.
  SmallVector<double> weights;
  Attribute constWindow;
  if (!window) {
  } else if (std::optional<SmallVector<float>> f = constFloats(window)) {
    weights.assign(f->begin(), f->end());
  } else if (matchPattern(window, m_Constant(&constWindow)) &&
             isa<DenseFPElementsAttr>(constWindow)) {
    for (APFloat v :
         cast<DenseFPElementsAttr>(constWindow).getValues<APFloat>()) {
      bool losesInfo;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      weights.push_back(v.convertToDouble());
    }
  } else if (framed) {
    framed = n.create<MulOp>({framed, n.reshape(window, {frameLength, 1})});
  }
  if (!framed)
    return failure();

  DftPlan plan;
  plan.length = frameLength;
  plan.used = frameLength;
  plan.produced = onesided ? frameLength / 2 + 1 : frameLength;
  plan.partsIn = type.getDimSize(2);
  plan.partsOut = 2;
  plan.inverse = false;
  Value y = applyDft(n, framed, plan, weights);
  if (!y)
    return failure();
  r.push_back(y);
  return success();
}
