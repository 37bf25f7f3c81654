// RUN: dlc-opt %s --split-input-file --dlc-map-kernels-to-gpu=block-size=128 | FileCheck %s --check-prefix=GPU
// RUN: dlc-opt %s --split-input-file --dlc-map-kernels-to-host | FileCheck %s --check-prefix=HOST

// 1000 work items in blocks of 128 threads: 8 blocks, the tail guarded.
// GPU: module attributes {gpu.container_module}
// GPU: gpu.module @k0 {
// GPU-LABEL: gpu.func @k0(
// GPU-SAME: kernel
// GPU-SAME: dlc.block = array<i32: 128, 1, 1>
// GPU-SAME: dlc.grid = array<i32: 8, 1, 1>
// GPU: %[[B:.*]] = gpu.block_id x
// GPU: %[[T:.*]] = gpu.thread_id x
// GPU: %[[M:.*]] = arith.muli %[[B]]
// GPU: %[[ID:.*]] = arith.addi %[[M]], %[[T]]
// GPU: %[[OK:.*]] = arith.cmpi ult, %[[ID]]
// GPU: scf.if %[[OK]]
// GPU: memref.load %{{.*}}[%[[ID]]]
// GPU: gpu.return

// The host form takes the range of work items to run, clamped to the work
// items (what tells range analysis that ids are non-negative).
// HOST-LABEL: func.func @k0(
// HOST-SAME: %{{.*}}: memref<1000xf32>, %{{.*}}: memref<1000xf32>, %[[BEGIN:.*]]: index, %[[END:.*]]: index)
// HOST: %[[N:.*]] = arith.constant 1000 : index
// HOST: %[[LO:.*]] = arith.minui %[[BEGIN]], %[[N]] : index
// HOST: %[[HI:.*]] = arith.minui %[[END]], %[[N]] : index
// HOST: scf.for %[[I:.*]] = %[[LO]] to %[[HI]]
// HOST: memref.load %{{.*}}[%[[I]]]
func.func private @k0(%a: memref<1000xf32>, %b: memref<1000xf32>) attributes {dlc.kernel, dlc.work_items = 1000 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    %v = memref.load %a[%i] : memref<1000xf32>
    memref.store %v, %b[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}

// -----

// A single work item whose loop canonicalization removed.
// GPU-LABEL: gpu.func @k0(
// GPU-SAME: dlc.grid = array<i32: 1, 1, 1>
// GPU: scf.if
// HOST-LABEL: func.func @k0(
// HOST: scf.for
func.func private @k0(%a: memref<f32>) attributes {dlc.kernel, dlc.work_items = 1 : i64} {
  %cst = arith.constant 1.0 : f32
  memref.store %cst, %a[] : memref<f32>
  return
}

// -----

// A work item's private scratch (memref.alloca) moves to the entry block:
// allocated once per thread / host task, not once per work item.
// GPU-LABEL: gpu.func @k0(
// GPU-NEXT: memref.alloca() : memref<4xf32>
// GPU: scf.if
// GPU-NOT: memref.alloca
// GPU: gpu.return
// HOST-LABEL: func.func @k0(
// HOST-NEXT: memref.alloca() : memref<4xf32>
// HOST: scf.for
// HOST-NOT: memref.alloca
// HOST: return
func.func private @k0(%a: memref<8x4xf32>, %b: memref<8xf32>) attributes {dlc.kernel, dlc.work_items = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %t = memref.alloca() : memref<4xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %a[%i, %j] : memref<8x4xf32>
      memref.store %v, %t[%j] : memref<4xf32>
    }
    %x = memref.load %t[%c0] : memref<4xf32>
    memref.store %x, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Each kernel gets a gpu.module of its own: the NVVM lowering and the PTX
// serialization compile them in parallel.
// GPU-LABEL: gpu.module @k1 {
// GPU-NEXT: gpu.func @k1(
// GPU: gpu.return
// GPU: }
// GPU-NEXT: }
// GPU-LABEL: gpu.module @k2 {
// GPU-NEXT: gpu.func @k2(
// HOST-LABEL: func.func @k1(
// HOST-LABEL: func.func @k2(
func.func private @k1(%a: memref<4xf32>) attributes {dlc.kernel, dlc.work_items = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %a[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
func.func private @k2(%a: memref<4xf32>) attributes {dlc.kernel, dlc.work_items = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %a[%i] : memref<4xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %a[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
