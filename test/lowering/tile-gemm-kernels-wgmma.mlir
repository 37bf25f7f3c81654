// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="tile=64x128 wgmma=true emulate=true" | FileCheck %s --check-prefix=EMU

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// B read [N, K]: one warpgroup (a 64x128 tile, 2 x 2 CTAs), k-tiles of 64
// f16 (128 bytes), 4 stages of (64 + 128) rows of 128 bytes plus 1 KiB to
// align the stages to the 128-byte swizzle's 1024-byte period. Two tiles
// ahead: the wgmma of the tile before is still reading its slot.
// CHECK-LABEL: func.func private @gemm_nk
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.shared_bytes = 99328 : i64
// CHECK-SAME: dlc.work_items = 4 : i64
// CHECK: %[[RAW:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.extract_aligned_pointer_as_index %[[RAW]]
// CHECK: memref.view %[[RAW]]
// CHECK-COUNT-2: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", ""
// CHECK: gpu.barrier
// CHECK: "wgmma.fence.sync.aligned;"
// 1 << 62 (128-byte swizzle) | (1024 >> 4) << 32 (8-row groups) | 1 << 16.
// CHECK: arith.constant 4611686293305360384 : i64
// CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0, {{.*}}, $63}, $64, $65, p, 1, 1, 0, 0;\0A}", "=f,{{.*}},=f,l,l,0,1,{{.*}},63"
// CHECK-COUNT-3: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: nvgpu.device_async_copy
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: vector.store
// CHECK-NOT: linalg.
// EMU-LABEL: func.func private @gemm_nk
// EMU-SAME: dlc.cta_threads = 128 : i64
// EMU-NOT: llvm.inline_asm
// EMU-NOT: nvgpu.
// The descriptor decoded: start address and stride byte offset fields,
// the 128-byte swizzle on address bits 4-6 from bits 7-9.
// EMU: arith.shrui %{{.*}}, %c32_i64 : i64
// EMU: arith.andi %{{.*}}, %c16383_i64 : i64
// EMU: arith.xori
// EMU-NOT: linalg.
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

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// A [K, N] B would need wgmma's MN-major layouts: it keeps mma.sync.
// CHECK-LABEL: func.func private @gemm_kn
// CHECK-NOT: wgmma
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync
func.func private @gemm_kn(%acc: memref<64x64xf32>, %a: memref<64x32xf16>, %b: memref<32x64xf16>)
    attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// u8 x s8 (extui / extsi): wgmma k32 with s32 accumulators, which take no
// scale or transpose immediates; k-tiles of 128 i8.
// CHECK-LABEL: func.func private @gemm_u8s8
// CHECK-SAME: dlc.shared_bytes = 99328 : i64
// CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k32.s32.u8.s8 {$0, {{.*}}, $63}, $64, $65, p;\0A}", "=r,
// CHECK-COUNT-3: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
func.func private @gemm_u8s8(%acc: memref<64x128xi32>, %a: memref<64x256xi8>, %b: memref<128x256xi8>)
    attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<64x128xi32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x256xi8>, memref<128x256xi8>) outs(%acc : memref<64x128xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// K = 64 is one k-tile: with the slot the wgmma in flight reads, 3 stages
// hold every k-tile the CTA loads, and a 4th would never be filled (a 1x1
// convolution over 64 channels): 3 x (64 + 128) rows of 128 bytes + 1 KiB,
// one tile ahead (every group waited for).
// CHECK-LABEL: func.func private @gemm_one_ktile
// CHECK-SAME: dlc.shared_bytes = 74752 : i64
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK: wgmma.mma_async
func.func private @gemm_one_ktile(%acc: memref<128x256xf32>, %a: memref<128x64xf16>, %b: memref<256x64xf16>)
    attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<128x64xf16>, memref<256x64xf16>) outs(%acc : memref<128x256xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @main(%acc: memref<128x256xf32>, %a: memref<128x64xf16>, %b: memref<256x64xf16>) {
  call @gemm_one_ktile(%acc, %a, %b) : (memref<128x256xf32>, memref<128x64xf16>, memref<256x64xf16>) -> ()
  return
}
