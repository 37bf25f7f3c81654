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

// -----

// 16 int8 channels (an int8 max pool's work item) are one 16-byte load;
// their stores one vector<16xi8> store.
// CHECK-LABEL: func.func private @int8(
// CHECK: vector.load %{{.*}} : memref<2x32xi8>, vector<16xi8>
// CHECK-NOT: memref.load
// CHECK: vector.store %{{.*}} : memref<2x32xi8>, vector<16xi8>
// CHECK-NOT: memref.store
func.func private @int8(%x: memref<2x32xi8>, %y: memref<2x32xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %b = arith.muli %i, %c16 : index
    %x0 = memref.load %x[%i, %b] : memref<2x32xi8>
    %c_1 = arith.constant 1 : index
    %b1 = arith.addi %b, %c_1 : index
    %x1 = memref.load %x[%i, %b1] : memref<2x32xi8>
    %c_2 = arith.constant 2 : index
    %b2 = arith.addi %b, %c_2 : index
    %x2 = memref.load %x[%i, %b2] : memref<2x32xi8>
    %c_3 = arith.constant 3 : index
    %b3 = arith.addi %b, %c_3 : index
    %x3 = memref.load %x[%i, %b3] : memref<2x32xi8>
    %c_4 = arith.constant 4 : index
    %b4 = arith.addi %b, %c_4 : index
    %x4 = memref.load %x[%i, %b4] : memref<2x32xi8>
    %c_5 = arith.constant 5 : index
    %b5 = arith.addi %b, %c_5 : index
    %x5 = memref.load %x[%i, %b5] : memref<2x32xi8>
    %c_6 = arith.constant 6 : index
    %b6 = arith.addi %b, %c_6 : index
    %x6 = memref.load %x[%i, %b6] : memref<2x32xi8>
    %c_7 = arith.constant 7 : index
    %b7 = arith.addi %b, %c_7 : index
    %x7 = memref.load %x[%i, %b7] : memref<2x32xi8>
    %c_8 = arith.constant 8 : index
    %b8 = arith.addi %b, %c_8 : index
    %x8 = memref.load %x[%i, %b8] : memref<2x32xi8>
    %c_9 = arith.constant 9 : index
    %b9 = arith.addi %b, %c_9 : index
    %x9 = memref.load %x[%i, %b9] : memref<2x32xi8>
    %c_10 = arith.constant 10 : index
    %b10 = arith.addi %b, %c_10 : index
    %x10 = memref.load %x[%i, %b10] : memref<2x32xi8>
    %c_11 = arith.constant 11 : index
    %b11 = arith.addi %b, %c_11 : index
    %x11 = memref.load %x[%i, %b11] : memref<2x32xi8>
    %c_12 = arith.constant 12 : index
    %b12 = arith.addi %b, %c_12 : index
    %x12 = memref.load %x[%i, %b12] : memref<2x32xi8>
    %c_13 = arith.constant 13 : index
    %b13 = arith.addi %b, %c_13 : index
    %x13 = memref.load %x[%i, %b13] : memref<2x32xi8>
    %c_14 = arith.constant 14 : index
    %b14 = arith.addi %b, %c_14 : index
    %x14 = memref.load %x[%i, %b14] : memref<2x32xi8>
    %c_15 = arith.constant 15 : index
    %b15 = arith.addi %b, %c_15 : index
    %x15 = memref.load %x[%i, %b15] : memref<2x32xi8>
    %m0 = arith.maxsi %x0, %x15 : i8
    memref.store %m0, %y[%i, %b] : memref<2x32xi8>
    %m1 = arith.maxsi %x1, %x14 : i8
    memref.store %m1, %y[%i, %b1] : memref<2x32xi8>
    %m2 = arith.maxsi %x2, %x13 : i8
    memref.store %m2, %y[%i, %b2] : memref<2x32xi8>
    %m3 = arith.maxsi %x3, %x12 : i8
    memref.store %m3, %y[%i, %b3] : memref<2x32xi8>
    %m4 = arith.maxsi %x4, %x11 : i8
    memref.store %m4, %y[%i, %b4] : memref<2x32xi8>
    %m5 = arith.maxsi %x5, %x10 : i8
    memref.store %m5, %y[%i, %b5] : memref<2x32xi8>
    %m6 = arith.maxsi %x6, %x9 : i8
    memref.store %m6, %y[%i, %b6] : memref<2x32xi8>
    %m7 = arith.maxsi %x7, %x8 : i8
    memref.store %m7, %y[%i, %b7] : memref<2x32xi8>
    %m8 = arith.maxsi %x8, %x7 : i8
    memref.store %m8, %y[%i, %b8] : memref<2x32xi8>
    %m9 = arith.maxsi %x9, %x6 : i8
    memref.store %m9, %y[%i, %b9] : memref<2x32xi8>
    %m10 = arith.maxsi %x10, %x5 : i8
    memref.store %m10, %y[%i, %b10] : memref<2x32xi8>
    %m11 = arith.maxsi %x11, %x4 : i8
    memref.store %m11, %y[%i, %b11] : memref<2x32xi8>
    %m12 = arith.maxsi %x12, %x3 : i8
    memref.store %m12, %y[%i, %b12] : memref<2x32xi8>
    %m13 = arith.maxsi %x13, %x2 : i8
    memref.store %m13, %y[%i, %b13] : memref<2x32xi8>
    %m14 = arith.maxsi %x14, %x1 : i8
    memref.store %m14, %y[%i, %b14] : memref<2x32xi8>
    %m15 = arith.maxsi %x15, %x0 : i8
    memref.store %m15, %y[%i, %b15] : memref<2x32xi8>
    scf.reduce
  }
  return
}
