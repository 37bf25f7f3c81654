// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true emulate=true" | FileCheck %s --check-prefix=EMU
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true warp-specialize=true" | FileCheck %s --check-prefix=WS
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true warp-specialize=true emulate=true" | FileCheck %s --check-prefix=WSEMU

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Both operands are whole row-major arguments with 192-byte rows: TMA
// loads them. The kernel takes each once more, marked with its tensor map
// (dims and box innermost first: BK = 64 f16 of k by BM = 64 or BN = 128
// rows), in place of the operand arguments it no longer reads; the call
// passes the same buffers. 4 mbarriers follow the stages (+32 bytes).
// CHECK-LABEL: func.func private @gemm_nk(
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<128x256xf16>,
// CHECK-SAME: %[[MAPA:[a-z0-9]+]]: memref<128x96xf16> {dlc.tensor_map = {box = array<i64: 64, 64>, dims = array<i64: 96, 128>, swizzle = 128 : i64}},
// CHECK-SAME: %[[MAPB:[a-z0-9]+]]: memref<256x96xf16> {dlc.tensor_map = {box = array<i64: 64, 128>, dims = array<i64: 96, 256>, swizzle = 128 : i64}})
// CHECK-SAME: dlc.shared_bytes = 99360 : i64
// Thread 0: one arrival per phase, then the fences for the barriers and maps.
// CHECK: scf.if
// CHECK-COUNT-4: "mbarrier.init.shared.b64 [$0], 1;", "r"
// CHECK: "fence.mbarrier_init.release.cluster;"
// CHECK: memref.extract_aligned_pointer_as_index %[[MAPA]]
// CHECK: "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l"
// CHECK: memref.extract_aligned_pointer_as_index %[[MAPB]]
// CHECK: "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l"
// CHECK: gpu.barrier
// The prologue's two k-tiles, each armed with (64 + 128) * 128 bytes.
// CHECK: "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c24576_i32
// CHECK: "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4}], [$2];", "r,l,r,r,r"
// CHECK: "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4}], [$2];", "r,l,r,r,r"
// CHECK: "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c24576_i32
// CHECK-NOT: nvgpu.device_async
// CHECK: scf.for
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;
// CHECK-NOT: fence.proxy.async
// CHECK: gpu.barrier
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// The refill of the slot of k-tile j - 2, only for the CTA's own k-tiles.
// CHECK: scf.if
// CHECK: mbarrier.arrive.expect_tx
// CHECK-COUNT-2: cp.async.bulk.tensor.2d
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: nvgpu.device_async
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<128x96xf16>, %[[B:[a-z0-9]+]]: memref<256x96xf16>, %[[Y:[a-z0-9]+]]: memref<128x256xf16>)
// CHECK: call @gemm_nk(%[[Y]], %[[A]], %[[B]])

// The emulation keeps the operands, copies each box as TMA defines it and
// counts the mbarrier's transaction bytes, arrivals and phases (5 values a
// stage): a wait that the GPU would hang on (or pass on a stale fill)
// traps.
// EMU-LABEL: func.func private @gemm_nk(
// EMU-SAME: %{{[a-z0-9]+}}: memref<128x96xf16>, %{{[a-z0-9]+}}: memref<256x96xf16>, %{{[a-z0-9]+}}: memref<128x256xf16>)
// EMU-NOT: dlc.tensor_map
// EMU-NOT: llvm.inline_asm
// EMU: memref.alloca() : memref<20xi64>
// EMU: scf.for
// EMU: arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// EMU: llvm.intr.trap
// EMU-NOT: llvm.inline_asm
// Warp-specialized: 128 consumer threads and a producer warp; a full and
// an empty mbarrier per stage (+64 bytes). Thread 128 acquires the maps and
// issues every k-tile, waiting on the empty barrier of the slot's previous
// fill (parity (fill + 1) % 2) from k-tile 4 on; consumers wait on the full
// barrier, and lane 0 of each warp releases the slot of the k-tile before.
// WS-LABEL: func.func private @gemm_nk(
// WS-SAME: dlc.cta_threads = 160 : i64
// WS-SAME: dlc.shared_bytes = 99392 : i64
// WS: "mbarrier.init.shared.b64 [$0], 1;", "r"
// WS: "mbarrier.init.shared.b64 [$0], 4;", "r"
// WS: arith.cmpi eq, %{{.*}}, %c128{{(_[0-9]+)?}} : index
// WS-NEXT: scf.if
// WS: fence.proxy.tensormap::generic.acquire.gpu
// WS: gpu.barrier
// WS: arith.cmpi ult, %{{.*}}, %c128{{(_[0-9]+)?}} : index
// WS-NEXT: scf.if
// WS: scf.for
// WS: mbarrier.try_wait.parity
// WS-NOT: gpu.barrier
// WS: "wgmma.wait_group.sync.aligned 1;"
// WS: "{\0A.reg .b64 st;\0Ambarrier.arrive.shared::cta.b64 st, [$0];\0A}", "r"
// WS: scf.yield
// WS: "wgmma.wait_group.sync.aligned 0;"
// WS: } else {
// WS: scf.for
// WS: scf.if
// WS: mbarrier.try_wait.parity
// WS: mbarrier.arrive.expect_tx
// WS-COUNT-2: cp.async.bulk.tensor.2d
// The emulation runs the producer before each consumer step as far as the
// releases let it, and checks both barriers' phases.
// WSEMU-LABEL: func.func private @gemm_nk(
// WSEMU-SAME: dlc.cta_threads = 128 : i64
// WSEMU: memref.alloca() : memref<20xi64>
// WSEMU: scf.for
// WSEMU: scf.while
// WSEMU: scf.condition
// WSEMU-NEXT: } do {
// WSEMU: llvm.intr.trap
// WSEMU: llvm.intr.trap
// WSEMU-NOT: llvm.inline_asm
// WSEMU-LABEL: func.func @main(
func.func private @gemm_nk(%acc: memref<128x256xf32>, %a: memref<128x96xf16>, %b: memref<256x96xf16>,
    %out: memref<128x256xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<128x96xf16>, memref<256x96xf16>) outs(%acc : memref<128x256xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<128x256xf32>) outs(%out : memref<128x256xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}
func.func @main(%a: memref<128x96xf16>, %b: memref<256x96xf16>, %out: memref<128x256xf16>) {
  %acc = memref.alloc() : memref<128x256xf32>
  call @gemm_nk(%acc, %a, %b, %out) : (memref<128x256xf32>, memref<128x96xf16>, memref<256x96xf16>, memref<128x256xf16>) -> ()
  memref.dealloc %acc : memref<128x256xf32>
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bt = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A batched A ([2, 64, 128] i8) is a 3-D map (coordinates k, row, batch);
// the shared [N, K] B a 2-D one. i8 boxes are 128 elements of k.
// CHECK-LABEL: func.func private @batched_s8(
// CHECK-SAME: memref<2x64x128xi8> {dlc.tensor_map = {box = array<i64: 128, 64, 1>, dims = array<i64: 128, 64, 2>, swizzle = 128 : i64}}
// CHECK-SAME: memref<128x128xi8> {dlc.tensor_map = {box = array<i64: 128, 128>, dims = array<i64: 128, 128>, swizzle = 128 : i64}}
// CHECK: "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4, $5}], [$2];", "r,l,r,r,r,r"
// CHECK: "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$3, $4}], [$2];", "r,l,r,r,r"
func.func private @batched_s8(%acc: memref<2x64x128xi32>, %a: memref<2x64x128xi8>, %b: memref<128x128xi8>)
    attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<2x64x128xi32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x64x128xi8>, memref<128x128xi8>) outs(%acc : memref<2x64x128xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
func.func @main(%acc: memref<2x64x128xi32>, %a: memref<2x64x128xi8>, %b: memref<128x128xi8>) {
  call @batched_s8(%acc, %a, %b) : (memref<2x64x128xi32>, memref<2x64x128xi8>, memref<128x128xi8>) -> ()
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// A and B one argument (x xT): a map for each, and the operand argument
// they replace erased once.
// CHECK-LABEL: func.func private @gram(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<128x128xf32>,
// CHECK-SAME: %{{[a-z0-9]+}}: memref<128x192xf16> {dlc.tensor_map = {box = array<i64: 64, 64>, dims = array<i64: 192, 128>, swizzle = 128 : i64}},
// CHECK-SAME: %{{[a-z0-9]+}}: memref<128x192xf16> {dlc.tensor_map = {box = array<i64: 64, 128>, dims = array<i64: 192, 128>, swizzle = 128 : i64}})
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: memref<128x128xf32>, %[[X:[a-z0-9]+]]: memref<128x192xf16>)
// CHECK: call @gram(%[[ACC]], %[[X]], %[[X]])
func.func private @gram(%acc: memref<128x128xf32>, %x: memref<128x192xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %x : memref<128x192xf16>, memref<128x192xf16>) outs(%acc : memref<128x128xf32>) {
  ^bb0(%p: f16, %q: f16, %s: f32):
    %0 = arith.extf %p : f16 to f32
    %1 = arith.extf %q : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%acc: memref<128x128xf32>, %x: memref<128x192xf16>) {
  call @gram(%acc, %x) : (memref<128x128xf32>, memref<128x192xf16>) -> ()
  return
}
