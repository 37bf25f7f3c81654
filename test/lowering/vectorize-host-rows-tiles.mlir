// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 accumulators=4" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 accumulators=6" | FileCheck %s --check-prefix=SIX
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 accumulators=4 any-length-tiles=1" | FileCheck %s --check-prefix=REST

// A panel of 64 columns of a MatMul row (dlc-linearize-kernels row-panel:
// column p * 64 + c) in 2 copies (row-block): 4 tiles of 16 lanes, 2
// accumulators each. With 4 accumulators a pass, 2 tiles share each pass
// of the K loop (a register tile of 2 rows x 32 columns; the A element a
// step reads is the same for both tiles, one load after CSE), and the
// accumulators are loaded and stored at the panel's columns.
// CHECK-LABEL: func.func private @panel(
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[P:.*]] = arith.divsi %[[I]]
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
// CHECK: %[[T1:.*]] = arith.addi %[[T]], %c16
// CHECK: %[[FIRST:.*]] = arith.muli %[[P]], %c64
// CHECK: %[[N:.*]] = arith.addi %[[FIRST]], %[[T]]
// CHECK: vector.load %arg2[%{{.*}}, %[[N]]] : memref<4x512xf32>, vector<16xf32>
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK: scf.yield
// CHECK-COUNT-4: vector.store
// CHECK-NOT: vector.store
func.func private @panel(%A: memref<4x8xf32>, %B: memref<8x512xf32>, %C: memref<4x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %r = arith.remsi %i, %c2 : index
    %p = arith.divsi %i, %c2 : index
    %m0 = arith.muli %r, %c2 : index
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%u, %c) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
        %m = arith.addi %m0, %u : index
        %first = arith.muli %p, %c64 : index
        %n = arith.addi %first, %c : index
        %a = memref.load %A[%m, %k] : memref<4x8xf32>
        %b = memref.load %B[%k, %n] : memref<8x512xf32>
        %acc = memref.load %C[%m, %n] : memref<4x512xf32>
        %prod = arith.mulf %a, %b : f32
        %sum = arith.addf %acc, %prod : f32
        memref.store %sum, %C[%m, %n] : memref<4x512xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// 7 full tiles (a row of 112 in 2 copies) run in passes as even as the
// accumulators allow, not only in passes of a divisor of 7 (which would
// be 7 passes of one tile: a load or a broadcast for each FMA). With 4
// accumulators: 2, 2, 2 (a loop) and 1; with 6: 3, then 2 and 2 (a loop).
// CHECK-LABEL: func.func private @uneven_passes(
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c96{{.*}} step %c32
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK-NOT: scf.for
// CHECK: return
// SIX-LABEL: func.func private @uneven_passes(
// SIX: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// SIX: scf.for %[[T:.*]] = %c48{{.*}} to %c112{{.*}} step %c32
// SIX: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// SIX-NOT: scf.for
// SIX: return
func.func private @uneven_passes(%A: memref<4x8xf32>, %B: memref<8x112xf32>, %C: memref<4x112xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c112 = arith.constant 112 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %m0 = arith.muli %i, %c2 : index
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%u, %n) = (%c0, %c0) to (%c2, %c112) step (%c1, %c1) {
        %m = arith.addi %m0, %u : index
        %a = memref.load %A[%m, %k] : memref<4x8xf32>
        %b = memref.load %B[%k, %n] : memref<8x112xf32>
        %acc = memref.load %C[%m, %n] : memref<4x112xf32>
        %prod = arith.mulf %a, %b : f32
        %sum = arith.addf %acc, %prod : f32
        memref.store %sum, %C[%m, %n] : memref<4x112xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// With tiles of any length (AVX-512) a row's rest is one more tile of the
// last pass: a row of 28 in 2 copies is one pass of a 16-lane and a
// 12-lane tile (4 accumulators), where it ran a pass of each (2
// accumulators, a load and 2 broadcasts for 2 FMAs a step); a row of 56
// runs 2 passes, the second of a full tile and the 8-lane rest.
// REST-LABEL: func.func private @rest_in_pass(
// REST: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<12xf32>, vector<12xf32>)
// REST-COUNT-4: arith.mulf {{.*}} fastmath<contract>
// REST-NOT: arith.mulf
// REST: scf.yield
// REST-NOT: scf.for
// REST: return
// REST-LABEL: func.func private @rest_in_second_pass(
// REST: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// REST: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<8xf32>, vector<8xf32>)
// REST-NOT: scf.for
// REST: return
func.func private @rest_in_pass(%A: memref<4x8xf32>, %B: memref<8x28xf32>, %C: memref<4x28xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c28 = arith.constant 28 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %m0 = arith.muli %i, %c2 : index
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%u, %n) = (%c0, %c0) to (%c2, %c28) step (%c1, %c1) {
        %m = arith.addi %m0, %u : index
        %a = memref.load %A[%m, %k] : memref<4x8xf32>
        %b = memref.load %B[%k, %n] : memref<8x28xf32>
        %acc = memref.load %C[%m, %n] : memref<4x28xf32>
        %prod = arith.mulf %a, %b : f32
        %sum = arith.addf %acc, %prod : f32
        memref.store %sum, %C[%m, %n] : memref<4x28xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @rest_in_second_pass(%A: memref<4x8xf32>, %B: memref<8x56xf32>, %C: memref<4x56xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %m0 = arith.muli %i, %c2 : index
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%u, %n) = (%c0, %c0) to (%c2, %c56) step (%c1, %c1) {
        %m = arith.addi %m0, %u : index
        %a = memref.load %A[%m, %k] : memref<4x8xf32>
        %b = memref.load %B[%k, %n] : memref<8x56xf32>
        %acc = memref.load %C[%m, %n] : memref<4x56xf32>
        %prod = arith.mulf %a, %b : f32
        %sum = arith.addf %acc, %prod : f32
        memref.store %sum, %C[%m, %n] : memref<4x56xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
