// RUN: dlc-opt %s --split-input-file --dlc-infer-alignment | FileCheck %s

// An f16 pair at an even index of a 16-byte aligned argument: 4 bytes; a
// 16-byte vector at a multiple of 8 halves: 16; the same at an index of
// unknown parity keeps its element's 2. A store already aligned more keeps
// that.
// CHECK-LABEL: llvm.func @argument
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<8xf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<2xf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf16>
llvm.func @argument(%p: !llvm.ptr {llvm.align = 16 : i64}, %k: i64, %u: i64, %v: vector<2xf16>) {
  %c2 = llvm.mlir.constant(2 : i64) : i64
  %c3 = llvm.mlir.constant(3 : i64) : i64
  %even = llvm.mul %k, %c2 : i64
  %a = llvm.getelementptr %p[%even] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  llvm.store %v, %a {alignment = 2 : i64} : vector<2xf16>, !llvm.ptr
  %eight = llvm.shl %k, %c3 : i64
  %b = llvm.getelementptr %p[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  %w = llvm.load %b {alignment = 2 : i64} : !llvm.ptr -> vector<8xf16>
  %c = llvm.getelementptr %p[%u] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  llvm.store %v, %c {alignment = 2 : i64} : vector<2xf16>, !llvm.ptr
  llvm.store %v, %a {alignment = 8 : i64} : vector<2xf16>, !llvm.ptr
  llvm.return
}

// -----

// Through a memref descriptor (the aligned pointer, field 1), an index
// that is a sum of even terms (or, add, and of a mask, a sign extension of
// an i32 product) and a chain of two GEPs; an argument without llvm.align
// proves nothing.
// CHECK-LABEL: llvm.func @descriptor
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<2xf16>
llvm.func @descriptor(%p: !llvm.ptr {llvm.align = 16 : i64}, %q: !llvm.ptr, %i: i64, %j: i32, %v: vector<2xf16>) {
  %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64)>
  %d0 = llvm.insertvalue %p, %u[0] : !llvm.struct<(ptr, ptr, i64)>
  %d1 = llvm.insertvalue %p, %d0[1] : !llvm.struct<(ptr, ptr, i64)>
  %base = llvm.extractvalue %d1[1] : !llvm.struct<(ptr, ptr, i64)>
  %c6 = llvm.mlir.constant(6 : i64) : i64
  %c56 = llvm.mlir.constant(56 : i32) : i32
  %m = llvm.and %i, %c6 : i64
  %n = llvm.mul %j, %c56 : i32
  %nw = llvm.sext %n : i32 to i64
  %s = llvm.or %m, %nw : i64
  %g0 = llvm.getelementptr %base[%s] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  %g1 = llvm.getelementptr %g0[%nw] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  llvm.store %v, %g1 {alignment = 2 : i64} : vector<2xf16>, !llvm.ptr
  %h = llvm.getelementptr %q[%s] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  llvm.store %v, %h {alignment = 2 : i64} : vector<2xf16>, !llvm.ptr
  llvm.return
}

// -----

// Shared memory: a 16-byte aligned global at a constant offset of 8
// bytes.
// CHECK-LABEL: llvm.func @shared
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf32>
llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
llvm.func @shared() -> vector<4xf32> {
  %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
  %g = llvm.getelementptr %s[2] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
  %x = llvm.load %g {alignment = 4 : i64} : !llvm.ptr<3> -> vector<4xf32>
  llvm.return %x : vector<4xf32>
}
