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
