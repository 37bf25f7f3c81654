// RUN: dlc-opt %s --split-input-file --dlc-host-kernels | FileCheck %s

// An fma dlc writes itself (QuantizeLinear's exact quotient) lowers to the
// LLVM intrinsic, one instruction where the CPU has FMA: math with an LLVM
// intrinsic converts before the libm fallback, which made it a call of fmaf
// an element.
// CHECK-LABEL: llvm.func @exact_fma(
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.call @fmaf
func.func private @exact_fma(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = arith.constant 0.5 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %r = math.fma %v, %s, %v : f32
    memref.store %r, %b[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction to one value with minimumf stays llvm.intr.minimum (no
// compare and select, which LLVM's vectorizer would not take without nnan);
// exp is MLIR's polynomial, not a call of expf.
// CHECK-LABEL: llvm.func @min_of_exp(
// CHECK-NOT: llvm.call @expf
// CHECK: llvm.intr.minimum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NOT: llvm.fcmp
// CHECK: llvm.return
func.func private @min_of_exp(%a: memref<1024xf32>, %m: memref<f32>) attributes {dlc.kernel, dlc.work_items = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%w) = (%c0) to (%c1) step (%c1) {
    scf.for %i = %c0 to %c1024 step %c1 {
      %v = memref.load %a[%i] : memref<1024xf32>
      %e = math.exp %v : f32
      %acc = memref.load %m[] : memref<f32>
      %r = arith.minimumf %acc, %e : f32
      memref.store %r, %m[] : memref<f32>
    }
    scf.reduce
  }
  return
}
