// RUN: dlc-opt %s --split-input-file --canonicalize | FileCheck %s

// The shape subgraph exporters write folds to a constant reshape target.
// CHECK-LABEL: func @shape_subgraph
func.func @shape_subgraph(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // CHECK-NOT: dlc.shape
  // CHECK-NOT: dlc.gather
  // CHECK: %[[R:.*]] = dlc.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK: return %[[R]]
  %s = dlc.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = arith.constant dense<0> : tensor<1xi64>
  %n = dlc.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %m = arith.constant dense<12> : tensor<1xi64>
  %c = dlc.concat %n, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func @int_arith
func.func @int_arith() -> tensor<2xi64> {
  // CHECK: %[[C:.*]] = arith.constant dense<[7, 9]> : tensor<2xi64>
  // CHECK: return %[[C]]
  %a = arith.constant dense<[1, 2]> : tensor<2xi64>
  %b = arith.constant dense<3> : tensor<1xi64>
  %m = dlc.mul %a, %b : (tensor<2xi64>, tensor<1xi64>) -> tensor<2xi64>
  %c = arith.constant dense<[4, 3]> : tensor<2xi64>
  %s = dlc.add %m, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// Integer division by zero is left to run time, not folded.
// CHECK-LABEL: func @div_by_zero
func.func @div_by_zero() -> tensor<1xi64> {
  // CHECK: dlc.div
  %a = arith.constant dense<1> : tensor<1xi64>
  %b = arith.constant dense<0> : tensor<1xi64>
  %d = dlc.div %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %d : tensor<1xi64>
}

// -----

// ui8 constants fold as unsigned values: 200 > 100, max 200, 200 / 100 = 2,
// and ui8 -> i32 zero-extends.
// CHECK-LABEL: func @fold_ui8
func.func @fold_ui8() -> (tensor<1xi1>, tensor<1xui8>, tensor<1xui8>, tensor<1xi32>) {
  // CHECK-DAG: arith.constant dense<true> : tensor<1xi1>
  // CHECK-DAG: arith.constant dense<200> : tensor<1xui8>
  // CHECK-DAG: arith.constant dense<2> : tensor<1xui8>
  // CHECK-DAG: arith.constant dense<200> : tensor<1xi32>
  // CHECK-NOT: dlc.
  %a = arith.constant dense<200> : tensor<1xui8>
  %b = arith.constant dense<100> : tensor<1xui8>
  %g = dlc.greater %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xi1>
  %m = dlc.max %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xui8>
  %d = dlc.div %a, %b : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xui8>
  %c = dlc.cast %a : (tensor<1xui8>) -> tensor<1xi32>
  return %g, %m, %d, %c : tensor<1xi1>, tensor<1xui8>, tensor<1xui8>, tensor<1xi32>
}

// -----

// Casts of small constants to floats fold (a window function's size feeds
// Range through one); bool to float does not.
// CHECK-LABEL: func @fold_cast_to_float
func.func @fold_cast_to_float() -> (tensor<2xf32>, tensor<1xf16>, tensor<1xf32>) {
  // CHECK-DAG: arith.constant dense<[1.000000e+01, -3.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<2.500000e+00> : tensor<1xf16>
  // CHECK-DAG: arith.constant dense<2.000000e+02> : tensor<1xf32>
  // CHECK-NOT: dlc.cast
  %i = arith.constant dense<[10, -3]> : tensor<2xi64>
  %a = dlc.cast %i : (tensor<2xi64>) -> tensor<2xf32>
  %f = arith.constant dense<2.5> : tensor<1xf32>
  %b = dlc.cast %f : (tensor<1xf32>) -> tensor<1xf16>
  %u = arith.constant dense<200> : tensor<1xui8>
  %c = dlc.cast %u : (tensor<1xui8>) -> tensor<1xf32>
  return %a, %b, %c : tensor<2xf32>, tensor<1xf16>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func @reshape_chain
func.func @reshape_chain(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK-NEXT: %[[R:.*]] = dlc.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = dlc.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = dlc.reshape %0 : (tensor<6xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @slice_and_cast
func.func @slice_and_cast() -> (tensor<2xi64>, tensor<2xi32>) {
  // CHECK-DAG: arith.constant dense<[4, 2]> : tensor<2xi64>
  // CHECK-DAG: arith.constant dense<[1, 3]> : tensor<2xi32>
  %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %s = dlc.slice %a {starts = array<i64: 3>, ends = array<i64: 0>, steps = array<i64: -2>} : (tensor<4xi64>) -> tensor<2xi64>
  %t = dlc.slice %a {starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>} : (tensor<4xi64>) -> tensor<2xi64>
  %c = dlc.cast %t : (tensor<2xi64>) -> tensor<2xi32>
  return %s, %c : tensor<2xi64>, tensor<2xi32>
}

// -----

// torch's SDPA export computes its scale from the head size at run time:
// sqrt(1 / sqrt(d)). One-element f32 Sqrt, Div and Mul fold (IEEE-exact,
// so the constant is what the kernel would compute): 16 -> 0.5.
// CHECK-LABEL: func @sdpa_scale
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<1xf32>
// CHECK-NEXT: %[[Y:.*]] = dlc.mul %{{.*}}, %[[C]]
// CHECK-NEXT: return %[[Y]]
func.func @sdpa_scale(%q: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %d = arith.constant dense<16.0> : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %s = dlc.sqrt %d : (tensor<1xf32>) -> tensor<1xf32>
  %r = dlc.div %one, %s : (tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
  %t = dlc.sqrt %r : (tensor<1xf32>) -> tensor<1xf32>
  %u = dlc.mul %t, %two : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %h = dlc.div %u, %two : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %y = dlc.mul %q, %h : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Float constants of more than one element, and f16 ones, stay ops.
// CHECK-LABEL: func @float_kept
// CHECK: dlc.sqrt
// CHECK: dlc.div
// CHECK: dlc.sqrt
func.func @float_kept() -> (tensor<2xf32>, tensor<2xf32>, tensor<1xf16>) {
  %a = arith.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %b = arith.constant dense<2.0> : tensor<1xf32>
  %h = arith.constant dense<4.0> : tensor<1xf16>
  %s = dlc.sqrt %a : (tensor<2xf32>) -> tensor<2xf32>
  %d = dlc.div %a, %b : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  %t = dlc.sqrt %h : (tensor<1xf16>) -> tensor<1xf16>
  return %s, %d, %t : tensor<2xf32>, tensor<2xf32>, tensor<1xf16>
}

// -----

// GatherElements of constants folds, resource blobs included (BertModel's
// position ids: its position_ids buffer gathered by constant indices);
// negative indices count from the end.
// CHECK-LABEL: func @gather_elements_of_blobs
func.func @gather_elements_of_blobs() -> tensor<2x3xi64> {
  // CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}12, 10, 13], [23, 22, 20]]> : tensor<2x3xi64>
  // CHECK: return %[[C]]
  %data = arith.constant dense_resource<pos> : tensor<2x4xi64>
  %idx = arith.constant dense_resource<idx> : tensor<2x3xi64>
  %g = dlc.gather_elements %data, %idx {axis = 1 : i64} : (tensor<2x4xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  return %g : tensor<2x3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      pos: "0x080000000A000000000000000B000000000000000C000000000000000D000000000000001400000000000000150000000000000016000000000000001700000000000000",
      idx: "0x0800000002000000000000000000000000000000FFFFFFFFFFFFFFFF030000000000000002000000000000000000000000000000"
    }
  }
#-}

// -----

// An index out of range is left to the run-time check.
// CHECK-LABEL: func @gather_elements_out_of_range
func.func @gather_elements_out_of_range() -> tensor<1x2xi64> {
  // CHECK: dlc.gather_elements
  %data = arith.constant dense<[[1, 2, 3]]> : tensor<1x3xi64>
  %idx = arith.constant dense<[[0, 3]]> : tensor<1x2xi64>
  %g = dlc.gather_elements %data, %idx {axis = 1 : i64} : (tensor<1x3xi64>, tensor<1x2xi64>) -> tensor<1x2xi64>
  return %g : tensor<1x2xi64>
}

// -----

// Gather with the indices 0..n-1 over the whole axis (torch's arange) is a
// reshape of its data, whatever the data.
// CHECK-LABEL: func @gather_arange
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xi1>)
// CHECK-NOT: dlc.gather
// CHECK: %[[R:.*]] = dlc.reshape %[[X]] : (tensor<4x1xi1>) -> tensor<1x4x1xi1>
// CHECK: return %[[R]]
func.func @gather_arange(%x: tensor<4x1xi1>) -> tensor<1x4x1xi1> {
  %i = arith.constant dense_resource<iota> : tensor<1x4xi64>
  %g = dlc.gather %x, %i {axis = 0 : i64} : (tensor<4x1xi1>, tensor<1x4xi64>) -> tensor<1x4x1xi1>
  return %g : tensor<1x4x1xi1>
}

{-#
  dialect_resources: {
    builtin: {
      iota: "0x080000000000000000000000010000000000000002000000000000000300000000000000"
    }
  }
#-}

// -----

// Not the whole axis, or not in order: a real gather.
// CHECK-LABEL: func @gather_not_arange
// CHECK-COUNT-2: dlc.gather
func.func @gather_not_arange(%x: tensor<4x2xf32>) -> (tensor<3x2xf32>, tensor<4x2xf32>) {
  %a = arith.constant dense<[0, 1, 2]> : tensor<3xi64>
  %b = arith.constant dense<[1, 0, 2, 3]> : tensor<4xi64>
  %g = dlc.gather %x, %a {axis = 0 : i64} : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %h = dlc.gather %x, %b {axis = 0 : i64} : (tensor<4x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %g, %h : tensor<3x2xf32>, tensor<4x2xf32>
}

// -----

// Index and mask constants kept as resource blobs (i64, i1) fold like
// inline ones (BertModel's mask ranges); float blobs, which may be
// weights, never do.
// CHECK-LABEL: func @fold_index_blobs
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[true, false, true, false, true, false, true, false, true, true]> : tensor<10xi1>
// CHECK-DAG: %[[F:.*]] = dlc.cast
// CHECK: return %[[C]], %[[F]]
func.func @fold_index_blobs() -> (tensor<10xi1>, tensor<10xf16>) {
  %a = arith.constant dense_resource<a> : tensor<10xi64>
  %b = arith.constant dense_resource<b> : tensor<10xi64>
  %c = dlc.greater_or_equal %a, %b : (tensor<10xi64>, tensor<10xi64>) -> tensor<10xi1>
  %w = arith.constant dense_resource<w> : tensor<10xf32>
  %f = dlc.cast %w : (tensor<10xf32>) -> tensor<10xf16>
  return %c, %f : tensor<10xi1>, tensor<10xf16>
}

{-#
  dialect_resources: {
    builtin: {
      a: "0x080000000500000000000000000000000000000005000000000000000000000000000000050000000000000000000000000000000500000000000000000000000000000005000000000000000900000000000000",
      b: "0x080000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000005000000000000000500000000000000",
      w: "0x080000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// Bitwise ops and shifts fold on integer constants: shifts past the width
// give the fill (-1 for a negative signed right shift, else 0); ui8 shifts
// right logically.
// CHECK-LABEL: func @fold_bitwise
func.func @fold_bitwise() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<2xui8>, tensor<3xi32>) {
  // CHECK-DAG: arith.constant dense<[4, 7, -8]> : tensor<3xi32>
  // CHECK-DAG: arith.constant dense<[-2, -1, 0]> : tensor<3xi32>
  // CHECK-DAG: arith.constant dense<[-16, 0, 0]> : tensor<3xi8>
  // CHECK-DAG: arith.constant dense<[64, 0]> : tensor<2xui8>
  // CHECK-DAG: arith.constant dense<[-2, -5, -8]> : tensor<3xi32>
  // CHECK-NOT: dlc.
  %a = arith.constant dense<[4, 7, -8]> : tensor<3xi32>
  %b = arith.constant dense<[5, 3, -1]> : tensor<3xi32>
  %and = dlc.and %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %or = dlc.or %and, %a : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %s = arith.constant dense<[2, 32, -1]> : tensor<3xi32>
  %r = dlc.bit_shift %a, %s {left = false} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %n = dlc.not %r : (tensor<3xi32>) -> tensor<3xi32>
  %x8 = arith.constant dense<[-2, 1, 3]> : tensor<3xi8>
  %s8 = arith.constant dense<[3, 8, -1]> : tensor<3xi8>
  %l = dlc.bit_shift %x8, %s8 {left = true} : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %u = arith.constant dense<[128, 255]> : tensor<2xui8>
  %us = arith.constant dense<[1, 9]> : tensor<2xui8>
  %ur = dlc.bit_shift %u, %us {left = false} : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %x = dlc.xor %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %nx = dlc.not %x : (tensor<3xi32>) -> tensor<3xi32>
  return %or, %n, %l, %ur, %nx : tensor<3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<2xui8>, tensor<3xi32>
}

// -----

// One-element f32 arithmetic of function bodies folds: Range's trip count
// ceil((limit - start) / delta), relu'd and cast to int64 (truncating) and
// to bool; a cast of a value out of the integer's range stays an op.
// CHECK-LABEL: func @fold_trip_count
func.func @fold_trip_count() -> (tensor<i64>, tensor<i1>, tensor<f32>, tensor<i32>) {
  // CHECK-DAG: arith.constant dense<3> : tensor<i64>
  // CHECK-DAG: arith.constant dense<true> : tensor<i1>
  // CHECK-DAG: arith.constant dense<-3.000000e+00> : tensor<f32>
  // CHECK: dlc.cast
  // CHECK-NOT: dlc.
  %start = arith.constant dense<1.0> : tensor<f32>
  %limit = arith.constant dense<3.5> : tensor<f32>
  %delta = arith.constant dense<1.0> : tensor<f32>
  %d = dlc.sub %limit, %start : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %q = dlc.div %d, %delta : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c = dlc.ceil %q : (tensor<f32>) -> tensor<f32>
  %r = dlc.relu %c : (tensor<f32>) -> tensor<f32>
  %i = dlc.cast %r : (tensor<f32>) -> tensor<i64>
  %b = dlc.cast %r : (tensor<f32>) -> tensor<i1>
  %n = dlc.sub %start, %limit : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %f = dlc.floor %n : (tensor<f32>) -> tensor<f32>
  %big = arith.constant dense<3.0e+10> : tensor<f32>
  %o = dlc.cast %big : (tensor<f32>) -> tensor<i32>
  return %i, %b, %f, %o : tensor<i64>, tensor<i1>, tensor<f32>, tensor<i32>
}
