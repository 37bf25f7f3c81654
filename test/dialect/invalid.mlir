// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @element_types(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.mul %a, %b : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{weight has 4 channels per group, input has 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_attrs(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{expected 2 strides and dilations and 4 pads}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{bias must be 1-D with 8 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @gemm_inner(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{inner dims differ: 8 vs 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+2 {{batch dims are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @batch_norm_channels(%y: tensor<1x4x2x2xf32>, %c: tensor<3xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{scale, bias, mean and variance must be 1-D with 4 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.batch_norm %y, %c, %c, %c, %c {epsilon = 1.0e-5 : f32} : (tensor<1x4x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

func.func @pool_pads(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+2 {{pads must be smaller than the window}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @reduce_axes(%x: tensor<1x2xf32>) -> tensor<1xf32> {
  // expected-error @+2 {{axis 1 repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.reduce_mean %x {axes = array<i64: 1, 1>, keepdims = false} : (tensor<1x2xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = dlc.softmax %x {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_scale(%x: tensor<2x8xf32>, %s: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{scale and bias must broadcast to the normalized dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{element count changes from 6 to 7}}
  %0 = dlc.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @bitcast_widths(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  // expected-error @+1 {{element types of different widths: 'f32' and 'i64'}}
  %0 = dlc.bitcast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @bitcast_shape(%x: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @+1 {{result shape differs from the input shape}}
  %0 = dlc.bitcast %x : (tensor<2x3xf32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @cast_shape(%x: tensor<2x3xf32>) -> tensor<6xi64> {
  // expected-error @+1 {{result shape differs from the input shape}}
  %0 = dlc.cast %x : (tensor<2x3xf32>) -> tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

// float8 only moves and converts: arithmetic does not take it.
func.func @add_float8(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = dlc.add %a, %a : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{perm is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.transpose %x {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{inputs differ in dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+2 {{axis 2 out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.gather %x, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{step must be non-zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.slice %x {starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shape_range(%x: tensor<4x2xf32>) -> tensor<3xi64> {
  // expected-error @+2 {{dims [0, 3) out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<4x2xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @where_types(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+2 {{x and y element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.where %c, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @compare_result(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = dlc.less %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @expand_shape(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{input shape does not broadcast to the shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.expand %a {shape = array<i64: 2, 4>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_elements_rank(%a: tensor<3x4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{indices rank differs from data rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.gather_elements %a, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @mod_types(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.mod %a, %b {fmod = false} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{axis 2 out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.reduce_max %a {axes = array<i64: 2>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @arg_max_result(%a: tensor<2x3xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = dlc.arg_max %a {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @pad_reflect(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{reflect pads of dim 1 must be smaller than the dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.pad %a {mode = "reflect", pads = array<i64: 0, 3, 0, 0>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @pad_mode(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{unknown mode 'mirror'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.pad %a {mode = "mirror", pads = array<i64: 1, 0>, value = 0.0 : f64} : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @cumsum_axis(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %0 = dlc.cumsum %a {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @cumprod_axis(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis -1 out of range for rank 1}}
  %0 = dlc.cumprod %a {axis = -1 : i64, exclusive = false, reverse = false} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bit_shift_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = dlc.bit_shift %a, %a {left = true} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @and_mixed(%a: tensor<2xi32>, %b: tensor<2xi64>) -> tensor<2xi32> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.and %a, %b : (tensor<2xi32>, tensor<2xi64>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @einsum_letter(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{letter 'j' labels dims of sizes 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @scatter_reduction(%d: tensor<3xf32>, %i: tensor<1x1xi64>, %u: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{unknown reduction 'sub'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.scatter_nd %d, %i, %u {reduction = "sub"} : (tensor<3xf32>, tensor<1x1xi64>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @resize_mode(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{unknown mode 'lanczos'}}
  %0 = dlc.resize %x {mode = "lanczos", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", scales = array<f64: 1.0, 2.0>} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

func.func @top_k_k(%x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  // expected-error @+2 {{k 4 exceeds the dim 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc.top_k %x {axis = 1 : i64, k = 4 : i64, largest = true} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<2x4xi64>
}

// -----

func.func @attention_head_size(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x5x8xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op key head size 5 differs from the query's 4}}
  %0 = dlc.attention %q, %kt, %v {k_transposed = true, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x5x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_keys(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x6x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op value has 6 keys, key has 8}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_rank(%q: tensor<2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op key must have the query's rank 3}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

func.func @attention_batch(%q: tensor<1x2x8x4xf32>, %k: tensor<1x3x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op key batch dim 1 (3) is neither the query's (2) nor 1}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x3x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_scale_alone(%q: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8> {
  // expected-error @+1 {{'dlc.attention' op result_scale and result_zero_point must be given together}}
  %0 = dlc.attention %q, %q, %q {k_transposed = false, scale = 1.0 : f32, result_scale = 0.5 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8>
  return %0 : tensor<1x2x8x4xi8>
}

// -----

func.func @attention_int_result(%q: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8> {
  // expected-error @+1 {{'dlc.attention' op an integer result needs result_scale and result_zero_point}}
  %0 = dlc.attention %q, %q, %q {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8>
  return %0 : tensor<1x2x8x4xi8>
}

// -----

func.func @attention_quantized_float(%q: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf16> {
  // expected-error @+1 {{'dlc.attention' op a quantized result (result_scale) must be i8, got 'f16'}}
  %0 = dlc.attention %q, %q, %q {k_transposed = false, scale = 1.0 : f32, result_scale = 0.5 : f32, result_zero_point = 0 : i64} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf16>
  return %0 : tensor<1x2x8x4xf16>
}

// -----

func.func @attention_result_scale(%q: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8> {
  // expected-error @+1 {{'dlc.attention' op result_scale must be finite and positive, got 0}}
  %0 = dlc.attention %q, %q, %q {k_transposed = false, scale = 1.0 : f32, result_scale = 0.0 : f32, result_zero_point = 0 : i64} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xi8>
  return %0 : tensor<1x2x8x4xi8>
}

// -----

func.func @attention_kernel_zero_point(%q: memref<1x2x8x4xf32>, %o: memref<1x2x8x4xi8>) {
  // expected-error @+1 {{'dlc.attention_kernel' op result_zero_point 200 is outside i8's [-128, 127]}}
  dlc.attention_kernel %q, %q, %q outs(%o : memref<1x2x8x4xi8>) {k_transposed = false, scale = 1.0 : f32, result_scale = 0.5 : f32, result_zero_point = 200 : i64} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %m: tensor<1x1x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op mask must broadcast to the scores [..., 8, 8]}}
  %0 = dlc.attention %q, %k, %v, %m {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_value_type(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf16>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op value must have the query's element type}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf16>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

// The mask may be stored in any float type (it is added in f32), not in an
// integer one.
func.func @attention_kernel_mask_type(%q: memref<1x2x8x4xf32>, %m: memref<1x1x1x8xi32>, %o: memref<1x2x8x4xf32>) {
  // expected-error @+1 {{'dlc.attention_kernel' op mask must be floating-point}}
  dlc.attention_kernel %q, %q, %q mask(%m : memref<1x1x1x8xi32>) outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return
}

// -----

func.func @attention_perm_repeats(%q: tensor<1x8x2x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op query_perm must be a permutation of the 4 dims}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, query_perm = array<i64: 0, 2, 2, 3>, scale = 1.0 : f32} : (tensor<1x8x2x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_perm_rank(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'dlc.attention' op result_perm must be a permutation of the 4 dims}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, result_perm = array<i64: 0, 1, 2>, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_perm_shape(%q: tensor<1x2x8x4xf32>, %k: tensor<1x8x2x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // The keys read through key_perm are [1, 2, 4, 8]: head size 8.
  // expected-error @+1 {{'dlc.attention' op key head size 8 differs from the query's 4}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, key_perm = array<i64: 0, 2, 3, 1>, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x8x2x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @attention_kernel_perm(%q: memref<1x2x8x4xf32>, %k: memref<1x2x8x4xf32>, %v: memref<1x2x8x4xf32>, %o: memref<1x2x8x4xf32>) {
  // expected-error @+1 {{value_perm must be a permutation of the 4 dims}}
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32, value_perm = array<i64: 0, 1, 2, 4>} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return
}

// -----

func.func @attention_kernel_result_layout(%q: memref<1x2x8x4xf32>, %k: memref<1x2x8x4xf32>, %v: memref<1x2x8x4xf32>, %o: memref<1x2x8x4xf32>) {
  // The result is stored [1, 8, 2, 4] under result_perm.
  // expected-error @+1 {{init must have shape 1x8x2x4}}
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, result_perm = array<i64: 0, 2, 1, 3>, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return
}

// -----

func.func @attention_result_type(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf64> {
  // expected-error @+1 {{'dlc.attention' op result must have shape 1x2x8x4 and element type 'f32' (or f16, bf16, f32)}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf64>
  return %0 : tensor<1x2x8x4xf64>
}

// -----

func.func @attention_result_shape(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{'dlc.attention' op result must have shape 1x2x8x4}}
  %0 = dlc.attention %q, %k, %v {k_transposed = false, scale = 1.0 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}

// -----

func.func @attention_kernel_init(%q: memref<1x2x8x4xf32>, %k: memref<1x2x8x4xf32>, %v: memref<1x2x8x3xf32>, %o: memref<1x2x8x4xf32>) {
  // expected-error @+1 {{init must have shape 1x2x8x3 and element type 'f32'}}
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x3xf32>
  return
}

// -----

func.func @attention_kernel_mixed(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %o: memref<1x2x8x4xf32>) {
  // expected-error @+1 {{operands must be all tensors or all buffers}}
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
  return
}

// -----

func.func @attention_kernel_result(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %o: tensor<1x2x8x4xf32>) {
  // expected-error @+1 {{on tensors returns its result}}
  dlc.attention_kernel %q, %k, %v outs(%o : tensor<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
  return
}

// -----

func.func @conv_channels_last_3d(%x: tensor<1x4x4x4x2xf32>, %w: tensor<3x1x1x1x2xf32>) -> tensor<1x4x4x4x3xf32> {
  // expected-error @+2 {{channels_last needs a 2-D convolution (rank 4), got rank 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x4x4x4x2xf32>, tensor<3x1x1x1x2xf32>) -> tensor<1x4x4x4x3xf32>
  return %0 : tensor<1x4x4x4x3xf32>
}

// -----

func.func @conv_integer_channels_last_1d(%x: tensor<1x8x2xi8>, %w: tensor<3x1x2xi8>, %zp: tensor<i8>) -> tensor<1x8x3xi32> {
  // expected-error @+2 {{channels_last needs a 2-D convolution (rank 4), got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv_integer %x, %w, %zp, %zp {channels_last, dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x8x2xi8>, tensor<3x1x2xi8>, tensor<i8>, tensor<i8>) -> tensor<1x8x3xi32>
  return %0 : tensor<1x8x3xi32>
}

// -----

func.func @max_pool_channels_last_1d(%x: tensor<1x8x2xf32>) -> tensor<1x8x2xf32> {
  // expected-error @+2 {{channels_last needs 2-D pooling (rank 4), got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.max_pool %x {ceil_mode = false, channels_last, dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x8x2xf32>) -> tensor<1x8x2xf32>
  return %0 : tensor<1x8x2xf32>
}

// -----

func.func @conv_channels_last_weight(%x: tensor<1x4x4x6xf32>, %w: tensor<3x6x1x1xf32>) -> tensor<1x4x4x3xf32> {
  // expected-error @+2 {{weight has 1 channels per group, input has 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x6xf32>, tensor<3x6x1x1xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

func.func @attention_select_innermost(%qkv: tensor<1x8x2x12xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{'dlc.attention' op key_select must be [dim, index] with dim below the innermost of the 4 dims and index within it}}
  %0 = dlc.attention %qkv, %qkv, %qkv {k_transposed = false, key_select = array<i64: 3, 1>, scale = 1.0 : f32} : (tensor<1x8x2x12xf32>, tensor<1x8x2x12xf32>, tensor<1x8x2x12xf32>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}

// -----

func.func @attention_select_index(%qkv: tensor<1x8x3x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{'dlc.attention' op value_select must be [dim, index] with dim below the innermost of the 5 dims and index within it}}
  %0 = dlc.attention %qkv, %qkv, %qkv {k_transposed = false, query_select = array<i64: 2, 0>, key_select = array<i64: 2, 1>, value_select = array<i64: 2, 3>, scale = 1.0 : f32} : (tensor<1x8x3x2x4xf32>, tensor<1x8x3x2x4xf32>, tensor<1x8x3x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}

// -----

func.func @attention_select_form(%qkv: tensor<1x8x3x2x4xf32>, %k: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{'dlc.attention' op query_select must be [dim, index] with dim below the innermost of the 5 dims and index within it}}
  %0 = dlc.attention %qkv, %k, %k {k_transposed = false, query_select = array<i64: 2, 0, 1>, scale = 1.0 : f32} : (tensor<1x8x3x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}

// -----

// Without its select, the operand has a dim too many.
func.func @attention_select_missing(%qkv: tensor<1x8x3x2x4xf32>, %k: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{'dlc.attention' op key must have the query's rank 5}}
  %0 = dlc.attention %qkv, %k, %k {k_transposed = false, scale = 1.0 : f32} : (tensor<1x8x3x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}

// -----

func.func @grid_sample_grid_shape(%x: tensor<1x3x4x5xf32>, %g: tensor<1x6x7x3xf32>) -> tensor<1x3x6x7xf32> {
  // expected-error @+1 {{grid must be [N, out..., 2]}}
  %0 = dlc.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x3x4x5xf32>, tensor<1x6x7x3xf32>) -> tensor<1x3x6x7xf32>
  return %0 : tensor<1x3x6x7xf32>
}

// -----

func.func @grid_sample_padding(%x: tensor<1x3x4x5xf32>, %g: tensor<1x6x7x2xf32>) -> tensor<1x3x6x7xf32> {
  // expected-error @+1 {{unknown padding_mode 'wrap'}}
  %0 = dlc.grid_sample %x, %g {mode = "linear", padding_mode = "wrap", align_corners = false} : (tensor<1x3x4x5xf32>, tensor<1x6x7x2xf32>) -> tensor<1x3x6x7xf32>
  return %0 : tensor<1x3x6x7xf32>
}

// -----

func.func @grid_sample_result(%x: tensor<1x3x4x5xf32>, %g: tensor<1x6x7x2xf32>) -> tensor<1x3x7x6xf32> {
  // expected-error @+1 {{result must be [N, C, out...]}}
  %0 = dlc.grid_sample %x, %g {mode = "nearest", padding_mode = "zeros", align_corners = false} : (tensor<1x3x4x5xf32>, tensor<1x6x7x2xf32>) -> tensor<1x3x7x6xf32>
  return %0 : tensor<1x3x7x6xf32>
}

// -----

func.func @resize_antialias_nearest(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{antialias applies to linear and cubic modes only}}
  %0 = dlc.resize %x {antialias = true, coordinate_transformation_mode = "half_pixel", mode = "nearest", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 0.5, 0.5>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @resize_crop_without_roi(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{roi must hold two values a dim exactly when coordinate_transformation_mode is tf_crop_and_resize}}
  %0 = dlc.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", mode = "linear", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 0.5, 0.5>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
