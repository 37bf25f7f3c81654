// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true tile=128x128" | FileCheck %s --check-prefix=FORCED

// The tile shape cost model (estimateCycles) at 132 SMs: the number of CTAs
// (dlc.work_items) and the wgmma instruction's N give the chosen tile.

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// BERT's FFN-up GEMM at batch 8 x 128: 192 CTAs of 128x128 would be 1.45 waves
// on 132 SMs, 96 of 128x256 leave 36 SMs idle; 128 of 128x192 are one wave.
// CHECK-LABEL: func.func private @ffn_up
// CHECK-SAME: dlc.work_items = 128 : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16
func.func private @ffn_up(%acc: memref<1024x3072xf32>, %a: memref<1024x768xf16>, %b: memref<3072x768xf16>,
    %out: memref<1024x3072xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1024x3072xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<1024x768xf16>, memref<3072x768xf16>) outs(%acc : memref<1024x3072xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1024x3072xf32>) outs(%out : memref<1024x3072xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// BERT's FFN-down GEMM: 64x96 tiles, 128 CTAs (64x128 would leave 36 SMs idle,
// 48 of 128x128 most of them).
// CHECK-LABEL: func.func private @ffn_down
// CHECK-SAME: dlc.work_items = 128 : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
func.func private @ffn_down(%acc: memref<1024x768xf32>, %a: memref<1024x3072xf16>, %b: memref<768x3072xf16>,
    %out: memref<1024x768xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1024x768xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<1024x3072xf16>, memref<768x3072xf16>) outs(%acc : memref<1024x768xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1024x768xf32>) outs(%out : memref<1024x768xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// 64 output channels (resnet50's first 3x3 convolutions at batch 32, as a
// GEMM): 128x64 tiles, not 128x256 ones whose MMAs would multiply zero
// columns three quarters of the time.
// CHECK-LABEL: func.func private @narrow_n
// CHECK-SAME: dlc.work_items = 784 : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
func.func private @narrow_n(%acc: memref<100352x64xf32>, %a: memref<100352x576xf16>, %b: memref<64x576xf16>,
    %out: memref<100352x64xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<100352x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<100352x576xf16>, memref<64x576xf16>) outs(%acc : memref<100352x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<100352x64xf32>) outs(%out : memref<100352x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// --gemm-tile (the pass's `tile`) overrides the model: bert's FFN-up GEMM
// on 128x128 tiles.
// FORCED-LABEL: func.func private @forced
// FORCED-SAME: dlc.work_items = 192 : i64
// FORCED: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
func.func private @forced(%acc: memref<1024x3072xf32>, %a: memref<1024x768xf16>, %b: memref<3072x768xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1024x3072xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<1024x768xf16>, memref<3072x768xf16>) outs(%acc : memref<1024x3072xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
