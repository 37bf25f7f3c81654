// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true warp-specialize=true persistent=true sm-count=2" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true warp-specialize=true persistent=true sm-count=2 emulate=true" | FileCheck %s --check-prefix=EMU
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true warp-specialize=true persistent=true sm-count=8" | FileCheck %s --check-prefix=WAVE
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true tma=true persistent=true sm-count=2" | FileCheck %s --check-prefix=NOWS

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// 8 x 2 tiles of 64x128, two CTAs an SM (99 KiB of shared memory each):
// on 2 SMs one wave holds 4, so 4 persistent CTAs take 4 tiles each.
// Consumers: per tile (scf.for to the CTA's tile count) the k-loop over its
// 2 k-tiles, whose slot and parity come from the CTA's running k-tile
// count; after `wait_group 0` lane 0 of each warp releases the tile's last
// slot, then the epilogue. The producer walks the same tiles and k-tiles.
// CHECK-LABEL: func.func private @gemm(
// CHECK-SAME: dlc.cta_threads = 160 : i64
// CHECK-SAME: dlc.persistent
// CHECK-SAME: dlc.work_items = 4 : i64
// CHECK: scf.parallel (%[[CTA:.*]]) = (%{{.*}}) to (%c4) step
// CHECK: fence.proxy.tensormap::generic.acquire.gpu
// CHECK: gpu.barrier
// CHECK: arith.subi %c19{{(_[0-9]+)?}}, %[[CTA]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %c128{{(_[0-9]+)?}} : index
// CHECK-NEXT: scf.if
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.muli %[[I]], %c2{{(_[0-9]+)?}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step %{{.*}} iter_args(
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: scf.if
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK: vector.store
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.arrive.expect_tx
// CHECK-COUNT-2: cp.async.bulk.tensor.2d
// CHECK-LABEL: func.func @main(

// Emulated: the same tiles per CTA; the producer (scf.while) runs ahead
// across tiles; the barrier state lives for the whole CTA, and the fills
// are checked after its last tile.
// EMU-LABEL: func.func private @gemm(
// EMU-SAME: dlc.persistent
// EMU-SAME: dlc.work_items = 4 : i64
// EMU: memref.alloca() : memref<20xi64>
// EMU: scf.for
// EMU: scf.for
// EMU: scf.while
// EMU: llvm.intr.trap
// EMU: scf.yield
// EMU: llvm.intr.trap
// EMU-NOT: llvm.inline_asm
// EMU-LABEL: func.func @main(

// 16 tiles fit one wave on 8 SMs: one CTA per tile.
// WAVE-LABEL: func.func private @gemm(
// WAVE-NOT: dlc.persistent
// WAVE-SAME: dlc.work_items = 16 : i64

// Without warp specialization there is no producer to run ahead.
// NOWS-LABEL: func.func private @gemm(
// NOWS-NOT: dlc.persistent
// NOWS-SAME: dlc.work_items = 16 : i64
func.func private @gemm(%acc: memref<512x256xf32>, %a: memref<512x96xf16>, %b: memref<256x96xf16>,
    %out: memref<512x256xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<512x256xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<512x96xf16>, memref<256x96xf16>) outs(%acc : memref<512x256xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<512x256xf32>) outs(%out : memref<512x256xf16>) {
  ^bb0(%x: f32, %y: f16):
    %0 = arith.truncf %x : f32 to f16
    linalg.yield %0 : f16
  }
  return
}
func.func @main(%a: memref<512x96xf16>, %b: memref<256x96xf16>, %y: memref<512x256xf16>) {
  %acc = memref.alloc() : memref<512x256xf32>
  call @gemm(%acc, %a, %b, %y) : (memref<512x256xf32>, memref<512x96xf16>, memref<256x96xf16>, memref<512x256xf16>) -> ()
  memref.dealloc %acc : memref<512x256xf32>
  return
}
