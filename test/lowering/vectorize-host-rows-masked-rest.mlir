// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 masked-rest=1" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16" | FileCheck %s --check-prefix=PIECES

// A conv row of 23 outputs: a full tile of 16 lanes, then the rest of 7 as
// one 8-lane tile whose accumulator, window row and result go under a mask
// of its 7 lanes (AVX2's vmaskmovps). A rest of at most half a tile shares
// the last full tile's pass of the reduction loops: one pass, where the
// halving pieces took four (16, 4, 2, 1).
// CHECK-LABEL: func.func private @rest_of_seven(
// CHECK: %[[A0:.*]] = vector.load %arg0{{.*}} vector<16xf32>
// CHECK: %[[M:.*]] = arith.constant dense<[true, true, true, true, true, true, true, false]> : vector<8xi1>
// CHECK: %[[A1:.*]] = vector.maskedload %arg0[%{{.*}}, %c16{{.*}}], %[[M]], %{{.*}} : memref<4x23xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[A0]], %{{.*}} = %[[A1]]) -> (vector<16xf32>, vector<8xf32>)
// CHECK: vector.load %arg1{{.*}} vector<16xf32>
// CHECK: vector.maskedload %arg1[{{.*}}], %{{.*}}, %{{.*}} : memref<4x25xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK: vector.store %[[R]]#0, %arg0{{.*}} vector<16xf32>
// CHECK: vector.maskedstore %arg0[%{{.*}}, %c16{{.*}}], %{{.*}}, %[[R]]#1 : memref<4x23xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NOT: scf.for
// CHECK-NOT: vector<4xf32>
// CHECK-NOT: vector<1xf32>
// CHECK-NOT: memref.store
// PIECES-LABEL: func.func private @rest_of_seven(
// PIECES-NOT: vector.maskedload
// PIECES: vector.store {{.*}} vector<16xf32>
// PIECES: vector.store {{.*}} vector<4xf32>
// PIECES: vector.store {{.*}} vector<2xf32>
// PIECES: vector.store {{.*}} vector<1xf32>
func.func private @rest_of_seven(%acc: memref<4x23xf32>, %in: memref<4x25xf32>, %w: memref<4x4x3xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c23 = arith.constant 23 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c3 step %c1 {
        scf.parallel (%j) = (%c0) to (%c23) step (%c1) {
          %jk = arith.addi %j, %k : index
          %x = memref.load %in[%c, %jk] : memref<4x25xf32>
          %wt = memref.load %w[%o, %c, %k] : memref<4x4x3xf32>
          %a = memref.load %acc[%o, %j] : memref<4x23xf32>
          %p = arith.mulf %x, %wt : f32
          %s = arith.addf %a, %p : f32
          memref.store %s, %acc[%o, %j] : memref<4x23xf32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// A rest of 13 (a row of 29) is more than half a tile: its own pass, one
// 16-lane tile under a mask of 13 lanes, after the full tile's.
// CHECK-LABEL: func.func private @rest_of_thirteen(
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.store {{.*}} vector<16xf32>
// CHECK: arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false]> : vector<16xi1>
// CHECK: vector.maskedload %arg0[%{{.*}}, %c16{{.*}}]
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.maskedload %arg1
// CHECK: vector.maskedstore %arg0[%{{.*}}, %c16{{.*}}]
func.func private @rest_of_thirteen(%acc: memref<4x29xf32>, %in: memref<4x29xf32>, %w: memref<4x4xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c29 = arith.constant 29 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c4 step %c1 {
      scf.parallel (%j) = (%c0) to (%c29) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<4x29xf32>
        %wt = memref.load %w[%o, %c] : memref<4x4xf32>
        %a = memref.load %acc[%o, %j] : memref<4x29xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x29xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A stride-2 row of 5 outputs (the rest is the whole row): its span of 9
// elements is a 16-element masked load, every second lane taken; the
// epilogue (a residual and a ReLU) reads and writes under the 5-lane mask.
// CHECK-LABEL: func.func private @strided_epilogue(
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: %[[SM:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false]> : vector<16xi1>
// CHECK: %[[SPAN:.*]] = vector.maskedload %arg1[{{.*}}], %[[SM]], %{{.*}} : memref<3x11xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: arith.constant dense<[true, true, true, true, true, false, false, false]> : vector<8xi1>
// CHECK: %[[RES:.*]] = vector.maskedload %arg3[{{.*}}], %{{.*}}, %{{.*}} : memref<4x5xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[RES]] : vector<8xf32>
// CHECK: %[[Y:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<8xf32>
// CHECK: vector.maskedstore %arg4[{{.*}}], %{{.*}}, %[[Y]] : memref<4x5xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NOT: memref.store
func.func private @strided_epilogue(%acc: memref<4x5xf32>, %in: memref<3x11xf32>, %w: memref<4x3xf32>, %res: memref<4x5xf32>, %out: memref<4x5xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c5 step %c1 {
      memref.store %zero, %acc[%o, %j] : memref<4x5xf32>
    }
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c5) step (%c1) {
        %j2 = arith.muli %j, %c2 : index
        %x = memref.load %in[%c, %j2] : memref<3x11xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x5xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x5xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c5 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x5xf32>
      %r = memref.load %res[%o, %j] : memref<4x5xf32>
      %s = arith.addf %a, %r : f32
      %y = arith.maximumf %s, %zero : f32
      memref.store %y, %out[%o, %j] : memref<4x5xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A row that reads bytes keeps the halving pieces: x86 has no masked byte
// loads before AVX-512 (LLVM would load them lane by lane, a branch each).
// CHECK-LABEL: func.func private @byte_row(
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.maskedstore
// CHECK: vector.load %arg1{{.*}} vector<16xi8>
// CHECK: vector.load %arg1{{.*}} vector<4xi8>
// CHECK: vector.load %arg1{{.*}} vector<2xi8>
func.func private @byte_row(%acc: memref<4x22xi32>, %in: memref<4x22xi8>, %w: memref<4x4xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c22 = arith.constant 22 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c4 step %c1 {
      scf.parallel (%j) = (%c0) to (%c22) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<4x22xi8>
        %xe = arith.extsi %x : i8 to i32
        %wt = memref.load %w[%o, %c] : memref<4x4xi32>
        %a = memref.load %acc[%o, %j] : memref<4x22xi32>
        %p = arith.muli %xe, %wt : i32
        %s = arith.addi %a, %p : i32
        memref.store %s, %acc[%o, %j] : memref<4x22xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
