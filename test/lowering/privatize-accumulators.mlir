// RUN: dlc-opt %s --split-input-file --dlc-privatize-accumulators | FileCheck %s

// A depthwise convolution's f32 accumulator, which only this kernel uses:
// every access is to one element per iteration of the channel loop, which
// starts it with a store. It becomes a private scalar; the argument and the
// caller's allocation (and its dealloc) go.
// CHECK-LABEL: func.func private @dw(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<4x8xf16>, %{{[a-z0-9]+}}: memref<4x8xf16>)
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK-NEXT: %[[SLOT:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %{{.*}}, %[[SLOT]][] : memref<f32>
// CHECK: scf.for
// CHECK: memref.load %[[SLOT]][] : memref<f32>
// CHECK: memref.store %{{.*}}, %[[SLOT]][] : memref<f32>
// CHECK: memref.load %[[SLOT]][] : memref<f32>
// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc()
// CHECK: call @dw(%arg0, %arg1)
// CHECK-NOT: memref.dealloc
func.func private @dw(%acc: memref<4x8xf32>, %x: memref<4x8xf16>, %y: memref<4x8xf16>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c8 step %c1 {
      memref.store %zero, %acc[%i, %c] : memref<4x8xf32>
      scf.for %k = %c0 to %c3 step %c1 {
        %a = memref.load %acc[%i, %c] : memref<4x8xf32>
        %v = memref.load %x[%i, %c] : memref<4x8xf16>
        %w = arith.extf %v : f16 to f32
        %s = arith.addf %a, %w : f32
        memref.store %s, %acc[%i, %c] : memref<4x8xf32>
      }
      %r = memref.load %acc[%i, %c] : memref<4x8xf32>
      %h = arith.truncf %r : f32 to f16
      memref.store %h, %y[%i, %c] : memref<4x8xf16>
    }
    scf.reduce
  }
  return
}
func.func @main(%x: memref<4x8xf16>, %y: memref<4x8xf16>) {
  %acc = memref.alloc() : memref<4x8xf32>
  call @dw(%acc, %x, %y) : (memref<4x8xf32>, memref<4x8xf16>, memref<4x8xf16>) -> ()
  memref.dealloc %acc : memref<4x8xf32>
  return
}

// -----

// The element is revisited across iterations of the loop around the one
// holding its accesses (k outside c): each run of that block begins by
// reading what an earlier one left, so the buffer stays.
// CHECK-LABEL: func.func private @k_outer(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<8xf32>,
// CHECK-NOT: memref.alloca
func.func private @k_outer(%acc: memref<8xf32>, %x: memref<8xf32>, %y: memref<8xf32>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    scf.for %k = %c0 to %c3 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %a = memref.load %acc[%c] : memref<8xf32>
        %v = memref.load %x[%c] : memref<8xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%c] : memref<8xf32>
      }
    }
    scf.reduce
  }
  return
}
func.func @main2(%x: memref<8xf32>, %y: memref<8xf32>) {
  %acc = memref.alloc() : memref<8xf32>
  call @k_outer(%acc, %x, %y) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Read after the kernel (not the call's alone), or passed twice: kept.
// CHECK-LABEL: func.func private @acc(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<8xf32>,
// CHECK-NOT: memref.alloca
// CHECK-LABEL: func.func @read_after(
// CHECK: call @acc(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: call @acc(%{{.*}}, %{{.*}}, %{{.*}})
func.func private @acc(%acc: memref<8xf32>, %x: memref<8xf32>, %y: memref<8xf32>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %acc[%i] : memref<8xf32>
    %a = memref.load %acc[%i] : memref<8xf32>
    %v = memref.load %x[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<8xf32>
    %r = memref.load %acc[%i] : memref<8xf32>
    memref.store %r, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
func.func @read_after(%x: memref<8xf32>, %y: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<8xf32>
  call @acc(%acc, %x, %y) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  %v = memref.load %acc[%c0] : memref<8xf32>
  %twice = memref.alloc() : memref<8xf32>
  call @acc(%twice, %twice, %y) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return %v : f32
}
