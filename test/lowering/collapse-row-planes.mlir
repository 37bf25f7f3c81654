// RUN: dlc-opt %s --split-input-file --dlc-collapse-row-planes | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-collapse-row-planes="byte-max-row=1024" | FileCheck %s --check-prefix=BYTES
// RUN: dlc-opt %s --split-input-file --dlc-collapse-row-planes --dlc-linearize-kernels="row-work-items=1 row-block=8" --canonicalize | FileCheck %s --check-prefix=ROWS
// RUN: dlc-opt %s --split-input-file --dlc-collapse-row-planes="panel-max-row=4096" | FileCheck %s --check-prefix=PANEL

// A 1x1 conv over a 7x7 plane with its bias and ReLU: every op reads and
// writes the plane contiguously, so (y, x) merge into one dim of 49 over
// collapsed views, the 1x1 window's reduction dims go, and the row a work
// item runs is the plane (64 channels, 8 work items of 8 rows).
// CHECK-DAG: #[[$XMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$WMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, 0, 0)>
// CHECK-DAG: #[[$OMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func private @conv1x1_bias_relu(
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<1x32x7x7xf32> into memref<1x32x49xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.collapse_shape %arg3 {{\[\[}}0], [1], [2, 3]] : memref<1x64x7x7xf32> into memref<1x64x49xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg4 {{\[\[}}0], [1], [2, 3]] : memref<1x64x7x7xf32> into memref<1x64x49xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : memref<64xf32>) outs(%[[ACC]] : memref<1x64x49xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$XMAP]], #[[$WMAP]], #[[$OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %arg0 : memref<1x32x49xf32>, memref<64x32x1x1xf32>) outs(%[[ACC]] : memref<1x64x49xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<1x64x49xf32>) outs(%[[Y]] : memref<1x64x49xf32>)
// ROWS-LABEL: func.func private @conv1x1_bias_relu(
// ROWS-SAME: dlc.work_items = 8 : i64
// ROWS: scf.for %[[C:.*]] = %c0 to %c32
// ROWS: scf.parallel (%{{.*}}, %[[P:.*]]) = (%c0, %c0) to (%c8, %c49)
// ROWS: memref.load %{{.*}}[%c0, %[[C]], %[[P]]] : memref<1x32x49xf32>
#bias = affine_map<(n, k, y, x) -> (k)>
#id = affine_map<(n, k, y, x) -> (n, k, y, x)>
#in = affine_map<(n, k, y, x, c, i, j) -> (n, c, y + i, x + j)>
#w = affine_map<(n, k, y, x, c, i, j) -> (k, c, i, j)>
#out = affine_map<(n, k, y, x, c, i, j) -> (n, k, y, x)>
func.func private @conv1x1_bias_relu(%w: memref<64x32x1x1xf32>, %x: memref<1x32x7x7xf32>, %b: memref<64xf32>, %acc: memref<1x64x7x7xf32>, %y: memref<1x64x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<64xf32>) outs(%acc : memref<1x64x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x7x7xf32>, memref<64x32x1x1xf32>) outs(%acc : memref<1x64x7x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x64x7x7xf32>) outs(%y : memref<1x64x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A 3x3 window: the input rows are read at y + i, x + j, not as the
// plane, so nothing changes.
// CHECK-LABEL: func.func private @conv3x3(
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
#in = affine_map<(n, k, y, x, c, i, j) -> (n, c, y + i, x + j)>
#w = affine_map<(n, k, y, x, c, i, j) -> (k, c, i, j)>
#out = affine_map<(n, k, y, x, c, i, j) -> (n, k, y, x)>
func.func private @conv3x3(%w: memref<64x32x3x3xf32>, %x: memref<1x32x9x9xf32>, %acc: memref<1x64x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x9x9xf32>, memref<64x32x3x3xf32>) outs(%acc : memref<1x64x7x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 28x28 plane is 784 elements, longer than a register row (max-row 256):
// its rows stay the conv's 28 columns. With panel-max-row it merges: 784
// is 49 whole tiles, which dlc-linearize-kernels splits into panels. A
// 27x27 plane (729) would keep a long row form, unvectorized: it stays.
// CHECK-LABEL: func.func private @long_plane(
// CHECK-NOT: memref.collapse_shape
// CHECK-LABEL: func.func private @long_plane_27(
// CHECK-NOT: memref.collapse_shape
// PANEL-LABEL: func.func private @long_plane(
// PANEL: memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<1x32x28x28xf32> into memref<1x32x784xf32>
// PANEL-LABEL: func.func private @long_plane_27(
// PANEL-NOT: memref.collapse_shape
// PANEL-LABEL: func.func private @few_rows(
#in = affine_map<(n, k, y, x, c) -> (n, c, y, x)>
#w = affine_map<(n, k, y, x, c) -> (k, c)>
#out = affine_map<(n, k, y, x, c) -> (n, k, y, x)>
func.func private @long_plane(%w: memref<64x32xf32>, %x: memref<1x32x28x28xf32>, %acc: memref<1x64x28x28xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x32x28x28xf32>, memref<64x32xf32>) outs(%acc : memref<1x64x28x28xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @long_plane_27(%w: memref<64x32xf32>, %x: memref<1x32x27x27xf32>, %acc: memref<1x64x27x27xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x32x27x27xf32>, memref<64x32xf32>) outs(%acc : memref<1x64x27x27xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 16 output channels are 2 work items of 8 rows, fewer than min-rows'
// 8: the plane's 7 rows stay work items.
// CHECK-LABEL: func.func private @few_rows(
// CHECK-NOT: memref.collapse_shape
#in = affine_map<(n, k, y, x, c) -> (n, c, y, x)>
#w = affine_map<(n, k, y, x, c) -> (k, c)>
#out = affine_map<(n, k, y, x, c) -> (n, k, y, x)>
func.func private @few_rows(%w: memref<16x32xf32>, %x: memref<1x32x7x7xf32>, %acc: memref<1x16x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x32x7x7xf32>, memref<16x32xf32>) outs(%acc : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// One op of the kernel reads the plane transposed (x, y): the kernel's
// loop nests must stay alike to fuse, so no op collapses.
// CHECK-LABEL: func.func private @transposed_epilogue(
// CHECK-NOT: memref.collapse_shape
#in = affine_map<(n, k, y, x, c) -> (n, c, y, x)>
#w = affine_map<(n, k, y, x, c) -> (k, c)>
#out = affine_map<(n, k, y, x, c) -> (n, k, y, x)>
#id = affine_map<(n, k, y, x) -> (n, k, y, x)>
#t = affine_map<(n, k, y, x) -> (n, k, x, y)>
func.func private @transposed_epilogue(%w: memref<64x32xf32>, %x: memref<1x32x7x7xf32>, %r: memref<1x64x7x7xf32>, %acc: memref<1x64x7x7xf32>, %y: memref<1x64x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x32x7x7xf32>, memref<64x32xf32>) outs(%acc : memref<1x64x7x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<1x64x7x7xf32>, memref<1x64x7x7xf32>) outs(%y : memref<1x64x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Kernels without a reduction keep their own form (one element a work
// item, which LLVM vectorizes across work items).
// CHECK-LABEL: func.func private @elementwise(
// CHECK-NOT: memref.collapse_shape
#id = affine_map<(n, k, y, x) -> (n, k, y, x)>
func.func private @elementwise(%x: memref<1x64x7x7xf32>, %y: memref<1x64x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x64x7x7xf32>) outs(%y : memref<1x64x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An integer 1x1 conv over a 28x28 plane: longer than max-row, but its
// rows of 28 would end in byte pieces (16 + 8 + 4) and its 784 positions
// are 49 whole tiles, so byte-max-row merges it.
// CHECK-LABEL: func.func private @int8_conv1x1_28(
// CHECK-NOT: memref.collapse_shape
// BYTES-LABEL: func.func private @int8_conv1x1_28(
// BYTES-DAG: memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<1x32x28x28xi8> into memref<1x32x784xi8>
// BYTES-DAG: memref.collapse_shape %arg2 {{\[\[}}0], [1], [2, 3]] : memref<1x64x28x28xi32> into memref<1x64x784xi32>
#in = affine_map<(n, k, y, x, c, i, j) -> (n, c, y + i, x + j)>
#w = affine_map<(n, k, y, x, c, i, j) -> (k, c, i, j)>
#out = affine_map<(n, k, y, x, c, i, j) -> (n, k, y, x)>
func.func private @int8_conv1x1_28(%w: memref<64x32x1x1xi16>, %x: memref<1x32x28x28xi8>, %acc: memref<1x64x28x28xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x28x28xi8>, memref<64x32x1x1xi16>) outs(%acc : memref<1x64x28x28xi32>) {
  ^bb0(%a: i8, %c: i16, %o: i32):
    %ae = arith.extui %a : i8 to i32
    %ce = arith.extsi %c : i16 to i32
    %p = arith.muli %ae, %ce : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The same over 30x30: 900 positions are no whole tiles either, so the
// rows stay (and a float conv's 28x28 plane is max-row's alone).
// BYTES-LABEL: func.func private @int8_conv1x1_30(
// BYTES-NOT: memref.collapse_shape
// BYTES-LABEL: func.func private @f32_conv1x1_28(
// BYTES-NOT: memref.collapse_shape
#in = affine_map<(n, k, y, x, c, i, j) -> (n, c, y + i, x + j)>
#w = affine_map<(n, k, y, x, c, i, j) -> (k, c, i, j)>
#out = affine_map<(n, k, y, x, c, i, j) -> (n, k, y, x)>
func.func private @int8_conv1x1_30(%w: memref<64x32x1x1xi8>, %x: memref<1x32x30x30xi8>, %acc: memref<1x64x30x30xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x30x30xi8>, memref<64x32x1x1xi8>) outs(%acc : memref<1x64x30x30xi32>) {
  ^bb0(%a: i8, %c: i8, %o: i32):
    %ae = arith.extui %a : i8 to i32
    %ce = arith.extsi %c : i8 to i32
    %p = arith.muli %ae, %ce : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }
  return
}
func.func private @f32_conv1x1_28(%w: memref<64x32x1x1xf32>, %x: memref<1x32x28x28xf32>, %acc: memref<1x64x28x28xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x28x28xf32>, memref<64x32x1x1xf32>) outs(%acc : memref<1x64x28x28xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 1x1 integer conv on byte quadruples (dlc-convert-to-linalg
// quad-conv-inputs): the input is read at (h, 4 w + q) over [7, 28], a
// group of 4 of the plane's width; the plane merges into 49 positions
// read at 4 p + q over the [196] view.
// CHECK-DAG: #[[$QX:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 * 4 + d4)>
// CHECK-LABEL: func.func private @quad_conv1x1(
// CHECK-DAG: %[[ACC:.*]] = memref.collapse_shape %arg3 {{\[\[}}0], [1], [2, 3]] : memref<1x64x7x7xi32> into memref<1x64x49xi32>
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<1x2x7x28xi8> into memref<1x2x196xi8>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$QX]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %[[X]], %arg2 : memref<64x8x1x1xi8>, memref<1x2x196xi8>, memref<2x4xi8>) outs(%[[ACC]] : memref<1x64x49xi32>)
// BYTES-LABEL: func.func private @quad_conv1x1(
// ROWS-LABEL: func.func private @quad_conv1x1(
// ROWS-SAME: dlc.work_items = 8 : i64
// ROWS: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c8, %c49)
// ROWS: memref.load %{{.*}} : memref<1x2x196xi8>
#w = affine_map<(n, o, h, w, c, q) -> (o, c * 4 + q, 0, 0)>
#x = affine_map<(n, o, h, w, c, q) -> (n, c, h, w * 4 + q)>
#g = affine_map<(n, o, h, w, c, q) -> (c, q)>
#out = affine_map<(n, o, h, w, c, q) -> (n, o, h, w)>
func.func private @quad_conv1x1(%w: memref<64x8x1x1xi8>, %x: memref<1x2x7x28xi8>, %g: memref<2x4xi8>, %acc: memref<1x64x7x7xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#w, #x, #g, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%w, %x, %g : memref<64x8x1x1xi8>, memref<1x2x7x28xi8>, memref<2x4xi8>) outs(%acc : memref<1x64x7x7xi32>) {
  ^bb0(%a: i8, %b: i8, %e: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extui %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  return
}
