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

// Passed twice by one of its calls (the private scalar would miss what the
// other argument reads and writes): kept, though also read after the kernel.
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

// -----

// A max pool reduces into its output, which later kernels read: the
// accesses go to a private scalar all the same, and its final value is
// stored to the element once, after the block's last access.
// CHECK-LABEL: func.func private @pool(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4x3x8xf16>, %[[Y:[a-z0-9]+]]: memref<4x8xf16>)
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[SLOT:.*]] = memref.alloca() : memref<f16>
// CHECK-NEXT: memref.store %{{.*}}, %[[SLOT]][] : memref<f16>
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[SLOT]][] : memref<f16>
// CHECK: memref.store %{{.*}}, %[[SLOT]][] : memref<f16>
// CHECK: }
// CHECK-NEXT: %[[FINAL:.*]] = memref.load %[[SLOT]][] : memref<f16>
// CHECK-NEXT: memref.store %[[FINAL]], %[[Y]][%{{.*}}, %[[C]]] : memref<4x8xf16>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @pool_main(
// CHECK: call @pool(%{{.*}}, %{{.*}})
func.func private @pool(%x: memref<4x3x8xf16>, %y: memref<4x8xf16>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFC00 : f16
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c8 step %c1 {
      memref.store %ninf, %y[%i, %c] : memref<4x8xf16>
      scf.for %k = %c0 to %c3 step %c1 {
        %a = memref.load %y[%i, %c] : memref<4x8xf16>
        %v = memref.load %x[%i, %k, %c] : memref<4x3x8xf16>
        %m = arith.maximumf %a, %v : f16
        memref.store %m, %y[%i, %c] : memref<4x8xf16>
      }
    }
    scf.reduce
  }
  return
}
func.func @pool_main(%x: memref<4x3x8xf16>) -> f16 {
  %c0 = arith.constant 0 : index
  %y = memref.alloc() : memref<4x8xf16>
  call @pool(%x, %y) : (memref<4x3x8xf16>, memref<4x8xf16>) -> ()
  %v = memref.load %y[%c0, %c0] : memref<4x8xf16>
  return %v : f16
}

// -----

// An output the kernel only writes (no reduction into it): left alone.
// CHECK-LABEL: func.func private @copy(
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<8xf32>
func.func private @copy(%x: memref<8xf32>, %y: memref<8xf32>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
func.func @copy_main(%x: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %y = memref.alloc() : memref<8xf32>
  call @copy(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  %v = memref.load %y[%c0] : memref<8xf32>
  return %v : f32
}
