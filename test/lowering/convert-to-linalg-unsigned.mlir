// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s

// ONNX uint8 is ui8 in the dialect: the ops whose result depends on
// signedness use unsigned arithmetic, and every type ends up signless.

// CHECK-LABEL: func @compare_ui8
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>)
func.func @compare_ui8(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  // CHECK: arith.cmpi ult
  // CHECK: arith.cmpi uge
  // CHECK: arith.cmpi eq
  %0 = dlc.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %1 = dlc.greater_or_equal %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %2 = dlc.equal %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @arith_ui8
// CHECK-SAME: -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>)
func.func @arith_ui8(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) {
  // CHECK: arith.maxui
  // CHECK: arith.minui
  // CHECK: arith.divui
  // CHECK: arith.remui
  // CHECK-NOT: arith.remsi
  // CHECK: arith.addi
  // CHECK-NOT: ui8
  %0 = dlc.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = dlc.min %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = dlc.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = dlc.mod %a, %b {fmod = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %4 = dlc.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>
}

// -----

// CHECK-LABEL: func @cast_ui8
func.func @cast_ui8(%a: tensor<4xui8>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui8>) {
  // CHECK: arith.uitofp %{{.*}} : i8 to f32
  // CHECK: arith.extui %{{.*}} : i8 to i32
  // CHECK: arith.fptoui %{{.*}} : f32 to i8
  %0 = dlc.cast %a : (tensor<4xui8>) -> tensor<4xf32>
  %1 = dlc.cast %a : (tensor<4xui8>) -> tensor<4xi32>
  %2 = dlc.cast %f : (tensor<4xf32>) -> tensor<4xui8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xui8>
}

// -----

// The max-pool and reduce-max identity is 0 for unsigned (-128 for i8).
// CHECK-LABEL: func @max_pool_ui8
func.func @max_pool_ui8(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  // CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
  // CHECK: linalg.fill ins(%[[ZERO]] : i8)
  // CHECK: arith.maxui
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  return %0 : tensor<1x1x2x2xui8>
}

// -----

// CHECK-LABEL: func @max_pool_i8
func.func @max_pool_i8(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8> {
  // CHECK: %[[LOW:.*]] = arith.constant -128 : i8
  // CHECK: linalg.fill ins(%[[LOW]] : i8)
  // CHECK: arith.maxsi
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
  return %0 : tensor<1x1x2x2xi8>
}

// -----

// CHECK-LABEL: func @reduce_min_ui8
func.func @reduce_min_ui8(%x: tensor<2x4xui8>) -> tensor<2x1xui8> {
  // CHECK: %[[HIGH:.*]] = arith.constant -1 : i8
  // CHECK: linalg.fill ins(%[[HIGH]] : i8)
  // CHECK: arith.minui
  %0 = dlc.reduce_min %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x4xui8>) -> tensor<2x1xui8>
  return %0 : tensor<2x1xui8>
}

// -----

// Data movement only reinterprets: a reshape of ui8 is an i8 reshape.
// CHECK-LABEL: func @reshape_ui8
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi8>) -> tensor<6xi8>
func.func @reshape_ui8(%x: tensor<2x3xui8>) -> tensor<6xui8> {
  // CHECK: tensor.collapse_shape %[[X]]
  %0 = dlc.reshape %x : (tensor<2x3xui8>) -> tensor<6xui8>
  return %0 : tensor<6xui8>
}

// -----

// Integer Clip: bounds saturate to the type's range (-inf -> -128, 300 -> 255).
// CHECK-LABEL: func @clip_int
func.func @clip_int(%a: tensor<4xi8>, %u: tensor<4xui8>) -> (tensor<4xi8>, tensor<4xui8>) {
  // CHECK-DAG: arith.constant -128 : i8
  // CHECK-DAG: arith.constant 5 : i8
  // CHECK: arith.maxsi
  // CHECK: arith.minsi
  // CHECK-DAG: arith.constant 2 : i8
  // CHECK-DAG: arith.constant -1 : i8
  // CHECK: arith.maxui
  // CHECK: arith.minui
  %0 = dlc.clip %a {min = 0xFFF0000000000000 : f64, max = 5.0 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  %1 = dlc.clip %u {min = 2.0 : f64, max = 300.0 : f64} : (tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xi8>, tensor<4xui8>
}

// -----

// Bool reductions: max is any (identity false), min is all (identity true),
// compared as unsigned (true > false).
// CHECK-LABEL: func @reduce_bool
func.func @reduce_bool(%x: tensor<2x4xi1>) -> (tensor<2xi1>, tensor<2xi1>) {
  // CHECK: %[[F:.*]] = arith.constant false
  // CHECK: linalg.fill ins(%[[F]] : i1)
  // CHECK: arith.maxui
  // CHECK: %[[T:.*]] = arith.constant true
  // CHECK: linalg.fill ins(%[[T]] : i1)
  // CHECK: arith.minui
  %0 = dlc.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x4xi1>) -> tensor<2xi1>
  %1 = dlc.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x4xi1>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// BitShift: amounts outside [0, width) (an unsigned compare, so negative
// ones too) select the fill; a signed right shift fills with the sign
// (x >> 7), an unsigned one logically with 0. Integer not is xor with -1.
// CHECK-LABEL: func @bit_shift
// CHECK: %[[W:.*]] = arith.constant 8 : i8
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[S:.*]], %[[W]] : i8
// CHECK: %[[AMT:.*]] = arith.select %[[IN]], %[[S]], %{{.*}} : i8
// CHECK: %[[SH:.*]] = arith.shrsi %[[X:.*]], %[[AMT]] : i8
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : i8
// CHECK: %[[SIGN:.*]] = arith.shrsi %[[X]], %[[SEVEN]] : i8
// CHECK: arith.select %[[IN]], %[[SH]], %[[SIGN]] : i8
// CHECK: arith.shrui
// CHECK: arith.shli
// CHECK: %[[ONES:.*]] = arith.constant -1 : i8
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i8
func.func @bit_shift(%a: tensor<4xi8>, %b: tensor<4xi8>, %u: tensor<4xui8>, %v: tensor<4xui8>) -> (tensor<4xi8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>) {
  %0 = dlc.bit_shift %a, %b {left = false} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = dlc.bit_shift %u, %v {left = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = dlc.bit_shift %a, %b {left = true} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = dlc.not %a : (tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2, %3 : tensor<4xi8>, tensor<4xui8>, tensor<4xi8>, tensor<4xi8>
}

// -----

// Casts between int8 and uint8 keep the bits; a bitcast between a float and
// an integer is arith.bitcast, a bool is its byte.
// CHECK-LABEL: func @casts_same_width
// CHECK-SAME: -> (tensor<4xi8>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>)
func.func @casts_same_width(%a: tensor<4xi8>, %f: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xui8>, tensor<4xf32>) {
  // CHECK: linalg.generic
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
  // CHECK-NEXT: linalg.yield %[[IN]] : i8
  // CHECK: arith.bitcast %{{.*}} : f32 to i32
  // CHECK: arith.extui %{{.*}} : i1 to i8
  // CHECK: arith.bitcast %{{.*}} : i32 to f32
  %0 = dlc.cast %a : (tensor<4xi8>) -> tensor<4xui8>
  %1 = dlc.bitcast %f : (tensor<4xf32>) -> tensor<4xi32>
  %2 = dlc.bitcast %b : (tensor<4xi1>) -> tensor<4xui8>
  %3 = dlc.bitcast %1 : (tensor<4xi32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xi32>, tensor<4xui8>, tensor<4xf32>
}

// -----

// The wider unsigned ints as ui8: unsigned division, comparisons and
// min/max; int16 signed.
// CHECK-LABEL: func @wide_ints
// CHECK-SAME: -> (tensor<4xi16>, tensor<4xi1>, tensor<4xi64>, tensor<4xi16>)
func.func @wide_ints(%a: tensor<4xui16>, %b: tensor<4xui32>, %c: tensor<4xui64>, %d: tensor<4xi16>) -> (tensor<4xui16>, tensor<4xi1>, tensor<4xui64>, tensor<4xi16>) {
  // CHECK: arith.divui %{{.*}}, %{{.*}} : i16
  // CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
  // CHECK: arith.maxui %{{.*}}, %{{.*}} : i64
  // CHECK: arith.divsi %{{.*}}, %{{.*}} : i16
  // CHECK-NOT: ui16
  // CHECK-NOT: ui32
  // CHECK-NOT: ui64
  %0 = dlc.div %a, %a : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %1 = dlc.less %b, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %2 = dlc.max %c, %c : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %3 = dlc.div %d, %d : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0, %1, %2, %3 : tensor<4xui16>, tensor<4xi1>, tensor<4xui64>, tensor<4xi16>
}
