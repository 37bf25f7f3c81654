// RUN: dlc-opt %s --split-input-file --dlc-plan-memory | FileCheck %s

func.func private @k(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64}

// A chain: %c reuses the slot of %a, which died before %c was born.
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_size = 512 : i64
// CHECK-SAME: dlc.lower_bound_bytes = 512 : i64
// CHECK-SAME: dlc.naive_bytes = 768 : i64
// CHECK: %[[A:.*]] = memref.alloc() {dlc.arena_offset = [[OA:[0-9]+]] : i64, dlc.live_range = array<i64: 0, 3>}
// CHECK: %[[B:.*]] = memref.alloc() {dlc.arena_offset = [[OB:[0-9]+]] : i64, dlc.live_range = array<i64: 2, 5>}
// CHECK: %[[C:.*]] = memref.alloc() {dlc.arena_offset = [[OA]] : i64, dlc.live_range = array<i64: 4, 6>}
func.func @main(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  call @k(%in, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<64xf32>
  call @k(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %c = memref.alloc() : memref<64xf32>
  call @k(%b, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  call @k(%c, %out) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

func.func private @k(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64}
func.func private @k2(%a: memref<8x8xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64}

// A view keeps its source alive: %a is still read through %v when %b is
// written, so they must not share memory.
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_size = 512 : i64
// CHECK: memref.alloc() {dlc.arena_offset = [[OA:[0-9]+]] : i64, dlc.live_range = array<i64: 0, 5>}
// CHECK-NOT: dlc.arena_offset = [[OA]] :
func.func @main(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  call @k(%in, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %b = memref.alloc() : memref<64xf32>
  call @k(%in, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  call @k2(%v, %out) : (memref<8x8xf32>, memref<64xf32>) -> ()
  call @k(%b, %out) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

func.func private @k(%a: memref<3xi8>) attributes {dlc.kernel, dlc.work_items = 3 : i64}

// Sizes round up to the alignment option.
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_size = 256 : i64
func.func @main() {
  %a = memref.alloc() : memref<3xi8>
  call @k(%a) : (memref<3xi8>) -> ()
  return
}

// -----

func.func private @k(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64}
func.func private @neg(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %n = arith.negf %v : f32
    memref.store %n, %b[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
func.func private @reverse(%a: memref<64xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %j = arith.subi %c63, %i : index
    %v = memref.load %a[%j] : memref<64xf32>
    memref.store %v, %b[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// An elementwise kernel writes over its input where the input dies; one
// that reads other elements (a reversal) may not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_size = 512 : i64
// CHECK: %[[A:.*]] = memref.alloc() {dlc.arena_offset = [[OA:[0-9]+]] : i64
// CHECK: %[[B:.*]] = memref.alloc() {dlc.arena_offset = [[OA]] : i64, dlc.in_place_of = 0 : i64
// CHECK: %[[C:.*]] = memref.alloc() {dlc.arena_offset = [[OC:[0-9]+]] : i64, dlc.live_range
func.func @main(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  call @k(%in, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<64xf32>
  call @neg(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %c = memref.alloc() : memref<64xf32>
  call @reverse(%b, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  call @k(%c, %out) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

func.func private @k44(%a: memref<256xf32>, %b: memref<256xf32>) attributes {dlc.kernel, dlc.work_items = 256 : i64}
func.func private @k42(%a: memref<256xf32>, %b: memref<128xf32>) attributes {dlc.kernel, dlc.work_items = 128 : i64}
func.func private @k23(%a: memref<128xf32>, %b: memref<192xf32>) attributes {dlc.kernel, dlc.work_items = 128 : i64}
func.func private @k3(%a: memref<192xf32>, %b: memref<64xf32>) attributes {dlc.kernel, dlc.work_items = 64 : i64}

// Greedy placement by size from the plan's start puts %a low and %b above
// it, %d low, and then %c (alive with %b and %d) fits nowhere below the
// two: 2560 bytes. From the end (%b low, %a above), %c takes %a's place
// once %a dies: the lower bound, 2048. The planner keeps the smaller.
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_size = 2048 : i64
// CHECK-SAME: dlc.lower_bound_bytes = 2048 : i64
func.func @main(%out: memref<64xf32>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  call @k44(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
  %c = memref.alloc() : memref<128xf32>
  call @k42(%b, %c) : (memref<256xf32>, memref<128xf32>) -> ()
  %d = memref.alloc() : memref<192xf32>
  call @k23(%c, %d) : (memref<128xf32>, memref<192xf32>) -> ()
  call @k3(%d, %out) : (memref<192xf32>, memref<64xf32>) -> ()
  return
}
