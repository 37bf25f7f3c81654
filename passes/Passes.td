//===- Passes.td - dlc passes ------------------------------*- tablegen -*-===//

#ifndef DLC_PASSES_TD
#define DLC_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

def ConvertDlcToLinalgPass : Pass<"dlc-convert-to-linalg", "ModuleOp"> {
  let summary = "Lower dlc ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every dlc op becomes structured ops on tensors so that upstream
    bufferization and loop generation apply. Ops that read their input at
    computed positions (convolution with padding, pooling, gather, slice,
    concat) become one `linalg.generic` over the output that reads the input
    with `tensor.extract`, so that padding is a bounds check instead of a
    padded copy and every op stays one kernel. The exception is a
    `channels_last` convolution: a padded copy of the input, then one
    generic with pure affine maps (the implicit-GEMM form). A depthwise one
    (one input channel per group) reads its constant weight permuted once
    from [O, KH, KW, 1] to [1, KH, KW, O]: the weight, like the input and
    the output, then has the channel innermost.

    Indices read at run time (Gather, GatherElements, GatherND,
    ScatterElements, ScatterND) are checked: an out-of-range index stores
    the op's check number into the status word `@__dlc_status` (the row of
    the module's `dlc.checks` message table), which the runtime turns into
    DLC_ERROR_CHECK_FAILED naming the node, and is clamped so that the
    access never leaves the buffer.

    Before:
    ```mlir
    %0 = dlc.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {...iterator_types = ["parallel"]}
           ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
         ^bb0(%in: f32, %out: f32):
           %m = arith.maximumf %in, %cst : f32
           linalg.yield %m : f32
         } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"int8WeightsNK", "int8-weights-nk", "bool", /*default=*/"false",
           "Store constant 2-D MatMulInteger weights as [N, K] (the B "
           "layout int8 mma.sync reads)">,
    Option<"f32WeightsNK", "f32-weights-nk", "bool", /*default=*/"false",
           "Store constant 2-D f32 MatMul weights as [N, K] (the B layout "
           "TF32 mma.sync reads)">,
    Option<"halfWeightsNK", "half-weights-nk", "bool", /*default=*/"false",
           "Store constant 2-D f16/bf16 MatMul weights as [N, K] (the "
           "K-major B wgmma reads)">,
    Option<"padConvChannels", "pad-conv-channels", "bool",
           /*default=*/"false",
           "Zero-pad the input channels of channels-last f16/bf16 convs "
           "with a constant weight to a multiple of 8 (the stem's 3), and "
           "of int8 ones with a zero weight zero point to 16, so that they "
           "run as implicit GEMMs on tensor cores">,
    Option<"reciprocalQuantize", "reciprocal-quantize", "bool",
           /*default=*/"false",
           "QuantizeLinear with a constant scale multiplies by its "
           "correctly rounded reciprocal and corrects the product with two "
           "fmas: the same quotient as x / scale, without the division "
           "(div.rn.f32's slow-path branch stops ptxas from issuing the "
           "epilogue's loads early)">,
    Option<"padConvInput", "pad-conv-input", "bool", /*default=*/"false",
           "NC[D]HW convs of one group whose windows leave the input read a "
           "padded copy "
           "(zero, or the input zero point) through a pure affine map, "
           "instead of a bounds-checked element under each window: the "
           "host's row vectorizer then loads the window rows as vectors; "
           "strided 1x1 convs read a copy of the positions they read, "
           "at stride 1">,
    Option<"vnniConvs", "vnni-convs", "bool", /*default=*/"false",
           "NC[D]HW integer convs of one group are laid out for AVX512-VNNI "
           "(dlc-vectorize-host-rows `vnni`): constant weights of a window "
           "larger than 1 as [O, KH, KW, C], a tap's input channels in "
           "consecutive bytes; an s8 input times s8 weights with the zero "
           "point split out reads x + 128 as u8 (x xor 0x80), the init "
           "subtracting 128 * sum(w) more: u8 x s8 products. Grouped "
           "(depthwise) convs with the zero point split out get zero taps "
           "in their constant weight rows up to a multiple of 4 (their "
           "padded copy a column more where the taps read past it): a "
           "window row is then 4 consecutive input bytes, which "
           "dlc-vectorize-host-rows reads as a sliding span">,
    Option<"pairConvWeights", "pair-conv-weights", "bool",
           /*default=*/"false",
           "NC[D]HW integer convs of one group lay constant weights of a "
           "window larger than 1 out as [O, KH, KW, C] (as vnni-convs does, "
           "without the u8 input): the host's pmaddwd dot products "
           "(dlc-vectorize-host-rows `pmaddwd-bits`) then read a step "
           "pair's two weights as one 16-bit word">,
    Option<"wideConvWeights", "wide-conv-weights", "bool",
           /*default=*/"false",
           "NC[D]HW integer convs of one group whose weight zero point is "
           "split out hold their constant weights as i16 (the same values): "
           "a pmaddwd step pair's weights are then one 32-bit broadcast from "
           "memory, where bytes took a 16-bit broadcast and a widening on "
           "the shuffle ports (twice the weights' bytes)">,
    Option<"convPlaneRows", "conv-plane-rows", "int64_t", /*default=*/"0",
           "Host, with pad-conv-input: a stride-1 2-D conv (float or "
           "integer) of one group (or, with pad-grouped-conv-input, a "
           "depthwise one) whose output rows are shorter than a "
           "16-lane tile is computed on its padded input's width, the plane "
           "one row of at most this many positions whose window reads are "
           "contiguous; a second op keeps the valid columns. A strided one "
           "(window larger than 1x1, equal strides, no dilation) reads its "
           "input's s x s phases, its pads in them, at stride 1: on their "
           "width the same way, or in rows of its output's width. An "
           "integer conv's plane rounds up to a multiple of 16 positions "
           "(AVX2 has no masked byte loads) (0: off)">,
    Option<"padGroupedConvInput", "pad-grouped-conv-input", "bool",
           /*default=*/"false",
           "With pad-conv-input, grouped convs (depthwise) read a padded "
           "copy too: where the host vectorizes rows, whose affine window "
           "reads it loads as vectors (their bounds-checked reads ran "
           "scalar)">,
    Option<"pairMatMulWeights", "pair-matmul-weights", "bool",
           /*default=*/"false",
           "Integer MatMuls of a constant 2-D rhs whose zero point is split "
           "out and whose K is even hold it as i16 pairs [K / 2, L], "
           "w[2 k2 + p][n] at [k2, 2 n + p], the reduction split in k2 and "
           "p, and read their lhs widened to i16 by a parallel generic: the "
           "host's pmaddwd dot products (dlc-vectorize-host-rows "
           "`pmaddwd-bits`) then load a row's lane pairs as they are and "
           "broadcast the lhs pair as one 32-bit word, where two byte rows "
           "took an interleave and two widenings on the shuffle ports a "
           "step, and the lhs pair a broadcast and a widening. A weight "
           "larger than L1 has rows (L >= 2 N) of an odd number of 64-byte "
           "lines, which the reduction's reads spread over every L1 set">,
    Option<"quadMatMulWeights", "quad-matmul-weights", "bool",
           /*default=*/"false",
           "Integer MatMuls of a constant 2-D rhs whose zero point is split "
           "out and whose K is a multiple of 4 hold it as byte quadruples "
           "[K / 4, L], w[4 k2 + p][n] at [k2, 4 n + p], the reduction split "
           "in k2 and p: the host's vpdpbusd dot products "
           "(dlc-vectorize-host-rows `vnni`) then load a row's lane words "
           "as they are and broadcast the lhs's 4 bytes as one word, where "
           "four byte rows took two rounds of interleaves a step. vpdpbusd "
           "multiplies u8 by s8: an s8 lhs of s8 weights is read as u8 "
           "(x xor 0x80, by a parallel generic of its own), the init "
           "subtracting 128 * sum(w) more; u8 x u8 keeps the plain form. "
           "Rows larger than L1 are padded as pair-matmul-weights' are">,
    Option<"quadConvInputs", "quad-conv-inputs", "bool", /*default=*/"false",
           "With pad-conv-input and vnni-convs: NCHW integer 1x1 convs of "
           "one group (strided ones on their subsampled copy) whose zero "
           "point is split out and whose input channels are a multiple of 4 "
           "read their input as byte quadruples [N, C / 4, H, 4 W], "
           "x[4 c2 + q][h][w] at [c2, h, 4 w + q] (x xor 0x80 for an s8 "
           "input), written by a parallel generic of their own, the "
           "reduction split in c2 and q: the host's vpdpbusd dot products "
           "then load a tile's lane words as they are, one 64-byte line, "
           "and share the load among output channels and tiles, where four "
           "channel rows took 4 loads and an interleave of 10 shuffles for "
           "each tile and pass">,
    Option<"twoPassSoftmax", "two-pass-softmax", "bool", /*default=*/"false",
           "Softmax as m = max(x), e = exp(x - m), s = sum(e), e * (1 / s) "
           "(the host's: each reduction a plain max or sum that vectorizes "
           "along the row, one exp an element) instead of one online pass "
           "carrying s * exp(m - m') + exp(x - m') (two exps in a serial "
           "chain an element) and a normalizing pass">
  ];
}

def FoldPaddedCopiesPass : Pass<"dlc-fold-padded-copies", "ModuleOp"> {
  let summary = "Producers write a padded copy's interior themselves";
  let description = [{
    Host: a conv whose window leaves its input (a depthwise one) reads a
    padded copy, one kernel filling it with the pad value and another
    copying the input into its interior through a shifted map
    (dlc-convert-to-linalg's fillThenCopy, whose rows of 16 elements or
    more start 16 elements into rows a multiple of 16 long: aligned). Where
    the input is a buffer that one kernel (called once, reaching it through
    structured ops alone) writes and the copy alone reads, that producer
    writes the interior through a subview of the padded buffer, the fill
    moving before it, and the copy and the input's buffer go. Rows shorter
    than 16 stay copied: their producer (a 1x1 conv) runs its plane as one
    row (dlc-collapse-row-planes), which the strided view breaks
    (mobilenet_v2's 7x7 expand convs lost more than the copies cost).
    mobilenet_v2's copies read and wrote each such depthwise conv's input
    once more: fp32 step sum 7.61 -> 7.21 ms, int8 QDQ 2.69 -> 2.61. The
    fill then writes the border alone (it wrote every interior line once
    more): three reinterpret_cast views a plane, the rows before the first
    interior element, each interior row's right border with the next row's
    left one, and the rest, each filled by a copy of the fill kernel
    (mobilenet_v2 fp32 fills 0.41 -> ~0.13 ms). Runs on kernel calls, after
    dlc-fuse-kernels; the plan passes a view as its source's pointer, the
    kernel's strided layout holding the offset.

    Before:
    ```mlir
    %a = memref.alloc() : memref<1x96x112x112xf32>
    call @conv1x1(%x, %w, %a)
    %p = memref.alloc() : memref<1x96x114x144xf32>
    call @fill(%p)
    call @copy(%a, %p)     // %p[n, c, y + 1, x + 16] = %a[n, c, y, x]
    call @depthwise(%v, %w2, %y)  // %v: %p's columns 15 .. 128
    ```
    After:
    ```mlir
    %p = memref.alloc() : memref<1x96x114x144xf32>
    %b0 = memref.reinterpret_cast %p to offset: [0], sizes: [96, 160],
        strides: [16416, 1]              // row 0, row 1's left border
    call @fill_border(%b0)
    %b1 = memref.reinterpret_cast %p to offset: [272], sizes: [96, 111, 32],
        strides: [16416, 144, 1]         // right + next row's left borders
    call @fill_border_0(%b1)
    %b2 = memref.reinterpret_cast %p to offset: [16256], sizes: [96, 160],
        strides: [16416, 1]              // row 112's right border, row 113
    call @fill_border_1(%b2)
    %i = memref.subview %p[0, 0, 1, 16] [1, 96, 112, 112] [1, 1, 1, 1]
    call @conv1x1(%x, %w, %i)  // strided<[1575936, 16416, 144, 1], offset: 160>
    call @depthwise(%v, %w2, %y)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def IsolateOutputsPass : Pass<"dlc-isolate-outputs", "ModuleOp"> {
  let summary = "Keep model inputs read-only and give every output its own buffer";
  let description = [{
    Runs on tensors right before bufferization. Model inputs belong to the
    caller: they are marked `bufferization.writable = false` so no kernel
    writes into them. A model output that is an input, a constant, or the
    same value as another output (Identity graphs, folded Casts) becomes a
    fresh tensor copied from it, so every output is written into its own
    caller buffer (a copy step in the plan).

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      return %x : tensor<4xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<4xf32> {bufferization.writable = false})
        -> tensor<4xf32> {
      %0 = bufferization.alloc_tensor() copy(%x) : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def ExpandMathPass : Pass<"dlc-expand-math", "ModuleOp"> {
  let summary = "Expand math ops the host backend has no lowering for";
  let description = [{
    `math.rsqrt` becomes `1 / sqrt(x)` so that the host lowering (math to
    LLVM intrinsics and libm) handles it; the CUDA path keeps it (libdevice).
    `math.erf` on f32 becomes a rational approximation (x P(x^2) / Q(x^2)
    on [-4, 4], Eigen's and XLA's; plain arithmetic, which LLVM vectorizes)
    instead of a call of libm's `erff` for each element: BERT's GELU
    epilogues ran scalar. Its products and sums may contract, and so may
    those of `math.fma` the other approximations use: one FMA where the
    CPU has it, not a call of `fmaf` an element where it does not. It also runs `arith-expand`'s patterns for ceil/floor
    divisions and bf16 conversions, but leaves `arith.minimumf` and
    `arith.maximumf` to `llvm.minimum`/`llvm.maximum`: expanded to cmpf +
    select, a reduction of them to one value (DynamicQuantizeLinear's
    range over a whole tensor) did not vectorize. Against a constant that
    is not NaN (ReLU, Clip, a clamp) they do become `x < c ? c : x` (`>`
    for minimumf): NaN still propagates, and x86 takes it as one `vmaxps`
    where `llvm.maximum` adds a NaN compare and a masked move.
    `math.exp` on f32 becomes
    MLIR's Cephes approximation (range reduction and a polynomial, ~1 ulp):
    `llvm.exp` was a call of libm's `expf` an element, vectors included, in
    every softmax and attention kernel.

    Before: `%r = math.rsqrt %x : f32`
    After:  `%s = math.sqrt %x : f32` and `%r = arith.divf %one, %s : f32`
  }];
  // The approximations broadcast their constants on vector operands.
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def ExpandIntegerDivisionPass : Pass<"dlc-expand-integer-division"> {
  let summary = "Expand arith's ceil/floor divisions, and nothing else";
  let description = [{
    `arith.ceildivsi`, `arith.ceildivui` and `arith.floordivsi` have no
    LLVM lowering; this expands them into plain integer arithmetic (MLIR's
    own patterns). It runs on the CUDA kernels instead of `arith-expand`,
    which also rewrites every `arith.maximumf` / `minimumf` / `maxnumf` /
    `minnumf` into a compare and a select: two instructions where LLVM's
    NVPTX backend emits one `max.NaN.f32` / `min.f32` (sm_80+). An int8
    epilogue clamps every element twice and applies its ReLU.

    Before:
    ```mlir
    %q = arith.ceildivsi %a, %b : i32
    %m = arith.maximumf %x, %y : f32
    ```
    After (`%m` unchanged):
    ```mlir
    // %q: the sign-aware quotient in divsi/muli/subi/select form
    %m = arith.maximumf %x, %y : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OutlineKernelsPass : Pass<"dlc-outline-kernels", "ModuleOp"> {
  let summary = "Move each structured op of the model function into a kernel";
  let description = [{
    After bufferization, the model function is a sequence of structured ops
    on memrefs. Each becomes a private `func.func` marked `dlc.kernel` whose
    arguments are the whole buffers it touches (operands and buffers it
    reads through captured values, e.g. the input of a gather), and the
    model function calls it. The model function is then exactly the
    execution plan: allocations, views, kernel calls and copies.

    Before:
    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) ...
    }
    ```
    After:
    ```mlir
    func.func private @kernel_0(%a: memref<4xf32>, %b: memref<4xf32>)
        attributes {dlc.kernel} { linalg.generic ... }
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      call @kernel_0(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TileGemmKernelsPass : Pass<"dlc-tile-gemm-kernels", "ModuleOp"> {
  let summary = "16-bit, int8 and TF32 GEMM kernels as tensor-core CTA programs (mma.sync, sm_90a wgmma, split-K)";
  let description = [{
    The one-thread-per-output kernel form reads each operand element once
    per output it feeds; a GEMM needs the operands staged in shared memory
    and the tensor cores to approach the device's FLOP rate. This pass takes
    the kernels that `dlc-fuse-kernels` left as `init; acc += ext(A) * ext(B)`
    with f16 or bf16 A and B (f32 accumulator, K a multiple of 8) or i8 A and
    B (i32 accumulator, `extsi`/`extui` giving s8/u8, B laid out [N, K], K a
    multiple of 16), row-major, and an elementwise epilogue over the
    accumulator, and replaces their body with one CTA program per output
    tile: a cp.async pipeline of `stages` k-tiles (64 bytes of k each) into
    swizzled shared memory, `ldmatrix` (`.trans` for a 16-bit [K, N] B) and
    `mma.sync` (m16n8k16 for 16-bit, m16n8k32 for int8) with the
    accumulators in registers, then the init (a fill or an elementwise
    generic), alpha and the epilogue's ops applied to each accumulator
    element and stored. In 16-byte units the int8 schedule is the 16-bit
    one: the same swizzle, ldmatrix addresses and fragment registers. The tile
    shape (128x128, 128x64 or 64x64) comes from a cost model estimating
    the kernel's cycles on `sm-count` SMs (`estimateCycles`: CTAs in waves,
    per k-tile the longer of a tile's MMAs and its loads, a fixed cost for
    the pipeline's fill and the epilogue). Buffers only the kernel
    used (the f32 accumulator) are dropped from its arguments.

    With `wgmma` (sm_90a), kernels whose B is K-major ([N, K]: convolution
    weights, transposed and [N, K]-stored weights, Q K^T) run on warpgroups
    instead: CTA tiles of 128 rows by 256, 192, 128 or 64 columns, or 64
    rows by 128, 96 or 64 (same cost model), with one or two warpgroups of 128 threads stacked along M, k-tiles of 128
    bytes of k in the 128-byte-swizzled K-major layout wgmma's descriptors
    address (the same XOR swizzle, eight chunks a row, from a 1024-byte
    aligned base), `wgmma.mma_async` m64nBNk16 (k32 for i8) with
    accumulators in registers, `fence.proxy.async` after each cp.async wait,
    and the slot of k-tile kt - 2 refilled while kt runs (wgmma is waited
    for one k-tile behind). A [K, N] 16-bit B and TF32 keep mma.sync.

    With `tma` as well, the k-tiles of B, and of A when A is a plain
    row-major operand (not a convolution's im2col window), are loaded by
    the Tensor Memory Accelerator: one thread arms the slot's mbarrier with
    the stage's byte count (`mbarrier.arrive.expect_tx`) and issues one
    `cp.async.bulk.tensor` per operand box, which lands 128-byte swizzled
    and zero-fills past the tensor's edges; all threads wait on the
    mbarrier's phase parity. The kernel takes one more argument per such
    operand, the same buffer marked `dlc.tensor_map = {dims, box, swizzle}`
    (innermost first): the packager turns it into a model.so tensor map
    that the runtime encodes per context and passes by address. A needs
    rows of a multiple of 16 bytes and a 16-byte aligned base; operands
    that are not whole kernel arguments keep cp.async. With `tma-im2col`
    a convolution's im2col window (3x3, strided) loads by TMA's im2col
    mode where the input is a whole [N, H, W, C] argument padded with
    zeros: its map (`dlc.tensor_map`'s `im2col`: the bounding box of
    window corners, traversal strides, BK channels of BM pixels a copy)
    turns one `cp.async.bulk.tensor.4d...im2col` with the tile's first
    corner and the k-tile's kernel offsets into the A tile. Window
    positions of 64 or 32 bytes (int8 over 64 channels, the f16
    space-to-depth stems over 16) take k-tiles of one position with the
    swizzle of that width.

    With `warp-specialize` as well, a kernel whose operands both load by
    TMA gets one more warp, after its warpgroups: its first thread is the
    producer, which arms and issues every k-tile as soon as its slot is
    free (waiting on the slot's "empty" mbarrier); the consumer warpgroups
    wait on the "full" mbarrier, run the k-tile's wgmmas and, once the
    k-tile before is complete (`wgmma.wait_group 1`), release its slot with
    one `mbarrier.arrive` per warp. The k-loop has no CTA barrier left and
    keeps `stages - 1` k-tiles in flight.

    With `persistent` as well, a warp-specialized kernel (not split) whose
    tiles need more than one wave of CTAs on `sm-count` SMs launches one
    wave: P = ceil(tiles / waves) CTAs, CTA c taking tiles c, c + P, ...
    (consecutive tiles still run at once, so the raster groups keep their
    L2 reuse). The producer's and consumers' k-tile counts run on across
    the CTA's tiles (slot and phase parity from the running count), and the
    consumers release the tile's last slot before its epilogue, so the
    producer loads the next tile's first k-tiles while the epilogue runs and
    the mbarrier setup and tensor-map acquire happen once per CTA:

      // one CTA per tile, 512 CTAs (4096^3 f16, 128x256 tiles):
      scf.parallel (%cta) = (%c0) to (%c512) { <k-loop>; <epilogue> }
      // persistent, 128 CTAs on 132 SMs:
      scf.parallel (%cta) = (%c0) to (%c128) {
        scf.for %i = %c0 to %tiles_of_cta { <k-loop>; <release>; <epilogue> }
      }

    With `stage-epilogue`, the epilogue writes its outputs of the operands'
    element type (innermost dim N) to the stage memory, free after the
    k-loop, and, after a barrier of the consumer threads, copies whole
    16-byte chunks of tile rows out, instead of storing a fragment's pairs
    (4 bytes a lane, 2 at int8) from the registers:

      // per thread: its fragment pairs, as pairs
      vector.store %pair, %smem[(row - row0) * (BN + chunk) + col - col0]
      <barrier>
      // per thread: chunks t, t + threads, ... of the BM x BN tile
      %v = vector.load %smem[...] : vector<8xf16>
      vector.store %v, %out_flat[...] : vector<8xf16>

    With `stage-epilogue-inputs` (all GEMMs, or int8 ones), an input the
    epilogue reads at its own elements (a residual, of the operands' type,
    N innermost) goes the other way first: whole 16-byte chunks of its tile rows into the stage
    memory (after the staged outputs' regions), a barrier, and each
    fragment reads its pair there instead of from global memory. Not where
    the accumulators and a register a pair would pass 96 registers a
    thread (ptxas hoists the pair loads; 128x256 tiles spilled 1 KB).

    With `split-k`, a kernel whose output tiles give fewer than half of
    `sm-count` SMs a CTA is split along K: a copy of the kernel (called
    first, with the caller's operands and a workspace `[s] + accumulator
    shape` the caller allocates) runs `s` CTAs per tile over their share of
    the k-tiles and stores the partial sums; the kernel itself keeps its
    init and epilogue and adds the partial sums up in order over `s` in
    place of its contraction (deterministic, no atomics). With
    `cluster-split-k` as well, a wgmma kernel splits into at most 8 CTAs
    per tile that form one thread-block cluster (consecutive CTAs; the
    kernel gets `dlc.cluster_ctas`, which the PTX declares with
    `.explicitcluster` and `.reqnctapercluster`): after the k-loop, every
    rank stores its accumulator fragments into its own (now free) stage
    memory, a cluster barrier (release/acquire) orders them before any
    reads, and each rank, owning a block of the fragments, reads the other
    ranks' copies of those with `mapa` + `ld.shared::cluster`, adds them in
    rank order (deterministic, whoever adds) and runs the epilogue on
    them; a second cluster barrier keeps every rank (and its shared
    memory) alive until the others have read. No workspace and no second
    kernel. With `gather-split-k` too, a
    convolution gathering its A operand (im2col by cp.async) whose tiles
    fill between half and one wave of SMs chooses its tile and cluster
    split together, by a cost that charges each k-tile a gather's
    turnaround, the ranks the partial tiles they add and the clusters a
    GPC holds at once: resnet50 b32's layer4 3x3 convolutions run 26 tiles
    of 128x256 in clusters of 4 instead of 104 unsplit CTAs of 128x64. A wgmma convolution left unsplit whose
    CTAs fit one wave (one an SM) takes every pipeline stage K fills and an
    SM's shared memory holds, 8 at most: nothing else competes for it.

    With `gather-producer-warps=N` (and `warp-specialize`), a wgmma GEMM
    whose A is gathered by cp.async (a 3x3 convolution's im2col window)
    and whose B loads by TMA gets N producer warps after its warpgroups
    instead of gathering in them: the consumers' k-loop loses its copies,
    its cp.async wait and its CTA barrier, which left such convolutions
    at a fifth of the tensor cores' rate:

      // consumers, per k-tile
      mbarrier.try_wait.parity [full[s]], phase
      fence.proxy.async.shared::cta
      wgmma ... ; wgmma.wait_group 1
      mbarrier.arrive [empty[s - 1]]
      // producer thread p of 32N, per k-tile
      mbarrier.try_wait.parity [empty[s]], phase'   (refills)
      cp.async.cg.shared.global ... (chunks p, p + 32N, ... of A)
      cp.async.mbarrier.arrive.shared::cta.b64 [full[s]]
      mbarrier.arrive [full[s]]   (p = 0: arrive.expect_tx + B's TMA)

    A full barrier counts 32N arrivals. Four warps are a warpgroup, which
    `setmaxnreg`s its registers to the consumers.

    With `fold-padding`, a convolution reading a buffer that a zero-padding
    kernel (its generic marked `dlc.padding`, from dlc-convert-to-linalg)
    filled from an input just before reads the input itself: window rows
    and columns shift by the begin pads, and im2col chunks outside the
    input are zero-filled (cp.async with 0 source bytes). The kernel's A
    argument takes the unpadded type; the copy, its buffer and its kernel
    go:

      // before: a copy, then the implicit GEMM over it
      call @pad(%p, %x) : (memref<1x58x58x64xf16>, memref<1x56x56x64xf16>)
      call @conv(%p, %w, %y) : (memref<1x58x58x64xf16>, ...)
      // after
      call @conv(%x, %w, %y) : (memref<1x56x56x64xf16>, ...)

    With `emulate` (the host's `--cuda-kernel-form`) the same schedule is
    built with each warp instruction written out per lane as the PTX ISA
    defines it -- ldmatrix and mma.sync fragments, and wgmma's operands read
    through its descriptors (start address, stride byte offset, 128-byte
    swizzle) -- so the tiling, swizzle and fragment arithmetic run, and are
    checked, on the host.

    The kernel keeps the linearized form (one `scf.parallel` over CTAs,
    `dlc.work_items`) with `dlc.cta_threads` threads each and
    `dlc.shared_bytes` of dynamic shared memory.

    Before:
    ```mlir
    func.func private @k(%acc: memref<64x128xf32>, %a: memref<64x256xf16>,
        %b: memref<256x128xf16>, %out: memref<64x128xf16>) attributes {dlc.kernel} {
      linalg.fill ins(%zero : f32) outs(%acc : memref<64x128xf32>)
      linalg.generic ... ins(%a, %b) outs(%acc) { extf, extf, mulf, addf }
      linalg.generic ... ins(%acc) outs(%out) { truncf }
    }
    ```
    After:
    ```mlir
    func.func private @k(%a: memref<64x256xf16>, %b: memref<256x128xf16>,
        %out: memref<64x128xf16>) attributes {dlc.kernel, dlc.work_items = 2,
        dlc.cta_threads = 128, dlc.shared_bytes = 24576} {
      scf.parallel (%cta) = (%c0) to (%c2) step (%c1) {
        %smem = gpu.dynamic_shared_memory ...
        nvgpu.device_async_copy ... // prologue
        scf.for %kt ... iter_args(%acc = ...) -> (vector<2x2xf32>, ...) {
          nvgpu.device_async_wait ... gpu.barrier
          nvgpu.device_async_copy ...
          nvgpu.ldmatrix ... nvgpu.mma.sync ...
        }
        %e = vector.extract ... arith.truncf ... memref.store ...
      }
    }
    ```
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Emulate the warp instructions per lane (host --cuda-kernel-form)">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"132",
           "SMs of the target GPU, for the tile shape cost model">,
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Also f32 GEMMs, on TF32 tensor cores (mma.sync m16n8k8, "
           "operands rounded to TF32; B must be [N, K])">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "sm_90a: GEMMs with a K-major B ([N, K]; f16, bf16, i8) run "
           "warpgroup wgmma.mma_async from shared memory descriptors">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "With wgmma: load operand tiles with TMA (cp.async.bulk.tensor "
           "into mbarrier-tracked stages) where the operand is a whole "
           "row-major kernel argument">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "With tma, kernels whose operands both load by TMA get a "
           "producer warp that issues the copies; the consumer warpgroups "
           "release slots through mbarriers instead of a CTA barrier">,
    Option<"splitK", "split-k", "bool", /*default=*/"true",
           "Split K among CTAs when the output tiles leave half the SMs "
           "idle (partial sums to a workspace, added up by the kernel's "
           "epilogue in a fixed order)">,
    Option<"stageEpilogue", "stage-epilogue", "bool", /*default=*/"false",
           "The epilogue writes its outputs of the operands' element type to "
           "the stage memory freed after the k-loop and copies whole 16-byte "
           "chunks of rows out, instead of storing 4 (2 for int8) bytes a "
           "lane from the fragments">,
    Option<"stageEpilogueInputs", "stage-epilogue-inputs", "std::string",
           /*default=*/"\"none\"",
           "Which GEMMs' epilogue inputs read at their own elements (a "
           "residual) of the operands' element type are first copied to the "
           "stage memory freed after the k-loop in 16-byte chunks of rows, "
           "each fragment reading its pair there instead of 4 (2 for int8) "
           "bytes a lane from global memory: none, int8 (integer GEMMs) or "
           "all">,
    Option<"clusterSplitK", "cluster-split-k", "bool", /*default=*/"false",
           "With wgmma, a split tile's CTAs are one thread-block cluster "
           "(up to 8) whose rank 0 adds the others' accumulators from "
           "distributed shared memory and runs the epilogue: one kernel, "
           "no workspace">,
    Option<"gatherSplitK", "gather-split-k", "bool", /*default=*/"false",
           "With cluster-split-k, a convolution gathering its A operand "
           "(im2col by cp.async) whose tiles fill between half and one wave "
           "of SMs picks its tile and cluster split together, by a cost "
           "that counts a gather's k-tile turnaround">,
    Option<"deepenStages", "deepen-stages", "bool", /*default=*/"false",
           "With wgmma, a convolution whose unsplit CTAs fit one wave (one "
           "an SM) takes every pipeline stage K fills and 227 KiB hold, "
           "8 at most">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "With warpSpecialize, GEMMs whose tiles need more than one wave "
           "of CTAs run persistent CTAs (one wave) that loop over tiles; "
           "the producer warp loads the next tile while the consumers run "
           "the epilogue">,
    Option<"minCtasPerSm", "min-ctas-per-sm", "int64_t", /*default=*/"0",
           "With 2 or more: a wgmma GEMM whose tiles need more than one "
           "wave of CTAs (one an SM) drops pipeline stages, to 3 at least, "
           "until this many CTAs' shared memory fits an SM (an H100's 228 "
           "KiB), and then asks ptxas for that many (.minnctapersm) so that "
           "their registers fit too (0: the stages of the cost model, "
           "registers as ptxas allots them)">,
    Option<"shortKTiles", "short-k-tiles", "bool", /*default=*/"false",
           "With wgmma, a GEMM whose K is 64 bytes or less (int8 K <= 64) "
           "takes k-tiles of 64 bytes with the 64-byte swizzle instead of "
           "128 bytes, half of them zeros: TMA can load its operands (a box "
           "may not be larger than its tensor)">,
    Option<"gatherProducerWarps", "gather-producer-warps", "int64_t",
           /*default=*/"0",
           "With warp-specialize: a wgmma GEMM whose A operand is gathered "
           "by cp.async (an im2col window) and whose B loads by TMA gets "
           "this many producer warps (1, 2 or 4) after its warpgroups: they "
           "gather A's k-tiles and issue B's, stages ahead, and complete "
           "each slot's full mbarrier (cp.async.mbarrier.arrive); the "
           "warpgroups release slots through the empty mbarriers (0: the "
           "warpgroups gather, with a CTA barrier a k-tile)">,
    Option<"producerWarpgroup", "producer-warpgroup", "bool",
           /*default=*/"false",
           "With warp-specialize: the producer of a GEMM whose operands "
           "both load by TMA is a warpgroup (one thread issues the copies) "
           "that gives its registers to the consumers (setmaxnreg: 24 a "
           "producer thread), instead of one warp beside which every "
           "thread keeps what it starts with">,
    Option<"prefetchEpilogueInputs", "prefetch-epilogue-inputs", "bool",
           /*default=*/"false",
           "The staged epilogue inputs (stage-epilogue-inputs) of a GEMM "
           "whose k-loop leaves stage slots unfilled (K of fewer k-tiles "
           "than stages) are copied there by cp.async as the CTA starts, "
           "beside its first k-tiles, instead of after the k-loop">,
    Option<"tmaIm2col", "tma-im2col", "bool", /*default=*/"false",
           "With tma: a convolution whose A is an im2col window cp.async "
           "would gather (not the input itself) loads it by TMA in im2col "
           "mode where the input is a whole [N, H, W, C] kernel argument "
           "padded with zeros, C a multiple of the k-tile (positions of "
           "32 or 64 bytes: k-tiles of one position): one "
           "cp.async.bulk.tensor.4d.im2col a k-tile, BM pixels of BK "
           "channels at the k-tile's kernel offsets">,
    Option<"foldPadding", "fold-padding", "bool", /*default=*/"true",
           "Convolutions read their input through zero-filling im2col "
           "loads instead of the zero-padded copy (a dlc.padding kernel) "
           "written just before, which then goes">,
    Option<"tile", "tile", "std::string", /*default=*/"\"\"",
           "BMxBN: this CTA tile for every GEMM whose path (wgmma or "
           "mma.sync) has it, instead of the cost model's choice (tests "
           "and tuning; empty: the cost model)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"];
}

def TileAttentionKernelsPass : Pass<"dlc-tile-attention-kernels", "ModuleOp"> {
  let summary = "Attention kernels as flash-attention CTA programs on tensor cores";
  let description = [{
    The kernel form of `dlc.attention_kernel` gives each query row a thread
    that streams over the keys with scalar f32 arithmetic, reading every key
    and value once per query. This pass takes the kernels that are one
    `dlc.attention_kernel` (head size a multiple of 16 up to 128; any key
    count, a partial last block of keys masked) and, at
    `--precision=fp16|bf16`, rebuilds them as
    flash-attention CTA programs: 4 warps own 16 rows each of a 64-query
    block (2 or 1 warps when 64-row blocks would leave half of `sm-count`
    SMs idle); blocks of 64 keys of K (or K^T) and V are staged in shared
    memory as `precision` values (rows padded by 16 bytes so that fragment
    loads hit distinct banks); `mma.sync` m16n8k16 computes the scores
    with f32 accumulators, the online softmax (running max and sum, the
    output rescaled by exp(m - m')) runs on those registers with the row
    maxima and sums combined over the row's 4 lanes by `shfl.xor`, and the
    probabilities, rounded to `precision`, are repacked from accumulator
    fragments into the A fragments of P V in registers. The scores never
    reach memory; Q, K and V are read once per query block, not per query.

    With `emulate` (the host's `--cuda-kernel-form`) the same schedule is
    built with every thread's fragments in CTA-wide arrays and mma.sync and
    the shuffles written out per lane as the PTX ISA defines them.

    Before:
    ```mlir
    func.func private @k(%q: memref<1x12x128x64xf32>, %kt: memref<1x12x64x128xf32>,
        %v: memref<1x12x128x64xf32>, %o: memref<1x12x128x64xf32>) attributes {dlc.kernel} {
      dlc.attention_kernel %q, %kt, %v outs(%o : memref<1x12x128x64xf32>)
          {k_transposed = true, scale = 1.250000e-01 : f32} : ...
    }
    ```
    After:
    ```mlir
    func.func private @k(...) attributes {dlc.kernel, dlc.work_items = 24,
        dlc.cta_threads = 128, dlc.shared_bytes = 27648} {
      scf.parallel (%cta) = (%c0) to (%c24) step (%c1) {
        // Q block -> smem (f16), its A fragments -> registers
        scf.for %j0 = %c0 to %c128 step %c64 {
          // K, V blocks -> smem; nvgpu.mma.sync (S = Q K^T); scale, mask,
          // row max (gpu.shuffle xor), exp, row sums; nvgpu.mma.sync (O += P V)
        }
        // O / l -> %o
      }
    }
    ```
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Emulate the warp instructions per lane (host --cuda-kernel-form)">,
    Option<"precision", "precision", "std::string", /*default=*/"\"f16\"",
           "The 16-bit type of the tensor-core operands: f16 or bf16">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"132",
           "SMs of the target GPU: CTAs of fewer warps (32 or 16 query "
           "rows) while 64-row CTAs would leave half of them idle">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"];
}

def DistributeReductionsPass : Pass<"dlc-distribute-reductions", "ModuleOp"> {
  let summary = "Row reduction kernels as warp-cooperative CTA programs";
  let description = [{
    In the one-thread-per-work-item form a row reduction kernel (LayerNorm,
    Softmax, ReduceMean/Sum over the last axis, with its fused neighbours)
    runs one thread per row: neighbouring threads read addresses a row
    apart, and there are only as many threads as rows. This pass takes the
    kernels (in the CUDA form, before `dlc-linearize-kernels`) whose work
    item is a sequence of row phases over the innermost, contiguous dim --
    reductions `acc[i] = combine(acc[i], f(x[.., k]))` with an arith
    combiner (addf, maximumf, ...) on f32 or i32, elementwise passes
    writing `y[.., k]`, and straight-line code (the fills) -- with at least
    one reduction of `min-row-length` elements or more, and rebuilds them
    as CTA programs of `warps-per-cta` warps, one warp per row:

    - each phase is spread over the 32 lanes, lane `l` taking the vectors
      `l, l + 32, ...` of `width` consecutive elements (128 bits of the
      narrowest element the kernel moves, halved until it divides the row
      and gives every lane a vector): consecutive lanes read consecutive
      16-byte chunks;
    - a reduction's lane partials start at the combiner's neutral element
      and meet in an xor butterfly (`gpu.shuffle xor` 16, 8, 4, 2, 1, i.e.
      `shfl.sync.bfly`); lane 0 combines the total into the accumulator;
    - the phases (mean, variance, normalize) run one after the other by the
      same warp, re-reading the row (it stays in L1/L2), separated by
      `__syncwarp` (`nvvm.bar.warp.sync`) after phases that write memory;
    - before that, fewer phases: an elementwise pass writing a buffer only
      this kernel uses (LayerNorm's `x - mean`) is recomputed where later
      row loops read it at their own element and goes, and an elementwise
      pass reading only its own elements of what the pass before it wrote
      (the f16 rounding of the normalized row) joins that pass.

    The result keeps the launch contract of `dlc-tile-gemm-kernels`:
    `dlc.work_items` CTAs of `dlc.cta_threads` threads, which
    `dlc-linearize-kernels` leaves alone and the mapper launches as blocks.
    With `emulate` (the host's `--cuda-kernel-form`) the same schedule is
    built with the warps and lanes as loops and the shuffle reading lane
    `l ^ offset`'s slot of a per-warp scratch array, so the distribution and
    the butterfly are checked numerically on the host.

    Before (after lowering to the work item loop, for illustration):
    ```mlir
    func.func private @k(%x: memref<1024x768xf32>, %sum: memref<1024x1xf32>)
        attributes {dlc.kernel} {
      linalg.fill ins(%zero : f32) outs(%sum : memref<1024x1xf32>)
      linalg.generic {iterator_types = ["parallel", "reduction"]}
          ins(%x) outs(%sum) { addf }
    }
    ```
    After:
    ```mlir
    func.func private @k(...) attributes {dlc.kernel, dlc.work_items = 256,
        dlc.cta_threads = 128} {
      scf.parallel (%cta) = (%c0) to (%c256) step (%c1) {
        %tid = gpu.thread_id x
        %lane = arith.remui %tid, %c32
        %row = ... %cta * 4 + %tid / 32
        memref.store %zero, %sum[%row, %c0]
        nvvm.bar.warp.sync %all
        %p = scf.for %j = %lane to %c192 step %c32 iter_args(%a = %neg0) {
          %s = scf.for %v = %c0 to %c4 step %c1 iter_args(%b = %a) {
            %e = memref.load %x[%row, %j * 4 + %v]
            %n = arith.addf %b, %e
            scf.yield %n
          }
          scf.yield %s
        }
        %s16, %ok = gpu.shuffle xor %p, %c16, %c32 : f32
        %p16 = arith.addf %p, %s16
        ...                                    // 8, 4, 2, 1
        scf.if %lane_is_0 { ... memref.store %total, %sum[%row, %c0] }
        nvvm.bar.warp.sync %all
      }
    }
    ```
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Emulate the lanes and the shuffle with loops and scratch arrays "
           "(host --cuda-kernel-form)">,
    Option<"warpsPerCta", "warps-per-cta", "int64_t", /*default=*/"4",
           "Rows (warps) per CTA">,
    Option<"minRowLength", "min-row-length", "int64_t", /*default=*/"32",
           "Shortest reduction (elements) worth a warp">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::math::MathDialect"];
}

def CollapseRowPlanesPass : Pass<"dlc-collapse-row-planes", "ModuleOp"> {
  let summary = "Host kernels: a plane's height and width as one row";
  let description = [{
    A host kernel's work item is a row of its innermost parallel dim
    (`dlc-linearize-kernels` `row-work-items`), which
    `dlc-vectorize-host-rows` cuts in 16-lane tiles: a convolution's output
    width. resnet50's later layers are 14 and 7 wide, so a row there is one
    tile with 2 or 9 of its 16 lanes idle, and a work item's reduction (the
    input channels) runs once for 14 or 7 outputs of each of its output
    channels.

    Where every structured op of a kernel that reduces indexes its two
    innermost parallel dims (height, width) as two consecutive dims of
    each buffer that has them, over the whole extent -- a 1x1 stride-1
    convolution, its bias, residual and activation -- the two dims merge
    into one over collapsed views of those buffers (identity layouts, so the
    view is the same memory), and the reduction dims of extent 1 (a 1x1
    window's) go. The row is then the plane: 49 or 196 outputs, 3 or 12
    full tiles that share each pass over the input channels. Planes longer
    than `max-row` are left alone (0: off), and so are kernels whose other
    parallel dims span fewer than `min-rows` rows (output channels): the
    plane's rows were the work items' parallelism. A buffer may hold the
    width in groups (`dlc-convert-to-linalg` `quad-conv-inputs`' byte
    quadruples, read at (y, 4 x + q) over [H, 4 W]): the merged read is
    4 p + q over [4 H W].

    Before (a 1x1 conv over a 7x7 plane):
    ```mlir
    linalg.generic {indexing_maps = [
        affine_map<(n, k, y, x, c, i, j) -> (n, c, y + i, x + j)>,
        affine_map<(n, k, y, x, c, i, j) -> (k, c, i, j)>,
        affine_map<(n, k, y, x, c, i, j) -> (n, k, y, x)>], ...}
      ins(%x, %w : memref<1x64x7x7xf32>, memref<64x64x1x1xf32>)
      outs(%acc : memref<1x64x7x7xf32>)
    ```
    After:
    ```mlir
    %xv = memref.collapse_shape %x [[0], [1], [2, 3]]
        : memref<1x64x7x7xf32> into memref<1x64x49xf32>
    %accv = memref.collapse_shape %acc [[0], [1], [2, 3]] ...
    linalg.generic {indexing_maps = [
        affine_map<(n, k, p, c) -> (n, c, p)>,
        affine_map<(n, k, p, c) -> (k, c, 0, 0)>,
        affine_map<(n, k, p, c) -> (n, k, p)>], ...}
      ins(%xv, %w : memref<1x64x49xf32>, memref<64x64x1x1xf32>)
      outs(%accv : memref<1x64x49xf32>)
    ```
  }];
  let options = [
    Option<"maxRow", "max-row", "int64_t", /*default=*/"256",
           "Longest merged row (elements); 0 leaves every kernel alone">,
    Option<"byteMaxRow", "byte-max-row", "int64_t", /*default=*/"0",
           "Longest merged row of a kernel that reduces an 8-bit operand "
           "(an integer conv) whose width 16 does not divide and whose "
           "plane it does: without AVX-512 a byte row has no masked rest, "
           "and such a width ran as pieces of 8, 4, 2 and 1 lanes, each a "
           "pass of the reductions (resnet50's 28: 16 + 8 + 4; its plane "
           "784 is 49 tiles). 0: max-row alone">,
    Option<"panelMaxRow", "panel-max-row", "int64_t", /*default=*/"0",
           "Longest merged row beyond max-row whose length is whole "
           "16-lane tiles: dlc-linearize-kernels splits it into panels "
           "(a plane 16 does not divide kept the row form, unvectorized "
           "past 256: squeezenet1_1's 27x27 1x1 convs 2x slower). 0: "
           "max-row alone">,
    Option<"minRows", "min-rows", "int64_t",
           /*default=*/"::mlir::dlc::kMinPlaneRows",
           "Fewest rows the other parallel dims must span (8 work items "
           "of 8 rows)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LinearizeKernelsPass : Pass<"dlc-linearize-kernels", "ModuleOp"> {
  let summary = "Turn each kernel into one 1-D parallel loop over work items";
  let description = [{
    Lowers the structured op of every `dlc.kernel` function to loops and
    collapses its parallel dims into a single `scf.parallel` from 0 to the
    number of independent work items (one output element each); reduction
    dims stay sequential `scf.for` loops inside. The work item count is
    recorded as `dlc.work_items`. Both targets start from this form: CUDA
    maps work items to threads of fixed-size blocks, the host splits them
    over the runtime's thread pool. In the CUDA form a work item takes
    `vector-width` consecutive elements (128-bit accesses), unless the
    kernel loops over a reduction and that would leave fewer than
    `min-threads` work items: parallelism matters more there than wide
    accesses.

    On the host (`row-work-items`) a work item is a row of the innermost
    parallel dim, run innermost. Which ops take rows: a reduction whose
    innermost parallel dim is long enough (4) over enough rows (8), except
    one along its inputs' contiguous dim (a softmax's max, a LayerNorm's
    mean: as rows each step would gather elements a row apart), which
    keeps one output a work item reading along the reduction; and, of ops
    of parallel dims only, those that compute from their indices, read
    their innermost dim strided, or read an input at their own index
    beside one broadcast along the rows (`x / s[row]`, `x + bias[c]`):
    as single elements the linearized index's divisions keep LLVM from
    vectorizing them.

    ```mlir
    // A [16, 32] row softmax's normalize, as rows: s[%r] is invariant.
    scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
      scf.for %j = %c0 to %c32 step %c1 {
        ... memref.load %e[%r, %j] ... memref.load %s[%r, %c0] ... } }
    ```

    On the host, a row that reduces and is longer than
    a vector-register row (a MatMul's 768 columns inside its K loop) is
    split in panels of at most `row-panel` columns when its columns are
    independent (no LayerNormalization over the row in the same kernel):
    the panel becomes the outermost work-item dim, so consecutive work
    items take the same panel of weights over consecutive rows while it is
    in cache. Before, a work item per token streamed all of B (BERT's
    kernels: 28 MB of weights a token and layer).

    ```mlir
    // Before: one work item a row %m, 768 columns.
    scf.parallel (%m) = (%c0) to (%c128) step (%c1) {
      scf.for %k = %c0 to %c768 step %c1 {
        scf.parallel (%n) = (%c0) to (%c768) step (%c1) { ... %n ... } } }
    // After (row-panel=64): 12 panels x 128 rows.
    scf.parallel (%p, %m) = (%c0, %c0) to (%c12, %c128) step (%c1, %c1) {
      scf.for %k = %c0 to %c768 step %c1 {
        scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
          %n = arith.addi (arith.muli %p, %c64), %c ... %n ... } } }
    ```

    On the host, a kernel of parallel dims only whose row is short (a
    loop of at most 16 elements: a padded copy's or a fill's 7 to 16) takes
    every value of its innermost outer dim (at most 64) as a loop around
    the row, while 64 work items or more remain: mobilenet_v2's copies
    were a work item for each 7 bytes, each dividing its index.
    ```mlir
    // Before: 672 work items (c, y) of a row of 7.
    scf.parallel (%c, %y) = ... { scf.for %x = %c0 to %c7 ... }
    // After: 96 work items, the plane's rows a loop.
    scf.parallel (%c) = ... { scf.for %y = %c0 to %c7 { scf.for %x ... } }
    ```

    Before:
    ```mlir
    func.func private @kernel_0(%a: memref<2x3xf32>, %b: memref<2x3xf32>)
        attributes {dlc.kernel} { linalg.generic ... }
    ```
    After:
    ```mlir
    func.func private @kernel_0(%a: memref<2x3xf32>, %b: memref<2x3xf32>)
        attributes {dlc.kernel, dlc.work_items = 6 : i64} {
      scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
        %r:2 = affine.delinearize_index %i into (2, 3) ...
      }
    }
    ```
  }];
  let options = [
    Option<"rowWorkItems", "row-work-items", "bool", /*default=*/"false",
           "Host loop order: a work item is a row of the innermost parallel "
           "dim, which runs innermost (inside the reductions) so LLVM "
           "vectorizes it; CUDA keeps one output element per thread">,
    Option<"rowBlock", "row-block", "int64_t", /*default=*/"0",
           "Host rows that reduce: each work item takes this many "
           "consecutive values of the innermost outer dim that the row's "
           "varying reads do not depend on (a convolution's output "
           "channels, a MatMul's rows), as a 2-D row whose reads "
           "dlc-vectorize-host-rows shares (0: off; at most 16, the "
           "vectorizer's limit)">,
    Option<"rowPassTiles", "row-pass-tiles", "int64_t", /*default=*/"0",
           "Host, with row-block: the accumulator registers of one "
           "dlc-vectorize-host-rows pass, in 16-lane tiles (AVX-512: 24). "
           "A float row whose tiles (its rest included) exceed them at "
           "row-block rows, but fit at a smaller block of at least half "
           "of it that divides the dim, takes that block: one pass of "
           "the reductions instead of two (a 7x7 plane's 3 tiles and "
           "1-lane rest at 8 rows; 0: off)">,
    Option<"byteRowBlock", "byte-row-block", "int64_t", /*default=*/"0",
           "The row-block of rows whose varying reads are bytes (int8 "
           "convolutions and MatMuls): each tile of byte quadruples "
           "dlc-vectorize-host-rows loads, or interleaves with shuffles, "
           "serves every row of the block (0: row-block)">,
    Option<"rowPanel", "row-panel", "int64_t", /*default=*/"0",
           "Host rows longer than dlc-vectorize-host-rows takes (a MatMul "
           "of 768 or 3072 columns) whose columns are independent: split "
           "in panels of at most this many columns, each a work item, so "
           "that a row fits registers and consecutive work items share "
           "the panel's weights in cache (0: off)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"1",
           "Consecutive innermost elements per work item (CUDA: 4, for "
           "128-bit accesses and 4 accumulators per thread); kernels storing "
           "16-bit (8-bit) elements take 2x (4x) as many, falling back to "
           "this width where the innermost dim does not divide">,
    Option<"minThreads", "min-threads", "int64_t", /*default=*/"0",
           "CUDA: a kernel whose work item loops over a reduction keeps one "
           "element per work item when `vector-width` would leave it fewer "
           "work items than this (a GPU's SMs x threads per block): a "
           "GlobalAveragePool of 2048 channels ran as 512 threads, 27 us on "
           "an H100. 0: always `vector-width`">,
    Option<"attentionTile", "attention-tile", "int64_t", /*default=*/"0",
           "Host attention alone in its kernel (with row-work-items): a "
           "work item's 8 or 16 query rows run as vector lanes, their "
           "scores for this many keys (and their outputs for this many "
           "value columns) at a time in registers, built by FMAs of q's "
           "columns with k's and v's broadcast elements; nothing reduces "
           "across lanes (0: a dot product a score, as before)">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::affine::AffineDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def PrivatizeAccumulatorsPass : Pass<"dlc-privatize-accumulators", "ModuleOp"> {
  let summary = "Kernel-local accumulator buffers become per-work-item scalars";
  let description = [{
    A kernel that reduces into a buffer only it uses -- the f32 accumulator
    of a 16-bit convolution left in the one-thread-per-output form, like
    mobilenet_v2's depthwise convolutions at fp16 -- still stores each
    element's final value to memory: the buffer is a kernel argument and
    nothing tells LLVM that no one reads it after the kernel (4 bytes an
    output element written for nothing, and an arena buffer). When every
    access to such an argument (its callers' allocation used by that call
    alone, passed once) is a load or store of one element, all in one block
    inside the work-item loop whose first access is a store directly in it,
    the accesses go to a private scalar (`memref.alloca`, a register on the
    GPU) and the argument and the allocation go. Tensor-core kernels drop
    their accumulators themselves (`dlc-tile-gemm-kernels`).

    An output the kernel reduces into (some access reads it, under the same
    conditions), a max pool's, whose result is its accumulator, gets a
    private scalar too, and its final value is stored to the element once,
    after the block's last access: the element loop then holds private
    reductions only, which `dlc-interchange-element-loops` can move inside
    the window loops (resnet50's max pool loaded its taps in 4- and 8-byte
    pieces, the int8 one 2 bytes at a time).

    Before:
    ```mlir
    scf.parallel (%i) = ... {
      scf.for %c = %c0 to %c8 step %c1 {
        memref.store %bias, %acc[%n, %h, %w, %c]
        scf.for %kh ... { %a = memref.load %acc[%n, %h, %w, %c]
                          memref.store %s, %acc[%n, %h, %w, %c] }
        %r = memref.load %acc[%n, %h, %w, %c]
        memref.store (truncf %r), %out[%n, %h, %w, %c]
      }
    }
    ```
    After: `%slot = memref.alloca() : memref<f32>` at the top of the
    `scf.for` body, the accesses on `%slot[]`, `%acc` no longer an argument.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def InterchangeElementLoopsPass : Pass<"dlc-interchange-element-loops", "ModuleOp"> {
  let summary = "A work item's element loop moves inside its reduction loops";
  let description = [{
    A CUDA-form work item computes several consecutive outputs (8 at 16
    bits), one after the other. When each is a reduction with a private
    accumulator (`dlc-privatize-accumulators`: a depthwise convolution's
    window, a pooling window), the element loop holds the reduction loops,
    so a tap's loads of consecutive channels are in different iterations
    and LLVM issues one 2-byte load per element and tap. This pass moves
    the element loop inside the (perfect) reduction nest, with one
    accumulator per element, and unrolls it: the tap's loads of the 8
    elements are then adjacent in one block, where
    `dlc-vectorize-element-accesses` makes them one 16-byte load (the
    kernel arguments are 16-byte aligned). The same operations run in the same order per
    element. Only when the ops before the nest and the nest itself write
    nothing but the accumulators, and the ops after it store to no buffer
    read before (they now run after every element's reduction); values the
    ops before the nest compute from the element index are recomputed.

    An element loop with no loop inside (an elementwise work item: some
    store's innermost index is the element) is unrolled as it is, so that
    its stores of consecutive elements are adjacent (one vector store
    after `dlc-vectorize-element-accesses`) where LLVM would keep a long
    body a loop: resnet50's
    space-to-depth stem copy (a gather from the NCHW f32 input with bounds
    checks) stored its 8 halves one `st.global.b16` per iteration, and
    stores them as one `st.global.v4.b32`.

    Before:
    ```mlir
    scf.for %e = %c0 to %c8 step %c1 {
      %acc = memref.alloca() : memref<f32>
      memref.store %bias_e, %acc[]
      scf.for %kh ... { scf.for %kw ... {
        %x = memref.load %in[.., %c_e]   // ... acc += x * w
      } }
      memref.store (truncf %acc[]), %out[.., %c_e]
    }
    ```
    After (before unrolling the three element loops):
    ```mlir
    %accs = memref.alloca() : memref<8xf32>
    scf.for %e ... { memref.store %bias_e, %accs[%e] }
    scf.for %kh ... { scf.for %kw ... { scf.for %e ... {
      %x = memref.load %in[.., %c_e]     // ... accs[e] += x * w
    } } }
    scf.for %e ... { memref.store (truncf %accs[%e]), %out[.., %c_e] }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def VectorizeElementAccessesPass : Pass<"dlc-vectorize-element-accesses", "ModuleOp"> {
  let summary = "A work item's scalar accesses of consecutive elements become vector accesses";
  let description = [{
    Once `dlc-interchange-element-loops` has unrolled a work item's element
    loop, a tap's loads of its 8 consecutive channels, and the stores of
    the 8 results, are scalar accesses side by side in one block. LLVM's
    load/store vectorizer combined them only in part: InstCombine
    reassociates element 0's address differently from the others', so the
    vectorizer sees no single chain and splits the rest by alignment
    (mobilenet_v2's depthwise taps: a b16, a b32 and a v4.b16 load for 8
    halves; resnet50's max pool: 4-, 8- and 4-byte loads; the int8 max pool
    one 2-byte load per pair). This pass combines them itself, in the
    CUDA-form kernels of one thread per work item (`dlc.distinct_args`, no
    CTA program):

    - accesses of one kernel argument in one block whose indices differ
      only in the innermost one, `base + k` for constants k, form a group
      (unit innermost stride);
    - each run of offsets `[j·w, (j+1)·w)` present in full, for the widest
      w with `w x element bytes <= 16` first, becomes one `vector.load`
      (where the first load was, each load now a `vector.extract`) or one
      `vector.store` of a `vector.from_elements` (where the last store
      was);
    - only when nothing between the first and the last access writes the
      buffer (nor, for stores, reads it) and the indices are defined
      before the new access.

    The vector access is as aligned as its index: `dlc-infer-alignment`
    proves the 16 bytes where the base is a multiple of the width (a
    work item's first channel); elsewhere LLVM splits it as before.

    Before (after canonicalization and CSE):
    ```mlir
    %c = arith.muli %item, %c8 : index
    %x0 = memref.load %in[%n, %h, %w, %c] : memref<32x56x56x144xf16>
    %c1 = arith.addi %c, %c1 : index
    %x1 = memref.load %in[%n, %h, %w, %c1] : memref<32x56x56x144xf16>
    ...                                      // up to %c + 7
    ```
    After:
    ```mlir
    %v = vector.load %in[%n, %h, %w, %c] : memref<32x56x56x144xf16>,
                                           vector<8xf16>
    %x0 = vector.extract %v[0] : f16 from vector<8xf16>
    %x1 = vector.extract %v[1] : f16 from vector<8xf16>
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def VectorizeLaneChainsPass : Pass<"dlc-vectorize-lane-chains", "ModuleOp"> {
  let summary = "The lanes' identical scalar ops between a vector load and store become vector ops";
  let description = [{
    After `dlc-vectorize-element-accesses` a work item's consecutive
    elements come in one vector load and leave in one vector store (or
    through private accumulators, one scalar access an element), but each
    element is still computed by its own scalar ops: int8 resnet50's max
    pool takes 16 bytes apart, widens each to 16 bits, selects, masks and
    takes its maximum (~90 instructions a 16-byte load), the f16 one runs
    one `max.f16` an element. Where every lane computes the same thing,
    this pass makes the lanes' ops one op on an N-lane vector, which
    LLVM runs two 16-bit lanes a register (`max.f16x2`, `fma.rn.f16x2`,
    `max.u16x2`), in the CUDA-form kernels of one thread per work item
    (`dlc.distinct_args`, no CTA program):

    - a chain ends in a `vector.from_elements` or in a run of 2-16 stores
      to one private accumulator's (`memref.alloca`) consecutive elements,
      each stored once in the block;
    - lane k's value is, in every lane alike: one value shared by all lanes
      (broadcast; a select's condition stays scalar), lane k of one vector
      of exactly the lanes (`vector.extract`), lane k's element of a private
      accumulator (consecutive constant innermost indices: one
      `vector.load`), or an elementwise, side-effect-free op with the same
      attributes over such operands, its result used once;
    - 8- and 16-bit elements only (f32 gains no packed ops on sm_90; i1
      vectors would be taken apart again);
    - only when nothing between the chain's first op and its end accesses
      the accumulators it reads or writes, and the stores' accumulator is
      read, if at all, at the stored elements.

    With `pack-bytes`, an 8-bit max or min (`arith.maxui/maxsi/minui/minsi`
    on vector<N x i8>, N a multiple of 4) becomes two of 16-bit lanes: the
    even and the odd bytes of each 32-bit word zero-extended (signed ones
    biased by 0x80 first), `arith.maxui` on vector<2N/4 x i16> each, put
    back together: LLVM's NVPTX backend takes 8-bit vectors apart byte by
    byte, while it runs vector<2 x i16> maxima as `max.u16x2` (sm_90).

    Before (a max pool tap, one accumulator element of 16 shown):
    ```mlir
    %v = vector.load %in[%n, %h, %w, %c] : memref<32x112x112x64xi8>, vector<16xi8>
    %x0 = vector.extract %v[0] : i8 from vector<16xi8>
    %a0 = memref.load %acc[%c0] : memref<16xi8>
    %s0 = arith.select %inside, %x0, %c0_i8 : i8
    %m0 = arith.maxui %a0, %s0 : i8
    memref.store %m0, %acc[%c0] : memref<16xi8>
    ```
    After:
    ```mlir
    %a = vector.load %acc[%c0] : memref<16xi8>, vector<16xi8>
    %z = vector.broadcast %c0_i8 : i8 to vector<16xi8>
    %s = arith.select %inside, %v, %z : vector<16xi8>
    %m = arith.maxui %a, %s : vector<16xi8>
    vector.store %m, %acc[%c0] : memref<16xi8>, vector<16xi8>
    ```
  }];
  let options = [
    Option<"packBytes", "pack-bytes", "bool", /*default=*/"false",
           "8-bit vector max/min as 16-bit lanes' (the GPU's max.u16x2)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def ReassociateHostSumsPass : Pass<"dlc-reassociate-host-sums", "ModuleOp"> {
  let summary = "Host sums carried in a private scalar may reassociate";
  let description = [{
    A host work item of one output element that reduces (a Gemm with a
    transposed B, whose varying reads are not along a row; a GEMV of one
    row, too few rows for the row form) adds its products into a private
    scalar (`dlc-privatize-accumulators`) one reduction step at a time.
    Without `reassoc` LLVM must keep that order: a chain of dependent
    scalar adds, 4 cycles each (resnet50's classifier, 2048 steps for each
    of its 1000 outputs, took 1 ms on two cores). With it, LLVM's loop
    vectorizer sums 16 lanes side by side and adds them up at the end, as
    ONNX Runtime's MLAS and oneDNN do; the products may contract to FMAs.

    Only a float `load(slot) + x` stored back to a rank-0 `memref.alloca`
    in the body of the `scf.for` that carries it qualifies; row-form
    accumulators are `dlc-vectorize-host-rows`' and integer sums are exact
    in any order already.

    Before:
    ```mlir
    scf.for %k = %c0 to %c2048 step %c1 {
      %p = arith.mulf %a, %b : f32
      %s = memref.load %slot[] : memref<f32>
      %t = arith.addf %s, %p : f32
      memref.store %t, %slot[] : memref<f32>
    }
    ```
    After: `%p = arith.mulf %a, %b fastmath<contract>` and
    `%t = arith.addf %s, %p fastmath<reassoc,contract>`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def VectorizeHostRowsPass : Pass<"dlc-vectorize-host-rows", "ModuleOp"> {
  let summary = "A host row's accumulators live in vector registers through its reductions";
  let description = [{
    A host work item is a row (`dlc-linearize-kernels` with
    `row-work-items`): the innermost parallel dim moves inside the
    reductions so that LLVM vectorizes it. But the row's accumulators stay
    in memory: every reduction step of a convolution loads its output row,
    adds one tap and stores it back (two loads and a store an FMA), and a
    padded window's clamped, bounds-checked reads kept LLVM from vectorizing
    the loads at all (resnet50's 3x3 convs ran 20x slower than ONNX
    Runtime's). This pass cuts each such row in tiles of `lanes` elements
    (the last tile shorter), and runs every tile's reduction loops with its
    accumulators as vector iter_args: loaded once, stored once, the body on
    `vector<lanes x T>` values.

    A row qualifies when it is a 1-D `scf.parallel` from 0 with step 1 in a
    perfect nest of `scf.for` loops (their bodies otherwise hold only
    side-effect-free scalar ops, cloned with them), in a host kernel of
    distinct arguments, and its body:

    - stores only accumulators: a buffer it loads and stores at the same
      indices, the row's column last (its variable, or a panel's first
      column plus it: `dlc-linearize-kernels` `row-panel`) and the others
      invariant in the nest, nothing else touching it there;
    - reads lane-varying elements only along their last index, evenly
      spaced (`row * s + c`, 1 <= s <= 4: one vector load, or one load of
      the span and a shuffle); other reads are the same for every lane;
    - computes with elementwise, side-effect-free ops.

    Padded convolutions read a padded copy (`dlc-convert-to-linalg`
    `pad-conv-input`, on for the host) so that their window rows qualify.

    Before (a 3x3 conv row, 56 outputs):
    ```mlir
    scf.for %c = %c0 to %c64 step %c1 {
      scf.for %kh ... { scf.for %kw ... {
        scf.parallel (%j) = (%c0) to (%c56) step (%c1) {
          %w = memref.load %weight[%o, %c, %kh, %kw]
          %a = memref.load %acc[%c0, %o, %h, %j]
          %x = memref.load %in[%c0, %c, %ih, %jw]   // %jw = %j + %kw
          %s = arith.addf %a, (arith.mulf %x, %w)
          memref.store %s, %acc[%c0, %o, %h, %j]
    }}}}
    ```
    After (tiles of 32 and 24 lanes; the first shown):
    ```mlir
    %a0 = vector.load %acc[%c0, %o, %h, %c0] : ..., vector<32xf32>
    %r = scf.for %c = ... iter_args(%a = %a0) -> (vector<32xf32>) {
      ... scf.for %kw ... iter_args(%a2 = ...) {
        %w = memref.load %weight[%o, %c, %kh, %kw]
        %x = vector.load %in[%c0, %c, %ih, %kw] : ..., vector<32xf32>
        %s = arith.addf %a2, (arith.mulf %x, (vector.broadcast %w))
        scf.yield %s : vector<32xf32>
    }}
    vector.store %r, %acc[%c0, %o, %h, %c0]
    ```

    Full tiles share one pass of the reduction loops while their
    accumulators (tiles x the row's copies) number at most `accumulators`:
    a register tile, whose reads that do not vary along the row (a
    MatMul's A, a conv's weight) serve every tile of the pass. With
    AVX-512's 32 registers, 3 tiles of 8 rows (24 FMAs for 3 loads and 8
    broadcasts a step) ran BERT's MatMuls 1.4-1.5x faster than a tile a
    pass. Products and sums on vectors carry `fastmath<contract>`, so LLVM
    fuses them into FMAs where the CPU has them (they were a multiply and
    an add, twice the K loop's instructions), as oneDNN and MLAS compute.

    With `vnni`, a row whose every accumulator sums byte products,
    `acc + ext(x) * ext(w)` with `x` a lane-varying i8 read and `w` a
    uniform one, one zero- and one sign-extended (an integer convolution
    or MatMul), takes 4 steps of one reduction loop an instruction: the
    loop whose steps read `w` from consecutive bytes (a 1x1 convolution's
    input channels; `dlc-convert-to-linalg` `vnni-convs` lays the others'
    weights out so). An s8 x s8 conv reads its input as `x xor 0x80` (u8:
    x + 128), which the interleaved bytes take in one vector xor. That
    loop moves innermost (integer sums may reorder) and steps by 4; each
    step interleaves the 4 rows of `x` into one vector of byte quadruples
    and multiplies it by the 4 bytes of `w` broadcast, with
    `llvm.x86.avx512.vpdpbusd`. Before, each step widened both to i32 and
    multiplied them in 32-bit lanes, slower than the fp32 convolution it
    replaced. Without `vnni`, `pmaddwd-bits` takes 2 steps an instruction
    the same way (any signedness, `w`'s bytes read one by one): each
    lane's byte pair widened to 16 bits, `llvm.x86.sse2.pmadd.wd` (or
    AVX2's) a register at a time, its sums added to the accumulator; `w`
    may be 16-bit already (dlc-convert-to-linalg `wide-conv-weights`,
    `pair-matmul-weights`' widened lhs), its pair then one 32-bit word
    broadcast as it is. A 16-bit `x` is a MatMul's weight laid out in pairs
    (`pair-matmul-weights`: lanes 2 apart, the grouped loop's two steps 1
    apart): the first step's read of 2 x lanes elements is the lanes' pairs
    as they are, with no interleave and no widening. With `vnni` a byte
    `x` whose lanes are 4 apart and whose steps are 1 apart is a MatMul's
    weight in quadruples (`quad-matmul-weights`): one load of 4 x lanes
    bytes is the lanes' words, and such rows share a pass among tiles as
    FMAs do (8 rows x 3 tiles: 24 vpdpbusd for 3 loads and 8 broadcasts
    every 4 steps), where an interleaving dot form runs a tile a pass.
    A byte `x` whose lanes are s <= 4 apart and whose steps are 1 apart
    along the same dim is a sliding read (a depthwise conv's window row,
    its weight padded to 4 taps by `vnni-convs`): one load of the tile's
    span, (lanes - 1) * s + 4 bytes under a mask, and one permute (vpermb)
    make every lane's quadruple, 3 taps an instruction where each tap took
    a load, a widening and a vpdpwssd; such rows share passes too.
    ```mlir
    %r = scf.for %c = %c0 to %c256 step %c4 iter_args(%a = %a0) -> (vector<16xi32>) {
      %x = vector.shuffle ... : vector<32xi8>, vector<32xi8>   // x[c..c+3] interleaved
      %w = vector.broadcast (vector.bitcast w[o, c..c+3]) : i32 to vector<16xi32>
      %s = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%a, (vector.bitcast %x), %w)
      scf.yield %s : vector<16xi32>
    }
    ```

    A row's rest (its length modulo `lanes`) is one tile of any length
    with `any-length-tiles` (AVX-512 masks the odd lanes), and one more
    tile of the row's last pass: a row of 28 is one pass of 16 + 12
    lanes (16 FMAs a step for 8 broadcasts and 2 loads), where a pass of
    each ran 8 FMAs for 9 loads, 8 accumulators in a chain; otherwise
    halving power-of-two pieces, each a pass of the reduction loops with
    the same broadcasts and one FMA a copy: a row of 63 ran 16, 16, 16, 8,
    4, 2, 1. With `masked-rest` (AVX2) a rest whose accesses along the row
    are all of 32- or 64-bit elements is one tile of the next power of two
    lanes, its accumulator, reads and epilogue under a constant mask of
    its lanes (`vector.maskedload`/`maskedstore`: vmaskmovps, which loads
    nothing past the row). Where passes hold one tile, a rest of at most
    half a tile shares the last full tile's pass (a plane of 49: 16, 16,
    16 + 1 in three passes, not four):
    ```mlir
    %m = arith.constant dense<[true, true, true, true, true, true, true, false]> : vector<8xi1>
    %x = vector.maskedload %in[%c, %i], %m, %zeros : memref<4x25xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
    ```

    Where the work item fills an accumulator row just before the nest (a
    conv's bias: for each copy and column, one store of a value the column
    does not change), the tiles start from that value broadcast, and the
    fill goes. Where it runs an epilogue just after the nest (for each
    copy and column: the accumulator's element, elementwise ops with reads
    along the row, stores along the row: a residual and a ReLU, a
    requantization), each tile runs it on its registers as it finishes
    (`epilogues`). The accumulator's store goes too when nothing else
    reads the buffer: an argument that exists for the kernel alone, used
    only by the row, its fill and the epilogue. The argument then goes, and
    with it the arena's buffer.
    ```mlir
    // Before: the tiles store %acc, the epilogue reads it back.
    scf.for %u = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c56 step %c1 {
        %a = memref.load %acc[%c0, %o, %h, %j]
        %r = memref.load %res[%c0, %o, %h, %j]
        %y = arith.maximumf (arith.addf %a, %r), %zero
        memref.store %y, %out[%c0, %o, %h, %j]
    }}
    // After, in each tile (its accumulator %t):
    %r = vector.load %res[%c0, %o, %h, %start] : ..., vector<16xf32>
    %y = arith.maximumf (arith.addf %t, %r), (vector.broadcast %zero)
    vector.store %y, %out[%c0, %o, %h, %start]
    ```

    With `any-length-tiles` (AVX-512 masks any access), an innermost loop
    of 2 to 16 iterations without results whose accesses run along it
    (their last index the variable plus an invariant) or are invariant,
    and whose other ops are scalar arithmetic, becomes one 16-lane tile
    under a constant mask: a plane conv's valid columns (7 or 14 of a row
    of 9 or 16) copied out with the epilogue. LLVM's loop vectorizer takes
    no loop shorter than its vector and vectorized the loop around it, with
    a gather and a scatter every 8 elements.
    ```mlir
    // Before:
    scf.for %x = %c0 to %c14 step %c1 {
      %i = arith.addi %base, %x : index
      %v = memref.load %acc[%k, %i] : memref<4x222xf32>
      memref.store (arith.maximumf %v, %zero), %out[%k, %y, %x] }
    // After (%m: the first 14 of 16 lanes):
    %v = vector.maskedload %acc[%k, %base], %m, %zeros : ..., vector<16xf32>
    vector.maskedstore %out[%k, %y, %c0], %m, (arith.maximumf %v, ...)
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"32",
           "Elements of a row tile: the vector each accumulator becomes "
           "(32 f32 lanes: 8 SSE, 4 AVX or 2 AVX-512 registers)">,
    Option<"anyLengthTiles", "any-length-tiles", "bool", /*default=*/"false",
           "The rest of a row is one tile of its length, however long "
           "(AVX-512 masks the odd lanes); otherwise tiles are powers of "
           "two, which x86 without AVX-512 legalizes whole">,
    Option<"maskedRest", "masked-rest", "bool", /*default=*/"false",
           "Without any-length-tiles, the rest of a row whose accesses are "
           "all of 32- or 64-bit elements is one tile of the next power of "
           "two lanes, its accesses under a mask (AVX2's vmaskmov), instead "
           "of halving pieces that each run the reduction loops">,
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "Rows that sum products of a u8 and an s8 byte take four "
           "reduction steps an instruction (AVX512-VNNI vpdpbusd)">,
    Option<"pmaddwdBits", "pmaddwd-bits", "int64_t", /*default=*/"0",
           "Otherwise, rows that sum byte products take two reduction steps "
           "an instruction with pmaddwd on vectors of this many bits (128: "
           "SSE2, 256: AVX2, 512: AVX512-BW; 0: off)">,
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"0",
           "Full tiles of a row share one pass of the reduction loops (a "
           "register tile) while their vector accumulators number at most "
           "this many (0: a tile a pass)">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "The elementwise epilogue the work item runs on a row's "
           "accumulators just after its reduction runs on the tiles' "
           "registers, and accumulator buffers nothing else reads go">
  ];
}

def MapKernelsToGpuPass : Pass<"dlc-map-kernels-to-gpu", "ModuleOp"> {
  let summary = "Turn linearized kernels into gpu.func kernels, one gpu.module each";
  let description = [{
    Runs on the device module (a copy of the kernels, without the model
    function). Each `dlc.kernel` function moves into a `gpu.module` of its
    own name as a `gpu.func` kernel, so that the NVVM lowering (nested on
    `gpu.module`) and `dlc-serialize-kernels` compile kernels in parallel.
    Its work item loop becomes one thread per work
    item in blocks of `block-size` threads, guarded against the tail. The
    launch shape is recorded as `dlc.grid` / `dlc.block`.

    Before:
    ```mlir
    func.func private @k0(%a: memref<1000xf32>) attributes {dlc.kernel,
        dlc.work_items = 1000 : i64} {
      scf.parallel (%i) = (%c0) to (%c1000) step (%c1) { ... }
    }
    ```
    After:
    ```mlir
    gpu.module @k0 {
      gpu.func @k0(%a: memref<1000xf32>) kernel attributes {dlc.block =
          array<i32: 256, 1, 1>, dlc.grid = array<i32: 4, 1, 1>} {
        %i = (block_id.x * 256 + thread_id.x)
        scf.if (%i < 1000) { ... }
      }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def ReconcileIndexCastsPass : Pass<"dlc-reconcile-index-casts"> {
  let summary = "Index width casts between the nvgpu and gpu lowerings as sext/trunc";
  let description = [{
    With 32-bit kernel index arithmetic (`convert-gpu-to-nvvm` with
    `index-bitwidth=32`: half the instructions for the address arithmetic
    of an im2col load), the nvgpu lowering, which has no such option, still
    takes `index` as i64. The unrealized casts the two conversions leave
    between them (i32 -> index -> i64 into an nvgpu op's lowering, and back)
    would stop `reconcile-unrealized-casts`; they become `llvm.sext` (index
    is signed) and `llvm.trunc`. A global pointer taken as an index
    (`memref.extract_aligned_pointer_as_index`: the TMA tensor maps'
    addresses) and widened back to i64 becomes a 64-bit `llvm.ptrtoint`:
    the 32-bit index had dropped its upper half.

    Before:
    ```mlir
    %a = builtin.unrealized_conversion_cast %x : i32 to index
    %b = builtin.unrealized_conversion_cast %a : index to i64
    ```
    After:
    ```mlir
    %b = llvm.sext %x : i32 to i64
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def InferAlignmentPass : Pass<"dlc-infer-alignment"> {
  let summary = "Write the alignment of kernel loads and stores their addresses have";
  let description = [{
    Runs on the LLVM dialect of the kernels, before serialization. MLIR
    19's vector loads and stores lower to accesses aligned to their element
    only; dlc builds their addresses aligned (16-byte aligned buffer
    arguments, an index that is a multiple of the vector width:
    `alignedLinearIndex`), and relied on LLVM to see it. But LLVM's
    InstCombine turns the GEP of a sum into a chain of GEPs before its
    alignment inference runs, and the chain is deeper than its known-bits
    analysis follows: resnet50 b32's GEMM epilogues stored 2760 of their f16
    pairs as two `st.global.u16` each. Here the address is still one GEP of
    the index dlc built. The alignment of a pointer is that of a function
    argument (`llvm.align`), a global (`llvm.mlir.addressof`), a
    descriptor's pointer (through its `llvm.insertvalue`s), or a GEP's: its
    base's, reduced by the element size times the index's known trailing
    zero bits (constants, and multiplications, shifts, adds, ors, ands,
    selects and extensions of them). An access gets that alignment (at
    most 16) where that is more than it had, also past its own size: the
    load/store vectorizer joins adjacent scalar accesses into a vector one
    only when the first is aligned to the vector.

    Before:
    ```mlir
    %i = llvm.mul %k, %c2 : i64
    %p = llvm.getelementptr %arg0[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f16
    llvm.store %v, %p {alignment = 2 : i64} : vector<2xf16>, !llvm.ptr
    ```
    After (`%arg0` has `llvm.align = 16`):
    ```mlir
    llvm.store %v, %p {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr
    ```
  }];
}

def SerializeKernelsPass : Pass<"dlc-serialize-kernels", "ModuleOp"> {
  let summary = "Serialize the kernels' gpu.modules to PTX in parallel, linked into one gpu.binary";
  let description = [{
    The NVPTX backend is the longest stage of a CUDA compile.
    `gpu-module-to-binary` serializes the modules of a device module one
    after another; this pass serializes them on the context's threads (one
    `gpu.module` per kernel, from `dlc-map-kernels-to-gpu`) and links the
    PTX texts into one module (`linkPtxModules`): model.so carries one PTX
    module and one cubin. Every module must carry the same single
    `#nvvm.target`.

    Before:
    ```mlir
    gpu.module @k0 [#nvvm.target<chip = "sm_90a">] { llvm.func @k0(...) ... }
    gpu.module @k1 [#nvvm.target<chip = "sm_90a">] { llvm.func @k1(...) ... }
    ```
    After:
    ```mlir
    gpu.binary @dlc_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">,
        assembly = ".version 8.4 .target sm_90a ... .entry k0( ... .entry k1( ...">]
    ```
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit root (where libdevice is found)">,
  ];
}

def MapKernelsToHostPass : Pass<"dlc-map-kernels-to-host", "ModuleOp"> {
  let summary = "Give linearized kernels a work item range for the thread pool";
  let description = [{
    Each `dlc.kernel` function gets two trailing `index` arguments, the
    half-open range of work items to run, and its work item loop becomes a
    sequential `scf.for` over that range. The runtime calls it from its
    thread pool with disjoint ranges covering `dlc.work_items`.

    The range is clamped to the work items (`arith.minui`): the runtime's
    ranges lie within them anyway, and the clamp tells integer range
    analysis that work item ids are non-negative, so
    `arith-unsigned-when-equivalent` (next in the host pipeline) can make
    the linearized index's signed divisions unsigned. LLVM then folds
    `(i / 256) * 256 + i % 256` back to `i` and vectorizes the loop, which
    the signed forms (correct for negative `i` too) kept scalar.

    Before:
    ```mlir
    func.func private @k0(%a: memref<1000xf32>) attributes {dlc.kernel, ...} {
      scf.parallel (%i) = (%c0) to (%c1000) step (%c1) { ... }
    }
    ```
    After:
    ```mlir
    func.func @k0(%a: memref<1000xf32>, %begin: index, %end: index) ... {
      %lo = arith.minui %begin, %c1000 : index
      %hi = arith.minui %end, %c1000 : index
      scf.for %i = %lo to %hi step %c1 { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def FuseActivationsPass : Pass<"dlc-fuse-activations", "ModuleOp"> {
  let summary = "Replace decomposed GELU chains by dlc.gelu";
  let description = [{
    Runs on the dlc dialect, first in the graph pipeline. Exporters write
    GELU out: `F.gelu` below opset 20 as Div/Erf/Add/Mul/Mul, GPT-2's
    `gelu_new` as Pow/Mul/Add/Mul/Tanh/Add/Mul. Elementwise fusion would put
    the chain in one kernel anyway (BERT's and GPT-2's into the FFN-up
    GEMM's epilogue), but op by op: an IEEE division by sqrt(2) (`div.rn.f32`,
    a subroutine in PTX) and `powf(x, 3)` (exp and log) per element. As one
    `dlc.gelu` the lowering computes `x * 0.5 * (1 + erf(x * (1/sqrt 2)))`,
    or the tanh form with `x * x * x`, what ONNX Runtime's GeluFusion and
    its Gelu kernel compute.

    The chain is matched as a product, in any association and operand
    order: `x`, a constant 0.5 (or a Div by 2) and `1 + phi`, phi
    `erf(x / sqrt 2)` (Div, or Mul by 1/sqrt 2) or `tanh(sqrt(2/pi) * (x +
    0.044715 * x^3))` (x^3 a Pow by 3 or a product of three x). Constants
    match within f32 rounding of the exact values. Every intermediate must
    have no other user (`--keep-outputs` of one keeps the chain), and `x`
    the product's type (no broadcast).

    Before:
    ```mlir
    %d = dlc.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %e = dlc.erf %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %a = dlc.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %m = dlc.mul %x, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = dlc.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %y = dlc.gelu %x {tanh_approximation = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def FuseAttentionPass : Pass<"dlc-fuse-attention", "ModuleOp"> {
  let summary = "Replace MatMul-(scale, mask)-Softmax-MatMul by dlc.attention";
  let description = [{
    Runs on the dlc dialect, before dlc-convert-to-linalg. Attention as
    exporters write it -- MatMul(Q, K^T) (K^T a Transpose of the last two
    dims of K, or already laid out [..., D, Skv]), an optional Mul or Div
    by a scalar constant, an optional Where(c, s, fill) / Where(c, fill, s)
    with fill -inf or torch.finfo.min (GPT-2, masked_fill), an optional Add
    of a mask that broadcasts to the scores (padding or causal), Softmax
    over the last axis, optionally torch's SDPA guard Where(IsNaN(p), 0, p),
    MatMul with V -- becomes one `dlc.attention` (a Where becomes the
    additive mask Where(c, 0, fill)). Its lowering is one kernel in which a work
    item owns a query row and streams over the keys with the online softmax
    (running max and sum, a private accumulator rescaled by
    exp(m_old - m_new)), so the [..., Sq, Skv] scores never reach memory:
    three kernels and two score buffers become one kernel and none.

    The chain is fused only when each intermediate (scores, scaled, masked,
    probabilities) has no other user, so `--keep-outputs` of one of them or
    a model that returns the attention probabilities keeps the separate
    ops. Rank-3 and rank-4 (batch, heads) f32 shapes; key, value and mask
    batch dims may broadcast (size 1).

    The copies around the chain fold into the op too, so that no kernel
    runs them: a Transpose of Q, K or V used only there becomes the
    operand's `*_perm`, a Transpose that is the result's only user becomes
    `result_perm`, and a Mul/Div of Q or K by a finite scalar constant used
    only there multiplies `scale`. BERT's heads, split as
    `transpose(reshape(x) * c, [0, 2, 1, 3])` and merged back with a
    Transpose, leave an attention that reads the Q, K and V projections and
    writes the output projection's input as they are laid out
    (`[B, S, H, D]`): three copy kernels per layer fewer.

    Before:
    ```mlir
    %s = dlc.matmul %q, %kt : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> tensor<1x12x128x128xf32>
    %d = dlc.div %s, %c8 : (tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
    %a = dlc.add %d, %mask : (tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x128xf32>
    %p = dlc.softmax %a {axis = 3 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
    %o = dlc.matmul %p, %v : (tensor<1x12x128x128xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
    ```
    After:
    ```mlir
    %o = dlc.attention %q, %kt, %v, %mask {k_transposed = true, scale = 1.250000e-01 : f32}
       : (...) -> tensor<1x12x128x64xf32>
    ```
    BERT as exported (`%x` the [1, 128, 12, 64] projections):
    ```mlir
    %qs = dlc.mul %xq, %c : (tensor<1x128x12x64xf32>, tensor<1x1x1x1xf32>) -> tensor<1x128x12x64xf32>
    %q = dlc.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : ... -> tensor<1x12x128x64xf32>
    // ... K likewise with perm [0, 2, 3, 1], V with [0, 2, 1, 3]
    %o = dlc.attention %q, %kt, %v, %mask ...
    %y = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : ... -> tensor<1x128x12x64xf32>
    ```
    After:
    ```mlir
    %y = dlc.attention %xq, %xk, %xv, %mask {k_transposed = true,
           query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 3, 1>,
           value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>,
           scale = 1.250000e-01 : f32} : (...) -> tensor<1x128x12x64xf32>
    ```

    An int8 model whose attention stays in float (`--quantize-attention=false`,
    the CUDA form's default; or a QDQ model quantizing the attention output)
    quantizes its result for the output projection: a per-tensor
    QuantizeLinear to i8 that is the result's only user folds into the op
    (`result_scale`, `result_zero_point`, an i8 result), and the head
    transpose after it then folds as above. The kernel quantizes the f32
    values as it stores them; the quantize-and-transpose kernel per layer
    goes (bert_base int8 at batch 1: 100 kernels -> 88, 50 -> 45 MB between
    kernels).
    ```mlir
    %o = dlc.attention %q, %k, %v, %mask {...} : (...) -> tensor<1x12x128x64xf32>
    %i = dlc.quantize_linear %o, %s, %z : (tensor<1x12x128x64xf32>, tensor<f32>, tensor<i8>) -> tensor<1x12x128x64xi8>
    %y = dlc.transpose %i {perm = array<i64: 0, 2, 1, 3>} : ... -> tensor<1x128x12x64xi8>
    ```
    After:
    ```mlir
    %y = dlc.attention %q, %k, %v, %mask {..., result_perm = array<i64: 0, 2, 1, 3>,
           result_scale = 2.000000e-02 : f32, result_zero_point = 0 : i64}
       : (...) -> tensor<1x128x12x64xi8>
    ```
  }];
}

def UnflattenGemmsPass : Pass<"dlc-unflatten-gemms", "ModuleOp"> {
  let summary = "Gemms on flattened rows become batched MatMuls plus a bias Add";
  let description = [{
    PyTorch exports GPT-2's Conv1D layers, and TF/Keras exports dense layers
    on 3-D inputs, as Reshape [B, S, K] -> [B*S, K], Gemm, Reshape back to
    [B, S, N]. The reshapes sit between the GEMM and everything that fuses
    with it: the LayerNorm and f16 cast before it, and the bias, GELU and
    residual Add after it. Without them the layer is a batched MatMul and a
    bias Add, the form of BERT's nn.Linear, and takes the same path:
    - the K-major f16 weights of wgmma;
    - epilogue fusion;
    - cluster split-K.

    The rewrite applies when the Gemm has alpha 1 and transA 0, its only
    user is the Reshape back, and its bias (beta 1) broadcasts along the
    rows or is per row. A transB weight is transposed once at compile time
    (or by a dlc.transpose when it is not a constant).

    Before:
    ```mlir
    %f = dlc.reshape %x : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
    %g = dlc.gemm %f, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32,
        transA = false, transB = false}
        : (tensor<128x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>)
        -> tensor<128x2304xf32>
    %y = dlc.reshape %g : (tensor<128x2304xf32>) -> tensor<1x128x2304xf32>
    ```
    After:
    ```mlir
    %m = dlc.matmul %x, %w
        : (tensor<1x128x768xf32>, tensor<768x2304xf32>) -> tensor<1x128x2304xf32>
    %y = dlc.add %m, %b
        : (tensor<1x128x2304xf32>, tensor<2304xf32>) -> tensor<1x128x2304xf32>
    ```
  }];
}

def MergeLaunchesPass : Pass<"dlc-merge-launches", "ModuleOp"> {
  let summary = "Launch consecutive independent CTA programs as one kernel";
  let description = [{
    Runs on the CTA programs the tiling passes build (kernels with
    `dlc.cta_threads`), before linearization. Two consecutive calls merge
    when their kernels have the same launch shape (threads per CTA, shared
    memory, cluster size) and neither touches a buffer the other writes
    (only data-free ops -- allocations, views, constants -- between them):
    the merged kernel's CTAs [0, n1) run the first program and [n1, n1 + n2)
    the second, so both run at once from one launch. Every launch costs a
    few microseconds of a CUDA graph's critical path whatever its size;
    BERT's Q, K and V projections (same input, same shape, same tiles) are
    one launch instead of three. The arguments are concatenated (a buffer
    both read appears twice, each with its own tensor-map attribute); the
    programs' other ops (constants, views) move before the loop.

    Before:
    ```mlir
    call @k5_query(%x, %wq, %q) // dlc.cta_threads = 160, dlc.work_items = 36
    call @k6_key(%x, %wk, %k)   // the same launch shape
    ```
    After:
    ```mlir
    call @k5_query(%x, %wq, %q, %x, %wk, %k) // dlc.work_items = 72
    // func.func private @k5_query(...) {
    //   scf.parallel (%cta) = (%c0) to (%c72) step (%c1) {
    //     scf.if %cta < 36 { <query's CTA %cta> } else { <key's CTA %cta - 36> }
    //   }
    // }
    ```
  }];
  let options = [
    Option<"sinkBarrier", "sink-barrier", "bool", /*default=*/"false",
           "End each program's branch with an empty side-effecting asm "
           "(different per branch) so that LLVM does not merge the programs' "
           "epilogues behind phis, where it loses the paired stores' "
           "alignment (GPU form; the host's object emission takes no inline "
           "asm)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::LLVM::LLVMDialect"];
}

def FoldAccumulatorBiasPass
    : Pass<"dlc-fold-accumulator-bias", "ModuleOp"> {
  let summary = "Integer bias adds start the reduction's accumulator instead";
  let description = [{
    Host, on linalg tensors before dlc-fuse-elementwise: an integer
    reduction (an int8 Conv or MatMul's i32 accumulator) whose only reader
    adds a bias to it first (a requantize's `acc + bias[c]`) starts from
    `init + bias[c]` instead, and the reader reads the sum as it is. The
    add then runs once a row, where the reduction computes its init (the
    zero point's `-(x_zp + 128) * wsum[c]`), instead of once an output
    element in the epilogue: mobilenet_v2 QDQ's expand convs (16 to 32
    input channels) spent 7 of a 16-lane tile's ~11 epilogue instructions
    after 4 vpdpbusd, one of them the bias add. Integer sums wrap
    identically in any order, so outputs do not change; float bias adds
    (which round) are left alone, and so are constant inits (a fill: LLVM
    allocated resnet50_int8's 3x3 convs' registers worse, 0.595 -> 0.65 ms,
    with the bias loaded as their init). The CUDA form keeps its epilogue (its
    tensor-core kernels read the init as the lowering writes it).

    Before:
    ```mlir
    %i = linalg.generic ins(%zp, %wsum) outs(%e) { -(zp + 128) * wsum[c] }
    %acc = linalg.generic {... "reduction"} ins(%x, %w) outs(%i)
    %q = linalg.generic ins(%acc, %bias, %scale) outs(%e2) {
           %s = arith.addi %a, %b : i32  ... requantize %s }
    ```
    After (the init's generic computes the bias too: it stays one generic
    of broadcast inputs, which the reduction's kernel computes once a row):
    ```mlir
    %ib = linalg.generic ins(%bias, %zp, %wsum) outs(%e) {
            bias[c] + -(zp + 128) * wsum[c] }
    %acc = linalg.generic {... "reduction"} ins(%x, %w) outs(%ib)
    %q = linalg.generic ins(%acc, %scale) outs(%e2) { requantize %a }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FuseElementwisePass : Pass<"dlc-fuse-elementwise", "ModuleOp"> {
  let summary = "Fuse elementwise producers into their consumers on tensors";
  let description = [{
    Producer-consumer fusion of `linalg.generic` ops on tensors (upstream's
    elementwise fusion), so that chains of elementwise ops -- with the
    broadcasts, transposes and slices the lowering expressed as indexing maps
    -- become one op and their intermediates never reach memory. A producer
    is fused when it has one use and the consumer reads each of its elements
    exactly once (the consumer's indexing map for it is a permutation):
    fusing into a convolution or a broadcast would recompute the producer
    many times per element.

    Narrow tensors are stored where they are narrow. A narrowing epilogue
    of a reduction (requantize i32 -> i8, the f16 rounding of a GEMM) is not
    fused into a consumer that will not share the reduction's kernel: a
    reduction, or an op that also reads a later reduction's result (it joins
    that one's kernel; kernel fusion merges neighbours). A consumer that
    widens the value again (a dequantize) passes the decision on to its own
    consumer. In ResNet's residual add, the downsample conv's requantize so
    stays with the downsample conv, which stores int8 instead of its i32
    accumulator. And a widening op (a
    dequantize, an f16 -> f32 extension) whose only user is a reduction
    reading it element by element takes no producer: it fuses into the
    reduction, which then reads the narrow tensor (a GlobalAveragePool after
    a quantized conv reads int8, not the conv's accumulator).

    Before (a residual add of two quantized convs, %a before %b):
    ```mlir
    %ra = linalg.generic ins(%acc_a ...) -> tensor<...xi8>   // requantize
    %rb = linalg.generic ins(%acc_b ...) -> tensor<...xi8>   // requantize
    %s = linalg.generic ins(%ra, %rb ...) { dequantize x2; addf; quantize }
    ```
    After (only the later conv's requantize joins the add):
    ```mlir
    %ra = linalg.generic ins(%acc_a ...) -> tensor<...xi8>
    %s = linalg.generic ins(%acc_b, %ra ...) { requantize; dequantize x2;
                                               addf; quantize }
    ```

    Before:
    ```mlir
    %0 = linalg.generic {...} ins(%x, %b) outs(%e0) { addf }  // bias add
    %1 = linalg.generic {...} ins(%0) outs(%e1) { maximumf }  // relu
    ```
    After:
    ```mlir
    %1 = linalg.generic {...} ins(%x, %b) outs(%e1) { addf; maximumf }
    ```

    A squeeze of a reduction's result (a `tensor.collapse_shape` merging
    only unit dims: a global pool's [N, 1, 1, C] -> [N, C] flatten) moves
    after its elementwise consumer (upstream's fold by expansion), which then
    reads the reduction's result itself and joins its kernel: the pool
    stores the classifier's f16 input instead of f32 for a rounding kernel
    (resnet50 and mobilenet_v2 fp16: one kernel fewer).
    ```mlir
    %p = linalg.generic {... "reduction", "reduction"} -> tensor<1x1x1x1280xf32>
    %f = tensor.collapse_shape %p [[0], [1, 2, 3]] : ... into tensor<1x1280xf32>
    %h = linalg.generic ins(%f : tensor<1x1280xf32>) { truncf } -> tensor<1x1280xf16>
    ```
    After:
    ```mlir
    %h = linalg.generic ins(%p : tensor<1x1x1x1280xf32>) { truncf } -> tensor<1x1x1x1280xf16>
    %f = tensor.collapse_shape %h [[0], [1, 2, 3]] : ... into tensor<1x1280xf16>
    ```

    A consumer reading a producer through computed indices (`tensor.extract`
    in its body: a padded copy's clamped reads) is beyond upstream's fusion;
    an elementwise producer whose only use is that extract is inlined there,
    its inputs read at the indices its maps give for the extracted element,
    when the consumer has at most 4 elements per producer element (each
    computes the producer once), the body is at most 16 pure ops, the
    producer reads only model inputs and constants (a layout change at the
    model's edge; a producer of another op's result may end a reduction's
    epilogue, which stays with its GEMM), and the consumer is not a padded
    copy that dlc-tile-gemm-kernels will fold (`dlc.padding`).
    ResNet's stem, before (transpose + rounding, then the padded copy):
    ```mlir
    %t = linalg.generic {maps = [nchw, id]} ins(%x) { truncf }
    %p = linalg.generic outs(%e) {
      %v = tensor.extract %t[%n, %hc, %wc, %cc]   // clamped indices
      select %inside, %v, 0 }
    ```
    After (one kernel, reading the NCHW f32 input):
    ```mlir
    %p = linalg.generic outs(%e) {
      %x0 = tensor.extract %x[%n, %cc, %hc, %wc]
      %v = arith.truncf %x0
      select %inside, %v, 0 }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseKernelsPass : Pass<"dlc-fuse-kernels", "ModuleOp"> {
  let summary = "Merge consecutive kernels whose work items line up";
  let description = [{
    Runs after outlining, on buffers. Two consecutive kernel calls merge into
    one kernel when their loop nests fuse into a single parallel loop: the
    same parallel iteration space, and each reads what the other writes only
    at the element its own work item writes (upstream's parallel loop fusion decides,
    on a trial copy). This puts the initialization of a reduction (fill or
    bias broadcast) and its elementwise epilogue (activation, residual add)
    into the kernel of the Conv/Gemm/MatMul or reduction itself. When a
    producer and its consumer differ only in trailing dims (a row reduction
    and the elementwise ops around it: Softmax, LayerNormalization), the
    longer one's trailing dims become a loop inside a work item per row (at
    most 4096 elements), so each of those is one kernel too. Unrelated
    kernels never give up parallelism to merge. The ONNX nodes of every
    kernel accumulate in `dlc.nodes` for reports.

    An initialization (a kernel whose only non-constant argument is the
    buffer it writes: a fill or bias broadcast) first moves down to the
    first kernel taking its buffer and merges with it: merging greedily in
    plan order would put it into whatever kernel precedes it with the same
    work items (the previous layer), and the accumulator would cross kernels.

    Before (%acc2 is a 3x3 conv's accumulator; @k1 does not fuse with @k0):
    ```mlir
    call @k0_conv1(%x, %w1, %y1)     // conv1 + requantize
    call @k1_fill(%acc2)             // zeroes %acc2; in plan order it
                                     // would merge into @k0
    call @k2_conv2(%y1, %w2, %acc2, %y2)
    ```
    After:
    ```mlir
    call @k0_conv1(%x, %w1, %y1)
    call @k1_conv2(%acc2, %y1, %w2, %y2)   // fill, conv2, requantize
    ```

    On the host with `panel-rows`, a merge that would put a long row
    (a MatMul of 768 or 3072 columns) whose columns are independent into
    a kernel that reduces across the row (LayerNormalization after it, or
    a second MatMul reading the row as its K) does not happen: the row
    stays splittable into panels (`dlc-linearize-kernels` `row-panel`),
    so its work items can share the weights. BERT's layer was one kernel
    of one token a work item, reading 28 MB of weights for each token.

    In the CUDA form (not `row-work-items`), two kernels that each contract
    16-bit operands are never merged (BERT's Q, K and V projections): each
    GEMM stays whole for `dlc-tile-gemm-kernels`.

    Before:
    ```mlir
    call @k0_conv(%b, %t)       // bias broadcast into %t
    call @k1_conv(%w, %t, %x)   // accumulate the convolution into %t
    call @k2_relu(%t, %y)
    ```
    After:
    ```mlir
    call @k0_conv(%b, %t, %w, %x, %y)  // one kernel, one work item per output
    ```
  }];
  let options = [
    Option<"rowWorkItems", "row-work-items", "bool", /*default=*/"false",
           "Host loop order (see dlc-linearize-kernels); must match the "
           "option of dlc-linearize-kernels that follows">,
    Option<"f32Contractions", "f32-contractions", "bool", /*default=*/"false",
           "f32 GEMMs are tensor-core kernels too (TF32): never merge two">,
    Option<"panelRows", "panel-rows", "bool", /*default=*/"false",
           "Host (with row-work-items): a kernel whose long rows reduce "
           "with independent columns (dlc-linearize-kernels row-panel) "
           "does not merge into one that reduces across its row">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def PlanMemoryPass : Pass<"dlc-plan-memory", "ModuleOp"> {
  let summary = "Give every intermediate buffer an offset in one arena";
  let description = [{
    Computes the live range of every `memref.alloc` of the model function
    (views such as expand/collapse_shape extend the range of their source)
    and packs them into one arena with a greedy best fit, so that buffers
    live at the same time never overlap: five orders (by size or by
    breadth, ties from the plan's start or end; by last use from the end),
    the smallest arena kept. An elementwise kernel's
    output is written in place over an input of the same type that dies at
    that call (each work item reads exactly the elements it then writes).
    Every plan is checked before it is recorded. Records the offset on each
    alloc (`dlc.arena_offset`) and the arena size, the naive sum and the
    lower bound (the largest total live at one point) on the module.

    Before:
    ```mlir
    %0 = memref.alloc() : memref<256xf32>
    ```
    After:
    ```mlir
    %0 = memref.alloc() {dlc.arena_offset = 1024 : i64} : memref<256xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Alignment of every buffer in the arena, in bytes">,
  ];
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def ConvertConvLayoutPass : Pass<"dlc-convert-conv-layout", "ModuleOp"> {
  let summary = "Compute 2-D convolutions channels-last (NHWC)";
  let description = [{
    Runs on the dlc dialect after dlc-fold-qdq and dlc-reduce-precision, so
    it sees the final dlc.conv / dlc.conv_integer ops. Tensor cores run a
    convolution as an implicit GEMM whose reduction (the input channels) must
    be the contiguous dim of both the activations and the weights: every
    2-D NCHW conv becomes `transpose(x, [0, 2, 3, 1])` -> the conv with
    `channels_last` (weights [O, KH, KW, C/group], permuted here when they
    are constants, else a transpose) -> `transpose(y, [0, 3, 1, 2])`.

    Then the transposes sink towards their consumers through every op that
    commutes with a permutation of its dims -- elementwise ops and
    activations (the other operands of a broadcast permuted too: constants
    here, lower ranks expanded first), quantize_linear, dequantize_linear and
    requantize (per-channel `axis` remapped), reductions (`axes` remapped),
    concat (`axis` remapped), softmax, max/average pooling (made
    `channels_last`) -- and inverse pairs cancel. A chain of convolutions
    then keeps its activations NHWC; the transposes left are where the
    network enters the convolutional part and where it leaves it (after a
    global average pool the NCHW -> NHWC difference only moves unit dims,
    which is a reshape). 3-D and 1-D convolutions stay NCHW.

    Before:
    ```mlir
    %0 = dlc.conv %x, %w1, %b1 {group = 1 : i64, ...}
       : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
    %1 = dlc.relu %0 : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %2 = dlc.conv %1, %w2 {group = 1 : i64, ...}
       : (tensor<1x16x16x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x16x16xf32>
    ```
    After:
    ```mlir
    %t = dlc.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x16x16xf32>) -> tensor<1x16x16x8xf32>
    %0 = dlc.conv %t, %w1_nhwc, %b1 {channels_last, group = 1 : i64, ...}
       : (tensor<1x16x16x8xf32>, tensor<16x3x3x8xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
    %1 = dlc.relu %0 : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %2 = dlc.conv %1, %w2_nhwc {channels_last, group = 1 : i64, ...}
       : (tensor<1x16x16x16xf32>, tensor<16x1x1x16xf32>) -> tensor<1x16x16x16xf32>
    %3 = dlc.transpose %2 {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def FoldQdqPass : Pass<"dlc-fold-qdq", "ModuleOp"> {
  let summary = "Fold QDQ-quantized Conv/Gemm/MatMul into integer ops";
  let description = [{
    Runs on the dlc dialect, before dlc-convert-to-linalg. A dlc.conv,
    dlc.gemm (transA = false) or dlc.matmul whose activation is
    `dequantize_linear` of an i8/ui8 tensor (per tensor) and whose weight is
    `dequantize_linear` of an i8/ui8 tensor (per tensor, or per axis on the
    output-channel axis) becomes dlc.conv_integer / dlc.matmul_integer
    (Gemm's transB as `rhs_transposed`) with i32 accumulation, as the
    QLinearConv / QLinearMatMul importers do. All scales and zero points
    must be constants (else the op stays float). Each `quantize_linear`
    (per tensor) of the result becomes dlc.requantize with multiplier
    x_scale * w_scale[c] / y_scale; the other uses read a dequantizing
    epilogue `dequantize_linear(acc, x_scale * w_scale[c], -bias[c])`. The
    bias (a `dequantize_linear` of i32, or a float constant) becomes an i32
    per-channel constant on the accumulator's scale x_scale * w_scale[c]
    (the int32 values themselves when its scale is that one and its zero
    point 0). Gemm's alpha scales the multiplier, beta the bias. The float
    dequantize_linear ops of x and w die when nothing else reads them. A
    float Conv/Gemm/MatMul that reads a dequantize_linear and does not fold
    gets `dlc.not_folded = "<why>"`, which dlc's --report-json lists.

    Before:
    ```mlir
    %x = dlc.dequantize_linear %xq, %xs, %xzp {axis = 0 : i64}
    %w = dlc.dequantize_linear %wq, %ws, %wzp {axis = 0 : i64}   // ws: [M]
    %b = dlc.dequantize_linear %bq, %bs, %bzp {axis = 0 : i64}   // i32 [M]
    %y = dlc.conv %x, %w, %b {...}
    %q = dlc.quantize_linear %y, %ys, %yzp {axis = 0 : i64}
    ```
    After:
    ```mlir
    %acc = dlc.conv_integer %xq, %wq, %xzp, %wzp {...} -> tensor<...xi32>
    %q = dlc.requantize %acc, %bq, %mult, %yzp {axis = 1 : i64}
    ```

    Chaining. Between two quantized layers there is often an op that
    commutes with quantization: a Relu or Clip (exported unfused, or after
    dlc-quantize, which quantizes each layer's input), a MaxPool or a
    Flatten between a QuantizeLinear/DequantizeLinear pair on one grid (ONNX
    Runtime's QDQ format), a Concat of branches on one grid. Left alone, the
    producing layer stores its float result and the next kernel quantizes it
    again. So before folding, a per-tensor `quantize_linear` moves up
    through Relu, Clip, MaxPool, Reshape, Transpose and Concat -- q is
    non-decreasing, so q(relu(x)) = max(q(x), zp), q(clip(x, lo, hi)) =
    clip(q(x), q(lo), q(hi)), q(maxpool(x)) = maxpool(q(x)) (the float
    padding -inf quantizes to the integer padding, the lowest value) --
    when that ends at a Conv/Gemm/MatMul (one that folds takes the quantize
    as its requantize epilogue; one left in float, such as a kept first
    layer before its MaxPool, quantizes in its float epilogue and stores
    int8) or at a `dequantize_linear` on the same grid,
    and `quantize_linear(dequantize_linear(x))` on one grid folds to `x`
    (exact: (x - zp) * s / s rounds back to x - zp for normal scales). The
    producer then requantizes straight to the next layer's grid and int8
    flows between the kernels. It does not happen when a float value on the
    way has another reader -- an fp32 op, or it is a model output: that
    value must be stored in f32 anyway, and quantizing it as well would only
    add an epilogue.

    Before (conv -> Relu -> the next layer's quantize):
    ```mlir
    %y = dlc.conv %x, %w, %b {...}                       // QDQ operands
    %r = dlc.relu %y
    %q = dlc.quantize_linear %r, %s1, %z1 {axis = 0 : i64}     // z1 = 5
    %d = dlc.dequantize_linear %q, %s1, %z1 {axis = 0 : i64}
    %p = dlc.max_pool %d {...}
    %pq = dlc.quantize_linear %p, %s1, %z1 {axis = 0 : i64}
    ```
    After:
    ```mlir
    %acc = dlc.conv_integer %xq, %wq, %xzp, %wzp {...} -> tensor<...xi32>
    %q = dlc.requantize %acc, %bq, %mult, %z1 {axis = 1 : i64} -> tensor<...xi8>
    %c = dlc.clip %q {min = 5.0 : f64, max = 127.0 : f64}      // the Relu
    %pq = dlc.max_pool %c {...} -> tensor<...xi8>
    ```

    Sums. A residual block's epilogue adds two dequantized values, maybe
    applies a Relu, and quantizes (`--quantize-residuals`, ONNX Runtime's
    QDQ Add). The quantize's scale moves into the addends' scales
    (relu(x) / s = relu(x / s) for s > 0), so the fused epilogue multiplies
    each addend once and divides by nothing, as dlc.requantize's multiplier
    and ONNX Runtime's QLinearAdd do; the quantize is left on scale 1, which
    dlc-convert-to-linalg lowers without a division. The sum rounds once
    more than x / s did: an element within an ulp of a rounding tie may
    land one step off. Only when the float sum (and the sum before the
    Relu) has no other reader.

    Before:
    ```mlir
    %a = dlc.dequantize_linear %acc, %sa, %nb {axis = 3 : i64}  // i32, [C]
    %b = dlc.dequantize_linear %r, %sr, %zr {axis = 0 : i64}    // i8
    %s = dlc.add %a, %b
    %y = dlc.relu %s
    %q = dlc.quantize_linear %y, %sy, %zy {axis = 0 : i64}
    ```
    After:
    ```mlir
    %a = dlc.dequantize_linear %acc, %sa_over_sy, %nb {axis = 3 : i64}
    %b = dlc.dequantize_linear %r, %sr_over_sy, %zr {axis = 0 : i64}
    %s = dlc.add %a, %b
    %y = dlc.relu %s
    %q = dlc.quantize_linear %y, %one, %zy {axis = 0 : i64}
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FoldConstantDequantizePass
    : Pass<"dlc-fold-constant-dequantize", "ModuleOp"> {
  let summary = "Compute the dequantize_linear of constants (weights) once";
  let description = [{
    Runs on the dlc dialect, after dlc-fold-qdq. A `dequantize_linear`
    whose input, scale and zero point are all constants (a quantized weight
    that did not fold into an integer kernel) becomes the f32 constant
    (q - zp) * scale, computed as the lowering computes it (the difference
    exactly in f32, one rounding of the product), so the model.so carries
    the float weight and no kernel dequantizes it at every run. It exists
    for the layers dlc-fold-qdq leaves in float: those with 16-bit
    activations (ONNX Runtime's A16W8 and A16W16 models, where every
    weight is such a constant; resnet50 dequantized 100 MB of weights into
    the arena in 54 kernels a run), per-axis activations, biases it cannot
    fold, `--fold-qdq=false`. It runs after dlc-fold-qdq, which needs the
    dequantize_linear of a weight to see that it is quantized. The weight
    grows to 4 bytes an element in the model.so, as a float layer's weight
    is anyway. Scales of another float type (f16, bf16) keep the op (the
    lowering multiplies in that type).

    Before:
    ```mlir
    %wq = arith.constant dense_resource<w> : tensor<64x3x7x7xi8>
    %ws = arith.constant dense<[...]> : tensor<64xf32>
    %wz = arith.constant dense<0> : tensor<64xi8>
    %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64}
    %y = dlc.conv %x, %w {...}
    ```
    After:
    ```mlir
    %w = arith.constant dense_resource<w_dequantized> : tensor<64x3x7x7xf32>
    %y = dlc.conv %x, %w {...}
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def QuantizeModelPass : Pass<"dlc-quantize", "ModuleOp"> {
  let summary = "Quantize calibrated fp32 Conv/Gemm/MatMul/GlobalAveragePool to QDQ int8";
  let description = [{
    Post-training quantization (`dlc --precision=int8 --calibrate=DIR`).
    The driver calibrates the fp32 model on sample inputs and marks each
    layer it quantizes with `dlc.input_ranges`: one `array<f32: lo, hi>`
    per activation operand (a Conv's input, a Gemm's A, a MatMul's lhs and,
    when it is not a constant, its rhs). Keeping the ranges in the IR makes
    the pass testable with dlc-opt and keeps calibration out of it. Each
    marked op gets its activations quantized per tensor (asymmetric 8-bit:
    scale (hi - lo) / 255 over the range widened to hold 0; int8 with the
    zero point mapping lo to -128, or, for a range without negative values,
    uint8 with zero point 0, the same grid without zero-point arithmetic)
    and its constant weight per output channel
    (symmetric int8: scale max|w[c]| / 127), as quantize/dequantize pairs
    that dlc-fold-qdq folds into conv_integer / matmul_integer with i32
    accumulation and a float epilogue (the bias joins the accumulator). The
    result stays f32, so Softmax, LayerNormalization and every op that is
    not marked keep running in fp32. A marked op that dlc-fold-qdq could not
    fold (transposed A, non-constant weight, a bias that is not per
    channel...) or malformed ranges are an error.

    Residual connections (`quantize-residuals`, on by default): a dlc.add
    that reads a quantized activation reads its dequantized value too, as
    TensorRT's Q/DQ placement for residual adds does. Otherwise the
    activation would cross kernels twice, in int8 for the layer and in f32
    for the add (ResNet-50's residual stream: 4 bytes per element written
    and read again in every block); now only its int8 form does, and the
    add's kernel dequantizes it. The add then sees the activation's
    quantization error, which the calibration's SQNR report includes.
    Likewise a layer carrying `dlc.output_range` (the calibrated range of
    its result) whose result an add reads together with a later layer's
    result (a ResNet downsample block: conv3 + downsample conv) gets a
    quantize/dequantize pair on that result: the later layer's kernel takes
    the add as its epilogue, so the earlier result crosses kernels, and it
    now does so as requantized int8 instead of i32 accumulators (a quarter
    of the bytes).

    A global average pool (`dlc.reduce_mean` over the H and W of an NCHW
    tensor) carrying `dlc.input_ranges` gets its input quantized the same
    way, as ONNX Runtime's QDQ models place it: the layer before it (ResNet's
    last block: conv3, the residual add, ReLU) then requantizes to int8 in
    its epilogue, and the pool's kernel dequantizes bytes, instead of the
    conv writing its i32 accumulators for the pool to read (resnet50 at
    batch 32: 3.2 MB instead of 12.8 MB written and read).

    Before:
    ```mlir
    %y = dlc.conv %x, %w, %b {dlc.input_ranges = [array<f32: 0.0, 6.0>], ...}
    %r = dlc.add %x, %z
    ```
    After:
    ```mlir
    %xq = dlc.quantize_linear %x, %xs, %xzp {axis = 0 : i64}  // xs = 6/255
    %xd = dlc.dequantize_linear %xq, %xs, %xzp {axis = 0 : i64}
    %wd = dlc.dequantize_linear %wq, %ws, %wzp {axis = 0 : i64} // i8, ws: [M]
    %y = dlc.conv %xd, %wd, %b {...}
    %r = dlc.add %xd, %z
    ```
  }];
  let options = [
    Option<"quantizeResiduals", "quantize-residuals", "bool",
           /*default=*/"true",
           "dlc.add ops reading a quantized activation read it quantized">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ReducePrecisionPass : Pass<"dlc-reduce-precision", "ModuleOp"> {
  let summary = "Run Conv/ConvTranspose/Gemm/MatMul on fp16 or bf16 operands";
  let description = [{
    `--precision=fp16|bf16`. GEMMs and convolutions are where half
    precision pays: half the bytes of weights and activations to move, and
    the operand type tensor cores take. Every f32 dlc.conv,
    dlc.conv_transpose, dlc.gemm and dlc.matmul gets 16-bit operands and a
    16-bit result; dlc-convert-to-linalg accumulates those in f32 and rounds
    once. Constant operands (weights, biases) are converted here, once,
    rounding to nearest even, so model.so carries them in half precision.
    Everything else stays f32: each result is widened for its consumers
    (softmax, normalizations and reductions compute in f32), and a widened
    half value feeding another GEMM is used directly, so chains of GEMMs and
    the elementwise ops between them (fused, cast included) move half
    precision data. An attention result read only by such a GEMM (through
    reshapes) is stored in half precision by the attention kernel itself,
    instead of through a cast. Attention's q, k and v are read in half
    precision: its tensor-core lowering rounds them when staging anyway, so
    the cast (placed before the reshapes between, on the producer's shape)
    changes no result there and joins the projection GEMM's epilogue, which
    then writes 16-bit data (BERT's Q/K/V projections: half the bytes). The
    mask stays f32.
    At fp16, a value rounded for a GEMM and read in f32 elsewhere too (a
    residual stream) is read everywhere from the rounded value, widened, so
    its producer stores it once in 16 bits (model outputs excepted; bf16
    keeps it f32). Likewise at fp16 an attention result read only by
    quantize_linear ops (an int8 model's attention, kept in float at the
    fallback precision) is stored in f16 and widened for them.

    Before:
    ```mlir
    %w = arith.constant dense_resource<w> : tensor<8x4xf32>
    %y = dlc.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    ```
    After:
    ```mlir
    %w = arith.constant dense_resource<dlc_fp16_0> : tensor<8x4xf16>
    %xh = dlc.cast %x : (tensor<2x8xf32>) -> tensor<2x8xf16>
    %yh = dlc.matmul %xh, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
    %y = dlc.cast %yh : (tensor<2x4xf16>) -> tensor<2x4xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"fp16\"",
           "The operand precision: fp16 or bf16">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // DLC_PASSES_TD
