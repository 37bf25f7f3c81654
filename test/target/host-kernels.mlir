// RUN: dlc-opt %s --dlc-host-kernels | FileCheck %s

// The host form in the LLVM dialect: bare pointers for buffers, then the
// [begin, end) work item range the runtime's thread pool hands out; erf has
// no LLVM intrinsic: it becomes MLIR's polynomial approximation (arithmetic
// that LLVM vectorizes, its FMAs as products and sums that may contract),
// not a call of libm's erff an element.
// CHECK-NOT: @erff
// CHECK-LABEL: llvm.func @k0(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64)
// CHECK: llvm.icmp "slt"
// CHECK: llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NOT: llvm.call
// CHECK-NOT: scf.
func.func private @k0(%a: memref<1000xf32>, %b: memref<1000xf32>) attributes {dlc.kernel, dlc.work_items = 1000 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    %v = memref.load %a[%i] : memref<1000xf32>
    %e = math.erf %v : f32
    memref.store %e, %b[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}
