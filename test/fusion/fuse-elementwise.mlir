// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg --dlc-fuse-elementwise | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true pad-grouped-conv-input=true" --dlc-fuse-elementwise | FileCheck %s --check-prefix=PAD

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
  // CHECK: arith.bitcast {{.*}} : f32 to i32
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

// The same add as ResNet's layer1.0 imports it (per-channel requantizes
// with a bias, the earlier conv's dequantize visited first): fused into
// the dequantize, the requantize would reach the add as an i32 -> f32 op
// that no longer narrows, and the downsample's kernel would store its i32
// accumulator. The dequantize widens again, so the add decides: the
// requantize stays.
// CHECK-LABEL: func @requantize_stays_through_dequantize
func.func @requantize_stays_through_dequantize(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi8> {
  // CHECK: %[[A:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: %[[RA:.*]] = linalg.generic {{.*}} ins(%[[A]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK: arith.bitcast {{.*}} : f32 to i32
  // CHECK: %[[B:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: linalg.generic {{.*}} ins(%[[B]], {{.*}}%[[RA]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK-NOT: linalg.generic
  %z = arith.constant dense<0> : tensor<i8>
  %zw = arith.constant dense<0> : tensor<2xi8>
  %bias = arith.constant dense<[3, -5]> : tensor<2xi32>
  %m = arith.constant dense<[0.5, 0.125]> : tensor<2xf32>
  %s = arith.constant dense<0.25> : tensor<f32>
  %t = arith.constant dense<0.75> : tensor<f32>
  %a = dlc.conv_integer %x, %w, %z, %zw {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x2x4x4xi32>
  %ra = dlc.requantize %a, %bias, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %b = dlc.conv_integer %x, %w, %z, %zw {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x2x4x4xi32>
  %rb = dlc.requantize %b, %bias, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %db = dlc.dequantize_linear %rb, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %da = dlc.dequantize_linear %ra, %t, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
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
  // CHECK: arith.bitcast {{.*}} : f32 to i32
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

// -----

// The same block as dlc's post-training int8 leaves it: the conv's i32
// result is dequantized per channel, added to the residual, ReLU'd and only
// then quantized for the pool. The quantize ends the conv's epilogue (it
// reads the accumulator through wider elementwise ops only), so it stays
// out of the pooling whichever fuses first: the pooling reads int8, not the
// i32 accumulator.
// CHECK-LABEL: func @quantize_ends_the_epilogue_before_a_pool
func.func @quantize_ends_the_epilogue_before_a_pool(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>, %y: tensor<1x2x4x4xi8>) -> tensor<1x2x1x1xf32> {
  // CHECK: %[[A:.*]] = linalg.generic {{.*}} "reduction"
  // CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[A]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // CHECK: linalg.generic {{.*}} "reduction"{{.*}} ins(%[[Q]], {{.*}} outs(%{{.*}} : tensor<1x2x1x1xf32>)
  // CHECK-NOT: linalg.generic
  %z = arith.constant dense<0> : tensor<i8>
  %zc = arith.constant dense<0> : tensor<2xi32>
  %sc = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %s = arith.constant dense<0.25> : tensor<f32>
  %a = dlc.conv_integer %x, %w, %z, %z {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %d = dlc.dequantize_linear %a, %sc, %zc {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xf32>
  %dy = dlc.dequantize_linear %y, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %sum = dlc.add %d, %dy : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.relu %sum : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %q = dlc.quantize_linear %r, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %dq = dlc.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %p = dlc.reduce_mean %dq {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  return %p : tensor<1x2x1x1xf32>
}

// -----

// A padded copy reads its input through clamped indices (tensor.extract):
// the transpose + rounding that produced the input is computed at the
// extracted element instead, from the NCHW tensor (ResNet's stem).
// CHECK-LABEL: func @transpose_into_padded_copy
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x12x12xf32>)
// CHECK-NOT: tensor<1x12x12x3xf16>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x14x14x8xf16>)
// CHECK: %[[R:.*]] = arith.minsi %{{.*}}, %c11
// CHECK: %[[C:.*]] = arith.minsi %{{.*}}, %c2
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[C]], %[[R]], %{{.*}}] : tensor<1x3x12x12xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK: arith.select %{{.*}}, %[[H]], %{{.*}} : f16
// CHECK-NOT: linalg.generic
#nchw = affine_map<(n, h, w, c) -> (n, c, h, w)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @transpose_into_padded_copy(%x: tensor<1x3x12x12xf32>) -> tensor<1x14x14x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %zero = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<1x12x12x3xf16>
  %t = linalg.generic {indexing_maps = [#nchw, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x3x12x12xf32>) outs(%e0 : tensor<1x12x12x3xf16>) {
  ^bb0(%in: f32, %out: f16):
    %h = arith.truncf %in : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x12x12x3xf16>
  %e1 = tensor.empty() : tensor<1x14x14x8xf16>
  %p = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e1 : tensor<1x14x14x8xf16>) {
  ^bb0(%out: f16):
    %n = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %k = linalg.index 3 : index
    %i1 = arith.subi %i, %c1 : index
    %j1 = arith.subi %j, %c1 : index
    %ok_i = arith.cmpi ult, %i1, %c12 : index
    %ok_k = arith.cmpi ult, %k, %c3 : index
    %ok = arith.andi %ok_i, %ok_k : i1
    %ic = arith.minsi %i1, %c11 : index
    %kc = arith.minsi %k, %c2 : index
    %v = tensor.extract %t[%n, %ic, %j1, %kc] : tensor<1x12x12x3xf16>
    %r = arith.select %ok, %v, %zero : f16
    linalg.yield %r : f16
  } -> tensor<1x14x14x8xf16>
  return %p : tensor<1x14x14x8xf16>
}

// -----

// The producer has a second reader: it stays, and so does the extract.
// CHECK-LABEL: func @extract_of_shared_producer
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: tensor.extract %[[T]]
#id1 = affine_map<(d0) -> (d0)>
func.func @extract_of_shared_producer(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %c7, %i : index
    %v = tensor.extract %t[%j] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %t, %r : tensor<8xf32>, tensor<8xf32>
}

// -----

// A consumer with more than 4 elements per producer element would recompute
// the producer too often (an upsampling by 3x3): not inlined.
// CHECK-LABEL: func @extract_recomputing_too_much
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: tensor.extract %[[T]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @extract_recomputing_too_much(%x: tensor<2x2xf32>) -> tensor<6x6xf32> {
  %c3 = arith.constant 3 : index
  %e0 = tensor.empty() : tensor<2x2xf32>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x2xf32>) outs(%e0 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<6x6xf32>
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e1 : tensor<6x6xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i3 = arith.divui %i, %c3 : index
    %j3 = arith.divui %j, %c3 : index
    %v = tensor.extract %t[%i3, %j3] : tensor<2x2xf32>
    linalg.yield %v : f32
  } -> tensor<6x6xf32>
  return %r : tensor<6x6xf32>
}

// -----

// A reduction's epilogue (here a Relu of a row sum) stays with the
// reduction: inlined into the extract, the sum would cross kernels in
// place of its activation.
// CHECK-LABEL: func @extract_of_reduction_epilogue
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK: tensor.extract %[[T]]
#rin = affine_map<(d0, d1) -> (d0, d1)>
#rout = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @extract_of_reduction_epilogue(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#rin, #rout], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %c3, %i : index
    %v = tensor.extract %t[%j] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A padded copy marked dlc.padding is folded into its convolution later,
// which then reads the copy's input: that input stays the NHWC tensor.
// CHECK-LABEL: func @marked_padded_copy
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} attrs = {dlc.padding = array<i64: 1, 1, 1, 1>}
// CHECK: tensor.extract %[[T]]
#nchw2 = affine_map<(n, h, w, c) -> (n, c, h, w)>
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @marked_padded_copy(%x: tensor<1x8x4x4xf32>) -> tensor<1x6x6x8xf16> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<1x4x4x8xf16>
  %t = linalg.generic {indexing_maps = [#nchw2, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x4x4xf32>) outs(%e0 : tensor<1x4x4x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %h = arith.truncf %in : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x4x4x8xf16>
  %e1 = tensor.empty() : tensor<1x6x6x8xf16>
  %p = linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e1 : tensor<1x6x6x8xf16>) attrs = {dlc.padding = array<i64: 1, 1, 1, 1>} {
  ^bb0(%out: f16):
    %n = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %k = linalg.index 3 : index
    %i1 = arith.subi %i, %c1 : index
    %j1 = arith.subi %j, %c1 : index
    %ok_i = arith.cmpi ult, %i1, %c4 : index
    %ok_j = arith.cmpi ult, %j1, %c4 : index
    %ok = arith.andi %ok_i, %ok_j : i1
    %ic = arith.minsi %i1, %c3 : index
    %jc = arith.minsi %j1, %c3 : index
    %v = tensor.extract %t[%n, %ic, %jc, %k] : tensor<1x4x4x8xf16>
    %r = arith.select %ok, %v, %zero : f16
    linalg.yield %r : f16
  } -> tensor<1x6x6x8xf16>
  return %p : tensor<1x6x6x8xf16>
}

// -----

// A global pool's flatten and f16 rounding (ResNet's and MobileNet's
// classifier input): the squeeze of the reduction's result moves after the
// rounding, which then reads the reduction's result itself (and joins its
// kernel in dlc-fuse-kernels) instead of a collapsed copy of it.
// CHECK-LABEL: func @pool_flatten_round
// CHECK: %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<2x3x1x1xf32>)
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<2x3x1x1xf32>) outs(%{{.*}} : tensor<2x3x1x1xf16>)
// CHECK: arith.truncf
// CHECK: tensor.collapse_shape %[[H]] {{\[}}[0], [1, 2, 3]] : tensor<2x3x1x1xf16> into tensor<2x3xf16>
#pool_in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#pool_out = affine_map<(n, c, h, w) -> (n, c, 0, 0)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @pool_flatten_round(%x: tensor<2x3x4x4xf32>) -> tensor<2x3xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
  %sum = linalg.generic {indexing_maps = [#pool_in, #pool_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x3x4x4xf32>) outs(%init : tensor<2x3x1x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3x1x1xf32>
  %flat = tensor.collapse_shape %sum [[0], [1, 2, 3]] : tensor<2x3x1x1xf32> into tensor<2x3xf32>
  %eh = tensor.empty() : tensor<2x3xf16>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%flat : tensor<2x3xf32>) outs(%eh : tensor<2x3xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x3xf16>
  return %h : tensor<2x3xf16>
}

// -----

// Not a squeeze (two non-unit dims merged): the reshape stays before the
// rounding.
// CHECK-LABEL: func @pool_merge_round
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x3x1x1xf32> into tensor<6xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<6xf32>) outs(%{{.*}} : tensor<6xf16>)
#pool_in2 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#pool_out2 = affine_map<(n, c, h, w) -> (n, c, 0, 0)>
#id1 = affine_map<(i) -> (i)>
func.func @pool_merge_round(%x: tensor<2x3x4x4xf32>) -> tensor<6xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
  %sum = linalg.generic {indexing_maps = [#pool_in2, #pool_out2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x3x4x4xf32>) outs(%init : tensor<2x3x1x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3x1x1xf32>
  %flat = tensor.collapse_shape %sum [[0, 1, 2, 3]] : tensor<2x3x1x1xf32> into tensor<6xf32>
  %eh = tensor.empty() : tensor<6xf16>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%flat : tensor<6xf32>) outs(%eh : tensor<6xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6xf16>
  return %h : tensor<6xf16>
}

// -----

// The host's depthwise conv reads a padded copy, the input written over the
// zero point through a shifted map. The requantize before it does not fuse
// into that copy: it stays for its conv's kernel, which stores int8 rather
// than its i32 accumulator for the copy to requantize.
// PAD-LABEL: func @requantize_stays_out_of_a_padded_copy
func.func @requantize_stays_out_of_a_padded_copy(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi32> {
  // PAD: %[[A:.*]] = linalg.generic {{.*}} "reduction"
  // PAD: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], {{.*}} outs(%{{.*}} : tensor<1x2x4x4xi8>)
  // PAD: %[[F:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x6x6xi8>)
  // PAD: %[[P:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<1x2x4x4xi8>) outs(%[[F]] : tensor<1x2x6x6xi8>)
  // PAD: linalg.generic {{.*}} "reduction"{{.*}} ins(%{{.*}}, %[[P]] :
  %z = arith.constant dense<0> : tensor<i8>
  %m = arith.constant dense<0.5> : tensor<f32>
  %dw = arith.constant dense<1> : tensor<2x1x3x3xi8>
  %a = dlc.conv_integer %x, %w, %z, %z {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %r = dlc.requantize %a, %m, %z {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %d = dlc.conv_integer %r, %dw, %z, %z {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<2x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  return %d : tensor<1x2x4x4xi32>
}
