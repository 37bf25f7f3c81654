// RUN: dlc-opt %s --split-input-file --dlc-reduce-precision=precision=fp16 | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-reduce-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not dlc-opt %s --split-input-file --dlc-reduce-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: dlc-reduce-precision: unknown precision 'fp8' (expected fp16 or bf16)

// Weights are converted once at compile time (a resource blob when large),
// the activation is cast, and the result widened for its f32 consumers.
// CHECK-LABEL: func @matmul_weight
// BF16-LABEL: func @matmul_weight
func.func @matmul_weight(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<dlc_fp16_0> : tensor<8x4xf16>
  // CHECK-DAG: %[[XH:.*]] = dlc.cast %arg0 : (tensor<2x8xf32>) -> tensor<2x8xf16>
  // CHECK: %[[Y:.*]] = dlc.matmul %[[XH]], %[[W]] : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  // CHECK: %[[R:.*]] = dlc.cast %[[Y]] : (tensor<2x4xf16>) -> tensor<2x4xf32>
  // CHECK: return %[[R]]
  // BF16: arith.constant dense_resource<dlc_bf16_0> : tensor<8x4xbf16>
  // BF16: dlc.matmul {{.*}} -> tensor<2x4xbf16>
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %0 = dlc.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A GEMM feeding a GEMM passes its half result on directly; small constants
// (Gemm's C) stay inline, rounded to nearest even.
// CHECK-LABEL: func @gemm_chain
func.func @gemm_chain(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // CHECK-DAG: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 3.332520e-01]> : tensor<4xf16>
  // CHECK-DAG: %[[XH:.*]] = dlc.cast %arg0 : (tensor<2x4xf32>) -> tensor<2x4xf16>
  // CHECK-DAG: %[[WH:.*]] = dlc.cast %arg1 : (tensor<4x4xf32>) -> tensor<4x4xf16>
  // CHECK: %[[Y:.*]] = dlc.gemm %[[XH]], %[[WH]], %[[C]]
  // CHECK-NEXT: dlc.cast %[[Y]] : (tensor<2x4xf16>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[Z:.*]] = dlc.gemm %[[Y]], %[[WH]], %[[C]]
  // CHECK-NEXT: %[[R:.*]] = dlc.cast %[[Z]] : (tensor<2x4xf16>) -> tensor<2x4xf32>
  // CHECK-NEXT: return %[[R]]
  %c = arith.constant dense<[1.0, 2.0, 3.0, 0.33333]> : tensor<4xf32>
  %0 = dlc.gemm %x, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = dlc.gemm %0, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// Ops between GEMMs keep computing in f32.
// CHECK-LABEL: func @conv_sigmoid_conv
func.func @conv_sigmoid_conv(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[A:.*]] = dlc.conv {{.*}} -> tensor<1x2x4x4xf16>
  // CHECK: %[[AF:.*]] = dlc.cast %[[A]] : (tensor<1x2x4x4xf16>) -> tensor<1x2x4x4xf32>
  // CHECK: %[[R:.*]] = dlc.sigmoid %[[AF]] : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: %[[RH:.*]] = dlc.cast %[[R]] : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf16>
  // CHECK: dlc.conv %[[RH]]
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.sigmoid %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.conv %1, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Relu and MaxPool commute with the rounding (max of rounded values is the
// rounded max): the rounding for the second conv moves ahead of them, onto
// the first conv's widened half result, which it cancels, so they run on
// half values (ResNet's stem). Exactly the same results, half the bytes.
// The same at bf16.
// CHECK-LABEL: func @conv_relu_pool_conv
// CHECK: %[[A:.*]] = dlc.conv {{.*}} -> tensor<1x2x4x4xf16>
// CHECK-NEXT: %[[R:.*]] = dlc.relu %[[A]] : (tensor<1x2x4x4xf16>) -> tensor<1x2x4x4xf16>
// CHECK-NEXT: %[[P:.*]] = dlc.max_pool %[[R]] {{.*}} : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
// CHECK-NEXT: dlc.conv %[[P]]
// CHECK-NOT: dlc.cast {{.*}} -> tensor<1x2x2x2xf16>
// BF16-LABEL: func @conv_relu_pool_conv
// BF16: dlc.max_pool %{{.*}} : (tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16>
func.func @conv_relu_pool_conv(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %0 = dlc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.relu %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.max_pool %1 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %3 = dlc.conv %2, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %3 : tensor<1x2x2x2xf32>
}

// -----

// A Relu whose result is also read in f32: at bf16 it keeps f32 (the
// rounding cannot move ahead of it without rounding that reader's input);
// at f16 that reader takes the rounded value anyway (a residual stream),
// so the Relu runs on half values and the reader gets them widened.
// CHECK-LABEL: func @relu_read_twice
// CHECK: %[[R:.*]] = dlc.relu %{{.*}} : (tensor<2x8xf16>) -> tensor<2x8xf16>
// CHECK-NEXT: %[[W:.*]] = dlc.cast %[[R]] : (tensor<2x8xf16>) -> tensor<2x8xf32>
// CHECK-NEXT: dlc.sigmoid %[[W]]
// CHECK: dlc.matmul %[[R]]
// BF16-LABEL: func @relu_read_twice
// BF16: %[[R:.*]] = dlc.relu %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// BF16: dlc.sigmoid %[[R]]
func.func @relu_read_twice(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %r = dlc.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %g = dlc.sigmoid %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dlc.matmul %r, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  return %g, %y : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Models already in half precision, and other ops, are left alone.
// CHECK-LABEL: func @already_half
func.func @already_half(%x: tensor<2x8xf16>, %w: tensor<8x4xf16>) -> tensor<2x4xf16> {
  // CHECK-NOT: dlc.cast
  // CHECK: dlc.matmul %arg0, %arg1 : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  %0 = dlc.matmul %x, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// An attention result only the output projection reads (through a
// reshape) is stored in half precision: no cast. One read elsewhere too
// keeps it f32, with the cast.
// CHECK-LABEL: func @attention_result
// CHECK: %[[A:.*]] = dlc.attention {{.*}} -> tensor<1x8x2x4xf16>
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[A]] : (tensor<1x8x2x4xf16>) -> tensor<1x8x8xf16>
// CHECK: dlc.matmul %[[R]], %{{.*}} : (tensor<1x8x8xf16>, tensor<8x8xf16>)
// CHECK: %[[B:.*]] = dlc.attention {{.*}} -> tensor<1x8x2x4xf32>
// CHECK-NEXT: %[[S:.*]] = dlc.reshape %[[B]] : (tensor<1x8x2x4xf32>) -> tensor<1x8x8xf32>
// CHECK-NEXT: %[[SH:.*]] = dlc.cast %[[S]] : (tensor<1x8x8xf32>) -> tensor<1x8x8xf16>
// CHECK-NEXT: dlc.matmul %[[SH]], %{{.*}} : (tensor<1x8x8xf16>, tensor<8x8xf16>)
// BF16-LABEL: func @attention_result
// BF16: dlc.attention {{.*}} -> tensor<1x8x2x4xbf16>
func.func @attention_result(%q: tensor<1x8x2x4xf32>, %w: tensor<8x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) {
  %a = dlc.attention %q, %q, %q {k_transposed = false, query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 1, 3>, value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %r = dlc.reshape %a : (tensor<1x8x2x4xf32>) -> tensor<1x8x8xf32>
  %y = dlc.matmul %r, %w : (tensor<1x8x8xf32>, tensor<8x8xf32>) -> tensor<1x8x8xf32>
  %b = dlc.attention %q, %q, %q {k_transposed = false, query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 1, 3>, value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %s = dlc.reshape %b : (tensor<1x8x2x4xf32>) -> tensor<1x8x8xf32>
  %z = dlc.matmul %s, %w : (tensor<1x8x8xf32>, tensor<8x8xf32>) -> tensor<1x8x8xf32>
  return %y, %z, %s : tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>
}

// -----

// An int8 model's attention (kept in float) read only by quantize_linear:
// stored in f16 and widened for the quantize. Read by an add too, it stays
// f32. bf16 keeps both f32 (its mantissa is as coarse as the int8 grid).
// CHECK-LABEL: func @attention_quantized
// CHECK: %[[A:.*]] = dlc.attention {{.*}} -> tensor<1x8x2x4xf16>
// CHECK-NEXT: %[[W:.*]] = dlc.cast %[[A]] : (tensor<1x8x2x4xf16>) -> tensor<1x8x2x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[W]]
// CHECK: %[[B:.*]] = dlc.attention {{.*}} -> tensor<1x8x2x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[B]]
// BF16-LABEL: func @attention_quantized
// BF16: dlc.attention {{.*}} -> tensor<1x8x2x4xf32>
// BF16-NEXT: dlc.quantize_linear
func.func @attention_quantized(%q: tensor<1x8x2x4xf32>, %z: tensor<1x8x2x4xf32>) -> (tensor<1x8x2x4xi8>, tensor<1x8x2x4xi8>, tensor<1x8x2x4xf32>) {
  %s = arith.constant dense<0.125> : tensor<f32>
  %zp = arith.constant dense<0> : tensor<i8>
  %a = dlc.attention %q, %q, %q {k_transposed = false, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %aq = dlc.quantize_linear %a, %s, %zp {axis = 0 : i64} : (tensor<1x8x2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x4xi8>
  %b = dlc.attention %q, %q, %q {k_transposed = false, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %bq = dlc.quantize_linear %b, %s, %zp {axis = 0 : i64} : (tensor<1x8x2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x4xi8>
  %r = dlc.add %b, %z : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %aq, %bq, %r : tensor<1x8x2x4xi8>, tensor<1x8x2x4xi8>, tensor<1x8x2x4xf32>
}

// -----

// A 16-bit grid is finer than f16's rounding: an attention result read
// only by an int16 quantize_linear stays f32.
// CHECK-LABEL: func @attention_quantized_i16
// CHECK: %[[A:.*]] = dlc.attention {{.*}} -> tensor<1x8x2x4xf32>
// CHECK-NEXT: dlc.quantize_linear %[[A]]
func.func @attention_quantized_i16(%q: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xi16> {
  %s = arith.constant dense<0.001> : tensor<f32>
  %zp = arith.constant dense<0> : tensor<i16>
  %a = dlc.attention %q, %q, %q {k_transposed = false, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %aq = dlc.quantize_linear %a, %s, %zp {axis = 0 : i64} : (tensor<1x8x2x4xf32>, tensor<f32>, tensor<i16>) -> tensor<1x8x2x4xi16>
  return %aq : tensor<1x8x2x4xi16>
}

// -----

// Attention reads q, k and v in half precision (its tensor-core lowering
// rounds them when staging anyway): the cast goes before the reshape, onto
// the projection's own shape, where the projection kernel's epilogue does
// it; a value read as q, k and v (GPT-2's one c_attn output) is cast once;
// the mask stays f32.
// CHECK-LABEL: func @attention_inputs
// CHECK: %[[P:.*]] = dlc.add
// CHECK-NEXT: %[[PH:.*]] = dlc.cast %[[P]] : (tensor<1x8x8xf32>) -> tensor<1x8x8xf16>
// CHECK-NEXT: %[[RH:.*]] = dlc.reshape %[[PH]] : (tensor<1x8x8xf16>) -> tensor<1x8x2x4xf16>
// CHECK: dlc.attention %[[RH]], %[[RH]], %[[RH]], %{{.*}} {{.*}} : (tensor<1x8x2x4xf16>, tensor<1x8x2x4xf16>, tensor<1x8x2x4xf16>, tensor<1x1x1x8xf32>) -> tensor<1x8x2x4xf32>
// BF16-LABEL: func @attention_inputs
// BF16: dlc.attention {{.*}} : (tensor<1x8x2x4xbf16>, tensor<1x8x2x4xbf16>, tensor<1x8x2x4xbf16>, tensor<1x1x1x8xf32>)
func.func @attention_inputs(%x: tensor<1x8x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %m: tensor<1x1x1x8xf32>) -> tensor<1x8x2x4xf32> {
  %p0 = dlc.matmul %x, %w : (tensor<1x8x8xf32>, tensor<8x8xf32>) -> tensor<1x8x8xf32>
  %p = dlc.add %p0, %b : (tensor<1x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
  %r = dlc.reshape %p : (tensor<1x8x8xf32>) -> tensor<1x8x2x4xf32>
  %a = dlc.attention %r, %r, %r, %m {k_transposed = false, query_perm = array<i64: 0, 2, 1, 3>, key_perm = array<i64: 0, 2, 1, 3>, value_perm = array<i64: 0, 2, 1, 3>, result_perm = array<i64: 0, 2, 1, 3>, scale = 0.5 : f32} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x1x1x8xf32>) -> tensor<1x8x2x4xf32>
  return %a : tensor<1x8x2x4xf32>
}

// -----

// A residual stream at f16: %s feeds the GEMM (rounded) and the next Add
// (f32); the Add now reads the rounded value widened, so %s's producer
// stores 2 bytes an element. Only the model output %t stays f32 as it is.
// bf16 keeps the residual f32.
// CHECK-LABEL: func @residual
// CHECK: %[[S:.*]] = dlc.erf
// CHECK-NEXT: %[[SH:.*]] = dlc.cast %[[S]] : (tensor<2x8xf32>) -> tensor<2x8xf16>
// CHECK-NEXT: %[[SW:.*]] = dlc.cast %[[SH]] : (tensor<2x8xf16>) -> tensor<2x8xf32>
// CHECK: dlc.matmul %[[SH]]
// CHECK: %[[T:.*]] = dlc.add %{{.*}}, %[[SW]]
// CHECK-NOT: dlc.cast %[[T]]
// CHECK: return %[[T]]
// BF16-LABEL: func @residual
// BF16: %[[S:.*]] = dlc.erf
// BF16: dlc.add %{{.*}}, %[[S]]
func.func @residual(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x8xf32> {
  %s = dlc.erf %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dlc.matmul %s, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %t = dlc.add %y, %s : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %t : tensor<2x8xf32>
}

// -----

// A reader of %s ahead of the GEMM: the rounding moves up to %s's
// definition, so the widened value is there for it; a second GEMM on %s
// shares the rounding.
// CHECK-LABEL: func @residual_reader_first
// CHECK: %[[S:.*]] = dlc.erf
// CHECK-NEXT: %[[SH:.*]] = dlc.cast %[[S]] : (tensor<2x8xf32>) -> tensor<2x8xf16>
// CHECK-NEXT: %[[SW:.*]] = dlc.cast %[[SH]] : (tensor<2x8xf16>) -> tensor<2x8xf32>
// CHECK-NEXT: dlc.sigmoid %[[SW]]
// CHECK: dlc.matmul %[[SH]]
// CHECK: dlc.matmul %[[SH]]
// CHECK-NOT: dlc.cast %[[S]]
func.func @residual_reader_first(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %s = dlc.erf %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %g = dlc.sigmoid %s : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = dlc.matmul %s, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %z = dlc.matmul %s, %w2 : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  return %g, %y, %z : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// A LayerNorm's input at f16 is rounded after its definition, as
// model.half() holds it (BERT's GEMM + bias + residual sum): every reader
// takes the rounded value, widened, so it is stored in 2 bytes. bf16 keeps
// it f32.
// CHECK-LABEL: func @layer_norm_input
// CHECK: %[[T:.*]] = dlc.add
// CHECK-NEXT: %[[TH:.*]] = dlc.cast %[[T]] : (tensor<2x8xf32>) -> tensor<2x8xf16>
// CHECK-NEXT: %[[TW:.*]] = dlc.cast %[[TH]] : (tensor<2x8xf16>) -> tensor<2x8xf32>
// CHECK: dlc.layer_norm %[[TW]]
// BF16-LABEL: func @layer_norm_input
// BF16: %[[T:.*]] = dlc.add
// BF16: dlc.layer_norm %[[T]]
func.func @layer_norm_input(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>, %s: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = dlc.matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %t = dlc.add %y, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %n = dlc.layer_norm %t, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %n : tensor<2x8xf32>
}

// -----

// Weights round to nearest even, as APFloat does (the conversion is a fast
// bit-level one): 65519 -> 65504 and 65520 -> inf (f16's largest finite is
// 65504; 65520 is the tie), 2^-25 -> 0 and 3 x 2^-25 -> 2^-23 (subnormal
// ties), 1 + 2^-11 -> 1 and -(1 + 3 x 2^-11) -> -(1 + 2^-9) (ties to the
// even mantissa), 1e-40 -> 0, inf stays inf.
// CHECK-LABEL: func @rounding
// CHECK: arith.constant dense<{{\[\[}}6.550400e+04, 0x7C00, 0.000000e+00, 1.192090e-07, 1.000000e+00, -1.001950e+00, 0.000000e+00, 0x7C00]]> : tensor<1x8xf16>
// BF16-LABEL: func @rounding
// BF16: arith.constant dense<{{\[\[}}6.553600e+04, 6.553600e+04, 2.980230e-08, 8.940690e-08, 1.000000e+00, -1.000000e+00, 9.183550e-41, 0x7F80]]> : tensor<1x8xbf16>
func.func @rounding(%x: tensor<1x1xf32>) -> tensor<1x8xf32> {
  %w = arith.constant dense<[[65519.0, 65520.0, 2.98023224e-08, 8.94069672e-08, 1.00048828, -1.00146484, 1.0e-40, 0x7F800000]]> : tensor<1x8xf32>
  %0 = dlc.matmul %x, %w : (tensor<1x1xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
