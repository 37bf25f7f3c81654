// RUN: dlc-opt %s --split-input-file | dlc-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: dlc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = dlc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.relu
  %1 = dlc.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.clip {{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %2 = dlc.clip %1 {min = 0.0 : f64, max = 6.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Clip on integers (ui8 too), and min > max (ONNX: every element becomes max).
// CHECK-LABEL: func @clip_int
func.func @clip_int(%a: tensor<4xui8>, %b: tensor<4xi32>) -> (tensor<4xui8>, tensor<4xi32>) {
  // CHECK: dlc.clip %{{.*}} : (tensor<4xui8>) -> tensor<4xui8>
  %0 = dlc.clip %a {min = 2.0 : f64, max = 200.0 : f64} : (tensor<4xui8>) -> tensor<4xui8>
  // CHECK: dlc.clip %{{.*}} {max = 1.000000e+00 : f64, min = 2.000000e+00 : f64}
  %1 = dlc.clip %b {min = 2.0 : f64, max = 1.0 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xui8>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // CHECK: dlc.conv {{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  %0 = dlc.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func @linear
func.func @linear(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %m: tensor<2x4x8xf32>, %n: tensor<8x5xf32>) -> (tensor<4x16xf32>, tensor<2x4x5xf32>) {
  // CHECK: dlc.gemm
  %0 = dlc.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: dlc.matmul
  %1 = dlc.matmul %m, %n : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<2x4x5xf32>
}

// -----

// CHECK-LABEL: func @pool_reduce
func.func @pool_reduce(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) {
  // CHECK: dlc.max_pool
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: dlc.reduce_mean
  %1 = dlc.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
  return %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>
}

// -----

// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) -> (tensor<4x2x3xf32>, tensor<2x5x4xf32>, tensor<2x6x4xf32>, tensor<24xf32>, tensor<1x3x2xf32>) {
  // CHECK: dlc.transpose
  %0 = dlc.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: dlc.gather
  %1 = dlc.gather %x, %i {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  // CHECK: dlc.concat
  %2 = dlc.concat %x, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  // CHECK: dlc.reshape
  %3 = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  // CHECK: dlc.slice
  %4 = dlc.slice %x {starts = array<i64: 1, 0, 3>, ends = array<i64: 2, 3, -1>, steps = array<i64: 1, 1, -2>} : (tensor<2x3x4xf32>) -> tensor<1x3x2xf32>
  return %0, %1, %2, %3, %4 : tensor<4x2x3xf32>, tensor<2x5x4xf32>, tensor<2x6x4xf32>, tensor<24xf32>, tensor<1x3x2xf32>
}

// -----

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %c: tensor<4xf32>, %y: tensor<1x4x2x2xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x4x2x2xf32>) {
  // CHECK: dlc.softmax
  %0 = dlc.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: dlc.layer_norm
  %1 = dlc.layer_norm %x, %s, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // CHECK: dlc.batch_norm
  %2 = dlc.batch_norm %y, %c, %c, %c, %c {epsilon = 1.0e-5 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x4x2x2xf32>
}

// -----

// CHECK-LABEL: func @compare_logic
func.func @compare_logic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xi1>) -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi1>) {
  // CHECK: dlc.equal {{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = dlc.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: dlc.less_or_equal
  %1 = dlc.less_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: dlc.xor {{.*}} : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %2 = dlc.xor %1, %c : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  // CHECK: dlc.not
  %3 = dlc.not %2 : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: dlc.where {{.*}} : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = dlc.where %c, %b, %a : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.is_inf {{.*}} {detect_negative = true, detect_positive = false}
  %5 = dlc.is_inf %4 {detect_negative = true, detect_positive = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %6 = dlc.and %5, %3 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return %0, %4, %6 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func @expand_gather_elements
func.func @expand_gather_elements(%x: tensor<3x1xf32>, %i: tensor<2x4xi64>) -> (tensor<2x3x4xf32>, tensor<2x4xf32>) {
  // CHECK: dlc.expand {{.*}} {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %0 = dlc.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = dlc.reshape %0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: dlc.gather_elements {{.*}} {axis = 0 : i64} : (tensor<6x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  %2 = dlc.gather_elements %1, %i {axis = 0 : i64} : (tensor<6x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func @math_activations
func.func @math_activations(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  // CHECK: dlc.round
  %0 = dlc.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.prelu {{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = dlc.prelu %0, %s : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.selu {{.*}} {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32}
  %2 = dlc.selu %1 {alpha = 1.5 : f32, gamma = 2.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.gelu {{.*}} {tanh_approximation = true}
  %3 = dlc.gelu %2 {tanh_approximation = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.mod {{.*}} {fmod = true}
  %4 = dlc.mod %3, %s {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.abs {{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %5 = dlc.abs %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: dlc.mod {{.*}} {fmod = false}
  %6 = dlc.mod %5, %i {fmod = false} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %4, %6 : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x1x4xi64>, tensor<2x3x4xf32>) {
  // CHECK: dlc.reduce_sum {{.*}} {axes = array<i64: 1>, keepdims = false}
  %0 = dlc.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: dlc.reduce_log_sum_exp
  %1 = dlc.reduce_log_sum_exp %x {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: dlc.arg_max {{.*}} {axis = 1 : i64, keepdims = true, select_last_index = false}
  %2 = dlc.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: dlc.log_softmax {{.*}} {axis = 2 : i64}
  %3 = dlc.log_softmax %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x1x4xi64>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @data_movement_2
func.func @data_movement_2(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<4x3xf32>, tensor<3x7xf32>, tensor<2x3xf32>, tensor<4xi64>) {
  // CHECK: dlc.tile {{.*}} {repeats = array<i64: 2, 1>}
  %0 = dlc.tile %x {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: dlc.pad {{.*}} {mode = "edge", pads = array<i64: 1, 2, 0, 2>, value = 0.000000e+00 : f64}
  %1 = dlc.pad %x {mode = "edge", pads = array<i64: 1, 2, 0, 2>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<3x7xf32>
  // CHECK: dlc.trilu {{.*}} {k = 1 : i64, upper = true}
  %2 = dlc.trilu %x {upper = true, k = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: dlc.cumsum {{.*}} {axis = 0 : i64, exclusive = false, reverse = true}
  %3 = dlc.cumsum %i {axis = 0 : i64, exclusive = false, reverse = true} : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<3x7xf32>, tensor<2x3xf32>, tensor<4xi64>
}

// -----

// The logical ops are bitwise on integers; bit_shift broadcasts.
// CHECK-LABEL: func @bitwise
func.func @bitwise(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %u: tensor<4xui8>) -> (tensor<2x3xi32>, tensor<4xui8>, tensor<2x3xi32>) {
  // CHECK: dlc.and {{.*}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %0 = dlc.and %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: dlc.not {{.*}} : (tensor<4xui8>) -> tensor<4xui8>
  %1 = dlc.not %u : (tensor<4xui8>) -> tensor<4xui8>
  // CHECK: dlc.bit_shift {{.*}} {left = true} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %2 = dlc.bit_shift %0, %b {left = true} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: dlc.cumprod {{.*}} {axis = 1 : i64, exclusive = true, reverse = false}
  %3 = dlc.cumprod %2 {axis = 1 : i64, exclusive = true, reverse = false} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %3, %1, %0 : tensor<2x3xi32>, tensor<4xui8>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func @gather_scatter
func.func @gather_scatter(%d: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>, %v: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x1x3xf32>, tensor<4x4xf32>) {
  // CHECK: dlc.gather_nd {{.*}} {batch_dims = 0 : i64}
  %0 = dlc.gather_nd %d, %i {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  // CHECK: dlc.scatter_nd {{.*}} {reduction = "mul"}
  %1 = dlc.scatter_nd %d, %i, %u {reduction = "mul"} : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // CHECK: dlc.one_hot {{.*}} {axis = 2 : i64, depth = 3 : i64}
  %2 = dlc.one_hot %i, %v {axis = 2 : i64, depth = 3 : i64} : (tensor<2x1xi64>, tensor<2xf32>) -> tensor<2x1x3xf32>
  // CHECK: dlc.einsum {{.*}} {equation = "ij,ik->jk"}
  %3 = dlc.einsum %1, %1 {equation = "ij,ik->jk"} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x1x3xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func @resize_topk_conv_transpose
func.func @resize_topk_conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x2x2xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x3x1xi64>, tensor<1x4x6x6xf32>) {
  // CHECK: dlc.resize {{.*}} {coordinate_transformation_mode = "align_corners", mode = "linear", nearest_mode = "floor", scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>}
  %0 = dlc.resize %x {mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  // CHECK: dlc.top_k {{.*}} -> (tensor<1x2x3x1xf32>, tensor<1x2x3x1xi64>)
  %1:2 = dlc.top_k %x {axis = 3 : i64, k = 1 : i64, largest = true} : (tensor<1x2x3x3xf32>) -> (tensor<1x2x3x1xf32>, tensor<1x2x3x1xi64>)
  // CHECK: dlc.conv_transpose {{.*}} -> tensor<1x4x6x6xf32>
  %2 = dlc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x4x2x2xf32>) -> tensor<1x4x6x6xf32>
  return %0, %1#1, %2 : tensor<1x2x6x6xf32>, tensor<1x2x3x1xi64>, tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x1x8x3xf32>, %m: tensor<1x1x1x8xf32>, %bq: memref<1x2x8x4xf32>, %bk: memref<1x2x8x4xf32>, %bo: memref<1x2x8x4xf32>, %bi: memref<1x2x8x4xi8>) -> (tensor<1x2x8x3xf32>, tensor<1x2x8x3xf32>) {
  // CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {k_transposed = true, scale = 5.000000e-01 : f32}
  %0 = dlc.attention %q, %kt, %v, %m {k_transposed = true, scale = 0.5 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>, tensor<1x1x8x3xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x3xf32>
  // A half-precision result: computed in f32, rounded when stored.
  // CHECK: dlc.attention {{.*}} -> tensor<1x2x8x3xf16>
  %h = dlc.attention %q, %kt, %v, %m {k_transposed = true, scale = 0.5 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>, tensor<1x1x8x3xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x3xf16>
  // Half-precision q, k, v under an f32 mask (dlc-reduce-precision).
  // CHECK: dlc.attention {{.*}} : (tensor<1x2x8x4xf16>, tensor<1x2x4x8xf16>, tensor<1x1x8x3xf16>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x3xf16>
  %qh = dlc.cast %q : (tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf16>
  %kh = dlc.cast %kt : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf16>
  %vh = dlc.cast %v : (tensor<1x1x8x3xf32>) -> tensor<1x1x8x3xf16>
  %hh = dlc.attention %qh, %kh, %vh, %m {k_transposed = true, scale = 0.5 : f32} : (tensor<1x2x8x4xf16>, tensor<1x2x4x8xf16>, tensor<1x1x8x3xf16>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x3xf16>
  // An i8 result quantized when stored.
  // CHECK: dlc.attention {{.*}}result_scale = 2.500000e-01 : f32, result_zero_point = -5 : i64{{.*}} -> tensor<1x2x8x3xi8>
  %qi = dlc.attention %q, %kt, %v, %m {k_transposed = true, scale = 0.5 : f32, result_scale = 0.25 : f32, result_zero_point = -5 : i64} : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>, tensor<1x1x8x3xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x3xi8>
  // CHECK: dlc.attention_kernel {{.*}} outs(%{{.*}} : memref<1x2x8x4xi8>) {k_transposed = false, result_scale = 1.250000e-01 : f32, result_zero_point = 0 : i64
  dlc.attention_kernel %bq, %bk, %bk outs(%bi : memref<1x2x8x4xi8>) {k_transposed = false, scale = 0.5 : f32, result_scale = 0.125 : f32, result_zero_point = 0 : i64} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  // CHECK: dlc.attention_kernel %{{.*}} mask(%{{.*}} : tensor<1x1x1x8xf32>) outs(%{{.*}} : tensor<1x2x8x3xf32>)
  %e = tensor.empty() : tensor<1x2x8x3xf32>
  %1 = dlc.attention_kernel %q, %kt, %v mask(%m : tensor<1x1x1x8xf32>) outs(%e : tensor<1x2x8x3xf32>) {k_transposed = true, scale = 0.5 : f32} : tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>, tensor<1x1x8x3xf32> -> tensor<1x2x8x3xf32>
  // CHECK: dlc.attention_kernel %{{.*}} outs(%{{.*}} : memref<1x2x8x4xf32>) {k_transposed = false
  dlc.attention_kernel %bq, %bk, %bk outs(%bo : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  // Stored [B, S, H, D]: read as 8 heads of 2 rows.
  // CHECK: dlc.attention_kernel %{{.*}} outs(%{{.*}} : memref<1x2x8x4xf32>) {k_transposed = false, key_perm = array<i64: 0, 2, 1, 3>, query_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 1.000000e+00 : f32, value_perm = array<i64: 0, 2, 1, 3>}
  dlc.attention_kernel %bq, %bk, %bk outs(%bo : memref<1x2x8x4xf32>) {k_transposed = false, query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 1, 3>, value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return %0, %1 : tensor<1x2x8x3xf32>, tensor<1x2x8x3xf32>
}

// -----

// CHECK-LABEL: func @conv_channels_last
// CHECK: dlc.conv %arg0, %arg1, %arg2 {channels_last, {{.*}}} : (tensor<1x9x9x4xf32>, tensor<8x3x3x2xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
// CHECK: dlc.max_pool %{{.*}} {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x5x5x8xf32>) -> tensor<1x3x3x8xf32>
func.func @conv_channels_last(%x: tensor<1x9x9x4xf32>, %w: tensor<8x3x3x2xf32>, %b: tensor<8xf32>) -> tensor<1x3x3x8xf32> {
  %0 = dlc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x9x9x4xf32>, tensor<8x3x3x2xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
  %1 = dlc.max_pool %0 {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x5x8xf32>) -> tensor<1x3x3x8xf32>
  return %1 : tensor<1x3x3x8xf32>
}

// -----

// float8 moves and converts; Cast's saturate prints when it is false.
// CHECK-LABEL: func @float8
// CHECK: dlc.cast %{{.*}} {saturate = false} : (tensor<2x3xf32>) -> tensor<2x3xf8E5M2>
// CHECK: dlc.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<2x3xf8E5M2>) -> tensor<3x2xf8E5M2>
// CHECK: dlc.cast %{{.*}} : (tensor<3x2xf8E5M2>) -> tensor<3x2xf32>
func.func @float8(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = dlc.cast %x {saturate = false} : (tensor<2x3xf32>) -> tensor<2x3xf8E5M2>
  %1 = dlc.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xf8E5M2>) -> tensor<3x2xf8E5M2>
  %2 = dlc.cast %1 {saturate = true} : (tensor<3x2xf8E5M2>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}
