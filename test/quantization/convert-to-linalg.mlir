// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="int8-weights-nk=true" | FileCheck %s --check-prefix=NK

// uint8 is signless i8 after lowering (function type included); the
// quantize saturates (clamps to the range shifted by the zero point), then
// rounds half to even by adding 1.5 * 2^23 and reads the integer from the
// sum's encoding (0x4B400000 + round(v)), plus the zero point: no
// float-to-int conversion.
// CHECK-LABEL: func @quantize_u8
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<i8>) -> tensor<2x3xi8>
// CHECK-NOT: ui8
// CHECK-NOT: tensor.bitcast
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: %[[ZP:.*]] = arith.extui
// CHECK: arith.maxnumf
// CHECK: %[[C:.*]] = arith.minnumf
// CHECK: %[[M:.*]] = arith.constant 0x4B400000 : f32
// CHECK: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK: %[[B:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: %[[K:.*]] = arith.constant 1262485504 : i32
// CHECK: %[[Z:.*]] = arith.subi %[[ZP]], %[[K]] : i32
// CHECK: %[[I:.*]] = arith.addi %[[B]], %[[Z]] : i32
// CHECK-NOT: arith.fptosi
// CHECK: arith.trunci %[[I]] : i32 to i8
func.func @quantize_u8(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// An even constant zero point (-128) rides in the magic number, 1.5 * 2^23
// - 128: v + zp rounds half to even as v does, and the sum's encoding is
// 0x4B400000 + zp + round(v), whose low byte is the result; no add of the
// zero point after the bitcast.
// CHECK-LABEL: func @quantize_even_zero_point
// CHECK: %[[C:.*]] = arith.minnumf
// CHECK: %[[M:.*]] = arith.constant 0x4B3FFF80 : f32
// CHECK: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK: %[[B:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: %[[K:.*]] = arith.constant 1262485504 : i32
// CHECK: %[[I:.*]] = arith.subi %[[B]], %[[K]] : i32
// CHECK-NEXT: arith.trunci %[[I]] : i32 to i8
func.func @quantize_even_zero_point(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<-128> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// An odd one would flip ties (round(0.5 + 3) = 4, round(0.5) + 3 = 3): it
// is added after the rounding.
// CHECK-LABEL: func @quantize_odd_zero_point
// CHECK: %[[M:.*]] = arith.constant 0x4B400000 : f32
// CHECK: arith.addf %{{.*}}, %[[M]] : f32
// CHECK: %[[B:.*]] = arith.bitcast
// CHECK: %[[I:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK: arith.trunci %[[I]] : i32 to i8
func.func @quantize_odd_zero_point(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<3> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1) -> (d1)>
// An 8-bit input minus its zero point (|d| <= 255) converts through its
// encoding: (0x4B400000 + d) as f32 is 1.5 * 2^23 + d, exactly.
// CHECK-LABEL: func @dequantize_per_axis
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK: arith.extsi
// CHECK: %[[D:.*]] = arith.subi
// CHECK: %[[K:.*]] = arith.constant 1262485504 : i32
// CHECK: %[[B:.*]] = arith.addi %[[D]], %[[K]] : i32
// CHECK: %[[F:.*]] = arith.bitcast %[[B]] : i32 to f32
// CHECK: %[[V:.*]] = arith.subf %[[F]], %{{.*}} : f32
// CHECK-NOT: arith.sitofp
// CHECK: arith.mulf %[[V]]
func.func @dequantize_per_axis(%x: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xf32> {
  %0 = dlc.dequantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// uint16 (opset 21) saturates to [0, 65535] shifted by the zero point and
// truncates to signless i16; the encoding trick holds (|v| <= 65535 < 2^22).
// CHECK-LABEL: func @quantize_u16
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<i16>) -> tensor<2x3xi16>
// CHECK: arith.divf
// CHECK: %[[ZP:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK: %[[ZF:.*]] = arith.sitofp %[[ZP]]
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.subf %[[LO]], %[[ZF]]
// CHECK: %[[HI:.*]] = arith.constant 6.553500e+04 : f32
// CHECK: arith.subf %[[HI]], %[[ZF]]
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[I:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK: arith.trunci %[[I]] : i32 to i16
func.func @quantize_u16(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui16>) -> tensor<2x3xui16> {
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<ui16>) -> tensor<2x3xui16>
  return %0 : tensor<2x3xui16>
}

// -----

// int16: [-32768, 32767], the constant zero point folded into the bounds.
// CHECK-LABEL: func @quantize_i16
// CHECK-DAG: arith.constant -3.276800e+04 : f32
// CHECK-DAG: arith.constant 3.276700e+04 : f32
// CHECK: arith.trunci %{{.*}} : i32 to i16
func.func @quantize_i16(%x: tensor<2x3xf32>) -> tensor<2x3xi16> {
  %s = arith.constant dense<0.25> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i16>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i16>) -> tensor<2x3xi16>
  return %0 : tensor<2x3xi16>
}

// -----

// A 16-bit input minus its zero point (|d| <= 65535) converts through its
// encoding too.
// CHECK-LABEL: func @dequantize_u16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: %[[D:.*]] = arith.subi
// CHECK: %[[K:.*]] = arith.constant 1262485504 : i32
// CHECK: arith.addi %[[D]], %[[K]] : i32
// CHECK-NOT: arith.sitofp
// CHECK: arith.mulf
func.func @dequantize_u16(%x: tensor<2x3xui16>, %s: tensor<3xf32>, %z: tensor<3xui16>) -> tensor<2x3xf32> {
  %0 = dlc.dequantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xui16>, tensor<3xf32>, tensor<3xui16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An i32 input (an accumulator: beyond 2^22) keeps the conversion.
// CHECK-LABEL: func @dequantize_i32
// CHECK: arith.subi
// CHECK: arith.sitofp
// CHECK-NOT: arith.bitcast
// CHECK: arith.mulf
func.func @dequantize_i32(%x: tensor<2x3xi32>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<2x3xf32> {
  %0 = dlc.dequantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Padded integer conv: i32 accumulation over a zero fill, the padding reads
// the input zero point; the requantize epilogue is its own generic.
// CHECK-LABEL: func @qconv
// CHECK: linalg.fill ins(%{{.*}} : i32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: -> tensor<1x3x4x4xi32>
// CHECK: linalg.generic
// CHECK: arith.addi
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.trunci
func.func @qconv(%x: tensor<1x2x4x4xi8>, %w: tensor<3x2x3x3xi8>, %xz: tensor<i8>, %wz: tensor<3xi8>,
                 %b: tensor<3xi32>, %m: tensor<3xf32>, %yz: tensor<i8>) -> tensor<1x3x4x4xi8> {
  %c = dlc.conv_integer %x, %w, %xz, %wz {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x3x3xi8>, tensor<i8>, tensor<3xi8>) -> tensor<1x3x4x4xi32>
  %r = dlc.requantize %c, %b, %m, %yz {axis = 1 : i64} : (tensor<1x3x4x4xi32>, tensor<3xi32>, tensor<3xf32>, tensor<i8>) -> tensor<1x3x4x4xi8>
  return %r : tensor<1x3x4x4xi8>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @qmatmul_transposed
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.extui
func.func @qmatmul_transposed(%a: tensor<2x5xui8>, %b: tensor<6x5xi8>, %az: tensor<ui8>, %bz: tensor<i8>) -> tensor<2x6xi32> {
  %0 = dlc.matmul_integer %a, %b, %az, %bz {rhs_transposed = true} : (tensor<2x5xui8>, tensor<6x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}

// -----

// A constant weight whose zero point is 0: the product takes the raw u8
// and s8 values (mma.sync's form) and the accumulator starts at
// -lhs_zp * (the weight's column sums, [3, -1]). With int8-weights-nk (the
// CUDA form) the weight is stored [N, K].
// CHECK-LABEL: func @qmatmul_const_weight
// CHECK: %[[SUMS:.*]] = arith.constant dense<[3, -1]> : tensor<2xi32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg1, %[[SUMS]] : tensor<i8>, tensor<2xi32>)
// CHECK: arith.extui
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4x3xi8>, tensor<3x2xi8>) outs(%[[INIT]] : tensor<4x2xi32>)
// CHECK-NOT: arith.subi
// CHECK: arith.muli
// CHECK: arith.addi
// NK-LABEL: func @qmatmul_const_weight
// NK: arith.constant dense<{{\[}}[1, 3, -1], [-2, 4, -3]]> : tensor<2x3xi8>
// NK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4x3xi8>, tensor<2x3xi8>)
func.func @qmatmul_const_weight(%a: tensor<4x3xui8>, %az: tensor<ui8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3]]> : tensor<3x2xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A nonzero weight zero point keeps both subtractions in the product.
// CHECK-LABEL: func @qmatmul_weight_zero_point
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: arith.subi
// CHECK: arith.subi
// CHECK: arith.muli
// NK-LABEL: func @qmatmul_weight_zero_point
func.func @qmatmul_weight_zero_point(%a: tensor<4x3xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3]]> : tensor<3x2xi8>
  %wz = arith.constant dense<[0, 1]> : tensor<2xi8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x3xi8>, tensor<3x2xi8>, tensor<i8>, tensor<2xi8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Conv with a constant weight and a constant input zero point of 5: the
// init is -5 * (per-output-channel weight sums [4, -8]); padding still
// reads the zero point, which that init takes away again.
// CHECK-LABEL: func @qconv_const_weight
// CHECK: %[[SUMS:.*]] = arith.constant dense<[4, -8]> : tensor<2xi32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[SUMS]] : tensor<i8>, tensor<2xi32>)
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : tensor<1x2x3x3xi32>)
// CHECK: tensor.extract
// CHECK-NOT: arith.subi
// CHECK: arith.muli
// NK-LABEL: func @qconv_const_weight
func.func @qconv_const_weight(%x: tensor<1x1x3x3xi8>) -> tensor<1x2x3x3xi32> {
  %w = arith.constant dense<[[[[1, 1], [1, 1]]], [[[-2, -2], [-2, -2]]]]> : tensor<2x1x2x2xi8>
  %xz = arith.constant dense<5> : tensor<i8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xz, %wz {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x3x3xi32>
  return %0 : tensor<1x2x3x3xi32>
}

// -----

// A channels_last conv_integer whose input zero point is a constant 0
// (uint8 activations from --calibrate): the padding is the constant zero,
// read from no tensor, as for float convolutions (dlc-tile-gemm-kernels
// folds such a padding into zero-filling copies), and the accumulator
// starts at zero.
// CHECK-LABEL: func @conv_integer_nhwc_zero_point_zero
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x6x16xi8>) attrs = {dlc.padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT: ^bb0(%{{.*}}: i8):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: %[[E:.*]] = tensor.extract %arg0
// CHECK: arith.select %{{.*}}, %[[E]], %[[Z]] : i8
// CHECK: linalg.fill ins(%{{.*}} : i32)
func.func @conv_integer_nhwc_zero_point_zero(%x: tensor<1x4x4x16xui8>) -> tensor<1x4x4x16xi32> {
  %xz = arith.constant dense<0> : tensor<ui8>
  %w = arith.constant dense<1> : tensor<16x3x3x16xi8>
  %wz = arith.constant dense<0> : tensor<16xi8>
  %0 = dlc.conv_integer %x, %w, %xz, %wz {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x16xui8>, tensor<16x3x3x16xi8>, tensor<ui8>, tensor<16xi8>) -> tensor<1x4x4x16xi32>
  return %0 : tensor<1x4x4x16xi32>
}

// -----

// channels_last conv_integer: the input padded with its zero point (read
// from the rank-0 zero point tensor), then one generic over (n, oh, ow, o,
// kh, kw, c): ins(input, weight, input zp, weight zp per channel (d3)).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>
// CHECK-DAG: #[[WZP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @conv_integer_nhwc
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<i8>) outs(%{{.*}} : tensor<1x6x6x8xi8>)
// CHECK-NEXT: ^bb0(%[[Z:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[E:.*]] = tensor.extract %arg0
// CHECK: arith.select %{{.*}}, %[[E]], %[[Z]] : i8
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : i32)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[S]], #[[WZP]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %arg1, %arg2, %arg3 : tensor<1x6x6x8xi8>, tensor<16x3x3x8xi8>, tensor<i8>, tensor<16xi8>) outs(%[[F]] : tensor<1x4x4x16xi32>)
// CHECK: arith.muli
// CHECK: arith.addi
func.func @conv_integer_nhwc(%x: tensor<1x4x4x8xi8>, %w: tensor<16x3x3x8xi8>, %xzp: tensor<i8>, %wzp: tensor<16xi8>) -> tensor<1x4x4x16xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x3x3x8xi8>, tensor<i8>, tensor<16xi8>) -> tensor<1x4x4x16xi32>
  return %0 : tensor<1x4x4x16xi32>
}

// -----

// channels_last conv_integer with a constant weight and a zero weight zero
// point: the zero-point split, as for NCHW -- ins(x padded with x_zp, w)
// only, raw products onto -x_zp * wsum[o] (over d3 of the NHWC result):
// the int8 implicit-GEMM form of dlc-tile-gemm-kernels.
// CHECK-LABEL: func @conv_integer_nhwc_split
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<i8>) outs(%{{.*}} : tensor<1x5x5x2xi8>)
// CHECK: %[[SUMS:.*]] = arith.constant dense<[4, -8]> : tensor<2xi32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg1, %[[SUMS]] : tensor<i8>, tensor<2xi32>) outs(%{{.*}} : tensor<1x4x4x2xi32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %{{.*}} : tensor<1x5x5x2xi8>, tensor<2x2x2x2xi8>) outs(%[[INIT]] : tensor<1x4x4x2xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i8, %[[W:.*]]: i8, %[[A:.*]]: i32):
// CHECK-NEXT: %[[XE:.*]] = arith.extsi %[[X]] : i8 to i32
// CHECK-NEXT: %[[WE:.*]] = arith.extsi %[[W]] : i8 to i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[XE]], %[[WE]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[M]] : i32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @conv_integer_nhwc_split(%x: tensor<1x4x4x2xi8>, %xz: tensor<i8>) -> tensor<1x4x4x2xi32> {
  %w = arith.constant dense<[[[[1, 0], [0, 1]], [[1, 0], [0, 1]]], [[[-2, 0], [0, -2]], [[-2, 0], [0, -2]]]]> : tensor<2x2x2x2xi8>
  %wz = arith.constant dense<0> : tensor<2xi8>
  %0 = dlc.conv_integer %x, %w, %xz, %wz {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x2x2x2xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x4x4x2xi32>
  return %0 : tensor<1x4x4x2xi32>
}

// -----

// A grouped (depthwise) channels_last conv_integer has no padded copy: the
// body reads the input under the window with bounds checks and the input
// zero point (operand 1) outside it, as grouped float convolutions do.
// CHECK-LABEL: func @conv_integer_nhwc_depthwise
// CHECK-NOT: tensor<1x6x6x4xi8>
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2, %arg3 : tensor<4x3x3x1xi8>, tensor<i8>, tensor<4xi8>) outs(%{{.*}} : tensor<1x4x4x4xi32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i8, %[[Z:.*]]: i8, %{{.*}}: i8, %{{.*}}: i32):
// CHECK: %[[E:.*]] = tensor.extract %arg0
// CHECK: %[[X:.*]] = arith.select %{{.*}}, %[[E]], %[[Z]] : i8
// CHECK: arith.extsi %[[X]] : i8 to i32
// CHECK: arith.muli
// CHECK: arith.addi
func.func @conv_integer_nhwc_depthwise(%x: tensor<1x4x4x4xi8>, %w: tensor<4x3x3x1xi8>, %xzp: tensor<i8>, %wzp: tensor<4xi8>) -> tensor<1x4x4x4xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {channels_last, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xi8>, tensor<4x3x3x1xi8>, tensor<i8>, tensor<4xi8>) -> tensor<1x4x4x4xi32>
  return %0 : tensor<1x4x4x4xi32>
}

// -----

// Two activations with a zero rhs zero point. Host: the subtracting form.
// With int8-weights-nk (the CUDA form): the rhs copied to [N, K], its
// column sums reduced at run time, the init -lhs_zp * sums, and the raw
// product, so the GEMM takes the tensor-core path.
// CHECK-LABEL: func @qmatmul_activations
// CHECK: linalg.fill
// CHECK: arith.subi
// NK-LABEL: func @qmatmul_activations
// NK: %[[T:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x3x5xi8>) outs(%{{.*}} : tensor<2x5x3xi8>)
// NK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[T]] : tensor<2x5x3xi8>) outs(%{{.*}} : tensor<2x5xi32>)
// NK: arith.extsi
// NK: %[[I:.*]] = linalg.generic {{.*}} ins(%arg2, %{{.*}}, %[[S]] : tensor<i8>, tensor<i8>, tensor<2x5xi32>) outs(%{{.*}} : tensor<2x4x5xi32>)
// NK: linalg.generic {{.*}} ins(%arg0, %[[T]] : tensor<2x4x3xi8>, tensor<2x5x3xi8>) outs(%[[I]] : tensor<2x4x5xi32>)
// NK-NOT: arith.subi
// NK: arith.muli
func.func @qmatmul_activations(%a: tensor<2x4x3xi8>, %b: tensor<2x3x5xi8>, %az: tensor<i8>) -> tensor<2x4x5xi32> {
  %bz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %b, %az, %bz {rhs_transposed = false} : (tensor<2x4x3xi8>, tensor<2x3x5xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4x5xi32>
  return %0 : tensor<2x4x5xi32>
}

// -----

// A constant per-tensor zero point is built in the body instead of read:
// 0 (a uint8 activation from --calibrate) costs nothing in the dequantize;
// 3 folds into the quantize's clamp bounds (-128 - 3, 127 - 3) and its
// integer offset (3 - 0x4B400000).
// CHECK-LABEL: func @constant_zero_points
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4xi8>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[Q:.*]]: i8, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.extui %[[Q]] : i8 to i32
// CHECK-NOT: arith.subi
// CHECK: arith.addi %[[D]], %{{.*}} : i32
// CHECK: linalg.generic {{.*}} ins(%arg1, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>, tensor<f32>)
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.310000e+02 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 1.240000e+02 : f32
// CHECK: arith.maxnumf %{{.*}}, %[[LO]] : f32
// CHECK: arith.minnumf %{{.*}}, %[[HI]] : f32
// CHECK: %[[K:.*]] = arith.constant -1262485501 : i32
// CHECK: arith.addi %{{.*}}, %[[K]] : i32
func.func @constant_zero_points(%q: tensor<4xui8>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi8>) {
  %s = arith.constant dense<0.5> : tensor<f32>
  %z0 = arith.constant dense<0> : tensor<ui8>
  %z1 = arith.constant dense<3> : tensor<i8>
  %d = dlc.dequantize_linear %q, %s, %z0 {axis = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %y = dlc.quantize_linear %x, %s, %z1 {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %d, %y : tensor<4xf32>, tensor<4xi8>
}
