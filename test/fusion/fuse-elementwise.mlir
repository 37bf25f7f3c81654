// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg --dlc-fuse-elementwise | FileCheck %s

// A bias add (broadcast folded into the indexing) and a Relu become one op.
// CHECK-LABEL: func @chain
func.func @chain(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic
  // CHECK: arith.addf
  // CHECK: arith.maximumf
  // CHECK-NOT: linalg.generic
  %0 = dlc.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = dlc.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// The transpose is folded into the consumer's indexing map.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func @transpose_into_add
func.func @transpose_into_add(%x: tensor<3x2xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[T]],
  // CHECK-NOT: linalg.generic
  %0 = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %1 = dlc.add %0, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Two uses: the producer stays (fusing would compute it twice).
// CHECK-LABEL: func @shared_producer
func.func @shared_producer(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-COUNT-3: linalg.generic
  %0 = dlc.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = dlc.relu %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = dlc.sqrt %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A producer read through a broadcast would be recomputed per element of
// the consumer: not fused.
// CHECK-LABEL: func @broadcast_read
func.func @broadcast_read(%x: tensor<3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<3xf32>)
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}} ins(%[[E]], %arg1
  %0 = dlc.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = dlc.mul %0, %y : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Convolution windows reuse their input: an elementwise producer is not
// fused into the convolution.
// CHECK-LABEL: func @no_fusion_into_conv
func.func @no_fusion_into_conv(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}} "reduction"
  // CHECK-NOT: math.exp
  %0 = dlc.exp %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %1 = dlc.conv %0, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %1 : tensor<1x1x2x2xf32>
}

// -----

// A residual add of two requantized convolutions (ResNet's downsample and
// conv3 branches, after dlc-fold-qdq). The op that reads both can join only
// one convolution's kernel, the later one's (kernel fusion merges
// neighbours): that conv's requantize fuses into it; the earlier conv's
// requantize stays its own op, so its kernel stores the int8 result rather
// than the i32 accumulator.
// CHECK-LABEL: func @requantize_stays_with_earlier_reduction
func.func @requantize_stays_with_earlier_reduction(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi8> {
  // CHECK: %[[A:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: %[[RA:.*]] = linalg.generic {{.*}} ins(%[[A]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK: arith.fptosi
  // CHECK: %[[B:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: linalg.generic {{.*}} ins(%[[B]], {{.*}}%[[RA]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK-NOT: linalg.generic
  %z = arith.constant dense<0> : tensor<i8>
  %m = arith.constant dense<0.5> : tensor<f32>
  %s = arith.constant dense<0.25> : tensor<f32>
  %a = dlc.conv_integer %x, %w, %z, %z {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %ra = dlc.requantize %a, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %b = dlc.conv_integer %x, %w, %z, %z {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %rb = dlc.requantize %b, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %da = dlc.dequantize_linear %ra, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %db = dlc.dequantize_linear %rb, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %sum = dlc.add %db, %da : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %sum, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  return %q : tensor<1x2x4x4xi8>
}

// -----

// ResNet's last block, after dlc-fold-qdq: conv -> requantize -> residual
// add on the float grid -> quantize -> dequantize -> GlobalAveragePool. The
// last dequantize (i8 -> f32) fuses into the pooling before anything fuses
// into it (else the requantize would follow it into the pooling, which
// would then read the conv's i32 accumulator): the requantize stays for the
// conv's kernel, and the pooling reads int8.
// CHECK-LABEL: func @widening_op_joins_the_reduction
func.func @widening_op_joins_the_reduction(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>, %y: tensor<1x2x4x4xi8>) -> tensor<1x2x1x1xf32> {
  // CHECK: %[[A:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK: arith.fptosi
  // CHECK: linalg.generic {{.*}} "reduction"{{.*}} ins(%[[R]], {{.*}} outs(%{{.*}} : tensor<1x2x1x1xf32>)
  // CHECK-NOT: linalg.generic
  %z = arith.constant dense<0> : tensor<i8>
  %m = arith.constant dense<0.5> : tensor<f32>
  %s = arith.constant dense<0.25> : tensor<f32>
  %a = dlc.conv_integer %x, %w, %z, %z {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %r = dlc.requantize %a, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %d = dlc.dequantize_linear %r, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %dy = dlc.dequantize_linear %y, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %sum = dlc.add %d, %dy : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %sum, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %dq = dlc.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %p = dlc.reduce_mean %dq {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  return %p : tensor<1x2x1x1xf32>
}
