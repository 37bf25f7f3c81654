// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 any-length-tiles=1" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16" | FileCheck %s --check-prefix=AVX2

// A plane conv's valid columns: 14 of each padded row of 16 copied out of
// the accumulator row with a ReLU. With AVX-512 the inner loop of 14 is
// one 16-lane tile under a mask of 14 lanes (LLVM vectorized the loop
// around it instead, a gather and a scatter every 8 elements); a dead
// 0-d alloca it stored to goes. Without AVX-512 masks it stays.
// CHECK-LABEL: func.func private @valid_columns(
// CHECK: scf.for %[[Y:.*]] = %c0 to %c14
// CHECK-NOT: scf.for
// CHECK-NOT: memref.alloca
// CHECK: %[[M:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false]> : vector<16xi1>
// CHECK: %[[B:.*]] = arith.muli %[[Y]], %c16
// CHECK: %[[I:.*]] = arith.addi %[[B]], %{{.*}} : index
// CHECK: %[[X:.*]] = vector.maskedload %arg0[%arg2, %[[I]]], %[[M]], %{{.*}} : memref<4x222xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[R:.*]] = arith.maximumf %[[X]], %{{.*}} : vector<16xf32>
// CHECK: vector.maskedstore %arg1[%arg2, %[[Y]], %{{.*}}], %[[M]], %[[R]] : memref<4x14x14xf32>, vector<16xi1>, vector<16xf32>
// AVX2-LABEL: func.func private @valid_columns(
// AVX2: scf.for
// AVX2: scf.for
// AVX2: memref.load
func.func private @valid_columns(%acc: memref<4x222xf32>, %out: memref<4x14x14xf32>, %k: index) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c14 = arith.constant 14 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.for %y = %c0 to %c14 step %c1 {
    scf.for %x = %c0 to %c14 step %c1 {
      %dead = memref.alloca() : memref<f32>
      %b = arith.muli %y, %c16 : index
      %i = arith.addi %b, %x : index
      %v = memref.load %acc[%k, %i] : memref<4x222xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %v, %dead[] : memref<f32>
      memref.store %r, %out[%k, %y, %x] : memref<4x14x14xf32>
    }
  }
  return
}

// -----

// What a tile cannot be stays a loop: the variable used as a value (an
// index_cast), an access along another dim, an i1 buffer (a byte an
// element), a buffer the loop both reads and writes, more than 16
// iterations.
// CHECK-LABEL: func.func private @kept(
// CHECK-COUNT-5: scf.for
// CHECK-NOT: vector.
func.func private @kept(%a: memref<32xf32>, %b: memref<32xi32>, %m: memref<32xi1>, %t: memref<16x16xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = arith.index_cast %i : index to i32
    memref.store %v, %b[%i] : memref<32xi32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %t[%i, %c0] : memref<16x16xf32>
    memref.store %v, %a[%i] : memref<32xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %m[%i] : memref<32xi1>
    %w = arith.extui %v : i1 to i32
    memref.store %w, %b[%i] : memref<32xi32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %j = arith.addi %i, %c8 : index
    %v = memref.load %a[%j] : memref<32xf32>
    memref.store %v, %a[%i] : memref<32xf32>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %a[%i] : memref<32xf32>
    %w = arith.fptosi %v : f32 to i32
    memref.store %w, %b[%i] : memref<32xi32>
  }
  return
}
