// RUN: dlc-opt %s --split-input-file --dlc-expand-math | FileCheck %s

// rsqrt becomes 1 / sqrt for the host's libm lowering.
// CHECK-LABEL: func.func @rsqrt(
// CHECK: %[[S:.*]] = math.sqrt %arg0 : f32
// CHECK: arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NOT: math.rsqrt
func.func @rsqrt(%x: f32) -> f32 {
  %r = math.rsqrt %x : f32
  return %r : f32
}

// -----

// erf becomes MLIR's polynomial: no libm call, and its fmas products and
// sums LLVM may contract (no fmaf call an element without FMA hardware).
// CHECK-LABEL: func.func @erf(
// CHECK-NOT: math.erf
// CHECK-NOT: math.fma
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: return
func.func @erf(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.erf %x : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// An fma dlc writes itself (QuantizeLinear's exact quotient) stays fused.
// CHECK-LABEL: func.func @exact_fma(
// CHECK: %[[R:.*]] = math.fma %arg0, %arg1, %arg2 : f32
// CHECK-NOT: dlc.exact_fma
// CHECK: return %[[R]]
func.func @exact_fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %r = math.fma %a, %b, %c : f32
  return %r : f32
}
