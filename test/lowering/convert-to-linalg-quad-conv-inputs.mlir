// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true vnni-convs=true quad-conv-inputs=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true vnni-convs=true" | FileCheck %s --check-prefix=OFF

// A u8 x s8 1x1 conv of 8 input channels (weight zero point 0, split out):
// a parallel generic writes the input's plane as byte quadruples [1, 2,
// 16, 4], x[4 c2 + q][p] at [c2, p, q]; its [1, 2, 4, 16] view is what the
// conv reads, at [c2, h, 4 w + q], the reduction split in c2 and q, whose
// extents a tensor.empty of [2, 4] gives. A u8 input is copied as it is.
// CHECK-DAG: #[[$PIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 4 + d3, d2)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4 * 4 + d5, 0, 0)>
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d4, d2, d3 * 4 + d5)>
// CHECK-DAG: #[[$G:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func @u8_1x1
// CHECK: %[[PL:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x8x4x4xi8> into tensor<1x8x16xi8>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$PIN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[PL]] : tensor<1x8x16xi8>) outs(%{{.*}} : tensor<1x2x16x4xi8>)
// CHECK-NOT: arith.xori
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2, 3]] : tensor<1x2x16x4xi8> into tensor<1x2x64xi8>
// CHECK: %[[Q:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1], [2, 3]] {{.*}} : tensor<1x2x64xi8> into tensor<1x2x4x16xi8>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xi8>
// CHECK: linalg.generic {indexing_maps = [#[[$W]], #[[$X]], #[[$G]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[Q]], %[[E]] : tensor<3x8x1x1xi8>, tensor<1x2x4x16xi8>, tensor<2x4xi8>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// OFF-LABEL: func @u8_1x1
// OFF-NOT: tensor.collapse_shape
// OFF: ins(%{{.*}}, %{{.*}} : tensor<3x8x1x1xi8>, tensor<1x8x4x4xi8>)
func.func @u8_1x1(%x: tensor<1x8x4x4xui8>) -> tensor<1x3x4x4xi32> {
  %w = arith.constant dense<3> : tensor<3x8x1x1xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xui8>, tensor<3x8x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}

// -----

// s8 x s8: the quadruples hold x xor 0x80 (vpdpbusd's u8 operand, x + 128),
// which the conv reads zero-extended.
// CHECK-LABEL: func @s8_1x1
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x16x4xi8>)
// CHECK: arith.xori
// CHECK: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-NOT: arith.xori
// CHECK: arith.extui %{{.*}} : i8 to i32
func.func @s8_1x1(%x: tensor<1x8x4x4xi8>) -> tensor<1x3x4x4xi32> {
  %w = arith.constant dense<3> : tensor<3x8x1x1xi8>
  %xzp = arith.constant dense<-7> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xi8>, tensor<3x8x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}

// -----

// 6 input channels are no whole quadruples: the plain form.
// CHECK-LABEL: func @channels_6
// CHECK-NOT: tensor.collapse_shape
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<3x6x1x1xi8>, tensor<1x6x4x4xi8>)
func.func @channels_6(%x: tensor<1x6x4x4xui8>) -> tensor<1x3x4x4xi32> {
  %w = arith.constant dense<3> : tensor<3x6x1x1xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x6x4x4xui8>, tensor<3x6x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}

// -----

// A plane of 17 x 16 = 272 positions (more than one host row) takes the
// quadruples too: its rows are 16 quadruples, 4 lines.
// CHECK-LABEL: func @large_plane
// CHECK: tensor.expand_shape %{{.*}} : tensor<1x2x1088xi8> into tensor<1x2x17x64xi8>
// CHECK: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3x8x1x1xi8>, tensor<1x2x17x64xi8>, tensor<2x4xi8>)
func.func @large_plane(%x: tensor<1x8x17x16xui8>) -> tensor<1x3x17x16xi32> {
  %w = arith.constant dense<3> : tensor<3x8x1x1xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x17x16xui8>, tensor<3x8x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x17x16xi32>
  return %0 : tensor<1x3x17x16xi32>
}

// -----

// A weight zero point that is not a constant is not split out: the plain
// form, which subtracts it in the body.
// CHECK-LABEL: func @runtime_weight_zero_point
// CHECK-NOT: tensor.collapse_shape
func.func @runtime_weight_zero_point(%x: tensor<1x8x4x4xui8>, %wzp: tensor<i8>) -> tensor<1x3x4x4xi32> {
  %w = arith.constant dense<3> : tensor<3x8x1x1xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xui8>, tensor<3x8x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}

// -----

// A 3x3 window reads its taps at 9 offsets: the plain form.
// CHECK-LABEL: func @window_3x3
// CHECK-NOT: tensor.collapse_shape
func.func @window_3x3(%x: tensor<1x8x6x6xui8>) -> tensor<1x3x4x4xi32> {
  %w = arith.constant dense<3> : tensor<3x8x3x3xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x6x6xui8>, tensor<3x8x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}
