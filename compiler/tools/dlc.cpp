//===- dlc.cpp - the dlc compiler driver -------------------------*- C++
//-*-===//
//
//   dlc model.onnx -o model.so [--target=cuda|cpu] [--arch=sm_90]
//       [--input-shape NAME=AxBxC ...] [--const-input NAME=FILE ...]
//       [--emit=mlir|ptx|so]
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/target/Codegen.h"
#include "compiler/tools/Calibration.h"
#include "compiler/tools/ConstInputFile.h"
#include "compiler/tools/Registration.h"
#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <optional>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("dlc options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::cat(category));
cl::opt<std::string> outputFile("o",
                                cl::desc("Output file (default model.so, "
                                         "or stdout for --emit=mlir|ptx)"),
                                cl::value_desc("file"), cl::init(""),
                                cl::cat(category));
cl::opt<std::string> targetName("target", cl::desc("cuda (default) or cpu"),
                                cl::init("cuda"), cl::cat(category));
cl::opt<std::string> arch("arch",
                          cl::desc("CUDA architecture: sm_80, sm_86, sm_89, "
                                   "sm_90, or sm_90a (H100/H200 only, with "
                                   "wgmma GEMMs)"),
                          cl::init("sm_90"), cl::cat(category));
cl::opt<std::string>
    hostCpu("cpu",
            cl::desc("Host CPU for --target=cpu: an LLVM CPU name "
                     "(x86-64-v2, x86-64-v3, znver4, ...), or native (this "
                     "machine's CPU and the features it reports; the "
                     "model.so may not run elsewhere)"),
            cl::init("x86-64-v2"), cl::cat(category));
cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Bind an input's shape: NAME=AxBxC (repeatable)"),
                cl::value_desc("NAME=AxBxC"), cl::cat(category));
cl::list<std::string> constInputs(
    "const-input",
    cl::desc("Bind a graph input to a constant at import: NAME=FILE, FILE "
             ".npy or an ONNX TensorProto .pb (repeatable); the input is no "
             "longer a model input. For inputs that fix shapes (Reshape's "
             "shape, reduction axes, Resize's scales, ...)"),
    cl::value_desc("NAME=FILE"), cl::cat(category));
cl::opt<std::string> emit("emit",
                          cl::desc("What to write: so (default), "
                                   "mlir, ptx, dot (the graph with "
                                   "each kernel's ONNX nodes grouped)"),
                          cl::init("so"), cl::cat(category));
cl::opt<std::string> mlirStage(
    "stage",
    cl::desc("With --emit=mlir: import (default), graph (after the graph "
             "passes: folding, quantization), plan (kernels and the planned "
             "model function)"),
    cl::init("import"), cl::cat(category));
cl::opt<bool> checkOnly(
    "check",
    cl::desc("Only check that the model is supported: list every "
             "unsupported op, attribute, dtype and unbound dynamic dim with "
             "its node and opset, without compiling; exit 1 if there are any"),
    cl::init(false), cl::cat(category));
cl::opt<bool> printOpTable(
    "print-op-table",
    cl::desc("Print the supported ONNX operators as markdown (docs/ops.md) "
             "and exit"),
    cl::init(false), cl::cat(category));
cl::opt<bool>
    fuseElementwise("fuse-elementwise",
                    cl::desc("Fuse elementwise chains on tensors (default on; "
                             "--fuse-elementwise=false to bisect)"),
                    cl::init(true), cl::cat(category));
cl::opt<bool> fuseKernels(
    "fuse-kernels",
    cl::desc("Merge reduction inits and epilogues into their kernels "
             "(default on; --fuse-kernels=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> foldPaddedCopies(
    "fold-padded-copies",
    cl::desc("Host: a depthwise conv's producer writes its input into the "
             "padded copy's interior, where a kernel of its own copied it "
             "(default on; --fold-padded-copies=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> foldAccumulatorBias(
    "fold-accumulator-bias",
    cl::desc("Host: an integer Conv's or MatMul's bias starts its "
             "accumulator instead of an epilogue add an element (default "
             "on; --fold-accumulator-bias=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> tensorCores(
    "tensor-cores",
    cl::desc("CUDA: f16/bf16/int8 GEMM kernels on tensor cores (mma.sync "
             "with a cp.async pipeline; default on; --tensor-cores=false to "
             "bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> allowTf32(
    "allow-tf32",
    cl::desc("CUDA: fp32 GEMMs and convolutions on TF32 tensor cores "
             "(operands rounded to 10-bit mantissas, fp32 accumulation; "
             "default off, as in PyTorch's matmul)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> warpReductions(
    "warp-reductions",
    cl::desc("CUDA: kernels reducing rows over the contiguous dim (LayerNorm, "
             "Softmax, ReduceMean...) run one warp per row with a shuffle "
             "butterfly (default on; --warp-reductions=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool>
    tma("tma",
        cl::desc(
            "sm_90a: wgmma GEMMs load their whole row-major operands (weights, "
            "plain MatMul activations) with TMA into mbarrier-tracked stages "
            "(default on; --tma=false keeps cp.async, to bisect)"),
        cl::init(true), cl::cat(category));
cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("sm_90a: wgmma GEMMs with both operands on TMA get a producer "
             "warp that issues the copies, the warpgroups releasing stages "
             "through mbarriers (default on; --warp-specialize=false to "
             "bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> persistentGemm(
    "persistent-gemm",
    cl::desc("sm_90a: warp-specialized GEMMs whose tiles need more than one "
             "wave of CTAs launch one wave of persistent CTAs that loop over "
             "the tiles, loading the next tile during the epilogue (default "
             "off until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> clusterSplitK(
    "cluster-split-k",
    cl::desc("sm_90a: the CTAs of a split-K GEMM tile form a thread-block "
             "cluster whose rank 0 adds the partial sums from distributed "
             "shared memory (default on; --cluster-split-k=false keeps the "
             "workspace and second kernel, to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> gatherSplitK(
    "gather-split-k",
    cl::desc("sm_90a: convolutions whose im2col operand is gathered by "
             "cp.async, with tiles for half to one wave of SMs, choose tile "
             "and cluster split-K together (default on; "
             "--gather-split-k=false keeps the tile alone, to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> deepenStages(
    "deepen-stages",
    cl::desc("sm_90a: convolutions whose CTAs fit one wave, one an SM, take "
             "every pipeline stage shared memory holds (default on; "
             "--deepen-stages=false keeps the cost model's stages, to "
             "bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<int64_t> gemmCtasPerSm(
    "gemm-ctas-per-sm",
    cl::desc("sm_90a: wgmma GEMMs and convolutions whose tiles need more "
             "than one wave of CTAs take fewer pipeline stages until this "
             "many CTAs fit an SM's shared memory, and declare it to ptxas "
             "(.minnctapersm) so that their registers fit too (default 2: "
             "1.02-1.05x int8 and f16 resnet50 b32 on an H100; 0: the cost "
             "model's stages)"),
    cl::init(2), cl::cat(category));
cl::opt<bool> shortKTiles(
    "short-k-tiles",
    cl::desc("sm_90a: wgmma GEMMs and convolutions whose K is 64 bytes or "
             "less (int8 K <= 64: convolutions over 64 channels) take 64-byte "
             "k-tiles with the 64-byte swizzle, so that TMA loads their "
             "operands instead of cp.async (default off until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> gatherProducerWarps(
    "gather-producer-warps",
    cl::desc("sm_90a: wgmma convolutions whose im2col operand is gathered by "
             "cp.async (3x3 and strided ones) get 1, 2 or 4 producer warps "
             "that gather it stages ahead of the warpgroups, which wait on "
             "mbarriers instead of their own copies and a CTA barrier "
             "(default 0: the warpgroups gather; off until measured)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> producerWarpgroup(
    "producer-warpgroup",
    cl::desc("sm_90a: warp-specialized GEMMs with both operands on TMA get "
             "a producer warpgroup instead of a warp, which gives the "
             "consumer warpgroups its registers (setmaxnreg; default off "
             "until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> prefetchEpilogueInputs(
    "prefetch-epilogue-inputs",
    cl::desc("CUDA: a GEMM's staged epilogue inputs (a residual; "
             "--stage-epilogue-inputs) are copied as the CTA starts into the "
             "stage slots its k-loop leaves empty (K of fewer k-tiles than "
             "stages), beside the first k-tiles, instead of after the k-loop "
             "(default off until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tmaIm2col(
    "tma-im2col",
    cl::desc("sm_90a: convolutions whose im2col windows cp.async gathers "
             "(3x3, strided, the space-to-depth stems) load them by TMA in "
             "im2col mode instead, where the input is padded with zeros and "
             "its channels a multiple of the k-tile (window positions of 32 "
             "or 64 bytes take k-tiles of one position); both operands on "
             "TMA, the kernel is warp-specialized like a GEMM's (default "
             "off until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> hostRowLanes(
    "host-row-lanes",
    cl::desc("Host: the elements of a row tile whose accumulators stay in "
             "vector registers through the reductions "
             "(dlc-vectorize-host-rows; 0: off)"),
    cl::init(16), cl::cat(category));
cl::opt<int64_t> hostRowBlock(
    "host-row-block",
    cl::desc("Host: rows that reduce come this many to a work item, sharing "
             "their reads (dlc-linearize-kernels row-block; 1: off; 0: 8 "
             "with AVX-512, else 4; at most 16)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> hostByteRowBlock(
    "host-byte-row-block",
    cl::desc("Host: the same for rows whose varying reads are bytes (int8 "
             "convolutions and MatMuls; dlc-linearize-kernels "
             "byte-row-block; 1: off; 0: 16 with AVX-512, else "
             "--host-row-block's)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> hostAttentionTile(
    "host-attention-tile",
    cl::desc("Host: an attention alone in its kernel runs a work item's 8 "
             "or 16 query rows as vector lanes, this many keys (value "
             "columns) at a time in registers (dlc-linearize-kernels "
             "attention-tile; 0: 8 with AVX-512, 4 with AVX2, else 2; -1: "
             "off, a dot product a score; at most 16)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> hostRowPanel(
    "host-row-panel",
    cl::desc("Host: rows longer than a register row that reduce with "
             "independent columns (a MatMul's) split in panels of at most "
             "this many columns, each a work item, kept out of kernels "
             "that reduce over the row (dlc-linearize-kernels row-panel; "
             "0: off)"),
    cl::init(64), cl::cat(category));
cl::opt<int64_t> hostRowPlane(
    "host-row-plane",
    cl::desc("Host: kernels that read and write their (height, width) plane "
             "contiguously (a 1x1 stride-1 convolution and its epilogue) "
             "take planes of at most this many elements as one row "
             "(dlc-collapse-row-planes max-row; 0: off)"),
    cl::init(256), cl::cat(category));
cl::opt<int64_t> hostByteRowPlane(
    "host-byte-row-plane",
    cl::desc("Host without AVX-512: a kernel that reduces bytes (an integer "
             "convolution) and reads its plane contiguously takes planes of "
             "at most this many elements as one row where the plane is "
             "whole 16-lane tiles and its width is not (AVX2 has no masked "
             "byte loads: such a width's rest ran as pieces of 8, 4, 2 and "
             "1 lanes; 0: --host-row-plane's limit alone)"),
    cl::init(1024), cl::cat(category));
cl::opt<int64_t> hostPanelRowPlane(
    "host-panel-row-plane",
    cl::desc("Host: such kernels take planes of whole 16-lane tiles of at "
             "most this many elements as one row too, split into panels "
             "(--host-row-panel; resnet50's 28x28 and 56x56 1x1 convs; 0: "
             "--host-row-plane's limit alone)"),
    cl::init(4096), cl::cat(category));
cl::opt<int64_t> hostRowAccumulators(
    "host-row-accumulators",
    cl::desc("Host: a row's 16-lane tiles share their reduction loops while "
             "their vector accumulators number at most this many "
             "(dlc-vectorize-host-rows accumulators; 1: a tile a pass; 0: 24 "
             "with AVX-512, else 1)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> hostMaskedRest(
    "host-masked-rest",
    cl::desc("Host, AVX2: the rest of a row of 32- or 64-bit elements is "
             "one tile of the next power of two lanes under a mask "
             "(vmaskmov), not halving pieces (dlc-vectorize-host-rows "
             "masked-rest; default on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> hostRowEpilogues(
    "host-row-epilogues",
    cl::desc("Host: a row's elementwise epilogue (a bias, a residual, an "
             "activation, a requantization) runs on the tiles' registers, "
             "and accumulator buffers nothing else reads go "
             "(dlc-vectorize-host-rows epilogues; default on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> hostVnni(
    "host-vnni",
    cl::desc("Host: integer convolutions and MatMuls multiply bytes 4 at a "
             "time with AVX512-VNNI where --cpu has it "
             "(dlc-vectorize-host-rows vnni)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> hostQuadConvInputs(
    "host-quad-conv-inputs",
    cl::desc("Host, with AVX512-VNNI: integer 1x1 convolutions read their "
             "input as byte quadruples of channels, laid out by a kernel of "
             "their own, instead of interleaving 4 channel rows for each "
             "tile (dlc-convert-to-linalg quad-conv-inputs; default on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> hostPmaddwd(
    "host-pmaddwd",
    cl::desc("Host: otherwise integer convolutions and MatMuls multiply "
             "bytes 2 at a time with pmaddwd (SSE2 on; "
             "dlc-vectorize-host-rows pmaddwd-bits)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> vectorizeLaneChains(
    "vectorize-lane-chains",
    cl::desc("CUDA form: the identical scalar ops of a work item's "
             "consecutive 8- or 16-bit elements (an int8 or f16 max pool's "
             "maxima) become vector ops, which the GPU runs two 16-bit lanes "
             "an instruction (default off until measured)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> foldConvPadding(
    "fold-conv-padding",
    cl::desc("CUDA: tensor-core convolutions read their unpadded input, "
             "zero-filling the im2col loads outside it, instead of a padded "
             "copy written by a kernel of its own (default on; "
             "--fold-conv-padding=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> overlapLaunches(
    "overlap-launches",
    cl::desc("CUDA, sm_90/sm_90a: programmatic dependent launch; every kernel "
             "begins with griddepcontrol.wait and the runtime schedules it "
             "while its predecessor's last wave runs (default off until "
             "measured)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> stageEpilogue(
    "stage-epilogue",
    cl::desc("CUDA form: tensor-core GEMM epilogues write their f16/bf16/int8 "
             "outputs to the stage memory freed after the k-loop and copy "
             "16-byte chunks of rows out, instead of 4 (int8: 2) bytes a lane "
             "from the fragments (on: 1.14x resnet50, 1.17x mobilenet_v2 "
             "at batch 32 on an H100)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> stageEpilogueInputs(
    "stage-epilogue-inputs",
    cl::desc("CUDA form: tensor-core GEMM epilogue inputs read at the "
             "element (a residual) of the operands' type are copied to the "
             "freed stage memory in 16-byte chunks of rows before the "
             "epilogue, which reads its pairs there. Default: int8 GEMMs "
             "only, where a lane would read 2 bytes (1.04x int8 resnet50 at "
             "batch 32 on an H100; f16 rows were mixed); "
             "--stage-epilogue-inputs: every GEMM, =false: none"),
    cl::init(false), cl::cat(category));
cl::opt<unsigned> kernelIndexBits(
    "kernel-index-bits",
    cl::desc("CUDA: width of the kernels' index and address arithmetic, 64 "
             "(default until measured) or 32 (a model with a buffer of 2^30 "
             "elements or more keeps 64)"),
    cl::init(64), cl::cat(category));
cl::opt<int64_t> smCount(
    "sm-count",
    cl::desc("CUDA: the SMs the GEMM and attention tile cost models plan for "
             "(0, the default: the --arch's flagship, 132 for sm_90/sm_90a; "
             "an H100 PCIe has 114)"),
    cl::init(0), cl::cat(category));
cl::opt<std::string> gemmTile(
    "gemm-tile",
    cl::desc("CUDA: run every tensor-core GEMM and convolution whose path has "
             "it on this CTA tile, BMxBN (e.g. 128x128), instead of the cost "
             "model's choice (tuning and tests)"),
    cl::init(""), cl::cat(category));
cl::opt<bool> mergeLaunches(
    "merge-launches",
    cl::desc("CUDA: consecutive independent tensor-core kernels with the same "
             "launch shape (Q, K and V projections) run as one launch "
             "(default on; --merge-launches=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseActivations(
    "fuse-activations",
    cl::desc("Compile GELU chains as exporters write them (Div/Erf/Add/Mul, "
             "Pow/Tanh) as one activation (default on; "
             "--fuse-activations=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseAttention(
    "fuse-attention",
    cl::desc("Compile MatMul-Softmax-MatMul attention as one online-softmax "
             "kernel (default on; --fuse-attention=false to bisect)"),
    cl::init(true), cl::cat(category));
cl::opt<bool>
    foldQdq("fold-qdq",
            cl::desc("Fold QDQ-quantized Conv/Gemm/MatMul into integer ops "
                     "(default on; --fold-qdq=false to bisect)"),
            cl::init(true), cl::cat(category));
cl::opt<std::string> reportJson(
    "report-json",
    cl::desc("Write the kernels (with their ONNX nodes) and the arena "
             "figures as JSON"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
cl::list<std::string> keepOutputs(
    "keep-outputs",
    cl::desc("Expose these intermediate ONNX tensors as extra outputs "
             "(comma separated); the rest stays fused"),
    cl::value_desc("NAME,..."), cl::CommaSeparated, cl::cat(category));
cl::opt<std::string> convLayout(
    "conv-layout",
    cl::desc("Layout of 2-D convolutions: nhwc (channels-last, implicit "
             "GEMMs; default for --target=cuda and --cuda-kernel-form) or "
             "nchw (default for --target=cpu)"),
    cl::init(""), cl::cat(category));
cl::opt<bool> cudaKernelForm(
    "cuda-kernel-form",
    cl::desc("With --target=cpu: build the kernels exactly as for CUDA and "
             "run them on the host (checks the GPU kernels' numerics "
             "without a GPU)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    precision("precision",
              cl::desc("fp32 (default); fp16 or bf16: Conv/Gemm/MatMul "
                       "operands in half precision with f32 accumulation; "
                       "int8: post-training quantization of Conv/Gemm/MatMul "
                       "from the samples of --calibrate"),
              cl::init("fp32"), cl::cat(category));
cl::opt<std::string> calibrateDir(
    "calibrate",
    cl::desc("With --precision=int8: the sample inputs, one subdirectory per "
             "sample holding NAME.npy or NAME.pb per model input"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
cl::opt<std::string>
    calibration("calibration",
                cl::desc("Activation ranges: minmax (default), percentile or "
                         "entropy (least KL divergence, TensorRT's default)"),
                cl::init("minmax"), cl::cat(category));
cl::opt<std::string> calibrationCache(
    "calibration-cache",
    cl::desc("With --precision=int8: a file holding a calibration's result "
             "(the ranges, the layers kept in fp32, the accuracy report): "
             "read instead of calibrating where it is for this model, these "
             "samples and options, written otherwise (TensorRT's calibration "
             "cache)"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
cl::opt<double> percentile(
    "percentile",
    cl::desc("With --calibration=percentile: % of values inside the range, "
             "per tail (default 99.99)"),
    cl::init(99.99), cl::cat(category));
cl::opt<bool> quantizeFirstLast(
    "quantize-first-last",
    cl::desc("Also quantize the first and last quantizable layers (kept in "
             "fp32 by default)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> fallbackPrecision(
    "fallback-precision",
    cl::desc("With --precision=int8: the precision of the layers left in "
             "float (first and last, --keep-fp32, --max-error-db's): fp16 or "
             "bf16 (as --precision=fp16|bf16), or fp32. Default: fp16 for "
             "the CUDA kernel form (--target=cuda, --cuda-kernel-form), fp32 "
             "for the host's own kernels"),
    cl::value_desc("fp16|bf16|fp32"), cl::init(""), cl::cat(category));
cl::opt<bool> quantizeAttention(
    "quantize-attention",
    cl::desc("With --precision=int8: also quantize the MatMuls of two "
             "activations (attention's Q.K^T and P.V). Default: false: in "
             "float they stay one flash-attention kernel (bert_base on the "
             "host: 0.62 ms a layer, quantized 2.3 in six kernels)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> quantizeResiduals(
    "quantize-residuals",
    cl::desc("With --precision=int8: residual adds read a quantized layer "
             "input in its int8 form, so it crosses kernels once, in int8 "
             "(default true)"),
    cl::init(true), cl::cat(category));
cl::list<std::string>
    keepFp32("keep-fp32",
             cl::desc("With --precision=int8: keep these Conv/Gemm/MatMul "
                      "nodes in fp32 (comma separated ONNX node names)"),
             cl::value_desc("NODE,..."), cl::CommaSeparated, cl::cat(category));
cl::opt<std::string> maxErrorDb(
    "max-error-db",
    cl::desc("With --precision=int8: keep layers in fp32, as few as a "
             "search finds, until the end-to-end SQNR against fp32 reaches "
             "this many dB"),
    cl::value_desc("dB"), cl::init(""), cl::cat(category));
cl::opt<bool> verbose("v", cl::desc("Print progress and stage timings"),
                      cl::init(false), cl::cat(category));

/// Whether the kernels are the CUDA form: --target=cuda, or the host's
/// --cuda-kernel-form.
bool cudaKernelsForm() { return targetName == "cuda" || cudaKernelForm; }

/// --fallback-precision, or its default: half precision where the kernels
/// are the CUDA form, fp32 for the host's own kernels.
std::string int8FallbackPrecision() {
  if (!fallbackPrecision.empty())
    return fallbackPrecision;
  return cudaKernelsForm() ? "fp16" : "fp32";
}

constexpr const char *kArchs[] = {"sm_80", "sm_86", "sm_89", "sm_90",
                                   "sm_90a"};

/// Progress on stderr for long compiles.
struct Progress {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  void operator()(llvm::StringRef stage) {
    if (!verbose)
      return;
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::errs() << llvm::format("dlc: [%7.2fs] ", s) << stage << "\n";
  }
};

LogicalResult parseShapes(dlc::ImportOptions &options) {
  for (const std::string &spec : inputShapes) {
    auto [name, dims] = llvm::StringRef(spec).rsplit('=');
    if (name.empty() || dims.empty()) {
      llvm::errs() << "dlc: error: --input-shape expects NAME=AxBxC, got '"
                   << spec << "'\n";
      return failure();
    }
    llvm::SmallVector<int64_t> shape;
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (p.getAsInteger(10, d) || d <= 0) {
        llvm::errs() << "dlc: error: --input-shape " << spec
                     << ": dims must be positive integers\n";
        return failure();
      }
      shape.push_back(d);
    }
    options.inputShapes[name] = shape;
  }
  return success();
}

LogicalResult readConstInputs(dlc::ImportOptions &options) {
  for (const std::string &spec : constInputs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.empty() || path.empty()) {
      llvm::errs() << "dlc: error: --const-input expects NAME=FILE, got '"
                   << spec << "'\n";
      return failure();
    }
    if (options.constInputs.count(name)) {
      llvm::errs() << "dlc: error: --const-input " << name
                   << " is given more than once\n";
      return failure();
    }
    dlc::ConstInput c;
    std::string error;
    if (!dlc::readConstInputFile(path.str(), c, error)) {
      llvm::errs() << "dlc: error: --const-input " << name << ": " << error
                   << "\n";
      return failure();
    }
    options.constInputs[name] = std::move(c);
  }
  return success();
}

std::string optionsJson(const dlc::ImportOptions &importOptions) {
  std::string json;
  llvm::raw_string_ostream os(json);
  os << "{\"target\": \"" << targetName << "\", \"arch\": \"" << arch
     << "\", \"cpu\": \"" << hostCpu
     << "\", \"fuse_elementwise\": " << (fuseElementwise ? "true" : "false")
     << ", \"fuse_kernels\": " << (fuseKernels ? "true" : "false")
     << ", \"fuse_attention\": " << (fuseAttention ? "true" : "false")
     << ", \"fuse_activations\": " << (fuseActivations ? "true" : "false")
     << ", \"fold_qdq\": " << (foldQdq ? "true" : "false")
     << ", \"precision\": \"" << precision << "\"";
  if (!convLayout.empty())
    os << ", \"conv_layout\": \"" << convLayout << "\"";
  if (precision == "int8") {
    os << ", \"calibration\": \"" << calibration << "\"";
    os << ", \"fallback_precision\": \"" << int8FallbackPrecision() << "\"";
    if (calibration == "percentile")
      os << ", \"percentile\": " << percentile;
    if (quantizeFirstLast)
      os << ", \"quantize_first_last\": true";
    if (quantizeAttention.getNumOccurrences())
      os << ", \"quantize_attention\": "
         << (quantizeAttention ? "true" : "false");
    if (!quantizeResiduals)
      os << ", \"quantize_residuals\": false";
    if (!maxErrorDb.empty())
      os << ", \"max_error_db\": " << maxErrorDb;
    os << ", \"keep_fp32\": [";
    for (size_t i = 0; i < keepFp32.size(); ++i)
      os << (i ? ", " : "") << "\"" << keepFp32[i] << "\"";
    os << "]";
  }
  os << ", \"input_shapes\": [";
  for (size_t i = 0; i < inputShapes.size(); ++i)
    os << (i ? ", " : "") << "\"" << inputShapes[i] << "\"";
  // Names and a hash of the data, not paths: the output stays identical
  // wherever the files are.
  os << "], \"const_inputs\": [";
  for (size_t i = 0; i < constInputs.size(); ++i) {
    llvm::StringRef name = llvm::StringRef(constInputs[i]).split('=').first;
    const dlc::ConstInput &c = importOptions.constInputs.find(name)->second;
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>(c.data.data()), c.data.size());
    os << (i ? ", " : "") << "\"" << name << "="
       << llvm::format_hex_no_prefix(llvm::xxh3_64bits(bytes), 16) << "\"";
  }
  os << "], \"keep_outputs\": [";
  for (size_t i = 0; i < keepOutputs.size(); ++i)
    os << (i ? ", " : "") << "\"" << keepOutputs[i] << "\"";
  os << "]}";
  return json;
}

LogicalResult writeText(llvm::StringRef text) {
  std::string path = outputFile.empty() ? "-" : outputFile.getValue();
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out) {
    llvm::errs() << "dlc: error: " << error << "\n";
    return failure();
  }
  out->os() << text;
  out->keep();
  return success();
}

/// docs/ops.md, generated from the importer's own table so the two cannot
/// drift (a lit test compares them).
void writeOpTable(llvm::raw_ostream &os) {
  os << "# Supported ONNX operators\n\n"
     << "Generated by `dlc --print-op-table` from the importer's operator "
        "table\n(compiler/onnx/OpImporters.cpp); test/onnx/ops-table.test "
        "keeps this file\nin step. Default domain, opsets 7 to 28 (CI runs "
        "onnx 1.23.2's node tests). Element\ntypes: f16, bf16, f32, f64, "
        "bool, int8, uint8, int16, uint16, int32, uint32,\nint64, uint64 "
        "where the operator allows them (the unsigned ones with unsigned\n"
        "comparisons, division, shifts and min/max; quantized tensors "
        "int8/uint8), and\nthe float8 types (float8e4m3fn, float8e4m3fnuz, "
        "float8e5m2, float8e5m2fnuz)\nwhere ONNX allows them: conversions "
        "and data movement; int4, uint4, int2 and uint2\nas int8/uint8 "
        "inside the model and float4e2m1 as its 4-bit codes, all packed "
        "at\nthe model's inputs and outputs; float8e8m0 as its byte "
        "code.\n\n"
     << "| ONNX op | dlc form and accepted attributes |\n| --- | --- |\n";
  auto ops = dlc::getSupportedOnnxOps();
  for (const dlc::OnnxOpSupport &op : ops)
    if (op.domain.empty())
      os << "| " << op.opType << " | " << op.notes << " |\n";
  os << "\n## ONNX Runtime's operators (com.microsoft)\n\n"
     << "What ONNX Runtime's tools write in its contrib domain. Its quantizer: "
        "the\nQOperator format's operators besides the standard QLinearConv "
        "and\nQLinearMatMul (also in the ONNX model zoo's int8 models), and "
        "the QDQ\nformat's QuantizeLinear and DequantizeLinear with "
        "UseQDQContribOps; the\nQLinear ones and QGemm import as their float "
        "operator between\nDequantizeLinear and QuantizeLinear, which the QDQ "
        "passes then treat as\nthey treat a QDQ model (int8 and uint8, f32 "
        "scales). Its transformer\noptimizer (and Hugging Face Optimum's): "
        "the fused Gelu and normalization\noperators, imported as the dlc ops "
        "of their definition.\n\n"
     << "| op | dlc form and accepted attributes |\n| --- | --- |\n";
  for (const dlc::OnnxOpSupport &op : ops)
    if (op.domain == "com.microsoft")
      os << "| " << op.opType << " | " << op.notes << " |\n";
  os << "\n## ONNX's preview operators (ai.onnx.preview)\n\n"
     << "Operators on their way into the standard, with onnx's reference "
        "and\nnode tests.\n\n"
     << "| op | dlc form and accepted attributes |\n| --- | --- |\n";
  for (const dlc::OnnxOpSupport &op : ops)
    if (op.domain == "ai.onnx.preview")
      os << "| " << op.opType << " | " << op.notes << " |\n";
}

/// The --precision=int8 options, checked; none for fp32.
LogicalResult parsePtqOptions(std::optional<dlc::PtqOptions> &ptq) {
  auto fail = [](const llvm::Twine &msg) {
    llvm::errs() << "dlc: error: " << msg << "\n";
    return failure();
  };
  if (precision != "fp32" && precision != "fp16" && precision != "bf16" &&
      precision != "int8")
    return fail("unknown --precision '" + precision +
                "' (expected fp32, fp16, bf16 or int8)");
  bool int8 = precision == "int8";
  if (!int8) {
    for (const char *opt :
         {"calibrate", "calibration", "calibration-cache", "percentile",
          "quantize-first-last", "quantize-residuals", "quantize-attention",
          "fallback-precision", "keep-fp32", "max-error-db"})
      if (cl::getRegisteredOptions().lookup(opt)->getNumOccurrences())
        return fail(llvm::Twine("--") + opt + " needs --precision=int8");
    return success();
  }
  if (calibrateDir.empty())
    return fail("--precision=int8 needs --calibrate=DIR (sample inputs: one "
                "subdirectory per sample with NAME.npy or NAME.pb per model "
                "input)");
  if (!fallbackPrecision.empty() && fallbackPrecision != "fp16" &&
      fallbackPrecision != "bf16" && fallbackPrecision != "fp32")
    return fail("unknown --fallback-precision '" + fallbackPrecision +
                "' (expected fp16, bf16 or fp32)");
  if (calibration != "minmax" && calibration != "percentile" &&
      calibration != "entropy")
    return fail("unknown --calibration '" + calibration +
                "' (expected minmax, percentile or entropy)");
  if (!(percentile > 50.0 && percentile <= 100.0))
    return fail("--percentile must be in (50, 100], got " +
                std::to_string(percentile.getValue()));
  dlc::PtqOptions o;
  o.calibrateDir = calibrateDir;
  o.cacheFile = calibrationCache;
  o.method = calibration;
  o.percentile = percentile;
  o.quantizeFirstLast = quantizeFirstLast;
  o.quantizeAttention = quantizeAttention;
  o.keepFp32.assign(keepFp32.begin(), keepFp32.end());
  o.extraOutputs.assign(keepOutputs.begin(), keepOutputs.end());
  if (!maxErrorDb.empty()) {
    double db;
    if (llvm::StringRef(maxErrorDb).getAsDouble(db) || !std::isfinite(db))
      return fail("--max-error-db expects a number of dB, got '" + maxErrorDb +
                  "'");
    o.maxErrorDb = db;
  }
  ptq = std::move(o);
  return success();
}

/// The ONNX node an op came from, "?" when its location has no name.
std::string nodeName(Operation *op) {
  auto name = dyn_cast<NameLoc>(op->getLoc());
  return name ? name.getName().str() : std::string("?");
}

/// The Conv/Gemm/MatMul ops still in fp32 after the graph passes, by node.
llvm::json::Array floatLayers(ModuleOp module) {
  llvm::json::Array names;
  module.walk([&](Operation *op) {
    if (isa<dlc::ConvOp, dlc::GemmOp, dlc::MatMulOp>(op))
      names.push_back(nodeName(op));
  });
  return names;
}

/// What the graph passes made of a model that came quantized (QDQ,
/// QOperator, integer ops): its integer layers and the float layers that
/// read a dequantized tensor but did not fold (dlc-fold-qdq's reason),
/// into `report` (created when the graph has either). A PTQ report gets
/// the unfolded layers only.
void addQuantizedModelReport(ModuleOp module,
                             std::optional<llvm::json::Object> &report) {
  int64_t integerLayers = 0;
  llvm::json::Array notFolded;
  module.walk([&](Operation *op) {
    if (isa<dlc::ConvIntegerOp, dlc::MatMulIntegerOp>(op))
      ++integerLayers;
    if (auto why = op->getAttrOfType<StringAttr>(dlc::attrs::kNotFolded))
      notFolded.push_back(
          llvm::json::Object{{"name", nodeName(op)},
                             {"op", op->getName().stripDialect().str()},
                             {"reason", why.getValue().str()}});
  });
  if (verbose)
    for (const llvm::json::Value &v : notFolded) {
      const llvm::json::Object *o = v.getAsObject();
      llvm::errs() << "dlc: " << *o->getString("name") << " ("
                   << *o->getString("op")
                   << ") reads dequantized tensors but stays float: "
                   << *o->getString("reason") << "\n";
    }
  if (!report) {
    if (!integerLayers && notFolded.empty())
      return;
    report = llvm::json::Object{
        {"source", "model"},
        {"integer_layers", integerLayers},
        {"fp32_layers_after_graph_passes", floatLayers(module)}};
  }
  if (!notFolded.empty())
    (*report)["not_folded"] = std::move(notFolded);
}

int run(MLIRContext &context) {
  Progress progress;
  if (printOpTable) {
    writeOpTable(llvm::outs());
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "dlc: error: no input model (usage: dlc MODEL.onnx -o "
                    "OUT.so)\n";
    return 1;
  }
  dlc::CompileOptions options;
  if (targetName == "cuda") {
    options.target = dlc::Target::Cuda;
  } else if (targetName == "cpu") {
    options.target = dlc::Target::Cpu;
  } else {
    llvm::errs() << "dlc: error: unknown --target '" << targetName
                 << "' (expected cuda or cpu)\n";
    return 1;
  }
  if (!llvm::is_contained(kArchs, arch)) {
    llvm::errs() << "dlc: error: unsupported --arch '" << arch
                 << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)\n";
    return 1;
  }
  options.arch = arch;
  if (smCount < 0 || smCount > 1024) {
    llvm::errs() << "dlc: error: --sm-count " << smCount
                 << " out of range (0: from --arch, else 1 to 1024)\n";
    return 1;
  }
  options.smCount = smCount;
  if (kernelIndexBits != 32 && kernelIndexBits != 64) {
    llvm::errs() << "dlc: error: --kernel-index-bits must be 32 or 64, got "
                 << kernelIndexBits << "\n";
    return 1;
  }
  options.kernelIndexBits = kernelIndexBits;
  // An SM holds 32 CTAs at most; 1 is what a kernel always gets.
  if (gemmCtasPerSm != 0 && (gemmCtasPerSm < 2 || gemmCtasPerSm > 32)) {
    llvm::errs() << "dlc: error: --gemm-ctas-per-sm must be 0 (off) or 2 "
                    "to 32, got "
                 << gemmCtasPerSm << "\n";
    return 1;
  }
  if (gatherProducerWarps != 0 && gatherProducerWarps != 1 &&
      gatherProducerWarps != 2 && gatherProducerWarps != 4) {
    llvm::errs() << "dlc: error: --gather-producer-warps must be 0 (off), 1, "
                    "2 or 4, got "
                 << gatherProducerWarps << "\n";
    return 1;
  }
  options.stageEpilogue = stageEpilogue;
  if (stageEpilogueInputs.getNumOccurrences())
    options.stageEpilogueInputs = stageEpilogueInputs ? "all" : "none";
  options.gemmTile = gemmTile;
  options.hostCpu = hostCpu;
  if (hostCpu == "native")
    useNativeHostCpu(options);
  deriveHostIsa(options, hostVnni, hostPmaddwd);
  options.fuseElementwise = fuseElementwise;
  options.fuseKernels = fuseKernels;
  options.foldPaddedCopies = foldPaddedCopies;
  options.foldAccumulatorBias = foldAccumulatorBias;
  options.fuseAttention = fuseAttention;
  options.fuseActivations = fuseActivations;
  options.tensorCores = tensorCores;
  options.allowTf32 = allowTf32;
  options.warpReductions = warpReductions;
  options.tma = tma;
  options.warpSpecialize = warpSpecialize;
  options.persistentGemm = persistentGemm;
  options.clusterSplitK = clusterSplitK;
  options.gatherSplitK = gatherSplitK;
  options.deepenStages = deepenStages;
  options.gemmCtasPerSm = gemmCtasPerSm;
  options.shortKTiles = shortKTiles;
  options.gatherProducerWarps = gatherProducerWarps;
  options.producerWarpgroup = producerWarpgroup;
  options.prefetchEpilogueInputs = prefetchEpilogueInputs;
  options.tmaIm2col = tmaIm2col;
  options.vectorizeLaneChains = vectorizeLaneChains;
  // The host rows' sizes: 0 picks (or turns off), the rest in range.
  constexpr int maxBlock = dlc::kMaxRowCopies;
  for (auto [flag, value, lo, hi] :
       {std::make_tuple("--host-row-lanes", hostRowLanes.getValue(), 1, 256),
        std::make_tuple("--host-row-block", hostRowBlock.getValue(), 1,
                        maxBlock),
        std::make_tuple("--host-byte-row-block", hostByteRowBlock.getValue(), 1,
                        maxBlock),
        std::make_tuple("--host-row-panel", hostRowPanel.getValue(), 8, 256),
        std::make_tuple("--host-row-plane", hostRowPlane.getValue(), 2,
                        1 << 20),
        std::make_tuple("--host-byte-row-plane", hostByteRowPlane.getValue(), 2,
                        1 << 20),
        std::make_tuple("--host-panel-row-plane", hostPanelRowPlane.getValue(),
                        2, 1 << 20),
        std::make_tuple("--host-row-accumulators",
                        hostRowAccumulators.getValue(), 1, 32)}) {
    if (value != 0 && (value < lo || value > hi)) {
      llvm::errs() << "dlc: error: " << flag << " must be 0 or " << lo << " to "
                   << hi << ", got " << value << "\n";
      return 1;
    }
  }
  if (hostAttentionTile < -1 || hostAttentionTile > 16) {
    llvm::errs() << "dlc: error: --host-attention-tile must be -1 to 16, got "
                 << hostAttentionTile << "\n";
    return 1;
  }
  options.hostAttentionTile = hostAttentionTile;
  options.hostRowLanes = hostRowLanes;
  options.hostRowBlock = hostRowBlock;
  options.hostByteRowBlock = hostByteRowBlock;
  options.hostRowPanel = hostRowPanel;
  options.hostRowPlane = hostRowPlane;
  options.hostByteRowPlane = hostByteRowPlane;
  options.hostPanelRowPlane = hostPanelRowPlane;
  options.hostRowAccumulators = hostRowAccumulators;
  options.hostRowEpilogues = hostRowEpilogues;
  options.hostQuadConvInputs = hostQuadConvInputs;
  options.hostMaskedRest = hostMaskedRest;
  options.foldConvPadding = foldConvPadding;
  options.mergeLaunches = mergeLaunches;
  if (overlapLaunches && options.target != dlc::Target::Cuda) {
    llvm::errs() << "dlc: error: --overlap-launches is for --target=cuda "
                    "(host kernels run one after the other)\n";
    return 1;
  }
  if (overlapLaunches && !StringRef(arch).starts_with("sm_9")) {
    llvm::errs() << "dlc: error: --overlap-launches needs --arch=sm_90 or "
                    "sm_90a (griddepcontrol is new in sm_90), not '"
                 << arch << "'\n";
    return 1;
  }
  options.overlapLaunches = overlapLaunches;
  options.foldQdq = foldQdq;
  options.quantizeResiduals = quantizeResiduals;
  options.hostRunsCudaKernelForm = cudaKernelForm;
  if (precision == "fp16" || precision == "bf16")
    options.reducedPrecision = precision;
  // int8 with half-precision fallback, as TensorRT builds with its INT8 and
  // FP16 flags: the layers left in float (a ResNet's 3-channel stem) would
  // otherwise run as f32 CUDA-core loops and move f32 data.
  if (precision == "int8" && int8FallbackPrecision() != "fp32")
    options.reducedPrecision = int8FallbackPrecision();
  if (convLayout == "nhwc") {
    options.convLayout = dlc::ConvLayout::Nhwc;
    // The host's own kernels take convolutions as NCHW rows; channels-last
    // ones run as the CUDA form's implicit GEMMs, an output element a work
    // item (resnet50 on one Zen 4 core: 5.4 s against 0.1).
    if (options.target == dlc::Target::Cpu && !cudaKernelForm)
      llvm::errs() << "dlc: warning: --conv-layout=nhwc with --target=cpu "
                      "runs convolutions as scalar implicit GEMMs, tens of "
                      "times slower than nchw (the default); it is meant "
                      "for checking the channels-last graph\n";
  } else if (convLayout == "nchw") {
    options.convLayout = dlc::ConvLayout::Nchw;
  } else if (!convLayout.empty()) {
    llvm::errs() << "dlc: error: unknown --conv-layout '" << convLayout
                 << "' (expected nchw or nhwc)\n";
    return 1;
  }
  if (emit != "so" && emit != "mlir" && emit != "ptx" && emit != "dot") {
    llvm::errs() << "dlc: error: unknown --emit '" << emit
                 << "' (expected so, mlir, ptx or dot)\n";
    return 1;
  }
  if (mlirStage != "import" && mlirStage != "graph" && mlirStage != "plan") {
    llvm::errs() << "dlc: error: unknown --stage '" << mlirStage
                 << "' (expected import, graph or plan)\n";
    return 1;
  }
  std::optional<dlc::PtqOptions> ptq;
  if (failed(parsePtqOptions(ptq)))
    return 1;
  dlc::ImportOptions importOptions;
  if (failed(parseShapes(importOptions)) ||
      failed(readConstInputs(importOptions)))
    return 1;
  importOptions.keepOutputs.assign(keepOutputs.begin(), keepOutputs.end());

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "dlc: error: " << error << "\n";
    return 1;
  }
  progress("importing " + inputFile);
  importOptions.checkOnly = checkOnly;
  OwningOpRef<ModuleOp> module = dlc::importOnnxModel(
      context, file->getBuffer(), inputFile, importOptions);
  if (checkOnly) {
    if (!module) {
      llvm::errs() << "dlc: " << inputFile
                   << ": not supported (problems listed above)\n";
      return 1;
    }
    unsigned ops = 0;
    module->walk([&](Operation *op) {
      ops += op->getDialect() && op->getDialect()->getNamespace() == "dlc";
    });
    llvm::outs() << "dlc: " << inputFile << ": supported (" << ops
                 << " operators after import)\n";
    return 0;
  }
  if (!module)
    return 1;
  std::optional<llvm::json::Object> quantReport;
  if (ptq) {
    ptq->progress = [&](llvm::StringRef s) { progress(s); };
    FailureOr<llvm::json::Object> report =
        dlc::calibrateAndMark(*module, *ptq, options);
    if (failed(report))
      return 1;
    quantReport = std::move(*report);
    // What the layers kept in float run at (not part of the SQNR figures).
    (*quantReport)["fallback_precision"] = int8FallbackPrecision();
    if (verbose)
      dlc::printQuantizationTable(*quantReport, llvm::errs(), 10);
  }
  if (emit == "mlir" && mlirStage == "import") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().elideLargeResourceString());
    return failed(writeText(text)) ? 1 : 0;
  }
  FailureOr<dlc::ModelSignature> signature = dlc::readSignature(*module);
  if (failed(signature))
    return 1;
  // The graph as imported, for --emit=dot (weights are shared resources:
  // the copy is cheap).
  OwningOpRef<ModuleOp> imported;
  if (emit == "dot")
    imported = module->clone();

  progress("lowering to kernels");
  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  dlc::buildGraphPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  if (quantReport)
    (*quantReport)["fp32_layers_after_graph_passes"] = floatLayers(*module);
  addQuantizedModelReport(*module, quantReport);
  if (emit == "mlir" && mlirStage == "graph") {
    // No kernels yet: the report holds the quantization object, if any.
    if (!reportJson.empty() &&
        failed(dlc::writeReport(*module, *signature, reportJson,
                                quantReport ? &*quantReport : nullptr)))
      return 1;
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().elideLargeResourceString());
    return failed(writeText(text)) ? 1 : 0;
  }
  PassManager lowering(&context);
  if (failed(applyPassManagerCLOptions(lowering)))
    return 1;
  lowering.enableTiming(timingScope);
  dlc::buildLoweringPipeline(lowering, options);
  if (failed(lowering.run(*module)))
    return 1;
  if (!reportJson.empty() &&
      failed(dlc::writeReport(*module, *signature, reportJson,
                              quantReport ? &*quantReport : nullptr)))
    return 1;
  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().elideLargeResourceString());
    return failed(writeText(text)) ? 1 : 0;
  }
  if (emit == "dot") {
    std::string text;
    llvm::raw_string_ostream os(text);
    dlc::writeDot(*imported, *module, os);
    return failed(writeText(text)) ? 1 : 0;
  }

  dlc::KernelCode code;
  if (options.target == dlc::Target::Cuda) {
    if (emit == "ptx") {
      progress("generating PTX");
      FailureOr<std::string> ptx = dlc::emitPtx(*module, options);
      return failed(ptx) || failed(writeText(*ptx)) ? 1 : 0;
    }
    progress("generating PTX and running ptxas");
    FailureOr<dlc::KernelCode> cuda = dlc::emitCudaKernels(*module, options);
    if (failed(cuda))
      return 1;
    code = std::move(*cuda);
  } else {
    if (emit == "ptx") {
      llvm::errs() << "dlc: error: --emit=ptx needs --target=cuda\n";
      return 1;
    }
    progress("generating host code");
    FailureOr<dlc::KernelCode> host = dlc::emitHostKernels(*module, options);
    if (failed(host))
      return 1;
    code = std::move(*host);
  }
  std::string output = outputFile.empty() ? "model.so" : outputFile.getValue();
  progress("writing " + output);
  if (failed(dlc::writeModelLibrary(*module, *signature, code, options,
                                    optionsJson(importOptions), output)))
    return 1;
  progress("done");
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Passes first: --mlir-print-ir-after=<pass> parses against the registry.
  dlc::registerAllDlcPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help lists dlc's options; LLVM's and MLIR's own (hundreds, the
  // --mlir-print-ir-* ones among them) still parse, listed by
  // --help-hidden.
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "dlc: ahead-of-time compiler from ONNX to a model.so for CUDA GPUs or "
      "the host CPU\n(--help-hidden also lists LLVM's and MLIR's own options, "
      "such as --mlir-print-ir-after-all)\n");
  DialectRegistry registry;
  dlc::registerDlcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A pass's error names the problem; the whole module after it (MLIR's
  // default "see current operation" note) is for compiler developers, who
  // have --mlir-print-ir-after-failure.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return run(context);
}
