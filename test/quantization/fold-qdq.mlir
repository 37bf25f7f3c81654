// RUN: dlc-opt %s --split-input-file --dlc-fold-qdq | FileCheck %s

// QDQ conv, weight per output channel, int32 bias on x_scale * w_scale[c]:
// conv_integer + requantize with multiplier x_scale * w_scale[c] / y_scale
// and the int32 bias as it is; the float dequantize ops die.
// CHECK-LABEL: func @conv_per_channel
// CHECK-NOT: dlc.conv %
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[10, -20]> : tensor<2xi32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0, %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x3x3xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x2x4x4xi32>
// CHECK: %[[R:.*]] = dlc.requantize %[[ACC]], %[[B]], %[[M]], %{{.*}} {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<i8>) -> tensor<1x2x4x4xi8>
// CHECK-NOT: dlc.dequantize_linear
// CHECK: return %[[R]]
func.func @conv_per_channel(%xq: tensor<1x3x4x4xi8>) -> tensor<1x2x4x4xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<-3> : tensor<i8>
  %wq = arith.constant dense<1> : tensor<2x3x3x3xi8>
  %ws = arith.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %bq = arith.constant dense<[10, -20]> : tensor<2xi32>
  %bs = arith.constant dense<[0.125, 0.0625]> : tensor<2xf32>
  %bz = arith.constant dense<0> : tensor<2xi32>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %yz = arith.constant dense<5> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %b = dlc.dequantize_linear %bq, %bs, %bz {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  %y = dlc.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %y, %ys, %yz {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q : tensor<1x2x4x4xi8>
}

// -----

// QDQ Gemm with transB (weight per output channel on its axis 0) and a
// float bias, result used in float: matmul_integer with rhs_transposed and
// the dequantizing epilogue (acc + round(b / (x_scale * w_scale[c]))) *
// x_scale * w_scale[c], the bias as the negated i32 zero point.
// CHECK-LABEL: func @gemm_transb_float_out
// CHECK-NOT: dlc.gemm
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<[-2, 4, -8]> : tensor<3xi32>
// CHECK: %[[ACC:.*]] = dlc.matmul_integer %arg0, %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed = true} : (tensor<2x4xui8>, tensor<3x4xi8>, tensor<ui8>, tensor<3xi8>) -> tensor<2x3xi32>
// CHECK: %[[R:.*]] = dlc.dequantize_linear %[[ACC]], %[[S]], %[[Z]] {axis = 1 : i64} : (tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @gemm_transb_float_out(%xq: tensor<2x4xui8>) -> tensor<2x3xf32> {
  %xs = arith.constant dense<1.0> : tensor<f32>
  %xz = arith.constant dense<128> : tensor<ui8>
  %wq = arith.constant dense<3> : tensor<3x4xi8>
  %ws = arith.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %wz = arith.constant dense<0> : tensor<3xi8>
  %b = arith.constant dense<[1.0, -1.0, 1.0]> : tensor<3xf32>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<3x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x4xf32>
  %y = dlc.gemm %x, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// QDQ Gemm with transB, per-tensor weight, quantized output: requantize
// with a rank-0 multiplier along axis 1.
// CHECK-LABEL: func @gemm_transb_requant
// CHECK-NOT: dlc.gemm
// CHECK: %[[ACC:.*]] = dlc.matmul_integer %arg0, {{.*}} {rhs_transposed = true} : (tensor<2x4xi8>, tensor<3x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x3xi32>
// CHECK: dlc.requantize %[[ACC]], %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xi32>, tensor<3xi32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
func.func @gemm_transb_requant(%xq: tensor<2x4xi8>) -> tensor<2x3xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<3> : tensor<3x4xi8>
  %ws = arith.constant dense<0.5> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %b = arith.constant dense<[1.0, -1.0, 1.0]> : tensor<3xf32>
  %ys = arith.constant dense<0.125> : tensor<f32>
  %yz = arith.constant dense<0> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<3x4xf32>
  %y = dlc.gemm %x, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %q = dlc.quantize_linear %y, %ys, %yz {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %q : tensor<2x3xi8>
}

// -----

// QDQ MatMul, weight per column: matmul_integer + requantize along the
// last axis. The float result also has a non-quantize use, which reads the
// dequantizing epilogue.
// CHECK-LABEL: func @matmul
// CHECK-NOT: dlc.matmul %
// CHECK: %[[ACC:.*]] = dlc.matmul_integer %arg0, {{.*}} {rhs_transposed = false} : (tensor<2x3x4xi8>, tensor<4x5xi8>, tensor<i8>, tensor<5xi8>) -> tensor<2x3x5xi32>
// CHECK-DAG: dlc.requantize %[[ACC]], %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x3x5xi32>, tensor<5xf32>, tensor<ui8>) -> tensor<2x3x5xui8>
// CHECK-DAG: dlc.dequantize_linear %[[ACC]], %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x3x5xi32>, tensor<5xf32>, tensor<5xi32>) -> tensor<2x3x5xf32>
func.func @matmul(%xq: tensor<2x3x4xi8>, %wq: tensor<4x5xi8>) -> (tensor<2x3x5xui8>, tensor<2x3x5xf32>) {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<1> : tensor<i8>
  %ws = arith.constant dense<[0.5, 0.25, 0.125, 1.0, 2.0]> : tensor<5xf32>
  %wz = arith.constant dense<0> : tensor<5xi8>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %yz = arith.constant dense<128> : tensor<ui8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<2x3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 1 : i64} : (tensor<4x5xi8>, tensor<5xf32>, tensor<5xi8>) -> tensor<4x5xf32>
  %y = dlc.matmul %x, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %q = dlc.quantize_linear %y, %ys, %yz {axis = 0 : i64} : (tensor<2x3x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3x5xui8>
  return %q, %y : tensor<2x3x5xui8>, tensor<2x3x5xf32>
}

// -----

// A scale that is not a constant: the conv stays float.
// CHECK-LABEL: func @non_constant_scale
// CHECK: dlc.dequantize_linear
// CHECK: dlc.conv %
// CHECK: dlc.quantize_linear
// CHECK-NOT: dlc.conv_integer
// CHECK-NOT: dlc.requantize
func.func @non_constant_scale(%xq: tensor<1x3x4x4xi8>, %xs: tensor<f32>) -> tensor<1x2x4x4xi8> {
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<1> : tensor<2x3x3x3xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %yz = arith.constant dense<0> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x3x3xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %y, %ys, %yz {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q : tensor<1x2x4x4xi8>
}
