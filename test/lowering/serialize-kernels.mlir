// RUN: dlc-opt %s --split-input-file --dlc-serialize-kernels | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-serialize-kernels --mlir-disable-threading | FileCheck %s

// Three kernels, one gpu.module each, linked into one PTX module: one set of
// header directives; @b's table differs from @a's and is renamed in @b, @c's
// is identical to @a's and shared.
// CHECK-NOT: gpu.module
// CHECK-LABEL: gpu.binary @dlc_kernels
// CHECK-SAME: assembly = ".version 7.0\0A.target sm_80\0A.address_size 64\0A
// CHECK-NOT: .version
// CHECK-SAME: .global .align 4 .b8 tab[8] = {0, 0, 128, 63, 0, 0, 0, 64};
// CHECK-SAME: .visible .entry ka(
// CHECK-SAME: , tab;
// CHECK-SAME: .global .align 4 .b8 tab_1[8] = {0, 0, 64, 64, 0, 0, 128, 64};
// CHECK-SAME: .visible .entry kb(
// CHECK-SAME: , tab_1;
// CHECK-NOT: .global .align
// CHECK-SAME: .visible .entry kc(
// CHECK-SAME: , tab;
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_80">] {
    llvm.mlir.global internal @tab(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
    llvm.func @ka(%p: !llvm.ptr, %i: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @tab : !llvm.ptr<1>
      %g = llvm.getelementptr %0[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %1 = llvm.load %g : !llvm.ptr<1> -> f32
      llvm.store %1, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @b [#nvvm.target<chip = "sm_80">] {
    llvm.mlir.global internal @tab(dense<[3.0, 4.0]> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
    llvm.func @kb(%p: !llvm.ptr, %i: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @tab : !llvm.ptr<1>
      %g = llvm.getelementptr %0[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %1 = llvm.load %g : !llvm.ptr<1> -> f32
      llvm.store %1, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @c [#nvvm.target<chip = "sm_80">] {
    llvm.mlir.global internal @tab(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
    llvm.func @kc(%p: !llvm.ptr, %i: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @tab : !llvm.ptr<1>
      %g = llvm.getelementptr %0[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %1 = llvm.load %g : !llvm.ptr<1> -> f32
      llvm.store %1, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
