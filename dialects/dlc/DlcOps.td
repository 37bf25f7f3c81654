//===- DlcOps.td - The dlc dialect ------------------------*- tablegen -*-===//
//
// ONNX-level operations on ranked, statically shaped tensors. The importer
// normalizes opset differences (attributes that became inputs, negative axes,
// implicit defaults) so that every pass sees one form per operator.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_OPS_TD
#define DLC_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"

def Dlc_Dialect : Dialect {
  let name = "dlc";
  let cppNamespace = "::mlir::dlc";
  let summary = "ONNX operators with normalized semantics";
  let description = [{
    The dlc dialect holds one operation per supported ONNX operator. Tensors
    are ranked and statically shaped after import (dynamic dims are bound
    with `--input-shape`). Attributes are normalized: axes are non-negative,
    pads/strides/dilations are always present with one entry per spatial dim.
  }];
  let hasConstantMaterializer = 1;
}

class Dlc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dlc_Dialect, mnemonic, !listconcat(traits, [Pure])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

// UI8-UI64 are ONNX's unsigned ints: ops whose result depends on signedness
// (division, remainder, comparisons, min/max, shifts, casts, reductions)
// lower them with unsigned arithmetic; the lowering then erases the sign
// (see ConvertQuantToLinalg).
def Dlc_AnyTensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, UI16,
                                    I32, UI32, I64, UI64]>;
def Dlc_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
// The float8 formats ONNX defines. They only move (and convert: dlc.cast);
// no op computes on them (see passes/lowering/Float8.h).
def Dlc_DataTensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, UI16,
                                     I32, UI32, I64, UI64, F8E4M3FN, F8E4M3FNUZ,
                                     F8E5M2, F8E5M2FNUZ]>;
def Dlc_IndexTensor : RankedTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Dlc_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Dlc_Op<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])> {
  let summary = "elementwise " # mnemonic # " with multidirectional broadcasting";
  let arguments = (ins Dlc_AnyTensor:$lhs, Dlc_AnyTensor:$rhs);
  let results = (outs Dlc_AnyTensor:$result);
  let hasFolder = 1;
}

def Dlc_AddOp : Dlc_BinaryOp<"add", [Commutative]>;
def Dlc_SubOp : Dlc_BinaryOp<"sub">;
def Dlc_MulOp : Dlc_BinaryOp<"mul", [Commutative]>;
def Dlc_DivOp : Dlc_BinaryOp<"div">;
def Dlc_PowOp : Dlc_BinaryOp<"pow">;

class Dlc_UnaryOp<string mnemonic, Type type = Dlc_FloatTensor>
    : Dlc_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "elementwise " # mnemonic;
  let arguments = (ins type:$input);
  let results = (outs type:$result);
}

def Dlc_ReluOp : Dlc_UnaryOp<"relu"> {
  // One-element f32 constants (function bodies' shape arithmetic).
  let hasFolder = 1;
}
def Dlc_SigmoidOp : Dlc_UnaryOp<"sigmoid">;
def Dlc_TanhOp : Dlc_UnaryOp<"tanh">;
def Dlc_ErfOp : Dlc_UnaryOp<"erf">;
def Dlc_SqrtOp : Dlc_UnaryOp<"sqrt"> {
  // One-element f32 constants (SDPA's scale); see DlcFolders.cpp.
  let hasFolder = 1;
}
def Dlc_ExpOp : Dlc_UnaryOp<"exp">;
def Dlc_LogOp : Dlc_UnaryOp<"log">;
def Dlc_SinOp : Dlc_UnaryOp<"sin">;
def Dlc_CosOp : Dlc_UnaryOp<"cos">;
def Dlc_TanOp : Dlc_UnaryOp<"tan">;
def Dlc_AsinOp : Dlc_UnaryOp<"asin">;
def Dlc_AcosOp : Dlc_UnaryOp<"acos">;
def Dlc_AtanOp : Dlc_UnaryOp<"atan">;
def Dlc_SinhOp : Dlc_UnaryOp<"sinh">;
def Dlc_CoshOp : Dlc_UnaryOp<"cosh">;
def Dlc_AsinhOp : Dlc_UnaryOp<"asinh">;
def Dlc_AcoshOp : Dlc_UnaryOp<"acosh">;
def Dlc_AtanhOp : Dlc_UnaryOp<"atanh">;
def Dlc_FloorOp : Dlc_UnaryOp<"floor"> {
  let hasFolder = 1;
}
def Dlc_CeilOp : Dlc_UnaryOp<"ceil"> {
  // One-element f32 constants: Range's function body computes its trip
  // count as ceil((limit - start) / delta).
  let hasFolder = 1;
}
def Dlc_RoundOp : Dlc_UnaryOp<"round"> {
  let description = [{ Rounds half to even, as ONNX Round does. }];
}
def Dlc_ReciprocalOp : Dlc_UnaryOp<"reciprocal">;
def Dlc_SoftplusOp : Dlc_UnaryOp<"softplus">;
def Dlc_SoftsignOp : Dlc_UnaryOp<"softsign">;
def Dlc_MishOp : Dlc_UnaryOp<"mish">;
def Dlc_HardSwishOp : Dlc_UnaryOp<"hard_swish">;

def Dlc_NumericTensor : RankedTensorOf<[F16, BF16, F32, F64, I8, UI8, I16, UI16,
                                        I32, UI32, I64, UI64]>;

def Dlc_AbsOp : Dlc_UnaryOp<"abs", Dlc_NumericTensor>;
def Dlc_NegOp : Dlc_UnaryOp<"neg", Dlc_NumericTensor> {
  // Integer constants (shape arithmetic); see DlcFolders.cpp.
  let hasFolder = 1;
}
def Dlc_SignOp : Dlc_UnaryOp<"sign", Dlc_NumericTensor>;

def Dlc_MaxOp : Dlc_BinaryOp<"max", [Commutative]> {
  let description = [{ Floats: NaN in either operand gives NaN. }];
}
def Dlc_MinOp : Dlc_BinaryOp<"min", [Commutative]> {
  let description = [{ Floats: NaN in either operand gives NaN. }];
}

def Dlc_ModOp : Dlc_Op<"mod", [InferTypeOpAdaptor]> {
  let summary = "elementwise remainder with broadcasting (ONNX Mod)";
  let description = [{
    With `fmod` the result takes the sign of the dividend (C fmod);
    without it, the sign of the divisor (Python %). Both for floats and
    integers (ONNX before opset 22 requires fmod for floats).
  }];
  let arguments = (ins Dlc_NumericTensor:$lhs, Dlc_NumericTensor:$rhs,
                   BoolAttr:$fmod);
  let results = (outs Dlc_NumericTensor:$result);
  // Integer constants (shape arithmetic); see DlcFolders.cpp.
  let hasFolder = 1;
}

def Dlc_PReluOp : Dlc_Op<"prelu", [InferTypeOpAdaptor]> {
  let summary = "x < 0 ? slope * x : x, slope broadcast to x";
  let arguments = (ins Dlc_FloatTensor:$lhs, Dlc_FloatTensor:$rhs);
  let results = (outs Dlc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Activations with parameters
//===----------------------------------------------------------------------===//

class Dlc_ActivationOp<string mnemonic, string formula, dag attrs>
    : Dlc_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "elementwise " # formula;
  let arguments = !con((ins Dlc_FloatTensor:$input), attrs);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_LeakyReluOp : Dlc_ActivationOp<"leaky_relu",
    "x < 0 ? alpha * x : x", (ins F32Attr:$alpha)>;
def Dlc_EluOp : Dlc_ActivationOp<"elu",
    "x < 0 ? alpha * (exp(x) - 1) : x", (ins F32Attr:$alpha)>;
def Dlc_SeluOp : Dlc_ActivationOp<"selu",
    "gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)",
    (ins F32Attr:$alpha, F32Attr:$gamma)>;
def Dlc_CeluOp : Dlc_ActivationOp<"celu",
    "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))", (ins F32Attr:$alpha)>;
def Dlc_HardSigmoidOp : Dlc_ActivationOp<"hard_sigmoid",
    "max(0, min(1, alpha * x + beta))", (ins F32Attr:$alpha, F32Attr:$beta)>;
def Dlc_ThresholdedReluOp : Dlc_ActivationOp<"thresholded_relu",
    "x > alpha ? x : 0", (ins F32Attr:$alpha)>;
def Dlc_GeluOp : Dlc_ActivationOp<"gelu",
    "x * Phi(x), exact (erf) or with the tanh approximation",
    (ins BoolAttr:$tanh_approximation)>;

def Dlc_ClipOp : Dlc_Op<"clip", [SameOperandsAndResultType]> {
  let summary = "clamp to [min, max]";
  let description = [{
    ONNX Clip with its bounds normalized to attributes (opset 11+ passes them
    as constant inputs; absent bounds become -inf/+inf): min(max(x, min),
    max), so min > max gives max everywhere, as ONNX specifies. Integer
    tensors clamp to the bounds saturated to the element type's range.
  }];
  let arguments = (ins Dlc_NumericTensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs Dlc_NumericTensor:$result);
}

def Dlc_CastOp : Dlc_Op<"cast"> {
  let summary = "elementwise conversion to the result's element type";
  let description = [{
    ONNX Cast. `saturate` (default true) applies to float8 results only:
    values beyond the format's finite range become its largest finite
    value, not infinity or NaN.
  }];
  let arguments = (ins Dlc_DataTensor:$input,
                   DefaultValuedOptionalAttr<BoolAttr, "true">:$saturate);
  let results = (outs Dlc_DataTensor:$result);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dlc_BitcastOp : Dlc_Op<"bitcast"> {
  let summary = "each element's bits read as the result's element type";
  let description = [{
    ONNX BitCast: the element types have one bit width, a bool counting as
    its byte (0 or 1; a byte to bool is `!= 0`). The shape is unchanged.
  }];
  let arguments = (ins Dlc_DataTensor:$input);
  let results = (outs Dlc_DataTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Comparison and logic
//===----------------------------------------------------------------------===//

def Dlc_BoolTensor : RankedTensorOf<[I1]>;

class Dlc_CompareOp<string mnemonic, list<Trait> traits = []>
    : Dlc_Op<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])> {
  let summary = "elementwise " # mnemonic # " with broadcasting, bool result";
  let description = [{
    Floats compare as IEEE ordered predicates (NaN compares false), integers
    as signed values (ui8 as unsigned), bools as 0 and 1.
  }];
  let arguments = (ins Dlc_AnyTensor:$lhs, Dlc_AnyTensor:$rhs);
  let results = (outs Dlc_BoolTensor:$result);
  let hasFolder = 1;
}

def Dlc_EqualOp : Dlc_CompareOp<"equal", [Commutative]>;
def Dlc_LessOp : Dlc_CompareOp<"less">;
def Dlc_LessOrEqualOp : Dlc_CompareOp<"less_or_equal">;
def Dlc_GreaterOp : Dlc_CompareOp<"greater">;
def Dlc_GreaterOrEqualOp : Dlc_CompareOp<"greater_or_equal">;

def Dlc_BoolOrIntegerTensor : RankedTensorOf<[I1, I8, UI8, I16, UI16, I32, UI32,
                                              I64, UI64]>;
def Dlc_IntegerTensor : RankedTensorOf<[I8, UI8, I16, UI16, I32, UI32, I64, UI64]>;

class Dlc_LogicalOp<string mnemonic>
    : Dlc_Op<mnemonic, [Commutative, InferTypeOpAdaptor]> {
  let summary = "elementwise " # mnemonic # " with broadcasting";
  let description = [{
    Logical on bools (ONNX And, Or, Xor), bitwise on integers (ONNX
    BitwiseAnd, BitwiseOr, BitwiseXor); the result has the operands' type.
  }];
  let arguments = (ins Dlc_BoolOrIntegerTensor:$lhs,
                   Dlc_BoolOrIntegerTensor:$rhs);
  let results = (outs Dlc_BoolOrIntegerTensor:$result);
  let hasFolder = 1;
}

def Dlc_AndOp : Dlc_LogicalOp<"and">;
def Dlc_OrOp : Dlc_LogicalOp<"or">;
def Dlc_XorOp : Dlc_LogicalOp<"xor">;

def Dlc_NotOp : Dlc_Op<"not", [SameOperandsAndResultType]> {
  let summary = "elementwise logical not (bools) or bitwise not (integers)";
  let arguments = (ins Dlc_BoolOrIntegerTensor:$input);
  let results = (outs Dlc_BoolOrIntegerTensor:$result);
  let hasFolder = 1;
}

def Dlc_BitShiftOp : Dlc_Op<"bit_shift", [InferTypeOpAdaptor]> {
  let summary = "elementwise shift of `lhs` by `rhs` bits (ONNX BitShift)";
  let description = [{
    Left, or right: arithmetic for signed types, logical for unsigned ones.
    A shift amount that is negative or at least the element width gives
    what the fill alone gives: -1 for a right shift of a negative signed
    value, 0 otherwise (ONNX's definition, not C's undefined behaviour).
  }];
  let arguments = (ins Dlc_IntegerTensor:$lhs, Dlc_IntegerTensor:$rhs,
                   BoolAttr:$left);
  let results = (outs Dlc_IntegerTensor:$result);
  let hasFolder = 1;
}

def Dlc_WhereOp : Dlc_Op<"where", [InferTypeOpAdaptor]> {
  let summary = "select `x` where `condition` holds, else `y`";
  let description = [{
    ONNX Where: the three operands broadcast together (numpy rules); `x` and
    `y` share their element type.
  }];
  let arguments = (ins Dlc_BoolTensor:$condition, Dlc_AnyTensor:$x,
                   Dlc_AnyTensor:$y);
  let results = (outs Dlc_AnyTensor:$result);
  let hasFolder = 1;
}

def Dlc_IsNaNOp : Dlc_Op<"is_nan", [InferTypeOpAdaptor]> {
  let summary = "elementwise test for NaN";
  let arguments = (ins Dlc_FloatTensor:$input);
  let results = (outs Dlc_BoolTensor:$result);
}

def Dlc_IsInfOp : Dlc_Op<"is_inf", [InferTypeOpAdaptor]> {
  let summary = "elementwise test for +inf and/or -inf";
  let arguments = (ins Dlc_FloatTensor:$input, BoolAttr:$detect_negative,
                   BoolAttr:$detect_positive);
  let results = (outs Dlc_BoolTensor:$result);
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Dlc_ConvOp : Dlc_Op<"conv", [InferTypeOpAdaptor]> {
  let summary = "N-d convolution (ONNX Conv), NC[D]HW or channels-last layout";
  let description = [{
    `pads` holds the begin pads of every spatial dim followed by the end pads,
    as in ONNX. `group` splits channels: the weight is [M, C/group, k...].

    With `channels_last` (2-D only, set by dlc-convert-conv-layout) the input
    is [N, H, W, C], the weight [M, KH, KW, C/group] and the result
    [N, OH, OW, M]; strides, pads and dilations keep their meaning (spatial
    dims in H, W order) and the bias stays [M].
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$weight,
                   Optional<Dlc_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, I64Attr:$group,
                   UnitAttr:$channels_last);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_GemmOp : Dlc_Op<"gemm", [InferTypeOpAdaptor]> {
  let summary = "alpha * op(A) * op(B) + beta * C (ONNX Gemm)";
  let arguments = (ins Dlc_FloatTensor:$a, Dlc_FloatTensor:$b,
                   Optional<Dlc_FloatTensor>:$c, F32Attr:$alpha, F32Attr:$beta,
                   BoolAttr:$transA, BoolAttr:$transB);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_MatMulOp : Dlc_Op<"matmul", [InferTypeOpAdaptor]> {
  let summary = "batched matrix product with broadcast batch dims";
  let description = [{
    Both operands have rank >= 2 (the importer reshapes ONNX's 1-D cases);
    the leading batch dims broadcast as in numpy.matmul.
  }];
  let arguments = (ins Dlc_FloatTensor:$lhs, Dlc_FloatTensor:$rhs);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_AttentionResultTensor : RankedTensorOf<[F16, BF16, F32, F64, I8]>;

def Dlc_AttentionOp : Dlc_Op<"attention"> {
  let summary = "softmax(scale * Q K^T + mask) V over the last two dims";
  let description = [{
    Scaled dot-product attention as one op, formed by `dlc-fuse-attention`
    from MatMul -> Mul/Div -> Add -> Softmax -> MatMul. All operands have
    the same rank r >= 2; dims [0, r-2) are batch dims (batch, heads).

    - `query`: `[B..., Sq, D]`
    - `key`: `[Bk..., Skv, D]`, or `[Bk..., D, Skv]` with `k_transposed`
      (the MatMul's right operand as the exporter wrote it)
    - `value`: `[Bv..., Skv, Dv]`
    - `mask` (optional, added to the scaled scores): `[Bm..., Sq|1, Skv|1]`
    - result: `[B..., Sq, Dv]`

    Every batch dim of key, value and mask is the query's or 1
    (broadcast). The result's element type is the query's, or f16/bf16:
    computed in f32 and rounded once when stored (`dlc-reduce-precision`
    stores it so when only a half-precision GEMM reads it). With
    `result_scale` and `result_zero_point` the result is i8, quantized from
    the f32 values when stored: `saturate(round_half_even(r / scale) +
    zero_point)`, QuantizeLinear's rule (`dlc-fuse-attention` folds a
    per-tensor QuantizeLinear of the result: an int8 model's attention kept
    in float, feeding the int8 output projection). With `nan_to_zero`, NaN probabilities become 0 before the
    second product -- `Where(IsNaN(p), 0, p)`, torch's SDPA export guard --
    so a row whose softmax is NaN (every key masked with -inf) gives 0.
    The scores `[B..., Sq, Skv]` are never materialized: the lowering
    streams over the keys with the online softmax.

    Layouts: the shapes above are what the op reads. With `query_perm`
    (likewise `key_perm`, `value_perm`) the operand is stored transposed:
    the op reads `transpose(query, query_perm)`, i.e. dim i of the read
    query is dim `query_perm[i]` of the operand. With `result_perm` the
    result is stored as `transpose(result, result_perm)`. This is how
    `dlc-fuse-attention` absorbs the head transposes exporters write around
    attention (`[B, S, H, D]` <-> `[B, H, S, D]`): the kernel reads and
    writes the projections' layout and the transposes never run.

    With `query_select = [d, i]` (likewise `key_select`, `value_select`)
    the operand has one more dim, `d` (never the innermost), of which the
    op reads index `i` only; the permutation applies to the remaining dims.
    GPT-2's Q, K and V are so read from c_attn's one output viewed as
    `[B, S, 3, H, D]` (selects `[2, 0]`, `[2, 1]`, `[2, 2]`), and its Split
    never runs.

    ```mlir
    %o = dlc.attention %q, %kt, %v, %mask {k_transposed = true, scale = 0.125 : f32}
       : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>,
          tensor<1x12x128x64xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x64xf32>
    // The same with Q, K, V and the result in the [B, S, H, D] layout.
    %o = dlc.attention %q, %k, %v, %mask {k_transposed = true,
           query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 3, 1>,
           value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>,
           scale = 0.125 : f32}
       : (tensor<1x128x12x64xf32>, tensor<1x128x12x64xf32>,
          tensor<1x128x12x64xf32>, tensor<1x1x1x128xf32>) -> tensor<1x128x12x64xf32>
    ```
  }];
  let arguments = (ins Dlc_FloatTensor:$query, Dlc_FloatTensor:$key,
                   Dlc_FloatTensor:$value, Optional<Dlc_FloatTensor>:$mask,
                   F32Attr:$scale, BoolAttr:$k_transposed,
                   UnitAttr:$nan_to_zero,
                   OptionalAttr<DenseI64ArrayAttr>:$query_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$key_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$value_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$result_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$query_select,
                   OptionalAttr<DenseI64ArrayAttr>:$key_select,
                   OptionalAttr<DenseI64ArrayAttr>:$value_select,
                   OptionalAttr<F32Attr>:$result_scale,
                   OptionalAttr<I64Attr>:$result_zero_point);
  let extraClassDeclaration = [{
    /// The operand layouts (query, key, value, result), identity if absent.
    AttentionLayout getLayout() {
      return AttentionLayout::of(*this, getType().getRank());
    }
  }];
  let hasVerifier = 1;
  let results = (outs Dlc_AttentionResultTensor:$result);
}

def Dlc_TensorOrBuffer : AnyTypeOf<[AnyRankedTensor, AnyMemRef]>;

def Dlc_AttentionKernelOp : Op<Dlc_Dialect, "attention_kernel", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "dlc.attention in destination-passing style, on tensors or buffers";
  let description = [{
    The form `dlc-convert-to-linalg` gives `dlc.attention`: the result is
    written into `init` (a `tensor.empty`), so that one-shot bufferization
    turns it into an op on buffers (no result) the way it does linalg ops.
    `dlc-outline-kernels` makes it a kernel of its own and the kernel form
    (`dlc-linearize-kernels`) lowers it to one work item per query row that
    streams over the keys with the online softmax (running max, running
    sum, a private accumulator row). Operand shapes and layouts as in
    `dlc.attention` (an i8 init with `result_scale` and
    `result_zero_point`).

    ```mlir
    dlc.attention_kernel %q, %k, %v mask(%m : memref<1x1x1x128xf32>)
        outs(%o : memref<1x12x128x64xf32>) {k_transposed = false, scale = 0.125 : f32}
        : memref<1x12x128x64xf32>, memref<1x12x128x64xf32>, memref<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Dlc_TensorOrBuffer:$query,
                   Dlc_TensorOrBuffer:$key, Dlc_TensorOrBuffer:$value,
                   Optional<Dlc_TensorOrBuffer>:$mask,
                   Dlc_TensorOrBuffer:$init,
                   F32Attr:$scale, BoolAttr:$k_transposed,
                   UnitAttr:$nan_to_zero,
                   OptionalAttr<DenseI64ArrayAttr>:$query_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$key_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$value_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$result_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$query_select,
                   OptionalAttr<DenseI64ArrayAttr>:$key_select,
                   OptionalAttr<DenseI64ArrayAttr>:$value_select,
                   OptionalAttr<F32Attr>:$result_scale,
                   OptionalAttr<I64Attr>:$result_zero_point);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $init `:` type($init) `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value) (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// The operand layouts (query, key, value, result), identity if absent.
    AttentionLayout getLayout() {
      return AttentionLayout::of(
          *this, cast<ShapedType>(getInit().getType()).getRank());
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization, pooling, reductions
//===----------------------------------------------------------------------===//

def Dlc_BatchNormOp : Dlc_Op<"batch_norm", [InferTypeOpAdaptor]> {
  let summary = "inference-mode batch normalization over dim 1";
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$scale,
                   Dlc_FloatTensor:$bias, Dlc_FloatTensor:$mean,
                   Dlc_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Dlc_FloatTensor:$result);
}

class Dlc_PoolOp<string mnemonic> : Dlc_Op<mnemonic, [InferTypeOpAdaptor]> {
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_MaxPoolOp : Dlc_Op<"max_pool", [InferTypeOpAdaptor]> {
  let summary = "N-d max pooling (ONNX MaxPool, single output)";
  let description = [{
    Floats, and int8/uint8 as ONNX allows since opset 12. `channels_last`
    (2-D only): input and result are [N, H, W, C].
  }];
  let results = (outs Dlc_NumericTensor:$result);
  let arguments = (ins Dlc_NumericTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   UnitAttr:$channels_last);
}

def Dlc_AveragePoolOp : Dlc_PoolOp<"average_pool"> {
  let summary = "N-d average pooling (ONNX AveragePool)";
  let description = [{
    `channels_last` (2-D only): input and result are [N, H, W, C].
  }];
  let arguments = (ins Dlc_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   BoolAttr:$count_include_pad, UnitAttr:$channels_last);
}

def Dlc_ReduceMeanOp : Dlc_Op<"reduce_mean", [InferTypeOpAdaptor]> {
  let summary = "mean over `axes` (GlobalAveragePool imports as this too)";
  let arguments = (ins Dlc_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                   BoolAttr:$keepdims);
  let results = (outs Dlc_FloatTensor:$result);
}

class Dlc_ReduceOp<string mnemonic, string what, Type type = Dlc_NumericTensor>
    : Dlc_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = what # " over `axes` (sorted, unique, non-negative)";
  let arguments = (ins type:$input, DenseI64ArrayAttr:$axes,
                   BoolAttr:$keepdims);
  let results = (outs type:$result);
}

def Dlc_ReduceSumOp : Dlc_ReduceOp<"reduce_sum", "sum">;
def Dlc_ReduceProdOp : Dlc_ReduceOp<"reduce_prod", "product">;
// Bools too (any / all), as ONNX allows since opset 20.
def Dlc_ReduceMaxOp : Dlc_ReduceOp<"reduce_max", "maximum",
    RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, UI16, I32, UI32,
                    I64, UI64]>>;
def Dlc_ReduceMinOp : Dlc_ReduceOp<"reduce_min", "minimum",
    RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, UI16, I32, UI32,
                    I64, UI64]>>;
def Dlc_ReduceL1Op : Dlc_ReduceOp<"reduce_l1", "sum of |x|">;
def Dlc_ReduceSumSquareOp : Dlc_ReduceOp<"reduce_sum_square", "sum of x^2">;
def Dlc_ReduceL2Op : Dlc_ReduceOp<"reduce_l2", "sqrt of the sum of x^2",
                                  Dlc_FloatTensor>;
def Dlc_ReduceLogSumOp : Dlc_ReduceOp<"reduce_log_sum", "log of the sum",
                                      Dlc_FloatTensor>;
def Dlc_ReduceLogSumExpOp : Dlc_ReduceOp<"reduce_log_sum_exp",
                                         "log of the sum of exp(x)",
                                         Dlc_FloatTensor>;

class Dlc_ArgReduceOp<string mnemonic, string what>
    : Dlc_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = "index of the " # what # " along `axis` (i64)";
  let description = [{
    Ties resolve to the first index, or the last with `select_last_index`.
  }];
  let arguments = (ins Dlc_NumericTensor:$input, I64Attr:$axis,
                   BoolAttr:$keepdims, BoolAttr:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
}

def Dlc_ArgMaxOp : Dlc_ArgReduceOp<"arg_max", "maximum">;
def Dlc_ArgMinOp : Dlc_ArgReduceOp<"arg_min", "minimum">;

def Dlc_SoftmaxOp : Dlc_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one axis (opset 13 semantics)";
  let arguments = (ins Dlc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Dlc_FloatTensor:$result);
  let hasVerifier = 1;
}

def Dlc_LogSoftmaxOp : Dlc_Op<"log_softmax", [SameOperandsAndResultType]> {
  let summary = "log of softmax along one axis (opset 13 semantics)";
  let arguments = (ins Dlc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Dlc_FloatTensor:$result);
  let hasVerifier = 1;
}

def Dlc_LayerNormOp : Dlc_Op<"layer_norm", [InferTypeOpAdaptor]> {
  let summary = "layer normalization over dims [axis, rank)";
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$scale,
                   Optional<Dlc_FloatTensor>:$bias, I64Attr:$axis,
                   F32Attr:$epsilon);
  let results = (outs Dlc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Dlc_ReshapeOp : Dlc_Op<"reshape"> {
  let summary = "reinterpret the shape (Reshape, Flatten, Squeeze, Unsqueeze)";
  let arguments = (ins Dlc_DataTensor:$input);
  let results = (outs Dlc_DataTensor:$result);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dlc_TransposeOp : Dlc_Op<"transpose", [InferTypeOpAdaptor]> {
  let summary = "permute dims: result dim i is input dim perm[i]";
  let arguments = (ins Dlc_DataTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Dlc_DataTensor:$result);
}

def Dlc_ConcatOp : Dlc_Op<"concat", [InferTypeOpAdaptor]> {
  let summary = "concatenate along `axis`";
  let arguments = (ins Variadic<Dlc_DataTensor>:$inputs, I64Attr:$axis);
  let results = (outs Dlc_DataTensor:$result);
  let hasFolder = 1;
}

def Dlc_GatherOp : Dlc_Op<"gather", [InferTypeOpAdaptor]> {
  let summary = "ONNX Gather: take slices of `data` along `axis`";
  let description = [{
    Negative indices count from the end. Indices outside [-n, n) are clamped
    into range at run time (see docs/ops.md for the policy).
  }];
  let arguments = (ins Dlc_DataTensor:$data, Dlc_IndexTensor:$indices,
                   I64Attr:$axis);
  let results = (outs Dlc_DataTensor:$result);
  let hasFolder = 1;
  // Constant indices 0, 1, ..., n - 1 over the whole axis (torch's arange
  // indexing) take every slice in order: a reshape of `data`.
  let hasCanonicalizeMethod = 1;
}

def Dlc_SliceOp : Dlc_Op<"slice", [InferTypeOpAdaptor]> {
  let summary = "strided slice with one (start, end, step) per dim";
  let description = [{
    Normalized by the importer: every dim has an entry, starts are clamped
    into range, ends are exclusive and clamped (-1 allowed for negative
    steps meaning "before index 0"), steps are non-zero.
  }];
  let arguments = (ins Dlc_DataTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Dlc_DataTensor:$result);
  let hasFolder = 1;
}

def Dlc_ExpandOp : Dlc_Op<"expand", [InferTypeOpAdaptor]> {
  let summary = "broadcast the input to `shape` (ONNX Expand)";
  let description = [{
    The result shape is the numpy broadcast of the input shape and `shape`,
    so a 1 in `shape` keeps the input dim and the rank may grow.
  }];
  let arguments = (ins Dlc_DataTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Dlc_DataTensor:$result);
  let hasFolder = 1;
}

def Dlc_GatherElementsOp : Dlc_Op<"gather_elements", [InferTypeOpAdaptor]> {
  let summary = "ONNX GatherElements: index `data` along `axis` per element";
  let description = [{
    The result has the shape of `indices` (same rank as `data`); element
    `i` reads `data` at `i` with dim `axis` replaced by `indices[i]`.
    Negative indices count from the end; out-of-range indices are clamped
    as for dlc.gather.
  }];
  let arguments = (ins Dlc_AnyTensor:$data, Dlc_IndexTensor:$indices,
                   I64Attr:$axis);
  let results = (outs Dlc_AnyTensor:$result);
  // Constant data and indices (at most 4096 elements each, i64 resource
  // blobs included) fold, as BertModel's position ids do.
  let hasFolder = 1;
}

def Dlc_TileOp : Dlc_Op<"tile", [InferTypeOpAdaptor]> {
  let summary = "repeat the input `repeats[i]` times along dim i";
  let arguments = (ins Dlc_AnyTensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Dlc_AnyTensor:$result);
}

def Dlc_PadOp : Dlc_Op<"pad", [InferTypeOpAdaptor]> {
  let summary = "pad (or crop, with negative pads) every dim (ONNX Pad)";
  let description = [{
    `pads` holds the begin pads of every dim followed by the end pads.
    `mode` is "constant" (fill with `value`), "reflect" (mirror without
    repeating the edge), "edge" (repeat the edge) or "wrap" (periodic).
  }];
  let arguments = (ins Dlc_DataTensor:$input, DenseI64ArrayAttr:$pads,
                   StrAttr:$mode, F64Attr:$value);
  let results = (outs Dlc_DataTensor:$result);
}

def Dlc_TriluOp : Dlc_Op<"trilu", [SameOperandsAndResultType]> {
  let summary = "keep the upper or lower triangle of the last two dims";
  let description = [{
    Element (i, j) of each matrix is kept when j - i >= k (`upper`) or
    j - i <= k (lower); others become 0.
  }];
  let arguments = (ins Dlc_AnyTensor:$input, BoolAttr:$upper, I64Attr:$k);
  let results = (outs Dlc_AnyTensor:$result);
  let hasVerifier = 1;
}

class Dlc_CumulativeOp<string mnemonic, string what>
    : Dlc_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "cumulative " # what # " along `axis` (ONNX Cum" # what # ")";
  let arguments = (ins Dlc_NumericTensor:$input, I64Attr:$axis,
                   BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Dlc_NumericTensor:$result);
  let hasVerifier = 1;
}

def Dlc_CumSumOp : Dlc_CumulativeOp<"cumsum", "Sum">;
def Dlc_CumProdOp : Dlc_CumulativeOp<"cumprod", "Prod">;

def Dlc_GatherNDOp : Dlc_Op<"gather_nd", [InferTypeOpAdaptor]> {
  let summary = "ONNX GatherND: index `data` with tuples from `indices`";
  let description = [{
    The last dim of `indices` (k) indexes data dims [batch_dims,
    batch_dims + k); the leading `batch_dims` dims of data and indices
    correspond. Negative indices wrap; out-of-range indices are clamped.
  }];
  let arguments = (ins Dlc_AnyTensor:$data, Dlc_IndexTensor:$indices,
                   I64Attr:$batch_dims);
  let results = (outs Dlc_AnyTensor:$result);
}

def Dlc_ScatterElementsOp : Dlc_Op<"scatter_elements", [InferTypeOpAdaptor]> {
  let summary = "ONNX ScatterElements: `data` with `updates` written along `axis`";
  let description = [{
    `reduction` is "none" (a later update wins), "add", "mul", "max" or
    "min". Negative indices wrap; out-of-range indices are clamped.
  }];
  let arguments = (ins Dlc_AnyTensor:$data, Dlc_IndexTensor:$indices,
                   Dlc_AnyTensor:$updates, I64Attr:$axis, StrAttr:$reduction);
  let results = (outs Dlc_AnyTensor:$result);
}

def Dlc_ScatterNDOp : Dlc_Op<"scatter_nd", [InferTypeOpAdaptor]> {
  let summary = "ONNX ScatterND: `data` with slices replaced at index tuples";
  let description = [{
    `reduction` as for dlc.scatter_elements. Negative indices wrap;
    out-of-range indices are clamped.
  }];
  let arguments = (ins Dlc_AnyTensor:$data, Dlc_IndexTensor:$indices,
                   Dlc_AnyTensor:$updates, StrAttr:$reduction);
  let results = (outs Dlc_AnyTensor:$result);
}

def Dlc_OneHotOp : Dlc_Op<"one_hot", [InferTypeOpAdaptor]> {
  let summary = "ONNX OneHot: a new dim of size `depth` at `axis`";
  let description = [{
    `values` holds [off, on]. Negative indices count from `depth`; indices
    outside [-depth, depth) give an all-off row.
  }];
  let arguments = (ins Dlc_IndexTensor:$indices, Dlc_AnyTensor:$values,
                   I64Attr:$axis, I64Attr:$depth);
  let results = (outs Dlc_AnyTensor:$result);
}

def Dlc_EinsumOp : Dlc_Op<"einsum", [InferTypeOpAdaptor]> {
  let summary = "Einstein summation with an explicit, ellipsis-free equation";
  let description = [{
    `equation` is "in1,in2,...->out" with one letter per dim. Letters not in
    the output are summed over; a size-1 dim broadcasts against the letter's
    extent (the importer expands "..." into such letters).
  }];
  let arguments = (ins Variadic<Dlc_NumericTensor>:$inputs, StrAttr:$equation);
  let results = (outs Dlc_NumericTensor:$result);
}

def Dlc_TopKOp : Dlc_Op<"top_k", [InferTypeOpAdaptor]> {
  let summary = "the k largest (or smallest) elements along `axis`, sorted";
  let description = [{
    Results are the values and their i64 indices, in order (largest first,
    or smallest first without `largest`); equal values keep the lower index
    first.
  }];
  let arguments = (ins Dlc_NumericTensor:$input, I64Attr:$axis, I64Attr:$k,
                   BoolAttr:$largest);
  let results = (outs Dlc_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
}

def Dlc_GridSampleOp : Dlc_Op<"grid_sample"> {
  let summary = "samples the input at a grid of normalized coordinates (ONNX GridSample)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `grid` `[N, O1, ..., Ok, k]` with
    coordinates in [-1, 1], the last dim's entries in reverse dim order
    (x, the last spatial dim, first), the result `[N, C, O1, ..., Ok]`.
    `mode` is "nearest" (half to even), "linear" (2 taps a dim) or "cubic"
    (Keys' kernel, a = -0.75, 4 taps a dim); `padding_mode` "zeros",
    "border" or "reflection"; `align_corners` maps -1 and 1 to the corner
    pixels' centres instead of their outer edges.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$grid,
                   StrAttr:$mode, StrAttr:$padding_mode,
                   BoolAttr:$align_corners);
  let results = (outs Dlc_FloatTensor:$result);
  let hasVerifier = 1;
}

def Dlc_ResizeOp : Dlc_Op<"resize"> {
  let summary = "nearest, (multi)linear or (multi)cubic resize to the result shape";
  let description = [{
    `scales` has one entry per dim (output = input * scale before rounding,
    or output / input when sizes were given); it drives the coordinate
    transform. `mode` is "nearest", "linear" or "cubic" (Keys' kernel with
    `cubic_coeff_a`, 4 taps a resized dim at clamped indices; with
    `exclude_outside` the taps outside the input weigh 0 and the others are
    renormalized);
    `coordinate_transformation_mode` one of "half_pixel",
    "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
    "asymmetric", "tf_crop_and_resize"; `nearest_mode` one of
    "round_prefer_floor", "round_prefer_ceil", "floor", "ceil".
    tf_crop_and_resize samples the box `roi` (normalized starts of every
    dim, then ends) and writes `extrapolation_value` where a source
    coordinate falls outside the input. With `antialias` a downsampling
    linear or cubic dim stretches its filter by 1 / scale (more taps,
    weights normalized), as onnx's reference.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, StrAttr:$mode,
                   StrAttr:$coordinate_transformation_mode,
                   StrAttr:$nearest_mode, DenseF64ArrayAttr:$scales,
                   DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                   DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                   OptionalAttr<DenseF64ArrayAttr>:$roi,
                   DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
                   DefaultValuedAttr<BoolAttr, "false">:$antialias);
  let results = (outs Dlc_FloatTensor:$result);
  let hasVerifier = 1;
}

def Dlc_ConvTransposeOp : Dlc_Op<"conv_transpose", [InferTypeOpAdaptor]> {
  let summary = "N-d transposed convolution (ONNX ConvTranspose), NC[D]HW";
  let description = [{
    The weight is [C, M/group, k...]. `pads` (begin pads then end pads) trim
    the full output; `output_padding` extends the end.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$weight,
                   Optional<Dlc_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$output_padding, I64Attr:$group);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_ShapeOp : Dlc_Op<"shape", [InferTypeOpAdaptor]> {
  let summary = "the shape of a tensor as a 1-D i64 tensor (dims [start, end))";
  let arguments = (ins Dlc_DataTensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs 1DTensorOf<[I64]>:$result);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//
// ONNX's linear quantization: q = saturate(round_half_even(x / scale) + zp),
// x = (q - zp) * scale. `ui8` is ONNX uint8 and `i8` int8; signedness lives
// only in the dlc types (dlc-convert-to-linalg erases it: the lowered IR is
// signless i8 with extui/extsi chosen from the dlc type). quantize_linear
// and dequantize_linear also take ONNX's int16/uint16 (opset 21, ONNX
// Runtime's 16-bit activations); the integer kernels are 8-bit only.
//
// A scale (and its zero point) is either per tensor (rank 0) or per axis
// (1-D, one entry per element of dim `axis` of the quantized tensor).
//===----------------------------------------------------------------------===//

def Dlc_QuantTensor : RankedTensorOf<[I8, UI8]>;
def Dlc_LinearQuantTensor : RankedTensorOf<[I8, UI8, I16, UI16]>;
def Dlc_LinearQuantOrI32Tensor : RankedTensorOf<[I8, UI8, I16, UI16, I32]>;
def Dlc_I32Tensor : RankedTensorOf<[I32]>;

def Dlc_QuantizeLinearOp : Dlc_Op<"quantize_linear", [InferTypeOpAdaptor]> {
  let summary = "float to (u)int8/(u)int16: saturate(round(x / scale) + zero_point)";
  let description = [{
    ONNX QuantizeLinear (opset 10-21, no blocks). Rounds half to even and
    saturates to the range of the zero point's element type, which is the
    result's element type. `scale` and `zero_point` have the same shape:
    rank 0 (per tensor) or `[dim(input, axis)]` (per axis).

    ```mlir
    %q = dlc.quantize_linear %x, %s, %zp {axis = 1 : i64}
       : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4xi8>
    ```
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$scale,
                   Dlc_LinearQuantTensor:$zero_point, I64Attr:$axis);
  let results = (outs Dlc_LinearQuantTensor:$result);
}

def Dlc_DequantizeLinearOp : Dlc_Op<"dequantize_linear", [InferTypeOpAdaptor]> {
  let summary = "(u)int8/(u)int16/int32 to float: (x - zero_point) * scale";
  let description = [{
    ONNX DequantizeLinear (opset 10-21, no blocks); the result has the
    scale's element type. `zero_point` has the input's element type and the
    scale's shape (rank 0 or `[dim(input, axis)]`).
  }];
  let arguments = (ins Dlc_LinearQuantOrI32Tensor:$input,
                   Dlc_FloatTensor:$scale,
                   Dlc_LinearQuantOrI32Tensor:$zero_point, I64Attr:$axis);
  let results = (outs Dlc_FloatTensor:$result);
}

def Dlc_ConvIntegerOp : Dlc_Op<"conv_integer", [InferTypeOpAdaptor]> {
  let summary = "integer convolution with i32 accumulation (ONNX ConvInteger)";
  let description = [{
    sum((x - x_zp) * (w - w_zp)) in i32, NC[D]HW, attributes as dlc.conv.
    `input_zero_point` is rank 0; `weight_zero_point` is rank 0 or one per
    output channel. Padding contributes 0 (the padded input equals x_zp).
    `channels_last` (2-D only): input [N, H, W, C], weight [M, KH, KW,
    C/group], result [N, OH, OW, M], as for dlc.conv.
  }];
  let arguments = (ins Dlc_QuantTensor:$input, Dlc_QuantTensor:$weight,
                   Dlc_QuantTensor:$input_zero_point,
                   Dlc_QuantTensor:$weight_zero_point,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, I64Attr:$group,
                   UnitAttr:$channels_last);
  let results = (outs Dlc_I32Tensor:$result);
}

def Dlc_MatMulIntegerOp : Dlc_Op<"matmul_integer", [InferTypeOpAdaptor]> {
  let summary = "integer matrix product with i32 accumulation (MatMulInteger)";
  let description = [{
    sum_k (lhs[..., m, k] - lhs_zp) * (rhs[..., k, n] - rhs_zp[n]) in i32,
    batch dims broadcast as in dlc.matmul. `lhs_zero_point` is rank 0;
    `rhs_zero_point` is rank 0 or `[N]`. With `rhs_transposed` the rhs is
    laid out `[..., N, K]` (Gemm's transB), so constant weights need no
    transpose kernel.
  }];
  let arguments = (ins Dlc_QuantTensor:$lhs, Dlc_QuantTensor:$rhs,
                   Dlc_QuantTensor:$lhs_zero_point,
                   Dlc_QuantTensor:$rhs_zero_point, BoolAttr:$rhs_transposed);
  let results = (outs Dlc_I32Tensor:$result);
}

def Dlc_RequantizeOp : Dlc_Op<"requantize", [InferTypeOpAdaptor]> {
  let summary = "i32 accumulator to int8/uint8: the integer GEMM/Conv epilogue";
  let description = [{
    saturate(round_half_even(f32(acc + bias[c]) * multiplier[c]) + zp) with
    `c` the index along `axis`; `multiplier` (f32) is rank 0 or 1-D over
    `axis` (per output channel: x_scale * w_scale[c] / y_scale), `bias`
    (optional, i32) is 1-D over `axis`, `zero_point` rank 0; the result has
    the zero point's element type. Kernel fusion merges it into the
    producing conv_integer / matmul_integer kernel.
  }];
  let arguments = (ins Dlc_I32Tensor:$input, Optional<Dlc_I32Tensor>:$bias,
                   RankedTensorOf<[F32]>:$multiplier,
                   Dlc_QuantTensor:$zero_point, I64Attr:$axis);
  let results = (outs Dlc_QuantTensor:$result);
}

#endif // DLC_OPS_TD
