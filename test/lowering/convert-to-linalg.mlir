// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
  // CHECK: arith.addf
  // CHECK-NOT: dlc.
  %0 = dlc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @relu
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg.generic
  // CHECK: arith.maximumf
  %0 = dlc.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An unpadded grouped convolution is pure indexing: the group picks the
// input channel block, stride 2 scales the output position.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 4) * 2 + d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func @conv_grouped
func.func @conv_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32> {
  // CHECK: %[[INIT:.*]] = linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
  // CHECK-SAME: outs(%[[INIT]]
  // CHECK-NOT: tensor.extract
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// Padding is a bounds check on the read, not a padded copy; the bias
// initializes the output.
// CHECK-LABEL: func @conv_padded_bias
func.func @conv_padded_bias(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<2xf32>)
  // CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<2x1x3x3xf32>) outs(%[[INIT]]
  // CHECK: arith.cmpi sge
  // CHECK: tensor.extract %arg0
  // CHECK: arith.select
  %0 = dlc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @gemm_transposed
func.func @gemm_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<16xf32>)
  // CHECK: arith.mulf
  // CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
  %0 = dlc.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.5 : f32, transA = true, transB = true} : (tensor<8x4xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batch dims broadcast: the rhs has no batch dim.
// CHECK-DAG: #[[L:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_broadcast
func.func @matmul_broadcast(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<2x4x5xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
  %0 = dlc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// Softmax: one pass for the running max and rescaled sum, one to normalize.
// While a row has seen only -inf (a masked first column), its exponents are
// taken from 0, not from the max: exp(-inf - -inf) is NaN.
// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[STATS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
  // CHECK: ^bb0(%[[XV:.*]]: f32, %[[M:.*]]: f32, %[[S:.*]]: f32):
  // CHECK: %[[MNEW:.*]] = arith.maximumf %[[M]], %[[XV]]
  // CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[MASKED:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NEGINF]]
  // CHECK: %[[BASE:.*]] = arith.select %[[MASKED]], %{{.*}}, %[[MNEW]]
  // CHECK: arith.subf %[[M]], %[[BASE]]
  // CHECK: math.exp
  // CHECK: arith.subf %[[XV]], %[[BASE]]
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}} ins(%arg0, %[[STATS]]#0, %[[STATS]]#1
  // CHECK: arith.divf
  %0 = dlc.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @max_pool_ceil
func.func @max_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  // The last window overhangs (ceil_mode): reads are bounds-checked.
  // CHECK: linalg.fill ins(%{{.*}} : f32)
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
  // CHECK: tensor.extract
  // CHECK: arith.maximumf
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// CHECK-LABEL: func @average_pool
func.func @average_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: linalg.generic {{.*}} "reduction", "reduction"
  // CHECK: arith.addf
  // Second pass: divide by the counted window positions.
  // CHECK: linalg.generic
  // CHECK: arith.ceildivsi
  // CHECK: arith.divf
  %0 = dlc.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// CHECK-LABEL: func @reshape
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  // CHECK: tensor.expand_shape {{.*}} into tensor<6x4xf32>
  %0 = dlc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func @transpose
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[P]], {{.*}}]
  %0 = dlc.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-DAG: #[[S:.*]] = affine_map<(d0) -> (d0 * -2 + 3)>
// CHECK-LABEL: func @slice_negative_step
func.func @slice_negative_step(%x: tensor<4xf32>) -> tensor<2xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[S]], {{.*}}]
  %0 = dlc.slice %x {starts = array<i64: 3>, ends = array<i64: 0>, steps = array<i64: -2>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @concat
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {
  // CHECK: linalg.generic
  // CHECK: tensor.extract %arg0
  // CHECK: tensor.extract %arg1
  // CHECK: arith.select
  %0 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Negative indices wrap; out-of-range ones store the check number into the
// status word (the run fails naming the node) and clamp: a bad index never
// faults.
// CHECK: module attributes {dlc.checks = ["Gather node 'g0': index out of range (axis 0 has 5 entries)"]}
// CHECK: memref.global "private" @__dlc_status : memref<1xi32>
// CHECK-LABEL: func @gather
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // CHECK: %[[STATUS:.*]] = memref.get_global @__dlc_status
  // CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<2xi64>)
  // CHECK: arith.index_cast
  // CHECK: %[[I:.*]] = arith.select
  // CHECK: %[[BAD:.*]] = arith.cmpi uge, %[[I]], %c5
  // CHECK: scf.if %[[BAD]] {
  // CHECK:   %[[CODE:.*]] = arith.constant 1 : i32
  // CHECK:   memref.store %[[CODE]], %[[STATUS]][%{{.*}}] : memref<1xi32>
  // CHECK: arith.maxsi
  // CHECK: arith.minsi
  // CHECK: tensor.extract %arg0
  %0 = dlc.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> loc("g0")
  return %0 : tensor<2x3xf32>
}

// -----

// Constant indices already in [-n, n) need no check.
// CHECK-NOT: dlc.checks
// CHECK-NOT: __dlc_status
// CHECK-LABEL: func @gather_constant_indices
func.func @gather_constant_indices(%x: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %i = arith.constant dense<[4, -5]> : tensor<2xi64>
  // CHECK: linalg.generic
  // CHECK-NOT: scf.if
  // CHECK: tensor.extract %arg0
  %0 = dlc.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Each checked op gets its own number and message.
// CHECK: dlc.checks = ["GatherND node 'nd': index out of range", "ScatterElements node 's': index out of range (axis 1 has 4 entries)"]
// CHECK-LABEL: func @gather_nd_scatter_checks
func.func @gather_nd_scatter_checks(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>, %j: tensor<3x1xi64>, %u: tensor<3x1xf32>) -> (tensor<2xf32>, tensor<3x4xf32>) {
  // CHECK: %[[STATUS:.*]] = memref.get_global @__dlc_status
  // CHECK-COUNT-2: memref.store %c1_i32, %[[STATUS]]
  %0 = dlc.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2xf32> loc("nd")
  // CHECK: memref.store %c2_i32, %[[STATUS]]
  %1 = dlc.scatter_elements %x, %j, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<3x1xi64>, tensor<3x1xf32>) -> tensor<3x4xf32> loc("s")
  return %0, %1 : tensor<2xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  // mean, centered, variance, normalize
  // CHECK-COUNT-4: linalg.generic
  // CHECK: math.rsqrt
  %0 = dlc.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// An f16 input widened for the normalization (--precision=fp16 rounds
// LayerNorm inputs): the mean and the centering read the f16 tensor and
// widen each element, so no f32 copy of it is made.
// CHECK-LABEL: func @layer_norm_widened_input
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x8xf16>) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<2x8xf16>, tensor<2x1xf32>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
func.func @layer_norm_widened_input(%h: tensor<2x8xf16>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %x = dlc.cast %h : (tensor<2x8xf16>) -> tensor<2x8xf32>
  %0 = dlc.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @cast_to_bool
func.func @cast_to_bool(%x: tensor<3xf32>) -> tensor<3xi1> {
  // CHECK: arith.cmpf une
  %0 = dlc.cast %x : (tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func @reduce_mean
func.func @reduce_mean(%x: tensor<1x4x2x2xf32>) -> tensor<1x4xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
  // CHECK: arith.constant 2.500000e-01
  // CHECK: tensor.collapse_shape
  %0 = dlc.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = false} : (tensor<1x4x2x2xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Comparisons yield i1 from ordered float predicates; Where selects with
// three broadcast operands.
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW2:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @compare_where
func.func @compare_where(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xi1>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi1>)
  // CHECK: arith.cmpf olt
  %0 = dlc.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: linalg.generic
  // CHECK: arith.cmpf uno
  %1 = dlc.is_nan %a : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: linalg.generic
  // CHECK: arith.xori
  %2 = dlc.xor %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: linalg.generic
  // CHECK: arith.andi
  %3 = dlc.and %2, %c : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  // CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW2]], #[[ID2]], #[[ID2]]]
  // CHECK: arith.select
  %4 = dlc.where %c, %b, %a : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = dlc.where %3, %4, %a : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// -----

// Expand reads the broadcast dims at index 0; GatherElements reads the data
// with tensor.extract at the wrapped, clamped index along the axis.
// CHECK-DAG: #[[EXP_IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @expand_gather_elements
func.func @expand_gather_elements(%x: tensor<3x1xf32>, %d: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> (tensor<2x3x4xf32>, tensor<2x4xf32>) {
  // CHECK: linalg.generic {indexing_maps = [#[[EXP_IN]], {{.*}}]
  %0 = dlc.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // CHECK: linalg.generic {{.*}} ins(%arg2 : tensor<2x4xi64>)
  // CHECK: arith.index_cast
  // CHECK: arith.minsi
  // CHECK: %[[J:.*]] = linalg.index 1
  // CHECK: tensor.extract %arg1[%{{.*}}, %[[J]]]
  %1 = dlc.gather_elements %d, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x4xf32>
}

// -----

// Round is half-to-even (from floor: math.roundeven has no NVVM lowering);
// integer Mod without fmod moves the remainder to the
// divisor's sign.
// CHECK-LABEL: func @round_mod
func.func @round_mod(%x: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: linalg.generic
  // CHECK: %[[FL:.*]] = math.floor
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf oeq
  // CHECK: %[[UP:.*]] = arith.addf %[[FL]]
  // CHECK: arith.select %{{.*}}, %[[UP]], %[[FL]]
  %0 = dlc.round %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: linalg.generic
  // CHECK: %[[REM:.*]] = arith.remsi
  // CHECK: arith.xori
  // CHECK: %[[FIX:.*]] = arith.addi %[[REM]]
  // CHECK: arith.select %{{.*}}, %[[FIX]], %[[REM]]
  %1 = dlc.mod %i, %j {fmod = false} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// ReduceMax starts from -inf and drops the reduced dim with a reshape;
// ArgMax carries (value, index) through one reduction with two outputs.
// CHECK-LABEL: func @reduce_argmax
func.func @reduce_argmax(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  // CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK: linalg.fill ins(%[[NEGINF]]
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
  // CHECK: arith.maximumf
  // CHECK: tensor.collapse_shape
  %0 = dlc.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: %[[ARG:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<2x1xi64>)
  // CHECK: linalg.index 1
  // CHECK: arith.cmpf ogt
  // CHECK: tensor.collapse_shape %[[ARG]]#1
  %1 = dlc.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0, %1 : tensor<2xf32>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func @gelu_exact
func.func @gelu_exact(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg.generic
  // CHECK: math.erf
  // CHECK-NOT: math.tanh
  %0 = dlc.gelu %x {tanh_approximation = false} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tile reads index mod the input dim; a slice that crops from 0 with step 1
// reads with tensor.extract (a plain dim expression must span its operand).
// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1) -> (d0 mod 2, d1)>
// CHECK-LABEL: func @tile_crop
func.func @tile_crop(%x: tensor<2x3xf32>) -> (tensor<6x3xf32>, tensor<2x2xf32>) {
  // CHECK: linalg.generic {indexing_maps = [#[[TILE]], {{.*}}]
  %0 = dlc.tile %x {repeats = array<i64: 3, 1>} : (tensor<2x3xf32>) -> tensor<6x3xf32>
  // CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2xf32>)
  // CHECK: tensor.extract %arg0
  %1 = dlc.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<6x3xf32>, tensor<2x2xf32>
}

// -----

// Reflect padding mirrors the index at both ends; no padded copy.
// CHECK-LABEL: func @pad_reflect
func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<7xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[J:.*]] = arith.subi %{{.*}}, %c2
  // CHECK: arith.cmpi slt, %[[J]]
  // CHECK: arith.cmpi sge
  // CHECK: tensor.extract %arg0
  // CHECK-NOT: arith.select {{.*}} %cst
  %0 = dlc.pad %x {mode = "reflect", pads = array<i64: 2, 1>, value = 0.0 : f64} : (tensor<4xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// CumSum sums the input over a second copy of the axis (reduction dim d2),
// masked by the position along the axis.
// CHECK-DAG: #[[CS_IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[CS_OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @cumsum
func.func @cumsum(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[CS_IN]], #[[CS_OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
  // CHECK: %[[I:.*]] = linalg.index 1
  // CHECK: %[[R:.*]] = linalg.index 2
  // CHECK: arith.cmpi slt, %[[R]], %[[I]]
  %0 = dlc.cumsum %x {axis = 1 : i64, exclusive = true, reverse = false} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CumProd: the same reduction from 1, multiplying; reversed inclusive keeps
// r >= i.
// CHECK-LABEL: func @cumprod
func.func @cumprod(%x: tensor<2x5xi64>) -> tensor<2x5xi64> {
  // CHECK: %[[ONE:.*]] = arith.constant 1 : i64
  // CHECK: linalg.fill ins(%[[ONE]] : i64)
  // CHECK: %[[I:.*]] = linalg.index 0
  // CHECK: %[[R:.*]] = linalg.index 2
  // CHECK: %[[IN:.*]] = arith.cmpi sge, %[[R]], %[[I]]
  // CHECK: %[[X:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : i64
  // CHECK: arith.muli %{{.*}}, %[[X]] : i64
  %0 = dlc.cumprod %x {axis = 0 : i64, exclusive = false, reverse = true} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// Einsum is one generic with pure indexing maps: output letters parallel,
// summed letters reduction.
// CHECK-DAG: #[[EA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[EB:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[EO:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @einsum_bmm
func.func @einsum_bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[EA]], #[[EB]], #[[EO]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %0 = dlc.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// ScatterElements starts from the data and reduces over the updates along
// the axis (d2), selecting the combined value where the index hits.
// CHECK-LABEL: func @scatter_elements
func.func @scatter_elements(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
  // CHECK-SAME: outs(%arg0 : tensor<3x4xf32>)
  // CHECK: tensor.extract %arg1
  // CHECK: arith.cmpi eq
  // CHECK: tensor.extract %arg2
  // CHECK: arith.addf
  // CHECK: arith.select
  %0 = dlc.scatter_elements %d, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// TopK: one generic ranks every element along the axis against the others
// (d2), a second picks rank j for output j, producing values and indices.
// CHECK-LABEL: func @top_k
func.func @top_k(%x: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>) {
  // CHECK: %[[RANK:.*]] = linalg.generic {{.*}} ins(%arg0, %arg0 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%{{.*}} : tensor<2x5xi64>)
  // CHECK: arith.cmpf ogt
  // CHECK: arith.extui
  // CHECK: %{{.*}}:2 = linalg.generic {{.*}} ins(%arg0, %[[RANK]] : tensor<2x5xf32>, tensor<2x5xi64>) outs(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xi64>)
  %0:2 = dlc.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi64>
}

// -----

// Linear resize blends the 2^d neighbours of the resized dims (here 2).
// CHECK-LABEL: func @resize_linear
func.func @resize_linear(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  // CHECK: linalg.generic
  // CHECK: math.floor
  // CHECK-COUNT-2: tensor.extract %arg0
  // CHECK-NOT: tensor.extract
  // CHECK: linalg.yield
  %0 = dlc.resize %x {mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor", scales = array<f64: 1.0, 2.0>} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// align_corners maps with ONNX's length_resized = input * scale before
// rounding: 4 * 0.6 = 2.4, so x_original = x * 3 / 1.4 (not x * 3 / 1).
// CHECK-LABEL: func @resize_align_corners_downsample
func.func @resize_align_corners_downsample(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  // CHECK: arith.constant 2.14285707 : f32
  // CHECK: linalg.yield
  %0 = dlc.resize %x {mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "round_prefer_floor", scales = array<f64: 1.0, 0.6>} : (tensor<1x4xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// ConvTranspose keeps an input position only when the stride divides it;
// a [C/group] operand sizes the input-channel loop.
// CHECK-LABEL: func @conv_transpose
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x2x2xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK: %[[C:.*]] = tensor.empty() : tensor<2xi8>
  // CHECK: linalg.generic {{.*}} ins(%arg1, %[[C]] : tensor<2x4x2x2xf32>, tensor<2xi8>)
  // CHECK: arith.floordivsi
  // CHECK: arith.cmpi eq
  // CHECK: tensor.extract %arg0
  %0 = dlc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x4x2x2xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Half-precision GEMMs accumulate in f32 and round once at the end.
// CHECK-LABEL: func @matmul_f16_accumulates_in_f32
func.func @matmul_f16_accumulates_in_f32(%a: tensor<2x8xf16>, %b: tensor<8x4xf16>) -> tensor<2x4xf16> {
  // CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<2x4xf32>)
  // CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[S:.*]]: f32):
  // CHECK-DAG: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
  // CHECK-DAG: %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
  // CHECK: arith.mulf %[[XE]], %[[YE]] : f32
  // CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf16>)
  // CHECK: arith.truncf %{{.*}} : f32 to f16
  %0 = dlc.matmul %a, %b : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// An empty input covers no position along the concat axis: it is dropped, not
// read at a clamped index (-1). RotaryEmbedding's expansion concatenates an
// empty split when the whole head rotates.
// CHECK-LABEL: func @concat_empty
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<2x0xf32>)
func.func @concat_empty(%a: tensor<2x8xf32>, %b: tensor<2x0xf32>) -> tensor<2x8xf32> {
  // CHECK: linalg.generic
  // CHECK: tensor.extract %[[A]]
  // CHECK-NOT: tensor.extract %[[B]]
  // CHECK: return
  %0 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x0xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @conv_bf16_bias_accumulates_in_f32
func.func @conv_bf16_bias_accumulates_in_f32(%x: tensor<1x2x4x4xbf16>, %w: tensor<3x2x1x1xbf16>, %bias: tensor<3xbf16>) -> tensor<1x3x4x4xbf16> {
  // CHECK: arith.extf %{{.*}} : bf16 to f32
  // CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x4x4xf32>)
  // CHECK: arith.truncf %{{.*}} : f32 to bf16
  %0 = dlc.conv %x, %w, %bias {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xbf16>, tensor<3x2x1x1xbf16>, tensor<3xbf16>) -> tensor<1x3x4x4xbf16>
  return %0 : tensor<1x3x4x4xbf16>
}

// -----

// CHECK-LABEL: func @concat_all_empty
func.func @concat_all_empty(%a: tensor<2x0xf32>, %b: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<2x0xf32>
  // CHECK-NOT: linalg.generic
  // CHECK: return %[[E]]
  %0 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

// A channels_last conv (dlc-convert-conv-layout) is the implicit-GEMM form
// dlc-tile-gemm-kernels matches: the padded input made first (its own
// generic, zeros outside, marked with its pads as `dlc.padding` so that
// dlc-tile-gemm-kernels can fold it into the implicit GEMM's loads), the
// bias broadcast along the last dim as the init, then ONE generic over (n,
// oh, ow, o, kh, kw, c) with pure affine maps and ext/mul/add into the f32
// accumulator, then the rounding.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @conv_nhwc_padded_f16_bias
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<1x10x10x16xf16>) attrs =  {dlc.padding = array<i64: 1, 1, 1, 1>}
// CHECK: tensor.extract %arg0
// CHECK: arith.select
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]]]{{.*}} ins(%arg2 : tensor<32xf16>) outs(%{{.*}} : tensor<1x4x4x32xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %arg1 : tensor<1x10x10x16xf16>, tensor<32x3x3x16xf16>) outs(%[[INIT]] : tensor<1x4x4x32xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %[[WV:.*]]: f16, %[[O:.*]]: f32):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[WE:.*]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[O]], %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[A]]
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<1x4x4x32xf32>) outs(%{{.*}} : tensor<1x4x4x32xf16>)
// CHECK: arith.truncf
func.func @conv_nhwc_padded_f16_bias(%x: tensor<1x8x8x16xf16>, %w: tensor<32x3x3x16xf16>, %b: tensor<32xf16>) -> tensor<1x4x4x32xf16> {
  %0 = dlc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x16xf16>, tensor<32x3x3x16xf16>, tensor<32xf16>) -> tensor<1x4x4x32xf16>
  return %0 : tensor<1x4x4x32xf16>
}

// -----

// Unpadded, dilated depthwise channels_last conv: no padded copy; the
// input's channel is the group's (d3 / 1 * 1 + d6).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4 * 2, d2 + d5 * 2, d3 + d6)>
// CHECK-LABEL: func @conv_nhwc_dilated_depthwise
// CHECK: linalg.fill
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[IN]], {{.*}}} ins(%arg0, %arg1 : tensor<1x8x8x4xf32>, tensor<4x3x3x1xf32>)
// CHECK-NOT: tensor.extract
func.func @conv_nhwc_dilated_depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<1x4x4x4xf32> {
  %0 = dlc.conv %x, %w {channels_last, dilations = array<i64: 2, 2>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// channels_last max pooling: the window runs over dims 1 and 2.
// CHECK-LABEL: func @max_pool_nhwc
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 3 : index
// CHECK: tensor.extract %arg0[%[[N]], %{{.*}}, %{{.*}}, %[[C]]] : tensor<1x8x8x4xf32>
// CHECK: arith.maximumf
func.func @max_pool_nhwc(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = dlc.max_pool %x {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Inverse trigonometric and hyperbolic functions from math ops both
// targets lower (MLIR 19's NVVM lowering has no asin or sinh): asin(x) =
// atan2(x, sqrt((1 - x)(1 + x))), sinh(x) = (expm1(x) - expm1(-x)) / 2.
// CHECK-LABEL: func @asin_sinh
func.func @asin_sinh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: math.sqrt
  // CHECK: math.atan2
  // CHECK-NOT: math.asin
  // CHECK: math.expm1
  // CHECK: math.expm1
  // CHECK-NOT: math.sinh
  %0 = dlc.asin %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = dlc.sinh %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
