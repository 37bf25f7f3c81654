// RUN: dlc-opt %s --split-input-file --dlc-fuse-activations | FileCheck %s

// F.gelu as PyTorch exports it below opset 20 (BERT's intermediate_act_fn).
// CHECK-LABEL: func @gelu_erf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[Y:.*]] = dlc.gelu %[[X]] {tanh_approximation = false}
// CHECK-NEXT: return %[[Y]]
func.func @gelu_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant dense<1.4142135381698608> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %d = dlc.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = dlc.erf %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = dlc.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = dlc.mul %x, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = dlc.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Other association and order: 0.5 * x first, Mul by 1/sqrt(2), 1 on the
// left, constants of shape [1].
// CHECK-LABEL: func @gelu_erf_reassociated
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[Y:.*]] = dlc.gelu %[[X]] {tanh_approximation = false}
// CHECK-NEXT: return %[[Y]]
func.func @gelu_erf_reassociated(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = arith.constant dense<0.70710678> : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %half = arith.constant dense<0.5> : tensor<1xf32>
  %h = dlc.mul %half, %x : (tensor<1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = dlc.mul %x, %r : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %e = dlc.erf %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = dlc.add %one, %e : (tensor<1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = dlc.mul %a, %h : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// GPT-2's gelu_new.
// CHECK-LABEL: func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[Y:.*]] = dlc.gelu %[[X]] {tanh_approximation = true}
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = arith.constant dense<3.0> : tensor<f32>
  %k = arith.constant dense<0.044715> : tensor<f32>
  %c = arith.constant dense<0.7978845608028654> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %cube = dlc.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %kc = dlc.mul %k, %cube : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %in = dlc.add %x, %kc : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = dlc.mul %c, %in : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = dlc.tanh %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = dlc.mul %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = dlc.add %one, %t : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = dlc.mul %h, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x^3 as x * x * x, the inner sum's operands swapped, Div by 2 for 0.5.
// CHECK-LABEL: func @gelu_tanh_products
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[Y:.*]] = dlc.gelu %[[X]] {tanh_approximation = true}
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh_products(%x: tensor<8xf32>) -> tensor<8xf32> {
  %k = arith.constant dense<0.044715> : tensor<f32>
  %c = arith.constant dense<0.797884583> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %sq = dlc.mul %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %cube = dlc.mul %sq, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %kc = dlc.mul %cube, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %in = dlc.add %kc, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %s = dlc.mul %in, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %t = dlc.tanh %s : (tensor<8xf32>) -> tensor<8xf32>
  %a = dlc.add %t, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m = dlc.mul %a, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = dlc.div %m, %two : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The erf's output is also a model output: the chain stays.
// CHECK-LABEL: func @intermediate_used
// CHECK-NOT: dlc.gelu
// CHECK: dlc.erf
// CHECK: return
func.func @intermediate_used(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sqrt2 = arith.constant dense<1.4142135381698608> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %d = dlc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = dlc.erf %d : (tensor<4xf32>) -> tensor<4xf32>
  %a = dlc.add %e, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = dlc.mul %x, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = dlc.mul %m, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y, %e : tensor<4xf32>, tensor<4xf32>
}

// -----

// Not a GELU: the wrong scale inside erf, 0.25 outside, erf of another
// value.
// CHECK-LABEL: func @not_gelu
// CHECK-NOT: dlc.gelu
// CHECK: return
func.func @not_gelu(%x: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %sqrt2 = arith.constant dense<1.4142135381698608> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %quarter = arith.constant dense<0.25> : tensor<f32>
  %d0 = dlc.div %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e0 = dlc.erf %d0 : (tensor<4xf32>) -> tensor<4xf32>
  %a0 = dlc.add %e0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m0 = dlc.mul %x, %a0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y0 = dlc.mul %m0, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d1 = dlc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e1 = dlc.erf %d1 : (tensor<4xf32>) -> tensor<4xf32>
  %a1 = dlc.add %e1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m1 = dlc.mul %x, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y1 = dlc.mul %m1, %quarter : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d2 = dlc.div %z, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e2 = dlc.erf %d2 : (tensor<4xf32>) -> tensor<4xf32>
  %a2 = dlc.add %e2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m2 = dlc.mul %x, %a2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y2 = dlc.mul %m2, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y0, %y1, %y2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
