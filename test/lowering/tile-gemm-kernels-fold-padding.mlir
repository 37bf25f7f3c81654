// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="fold-padding=false" | FileCheck %s --check-prefix=NOFOLD
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="emulate=true" | FileCheck %s --check-prefix=EMU

// A padded convolution reads a zero-padded copy (`dlc.padding`) that a
// kernel of its own writes just before. The implicit GEMM reads the
// unpadded input instead: its im2col chunks move up and left by the pads,
// and those outside the input (one unsigned compare per dim) are
// zero-filled (cp.async with 0 source bytes). The copy, its buffer and its
// kernel go.

#pad = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-NOT: func.func private @pad
// CHECK-LABEL: func.func private @conv
// CHECK-SAME: (%[[X:.*]]: memref<1x8x8x16xf16>, %{{.*}}: memref<32x3x3x16xf16>, %{{.*}}: memref<1x8x8x32xf16>)
// CHECK-SAME: dlc.cta_threads
// CHECK: %[[Y:.*]] = arith.addi %{{.*}}, %c-1{{(_[0-9]+)?}} : index
// CHECK: %[[X0:.*]] = arith.addi %{{.*}}, %c-1{{(_[0-9]+)?}} : index
// CHECK: %[[IY:.*]] = arith.cmpi ult, %[[Y]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[IX:.*]] = arith.cmpi ult, %[[X0]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[IN:.*]] = arith.andi %[[IY]], %[[IX]] : i1
// CHECK: %[[CY:.*]] = arith.minui %[[Y]], %c7{{(_[0-9]+)?}} : index
// CHECK: %[[CX:.*]] = arith.minui %[[X0]], %c7{{(_[0-9]+)?}} : index
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK: %[[N:.*]] = arith.select %[[OK]], %c8{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}} : index
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %[[CY]], %[[CX]], %{{.*}}], %{{.*}}[%{{.*}}], 8, %[[N]] {bypassL1}
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IN0:.*]]: memref<1x8x8x16xf16>,
// CHECK-NOT: memref<1x10x10x16xf16>
// CHECK: call @conv(%[[IN0]],
// NOFOLD-LABEL: func.func private @pad
// NOFOLD-LABEL: func.func private @conv
// NOFOLD-SAME: memref<1x10x10x16xf16>
// NOFOLD-LABEL: func.func @main
// NOFOLD: call @pad
// EMU-NOT: func.func private @pad
// EMU-LABEL: func.func private @conv
// EMU-SAME: (%{{.*}}: memref<1x8x8x16xf16>,
// EMU-LABEL: func.func @main
// EMU-NOT: call @pad(
func.func private @pad(%p: memref<1x10x10x16xf16>, %x: memref<1x8x8x16xf16>) attributes {dlc.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  linalg.generic {indexing_maps = [#pad], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x10x10x16xf16>) attrs = {dlc.padding = array<i64: 1, 1, 1, 1>} {
  ^bb0(%o: f16):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %y = arith.subi %h, %c1 : index
    %x0 = arith.subi %w, %c1 : index
    %y0 = arith.cmpi sge, %y, %c0 : index
    %y1 = arith.cmpi slt, %y, %c8 : index
    %x1 = arith.cmpi sge, %x0, %c0 : index
    %x2 = arith.cmpi slt, %x0, %c8 : index
    %a = arith.andi %y0, %y1 : i1
    %b = arith.andi %x1, %x2 : i1
    %in = arith.andi %a, %b : i1
    %ya = arith.maxsi %y, %c0 : index
    %yc = arith.minsi %ya, %c7 : index
    %xa = arith.maxsi %x0, %c0 : index
    %xc = arith.minsi %xa, %c7 : index
    %v = memref.load %x[%n, %yc, %xc, %c] : memref<1x8x8x16xf16>
    %r = arith.select %in, %v, %zero : f16
    linalg.yield %r : f16
  }
  return
}
func.func private @conv(%acc: memref<1x8x8x32xf32>, %x: memref<1x10x10x16xf16>, %wt: memref<32x3x3x16xf16>,
    %y: memref<1x8x8x32xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) outs(%acc : memref<1x8x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x8x32xf32>) outs(%y : memref<1x8x8x32xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  }
  return
}
func.func @main(%x: memref<1x8x8x16xf16>, %wt: memref<32x3x3x16xf16>, %y: memref<1x8x8x32xf16>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x16xf16>
  call @pad(%p, %x) : (memref<1x10x10x16xf16>, memref<1x8x8x16xf16>) -> ()
  %acc = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x32xf32>
  call @conv(%acc, %p, %wt, %y) : (memref<1x8x8x32xf32>, memref<1x10x10x16xf16>, memref<32x3x3x16xf16>, memref<1x8x8x32xf16>) -> ()
  return
}

// -----

// Asymmetric pads (2 above, 1 left, none below, 1 right) shift by their
// begin pads; a second reader of the padded copy (not a convolution) keeps
// the copy alive, while the convolution still reads the input itself.

#pad = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func private @pad_asym
// CHECK-LABEL: func.func private @conv_asym
// CHECK-SAME: (%{{.*}}: memref<1x8x8x16xf16>,
// CHECK: arith.addi %{{.*}}, %c-2{{(_[0-9]+)?}} : index
// CHECK: arith.addi %{{.*}}, %c-1{{(_[0-9]+)?}} : index
// CHECK-LABEL: func.func @main
// CHECK: call @pad_asym(%[[P:.*]], %[[X:.*]]) :
// CHECK: call @conv_asym(%{{.*}}, %[[X]],
// CHECK: call @other(%[[P]])
func.func private @pad_asym(%p: memref<1x10x10x16xf16>, %x: memref<1x8x8x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f16
  linalg.generic {indexing_maps = [#pad], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x10x10x16xf16>) attrs = {dlc.padding = array<i64: 2, 1, 0, 1>} {
  ^bb0(%o: f16):
    linalg.yield %zero : f16
  }
  return
}
func.func private @conv_asym(%acc: memref<1x8x8x32xf32>, %x: memref<1x10x10x16xf16>, %wt: memref<32x3x3x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) outs(%acc : memref<1x8x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func private @other(%p: memref<1x10x10x16xf16>) attributes {dlc.kernel}
func.func @main(%x: memref<1x8x8x16xf16>, %wt: memref<32x3x3x16xf16>, %acc: memref<1x8x8x32xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x16xf16>
  call @pad_asym(%p, %x) : (memref<1x10x10x16xf16>, memref<1x8x8x16xf16>) -> ()
  call @conv_asym(%acc, %p, %wt) : (memref<1x8x8x32xf32>, memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) -> ()
  call @other(%p) : (memref<1x10x10x16xf16>) -> ()
  return
}

// -----

// Not folded: a call between the copy and the convolution takes the input
// (it may write it), and a copy without `dlc.padding` is no padding the
// pass knows.

#pad = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func private @conv_between
// CHECK-SAME: (%{{.*}}: memref<1x10x10x16xf16>,
// CHECK-LABEL: func.func private @conv_unmarked
// CHECK-SAME: (%{{.*}}: memref<1x10x10x16xf16>,
// CHECK-LABEL: func.func @main
// CHECK: call @pad_marked
// CHECK: call @touch
// CHECK: call @conv_between
// CHECK: call @pad_unmarked
// CHECK: call @conv_unmarked
func.func private @pad_marked(%p: memref<1x10x10x16xf16>, %x: memref<1x8x8x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f16
  linalg.generic {indexing_maps = [#pad], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x10x10x16xf16>) attrs = {dlc.padding = array<i64: 1, 1, 1, 1>} {
  ^bb0(%o: f16):
    linalg.yield %zero : f16
  }
  return
}
func.func private @pad_unmarked(%p: memref<1x10x10x16xf16>, %x: memref<1x8x8x16xf16>) attributes {dlc.kernel} {
  %zp = arith.constant 3.0 : f16
  linalg.generic {indexing_maps = [#pad], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x10x10x16xf16>) {
  ^bb0(%o: f16):
    linalg.yield %zp : f16
  }
  return
}
func.func private @touch(%x: memref<1x8x8x16xf16>) attributes {dlc.kernel}
func.func private @conv_between(%acc: memref<1x8x8x32xf32>, %x: memref<1x10x10x16xf16>, %wt: memref<32x3x3x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) outs(%acc : memref<1x8x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func private @conv_unmarked(%acc: memref<1x8x8x32xf32>, %x: memref<1x10x10x16xf16>, %wt: memref<32x3x3x16xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x8x32xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) outs(%acc : memref<1x8x8x32xf32>) {
  ^bb0(%a: f16, %b: f16, %s: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%x: memref<1x8x8x16xf16>, %wt: memref<32x3x3x16xf16>, %acc: memref<1x8x8x32xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x16xf16>
  call @pad_marked(%p, %x) : (memref<1x10x10x16xf16>, memref<1x8x8x16xf16>) -> ()
  call @touch(%x) : (memref<1x8x8x16xf16>) -> ()
  call @conv_between(%acc, %p, %wt) : (memref<1x8x8x32xf32>, memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) -> ()
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x16xf16>
  call @pad_unmarked(%q, %x) : (memref<1x10x10x16xf16>, memref<1x8x8x16xf16>) -> ()
  call @conv_unmarked(%acc, %q, %wt) : (memref<1x8x8x32xf32>, memref<1x10x10x16xf16>, memref<32x3x3x16xf16>) -> ()
  return
}

// -----

// An int8 input pads with its zero point (the padding kernel reads it from
// a rank-0 buffer): the convolution takes that buffer too, loads the value
// once per stage, and stores it (16 copies) into the chunks outside the
// input instead of issuing their cp.async; chunks past K get zeros.

#pad = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#zp = affine_map<(d0, d1, d2, d3) -> ()>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-NOT: func.func private @pad_zp
// CHECK-LABEL: func.func private @conv_zp
// CHECK-SAME: (%{{.*}}: memref<1x8x8x32xi32>, %[[X:.*]]: memref<1x8x8x32xi8>, %{{.*}}: memref<32x3x3x32xi8>, %[[ZP:.*]]: memref<i8>)
// CHECK: %[[PV:.*]] = memref.load %[[ZP]][] : memref<i8>
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: nvgpu.device_async_copy %[[X]][{{.*}}], %{{.*}}[%{{.*}}], 16 {bypassL1}
// CHECK-NEXT: } else {
// CHECK-NEXT: arith.constant 0 : i8
// CHECK-NEXT: %[[F:.*]] = arith.select %{{.*}}, %[[PV]], %c0_i8{{(_[0-9]+)?}} : i8
// CHECK-NEXT: %[[V:.*]] = vector.splat %[[F]] : vector<16xi8>
// CHECK-NEXT: vector.store %[[V]], %{{.*}}[%{{.*}}] : memref<{{.*}}xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IN:.*]]: memref<1x8x8x32xi8>, %{{.*}}: memref<32x3x3x32xi8>, %{{.*}}: memref<1x8x8x32xi32>, %[[Z:.*]]: memref<i8>)
// CHECK-NOT: call @pad_zp
// CHECK: call @conv_zp(%{{.*}}, %[[IN]], %{{.*}}, %[[Z]])
// EMU-LABEL: func.func private @conv_zp
// EMU: %[[PV:.*]] = memref.load %{{.*}}[] : memref<i8>
// EMU: arith.select %{{.*}}, %[[PV]], %{{.*}} : i8
func.func private @pad_zp(%p: memref<1x10x10x32xi8>, %x: memref<1x8x8x32xi8>, %z: memref<i8>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#zp, #pad], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z : memref<i8>) outs(%p : memref<1x10x10x32xi8>) attrs = {dlc.padding = array<i64: 1, 1, 1, 1>} {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  }
  return
}
func.func private @conv_zp(%acc: memref<1x8x8x32xi32>, %x: memref<1x10x10x32xi8>, %wt: memref<32x3x3x32xi8>) attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<1x8x8x32xi32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wt : memref<1x10x10x32xi8>, memref<32x3x3x32xi8>) outs(%acc : memref<1x8x8x32xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
func.func @main(%x: memref<1x8x8x32xi8>, %wt: memref<32x3x3x32xi8>, %acc: memref<1x8x8x32xi32>, %z: memref<i8>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x10x10x32xi8>
  call @pad_zp(%p, %x, %z) : (memref<1x10x10x32xi8>, memref<1x8x8x32xi8>, memref<i8>) -> ()
  call @conv_zp(%acc, %p, %wt) : (memref<1x8x8x32xi32>, memref<1x10x10x32xi8>, memref<32x3x3x32xi8>) -> ()
  return
}
