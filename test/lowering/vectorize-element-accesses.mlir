// RUN: dlc-opt %s --split-input-file --dlc-vectorize-element-accesses | FileCheck %s

// A depthwise tap after dlc-interchange-element-loops: the loads of 8
// consecutive f16 channels from `base` become one 16-byte vector load, the
// stores of the 8 results one vector store where the last one was.
// CHECK-LABEL: func.func private @tap(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4x16xf16>, %[[Y:[a-z0-9]+]]: memref<4x16xf16>)
// CHECK: %[[BASE:.*]] = arith.muli
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[ROW:.*]], %[[BASE]]] : memref<4x16xf16>, vector<8xf16>
// CHECK-COUNT-8: vector.extract %[[V]][{{[0-7]}}] : f16 from vector<8xf16>
// CHECK-NOT: memref.load
// CHECK: %[[R:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK-NEXT: vector.store %[[R]], %[[Y]][%[[ROW]], %[[BASE]]] : memref<4x16xf16>, vector<8xf16>
// CHECK-NOT: memref.store
func.func private @tap(%x: memref<4x16xf16>, %y: memref<4x16xf16>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = arith.divui %i, %c2 : index
    %q = arith.remui %i, %c2 : index
    %b = arith.muli %q, %c8 : index
    %b1 = arith.addi %b, %c1 : index
    %b2 = arith.addi %b, %c2 : index
    %b3 = arith.addi %b, %c3 : index
    %b4 = arith.addi %b, %c4 : index
    %b5 = arith.addi %b, %c5 : index
    %b6 = arith.addi %b, %c6 : index
    %b7 = arith.addi %b, %c7 : index
    %x0 = memref.load %x[%r, %b] : memref<4x16xf16>
    %x1 = memref.load %x[%r, %b1] : memref<4x16xf16>
    %x2 = memref.load %x[%r, %b2] : memref<4x16xf16>
    %x3 = memref.load %x[%r, %b3] : memref<4x16xf16>
    %x4 = memref.load %x[%r, %b4] : memref<4x16xf16>
    %x5 = memref.load %x[%r, %b5] : memref<4x16xf16>
    %x6 = memref.load %x[%r, %b6] : memref<4x16xf16>
    %x7 = memref.load %x[%r, %b7] : memref<4x16xf16>
    %y0 = arith.negf %x0 : f16
    memref.store %y0, %y[%r, %b] : memref<4x16xf16>
    %y1 = arith.negf %x1 : f16
    memref.store %y1, %y[%r, %b1] : memref<4x16xf16>
    %y2 = arith.negf %x2 : f16
    memref.store %y2, %y[%r, %b2] : memref<4x16xf16>
    %y3 = arith.negf %x3 : f16
    memref.store %y3, %y[%r, %b3] : memref<4x16xf16>
    %y4 = arith.negf %x4 : f16
    memref.store %y4, %y[%r, %b4] : memref<4x16xf16>
    %y5 = arith.negf %x5 : f16
    memref.store %y5, %y[%r, %b5] : memref<4x16xf16>
    %y6 = arith.negf %x6 : f16
    memref.store %y6, %y[%r, %b6] : memref<4x16xf16>
    %y7 = arith.negf %x7 : f16
    memref.store %y7, %y[%r, %b7] : memref<4x16xf16>
    scf.reduce
  }
  return
}

// -----

// At most 16 bytes an access: 8 f32 are two vector<4xf32>. Offsets 1..6
// fill no aligned span of 4 (7 is missing): [2, 4) and [4, 6) become
// vector<2xf32>, 1 and 6 stay scalar.
// CHECK-LABEL: func.func private @widths(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<16xf32>, %[[Z:[a-z0-9]+]]: memref<16xf32>
// CHECK-DAG: vector.load %[[X]][%[[B:.*]]] : memref<16xf32>, vector<4xf32>
// CHECK-DAG: vector.load %[[X]][%{{.*}}] : memref<16xf32>, vector<4xf32>
// CHECK-DAG: memref.load %[[Z]][%{{.*}}] : memref<16xf32>
// CHECK-DAG: vector.load %[[Z]][%{{.*}}] : memref<16xf32>, vector<2xf32>
// CHECK-DAG: vector.load %[[Z]][%{{.*}}] : memref<16xf32>, vector<2xf32>
// CHECK-DAG: memref.load %[[Z]][%{{.*}}] : memref<16xf32>
func.func private @widths(%x: memref<16xf32>, %z: memref<16xf32>, %y: memref<2xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %b = arith.muli %i, %c8 : index
    %b1 = arith.addi %b, %c1 : index
    %b2 = arith.addi %b, %c2 : index
    %b3 = arith.addi %b, %c3 : index
    %b4 = arith.addi %b, %c4 : index
    %b5 = arith.addi %b, %c5 : index
    %b6 = arith.addi %b, %c6 : index
    %b7 = arith.addi %b, %c7 : index
    %x0 = memref.load %x[%b] : memref<16xf32>
    %x1 = memref.load %x[%b1] : memref<16xf32>
    %x2 = memref.load %x[%b2] : memref<16xf32>
    %x3 = memref.load %x[%b3] : memref<16xf32>
    %x4 = memref.load %x[%b4] : memref<16xf32>
    %x5 = memref.load %x[%b5] : memref<16xf32>
    %x6 = memref.load %x[%b6] : memref<16xf32>
    %x7 = memref.load %x[%b7] : memref<16xf32>
    %z1 = memref.load %z[%b1] : memref<16xf32>
    %z2 = memref.load %z[%b2] : memref<16xf32>
    %z3 = memref.load %z[%b3] : memref<16xf32>
    %z4 = memref.load %z[%b4] : memref<16xf32>
    %z5 = memref.load %z[%b5] : memref<16xf32>
    %z6 = memref.load %z[%b6] : memref<16xf32>
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %s0, %x2 : f32
    %s2 = arith.addf %s1, %x3 : f32
    %s3 = arith.addf %s2, %x4 : f32
    %s4 = arith.addf %s3, %x5 : f32
    %s5 = arith.addf %s4, %x6 : f32
    %s6 = arith.addf %s5, %x7 : f32
    %t0 = arith.addf %s6, %z1 : f32
    %t1 = arith.addf %t0, %z2 : f32
    %t2 = arith.addf %t1, %z3 : f32
    %t3 = arith.addf %t2, %z4 : f32
    %t4 = arith.addf %t3, %z5 : f32
    %t5 = arith.addf %t4, %z6 : f32
    memref.store %t5, %y[%i] : memref<2xf32>
    scf.reduce
  }
  return
}

// -----

// Not moved across an access that may touch the buffer: a store to the
// loaded buffer between the loads, a load of the stored buffer between the
// stores.
// CHECK-LABEL: func.func private @between(
// CHECK-NOT: vector.
// CHECK: return
func.func private @between(%x: memref<4xf32>, %y: memref<4xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %b = arith.muli %i, %c2 : index
    %b1 = arith.addi %b, %c1 : index
    %x0 = memref.load %x[%b] : memref<4xf32>
    memref.store %one, %x[%b] : memref<4xf32>
    %x1 = memref.load %x[%b1] : memref<4xf32>
    memref.store %x0, %y[%b] : memref<4xf32>
    %r = memref.load %y[%b] : memref<4xf32>
    %s = arith.addf %r, %x1 : f32
    memref.store %s, %y[%b1] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Kernels whose arguments may alias (no dlc.distinct_args) are left alone.
// CHECK-LABEL: func.func private @aliased(
// CHECK-NOT: vector.
// CHECK: return
func.func private @aliased(%x: memref<4xf32>, %y: memref<4xf32>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %b = arith.muli %i, %c2 : index
    %b1 = arith.addi %b, %c1 : index
    %x0 = memref.load %x[%b] : memref<4xf32>
    %x1 = memref.load %x[%b1] : memref<4xf32>
    memref.store %x1, %y[%b] : memref<4xf32>
    memref.store %x0, %y[%b1] : memref<4xf32>
    scf.reduce
  }
  return
}
