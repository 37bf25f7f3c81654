// RUN: dlc-opt %s --split-input-file --dlc-unflatten-gemms | FileCheck %s

// GPT-2's Conv1D: rows flattened, Gemm, reshaped back -> a batched MatMul
// on the 3-D input and the bias Add.
// CHECK-LABEL: func.func @conv1d(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<4x5xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[Y:.*]] = dlc.add %[[M]], %[[B]] : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @conv1d(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %f = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %g = dlc.gemm %f, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %y = dlc.reshape %g : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Rows from an attention output [B, S, H, D]: read as [B, S, H * D].
// No bias, and a constant transB weight transposed at compile time.
// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x2x2xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00], [5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[X]] : (tensor<1x3x2x2xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[R]], %[[W]] : (tensor<1x3x4xf32>, tensor<4x2xf32>) -> tensor<1x3x2xf32>
// CHECK-NEXT: return %[[M]]
func.func @heads(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %f = dlc.reshape %x : (tensor<1x3x2x2xf32>) -> tensor<3x4xf32>
  %g = dlc.gemm %f, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %y = dlc.reshape %g : (tensor<3x2xf32>) -> tensor<1x3x2xf32>
  return %y : tensor<1x3x2xf32>
}

// -----

// A per-row bias [M, N] is reshaped like the result; a weight that is not
// a constant is transposed by a dlc.transpose.
// CHECK-LABEL: func.func @per_row_bias(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[C:.*]]: tensor<6x5xf32>)
// CHECK-NEXT: %[[T:.*]] = dlc.transpose %[[W]] {perm = array<i64: 1, 0>} : (tensor<5x4xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[T]]
// CHECK-NEXT: %[[RC:.*]] = dlc.reshape %[[C]] : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[Y:.*]] = dlc.add %[[M]], %[[RC]] : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @per_row_bias(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %c: tensor<6x5xf32>) -> tensor<2x3x5xf32> {
  %f = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %g = dlc.gemm %f, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<6x4xf32>, tensor<5x4xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %y = dlc.reshape %g : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// What stays a Gemm: alpha != 1, beta != 1 with a bias, transA, a result
// read as [M, N] too, and a result not reshaped back to rows.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-5: dlc.gemm
// CHECK-NOT: dlc.matmul
func.func @kept(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>, %xt: tensor<4x6xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<6x5xf32>, tensor<30xf32>) {
  %f = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %g0 = dlc.gemm %f, %w, %b {alpha = 0.5 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %y0 = dlc.reshape %g0 : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  %g1 = dlc.gemm %f, %w, %b {alpha = 1.0 : f32, beta = 2.0 : f32, transA = false, transB = false} : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %y1 = dlc.reshape %g1 : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  %ft = dlc.reshape %xt : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %g2 = dlc.gemm %ft, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = false} : (tensor<4x6xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %y2 = dlc.reshape %g2 : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  %g3 = dlc.gemm %f, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %y3 = dlc.reshape %g3 : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
  %g4 = dlc.gemm %f, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %y4 = dlc.reshape %g4 : (tensor<6x5xf32>) -> tensor<30xf32>
  return %y0, %y1, %y2, %y3, %g3, %y4 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<6x5xf32>, tensor<30xf32>
}
