// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true cluster-split-k=true gather-split-k=true sm-count=6" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true cluster-split-k=true sm-count=6" | FileCheck %s --check-prefix=OFF

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A 3x3 convolution gathers its A operand (im2col, cp.async): 196 x 256
// outputs, K = 1152 (18 k-tiles of 64). The tile cost model alone picks
// 128x128 tiles, 4 CTAs for 6 SMs: more than half, so no split, and each
// SM would run one CTA whose k-tiles take a gather's turnaround. With
// gather-split-k the tile and the split are chosen together: 2 tiles of
// 128x256 in clusters of 3 ranks, 6 k-tiles each (6 CTAs).
// CHECK-LABEL: func.func private @conv(
// CHECK-SAME: dlc.cluster_ctas = 3 : i64
// CHECK-SAME: dlc.work_items = 6 : i64
// CHECK: mapa.shared::cluster
// OFF-LABEL: func.func private @conv(
// OFF-NOT: dlc.cluster_ctas
// OFF-SAME: dlc.work_items = 4 : i64
func.func private @conv(%acc: memref<1x14x14x256xf32>, %x: memref<1x16x16x128xf16>, %wt: memref<256x3x3x128xf16>,
    %y: memref<1x14x14x256xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x14x14x256xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x16x16x128xf16>, memref<256x3x3x128xf16>) outs(%acc : memref<1x14x14x256xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x14x14x256xf32>) outs(%y : memref<1x14x14x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  }
  return
}
func.func @main(%x: memref<1x16x16x128xf16>, %wt: memref<256x3x3x128xf16>, %y: memref<1x14x14x256xf16>) {
  %acc = memref.alloc() {alignment = 64 : i64} : memref<1x14x14x256xf32>
  call @conv(%acc, %x, %wt, %y) : (memref<1x14x14x256xf32>, memref<1x16x16x128xf16>, memref<256x3x3x128xf16>, memref<1x14x14x256xf16>) -> ()
  return
}

// -----

// The same convolution over 28x28 pixels: its tiles already fill a wave of
// the 6 SMs, so it keeps the cost model's tile, unsplit.
// CHECK-LABEL: func.func private @conv_wave(
// CHECK-NOT: dlc.cluster_ctas
// CHECK-SAME: dlc.work_items = 14 : i64
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func private @conv_wave(%acc: memref<1x28x28x256xf32>, %x: memref<1x30x30x128xf16>, %wt: memref<256x3x3x128xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x28x28x256xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x30x30x128xf16>, memref<256x3x3x128xf16>) outs(%acc : memref<1x28x28x256xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%x: memref<1x30x30x128xf16>, %wt: memref<256x3x3x128xf16>, %y: memref<1x28x28x256xf32>) {
  call @conv_wave(%y, %x, %wt) : (memref<1x28x28x256xf32>, memref<1x30x30x128xf16>, memref<256x3x3x128xf16>) -> ()
  return
}
