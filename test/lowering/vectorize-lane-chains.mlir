// RUN: dlc-opt %s --split-input-file --dlc-vectorize-lane-chains | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-vectorize-lane-chains="pack-bytes=true" | FileCheck %s --check-prefix=PACK

// A max pool tap over 4 bytes: each lane's select and max into its private
// accumulator element become one vector select (the condition stays
// scalar) and one vector max between a vector load and a vector store of
// the accumulator.
// CHECK-LABEL: func.func @max_pool_tap(
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<8x16xi8>, vector<4xi8>
// CHECK: %[[ACC:.*]] = vector.load %[[A:.*]][%c0] : memref<4xi8>, vector<4xi8>
// CHECK: %[[ZERO:.*]] = vector.broadcast %c0_i8 : i8 to vector<4xi8>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[V]], %[[ZERO]] : vector<4xi8>
// CHECK: %[[MAX:.*]] = arith.maxui %[[ACC]], %[[SEL]] : vector<4xi8>
// CHECK: vector.store %[[MAX]], %[[A]][%c0] : memref<4xi8>, vector<4xi8>
// CHECK-NOT: memref.store
// CHECK: return
// With pack-bytes the bytes' maximum is two of 16-bit lanes: even bytes
// (& 0x00ff00ff), odd bytes (>> 8, masked), maxima of vector<2xi16>, put
// back together.
// PACK-LABEL: func.func @max_pool_tap(
// PACK: %[[ACC:.*]] = vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// PACK: %[[SEL:.*]] = vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// PACK-DAG: %[[MASK:.*]] = arith.constant dense<16711935> : vector<1xi32>
// PACK-DAG: %[[EIGHT:.*]] = arith.constant dense<8> : vector<1xi32>
// PACK: %[[AE:.*]] = arith.andi %[[ACC]], %[[MASK]] : vector<1xi32>
// PACK: %[[AE16:.*]] = vector.bitcast %[[AE]] : vector<1xi32> to vector<2xi16>
// PACK: %[[SE:.*]] = arith.andi %[[SEL]], %[[MASK]] : vector<1xi32>
// PACK: %[[SE16:.*]] = vector.bitcast %[[SE]] : vector<1xi32> to vector<2xi16>
// PACK: %[[ME:.*]] = arith.maxui %[[AE16]], %[[SE16]] : vector<2xi16>
// PACK: %[[EVEN:.*]] = vector.bitcast %[[ME]] : vector<2xi16> to vector<1xi32>
// PACK: %[[AO:.*]] = arith.shrui %[[ACC]], %[[EIGHT]] : vector<1xi32>
// PACK: arith.andi %[[AO]], %[[MASK]] : vector<1xi32>
// PACK: %[[SO:.*]] = arith.shrui %[[SEL]], %[[EIGHT]] : vector<1xi32>
// PACK: arith.andi %[[SO]], %[[MASK]] : vector<1xi32>
// PACK: %[[MO:.*]] = arith.maxui %{{.*}}, %{{.*}} : vector<2xi16>
// PACK: %[[MO32:.*]] = vector.bitcast %[[MO]] : vector<2xi16> to vector<1xi32>
// PACK: %[[ODD:.*]] = arith.shli %[[MO32]], %[[EIGHT]] : vector<1xi32>
// PACK: %[[R:.*]] = arith.ori %[[EVEN]], %[[ODD]] : vector<1xi32>
// PACK: %[[R8:.*]] = vector.bitcast %[[R]] : vector<1xi32> to vector<4xi8>
// PACK: vector.store %[[R8]]
// PACK-NOT: arith.maxui %{{.*}} : vector<4xi8>
// PACK: return
func.func @max_pool_tap(%in: memref<8x16xi8>, %row: index, %inside: i1) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c0_i8 = arith.constant 0 : i8
  %acc = memref.alloca() : memref<4xi8>
  %v = vector.load %in[%row, %c0] : memref<8x16xi8>, vector<4xi8>
  %x0 = vector.extract %v[0] : i8 from vector<4xi8>
  %x1 = vector.extract %v[1] : i8 from vector<4xi8>
  %x2 = vector.extract %v[2] : i8 from vector<4xi8>
  %x3 = vector.extract %v[3] : i8 from vector<4xi8>
  %a0 = memref.load %acc[%c0] : memref<4xi8>
  %s0 = arith.select %inside, %x0, %c0_i8 : i8
  %m0 = arith.maxui %a0, %s0 : i8
  memref.store %m0, %acc[%c0] : memref<4xi8>
  %a1 = memref.load %acc[%c1] : memref<4xi8>
  %s1 = arith.select %inside, %x1, %c0_i8 : i8
  %m1 = arith.maxui %a1, %s1 : i8
  memref.store %m1, %acc[%c1] : memref<4xi8>
  %a2 = memref.load %acc[%c2] : memref<4xi8>
  %s2 = arith.select %inside, %x2, %c0_i8 : i8
  %m2 = arith.maxui %a2, %s2 : i8
  memref.store %m2, %acc[%c2] : memref<4xi8>
  %a3 = memref.load %acc[%c3] : memref<4xi8>
  %s3 = arith.select %inside, %x3, %c0_i8 : i8
  %m3 = arith.maxui %a3, %s3 : i8
  memref.store %m3, %acc[%c3] : memref<4xi8>
  return
}

// -----

// Signed bytes: biased by 0x80 (xor 0x80808080) before and after, which
// keeps their order in unsigned 16-bit lanes.
// PACK-LABEL: func.func @signed_max(
// PACK: %[[BIAS:.*]] = arith.constant dense<-2139062144> : vector<1xi32>
// PACK: arith.xori %{{.*}}, %[[BIAS]] : vector<1xi32>
// PACK: arith.maxui %{{.*}} : vector<2xi16>
// PACK: arith.xori %{{.*}}, %[[BIAS]] : vector<1xi32>
// PACK-NOT: arith.maxsi
// PACK: return
func.func @signed_max(%in: memref<16xi8>, %out: memref<16xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c5_i8 = arith.constant 5 : i8
  %v = vector.load %in[%c0] : memref<16xi8>, vector<4xi8>
  %x0 = vector.extract %v[0] : i8 from vector<4xi8>
  %x1 = vector.extract %v[1] : i8 from vector<4xi8>
  %x2 = vector.extract %v[2] : i8 from vector<4xi8>
  %x3 = vector.extract %v[3] : i8 from vector<4xi8>
  %m0 = arith.maxsi %x0, %c5_i8 : i8
  %m1 = arith.maxsi %x1, %c5_i8 : i8
  %m2 = arith.maxsi %x2, %c5_i8 : i8
  %m3 = arith.maxsi %x3, %c5_i8 : i8
  %r = vector.from_elements %m0, %m1, %m2, %m3 : vector<4xi8>
  vector.store %r, %out[%c8] : memref<16xi8>, vector<4xi8>
  return
}

// -----

// f16 lanes from a vector load to a vector store: one vector multiply by
// the broadcast scale and one vector add.
// CHECK-LABEL: func.func @scale_shift_f16(
// CHECK: %[[V:.*]] = vector.load
// CHECK: %[[S:.*]] = vector.broadcast %{{.*}} : f16 to vector<2xf16>
// CHECK: %[[M:.*]] = arith.mulf %[[V]], %[[S]] : vector<2xf16>
// CHECK: %[[B:.*]] = vector.broadcast %{{.*}} : f16 to vector<2xf16>
// CHECK: %[[A:.*]] = arith.addf %[[M]], %[[B]] : vector<2xf16>
// CHECK: vector.store %[[A]]
// CHECK-NOT: vector.from_elements
func.func @scale_shift_f16(%in: memref<8xf16>, %out: memref<8xf16>, %s: f16, %b: f16) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %v = vector.load %in[%c0] : memref<8xf16>, vector<2xf16>
  %x0 = vector.extract %v[0] : f16 from vector<2xf16>
  %x1 = vector.extract %v[1] : f16 from vector<2xf16>
  %m0 = arith.mulf %x0, %s : f16
  %m1 = arith.mulf %x1, %s : f16
  %a0 = arith.addf %m0, %b : f16
  %a1 = arith.addf %m1, %b : f16
  %r = vector.from_elements %a0, %a1 : vector<2xf16>
  vector.store %r, %out[%c0] : memref<8xf16>, vector<2xf16>
  return
}

// -----

// Not one chain: the lanes compute different things, f32 lanes (no packed
// f32 ops), a lane's value used twice, and an accumulator another op
// reads between the chain's ops. All stay scalar.
// CHECK-LABEL: func.func @different_ops(
// CHECK: arith.mulf %{{.*}} : f16
// CHECK: arith.addf %{{.*}} : f16
// CHECK: vector.from_elements
func.func @different_ops(%in: memref<8xf16>, %out: memref<8xf16>, %s: f16) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %v = vector.load %in[%c0] : memref<8xf16>, vector<2xf16>
  %x0 = vector.extract %v[0] : f16 from vector<2xf16>
  %x1 = vector.extract %v[1] : f16 from vector<2xf16>
  %m0 = arith.mulf %x0, %s : f16
  %m1 = arith.addf %x1, %s : f16
  %r = vector.from_elements %m0, %m1 : vector<2xf16>
  vector.store %r, %out[%c0] : memref<8xf16>, vector<2xf16>
  return
}

// CHECK-LABEL: func.func @f32_lanes(
// CHECK-COUNT-2: arith.mulf %{{.*}} : f32
// CHECK: vector.from_elements
func.func @f32_lanes(%in: memref<8xf32>, %out: memref<8xf32>, %s: f32) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %v = vector.load %in[%c0] : memref<8xf32>, vector<2xf32>
  %x0 = vector.extract %v[0] : f32 from vector<2xf32>
  %x1 = vector.extract %v[1] : f32 from vector<2xf32>
  %m0 = arith.mulf %x0, %s : f32
  %m1 = arith.mulf %x1, %s : f32
  %r = vector.from_elements %m0, %m1 : vector<2xf32>
  vector.store %r, %out[%c0] : memref<8xf32>, vector<2xf32>
  return
}

// CHECK-LABEL: func.func @used_twice(
// CHECK-COUNT-2: arith.mulf %{{.*}} : f16
// CHECK: vector.from_elements
func.func @used_twice(%in: memref<8xf16>, %out: memref<8xf16>, %other: memref<1xf16>, %s: f16) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %v = vector.load %in[%c0] : memref<8xf16>, vector<2xf16>
  %x0 = vector.extract %v[0] : f16 from vector<2xf16>
  %x1 = vector.extract %v[1] : f16 from vector<2xf16>
  %m0 = arith.mulf %x0, %s : f16
  %m1 = arith.mulf %x1, %s : f16
  memref.store %m0, %other[%c0] : memref<1xf16>
  %r = vector.from_elements %m0, %m1 : vector<2xf16>
  vector.store %r, %out[%c0] : memref<8xf16>, vector<2xf16>
  return
}

// CHECK-LABEL: func.func @accumulator_read_between(
// CHECK-COUNT-2: arith.maxui %{{.*}} : i8
// CHECK-NOT: vector.store
func.func @accumulator_read_between(%in: memref<16xi8>, %peek: memref<1xi8>) attributes {dlc.kernel, dlc.distinct_args} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloca() : memref<2xi8>
  %v = vector.load %in[%c0] : memref<16xi8>, vector<2xi8>
  %x0 = vector.extract %v[0] : i8 from vector<2xi8>
  %x1 = vector.extract %v[1] : i8 from vector<2xi8>
  %a0 = memref.load %acc[%c0] : memref<2xi8>
  %m0 = arith.maxui %a0, %x0 : i8
  memref.store %m0, %acc[%c0] : memref<2xi8>
  %p = memref.load %acc[%c0] : memref<2xi8>
  memref.store %p, %peek[%c0] : memref<1xi8>
  %a1 = memref.load %acc[%c1] : memref<2xi8>
  %m1 = arith.maxui %a1, %x1 : i8
  memref.store %m1, %acc[%c1] : memref<2xi8>
  return
}
