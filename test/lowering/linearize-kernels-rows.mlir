// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=2" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-linearize-kernels="row-work-items=1 row-block=2 byte-row-block=4" | FileCheck %s --check-prefix=BYTE

// Host rows of a MatMul (C = A x B, zero-filled first): a work item is a
// row of C, and with `row-block` two consecutive rows, whose reduction runs
// as one 2-D row (u, n) inside the k loop so that both share each read of
// B; the fill runs once for each of the two rows.
// CHECK-LABEL: func.func private @matmul(
// CHECK: scf.parallel (%[[I:[a-z0-9_]+]]) = (%{{.*}}) to (%c4{{.*}}) step
// With `byte-row-block`, rows of floats keep `row-block`.
// BYTE-LABEL: func.func private @matmul(
// BYTE: scf.parallel ({{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c16{{.*}})
// CHECK: scf.for %[[U:[a-z0-9_]+]] = %{{.*}} to %c2
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: scf.parallel (%[[U2:[a-z0-9_]+]], %[[N:[a-z0-9_]+]]) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c16{{.*}})
// CHECK: affine.apply #{{.*}}(%[[N]])
// CHECK: memref.load %arg1[
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: memref.store
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @matmul(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<8x4xf32>, memref<4x16xf32>) outs(%C : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row whose reads depend on every outer dim (an elementwise-reduction
// mix with nothing to share) keeps one row a work item.
// CHECK-LABEL: func.func private @row_sum(
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c8{{.*}}) step
// CHECK-NOT: scf.parallel (%{{.*}}, %{{.*}})
#x = affine_map<(m, n, k) -> (m, k, n)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func private @row_sum(%X: memref<8x4x16xf32>, %Y: memref<8x16xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#x, #y],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%X : memref<8x4x16xf32>) outs(%Y : memref<8x16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A padded copy (the input read at its index minus the pad, clamped, the
// pad selected outside): one padded row a work item, its 10 columns a loop
// (as single elements the linearized index's divisions by 10 kept LLVM from
// vectorizing: resnet50's copies ran 10x slower).
// CHECK-LABEL: func.func private @padded_copy(
// CHECK-SAME: dlc.work_items = 40 : i64
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c40{{.*}}) step
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c10{{.*}} step
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x10x10xf32>
// CHECK-NEXT: }
#o = affine_map<(c, y, x) -> (c, y, x)>
func.func private @padded_copy(%in: memref<4x8x8xf32>, %out: memref<4x10x10xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#o], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%out : memref<4x10x10xf32>) {
  ^bb0(%o: f32):
    %c = linalg.index 0 : index
    %y = linalg.index 1 : index
    %x = linalg.index 2 : index
    %ys = arith.subi %y, %c1 : index
    %xs = arith.subi %x, %c1 : index
    %y0 = arith.cmpi sge, %ys, %c0 : index
    %y1 = arith.cmpi slt, %ys, %c8 : index
    %x0 = arith.cmpi sge, %xs, %c0 : index
    %x1 = arith.cmpi slt, %xs, %c8 : index
    %a = arith.andi %y0, %y1 : i1
    %b = arith.andi %x0, %x1 : i1
    %in_bounds = arith.andi %a, %b : i1
    %yc = arith.maxsi %ys, %c0 : index
    %yc2 = arith.minsi %yc, %c7 : index
    %xc = arith.maxsi %xs, %c0 : index
    %xc2 = arith.minsi %xc, %c7 : index
    %v = memref.load %in[%c, %yc2, %xc2] : memref<4x8x8xf32>
    %r = arith.select %in_bounds, %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A depthwise conv's padded copy as the host builds it, two kernels: the
// zero point everywhere (an op reading scalars alone), then the input over
// it through a shifted map. Both run a row a work item, its columns a loop
// of consecutive elements (as single elements, their index divisions by
// the padded width kept them scalar: mobilenet_v2's int8 copies 1.4 ms).
// CHECK-LABEL: func.func private @fill_rows(
// CHECK-SAME: dlc.work_items = 40 : i64
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c40{{.*}}) step
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c10{{.*}} step
// CHECK: memref.store %{{.*}}, %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x10x10xi8>
// CHECK-LABEL: func.func private @shifted_copy(
// CHECK-SAME: dlc.work_items = 32 : i64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step
// CHECK-NOT: arith.select
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x10x10xi8>
#i = affine_map<(c, y, x) -> (c, y, x)>
#z = affine_map<(c, y, x) -> ()>
#s = affine_map<(c, y, x) -> (c, y + 1, x + 1)>
func.func private @fill_rows(%out: memref<4x10x10xi8>, %zp: memref<i8>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#z, #i], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%zp : memref<i8>) outs(%out : memref<4x10x10xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  return
}
func.func private @shifted_copy(%in: memref<4x8x8xi8>, %out: memref<4x10x10xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#i, #s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%in : memref<4x8x8xi8>) outs(%out : memref<4x10x10xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  return
}

// -----

// Elementwise ops without indices keep one element a work item (LLVM
// vectorizes across work items).
// CHECK-LABEL: func.func private @elementwise(
// CHECK-SAME: dlc.work_items = 320 : i64
// CHECK-NOT: scf.for
#o = affine_map<(c, y, x) -> (c, y, x)>
func.func private @elementwise(%in: memref<4x8x10xf32>, %out: memref<4x8x10xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#o, #o], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%in : memref<4x8x10xf32>) outs(%out : memref<4x8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A subsampled copy (every second row and column: a strided 1x1 conv's
// input) reads along its innermost dim strided: rows, as a padded copy.
// A read of the plane's valid columns (y * 9 + x: contiguous along x)
// keeps one element a work item.
// CHECK-LABEL: func.func private @subsampled_copy(
// CHECK-SAME: dlc.work_items = 16 : i64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step
// CHECK-LABEL: func.func private @plane_columns(
// CHECK-SAME: dlc.work_items = 196 : i64
// CHECK-NOT: scf.for
#every2 = affine_map<(c, y, x) -> (c, y * 2, x * 2)>
#o = affine_map<(c, y, x) -> (c, y, x)>
func.func private @subsampled_copy(%in: memref<4x8x8xf32>, %out: memref<4x4x4xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#every2, #o], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%in : memref<4x8x8xf32>) outs(%out : memref<4x4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}
#cols = affine_map<(c, y, x) -> (c, y * 9 + x)>
func.func private @plane_columns(%in: memref<4x61xf32>, %out: memref<4x7x7xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#cols, #o], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%in : memref<4x61xf32>) outs(%out : memref<4x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// An input broadcast along the rows (a softmax's per-row sum, a per-channel
// bias): rows, each work item's columns a loop. As single elements the
// broadcast read's index is the linearized one divided by the row length,
// which LLVM does not vectorize (a [1, 12, 128, 128] softmax's normalizing
// kernel ran 1.17 ms, as rows 0.076).
// CHECK-LABEL: func.func private @row_broadcast(
// CHECK-SAME: dlc.work_items = 16 : i64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK: arith.divf
// CHECK-LABEL: func.func private @channel_bias(
// CHECK-SAME: dlc.work_items = 32 : i64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step
// CHECK: arith.addf
#x = affine_map<(r, j) -> (r, j)>
#s = affine_map<(r, j) -> (r, 0)>
func.func private @row_broadcast(%in: memref<16x32xf32>, %sum: memref<16x1xf32>, %out: memref<16x32xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#x, #s, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in, %sum : memref<16x32xf32>, memref<16x1xf32>) outs(%out : memref<16x32xf32>) {
  ^bb0(%v: f32, %d: f32, %o: f32):
    %r = arith.divf %v, %d : f32
    linalg.yield %r : f32
  }
  return
}
#o = affine_map<(c, y, x) -> (c, y, x)>
#b = affine_map<(c, y, x) -> (c)>
func.func private @channel_bias(%in: memref<4x8x8xf32>, %bias: memref<4xf32>, %out: memref<4x8x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#o, #b, #o], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%in, %bias : memref<4x8x8xf32>, memref<4xf32>) outs(%out : memref<4x8x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %r = arith.addf %v, %c : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A transposed read is no broadcast: one element a work item, as before.
// CHECK-LABEL: func.func private @transposed(
// CHECK-SAME: dlc.work_items = 512 : i64
// CHECK-NOT: scf.for
#x = affine_map<(r, j) -> (r, j)>
#t = affine_map<(r, j) -> (j, r)>
func.func private @transposed(%in: memref<32x16xf32>, %out: memref<16x32xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#t, #x], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<32x16xf32>) outs(%out : memref<16x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// A reduction along the input's contiguous dim (a softmax's max, a
// LayerNorm's mean) keeps one output a work item, reading along the
// reduction: as rows (the 16 outputs inside the k loop) each step would
// read 16 elements 32 apart (a batch-8 bert LayerNorm 5.5 -> 0.42 ms).
// CHECK-LABEL: func.func private @max_along_row(
// CHECK-SAME: dlc.work_items = 128 : i64
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %c0{{.*}} to %c32{{.*}} step
// CHECK: %[[KI:[0-9]+]] = affine.apply #{{.*}}(%[[K]])
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %[[KI]]]
// CHECK: arith.maximumf
#x = affine_map<(b, r, k) -> (b, r, k)>
#m = affine_map<(b, r, k) -> (b, r, 0)>
func.func private @max_along_row(%in: memref<8x16x32xf32>, %out: memref<8x16x1xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#x, #m], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%in : memref<8x16x32xf32>) outs(%out : memref<8x16x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Shorter than 16, the contiguous reduction keeps the rows (16 outputs a
// row) as before.
// CHECK-LABEL: func.func private @max_along_short_row(
// CHECK-SAME: dlc.work_items = 8 : i64
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c16{{.*}})
#x = affine_map<(b, r, k) -> (b, r, k)>
#m = affine_map<(b, r, k) -> (b, r, 0)>
func.func private @max_along_short_row(%in: memref<8x16x8xf32>, %out: memref<8x16x1xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#x, #m], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%in : memref<8x16x8xf32>) outs(%out : memref<8x16x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A whole-tensor min after its one-element fill, then arithmetic on the
// scalar (a DynamicQuantizeLinear's range): on the host one work item runs
// them one after the other (the fill's unit loop inlined), where each was
// a kernel of one work item of its own.
// CHECK-LABEL: func.func private @single_work_items(
// CHECK-SAME: dlc.work_items = 1 : i64
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: memref.store %{{.*}}, %arg1[
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.minimumf
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %arg2[]
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (0, 0)>
func.func private @single_work_items(%in: memref<16x32xf32>, %lo: memref<1x1xf32>, %scale: memref<f32>) attributes {dlc.kernel, dlc.distinct_args} {
  %inf = arith.constant 0x7F800000 : f32
  linalg.fill ins(%inf : f32) outs(%lo : memref<1x1xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["reduction", "reduction"]}
      ins(%in : memref<16x32xf32>) outs(%lo : memref<1x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.minimumf %acc, %v : f32
    linalg.yield %m : f32
  }
  %lo0 = memref.collapse_shape %lo [] : memref<1x1xf32> into memref<f32>
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%lo0 : memref<f32>) outs(%scale : memref<f32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 255.0 : f32
    %d = arith.divf %v, %c : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// A copy that interleaves rows (dlc-convert-to-linalg quad-conv-inputs'
// byte quadruples: x[4 c + q][p] to [c, p, q]): as rows of its innermost
// dim a work item would be 4 bytes; a work item runs (p, q) as loops
// instead, q innermost, which LLVM vectorizes as 4 row loads and an
// interleaved store.
// CHECK-LABEL: func.func private @quad_pack(
// CHECK-SAME: dlc.work_items = 16 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c196
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4
#in = affine_map<(n, c, p, q) -> (n, c * 4 + q, p)>
#out = affine_map<(n, c, p, q) -> (n, c, p, q)>
func.func private @quad_pack(%x: memref<1x64x196xi8>, %y: memref<1x16x196x4xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x64x196xi8>) outs(%y : memref<1x16x196x4xi8>) {
  ^bb0(%a: i8, %b: i8):
    linalg.yield %a : i8
  }
  return
}

// -----

// A byte dot product (an int8 convolution's reduction): its rows take
// `byte-row-block` (4: 64 rows, 16 work items), so each tile of bytes the
// vectorizer builds serves 4 rows of accumulators.
// CHECK-LABEL: func.func private @byte_rows(
// CHECK-SAME: dlc.work_items = 32 : i64
// BYTE-LABEL: func.func private @byte_rows(
// BYTE-SAME: dlc.work_items = 16 : i64
// BYTE: scf.parallel ({{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c4{{.*}}, %c16{{.*}})
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @byte_rows(%W: memref<64x8xi8>, %X: memref<8x16xi8>, %C: memref<64x16xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%W, %X : memref<64x8xi8>, memref<8x16xi8>) outs(%C : memref<64x16xi32>) {
  ^bb0(%w: i8, %x: i8, %acc: i32):
    %we = arith.extsi %w : i8 to i32
    %xe = arith.extui %x : i8 to i32
    %p = arith.muli %we, %xe : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A byte block that would leave fewer than 16 work items (32 rows: 8)
// halves until it does not or reaches `row-block`: 2 here, 16 work items.
// BYTE-LABEL: func.func private @few_byte_rows(
// BYTE-SAME: dlc.work_items = 16 : i64
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func private @few_byte_rows(%W: memref<32x8xi8>, %X: memref<8x16xi8>, %C: memref<32x16xi32>) attributes {dlc.kernel, dlc.distinct_args} {
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%W, %X : memref<32x8xi8>, memref<8x16xi8>) outs(%C : memref<32x16xi32>) {
  ^bb0(%w: i8, %x: i8, %acc: i32):
    %we = arith.extsi %w : i8 to i32
    %xe = arith.extui %x : i8 to i32
    %p = arith.muli %we, %xe : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
