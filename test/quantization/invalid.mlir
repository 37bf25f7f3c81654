// Verifier errors of the quantization ops.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @scale_extent(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %z: tensor<2xi8>) -> tensor<2x3xi8> {
  // expected-error @+2 {{scale must be rank 0 or 1-D with 3 elements, got 1-D with 2 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @zp_shape(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<i8>) -> tensor<2x3xi8> {
  // expected-error @+2 {{scale and zero point shapes differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @wrong_signedness(%x: tensor<3xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<3xi8> {
  // expected-error @+2 {{inferred type(s) 'tensor<3xui8>' are incompatible with return type(s) of operation 'tensor<3xi8>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<3xf32>, tensor<f32>, tensor<ui8>) -> tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

func.func @dq_zp_type(%x: tensor<3xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<3xf32> {
  // expected-error @+2 {{zero point must have the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.dequantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<3xi8>, tensor<f32>, tensor<ui8>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @matmul_k(%a: tensor<2x5xi8>, %b: tensor<4x6xi8>, %z: tensor<i8>) -> tensor<2x6xi32> {
  // expected-error @+2 {{contraction sizes differ: 5 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.matmul_integer %a, %b, %z, %z {rhs_transposed = false} : (tensor<2x5xi8>, tensor<4x6xi8>, tensor<i8>, tensor<i8>) -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}

// -----

func.func @requant_bias(%a: tensor<2x6xi32>, %b: tensor<2xi32>, %m: tensor<f32>, %z: tensor<i8>) -> tensor<2x6xi8> {
  // expected-error @+2 {{bias must be 1-D with 6 elements, got 1-D with 2 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.requantize %a, %b, %m, %z {axis = 1 : i64} : (tensor<2x6xi32>, tensor<2xi32>, tensor<f32>, tensor<i8>) -> tensor<2x6xi8>
  return %0 : tensor<2x6xi8>
}

// -----

func.func @float_input(%x: tensor<3xf32>, %s: tensor<f32>, %z: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer or 32-bit signless integer values}}
  %0 = dlc.dequantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<3xf32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// 16-bit grids are quantize_linear's and dequantize_linear's only: the
// integer kernels' epilogue stays 8-bit.
func.func @requantize_i16(%a: tensor<2x6xi32>, %m: tensor<f32>, %z: tensor<i16>) -> tensor<2x6xi16> {
  // expected-error @+1 {{operand #2 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer values}}
  %0 = dlc.requantize %a, %m, %z {axis = 1 : i64} : (tensor<2x6xi32>, tensor<f32>, tensor<i16>) -> tensor<2x6xi16>
  return %0 : tensor<2x6xi16>
}

// -----

func.func @quantize_i32(%x: tensor<3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<3xi32> {
  // expected-error @+1 {{operand #2 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer or 16-bit signless integer or 16-bit unsigned integer values}}
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<3xf32>, tensor<f32>, tensor<i32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
