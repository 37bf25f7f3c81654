// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 any-length-tiles=true vnni=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 any-length-tiles=true" | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 pmaddwd-bits=128" | FileCheck %s --check-prefix=PM
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 pmaddwd-bits=256" | FileCheck %s --check-prefix=PM256
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-host-rows="lanes=16 any-length-tiles=true vnni=true accumulators=24" | FileCheck %s --check-prefix=TILES

// A 3x3 integer conv row of 20 outputs, 2 output channels a work item,
// weights [O, KH, KW, C] (dlc-convert-to-linalg channels-last-int8-weights):
// the channel loop, outermost, moves innermost and steps by 4; each step
// interleaves the 4 channels' window rows into byte quadruples and feeds
// vpdpbusd with the weight's 4 bytes broadcast (x is the u8 side). A tile
// of 16 lanes, then one of 4.
// CHECK-LABEL: func.func private @conv3x3_u8s8(
// CHECK: vector.load %arg0{{.*}} : memref<1x4x20x20xi32>, vector<16xi32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-4: vector.load %arg1{{.*}} : memref<1x8x22x22xi8>, vector<16xi8>
// CHECK: %[[P01:.*]] = vector.shuffle {{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xi8>, vector<16xi8>
// CHECK: %[[P23:.*]] = vector.shuffle {{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xi8>, vector<16xi8>
// CHECK: %[[Q:.*]] = vector.shuffle %[[P01]], %[[P23]] [0, 1, 32, 33, 2, 3, 34, 35, {{.*}}] : vector<32xi8>, vector<32xi8>
// CHECK: %[[XW:.*]] = vector.bitcast %[[Q]] : vector<64xi8> to vector<16xi32>
// CHECK: %[[WB:.*]] = vector.from_elements {{.*}} : vector<4xi8>
// CHECK: %[[WW:.*]] = vector.bitcast %[[WB]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[W:.*]] = vector.extract %[[WW]][0] : i32 from vector<1xi32>
// CHECK: %[[WS:.*]] = vector.broadcast %[[W]] : i32 to vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[XW]], %[[WS]]) : (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: scf.yield
// The 4-lane tile: vpdpbusd on xmm.
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.128"({{.*}}) : (vector<4xi32>, vector<4xi32>, vector<4xi32>) -> vector<4xi32>
// CHECK-NOT: arith.muli {{.*}} vector
// Without VNNI, pmaddwd (SSE2) takes 2 steps of the channel loop: each
// lane's pair of bytes widened to 16 bits, 4 lanes an instruction; w's two
// bytes (consecutive: one 16-bit load) are broadcast as one word and
// widened once.
// PM-LABEL: func.func private @conv3x3_u8s8(
// PM: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c2{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>)
// PM: %[[PAIRS:.*]] = vector.shuffle {{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xi8>, vector<16xi8>
// PM: arith.extui %[[PAIRS]] : vector<32xi8> to vector<32xi16>
// PM: %[[WB:.*]] = vector.from_elements {{.*}} : vector<2xi8>
// PM: %[[WW:.*]] = vector.bitcast %[[WB]] : vector<2xi8> to vector<1xi16>
// PM: %[[W:.*]] = vector.extract %[[WW]][0] : i16 from vector<1xi16>
// PM: %[[WS:.*]] = vector.broadcast %[[W]] : i16 to vector<4xi16>
// PM: %[[WBYTES:.*]] = vector.bitcast %[[WS]] : vector<4xi16> to vector<8xi8>
// PM: %[[WH:.*]] = arith.extsi %[[WBYTES]] : vector<8xi8> to vector<8xi16>
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"(%{{.*}}, %[[WH]]) : (vector<8xi16>, vector<8xi16>) -> vector<4xi32>
// PM-COUNT-3: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"({{.*}}) : (vector<8xi16>, vector<8xi16>) -> vector<4xi32>
// OFF-LABEL: func.func private @conv3x3_u8s8(
// OFF-NOT: llvm.call_intrinsic
// OFF: arith.muli {{.*}} : vector<16xi32>
func.func private @conv3x3_u8s8(%acc: memref<1x4x20x20xi32>, %in: memref<1x8x22x22xi8>, %w: memref<4x3x3x8xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c20 = arith.constant 20 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
    %ob = arith.divsi %i, %c20 : index
    %h = arith.remsi %i, %c20 : index
    %o0 = arith.muli %ob, %c2 : index
    scf.for %c = %c0 to %c8 step %c1 {
      scf.for %kh = %c0 to %c3 step %c1 {
        scf.for %kw = %c0 to %c3 step %c1 {
          scf.parallel (%u, %j) = (%c0, %c0) to (%c2, %c20) step (%c1, %c1) {
            %o = arith.addi %o0, %u : index
            %ih = arith.addi %h, %kh : index
            %jw = arith.addi %j, %kw : index
            %x = memref.load %in[%c0, %c, %ih, %jw] : memref<1x8x22x22xi8>
            %wt = memref.load %w[%o, %kh, %kw, %c] : memref<4x3x3x8xi8>
            %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x20x20xi32>
            %xe = arith.extui %x : i8 to i32
            %we = arith.extsi %wt : i8 to i32
            %p = arith.muli %xe, %we : i32
            %s = arith.addi %a, %p : i32
            memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x20x20xi32>
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

// A MatMul row (lanes along N): the varying read is B, signed; A is the
// uniform u8 side, consecutive in k. A row of 7 is a tile of 8 lanes
// under masks, its accumulators 8 lanes through the loop (as 7 they were
// widened and narrowed around every vpdpbusd: a vpermd each).
// CHECK-LABEL: func.func private @matmul_s8_row(
// CHECK: vector.maskedload %arg0{{.*}} : memref<5x7xi32>, vector<8xi1>, vector<8xi32> into vector<8xi32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c12{{.*}} step %c4{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8xi32>)
// CHECK-COUNT-4: vector.maskedload %arg2{{.*}} : memref<12x7xi8>, vector<8xi1>, vector<8xi8> into vector<8xi8>
// CHECK-NOT: vector.shuffle %[[ACC]]
// CHECK: %[[S:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"(%[[ACC]], %{{.*}}, %{{.*}}) : (vector<8xi32>, vector<8xi32>, vector<8xi32>) -> vector<8xi32>
// CHECK-NEXT: scf.yield %[[S]] : vector<8xi32>
// CHECK: vector.maskedstore %arg0{{.*}} : memref<5x7xi32>, vector<8xi1>, vector<8xi32>
func.func private @matmul_s8_row(%acc: memref<5x7xi32>, %a: memref<5x12xi8>, %b: memref<12x7xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c12 = arith.constant 12 : index
  scf.parallel (%m) = (%c0) to (%c5) step (%c1) {
    scf.for %k = %c0 to %c12 step %c1 {
      scf.parallel (%n) = (%c0) to (%c7) step (%c1) {
        %x = memref.load %b[%k, %n] : memref<12x7xi8>
        %w = memref.load %a[%m, %k] : memref<5x12xi8>
        %acc0 = memref.load %acc[%m, %n] : memref<5x7xi32>
        %we = arith.extui %w : i8 to i32
        %xe = arith.extsi %x : i8 to i32
        %p = arith.muli %we, %xe : i32
        %s = arith.addi %p, %acc0 : i32
        memref.store %s, %acc[%m, %n] : memref<5x7xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// Not a dot form: both bytes signed (vpdpbusd multiplies u8 by s8), a
// reduction of 6 steps (not a multiple of 4), and weights whose steps are
// not consecutive bytes (the channel is not their innermost index). Each
// keeps the 32-bit products.
// pmaddwd takes any of them: 16-bit lanes hold s8 and u8 alike, and it
// packs the weights' two bytes itself.
// PM-LABEL: func.func private @s8s8(
// PM: arith.extsi {{.*}} : vector<32xi8> to vector<32xi16>
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"
// PM-LABEL: func.func private @six_steps(
// PM: step %c2
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"
// PM-LABEL: func.func private @strided_weights(
// PM: step %c2
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"
// CHECK-LABEL: func.func private @s8s8(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.muli {{.*}} : vector<16xi32>
// CHECK-LABEL: func.func private @six_steps(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.muli {{.*}} : vector<16xi32>
// CHECK-LABEL: func.func private @strided_weights(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.muli {{.*}} : vector<16xi32>
func.func private @s8s8(%acc: memref<4x16xi32>, %a: memref<4x8xi8>, %b: memref<8x16xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%n) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %b[%k, %n] : memref<8x16xi8>
        %w = memref.load %a[%m, %k] : memref<4x8xi8>
        %acc0 = memref.load %acc[%m, %n] : memref<4x16xi32>
        %we = arith.extsi %w : i8 to i32
        %xe = arith.extsi %x : i8 to i32
        %p = arith.muli %we, %xe : i32
        %s = arith.addi %acc0, %p : i32
        memref.store %s, %acc[%m, %n] : memref<4x16xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @six_steps(%acc: memref<4x16xi32>, %a: memref<4x6xi8>, %b: memref<6x16xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c6 step %c1 {
      scf.parallel (%n) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %b[%k, %n] : memref<6x16xi8>
        %w = memref.load %a[%m, %k] : memref<4x6xi8>
        %acc0 = memref.load %acc[%m, %n] : memref<4x16xi32>
        %we = arith.extui %w : i8 to i32
        %xe = arith.extsi %x : i8 to i32
        %p = arith.muli %we, %xe : i32
        %s = arith.addi %acc0, %p : i32
        memref.store %s, %acc[%m, %n] : memref<4x16xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
func.func private @strided_weights(%acc: memref<1x4x16x16xi32>, %in: memref<1x8x18x18xi8>, %w: memref<4x8x3x3xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %o = arith.divsi %i, %c16 : index
    %h = arith.remsi %i, %c16 : index
    scf.for %c = %c0 to %c8 step %c1 {
      scf.for %kh = %c0 to %c3 step %c1 {
        scf.for %kw = %c0 to %c3 step %c1 {
          scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
            %ih = arith.addi %h, %kh : index
            %jw = arith.addi %j, %kw : index
            %x = memref.load %in[%c0, %c, %ih, %jw] : memref<1x8x18x18xi8>
            %wt = memref.load %w[%o, %c, %kh, %kw] : memref<4x8x3x3xi8>
            %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
            %xe = arith.extui %x : i8 to i32
            %we = arith.extsi %wt : i8 to i32
            %p = arith.muli %xe, %we : i32
            %s = arith.addi %a, %p : i32
            memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
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

// i16 weights (dlc-convert-to-linalg wide-conv-weights): pmaddwd's pair is
// the two halves as one 32-bit word, broadcast as it is (no widening);
// vpdpbusd multiplies bytes, so vnni leaves the row to the 32-bit products,
// and a varying 16-bit read is no dot form's input either.
// PM-LABEL: func.func private @wide_weights(
// PM: step %c2
// PM: %[[PAIRS:.*]] = vector.shuffle {{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xi8>, vector<16xi8>
// PM: arith.extui %[[PAIRS]] : vector<32xi8> to vector<32xi16>
// PM: %[[WP:.*]] = vector.from_elements {{.*}} : vector<2xi16>
// PM: %[[WW:.*]] = vector.bitcast %[[WP]] : vector<2xi16> to vector<1xi32>
// PM: %[[W:.*]] = vector.extract %[[WW]][0] : i32 from vector<1xi32>
// PM: %[[WS:.*]] = vector.broadcast %[[W]] : i32 to vector<4xi32>
// PM: %[[WH:.*]] = vector.bitcast %[[WS]] : vector<4xi32> to vector<8xi16>
// PM-NOT: arith.extsi {{.*}} to vector<8xi16>
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"(%{{.*}}, %[[WH]]) : (vector<8xi16>, vector<8xi16>) -> vector<4xi32>
// PM-LABEL: func.func private @wide_inputs(
// PM-NOT: llvm.call_intrinsic
// PM: arith.muli {{.*}} : vector<16xi32>
// CHECK-LABEL: func.func private @wide_weights(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.muli {{.*}} : vector<16xi32>
func.func private @wide_weights(%acc: memref<1x4x16x16xi32>, %in: memref<1x8x18x18xi8>, %w: memref<4x3x3x8xi16>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %o = arith.divsi %i, %c16 : index
    %h = arith.remsi %i, %c16 : index
    scf.for %c = %c0 to %c8 step %c1 {
      scf.for %kh = %c0 to %c3 step %c1 {
        scf.for %kw = %c0 to %c3 step %c1 {
          scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
            %ih = arith.addi %h, %kh : index
            %jw = arith.addi %j, %kw : index
            %x = memref.load %in[%c0, %c, %ih, %jw] : memref<1x8x18x18xi8>
            %wt = memref.load %w[%o, %kh, %kw, %c] : memref<4x3x3x8xi16>
            %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
            %xe = arith.extui %x : i8 to i32
            %we = arith.extsi %wt : i16 to i32
            %p = arith.muli %xe, %we : i32
            %s = arith.addi %a, %p : i32
            memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
            scf.reduce
          }
        }
      }
    }
    scf.reduce
  }
  return
}
func.func private @wide_inputs(%acc: memref<4x16xi32>, %a: memref<4x8xi8>, %b: memref<8x16xi16>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%n) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %b[%k, %n] : memref<8x16xi16>
        %w = memref.load %a[%m, %k] : memref<4x8xi8>
        %acc0 = memref.load %acc[%m, %n] : memref<4x16xi32>
        %we = arith.extsi %w : i8 to i32
        %xe = arith.extsi %x : i16 to i32
        %p = arith.muli %we, %xe : i32
        %s = arith.addi %acc0, %p : i32
        memref.store %s, %acc[%m, %n] : memref<4x16xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A MatMul row over i16 weight pairs (dlc-convert-to-linalg
// pair-matmul-weights: w[2 k2 + p][n] at [k2, 2 n + p]): the pair loop p
// steps by 2, and its first step's read of 32 halves is the 16 lanes'
// pairs as they are, with no interleave and no widening; the lhs's two
// bytes are broadcast as one word. A read whose step pair does not
// interleave (2 n + 2 p) is no dot form's.
// PM-LABEL: func.func private @paired_weights(
// PM: scf.for {{.*}} = %c0{{.*}} to %c2{{.*}} step %c2{{.*}} iter_args(
// PM: %[[PAIRS:.*]] = vector.load %arg2{{.*}} : memref<4x32xi16>, vector<32xi16>
// PM-NOT: vector.load %arg2
// PM-NOT: vector.shuffle {{.*}} [0, 16, 1, 17
// PM: vector.from_elements {{.*}} : vector<2xi8>
// PM: %[[X0:.*]] = vector.extract_strided_slice %[[PAIRS]] {offsets = [0], sizes = [8], strides = [1]} : vector<32xi16> to vector<8xi16>
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"(%[[X0]], %{{.*}}) : (vector<8xi16>, vector<8xi16>) -> vector<4xi32>
// PM: %[[X3:.*]] = vector.extract_strided_slice %[[PAIRS]] {offsets = [24], sizes = [8], strides = [1]} : vector<32xi16> to vector<8xi16>
// PM: llvm.call_intrinsic "llvm.x86.sse2.pmadd.wd"(%[[X3]], %{{.*}})
// PM-LABEL: func.func private @paired_weights_apart(
// PM-NOT: llvm.call_intrinsic
// PM: arith.muli {{.*}} : vector<16xi32>
func.func private @paired_weights(%acc: memref<4x16xi32>, %a: memref<4x8xi8>, %b: memref<4x32xi16>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k2 = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.parallel (%n) = (%c0) to (%c16) step (%c1) {
          %n2 = arith.muli %n, %c2 : index
          %col = arith.addi %n2, %p : index
          %k2x = arith.muli %k2, %c2 : index
          %k = arith.addi %k2x, %p : index
          %x = memref.load %b[%k2, %col] : memref<4x32xi16>
          %w = memref.load %a[%m, %k] : memref<4x8xi8>
          %acc0 = memref.load %acc[%m, %n] : memref<4x16xi32>
          %we = arith.extsi %w : i8 to i32
          %xe = arith.extsi %x : i16 to i32
          %pr = arith.muli %we, %xe : i32
          %s = arith.addi %acc0, %pr : i32
          memref.store %s, %acc[%m, %n] : memref<4x16xi32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}
func.func private @paired_weights_apart(%acc: memref<4x16xi32>, %a: memref<4x8xi8>, %b: memref<4x34xi16>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k2 = %c0 to %c4 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        scf.parallel (%n) = (%c0) to (%c16) step (%c1) {
          %n2 = arith.muli %n, %c2 : index
          %p2 = arith.muli %p, %c2 : index
          %col = arith.addi %n2, %p2 : index
          %k2x = arith.muli %k2, %c2 : index
          %k = arith.addi %k2x, %p : index
          %x = memref.load %b[%k2, %col] : memref<4x34xi16>
          %w = memref.load %a[%m, %k] : memref<4x8xi8>
          %acc0 = memref.load %acc[%m, %n] : memref<4x16xi32>
          %we = arith.extsi %w : i8 to i32
          %xe = arith.extsi %x : i16 to i32
          %pr = arith.muli %we, %xe : i32
          %s = arith.addi %acc0, %pr : i32
          memref.store %s, %acc[%m, %n] : memref<4x16xi32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// A row of 17 under AVX2's pmaddwd: a tile of 16, then one of 1 lane. The
// short tile's grouped loop carries its accumulator a register wide (a
// vector<1xi32> lives in a general register, moved to a vector register
// and back each step), and its input pair fills the register with zeros,
// not copies of lane 0 (which LLVM built byte by byte).
// PM256-LABEL: func.func private @short_tile(
// PM256: scf.for {{.*}} step %c2{{.*}} iter_args({{.*}}) -> (vector<16xi32>)
// PM256: %[[A:.*]] = vector.load %arg0{{.*}} : memref<4x17xi32>, vector<1xi32>
// PM256: %[[WIDE:.*]] = vector.shuffle %[[A]], %[[A]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<1xi32>, vector<1xi32>
// PM256: %[[R:.*]] = scf.for {{.*}} step %c2{{.*}} iter_args(%{{.*}} = %[[WIDE]]) -> (vector<8xi32>)
// PM256: vector.shuffle %{{.*}}, %[[Z:.*]] [0, 1, 1, 1, 1, 1, 1, 1] : vector<1xi8>, vector<1xi8>
// PM256: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"({{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// PM256-NOT: vector<1xi32>
// PM256: scf.yield %{{.*}} : vector<8xi32>
// PM256: %[[N:.*]] = vector.shuffle %[[R]], %[[R]] [0] : vector<8xi32>, vector<8xi32>
// PM256: vector.store %[[N]], %arg0{{.*}} : memref<4x17xi32>, vector<1xi32>
func.func private @short_tile(%acc: memref<4x17xi32>, %a: memref<4x8xi16>, %b: memref<8x17xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c17 = arith.constant 17 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%n) = (%c0) to (%c17) step (%c1) {
        %x = memref.load %b[%k, %n] : memref<8x17xi8>
        %w = memref.load %a[%m, %k] : memref<4x8xi16>
        %acc0 = memref.load %acc[%m, %n] : memref<4x17xi32>
        %we = arith.extsi %w : i16 to i32
        %xe = arith.extsi %x : i8 to i32
        %p = arith.muli %we, %xe : i32
        %s = arith.addi %acc0, %p : i32
        memref.store %s, %acc[%m, %n] : memref<4x17xi32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A MatMul row over byte quadruples (dlc-convert-to-linalg
// quad-matmul-weights: w[4 k2 + p][n] at [k2, 4 n + p]) of a u8 lhs: the
// quadruple loop p steps by 4, and its first step's read of 64 bytes is
// the 16 lanes' words as they are, with no interleave; the lhs's 4 bytes
// are broadcast as one word (a tile a pass by default). With room for 24
// accumulators the row's 3 tiles of 16 share one pass (the interleaving
// dot forms keep one a pass).
// CHECK-LABEL: func.func private @quad_weights(
// CHECK: scf.for {{.*}} = %c0{{.*}} to %c4{{.*}} step %c4{{.*}} iter_args(
// CHECK: %[[Q:.*]] = vector.load %arg2{{.*}} : memref<2x192xi8>, vector<64xi8>
// CHECK-NOT: vector.shuffle
// CHECK: vector.bitcast %[[Q]] : vector<64xi8> to vector<16xi32>
// CHECK: vector.from_elements {{.*}} : vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>
// CHECK-NOT: llvm.call_intrinsic
// CHECK: scf.yield
// TILES-LABEL: func.func private @quad_weights(
// TILES: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>)
// TILES: scf.for {{.*}} step %c4{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>)
// TILES-COUNT-3: vector.load %arg2{{.*}} : memref<2x192xi8>, vector<64xi8>
// TILES-COUNT-3: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// TILES-NOT: llvm.call_intrinsic
// TILES: scf.yield
// OFF-LABEL: func.func private @quad_weights(
// OFF-NOT: llvm.call_intrinsic
func.func private @quad_weights(%acc: memref<4x48xi32>, %a: memref<4x8xi8>, %b: memref<2x192xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c48 = arith.constant 48 : index
  scf.parallel (%m) = (%c0) to (%c4) step (%c1) {
    scf.for %k2 = %c0 to %c2 step %c1 {
      scf.for %p = %c0 to %c4 step %c1 {
        scf.parallel (%n) = (%c0) to (%c48) step (%c1) {
          %n4 = arith.muli %n, %c4 : index
          %col = arith.addi %n4, %p : index
          %k2x = arith.muli %k2, %c4 : index
          %k = arith.addi %k2x, %p : index
          %x = memref.load %b[%k2, %col] : memref<2x192xi8>
          %w = memref.load %a[%m, %k] : memref<4x8xi8>
          %acc0 = memref.load %acc[%m, %n] : memref<4x48xi32>
          %we = arith.extui %w : i8 to i32
          %xe = arith.extsi %x : i8 to i32
          %pr = arith.muli %we, %xe : i32
          %s = arith.addi %acc0, %pr : i32
          memref.store %s, %acc[%m, %n] : memref<4x48xi32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// A depthwise 3x3 conv row of 20 outputs (an output channel a work item),
// its weight rows zero-padded to 4 taps (dlc-convert-to-linalg vnni-convs):
// the tap loop steps by 4, x reads consecutively along the row and along
// the taps, a sliding read: each tile loads its span once (the 16-lane
// tile's 19 bytes in 32 under a mask) and one shuffle makes each lane's
// quadruple, bytes j .. j + 3; the s8 input is flipped to u8 after it.
// CHECK-LABEL: func.func private @depthwise_sliding(
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<16xi32>)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (vector<16xi32>)
// CHECK: %[[SPAN:.*]] = vector.maskedload %arg1{{.*}} : memref<1x4x22x23xi8>, vector<32xi1>, vector<32xi8> into vector<32xi8>
// CHECK-NOT: vector.load %arg1
// CHECK: %[[Q:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, {{.*}}, 15, 16, 17, 18] : vector<32xi8>, vector<32xi8>
// CHECK: %[[XW:.*]] = vector.bitcast %[[Q]] : vector<64xi8> to vector<16xi32>
// CHECK: %[[U8:.*]] = arith.xori %[[XW]], %{{.*}} : vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[U8]], %{{.*}})
// The 4-lane tile: a span of 8 bytes.
// CHECK: %[[SPAN4:.*]] = vector.maskedload %arg1{{.*}} : memref<1x4x22x23xi8>, vector<8xi1>, vector<8xi8> into vector<8xi8>
// CHECK: vector.shuffle %[[SPAN4]], %[[SPAN4]] [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6] : vector<8xi8>, vector<8xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.128"
// CHECK-NOT: arith.muli {{.*}} vector
func.func private @depthwise_sliding(%acc: memref<1x4x20x20xi32>, %in: memref<1x4x22x23xi8>, %w: memref<4x1x3x4xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c20 = arith.constant 20 : index
  %c80 = arith.constant 80 : index
  %flip = arith.constant -128 : i8
  scf.parallel (%i) = (%c0) to (%c80) step (%c1) {
    %o = arith.divsi %i, %c20 : index
    %h = arith.remsi %i, %c20 : index
    scf.for %kh = %c0 to %c3 step %c1 {
      scf.for %kw = %c0 to %c4 step %c1 {
        scf.parallel (%j) = (%c0) to (%c20) step (%c1) {
          %ih = arith.addi %h, %kh : index
          %jw = arith.addi %j, %kw : index
          %x = memref.load %in[%c0, %o, %ih, %jw] : memref<1x4x22x23xi8>
          %wt = memref.load %w[%o, %c0, %kh, %kw] : memref<4x1x3x4xi8>
          %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x20x20xi32>
          %xf = arith.xori %x, %flip : i8
          %xe = arith.extui %xf : i8 to i32
          %we = arith.extsi %wt : i8 to i32
          %p = arith.muli %xe, %we : i32
          %s = arith.addi %a, %p : i32
          memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x20x20xi32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}

// -----

// At stride 2 the lanes are 2 bytes apart: the 16-lane tile's span is 34
// bytes, a zmm's 64 under a mask, lane j's quadruple bytes 2j .. 2j + 3.
// CHECK-LABEL: func.func private @depthwise_sliding_stride2(
// CHECK: %[[SPAN:.*]] = vector.maskedload %arg1{{.*}} : memref<1x4x35x35xi8>, vector<64xi1>, vector<64xi8> into vector<64xi8>
// CHECK: vector.shuffle %[[SPAN]], %[[SPAN]] [0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, {{.*}}, 30, 31, 32, 33] : vector<64xi8>, vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func private @depthwise_sliding_stride2(%acc: memref<1x4x16x16xi32>, %in: memref<1x4x35x35xi8>, %w: memref<4x1x3x4xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %o = arith.divsi %i, %c16 : index
    %h = arith.remsi %i, %c16 : index
    %h2 = arith.muli %h, %c2 : index
    scf.for %kh = %c0 to %c3 step %c1 {
      scf.for %kw = %c0 to %c4 step %c1 {
        scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
          %ih = arith.addi %h2, %kh : index
          %j2 = arith.muli %j, %c2 : index
          %jw = arith.addi %j2, %kw : index
          %x = memref.load %in[%c0, %o, %ih, %jw] : memref<1x4x35x35xi8>
          %wt = memref.load %w[%o, %c0, %kh, %kw] : memref<4x1x3x4xi8>
          %a = memref.load %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
          %xe = arith.extui %x : i8 to i32
          %we = arith.extsi %wt : i8 to i32
          %p = arith.muli %xe, %we : i32
          %s = arith.addi %a, %p : i32
          memref.store %s, %acc[%c0, %o, %h, %j] : memref<1x4x16x16xi32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return
}
