//===- VectorizeLaneChains.cpp - one vector op for a work item's lanes ----===//
//
// After dlc-vectorize-element-accesses, a work item's consecutive elements
// arrive in one vector load and leave in one vector store, but what happens
// in between is still one scalar op per element: lane k extracts its
// element, computes, and stores to its own accumulator or into the stored
// vector. Where every lane computes the same thing, this pass makes the
// lanes' ops one op on the vector, which the GPU runs two 16-bit lanes at a
// time (f16x2, and 8-bit max/min as two u16x2 maxima of the bytes).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_VECTORIZELANECHAINSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// How the lanes of one value of a chain come about: the same value in
/// every lane, lane k of one vector, lane k's element of a private
/// accumulator, or one op per lane over such operands.
struct Node {
  enum Kind { Invariant, Extract, AccLoad, Op } kind;
  /// Invariant: the value; Extract: the vector.
  Value value;
  /// AccLoad: the loads, lane by lane; Op: the ops.
  SmallVector<Operation *> lanes;
  SmallVector<std::unique_ptr<Node>> operands;
};

/// A private accumulator: a memref.alloca.
bool isAlloca(Value memref) {
  return memref.getDefiningOp<memref::AllocaOp>() != nullptr;
}

/// Element types two of which share a 32-bit register lane (16-bit) or
/// that the byte maxima pack (8-bit).
bool packable(Type t) {
  return t.isIntOrFloat() && !t.isInteger(1) &&
         (t.getIntOrFloatBitWidth() == 8 || t.getIntOrFloatBitWidth() == 16);
}

class LaneChains {
public:
  LaneChains(Block &block, bool packBytes)
      : block(block), packBytes(packBytes) {}

  /// Vectorizes every chain of `block` that ends in a vector.from_elements
  /// or in a run of stores to one accumulator's consecutive elements.
  void run() {
    SmallVector<vector::FromElementsOp> gathers;
    for (Operation &op : block)
      if (auto fe = dyn_cast<vector::FromElementsOp>(op))
        gathers.push_back(fe);
    for (vector::FromElementsOp fe : gathers)
      vectorizeGather(fe);
    for (SmallVector<memref::StoreOp> &run : storeRuns())
      vectorizeStores(run);
  }

private:
  Block &block;
  bool packBytes;

  /// The lanes' values as one Node, or null where they are not one chain.
  std::unique_ptr<Node> analyze(ArrayRef<Value> lanes, int depth = 0) {
    int64_t n = lanes.size();
    Type type = lanes[0].getType();
    if (depth > 32 || !packable(type))
      return nullptr;
    auto node = std::make_unique<Node>();
    if (llvm::all_equal(lanes)) {
      node->kind = Node::Invariant;
      node->value = lanes[0];
      return node;
    }
    // Lane k of one vector of exactly the lanes.
    Value source;
    bool extracts = true;
    for (auto [k, v] : llvm::enumerate(lanes)) {
      auto ex = v.getDefiningOp<vector::ExtractOp>();
      if (!ex || ex.getNumIndices() != 1 || !ex.getDynamicPosition().empty() ||
          ex.getStaticPosition()[0] != int64_t(k) ||
          (source && ex.getVector() != source)) {
        extracts = false;
        break;
      }
      source = ex.getVector();
    }
    if (extracts &&
        cast<VectorType>(source.getType()).getShape() == ArrayRef<int64_t>{n}) {
      node->kind = Node::Extract;
      node->value = source;
      return node;
    }
    // Lane k's element of an accumulator: consecutive constant innermost
    // indices, the others the same.
    if (auto first = lanes[0].getDefiningOp<memref::LoadOp>()) {
      std::optional<int64_t> base =
          first.getIndices().empty()
              ? std::nullopt
              : getConstantIntValue(first.getIndices().back());
      bool ok =
          base && isAlloca(first.getMemRef()) && first->getBlock() == &block;
      for (auto [k, v] : llvm::enumerate(lanes)) {
        auto load = v.getDefiningOp<memref::LoadOp>();
        if (!ok || !load || load.getMemRef() != first.getMemRef() ||
            load->getBlock() != &block ||
            !llvm::equal(load.getIndices().drop_back(),
                         first.getIndices().drop_back()) ||
            getConstantIntValue(load.getIndices().back()) !=
                *base + int64_t(k) ||
            !load->hasOneUse()) {
          ok = false;
          break;
        }
        node->lanes.push_back(load);
      }
      if (ok) {
        node->kind = Node::AccLoad;
        return node;
      }
      return nullptr;
    }
    // One elementwise op a lane, the same in each, its result used once.
    Operation *first = lanes[0].getDefiningOp();
    if (!first || first->getBlock() != &block || first->getNumResults() != 1 ||
        first->getNumRegions() != 0 ||
        !first->hasTrait<OpTrait::Elementwise>() || !isMemoryEffectFree(first))
      return nullptr;
    for (Value v : lanes) {
      Operation *op = v.getDefiningOp();
      if (!op || op->getName() != first->getName() ||
          op->getBlock() != &block ||
          op->getAttrDictionary() != first->getAttrDictionary() ||
          op->getNumOperands() != first->getNumOperands() || !op->hasOneUse())
        return nullptr;
      node->lanes.push_back(op);
    }
    node->kind = Node::Op;
    for (unsigned i = 0; i < first->getNumOperands(); ++i) {
      SmallVector<Value> operand;
      for (Operation *op : node->lanes)
        operand.push_back(op->getOperand(i));
      // A select's condition stays one scalar for all lanes: a vector of
      // i1 would be taken apart again.
      if (isa<arith::SelectOp>(first) && i == 0) {
        if (!llvm::all_equal(operand))
          return nullptr;
        auto cond = std::make_unique<Node>();
        cond->kind = Node::Invariant;
        cond->value = operand[0];
        node->operands.push_back(std::move(cond));
        continue;
      }
      std::unique_ptr<Node> child = analyze(operand, depth + 1);
      if (!child)
        return nullptr;
      node->operands.push_back(std::move(child));
    }
    return node;
  }

  /// Every op of `node`'s tree, and the memrefs its leaves load.
  static void collect(const Node &node, SmallVector<Operation *> &ops,
                      SetVector<Value> &memrefs) {
    if (node.kind == Node::AccLoad) {
      memrefs.insert(cast<memref::LoadOp>(node.lanes[0]).getMemRef());
      llvm::append_range(ops, node.lanes);
    }
    if (node.kind == Node::Op)
      llvm::append_range(ops, node.lanes);
    for (const auto &child : node.operands)
      collect(*child, ops, memrefs);
  }

  /// Whether moving the chain's accumulator loads (and `stores`) to `at`
  /// keeps what they read and write: no other op between the chain's first
  /// op and `at` accesses their memrefs.
  bool movable(const Node &root, Operation *at, ArrayRef<Operation *> stores) {
    SmallVector<Operation *> ops(stores);
    SetVector<Value> memrefs;
    collect(root, ops, memrefs);
    for (Operation *s : stores)
      memrefs.insert(cast<memref::StoreOp>(s).getMemRef());
    Operation *begin = at;
    for (Operation *op : ops)
      if (op->isBeforeInBlock(begin))
        begin = op;
    DenseSet<Operation *> group(ops.begin(), ops.end());
    for (Operation *op = begin; op != at; op = op->getNextNode()) {
      if (group.contains(op))
        continue;
      WalkResult r = op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (memrefs.contains(v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return false;
    }
    return true;
  }

  /// `node` as one vector of `n` lanes, built before `b`'s point.
  Value build(OpBuilder &b, const Node &node, int64_t n, bool scalar = false) {
    Location loc = b.getInsertionPoint()->getLoc();
    switch (node.kind) {
    case Node::Invariant:
      if (scalar)
        return node.value;
      return b.create<vector::BroadcastOp>(
          loc, VectorType::get({n}, node.value.getType()), node.value);
    case Node::Extract:
      return node.value;
    case Node::AccLoad: {
      auto load = cast<memref::LoadOp>(node.lanes[0]);
      return b.create<vector::LoadOp>(loc, VectorType::get({n}, load.getType()),
                                      load.getMemRef(), load.getIndices());
    }
    case Node::Op:
      break;
    }
    Operation *first = node.lanes[0];
    SmallVector<Value> operands;
    for (auto [i, child] : llvm::enumerate(node.operands))
      operands.push_back(
          build(b, *child, n, isa<arith::SelectOp>(first) && i == 0));
    auto type = VectorType::get({n}, first->getResult(0).getType());
    if (packBytes && type.getElementType().isInteger(8) && n % 4 == 0)
      if (Value packed = byteMinMax(b, loc, first, operands[0], operands[1]))
        return packed;
    OperationState state(loc, first->getName());
    state.addOperands(operands);
    state.addTypes(type);
    state.addAttributes(first->getAttrs());
    return b.create(state)->getResult(0);
  }

  /// An 8-bit max or min of vectors `a` and `b` as two of 16-bit lanes
  /// (GPUs have max.u16x2, not bytes): the even and the odd bytes of each
  /// 32-bit word zero-extended to 16 bits, signed bytes first biased by
  /// 0x80 (which keeps their order unsigned), put back together after.
  /// Null for other ops.
  Value byteMinMax(OpBuilder &b, Location loc, Operation *op, Value a,
                   Value bv) {
    bool isSigned = isa<arith::MaxSIOp, arith::MinSIOp>(op);
    bool isMax = isa<arith::MaxSIOp, arith::MaxUIOp>(op);
    if (!isa<arith::MaxSIOp, arith::MaxUIOp, arith::MinSIOp, arith::MinUIOp>(
            op))
      return Value();
    auto vt = cast<VectorType>(a.getType());
    int64_t words = vt.getNumElements() / 4;
    auto i32s = VectorType::get({words}, b.getI32Type());
    auto i16s = VectorType::get({2 * words}, b.getI16Type());
    auto splat = [&](uint32_t v) {
      return b.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(v)));
    };
    Value bias = isSigned ? splat(0x80808080) : Value();
    auto word = [&](Value v) -> Value {
      Value w = b.create<vector::BitCastOp>(loc, i32s, v);
      return bias ? b.create<arith::XOrIOp>(loc, w, bias) : w;
    };
    Value wa = word(a);
    Value wb = word(bv);
    Value mask = splat(0x00ff00ff), eight = splat(8);
    auto half = [&](Value w, bool odd) -> Value {
      if (odd)
        w = b.create<arith::ShRUIOp>(loc, w, eight);
      return b.create<vector::BitCastOp>(loc, i16s,
                                         b.create<arith::AndIOp>(loc, w, mask));
    };
    auto pick = [&](bool odd) -> Value {
      Value x = half(wa, odd);
      Value y = half(wb, odd);
      Value m = isMax ? b.create<arith::MaxUIOp>(loc, x, y).getResult()
                      : b.create<arith::MinUIOp>(loc, x, y).getResult();
      return b.create<vector::BitCastOp>(loc, i32s, m);
    };
    Value even = pick(false);
    Value odd = b.create<arith::ShLIOp>(loc, pick(true), eight);
    Value r = b.create<arith::OrIOp>(loc, even, odd);
    if (bias)
      r = b.create<arith::XOrIOp>(loc, r, bias);
    return b.create<vector::BitCastOp>(loc, vt, r);
  }

  /// Erases the chain's scalar ops the vector replaced, last first.
  static void eraseDead(const Node &node) {
    for (Operation *op : llvm::reverse(node.lanes))
      if (op->use_empty())
        op->erase();
    for (const auto &child : node.operands)
      eraseDead(*child);
  }

  void vectorizeGather(vector::FromElementsOp fe) {
    auto type = fe.getType();
    if (type.getRank() != 1 || type.getNumElements() < 2)
      return;
    SmallVector<Value> lanes(fe.getElements());
    std::unique_ptr<Node> root = analyze(lanes);
    if (!root || (root->kind != Node::Op && root->kind != Node::AccLoad) ||
        !movable(*root, fe, {}))
      return;
    OpBuilder b(fe);
    Value v = build(b, *root, type.getNumElements());
    fe.getResult().replaceAllUsesWith(v);
    fe.erase();
    eraseDead(*root);
  }

  /// Runs of stores of one accumulator's consecutive elements (constant
  /// innermost indices, the others the same), each element stored once in
  /// the block, 2 to 16 of them.
  SmallVector<SmallVector<memref::StoreOp>> storeRuns() {
    DenseMap<Operation *, SmallVector<memref::StoreOp>> byBuffer;
    DenseMap<Operation *, bool> spoiled;
    SmallVector<Operation *> order;
    for (Operation &op : block) {
      auto store = dyn_cast<memref::StoreOp>(op);
      if (!store || !isAlloca(store.getMemRef()) || store.getIndices().empty())
        continue;
      Operation *alloca = store.getMemRef().getDefiningOp();
      std::optional<int64_t> at =
          getConstantIntValue(store.getIndices().back());
      if (!at || !packable(store.getValueToStore().getType())) {
        spoiled[alloca] = true;
        continue;
      }
      if (!byBuffer.count(alloca))
        order.push_back(alloca);
      byBuffer[alloca].push_back(store);
    }
    SmallVector<SmallVector<memref::StoreOp>> runs;
    for (Operation *alloca : order) {
      if (spoiled.lookup(alloca))
        continue;
      SmallVector<memref::StoreOp> stores = byBuffer[alloca];
      llvm::sort(stores, [](memref::StoreOp x, memref::StoreOp y) {
        return *getConstantIntValue(x.getIndices().back()) <
               *getConstantIntValue(y.getIndices().back());
      });
      int64_t n = stores.size();
      int64_t base = *getConstantIntValue(stores[0].getIndices().back());
      bool run = n >= 2 && n <= 16;
      for (auto [k, s] : llvm::enumerate(stores))
        run &=
            *getConstantIntValue(s.getIndices().back()) == base + int64_t(k) &&
            llvm::equal(s.getIndices().drop_back(),
                        stores[0].getIndices().drop_back());
      if (run)
        runs.push_back(stores);
    }
    return runs;
  }

  /// Whether the chain reads the stores' accumulator, if at all, at the
  /// elements it stores (lane k's own): loading them all before the stores
  /// then reads what each lane read.
  static bool readsOwnElements(const Node &node, memref::StoreOp first) {
    if (node.kind == Node::AccLoad) {
      auto load = cast<memref::LoadOp>(node.lanes[0]);
      if (load.getMemRef() == first.getMemRef() &&
          !llvm::equal(load.getIndices(), first.getIndices()))
        return false;
    }
    return llvm::all_of(node.operands, [&](const auto &child) {
      return readsOwnElements(*child, first);
    });
  }

  void vectorizeStores(MutableArrayRef<memref::StoreOp> run) {
    SmallVector<Value> lanes;
    SmallVector<Operation *> stores;
    Operation *last = run[0];
    for (memref::StoreOp s : run) {
      lanes.push_back(s.getValueToStore());
      stores.push_back(s);
      if (last->isBeforeInBlock(s))
        last = s;
    }
    std::unique_ptr<Node> root = analyze(lanes);
    if (!root || !readsOwnElements(*root, run[0]) ||
        !movable(*root, last, stores))
      return;
    // Stored values used elsewhere too stay.
    if (root->kind == Node::Op || root->kind == Node::AccLoad)
      for (Operation *op : root->lanes)
        if (!op->hasOneUse())
          return;
    int64_t n = run.size();
    OpBuilder b(last);
    Value v = build(b, *root, n);
    b.create<vector::StoreOp>(last->getLoc(), v, run[0].getMemRef(),
                              run[0].getIndices());
    for (Operation *s : stores)
      s->erase();
    eraseDead(*root);
  }
};

struct VectorizeLaneChainsPass
    : dlc::impl::VectorizeLaneChainsPassBase<VectorizeLaneChainsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(attrs::kKernel) || func->hasAttr(attrs::kCtaThreads) ||
          !func->hasAttr(attrs::kDistinctArgs))
        return;
      SmallVector<Block *> blocks;
      func.walk([&](Block *b) { blocks.push_back(b); });
      for (Block *b : blocks)
        LaneChains(*b, packBytes).run();
    });
  }
};
} // namespace
