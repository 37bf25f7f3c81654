// RUN: dlc-opt %s --split-input-file --dlc-interchange-element-loops | FileCheck %s

// A work item of a depthwise convolution: 4 consecutive channels, each a
// reduction over a 2-tap window into a private accumulator. The element
// loop moves inside the tap loop (one accumulator per element) and is
// unrolled: each tap's loads of the 4 channels are adjacent. The channel
// index (computed before the nest) is recomputed per element.
// CHECK-LABEL: func.func private @depthwise
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[ACCS:.*]] = memref.alloca() : memref<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ACCS]][%{{.*}}] : memref<4xf32>
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK-COUNT-4: memref.load %arg1[%[[T]], %{{.*}}] : memref<2x16xf16>
// CHECK: }
// CHECK-COUNT-4: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<16xf16>
// CHECK-NOT: scf.for
// CHECK: scf.reduce
func.func private @depthwise(%w: memref<2x16xf16>, %x: memref<2x16xf16>, %y: memref<16xf16>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %acc = memref.alloca() : memref<f32>
      %base = arith.muli %i, %c4 : index
      %ch = arith.addi %base, %e : index
      memref.store %zero, %acc[] : memref<f32>
      scf.for %t = %c0 to %c2 step %c1 {
        %a = memref.load %x[%t, %ch] : memref<2x16xf16>
        %b = memref.load %w[%t, %ch] : memref<2x16xf16>
        %s = memref.load %acc[] : memref<f32>
        %ae = arith.extf %a : f16 to f32
        %be = arith.extf %b : f16 to f32
        %p = arith.mulf %ae, %be : f32
        %n = arith.addf %s, %p : f32
        memref.store %n, %acc[] : memref<f32>
      }
      %r = memref.load %acc[] : memref<f32>
      %h = arith.truncf %r : f32 to f16
      memref.store %h, %y[%ch] : memref<16xf16>
    }
    scf.reduce
  }
  return
}

// -----

// Unchanged: the ops after the reduction store to a buffer the reduction
// reads (element 1's reduction would read what element 0 stored).
// CHECK-LABEL: func.func private @post_writes_input
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NEXT: memref.alloca() : memref<f32>
func.func private @post_writes_input(%x: memref<2x16xf16>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %acc = memref.alloca() : memref<f32>
      memref.store %zero, %acc[] : memref<f32>
      scf.for %t = %c0 to %c2 step %c1 {
        %a = memref.load %x[%t, %e] : memref<2x16xf16>
        %s = memref.load %acc[] : memref<f32>
        %ae = arith.extf %a : f16 to f32
        %n = arith.addf %s, %ae : f32
        memref.store %n, %acc[] : memref<f32>
      }
      %r = memref.load %acc[] : memref<f32>
      %h = arith.truncf %r : f32 to f16
      %e1 = arith.addi %e, %c1 : index
      memref.store %h, %x[%c0, %e1] : memref<2x16xf16>
    }
    scf.reduce
  }
  return
}

// -----

// Unchanged: the reduction stores to a buffer other than its accumulator,
// and, in the second kernel, arguments that may alias (no
// dlc.distinct_args).
// CHECK-LABEL: func.func private @nest_writes_memory
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NEXT: memref.alloca() : memref<f32>
// CHECK-LABEL: func.func private @may_alias
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NEXT: memref.alloca() : memref<f32>
func.func private @nest_writes_memory(%x: memref<2x16xf16>, %y: memref<16xf16>, %z: memref<16xf32>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %acc = memref.alloca() : memref<f32>
      memref.store %zero, %acc[] : memref<f32>
      scf.for %t = %c0 to %c2 step %c1 {
        %a = memref.load %x[%t, %e] : memref<2x16xf16>
        %s = memref.load %acc[] : memref<f32>
        %ae = arith.extf %a : f16 to f32
        %n = arith.addf %s, %ae : f32
        memref.store %n, %acc[] : memref<f32>
        memref.store %n, %z[%e] : memref<16xf32>
      }
      %r = memref.load %acc[] : memref<f32>
      %h = arith.truncf %r : f32 to f16
      memref.store %h, %y[%e] : memref<16xf16>
    }
    scf.reduce
  }
  return
}
func.func private @may_alias(%x: memref<2x16xf16>, %y: memref<16xf16>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %acc = memref.alloca() : memref<f32>
      memref.store %zero, %acc[] : memref<f32>
      scf.for %t = %c0 to %c2 step %c1 {
        %a = memref.load %x[%t, %e] : memref<2x16xf16>
        %s = memref.load %acc[] : memref<f32>
        %ae = arith.extf %a : f16 to f32
        %n = arith.addf %s, %ae : f32
        memref.store %n, %acc[] : memref<f32>
      }
      %r = memref.load %acc[] : memref<f32>
      %h = arith.truncf %r : f32 to f16
      memref.store %h, %y[%e] : memref<16xf16>
    }
    scf.reduce
  }
  return
}

// -----

// Unchanged: the accumulator is updated inside an scf.if of the reduction
// body, where the rewrite would not retarget it.
// CHECK-LABEL: func.func private @acc_in_region
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NEXT: memref.alloca() : memref<f32>
func.func private @acc_in_region(%x: memref<2x16xf16>, %y: memref<16xf16>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %acc = memref.alloca() : memref<f32>
      memref.store %zero, %acc[] : memref<f32>
      scf.for %t = %c0 to %c2 step %c1 {
        %a = memref.load %x[%t, %e] : memref<2x16xf16>
        %ae = arith.extf %a : f16 to f32
        %pos = arith.cmpf ogt, %ae, %zero : f32
        scf.if %pos {
          %s = memref.load %acc[] : memref<f32>
          %n = arith.addf %s, %ae : f32
          memref.store %n, %acc[] : memref<f32>
        }
      }
      %r = memref.load %acc[] : memref<f32>
      %h = arith.truncf %r : f32 to f16
      memref.store %h, %y[%e] : memref<16xf16>
    }
    scf.reduce
  }
  return
}

// -----

// An elementwise work item's element loop (no loop inside; the iteration
// stores element 4 * i + e) is unrolled as it is: its 4 stores of
// consecutive elements sit side by side for LLVM's store vectorizer. A
// loop of the same shape whose variable no store's innermost index takes
// (a reduction's taps) stays.
// CHECK-LABEL: func.func private @elementwise
// CHECK: scf.parallel
// CHECK-NOT: scf.for
// CHECK-COUNT-4: memref.store %{{.*}}, %arg1[%{{.*}}] : memref<16xf16>
// CHECK: scf.reduce
// CHECK-LABEL: func.func private @taps
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
func.func private @elementwise(%x: memref<16xf32>, %y: memref<16xf16>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %e = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c4 : index
      %ch = arith.addi %base, %e : index
      %v = memref.load %x[%ch] : memref<16xf32>
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %y[%ch] : memref<16xf16>
    }
    scf.reduce
  }
  return
}
func.func private @taps(%x: memref<4x4xf32>, %y: memref<4xf32>) attributes {dlc.distinct_args, dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %t = %c0 to %c4 step %c1 {
      %v = memref.load %x[%t, %i] : memref<4x4xf32>
      %s = memref.load %y[%i] : memref<4xf32>
      %n = arith.addf %s, %v : f32
      memref.store %n, %y[%i] : memref<4xf32>
    }
    scf.reduce
  }
  return
}
