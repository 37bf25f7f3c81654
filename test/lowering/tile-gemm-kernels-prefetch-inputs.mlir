// dlc-tile-gemm-kernels `prefetch-epilogue-inputs`: a staged epilogue input
// (an int8 residual) of a GEMM whose k-loop leaves stage slots unfilled is
// copied into them by cp.async as the CTA starts, one group committed
// before the prologue's, so the first k-tile's wait covers it; after the
// k-loop there is no copy, only the wait for all copies and the barrier.
// Here K = 128 int8 on wgmma is one k-tile: of 3 slots the cp.async k-loop
// fills 2 (the k-tile and the zero-filled lookahead), the residual's
// region goes to the third. With K = 512 (4 k-tiles, every slot filled) it
// is copied after the k-loop as before.
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true stage-epilogue=true stage-epilogue-inputs=int8 prefetch-epilogue-inputs=true" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="wgmma=true stage-epilogue=true stage-epilogue-inputs=int8" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func private @one_k_tile
// CHECK: %[[RES:.*]] = memref.reinterpret_cast %arg2 to offset: [0], sizes: [4096]
// CHECK: nvgpu.device_async_copy %[[RES]][{{.*}}], %{{.*}}[{{.*}}], 16 {bypassL1} : memref<4096xi8> to memref<49152xi8, #gpu.address_space<workgroup>>
// CHECK: "cp.async.commit_group;"
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait
// CHECK: "cp.async.wait_all;"
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: vector.load %[[RES]]
// CHECK-LABEL: func.func @main
// OFF-LABEL: func.func private @one_k_tile
// OFF-NOT: "cp.async.commit_group;"
// OFF: scf.for
// OFF: vector.load %{{.*}} : memref<4096xi8>, vector<16xi8>
// OFF-LABEL: func.func @main
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @one_k_tile(%acc: memref<64x64xi32>, %a: memref<64x128xi8>, %b: memref<64x128xi8>,
    %res: memref<64x64xi8>, %out: memref<64x64xi8>) attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<64x64xi32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x128xi8>, memref<64x128xi8>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %res : memref<64x64xi32>, memref<64x64xi8>) outs(%out : memref<64x64xi8>) {
  ^bb0(%x: i32, %r: i8, %o: i8):
    %0 = arith.extsi %r : i8 to i32
    %1 = arith.addi %x, %0 : i32
    %2 = arith.trunci %1 : i32 to i8
    linalg.yield %2 : i8
  }
  return
}
func.func @main(%a: memref<64x128xi8>, %b: memref<64x128xi8>, %res: memref<64x64xi8>, %out: memref<64x64xi8>) {
  %acc = memref.alloc() : memref<64x64xi32>
  call @one_k_tile(%acc, %a, %b, %res, %out) : (memref<64x64xi32>, memref<64x128xi8>, memref<64x128xi8>, memref<64x64xi8>, memref<64x64xi8>) -> ()
  return
}


// -----

// CHECK-LABEL: func.func private @four_k_tiles
// CHECK-NOT: "cp.async.commit_group;"
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<4096xi8>, vector<16xi8>
// CHECK-LABEL: func.func @main
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @four_k_tiles(%acc: memref<64x64xi32>, %a: memref<64x512xi8>, %b: memref<64x512xi8>,
    %res: memref<64x64xi8>, %out: memref<64x64xi8>) attributes {dlc.kernel} {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<64x64xi32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x512xi8>, memref<64x512xi8>) outs(%acc : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %s: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %s, %2 : i32
    linalg.yield %3 : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %res : memref<64x64xi32>, memref<64x64xi8>) outs(%out : memref<64x64xi8>) {
  ^bb0(%x: i32, %r: i8, %o: i8):
    %0 = arith.extsi %r : i8 to i32
    %1 = arith.addi %x, %0 : i32
    %2 = arith.trunci %1 : i32 to i8
    linalg.yield %2 : i8
  }
  return
}
func.func @main(%a: memref<64x512xi8>, %b: memref<64x512xi8>, %res: memref<64x64xi8>, %out: memref<64x64xi8>) {
  %acc = memref.alloc() : memref<64x64xi32>
  call @four_k_tiles(%acc, %a, %b, %res, %out) : (memref<64x64xi32>, memref<64x512xi8>, memref<64x512xi8>, memref<64x64xi8>, memref<64x64xi8>) -> ()
  return
}

