// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="two-pass-softmax=true" | FileCheck %s

// The host's Softmax: a plain max, e = exp(x - m) (one exp an element), a
// plain sum of e, then e * (1 / s) (the reciprocal invariant along the row). Each reduction's body is one max or add, which
// vectorizes along a row (the online form's sum carries two exps in a
// serial chain an element).
// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x8xf32>)
  // CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[ACC:.*]]: f32):
  // CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[ACC]], %[[XV]]
  // CHECK-NEXT: linalg.yield %[[MAX]]
  // CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0, %[[M]] : tensor<2x8xf32>, tensor<2x1xf32>)
  // CHECK: arith.subf
  // CHECK-NEXT: math.exp
  // CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<2x8xf32>)
  // CHECK-NEXT: ^bb0(%[[EV:.*]]: f32, %[[SACC:.*]]: f32):
  // CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[SACC]], %[[EV]]
  // CHECK-NEXT: linalg.yield %[[SUM]]
  // CHECK: linalg.generic {{.*}} ins(%[[E]], %[[S]] : tensor<2x8xf32>, tensor<2x1xf32>)
  // CHECK-NEXT: ^bb0(%[[EE:.*]]: f32, %[[SS:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[SS]]
  // CHECK-NEXT: arith.mulf %[[EE]], %[[INV]]
  // CHECK-NOT: math.exp
  // CHECK: return
  %0 = dlc.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A softmax over a middle axis: the same passes, the kept dims parallel.
// CHECK-LABEL: func @softmax_axis1
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-NEXT: arith.mulf
func.func @softmax_axis1(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = dlc.softmax %x {axis = 1 : i64} : (tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}
