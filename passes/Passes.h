//===- Passes.h - dlc passes ------------------------------------*- C++ -*-===//
//
/// \file
/// Declarations of every dlc pass (generated from Passes.td) and the pattern
/// sets that pipelines reuse.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_PASSES_H
#define DLC_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace dlc {

/// Host: the fewest rows (output channels) a plane taken as one row must
/// have besides: 8 work items of 8 rows (dlc-collapse-row-planes
/// `min-rows`, and dlc-convert-to-linalg's convs on an input's width or
/// phases).
constexpr int64_t kMinPlaneRows = 64;

/// Host: a byte row's tile, 16 lanes loaded whole (no masked byte loads
/// before AVX-512): integer convs' planes round to it (dlc-convert-to-linalg
/// `conv-plane-rows`) and take it whole (dlc-collapse-row-planes
/// `byte-max-row`).
constexpr int64_t kHostByteTile = 16;

/// Host: the most rows a work item's row block takes (dlc-linearize-kernels
/// `row-block`, `byte-row-block`): dlc-vectorize-host-rows keeps vector
/// accumulators for each, and 16 of AVX-512's 32 registers leave the rest
/// to the tiles' reads (32 spilled: resnet50_int8 29.7 -> 32.5 ms); a
/// longer block would leave the row scalar.
constexpr int64_t kMaxRowCopies = 16;

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Patterns lowering dlc ops to linalg/tensor/arith/math on tensors.
void populateDlcToLinalgPatterns(RewritePatternSet &patterns,
                                 bool f32WeightsNK = false,
                                 bool halfWeightsNK = false,
                                 bool padConvChannels = false,
                                 bool padConvInput = false,
                                 int64_t convPlaneRows = 0,
                                 bool padGroupedConvInput = false,
                                 bool twoPassSoftmax = false);

/// Patterns lowering the quantization ops (quantize_linear,
/// dequantize_linear, conv_integer, matmul_integer, requantize) to linalg on
/// signless tensors, with tensor.bitcast where dlc types are unsigned.
void populateDlcQuantToLinalgPatterns(
    RewritePatternSet &patterns, bool int8WeightsNK = false,
    bool padConvChannels = false, bool reciprocalQuantize = false,
    bool padConvInput = false, bool vnniConvs = false,
    bool pairConvWeights = false, bool wideConvWeights = false,
    int64_t convPlaneRows = 0, bool pairMatMulWeights = false,
    bool quadMatMulWeights = false, bool padGroupedConvInput = false,
    bool quadConvInputs = false);

/// Makes every unsigned integer type under `root` signless (values, block
/// arguments, function types, constants) and drops the tensor.bitcasts
/// that become identities: after dlc-convert-to-linalg, signedness has been
/// spent choosing extui/extsi and the rest of the pipeline sees only i8.
void eraseUnsignedIntegerTypes(Operation *root);

/// Patterns folding QDQ-quantized dlc.conv / dlc.gemm / dlc.matmul (float
/// ops between dequantize_linear and quantize_linear, all scales and zero
/// points constant) into conv_integer / matmul_integer + requantize, or a
/// dequantizing epilogue where the float result is used; and the quantize of
/// a (relu of a) sum of dequantize_linear ops onto a unit scale, its scale
/// folded into the addends'.
void populateFoldQdqPatterns(RewritePatternSet &patterns);

/// Patterns moving quantize_linear up through the ops that commute with
/// quantization (Relu, Clip, MaxPool, Reshape, Transpose, Concat) when that
/// ends at a QDQ Conv/Gemm/MatMul that folds or at a dequantize_linear on
/// the same grid (which cancels), so int8 tensors flow between quantized
/// layers. dlc-fold-qdq applies them before populateFoldQdqPatterns.
void populateQuantizeChainPatterns(RewritePatternSet &patterns);

/// dequantize_linear of constants -> their f32 value as a constant
/// (dlc-fold-constant-dequantize).
void populateFoldConstantDequantizePatterns(RewritePatternSet &patterns);

/// Patterns quantizing the dlc.conv / dlc.gemm / dlc.matmul ops (and global
/// average pools) that carry `dlc.input_ranges` into quantize/dequantize pairs
/// for dlc-fold-qdq; with `residuals`, the dlc.add ops reading a quantized
/// activation read its dequantized value too.
void populateQuantizeModelPatterns(RewritePatternSet &patterns,
                                   bool residuals);

/// dlc-convert-conv-layout: 2-D NCHW conv / conv_integer -> channels_last
/// between transposes, and the patterns that sink transposes through
/// elementwise, quantization, reduction, concat and pooling ops and cancel
/// inverse pairs.
void populateConvertConvLayoutPatterns(RewritePatternSet &patterns);

/// softmax(scale * Q K^T + mask) V chains of dlc ops -> dlc.attention.
void populateFuseAttentionPatterns(RewritePatternSet &patterns);

/// GELU as exporters decompose it (erf or tanh form) -> dlc.gelu.
void populateFuseActivationsPatterns(RewritePatternSet &patterns);

/// dlc's elementwise fusion: upstream's linalg patterns with the control
/// that refuses fusions recomputing the producer per consumer element.
void populateDlcElementwiseFusionPatterns(RewritePatternSet &patterns);

/// dlc-fold-accumulator-bias: an integer reduction's bias add moves from
/// its reader's body into its init.
void populateFoldAccumulatorBiasPatterns(RewritePatternSet &patterns);

/// Attribute names shared by the kernel passes and the packager.
namespace attrs {
/// On a kernel func: the number of independent work items ("blocks" on the
/// host, threads on CUDA) of its linearized iteration space.
constexpr const char kWorkItems[] = "dlc.work_items";
/// On a kernel func / gpu.func: the CUDA launch shape.
constexpr const char kGrid[] = "dlc.grid";
constexpr const char kBlock[] = "dlc.block";
/// On a kernel func built as a CTA program (dlc-tile-gemm-kernels): the
/// threads of one work item, which is then a CUDA block, and the dynamic
/// shared memory it needs.
constexpr const char kCtaThreads[] = "dlc.cta_threads";
/// CTAs per thread-block cluster of a kernel (sm_90; the PTX declares it
/// with `.explicitcluster` and `.reqnctapercluster`, so a plain launch
/// forms the clusters).
constexpr const char kClusterCtas[] = "dlc.cluster_ctas";
constexpr const char kSharedBytes[] = "dlc.shared_bytes";
/// On a CTA-program kernel: the CTAs an SM is to hold at once, which the
/// PTX declares with `.minnctapersm` (ptxas then keeps the registers of a
/// thread within the SM's share).
constexpr const char kMinCtasPerSm[] = "dlc.min_ctas_per_sm";
/// On a CTA-program kernel whose CTAs loop over its tiles (persistent
/// GEMMs): its work items were sized to one wave on the planned SMs, so it
/// is not merged with another launch.
constexpr const char kPersistent[] = "dlc.persistent";
/// On the linalg.generic of a channels-last padded copy (the input a
/// convolution reads, `padChannelsLast` without channel padding): the pads,
/// [begin H, begin W, end H, end W]; the padding is zero, or the generic's
/// one input (a rank-0 tensor: an int8 input's zero point).
/// dlc-tile-gemm-kernels folds such a copy into the implicit GEMM reading
/// it, whose im2col loads then fill the chunks outside the input.
constexpr const char kPadding[] = "dlc.padding";
/// On a float Conv/Gemm/MatMul that reads a dequantize_linear but did not
/// fold into an integer op: why (dlc-fold-qdq), for the report.
constexpr const char kNotFolded[] = "dlc.not_folded";
/// On a kernel argument: pass the address of a TMA tensor map over this
/// buffer instead of the buffer ({dims, box} innermost first, swizzle in
/// bytes); the packager adds it to the model.so's tensor-map table.
constexpr const char kTensorMap[] = "dlc.tensor_map";
/// On the model function's memref.alloc ops: the planned arena offset.
constexpr const char kArenaOffset[] = "dlc.arena_offset";
/// On the model function's memref.alloc ops: [first, last] op positions
/// of the live range the planner used (for reports and checkers).
constexpr const char kLiveRange[] = "dlc.live_range";
/// On a memref.alloc written in place over another: the index (in program
/// order among the model function's allocs) of the buffer it reuses.
constexpr const char kInPlaceOf[] = "dlc.in_place_of";
/// On the model function: planned arena size and the planner's figures.
constexpr const char kArenaSize[] = "dlc.arena_size";
constexpr const char kNaiveSize[] = "dlc.naive_bytes";
constexpr const char kLowerBound[] = "dlc.lower_bound_bytes";
/// On kernel funcs: the ONNX node names the kernel computes.
constexpr const char kNodes[] = "dlc.nodes";
/// On kernel funcs: no two buffer arguments alias (distinct allocations).
constexpr const char kDistinctArgs[] = "dlc.distinct_args";
/// Marks functions holding one kernel.
constexpr const char kKernel[] = "dlc.kernel";
/// The module's memref.global holding the status word of run-time checks;
/// the packager maps it to the runtime's per-context DLC_BUFFER_STATUS.
constexpr const char kStatusGlobal[] = "__dlc_status";
/// On the module: the message of each run-time check; check k (what the
/// kernel stores into the status word) is entry k - 1.
constexpr const char kChecks[] = "dlc.checks";
/// On a dlc op that reads indices at run time: its check number.
constexpr const char kCheck[] = "dlc.check";
} // namespace attrs

/// The CUDA launch shape of a linearized kernel: one thread per work item in
/// blocks of `blockSize` threads. Shared by dlc-map-kernels-to-gpu and the
/// packager so the plan launches exactly what the kernel guards for.
struct LaunchShape {
  int64_t grid;
  int64_t block;
};
inline LaunchShape cudaLaunchShape(int64_t workItems, int64_t blockSize) {
  return {std::max<int64_t>(1, (workItems + blockSize - 1) / blockSize),
          blockSize};
}

/// Gemms on rows flattened by a Reshape whose result is reshaped back
/// become batched MatMuls plus a bias Add (dlc-unflatten-gemms).
void populateUnflattenGemmsPatterns(RewritePatternSet &patterns);

/// Links PTX modules the NVPTX backend printed for one target into one
/// module (what dlc-serialize-kernels does): one set of header directives;
/// a symbol defined identically in several is kept once, one defined
/// differently is renamed in the later module. Two modules defining the
/// same kernel differently is an error, reported at `loc`.
FailureOr<std::string> linkPtxModules(ArrayRef<std::string> modules,
                                      Location loc);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace dlc
} // namespace mlir

#endif // DLC_PASSES_PASSES_H
