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

// -----

// Attention: one work item per query row (2 heads x 8 rows), streaming over
// the keys in blocks of 8 (12 keys: blocks of 4) with the online softmax;
// the block's scores and the accumulator row are private (memref.alloca),
// the output row is written once, each element times 1 / l (one division a
// row).
// CHECK-LABEL: func.func private @k0
// CHECK-SAME: dlc.work_items = 16 : i64
// CHECK: scf.parallel
// CHECK-DAG: memref.alloca() : memref<3xf32>
// CHECK-DAG: memref.alloca() : memref<4xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: memref.load %{{.*}} : memref<1x2x8x5xf32>
// CHECK: memref.load %{{.*}} : memref<1x2x12x5xf32>
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.exp
// CHECK: memref.load %{{.*}} : memref<1x2x12x3xf32>
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %{{.*}}#1 : f32
// CHECK: scf.for
// CHECK-NEXT: %[[A:.*]] = memref.load %{{.*}} : memref<3xf32>
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[A]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[R]], %{{.*}} : memref<1x2x8x3xf32>
// CHECK-NOT: arith.divf
// CHECK-NOT: memref.store %{{.*}} : memref<1x2x8x3xf32>
func.func private @k0(%q: memref<1x2x8x5xf32>, %k: memref<1x2x12x5xf32>, %v: memref<1x2x12x3xf32>, %o: memref<1x2x8x3xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x3xf32>) {k_transposed = false, scale = 0.5 : f32} : memref<1x2x8x5xf32>, memref<1x2x12x5xf32>, memref<1x2x12x3xf32>
  return
}
