// RUN: dlc-opt %s --split-input-file --dlc-quantize | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-quantize --dlc-fold-qdq | FileCheck %s --check-prefix=FOLD
// RUN: dlc-opt %s --split-input-file --dlc-quantize=quantize-residuals=false | FileCheck %s --check-prefix=NORES

// A Conv with calibrated input range [-1, 6]: the input goes through an
// asymmetric int8 quantize/dequantize pair (scale 7/255, zero point
// round(-128 + 1/scale) = -92), the weight becomes int8 per output channel
// (scale max|w[c]| / 127: 2/127 and 0.5/127, values round(w / scale)).
// dlc-fold-qdq then folds it into conv_integer with a float epilogue whose
// scale is x_scale * w_scale[c] and whose zero point is -round(b / that).
// CHECK-LABEL: func @conv
// CHECK-DAG: %[[XS:.*]] = arith.constant dense<0.0274509806> : tensor<f32>
// CHECK-DAG: %[[XZ:.*]] = arith.constant dense<-92> : tensor<i8>
// CHECK-DAG: %[[WQ:.*]] = arith.constant dense<{{\[\[\[\[}}127, -64]]], {{\[\[\[}}-127, 32]]]]> : tensor<2x1x1x2xi8>
// CHECK-DAG: %[[WS:.*]] = arith.constant dense<[0.0157480314, 0.00393700786]> : tensor<2xf32>
// CHECK-DAG: %[[WZ:.*]] = arith.constant dense<0> : tensor<2xi8>
// CHECK: %[[Q:.*]] = dlc.quantize_linear %arg0, %[[XS]], %[[XZ]] {axis = 0 : i64} : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xi8>
// CHECK: %[[DQ:.*]] = dlc.dequantize_linear %[[Q]], %[[XS]], %[[XZ]] {axis = 0 : i64}
// CHECK: %[[W:.*]] = dlc.dequantize_linear %[[WQ]], %[[WS]], %[[WZ]] {axis = 0 : i64} : (tensor<2x1x1x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x1x2xf32>
// CHECK: %[[Y:.*]] = dlc.conv %[[DQ]], %[[W]], %{{.*}} {dilations
// CHECK-NOT: dlc.input_ranges
// CHECK: return %[[Y]]
// FOLD-LABEL: func @conv
// FOLD-NOT: dlc.conv %
// FOLD: %[[Q:.*]] = dlc.quantize_linear %arg0
// FOLD: %[[ACC:.*]] = dlc.conv_integer %[[Q]], %{{.*}}, %{{.*}}, %{{.*}} {{.*}} -> tensor<1x2x2x1xi32>
// FOLD: %[[Y:.*]] = dlc.dequantize_linear %[[ACC]], %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x2x1xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x2x1xf32>
// FOLD: return %[[Y]]
func.func @conv(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x1xf32> {
  %w = arith.constant dense<[[[[2.0, -1.0]]], [[[-0.5, 0.125]]]]> : tensor<2x1x1x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = dlc.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dlc.input_ranges = [array<f32: -1.0, 6.0>]} : (tensor<1x1x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// -----

// Without dlc.input_ranges nothing changes (layers kept in fp32).
// CHECK-LABEL: func @unmarked
// CHECK-NOT: quantize_linear
// CHECK: dlc.conv %arg0, %{{.*}}, %{{.*}} {dilations
// FOLD-LABEL: func @unmarked
// FOLD: dlc.conv %arg0
func.func @unmarked(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x1xf32> {
  %w = arith.constant dense<[[[[2.0, -1.0]]], [[[-0.5, 0.125]]]]> : tensor<2x1x1x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = dlc.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// -----

// Gemm without transB: the weight's output channels are its columns (axis
// 1). A range that excludes 0 ([2, 4]) is widened to [0, 4]; with nothing
// below 0 it is uint8 with zero point 0 (the grid of int8 with zero point
// -128, without zero-point arithmetic).
// CHECK-LABEL: func @gemm
// CHECK-DAG: %[[XS:.*]] = arith.constant dense<0.0156862754> : tensor<f32>
// CHECK-DAG: %[[XZ:.*]] = arith.constant dense<0> : tensor<ui8>
// CHECK-DAG: %[[WS:.*]] = arith.constant dense<[0.0236220472, 0.00787401571, 0.00393700786]> : tensor<3xf32>
// CHECK: %[[Q:.*]] = dlc.quantize_linear %arg0, %[[XS]], %[[XZ]] {axis = 0 : i64} : (tensor<4x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
// CHECK: dlc.dequantize_linear %{{.*}}, %[[WS]], %{{.*}} {axis = 1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
// CHECK: dlc.gemm
// FOLD-LABEL: func @gemm
// FOLD-NOT: dlc.gemm
// FOLD: dlc.matmul_integer %{{.*}} {rhs_transposed = false} : (tensor<4x2xui8>, tensor<2x3xi8>, tensor<ui8>, tensor<3xi8>) -> tensor<4x3xi32>
func.func @gemm(%a: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %b = arith.constant dense<[[3.0, 1.0, -0.5], [-1.0, 0.5, 0.25]]> : tensor<2x3xf32>
  %c = arith.constant dense<[0.5, 0.0, -0.5]> : tensor<3xf32>
  %y = dlc.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false, dlc.input_ranges = [array<f32: 2.0, 4.0>]} : (tensor<4x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// MatMul of two activations (attention scores): both operands are
// quantized per tensor with their own ranges; no weight.
// CHECK-LABEL: func @matmul_activations
// CHECK: %[[A:.*]] = dlc.quantize_linear %arg0
// CHECK: %[[AD:.*]] = dlc.dequantize_linear %[[A]]
// CHECK: %[[B:.*]] = dlc.quantize_linear %arg1
// CHECK: %[[BD:.*]] = dlc.dequantize_linear %[[B]]
// CHECK: dlc.matmul %[[AD]], %[[BD]]
// FOLD-LABEL: func @matmul_activations
// FOLD-NOT: dlc.matmul %
// FOLD: dlc.matmul_integer {{.*}} : (tensor<1x2x3x4xi8>, tensor<1x2x4x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x3x3xi32>
// FOLD: dlc.dequantize_linear {{.*}} : (tensor<1x2x3x3xi32>, tensor<f32>, tensor<i32>) -> tensor<1x2x3x3xf32>
func.func @matmul_activations(%a: tensor<1x2x3x4xf32>, %b: tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = dlc.matmul %a, %b {dlc.input_ranges = [array<f32: -2.0, 2.0>, array<f32: -1.0, 3.0>]} : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// MatMul of a 3-D activation and a constant weight (a transformer's
// projection): per-channel weight along the rhs's last axis; a weight of
// more than 8 elements becomes a resource blob.
// CHECK-LABEL: func @matmul_weight
// CHECK: %[[WQ:.*]] = arith.constant dense_resource<dlc_int8_weight> : tensor<3x4xi8>
// CHECK: dlc.dequantize_linear %[[WQ]], %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<3x4xf32>
// FOLD-LABEL: func @matmul_weight
// FOLD: dlc.matmul_integer {{.*}} : (tensor<1x2x3xi8>, tensor<3x4xi8>, tensor<i8>, tensor<4xi8>) -> tensor<1x2x4xi32>
// FOLD: dlc.dequantize_linear {{.*}} {axis = 2 : i64} : (tensor<1x2x4xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<1x2x4xf32>
func.func @matmul_weight(%a: tensor<1x2x3xf32>) -> tensor<1x2x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, -2.0, -3.0, -4.0], [0.5, 0.25, 0.0, 8.0]]> : tensor<3x4xf32>
  %y = dlc.matmul %a, %w {dlc.input_ranges = [array<f32: -1.0, 1.0>]} : (tensor<1x2x3xf32>, tensor<3x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// An all-zero weight channel gets scale 1 (never a division by zero).
// CHECK-LABEL: func @zero_channel
// CHECK-DAG: arith.constant dense<[1.000000e+00, 0.00787401571]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<{{\[\[}}0, 0], [0, 127]]> : tensor<2x2xi8>
func.func @zero_channel(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[0.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y = dlc.gemm %a, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true, dlc.input_ranges = [array<f32: 0.0, 1.0>]} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A residual connection: %h feeds the marked Conv and two Adds, one of them
// before the Conv. Both Adds read the dequantized value, created right after
// %h, so %h crosses kernels once, in int8. A Sub is no residual add and
// keeps the float value. quantize-residuals=false: the Adds read %h.
// CHECK-LABEL: func @residual
// CHECK: %[[H:.*]] = dlc.relu %arg0
// CHECK: %[[Q:.*]] = dlc.quantize_linear %[[H]]
// CHECK: %[[DQ:.*]] = dlc.dequantize_linear %[[Q]]
// CHECK: %[[E:.*]] = dlc.add %[[DQ]], %arg1
// CHECK: %[[S:.*]] = dlc.sub %[[H]], %arg1
// CHECK: %[[Y:.*]] = dlc.conv %[[DQ]]
// CHECK: %[[R:.*]] = dlc.add %[[Y]], %[[DQ]]
// FOLD-LABEL: func @residual
// FOLD: %[[Q:.*]] = dlc.quantize_linear
// FOLD: %[[DQ:.*]] = dlc.dequantize_linear %[[Q]]
// FOLD: dlc.add %[[DQ]], %arg1
// FOLD: %[[ACC:.*]] = dlc.conv_integer %[[Q]]
// NORES-LABEL: func @residual
// NORES: %[[H:.*]] = dlc.relu %arg0
// NORES: dlc.add %[[H]], %arg1
// NORES: %[[Y:.*]] = dlc.conv %{{.*}}
// NORES: dlc.add %[[Y]], %[[H]]
func.func @residual(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = arith.constant dense<[[[[2.0]], [[-1.0]]], [[[-0.5]], [[0.125]]]]> : tensor<2x2x1x1xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %h = dlc.relu %x : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %e = dlc.add %h, %z : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = dlc.sub %h, %z : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = dlc.conv %h, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dlc.input_ranges = [array<f32: 0.0, 6.0>]} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = dlc.add %y, %h : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %e, %s, %r : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A ResNet downsample block's end: %y3 (the block's last conv) and %yd (the
// downsample conv, later) meet in an Add. %y3 has a calibrated output range:
// its result goes through a quantize/dequantize pair for that add (the
// downsample conv's kernel takes the add; %y3 crosses kernels in int8, its
// conv requantizing, instead of as i32 accumulators). %yd, the later one,
// and an add with a graph input (%s) keep their float results.
// CHECK-LABEL: func @residual_output
// CHECK: %[[Y3:.*]] = dlc.conv
// CHECK-NEXT: %[[Q:.*]] = dlc.quantize_linear %[[Y3]]
// CHECK-NEXT: %[[D:.*]] = dlc.dequantize_linear %[[Q]]
// CHECK: %[[YD:.*]] = dlc.conv
// CHECK-NOT: dlc.quantize_linear
// CHECK: dlc.add %[[D]], %[[YD]]
// CHECK: dlc.add %[[YD]], %arg1
// FOLD-LABEL: func @residual_output
// FOLD: dlc.conv_integer
// FOLD-NEXT: %[[Y3:.*]] = dlc.requantize
// FOLD: %[[D:.*]] = dlc.dequantize_linear %[[Y3]]
// FOLD: dlc.add %[[D]]
// NORES-LABEL: func @residual_output
// NORES: %[[Y3:.*]] = dlc.conv
// NORES: %[[YD:.*]] = dlc.conv
// NORES: dlc.add %[[Y3]], %[[YD]]
func.func @residual_output(%x: tensor<1x2x2x2xf32>, %s: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = arith.constant dense<[[[[2.0]], [[-1.0]]], [[[-0.5]], [[0.125]]]]> : tensor<2x2x1x1xf32>
  %y3 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dlc.input_ranges = [array<f32: 0.0, 6.0>], dlc.output_range = array<f32: -4.0, 4.0>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %yd = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dlc.input_ranges = [array<f32: 0.0, 6.0>], dlc.output_range = array<f32: -4.0, 4.0>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %r = dlc.add %y3, %yd : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %t = dlc.add %yd, %s : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r, %t : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A global average pool (GlobalAveragePool: the mean over H and W of an
// NCHW tensor) with a calibrated input range: its input goes through a
// quantize/dequantize pair (uint8, scale 6/255), as ONNX Runtime's QDQ
// models place it; the mean stays f32. After dlc-fold-qdq the pair stays,
// for the layer before to requantize in its epilogue and the pool to read
// bytes.
// CHECK-LABEL: func @global_average_pool
// CHECK-DAG: %[[S:.*]] = arith.constant dense<0.0235294122> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0> : tensor<ui8>
// CHECK: %[[Q:.*]] = dlc.quantize_linear %arg0, %[[S]], %[[Z]] {axis = 0 : i64} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
// CHECK: %[[D:.*]] = dlc.dequantize_linear %[[Q]], %[[S]], %[[Z]]
// CHECK: %[[M:.*]] = dlc.reduce_mean %[[D]] {axes = array<i64: 2, 3>, keepdims = true}
// CHECK-NOT: dlc.input_ranges
// CHECK: return %[[M]]
// FOLD-LABEL: func @global_average_pool
// FOLD: %[[Q:.*]] = dlc.quantize_linear %arg0
// FOLD: %[[D:.*]] = dlc.dequantize_linear %[[Q]]
// FOLD: dlc.reduce_mean %[[D]]
func.func @global_average_pool(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %m = dlc.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true, dlc.input_ranges = [array<f32: 0.0, 6.0>]} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %m : tensor<1x2x1x1xf32>
}

// -----

// Other means are not layers: without a mark nothing changes.
// CHECK-LABEL: func @unmarked_mean
// CHECK-NOT: quantize_linear
// CHECK: dlc.reduce_mean %arg0 {axes = array<i64: 2, 3>
func.func @unmarked_mean(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %m = dlc.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %m : tensor<1x2x1x1xf32>
}
