// RUN: dlc-opt %s --verify-diagnostics --dlc-tile-attention-kernels="precision=f8"

// expected-error @below {{dlc-tile-attention-kernels: precision must be f16 or bf16, got 'f8'}}
module {
}
