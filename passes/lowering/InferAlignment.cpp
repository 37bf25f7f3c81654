//===- InferAlignment.cpp - alignment of kernel loads and stores -*- C++
//-*-===//
//
// MLIR 19's vector loads and stores lower to LLVM accesses aligned to their
// element only. Their addresses are built aligned (16-byte aligned buffer
// arguments, indices that are multiples of the vector width), but LLVM's
// InstCombine splits a GEP of a sum into a chain of GEPs before its
// alignment inference looks, and the chain is deeper than its known-bits
// analysis goes: a GEMM epilogue's f16 pair was then stored as two 16-bit
// stores. This pass computes the alignment on the LLVM dialect, where the
// address is still the GEP of one index built by dlc, and writes it on the
// access.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mlir::dlc {
#define GEN_PASS_DEF_INFERALIGNMENTPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;

namespace {
/// The largest alignment written (a 128-bit access needs 16).
constexpr uint64_t kMaxAlign = 16;
/// How deep the index and pointer expressions are followed.
constexpr unsigned kMaxDepth = 24;

struct AlignmentAnalysis {
  explicit AlignmentAnalysis(const DataLayout &layout) : layout(layout) {}

  const DataLayout &layout;
  DenseMap<Value, unsigned> zeros;
  DenseMap<Value, uint64_t> aligns;
  SymbolTableCollection tables;

  /// `compute()` for `v`, remembered in `memo`; `unknown` past kMaxDepth
  /// (the safe answer: no trailing zeros, byte alignment).
  template <typename T, typename Fn>
  static T memoized(DenseMap<Value, T> &memo, Value v, unsigned depth,
                    T unknown, Fn compute) {
    if (depth > kMaxDepth)
      return unknown;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    T result = compute();
    memo[v] = result;
    return result;
  }

  /// Known trailing zero bits of the integer `v` (at most 32).
  unsigned trailingZeros(Value v, unsigned depth = 0) {
    return memoized(zeros, v, depth, 0u, [&] { return compute(v, depth); });
  }

  unsigned compute(Value v, unsigned depth) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.isZero() ? 32 : std::min(32u, c.countr_zero());
    Operation *op = v.getDefiningOp();
    if (!op)
      return 0;
    auto tz = [&](Value x) { return trailingZeros(x, depth + 1); };
    return llvm::TypeSwitch<Operation *, unsigned>(op)
        .Case([&](LLVM::MulOp m) {
          return std::min(32u, tz(m.getLhs()) + tz(m.getRhs()));
        })
        .Case([&](LLVM::ShlOp s) {
          APInt by;
          if (!matchPattern(s.getRhs(), m_ConstantInt(&by)))
            return 0u;
          return unsigned(
              std::min<uint64_t>(32, tz(s.getLhs()) + by.getLimitedValue(32)));
        })
        .Case<LLVM::AddOp, LLVM::SubOp, LLVM::OrOp>([&](Operation *o) {
          return std::min(tz(o->getOperand(0)), tz(o->getOperand(1)));
        })
        .Case([&](LLVM::AndOp a) {
          return std::max(tz(a.getLhs()), tz(a.getRhs()));
        })
        .Case([&](LLVM::SelectOp s) {
          return std::min(tz(s.getTrueValue()), tz(s.getFalseValue()));
        })
        .Case<LLVM::SExtOp, LLVM::ZExtOp>(
            [&](Operation *o) { return tz(o->getOperand(0)); })
        .Case([&](LLVM::TruncOp t) {
          return std::min(tz(t.getArg()), t.getType().getIntOrFloatBitWidth());
        })
        .Default([](Operation *) { return 0u; });
  }

  /// Known alignment in bytes of the pointer `p`.
  uint64_t alignment(Value p, unsigned depth = 0) {
    return memoized<uint64_t>(aligns, p, depth, 1,
                              [&] { return computeAlignment(p, depth); });
  }

  uint64_t computeAlignment(Value p, unsigned depth) {
    if (auto arg = dyn_cast<BlockArgument>(p)) {
      auto func = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
      if (!func || arg.getOwner() != &func.getBody().front())
        return 1;
      if (auto align = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), LLVM::LLVMDialect::getAlignAttrName()))
        return std::max<uint64_t>(1, align.getInt());
      return 1;
    }
    Operation *op = p.getDefiningOp();
    if (!op)
      return 1;
    if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
      auto indices = gep.getIndices();
      if (indices.size() != 1)
        return 1;
      std::optional<uint64_t> size = elementSize(gep.getElemType());
      if (!size || *size == 0)
        return 1;
      uint64_t base = alignment(gep.getBase(), depth + 1);
      uint64_t step;
      if (auto attr = dyn_cast<IntegerAttr>(indices[0]))
        step = attr.getInt() == 0
                   ? kMaxAlign
                   : uint64_t(1) << std::min<unsigned>(
                         6, llvm::countr_zero(uint64_t(attr.getInt()) * *size));
      else
        step = uint64_t(1) << std::min<unsigned>(
                   6, llvm::countr_zero(*size) +
                          trailingZeros(cast<Value>(indices[0]), depth + 1));
      return std::min(base, step);
    }
    if (auto extract = dyn_cast<LLVM::ExtractValueOp>(op)) {
      // A memref descriptor's allocated or aligned pointer: the value that
      // was inserted there.
      ArrayRef<int64_t> pos = extract.getPosition();
      for (Value s = extract.getContainer(); s;) {
        auto insert = s.getDefiningOp<LLVM::InsertValueOp>();
        if (!insert)
          return 1;
        ArrayRef<int64_t> at = insert.getPosition();
        if (at == pos)
          return alignment(insert.getValue(), depth + 1);
        // An insert into or around the field: not followed.
        size_t common = std::min(at.size(), pos.size());
        if (at.take_front(common) == pos.take_front(common))
          return 1;
        s = insert.getContainer();
      }
      return 1;
    }
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      if (auto global = addr.getGlobal(tables))
        return std::max<uint64_t>(1, global.getAlignment().value_or(1));
      return 1;
    }
    if (isa<LLVM::AddrSpaceCastOp, LLVM::BitcastOp>(op))
      return alignment(op->getOperand(0), depth + 1);
    return 1;
  }

  std::optional<uint64_t> elementSize(Type t) {
    if (!LLVM::isCompatibleType(t) || isa<LLVM::LLVMStructType>(t))
      return std::nullopt;
    return layout.getTypeSize(t);
  }
};

/// Raises `op`'s alignment to what its address is known to have (at most
/// kMaxAlign). Also past the access's own size: LLVM's load/store
/// vectorizer joins adjacent scalar accesses into a vector one only when
/// the first is aligned to the vector.
template <typename AccessOp>
void raise(AccessOp op, Value address, AlignmentAnalysis &an) {
  uint64_t known = std::min<uint64_t>(an.alignment(address), kMaxAlign);
  if (known > op.getAlignment().value_or(0))
    op.setAlignment(known);
}

struct InferAlignmentPass
    : dlc::impl::InferAlignmentPassBase<InferAlignmentPass> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      DataLayout layout = DataLayout::closest(func);
      AlignmentAnalysis an(layout);
      func.walk([&](Operation *op) {
        if (auto store = dyn_cast<LLVM::StoreOp>(op))
          raise(store, store.getAddr(), an);
        else if (auto load = dyn_cast<LLVM::LoadOp>(op))
          raise(load, load.getAddr(), an);
      });
    });
  }
};
} // namespace
