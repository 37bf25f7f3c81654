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

// -----

// A stride-2 stem runs space-to-depth: the conv at stride 1 without pads on
// a copy of 2x2 pixel blocks as 4 * 3 = 12 channels (padded to 16) and a
// [O, 2, 2, 16] weight (K = 64 instead of 3 * 3 * 8 = 72). Block channel
// (sh * 2 + sw) * 3 + c holds x[2h + sh - 1, 2w + sw - 1, c]; the weight's
// first 16 are w[0, 0, 0], w[0, 0, 1], w[0, 1, 0], w[0, 1, 1] and 4 zeros.
// CHECK-LABEL: func @stem_space_to_depth
// CHECK: %[[W:.*]] = arith.constant dense<"0x003C0040004200440045004600498049004A804A004B804B0000000000000000{{.*}}"> : tensor<2x2x2x16xf16>
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x4x16xf16>) {
// CHECK: %[[C:.*]] = arith.constant 3 : index
// CHECK: %[[BLOCK:.*]] = arith.divui %{{.*}}, %[[C]] : index
// CHECK: %[[CH:.*]] = arith.remui %{{.*}}, %[[C]] : index
// CHECK: %[[REAL:.*]] = arith.cmpi ult, %{{.*}}, %c12 : index
// CHECK: arith.select %[[REAL]], %[[CH]], %[[C]] : index
// CHECK: tensor.extract %{{.*}} : tensor<1x5x5x3xf16>
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[W]] : tensor<1x4x4x16xf16>, tensor<2x2x2x16xf16>) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// OFF-LABEL: func @stem_space_to_depth
// OFF: ins(%{{.*}}, %{{.*}} : tensor<1x7x7x3xf16>, tensor<2x3x3x3xf16>) outs(%{{.*}} : tensor<1x3x3x2xf32>)
func.func @stem_space_to_depth(%x: tensor<1x5x5x3xf16>) -> tensor<1x3x3x2xf16> {
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]], [[19.0, 20.0, 21.0], [22.0, 23.0, 24.0], [25.0, 26.0, 27.0]]], [[[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0], [-7.0, -8.0, -9.0]], [[-10.0, -11.0, -12.0], [-13.0, -14.0, -15.0], [-16.0, -17.0, -18.0]], [[-19.0, -20.0, -21.0], [-22.0, -23.0, -24.0], [-25.0, -26.0, -27.0]]]]> : tensor<2x3x3x3xf16>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x5x3xf16>, tensor<2x3x3x3xf16>) -> tensor<1x3x3x2xf16>
  return %0 : tensor<1x3x3x2xf16>
}

// -----

// 8 channels at stride 2: space-to-depth would reduce over 2 * 2 * 32 =
// 128 products instead of 3 * 3 * 8 = 72, so the conv keeps its form.
// CHECK-LABEL: func @stride2_eight_channels
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x7x7x8xf16>, tensor<2x3x3x8xf16>)
func.func @stride2_eight_channels(%x: tensor<1x5x5x8xf16>) -> tensor<1x3x3x2xf16> {
  %w = arith.constant dense<1.0> : tensor<2x3x3x8xf16>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x5x8xf16>, tensor<2x3x3x8xf16>) -> tensor<1x3x3x2xf16>
  return %0 : tensor<1x3x3x2xf16>
}
