// Round trip of the quantization ops.
// RUN: dlc-opt %s | dlc-opt | FileCheck %s

// CHECK-LABEL: func @quant
func.func @quant(%x: tensor<1x4x2x2xf32>, %s: tensor<4xf32>, %zp: tensor<4xi8>,
                 %s0: tensor<f32>, %z0: tensor<ui8>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xui8>) {
  // CHECK: dlc.quantize_linear %{{.*}} {axis = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x2x2xi8>
  %q = dlc.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x2x2xi8>
  // CHECK: dlc.dequantize_linear
  %d = dlc.dequantize_linear %q, %s, %zp {axis = 1 : i64} : (tensor<1x4x2x2xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x2x2xf32>
  // CHECK: -> tensor<1x4x2x2xui8>
  %u = dlc.quantize_linear %d, %s0, %z0 {axis = 0 : i64} : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x2x2xui8>
  return %d, %u : tensor<1x4x2x2xf32>, tensor<1x4x2x2xui8>
}

// CHECK-LABEL: func @integer
func.func @integer(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>, %xz: tensor<ui8>,
                   %wz: tensor<3xi8>, %b: tensor<3xi32>, %m: tensor<3xf32>, %yz: tensor<i8>,
                   %a: tensor<2x5xi8>, %bb: tensor<6x5xi8>, %az: tensor<i8>) -> (tensor<1x3x2x2xi8>, tensor<2x6xi32>) {
  // CHECK: dlc.conv_integer {{.*}} -> tensor<1x3x2x2xi32>
  %c = dlc.conv_integer %x, %w, %xz, %wz {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>, tensor<ui8>, tensor<3xi8>) -> tensor<1x3x2x2xi32>
  // CHECK: dlc.requantize {{.*}} -> tensor<1x3x2x2xi8>
  %r = dlc.requantize %c, %b, %m, %yz {axis = 1 : i64} : (tensor<1x3x2x2xi32>, tensor<3xi32>, tensor<3xf32>, tensor<i8>) -> tensor<1x3x2x2xi8>
  // CHECK: dlc.matmul_integer {{.*}}rhs_transposed = true{{.*}} -> tensor<2x6xi32>
  %mm = dlc.matmul_integer %a, %bb, %az, %az {rhs_transposed = true} : (tensor<2x5xi8>, tensor<6x5xi8>, tensor<i8>, tensor<i8>) -> tensor<2x6xi32>
  return %r, %mm : tensor<1x3x2x2xi8>, tensor<2x6xi32>
}
