// dlc-tile-gemm-kernels `stage-epilogue-inputs`: which GEMMs copy an
// epilogue input read at its own element (a residual) to the freed stage
// memory in 16-byte chunks before the epilogue. `int8` (dlc's default):
// integer GEMMs only, whose lanes would read 2 bytes each; `all`: f16 ones
// too; `none`: neither. The staged copy is a 16-byte load of the
// residual's flat view (vector<16xi8>, vector<8xf16>) stored to shared
// memory; without it the pairs are read from global memory, and the only
// 16-byte accesses of the flat views are the staged outputs' stores.
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="stage-epilogue=true stage-epilogue-inputs=int8" | FileCheck %s --check-prefixes=INT8,INT8F16
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="stage-epilogue=true stage-epilogue-inputs=all" | FileCheck %s --check-prefixes=INT8,ALL
// RUN: dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="stage-epilogue=true stage-epilogue-inputs=none" | FileCheck %s --check-prefixes=NONE,INT8F16
// RUN: not dlc-opt %s --split-input-file --dlc-tile-gemm-kernels="stage-epilogue-inputs=some" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: dlc-tile-gemm-kernels: stage-epilogue-inputs must be none, int8 or all, not 'some'

// INT8-LABEL: func.func private @gemm_int8_residual
// INT8: vector.load %{{.*}} : memref<4096xi8>, vector<16xi8>
// INT8: vector.store %{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// NONE-LABEL: func.func private @gemm_int8_residual
// NONE-NOT: vector.load %{{.*}} : memref<4096xi8>, vector<16xi8>
// NONE-LABEL: func.func @main
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @gemm_int8_residual(%acc: memref<64x64xi32>, %a: memref<64x128xi8>, %b: memref<64x128xi8>,
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
  call @gemm_int8_residual(%acc, %a, %b, %res, %out) : (memref<64x64xi32>, memref<64x128xi8>, memref<64x128xi8>, memref<64x64xi8>, memref<64x64xi8>) -> ()
  return
}

// -----

// ALL-LABEL: func.func private @gemm_f16_residual
// ALL: vector.load %{{.*}} : memref<4096xf16>, vector<8xf16>
// INT8F16-LABEL: func.func private @gemm_f16_residual
// INT8F16-NOT: vector.load %{{.*}} : memref<4096xf16>, vector<8xf16>
// INT8F16-LABEL: func.func @main
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @gemm_f16_residual(%acc: memref<64x64xf32>, %a: memref<64x128xf16>, %b: memref<64x128xf16>,
    %res: memref<64x64xf16>, %out: memref<64x64xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x128xf16>, memref<64x128xf16>) outs(%acc : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %s: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %s, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %res : memref<64x64xf32>, memref<64x64xf16>) outs(%out : memref<64x64xf16>) {
  ^bb0(%x: f32, %r: f16, %o: f16):
    %0 = arith.extf %r : f16 to f32
    %1 = arith.addf %x, %0 : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  }
  return
}
func.func @main(%a: memref<64x128xf16>, %b: memref<64x128xf16>, %res: memref<64x64xf16>, %out: memref<64x64xf16>) {
  %acc = memref.alloc() : memref<64x64xf32>
  call @gemm_f16_residual(%acc, %a, %b, %res, %out) : (memref<64x64xf32>, memref<64x128xf16>, memref<64x128xf16>, memref<64x64xf16>, memref<64x64xf16>) -> ()
  return
}
