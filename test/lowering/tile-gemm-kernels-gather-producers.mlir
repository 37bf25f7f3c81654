// dlc-tile-gemm-kernels `gather-producer-warps`: 1, 2 or 4 producer warps
// gather a cp.async operand (0: the consumer warpgroups do); any other
// count is an error naming it. What the producers build is checked on
// whole convolutions: test/target/gather-producer-warps.onnxtxt (PTX,
// ptxas) and test_ops.py -k gather_producer (emulated numerics).
// RUN: dlc-opt %s --verify-diagnostics --dlc-tile-gemm-kernels="gather-producer-warps=3"

// expected-error @below {{dlc-tile-gemm-kernels: gather-producer-warps must be 0, 1, 2 or 4, not 3}}
module {
}
