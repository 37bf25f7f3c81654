// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="emulate=true" | FileCheck %s --check-prefix=EMU

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// fill; acc += ext(a) * ext(b); bias + truncf: one CTA program of 64x64
// tiles (2 x 2 here), 4 warps, 3 stages of 64x32 + 32x64 halves (24 KiB).
// The accumulator buffer, used by nothing else, leaves the arguments.
// CHECK-LABEL: func.func private @gemm_bias
// CHECK-SAME: (%[[A:.*]]: memref<128x64xf16>, %[[B:.*]]: memref<64x128xf16>, %[[BIAS:.*]]: memref<128xf32>, %[[OUT:.*]]: memref<128x128xf16>)
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.shared_bytes = 24576 : i64
// CHECK-SAME: dlc.work_items = 4 : i64
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [16384], strides: [1] : memref<128x128xf16> to memref<16384xf16>
// CHECK: scf.parallel
// CHECK: gpu.dynamic_shared_memory
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_copy %[[B]]
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: scf.yield
// CHECK: vector.extract
// CHECK: memref.load %[[BIAS]]
// CHECK: arith.truncf
// CHECK: arith.truncf
// The pair goes out through the buffer's 1-D view, at 2 * (linear / 2):
// LLVM proves the 4-byte alignment from the index.
// CHECK: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: %[[HALF:.*]] = arith.divui %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[AT:.*]] = arith.muli %[[HALF]], %c2{{(_[0-9]+)?}} : index
// CHECK: vector.store %[[PAIR]], %[[FLAT]][%[[AT]]] : memref<16384xf16>, vector<2xf16>
// CHECK-NOT: linalg.
// EMU-LABEL: func.func private @gemm_bias
// EMU-SAME: dlc.cta_threads = 128 : i64
// EMU-SAME: dlc.shared_bytes = 0 : i64
// EMU-NOT: nvgpu.
// EMU-NOT: gpu.
// EMU: memref.alloca() : memref<12288xf16>
// EMU: arith.select
// EMU: scf.for
// EMU-NOT: linalg.
// EMU-LABEL: func.func @main
func.func private @gemm_bias(%acc: memref<128x128xf32>, %a: memref<128x64xf16>, %b: memref<64x128xf16>,
    %bias: memref<128xf32>, %out: memref<128x128xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%acc : memref<128x128xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<128x128xf32>, memref<128xf32>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %y: f32, %o: f16):
    %0 = arith.addf %x, %y : f32
    %1 = arith.truncf %0 : f32 to f16
    linalg.yield %1 : f16
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf32>, %out: memref<128x128xf16>) {
  %acc = memref.alloc() : memref<128x128xf32>
  // CHECK: call @gemm_bias(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<128x64xf16>
  call @gemm_bias(%acc, %a, %b, %bias, %out) : (memref<128x128xf32>, memref<128x64xf16>, memref<64x128xf16>, memref<128xf32>, memref<128x128xf16>) -> ()
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// B as [N, K] (Gemm transB): ldmatrix without .trans. bf16 mma.sync is
// inline PTX (MLIR 19 cannot lower it). The accumulator is a kernel
// argument of the caller's, so it is still stored.
// CHECK-LABEL: func.func private @gemm_transb
// CHECK-SAME: %[[ACC:.*]]: memref<64x64xf32>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: vector.store {{.*}} : memref<4096xf32>, vector<2xf32>
func.func private @gemm_transb(%acc: memref<64x64xf32>, %a: memref<64x32xbf16>, %b: memref<64x32xbf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xbf16>, memref<64x32xbf16>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %s: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Not a tensor-core kernel: rows of 36 halves are not 16-byte aligned for
// cp.async (K % 8 != 0); the kernel is left to dlc-linearize-kernels.
// CHECK-LABEL: func.func private @gemm_k36
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.fill
// CHECK: linalg.generic
func.func private @gemm_k36(%acc: memref<64x64xf32>, %a: memref<64x36xf16>, %b: memref<36x64xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x36xf16>, memref<36x64xf16>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Not a tensor-core kernel: f32 operands (TF32 is not enabled).
// CHECK-LABEL: func.func private @gemm_f32
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @gemm_f32(%acc: memref<64x64xf32>, %a: memref<64x32xf32>, %b: memref<32x64xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %2 = arith.mulf %x, %y : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, 0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Not a tensor-core kernel (and no crash): an operand map whose last
// results are not all loop dims.
// CHECK-LABEL: func.func private @gemm_const_map
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @gemm_const_map(%acc: memref<64x64xf32>, %a: memref<64x32xf16>, %b: memref<32x64xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// int8: u8 A times s8 B [N, K] into i32, the init a per-column generic
// (MatMulInteger's -zp * sum(w)). 16-byte chunks hold 16 elements; a k-tile
// is 64 wide (two k32 steps); the mma is inline PTX, mixed u8.s8. The
// emulation widens with extui / extsi as the body does.
// CHECK-LABEL: func.func private @gemm_int8
// CHECK-SAME: dlc.shared_bytes = 24576 : i64
// CHECK: nvgpu.device_async_copy {{.*}}, 16, %{{.*}} {bypassL1}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<{{.*}}xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK: memref.load %{{.*}} : memref<64xi32>
// CHECK: arith.addi
// CHECK-NOT: linalg.
// EMU-LABEL: func.func private @gemm_int8
// EMU: memref.alloca() : memref<24576xi8>
// EMU: arith.extui {{.*}} : i8 to i32
// EMU: arith.extsi {{.*}} : i8 to i32
// EMU: arith.muli
func.func private @gemm_int8(%acc: memref<64x64xi32>, %a: memref<64x128xi8>, %b: memref<64x128xi8>, %sums: memref<64xi32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sums : memref<64xi32>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%s: i32, %o: i32):
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x128xi8>, memref<64x128xi8>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Not a tensor-core kernel: an int8 B laid out [K, N] (ldmatrix .trans
// moves 16-bit elements only; constant weights are stored [N, K] earlier).
// CHECK-LABEL: func.func private @gemm_int8_kn
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @gemm_int8_kn(%acc: memref<64x64xi32>, %a: memref<64x128xi8>, %b: memref<128x64xi8>) attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<64x64xi32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x128xi8>, memref<128x64xi8>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5 * 2, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>

// A channels-last convolution (stride 2, dilation 2 along w, input padded
// beforehand) as an implicit GEMM: M = 2 * 4 * 4 pixels, N = 32 output
// channels, K = 3 * 3 * 16; the A tile is gathered from the input window
// (row -> n, oh, ow; column -> kh, kw, c), the weight is read as [N, K],
// and the bias epilogue indexes (n, oh, ow, o).
// CHECK-LABEL: func.func private @conv_nhwc
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK: arith.divui %{{.*}}, %c16
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 8
// CHECK: nvgpu.mma.sync
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<32xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1024xf16>, vector<2xf16>
// CHECK-NOT: linalg.
// EMU-LABEL: func.func private @conv_nhwc
// EMU-SAME: dlc.cta_threads = 128 : i64
func.func private @conv_nhwc(%acc: memref<2x4x4x32xf32>, %x: memref<2x9x12x16xf16>, %wt: memref<32x3x3x16xf16>,
    %bias: memref<32xf32>, %y: memref<2x4x4x32xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x4x4x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<2x9x12x16xf16>, memref<32x3x3x16xf16>) outs(%acc : memref<2x4x4x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<2x4x4x32xf32>, memref<32xf32>) outs(%y : memref<2x4x4x32xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %0 = arith.addf %a, %b : f32
    %1 = arith.truncf %0 : f32 to f16
    linalg.yield %1 : f16
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// Not a tensor-core kernel: 12 channels do not fill 16-byte chunks of k.
// CHECK-LABEL: func.func private @conv_nhwc_c12
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @conv_nhwc_c12(%acc: memref<1x8x8x32xf32>, %x: memref<1x10x10x12xf16>, %wt: memref<32x3x3x12xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x12xf16>, memref<32x3x3x12xf16>) outs(%acc : memref<1x8x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// An int8 channels-last convolution (ConvInteger after the zero-point
// split): s8 x s8 implicit GEMM on mma.sync m16n8k32, K = 3 * 3 * 32.
// CHECK-LABEL: func.func private @conv_nhwc_int8
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 16
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func private @conv_nhwc_int8(%acc: memref<1x8x8x32xi32>, %x: memref<1x10x10x32xi8>, %wt: memref<32x3x3x32xi8>) attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<1x8x8x32xi32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x32xi8>, memref<32x3x3x32xi8>) outs(%acc : memref<1x8x8x32xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// No init in the kernel: an earlier kernel wrote the accumulator's initial
// value (kernel fusion merged the init there), which the epilogue reads
// back and adds.
// CHECK-LABEL: func.func private @gemm_int8_no_init
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK: %[[OLD:.*]] = memref.load %[[ACC:.*]][%{{.*}}, %{{.*}}] : memref<64x64xi32>
// CHECK: arith.addi %[[OLD]]
// CHECK: vector.store %{{.*}} : memref<4096xi32>, vector<2xi32>
func.func private @gemm_int8_no_init(%acc: memref<64x64xi32>, %a: memref<64x128xi8>, %b: memref<64x128xi8>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x128xi8>, memref<64x128xi8>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
