// RUN: dlc-opt %s --split-input-file --dlc-fuse-attention | FileCheck %s

// BERT: K^T laid out by the exporter, Div by sqrt(d), padding mask of rank 4.
// CHECK-LABEL: func @bert
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x4xf32>, %[[KT:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x8x4xf32>, %[[M:.*]]: tensor<1x1x1x8xf32>)
// CHECK-NEXT: %[[O:.*]] = dlc.attention %[[Q]], %[[KT]], %[[V]], %[[M]] {k_transposed = true, scale = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @bert(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %m: tensor<1x1x1x8xf32>) -> tensor<1x2x8x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %a = dlc.add %d, %m : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %a {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// K^T as a Transpose of the last two dims: K is read directly; Mul by a
// scalar on the left, the mask on the left of the Add with a lower rank
// (reshaped to the scores' rank), rank-3 shapes.
// CHECK-LABEL: func @transposed_key
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x4xf32>, %[[K:.*]]: tensor<2x6x4xf32>, %[[V:.*]]: tensor<2x6x3xf32>, %[[M:.*]]: tensor<8x6xf32>)
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[M]] : (tensor<8x6xf32>) -> tensor<1x8x6xf32>
// CHECK-NEXT: %[[O:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]], %[[R]] {k_transposed = false, scale = 2.500000e-01 : f32}
// CHECK-SAME: -> tensor<2x8x3xf32>
// CHECK-NEXT: return %[[O]]
func.func @transposed_key(%q: tensor<2x8x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x3xf32>, %m: tensor<8x6xf32>) -> tensor<2x8x3xf32> {
  %c = arith.constant dense<0.25> : tensor<1xf32>
  %kt = dlc.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<2x6x4xf32>) -> tensor<2x4x6xf32>
  %s = dlc.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x6xf32>) -> tensor<2x8x6xf32>
  %d = dlc.mul %c, %s : (tensor<1xf32>, tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %a = dlc.add %m, %d : (tensor<8x6xf32>, tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %p = dlc.softmax %a {axis = 2 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %o = dlc.matmul %p, %v : (tensor<2x8x6xf32>, tensor<2x6x3xf32>) -> tensor<2x8x3xf32>
  return %o : tensor<2x8x3xf32>
}

// -----

// No scale and no mask; the key transpose has another user and stays.
// CHECK-LABEL: func @plain
// CHECK: %[[KT:.*]] = dlc.transpose %[[K:.*]] {perm
// CHECK-NEXT: %[[O:.*]] = dlc.attention %{{.*}}, %[[K]], %{{.*}} {k_transposed = false, scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]], %[[KT]]
func.func @plain(%q: tensor<1x4x8x4xf32>, %k: tensor<1x4x8x4xf32>, %v: tensor<1x4x8x4xf32>) -> (tensor<1x4x8x4xf32>, tensor<1x4x4x8xf32>) {
  %kt = dlc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x4xf32>) -> tensor<1x4x4x8xf32>
  %s = dlc.matmul %q, %kt : (tensor<1x4x8x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %o, %kt : tensor<1x4x8x4xf32>, tensor<1x4x4x8xf32>
}

// -----

// A permutation that is not the last-two swap: the keys are read through
// it (key_perm) and the transpose is gone.
// CHECK-LABEL: func @permuted_key
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x4xf32>, %[[K:.*]]: tensor<1x8x2x4xf32>,
// CHECK-NOT: dlc.transpose
// CHECK: dlc.attention %[[Q]], %[[K]], %{{.*}} {k_transposed = true, key_perm = array<i64: 0, 2, 3, 1>, scale = 1.000000e+00 : f32} : (tensor<1x2x8x4xf32>, tensor<1x8x2x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
func.func @permuted_key(%q: tensor<1x2x8x4xf32>, %k: tensor<1x8x2x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  %kt = dlc.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x4x8xf32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// The probabilities are also a model output (output_attentions, or
// --keep-outputs): the scores must exist, nothing is fused.
// CHECK-LABEL: func @probs_escape
// CHECK-NOT: dlc.attention
// CHECK: dlc.softmax
// CHECK-NOT: dlc.attention
func.func @probs_escape(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x8xf32>) {
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o, %p : tensor<1x2x8x4xf32>, tensor<1x2x8x8xf32>
}

// -----

// The scaled scores have a second reader: nothing is fused.
// CHECK-LABEL: func @scaled_escape
// CHECK-NOT: dlc.attention
func.func @scaled_escape(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x8xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %d {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o, %d : tensor<1x2x8x4xf32>, tensor<1x2x8x8xf32>
}

// -----

// Softmax over another axis than the keys: not attention.
// CHECK-LABEL: func @softmax_axis
// CHECK-NOT: dlc.attention
func.func @softmax_axis(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 2 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// A scale that is not a scalar constant (a per-head tensor) is not folded
// into the op: nothing is fused.
// CHECK-LABEL: func @tensor_scale
// CHECK-NOT: dlc.attention
func.func @tensor_scale(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %c: tensor<1x2x1x1xf32>) -> tensor<1x2x8x4xf32> {
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.mul %s, %c : (tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %d {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// Broadcast keys and values (one head shared, as multi-query attention
// writes it) fuse; the query's batch dims are the result's.
// CHECK-LABEL: func @shared_kv
// CHECK: dlc.attention
// CHECK-SAME: (tensor<1x4x8x4xf32>, tensor<1x1x4x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x4x8x4xf32>
func.func @shared_kv(%q: tensor<1x4x8x4xf32>, %kt: tensor<1x1x4x8xf32>, %v: tensor<1x1x8x4xf32>) -> tensor<1x4x8x4xf32> {
  %s = dlc.matmul %q, %kt : (tensor<1x4x8x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x4x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %o : tensor<1x4x8x4xf32>
}

// -----

// torch's SDPA export: scale on both sides (folded into `scale`: 0.7 x
// 0.7), a boolean mask turned additive by Where, and Where(IsNaN(p), 0, p)
// after the softmax (nan_to_zero).
// CHECK-LABEL: func @sdpa_nan_guard
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x4xf32>, %[[KT:.*]]: tensor<1x2x4x8xf32>,
// CHECK-NOT: dlc.mul
// CHECK: %[[M:.*]] = dlc.where
// CHECK-NEXT: %[[O:.*]] = dlc.attention %[[Q]], %[[KT]], %{{.*}}, %[[M]] {k_transposed = true, nan_to_zero, scale = 0.48999998 : f32}
// CHECK-NEXT: return %[[O]]
func.func @sdpa_nan_guard(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %b: tensor<1x1x8x8xi1>) -> tensor<1x2x8x4xf32> {
  %c = arith.constant dense<0.7> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %qs = dlc.mul %q, %c : (tensor<1x2x8x4xf32>, tensor<f32>) -> tensor<1x2x8x4xf32>
  %ks = dlc.mul %kt, %c : (tensor<1x2x4x8xf32>, tensor<f32>) -> tensor<1x2x4x8xf32>
  %m = dlc.where %b, %zero, %ninf : (tensor<1x1x8x8xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x8x8xf32>
  %s = dlc.matmul %qs, %ks : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %a = dlc.add %s, %m : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %a {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %n = dlc.is_nan %p : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xi1>
  %g = dlc.where %n, %zero, %p : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %g, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// The NaN test is also read elsewhere: nothing is fused.
// CHECK-LABEL: func @nan_test_escapes
// CHECK-NOT: dlc.attention
func.func @nan_test_escapes(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x8xi1>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %n = dlc.is_nan %p : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xi1>
  %g = dlc.where %n, %zero, %p : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %g, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o, %n : tensor<1x2x8x4xf32>, tensor<1x2x8x8xi1>
}

// -----

// GPT-2: Where(causal, scores, finfo.min) after the scale, then the padding
// mask added: one additive mask, Where(c, 0, fill) + padding.
// CHECK-LABEL: func @gpt2_where_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x4xf32>, %[[KT:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x8x4xf32>, %[[C:.*]]: tensor<1x1x8x8xi1>, %[[P:.*]]: tensor<1x1x1x8xf32>)
// CHECK-DAG: %[[MIN:.*]] = arith.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[W:.*]] = dlc.where %[[C]], %[[ZERO]], %[[MIN]]
// CHECK-NEXT: %[[M:.*]] = dlc.add %[[P]], %[[W]] : (tensor<1x1x1x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
// CHECK-NEXT: %[[O:.*]] = dlc.attention %[[Q]], %[[KT]], %[[V]], %[[M]] {k_transposed = true, scale = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @gpt2_where_mask(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %c: tensor<1x1x8x8xi1>, %pad: tensor<1x1x1x8xf32>) -> tensor<1x2x8x4xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.div %s, %two : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %w = dlc.where %c, %d, %min : (tensor<1x1x8x8xi1>, tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %a = dlc.add %w, %pad : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %a {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// masked_fill(mask == 0, -inf): Where(masked, -inf, scores), a rank-2 mask.
// CHECK-LABEL: func @masked_fill
// CHECK: %[[W:.*]] = dlc.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x8xi1>, tensor<f32>, tensor<f32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[W]] : (tensor<8x8xf32>) -> tensor<1x1x8x8xf32>
// CHECK-NEXT: dlc.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[R]]
func.func @masked_fill(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %c: tensor<8x8xi1>) -> tensor<1x2x8x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %w = dlc.where %c, %ninf, %s : (tensor<8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %w {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// A Where whose fill does not absorb the scores (-5) is not a mask.
// CHECK-LABEL: func @where_not_a_mask
// CHECK-NOT: dlc.attention
func.func @where_not_a_mask(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>, %c: tensor<8x8xi1>) -> tensor<1x2x8x4xf32> {
  %f = arith.constant dense<-5.0> : tensor<f32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %w = dlc.where %c, %f, %s : (tensor<8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %w {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o : tensor<1x2x8x4xf32>
}

// -----

// BERT's export: Q and K scaled by 1/sqrt(sqrt(d)) and transposed from the
// projections' [B, S, H, D] to [B, H, S, D] (K to [B, H, D, S]), V
// transposed, the result transposed back. Everything folds into the op: it
// reads the projections and writes [B, S, H, D].
// CHECK-LABEL: func @bert_layouts
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x2x4xf32>, %[[K:.*]]: tensor<1x8x2x4xf32>, %[[V:.*]]: tensor<1x8x2x4xf32>
// CHECK-NOT: dlc.transpose
// CHECK-NOT: dlc.mul
// CHECK: %[[O:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]], %{{.*}} {k_transposed = true, key_perm = array<i64: 0, 2, 3, 1>, query_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 2.500000e-01 : f32, value_perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x1x1x8xf32>) -> tensor<1x8x2x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @bert_layouts(%q: tensor<1x8x2x4xf32>, %k: tensor<1x8x2x4xf32>, %v: tensor<1x8x2x4xf32>, %m: tensor<1x1x1x8xf32>) -> tensor<1x8x2x4xf32> {
  %c = arith.constant dense<0.5> : tensor<1x1x1x1xf32>
  %vt = dlc.transpose %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %qs = dlc.mul %q, %c : (tensor<1x8x2x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x2x4xf32>
  %qt = dlc.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %ks = dlc.mul %k, %c : (tensor<1x8x2x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x2x4xf32>
  %kt = dlc.transpose %ks {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x4x8xf32>
  %s = dlc.matmul %qt, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %a = dlc.add %s, %m : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %a {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %vt : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32>
  return %ot : tensor<1x8x2x4xf32>
}

// -----

// GPT-2: Q, K and V are the three parts of c_attn's output, split and
// reshaped into heads. The op reads them from that output viewed as
// [B, S, 3, H, D] (one reshape, selects [2, i]); the Split never runs.
// CHECK-LABEL: func @gpt2_split
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x24xf32>
// CHECK-NOT: dlc.slice
// CHECK: %[[R:.*]] = dlc.reshape %[[X]] : (tensor<1x8x24xf32>) -> tensor<1x8x3x2x4xf32>
// CHECK-NOT: dlc.slice
// CHECK: %[[O:.*]] = dlc.attention %[[R]], %[[R]], %[[R]] {k_transposed = true, key_perm = array<i64: 0, 2, 3, 1>, key_select = array<i64: 2, 1>, query_perm = array<i64: 0, 2, 1, 3>, query_select = array<i64: 2, 0>, result_perm = array<i64: 0, 2, 1, 3>, scale = 5.000000e-01 : f32, value_perm = array<i64: 0, 2, 1, 3>, value_select = array<i64: 2, 2>} : (tensor<1x8x3x2x4xf32>, tensor<1x8x3x2x4xf32>, tensor<1x8x3x2x4xf32>) -> tensor<1x8x2x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @gpt2_split(%x: tensor<1x8x24xf32>) -> tensor<1x8x2x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %q2 = dlc.slice %x {starts = array<i64: 0, 0, 0>, ends = array<i64: 1, 8, 8>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x24xf32>) -> tensor<1x8x8xf32>
  %k2 = dlc.slice %x {starts = array<i64: 0, 0, 8>, ends = array<i64: 1, 8, 16>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x24xf32>) -> tensor<1x8x8xf32>
  %v2 = dlc.slice %x {starts = array<i64: 0, 0, 16>, ends = array<i64: 1, 8, 24>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x24xf32>) -> tensor<1x8x8xf32>
  %q = dlc.reshape %q2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %k = dlc.reshape %k2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %v = dlc.reshape %v2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %qt = dlc.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %kt = dlc.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x4x8xf32>
  %vt = dlc.transpose %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %s = dlc.matmul %qt, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %d {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %vt : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32>
  return %ot : tensor<1x8x2x4xf32>
}

// -----

// Slices that are not equal parts of the last dim stay copies: a part of
// another size than the others (8 of 20), a slice of a leading dim, and a
// strided one.
// CHECK-LABEL: func @split_kept
// CHECK-COUNT-3: dlc.slice
// CHECK: dlc.attention
// CHECK-NOT: _select
func.func @split_kept(%x: tensor<1x8x20xf32>, %y: tensor<2x8x8xf32>, %z: tensor<1x8x16xf32>) -> tensor<1x8x2x4xf32> {
  %q2 = dlc.slice %x {starts = array<i64: 0, 0, 12>, ends = array<i64: 1, 8, 20>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x20xf32>) -> tensor<1x8x8xf32>
  %k2 = dlc.slice %y {starts = array<i64: 1, 0, 0>, ends = array<i64: 2, 8, 8>, steps = array<i64: 1, 1, 1>} : (tensor<2x8x8xf32>) -> tensor<1x8x8xf32>
  %v2 = dlc.slice %z {starts = array<i64: 0, 0, 0>, ends = array<i64: 1, 8, 16>, steps = array<i64: 1, 1, 2>} : (tensor<1x8x16xf32>) -> tensor<1x8x8xf32>
  %q = dlc.reshape %q2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %k = dlc.reshape %k2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %v = dlc.reshape %v2 : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %qt = dlc.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %kt = dlc.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x4x8xf32>
  %vt = dlc.transpose %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %s = dlc.matmul %qt, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %vt : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32>
  return %ot : tensor<1x8x2x4xf32>
}

// -----

// What stays: a transpose read elsewhere too, a Mul whose factor is not a
// constant, a Mul by an infinite constant (inf x 0 scores would differ),
// and a result read by more than its transpose.
// CHECK-LABEL: func @layouts_kept
// CHECK: %[[QT:.*]] = dlc.transpose
// CHECK: %[[KS:.*]] = dlc.mul
// CHECK: %[[VS:.*]] = dlc.mul
// CHECK: %[[O:.*]] = dlc.attention %[[QT]], %[[KS]], %[[VS]] {k_transposed = false, scale = 1.000000e+00 : f32}
// CHECK: %[[OT:.*]] = dlc.transpose %[[O]]
// CHECK: return %[[QT]], %[[O]], %[[OT]]
func.func @layouts_kept(%q: tensor<1x8x2x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %f: tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x8x2x4xf32>) {
  %inf = arith.constant dense<0x7F800000> : tensor<f32>
  %qt = dlc.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x4xf32>) -> tensor<1x2x8x4xf32>
  %ks = dlc.mul %k, %inf : (tensor<1x2x8x4xf32>, tensor<f32>) -> tensor<1x2x8x4xf32>
  %vs = dlc.mul %v, %f : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %kt = dlc.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x4xf32>) -> tensor<1x2x4x8xf32>
  %s = dlc.matmul %qt, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %s {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %vs : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x4xf32>) -> tensor<1x8x2x4xf32>
  return %qt, %o, %ot : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x8x2x4xf32>
}

// -----

// An int8 model's attention kept in float: the per-tensor QuantizeLinear of
// its result is folded (the attention stores i8), and then the head
// transpose after it is absorbed as result_perm.
// CHECK-LABEL: func @quantized_result
// CHECK-NEXT: %[[O:.*]] = dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {k_transposed = true, result_perm = array<i64: 0, 2, 1, 3>, result_scale = 5.000000e-02 : f32, result_zero_point = -3 : i64, scale = 5.000000e-01 : f32}
// CHECK-SAME: -> tensor<1x8x2x4xi8>
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[O]] : (tensor<1x8x2x4xi8>) -> tensor<1x8x8xi8>
// CHECK-NEXT: return %[[R]]
func.func @quantized_result(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x8x8xi8> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %ys = arith.constant dense<0.05> : tensor<f32>
  %yz = arith.constant dense<-3> : tensor<i8>
  %s = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %d = dlc.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = dlc.softmax %d {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %qo = dlc.quantize_linear %o, %ys, %yz {axis = 1 : i64} : (tensor<1x2x8x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x4xi8>
  %t = dlc.transpose %qo {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x4xi8>) -> tensor<1x8x2x4xi8>
  %r = dlc.reshape %t : (tensor<1x8x2x4xi8>) -> tensor<1x8x8xi8>
  return %r : tensor<1x8x8xi8>
}

// -----

// Not folded: per-channel scales (the epilogue quantizes per tensor), uint8
// (the quantized result is i8 only), and a result read by something else
// too.
// CHECK-LABEL: func @quantized_result_kept
// CHECK: %[[O1:.*]] = dlc.attention {{.*}} -> tensor<1x2x8x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[O1]]
// CHECK: %[[O2:.*]] = dlc.attention {{.*}} -> tensor<1x2x8x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[O2]]
// CHECK: %[[O3:.*]] = dlc.attention {{.*}} -> tensor<1x2x8x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[O3]]
// CHECK-NOT: result_scale
func.func @quantized_result_kept(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %v: tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xi8>, tensor<1x2x8x4xui8>, tensor<1x2x8x4xi8>, tensor<1x2x8x4xf32>) {
  %ys = arith.constant dense<0.05> : tensor<f32>
  %yc = arith.constant dense<[0.05, 0.1]> : tensor<2xf32>
  %yz = arith.constant dense<0> : tensor<i8>
  %yzc = arith.constant dense<0> : tensor<2xi8>
  %yu = arith.constant dense<128> : tensor<ui8>
  %s1 = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p1 = dlc.softmax %s1 {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o1 = dlc.matmul %p1, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %q1 = dlc.quantize_linear %o1, %yc, %yzc {axis = 1 : i64} : (tensor<1x2x8x4xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x8x4xi8>
  %s2 = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p2 = dlc.softmax %s2 {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o2 = dlc.matmul %p2, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %q2 = dlc.quantize_linear %o2, %ys, %yu {axis = 1 : i64} : (tensor<1x2x8x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x4xui8>
  %s3 = dlc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %p3 = dlc.softmax %s3 {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o3 = dlc.matmul %p3, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %q3 = dlc.quantize_linear %o3, %ys, %yz {axis = 1 : i64} : (tensor<1x2x8x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x4xi8>
  return %q1, %q2, %q3, %o3 : tensor<1x2x8x4xi8>, tensor<1x2x8x4xui8>, tensor<1x2x8x4xi8>, tensor<1x2x8x4xf32>
}
