// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 attention-tile=4" | FileCheck %s

// On the host with attention-tile, a work item's 16 query rows are vector
// lanes: q is copied transposed once (a column of the rows a vector), a key's 16 scores are FMAs of q's
// columns with the key's elements broadcast (4 keys a tile, carried in
// registers through the head dim), the softmax statistics are vectors, and
// the accumulator [value column, row] takes P . V as FMAs of a key's
// probabilities with v's broadcast elements (4 columns a tile). A mask
// that differs between rows is gathered a key at a time.
// CHECK-LABEL: func.func private @k0
// CHECK-SAME: dlc.work_items = 2 : i64
// CHECK: %[[QT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<5x16xf32>
// CHECK: %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK: memref.load %{{.*}} : memref<1x2x16x5xf32>
// CHECK: %[[QCOL:.*]] = vector.from_elements {{.*}} : vector<16xf32>
// CHECK: vector.store %[[QCOL]], %[[QT]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c24 step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[QC:.*]] = vector.load %[[QT]]
// CHECK: %[[KC:.*]] = memref.load %{{.*}} : memref<1x2x24x5xf32>
// CHECK: %[[KB:.*]] = vector.broadcast %[[KC]] : f32 to vector<16xf32>
// CHECK: arith.mulf %[[QC]], %[[KB]] fastmath<contract> : vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[S]]
// CHECK: memref.load %{{.*}} : memref<1x1x16x24xf32>
// CHECK: vector.from_elements {{.*}} : vector<16xf32>
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %[[S]]
// CHECK: memref.load %{{.*}} : memref<1x2x24x8xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[ACC]]
// Each row's output from its lane of the accumulator.
// CHECK: arith.divf
// CHECK: memref.load %[[ACC]][%{{.*}}, %{{.*}}] : memref<8x16xf32>
// CHECK: memref.store %{{.*}} : memref<1x2x16x8xf32>
func.func private @k0(%q: memref<1x2x16x5xf32>, %k: memref<1x2x24x5xf32>, %v: memref<1x2x24x8xf32>, %m: memref<1x1x16x24xf32>, %o: memref<1x2x16x8xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v mask(%m : memref<1x1x16x24xf32>) outs(%o : memref<1x2x16x8xf32>) {k_transposed = false, scale = 0.5 : f32} : memref<1x2x16x5xf32>, memref<1x2x24x5xf32>, memref<1x2x24x8xf32>
  return
}

// -----

// A mask that broadcasts along the rows (a key padding mask) is one
// element a key, broadcast; 8 rows are 8 lanes; 6 keys are one block of 2
// (a tile of 2), 3 value columns tiles of 1.
// CHECK-LABEL: func.func private @k1
// CHECK: memref.load %{{.*}} : memref<2x2x8x5xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>)
// CHECK: memref.load %{{.*}} : memref<1x2x5x6xf32>
// CHECK-NOT: vector.from_elements
// CHECK: memref.load %{{.*}} : memref<2x1x1x6xf32>
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<8xf32>
func.func private @k1(%q: memref<2x2x8x5xf32>, %kt: memref<1x2x5x6xf32>, %v: memref<2x1x6x3xf32>, %m: memref<2x1x1x6xf32>, %o: memref<2x2x8x3xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %kt, %v mask(%m : memref<2x1x1x6xf32>) outs(%o : memref<2x2x8x3xf32>) {k_transposed = true, scale = 0.5 : f32} : memref<2x2x8x5xf32>, memref<1x2x5x6xf32>, memref<2x1x6x3xf32>
  return
}

// -----

// Fewer than 8 rows a work item keep one dot product a score.
// CHECK-LABEL: func.func private @k2
// CHECK-NOT: vector
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func private @k2(%q: memref<1x2x4x5xf32>, %k: memref<1x2x12x5xf32>, %v: memref<1x2x12x3xf32>, %o: memref<1x2x4x3xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x4x3xf32>) {k_transposed = false, scale = 0.5 : f32} : memref<1x2x4x5xf32>, memref<1x2x12x5xf32>, memref<1x2x12x3xf32>
  return
}
