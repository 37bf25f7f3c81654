//===- AttentionLoops.cpp - dlc.attention_kernel as a work item loop -*- C++
//-*-===//
//
// The kernel form of attention: one work item per query row (batch dims and
// the row are the parallel dims), streaming over the keys with the online
// softmax so that the scores never reach memory.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/KernelForm.h"
#include "passes/lowering/LinalgBuilders.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <tuple>
#include <utility>

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Keys handled per step (the largest power of two up to this that divides
/// the key count). The block's scores are a contiguous private row that
/// the q . k loop updates for each head element: with K^T as laid out by
/// exporters that loop is unit-stride and vectorizes on the host, and it is
/// long enough that LLVM keeps it a loop instead of unrolling it into
/// scalar accumulators. On CUDA the row and the accumulator are
/// thread-local memory (512 bytes for bert's 64/64).
constexpr int64_t kMaxKeyBlock = 64;

/// The largest of `cap`, cap / 2, cap / 4, ... that divides `n`; 1 when
/// none above 1 does. Key blocks, query row groups and lane tiles all take
/// their size this way.
int64_t halvingDivisor(int64_t n, int64_t cap) {
  for (int64_t t = cap; t > 1; t /= 2)
    if (n % t == 0)
      return t;
  return 1;
}

/// Builds the body of one work item. All arithmetic is f32; other float
/// element types are extended on load and truncated on the final store.
struct AttentionBuilder {
  OpBuilder &b;
  Location loc;
  AttentionKernelOp op;
  /// The work item's induction variables: batch dims, then the query row.
  SmallVector<Value> ivs;
  int64_t rank;
  Type f32;
  Value c0;
  AttentionLayout layout;
  /// The result's shape as computed (before `layout.result`).
  SmallVector<int64_t> outShape;
  /// Scores as dot products where K's head dim is innermost (the host).
  bool dotProducts = false;
  /// Query rows a work item takes (the parallel row dim counts groups):
  /// each key block is read for all of them while it is in L1.
  int64_t rowGroup = 1;
  /// Keys (value columns) a register tile of the rows-as-lanes form takes;
  /// 0: that form is off.
  int64_t laneTile = 0;

  Value index(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value f32Const(double v) {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  }

  /// The stored indices into `buffer` (read through `perm`; empty: as
  /// stored) of (`row`, `col`) in the work item's batch (0 where the buffer
  /// broadcasts a dim). The work item's own
  /// induction variables are used wherever the buffer is not broadcast, so
  /// that kernel fusion sees a read of the work item's own part.
  SmallVector<Value> indices(Value buffer, ArrayRef<int64_t> perm,
                             AttentionLayout::Select select, Value row,
                             Value col) {
    return AttentionLayout::operandIndices(
        cast<MemRefType>(buffer.getType()).getShape(), perm, outShape,
        ValueRange(ivs).take_front(rank - 2), row, col, c0, select,
        select ? index(select.index) : Value());
  }

  /// Whether `test` holds of two placeholder indices (distinct values, no
  /// uses left afterwards): which stored index a position lands in.
  bool probe(function_ref<bool(Value, Value)> test) {
    Value first = index(0), second = index(1);
    bool holds = test(first, second);
    first.getDefiningOp()->erase();
    second.getDefiningOp()->erase();
    return holds;
  }

  Value load(Value buffer, ValueRange idx) {
    Value x = b.create<memref::LoadOp>(loc, buffer, idx);
    if (x.getType() != f32)
      x = b.create<arith::ExtFOp>(loc, f32, x);
    return x;
  }

  /// for (iv = 0; iv < n; ++iv) body(iv), without loop-carried values.
  void forEach(int64_t n, function_ref<void(Value)> body) {
    forEachStep(n, 1, body);
  }

  /// for (iv = 0; iv < n; iv += step) body(iv).
  void forEachStep(int64_t n, int64_t step, function_ref<void(Value)> body) {
    b.create<scf::ForOp>(loc, c0, index(n), index(step), ValueRange{},
                         [&](OpBuilder &, Location, Value iv, ValueRange) {
                           body(iv);
                           b.create<scf::YieldOp>(loc);
                         });
  }

  /// for (iv = 0; iv < n; iv += step) carried = body(iv, carried).
  ValueRange fold(int64_t n, int64_t step, ValueRange init,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = b.create<scf::ForOp>(
        loc, c0, index(n), index(step), init,
        [&](OpBuilder &, Location, Value iv, ValueRange carried) {
          b.create<scf::YieldOp>(loc, body(iv, carried));
        });
    return loop.getResults();
  }

  /// The online softmax's step over a block of scores (scalars, or the
  /// rows' vectors), from the running max `m` to the block's `mNew` and the
  /// running sum `l`: each score s becomes p = exp(s - base) in place
  /// (`read` and `write` one), and returns the factor alpha = exp(m - base)
  /// that rescales what was summed before, and l * alpha + sum(p). Rows
  /// masked with -inf so far take base 0, so that exp(-inf - -inf) never
  /// produces a NaN.
  std::pair<Value, Value> softmaxStep(int64_t block, Value m, Value mNew,
                                      Value l, Value negInf, Value zero,
                                      function_ref<Value(Value)> read,
                                      function_ref<void(Value, Value)> write,
                                      arith::FastMathFlags sumFlags) {
    Value allMasked =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, mNew, negInf);
    Value base = b.create<arith::SelectOp>(loc, allMasked, zero, mNew);
    Value alpha =
        b.create<math::ExpOp>(loc, b.create<arith::SubFOp>(loc, m, base));
    auto flags = arith::FastMathFlagsAttr::get(b.getContext(), sumFlags);
    Value lNew = fold(block, 1, {b.create<arith::MulFOp>(loc, l, alpha)},
                      [&](Value jj, ValueRange sum) {
                        Value p = b.create<math::ExpOp>(
                            loc, b.create<arith::SubFOp>(loc, read(jj), base));
                        write(p, jj);
                        return SmallVector<Value>{
                            b.create<arith::AddFOp>(loc, sum[0], p, flags)};
                      })[0];
    return {alpha, lNew};
  }

  /// The first of the work item's rows (set by build).
  Value firstRow;

  /// Row `r` of the work item; one row is the work item's own variable
  /// (kernel fusion checks reads of it).
  Value rowOf(Value r) {
    if (rowGroup == 1)
      return firstRow;
    return b.create<arith::AddIOp>(loc, firstRow, r);
  }

  /// out[row, :] = acc * (1 / l) for row `r` of the work item, whose
  /// output column d is `acc` at `accAt(r, d)`: one division a row, not one
  /// an output (on the GPU each div.rn.f32 is a branch to a slow path), as
  /// the tensor-core attention kernel does. With nan_to_zero, a row whose
  /// softmax is NaN (l is 0: every key masked with -inf; or NaN) is 0.
  void writeRow(Value acc, function_ref<SmallVector<Value>(Value, Value)> accAt,
                Value r, Value l, int64_t valueSize) {
    Value out = op.getInit();
    Type outElt = cast<MemRefType>(out.getType()).getElementType();
    Value zero = f32Const(0.0);
    Value invL = b.create<arith::DivFOp>(loc, f32Const(1.0), l);
    Value validRow;
    if (op.getNanToZero())
      validRow =
          b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, l, zero);
    SmallVector<Value> rowIvs(ivs.begin(), ivs.end());
    rowIvs[rank - 2] = rowOf(r);
    forEach(valueSize, [&](Value d) {
      Value x = b.create<arith::MulFOp>(
          loc, b.create<memref::LoadOp>(loc, acc, accAt(r, d)), invL);
      if (validRow)
        x = b.create<arith::SelectOp>(loc, validRow, x, zero);
      // The quantize multiplies by the scale's reciprocal and corrects the
      // product: the quotient, without a division.
      if (auto scale = op.getResultScaleAttr())
        x = quantizeToI8(b, loc, x, scale.getValueAsDouble(),
                         op.getResultZeroPoint().value_or(0),
                         /*reciprocal=*/true);
      else if (outElt != f32)
        x = b.create<arith::TruncFOp>(loc, outElt, x);
      SmallVector<Value> idx(rowIvs);
      idx.push_back(d);
      b.create<memref::StoreOp>(
          loc, x, out,
          AttentionLayout::gather(ArrayRef<Value>(idx), layout.result));
    });
  }

  /// The rows-as-lanes form: the work item's `rowGroup` query rows are the
  /// lanes of its vectors. q is copied transposed ([head, rows]) once; a
  /// key's scores are then the FMAs of q's columns with that key's
  /// elements broadcast, `laneTile` keys at a time in registers (no dot
  /// product reduces across lanes), and the softmax's statistics and
  /// rescalings are lane-wise. The accumulator is transposed too
  /// ([value columns, rows]): each block's P . V is, for `laneTile` value
  /// columns at a time, FMAs of the block's probabilities (a vector a key)
  /// with v's broadcast elements.
  void buildLanes(int64_t headSize, int64_t keys, int64_t valueSize,
                  int64_t block,
                  function_ref<SmallVector<Value>(Value, Value)> keyIndices) {
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
          mask = op.getMask();
    int64_t lanes = rowGroup;
    auto vec = VectorType::get({lanes}, f32);
    // Private scratch, aligned for whole-vector accesses.
    auto scratch = [&](ArrayRef<int64_t> shape) -> Value {
      return b.create<memref::AllocaOp>(loc, MemRefType::get(shape, f32),
                                        b.getI64IntegerAttr(64));
    };
    auto splat = [&](double x) -> Value {
      return b.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(vec, b.getF32FloatAttr(x).getValue()));
    };
    auto vload = [&](Value buffer, Value i) -> Value {
      return b.create<vector::LoadOp>(loc, vec, buffer, ValueRange{i, c0});
    };
    auto vstore = [&](Value x, Value buffer, Value i) {
      b.create<vector::StoreOp>(loc, x, buffer, ValueRange{i, c0});
    };
    auto broadcast = [&](Value x) -> Value {
      return b.create<vector::BroadcastOp>(loc, vec, x);
    };
    auto contract = arith::FastMathFlagsAttr::get(
        b.getContext(), arith::FastMathFlags::contract);
    auto fma = [&](Value x, Value y, Value acc) -> Value {
      return b.create<arith::AddFOp>(
          loc, acc, b.create<arith::MulFOp>(loc, x, y, contract), contract);
    };
    int64_t keyTile = halvingDivisor(block, laneTile),
            valueTile = halvingDivisor(valueSize, laneTile);

    Value qT = scratch({headSize, lanes});
    Value scores = scratch({block, lanes});
    Value acc = scratch({valueSize, lanes});
    // A column of the rows at a time, stored whole (a copy element by
    // element became 128 scatters of 8 lanes for bert's 16 x 64).
    forEach(headSize, [&](Value c) {
      SmallVector<Value> column;
      for (int64_t r = 0; r < lanes; ++r)
        column.push_back(load(q, indices(q, layout.query, layout.querySelect,
                                         rowOf(index(r)), c)));
      vstore(b.create<vector::FromElementsOp>(loc, vec, column), qT, c);
    });
    Value zero = splat(0.0);
    forEach(valueSize, [&](Value d) { vstore(zero, acc, d); });
    Value negInf = splat(-std::numeric_limits<double>::infinity());
    Value scale = splat(op.getScale().convertToFloat());
    // A mask that broadcasts along the rows is one element a key.
    bool maskPerRow =
        mask && probe([&](Value row, Value j) {
          return llvm::is_contained(indices(mask, {}, {}, row, j), row);
        });

    ValueRange stats = fold(
        keys, block, {negInf, zero},
        [&](Value j0, ValueRange carried) -> SmallVector<Value> {
          Value m = carried[0], l = carried[1];
          // scores[jj, :] = q[rows, :] . k[j0 + jj, :], keyTile keys at a
          // time.
          forEachStep(block, keyTile, [&](Value jt) {
            SmallVector<Value> init(keyTile, zero);
            ValueRange dots =
                fold(headSize, 1, init, [&](Value c, ValueRange sums) {
                  Value qc = vload(qT, c);
                  SmallVector<Value> next;
                  for (int64_t t = 0; t < keyTile; ++t) {
                    Value j = b.create<arith::AddIOp>(
                        loc, j0, b.create<arith::AddIOp>(loc, jt, index(t)));
                    next.push_back(
                        fma(qc, broadcast(load(k, keyIndices(c, j))), sums[t]));
                  }
                  return next;
                });
            for (int64_t t = 0; t < keyTile; ++t)
              vstore(dots[t], scores,
                     b.create<arith::AddIOp>(loc, jt, index(t)));
          });
          // s = s * scale + mask; the block's max.
          Value mNew = fold(block, 1, {m}, [&](Value jj, ValueRange mx) {
            Value j = b.create<arith::AddIOp>(loc, j0, jj);
            Value s = b.create<arith::MulFOp>(loc, vload(scores, jj), scale);
            if (mask) {
              Value bias;
              if (maskPerRow) {
                SmallVector<Value> elements;
                for (int64_t r = 0; r < lanes; ++r)
                  elements.push_back(
                      load(mask, indices(mask, {}, {}, rowOf(index(r)), j)));
                bias = b.create<vector::FromElementsOp>(loc, vec, elements);
              } else {
                bias =
                    broadcast(load(mask, indices(mask, {}, {}, firstRow, j)));
              }
              s = b.create<arith::AddFOp>(loc, s, bias);
            }
            vstore(s, scores, jj);
            return SmallVector<Value>{
                b.create<arith::MaximumFOp>(loc, mx[0], s)};
          })[0];
          Value alpha, lNew;
          std::tie(alpha, lNew) = softmaxStep(
              block, m, mNew, l, negInf, zero,
              [&](Value jj) { return vload(scores, jj); },
              [&](Value p, Value jj) { vstore(p, scores, jj); },
              arith::FastMathFlags::none);
          // acc[d, :] = acc[d, :] * alpha + sum_jj p[jj, :] * v[j0 + jj, d],
          // valueTile columns at a time.
          forEachStep(valueSize, valueTile, [&](Value dt) {
            SmallVector<Value> init, columns;
            for (int64_t t = 0; t < valueTile; ++t) {
              columns.push_back(b.create<arith::AddIOp>(loc, dt, index(t)));
              init.push_back(b.create<arith::MulFOp>(
                  loc, vload(acc, columns.back()), alpha));
            }
            ValueRange sums =
                fold(block, 1, init, [&](Value jj, ValueRange part) {
                  Value p = vload(scores, jj);
                  Value j = b.create<arith::AddIOp>(loc, j0, jj);
                  SmallVector<Value> next;
                  for (int64_t t = 0; t < valueTile; ++t) {
                    Value d = b.create<arith::AddIOp>(loc, dt, index(t));
                    Value vd = load(
                        v, indices(v, layout.value, layout.valueSelect, j, d));
                    next.push_back(fma(p, broadcast(vd), part[t]));
                  }
                  return next;
                });
            for (int64_t t = 0; t < valueTile; ++t)
              vstore(sums[t], acc, columns[t]);
          });
          return {mNew, lNew};
        });

    // Each row's output from its lane of acc and l.
    Value sums = scratch({1, lanes});
    vstore(stats[1], sums, c0);
    forEach(lanes, [&](Value r) {
      writeRow(
          acc,
          [&](Value r, Value d) {
            return SmallVector<Value>{d, r};
          },
          r, b.create<memref::LoadOp>(loc, sums, ValueRange{c0, r}), valueSize);
    });
  }

  void build() {
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
          mask = op.getMask();
    SmallVector<int64_t> qShape =
        AttentionLayout::readShape(cast<MemRefType>(q.getType()).getShape(),
                                   layout.query, layout.querySelect);
    SmallVector<int64_t> vShape =
        AttentionLayout::readShape(cast<MemRefType>(v.getType()).getShape(),
                                   layout.value, layout.valueSelect);
    int64_t headSize = qShape[rank - 1];
    int64_t keys = vShape[rank - 2];
    int64_t valueSize = vShape[rank - 1];
    int64_t block = halvingDivisor(keys, kMaxKeyBlock);
    bool kTransposed = op.getKTransposed();
    // The work item's rows: row group * rowGroup + r.
    firstRow = ivs[rank - 2];
    if (rowGroup > 1)
      firstRow = b.create<arith::MulIOp>(loc, firstRow, index(rowGroup));
    // k's stored indices of head element c of key j.
    auto keyIndices = [&](Value c, Value j) {
      return kTransposed ? indices(k, layout.key, layout.keySelect, c, j)
                         : indices(k, layout.key, layout.keySelect, j, c);
    };
    // Whether k stores the head dim innermost: its last index is c.
    bool headInnermost =
        dotProducts && probe([&](Value c, Value j) {
          return keyIndices(c, j).back() == c &&
                 cast<MemRefType>(k.getType()).getShape().back() > 1;
        });
    if (laneTile > 0 && dotProducts && (rowGroup == 8 || rowGroup == 16))
      return buildLanes(headSize, keys, valueSize, block, keyIndices);

    // The rows' output accumulators, [rowGroup, valueSize] ([valueSize] for
    // one row), and with several rows their running max and sum.
    bool grouped = rowGroup > 1;
    Value acc = b.create<memref::AllocaOp>(
        loc, grouped ? MemRefType::get({rowGroup, valueSize}, f32)
                     : MemRefType::get({valueSize}, f32));
    auto accAt = [&](Value r, Value d) -> SmallVector<Value> {
      if (grouped)
        return {r, d};
      return {d};
    };
    Value scores =
        b.create<memref::AllocaOp>(loc, MemRefType::get({block}, f32));
    Value zero = f32Const(0.0);
    Value negInf = f32Const(-std::numeric_limits<double>::infinity());
    Value scale = f32Const(op.getScale().convertToFloat());
    Value maxima, sums;
    if (grouped) {
      maxima =
          b.create<memref::AllocaOp>(loc, MemRefType::get({rowGroup}, f32));
      sums = b.create<memref::AllocaOp>(loc, MemRefType::get({rowGroup}, f32));
      forEach(rowGroup, [&](Value r) {
        b.create<memref::StoreOp>(loc, negInf, maxima, r);
        b.create<memref::StoreOp>(loc, zero, sums, r);
        forEach(valueSize, [&](Value d) {
          b.create<memref::StoreOp>(loc, zero, acc, accAt(r, d));
        });
      });
    } else {
      forEach(valueSize,
              [&](Value d) { b.create<memref::StoreOp>(loc, zero, acc, d); });
    }
    Value r0 = c0;

    // Products and their sums may fuse into FMAs (one rounding less, as
    // the GEMM rows' do; on the GPU the same mul/add pairs already fuse).
    auto contract = arith::FastMathFlagsAttr::get(
        b.getContext(), arith::FastMathFlags::contract);
    // On the host the block's exponentials and their sum vectorize only if
    // the sum may reassociate: it was a scalar loop, its polynomial exp
    // included, half the kernel's time.
    arith::FastMathFlags sumFlags = dotProducts ? arith::FastMathFlags::reassoc
                                                : arith::FastMathFlags::none;
    // One key block for row `r` of the work item: the running max m and
    // sum l in, their new values out.
    auto keyBlock = [&](Value r, Value j0, Value m,
                        Value l) -> SmallVector<Value> {
      Value row = rowOf(r);
      // s[jj] = q[row, :] . k[j0 + jj, :]
      if (headInnermost) {
        // One dot product a key, over contiguous rows of q and k; its
        // sum may reassociate, so LLVM vectorizes it (BERT's K is
        // [batch, key, head, 64]: the other order read k 3 KB apart).
        auto fastmath = arith::FastMathFlagsAttr::get(
            b.getContext(),
            arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
        forEach(block, [&](Value jj) {
          Value j = b.create<arith::AddIOp>(loc, j0, jj);
          Value dot = fold(headSize, 1, {zero}, [&](Value c, ValueRange sum) {
            Value qc =
                load(q, indices(q, layout.query, layout.querySelect, row, c));
            Value kc = load(k, keyIndices(c, j));
            Value prod = b.create<arith::MulFOp>(loc, qc, kc, fastmath);
            return SmallVector<Value>{
                b.create<arith::AddFOp>(loc, sum[0], prod, fastmath)};
          })[0];
          b.create<memref::StoreOp>(loc, dot, scores, jj);
        });
      } else {
        forEach(block, [&](Value jj) {
          b.create<memref::StoreOp>(loc, zero, scores, jj);
        });
        forEach(headSize, [&](Value c) {
          Value qc =
              load(q, indices(q, layout.query, layout.querySelect, row, c));
          forEach(block, [&](Value jj) {
            Value j = b.create<arith::AddIOp>(loc, j0, jj);
            Value kc = load(k, keyIndices(c, j));
            Value s = b.create<memref::LoadOp>(loc, scores, jj);
            Value prod = b.create<arith::MulFOp>(loc, qc, kc, contract);
            b.create<memref::StoreOp>(
                loc, b.create<arith::AddFOp>(loc, s, prod, contract), scores,
                jj);
          });
        });
      }
      // s = s * scale + mask; the block's max.
      Value mNew = fold(block, 1, {m}, [&](Value jj, ValueRange mx) {
        Value j = b.create<arith::AddIOp>(loc, j0, jj);
        Value s = b.create<arith::MulFOp>(
            loc, b.create<memref::LoadOp>(loc, scores, jj), scale);
        if (mask)
          s = b.create<arith::AddFOp>(
              loc, s, load(mask, indices(mask, {}, {}, row, j)));
        b.create<memref::StoreOp>(loc, s, scores, jj);
        return SmallVector<Value>{b.create<arith::MaximumFOp>(loc, mx[0], s)};
      })[0];
      // p[jj] = exp(s[jj] - m), over the scores; l = l * alpha + sum(p).
      Value alpha, lNew;
      std::tie(alpha, lNew) = softmaxStep(
          block, m, mNew, l, negInf, zero,
          [&](Value jj) { return b.create<memref::LoadOp>(loc, scores, jj); },
          [&](Value p, Value jj) {
            b.create<memref::StoreOp>(loc, p, scores, jj);
          },
          sumFlags);
      // acc = acc * alpha + sum_jj p[jj] * v[j0 + jj, :], a row at a
      // time (the d loop vectorizes).
      forEach(valueSize, [&](Value d) {
        Value a = b.create<memref::LoadOp>(loc, acc, accAt(r, d));
        b.create<memref::StoreOp>(loc, b.create<arith::MulFOp>(loc, a, alpha),
                                  acc, accAt(r, d));
      });
      forEach(block, [&](Value jj) {
        Value j = b.create<arith::AddIOp>(loc, j0, jj);
        Value p = b.create<memref::LoadOp>(loc, scores, jj);
        forEach(valueSize, [&](Value d) {
          Value a = b.create<memref::LoadOp>(loc, acc, accAt(r, d));
          Value vd =
              load(v, indices(v, layout.value, layout.valueSelect, j, d));
          b.create<memref::StoreOp>(
              loc,
              b.create<arith::AddFOp>(
                  loc, a, b.create<arith::MulFOp>(loc, p, vd, contract),
                  contract),
              acc, accAt(r, d));
        });
      });
      return {mNew, lNew};
    };
    // Over blocks of keys, carrying the running max m and sum l; several
    // rows keep theirs in private memory, and take each block in turn.
    SmallVector<Value> stats;
    if (grouped) {
      fold(keys, block, {}, [&](Value j0, ValueRange) -> SmallVector<Value> {
        forEach(rowGroup, [&](Value r) {
          SmallVector<Value> next =
              keyBlock(r, j0, b.create<memref::LoadOp>(loc, maxima, r),
                       b.create<memref::LoadOp>(loc, sums, r));
          b.create<memref::StoreOp>(loc, next[0], maxima, r);
          b.create<memref::StoreOp>(loc, next[1], sums, r);
        });
        return {};
      });
    } else {
      stats = llvm::to_vector(
          fold(keys, block, {negInf, zero},
               [&](Value j0, ValueRange carried) -> SmallVector<Value> {
                 return keyBlock(r0, j0, carried[0], carried[1]);
               }));
    }

    if (grouped)
      forEach(rowGroup, [&](Value r) {
        writeRow(acc, accAt, r, b.create<memref::LoadOp>(loc, sums, r),
                 valueSize);
      });
    else
      writeRow(acc, accAt, r0, stats[1], valueSize);
  }
};
} // namespace

FailureOr<scf::ParallelOp>
mlir::dlc::lowerAttentionToLoops(RewriterBase &rewriter, AttentionKernelOp op,
                                 bool dotProducts, int64_t maxRowGroup,
                                 int64_t laneTile) {
  if (!op.hasPureBufferSemantics())
    return failure();
  Location loc = op.getLoc();
  auto outType = cast<MemRefType>(op.getInit().getType());
  int64_t rank = outType.getRank();
  AttentionLayout layout = op.getLayout();
  SmallVector<int64_t> outShape =
      AttentionLayout::scatter(outType.getShape(), layout.result);
  // Query rows a work item takes: up to `maxRowGroup`, dividing the rows.
  int64_t rowGroup =
      rank >= 2 ? halvingDivisor(outShape[rank - 2], maxRowGroup) : 1;
  rewriter.setInsertionPoint(op);
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> lbs(rank - 1, zero), steps(rank - 1, one), ubs;
  for (int64_t d = 0; d < rank - 1; ++d)
    ubs.push_back(rewriter.create<arith::ConstantIndexOp>(
        loc, d == rank - 2 ? outShape[d] / rowGroup : outShape[d]));
  auto loop = rewriter.create<scf::ParallelOp>(loc, lbs, ubs, steps);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value c0 = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  AttentionBuilder builder{rewriter, loc,
                           op,       loop.getInductionVars(),
                           rank,     rewriter.getF32Type(),
                           c0,       layout,
                           outShape, dotProducts,
                           rowGroup, laneTile};
  builder.build();
  rewriter.eraseOp(op);
  return loop;
}
