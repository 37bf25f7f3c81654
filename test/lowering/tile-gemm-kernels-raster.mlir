// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="sm-count=4" | FileCheck %s

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// 4 x 2 tiles of 128 x 128 on 4 SMs: the square block of a wave is
// sqrt(4 * 128 / 128) = 2 tile rows high, so tiles go in groups of 2 rows,
// column by column: CTA t takes tile row (t / 4) * 2 + t % 2 and tile
// column (t % 4) / 2.
// CHECK-LABEL: func.func private @grouped
// CHECK-SAME: dlc.work_items = 8 : i64
// CHECK: scf.parallel (%[[CTA:.*]]) =
// CHECK: %[[T:.*]] = arith.remui %[[CTA]], %c8
// CHECK: %[[IN:.*]] = arith.remui %[[T]], %c4
// CHECK: %[[COL:.*]] = arith.divui %[[IN]], %c2
// CHECK: arith.muli %[[COL]], %c128
// CHECK: %[[ROWIN:.*]] = arith.remui %[[IN]], %c2
// CHECK: %[[GROUP:.*]] = arith.divui %[[T]], %c4
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c2
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[ROWIN]]
// CHECK: arith.muli %[[ROW]], %c128
func.func private @grouped(%acc: memref<512x256xf32>, %a: memref<512x512xf16>, %b: memref<256x512xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<512x256xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<512x512xf16>, memref<256x512xf16>) outs(%acc : memref<512x256xf32>) {
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

// 3 tile rows: no divisor of 3 in [2, 2], so the order stays row-major
// (tile column t % 2, tile row t / 2).
// CHECK-LABEL: func.func private @row_major
// CHECK-SAME: dlc.work_items = 6 : i64
// CHECK: scf.parallel (%[[CTA:.*]]) =
// CHECK: %[[T:.*]] = arith.remui %[[CTA]], %c6
// CHECK: %[[COL:.*]] = arith.remui %[[T]], %c2
// CHECK: arith.muli %[[COL]], %c128
// CHECK: %[[ROW:.*]] = arith.divui %[[T]], %c2
// CHECK: arith.muli %[[ROW]], %c128
func.func private @row_major(%acc: memref<384x256xf32>, %a: memref<384x512xf16>, %b: memref<256x512xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<384x256xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<384x512xf16>, memref<256x512xf16>) outs(%acc : memref<384x256xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
