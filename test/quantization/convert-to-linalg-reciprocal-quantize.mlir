// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="reciprocal-quantize=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s --check-prefix=OFF

// A constant per-tensor scale: x times its correctly rounded reciprocal
// (RN(1 / 0.1f) = 10), corrected by the remainder x - q * s (two fmas); q
// itself where |q| >= 2^22. No division.
// CHECK-LABEL: func @per_tensor
// CHECK-DAG: %[[S:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<1.000000e+01> : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[S]], %[[R]] :
// CHECK: ^bb0(%[[X:.*]]: f32, %[[SA:.*]]: f32, %[[RA:.*]]: f32,
// CHECK: %[[Q:.*]] = arith.mulf %[[X]], %[[RA]] : f32
// CHECK: %[[NQ:.*]] = arith.negf %[[Q]] : f32
// CHECK: %[[REM:.*]] = math.fma %[[NQ]], %[[SA]], %[[X]] : f32
// CHECK: %[[REF:.*]] = math.fma %[[REM]], %[[RA]], %[[Q]] : f32
// CHECK: arith.cmpf olt, %[[Q]], %{{.*}} : f32
// CHECK: arith.cmpf ogt, %[[Q]], %{{.*}} : f32
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: arith.select %[[IN]], %[[REF]], %[[Q]] : f32
// CHECK-NOT: arith.divf
// CHECK: arith.trunci {{.*}} : i32 to i8
// OFF-LABEL: func @per_tensor
// OFF: arith.divf
// OFF-NOT: math.fma
func.func @per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// Per-axis scales get per-axis reciprocals, read along the same axis.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @per_axis
// CHECK-DAG: arith.constant dense<[2.000000e+00, 0.333333343, 4.000000e+00]> : tensor<3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #[[CH]], #[[CH]], #{{.*}}]
// CHECK: math.fma
// CHECK-NOT: arith.divf
func.func @per_axis(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = arith.constant dense<[0.5, 3.0, 0.25]> : tensor<3xf32>
  %z = arith.constant dense<0> : tensor<3xi8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// A scale known only at run time keeps the division.
// CHECK-LABEL: func @runtime_scale
// CHECK: arith.divf
// CHECK-NOT: math.fma
func.func @runtime_scale(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %z = arith.constant dense<0> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Outside [2^-64, 2^64] (here 1e-30, whose remainders would underflow) the
// reciprocal form was not checked: division.
// CHECK-LABEL: func @tiny_scale
// CHECK: arith.divf
// CHECK-NOT: math.fma
func.func @tiny_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense<1.0e-30> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// An f16 input and scale: the reciprocal of the scale widened to f32.
// CHECK-LABEL: func @half_input
// CHECK-DAG: arith.constant dense<3.00073266> : tensor<f32>
// CHECK: arith.extf
// CHECK: math.fma
// CHECK-NOT: arith.divf
func.func @half_input(%x: tensor<4xf16>) -> tensor<4xi8> {
  %s = arith.constant dense<0.333333333> : tensor<f16>
  %z = arith.constant dense<0> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf16>, tensor<f16>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Power-of-two scales: the reciprocal is exact, so x * r is x / s, one
// rounding of the same real, on every target: no correction, no division.
// CHECK-LABEL: func @power_of_two
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: i8, %[[RA:.*]]: f32,
// CHECK-NEXT: arith.mulf %[[X]], %[[RA]] : f32
// CHECK-NOT: math.fma
// CHECK-NOT: arith.divf
// CHECK: arith.trunci {{.*}} : i32 to i8
// OFF-LABEL: func @power_of_two
// OFF: arith.constant dense<[2.000000e+00, 2.500000e-01, 4.000000e+00]> : tensor<3xf32>
// OFF-NOT: arith.divf
// OFF: arith.mulf
// OFF-NOT: arith.divf
// OFF: arith.trunci {{.*}} : i32 to i8
func.func @power_of_two(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = arith.constant dense<[0.5, 4.0, 0.25]> : tensor<3xf32>
  %z = arith.constant dense<0> : tensor<3xi8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// The unit scale dlc-fold-qdq leaves on a rescaled sum: x itself is
// clamped and rounded. The constant zero point is built in the body, so the
// clamp bounds fold (-128 - -128 = 0, 127 - -128 = 255).
// CHECK-LABEL: func @unit_scale
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: i8):
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.divf
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK: %[[C:.*]] = arith.maxnumf %[[X]], %[[LO]] : f32
// CHECK: arith.minnumf %[[C]], %[[HI]] : f32
// OFF-LABEL: func @unit_scale
// OFF: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: i8):
// OFF-NOT: arith.divf
// OFF: arith.maxnumf %[[X]], %{{.*}} : f32
func.func @unit_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense<1.0> : tensor<f32>
  %z = arith.constant dense<-128> : tensor<i8>
  %0 = dlc.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
