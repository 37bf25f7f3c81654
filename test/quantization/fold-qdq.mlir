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

// A scale that is not a constant: the conv stays float, marked with why
// (the report lists it).
// CHECK-LABEL: func @non_constant_scale
// CHECK: dlc.dequantize_linear
// CHECK: dlc.conv %{{.*}}dlc.not_folded = "operands are not constant-parameter dequantize_linear of i8/ui8"
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

// -----

//===----------------------------------------------------------------------===//
// Chaining: quantize_linear moves up through the ops that commute with it,
// so the producing layer requantizes and stores int8 for the next one.
//===----------------------------------------------------------------------===//

// conv -> Relu -> quantize -> dequantize -> conv: the first conv requantizes
// straight to the second one's input grid (multiplier 0.5 * 0.25 / 0.125),
// and the Relu is a clamp at the zero point (q(0) = 5) on i8.
// CHECK-LABEL: func @chain_relu
// CHECK-NOT: dlc.relu
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0
// CHECK: %[[R:.*]] = dlc.requantize %[[ACC]], %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
// CHECK: %[[C:.*]] = dlc.clip %[[R]] {max = 1.270000e+02 : f64, min = 5.000000e+00 : f64} : (tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8>
// CHECK: %[[ACC2:.*]] = dlc.conv_integer %[[C]]
// CHECK: dlc.requantize %[[ACC2]]
// CHECK-NOT: dlc.quantize_linear
// CHECK-NOT: dlc.dequantize_linear
func.func @chain_relu(%xq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<5> : tensor<i8>
  %s2 = arith.constant dense<0.5> : tensor<f32>
  %z2 = arith.constant dense<-7> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %r, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %d = dlc.dequantize_linear %q, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %y2 = dlc.conv %d, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %q2 = dlc.quantize_linear %y2, %s2, %z2 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q2 : tensor<1x2x4x4xi8>
}

// -----

// The QDQ form of a stem (ONNX Runtime's quantizer): quantize -> dequantize
// -> MaxPool -> quantize on the same grid. The pairs cancel and the pooling
// runs on the conv's int8 result.
// CHECK-LABEL: func @chain_maxpool
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0
// CHECK: %[[R:.*]] = dlc.requantize %[[ACC]]{{.*}} -> tensor<1x2x4x4xui8>
// CHECK-NOT: dlc.dequantize_linear
// CHECK: %[[P:.*]] = dlc.max_pool %[[R]] {{.*}} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
// CHECK-NOT: dlc.quantize_linear
// CHECK: dlc.conv_integer %[[P]]
func.func @chain_maxpool(%xq: tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xf32> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<0> : tensor<ui8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %y, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %d = dlc.dequantize_linear %q, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %p = dlc.max_pool %d {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %pq = dlc.quantize_linear %p, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %pd = dlc.dequantize_linear %pq, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
  %y2 = dlc.conv %pd, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %y2 : tensor<1x2x2x2xf32>
}

// -----

// Clip(0, 6) and a Reshape between the conv and its quantize, the int8
// result returned: the Clip's bounds are quantized (q(0) = -100,
// q(6) = 6 / 0.05 - 100 = 20) and both run on i8.
// CHECK-LABEL: func @chain_clip_reshape
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0
// CHECK: %[[R:.*]] = dlc.requantize %[[ACC]]{{.*}} -> tensor<1x2x4x4xi8>
// CHECK: %[[C:.*]] = dlc.clip %[[R]] {max = 2.000000e+01 : f64, min = -1.000000e+02 : f64}
// CHECK: %[[F:.*]] = dlc.reshape %[[C]] : (tensor<1x2x4x4xi8>) -> tensor<1x32xi8>
// CHECK: return %[[F]]
func.func @chain_clip_reshape(%xq: tensor<1x2x4x4xi8>) -> tensor<1x32xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %s1 = arith.constant dense<0.05> : tensor<f32>
  %z1 = arith.constant dense<-100> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = dlc.clip %y {max = 6.0 : f64, min = 0.0 : f64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %f = dlc.reshape %c : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %q = dlc.quantize_linear %f, %s1, %z1 {axis = 0 : i64} : (tensor<1x32xf32>, tensor<f32>, tensor<i8>) -> tensor<1x32xi8>
  return %q : tensor<1x32xi8>
}

// -----

// Concat of two quantized branches on the same grid: each conv requantizes
// to it and the concatenation moves int8.
// CHECK-LABEL: func @chain_concat
// CHECK: %[[A:.*]] = dlc.conv_integer %arg0
// CHECK: %[[RA:.*]] = dlc.requantize %[[A]]{{.*}} -> tensor<1x2x4x4xi8>
// CHECK: %[[B:.*]] = dlc.conv_integer %arg0
// CHECK: %[[RB:.*]] = dlc.requantize %[[B]]{{.*}} -> tensor<1x2x4x4xi8>
// CHECK: %[[C:.*]] = dlc.concat %[[RA]], %[[RB]] {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>) -> tensor<1x4x4x4xi8>
// CHECK: return %[[C]]
func.func @chain_concat(%xq: tensor<1x2x4x4xi8>) -> tensor<1x4x4x4xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %wq2 = arith.constant dense<[[[[5]], [[-2]]], [[[3]], [[1]]]]> : tensor<2x2x1x1xi8>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<3> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %w2 = dlc.dequantize_linear %wq2, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %a = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = dlc.conv %x, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %aq = dlc.quantize_linear %a, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %ad = dlc.dequantize_linear %aq, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %c = dlc.concat %ad, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q = dlc.quantize_linear %c, %s1, %z1 {axis = 0 : i64} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  return %q : tensor<1x4x4x4xi8>
}

// -----

// Not chained: the conv's float result also feeds an fp32 op (Sigmoid), so
// it is stored in f32 anyway; the conv keeps its dequantizing epilogue and
// the Relu and the quantize stay float.
// CHECK-LABEL: func @no_chain_fp32_reader
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0
// CHECK: %[[Y:.*]] = dlc.dequantize_linear %[[ACC]]{{.*}} -> tensor<1x2x4x4xf32>
// CHECK-NOT: dlc.requantize
// CHECK: %[[R:.*]] = dlc.relu %[[Y]]
// CHECK: dlc.quantize_linear %[[R]]
// CHECK: dlc.sigmoid %[[Y]]
func.func @no_chain_fp32_reader(%xq: tensor<1x2x4x4xi8>) -> (tensor<1x2x4x4xi8>, tensor<1x2x4x4xf32>) {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<5> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %r, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %g = dlc.sigmoid %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %q, %g : tensor<1x2x4x4xi8>, tensor<1x2x4x4xf32>
}

// -----

// Not chained: the Relu's float result is a model output, so it must exist
// in f32; the quantize reads it.
// CHECK-LABEL: func @no_chain_model_output
// CHECK: dlc.conv_integer
// CHECK-NOT: dlc.requantize
// CHECK: %[[R:.*]] = dlc.relu
// CHECK: %[[Q:.*]] = dlc.quantize_linear %[[R]]
// CHECK: return %[[Q]], %[[R]]
func.func @no_chain_model_output(%xq: tensor<1x2x4x4xi8>) -> (tensor<1x2x4x4xi8>, tensor<1x2x4x4xf32>) {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<0.25> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<5> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %r, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q, %r : tensor<1x2x4x4xi8>, tensor<1x2x4x4xf32>
}

// -----

// Not chained: the MaxPool's output grid (scale 0.25) differs from its
// input's (0.125), so pooling the int8 values would need a requantize of
// its own; and a Relu of a graph input has no integer producer to move the
// quantize into. Both stay float.
// CHECK-LABEL: func @no_chain_other_grid
// CHECK: dlc.dequantize_linear %arg0
// CHECK: dlc.max_pool {{.*}} -> tensor<1x2x2x2xf32>
// CHECK: dlc.quantize_linear
// CHECK: dlc.relu %arg1
// CHECK: dlc.quantize_linear
func.func @no_chain_other_grid(%xq: tensor<1x2x4x4xi8>, %v: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xi8>, tensor<1x2x4x4xi8>) {
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %s2 = arith.constant dense<0.25> : tensor<f32>
  %z1 = arith.constant dense<0> : tensor<i8>
  %d = dlc.dequantize_linear %xq, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %p = dlc.max_pool %d {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %pq = dlc.quantize_linear %p, %s2, %z1 {axis = 0 : i64} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %r = dlc.relu %v : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %rq = dlc.quantize_linear %r, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %pq, %rq : tensor<1x2x2x2xi8>, tensor<1x2x4x4xi8>
}

// -----

// A layer left in float (a kept stem) read only through Relu and MaxPool by
// a quantize: the quantize moves up to the float conv, whose epilogue then
// stores int8, and the MaxPool pools int8 (the Relu is the quantize's
// saturation at zero point -128). No f32 tensor between the kernels.
// CHECK-LABEL: func @float_layer_chain
// CHECK: %[[Y:.*]] = dlc.conv %arg0
// CHECK-NEXT: %[[Q:.*]] = dlc.quantize_linear %[[Y]]
// CHECK-NOT: dlc.relu
// CHECK: %[[P:.*]] = dlc.max_pool %[[Q]] {{.*}} : (tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi8>
// CHECK: return %[[P]]
func.func @float_layer_chain(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xi8> {
  %w = arith.constant dense<[[[[1.0]], [[2.0]]], [[[-3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %s1 = arith.constant dense<0.125> : tensor<f32>
  %z1 = arith.constant dense<-128> : tensor<i8>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dlc.max_pool %r {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %q = dlc.quantize_linear %p, %s1, %z1 {axis = 0 : i64} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  return %q : tensor<1x2x2x2xi8>
}

// -----

// A residual block's epilogue: the conv's dequantizing epilogue (scale
// x_scale * w_scale[c] = [0.125, 0.0625]) plus a dequantized residual
// (0.5), a Relu, the quantize (0.25). The quantize's scale joins the
// addends' ([0.5, 0.25] and 2.0) and the quantize is left on scale 1.
// CHECK-LABEL: func @rescaled_residual
// CHECK-DAG: %[[SA:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[SR:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[ACC:.*]] = dlc.conv_integer %arg0
// CHECK: %[[A:.*]] = dlc.dequantize_linear %[[ACC]], %[[SA]], %{{.*}} {axis = 1 : i64}
// CHECK: %[[B:.*]] = dlc.dequantize_linear %arg1, %[[SR]], %{{.*}} {axis = 0 : i64}
// CHECK: %[[S:.*]] = dlc.add %[[A]], %[[B]]
// CHECK: %[[R:.*]] = dlc.relu %[[S]]
// CHECK: %[[Q:.*]] = dlc.quantize_linear %[[R]], %[[ONE]], %{{.*}} {axis = 0 : i64}
// CHECK: return %[[Q]]
func.func @rescaled_residual(%xq: tensor<1x2x4x4xi8>, %rq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8> {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = arith.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %rs = arith.constant dense<0.5> : tensor<f32>
  %rz = arith.constant dense<-7> : tensor<i8>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %yz = arith.constant dense<-128> : tensor<i8>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x1x1xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.dequantize_linear %rq, %rs, %rz {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %s = dlc.add %y, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = dlc.relu %s : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %a, %ys, %yz {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q : tensor<1x2x4x4xi8>
}

// -----

// An add of two dequantized tensors without a Relu (ONNX Runtime's QDQ
// Add): rescaled the same way, both scales over 0.1 rounded in f32.
// CHECK-LABEL: func @rescaled_add
// CHECK-DAG: %[[SA:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SB:.*]] = arith.constant dense<5.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = dlc.dequantize_linear %arg0, %[[SA]]
// CHECK: %[[B:.*]] = dlc.dequantize_linear %arg1, %[[SB]]
// CHECK: %[[S:.*]] = dlc.add %[[A]], %[[B]]
// CHECK-NOT: dlc.relu
// CHECK: dlc.quantize_linear %[[S]], %[[ONE]]
func.func @rescaled_add(%a: tensor<8xi8>, %b: tensor<8xui8>) -> tensor<8xui8> {
  %as = arith.constant dense<0.3> : tensor<f32>
  %az = arith.constant dense<1> : tensor<i8>
  %bs = arith.constant dense<0.5> : tensor<f32>
  %bz = arith.constant dense<128> : tensor<ui8>
  %ys = arith.constant dense<0.1> : tensor<f32>
  %yz = arith.constant dense<3> : tensor<ui8>
  %da = dlc.dequantize_linear %a, %as, %az {axis = 0 : i64} : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  %db = dlc.dequantize_linear %b, %bs, %bz {axis = 0 : i64} : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %s = dlc.add %da, %db : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %q = dlc.quantize_linear %s, %ys, %yz {axis = 0 : i64} : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  return %q : tensor<8xui8>
}

// -----

// Not rescaled: the sum before the Relu is also a model output, so it must
// exist on its own scale.
// CHECK-LABEL: func @no_rescale_sum_read
// CHECK: %[[S:.*]] = dlc.add
// CHECK: %[[R:.*]] = dlc.relu %[[S]]
// CHECK: %[[Q:.*]] = dlc.quantize_linear %[[R]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<8xf32>, tensor<f32>, tensor<i8>)
// CHECK-NOT: dense<1.000000e+00>
// CHECK: return %[[Q]], %[[S]]
func.func @no_rescale_sum_read(%a: tensor<8xi8>, %b: tensor<8xi8>) -> (tensor<8xi8>, tensor<8xf32>) {
  %s1 = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i8>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %da = dlc.dequantize_linear %a, %s1, %z {axis = 0 : i64} : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  %db = dlc.dequantize_linear %b, %s1, %z {axis = 0 : i64} : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  %s = dlc.add %da, %db : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r = dlc.relu %s : (tensor<8xf32>) -> tensor<8xf32>
  %q = dlc.quantize_linear %r, %ys, %z {axis = 0 : i64} : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
  return %q, %s : tensor<8xi8>, tensor<8xf32>
}

// -----

// Not rescaled: an addend is a float tensor, not a dequantize_linear.
// CHECK-LABEL: func @no_rescale_float_addend
// CHECK: %[[S:.*]] = dlc.add
// CHECK: dlc.quantize_linear %[[S]], %{{.*}}, %{{.*}} {axis = 0 : i64}
// CHECK-NOT: dense<1.000000e+00>
func.func @no_rescale_float_addend(%a: tensor<8xi8>, %b: tensor<8xf32>) -> tensor<8xi8> {
  %s1 = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i8>
  %ys = arith.constant dense<0.25> : tensor<f32>
  %da = dlc.dequantize_linear %a, %s1, %z {axis = 0 : i64} : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  %s = dlc.add %da, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %q = dlc.quantize_linear %s, %ys, %z {axis = 0 : i64} : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
  return %q : tensor<8xi8>
}

// -----

// A16W8 (ONNX Runtime's QInt16 activations): the int16 activation keeps the
// conv in float (the integer kernels are 8-bit), marked with the reason.
// CHECK-LABEL: func @conv_int16_activation
// CHECK-NOT: dlc.conv_integer
// CHECK: dlc.conv %{{.*}}dlc.not_folded = "operands are not constant-parameter dequantize_linear of i8/ui8"
// CHECK: dlc.quantize_linear %{{.*}} -> tensor<1x2x4x4xi16>
func.func @conv_int16_activation(%xq: tensor<1x3x4x4xi16>) -> tensor<1x2x4x4xi16> {
  %xs = arith.constant dense<0.001> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i16>
  %wq = arith.constant dense<1> : tensor<2x3x3x3xi8>
  %ws = arith.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %ys = arith.constant dense<0.002> : tensor<f32>
  %yz = arith.constant dense<0> : tensor<i16>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x3x4x4xi16>, tensor<f32>, tensor<i16>) -> tensor<1x3x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %y, %ys, %yz {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i16>) -> tensor<1x2x4x4xi16>
  return %q : tensor<1x2x4x4xi16>
}

// -----

// An int8 conv whose result is quantized to int16 (a mixed-precision
// override): the conv folds, and the 16-bit quantize reads the dequantized
// accumulator (no 16-bit requantize), as does the float Relu: a 16-bit
// quantize does not move up through it.
// CHECK-LABEL: func @conv_int16_output
// CHECK: %[[ACC:.*]] = dlc.conv_integer
// CHECK-NOT: dlc.requantize
// CHECK: %[[F:.*]] = dlc.dequantize_linear %[[ACC]]
// CHECK: %[[R:.*]] = dlc.relu %[[F]]
// CHECK: dlc.quantize_linear %[[R]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui16>) -> tensor<1x2x4x4xui16>
// CHECK: %[[Q:.*]] = dlc.quantize_linear %[[F]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i16>) -> tensor<1x2x4x4xi16>
func.func @conv_int16_output(%xq: tensor<1x3x4x4xi8>) -> (tensor<1x2x4x4xui16>, tensor<1x2x4x4xi16>) {
  %xs = arith.constant dense<0.5> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %wq = arith.constant dense<1> : tensor<2x3x3x3xi8>
  %ws = arith.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %ys = arith.constant dense<0.002> : tensor<f32>
  %yz = arith.constant dense<0> : tensor<ui16>
  %yz2 = arith.constant dense<0> : tensor<i16>
  %x = dlc.dequantize_linear %xq, %xs, %xz {axis = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %w = dlc.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %y = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %r, %ys, %yz {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui16>) -> tensor<1x2x4x4xui16>
  %q2 = dlc.quantize_linear %y, %ys, %yz2 {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i16>) -> tensor<1x2x4x4xi16>
  return %q, %q2 : tensor<1x2x4x4xui16>, tensor<1x2x4x4xi16>
}
