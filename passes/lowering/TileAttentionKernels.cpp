//===- TileAttentionKernels.cpp - attention on tensor cores -------*- C++
//-*-===//
//
// A kernel that is one dlc.attention_kernel becomes a flash-attention CTA
// program: 4 warps own 16 query rows each of a 64-row query block, and
// stream over blocks of 64 keys staged in shared memory as 16-bit values.
// Q K^T and P V run on mma.sync m16n8k16 with f32 accumulators; the online
// softmax (running max and sum per row) works on the score accumulators in
// registers, reduced across the 4 lanes of a row with xor shuffles, and the
// probabilities are repacked from accumulator fragments into the A
// fragments of P V without leaving the registers. The scores never reach
// memory.
//
// Each thread's fragments and accumulators are arrays indexed by constants
// (promoted to registers on the GPU); with `emulate` (the host's
// --cuda-kernel-form) they are arrays of all the CTA's threads, and the
// warp instructions (mma.sync, shfl.xor) are written out per lane as the
// PTX ISA defines them, so the fragment layouts and the repacking are
// checked numerically on the host.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/TensorCore.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::dlc {
#define GEN_PASS_DEF_TILEATTENTIONKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
constexpr int64_t kKeys = 64; // keys per block

/// The attention kernels this pass takes: the kernel is the op alone,
/// 16-bit-friendly shapes.
struct Attention {
  AttentionKernelOp op;
  int64_t rank, queries, keys, head;
  SmallVector<int64_t> batchShape;
  AttentionLayout layout;
  /// The result's shape as computed (before `layout.result`).
  SmallVector<int64_t> outShape;
};

FailureOr<Attention> matchAttention(func::FuncOp func) {
  Attention a;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp, arith::ConstantOp>(op) ||
        isa<ViewLikeOpInterface>(op))
      continue;
    auto attention = dyn_cast<AttentionKernelOp>(op);
    if (!attention || a.op || !attention.hasPureBufferSemantics())
      return failure();
    a.op = attention;
  }
  if (!a.op)
    return failure();
  auto out = cast<MemRefType>(a.op.getInit().getType());
  a.rank = out.getRank();
  a.layout = a.op.getLayout();
  a.outShape = AttentionLayout::scatter(out.getShape(), a.layout.result);
  SmallVector<int64_t> q = AttentionLayout::readShape(
      cast<MemRefType>(a.op.getQuery().getType()).getShape(), a.layout.query,
      a.layout.querySelect);
  SmallVector<int64_t> v = AttentionLayout::readShape(
      cast<MemRefType>(a.op.getValue().getType()).getShape(), a.layout.value,
      a.layout.valueSelect);
  a.queries = a.outShape[a.rank - 2];
  a.head = q[a.rank - 1];
  a.keys = v[a.rank - 2];
  a.batchShape.assign(a.outShape.begin(), a.outShape.end() - 2);
  for (Value buffer :
       {a.op.getQuery(), a.op.getKey(), a.op.getValue(), a.op.getInit()}) {
    auto type = cast<MemRefType>(buffer.getType());
    // The init may be i8 (a quantized result, verified with its scale).
    bool quantizedInit =
        buffer == a.op.getInit() && a.op.getResultScale().has_value();
    if (!type.getLayout().isIdentity() ||
        (!quantizedInit && !isa<FloatType>(type.getElementType())) ||
        type.getElementType().getIntOrFloatBitWidth() > 32)
      return failure();
  }
  if (auto mask = a.op.getMask())
    if (!cast<MemRefType>(mask.getType()).getLayout().isIdentity() ||
        !isa<FloatType>(cast<MemRefType>(mask.getType()).getElementType()))
      return failure();
  // Head sizes in k16 steps up to 128 (the accumulators of a thread: 2 x 64
  // scores and head / 2 outputs); whole key blocks.
  if (a.head % 16 || a.head > 128 || v[a.rank - 1] != a.head || a.queries < 16)
    return failure();
  return a;
}

/// A thread's register array: on the GPU one alloca per thread, indexed by
/// constants only (promoted to registers); emulated, one for all threads.
struct Regs {
  Value mem;
  int64_t size;
};

class FlashBuilder {
public:
  /// `warps` (1, 2 or 4) own 16 query rows each of a CTA's block.
  FlashBuilder(RewriterBase &rw, Attention &a, Type half, int64_t warps,
               bool emulate)
      : rw(rw), a(a), half(half), warps(warps), emulate(emulate),
        loc(a.op.getLoc()), ix{rw, loc} {}

  /// Replaces the op with the CTA program; returns the CTA count.
  int64_t build();

private:
  RewriterBase &rw;
  Attention &a;
  Type half;
  int64_t warps;
  bool emulate;
  Location loc;
  Idx ix;
  Value smem;               // Q, K, V tiles: rows of `stride()` halves
  SmallVector<Value> batch; // the CTA's batch coordinates
  Value q0;                 // its first query row

  Type f32() { return rw.getF32Type(); }
  Value f32c(double v) {
    return rw.create<arith::ConstantOp>(loc, rw.getF32FloatAttr(v));
  }
  /// Halves per smem row: the head plus 8, so that the 8 rows a fragment
  /// load spans start in different banks.
  int64_t stride() const { return a.head + 8; }
  int64_t qRows() const { return 16 * warps; }
  int64_t threads() const { return 32 * warps; }

  Regs regs(int64_t size, Type type) {
    int64_t n = emulate ? size * threads() : size;
    return {rw.create<memref::AllocaOp>(loc, MemRefType::get({n}, type)), size};
  }
  /// Register `i` of thread `tid`: on the GPU `i` folds to a constant.
  Value slot(Regs r, Value tid, Value i) {
    return emulate ? ix.add(ix.mul(tid, r.size), i) : i;
  }
  Value rd(Regs r, Value tid, Value i) {
    return rw.create<memref::LoadOp>(loc, r.mem, slot(r, tid, i));
  }
  Value rd(Regs r, Value tid, int64_t i) { return rd(r, tid, ix.c(i)); }
  void wr(Regs r, Value tid, Value i, Value v) {
    rw.create<memref::StoreOp>(loc, v, r.mem, slot(r, tid, i));
  }
  void wr(Regs r, Value tid, int64_t i, Value v) { wr(r, tid, ix.c(i), v); }

  /// `body(i)` for i in [0, n): unrolled on the GPU, where registers need
  /// constant positions, one scf.for in the emulation (smaller host IR).
  void forRange(int64_t n, function_ref<void(Value)> body) {
    if (!emulate) {
      for (int64_t i = 0; i < n; ++i)
        body(ix.c(i));
      return;
    }
    buildLoop(rw, loc, n, body);
  }

  /// `body(tid)` for this thread (GPU) or every thread in turn (emulated).
  void forEachThread(function_ref<void(Value)> body) {
    dlc::forEachThread(rw, loc, emulate, threads(), body);
  }
  void barrier() { ctaBarrier(rw, loc, emulate); }

  /// The stored indices into `buffer` (read through `perm`; empty: as
  /// stored) of (row, col) for this CTA's batch coordinates (0 where the
  /// buffer broadcasts a dim).
  SmallVector<Value> indices(Value buffer, ArrayRef<int64_t> perm,
                             AttentionLayout::Select select, Value row,
                             Value col) {
    return AttentionLayout::operandIndices(
        cast<MemRefType>(buffer.getType()).getShape(), perm, a.outShape, batch,
        row, col, ix.c(0), select, select ? ix.c(select.index) : Value());
  }
  /// Whether read dim `d` of an operand stored through `perm` is the
  /// stored innermost (contiguous) dim.
  bool contiguous(ArrayRef<int64_t> perm, int64_t d) const {
    return perm[d] == a.rank - 1;
  }
  Value loadF32(Value buffer, ArrayRef<Value> idx) {
    Value x = rw.create<memref::LoadOp>(loc, buffer, idx);
    return x.getType() == f32() ? x : rw.create<arith::ExtFOp>(loc, f32(), x);
  }

  /// Copies `rows` x head values to the smem tile at `base` as halves:
  /// element (r, c) from `src` at `at(r, c)` (rows past `valid` are zero).
  /// With `keyMajorSource` consecutive rows are adjacent in the source; with
  /// `headInnermost` consecutive columns are.
  void stage(int64_t base, int64_t rows, bool keyMajorSource,
             bool headInnermost, Value src,
             function_ref<SmallVector<Value>(Value, Value)> at, Value valid) {
    auto srcType = cast<MemRefType>(src.getType());
    if (headInnermost && srcType.getElementType() == half &&
        srcType.hasStaticShape() && srcType.getLayout().isIdentity() &&
        a.head % kVector == 0 && rows * a.head / kVector % threads() == 0) {
      stageVectors(base, rows, src, at, valid);
      return;
    }
    auto load = [&](Value r, Value c) { return loadF32(src, at(r, c)); };
    forEachThread([&](Value tid) {
      int64_t perThread = rows * a.head / threads();
      auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(perThread), ix.c(1));
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      Value e = ix.add(tid, ix.mul(loop.getInductionVar(), threads()));
      // Consecutive threads read consecutive addresses of the source.
      Value r = keyMajorSource ? ix.rem(e, rows) : ix.div(e, a.head);
      Value c = keyMajorSource ? ix.div(e, rows) : ix.rem(e, a.head);
      auto in =
          rw.create<scf::IfOp>(loc, TypeRange{f32()}, ix.lt(r, valid), true);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(in.thenBlock());
        rw.create<scf::YieldOp>(loc, load(r, c));
        rw.setInsertionPointToStart(in.elseBlock());
        rw.create<scf::YieldOp>(loc, ValueRange{f32c(0.0)});
      }
      Value h = rw.create<arith::TruncFOp>(loc, half, in.getResult(0));
      rw.create<memref::StoreOp>(
          loc, h, smem,
          ValueRange{ix.add(ix.add(ix.mul(r, stride()), c), base)});
    });
  }
  /// Halves per vector of a staging copy: 16 bytes.
  static constexpr int64_t kVector = 8;
  /// `stage` for a 16-bit source whose head dim is the stored innermost:
  /// consecutive threads copy consecutive 16-byte vectors of a row (one
  /// ld.global.v4 and one st.shared.v4 per 8 halves instead of 8 scalar
  /// loads, conversions and stores). Every stored stride is a multiple of
  /// the head, so the vectors are 16-byte aligned; the accesses go through
  /// 1-D views (flatView) so that LLVM sees it.
  void stageVectors(int64_t base, int64_t rows, Value src,
                    function_ref<SmallVector<Value>(Value, Value)> at,
                    Value valid) {
    auto srcType = cast<MemRefType>(src.getType());
    auto vecType = VectorType::get({kVector}, half);
    Value flat = flatSources.lookup(src);
    if (!flat)
      flat = flatSources[src] = flatView(rw, loc, src);
    int64_t perRow = a.head / kVector;
    forEachThread([&](Value tid) {
      int64_t perThread = rows * perRow / threads();
      auto loop = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(perThread), ix.c(1));
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      Value e = ix.add(tid, ix.mul(loop.getInductionVar(), threads()));
      Value r = ix.div(e, perRow), c = ix.mul(ix.rem(e, perRow), kVector);
      auto in =
          rw.create<scf::IfOp>(loc, TypeRange{vecType}, ix.lt(r, valid), true);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(in.thenBlock());
        Value at0 =
            alignedLinearIndex(ix, srcType.getShape(), at(r, c), kVector);
        rw.create<scf::YieldOp>(loc, ValueRange{rw.create<vector::LoadOp>(
                                         loc, vecType, flat, ValueRange{at0})});
        rw.setInsertionPointToStart(in.elseBlock());
        rw.create<scf::YieldOp>(
            loc,
            ValueRange{rw.create<arith::ConstantOp>(
                loc, DenseElementsAttr::get(vecType, rw.getZeroAttr(half)))});
      }
      Value to =
          ix.mul(ix.div(ix.add(ix.add(ix.mul(r, stride()), c), base), kVector),
                 kVector);
      rw.create<vector::StoreOp>(loc, in.getResult(0), smem, ValueRange{to});
    });
  }
  DenseMap<Value, Value> flatSources;

  Value smemAt(int64_t base, Value row, Value col) {
    return rw.create<memref::LoadOp>(
        loc, smem,
        ValueRange{ix.add(ix.add(ix.mul(row, stride()), col), base)});
  }

  /// acc (n8 tile `accAt`, 4 registers) += A (8 halves at `aAt`) x B (4
  /// halves at `bAt`), one mma.sync.m16n8k16 per warp.
  void mma(Regs accR, Value accAt, Regs aR, Value aAt, Regs bR, Value bAt);
  /// Each row value (2 per thread) combined over the 4 lanes of its row.
  void quadReduce(Regs r, bool isMax);
  Value combine(Value x, Value y, bool isMax) {
    return isMax ? rw.create<arith::MaximumFOp>(loc, x, y).getResult()
                 : rw.create<arith::AddFOp>(loc, x, y).getResult();
  }
};

void FlashBuilder::mma(Regs accR, Value accAt, Regs aR, Value aAt, Regs bR,
                       Value bAt) {
  if (!emulate) {
    Value tid = ix.c(0); // unused: per-thread arrays
    auto vec = [&](Regs r, Value at, int64_t rows, int64_t cols,
                   Type t) -> Value {
      Value v = rw.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(VectorType::get({rows, cols}, t),
                                      rw.getZeroAttr(t)));
      for (int64_t i = 0; i < rows * cols; ++i)
        v = rw.create<vector::InsertOp>(loc, rd(r, tid, ix.add(at, i)), v,
                                        ArrayRef<int64_t>{i / cols, i % cols});
      return v;
    };
    Value av = vec(aR, aAt, 4, 2, half), bv = vec(bR, bAt, 2, 2, half),
          cv = vec(accR, accAt, 2, 2, f32());
    Value d =
        half.isF16()
            ? rw.create<nvgpu::MmaSyncOp>(loc, av, bv, cv,
                                          ArrayRef<int64_t>{16, 8, 16})
                  .getResult()
            : mmaSyncInlinePtx(rw, loc, "m16n8k16.row.col.f32.bf16.bf16.f32",
                               av, bv, cv);
    for (int64_t i = 0; i < 4; ++i)
      wr(accR, tid, ix.add(accAt, i),
         rw.create<vector::ExtractOp>(loc, d, ArrayRef<int64_t>{i / 2, i % 2}));
    return;
  }
  // Register r of lane l is D(l / 4 + 8 (r / 2), 2 (l % 4) + r % 2); A(row,
  // k) is half (k % 2) + 2 (row / 8) + 4 (k / 8) of lane (row % 8) * 4 +
  // (k % 8) / 2; B(k, col) is half (k % 2) + 2 (k / 8) of lane col * 4 +
  // (k % 8) / 2 -- the PTX ISA's m16n8k16 fragments.
  forEachThread([&](Value tid) {
    Value lane = ix.rem(tid, 32), warp0 = ix.mul(ix.div(tid, 32), 32);
    for (int64_t r = 0; r < 4; ++r) {
      Value row = ix.add(ix.div(lane, 4), 8 * (r / 2));
      Value col = ix.add(ix.mul(ix.rem(lane, 4), 2), r % 2);
      auto loop =
          rw.create<scf::ForOp>(loc, ix.c(0), ix.c(16), ix.c(1),
                                ValueRange{rd(accR, tid, ix.add(accAt, r))});
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(loop.getBody());
      Value k = loop.getInductionVar();
      Value pair = ix.div(ix.rem(k, 8), 2);
      Value aLane = ix.add(warp0, ix.add(ix.mul(ix.rem(row, 8), 4), pair));
      Value aHalf = ix.add(ix.add(ix.rem(k, 2), ix.mul(ix.div(row, 8), 2)),
                           ix.mul(ix.div(k, 8), 4));
      Value bLane = ix.add(warp0, ix.add(ix.mul(col, 4), pair));
      Value bHalf = ix.add(ix.rem(k, 2), ix.mul(ix.div(k, 8), 2));
      auto at = [&](Regs regsR, Value l, Value base, Value h) {
        return ix.add(ix.add(ix.mul(l, regsR.size), base), h);
      };
      Value aIn = rw.create<memref::LoadOp>(
          loc, aR.mem, ValueRange{at(aR, aLane, aAt, aHalf)});
      Value bIn = rw.create<memref::LoadOp>(
          loc, bR.mem, ValueRange{at(bR, bLane, bAt, bHalf)});
      Value av = rw.create<arith::ExtFOp>(loc, f32(), aIn);
      Value bv = rw.create<arith::ExtFOp>(loc, f32(), bIn);
      rw.create<scf::YieldOp>(loc, ValueRange{rw.create<arith::AddFOp>(
                                       loc, loop.getRegionIterArgs()[0],
                                       rw.create<arith::MulFOp>(loc, av, bv))});
      rw.setInsertionPointAfter(loop);
      wr(accR, tid, ix.add(accAt, r), loop.getResult(0));
    }
  });
}

void FlashBuilder::quadReduce(Regs r, bool isMax) {
  for (int64_t offset : {1, 2}) {
    if (!emulate) {
      Value tid = ix.c(0);
      for (int64_t h = 0; h < r.size; ++h) {
        Value x = rd(r, tid, h);
        Value other =
            rw.create<gpu::ShuffleOp>(loc, x, offset, 32, gpu::ShuffleMode::XOR)
                .getShuffleResult();
        wr(r, tid, h, combine(x, other, isMax));
      }
      continue;
    }
    // Every lane reads its partner's value from before the step.
    Regs before = regs(r.size, f32());
    forEachThread([&](Value tid) {
      for (int64_t h = 0; h < r.size; ++h)
        wr(before, tid, h, rd(r, tid, h));
    });
    forEachThread([&](Value tid) {
      Value partner = ix.xori(tid, ix.c(offset));
      for (int64_t h = 0; h < r.size; ++h)
        wr(r, tid, h,
           combine(rd(before, tid, h), rd(before, partner, h), isMax));
    });
  }
}

int64_t FlashBuilder::build() {
  AttentionKernelOp op = a.op;
  rw.setInsertionPoint(op);
  int64_t batchCount = 1;
  for (int64_t d : a.batchShape)
    batchCount *= d;
  int64_t qBlocks = llvm::divideCeil(a.queries, qRows());
  int64_t ctas = batchCount * qBlocks;
  auto par = rw.create<scf::ParallelOp>(
      loc, ValueRange{ix.c(0)}, ValueRange{ix.c(ctas)}, ValueRange{ix.c(1)});
  rw.setInsertionPoint(par.getBody()->getTerminator());
  Value cta = par.getInductionVars()[0];
  q0 = ix.mul(ix.rem(cta, qBlocks), qRows());
  Value rest = ix.div(cta, qBlocks);
  batch.assign(a.batchShape.size(), Value());
  for (int64_t d = a.batchShape.size() - 1; d >= 0; --d) {
    batch[d] = ix.rem(rest, a.batchShape[d]);
    rest = ix.div(rest, a.batchShape[d]);
  }

  int64_t smemElems = (qRows() + 2 * kKeys) * stride();
  if (emulate) {
    smem = rw.create<memref::AllocaOp>(loc, MemRefType::get({smemElems}, half));
  } else {
    smem = sharedView(rw, loc, dynamicSharedMemory(rw, loc), ix.c(0),
                      smemElems, half);
  }
  const int64_t qBase = 0, kBase = qRows() * stride(),
                vBase = kBase + kKeys * stride();
  int64_t kSteps = a.head / 16, dTiles = a.head / 8, sTiles = kKeys / 8;
  Regs qFrag = regs(kSteps * 8, half), bFrag = regs(4, half),
       pFrag = regs(8, half), s = regs(sTiles * 4, f32()),
       o = regs(dTiles * 4, f32()), m = regs(2, f32()), l = regs(2, f32()),
       mNew = regs(2, f32());
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
        mask = op.getMask(), out = op.getInit();
  bool kT = op.getKTransposed();
  Value negInf = f32c(-std::numeric_limits<double>::infinity());
  Value zero = f32c(0.0), scale = f32c(op.getScale().convertToFloat());

  // The thread's rows in the CTA's block (h = 0, 1: g and g + 8 of its
  // warp's 16) and its quad position.
  auto rowOf = [&](Value tid, int64_t h) {
    return ix.add(ix.mul(ix.div(tid, 32), 16),
                  ix.add(ix.div(ix.rem(tid, 32), 4), 8 * h));
  };
  auto quad = [&](Value tid) { return ix.rem(tid, 4); };

  Value validRows = ix.minu(ix.c(qRows()),
                            rw.create<arith::SubIOp>(loc, ix.c(a.queries), q0));
  const AttentionLayout &layout = a.layout;
  stage(
      qBase, qRows(), contiguous(layout.query, a.rank - 2),
      contiguous(layout.query, a.rank - 1), q,
      [&](Value r, Value c) {
        return indices(q, layout.query, layout.querySelect, ix.add(q0, r), c);
      },
      validRows);
  barrier();
  // Q's A fragments: halves e of k-step ks at (row g + 8 (e / 2 % 2), k
  // 16 ks + 2 quad + e % 2 + 8 (e / 4)).
  forEachThread([&](Value tid) {
    forRange(kSteps, [&](Value ks) {
      for (int64_t e = 0; e < 8; ++e)
        wr(qFrag, tid, ix.add(ix.mul(ks, 8), e),
           smemAt(qBase, rowOf(tid, e / 2 % 2),
                  ix.add(ix.add(ix.mul(quad(tid), 2), ix.mul(ks, 16)),
                         e % 2 + 8 * (e / 4))));
    });
    forRange(o.size, [&](Value i) { wr(o, tid, i, zero); });
    for (int64_t h = 0; h < 2; ++h) {
      wr(m, tid, h, negInf);
      wr(l, tid, h, zero);
    }
  });

  auto blocks = rw.create<scf::ForOp>(loc, ix.c(0), ix.c(a.keys), ix.c(kKeys));
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(blocks.getBody()->getTerminator());
    Value j0 = blocks.getInductionVar();
    // The last block of a key count that is no multiple of 64 is partial:
    // its missing rows of K and V are zeros and their scores -inf.
    bool keyTail = a.keys % kKeys != 0;
    Value validKeys =
        keyTail ? ix.minu(ix.c(kKeys),
                          rw.create<arith::SubIOp>(loc, ix.c(a.keys), j0))
                : ix.c(kKeys);
    barrier(); // the previous block's K and V are read
    // K as [key][head] (from K or from K^T), V as [key][head].
    stage(
        kBase, kKeys, contiguous(layout.key, kT ? a.rank - 1 : a.rank - 2),
        contiguous(layout.key, kT ? a.rank - 2 : a.rank - 1), k,
        [&](Value r, Value c) {
          Value j = ix.add(j0, r);
          return kT ? indices(k, layout.key, layout.keySelect, c, j)
                    : indices(k, layout.key, layout.keySelect, j, c);
        },
        validKeys);
    stage(
        vBase, kKeys, contiguous(layout.value, a.rank - 2),
        contiguous(layout.value, a.rank - 1), v,
        [&](Value r, Value c) {
          return indices(v, layout.value, layout.valueSelect, ix.add(j0, r), c);
        },
        validKeys);
    barrier();

    // S = Q K^T: n8 tile t of keys, B(k = head, n = key) = K[key][head].
    forEachThread([&](Value tid) {
      forRange(s.size, [&](Value i) { wr(s, tid, i, zero); });
    });
    forRange(sTiles, [&](Value t) {
      forRange(kSteps, [&](Value ks) {
        forEachThread([&](Value tid) {
          Value key = ix.add(ix.div(ix.rem(tid, 32), 4), ix.mul(t, 8));
          for (int64_t e = 0; e < 4; ++e)
            wr(bFrag, tid, e,
               smemAt(kBase, key,
                      ix.add(ix.add(ix.mul(quad(tid), 2), ix.mul(ks, 16)),
                             e % 2 + 8 * (e / 2))));
        });
        mma(s, ix.mul(t, 4), qFrag, ix.mul(ks, 8), bFrag, ix.c(0));
      });
    });

    // Scale and mask; the block's row maxima.
    forEachThread([&](Value tid) {
      for (int64_t h = 0; h < 2; ++h)
        wr(mNew, tid, h, rd(m, tid, h));
      forRange(sTiles, [&](Value t) {
        for (int64_t r = 0; r < 4; ++r) {
          Value at = ix.add(ix.mul(t, 4), r);
          Value x = rw.create<arith::MulFOp>(loc, rd(s, tid, at), scale);
          Value key = ix.add(
              j0, ix.add(ix.add(ix.mul(quad(tid), 2), ix.mul(t, 8)), r % 2));
          Value inKeys = keyTail ? ix.lt(key, ix.c(a.keys)) : Value();
          if (mask) {
            Value row = ix.add(q0, rowOf(tid, r / 2));
            // Rows past the queries (and keys past the last) read element 0
            // of the mask; those scores are never stored (-inf).
            row = ix.select(ix.lt(row, ix.c(a.queries)), row, ix.c(0));
            Value maskKey = inKeys ? ix.select(inKeys, key, ix.c(0)) : key;
            x = rw.create<arith::AddFOp>(
                loc, x, loadF32(mask, indices(mask, {}, {}, row, maskKey)));
          }
          if (inKeys)
            x = rw.create<arith::SelectOp>(loc, inKeys, x, negInf);
          wr(s, tid, at, x);
          wr(mNew, tid, r / 2, combine(rd(mNew, tid, r / 2), x, true));
        }
      });
    });
    quadReduce(mNew, /*isMax=*/true);
    // p = exp(s - m'), l = l alpha + sum p, o = o alpha with alpha = exp(m
    // - m'); exponents of rows masked so far are taken relative to 0.
    forEachThread([&](Value tid) {
      Value base[2], alpha[2];
      for (int64_t h = 0; h < 2; ++h) {
        Value mn = rd(mNew, tid, h);
        Value allMasked = rw.create<arith::CmpFOp>(
            loc, arith::CmpFPredicate::OEQ, mn, negInf);
        base[h] = rw.create<arith::SelectOp>(loc, allMasked, zero, mn);
        alpha[h] = rw.create<math::ExpOp>(
            loc, rw.create<arith::SubFOp>(loc, rd(m, tid, h), base[h]));
        wr(m, tid, h, mn);
        wr(l, tid, h, rw.create<arith::MulFOp>(loc, rd(l, tid, h), alpha[h]));
      }
      forRange(sTiles, [&](Value t) {
        for (int64_t r = 0; r < 4; ++r) {
          Value at = ix.add(ix.mul(t, 4), r);
          Value p = rw.create<math::ExpOp>(
              loc, rw.create<arith::SubFOp>(loc, rd(s, tid, at), base[r / 2]));
          wr(s, tid, at, p);
          wr(l, tid, r / 2,
             rw.create<arith::AddFOp>(loc, rd(l, tid, r / 2), p));
        }
      });
      forRange(dTiles, [&](Value t) {
        for (int64_t r = 0; r < 4; ++r) {
          Value at = ix.add(ix.mul(t, 4), r);
          wr(o, tid, at,
             rw.create<arith::MulFOp>(loc, rd(o, tid, at), alpha[r / 2]));
        }
      });
    });

    // O += P V over k-steps of 16 keys: P's A fragment is score tiles 2 kk
    // and 2 kk + 1 (c0 c1 c2 c3 each: a0 a1 a2 a3, then a4 a5 a6 a7);
    // B(k = key, n = head) = V[key][head].
    forRange(kKeys / 16, [&](Value kk) {
      forEachThread([&](Value tid) {
        for (int64_t e = 0; e < 8; ++e)
          wr(pFrag, tid, e,
             rw.create<arith::TruncFOp>(
                 loc, half,
                 rd(s, tid, ix.add(ix.mul(kk, 8), e / 4 * 4 + e % 4))));
      });
      forRange(dTiles, [&](Value t) {
        forEachThread([&](Value tid) {
          Value col = ix.add(ix.div(ix.rem(tid, 32), 4), ix.mul(t, 8));
          for (int64_t e = 0; e < 4; ++e)
            wr(bFrag, tid, e,
               smemAt(vBase,
                      ix.add(ix.add(ix.mul(quad(tid), 2), ix.mul(kk, 16)),
                             e % 2 + 8 * (e / 2)),
                      col));
        });
        mma(o, ix.mul(t, 4), pFrag, ix.c(0), bFrag, ix.c(0));
      });
    });
  }

  // The row sums over the quad; out = o * (1 / l), one division per row
  // rather than one per element (IEEE div.rn.f32 is a subroutine in PTX);
  // 0 for a NaN softmax with nan_to_zero: every key masked with -inf.
  quadReduce(l, /*isMax=*/false);
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  forEachThread([&](Value tid) {
    Value one = rw.create<arith::ConstantOp>(loc, rw.getF32FloatAttr(1));
    Value inverse[2] = {rw.create<arith::DivFOp>(loc, one, rd(l, tid, 0)),
                        rw.create<arith::DivFOp>(loc, one, rd(l, tid, 1))};
    forRange(dTiles, [&](Value t) {
      for (int64_t j = 0; j < 4; ++j) {
        int64_t h = j / 2;
        Value row = ix.add(q0, rowOf(tid, h));
        Value col = ix.add(ix.add(ix.mul(quad(tid), 2), ix.mul(t, 8)), j % 2);
        Value lh = rd(l, tid, h);
        Value r = rw.create<arith::MulFOp>(
            loc, rd(o, tid, ix.add(ix.mul(t, 4), j)), inverse[h]);
        if (op.getNanToZero())
          r = rw.create<arith::SelectOp>(
              loc,
              rw.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, lh,
                                       zero),
              r, zero);
        if (auto scale = op.getResultScaleAttr())
          r = quantizeToI8(rw, loc, r, scale.getValueAsDouble(),
                           op.getResultZeroPoint().value_or(0),
                           /*reciprocal=*/true);
        else if (outElt != f32())
          r = rw.create<arith::TruncFOp>(loc, outElt, r);
        auto in = rw.create<scf::IfOp>(loc, ix.lt(row, ix.c(a.queries)), false);
        OpBuilder::InsertionGuard guard(rw);
        rw.setInsertionPoint(in.thenBlock()->getTerminator());
        SmallVector<Value> idx(batch);
        idx.push_back(row);
        idx.push_back(col);
        rw.create<memref::StoreOp>(
            loc, r, out,
            AttentionLayout::gather(ArrayRef<Value>(idx), a.layout.result));
      }
    });
  });
  rw.eraseOp(op);
  return ctas;
}

struct TileAttentionKernelsPass
    : dlc::impl::TileAttentionKernelsPassBase<TileAttentionKernelsPass> {
  using TileAttentionKernelsPassBase::TileAttentionKernelsPassBase;

  void runOnOperation() override {
    Type half;
    if (precision == "f16")
      half = Float16Type::get(&getContext());
    else if (precision == "bf16")
      half = BFloat16Type::get(&getContext());
    else {
      getOperation().emitError("dlc-tile-attention-kernels: precision must "
                               "be f16 or bf16, got '")
          << precision << "'";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> kernels;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(attrs::kKernel))
        kernels.push_back(func);
    for (func::FuncOp func : kernels) {
      FailureOr<Attention> a = matchAttention(func);
      if (failed(a))
        continue;
      // 4 warps (64 query rows) per CTA, fewer while that leaves more than
      // half the SMs idle (batch-1 text: 12 heads x 2 blocks of 64).
      int64_t batchCount = 1;
      for (int64_t d : a->batchShape)
        batchCount *= d;
      int64_t warps = 4;
      while (warps > 1 &&
             2 * batchCount *
                     int64_t(llvm::divideCeil(a->queries, 16 * warps)) <
                 smCount)
        warps /= 2;
      FlashBuilder builder(rewriter, *a, half, warps, emulate);
      int64_t ctas = builder.build();
      Builder b(&getContext());
      func->setAttr(attrs::kWorkItems, b.getI64IntegerAttr(ctas));
      func->setAttr(attrs::kCtaThreads, b.getI64IntegerAttr(32 * warps));
      func->setAttr(attrs::kSharedBytes,
                    b.getI64IntegerAttr(emulate ? 0
                                                : (16 * warps + 2 * kKeys) *
                                                      (a->head + 8) * 2));
    }
  }
};
} // namespace
