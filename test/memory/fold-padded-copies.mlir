// RUN: dlc-opt %s --split-input-file --dlc-fold-padded-copies | FileCheck %s

// A producer's output only a padded copy reads: the fill moves before the
// producer, which writes the interior through a subview (rows 16 elements
// into rows of 48: aligned); the copy kernel and the output's buffer go.
// The fill writes the border alone, in three views a plane: rows 0 and
// 1's left border (64 elements), each interior row's right border with the
// next row's left one (none right here: 16 elements at rows 2-4), and the
// rest after the last interior row (row 5).
// CHECK-LABEL: func.func private @producer(
// CHECK-SAME: %{{.*}}: memref<1x2x4x32xf32, strided<[576, 288, 48, 1], offset: 64>>)
// CHECK-LABEL: func.func private @fill_border(
// CHECK-SAME: %[[A:.*]]: memref<2x64xf32, strided<[288, 1]>>)
// CHECK: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} outs(%[[A]] :
// CHECK-LABEL: func.func private @fill_border_0(
// CHECK-SAME: memref<2x3x16xf32, strided<[288, 48, 1], offset: 96>>)
// CHECK-LABEL: func.func private @fill_border_1(
// CHECK-SAME: memref<2x48xf32, strided<[288, 1], offset: 240>>)
// CHECK-NOT: func.func private @fill(
// CHECK-NOT: func.func private @copy(
// CHECK-LABEL: func.func @main(
// CHECK: %[[P:.*]] = memref.alloc() : memref<1x2x6x48xf32>
// CHECK-NEXT: %[[B0:.*]] = memref.reinterpret_cast %[[P]] to offset: [0], sizes: [2, 64], strides: [288, 1]
// CHECK-NEXT: call @fill_border(%[[B0]])
// CHECK-NEXT: %[[B1:.*]] = memref.reinterpret_cast %[[P]] to offset: [96], sizes: [2, 3, 16], strides: [288, 48, 1]
// CHECK-NEXT: call @fill_border_0(%[[B1]])
// CHECK-NEXT: %[[B2:.*]] = memref.reinterpret_cast %[[P]] to offset: [240], sizes: [2, 48], strides: [288, 1]
// CHECK-NEXT: call @fill_border_1(%[[B2]])
// CHECK-NEXT: %[[I:.*]] = memref.subview %[[P]][0, 0, 1, 16] [1, 2, 4, 32] [1, 1, 1, 1]
// CHECK-NEXT: call @producer(%arg0, %[[I]])
// CHECK-NOT: call @copy
// CHECK: call @consumer(%[[P]], %arg1)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#shift = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 16)>
module {
  func.func private @producer(%x: memref<1x2x4x32xf32>, %y: memref<1x2x4x32xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x32xf32>) outs(%y : memref<1x2x4x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func private @fill(%p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    return
  }
  func.func private @copy(%a: memref<1x2x4x32xf32>, %p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #shift], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x4x32xf32>) outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @consumer(%p: memref<1x2x6x48xf32>, %z: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x2x6x48xf32>) outs(%z : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func @main(%x: memref<1x2x4x32xf32>, %z: memref<1x2x6x48xf32>) {
    %a = memref.alloc() : memref<1x2x4x32xf32>
    call @producer(%x, %a) : (memref<1x2x4x32xf32>, memref<1x2x4x32xf32>) -> ()
    %p = memref.alloc() : memref<1x2x6x48xf32>
    call @fill(%p) : (memref<1x2x6x48xf32>) -> ()
    call @copy(%a, %p) : (memref<1x2x4x32xf32>, memref<1x2x6x48xf32>) -> ()
    call @consumer(%p, %z) : (memref<1x2x6x48xf32>, memref<1x2x6x48xf32>) -> ()
    return
  }
}

// -----

// Rows shorter than a tile stay: the producer runs its plane as one row.
// CHECK-LABEL: func.func @main_short(
// CHECK-NOT: memref.subview
// CHECK: call @copy_short
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#shift = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 8)>
module {
  func.func private @producer_short(%x: memref<1x2x4x8xf32>, %y: memref<1x2x4x8xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x8xf32>) outs(%y : memref<1x2x4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func private @fill_short(%p: memref<1x2x6x24xf32>) attributes {dlc.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<1x2x6x24xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    return
  }
  func.func private @copy_short(%a: memref<1x2x4x8xf32>, %p: memref<1x2x6x24xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #shift], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x4x8xf32>) outs(%p : memref<1x2x6x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @consumer_short(%p: memref<1x2x6x24xf32>, %z: memref<1x2x6x24xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x2x6x24xf32>) outs(%z : memref<1x2x6x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func @main_short(%x: memref<1x2x4x8xf32>, %z: memref<1x2x6x24xf32>) {
    %a = memref.alloc() : memref<1x2x4x8xf32>
    call @producer_short(%x, %a) : (memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) -> ()
    %p = memref.alloc() : memref<1x2x6x24xf32>
    call @fill_short(%p) : (memref<1x2x6x24xf32>) -> ()
    call @copy_short(%a, %p) : (memref<1x2x4x8xf32>, memref<1x2x6x24xf32>) -> ()
    call @consumer_short(%p, %z) : (memref<1x2x6x24xf32>, memref<1x2x6x24xf32>) -> ()
    return
  }
}

// -----

// Another kernel reads the producer's output: the copy stays.
// CHECK-LABEL: func.func @main_shared(
// CHECK-NOT: memref.subview
// CHECK: call @copy_shared
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#shift = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 16)>
module {
  func.func private @producer_shared(%x: memref<1x2x4x32xf32>, %y: memref<1x2x4x32xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x32xf32>) outs(%y : memref<1x2x4x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func private @fill_shared(%p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    return
  }
  func.func private @copy_shared(%a: memref<1x2x4x32xf32>, %p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #shift], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x4x32xf32>) outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @consumer_shared(%p: memref<1x2x6x48xf32>, %z: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x2x6x48xf32>) outs(%z : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @reader_shared(%a: memref<1x2x4x32xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%a : memref<1x2x4x32xf32>) {
    ^bb0(%out: f32):
      %0 = arith.addf %out, %out : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func @main_shared(%x: memref<1x2x4x32xf32>, %z: memref<1x2x6x48xf32>) {
    %a = memref.alloc() : memref<1x2x4x32xf32>
    call @producer_shared(%x, %a) : (memref<1x2x4x32xf32>, memref<1x2x4x32xf32>) -> ()
    %p = memref.alloc() : memref<1x2x6x48xf32>
    call @fill_shared(%p) : (memref<1x2x6x48xf32>) -> ()
    call @copy_shared(%a, %p) : (memref<1x2x4x32xf32>, memref<1x2x6x48xf32>) -> ()
    call @reader_shared(%a) : (memref<1x2x4x32xf32>) -> ()
    call @consumer_shared(%p, %z) : (memref<1x2x6x48xf32>, memref<1x2x6x48xf32>) -> ()
    return
  }
}

// -----

// The producer reaches its output through a load besides its structured
// op: its type stays.
// CHECK-LABEL: func.func @main_load(
// CHECK-NOT: memref.subview
// CHECK: call @copy_load
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#shift = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 16)>
module {
  func.func private @producer_load(%x: memref<1x2x4x32xf32>, %y: memref<1x2x4x32xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x32xf32>) outs(%y : memref<1x2x4x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    %c0 = arith.constant 0 : index
    %v = memref.load %y[%c0, %c0, %c0, %c0] : memref<1x2x4x32xf32>
    memref.store %v, %x[%c0, %c0, %c0, %c0] : memref<1x2x4x32xf32>
    return
  }
  func.func private @fill_load(%p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    return
  }
  func.func private @copy_load(%a: memref<1x2x4x32xf32>, %p: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #shift], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x4x32xf32>) outs(%p : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @consumer_load(%p: memref<1x2x6x48xf32>, %z: memref<1x2x6x48xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x2x6x48xf32>) outs(%z : memref<1x2x6x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func @main_load(%x: memref<1x2x4x32xf32>, %z: memref<1x2x6x48xf32>) {
    %a = memref.alloc() : memref<1x2x4x32xf32>
    call @producer_load(%x, %a) : (memref<1x2x4x32xf32>, memref<1x2x4x32xf32>) -> ()
    %p = memref.alloc() : memref<1x2x6x48xf32>
    call @fill_load(%p) : (memref<1x2x6x48xf32>) -> ()
    call @copy_load(%a, %p) : (memref<1x2x4x32xf32>, memref<1x2x6x48xf32>) -> ()
    call @consumer_load(%p, %z) : (memref<1x2x6x48xf32>, memref<1x2x6x48xf32>) -> ()
    return
  }
}

// -----

// The fill and copy kernels also pad a function argument, which stays
// copied: they stay for that call; the folded buffer's border views (a
// right border of 16 and the next row's left one: 32-element spans) call
// copies of the fill.
// CHECK-LABEL: func.func private @fill_two_border(
// CHECK-SAME: memref<2x80xf32, strided<[384, 1]>>)
// CHECK-LABEL: func.func private @fill_two_border_0(
// CHECK-SAME: memref<2x3x32xf32, strided<[384, 64, 1], offset: 112>>)
// CHECK-LABEL: func.func private @fill_two_border_1(
// CHECK-SAME: memref<2x80xf32, strided<[384, 1], offset: 304>>)
// CHECK-LABEL: func.func private @fill_two(
// CHECK-LABEL: func.func @main_two(
// CHECK: call @fill_two_border(
// CHECK-NEXT: memref.reinterpret_cast
// CHECK-NEXT: call @fill_two_border_0(
// CHECK-NEXT: memref.reinterpret_cast
// CHECK-NEXT: call @fill_two_border_1(
// CHECK-NEXT: memref.subview
// CHECK-NEXT: call @producer_two(
// CHECK: %[[Q:.*]] = memref.alloc() : memref<1x2x6x64xf32>
// CHECK-NEXT: call @fill_two(%[[Q]])
// CHECK-NEXT: call @copy_two(%arg1, %[[Q]])
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#shift = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 16)>
module {
  func.func private @producer_two(%x: memref<1x2x4x32xf32>, %y: memref<1x2x4x32xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x32xf32>) outs(%y : memref<1x2x4x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func private @fill_two(%p: memref<1x2x6x64xf32>) attributes {dlc.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%p : memref<1x2x6x64xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    return
  }
  func.func private @copy_two(%a: memref<1x2x4x32xf32>, %p: memref<1x2x6x64xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #shift], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x2x4x32xf32>) outs(%p : memref<1x2x6x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func private @consumer_two(%p: memref<1x2x6x64xf32>, %q: memref<1x2x6x64xf32>, %z: memref<1x2x6x64xf32>) attributes {dlc.kernel} {
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %q : memref<1x2x6x64xf32>, memref<1x2x6x64xf32>) outs(%z : memref<1x2x6x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %0 = arith.addf %in, %in2 : f32
      linalg.yield %0 : f32
    }
    return
  }
  func.func @main_two(%x: memref<1x2x4x32xf32>, %w: memref<1x2x4x32xf32>, %z: memref<1x2x6x64xf32>) {
    %a = memref.alloc() : memref<1x2x4x32xf32>
    call @producer_two(%x, %a) : (memref<1x2x4x32xf32>, memref<1x2x4x32xf32>) -> ()
    %p = memref.alloc() : memref<1x2x6x64xf32>
    call @fill_two(%p) : (memref<1x2x6x64xf32>) -> ()
    call @copy_two(%a, %p) : (memref<1x2x4x32xf32>, memref<1x2x6x64xf32>) -> ()
    %q = memref.alloc() : memref<1x2x6x64xf32>
    call @fill_two(%q) : (memref<1x2x6x64xf32>) -> ()
    call @copy_two(%w, %q) : (memref<1x2x4x32xf32>, memref<1x2x6x64xf32>) -> ()
    call @consumer_two(%p, %q, %z) : (memref<1x2x6x64xf32>, memref<1x2x6x64xf32>, memref<1x2x6x64xf32>) -> ()
    return
  }
}
