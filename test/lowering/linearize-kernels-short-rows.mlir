// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1" | FileCheck %s

// A padded copy of parallel dims only whose rows are 7 elements: a work
// item takes every row of its channel's plane (96 work items, not 672,
// each with the division and remainder of its index).
// CHECK-LABEL: func.func private @padded_copy(
// CHECK-SAME: dlc.work_items = 96
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
// CHECK: scf.for %[[Y:.*]] = %{{.*}} to %c7
// CHECK: scf.for %[[X:.*]] = %{{.*}} to %c7
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x96x7x7xi8>
// CHECK: memref.store
func.func private @padded_copy(%arg0: memref<1x96x7x7xi8>, %arg1: memref<1x96x9x9xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x96x7x7xi8>) outs(%arg1 : memref<1x96x9x9xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}

// -----

// Fewer than 64 work items would remain (8 channels): each row stays one.
// CHECK-LABEL: func.func private @few_channels(
// CHECK-SAME: dlc.work_items = 56
func.func private @few_channels(%arg0: memref<1x8x7x7xi8>, %arg1: memref<1x8x9x9xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x8x7x7xi8>) outs(%arg1 : memref<1x8x9x9xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}

// -----

// A padded copy's border spans (dlc-fold-padded-copies: a row's right
// border and the next row's left one, 32 floats at a row's stride): a
// work item takes a plane's 111 spans.
// CHECK-LABEL: func.func private @border_spans(
// CHECK-SAME: dlc.work_items = 96
// CHECK: scf.for %{{.*}} = %{{.*}} to %c111
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32
func.func private @border_spans(%arg0: memref<96x111x32xf32, strided<[16416, 144, 1], offset: 272>>) attributes {dlc.kernel} {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%arg0 : memref<96x111x32xf32, strided<[16416, 144, 1], offset: 272>>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  }
  return
}

// -----

// Rows of 33 elements, and planes of more than 4096 elements, stay a row a
// work item.
// CHECK-LABEL: func.func private @row_of_33(
// CHECK-SAME: dlc.work_items = 512
// CHECK-LABEL: func.func private @plane_of_129_rows(
// CHECK-SAME: dlc.work_items = 8256
func.func private @row_of_33(%arg0: memref<64x8x33xf32>) attributes {dlc.kernel} {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%arg0 : memref<64x8x33xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  }
  return
}
func.func private @plane_of_129_rows(%arg0: memref<64x129x32xf32>) attributes {dlc.kernel} {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%arg0 : memref<64x129x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  }
  return
}
