// Marks dlc-quantize cannot honour are errors, never silent float layers.
// RUN: dlc-opt %s --split-input-file --dlc-quantize --verify-diagnostics

func.func @weight_not_constant(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x2xf32>) -> tensor<1x2x2x1xf32> {
  // expected-error @+1 {{cannot quantize: the weight is not an f32 constant}}
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<1x1x2x2xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// -----

func.func @range_count(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'dlc.input_ranges' has 1 ranges, but the op has 2 activation operands}}
  %y = dlc.matmul %a, %b {dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @range_order(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'dlc.input_ranges' holds [2.000000e+00, 1.000000e+00]: a range must be finite with lo <= hi}}
  %y = dlc.matmul %a, %w {dlc.input_ranges = [array<f32: 2.0, 1.0>]} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @range_form(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'dlc.input_ranges' must be an array of array<f32: lo, hi>}}
  %y = dlc.matmul %a, %w {dlc.input_ranges = [array<f32: 0.0, 1.0, 2.0>]} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @transposed_a(%a: tensor<2x1xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{cannot quantize: A is transposed or not a 2-D f32 tensor}}
  %y = dlc.gemm %a, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = false, dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @not_a_layer(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{cannot quantize: only dlc.conv, dlc.gemm, dlc.matmul and global average pools are quantized}}
  %y = dlc.relu %a {dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// An elided weight blob (lit output) has no data to quantize.
func.func @elided_weight(%a: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %w = arith.constant dense_resource<__elided__> : tensor<16x16xf32>
  // expected-error @+1 {{cannot quantize: B is not an f32 constant}}
  %y = dlc.gemm %a, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true, dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @output_range_order(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'dlc.output_range' must be a finite array<f32: lo, hi> with lo <= hi}}
  %y = dlc.matmul %a, %w {dlc.input_ranges = [array<f32: 0.0, 1.0>], dlc.output_range = array<f32: 3.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @output_range_alone(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'dlc.output_range' without 'dlc.input_ranges'}}
  %y = dlc.matmul %a, %w {dlc.output_range = array<f32: 0.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @mean_not_a_pool(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  // expected-error @+1 {{cannot quantize: the mean is not a global average pool (the H and W of an NCHW tensor)}}
  %m = dlc.reduce_mean %x {axes = array<i64: 1>, keepdims = true, dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %m : tensor<2x1x4xf32>
}
