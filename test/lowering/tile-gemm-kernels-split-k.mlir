// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="split-k=false" | FileCheck %s --check-prefix=OFF

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// 49 x 64 outputs are 1 CTA of 64x64 for 132 SMs; K = 2304 is 72 k-tiles
// of 32: 18 splits of 4. A copy of the kernel computes the partial sums
// (CTA program, 18 CTAs) into an [18, 49, 64] workspace the caller
// allocates; the kernel itself keeps its fill and epilogue and adds the
// partial sums up over s (innermost, in order).
// CHECK: #[[SPLITS:.*]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK-LABEL: func.func private @gemm_bias(
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<18x49x64xf32>)
// CHECK-SAME: attributes {dlc.kernel}
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[SPLITS]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[WS]] : memref<18x49x64xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK-LABEL: func.func private @gemm_bias_0(
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.work_items = 18 : i64
// The split's k-tiles: min(4, 72 - 4 s) from 4 s on.
// CHECK: scf.parallel (%[[CTA:.*]]) =
// CHECK: %[[BEGIN:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[LEFT:.*]] = arith.subi %c72{{.*}}, %[[BEGIN]]
// CHECK: %[[COUNT:.*]] = arith.minui %[[LEFT]], %c4{{.*}}
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[COUNT]] step %c1{{.*}} iter_args
// CHECK: nvgpu.mma.sync
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<18x49x64xf32>
// CHECK-NOT: arith.truncf
// CHECK-LABEL: func.func @main
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<18x49x64xf32>
// CHECK: call @gemm_bias_0({{.*}}, %[[BUF]])
// CHECK: call @gemm_bias({{.*}}, %[[BUF]])
// CHECK: memref.dealloc %[[BUF]]
// OFF-LABEL: func.func private @gemm_bias(
// OFF-SAME: dlc.work_items = 1 : i64
// OFF-NOT: @gemm_bias_0
func.func private @gemm_bias(%acc: memref<49x64xf32>, %a: memref<49x2304xf16>, %b: memref<2304x64xf16>,
    %out: memref<49x64xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<49x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<49x2304xf16>, memref<2304x64xf16>) outs(%acc : memref<49x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<49x64xf32>) outs(%out : memref<49x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}
func.func @main(%a: memref<49x2304xf16>, %b: memref<2304x64xf16>, %out: memref<49x64xf16>) {
  %acc = memref.alloc() : memref<49x64xf32>
  call @gemm_bias(%acc, %a, %b, %out) : (memref<49x64xf32>, memref<49x2304xf16>, memref<2304x64xf16>, memref<49x64xf16>) -> ()
  memref.dealloc %acc : memref<49x64xf32>
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Fewer than 8 k-tiles (K = 192: 6) leave nothing to share.
// CHECK-LABEL: func.func private @short_k(
// CHECK-SAME: dlc.work_items = 1 : i64
// CHECK-NOT: @short_k_0
func.func private @short_k(%acc: memref<49x64xf32>, %a: memref<49x192xf16>, %b: memref<192x64xf16>)
    attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<49x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<49x192xf16>, memref<192x64xf16>) outs(%acc : memref<49x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main2(%acc: memref<49x64xf32>, %a: memref<49x192xf16>, %b: memref<192x64xf16>) {
  call @short_k(%acc, %a, %b) : (memref<49x64xf32>, memref<49x192xf16>, memref<192x64xf16>) -> ()
  return
}
