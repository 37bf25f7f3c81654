// RUN: dlc-opt %s --split-input-file --dlc-tile-attention-kernels="sm-count=48" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-attention-kernels | FileCheck %s --check-prefix=SM132
// RUN: dlc-opt %s --split-input-file --dlc-tile-attention-kernels="precision=bf16 emulate=true" | FileCheck %s --check-prefix=EMU

// BERT's attention (K^T laid out [D, S], a padding mask): 2 x 12 x 2
// query blocks of 64, 128 threads, Q, K and V tiles of 64 rows of 64 + 8
// halves in shared memory (for 48 SMs; for 132, 48 CTAs would leave more
// than half idle: 96 CTAs of 2 warps, 32 query rows); per block of 64 keys: 8 score tiles x 4 k-steps
// and 8 output tiles x 4 k-steps of mma.sync, the row maxima and sums over
// the 4 lanes of a row by xor shuffles 1 and 2.
// CHECK-LABEL: func.func private @bert
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.shared_bytes = 27648 : i64
// CHECK-SAME: dlc.work_items = 48 : i64
// CHECK: scf.parallel
// CHECK: gpu.dynamic_shared_memory
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c128{{.*}} step %c64
// CHECK: gpu.barrier
// CHECK-COUNT-32: nvgpu.mma.sync
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: math.exp
// CHECK-COUNT-32: nvgpu.mma.sync
// CHECK: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %arg4
// CHECK-NOT: dlc.attention_kernel
// SM132-LABEL: func.func private @bert
// SM132-SAME: dlc.cta_threads = 64 : i64
// SM132-SAME: dlc.shared_bytes = 23040 : i64
// SM132-SAME: dlc.work_items = 96 : i64
// EMU-LABEL: func.func private @bert
// EMU-SAME: dlc.shared_bytes = 0 : i64
// EMU-NOT: gpu.
// EMU-NOT: nvgpu.
// EMU: memref.alloca() : memref<11520xbf16>
// EMU: arith.truncf %{{.*}} : f32 to bf16
// EMU-NOT: dlc.attention_kernel
func.func private @bert(%q: memref<2x12x128x64xf32>, %kt: memref<2x12x64x128xf32>,
    %v: memref<2x12x128x64xf32>, %m: memref<2x1x1x128xf32>, %o: memref<2x12x128x64xf32>)
    attributes {dlc.kernel} {
  dlc.attention_kernel %q, %kt, %v mask(%m : memref<2x1x1x128xf32>) outs(%o : memref<2x12x128x64xf32>)
      {k_transposed = true, scale = 1.250000e-01 : f32}
      : memref<2x12x128x64xf32>, memref<2x12x64x128xf32>, memref<2x12x128x64xf32>
  return
}

// -----

// A head of 24 is no whole number of k16 steps: the one-query-row-per-
// work-item form stays. 40 keys (a partial block) are flash attention, 1
// warp per CTA for its 4 query blocks of 16.
// CHECK-LABEL: func.func private @odd_head
// EMU-LABEL: func.func private @odd_head
// CHECK-NOT: dlc.cta_threads
// CHECK: dlc.attention_kernel
// CHECK-LABEL: func.func private @odd_keys
// CHECK-SAME: dlc.cta_threads = 32 : i64
// CHECK: arith.minui
// CHECK-NOT: dlc.attention_kernel
func.func private @odd_head(%q: memref<1x64x24xf32>, %k: memref<1x64x24xf32>,
    %v: memref<1x64x24xf32>, %o: memref<1x64x24xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x64x24xf32>)
      {k_transposed = false, scale = 1.0 : f32}
      : memref<1x64x24xf32>, memref<1x64x24xf32>, memref<1x64x24xf32>
  return
}
func.func private @odd_keys(%q: memref<1x64x32xf32>, %k: memref<1x40x32xf32>,
    %v: memref<1x40x32xf32>, %o: memref<1x64x32xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x64x32xf32>)
      {k_transposed = false, scale = 1.0 : f32}
      : memref<1x64x32xf32>, memref<1x40x32xf32>, memref<1x40x32xf32>
  return
}

// -----

// Another op fused into the kernel (a producer of Q): left alone.
// CHECK-LABEL: func.func private @fused
// CHECK: linalg.generic
// CHECK: dlc.attention_kernel
func.func private @fused(%x: memref<1x64x32xf32>, %q: memref<1x64x32xf32>, %k: memref<1x64x32xf32>,
    %v: memref<1x64x32xf32>, %o: memref<1x64x32xf32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x64x32xf32>) outs(%q : memref<1x64x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x64x32xf32>)
      {k_transposed = false, scale = 1.0 : f32}
      : memref<1x64x32xf32>, memref<1x64x32xf32>, memref<1x64x32xf32>
  return
}

// -----

// An i8 result (an int8 model's attention kept in float): each output is
// divided by result_scale (without a division: times its reciprocal, 10,
// corrected by the fma'd remainder, as QuantizeLinear in the CUDA form),
// clamped to [-128, 127] - zero point, rounded half to even by adding 1.5 *
// 2^23, read as an integer from the sum's encoding (minus 0x4B400000, plus
// the zero point) and stored as i8 in the [B, S, H, D] layout of
// result_perm.
// CHECK-LABEL: func.func private @quantized_result
// CHECK-COUNT-32: nvgpu.mma.sync
// CHECK: %[[R10:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-NEXT: %[[Q0:.*]] = arith.mulf %[[X:[0-9]+]], %[[R10]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[Q0]] : f32
// CHECK-NEXT: %[[REM:.*]] = math.fma %[[N]], %{{.*}}, %[[X]] : f32
// CHECK-NEXT: %[[Q1:.*]] = math.fma %[[REM]], %[[R10]], %[[Q0]] : f32
// CHECK: %[[Q:.*]] = arith.select %{{.*}}, %[[Q1]], %[[Q0]] : f32
// CHECK: %[[LO:.*]] = arith.constant -1.250000e+02 : f32
// CHECK: %[[HI:.*]] = arith.constant 1.300000e+02 : f32
// CHECK: %[[C0:.*]] = arith.maxnumf %[[Q]], %[[LO]] : f32
// CHECK: %[[C:.*]] = arith.minnumf %[[C0]], %[[HI]] : f32
// CHECK: %[[M:.*]] = arith.constant 0x4B400000 : f32
// CHECK: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK: %[[E:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: %[[K:.*]] = arith.constant -1262485507 : i32
// CHECK: %[[I:.*]] = arith.addi %[[E]], %[[K]] : i32
// CHECK: %[[B:.*]] = arith.trunci %[[I]] : i32 to i8
// CHECK: memref.store %[[B]], %arg3[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x128x12x64xi8>
func.func private @quantized_result(%q: memref<1x12x128x64xf16>, %kt: memref<1x12x64x128xf16>,
    %v: memref<1x12x128x64xf16>, %o: memref<1x128x12x64xi8>)
    attributes {dlc.kernel} {
  dlc.attention_kernel %q, %kt, %v outs(%o : memref<1x128x12x64xi8>)
      {k_transposed = true, scale = 1.250000e-01 : f32, result_perm = array<i64: 0, 2, 1, 3>,
       result_scale = 1.000000e-01 : f32, result_zero_point = -3 : i64}
      : memref<1x12x128x64xf16>, memref<1x12x64x128xf16>, memref<1x12x128x64xf16>
  return
}

// -----

// A power-of-two result_scale: times its reciprocal, which is exact, so
// no correction.
// CHECK-LABEL: func.func private @quantized_result_power_of_two
// CHECK: %[[R8:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %{{[0-9]+}}, %[[R8]] : f32
// CHECK-NOT: math.fma
// CHECK: arith.constant -1.250000e+02 : f32
// CHECK-NOT: math.fma
// CHECK: arith.maxnumf %[[Q]]
// CHECK-NOT: math.fma
// CHECK: return
func.func private @quantized_result_power_of_two(%q: memref<1x12x128x64xf16>,
    %kt: memref<1x12x64x128xf16>, %v: memref<1x12x128x64xf16>,
    %o: memref<1x128x12x64xi8>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %kt, %v outs(%o : memref<1x128x12x64xi8>)
      {k_transposed = true, scale = 1.250000e-01 : f32, result_perm = array<i64: 0, 2, 1, 3>,
       result_scale = 1.250000e-01 : f32, result_zero_point = -3 : i64}
      : memref<1x12x128x64xf16>, memref<1x12x64x128xf16>, memref<1x12x128x64xf16>
  return
}
