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

// erf becomes x P(x^2) / Q(x^2) on x clamped to [-4, 4] by compares that
// keep a NaN: no libm call, no selects of coefficients, and products and
// sums LLVM may contract (no fmaf call an element without FMA hardware).
// CHECK-LABEL: func.func @erf(
// CHECK-NOT: math.erf
// CHECK: %[[HI:.*]] = arith.cmpf ogt, %arg0, %{{.*}} : vector<16xf32>
// CHECK: %[[X1:.*]] = arith.select %[[HI]], %{{.*}}, %arg0
// CHECK: %[[LO:.*]] = arith.cmpf olt, %[[X1]], %{{.*}} : vector<16xf32>
// CHECK: %[[X:.*]] = arith.select %[[LO]], %{{.*}}, %[[X1]]
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] fastmath<contract> : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK-NOT: arith.select
// CHECK: arith.mulf %[[X2]], %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %{{.*}} fastmath<contract>
// CHECK: %[[R:.*]] = arith.divf %[[P]], %{{.*}} : vector<16xf32>
// CHECK: return %[[R]]
func.func @erf(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.erf %x : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// A scalar erf too.
// CHECK-LABEL: func.func @erf_scalar(
// CHECK-NOT: math.erf
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
func.func @erf_scalar(%x: f32) -> f32 {
  %r = math.erf %x : f32
  return %r : f32
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

// -----

// exp on f32 becomes MLIR's Cephes approximation (range reduction, a
// polynomial, the exponent's bits), which LLVM vectorizes: llvm.exp was a
// call of expf an element, vectors too. Its fmas may contract.
// CHECK-LABEL: func.func @exp(
// CHECK-NOT: math.exp
// CHECK-NOT: math.fma
// CHECK: math.floor {{.*}} : vector<16xf32>
// CHECK: arith.shli {{.*}} : vector<16xi32>
// CHECK: return
func.func @exp(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.exp %x : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// arith-expand's ceil/floor divisions become plain integer arithmetic, but
// minimumf and maximumf stay (llvm.minimum/maximum, whose reductions LLVM
// vectorizes; as cmpf + select they ran scalar).
// CHECK-LABEL: func.func @arith(
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK: %[[MIN:.*]] = arith.minimumf %arg2, %arg3 : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %arg2, %arg3 : f32
// CHECK-NOT: arith.cmpf
// CHECK: return {{.*}}, {{.*}}, %[[MIN]], %[[MAX]]
func.func @arith(%a: i32, %b: i32, %x: f32, %y: f32) -> (i32, i32, f32, f32) {
  %c = arith.ceildivsi %a, %b : i32
  %f = arith.floordivsi %a, %b : i32
  %mn = arith.minimumf %x, %y : f32
  %mx = arith.maximumf %x, %y : f32
  return %c, %f, %mn, %mx : i32, i32, f32, f32
}
