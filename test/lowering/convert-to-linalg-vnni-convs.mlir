// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="vnni-convs=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pair-conv-weights=true" | FileCheck %s --check-prefix=PAIR
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pair-conv-weights=true wide-conv-weights=true" | FileCheck %s --check-prefix=WIDE
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="vnni-convs=true wide-conv-weights=true" | FileCheck %s --check-prefix=VNNI-WIDE
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="vnni-convs=true pad-conv-input=true pad-grouped-conv-input=true conv-plane-rows=256" | FileCheck %s --check-prefix=DW
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true pad-grouped-conv-input=true conv-plane-rows=256" | FileCheck %s --check-prefix=DW-OFF

// An s8 x s8 ConvInteger with a constant weight and weight zero point 0
// (split out): the weight is laid out [O, KH, KW, C] (a tap's input
// channels consecutive) and the body reads the input as x xor 0x80, a u8
// (zero-extended) equal to x + 128; the init subtracts (x_zp + 128) *
// sum(w) per output channel.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
// CHECK-LABEL: func @s8s8
// CHECK: %[[WT:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[1, 1], [2, 1], [3, 1]]{{.*}}> : tensor<2x3x3x2xi8>
// CHECK: %[[SUMS:.*]] = arith.constant dense<[54, 441]> : tensor<2xi32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SUMS]] :
// CHECK: arith.constant 128 : i32
// CHECK: arith.addi
// CHECK: linalg.generic {indexing_maps = [#[[W]], {{.*}} ins(%[[WT]], %{{.*}} : tensor<2x3x3x2xi8>, tensor<1x2x4x4xi8>)
// CHECK: %[[F:.*]] = arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: arith.extui %[[F]] : i8 to i32
// CHECK: arith.extsi
// OFF-LABEL: func @s8s8
// OFF-NOT: arith.xori
// OFF: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x2x3x3xi8>, tensor<1x2x4x4xi8>)
// OFF-NOT: arith.xori
// pair-conv-weights (pmaddwd) takes the layout alone: the input stays s8,
// the init subtracts x_zp * sum(w) only.
// PAIR-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
// PAIR-LABEL: func @s8s8
// PAIR-NOT: arith.xori
// PAIR-NOT: arith.constant 128 : i32
// PAIR: linalg.generic {indexing_maps = [#[[W]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x3x2xi8>, tensor<1x2x4x4xi8>)
// PAIR-NOT: arith.xori
// PAIR: arith.extsi
// PAIR: arith.extsi
// wide-conv-weights holds the permuted weights as i16 of the same values
// (pmaddwd's pair one 32-bit word), sign-extended in the body; the sums in
// the init are those of the bytes.
// WIDE-LABEL: func @s8s8
// WIDE: %[[WT:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[1, 1], [2, 1], [3, 1]]{{.*}}[70, -1], [80, -1], [90, -1]]]]> : tensor<2x3x3x2xi16>
// WIDE: arith.constant dense<[54, 441]> : tensor<2xi32>
// WIDE: linalg.generic {{.*}} ins(%[[WT]], %{{.*}} : tensor<2x3x3x2xi16>, tensor<1x2x4x4xi8>)
// WIDE: arith.extsi %{{.*}} : i8 to i32
// WIDE: arith.extsi %{{.*}} : i16 to i32
// vpdpbusd multiplies bytes: vnni-convs keeps them.
// VNNI-WIDE-LABEL: func @s8s8
// VNNI-WIDE-NOT: xi16>
// VNNI-WIDE: ins(%{{.*}}, %{{.*}} : tensor<2x3x3x2xi8>, tensor<1x2x4x4xi8>)
func.func @s8s8(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi32> {
  %w = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[[10, 20, 30], [40, 50, 60], [70, 80, 90]], [[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]]]> : tensor<2x2x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<2x2x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x2x2xi32>
  return %0 : tensor<1x2x2x2xi32>
}

// -----

// A u8 input keeps its bytes; a 1x1 weight is [O, C] already and keeps its
// layout.
// CHECK-LABEL: func @u8_1x1
// CHECK-NOT: arith.xori
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<2x2x1x1xi8>, tensor<1x2x4x4xi8>)
// CHECK-NOT: arith.xori
// PAIR-LABEL: func @u8_1x1
// PAIR: ins(%{{.*}}, %{{.*}} : tensor<2x2x1x1xi8>, tensor<1x2x4x4xi8>)
// The widening takes 1x1 weights too.
// WIDE-LABEL: func @u8_1x1
// WIDE: ins(%{{.*}}, %{{.*}} : tensor<2x2x1x1xi16>, tensor<1x2x4x4xi8>)
// WIDE: arith.extui %{{.*}} : i8 to i32
// WIDE: arith.extsi %{{.*}} : i16 to i32
func.func @u8_1x1(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xi32> {
  %w = arith.constant dense<[[[[1]], [[2]]], [[[3]], [[-4]]]]> : tensor<2x2x1x1xi8>
  %xzp = arith.constant dense<7> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xui8>, tensor<2x2x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  return %0 : tensor<1x2x4x4xi32>
}

// -----

// u8 weights widen by zero extension: 200 stays 200 (sign-extended from
// i16 in the body).
// WIDE-LABEL: func @u8_weights
// WIDE: arith.constant dense<{{\[}}{{\[}}{{\[}}[200]], {{\[}}[255]]], {{\[}}{{\[}}[3]], {{\[}}[128]]]]> : tensor<2x2x1x1xi16>
// WIDE: arith.extsi %{{.*}} : i16 to i32
// WIDE-NOT: arith.extui %{{.*}} : i16
func.func @u8_weights(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi32> {
  %w = arith.constant dense<[[[[200]], [[255]]], [[[3]], [[128]]]]> : tensor<2x2x1x1xui8>
  %xzp = arith.constant dense<1> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<ui8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xui8>, tensor<i8>, tensor<ui8>) -> tensor<1x2x4x4xi32>
  return %0 : tensor<1x2x4x4xi32>
}

// -----

// A weight zero point that is not split out (an activation's weight here)
// keeps the bytes: nothing to widen.
// WIDE-LABEL: func @activation_weights
// WIDE-NOT: xi16>
// WIDE: return
func.func @activation_weights(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi32> {
  %xzp = arith.constant dense<1> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  return %0 : tensor<1x2x4x4xi32>
}

// -----

// An s8 depthwise conv (the zero point split out) with rows of 16 outputs:
// its weight rows get a zero tap, [4, 1, 3, 4], and its padded copy (the
// zero point outside the input) a column more at the end, 16 + 1 + 2: the
// 4th tap of the last output reads it. A window row is then 4 consecutive
// input bytes (dlc-vectorize-host-rows' sliding reads). The copy is a
// view of a buffer whose rows are 48 bytes, the input's rows at byte 16
// (alignInterior): the conv reads it from column 15.
// CHECK-LABEL: func @depthwise_taps
// DW-LABEL: func @depthwise_taps
// DW: %[[FILL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x18x48xi8>)
// DW: %[[COPY:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x4x16x16xi8>) outs(%[[FILL]] : tensor<1x4x18x48xi8>)
// DW: tensor.extract_slice %[[COPY]][0, 0, 0, 15] [1, 4, 18, 19] [1, 1, 1, 1]
// DW: %[[WT:.*]] = arith.constant dense<{{\[\[\[\[}}1, 2, 3, 0], [4, 5, 6, 0], [7, 8, 9, 0]]]{{.*}}> : tensor<4x1x3x4xi8>
// DW: linalg.generic {{.*}} ins(%[[WT]], %{{.*}} : tensor<4x1x3x4xi8>, tensor<1x4x18x19xi8>) outs(%{{.*}} : tensor<1x4x16x16xi32>)
// DW: arith.xori
// Without vnni-convs the weight keeps its 3 taps.
// DW-OFF-LABEL: func @depthwise_taps
// DW-OFF-NOT: tensor<4x1x3x4xi8>
// DW-OFF: ins(%{{.*}}, %{{.*}} : tensor<4x1x3x3xi8>, tensor<1x4x18x18xi8>)
func.func @depthwise_taps(%x: tensor<1x4x16x16xi8>) -> tensor<1x4x16x16xi32> {
  %w = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]]]> : tensor<4x1x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x16x16xi8>, tensor<4x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x4x16x16xi32>
  return %0 : tensor<1x4x16x16xi32>
}

// -----

// A 7x7 depthwise conv runs on its padded plane (conv-plane-rows): 61
// positions rounded up to 64, whose 4th taps read up to 64 + 2 * 9 + 3 =
// 85 elements, 10 rows of 9 (84 without the zero taps: 10 rows too).
// DW-LABEL: func @depthwise_taps_plane
// DW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x1x3x4xi8>, tensor<1x64x90xi8>) outs(%{{.*}} : tensor<1x64x64xi32>)
func.func @depthwise_taps_plane(%x: tensor<1x64x7x7xi8>) -> tensor<1x64x7x7xi32> {
  %w = arith.constant dense<3> : tensor<64x1x3x3xi8>
  %xzp = arith.constant dense<5> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64 : i64} : (tensor<1x64x7x7xi8>, tensor<64x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}

// -----

// Stride 2: the last output's 4th tap reads column 2 * 15 + 3 = 33 of the
// copy's 34, which needs no column more.
// DW-LABEL: func @depthwise_taps_stride2
// DW: ins(%{{.*}}, %{{.*}} : tensor<4x1x3x4xi8>, tensor<1x4x34x34xi8>) outs(%{{.*}} : tensor<1x4x16x16xi32>)
func.func @depthwise_taps_stride2(%x: tensor<1x4x32x32xi8>) -> tensor<1x4x16x16xi32> {
  %w = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]]]> : tensor<4x1x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x32x32xi8>, tensor<4x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x4x16x16xi32>
  return %0 : tensor<1x4x16x16xi32>
}

// -----

// u8 x u8 has no vpdpbusd form: the weight keeps its 3 taps.
// DW-LABEL: func @depthwise_taps_u8u8
// DW-NOT: tensor<4x1x3x4xui8>
// DW-NOT: tensor<4x1x3x4xi8>
// DW: ins(%{{.*}}, %{{.*}} : tensor<4x1x3x3xi8>, tensor<1x4x18x18xi8>)
func.func @depthwise_taps_u8u8(%x: tensor<1x4x16x16xui8>) -> tensor<1x4x16x16xi32> {
  %w = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[9, 9, 9], [9, 9, 9], [9, 9, 9]]]]> : tensor<4x1x3x3xui8>
  %xzp = arith.constant dense<3> : tensor<ui8>
  %wzp = arith.constant dense<0> : tensor<ui8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x16x16xui8>, tensor<4x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x4x16x16xi32>
  return %0 : tensor<1x4x16x16xi32>
}
