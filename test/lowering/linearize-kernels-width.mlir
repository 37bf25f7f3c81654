// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="vector-width=4 min-threads=1024" | FileCheck %s

#in = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#out = affine_map<(d0, d1, d2) -> (d0)>

// A GlobalAveragePool-like reduction over 7 x 7 with 256 outputs: 4 per work
// item would be 64 threads, under min-threads, so one per work item (256).
// CHECK-LABEL: func.func private @few_reductions
// CHECK-SAME: dlc.work_items = 256 : i64
// CHECK: scf.parallel
// CHECK-NOT: scf.for {{.*}} to %c4
// CHECK: scf.for
func.func private @few_reductions(%a: memref<7x7x256xf32>, %b: memref<256xf32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : memref<7x7x256xf32>) outs(%b : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#out = affine_map<(d0, d1, d2) -> (d0)>

// 8192 outputs: 4 per work item still leaves 2048 >= min-threads.
// CHECK-LABEL: func.func private @many_reductions
// CHECK-SAME: dlc.work_items = 2048 : i64
func.func private @many_reductions(%a: memref<3x3x8192xf32>, %b: memref<8192xf32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : memref<3x3x8192xf32>) outs(%b : memref<8192xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Elementwise: no loop in the work item, so 4 elements (128-bit accesses)
// per work item however few.
// CHECK-LABEL: func.func private @small_elementwise
// CHECK-SAME: dlc.work_items = 64 : i64
func.func private @small_elementwise(%a: memref<256xf32>, %b: memref<256xf32>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<256xf32>) outs(%b : memref<256xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}
