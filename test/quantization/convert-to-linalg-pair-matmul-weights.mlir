// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pair-matmul-weights=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF

// An integer MatMul of a constant [K, N] weight (zero point 0, split out)
// and an even K: the weight becomes i16 pairs [K / 2, 2 N], w[2 k2 + p][n]
// at [k2, 2 n + p], and the reduction runs as k2 and p (the lhs, widened
// to i16 by a parallel generic of its own, read at column 2 k2 + p), their
// extents from a tensor.empty of [K / 2, 2]. The init still subtracts
// lhs_zp * the column sums.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2 * 2 + d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d1 * 2 + d3)>
// CHECK-DAG: #[[E:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func @pairs
// CHECK: arith.constant dense<[8, 5]> : tensor<2xi32>
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}[1, 3, -2, 4], [-1, 5, -3, 6]]> : tensor<2x4xi16>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x2xi8>
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x4xi8>) outs(%{{.*}} : tensor<4x4xi16>)
// CHECK: arith.extsi {{.*}} : i8 to i16
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[W]], #[[E]], #[[O]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[P]], %[[E2]] : tensor<4x4xi16>, tensor<2x4xi16>, tensor<2x2xi8>)
// CHECK: arith.extsi {{.*}} : i16 to i32
// CHECK: arith.extsi {{.*}} : i16 to i32
// OFF-LABEL: func @pairs
// OFF: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4x4xi8>, tensor<4x2xi8>)
func.func @pairs(%a: tensor<4x4xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3], [5, 6]]> : tensor<4x2xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x4xi8>, tensor<4x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A transposed weight ([N, K]) gives the same pairs; u8 weights and a u8
// lhs are zero-extended (200 stays 200).
// CHECK-LABEL: func @pairs_transposed_u8
// CHECK: arith.constant dense<{{\[}}[1, 3, 200, 4], [1, 5, 3, 6]]> : tensor<2x4xi16>
// CHECK: arith.extui {{.*}} : i8 to i16
func.func @pairs_transposed_u8(%a: tensor<3x4xui8>, %az: tensor<ui8>) -> tensor<3x2xi32> {
  %w = arith.constant dense<[[1, 3, 1, 5], [200, 4, 3, 6]]> : tensor<2x4xui8>
  %wz = arith.constant dense<0> : tensor<ui8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = true} : (tensor<3x4xui8>, tensor<2x4xui8>, tensor<ui8>, tensor<ui8>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// A batched lhs [B, M, K] times a 2-D weight: the batch dim leads.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3 * 2 + d4)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d2 * 2 + d4)>
// CHECK-LABEL: func @pairs_batched
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}[1, 4, 2, 5, 3, 6]]> : tensor<1x6xi16>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[P]], %{{.*}} : tensor<2x3x2xi16>, tensor<1x6xi16>, tensor<1x2xi8>)
func.func @pairs_batched(%a: tensor<2x3x2xi8>, %az: tensor<i8>) -> tensor<2x3x3xi32> {
  %w = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<2x3x2xi8>, tensor<2x3xi8>, tensor<i8>, tensor<i8>) -> tensor<2x3x3xi32>
  return %0 : tensor<2x3x3xi32>
}

// -----

// A weight larger than L1 has rows of an odd number of 64-byte lines: 2 N =
// 256 halves (8 lines) become 9 lines, the 32 halves past 2 N zeros.
// CHECK-LABEL: func @padded_rows
// CHECK: arith.constant dense<{{.*}}> : tensor<128x288xi16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x256xi16>, tensor<128x288xi16>, tensor<128x2xi8>)
func.func @padded_rows(%a: tensor<2x256xi8>, %az: tensor<i8>) -> tensor<2x128xi32> {
  %w = arith.constant dense<3> : tensor<256x128xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<2x256xi8>, tensor<256x128xi8>, tensor<i8>, tensor<i8>) -> tensor<2x128xi32>
  return %0 : tensor<2x128xi32>
}

// -----

// An odd K keeps the byte weight and one reduction.
// CHECK-LABEL: func @odd_k
// CHECK-NOT: xi16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %{{.*}} : tensor<4x3xi8>, tensor<3x2xi8>)
func.func @odd_k(%a: tensor<4x3xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3]]> : tensor<3x2xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x3xi8>, tensor<3x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A nonzero weight zero point is subtracted in the body: no pairs.
// CHECK-LABEL: func @weight_zero_point
// CHECK-NOT: xi16>
// CHECK: arith.subi
// CHECK: arith.subi
func.func @weight_zero_point(%a: tensor<4x4xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3], [5, 6]]> : tensor<4x2xi8>
  %wz = arith.constant dense<[0, 1]> : tensor<2xi8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x4xi8>, tensor<4x2xi8>, tensor<i8>, tensor<2xi8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Two activations (attention's Q.K^T): nothing to pair.
// CHECK-LABEL: func @activations
// CHECK-NOT: xi16>
// CHECK: return
func.func @activations(%a: tensor<4x4xi8>, %b: tensor<4x2xi8>, %az: tensor<i8>, %bz: tensor<i8>) -> tensor<4x2xi32> {
  %0 = dlc.matmul_integer %a, %b, %az, %bz {rhs_transposed = false} : (tensor<4x4xi8>, tensor<4x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
