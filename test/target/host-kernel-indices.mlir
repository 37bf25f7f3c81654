// RUN: dlc-opt %s --dlc-host-kernels | FileCheck %s

// A linearized kernel's multi-dimensional accesses take the work item id
// apart with divisions. Ids are non-negative (the host form clamps its
// range to the work items), so the divisions become unsigned: LLVM folds
// (i / 256) * 256 + i % 256 back to i, and turns these into shifts and
// masks, where the signed forms (exact for negative i too) blocked
// vectorization.
// CHECK-LABEL: llvm.func @k0(
// CHECK-NOT: llvm.sdiv
// CHECK-NOT: llvm.srem
// CHECK: llvm.urem
// CHECK: llvm.udiv
// CHECK-NOT: llvm.sdiv
// CHECK-NOT: llvm.srem
// CHECK: llvm.return
func.func private @k0(%a: memref<4x256xf32>, %b: memref<4x256xf32>) attributes {dlc.distinct_args, dlc.kernel, dlc.work_items = 1024 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    %r = arith.remsi %i, %c256 : index
    %q = arith.divsi %i, %c256 : index
    %v = memref.load %a[%q, %r] : memref<4x256xf32>
    memref.store %v, %b[%q, %r] : memref<4x256xf32>
    scf.reduce
  }
  return
}
