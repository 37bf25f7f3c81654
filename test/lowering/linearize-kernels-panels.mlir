// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=2 row-panel=64" --canonicalize | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=2 byte-row-block=4 row-panel=64" --canonicalize | FileCheck %s --check-prefix=BYTE

// A MatMul of 512 columns (longer than a register row) with a bias
// epilogue: the columns are independent, so the rows split in 8 panels of
// 64, the panel the outermost work-item dim (8 panels x 4 blocks of 2
// rows); every row loop runs over the panel's 64 columns, at column
// p * 64 + c. B, a constant global, is read from a copy laid out panel by
// panel, B[k, n] -> B'[n / 64, k, n % 64], and the call passes it.
// CHECK-LABEL: func.func private @matmul_bias(
// CHECK-SAME: %{{.*}}: memref<8x4xf32>, %[[B:.*]]: memref<8x4x64xf32>,
// CHECK-SAME: dlc.work_items = 32 : i64
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[P:.*]] = arith.divsi %[[I]], %c4
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: scf.parallel (%{{.*}}, %[[C:[a-z0-9_]+]]) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c64{{.*}})
// CHECK: %[[FIRST:.*]] = arith.muli %[[P]], %c64
// CHECK: %[[N:.*]] = arith.addi %[[FIRST]], %[[C]]
// CHECK: memref.load %[[B]][%[[P]], %[[K]], %[[C]]] : memref<8x4x64xf32>
// CHECK: memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] : memref<8x512xf32>
// CHECK-LABEL: func.func @main(
// CHECK: %[[W:.*]] = memref.get_global @w_panels64 : memref<8x4x64xf32>
// CHECK: call @matmul_bias(%{{.*}}, %[[W]],
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#e = affine_map<(m, n) -> (m, n)>
#v = affine_map<(m, n) -> (n)>
memref.global "private" constant @w : memref<4x512xf32> = dense<1.0> {alignment = 64 : i64}
func.func private @matmul_bias(%A: memref<8x4xf32>, %B: memref<4x512xf32>, %bias: memref<512xf32>, %C: memref<8x512xf32>, %Y: memref<8x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x512xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x512xf32>) outs(%C : memref<8x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#e, #v, #e],
                  iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : memref<8x512xf32>, memref<512xf32>) outs(%Y : memref<8x512xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  return
}
func.func @main(%A: memref<8x4xf32>, %bias: memref<512xf32>, %Y: memref<8x512xf32>) {
  %B = memref.get_global @w : memref<4x512xf32>
  %C = memref.alloc() : memref<8x512xf32>
  call @matmul_bias(%A, %B, %bias, %C, %Y) : (memref<8x4xf32>, memref<4x512xf32>, memref<512xf32>, memref<8x512xf32>, memref<8x512xf32>) -> ()
  return
}

// -----

// B is not a constant (an activation): the rows still split in panels, and
// B is read in place.
// CHECK-LABEL: func.func private @matmul_activation(
// CHECK-SAME: %{{.*}}: memref<8x4xf32>, %[[B:.*]]: memref<4x512xf32>,
// CHECK-SAME: dlc.work_items = 32 : i64
// CHECK: memref.load %[[B]][%{{.*}}, %{{.*}}] : memref<4x512xf32>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @matmul_activation(%A: memref<8x4xf32>, %B: memref<4x512xf32>, %C: memref<8x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x512xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x512xf32>) outs(%C : memref<8x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row sum over the MatMul's output in the same work item reads its
// columns across the row: the columns are not independent, the kernel
// keeps one row a work item (and the long row is not blocked).
// CHECK-LABEL: func.func private @matmul_rowsum(
// CHECK-SAME: dlc.work_items = 8 : i64
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c512{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#e = affine_map<(m, n) -> (m, n)>
#r = affine_map<(m, n) -> (m)>
func.func private @matmul_rowsum(%A: memref<8x4xf32>, %B: memref<4x512xf32>, %C: memref<8x512xf32>, %S: memref<8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x512xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x512xf32>) outs(%C : memref<8x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%S : memref<8xf32>)
  linalg.generic {indexing_maps = [#e, #r],
                  iterator_types = ["parallel", "reduction"]}
      ins(%C : memref<8x512xf32>) outs(%S : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row of 128 columns fits registers already: no panels.
// CHECK-LABEL: func.func private @matmul_short(
// CHECK-SAME: dlc.work_items = 4 : i64
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c128{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @matmul_short(%A: memref<8x4xf32>, %B: memref<4x128xf32>, %C: memref<8x128xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x128xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x128xf32>) outs(%C : memref<8x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An integer MatMul on 16-bit weight pairs (dlc-convert-to-linalg
// pair-matmul-weights: w[2 k2 + q][n] at [k2, 2 n + q], rows padded to 544
// halves): the pairs are packed panel by panel too, B[k2, 2 n + q] ->
// B'[n / 64, k2, 2 (n % 64) + q], 128 halves a panel row; the padding past
// the 8 panels' 1024 columns is dropped.
// CHECK-LABEL: func.func private @matmul_pairs(
// CHECK-SAME: %[[B:[a-z0-9]+]]: memref<8x2x128xi16>
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[P:.*]] = arith.divsi %[[I]], %c4
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: scf.for %[[Q:[a-z0-9_]+]] =
// CHECK: scf.parallel (%{{.*}}, %[[C:[a-z0-9_]+]]) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c64{{.*}})
// CHECK: %[[L:.*]] = affine.apply #{{.*}}(%[[C]], %[[Q]])
// CHECK: memref.load %[[B]][%[[P]], %[[K]], %[[L]]] : memref<8x2x128xi16>
// CHECK-LABEL: func.func @main(
// CHECK: %[[W:.*]] = memref.get_global @pairs_panels64 : memref<8x2x128xi16>
// CHECK: call @matmul_pairs(%{{.*}}, %[[W]],
#a = affine_map<(m, n, k2, q) -> (m, k2 * 2 + q)>
#b = affine_map<(m, n, k2, q) -> (k2, n * 2 + q)>
#w = affine_map<(m, n, k2, q) -> (k2, q)>
#c = affine_map<(m, n, k2, q) -> (m, n)>
memref.global "private" constant @pairs : memref<2x1056xi16> = dense<3> {alignment = 64 : i64}
func.func private @matmul_pairs(%A: memref<8x4xi16>, %B: memref<2x1056xi16>, %W: memref<2x2xi8>, %C: memref<8x512xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%C : memref<8x512xi32>)
  linalg.generic {indexing_maps = [#a, #b, #w, #c],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%A, %B, %W : memref<8x4xi16>, memref<2x1056xi16>, memref<2x2xi8>) outs(%C : memref<8x512xi32>) {
  ^bb0(%x: i16, %y: i16, %e: i8, %acc: i32):
    %xe = arith.extsi %x : i16 to i32
    %ye = arith.extsi %y : i16 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
func.func @main(%A: memref<8x4xi16>, %C: memref<8x512xi32>) {
  %B = memref.get_global @pairs : memref<2x1056xi16>
  %W = memref.alloc() : memref<2x2xi8>
  call @matmul_pairs(%A, %B, %W, %C) : (memref<8x4xi16>, memref<2x1056xi16>, memref<2x2xi8>, memref<8x512xi32>) -> ()
  return
}

// -----

// A matrix-vector product (one row: a classifier's Gemm at batch 1): too
// few rows for the threads, but its 512 columns split in 8 panels of 64
// that are the work items (before: one output a work item, its K loop
// reading B a row apart).
// CHECK-LABEL: func.func private @matvec(
// CHECK-SAME: %{{.*}}: memref<1x4xf32>, %[[B:.*]]: memref<8x4x64xf32>,
// CHECK-SAME: dlc.work_items = 8 : i64
// CHECK: scf.parallel (%[[P:.*]]) =
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: scf.parallel (%[[C:[a-z0-9_]+]]) = (%{{.*}}) to (%c64{{.*}})
// CHECK: memref.load %[[B]][%[[P]], %[[K]], %[[C]]] : memref<8x4x64xf32>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @wv : memref<4x512xf32> = dense<1.0> {alignment = 64 : i64}
func.func private @matvec(%A: memref<1x4xf32>, %B: memref<4x512xf32>, %C: memref<1x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<1x512xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<1x4xf32>, memref<4x512xf32>) outs(%C : memref<1x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @main(%A: memref<1x4xf32>, %C: memref<1x512xf32>) {
  %B = memref.get_global @wv : memref<4x512xf32>
  call @matvec(%A, %B, %C) : (memref<1x4xf32>, memref<4x512xf32>, memref<1x512xf32>) -> ()
  return
}

// -----

// A matrix-vector product with a transposed B ([N, K]): as rows its lanes
// would read B a row apart; one output a work item reads it along K.
// CHECK-LABEL: func.func private @matvec_transposed(
// CHECK-SAME: dlc.work_items = 512 : i64
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @matvec_transposed(%A: memref<1x64xf32>, %B: memref<512x64xf32>, %C: memref<1x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<1x512xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<1x64xf32>, memref<512x64xf32>) outs(%C : memref<1x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A matrix-vector product whose output's last index is not its column (a
// [1, 512, 1] result): the row would not split into panels, and one row a
// work item would be one work item for all threads; it keeps one output a
// work item.
// CHECK-LABEL: func.func private @matvec_unsplittable(
// CHECK-SAME: dlc.work_items = 512 : i64
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n, 0)>
func.func private @matvec_unsplittable(%A: memref<1x4xf32>, %B: memref<4x512xf32>, %C: memref<1x512x1xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<1x512x1xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<1x4xf32>, memref<4x512xf32>) outs(%C : memref<1x512x1xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A byte MatMul's rows split in panels keep `row-block` under
// `byte-row-block`: 16 rows of BERT's int8 panels (4 tiles) ran a tile a
// pass where 8 ran two. 8 panels x 32 blocks of 2 rows.
// CHECK-LABEL: func.func private @byte_matmul_panels(
// CHECK-SAME: dlc.work_items = 256 : i64
// BYTE-LABEL: func.func private @byte_matmul_panels(
// BYTE-SAME: dlc.work_items = 256 : i64
// BYTE: scf.parallel ({{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c64{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @byte_matmul_panels(%A: memref<64x8xi8>, %B: memref<8x512xi8>, %C: memref<64x512xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<64x8xi8>, memref<8x512xi8>) outs(%C : memref<64x512xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
