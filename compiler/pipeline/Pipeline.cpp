//===- Pipeline.cpp - the ordered pass pipelines -----------------*- C++
//-*-===//

#include "compiler/pipeline/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

void dlc::buildGraphPipeline(OpPassManager &pm, const CompileOptions &options) {
  // Graph level: folding (shape subgraphs, identities) and cleanup.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Decomposed GELU -> dlc.gelu: before anything that looks at Muls and
  // Divs by constants (attention's scale).
  if (options.fuseActivations)
    pm.addPass(dlc::createFuseActivationsPass());
  // Calibrated layers (dlc.input_ranges, from --precision=int8) -> QDQ;
  // nothing to do for other models.
  pm.addPass(dlc::createQuantizeModelPass({options.quantizeResiduals}));
  // QDQ Conv/Gemm/MatMul -> integer ops with a requantize epilogue.
  if (options.foldQdq)
    pm.addPass(dlc::createFoldQdqPass());
  // Quantized weights left to float layers (16-bit activations, folds that
  // did not apply) -> float constants, dequantized once here.
  pm.addPass(dlc::createFoldConstantDequantizePass());
  // Float Gemms between Reshapes (GPT-2's Conv1D) -> batched MatMuls, which
  // fuse with their neighbours as nn.Linear does.
  pm.addPass(dlc::createUnflattenGemmsPass());
  // Attention chains -> dlc.attention (the scores never reach memory). After
  // the integer folds (a quantized Q.K^T stays integer); before half
  // precision, so attention keeps computing in f32.
  if (options.fuseAttention)
    pm.addPass(dlc::createFuseAttentionPass());
  // After the integer folds: only the float GEMMs left go to half precision.
  if (!options.reducedPrecision.empty())
    pm.addPass(dlc::createReducePrecisionPass({options.reducedPrecision}));
  // Layout last: it sees the final convolutions (integer, half precision)
  // and the quantize/dequantize ops left between them.
  if (convsChannelsLast(options)) {
    pm.addPass(dlc::createConvertConvLayoutPass());
    pm.addPass(createCSEPass());
  }
}

bool dlc::convsChannelsLast(const CompileOptions &options) {
  switch (options.convLayout) {
  case ConvLayout::Nchw:
    return false;
  case ConvLayout::Nhwc:
    return true;
  case ConvLayout::Auto:
    break;
  }
  return options.target == Target::Cuda || options.hostRunsCudaKernelForm;
}

/// The host's rows a work item (CompileOptions::hostRowBlock).
static int64_t hostRowBlock(const dlc::CompileOptions &options) {
  if (options.hostRowBlock > 0)
    return options.hostRowBlock;
  return options.hostVectorBits >= 512 ? 8 : 4;
}

/// The accumulator registers of one host row pass, in tiles
/// (CompileOptions::hostRowAccumulators): 24 of AVX-512's 32, else 1.
static int64_t hostRowAccumulators(const dlc::CompileOptions &options) {
  if (options.hostRowAccumulators > 0)
    return options.hostRowAccumulators;
  return options.hostVectorBits >= 512 ? 24 : 1;
}

/// The host's byte rows a work item (CompileOptions::hostByteRowBlock).
static int64_t hostByteRowBlock(const dlc::CompileOptions &options) {
  if (options.hostByteRowBlock > 0)
    return options.hostByteRowBlock;
  return options.hostVectorBits >= 512 ? mlir::dlc::kMaxRowCopies
                                       : hostRowBlock(options);
}

/// Keys (and value columns) a host attention's lane tile takes in
/// registers (dlc-linearize-kernels attention-tile): 8 vectors of 16 rows
/// with AVX-512's 32 registers, 4 (8 registers of 8 lanes) with AVX2's 16,
/// 2 (8 of SSE's 16 registers of 4 lanes; 4 spilled them: bert's attention
/// 2.1 -> 2.3 ms at x86-64-v2, 1.5 with 2).
static int64_t hostAttentionTile(const dlc::CompileOptions &options) {
  if (options.hostAttentionTile != 0)
    return std::max<int64_t>(options.hostAttentionTile, 0);
  if (options.hostVectorBits >= 512)
    return 8;
  return options.hostVectorBits >= 256 ? 4 : 2;
}

void dlc::buildLoweringPipeline(OpPassManager &pm,
                                const CompileOptions &options) {
  bool cudaForm =
      options.target == Target::Cuda || options.hostRunsCudaKernelForm;
  // dlc -> linalg on tensors, one structured op per dlc op; the CUDA form
  // keeps int8 weights [N, K] for the tensor cores.
  bool tensorCores = cudaForm && options.tensorCores;
  // The CUDA form quantizes by reciprocal (no div.rn.f32 in epilogues).
  pm.addPass(createConvertDlcToLinalgPass(
      {tensorCores, tensorCores && options.allowTf32,
       tensorCores && hasWgmma(options.arch), tensorCores, cudaForm,
       /*padConvInput=*/!cudaForm,
       /*vnniConvs=*/!cudaForm && options.hostVnni,
       /*pairConvWeights=*/!cudaForm && options.hostPmaddwdBits > 0,
       /*wideConvWeights=*/!cudaForm && options.hostPmaddwdBits > 0,
       /*convPlaneRows=*/!cudaForm && options.hostRowLanes > 0
           ? options.hostRowPlane
           : 0,
       /*padGroupedConvInput=*/!cudaForm && options.hostRowLanes > 0,
       /*pairMatMulWeights=*/!cudaForm && options.hostPmaddwdBits > 0,
       /*quadMatMulWeights=*/!cudaForm && options.hostVnni,
       /*quadConvInputs=*/!cudaForm && options.hostVnni &&
           options.hostQuadConvInputs,
       /*twoPassSoftmax=*/!cudaForm}));
  pm.addPass(createCanonicalizerPass());
  // Host: an int8 reduction's bias starts its accumulator (once a row)
  // instead of an epilogue add an element.
  if (!cudaForm && options.foldAccumulatorBias)
    pm.addPass(dlc::createFoldAccumulatorBiasPass());
  if (options.fuseElementwise)
    pm.addPass(dlc::createFuseElementwisePass());

  // Tensors -> buffers. Model inputs/outputs become identity-layout buffer
  // arguments; the returned buffers become out-params written in place.
  pm.addPass(dlc::createIsolateOutputsPass());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());

  // One kernel per structured op, in the shared linearized form.
  pm.addPass(dlc::createOutlineKernelsPass());
  // The host vectorizes rows; CUDA keeps a few output elements per thread.
  if (options.fuseKernels)
    pm.addPass(dlc::createFuseKernelsPass(
        {!cudaForm, tensorCores && options.allowTf32,
         !cudaForm && options.hostRowLanes > 0 && options.hostRowPanel > 0}));
  // Host: a depthwise conv's input is written into its padded copy.
  if (!cudaForm && options.foldPaddedCopies)
    pm.addPass(dlc::createFoldPaddedCopiesPass());
  // 16-bit, int8 (and with TF32 f32) GEMMs become tensor-core CTA programs
  // (emulated per lane when the host runs the CUDA form).
  if (cudaForm && options.tensorCores) {
    dlc::TileGemmKernelsPassOptions gemm;
    gemm.emulate = options.target != Target::Cuda;
    gemm.smCount = plannedSmCount(options);
    gemm.allowTf32 = options.allowTf32;
    gemm.wgmma = hasWgmma(options.arch);
    gemm.tma = gemm.wgmma && options.tma;
    gemm.warpSpecialize = gemm.tma && options.warpSpecialize;
    gemm.persistent = gemm.warpSpecialize && options.persistentGemm;
    gemm.clusterSplitK = gemm.wgmma && options.clusterSplitK;
    gemm.gatherSplitK = gemm.clusterSplitK && options.gatherSplitK;
    gemm.deepenStages = gemm.wgmma && options.deepenStages;
    gemm.minCtasPerSm = options.gemmCtasPerSm;
    gemm.shortKTiles = gemm.wgmma && options.shortKTiles;
    gemm.gatherProducerWarps =
        gemm.warpSpecialize ? options.gatherProducerWarps : 0;
    gemm.producerWarpgroup = gemm.warpSpecialize && options.producerWarpgroup;
    gemm.prefetchEpilogueInputs = options.prefetchEpilogueInputs;
    gemm.tmaIm2col = gemm.tma && options.tmaIm2col;
    gemm.foldPadding = options.foldConvPadding;
    gemm.stageEpilogue = options.stageEpilogue;
    gemm.stageEpilogueInputs = options.stageEpilogueInputs;
    gemm.tile = options.gemmTile;
    pm.addPass(dlc::createTileGemmKernelsPass(gemm));
  }
  // Attention at 16-bit precision becomes flash attention on tensor cores.
  if (cudaForm && options.tensorCores && !options.reducedPrecision.empty()) {
    dlc::TileAttentionKernelsPassOptions attention;
    attention.emulate = options.target != Target::Cuda;
    attention.precision = options.reducedPrecision == "bf16" ? "bf16" : "f16";
    attention.smCount = plannedSmCount(options);
    pm.addPass(dlc::createTileAttentionKernelsPass(attention));
  }
  // Row reductions become one warp per row (lanes emulated likewise).
  if (cudaForm && options.warpReductions) {
    dlc::DistributeReductionsPassOptions warp;
    warp.emulate = options.target != Target::Cuda;
    pm.addPass(dlc::createDistributeReductionsPass(warp));
  }
  // Independent CTA programs of one launch shape (Q, K, V projections)
  // launch together.
  if (cudaForm && options.mergeLaunches)
    pm.addPass(dlc::createMergeLaunchesPass(
        {/*sinkBarrier=*/options.target == Target::Cuda}));
  // Host rows over whole planes where a kernel reads them contiguously.
  if (!cudaForm && options.hostRowLanes > 0)
    pm.addPass(dlc::createCollapseRowPlanesPass(
        {options.hostRowPlane,
         options.hostVectorBits < 512 ? options.hostByteRowPlane : 0,
         options.hostRowPanel > 0 ? options.hostPanelRowPlane : 0}));
  pm.addPass(dlc::createLinearizeKernelsPass(
      {!cudaForm,
       cudaForm || options.hostRowLanes == 0 ? 0 : hostRowBlock(options),
       // One pass's accumulator tiles (the vectorizer's), with AVX-512.
       cudaForm || options.hostRowLanes == 0 || options.hostVectorBits < 512
           ? 0
           : hostRowAccumulators(options),
       cudaForm || options.hostRowLanes == 0 ? 0 : hostByteRowBlock(options),
       cudaForm || options.hostRowLanes == 0 ? 0 : options.hostRowPanel,
       cudaForm ? options.cudaVectorWidth : 1,
       cudaForm ? plannedSmCount(options) * options.cudaBlockSize : 0,
       cudaForm || options.hostRowLanes == 0 ? 0
                                             : hostAttentionTile(options)}));
  // Per function: the kernels are cleaned up on the context's threads.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  // Accumulators only one kernel uses stay in registers (after CSE, which
  // makes their accesses' indices the same values).
  pm.addPass(dlc::createPrivatizeAccumulatorsPass());
  // Element-form host sums in vector partial sums (LLVM's vectorizer).
  if (!cudaForm && options.hostRowLanes > 0)
    pm.addPass(dlc::createReassociateHostSumsPass());
  // A host row's accumulators in vector registers through its reductions.
  // (Index maps as arith first: it follows lanes through adds and
  // multiplies.)
  if (!cudaForm && options.hostRowLanes > 0) {
    pm.addPass(createLowerAffinePass());
    // AVX-512 loads and stores any tile length under a mask.
    bool avx512 = options.hostVectorBits >= 512;
    int64_t accumulators = hostRowAccumulators(options);
    // AVX2 loads and stores 32- and 64-bit lanes under a mask.
    bool maskedRest = options.hostMaskedRest && options.hostVectorBits == 256;
    pm.addPass(dlc::createVectorizeHostRowsPass(
        {options.hostRowLanes, avx512, maskedRest, options.hostVnni,
         options.hostPmaddwdBits, accumulators, options.hostRowEpilogues}));
  }
  // With their accumulators private, a work item's elements reduce side by
  // side: a tap's loads of consecutive channels become one vector load.
  if (cudaForm) {
    pm.addPass(dlc::createInterchangeElementLoopsPass());
    // The unrolled elements' indices folded to `base + k`, and their
    // shared index values merged, before their accesses are grouped.
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    pm.addPass(dlc::createVectorizeElementAccessesPass());
    // The lanes' identical scalar ops between those vector accesses as
    // vector ops (two 16-bit lanes a GPU instruction).
    // Byte maxima as u16x2 ones from sm_90 on (max.u16x2).
    if (options.vectorizeLaneChains) {
      StringRef arch = options.arch;
      unsigned sm = 0;
      bool packBytes = arch.consume_front("sm_") &&
                       !arch.take_while(llvm::isDigit).getAsInteger(10, sm) &&
                       sm >= 90;
      pm.addPass(dlc::createVectorizeLaneChainsPass({packBytes}));
    }
  }

  // The arena.
  pm.addPass(dlc::createPlanMemoryPass({options.arenaAlignment}));
}

bool dlc::hasWgmma(const std::string &arch) { return arch == "sm_90a"; }

int64_t dlc::plannedSmCount(const CompileOptions &options) {
  return options.smCount ? options.smCount : smCountFor(options.arch);
}

int64_t dlc::smCountFor(const std::string &arch) {
  // H100 SXM has 132 SMs, A100 108; unknown archs plan for the larger.
  if (arch == "sm_80")
    return 108;
  if (arch == "sm_86" || arch == "sm_89")
    return 84;
  return 132;
}

void dlc::buildFrontendPipeline(OpPassManager &pm,
                                const CompileOptions &options) {
  buildGraphPipeline(pm, options);
  buildLoweringPipeline(pm, options);
}

void dlc::buildCudaKernelPipeline(OpPassManager &pm,
                                  const CompileOptions &options) {
  // One gpu.module per kernel: everything nested on gpu.module below runs
  // on the context's threads, a kernel at a time.
  pm.addPass(dlc::createMapKernelsToGpuPass({options.cudaBlockSize}));
  OpPassManager &kernel = pm.nest<gpu::GPUModuleOp>();
  kernel.addPass(createLowerAffinePass());
  // Not arith-expand: it would turn each max/min into a compare and a
  // select.
  kernel.addPass(dlc::createExpandIntegerDivisionPass());
  kernel.addPass(createConvertSCFToCFPass());
  kernel.addPass(createCanonicalizerPass());
  kernel.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = options.kernelIndexBits;
  nvvm.useBarePtrCallConv = true;
  kernel.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // What it has no libdevice function for: math.fma (exact quantization's
  // correction) becomes llvm.intr.fma, i.e. fma.rn.f32.
  kernel.addPass(createConvertMathToLLVMPass());
  // The nvgpu lowering took index as i64 regardless.
  if (options.kernelIndexBits != 64)
    kernel.addPass(dlc::createReconcileIndexCastsPass());
  // NVVM ops without an intrinsic form become inline PTX: cp.async with a
  // src-size (the zero-filling copies of partial tiles) would otherwise be
  // translated as a full 16-byte copy.
  kernel.addPass(createConvertNVVMToLLVMPass());
  kernel.addPass(createReconcileUnrealizedCastsPass());
  // Before LLVM rewrites the addresses past what its alignment inference
  // can follow.
  kernel.addPass(dlc::createInferAlignmentPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.arch;
  // PTX 8.0 (CUDA 12.0) covers sm_90 and sm_80 and loads on current drivers;
  // sm_90a's wgmma with mixed u8/s8 operands needs PTX 8.4 (CUDA 12.4).
  target.features = hasWgmma(options.arch) ? "+ptx84" : "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(dlc::createSerializeKernelsPass({findCudaToolkit(options)}));
}

void dlc::buildHostKernelPipeline(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(dlc::createMapKernelsToHostPass());
  // Views in kernels (dlc-collapse-row-planes) as plain strided memrefs.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Work item ids are non-negative (the clamped range above): unsigned
  // index divisions, which LLVM folds and vectorizes.
  pm.addPass(arith::createArithUnsignedWhenEquivalentPass());
  // bf16 (and f16 math functions) compute in f32: LLVM's x86 backend would
  // otherwise promote them itself and round back with __truncsfbf2, which
  // the toolchain's libgcc lacks (model.so would not load).
  pm.addPass(math::createMathLegalizeToF32());
  static const std::string kBf16[] = {"bf16"};
  arith::ArithEmulateUnsupportedFloatsOptions bf16;
  bf16.sourceTypeStrs = kBf16;
  bf16.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(bf16));
  // ceildivsi/floordivsi, and bf16 conversions (those above included) become
  // plain integer arithmetic (dlc-expand-math, which keeps minimumf and
  // maximumf for LLVM's intrinsics, except against a constant).
  pm.addPass(dlc::createExpandMathPass());
  // Integer powers become a generated loop.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createCanonicalizerPass());
  // Math with an LLVM intrinsic first (fma, floor, sqrt: instructions where
  // the CPU has them; before, MathToLibm made QuantizeLinear's exact fma a
  // call of fmaf an element even with FMA); functions without one (erf,
  // tanh) call libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // The emulated tensor-core epilogues store adjacent columns as 2-element
  // vectors, as on the GPU.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void dlc::registerPipelines() {
  PassPipelineRegistration<>(
      "dlc-frontend", "dlc module to outlined kernels and a planned model",
      [](OpPassManager &pm) { buildFrontendPipeline(pm, {}); });
  PassPipelineRegistration<>(
      "dlc-cuda-kernels", "linearized kernels to a gpu.binary with PTX",
      [](OpPassManager &pm) { buildCudaKernelPipeline(pm, {}); });
  PassPipelineRegistration<>(
      "dlc-host-kernels", "linearized kernels to the LLVM dialect",
      [](OpPassManager &pm) { buildHostKernelPipeline(pm, {}); });
}

std::string dlc::findCudaToolkit(const CompileOptions &options) {
  auto hasPtxas = [](StringRef root) {
    SmallString<256> p(root);
    llvm::sys::path::append(p, "bin", "ptxas");
    return !root.empty() && llvm::sys::fs::can_execute(p);
  };
  if (hasPtxas(options.cudaToolkit))
    return options.cudaToolkit;
  if (const char *home = std::getenv("CUDA_HOME"); home && hasPtxas(home))
    return home;
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    StringRef root =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas));
    if (hasPtxas(root))
      return root.str();
  }
  if (hasPtxas("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}
