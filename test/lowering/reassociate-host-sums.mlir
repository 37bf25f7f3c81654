// RUN: dlc-opt %s --split-input-file --dlc-reassociate-host-sums | FileCheck %s

// A Gemm output of a transposed B, one element a work item: its sum over
// K in a private scalar may reassociate (vector partial sums), its
// products contract.
// CHECK-LABEL: func.func private @dot(
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func private @dot(%a: memref<1x64xf32>, %b: memref<8x64xf32>, %y: memref<1x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n) = (%c0) to (%c8) step (%c1) {
    %slot = memref.alloca() : memref<f32>
    memref.store %zero, %slot[] : memref<f32>
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%c0, %k] : memref<1x64xf32>
      %w = memref.load %b[%n, %k] : memref<8x64xf32>
      %s = memref.load %slot[] : memref<f32>
      %p = arith.mulf %x, %w : f32
      %t = arith.addf %s, %p : f32
      memref.store %t, %slot[] : memref<f32>
    }
    %r = memref.load %slot[] : memref<f32>
    memref.store %r, %y[%c0, %n] : memref<1x8xf32>
    scf.reduce
  }
  return
}

// -----

// Not a carried sum: a running maximum, a sum stored to a buffer (not a
// private scalar), and a scale of the slot (online softmax's rescaling):
// no flags.
// CHECK-LABEL: func.func private @not_sums(
// CHECK-NOT: fastmath
func.func private @not_sums(%a: memref<64xf32>, %y: memref<2xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %slot = memref.alloca() : memref<f32>
  scf.for %k = %c0 to %c64 step %c1 {
    %x = memref.load %a[%k] : memref<64xf32>
    %m = memref.load %slot[] : memref<f32>
    %r = arith.maximumf %m, %x : f32
    memref.store %r, %slot[] : memref<f32>
  }
  scf.for %k = %c0 to %c64 step %c1 {
    %x = memref.load %a[%k] : memref<64xf32>
    %s = memref.load %y[%c0] : memref<2xf32>
    %t = arith.addf %s, %x : f32
    memref.store %t, %y[%c0] : memref<2xf32>
  }
  scf.for %k = %c0 to %c64 step %c1 {
    %x = memref.load %a[%k] : memref<64xf32>
    %s = memref.load %slot[] : memref<f32>
    %h = arith.mulf %s, %two : f32
    %t = arith.addf %h, %x : f32
    memref.store %t, %slot[] : memref<f32>
  }
  return
}
