// RUN: dlc-opt %s --split-input-file --dlc-merge-launches | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-merge-launches="sink-barrier=true" | FileCheck %s --check-prefix=BARRIER

// Two CTA programs of one launch shape on disjoint data (both read %x):
// one kernel, CTAs [0, 2) the first program, [2, 5) the second at cta - 2.
// Arguments are concatenated; the second program's constant moves before
// the loop.
// CHECK-LABEL: func.func private @k0_a(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<8xf32>, %[[Y:[a-z0-9]+]]: memref<8xf32>, %[[X2:[a-z0-9]+]]: memref<8xf32>, %[[Z:[a-z0-9]+]]: memref<8xf32>)
// CHECK-SAME: dlc.cta_threads = 32 : i64
// CHECK-SAME: dlc.nodes = ["a", "b"]
// CHECK-SAME: dlc.work_items = 5 : i64
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.parallel (%[[CTA:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[CTA]], %[[C2]]
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.load %[[X]][%[[CTA]]]
// CHECK: memref.store {{.*}}, %[[Y]][%[[CTA]]]
// CHECK: } else {
// CHECK: %[[I:.*]] = arith.subi %[[CTA]], %[[C2]]
// CHECK: memref.load %[[X2]][%[[I]]]
// CHECK: memref.store {{.*}}, %[[Z]][%[[I]]]
// CHECK-LABEL: func.func @main
// CHECK: call @k0_a(%arg0, %arg1, %arg0, %arg2)
// CHECK-NOT: call
// On the GPU each branch ends with an empty side-effecting asm, different
// per branch, which keeps LLVM from sinking the programs' common tails
// (their epilogues) below the branch behind phis.
// BARRIER-LABEL: func.func private @k0_a(
// BARRIER: scf.if
// BARRIER: memref.store
// BARRIER-NEXT: llvm.inline_asm has_side_effects asm_dialect = att " ", ""  : () -> ()
// BARRIER: } else {
// BARRIER: memref.store
// BARRIER-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "  ", ""  : () -> ()
func.func private @k0_a(%x: memref<8xf32>, %y: memref<8xf32>) attributes {dlc.kernel, dlc.nodes = ["a"], dlc.work_items = 2 : i64, dlc.cta_threads = 32 : i64, dlc.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
  }
  return
}
func.func private @k1_b(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.nodes = ["b"], dlc.work_items = 3 : i64, dlc.cta_threads = 32 : i64, dlc.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %z[%i] : memref<8xf32>
  }
  return
}
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  call @k0_a(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  %a = memref.alloc() : memref<8xf32>
  call @k1_b(%x, %z) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// What keeps launches apart: the second reads what the first writes (a
// view of it); a different launch shape (threads, shared memory, cluster);
// a kernel that is no CTA program; an op touching data between two calls.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_a(%arg0, %arg1)
// CHECK-NEXT: memref.collapse_shape
// CHECK-NEXT: call @k1_b(%{{.*}}, %arg2)
// CHECK-NEXT: call @k2_c(%arg0, %arg3)
// CHECK-NEXT: call @k3_d(%arg0, %arg4)
// CHECK-NEXT: call @k4_e(%arg0, %arg5)
// CHECK-NEXT: call @k5_f(%arg0, %arg6)
// CHECK-NEXT: memref.copy
// CHECK-NEXT: call @k6_g(%arg0, %arg7)
// CHECK-NEXT: call @k7_h(%arg0, %arg8)
func.func private @k0_a(%x: memref<8xf32>, %y: memref<2x4xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%c0, %i] : memref<2x4xf32>
  }
  return
}
func.func private @k1_b(%y: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %y[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k2_c(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k3_d(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 64 : i64, dlc.shared_bytes = 1024 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k4_e(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 64 : i64, dlc.shared_bytes = 1024 : i64, dlc.cluster_ctas = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k5_f(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k6_g(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func private @k7_h(%x: memref<8xf32>, %z: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %z[%i] : memref<8xf32>
  }
  return
}
func.func @main(%x: memref<8xf32>, %y: memref<2x4xf32>, %z: memref<8xf32>, %z2: memref<8xf32>, %z3: memref<8xf32>, %z4: memref<8xf32>, %z5: memref<8xf32>, %z6: memref<8xf32>, %z7: memref<8xf32>) {
  call @k0_a(%x, %y) : (memref<8xf32>, memref<2x4xf32>) -> ()
  %yv = memref.collapse_shape %y [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  call @k1_b(%yv, %z) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k2_c(%x, %z2) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k3_d(%x, %z3) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k4_e(%x, %z4) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k5_f(%x, %z5) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.copy %z5, %z4 : memref<8xf32> to memref<8xf32>
  call @k6_g(%x, %z6) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k7_h(%x, %z7) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// One kernel launched twice on disjoint outputs: one launch running its
// program over CTAs [0, 2) and again over [2, 4); the kernel is replaced.
// CHECK-LABEL: func.func private @k0_a(
// CHECK-SAME: dlc.work_items = 4 : i64
// CHECK: scf.if
// CHECK: } else {
// CHECK: arith.subi
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main
// CHECK-NEXT: call @k0_a(%arg0, %arg1, %arg0, %arg2)
// CHECK-NEXT: return
func.func private @k0_a(%x: memref<8xf32>, %y: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 2 : i64, dlc.cta_threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
  }
  return
}
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  call @k0_a(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k0_a(%x, %z) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
