// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels --verify-diagnostics | FileCheck %s

#in = affine_map<(d0, d1, d2) -> (d0, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// Parallel dims collapse into one loop over 2*3 work items; the reduction
// stays a sequential loop inside.
// CHECK-LABEL: func.func private @k0
// CHECK-SAME: dlc.work_items = 6 : i64
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C6]]) step (%{{.*}})
// CHECK: arith.remsi %[[I]]
// CHECK: scf.for
// CHECK-NOT: scf.parallel
func.func private @k0(%a: memref<2x5xf32>, %b: memref<2x3xf32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : memref<2x5xf32>) outs(%b : memref<2x3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>

// A full reduction is a single work item.
// CHECK-LABEL: func.func private @k0
// CHECK-SAME: dlc.work_items = 1 : i64
// CHECK: scf.parallel
// CHECK: scf.for
func.func private @k0(%a: memref<16xf32>, %b: memref<f32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%a : memref<16xf32>) outs(%b : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// expected-error @+1 {{expected structured ops in a kernel}}
func.func private @k0(%a: memref<16xf32>) attributes {dlc.kernel} {
  return
}
