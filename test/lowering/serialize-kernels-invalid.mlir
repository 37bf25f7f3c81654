// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-serialize-kernels

module attributes {gpu.container_module} {
  // expected-error @+1 {{needs exactly one #nvvm.target to serialize}}
  gpu.module @a {
    llvm.func @ka() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_80">] {
    llvm.func @ka() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  // expected-error @+1 {{has another #nvvm.target than gpu.module @a: one PTX module cannot hold both}}
  gpu.module @b [#nvvm.target<chip = "sm_90">] {
    llvm.func @kb() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// expected-error @+1 {{two PTX modules define the kernel k}}
module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_80">] {
    llvm.func @k(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @b [#nvvm.target<chip = "sm_80">] {
    llvm.func @k(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(2.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
