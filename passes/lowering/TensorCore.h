//===- TensorCore.h - shared pieces of the tensor-core kernels ----*- C++
//-*-===//
//
// What dlc-tile-gemm-kernels and dlc-tile-attention-kernels both build:
// index arithmetic that folds as it goes, the loops that stand for a CTA's
// threads in the host's emulation, and mma.sync as inline PTX.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_PASSES_LOWERING_TENSORCORE_H
#define DLC_PASSES_LOWERING_TENSORCORE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::dlc {

/// Index arithmetic that folds constants as it builds.
struct Idx {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : b.createOrFold<arith::MulIOp>(loc, x, c(y));
  }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : b.createOrFold<arith::DivUIOp>(loc, x, c(y));
  }
  Value rem(Value x, int64_t y) {
    return b.createOrFold<arith::RemUIOp>(loc, x, c(y));
  }
  Value xori(Value x, Value y) {
    return b.createOrFold<arith::XOrIOp>(loc, x, y);
  }
  Value minu(Value x, Value y) {
    return b.createOrFold<arith::MinUIOp>(loc, x, y);
  }
  Value lt(Value x, Value y) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x, y);
  }
  Value andi(Value x, Value y) {
    return b.createOrFold<arith::AndIOp>(loc, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return b.createOrFold<arith::SelectOp>(loc, c, x, y);
  }
};

/// `body(iv)` inside a new scf.for over [0, n) without loop-carried values.
void buildLoop(OpBuilder &b, Location loc, int64_t n,
               function_ref<void(Value)> body);

/// `body(tid)` for the CTA's threads: on the GPU (`emulate` false) once, for
/// the executing thread; emulated on the host, for each of `threads` in
/// turn (the phases between barriers, and the steps of a warp instruction,
/// are such loops).
void forEachThread(OpBuilder &b, Location loc, bool emulate, int64_t threads,
                   function_ref<void(Value)> body);

/// A CTA barrier on the GPU; nothing in the emulation, whose phases run
/// one after the other.
void ctaBarrier(OpBuilder &b, Location loc, bool emulate);

/// The kernel's dynamic shared memory as bytes (memref<?xi8, workgroup>).
Value dynamicSharedMemory(OpBuilder &b, Location loc);

/// `elems` elements of `type` of the shared byte buffer `raw`, from byte
/// `offset` on.
Value sharedView(OpBuilder &b, Location loc, Value raw, Value offset,
                 int64_t elems, Type type);

/// The 1-D view of `buffer` (a static, identity-layout memref: offset 0),
/// a memref.reinterpret_cast right after its definition. A vector access
/// through it at `alignedLinearIndex` carries its alignment in the index's
/// low bits, where LLVM finds it one level below the address: MLIR 19's
/// vector loads and stores carry only their element's alignment, and
/// LLVM's known-bits analysis does not see through the tile arithmetic of
/// a multi-dim index (nor through the phis of merged code paths), so the
/// backend would split the access into scalars.
Value flatView(OpBuilder &b, Location loc, Value buffer);
/// `w * (linear / w)`, the row-major linear index of `indices` into
/// `shape` (equal to it where the caller knows it a multiple of `w`).
Value alignedLinearIndex(Idx &ix, ArrayRef<int64_t> shape, ValueRange indices,
                         int64_t w);
/// mma.sync.aligned.`shape` (e.g. "m16n8k16.row.col.f32.bf16.bf16.f32") as
/// inline PTX, for the forms MLIR 19's nvgpu cannot lower (bf16, u8/s8
/// mixes, tf32): `a` vector<4xNxT> and `b` vector<2xNxT> fragments (or
/// vector<Kx1xi32> of TF32 bits), `c` the vector<2x2xf32|i32> accumulator.
Value mmaSyncInlinePtx(OpBuilder &b, Location loc, StringRef shape, Value a,
                       Value bFrag, Value c);

} // namespace mlir::dlc

#endif // DLC_PASSES_LOWERING_TENSORCORE_H
