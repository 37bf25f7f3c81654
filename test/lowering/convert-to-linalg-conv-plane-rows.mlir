// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true conv-plane-rows=256" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true conv-plane-rows=256 pair-conv-weights=true" | FileCheck %s --check-prefix=PAIR
// RUN: dlc-opt %s --split-input-file --dlc-convert-to-linalg="pad-conv-input=true conv-plane-rows=256 pad-grouped-conv-input=true" | FileCheck %s --check-prefix=DW

// A 3x3 stride-1 conv over a 7x7 plane (rows of 7, shorter than a 16-lane
// tile): after the padded copy (9x9), the conv runs at every position
// q = y * 9 + x up to the last output, 6 * 9 + 7 = 61, reading the padded
// plane at q + i * 9 + j (contiguous along q); a second op keeps the
// valid columns, output (y, x) at position y * 9 + x.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + d4 * 9 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
// CHECK-DAG: #[[ACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 9 + d3)>
// CHECK-LABEL: func @small_plane
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x9x9xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2, 3]] : tensor<1x4x9x9xf32> into tensor<1x4x81xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[FLAT]], %arg1 : tensor<1x4x81xf32>, tensor<64x4x3x3xf32>) outs(%{{.*}} : tensor<1x64x61xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[KEEP]], {{.*}}]{{.*}} ins(%[[SUM]] : tensor<1x64x61xf32>) outs(%{{.*}} : tensor<1x64x7x7xf32>)
func.func @small_plane(%x: tensor<1x4x7x7xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x7x7xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// Rows of 16 or more already fill their tiles; a 1x1 window's plane is
// its input's
// (dlc-collapse-row-planes); a depthwise conv keeps its bounded reads; 8
// output channels are too few rows for the work items: none of them
// changes form.
// CHECK-LABEL: func @wide_rows
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
// CHECK-LABEL: func @pointwise
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
// CHECK-LABEL: func @depthwise
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
// CHECK-LABEL: func @few_channels
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @wide_rows(%x: tensor<1x4x16x16xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x16x16xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x16x16xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x16x16xf32>
  return %0 : tensor<1x64x16x16xf32>
}
func.func @pointwise(%x: tensor<1x4x7x7xf32>, %w: tensor<64x4x1x1xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x7x7xf32>, tensor<64x4x1x1xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}
func.func @depthwise(%x: tensor<1x4x7x7xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x7x7xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}
func.func @few_channels(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x7x7xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  return %0 : tensor<1x8x7x7xf32>
}

// -----

// A stride-2 3x3 conv, 14x14 -> 7x7, reads its input's 2x2 phases (the
// padded input at (2y + a, 2x + b), 8x8 each, the pads and past the end
// zero): tap (i, j) reads phase (i mod 2, j mod 2) at (y + i floordiv 2,
// x + j floordiv 2), at stride 1. Its rows of 7 then run on the phases'
// collapsed plane: positions q = y * 8 + x up to 6 * 8 + 7 = 55, and the
// valid columns at y * 8 + x. The phases are zero everywhere, then the
// input, split [1, 4, 7, 2, 7, 2], is copied over them: (y, a, x, b) to
// phase ((a + 1) mod 2, (b + 1) mod 2) at (y + (a + 1) floordiv 2, x + (b
// + 1) floordiv 2), with no clamped reads.
// CHECK-DAG: #[[SPLIT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d2, d5, d3)>
// CHECK-DAG: #[[PHASE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 + 1) mod 2, (d3 + 1) mod 2, d4 + (d2 + 1) floordiv 2, d5 + (d3 + 1) floordiv 2)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4 mod 2, d5 mod 2, d2 + (d4 floordiv 2) * 8 + d5 floordiv 2)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 8 + d3)>
// CHECK-LABEL: func @strided_phases
// CHECK: %[[ZERO:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x2x2x8x8xf32>)
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 4, 7, 2, 7, 2]
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[SPLIT]], #[[PHASE]]]{{.*}} ins(%[[X]] : tensor<1x4x7x2x7x2xf32>) outs(%[[ZERO]] : tensor<1x4x2x2x8x8xf32>)
// CHECK-NOT: tensor.extract
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2], [3], [4, 5]] : tensor<1x4x2x2x8x8xf32> into tensor<1x4x2x2x64xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]{{.*}} ins(%[[FLAT]], %arg1 : tensor<1x4x2x2x64xf32>, tensor<64x4x3x3xf32>) outs(%{{.*}} : tensor<1x64x55xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[KEEP]], {{.*}}]{{.*}} ins(%[[SUM]] : tensor<1x64x55xf32>) outs(%{{.*}} : tensor<1x64x7x7xf32>)
func.func @strided_phases(%x: tensor<1x4x14x14xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// Output rows of 16 or more (a 7x7 stride-2 stem) read the phases in rows
// of the output's width: 35 + 2 * 3 = 41 padded positions, 21 a phase
// (the 42nd is past the end, zero). 35 is no multiple of 2: one generic
// over the phases reads the input at clamped indices.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d5 mod 2, d6 mod 2, d2 + d5 floordiv 2, d3 + d6 floordiv 2)>
// CHECK-LABEL: func @strided_phase_rows
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x2x2x21x21xf32>)
// CHECK: arith.select
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}]{{.*}} ins(%[[P]], %arg1 : tensor<1x3x2x2x21x21xf32>, tensor<8x3x7x7xf32>) outs(%{{.*}} : tensor<1x8x18x18xf32>)
func.func @strided_phase_rows(%x: tensor<1x3x35x35xf32>, %w: tensor<8x3x7x7xf32>) -> tensor<1x8x18x18xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x35x35xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x18x18xf32>
  return %0 : tensor<1x8x18x18xf32>
}

// -----

// Strided convs that keep their form: a 1x1 window (a subsampled copy
// instead: convert-to-linalg-pad-conv-input.mlir), unequal strides, a
// dilated window, a depthwise conv, a stride larger than the window (more
// phases than taps).
// CHECK-LABEL: func @strided_pointwise
// CHECK-NOT: x2x2x
// CHECK: return
// CHECK-LABEL: func @unequal_strides
// CHECK-NOT: x2x2x
// CHECK: return
// CHECK-LABEL: func @dilated
// CHECK-NOT: x2x2x
// CHECK: return
// CHECK-LABEL: func @strided_depthwise
// CHECK-NOT: x2x2x
// CHECK: return
// CHECK-LABEL: func @stride_over_window
// CHECK-NOT: x5x5xf32
// CHECK: return
func.func @strided_pointwise(%x: tensor<1x4x14x14xf32>, %w: tensor<64x4x1x1xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xf32>, tensor<64x4x1x1xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}
func.func @unequal_strides(%x: tensor<1x4x14x14xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x7x14xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x7x14xf32>
  return %0 : tensor<1x64x7x14xf32>
}
func.func @dilated(%x: tensor<1x4x14x14xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x5x5xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, group = 1 : i64} : (tensor<1x4x14x14xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x5x5xf32>
  return %0 : tensor<1x64x5x5xf32>
}
func.func @strided_depthwise(%x: tensor<1x4x14x14xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x14x14xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}
func.func @stride_over_window(%x: tensor<1x4x16x16xf32>, %w: tensor<64x4x3x3xf32>) -> tensor<1x64x4x4xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x16x16xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x4x4xf32>
  return %0 : tensor<1x64x4x4xf32>
}

// -----

// An integer 3x3 conv over a 7x7 plane runs on the padded width as the
// float one does, its copy padded with the input's zero point. Its 61
// positions round up to 64, 4 whole 16-lane tiles (AVX2 has no masked
// byte loads: a rest of 13 ran as pieces of 8, 4 and 1 lanes); their
// windows read up to position 63 + 2 * 9 + 2 = 83, so the copy takes a
// 10th row of 9.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + d4 * 9 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
// CHECK-DAG: #[[ACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 9 + d3)>
// CHECK-LABEL: func @integer_plane
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<i8>) outs(%{{.*}} : tensor<1x4x10x9xi8>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2, 3]] : tensor<1x4x10x9xi8> into tensor<1x4x90xi8>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[W]], {{.*}}, {{.*}}, #[[IN]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg1, %arg2, %arg3, %[[FLAT]] : tensor<64x4x3x3xi8>, tensor<i8>, tensor<i8>, tensor<1x4x90xi8>) outs(%{{.*}} : tensor<1x64x64xi32>)
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: linalg.generic {indexing_maps = [#[[KEEP]], {{.*}}]{{.*}} ins(%[[SUM]] : tensor<1x64x64xi32>) outs(%{{.*}} : tensor<1x64x7x7xi32>)
func.func @integer_plane(%x: tensor<1x4x7x7xi8>, %w: tensor<64x4x3x3xi8>, %xzp: tensor<i8>, %wzp: tensor<i8>) -> tensor<1x64x7x7xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x7x7xi8>, tensor<64x4x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}

// -----

// Without a padded copy to extend, the positions stay 61 (a 64th would read
// past the input); 14x14 outputs on the width 16 round 222 up to 224, the
// copy 17 rows of 16.
// CHECK-LABEL: func @integer_plane_unpadded
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<1x4x9x9xi8> into tensor<1x4x81xi8>
// CHECK: outs(%{{.*}} : tensor<1x64x61xi32>)
// CHECK-LABEL: func @integer_plane_wide
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x4x17x16xi8> into tensor<1x4x272xi8>
// CHECK: outs(%{{.*}} : tensor<1x64x224xi32>)
// CHECK: outs(%{{.*}} : tensor<1x64x14x14xi32>)
func.func @integer_plane_unpadded(%x: tensor<1x4x9x9xi8>, %w: tensor<64x4x3x3xi8>, %xzp: tensor<i8>, %wzp: tensor<i8>) -> tensor<1x64x7x7xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x9x9xi8>, tensor<64x4x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}
func.func @integer_plane_wide(%x: tensor<1x4x14x14xi8>, %w: tensor<64x4x3x3xi8>, %xzp: tensor<i8>, %wzp: tensor<i8>) -> tensor<1x64x14x14xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xi8>, tensor<64x4x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x14x14xi32>
  return %0 : tensor<1x64x14x14xi32>
}

// -----

// A strided integer 3x3 conv reads its input's phases, the zero point
// everywhere and the input copied over it; its 55 positions on the phases' width 8 round up to 64, which
// read up to 63 + 8 + 1 = 72: 10 rows of 8 a phase. With a constant weight
// and weight zero point 0 the zero point is split out: the body reads x
// and w only, the init subtracts x_zp * sum(w).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4 mod 2, d5 mod 2, d2 + (d4 floordiv 2) * 8 + d5 floordiv 2)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 8 + d3)>
// CHECK-LABEL: func @integer_phases
// CHECK: %[[ZP:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<i8>) outs(%{{.*}} : tensor<1x4x2x2x10x8xi8>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x7x2x7x2xi8>) outs(%[[ZP]] : tensor<1x4x2x2x10x8xi8>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2], [3], [4, 5]] : tensor<1x4x2x2x10x8xi8> into tensor<1x4x2x2x80xi8>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x64x64xi32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [{{.*}}, #[[IN]], {{.*}}]{{.*}} ins(%{{.*}}, %[[FLAT]] : tensor<64x4x3x3xi8>, tensor<1x4x2x2x80xi8>) outs(%[[INIT]] : tensor<1x64x64xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[KEEP]], {{.*}}]{{.*}} ins(%[[SUM]] : tensor<1x64x64xi32>) outs(%{{.*}} : tensor<1x64x7x7xi32>)
func.func @integer_phases(%x: tensor<1x4x14x14xi8>) -> tensor<1x64x7x7xi32> {
  %w = arith.constant dense<1> : tensor<64x4x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xi8>, tensor<64x4x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}

// -----

// A strided integer 1x1 conv reads a subsampled copy of its input, at
// stride 1 then (its plane collapses later: dlc-collapse-row-planes).
// CHECK-DAG: #[[SUB:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func @integer_strided_pointwise
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[SUB]], {{.*}}]{{.*}} ins(%arg0 : tensor<1x4x14x14xi8>) outs(%{{.*}} : tensor<1x4x7x7xi8>)
// CHECK: linalg.generic {indexing_maps = [{{.*}}, {{.*}}, {{.*}}, #[[IN]], {{.*}}]{{.*}} ins(%arg1, %arg2, %arg3, %[[C]] :
func.func @integer_strided_pointwise(%x: tensor<1x4x14x14xi8>, %w: tensor<64x4x1x1xi8>, %xzp: tensor<i8>, %wzp: tensor<i8>) -> tensor<1x64x7x7xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x14x14xi8>, tensor<64x4x1x1xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}

// -----

// With pair-conv-weights (pmaddwd takes a tap's channels 2 at a time), a
// constant weight of 3 input channels (a stem) is laid out [O, KH, KW, C]
// and padded with zero weights to 4 channels; the input's copy (phases in
// rows of the output's width here, a padded copy where no row form
// applies) gets a 4th channel of the zero point. Without a copy the
// channels stay 3. The phases' copy writes the input's 3 channels (as c
// mod 4) over the zero point's 4.
// PAIR-DAG: #[[CHANNEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 mod 4, (d2 + 3) mod 2, (d3 + 3) mod 2, d4 + (d2 + 3) floordiv 2, d5 + (d3 + 3) floordiv 2)>
// PAIR-LABEL: func @stem_channels
// PAIR: %[[ZP:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<i8>) outs(%{{.*}} : tensor<1x4x2x2x23x23xi8>)
// PAIR: %[[P:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[CHANNEL]]]{{.*}} ins(%{{.*}} : tensor<1x3x20x2x20x2xi8>) outs(%[[ZP]] : tensor<1x4x2x2x23x23xi8>)
// PAIR: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<64x7x7x4xi8>, tensor<1x4x2x2x23x23xi8>) outs(%{{.*}} : tensor<1x64x20x20xi32>)
// PAIR-LABEL: func @padded_channels
// PAIR: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<i8>) outs(%{{.*}} : tensor<1x4x18x18xi8>)
// PAIR: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<64x3x3x4xi8>, tensor<1x4x18x18xi8>) outs(%{{.*}} : tensor<1x64x16x16xi32>)
// PAIR-LABEL: func @unpadded_channels
// PAIR: linalg.generic {{.*}} ins(%{{.*}}, %arg0 : tensor<64x3x3x3xi8>, tensor<1x3x18x18xi8>) outs(%{{.*}} : tensor<1x64x16x16xi32>)
func.func @stem_channels(%x: tensor<1x3x40x40xi8>) -> tensor<1x64x20x20xi32> {
  %w = arith.constant dense<1> : tensor<64x3x7x7xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x40x40xi8>, tensor<64x3x7x7xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x20x20xi32>
  return %0 : tensor<1x64x20x20xi32>
}
func.func @padded_channels(%x: tensor<1x3x16x16xi8>) -> tensor<1x64x16x16xi32> {
  %w = arith.constant dense<1> : tensor<64x3x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x16x16xi8>, tensor<64x3x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x16x16xi32>
  return %0 : tensor<1x64x16x16xi32>
}
func.func @unpadded_channels(%x: tensor<1x3x18x18xi8>) -> tensor<1x64x16x16xi32> {
  %w = arith.constant dense<1> : tensor<64x3x3x3xi8>
  %xzp = arith.constant dense<-3> : tensor<i8>
  %wzp = arith.constant dense<0> : tensor<i8>
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x18x18xi8>, tensor<64x3x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x16x16xi32>
  return %0 : tensor<1x64x16x16xi32>
}

// -----

// With pad-grouped-conv-input, a stride-1 depthwise conv runs on its plane
// too: output channel k reads input channel k (the channel reduction has
// extent 1, the weight's [K, 1, 3, 3]), its padded copy the fill and a
// copy over it. Rows of 7 were a work item each, 7 lanes of a tile.
// DW: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 * 9 + d5)>
// DW-LABEL: func @depthwise_plane
// DW: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x64x9x9xf32>)
// DW: %[[P:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x64x7x7xf32>) outs(%{{.*}} : tensor<1x64x9x9xf32>)
// DW: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1], [2, 3]] : tensor<1x64x9x9xf32> into tensor<1x64x81xf32>
// DW: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]{{.*}} ins(%[[FLAT]], %arg1 : tensor<1x64x81xf32>, tensor<64x1x3x3xf32>) outs(%{{.*}} : tensor<1x64x61xf32>)
// DW: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x64x61xf32>) outs(%{{.*}} : tensor<1x64x7x7xf32>)
func.func @depthwise_plane(%x: tensor<1x64x7x7xf32>, %w: tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64 : i64} : (tensor<1x64x7x7xf32>, tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// The integer one rounds its positions up to whole tiles (64), the copy
// padded with the zero point.
// DW: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 * 9 + d5)>
// DW-LABEL: func @integer_depthwise_plane
// DW: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x64x10x9xi8> into tensor<1x64x90xi8>
// DW: %[[SUM:.*]] = linalg.generic {indexing_maps = [{{.*}}#[[IN]], {{.*}}]{{.*}} ins(%arg1, %arg2, %arg3, %[[FLAT]] : tensor<64x1x3x3xi8>, tensor<i8>, tensor<i8>, tensor<1x64x90xi8>) outs(%{{.*}} : tensor<1x64x64xi32>)
// DW: outs(%{{.*}} : tensor<1x64x7x7xi32>)
func.func @integer_depthwise_plane(%x: tensor<1x64x7x7xi8>, %w: tensor<64x1x3x3xi8>, %xzp: tensor<i8>, %wzp: tensor<i8>) -> tensor<1x64x7x7xi32> {
  %0 = dlc.conv_integer %x, %w, %xzp, %wzp {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64 : i64} : (tensor<1x64x7x7xi8>, tensor<64x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x64x7x7xi32>
  return %0 : tensor<1x64x7x7xi32>
}

// -----

// A strided depthwise conv keeps its padded copy and strided window reads
// (its phases' copy took 3x the conv's time), and so does one with a
// channel multiplier (groups fewer than its output channels).
// DW-LABEL: func @depthwise_strided
// DW-NOT: tensor.collapse_shape
// DW: outs(%{{.*}} : tensor<1x64x7x7xf32>)
// DW-LABEL: func @depthwise_multiplier
// DW-NOT: tensor.collapse_shape
// DW: outs(%{{.*}} : tensor<1x128x7x7xf32>)
func.func @depthwise_strided(%x: tensor<1x64x14x14xf32>, %w: tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64 : i64} : (tensor<1x64x14x14xf32>, tensor<64x1x3x3xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}
func.func @depthwise_multiplier(%x: tensor<1x64x7x7xf32>, %w: tensor<128x1x3x3xf32>) -> tensor<1x128x7x7xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64 : i64} : (tensor<1x64x7x7xf32>, tensor<128x1x3x3xf32>) -> tensor<1x128x7x7xf32>
  return %0 : tensor<1x128x7x7xf32>
}
