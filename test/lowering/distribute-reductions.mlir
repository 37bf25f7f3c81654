// RUN: dlc-opt %s --split-input-file --dlc-distribute-reductions | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-distribute-reductions="emulate=true" | FileCheck %s --check-prefix=EMU

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>

// A row sum over the contiguous dim (ReduceSum keepdims): 6 rows, 4 warps
// per CTA (2 CTAs, the last one guarded), lanes striding over 4-wide
// vectors of the 256 elements, a butterfly of xor shuffles 16..1. Every
// lane reads the filled value before the reduction and merges the total
// into it; lane 0 stores it; __syncwarp after the fill and the reduction.
// CHECK-LABEL: func.func private @row_sum
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.work_items = 2 : i64
// CHECK: scf.parallel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[OLD:.*]] = memref.load %arg0
// A lane's chunks (lane and lane + 32 of 64) one after the other, without
// a loop around them: all of a row's loads in flight at once.
// CHECK: arith.addi %[[LANE]], %c0
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args
// CHECK: arith.addi %[[LANE]], %c32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[P]])
// CHECK: memref.load %arg1
// CHECK: arith.addf
// CHECK: gpu.shuffle  xor %{{.*}}, %c16
// CHECK: gpu.shuffle  xor %{{.*}}, %c8
// CHECK: gpu.shuffle  xor %{{.*}}, %c4
// CHECK: gpu.shuffle  xor %{{.*}}, %c2
// CHECK: %[[LAST:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c1
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[LAST]]
// CHECK: %[[TOTAL:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK: arith.cmpi eq, %[[LANE]]
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[TOTAL]], %arg0
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: linalg.
// EMU-LABEL: func.func private @row_sum
// EMU-SAME: dlc.cta_threads = 128 : i64
// EMU-NOT: gpu.
// EMU-NOT: nvvm.
// EMU: memref.alloca() : memref<32xf32>
// EMU: arith.xori
// EMU-NOT: linalg.
// EMU-LABEL: func.func @main
func.func private @row_sum(%sum: memref<6x1xf32>, %x: memref<6x256xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<6x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x256xf32>) outs(%sum : memref<6x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}
func.func @main(%sum: memref<6x1xf32>, %x: memref<6x256xf32>) {
  call @row_sum(%sum, %x) : (memref<6x1xf32>, memref<6x256xf32>) -> ()
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>

// The online softmax: a running max and a sum rescaled by exp(m - m'),
// merged pairwise in the butterfly (both shuffled, the sum rescaled to the
// merged max), then the elementwise phase writing the row. 100 elements:
// 2-wide vectors (4-wide would leave lanes without one); 8 rows, no guard.
// CHECK-LABEL: func.func private @softmax
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.work_items = 2 : i64
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} to %c50{{.*}} step %c32{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args
// CHECK: gpu.shuffle  xor %{{.*}}, %c16
// CHECK: gpu.shuffle  xor %{{.*}}, %c16
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: scf.if
// CHECK: memref.store %[[MAX:.*]], %arg0
// CHECK: memref.store %[[SUM:.*]], %arg1
// CHECK: nvvm.bar.warp.sync
// The statistics come from registers, not from the buffers lane 0 wrote.
// CHECK-NOT: memref.load %arg0
// CHECK-NOT: memref.load %arg1
// CHECK: scf.for %{{.*}} to %c50{{.*}} step %c32
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: math.exp
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: memref.store %{{.*}}, %arg3
// CHECK: nvvm.bar.warp.sync
func.func private @softmax(%max: memref<8x1xf32>, %sum: memref<8x1xf32>, %x: memref<8x100xf32>,
    %y: memref<8x100xf32>) attributes {dlc.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%ninf : f32) outs(%max : memref<8x1xf32>)
  linalg.fill ins(%zero : f32) outs(%sum : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%max, %sum : memref<8x1xf32>, memref<8x1xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %m2 = arith.maximumf %m, %in : f32
    %d = arith.subf %m, %m2 : f32
    %e = math.exp %d : f32
    %r = arith.mulf %s, %e : f32
    %d2 = arith.subf %in, %m2 : f32
    %e2 = math.exp %d2 : f32
    %s2 = arith.addf %r, %e2 : f32
    linalg.yield %m2, %s2 : f32, f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : memref<8x100xf32>, memref<8x1xf32>, memref<8x1xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>

// dlc-convert-to-linalg's Softmax takes the exponents from 0 while a row has
// seen only -inf (base = m' == -inf ? 0 : m'): still the online sum, and the
// butterfly's merge guards its own exponents the same way.
// CHECK-LABEL: func.func private @softmax_masked_base
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK: %[[M:.*]] = arith.maximumf
// CHECK: %[[ALL:.*]] = arith.cmpf oeq, %[[M]], %{{.*}}
// CHECK: %[[BASE:.*]] = arith.select %[[ALL]], %{{.*}}, %[[M]]
// CHECK: arith.subf %{{.*}}, %[[BASE]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c16
// CHECK: arith.maximumf
// CHECK: %[[ALLM:.*]] = arith.cmpf oeq
// CHECK: %[[BASEM:.*]] = arith.select %[[ALLM]]
// CHECK: arith.subf %{{.*}}, %[[BASEM]]
// CHECK: math.exp
func.func private @softmax_masked_base(%max: memref<8x1xf32>, %sum: memref<8x1xf32>, %x: memref<8x100xf32>,
    %y: memref<8x100xf32>) attributes {dlc.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%ninf : f32) outs(%max : memref<8x1xf32>)
  linalg.fill ins(%zero : f32) outs(%sum : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%max, %sum : memref<8x1xf32>, memref<8x1xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %m2 = arith.maximumf %m, %in : f32
    %all = arith.cmpf oeq, %m2, %ninf : f32
    %base = arith.select %all, %zero, %m2 : f32
    %d = arith.subf %m, %base : f32
    %e = math.exp %d : f32
    %r = arith.mulf %s, %e : f32
    %d2 = arith.subf %in, %base : f32
    %e2 = math.exp %d2 : f32
    %s2 = arith.addf %r, %e2 : f32
    linalg.yield %m2, %s2 : f32, f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : memref<8x100xf32>, memref<8x1xf32>, memref<8x1xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// Reducing a dim that is not the contiguous one: lanes would read a row
// apart; the kernel stays for dlc-linearize-kernels.
// CHECK-LABEL: func.func private @strided_sum
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @strided_sum(%sum: memref<4x48xf32>, %x: memref<4x64x48xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<4x48xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x64x48xf32>) outs(%sum : memref<4x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>

// Rows shorter than a warp (min-row-length 32) stay one thread per row.
// CHECK-LABEL: func.func private @short_rows
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
func.func private @short_rows(%sum: memref<64x1xf32>, %x: memref<64x16xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x16xf32>) outs(%sum : memref<64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>

// The second reduction reads the first element of a row the elementwise
// phase wrote: another lane's write, which lanes do not share through
// memory. The kernel keeps its form; reading its own element (@reads_own)
// is distributed.
// CHECK-LABEL: func.func private @reads_other_lane
// CHECK-NOT: dlc.cta_threads
// CHECK: linalg.generic
// CHECK-LABEL: func.func private @reads_own
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-NOT: linalg.
func.func private @reads_other_lane(%s0: memref<8x1xf32>, %t: memref<8x64xf32>, %s1: memref<8x1xf32>,
    %x: memref<8x64xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s0 : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s0 : memref<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s0 : memref<8x64xf32>, memref<8x1xf32>) outs(%t : memref<8x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%s1 : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : memref<8x64xf32>, memref<8x64xf32>) outs(%s1 : memref<8x1xf32>) {
  ^bb0(%in: f32, %first: f32, %out: f32):
    %d = arith.subf %in, %first : f32
    %s = arith.addf %out, %d : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @reads_own(%s0: memref<8x1xf32>, %t: memref<8x64xf32>, %s1: memref<8x1xf32>,
    %x: memref<8x64xf32>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s0 : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s0 : memref<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s0 : memref<8x64xf32>, memref<8x1xf32>) outs(%t : memref<8x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%s1 : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : memref<8x64xf32>, memref<8x64xf32>) outs(%s1 : memref<8x1xf32>) {
  ^bb0(%in: f32, %own: f32, %out: f32):
    %d = arith.subf %in, %own : f32
    %s = arith.addf %out, %d : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A Linear layer at batch 2 (too few rows for the tensor-core tiles): one
// warp per output, its lanes striding over k of x and of the [N, K] weight
// row (16-byte vectors: 8 f16), the bias initializer run by every lane
// before the reduction (all lanes store the same value), the total merged
// into it and the epilogue fed from registers.
// CHECK-LABEL: func.func private @gemv_bias
// CHECK-SAME: dlc.cta_threads = 128 : i64
// CHECK-SAME: dlc.work_items = 250 : i64
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[B:.*]] = memref.load %arg0
// CHECK: %[[BF:.*]] = arith.extf %[[B]]
// CHECK: memref.store %[[BF]], %arg1
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[OLD:.*]] = memref.load %arg1
// CHECK: arith.addi %[[LANE]], %c0
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args
// CHECK: memref.load %arg2
// CHECK: memref.load %arg3
// CHECK: arith.mulf
// CHECK: gpu.shuffle  xor
// CHECK: %[[LAST:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c1
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[LAST]]
// CHECK: %[[TOTAL:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[TOTAL]], %arg1
// CHECK: %[[T:.*]] = arith.truncf %[[TOTAL]]
// CHECK: memref.store %[[T]], %arg4
// CHECK-NOT: linalg.
func.func private @gemv_bias(%b: memref<500xf16>, %acc: memref<2x500xf32>, %x: memref<2x256xf16>,
    %w: memref<500x256xf16>, %y: memref<2x500xf16>) attributes {dlc.kernel} {
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<500xf16>) outs(%acc : memref<2x500xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#x, #w, #acc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x256xf16>, memref<500x256xf16>) outs(%acc : memref<2x500xf32>) {
  ^bb0(%a: f16, %c: f16, %out: f32):
    %ae = arith.extf %a : f16 to f32
    %ce = arith.extf %c : f16 to f32
    %m = arith.mulf %ae, %ce : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x500xf32>) outs(%y : memref<2x500xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// LayerNorm as the lowering writes it (mean, centered = x - mean, variance
// of centered, normalization, then the f16 rounding for the next GEMM). The
// centered buffer exists only for this kernel (allocated for its one call):
// its pass is recomputed where the variance and the normalization read it,
// and goes; the rounding joins the normalization. Three row loops remain,
// none stores or reads %c.
// CHECK-LABEL: func.func private @layer_norm
// CHECK-NOT: memref.store %{{.*}}, %arg2
// CHECK-NOT: memref.load %arg2
// CHECK: scf.for
// CHECK: gpu.shuffle  xor
// CHECK: scf.for
// CHECK: memref.load %arg1
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: gpu.shuffle  xor
// CHECK: scf.for
// CHECK: memref.load %arg1
// CHECK: arith.subf
// CHECK: math.rsqrt
// CHECK: memref.store %[[Y:.*]], %arg6
// CHECK: %[[H:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK: memref.store %[[H]], %arg7
// CHECK-NOT: scf.for
// CHECK: return
// EMU-LABEL: func.func private @layer_norm
// EMU-NOT: memref.store %{{.*}}, %arg2
// EMU-NOT: memref.load %arg2
// EMU: return
func.func private @layer_norm(%mean: memref<8x1xf32>, %x: memref<8x256xf32>, %c: memref<8x256xf32>,
    %var: memref<8x1xf32>, %g: memref<256xf32>, %b: memref<256xf32>, %y: memref<8x256xf32>,
    %h: memref<8x256xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %eps = arith.constant 1.0e-5 : f32
  linalg.fill ins(%zero : f32) outs(%mean : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%mean : memref<8x1xf32>) {
  ^bb0(%in: f32, %m: f32):
    %s = arith.mulf %in, %inv : f32
    %a = arith.addf %m, %s : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : memref<8x256xf32>, memref<8x1xf32>) outs(%c : memref<8x256xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<8x256xf32>) outs(%var : memref<8x1xf32>) {
  ^bb0(%in: f32, %v: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.mulf %sq, %inv : f32
    %a = arith.addf %v, %s : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %var, %g, %b : memref<8x256xf32>, memref<8x1xf32>, memref<256xf32>, memref<256xf32>)
      outs(%y : memref<8x256xf32>) {
  ^bb0(%in: f32, %v: f32, %gi: f32, %bi: f32, %out: f32):
    %e = arith.addf %v, %eps : f32
    %r = math.rsqrt %e : f32
    %n = arith.mulf %in, %r : f32
    %s = arith.mulf %n, %gi : f32
    %t = arith.addf %s, %bi : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x256xf32>) outs(%h : memref<8x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  return
}
func.func @main(%x: memref<8x256xf32>, %g: memref<256xf32>, %b: memref<256xf32>, %y: memref<8x256xf32>,
    %h: memref<8x256xf16>) {
  %mean = memref.alloc() : memref<8x1xf32>
  %c = memref.alloc() : memref<8x256xf32>
  %var = memref.alloc() : memref<8x1xf32>
  call @layer_norm(%mean, %x, %c, %var, %g, %b, %y, %h) : (memref<8x1xf32>, memref<8x256xf32>, memref<8x256xf32>,
      memref<8x1xf32>, memref<256xf32>, memref<256xf32>, memref<8x256xf32>, memref<8x256xf16>) -> ()
  memref.dealloc %mean : memref<8x1xf32>
  memref.dealloc %c : memref<8x256xf32>
  memref.dealloc %var : memref<8x1xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#acc = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// The same LayerNorm, but the caller passes in %c (a model buffer someone
// else may read): x - mean is still stored, once, in its own row loop
// (the variance and the normalization read it back); only the rounding
// joins the normalization.
// CHECK-LABEL: func.func private @layer_norm_kept
// CHECK: gpu.shuffle  xor
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: scf.for
// CHECK: memref.load %arg2
// CHECK: gpu.shuffle  xor
// CHECK: scf.for
// CHECK: memref.load %arg2
// CHECK: memref.store %[[Y:.*]], %arg6
// CHECK: %[[H:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK: memref.store %[[H]], %arg7
// CHECK-NOT: scf.for
// CHECK: return
func.func private @layer_norm_kept(%mean: memref<8x1xf32>, %x: memref<8x256xf32>, %c: memref<8x256xf32>,
    %var: memref<8x1xf32>, %g: memref<256xf32>, %b: memref<256xf32>, %y: memref<8x256xf32>,
    %h: memref<8x256xf16>) attributes {dlc.kernel} {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %eps = arith.constant 1.0e-5 : f32
  linalg.fill ins(%zero : f32) outs(%mean : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%mean : memref<8x1xf32>) {
  ^bb0(%in: f32, %m: f32):
    %s = arith.mulf %in, %inv : f32
    %a = arith.addf %m, %s : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : memref<8x256xf32>, memref<8x1xf32>) outs(%c : memref<8x256xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<8x1xf32>)
  linalg.generic {indexing_maps = [#id, #acc], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<8x256xf32>) outs(%var : memref<8x1xf32>) {
  ^bb0(%in: f32, %v: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.mulf %sq, %inv : f32
    %a = arith.addf %v, %s : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #acc, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %var, %g, %b : memref<8x256xf32>, memref<8x1xf32>, memref<256xf32>, memref<256xf32>)
      outs(%y : memref<8x256xf32>) {
  ^bb0(%in: f32, %v: f32, %gi: f32, %bi: f32, %out: f32):
    %e = arith.addf %v, %eps : f32
    %r = math.rsqrt %e : f32
    %n = arith.mulf %in, %r : f32
    %s = arith.mulf %n, %gi : f32
    %t = arith.addf %s, %bi : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x256xf32>) outs(%h : memref<8x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  return
}
func.func @main_kept(%x: memref<8x256xf32>, %g: memref<256xf32>, %b: memref<256xf32>, %y: memref<8x256xf32>,
    %h: memref<8x256xf16>, %c: memref<8x256xf32>) {
  %mean = memref.alloc() : memref<8x1xf32>
  %var = memref.alloc() : memref<8x1xf32>
  call @layer_norm_kept(%mean, %x, %c, %var, %g, %b, %y, %h) : (memref<8x1xf32>, memref<8x256xf32>, memref<8x256xf32>,
      memref<8x1xf32>, memref<256xf32>, memref<256xf32>, memref<8x256xf32>, memref<8x256xf16>) -> ()
  memref.dealloc %mean : memref<8x1xf32>
  memref.dealloc %var : memref<8x1xf32>
  return
}
