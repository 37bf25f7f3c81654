// RUN: dlc-opt %s --split-input-file --dlc-fuse-kernels | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-fuse-kernels --dlc-linearize-kernels | FileCheck %s --check-prefix=LIN

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func private @init(%bias: memref<8xf32>, %t: memref<4x8xf32>) attributes {dlc.kernel, dlc.nodes = ["fc"]} {
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
func.func private @gemm(%x: memref<4x16xf32>, %w: memref<16x8xf32>, %t: memref<4x8xf32>) attributes {dlc.kernel, dlc.nodes = ["fc"]} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x16xf32>, memref<16x8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @relu(%t: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {dlc.kernel, dlc.nodes = ["act"]} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Bias init, GEMM and activation: one kernel, one work item per output.
// CHECK-LABEL: func.func private @k0_act(
// CHECK-SAME: dlc.nodes = ["fc", "act"]
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[T:.*]] = memref.alloc
// CHECK-NEXT: call @k0_act(
// CHECK-NEXT: return
// LIN-LABEL: func.func private @k0_act(
// LIN-SAME: dlc.work_items = 32 : i64
// LIN: scf.parallel
// LIN-NOT: scf.parallel
// LIN-LABEL: func.func @main
func.func @main(%bias: memref<8xf32>, %x: memref<4x16xf32>, %w: memref<16x8xf32>, %y: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  call @init(%bias, %t) : (memref<8xf32>, memref<4x8xf32>) -> ()
  call @gemm(%x, %w, %t) : (memref<4x16xf32>, memref<16x8xf32>, memref<4x8xf32>) -> ()
  call @relu(%t, %y) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func private @relu(%t: memref<4x4xf32>, %y: memref<4x4xf32>) attributes {dlc.kernel, dlc.nodes = ["act"]} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func private @matmul(%x: memref<4x4xf32>, %w: memref<4x4xf32>, %t: memref<4x4xf32>) attributes {dlc.kernel, dlc.nodes = ["mm"]} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// The MatMul reads a whole row of the Relu's output: work item (i, j) needs
// results of other work items, so the two stay separate kernels.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_act(
// CHECK: call @k1_mm(
func.func @main(%x: memref<4x4xf32>, %w: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  call @relu(%x, %t) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  call @matmul(%t, %w, %y) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func private @copy(%a: memref<8xf32>, %b: memref<8xf32>) attributes {dlc.kernel, dlc.nodes = ["c"]} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// A copy step between two kernels orders them: no merge across it.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_c(
// CHECK: memref.copy
// CHECK: call @k0_c(
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  %u = memref.alloc() : memref<8xf32>
  call @copy(%x, %t) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.copy %t, %u : memref<8xf32> to memref<8xf32>
  call @copy(%u, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

func.func private @rowmax(%x: memref<64x128xf32>, %m: memref<64x1xf32>) attributes {dlc.kernel, dlc.nodes = ["sm"]} {
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x128xf32>) outs(%m : memref<64x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}
func.func private @sub(%x: memref<64x128xf32>, %m: memref<64x1xf32>, %y: memref<64x128xf32>) attributes {dlc.kernel, dlc.nodes = ["sm"]} {
  linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<64x128xf32>, memref<64x1xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %r = arith.subf %v, %mx : f32
    linalg.yield %r : f32
  }
  return
}

// A row reduction and the elementwise op reading its result per row: one
// kernel with a work item per row, the columns a loop inside it.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_sm(
// CHECK-NOT: call
// LIN-LABEL: func.func private @k0_sm(
// LIN-SAME: dlc.work_items = 64 : i64
// LIN: scf.parallel
// LIN: scf.for
// LIN: arith.maximumf
// LIN: scf.for
// LIN: arith.subf
// LIN-LABEL: func.func @main
func.func @main(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %m = memref.alloc() : memref<64x1xf32>
  call @rowmax(%x, %m) : (memref<64x128xf32>, memref<64x1xf32>) -> ()
  call @sub(%x, %m, %y) : (memref<64x128xf32>, memref<64x1xf32>, memref<64x128xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d0, 0)>

func.func private @fill(%a: memref<64x1xf32>) attributes {dlc.kernel, dlc.nodes = ["f"]} {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%a : memref<64x1xf32>)
  return
}
func.func private @neg(%x: memref<64x128xf32>, %y: memref<64x128xf32>) attributes {dlc.kernel, dlc.nodes = ["n"]} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  return
}

// Unrelated kernels never give up parallelism to merge: [64] and [64, 128]
// stay apart.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_f(
// CHECK: call @k1_n(
func.func @main(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %a = memref.alloc() : memref<64x1xf32>
  call @fill(%a) : (memref<64x1xf32>) -> ()
  call @neg(%x, %y) : (memref<64x128xf32>, memref<64x128xf32>) -> ()
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func private @scale(%x: memref<1x2x8x4xf32>, %y: memref<1x2x8x4xf32>) attributes {dlc.kernel, dlc.nodes = ["scale"]} {
  %c = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x8x4xf32>) outs(%y : memref<1x2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  }
  return
}
func.func private @attn(%q: memref<1x2x8x4xf32>, %k: memref<1x2x8x4xf32>, %v: memref<1x2x8x4xf32>, %o: memref<1x2x8x4xf32>) attributes {dlc.kernel, dlc.nodes = ["ctx"]} {
  dlc.attention_kernel %q, %k, %v outs(%o : memref<1x2x8x4xf32>) {k_transposed = false, scale = 1.0 : f32} : memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>
  return
}

// The query rows' producer joins the attention kernel (a work item reads
// only its own query row; its private scratch is no shared write); the
// same producer feeding the keys (read by every row) does not.
// CHECK-LABEL: func.func private @k0_scale(
// CHECK-LABEL: func.func private @k1_ctx(
// CHECK-SAME: dlc.nodes = ["scale", "ctx"]
// CHECK-LABEL: func.func private @k2_ctx(
// CHECK-SAME: dlc.nodes = ["ctx"]
// CHECK-LABEL: func.func @main
// CHECK: call @k1_ctx(
// CHECK: call @k0_scale(
// CHECK: call @k2_ctx(
// LIN-LABEL: func.func private @k1_ctx(
// LIN-SAME: dlc.work_items = 16 : i64
// LIN: scf.parallel
// LIN-NOT: scf.parallel
// LIN-LABEL: func.func private @k2_ctx(
func.func @main(%x: memref<1x2x8x4xf32>, %k: memref<1x2x8x4xf32>, %v: memref<1x2x8x4xf32>, %o: memref<1x2x8x4xf32>, %o2: memref<1x2x8x4xf32>) {
  %q = memref.alloc() : memref<1x2x8x4xf32>
  call @scale(%x, %q) : (memref<1x2x8x4xf32>, memref<1x2x8x4xf32>) -> ()
  call @attn(%q, %k, %v, %o) : (memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>) -> ()
  %k2 = memref.alloc() : memref<1x2x8x4xf32>
  call @scale(%x, %k2) : (memref<1x2x8x4xf32>, memref<1x2x8x4xf32>) -> ()
  call @attn(%x, %k2, %v, %o2) : (memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>, memref<1x2x8x4xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func private @relu(%t: memref<4x4xf32>, %y: memref<4x4xf32>) attributes {dlc.kernel, dlc.nodes = ["act"]} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func private @zero(%t: memref<4x4xf32>) attributes {dlc.kernel, dlc.nodes = ["mm"]} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<4x4xf32>)
  return
}
func.func private @matmul(%x: memref<4x4xf32>, %w: memref<4x4xf32>, %t: memref<4x4xf32>) attributes {dlc.kernel, dlc.nodes = ["mm"]} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// The MatMul's accumulator is zeroed right after an unrelated kernel with
// the same work items: the initialization merges with the MatMul that reads
// it, not with the kernel before it, so the accumulator never crosses
// kernels (the 3x3 convolutions of ResNet, zeroed by the previous layer).
// CHECK-LABEL: func.func private @k0_act(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.fill
// CHECK-LABEL: func.func private @k1_mm(
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-LABEL: func.func @main
// CHECK: call @k0_act(%arg0, %[[T:.*]]) :
// CHECK-NEXT: call @k1_mm(%arg2, %[[T]], %arg1) :
func.func @main(%x: memref<4x4xf32>, %w: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  call @relu(%x, %t) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  call @zero(%y) : (memref<4x4xf32>) -> ()
  call @matmul(%t, %w, %y) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>

func.func private @zero(%t: memref<64x64xf32>) attributes {dlc.kernel, dlc.nodes = ["mm"]} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  return
}
func.func private @matmul(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %t: memref<64x64xf32>) attributes {dlc.kernel, dlc.nodes = ["mm"]} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x64xf32>, memref<64x64xf32>) outs(%t : memref<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @zero_rows(%s: memref<64xf32>) attributes {dlc.kernel, dlc.nodes = ["sum"]} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  return
}
func.func private @relu(%t: memref<64x64xf32>, %y: memref<64x64xf32>) attributes {dlc.kernel, dlc.nodes = ["act"]} {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func private @rowsum(%y: memref<64x64xf32>, %s: memref<64xf32>) attributes {dlc.kernel, dlc.nodes = ["sum"]} {
  linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  return
}

// The row sum's initialization sits between the MatMul and its epilogue
// (where lowering put it): it moves down to the row sum, so the epilogue
// joins the MatMul's kernel and the accumulator does not cross kernels.
// CHECK-LABEL: func.func @main
// CHECK: call @k0_act(%[[T:[^,]*]], %arg0, %arg1, %[[Y:[^,)]*]])
// CHECK-NEXT: call @k1_sum(%arg2, %[[Y]])
// CHECK-NEXT: return
func.func @main(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %s: memref<64xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  %y = memref.alloc() : memref<64x64xf32>
  call @zero(%t) : (memref<64x64xf32>) -> ()
  call @matmul(%x, %w, %t) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @zero_rows(%s) : (memref<64xf32>) -> ()
  call @relu(%t, %y) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @rowsum(%y, %s) : (memref<64x64xf32>, memref<64xf32>) -> ()
  return
}
