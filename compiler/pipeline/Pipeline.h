//===- Pipeline.h - the ordered pass pipelines -------------------*- C++
//-*-===//
//
/// \file
/// Every pass order dlc runs, in one place. The frontend pipeline takes the
/// imported dlc module to the execution plan (model function + kernels); the
/// kernel pipelines take a module of kernels to PTX or to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_PIPELINE_PIPELINE_H
#define DLC_COMPILER_PIPELINE_PIPELINE_H

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;
namespace dlc {

enum class Target { Cuda, Cpu };

/// The layout 2-D convolutions compute in (dlc-convert-conv-layout).
enum class ConvLayout {
  /// NHWC where the kernels are the CUDA form (--target=cuda, and the host's
  /// --cuda-kernel-form), NCHW for the host's own kernels.
  Auto,
  Nchw,
  Nhwc,
};

/// Options shared by the driver, the pipelines and the packager.
struct CompileOptions {
  Target target = Target::Cuda;
  /// CUDA: sm_80, sm_90, ...
  std::string arch = "sm_90";
  /// Host: the x86-64 CPU level the code may assume.
  std::string hostCpu = "x86-64-v2";
  /// Host: LLVM target features (+avx2,-avx512f,...) added to hostCpu's.
  std::string hostFeatures;
  /// Host: the widest vector registers of hostCpu, in bits
  /// (dlc::hostVectorBits).
  int64_t hostVectorBits = 128;
  /// Host: byte dot products on AVX512-VNNI (dlc::deriveHostIsa; the
  /// dlc-vectorize-host-rows `vnni` option).
  bool hostVnni = false;
  /// Host: otherwise byte dot products on pmaddwd of this many bits (128:
  /// SSE2, 256: AVX2; 0: off; dlc::deriveHostIsa).
  int64_t hostPmaddwdBits = 128;
  /// CUDA toolkit root (libdevice, ptxas); empty: found from PATH.
  std::string cudaToolkit;
  /// SMs the tile cost models plan for; 0: smCountFor(arch).
  int64_t smCount = 0;
  /// --gemm-tile: BMxBN for every tensor-core GEMM whose path has it;
  /// empty: the cost model.
  std::string gemmTile;
  /// Threads per block of the generated CUDA kernels.
  int64_t cudaBlockSize = 256;
  /// Consecutive elements per CUDA thread (128-bit accesses for f32).
  int64_t cudaVectorWidth = 4;
  /// Host target only: build the kernels in the CUDA kernel form (fusion
  /// decisions, work items, per-thread vector width) and run them on the
  /// host, so the GPU's kernel IR is checked numerically without a GPU.
  bool hostRunsCudaKernelForm = false;
  /// Alignment of arena buffers (bytes).
  int64_t arenaAlignment = 256;
  /// Fusion passes, on by default; off for bisection.
  bool fuseElementwise = true;
  bool fuseKernels = true;
  /// Host: producers write padded copies' interiors (dlc-fold-padded-copies).
  bool foldPaddedCopies = true;
  /// Host: integer reductions start from their bias
  /// (dlc-fold-accumulator-bias).
  bool foldAccumulatorBias = true;
  /// MatMul-Softmax-MatMul attention as one online-softmax kernel.
  bool fuseAttention = true;
  /// Decomposed GELU chains as one dlc.gelu.
  bool fuseActivations = true;
  /// Fold QDQ Conv/Gemm/MatMul into integer ops (on by default).
  bool foldQdq = true;
  /// --precision=int8: residual adds read a quantized layer input in its
  /// int8 form (dlc-quantize's quantize-residuals).
  bool quantizeResiduals = true;
  /// --precision=fp16|bf16: Conv/Gemm/MatMul operands in that type, f32
  /// accumulation (dlc-reduce-precision); empty keeps fp32.
  std::string reducedPrecision;
  /// CUDA form: 16-bit GEMM kernels on tensor cores (dlc-tile-gemm-kernels);
  /// off for bisection.
  bool tensorCores = true;
  /// --allow-tf32: f32 GEMMs and convolutions on TF32 tensor cores too.
  bool allowTf32 = false;
  /// CUDA form: row reduction kernels as one warp per row
  /// (dlc-distribute-reductions); off for bisection.
  bool warpReductions = true;
  /// sm_90a: wgmma GEMMs load whole row-major operands with TMA.
  bool tma = true;
  /// With TMA: a producer warp issues the copies (both operands on TMA).
  bool warpSpecialize = true;
  /// With warp specialization: GEMMs needing more than one wave of CTAs run
  /// one wave of persistent CTAs looping over the tiles (off until measured
  /// on a GPU; docs/performance.md).
  bool persistentGemm = false;
  /// sm_90a: a split-K tile's CTAs form a cluster reducing through
  /// distributed shared memory (one kernel, no workspace).
  bool clusterSplitK = true;
  /// sm_90a: convolutions gathering their A operand (im2col by cp.async)
  /// with tiles for half to one wave of SMs choose tile and cluster split
  /// together (dlc-tile-gemm-kernels `gather-split-k`).
  bool gatherSplitK = true;
  /// sm_90a: convolutions whose CTAs fit one wave take every pipeline stage
  /// shared memory holds (dlc-tile-gemm-kernels `deepen-stages`).
  bool deepenStages = true;
  /// sm_90a: wgmma GEMMs needing more than one wave of CTAs are sized for
  /// this many CTAs an SM (dlc-tile-gemm-kernels `min-ctas-per-sm`; 0: the
  /// cost model's stages). 2 since the H100 run of 2026-11-26
  /// (docs/performance.md).
  int64_t gemmCtasPerSm = 2;
  /// sm_90a: GEMMs whose K is 64 bytes or less take 64-byte k-tiles (the
  /// 64-byte swizzle), which TMA loads (dlc-tile-gemm-kernels
  /// `short-k-tiles`; off until measured on a GPU).
  bool shortKTiles = false;
  /// sm_90a: wgmma GEMMs whose A operand is gathered by cp.async (im2col)
  /// and whose B loads by TMA get this many producer warps, which gather A
  /// ahead of the consumers through mbarriers (dlc-tile-gemm-kernels
  /// `gather-producer-warps`; 0: the consumers gather; off until measured
  /// on a GPU).
  int64_t gatherProducerWarps = 0;
  /// sm_90a: the producer of a GEMM with both operands on TMA is a
  /// warpgroup that gives the consumers its registers (dlc-tile-gemm-kernels
  /// `producer-warpgroup`; off until measured on a GPU).
  bool producerWarpgroup = false;
  /// sm_90a/sm_80: staged epilogue inputs are copied into stage slots the
  /// k-loop leaves empty as the CTA starts (dlc-tile-gemm-kernels
  /// `prefetch-epilogue-inputs`; off until measured on a GPU).
  bool prefetchEpilogueInputs = false;
  /// sm_90a: convolutions whose A cp.async gathers load it by TMA in
  /// im2col mode where they can (dlc-tile-gemm-kernels `tma-im2col`; off
  /// until measured on a GPU).
  bool tmaIm2col = false;
  /// Host: a row's accumulators stay in vector registers through its
  /// reductions, in tiles of this many elements (dlc-vectorize-host-rows
  /// `lanes`; 0: off). 16 measured best on SSE and AVX-512 alike (LLVM
  /// runs AVX-512 CPUs on 256-bit vectors: 32 lanes spilled).
  int64_t hostRowLanes = 16;
  /// Host: rows that reduce come this many to a work item, sharing their
  /// reads (dlc-linearize-kernels `row-block`; 1: off). 0: 8 with AVX-512
  /// (32 vector registers), else 4: 8 rows of 16-lane accumulators spill
  /// SSE's and AVX2's 16 registers (resnet50 at x86-64-v2 364-420 ms
  /// against 426-480).
  int64_t hostRowBlock = 0;
  /// Host: the same for rows whose varying reads are bytes (int8
  /// convolutions and MatMuls: `byte-row-block`), whose quadruple tiles
  /// then serve more rows. 0: 16 with AVX-512 (resnet50_int8
  /// 32.8 -> 29.5 ms, sum of kernel minimums at one thread), else
  /// hostRowBlock's; 1: off.
  int64_t hostByteRowBlock = 0;
  /// Host: keys (and value columns) an attention's lane tile takes in
  /// registers when a work item's query rows run as vector lanes
  /// (dlc-linearize-kernels `attention-tile`). 0: 8 with AVX-512, 4 with
  /// AVX2, else 2; -1: off (a dot product a score).
  int64_t hostAttentionTile = 0;
  /// Host: rows longer than a register row that reduce with independent
  /// columns (MatMuls of 768 or 3072 columns) are split in panels of at
  /// most this many columns, each a work item (dlc-linearize-kernels
  /// `row-panel`); such MatMuls then stay out of kernels that reduce over
  /// the row (dlc-fuse-kernels `panel-rows`). 0: off.
  int64_t hostRowPanel = 64;
  /// Host: a kernel whose ops all read and write its (height, width) plane
  /// contiguously (a 1x1 stride-1 convolution and its epilogue) takes the
  /// plane as one row when it has at most this many elements
  /// (dlc-collapse-row-planes `max-row`). 0: off.
  int64_t hostRowPlane = 256;
  /// Host without AVX-512: the same for a kernel that reduces bytes (an
  /// integer conv) whose plane is whole 16-lane tiles and whose width is
  /// not, up to this many elements (dlc-collapse-row-planes
  /// `byte-max-row`): such a width's rest ran as byte pieces. 0: off.
  int64_t hostByteRowPlane = 1024;
  /// Host: the same for planes of whole 16-lane tiles up to this many
  /// elements, which dlc-linearize-kernels splits into panels
  /// (dlc-collapse-row-planes `panel-max-row`). 0: off.
  int64_t hostPanelRowPlane = 4096;
  /// Host: a row's full tiles share their reduction loops while their
  /// vector accumulators number at most this many (dlc-vectorize-host-rows
  /// `accumulators`). 0: 24 with AVX-512 (of its 32 registers), else 1 (a
  /// 16-lane accumulator takes 2 AVX2 or 4 SSE registers of 16).
  int64_t hostRowAccumulators = 0;
  /// Host: the elementwise epilogue a work item runs on a row's
  /// accumulators runs on the row tiles' registers, and accumulator
  /// buffers nothing else reads go (dlc-vectorize-host-rows `epilogues`).
  bool hostRowEpilogues = true;
  /// Host, VNNI: integer 1x1 convs read their input as byte quadruples
  /// (dlc-convert-to-linalg `quad-conv-inputs`).
  bool hostQuadConvInputs = true;
  /// Host, AVX2: a row's rest of 32- or 64-bit elements is one tile under a
  /// mask, not halving pieces (dlc-vectorize-host-rows `masked-rest`).
  bool hostMaskedRest = true;
  /// CUDA form: a work item's lanes' identical scalar ops become vector ops
  /// (dlc-vectorize-lane-chains; off until measured on a GPU).
  bool vectorizeLaneChains = false;
  /// CUDA form: implicit-GEMM convolutions read their unpadded input
  /// through zero-filling loads; the padded copy's kernel goes.
  bool foldConvPadding = true;
  /// CUDA form: consecutive independent CTA programs of one launch shape
  /// become one launch (dlc-merge-launches); off for bisection.
  bool mergeLaunches = true;
  /// sm_90+: every kernel waits for its predecessor with
  /// griddepcontrol.wait, and the runtime launches it with programmatic
  /// stream serialization so that it is scheduled while its predecessor
  /// finishes (off until measured on a GPU; docs/performance.md).
  bool overlapLaunches = false;
  /// CUDA form: GEMM epilogues write their 16-bit / int8 outputs to the
  /// freed stage memory and copy 16-byte chunks of rows out (on since the
  /// H100 run of 2026-11-26; docs/performance.md).
  bool stageEpilogue = true;
  /// CUDA form: the GEMMs whose epilogue inputs read at the element
  /// (residuals) are copied to the freed stage memory in 16-byte chunks
  /// first: none, int8 (the default: a lane would read 2 bytes; 1.04x int8
  /// resnet50 b32 on an H100, while f16's rows were mixed) or all.
  std::string stageEpilogueInputs = "int8";
  /// CUDA: the width of the kernels' index arithmetic, 64 or 32 (half the
  /// instructions for addresses; emitPtx keeps 64 for a model with a
  /// buffer of 2^30 elements or more). 64 until measured on a GPU.
  unsigned kernelIndexBits = 64;
  /// --conv-layout=nchw|nhwc: channels-last 2-D convolutions (implicit GEMMs
  /// with the channels contiguous), or ONNX's NCHW.
  ConvLayout convLayout = ConvLayout::Auto;
};

/// Whether `options` compute 2-D convolutions channels-last: the explicit
/// --conv-layout, else NHWC for the CUDA kernel form and NCHW for the host.
bool convsChannelsLast(const CompileOptions &options);

/// The number of SMs the tile-shape cost model plans for on `arch`.
int64_t smCountFor(const std::string &arch);
/// The SMs the cost models plan for: --sm-count, else smCountFor(arch).
int64_t plannedSmCount(const CompileOptions &options);
/// Whether `arch` has warpgroup MMA (wgmma): sm_90a, the architecture-
/// specific H100/H200 target.
bool hasWgmma(const std::string &arch);

/// Graph passes on the dlc dialect: folding, CSE, dlc-quantize (layers
/// marked by --precision=int8), dlc-fold-qdq, dlc-fuse-attention,
/// dlc-reduce-precision and dlc-convert-conv-layout.
void buildGraphPipeline(OpPassManager &pm, const CompileOptions &options);

/// dlc (tensors, after the graph passes) -> linalg -> buffers -> outlined,
/// linearized kernels and a planned model function.
void buildLoweringPipeline(OpPassManager &pm, const CompileOptions &options);

/// buildGraphPipeline, then buildLoweringPipeline.
void buildFrontendPipeline(OpPassManager &pm, const CompileOptions &options);

/// Device module of kernels -> gpu.module -> NVVM -> gpu.binary holding PTX.
void buildCudaKernelPipeline(OpPassManager &pm, const CompileOptions &options);

/// Host module of kernels -> LLVM dialect, ready for translation.
void buildHostKernelPipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers the pipelines for dlc-opt: dlc-frontend, dlc-cuda-kernels,
/// dlc-host-kernels.
void registerPipelines();

/// The CUDA toolkit root: `options.cudaToolkit`, $CUDA_HOME, the directory
/// above `ptxas` on PATH, or /usr/local/cuda; empty if none has ptxas.
std::string findCudaToolkit(const CompileOptions &options);

} // namespace dlc
} // namespace mlir

#endif
