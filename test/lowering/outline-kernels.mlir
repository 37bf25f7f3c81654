// RUN: dlc-opt %s --split-input-file --dlc-outline-kernels --verify-diagnostics | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Each structured op becomes a private kernel taking whole buffers; scalar
// constants are cloned in, the model function keeps allocs and calls.
// CHECK-LABEL: func.func private @k0_relu(
// CHECK-SAME: %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {dlc.distinct_args, dlc.kernel, dlc.nodes = ["relu"]}
// CHECK: arith.constant 0.0
// CHECK: linalg.generic
// CHECK-LABEL: func.func private @k1_fill(
// CHECK-SAME: memref<4xf32>) attributes {dlc.distinct_args, dlc.kernel, dlc.nodes = ["fill"]}
// CHECK: linalg.fill
// CHECK-LABEL: func.func @main
// CHECK: %[[T:.*]] = memref.alloc
// CHECK: call @k0_relu(%arg0, %[[T]])
// CHECK: call @k1_fill(%arg1)
// CHECK-NOT: linalg.
func.func @main(%arg0: memref<4xf32>, %arg1: memref<4xf32>) {
  %cst = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%arg0 : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } loc("relu")
  linalg.fill ins(%cst : f32) outs(%arg1 : memref<4xf32>) loc("fill")
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// A buffer read through memref.load in the body (a gather) is an argument.
// CHECK-LABEL: func.func private @k0(
// CHECK-SAME: %{{.*}}: memref<2xindex>, %{{.*}}: memref<2xf32>, %{{.*}}: memref<8xf32>) attributes {dlc.distinct_args, dlc.kernel, dlc.nodes = []}
// CHECK: memref.load
// CHECK-LABEL: func.func @main
// CHECK: call @k0(%arg1, %arg2, %arg0)
func.func @main(%arg0: memref<8xf32>, %arg1: memref<2xindex>, %arg2: memref<2xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%arg1 : memref<2xindex>) outs(%arg2 : memref<2xf32>) {
  ^bb0(%i: index, %out: f32):
    %v = memref.load %arg0[%i] : memref<8xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Kernels take whole identity-layout buffers.
func.func @main(%arg0: memref<8xf32>, %arg1: memref<4xf32>) {
  %v = memref.subview %arg0[0] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2]>>
  // expected-error @+1 {{kernel operand of type 'memref<4xf32, strided<[2]>>' is not a static identity-layout buffer}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : memref<4xf32, strided<[2]>>) outs(%arg1 : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// A buffer and a view of it are the same memory: the kernel does not get
// dlc.distinct_args (so its arguments are not marked noalias).
// CHECK-LABEL: func.func private @k0(
// CHECK-SAME: attributes {dlc.kernel, dlc.nodes = []}
func.func @main(%arg0: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.collapse_shape %arg0 [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %t = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : memref<8xf32>) outs(%t : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = memref.load %arg0[%c0, %c0] : memref<2x4xf32>
    linalg.yield %x : f32
  }
  return
}

// -----

// dlc.attention_kernel on buffers is outlined like a linalg op, named after
// its last ONNX node.
// CHECK-LABEL: func.func private @k0_ctx(
// CHECK-SAME: %{{.*}}: memref<1x2x8x4xf32>, %{{.*}}: memref<1x2x4x8xf32>, %{{.*}}: memref<1x2x8x4xf32>, %{{.*}}: memref<1x1x1x8xf32>, %{{.*}}: memref<1x2x8x4xf32>)
// CHECK-SAME: dlc.distinct_args, dlc.kernel, dlc.nodes = ["qk", "ctx"]
// CHECK-NEXT: dlc.attention_kernel
// CHECK-LABEL: func.func @main
// CHECK: call @k0_ctx(
func.func @main(%q: memref<1x2x8x4xf32>, %kt: memref<1x2x4x8xf32>, %v: memref<1x2x8x4xf32>, %m: memref<1x1x1x8xf32>, %o: memref<1x2x8x4xf32>) {
  dlc.attention_kernel %q, %kt, %v mask(%m : memref<1x1x1x8xf32>) outs(%o : memref<1x2x8x4xf32>) {k_transposed = true, scale = 0.5 : f32} : memref<1x2x8x4xf32>, memref<1x2x4x8xf32>, memref<1x2x8x4xf32> loc(fused["qk", "ctx"])
  return
}
