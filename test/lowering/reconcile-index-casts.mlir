// RUN: dlc-opt %s --split-input-file --dlc-reconcile-index-casts | FileCheck %s

// An index lowered to i32 by the gpu lowering and taken as i64 by the
// nvgpu lowering: sign-extended; the other way, truncated.
// CHECK-LABEL: llvm.func @scalars
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i64)
// CHECK: %[[W:.*]] = llvm.sext %[[X]] : i32 to i64
// CHECK: %[[N:.*]] = llvm.trunc %[[Y]] : i64 to i32
// CHECK: llvm.insertvalue %[[W]]
// CHECK: llvm.insertvalue %[[N]]
// CHECK-NOT: unrealized_conversion_cast
llvm.func @scalars(%x: i32, %y: i64) -> !llvm.struct<(i64, i32)> {
  %a = builtin.unrealized_conversion_cast %x : i32 to index
  %b = builtin.unrealized_conversion_cast %a : index to i64
  %c = builtin.unrealized_conversion_cast %y : i64 to index
  %d = builtin.unrealized_conversion_cast %c : index to i32
  %u = llvm.mlir.undef : !llvm.struct<(i64, i32)>
  %r0 = llvm.insertvalue %b, %u[0] : !llvm.struct<(i64, i32)>
  %r1 = llvm.insertvalue %d, %r0[1] : !llvm.struct<(i64, i32)>
  llvm.return %r1 : !llvm.struct<(i64, i32)>
}

// -----

// A memref descriptor of 32-bit offset, sizes and strides read as one of
// 64-bit: the pointers kept, every integer field sign-extended.
// CHECK-LABEL: llvm.func @descriptor
// CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[P0:.*]] = llvm.extractvalue %[[D:.*]][0] : !llvm.struct<(ptr, ptr, i32, array<2 x i32>, array<2 x i32>)>
// CHECK: llvm.insertvalue %[[P0]], %[[U]][0]
// CHECK: %[[O:.*]] = llvm.extractvalue %[[D]][2]
// CHECK: %[[OW:.*]] = llvm.sext %[[O]] : i32 to i64
// CHECK: llvm.insertvalue %[[OW]], %{{.*}}[2]
// CHECK: %[[S:.*]] = llvm.extractvalue %[[D]][3, 1]
// CHECK: llvm.sext %[[S]] : i32 to i64
// CHECK-COUNT-2: llvm.sext
// CHECK-NOT: unrealized_conversion_cast
llvm.func @descriptor(%d: !llvm.struct<(ptr, ptr, i32, array<2 x i32>, array<2 x i32>)>) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> {
  %m = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i32, array<2 x i32>, array<2 x i32>)> to memref<4x8xf16>
  %w = builtin.unrealized_conversion_cast %m : memref<4x8xf16> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  llvm.return %w : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
}

// -----

// A global pointer taken as a 32-bit index and widened back to i64 (a TMA
// tensor map's address) is the whole pointer: the 32-bit index had lost
// its upper half (every TMA kernel faulted at --kernel-index-bits=32). A
// shared-memory pointer (address space 3) fits in 32 bits and keeps the
// cast.
// CHECK-LABEL: llvm.func @pointers
// CHECK-SAME: (%[[G:.*]]: !llvm.ptr, %[[S:.*]]: !llvm.ptr<3>)
// CHECK: %[[GW:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr to i64
// CHECK: %[[GS:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr to i64
// CHECK: %[[S32:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
// CHECK: %[[SW:.*]] = llvm.zext %[[S32]] : i32 to i64
// CHECK: llvm.insertvalue %[[GW]]
// CHECK: llvm.insertvalue %[[GS]]
// CHECK: llvm.insertvalue %[[SW]]
llvm.func @pointers(%g: !llvm.ptr, %s: !llvm.ptr<3>) -> !llvm.struct<(i64, i64, i64)> {
  %g32 = llvm.ptrtoint %g : !llvm.ptr to i32
  %gw = llvm.zext %g32 : i32 to i64
  %gs = llvm.sext %g32 : i32 to i64
  %s32 = llvm.ptrtoint %s : !llvm.ptr<3> to i32
  %sw = llvm.zext %s32 : i32 to i64
  %u = llvm.mlir.undef : !llvm.struct<(i64, i64, i64)>
  %r0 = llvm.insertvalue %gw, %u[0] : !llvm.struct<(i64, i64, i64)>
  %r1 = llvm.insertvalue %gs, %r0[1] : !llvm.struct<(i64, i64, i64)>
  %r2 = llvm.insertvalue %sw, %r1[2] : !llvm.struct<(i64, i64, i64)>
  llvm.return %r2 : !llvm.struct<(i64, i64, i64)>
}
