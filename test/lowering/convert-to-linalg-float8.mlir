// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s

// The float8 types convert through f32 with integer arithmetic on the bits
// (passes/lowering/Float8.cpp): LLVM has no 8-bit floats.

// Saturating (the default): overflow and infinities give the largest finite
// value, f8E4M3FN's 0x7E (448); NaN gives 0x7F.
// CHECK-LABEL: func @to_e4m3fn
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK: %[[BITS:.*]] = arith.bitcast %[[IN]] : f32 to i32
// CHECK: %[[MAX:.*]] = arith.constant 126 : i32
// CHECK: %[[OVF:.*]] = arith.cmpi ugt, %{{.*}}, %[[MAX]] : i32
// CHECK: %[[SAT:.*]] = arith.constant 126 : i32
// CHECK: arith.select %[[OVF]], %[[SAT]], %{{.*}} : i32
// CHECK: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK: arith.select %{{.*}}, %[[NAN]], %{{.*}} : i32
// CHECK: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[F8:.*]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK: linalg.yield %[[F8]] : f8E4M3FN
func.func @to_e4m3fn(%a: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = dlc.cast %a : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Without saturation, f8E5M2 overflows to infinity (0x7C).
// CHECK-LABEL: func @to_e5m2_no_saturate
// CHECK: %[[MAX:.*]] = arith.constant 123 : i32
// CHECK: %[[OVF:.*]] = arith.cmpi ugt, %{{.*}}, %[[MAX]] : i32
// CHECK: %[[INF:.*]] = arith.constant 124 : i32
// CHECK: arith.select %[[OVF]], %[[INF]], %{{.*}} : i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E5M2
func.func @to_e5m2_no_saturate(%a: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %0 = dlc.cast %a {saturate = false} : (tensor<4xf32>) -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

// The FNUZ formats: NaN (and, without saturation, overflow) is 0x80, which
// is also where -0 would be: a zero magnitude drops its sign.
// CHECK-LABEL: func @to_e4m3fnuz_no_saturate
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: %[[NAN:.*]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: arith.select %[[NAN]], %[[C128]], %{{.*}} : i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FNUZ
func.func @to_e4m3fnuz_no_saturate(%a: tensor<4xf32>) -> tensor<4xf8E4M3FNUZ> {
  %0 = dlc.cast %a {saturate = false} : (tensor<4xf32>) -> tensor<4xf8E4M3FNUZ>
  return %0 : tensor<4xf8E4M3FNUZ>
}

// -----

// float8 to f16: to f32 (exact), then truncf. The subnormals are m units of
// 2^(1 - bias - mantissa) = 2^-16 for f8E5M2; the top exponent is infinity
// or NaN.
// CHECK-LABEL: func @e5m2_to_f16
// CHECK: ^bb0(%[[IN:.*]]: f8E5M2, %{{.*}}: f16):
// CHECK: %[[BYTE:.*]] = arith.bitcast %[[IN]] : f8E5M2 to i8
// CHECK: arith.extui %[[BYTE]] : i8 to i32
// CHECK: arith.constant 1.52587891E-5 : f32
// CHECK: arith.constant 2139095040 : i32
// CHECK: %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[H:.*]] = arith.truncf %[[F32]] : f32 to f16
// CHECK: linalg.yield %[[H]] : f16
func.func @e5m2_to_f16(%a: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = dlc.cast %a : (tensor<4xf8E5M2>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Between two float8 formats: through f32; an integer: fptosi after it.
// CHECK-LABEL: func @e4m3fn_to_e5m2fnuz_and_i32
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E5M2FNUZ
// CHECK: arith.fptosi %{{.*}} : f32 to i32
func.func @e4m3fn_to_e5m2fnuz_and_i32(%a: tensor<4xf8E4M3FN>) -> (tensor<4xf8E5M2FNUZ>, tensor<4xi32>) {
  %0 = dlc.cast %a : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2FNUZ>
  %1 = dlc.cast %a : (tensor<4xf8E4M3FN>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf8E5M2FNUZ>, tensor<4xi32>
}
