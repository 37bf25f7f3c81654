// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true pad-grouped-conv-input=true" | FileCheck %s --check-prefix=GROUPED

// An NCHW conv whose windows leave the input (pads 1) reads a zero-padded
// copy through a pure affine map (the host's row vectorizer loads its
// window rows as vectors); with one group the input channel is the
// reduction's channel alone.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func @padded
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x6x6xf32>)
// CHECK: arith.cmpi sge
// CHECK: tensor.extract %arg0
// CHECK: arith.select
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}} ins(%[[P]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>)
// OFF-LABEL: func @padded
// OFF-NOT: tensor<1x2x6x6xf32>
// OFF: return
func.func @padded(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// A depthwise conv keeps its bounds-checked reads, unless
// pad-grouped-conv-input (where the host vectorizes rows: the copy's
// affine reads load as vectors). Its copy is the padding value everywhere,
// then the input over it through a shifted map: rows of consecutive
// elements both (one generic over the padded tensor read the input at
// clamped indices, which kept it scalar).
// CHECK-LABEL: func @depthwise
// CHECK-NOT: tensor<1x2x6x6xf32>
// CHECK: return
// GROUPED-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// GROUPED-DAG: #[[SHIFT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
// GROUPED-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>
// GROUPED-LABEL: func @depthwise
// GROUPED: %[[F:.*]] = linalg.generic {indexing_maps = [#[[ID]]]{{.*}} outs(%{{.*}} : tensor<1x2x6x6xf32>)
// GROUPED: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[SHIFT]]]{{.*}} ins(%arg0 : tensor<1x2x4x4xf32>) outs(%[[F]] : tensor<1x2x6x6xf32>)
// GROUPED-NOT: arith.select
// GROUPED: linalg.generic {indexing_maps = [#[[IN]], {{.*}} ins(%[[P]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<2x1x3x3xf32>)
func.func @depthwise(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// ConvInteger pads with the input's zero point.
// CHECK-LABEL: func @integer
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<i8>) outs(%{{.*}} : tensor<1x2x6x6xi8>)
// CHECK: ^bb0(%[[ZP:[a-z0-9_]+]]: i8,
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ZP]] : i8
// CHECK: ins(%{{.*}}, %[[P]] : {{.*}}tensor<1x2x6x6xi8>)
func.func @integer(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>, %xzp: tensor<ui8>, %wzp: tensor<i8>) -> tensor<1x3x4x4xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  return %0 : tensor<1x3x4x4xi32>
}

// -----

// A depthwise ConvInteger the same: with pad-grouped-conv-input it reads a
// copy padded with the input's zero point through an affine map (before,
// its bounds-checked byte reads kept mobilenet_v2's int8 depthwise rows
// scalar); the weight zero point (0) is split out.
// CHECK-LABEL: func @integer_depthwise
// CHECK-NOT: tensor<1x2x6x6xi8>
// CHECK: return
// GROUPED-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>
// GROUPED-LABEL: func @integer_depthwise
// GROUPED: %[[F:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<i8>) outs(%{{.*}} : tensor<1x2x6x6xi8>)
// GROUPED: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x4x4xi8>) outs(%[[F]] : tensor<1x2x6x6xi8>)
// GROUPED: linalg.generic {indexing_maps = [{{.*}}, #[[IN]], {{.*}} ins(%{{.*}}, %[[P]] : tensor<2x1x3x3xi8>, tensor<1x2x6x6xi8>)
// GROUPED-NOT: arith.select
// GROUPED: return
func.func @integer_depthwise(%x: tensor<1x2x4x4xui8>, %xzp: tensor<ui8>) -> tensor<1x2x4x4xi32> {
  %w = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[-1, 2, -3], [4, -5, 6], [7, -8, 9]]]]> : tensor<2x1x3x3xi8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xui8>, tensor<2x1x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  return %0 : tensor<1x2x4x4xi32>
}

// -----

// A strided 1x1 conv reads a copy of the positions its windows read
// (every second row and column), then runs at stride 1 over it.
// CHECK-DAG: #[[EVERY2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// CHECK-DAG: #[[STRIDE1:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func @strided_pointwise
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[EVERY2]], {{.*}}]{{.*}} ins(%arg0 : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[STRIDE1]], {{.*}} ins(%[[S]], %arg1 : tensor<1x4x4x4xf32>, tensor<6x4x1x1xf32>)
// OFF-LABEL: func @strided_pointwise
// OFF-NOT: tensor<1x4x4x4xf32>
// OFF: return
func.func @strided_pointwise(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x1x1xf32>) -> tensor<1x6x4x4xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x1x1xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}
