// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="quad-matmul-weights=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF

// An s8 x s8 MatMul of a constant [K, N] weight (zero point 0, split out)
// and K = 4: the weight becomes byte quadruples [K / 4, 4 N], w[4 k2 + p][n]
// at [k2, 4 n + p], the reduction k2 and p; the lhs is read as u8 (x xor
// 0x80, a parallel generic of its own), so the init subtracts (lhs_zp +
// 128) * the column sums.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2 * 4 + d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d1 * 4 + d3)>
// CHECK-DAG: #[[E:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @quads_s8s8
// CHECK: %[[Q:.*]] = arith.constant dense<{{\[}}[1, 3, -1, 5, -2, 4, -3, 6]]> : tensor<1x8xi8>
// CHECK: %[[SUMS:.*]] = arith.constant dense<[8, 5]> : tensor<2xi32>
// CHECK: linalg.generic {{.*}} ins(%arg1, %[[SUMS]] : tensor<i8>, tensor<2xi32>)
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.addi {{.*}}, %c128_i32 : i32
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x4xi8>
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x4xi8>) outs(%{{.*}} : tensor<4x4xi8>)
// CHECK: arith.xori {{.*}}, %c-128_i8 : i8
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[W]], #[[E]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[Q]], %[[E1]] : tensor<4x4xi8>, tensor<1x8xi8>, tensor<1x4xi8>)
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.extsi {{.*}} : i8 to i32
// OFF-LABEL: func @quads_s8s8
// OFF-NOT: arith.xori
// OFF: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4x4xi8>, tensor<4x2xi8>)
func.func @quads_s8s8(%a: tensor<4x4xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, -2], [3, 4], [-1, -3], [5, 6]]> : tensor<4x2xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x4xi8>, tensor<4x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A u8 lhs (DynamicQuantizeLinear's) times s8 weights is vpdpbusd's form
// as it is: no flip, the init subtracts lhs_zp * the column sums only. A
// transposed weight ([N, K]) gives the same quadruples.
// CHECK-LABEL: func @quads_u8s8_transposed
// CHECK-NOT: %c128_i32
// CHECK: arith.constant dense<{{\[}}[1, 3, -1, 5, -2, 4, -3, 6]]> : tensor<1x8xi8>
// CHECK-NOT: arith.xori
// CHECK: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3x4xi8>, tensor<1x8xi8>, tensor<1x4xi8>)
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.extsi {{.*}} : i8 to i32
func.func @quads_u8s8_transposed(%a: tensor<3x4xui8>, %az: tensor<ui8>) -> tensor<3x2xi32> {
  %w = arith.constant dense<[[1, 3, -1, 5], [-2, 4, -3, 6]]> : tensor<2x4xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = true} : (tensor<3x4xui8>, tensor<2x4xi8>, tensor<ui8>, tensor<i8>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// A weight larger than L1 has rows of an odd number of 64-byte lines: 4 N =
// 512 bytes (8 lines) become 9 lines, the 64 bytes past 4 N zeros.
// CHECK-LABEL: func @padded_rows
// CHECK: arith.constant dense<{{.*}}> : tensor<128x576xi8>
// CHECK: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x512xi8>, tensor<128x576xi8>, tensor<128x4xi8>)
func.func @padded_rows(%a: tensor<2x512xui8>, %az: tensor<ui8>) -> tensor<2x128xi32> {
  %w = arith.constant dense<3> : tensor<512x128xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<2x512xui8>, tensor<512x128xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x128xi32>
  return %0 : tensor<2x128xi32>
}

// -----

// u8 x u8 has no vpdpbusd form, and a K that 4 does not divide no
// quadruples: both keep the byte weight and one reduction.
// CHECK-LABEL: func @u8u8
// CHECK-NOT: tensor.empty() : tensor<{{.*}}x4xi8>
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x4xi8>, tensor<4x2xi8>)
func.func @u8u8(%a: tensor<4x4xui8>, %az: tensor<ui8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<[[1, 2], [3, 4], [1, 3], [5, 6]]> : tensor<4x2xui8>
  %wz = arith.constant dense<0> : tensor<ui8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x4xui8>, tensor<4x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// CHECK-LABEL: func @k6
// CHECK-NOT: arith.xori
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %{{.*}} : tensor<4x6xi8>, tensor<6x2xi8>)
func.func @k6(%a: tensor<4x6xi8>, %az: tensor<i8>) -> tensor<4x2xi32> {
  %w = arith.constant dense<1> : tensor<6x2xi8>
  %wz = arith.constant dense<0> : tensor<i8>
  %0 = dlc.matmul_integer %a, %w, %az, %wz {rhs_transposed = false} : (tensor<4x6xi8>, tensor<6x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
