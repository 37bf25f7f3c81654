// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s

// Channels-last depthwise convolutions (one input channel per group) read a
// constant weight [O, KH, KW, 1] permuted once to [1, KH, KW, O]: the
// output channel d3 is the weight's innermost dim, so consecutive output
// channels (a work item's elements, and the next work item's) read
// consecutive weights.

// Stride 2, padded, dilated: w[o, kh, kw, 0] = 4 * o + 2 * kh + kw becomes
// w'[0, kh, kw, o]. A grouped convolution never runs as an implicit GEMM,
// so it reads the unpadded input under its window with bounds checks
// (input row 2 * oh + 2 * kh - 1) instead of a padded copy.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d4, d5, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @depthwise_constant_weight
// CHECK-NOT: tensor<1x9x9x4xf32>
// CHECK: %[[WP:.*]] = arith.constant dense<{{\[\[\[\[}}0.000000e+00, 4.000000e+00, 8.000000e+00, 1.200000e+01], [1.000000e+00, 5.000000e+00, 9.000000e+00, 1.300000e+01]], {{\[\[}}2.000000e+00, 6.000000e+00, 1.000000e+01, 1.400000e+01], [3.000000e+00, 7.000000e+00, 1.100000e+01, 1.500000e+01]]]]> : tensor<1x2x2x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[WP]] : tensor<1x2x2x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: %[[OH:.*]] = linalg.index 1 : index
// CHECK: %[[KH:.*]] = linalg.index 4 : index
// CHECK: %[[S:.*]] = arith.muli %[[OH]], %c2
// CHECK: %[[D:.*]] = arith.muli %[[KH]], %c2
// CHECK: %[[R:.*]] = arith.addi %[[S]], %[[D]]
// CHECK: %[[Y:.*]] = arith.subi %[[R]], %c1
// CHECK: arith.cmpi sge, %[[Y]], %c0
// CHECK: arith.cmpi slt, %[[Y]], %c7
// CHECK: %[[V:.*]] = tensor.extract %arg0[
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
func.func @depthwise_constant_weight(%x: tensor<1x7x7x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<[[[[0.0], [1.0]], [[2.0], [3.0]]], [[[4.0], [5.0]], [[6.0], [7.0]]], [[[8.0], [9.0]], [[10.0], [11.0]]], [[[12.0], [13.0]], [[14.0], [15.0]]]]> : tensor<4x2x2x1xf32>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 2, 2>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x7x7x4xf32>, tensor<4x2x2x1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Channel multiplier 2 (O = 2 * C): the weight is permuted the same way;
// output channel d3 reads input channel d3 floordiv 2.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 floordiv 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d4, d5, d3)>
// CHECK-LABEL: func @depthwise_multiplier
// CHECK: %[[WP:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #{{.*}}]{{.*}} ins(%arg0, %[[WP]] : tensor<1x4x4x2xf32>, tensor<1x1x1x4xf32>)
func.func @depthwise_multiplier(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<[[[[1.0]]], [[[2.0]]], [[[3.0]]], [[[4.0]]]]> : tensor<4x1x1x1xf32>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A weight that is not a constant keeps [O, KH, KW, 1] and the map (d3, d4,
// d5, d6).
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-LABEL: func @depthwise_weight_input
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[W]], #{{.*}}]{{.*}} ins(%arg0, %arg1 : tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>)
func.func @depthwise_weight_input(%x: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<1x2x2x4xf32> {
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x2x2x4xf32>
  return %0 : tensor<1x2x2x4xf32>
}

// -----

// A dense conv keeps its constant weight [O, KH, KW, C]: the B operand of
// the implicit GEMM.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-LABEL: func @dense_constant_weight
// CHECK-NOT: tensor<1x1x1x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[W]], #{{.*}}]{{.*}} ins(%arg0, %{{.*}} : tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>)
func.func @dense_constant_weight(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}

// -----

// conv_integer with a zero weight zero point (the split): the sums come
// from the weight as given, the generic reads the permuted one. Padded, it
// reads the unpadded input under its window (no copy), the input zero point
// outside it.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d4, d5, d3)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>
// CHECK-LABEL: func @depthwise_integer_split
// CHECK-NOT: tensor<1x4x5x2xi8>
// CHECK: %[[WP:.*]] = arith.constant dense<{{\[\[\[\[}}1, -1], [2, -2]]]]> : tensor<1x1x2x2xi8>
// CHECK: %[[SUMS:.*]] = arith.constant dense<[3, -3]> : tensor<2xi32>
// CHECK: linalg.generic {indexing_maps = [#[[W]], #[[S]], #{{.*}}]{{.*}} ins(%[[WP]], %arg1 : tensor<1x1x2x2xi8>, tensor<i8>) outs(%{{.*}} : tensor<1x4x4x2xi32>)
// CHECK: tensor.extract %arg0
func.func @depthwise_integer_split(%x: tensor<1x4x4x2xi8>, %xz: tensor<i8>) -> tensor<1x4x4x2xi32> {
  %w = arith.constant dense<[[[[1], [2]]], [[[-1], [-2]]]]> : tensor<2x1x2x1xi8>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %0 = dlc.conv_integer %x, %w, %xz, %wz {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x2x1xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x4x4x2xi32>
  return %0 : tensor<1x4x4x2xi32>
}

// -----

// conv_integer with a nonzero per-channel weight zero point and a ui8
// weight (a signless constant once permuted): the zero point stays [O],
// read over d3.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d4, d5, d3)>
// CHECK-DAG: #[[WZ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3)>
// CHECK-LABEL: func @depthwise_integer_zero_points
// CHECK: %[[WP:.*]] = arith.constant dense<{{\[\[\[\[}}1, 3], [2, 4]]]]> : tensor<1x1x2x2xi8>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[W]], #{{.*}}, #[[WZ]], #{{.*}}]{{.*}} ins(%arg0, %[[WP]], %{{.*}}, %{{.*}} : tensor<1x4x4x2xi8>, tensor<1x1x2x2xi8>, tensor<i8>, tensor<2xi8>)
func.func @depthwise_integer_zero_points(%x: tensor<1x4x4x2xi8>, %xz: tensor<i8>) -> tensor<1x4x3x2xi32> {
  %w = arith.constant dense<[[[[1], [2]]], [[[3], [4]]]]> : tensor<2x1x2x1xui8>
  %wz = arith.constant dense<[1, 2]> : tensor<2xui8>
  %0 = dlc.conv_integer %x, %w, %xz, %wz {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x2x1xui8>, tensor<i8>, tensor<2xui8>) -> tensor<1x4x3x2xi32>
  return %0 : tensor<1x4x3x2xi32>
}
