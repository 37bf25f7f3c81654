// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-channels=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF

// A 16-bit channels-last conv with 3 input channels (a stem) reads a copy
// of its input padded to 8 channels (zeros, with the spatial padding) and a
// constant weight zero-padded to [O, KH, KW, 8]: C fills a 16-byte chunk,
// so the conv is an implicit GEMM for dlc-tile-gemm-kernels.
// CHECK-LABEL: func @stem
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<2x1x1x8xf16>
// The copy also pads channels, so it is no `dlc.padding` (the implicit
// GEMM could not read 3-channel pixels as 16-byte chunks).
// CHECK-NOT: dlc.padding
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x6x8xf16>) {
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[W]] : tensor<1x6x6x8xf16>, tensor<2x1x1x8xf16>)
// OFF-LABEL: func @stem
// OFF: ins(%{{.*}}, %{{.*}} : tensor<1x6x6x3xf16>, tensor<2x1x1x3xf16>)
func.func @stem(%x: tensor<1x4x4x3xf16>) -> tensor<1x6x6x2xf16> {
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0]]], [[[4.0, 5.0, 6.0]]]]> : tensor<2x1x1x3xf16>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x3xf16>, tensor<2x1x1x3xf16>) -> tensor<1x6x6x2xf16>
  return %0 : tensor<1x6x6x2xf16>
}

// -----

// f32 (no tensor cores without --allow-tf32's B layout) and a weight that
// is not a constant keep 3 channels.
// CHECK-LABEL: func @stem_f32
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>)
// CHECK-LABEL: func @stem_input_weight
// CHECK: tensor<2x1x1x3xf16>)
func.func @stem_f32(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x1x1x3xf32>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
func.func @stem_input_weight(%x: tensor<1x4x4x3xf16>, %w: tensor<2x1x1x3xf16>) -> tensor<1x4x4x2xf16> {
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x3xf16>, tensor<2x1x1x3xf16>) -> tensor<1x4x4x2xf16>
  return %0 : tensor<1x4x4x2xf16>
}
