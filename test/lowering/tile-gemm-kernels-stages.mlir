// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true cluster-split-k=true gather-split-k=true deepen-stages=true sm-count=6" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true cluster-split-k=true gather-split-k=true sm-count=6" | FileCheck %s --check-prefix=OFF

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// 196 x 256 outputs are 4 CTAs of 128x128 for 6 SMs, one an SM: no other
// CTA competes for an SM's shared memory, so the pipeline gets as many
// stages as K fills (5 k-tiles of 64 + 2 for wgmma = 7; the cost model's
// tile has 4) and 227 KiB hold: 7 x 32 KiB and the 1 KiB alignment. K is
// too short to split (4 k-tiles a rank at least).
// CHECK-LABEL: func.func private @conv_one_wave(
// CHECK-NOT: dlc.cluster_ctas
// CHECK-SAME: dlc.shared_bytes = 230400 : i64
// CHECK-SAME: dlc.work_items = 4 : i64
// OFF-LABEL: func.func private @conv_one_wave(
// OFF-SAME: dlc.shared_bytes = 132096 : i64
func.func private @conv_one_wave(%acc: memref<1x14x14x256xf32>, %x: memref<1x16x16x32xf16>, %wt: memref<256x3x3x32xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x14x14x256xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x16x16x32xf16>, memref<256x3x3x32xf16>) outs(%acc : memref<1x14x14x256xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%x: memref<1x16x16x32xf16>, %wt: memref<256x3x3x32xf16>, %y: memref<1x14x14x256xf32>) {
  call @conv_one_wave(%y, %x, %wt) : (memref<1x14x14x256xf32>, memref<1x16x16x32xf16>, memref<256x3x3x32xf16>) -> ()
  return
}

// -----

// Over 16 channels the cost model takes 12 CTAs of 64x96, more than a wave
// of 6 SMs: the stages stay its 4 (2 CTAs may share an SM).
// CHECK-LABEL: func.func private @conv_waves(
// CHECK-SAME: dlc.shared_bytes = 82944 : i64
// CHECK-SAME: dlc.work_items = 12 : i64
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func private @conv_waves(%acc: memref<1x14x14x256xf32>, %x: memref<1x16x16x16xf16>, %wt: memref<256x3x3x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x14x14x256xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x16x16x16xf16>, memref<256x3x3x16xf16>) outs(%acc : memref<1x14x14x256xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%x: memref<1x16x16x16xf16>, %wt: memref<256x3x3x16xf16>, %y: memref<1x14x14x256xf32>) {
  call @conv_waves(%y, %x, %wt) : (memref<1x14x14x256xf32>, memref<1x16x16x16xf16>, memref<256x3x3x16xf16>) -> ()
  return
}
