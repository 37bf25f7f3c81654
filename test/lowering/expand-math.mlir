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

// -----

// Against a constant that is not NaN (ReLU, Clip), maximumf and minimumf
// become compare and select: NaN still propagates, and x86 takes each as
// one vmaxps/vminps (llvm.maximum needs a NaN compare and a masked move).
// CHECK-LABEL: func.func @clamp_to_constant(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[SIXV:.*]] = arith.constant dense<6.000000e+00> : vector<16xf32>
// CHECK: %[[LT:.*]] = arith.cmpf olt, %arg0, %[[ZERO]] : vector<16xf32>
// CHECK: %[[RELU:.*]] = arith.select %[[LT]], %[[ZERO]], %arg0
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[RELU]], %[[SIXV]] : vector<16xf32>
// CHECK: %[[CLIP:.*]] = arith.select %[[GT]], %[[SIXV]], %[[RELU]]
// CHECK: %[[LT1:.*]] = arith.cmpf olt, %arg1, %[[SIX]] : f32
// CHECK: %[[S:.*]] = arith.select %[[LT1]], %[[SIX]], %arg1 : f32
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: return %[[CLIP]], %[[S]]
func.func @clamp_to_constant(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32) {
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %six = arith.constant 6.0 : f32
  %sixv = vector.broadcast %six : f32 to vector<16xf32>
  %relu = arith.maximumf %zero, %x : vector<16xf32>
  %clip = arith.minimumf %relu, %sixv : vector<16xf32>
  %s = arith.maximumf %y, %six : f32
  return %clip, %s : vector<16xf32>, f32
}

// -----

// A NaN constant keeps maximumf (x < NaN is false: the select would drop
// the NaN), and so do two constants (folded elsewhere) and two variables.
// CHECK-LABEL: func.func @clamp_kept(
// CHECK: arith.maximumf %arg0, %{{.*}} : f32
// CHECK: arith.minimumf %arg0, %arg1 : f32
// CHECK-NOT: arith.cmpf
func.func @clamp_kept(%x: f32, %y: f32) -> (f32, f32) {
  %nan = arith.constant 0x7FC00000 : f32
  %a = arith.maximumf %x, %nan : f32
  %b = arith.minimumf %x, %y : f32
  return %a, %b : f32, f32
}
