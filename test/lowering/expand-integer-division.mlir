// RUN: dlc-opt %s --split-input-file --dlc-expand-integer-division | FileCheck %s

// Ceil and floor divisions become plain integer arithmetic.
// CHECK-LABEL: func @divisions
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.ceildivui
// CHECK-NOT: arith.floordivsi
// CHECK: arith.divsi
// CHECK: arith.divui
// CHECK: return
func.func @divisions(%a: i32, %b: i32) -> (i32, i32, i32) {
  %0 = arith.ceildivsi %a, %b : i32
  %1 = arith.ceildivui %a, %b : i32
  %2 = arith.floordivsi %a, %b : i32
  return %0, %1, %2 : i32, i32, i32
}

// -----

// Float max and min stay for the backend (max.NaN.f32 / min.f32 on sm_80+;
// arith-expand would make each a compare and a select).
// CHECK-LABEL: func @max_min
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %arg0, %arg1 : f32
// CHECK-NEXT: %[[B:.*]] = arith.minimumf %[[A]], %arg1 : f32
// CHECK-NEXT: %[[C:.*]] = arith.maxnumf %[[B]], %arg0 : f32
// CHECK-NEXT: %[[D:.*]] = arith.minnumf %[[C]], %arg0 : f32
// CHECK-NEXT: return %[[D]]
func.func @max_min(%x: f32, %y: f32) -> f32 {
  %0 = arith.maximumf %x, %y : f32
  %1 = arith.minimumf %0, %y : f32
  %2 = arith.maxnumf %1, %x : f32
  %3 = arith.minnumf %2, %x : f32
  return %3 : f32
}
