// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1" | FileCheck %s

// On the host (row work items), K stored with the head dim innermost
// ([batch, head, key, 5], k not transposed): each score is one dot product
// over the head dim, its sum carried through the loop with `reassoc` so
// that LLVM vectorizes it (the per-head-element order read k a key row
// apart for each element). Alone in its kernel, a work item takes the 8
// query rows of a head (up to 16): each key block is read for all of them
// in turn, their running max, sum and output rows in private memory.
// CHECK-LABEL: func.func private @k0
// CHECK-SAME: dlc.work_items = 2 : i64
// CHECK: memref.alloca() : memref<8x3xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c12 step %c4
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK: memref.load %{{.*}}[%[[R]]] : memref<8xf32>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[DOT:.*]] = scf.for %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f32)
// CHECK: memref.load %{{.*}} : memref<1x2x8x5xf32>
// CHECK: memref.load %{{.*}} : memref<1x2x12x5xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.addf %[[S]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK: memref.store %[[DOT]], %{{.*}}[%[[J]]] : memref<4xf32>
// CHECK: math.exp
// The block's exponentials are summed with `reassoc`, so that LLVM
// vectorizes that loop (its exp polynomial ran scalar).
// CHECK: math.exp
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// The value rows' products and sums may fuse into FMAs.
// CHECK: %[[PV:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %[[PV]] fastmath<contract> : f32
func.func private @k0(%q: memref<1x2x8x5xf32>, %k: memref<1x2x12x5xf32>, %v: memref<1x2x12x3xf32>, %o: memref<1x2x8x3xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x3xf32>) {k_transposed = false, scale = 0.5 : f32} : memref<1x2x8x5xf32>, memref<1x2x12x5xf32>, memref<1x2x12x3xf32>
  return
}

// -----

// K^T stored with the keys innermost ([batch, head, 5, key]): the score
// row is updated a head element at a time, unit-stride over the keys.
// CHECK-LABEL: func.func private @k1
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: memref.load %{{.*}} : memref<1x2x5x12xf32>
// CHECK-NOT: reassoc
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func private @k1(%q: memref<1x2x8x5xf32>, %k: memref<1x2x5x12xf32>, %v: memref<1x2x12x3xf32>, %o: memref<1x2x8x3xf32>) attributes {dlc.kernel} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x3xf32>) {k_transposed = true, scale = 0.5 : f32} : memref<1x2x8x5xf32>, memref<1x2x5x12xf32>, memref<1x2x12x3xf32>
  return
}
