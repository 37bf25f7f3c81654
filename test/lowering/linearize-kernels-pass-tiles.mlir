// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=8 row-pass-tiles=24" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=8" | FileCheck %s --check-prefix=OFF

// Rows of 49 (a 7x7 plane: 3 tiles and a 1-lane rest, 4 tiles) at 8 rows
// a work item need 32 accumulators, one vectorizer pass holds 24: 6 rows
// (they divide the 24) make one pass instead of two.
// CHECK-LABEL: func.func private @plane49(
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c6{{.*}}, %c49{{.*}})
// Without row-pass-tiles, the block.
// OFF-LABEL: func.func private @plane49(
// OFF: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c8{{.*}}, %c49{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @plane49(%A: memref<24x4xf32>, %B: memref<4x49xf32>, %C: memref<24x49xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<24x49xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<24x4xf32>, memref<4x49xf32>) outs(%C : memref<24x49xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 32 rows: neither 6 nor 5 divides them, 4 does (at least half the block).
// CHECK-LABEL: func.func private @plane49_32(
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c4{{.*}}, %c49{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @plane49_32(%A: memref<32x4xf32>, %B: memref<4x49xf32>, %C: memref<32x49xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<32x49xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<32x4xf32>, memref<4x49xf32>) outs(%C : memref<32x49xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows of 48 (3 tiles) fit one pass at 8 rows: the block stays.
// CHECK-LABEL: func.func private @rows48(
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c8{{.*}}, %c48{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @rows48(%A: memref<24x4xf32>, %B: memref<4x48xf32>, %C: memref<24x48xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<24x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<24x4xf32>, memref<4x48xf32>) outs(%C : memref<24x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows of 112 (7 tiles) fit no pass at 4 rows or more: the block stays.
// CHECK-LABEL: func.func private @rows112(
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c8{{.*}}, %c112{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @rows112(%A: memref<24x4xf32>, %B: memref<4x112xf32>, %C: memref<24x112xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<24x112xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<24x4xf32>, memref<4x112xf32>) outs(%C : memref<24x112xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
