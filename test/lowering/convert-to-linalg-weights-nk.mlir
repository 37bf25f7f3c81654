// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="f32-weights-nk=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=KN
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="half-weights-nk=true" | FileCheck %s --check-prefix=HALF

// With f32-weights-nk (--allow-tf32 in the CUDA form) a constant 2-D f32
// MatMul weight is stored [N, K] and read through the (n, k) map: the B
// layout TF32 mma.sync reads. Batched lhs, shared weight.
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @matmul_const_weight
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BT]], #{{.*}}]{{.*}} ins(%arg0, %[[W]] : tensor<4x5x3xf32>, tensor<2x3xf32>)
// KN-LABEL: func @matmul_const_weight
// KN: ins(%arg0, %{{.*}} : tensor<4x5x3xf32>, tensor<3x2xf32>)
func.func @matmul_const_weight(%x: tensor<4x5x3xf32>) -> tensor<4x5x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %0 = dlc.matmul %x, %w : (tensor<4x5x3xf32>, tensor<3x2xf32>) -> tensor<4x5x2xf32>
  return %0 : tensor<4x5x2xf32>
}

// -----

// A weight that is not a constant keeps its [K, N] layout.
// CHECK-LABEL: func @matmul_input_weight
// CHECK: ins(%arg0, %arg1 : tensor<5x3xf32>, tensor<3x2xf32>)
// KN-LABEL: func @matmul_input_weight
func.func @matmul_input_weight(%x: tensor<5x3xf32>, %w: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %0 = dlc.matmul %x, %w : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// half-weights-nk (sm_90a, where wgmma reads a K-major B) does the same for
// f16/bf16 weights; f32-weights-nk alone leaves them [K, N].
// HALF-LABEL: func @matmul_f16_weight
// HALF: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf16>
// HALF: ins(%arg0, %[[W]] : tensor<5x3xf16>, tensor<2x3xf16>)
// CHECK-LABEL: func @matmul_f16_weight
// CHECK: ins(%arg0, %{{.*}} : tensor<5x3xf16>, tensor<3x2xf16>)
// KN-LABEL: func @matmul_f16_weight
func.func @matmul_f16_weight(%x: tensor<5x3xf16>) -> tensor<5x2xf16> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf16>
  %0 = dlc.matmul %x, %w : (tensor<5x3xf16>, tensor<3x2xf16>) -> tensor<5x2xf16>
  return %0 : tensor<5x2xf16>
}
