// RUN: dlc-opt %s --split-input-file --dlc-fold-constant-dequantize | FileCheck %s

// A per-channel int8 weight (axis 0) of a float conv: (q - zp[c]) * s[c]
// as one f32 constant, the dequantize gone.
// CHECK-LABEL: func @per_channel_weight
// CHECK-NOT: dlc.dequantize_linear
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}{{\[}}[-1.000000e+00, 0.000000e+00], [1.000000e+00, 2.000000e+00]], {{\[}}[7.500000e-01, 1.000000e+00], [1.250000e+00, 1.500000e+00]]]> : tensor<2x2x2xf32>
// CHECK: dlc.conv %arg0, %[[W]]
func.func @per_channel_weight(%x: tensor<1x2x4xf32>) -> tensor<1x2x3xf32> {
  %wq = arith.constant dense<[[[-1, 0], [1, 2]], [[3, 4], [5, 6]]]> : tensor<2x2x2xi8>
  %ws = arith.constant dense<[1.0, 0.25]> : tensor<2xf32>
  %wz = arith.constant dense<[0, 0]> : tensor<2xi8>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x2xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x2x2xf32>) -> tensor<1x2x3xf32>
  return %y : tensor<1x2x3xf32>
}

// -----

// Per axis on an inner dim (a MatMul weight [K, N], axis 1), uint16 with
// zero points near the top of its range.
// CHECK-LABEL: func @per_column_u16
// CHECK: arith.constant dense<{{\[}}[-2.000000e+00, 5.000000e-01, 0.000000e+00], [0.000000e+00, 0.000000e+00, 3.276700e+04]]> : tensor<2x3xf32>
// CHECK-NOT: dlc.dequantize_linear
func.func @per_column_u16() -> tensor<2x3xf32> {
  %q = arith.constant dense<[[65533, 1, 0], [65535, 0, 32767]]> : tensor<2x3xui16>
  %s = arith.constant dense<[1.0, 0.5, 1.0]> : tensor<3xf32>
  %z = arith.constant dense<[65535, 0, 0]> : tensor<3xui16>
  %w = dlc.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<2x3xui16>, tensor<3xf32>, tensor<3xui16>) -> tensor<2x3xf32>
  return %w : tensor<2x3xf32>
}

// -----

// A per-tensor i32 bias; a weight with more than 8 elements becomes a
// resource blob, as the importer stores weights.
// CHECK-LABEL: func @bias_and_blob
// CHECK-DAG: arith.constant dense<{{\[}}1.250000e+00, -2.500000e-01]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense_resource<dequantized{{.*}}> : tensor<16xf32>
// CHECK-NOT: dlc.dequantize_linear
func.func @bias_and_blob() -> (tensor<2xf32>, tensor<16xf32>) {
  %bq = arith.constant dense<[6, 0]> : tensor<2xi32>
  %bs = arith.constant dense<0.25> : tensor<f32>
  %bz = arith.constant dense<1> : tensor<i32>
  %b = dlc.dequantize_linear %bq, %bs, %bz {axis = 0 : i64} : (tensor<2xi32>, tensor<f32>, tensor<i32>) -> tensor<2xf32>
  %wq = arith.constant dense<3> : tensor<16xi8>
  %ws = arith.constant dense<0.5> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<16xi8>, tensor<f32>, tensor<i8>) -> tensor<16xf32>
  return %b, %w : tensor<2xf32>, tensor<16xf32>
}

// -----

// Not constants: an activation, a run-time scale, an f16 scale (the
// lowering multiplies in f16) keep their dequantize_linear.
// CHECK-LABEL: func @not_folded
// CHECK-COUNT-3: dlc.dequantize_linear
func.func @not_folded(%x: tensor<4xi8>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) {
  %q = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %s1 = arith.constant dense<0.5> : tensor<f32>
  %sh = arith.constant dense<0.5> : tensor<f16>
  %z = arith.constant dense<0> : tensor<i8>
  %a = dlc.dequantize_linear %x, %s1, %z {axis = 0 : i64} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %b = dlc.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %c = dlc.dequantize_linear %q, %sh, %z {axis = 0 : i64} : (tensor<4xi8>, tensor<f16>, tensor<i8>) -> tensor<4xf16>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>
}
