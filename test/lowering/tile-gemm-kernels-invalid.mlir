// RUN: dlc-opt %s --verify-diagnostics --dlc-tile-gemm-kernels="tile=100x100"

// expected-error @below {{dlc-tile-gemm-kernels: unknown tile '100x100' (expected BMxBN of a tensor-core tile shape, e.g. 128x256)}}
module {
}
