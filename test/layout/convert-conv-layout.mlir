// RUN: dlc-opt %s --split-input-file --dlc-convert-conv-layout | FileCheck %s

// A single conv: its input and result transposed around the channels_last
// conv; the splat weight is the same constant in either layout.
// CHECK-LABEL: func @single_conv
// CHECK: %[[X:.*]] = dlc.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK: %[[Y:.*]] = dlc.conv %[[X]], %{{.*}}, %{{.*}} {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[R:.*]] = dlc.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: return %[[R]]
func.func @single_conv(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]], [[[7.0, 8.0]]]]> : tensor<4x1x1x2xf32>
  %w3 = arith.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = dlc.conv %x, %w3, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// A constant weight is permuted to [O, KH, KW, C] at compile time.
// CHECK-LABEL: func @weight_permuted
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00]], {{\[}}[3.000000e+00, 7.000000e+00], [4.000000e+00, 8.000000e+00]]], {{\[}}{{\[}}[9.000000e+00, 1.300000e+01], [1.000000e+01, 1.400000e+01]], {{\[}}[1.100000e+01, 1.500000e+01], [1.200000e+01, 1.600000e+01]]]]> : tensor<2x2x2x2xf32>
// CHECK: dlc.conv %{{.*}}, %[[W]] {channels_last
func.func @weight_permuted(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 10.0], [11.0, 12.0]], [[13.0, 14.0], [15.0, 16.0]]]]> : tensor<2x2x2x2xf32>
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// conv -> relu -> conv: the relu runs NHWC, no transpose between the convs.
// A non-constant weight gets a transpose (a reshape for 1x1 kernels).
// CHECK-LABEL: func @conv_relu_conv
// CHECK: %[[X:.*]] = dlc.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[W1:.*]] = dlc.transpose %arg1 {perm = array<i64: 0, 2, 3, 1>} : (tensor<16x8x3x3xf32>) -> tensor<16x3x3x8xf32>
// CHECK: %[[C1:.*]] = dlc.conv %[[X]], %[[W1]] {channels_last
// CHECK-NEXT: %[[R:.*]] = dlc.relu %[[C1]] : (tensor<1x16x16x16xf32>)
// CHECK-NEXT: %[[W2:.*]] = dlc.reshape %arg2 : (tensor<16x16x1x1xf32>) -> tensor<16x1x1x16xf32>
// CHECK-NEXT: %[[C2:.*]] = dlc.conv %[[R]], %[[W2]] {channels_last
// CHECK-NEXT: %[[T:.*]] = dlc.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[T]]
func.func @conv_relu_conv(%x: tensor<1x8x16x16xf32>, %w1: tensor<16x8x3x3xf32>, %w2: tensor<16x16x1x1xf32>) -> tensor<1x16x16x16xf32> {
  %0 = dlc.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32>
  %1 = dlc.relu %0 : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %2 = dlc.conv %1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x16x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x16x16xf32>
  return %2 : tensor<1x16x16x16xf32>
}

// -----

// Residual block: the Add of the conv branch and the block input, a
// per-channel [C, 1, 1] constant (permuted to [1, 1, 1, C]) and a scalar all
// run NHWC; the only transposes are the model's input and output.
// CHECK-LABEL: func @residual
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1x1x1xf32>
// CHECK-DAG: %[[PC:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK: dlc.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.*]] = dlc.conv {{.*}}channels_last
// CHECK: %[[R1:.*]] = dlc.relu %[[C1]]
// CHECK-NOT: dlc.transpose %{{[0-9]+}}
// CHECK: %[[C2:.*]] = dlc.conv %[[R1]], {{.*}}channels_last
// CHECK-NEXT: %[[M:.*]] = dlc.mul %[[C2]], %[[PC]] : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>)
// CHECK-NEXT: %[[A:.*]] = dlc.add %[[M]], %[[R1]] : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>)
// CHECK-NEXT: %[[M2:.*]] = dlc.mul %[[A]], %[[S]]
// CHECK-NEXT: %[[R2:.*]] = dlc.relu %[[M2]]
// CHECK-NOT: dlc.transpose %{{[0-9]+}}
// CHECK: %[[C3:.*]] = dlc.conv %[[R2]], {{.*}}channels_last
// CHECK-NEXT: %[[T:.*]] = dlc.transpose %[[C3]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[T]]
func.func @residual(%x: tensor<1x4x8x8xf32>, %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %s = arith.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %0 = dlc.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = dlc.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = dlc.conv %1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = dlc.mul %2, %s : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %4 = dlc.add %3, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %5 = dlc.mul %4, %c : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %6 = dlc.relu %5 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %7 = dlc.conv %6, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %7 : tensor<1x4x8x8xf32>
}

// -----

// Max and average pooling become channels_last; the global average pool's
// axes are remapped and the transpose after it only moves unit dims, so it
// folds into the reshape: no transpose at the tail.
// CHECK-LABEL: func @pooling
// CHECK: %[[C:.*]] = dlc.conv {{.*}}channels_last{{.*}} -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.max_pool %[[C]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.average_pool %[[P]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x4x4x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK: %[[C2:.*]] = dlc.conv %[[A]], {{.*}}channels_last
// CHECK-NEXT: %[[M:.*]] = dlc.reduce_mean %[[C2]] {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x3x3x8xf32>) -> tensor<1x1x1x8xf32>
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[M]] : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @pooling(%x: tensor<1x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8xf32> {
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = dlc.max_pool %0 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %2 = dlc.average_pool %1 {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x3xf32>
  %3 = dlc.conv %2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x3x3xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x3x3xf32>
  %4 = dlc.reduce_mean %3 {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  %5 = dlc.reshape %4 : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  return %5 : tensor<1x8xf32>
}

// -----

// int8 chain: requantize and dequantize_linear get their per-channel axis
// remapped from 1 to 3, the Relu-clip runs NHWC on i8 between the two
// conv_integer ops.
// CHECK-LABEL: func @quantized_chain
// CHECK: %[[X:.*]] = dlc.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xi8>) -> tensor<1x8x8x3xi8>
// CHECK: %[[C1:.*]] = dlc.conv_integer %[[X]], {{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<i8>, tensor<4xi8>) -> tensor<1x8x8x4xi32>
// CHECK-NEXT: %[[Q:.*]] = dlc.requantize %[[C1]], {{.*}} {axis = 3 : i64} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<i8>) -> tensor<1x8x8x4xi8>
// CHECK-NEXT: %[[CL:.*]] = dlc.clip %[[Q]]
// CHECK-NEXT: %[[W:.*]] = dlc.reshape %arg2
// CHECK-NEXT: %[[C2:.*]] = dlc.conv_integer %[[CL]], %[[W]], {{.*}} {channels_last
// CHECK-NEXT: %[[D:.*]] = dlc.dequantize_linear %[[C2]], {{.*}} {axis = 3 : i64} : (tensor<1x8x8x4xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[T:.*]] = dlc.transpose %[[D]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[T]]
func.func @quantized_chain(%xq: tensor<1x3x8x8xi8>, %w1: tensor<4x3x3x3xi8>, %w2: tensor<4x4x1x1xi8>) -> tensor<1x4x8x8xf32> {
  %xzp = arith.constant dense<5> : tensor<i8>
  %wzp = arith.constant dense<[0, 0, 0, 0]> : tensor<4xi8>
  %bias = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %m = arith.constant dense<[0.5, 0.25, 0.125, 0.0625]> : tensor<4xf32>
  %s = arith.constant dense<[0.5, 0.25, 0.125, 0.0625]> : tensor<4xf32>
  %zp = arith.constant dense<-128> : tensor<i8>
  %zps = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %0 = dlc.conv_integer %xq, %w1, %xzp, %wzp {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<i8>, tensor<4xi8>) -> tensor<1x4x8x8xi32>
  %1 = dlc.requantize %0, %bias, %m, %zp {axis = 1 : i64} : (tensor<1x4x8x8xi32>, tensor<4xi32>, tensor<4xf32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  %2 = dlc.clip %1 {max = 1.270000e+02 : f64, min = -1.000000e+02 : f64} : (tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8>
  %3 = dlc.conv_integer %2, %w2, %zp, %wzp {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, tensor<i8>, tensor<4xi8>) -> tensor<1x4x8x8xi32>
  %4 = dlc.dequantize_linear %3, %s, %zps {axis = 1 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<1x4x8x8xf32>
  return %4 : tensor<1x4x8x8xf32>
}

// -----

// 3-D convolutions stay NCHW.
// CHECK-LABEL: func @conv3d_stays
// CHECK-NOT: dlc.transpose
// CHECK-NOT: channels_last
// CHECK: dlc.conv %arg0, %arg1 {dilations
// CHECK-NOT: dlc.transpose
func.func @conv3d_stays(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> tensor<1x3x4x4x4xf32> {
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<1x3x4x4x4xf32>
  %1 = dlc.relu %0 : (tensor<1x3x4x4x4xf32>) -> tensor<1x3x4x4x4xf32>
  return %1 : tensor<1x3x4x4x4xf32>
}

// -----

// Depthwise conv, then a Concat of its result and its clipped result (the
// transpose has two readers): the Concat's axis becomes 3, no transpose
// between the convs.
// CHECK-LABEL: func @grouped_concat
// CHECK: %[[C:.*]] = dlc.conv {{.*}} {channels_last, dilations = array<i64: 1, 1>, group = 4 : i64{{.*}} : (tensor<1x8x8x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[CL:.*]] = dlc.clip %[[C]]
// CHECK-NEXT: %[[CAT:.*]] = dlc.concat %[[CL]], %[[C]] {axis = 3 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NOT: dlc.transpose
// CHECK: dlc.conv %[[CAT]], {{.*}}channels_last
// CHECK-NEXT: dlc.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>}
func.func @grouped_concat(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %w2: tensor<2x8x1x1xf32>) -> tensor<1x2x8x8xf32> {
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = dlc.clip %0 {max = 6.0 : f64, min = 0.0 : f64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = dlc.concat %1, %0 {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %3 = dlc.conv %2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// A BatchNormalization left after a conv (constant parameters) becomes a
// per-channel multiply-add that runs NHWC.
// CHECK-LABEL: func @batch_norm
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[5.000000e-01, -1.500000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1x1x2xf32>
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[C:.*]] = dlc.conv {{.*}}channels_last
// CHECK-NEXT: %[[M:.*]] = dlc.mul %[[C]], %[[S]]
// CHECK-NEXT: %[[A:.*]] = dlc.add %[[M]], %[[B]]
// CHECK-NEXT: %[[R:.*]] = dlc.relu %[[A]]
// CHECK-NOT: dlc.transpose
// CHECK: dlc.conv %[[R]], {{.*}}channels_last
func.func @batch_norm(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %s = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %s, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.relu %1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = dlc.conv %2, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %3 : tensor<1x2x4x4xf32>
}
