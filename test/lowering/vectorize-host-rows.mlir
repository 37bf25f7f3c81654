// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows=lanes=16 | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 any-length-tiles=1" | FileCheck %s --check-prefix=MASKED

// A 3x3 conv row of 24 outputs (a tile of 16 lanes and one of 8): the
// accumulator row is loaded once a tile into a vector iter_arg of the
// three reduction loops, the window row read as one vector load, the
// weight broadcast, and the result stored once.
// CHECK-LABEL: func.func private @conv_row(
// CHECK: scf.parallel
// CHECK: %[[A0:.*]] = vector.load %arg0[%c0, %{{.*}}, %{{.*}}, %c0{{.*}}] : memref<1x4x24x24xf32>, vector<16xf32>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[A0]]) -> (vector<16xf32>)
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: %[[X:.*]] = vector.load %arg1[{{.*}}] : memref<1x4x26x26xf32>, vector<16xf32>
// CHECK: %[[W:.*]] = memref.load %arg2
// CHECK: %[[WB:.*]] = vector.broadcast %[[W]] : f32 to vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[WB]] fastmath<contract> : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %[[P]] fastmath<contract> : vector<16xf32>
// CHECK: vector.store %[[R]], %arg0[%c0, %{{.*}}, %{{.*}}, %c0{{.*}}] : memref<1x4x24x24xf32>, vector<16xf32>
// CHECK: vector.load %arg0{{.*}} vector<8xf32>
// CHECK: vector.load %arg1{{.*}} vector<8xf32>
// CHECK: vector.store {{.*}} vector<8xf32>
// CHECK-NOT: memref.store
func.func private @conv_row(%acc: memref<1x4x24x24xf32>, %in: memref<1x4x26x26xf32>, %w: memref<4x4x3x3xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c24 = arith.constant 24 : index
  %c96 = arith.constant 96 : index
  scf.parallel (%i) = (%c0) to (%c96) step (%c1) {
    %o = arith.divsi %i, %c24 : index
    %h = arith.remsi %i, %c24 : index
    scf.for %c = %c0 to %c4 step %c1 {
      scf.for %kh = %c0 to %c3 step %c1 {
        scf.for %kw = %c0 to %c3 step %c1 {
          scf.parallel (%j) = (%c0) to (%c24) step (%c1) {
            %ih = arith.addi %h, %kh : index
            %jw = arith.addi %j, %kw : index
            %x = memref.load %in[%c0, %c, %ih, %jw] : memref<1x4x26x26xf32>
            %wt = memref.load %w[%o, %c, %kh, %kw] : memref<4x4x3x3xf32>
            %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x24x24xf32>
            %p = arith.mulf %x, %wt : f32
            %s = arith.addf %a, %p : f32
            memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x24x24xf32>
            scf.reduce
          }
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// The bias fill just before a 2-D row's reduction nest (every copy, every
// column, a value the column does not change): the tiles start from the
// bias in registers and the fill goes (no store before the loops, no load
// of the accumulator row).
// CHECK-LABEL: func.func private @filled_rows(
// CHECK-NOT: memref.store
// CHECK: %[[B0:.*]] = memref.load %arg3[%{{.*}}] : memref<4xf32>
// CHECK: %[[V0:.*]] = vector.broadcast %[[B0]] : f32 to vector<8xf32>
// CHECK: %[[B1:.*]] = memref.load %arg3[%{{.*}}] : memref<4xf32>
// CHECK: %[[V1:.*]] = vector.broadcast %[[B1]] : f32 to vector<8xf32>
// CHECK-NOT: vector.load %arg0
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[V0]], %{{.*}} = %[[V1]]) -> (vector<8xf32>, vector<8xf32>)
// CHECK: vector.store
// CHECK: vector.store
// A fill that misses a column (7 of 8) is not the accumulators' start.
// CHECK-LABEL: func.func private @partial_fill(
// CHECK: memref.store
// CHECK: vector.load %arg0
func.func private @filled_rows(%acc: memref<4x8x8xf32>, %in: memref<3x8x8xf32>, %w: memref<4x3xf32>, %bias: memref<4xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %ob = arith.divsi %i, %c8 : index
    %h = arith.remsi %i, %c8 : index
    %base = arith.muli %ob, %c2 : index
    scf.for %u = %c0 to %c2 step %c1 {
      %o = arith.addi %base, %u : index
      scf.for %j = %c0 to %c8 step %c1 {
        %b = memref.load %bias[%o] : memref<4xf32>
        memref.store %b, %acc[%o, %h, %j] : memref<4x8x8xf32>
      }
    }
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%u, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
        %o = arith.addi %base, %u : index
        %x = memref.load %in[%c, %h, %j] : memref<3x8x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %h, %j] : memref<4x8x8xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @partial_fill(%acc: memref<4x8x8xf32>, %in: memref<3x8x8xf32>, %w: memref<4x3xf32>, %bias: memref<4xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %ob = arith.divsi %i, %c8 : index
    %h = arith.remsi %i, %c8 : index
    %base = arith.muli %ob, %c2 : index
    scf.for %u = %c0 to %c2 step %c1 {
      %o = arith.addi %base, %u : index
      scf.for %j = %c0 to %c7 step %c1 {
        %b = memref.load %bias[%o] : memref<4xf32>
        memref.store %b, %acc[%o, %h, %j] : memref<4x8x8xf32>
      }
    }
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%u, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
        %o = arith.addi %base, %u : index
        %x = memref.load %in[%c, %h, %j] : memref<3x8x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %h, %j] : memref<4x8x8xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A 2-D row (dlc-linearize-kernels `row-block`): two output channels share
// each stride-2 window read (a span of 2 x 8 - 1 elements, every second
// taken), each with its own accumulator vector and weight.
// CHECK-LABEL: func.func private @blocked_strided(
// CHECK: %[[A0:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<4x8x8xf32>, vector<8xf32>
// CHECK: %[[A1:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<4x8x8xf32>, vector<8xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[A0]], %{{.*}} = %[[A1]]) -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[SPAN:.*]] = vector.load %arg1[{{.*}}] : memref<3x8x17xf32>, vector<15xf32>
// CHECK: vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: scf.yield %{{.*}}, %{{.*}} : vector<8xf32>, vector<8xf32>
// CHECK: vector.store
// CHECK: vector.store
// With AVX-512 (any-length-tiles) the span is 16 elements under a mask of
// its 15, whole registers one permute picks from.
// MASKED-LABEL: func.func private @blocked_strided(
// MASKED: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false]> : vector<16xi1>
// MASKED: %[[SPAN:.*]] = vector.maskedload %arg1[{{.*}}], %[[MASK]], %{{.*}} : memref<3x8x17xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// MASKED: vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14]
func.func private @blocked_strided(%acc: memref<4x8x8xf32>, %in: memref<3x8x17xf32>, %w: memref<4x3xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %ob = arith.divsi %i, %c8 : index
    %h = arith.remsi %i, %c8 : index
    %base = arith.muli %ob, %c2 : index
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%u, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
        %o = arith.addi %base, %u : index
        %j2 = arith.muli %j, %c2 : index
        %x = memref.load %in[%c, %h, %j2] : memref<3x8x17xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %h, %j] : memref<4x8x8xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// Rows the pass leaves alone: a read whose lanes are not evenly spaced (a
// clamped, bounds-checked window read), a row that stores a buffer it
// does not reduce into, and a row longer than 256 (a MatMul's: it streams
// its B rows whole in the row form).
// CHECK-LABEL: func.func private @clamped(
// CHECK-NOT: vector.
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c8)
// CHECK-LABEL: func.func private @not_accumulator(
// CHECK-NOT: vector.
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c8)
// CHECK-LABEL: func.func private @long_row(
// CHECK-NOT: vector.
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c512)
func.func private @clamped(%acc: memref<4x8xf32>, %in: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %t = arith.addi %j, %k : index
        %p = arith.subi %t, %c1 : index
        %ge = arith.cmpi sge, %p, %c0 : index
        %m = arith.maxsi %p, %c0 : index
        %q = arith.minsi %m, %c7 : index
        %x = memref.load %in[%i, %q] : memref<4x8xf32>
        %v = arith.select %ge, %x, %zero : f32
        %a = memref.load %acc[%i, %j] : memref<4x8xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%i, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @not_accumulator(%acc: memref<4x8xf32>, %in: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%i, %j] : memref<4x8xf32>
        %a = memref.load %acc[%i, %j] : memref<4x8xf32>
        %s = arith.addf %a, %x : f32
        memref.store %s, %acc[%i, %j] : memref<4x8xf32>
        memref.store %x, %out[%i, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @long_row(%acc: memref<4x512xf32>, %a: memref<4x8xf32>, %b: memref<8x512xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%j) = (%c0) to (%c512) step (%c1) {
        %x = memref.load %a[%i, %k] : memref<4x8xf32>
        %y = memref.load %b[%k, %j] : memref<8x512xf32>
        %c = memref.load %acc[%i, %j] : memref<4x512xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %c, %p : f32
        memref.store %s, %acc[%i, %j] : memref<4x512xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// The epilogue just after a 2-D row's reduction nest (a residual and a
// ReLU, for every copy and column) runs on each tile's registers. The
// accumulator buffer is the caller's allocation for this call alone, used
// by nothing but the row's fill, reduction and epilogue: its store goes,
// and so do the argument and the allocation.
// CHECK-LABEL: func.func private @epilogue_rows(
// CHECK-SAME: %arg0: memref<3x8x8xf32>, %arg1: memref<4x3xf32>, %arg2: memref<4x8x8xf32>, %arg3: memref<4x8x8xf32>)
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[RES:.*]] = vector.load %arg2[%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<4x8x8xf32>, vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[R]]#0, %[[RES]] : vector<8xf32>
// CHECK: %[[Y:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<8xf32>
// CHECK: vector.store %[[Y]], %arg3[%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<4x8x8xf32>, vector<8xf32>
// CHECK: arith.addf %[[R]]#1
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc
// CHECK: call @epilogue_rows(%arg0, %arg1, %arg2, %arg3)
func.func private @epilogue_rows(%acc: memref<4x8x8xf32>, %in: memref<3x8x8xf32>, %w: memref<4x3xf32>, %res: memref<4x8x8xf32>, %out: memref<4x8x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %ob = arith.divsi %i, %c8 : index
    %h = arith.remsi %i, %c8 : index
    %base = arith.muli %ob, %c2 : index
    scf.for %u = %c0 to %c2 step %c1 {
      %o = arith.addi %base, %u : index
      scf.for %j = %c0 to %c8 step %c1 {
        memref.store %zero, %acc[%o, %h, %j] : memref<4x8x8xf32>
      }
    }
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%u, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
        %o = arith.addi %base, %u : index
        %x = memref.load %in[%c, %h, %j] : memref<3x8x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %h, %j] : memref<4x8x8xf32>
        scf.reduce
      }
    }
    %c0_1 = arith.constant 0 : index
    scf.for %u = %c0_1 to %c2 step %c1 {
      %o = arith.addi %base, %u : index
      scf.for %j = %c0 to %c8 step %c1 {
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %r = memref.load %res[%o, %h, %j] : memref<4x8x8xf32>
        %s = arith.addf %a, %r : f32
        %y = arith.maximumf %s, %zero : f32
        memref.store %y, %out[%o, %h, %j] : memref<4x8x8xf32>
      }
    }
    scf.reduce
  }
  return
}
func.func @main(%in: memref<3x8x8xf32>, %w: memref<4x3xf32>, %res: memref<4x8x8xf32>, %out: memref<4x8x8xf32>) {
  %acc = memref.alloc() : memref<4x8x8xf32>
  call @epilogue_rows(%acc, %in, %w, %res, %out) : (memref<4x8x8xf32>, memref<3x8x8xf32>, memref<4x3xf32>, memref<4x8x8xf32>, memref<4x8x8xf32>) -> ()
  return
}

// -----

// The epilogue writes (and reads) through strided views with contiguous
// rows (a padded copy's interior, dlc-fold-padded-copies): vector stores
// and loads as on a plain buffer.
// CHECK-LABEL: func.func private @epilogue_strided(
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: %[[RES:.*]] = vector.load %arg3[{{.*}}] : memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>, vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[RES]] : vector<8xf32>
// CHECK: vector.store %[[S]], %arg4[{{.*}}] : memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>, vector<8xf32>
// CHECK-NOT: memref.store
func.func private @epilogue_strided(%acc: memref<4x8x8xf32>, %in: memref<3x8x8xf32>, %w: memref<4x3xf32>, %res: memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>, %out: memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %o = arith.divsi %i, %c8 : index
    %h = arith.remsi %i, %c8 : index
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %zero, %acc[%o, %h, %j] : memref<4x8x8xf32>
    }
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %h, %j] : memref<3x8x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %h, %j] : memref<4x8x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %h, %j] : memref<4x8x8xf32>
      %r = memref.load %res[%o, %h, %j] : memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>
      %s = arith.addf %a, %r : f32
      memref.store %s, %out[%o, %h, %j] : memref<4x8x8xf32, strided<[160, 16, 1], offset: 17>>
    }
    scf.reduce
  }
  return
}

// -----

// An accumulator buffer the caller reads afterwards (here: a buffer of
// its own caller's) keeps its store; the epilogue, with a bias read once a
// copy and a shifted column, still runs on the registers.
// CHECK-LABEL: func.func private @epilogue_kept(
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: vector.store %[[R]], %arg0[%{{.*}}, %c0{{.*}}] : memref<4x8xf32>, vector<8xf32>
// CHECK: %[[B:.*]] = memref.load %arg3[%{{.*}}] : memref<4xf32>
// CHECK: %[[BB:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[BB]] : vector<8xf32>
// CHECK: %[[J:.*]] = arith.addi %c0{{.*}}, %c2 : index
// CHECK: vector.store %[[S]], %arg4[%{{.*}}, %[[J]]] : memref<4x10xf32>, vector<8xf32>
// CHECK-NOT: memref.store
func.func private @epilogue_kept(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %bias: memref<4xf32>, %out: memref<4x10xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x8xf32>
      %b = memref.load %bias[%o] : memref<4xf32>
      %s = arith.addf %a, %b : f32
      %jo = arith.addi %j, %c2 : index
      memref.store %s, %out[%o, %jo] : memref<4x10xf32>
    }
    scf.reduce
  }
  return
}
func.func @caller(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %bias: memref<4xf32>, %out: memref<4x10xf32>) {
  call @epilogue_kept(%acc, %in, %w, %bias, %out) : (memref<4x8xf32>, memref<3x8xf32>, memref<4x3xf32>, memref<4xf32>, memref<4x10xf32>) -> ()
  return
}

// -----

// A scale in a 0-d buffer (a QDQ residual's, passed at run time) is one
// element, uniform along the row: the epilogue still runs on the
// registers, the scale loaded once and broadcast.
// CHECK-LABEL: func.func private @epilogue_scalar_buffer(
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: %[[S:.*]] = memref.load %arg3[] : memref<f32>
// CHECK: %[[SB:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[R]], %[[SB]] : vector<8xf32>
// CHECK: vector.store %[[M]], %arg4[%{{.*}}, %c0{{.*}}] : memref<4x8xf32>, vector<8xf32>
// CHECK-NOT: memref.store
func.func private @epilogue_scalar_buffer(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %scale: memref<f32>, %out: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x8xf32>
      %k = memref.load %scale[] : memref<f32>
      %m = arith.mulf %a, %k : f32
      memref.store %m, %out[%o, %j] : memref<4x8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// An epilogue that reads an i1 along the row (a Where's condition) stays a
// loop: a vector of i1 is bits in memory, where the buffer holds a byte an
// element (flex attention's causal mask read 8 conditions from one byte).
// CHECK-LABEL: func.func private @epilogue_i1_condition(
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: vector.store %[[R]], %arg0
// CHECK: scf.for
// CHECK: memref.load %arg3[%{{.*}}, %{{.*}}] : memref<4x8xi1>
// CHECK: arith.select %{{.*}} : f32
// CHECK-NOT: vector<8xi1>
func.func private @epilogue_i1_condition(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %mask: memref<4x8xi1>, %out: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %fill = arith.constant -1.0e9 : f32
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x8xf32>
      %m = memref.load %mask[%o, %j] : memref<4x8xi1>
      %v = arith.select %m, %a, %fill : f32
      memref.store %v, %out[%o, %j] : memref<4x8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Epilogues the tiles cannot run stay loops after the tiles' stores: one
// reads the accumulator at another column (a neighbour's element), one
// writes a buffer the reduction reads (the next tile would read it), one
// reads its output back.
// CHECK-LABEL: func.func private @epilogue_shifted(
// CHECK: vector.store
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store
// CHECK-LABEL: func.func private @epilogue_writes_input(
// CHECK: vector.store
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store
// CHECK-LABEL: func.func private @epilogue_reads_output(
// CHECK: vector.store
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store
func.func private @epilogue_shifted(%acc: memref<4x9xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %out: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x9xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x9xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %j1 = arith.addi %j, %c1 : index
      %a = memref.load %acc[%o, %j1] : memref<4x9xf32>
      memref.store %a, %out[%o, %j] : memref<4x8xf32>
    }
    scf.reduce
  }
  return
}
func.func private @epilogue_writes_input(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x8xf32>
      memref.store %a, %in[%c0, %j] : memref<3x8xf32>
    }
    scf.reduce
  }
  return
}
func.func private @epilogue_reads_output(%acc: memref<4x8xf32>, %in: memref<3x8xf32>, %w: memref<4x3xf32>, %out: memref<4x8xf32>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%o) = (%c0) to (%c4) step (%c1) {
    scf.for %c = %c0 to %c3 step %c1 {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %in[%c, %j] : memref<3x8xf32>
        %wt = memref.load %w[%o, %c] : memref<4x3xf32>
        %a = memref.load %acc[%o, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %wt : f32
        %s = arith.addf %a, %p : f32
        memref.store %s, %acc[%o, %j] : memref<4x8xf32>
        scf.reduce
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%o, %j] : memref<4x8xf32>
      %prev = memref.load %out[%o, %c0] : memref<4x8xf32>
      %s = arith.addf %a, %prev : f32
      memref.store %s, %out[%o, %j] : memref<4x8xf32>
    }
    scf.reduce
  }
  return
}
