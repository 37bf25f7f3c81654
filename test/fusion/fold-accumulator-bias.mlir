// RUN: dlc-opt %s --split-input-file --dlc-fold-accumulator-bias | FileCheck %s

// An int8 GEMM's requantize adds bias[n] to its accumulator, whose init
// subtracts the zero point's share (-(zp + 128) * wsum[n]): the init adds
// the bias too, and the requantize reads the accumulator as it is (its
// bias input goes).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @zero_point_init(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xi8>, %[[W:.*]]: tensor<8x6xi8>, %[[ZP:.*]]: tensor<i8>, %[[SUMS:.*]]: tensor<6xi32>, %[[BIAS:.*]]: tensor<6xi32>, %[[SCALE:.*]]: tensor<6xf32>)
// CHECK: %[[START:.*]] = linalg.generic {indexing_maps = [#[[COL]], #[[SCALAR]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[BIAS]], %[[ZP]], %[[SUMS]] : tensor<6xi32>, tensor<i8>, tensor<6xi32>)
// CHECK: ^bb0(%[[B:.*]]: i32, %[[Z:.*]]: i8, %[[S:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z32:.*]] = arith.extsi %[[Z]] : i8 to i32
// CHECK: %[[OFF:.*]] = arith.subi %{{.*}}, %[[Z32]] : i32
// CHECK: %[[PART:.*]] = arith.muli %[[OFF]], %[[S]] : i32
// CHECK: %[[SUM:.*]] = arith.addi %[[B]], %[[PART]] : i32
// CHECK: linalg.yield %[[SUM]] : i32
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[W]] : tensor<4x8xi8>, tensor<8x6xi8>) outs(%[[START]] : tensor<4x6xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %[[SCALE]] : tensor<4x6xi32>, tensor<6xf32>)
// CHECK-NOT: arith.addi
// CHECK: arith.sitofp
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @zero_point_init(%x: tensor<4x8xi8>, %w: tensor<8x6xi8>, %zp: tensor<i8>, %sums: tensor<6xi32>, %bias: tensor<6xi32>, %scale: tensor<6xf32>) -> tensor<4x6xf32> {
  %c-128 = arith.constant -128 : i32
  %e = tensor.empty() : tensor<4x6xi32>
  %init = linalg.generic {indexing_maps = [#scalar, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%zp, %sums : tensor<i8>, tensor<6xi32>) outs(%e : tensor<4x6xi32>) {
  ^bb0(%z: i8, %s: i32, %o: i32):
    %z32 = arith.extsi %z : i8 to i32
    %off = arith.subi %c-128, %z32 : i32
    %p = arith.muli %off, %s : i32
    linalg.yield %p : i32
  } -> tensor<4x6xi32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xi8>, tensor<8x6xi8>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %m = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x6xi32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias, %scale : tensor<4x6xi32>, tensor<6xi32>, tensor<6xf32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%a: i32, %b: i32, %s: f32, %o: f32):
    %sum = arith.addi %a, %b : i32
    %f = arith.sitofp %sum : i32 to f32
    %y = arith.mulf %f, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// A constant init (a fill: no zero point to take away) keeps the add in
// its reader: LLVM allocated resnet50_int8's 3x3 convs' registers worse
// with the bias loaded as their init.
// CHECK-LABEL: func.func @zero_fill(
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x6xi32>, tensor<6xi32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addi
// CHECK-LABEL: func.func @constant_fill(
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x6xi32>, tensor<6xi32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addi
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @zero_fill(%x: tensor<4x8xi8>, %w: tensor<8x6xi8>, %bias: tensor<6xi32>) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x6xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<4x6xi32>) -> tensor<4x6xi32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xi8>, tensor<8x6xi8>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %m = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x6xi32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : tensor<4x6xi32>, tensor<6xi32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%a: i32, %b: i32, %o: f32):
    %sum = arith.addi %b, %a : i32
    %f = arith.sitofp %sum : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @constant_fill(%x: tensor<4x8xi8>, %w: tensor<8x6xi8>, %bias: tensor<6xi32>) -> tensor<4x6xf32> {
  %c7 = arith.constant 7 : i32
  %e = tensor.empty() : tensor<4x6xi32>
  %init = linalg.fill ins(%c7 : i32) outs(%e : tensor<4x6xi32>) -> tensor<4x6xi32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xi8>, tensor<8x6xi8>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %m = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x6xi32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : tensor<4x6xi32>, tensor<6xi32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%a: i32, %b: i32, %o: f32):
    %sum = arith.addi %a, %b : i32
    %f = arith.sitofp %sum : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Left alone: a float bias (sums round: the order matters), an
// accumulator read by another op too, one read transposed.
// CHECK-LABEL: func.func @float_bias(
// CHECK: linalg.fill
// CHECK: arith.addf
// CHECK-LABEL: func.func @two_readers(
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x6xi32>, tensor<6xi32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addi
// CHECK-LABEL: func.func @transposed(
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addi
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @float_bias(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>, %bias: tensor<6xf32>) -> tensor<4x6xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %init = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%init : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : tensor<4x6xf32>, tensor<6xf32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    linalg.yield %sum : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func @two_readers(%x: tensor<4x8xi8>, %w: tensor<8x6xi8>, %bias: tensor<6xi32>) -> (tensor<4x6xf32>, tensor<4x6xi32>) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x6xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<4x6xi32>) -> tensor<4x6xi32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xi8>, tensor<8x6xi8>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %m = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x6xi32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : tensor<4x6xi32>, tensor<6xi32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%a: i32, %b: i32, %o: f32):
    %sum = arith.addi %a, %b : i32
    %f = arith.sitofp %sum : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x6xf32>
  return %r, %acc : tensor<4x6xf32>, tensor<4x6xi32>
}
func.func @transposed(%x: tensor<4x8xi8>, %w: tensor<8x4xi8>, %bias: tensor<4xi32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x4xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<4x4xi32>) -> tensor<4x4xi32>
  %acc = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x8xi8>, tensor<8x4xi8>) outs(%init : tensor<4x4xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %m = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x4xi32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#t, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : tensor<4x4xi32>, tensor<4xi32>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%a: i32, %b: i32, %o: f32):
    %sum = arith.addi %a, %b : i32
    %f = arith.sitofp %sum : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
