// RUN: dlc-opt %s --dlc-host-kernels | FileCheck %s

// bf16 arithmetic and math functions compute in f32 on the host, and the
// conversions are integer bit operations: left to LLVM's x86 backend, bf16
// arithmetic is promoted with calls to __truncsfbf2, which libgcc lacks, and
// the model.so would not load. The emulation's extf/truncf pairs carry
// `contract`, so a chain of bf16 ops keeps f32 in between and rounds to bf16
// where it is stored. exp, in f32, is MLIR's polynomial approximation
// (dlc-expand-math), not a call of expf.
// CHECK-LABEL: llvm.func @k0(
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK: llvm.bitcast %[[X]] : bf16 to i16
// CHECK-NOT: llvm.call @expf
// CHECK: llvm.intr.floor(%{{.*}}) : (f32) -> f32
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: %[[Y:.*]] = llvm.bitcast %{{.*}} : i16 to bf16
// CHECK: llvm.store %[[Y]], %{{.*}} : bf16, !llvm.ptr
// CHECK-NOT: llvm.fpext
// CHECK-NOT: llvm.fptrunc
// CHECK-NOT: : bf16 to f32
func.func private @k0(%a: memref<64xbf16>, %b: memref<64xbf16>) attributes {dlc.kernel, dlc.work_items = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xbf16>
    %e = math.exp %v : bf16
    %s = arith.addf %e, %v : bf16
    %m = arith.mulf %s, %v : bf16
    memref.store %m, %b[%i] : memref<64xbf16>
    scf.reduce
  }
  return
}
