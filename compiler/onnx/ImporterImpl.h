//===- ImporterImpl.h - ONNX importer internals -----------------*- C++ -*-===//
//
// Shared between the graph walker (Importer.cpp) and the per-operator
// handlers (OpImporters.cpp). Not a public header: it includes protobuf.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_ONNX_IMPORTERIMPL_H
#define DLC_COMPILER_ONNX_IMPORTERIMPL_H

#include "compiler/onnx/Importer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <onnx/onnx_pb.h>

#include <optional>

namespace mlir {
namespace dlc {
namespace onnx_import {

/// Element type of an ONNX TensorProto.DataType, or null when dlc does not
/// support it.
Type getElementType(MLIRContext *ctx, int32_t dtype);
/// The ONNX name of a dtype ("float", "uint8", ...), for diagnostics.
std::string getDtypeName(int32_t dtype);

/// ONNX's UINT4 and INT4 (IR version 10), newer than the schema dlc builds
/// against. Values of these and of UINT2/INT2 import widened to int8/uint8,
/// marked with kOnnxDtypeAttr (the dtype's name) for the importers that
/// must tell them apart; see subByteBits.
constexpr int32_t kDtypeUint4 = 21, kDtypeInt4 = 22;
/// ONNX's UINT2 and INT2 (IR version 11).
constexpr int32_t kDtypeUint2 = 25, kDtypeInt2 = 26;
/// ONNX's FLOAT4E2M1 (IR version 11): 4-bit codes, packed as uint4, of the
/// values +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}; a byte (the code) in the IR.
constexpr int32_t kDtypeFloat4E2M1 = 23;
/// ONNX's FLOAT8E8M0 (the MX formats' scale: 2^(code - 127), 255 NaN): a
/// byte (the code) like float4e2m1's, as MLIR 19 has no such type either.
constexpr int32_t kDtypeFloat8E8M0 = 24;
/// ONNX's float8 dtypes (IR version 9), as MLIR's f8E4M3FN, f8E4M3FNUZ,
/// f8E5M2 and f8E5M2FNUZ.
constexpr int32_t kDtypeFloat8E4M3FN = 17, kDtypeFloat8E4M3FNUZ = 18,
                  kDtypeFloat8E5M2 = 19, kDtypeFloat8E5M2FNUZ = 20;
/// Whether `type` is one of those float8 types, which dlc only moves and
/// converts (dlc.cast); ops that compute take them as f32.
inline bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(type);
}
/// Marks the op defining a byte value with the ONNX dtype it stands for
/// (uint4/int4, uint2/int2, float4e2m1, float8e8m0), read during import.
constexpr char kOnnxDtypeAttr[] = "dlc.onnx_dtype";

/// Converts an ONNX tensor to a constant attribute: DenseElementsAttr for
/// small tensors (so folders can evaluate them), DenseResourceElementsAttr
/// otherwise, keyed `blobName`. `emitError` starts a diagnostic naming the
/// tensor's owner.
TypedAttr convertTensor(MLIRContext *ctx, const onnx::TensorProto &tensor,
                        StringRef blobName,
                        llvm::function_ref<InFlightDiagnostic()> emitError);

/// The graph walker's hook for control flow: imports `graph` inline with
/// `args` bound to its inputs (outer values stay visible) and returns its
/// outputs, or failure after the graph's nodes reported their errors.
using SubgraphImporter = llvm::function_ref<FailureOr<SmallVector<Value>>(
    const onnx::GraphProto &graph, ArrayRef<Value> args)>;

/// One ONNX node being imported: its operands, attributes, diagnostics and
/// op creation with shape inference checked before anything is built.
class NodeContext {
public:
  NodeContext(OpBuilder &builder, const onnx::NodeProto &node,
              std::string name, int64_t opset, Location loc,
              ArrayRef<Value> inputs)
      : b(builder), node(node), name(std::move(name)), opset(opset), loc(loc),
        inputs(inputs) {}

  OpBuilder &b;
  const onnx::NodeProto &node;
  /// The node's name, or "<op_type>_<index>" when it has none.
  std::string name;
  /// Version of the default ONNX domain.
  int64_t opset;
  Location loc;

  //===--- Diagnostics ----------------------------------------------------===//

  /// Starts an error "node 'NAME' (OP, opset N): " and marks the node failed.
  InFlightDiagnostic emitError();
  LogicalResult fail(const Twine &message) { return emitError() << message; }
  /// True once any error was reported for this node.
  bool hasFailed() const { return hadError; }
  /// Marks the node failed after a nested importer reported its errors.
  void markFailed() { hadError = true; }

  //===--- Operands -------------------------------------------------------===//

  /// Number of inputs as written (absent optional inputs included).
  unsigned getNumInputs() const { return inputs.size(); }
  /// Input `i`, or null when absent (empty name or past the end).
  Value input(unsigned i) const {
    return i < inputs.size() ? inputs[i] : Value();
  }
  /// Checks the input count is in [min, max] and inputs [0, min) present.
  LogicalResult checkInputs(unsigned min, unsigned max);
  /// Checks the input count is in [min, max] and the inputs at `required`
  /// present (the others optional: ONNX Runtime's operators leave
  /// optional inputs empty between required ones).
  LogicalResult checkInputs(unsigned min, unsigned max,
                            ArrayRef<unsigned> required);

  //===--- Attributes -----------------------------------------------------===//
  // Getters report a wrong attribute type as an error on the node (see
  // hasFailed()) and return the default.

  const onnx::AttributeProto *getAttr(StringRef attrName) const;
  bool hasAttr(StringRef attrName) const { return getAttr(attrName); }
  int64_t getInt(StringRef attrName, int64_t defaultValue);
  float getFloat(StringRef attrName, float defaultValue);
  std::string getString(StringRef attrName, StringRef defaultValue);
  /// Returns std::nullopt if absent (or ill-typed).
  std::optional<SmallVector<int64_t>> getInts(StringRef attrName);
  /// Imports the graph of attribute `attrName` (If's branches, Loop's and
  /// Scan's body) inline, with `args` bound to its inputs: its outputs, or
  /// failure after reporting what is wrong.
  FailureOr<SmallVector<Value>> importGraph(StringRef attrName,
                                            ArrayRef<Value> args);
  /// Set by the graph walker for importGraph.
  SubgraphImporter subgraphImporter;
  /// Reports every attribute not in `known` as an error.
  LogicalResult checkKnownAttrs(ArrayRef<StringRef> known);

  //===--- Constants ------------------------------------------------------===//

  /// Integer values of a constant input (after folding); reports an error
  /// naming `what` when the value is not a constant.
  std::optional<SmallVector<int64_t>> getConstInts(Value v, StringRef what);
  /// Scalar (one element) float or int constant as a double.
  std::optional<double> getConstScalar(Value v, StringRef what);

  //===--- Shapes ---------------------------------------------------------===//

  static RankedTensorType getType(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  static int64_t getRank(Value v) { return getType(v).getRank(); }
  /// Maps `axis` in [-rank, rank) to [0, rank); reports `what` otherwise.
  std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                       StringRef what = "axis");

  //===--- Op creation ----------------------------------------------------===//

  /// Creates `OpTy` at the node's location and folds it. Without
  /// `resultType` the op infers it; an inference or verifier failure is
  /// reported on the node and nothing is created (returns null).
  template <typename OpTy>
  Value create(ValueRange operands, ArrayRef<NamedAttribute> attrs = {},
               Type resultType = {}) {
    return createOp(OpTy::getOperationName(), operands, attrs, resultType);
  }
  Value createOp(StringRef opName, ValueRange operands,
                 ArrayRef<NamedAttribute> attrs, Type resultType);
  /// dlc.reshape of `v` to `shape` (folded when `v` is a small constant).
  Value reshape(Value v, ArrayRef<int64_t> shape);

  NamedAttribute attr(StringRef attrName, Attribute value) {
    return b.getNamedAttr(attrName, value);
  }
  NamedAttribute i64Array(StringRef attrName, ArrayRef<int64_t> v) {
    return attr(attrName, b.getDenseI64ArrayAttr(v));
  }
  NamedAttribute i64(StringRef attrName, int64_t v) {
    return attr(attrName, b.getI64IntegerAttr(v));
  }
  NamedAttribute f32(StringRef attrName, float v) {
    return attr(attrName, b.getF32FloatAttr(v));
  }
  NamedAttribute f64(StringRef attrName, double v) {
    return attr(attrName, b.getF64FloatAttr(v));
  }
  NamedAttribute boolean(StringRef attrName, bool v) {
    return attr(attrName, b.getBoolAttr(v));
  }

private:
  InFlightDiagnostic attrTypeError(const onnx::AttributeProto &a,
                                   StringRef expected);

  SmallVector<Value> inputs;
  bool hadError = false;
};

/// Imports one node: appends one value per supported output to `results`.
/// Outputs past `results` must be unused (the caller checks). Returns failure
/// after reporting errors on `node`.
using OpImporter = LogicalResult (*)(NodeContext &node,
                                     SmallVectorImpl<Value> &results);

struct OpTableEntry {
  StringRef opType;
  OpImporter importer;
  StringRef notes;
};

/// Quantization importers (QuantImporters.cpp).
LogicalResult importQuantizeLinear(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importDequantizeLinear(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importConvInteger(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importMatMulInteger(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearConv(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearMatMul(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importDynamicQuantizeLinear(NodeContext &,
                                          SmallVectorImpl<Value> &);

/// True for a statically shaped ranked tensor of at most 2^48 bytes: what
/// the importer lets a value be (larger ones would overflow the byte
/// arithmetic of memory planning and codegen).
bool isSaneTensorType(Type type);

//===--- Sub-byte integers (SubByteImporter.cpp)
//---------------------------===//

/// Bits of an element of int4/uint4/float4e2m1 (4), int2/uint2 (2) and
/// float8e8m0 (8: a byte already, but coded the same way); 0 for others.
int subByteBits(int32_t dtype);
/// Whether a sub-byte dtype is signed (int4, int2).
bool isSignedSubByte(int32_t dtype);
/// The byte type a sub-byte dtype is widened to: i8 for the signed ones,
/// ui8 for the unsigned ones.
Type widenedSubByteType(MLIRContext *ctx, int32_t dtype);
/// The sub-byte dtype `v` holds widened (its defining op carries
/// kOnnxDtypeAttr: an initializer, an unpacked input, a Cast or
/// QuantizeLinear to one), or 0.
int32_t subByteDtypeOf(Value v);
/// Marks `v` as holding `dtype` widened; returns `v`.
Value markSubByte(Value v, int32_t dtype);
/// Integers or floats (truncated toward zero) converted to `dtype` as ONNX's
/// reference does (ml_dtypes): the low bits kept, sign-extended for the
/// signed types; widened and marked. float4e2m1: rounded to the nearest
/// value (ties to even), saturating at +-6, NaN to -0; its code, marked.
Value convertToSubByte(NodeContext &n, Value x, int32_t dtype);
/// `x` as values: float4e2m1 and float8e8m0 codes decoded to f32 (a table
/// lookup); anything else as it is.
Value decodeFloat4(NodeContext &n, Value x);
/// `x` (float) as float8e8m0 codes, onnx's reference conversion: the
/// exponent, rounded "up", "down" or "nearest" by the mantissa, saturating
/// at 254 or overflowing to NaN (255); the sign is ignored.
Value encodeFloat8E8M0(NodeContext &n, Value x, StringRef roundMode,
                       bool saturate);
/// A graph input's packed bytes ([ceil(count * bits / 8)] ui8, the first
/// element in the low bits) as the widened values of `shape`.
Value unpackSubByte(NodeContext &n, Value bytes, ArrayRef<int64_t> shape,
                    int32_t dtype);
/// Widened values packed as ONNX lays `dtype` out, for a graph output.
Value packSubByte(NodeContext &n, Value v, int32_t dtype);

/// Unrolling past this many iterations (Loop, Scan, LinearAttention's
/// steps) makes programs no one wants to compile; a loop that long needs a
/// real loop op.
constexpr int64_t kMaxUnrolledIterations = 4096;

/// The operator table, sorted by op type.
ArrayRef<OpTableEntry> getOpTable();
/// The importer for `opType` in the default domain, or null.
OpImporter lookupOpImporter(StringRef opType);

/// `value` as an attribute of `elementType` (float or integer).
Attribute scalarAttr(OpBuilder &b, Type elementType, double value);
/// A constant tensor of `shape` and `elementType`, every element `value`.
Value splat(NodeContext &n, ArrayRef<int64_t> shape, Type elementType,
            double value);
/// dlc.slice of `v` along `axis` only: [begin, end) by `step`, every other
/// dim whole. Null when `v` is.
Value sliceAxis(NodeContext &n, Value v, int64_t axis, int64_t begin,
                int64_t end, int64_t step = 1);
/// `v` cast to `elementType` (dlc.cast), or `v` itself when it already has
/// it or is null.
Value castTo(NodeContext &n, Value v, Type elementType);
/// A constant zero tensor of `shape` and `elementType`.
Value zeros(NodeContext &n, ArrayRef<int64_t> shape, Type elementType);
/// A constant tensor of `shape` and float or integer `elementType` holding
/// `values` (rounded to nearest for floats, truncated for integers, as a
/// cast).
Value constantOf(NodeContext &n, ArrayRef<int64_t> shape, Type elementType,
                 ArrayRef<double> values);
/// A constant f32 tensor of `shape` holding `values`.
Value f32Constant(NodeContext &n, ArrayRef<int64_t> shape,
                  ArrayRef<float> values);
/// `v` as a rank-0 tensor when it has one element (a constant is rebuilt,
/// anything else reshaped); `v` itself otherwise.
Value scalarIfSingle(NodeContext &n, Value v);
/// A float attribute `name` = `v`, for a nested importer's node.
onnx::AttributeProto floatAttribute(StringRef name, float v);

/// Imports `opType` of the default domain on `inputs` with `n`'s attributes
/// except `dropped`, plus `extra`, in `opset` (the model's when absent),
/// as a node of `outputs` outputs (`n`'s names where it has them): an
/// operator inside a contrib one. Errors name `n`; returns at least
/// `outputs` values, or none after an error.
SmallVector<Value> importNested(NodeContext &n, StringRef opType,
                                ArrayRef<Value> inputs,
                                ArrayRef<StringRef> dropped,
                                std::optional<int64_t> opset = std::nullopt,
                                ArrayRef<onnx::AttributeProto> extra = {},
                                unsigned outputs = 1);
/// importNested's first result, or null.
Value importFloatOp(NodeContext &n, StringRef opType, ArrayRef<Value> inputs,
                    ArrayRef<StringRef> dropped,
                    std::optional<int64_t> opset = std::nullopt,
                    ArrayRef<onnx::AttributeProto> extra = {});

/// ONNX Runtime's quantized operators (QuantImporters.cpp): each its float
/// operator between DequantizeLinear and QuantizeLinear.
LogicalResult importQLinearAdd(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearMul(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearSigmoid(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearLeakyRelu(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearSoftmax(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearAveragePool(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearGlobalAveragePool(NodeContext &,
                                             SmallVectorImpl<Value> &);
LogicalResult importQLinearConcat(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQLinearWhere(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importQGemm(NodeContext &, SmallVectorImpl<Value> &);

/// ONNX's Attention, opsets 23-25 (AttentionImporter.cpp).
LogicalResult importAttention(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importLinearAttention(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importFlexAttention(NodeContext &, SmallVectorImpl<Value> &);
/// RoiAlign and DeformConv (SamplingImporter.cpp).
LogicalResult importRoiAlign(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importDeformConv(NodeContext &, SmallVectorImpl<Value> &);
/// ONNX's RotaryEmbedding, opset 23 (AttentionImporter.cpp).
LogicalResult importRotaryEmbedding(NodeContext &, SmallVectorImpl<Value> &);
/// ONNX's RNN, GRU and LSTM, unrolled over the sequence
/// (RecurrentImporter.cpp).
LogicalResult importRNN(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importGRU(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importLSTM(NodeContext &, SmallVectorImpl<Value> &);
/// ONNX's If, Loop and Scan, inlined and unrolled (ControlFlowImporter.cpp).
LogicalResult importIf(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importLoop(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importScan(NodeContext &, SmallVectorImpl<Value> &);
/// ONNX's NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
/// (LossImporter.cpp).
LogicalResult importNegativeLogLikelihoodLoss(NodeContext &,
                                              SmallVectorImpl<Value> &);
LogicalResult importSoftmaxCrossEntropyLoss(NodeContext &,
                                            SmallVectorImpl<Value> &);

/// ONNX's signal operators, opset 17 (SignalImporter.cpp): the window
/// functions and MelWeightMatrix as constants, DFT and STFT as matrix
/// products.
LogicalResult importBlackmanWindow(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importDFT(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importHammingWindow(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importHannWindow(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importMelWeightMatrix(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importSTFT(NodeContext &, SmallVectorImpl<Value> &);

/// Operators that write to computed positions (ScatterImporter.cpp):
/// Col2Im as a transposed convolution or a transpose, MaxUnpool and
/// TensorScatter as scatters.
LogicalResult importCol2Im(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importMaxUnpool(NodeContext &, SmallVectorImpl<Value> &);
LogicalResult importTensorScatter(NodeContext &, SmallVectorImpl<Value> &);

/// ONNX Runtime's RMS normalization, in the default domain
/// (MicrosoftImporters.cpp).
LogicalResult importSimplifiedLayerNorm(NodeContext &,
                                        SmallVectorImpl<Value> &);

/// ONNX Runtime's contrib domain: its quantizer's operators (QLinearAdd,
/// QGemm, MatMulNBits, ...) and its transformer optimizer's (Attention,
/// SkipLayerNormalization, ...).
constexpr StringLiteral kMicrosoftDomain = "com.microsoft";
/// The com.microsoft operators the importer handles (MicrosoftImporters.cpp),
/// sorted by op type.
ArrayRef<OpTableEntry> getMicrosoftOpTable();
/// ONNX's preview domain: operators on their way into the standard
/// (FlexAttention), with onnx's reference implementations and node tests.
constexpr StringLiteral kPreviewDomain = "ai.onnx.preview";
/// The ai.onnx.preview operators the importer handles, sorted by op type.
ArrayRef<OpTableEntry> getPreviewOpTable();
/// The importer for `opType` in `domain` (default, com.microsoft or
/// ai.onnx.preview), or null.
OpImporter lookupOpImporter(StringRef domain, StringRef opType);

/// Window attributes of Conv, ConvInteger/QLinearConv and pooling with ONNX
/// defaults applied and auto_pad resolved to explicit pads.
struct Window {
  SmallVector<int64_t> strides, pads, dilations;
};

/// Reads strides, dilations (when the op has them), pads and auto_pad of a
/// windowed node over input `x` with spatial `kernel`; rejects windows that
/// do not fit the padded input or whose arithmetic would overflow.
LogicalResult readWindow(NodeContext &n, Value x, ArrayRef<int64_t> kernel,
                         bool hasDilations, Window &w);

} // namespace onnx_import
} // namespace dlc
} // namespace mlir

#endif // DLC_COMPILER_ONNX_IMPORTERIMPL_H
