// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=2" | FileCheck %s

// Host rows of a MatMul (C = A x B, zero-filled first): a work item is a
// row of C, and with `row-block` two consecutive rows, whose reduction runs
// as one 2-D row (u, n) inside the k loop so that both share each read of
// B; the fill runs once for each of the two rows.
// CHECK-LABEL: func.func private @matmul(
// CHECK: scf.parallel (%[[I:[a-z0-9_]+]]) = (%{{.*}}) to (%c4{{.*}}) step
// CHECK: scf.for %[[U:[a-z0-9_]+]] = %{{.*}} to %c2
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: scf.parallel (%[[U2:[a-z0-9_]+]], %[[N:[a-z0-9_]+]]) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c16{{.*}})
// CHECK: affine.apply #{{.*}}(%[[N]])
// CHECK: memref.load %arg1[
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: memref.store
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @matmul(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x16xf32>) outs(%C : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row whose reads depend on every outer dim (an elementwise-reduction
// mix with nothing to share) keeps one row a work item.
// CHECK-LABEL: func.func private @row_sum(
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c8{{.*}}) step
// CHECK-NOT: scf.parallel (%{{.*}}, %{{.*}})
#x = affine_map<(m, n, k) -> (m, k, n)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func private @row_sum(%X: memref<8x4x16xf32>, %Y: memref<8x16xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#x, #y],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%X : memref<8x4x16xf32>) outs(%Y : memref<8x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}
