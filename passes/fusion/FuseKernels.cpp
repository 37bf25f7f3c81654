//===- FuseKernels.cpp - merge kernels whose work items line up --*- C++
//-*-===//
//
// Consecutive kernel calls of the model function merge when the ops of both
// fuse into one parallel loop nest (see KernelForm.h): the reduction's
// initialization and epilogue join the reduction, so a Conv + bias + Relu is
// one kernel. Legality is decided on a trial copy by the same code that
// dlc-linearize-kernels runs later, so a merged kernel always linearizes.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// Whether `v` is (a view of) a constant global: weights, which every
/// kernel may read in any order.
bool isConstantGlobal(Value v, SymbolTable &symbols) {
  auto get = rootBuffer(v).getDefiningOp<memref::GetGlobalOp>();
  auto global = get ? symbols.lookup<memref::GlobalOp>(get.getName()) : nullptr;
  return global && global.getConstant();
}

struct FuseKernelsPass : dlc::impl::FuseKernelsPassBase<FuseKernelsPass> {
  using FuseKernelsPassBase::FuseKernelsPassBase;
  /// Whether `kernel` contracts two 16-bit float or two int8 operands, or
  /// with `f32` two f32 ones (a GEMM or convolution a tensor core may run).
  static bool hasContraction(func::FuncOp kernel, bool f32) {
    bool found = false;
    kernel.walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 0 || op.getNumDpsInputs() < 2)
        return;
      found |= llvm::all_of(op.getDpsInputs(), [&](Value v) {
        Type t = getElementTypeOrSelf(v.getType());
        return t.isF16() || t.isBF16() || t.isInteger(8) || (f32 && t.isF32());
      });
    });
    return found;
  }


  /// The kernel `op` calls, if it is a kernel call.
  func::FuncOp kernelOf(Operation *op, SymbolTable &symbols) {
    return calledKernel(op, symbols);
  }

  /// The buffer an initializing kernel call (the fill or bias broadcast of
  /// a reduction's accumulator) writes: its only argument that is not a
  /// constant global. Null for every other call.
  Value initializedBuffer(func::CallOp call, SymbolTable &symbols) {
    Value buffer;
    for (Value arg : call.getOperands()) {
      if (isConstantGlobal(arg, symbols))
        continue;
      if (buffer)
        return nullptr;
      buffer = rootBuffer(arg);
    }
    return buffer;
  }

  /// The first op after `op` (data-free ops skipped) if it is a kernel call
  /// taking `buffer`.
  func::CallOp nextCallTaking(Operation *op, Value buffer,
                              SymbolTable &symbols) {
    for (Operation *next = op->getNextNode(); next;
         next = next->getNextNode()) {
      if (kernelOf(next, symbols))
        return llvm::any_of(next->getOperands(),
                            [&](Value v) { return rootBuffer(v) == buffer; })
                   ? cast<func::CallOp>(next)
                   : nullptr;
      if (!isDataFree(*next))
        return nullptr;
    }
    return nullptr;
  }

  /// Puts each initialization right before the first kernel that reads its
  /// buffer and merges it there first. Greedy merging in plan order would
  /// otherwise merge an independent initialization into whatever kernel
  /// precedes it (same work items, no shared data): the accumulator of a
  /// 3x3 conv was zeroed by the previous layer's kernel and crossed kernels,
  /// and a pooling's initialization between a conv and its epilogue kept
  /// them apart. Moving it is legal: the kernels it passes take none of its
  /// data (the only buffer it touches is the one it writes).
  void placeInitializations(func::FuncOp model, SymbolTable &symbols) {
    Block &block = model.getBody().front();
    SmallVector<func::CallOp> inits;
    for (Operation &op : block)
      if (kernelOf(&op, symbols) &&
          initializedBuffer(cast<func::CallOp>(op), symbols))
        inits.push_back(cast<func::CallOp>(op));
    for (func::CallOp init : inits) {
      Value buffer = initializedBuffer(init, symbols);
      for (Operation *op = init->getNextNode(); op; op = op->getNextNode()) {
        bool takesBuffer = llvm::any_of(op->getOperands(), [&](Value v) {
          return rootBuffer(v) == buffer;
        });
        if (kernelOf(op, symbols) && takesBuffer) {
          init->moveBefore(op);
          break;
        }
        if (!kernelOf(op, symbols) && !isDataFree(*op))
          break;
      }
    }
    for (Operation *op = &block.front(); op;) {
      Operation *next = op->getNextNode();
      auto call = dyn_cast<func::CallOp>(op);
      if (Value buffer = call && kernelOf(call, symbols)
                             ? initializedBuffer(call, symbols)
                             : Value())
        if (func::CallOp consumer = nextCallTaking(call, buffer, symbols))
          if (func::CallOp merged = tryMerge(call, consumer, symbols))
            next = merged->getNextNode();
      op = next;
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> models = modelFunctions(module);
    for (func::FuncOp model : models) {
      placeInitializations(model, symbols);
      func::CallOp current;
      for (Operation &op :
           llvm::make_early_inc_range(model.getBody().front())) {
        auto call = dyn_cast<func::CallOp>(op);
        auto callee =
            call ? symbols.lookup<func::FuncOp>(call.getCallee()) : nullptr;
        if (!callee || !callee->hasAttr(attrs::kKernel)) {
          if (!isDataFree(op))
            current = nullptr;
          continue;
        }
        // CUDA form: two 16-bit GEMMs (Q, K and V projections over the same
        // rows) stay separate kernels, each a tensor-core CTA program.
        bool twoContractions =
            current && !rowWorkItems &&
            hasContraction(symbols.lookup<func::FuncOp>(current.getCallee()),
                           f32Contractions) &&
            hasContraction(callee, f32Contractions);
        if (current && !twoContractions)
          if (func::CallOp merged = tryMerge(current, call, symbols)) {
            current = merged;
            continue;
          }
        current = call;
      }
    }
    // Kernels that were merged away: no call of a model function names them
    // (one walk; a use query per kernel would be quadratic).
    llvm::StringSet<> called;
    for (func::FuncOp model : models)
      model.walk([&](func::CallOp call) { called.insert(call.getCallee()); });
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func->hasAttr(attrs::kKernel) && func.isPrivate() &&
          !called.contains(func.getName()))
        func.erase();
    renameKernels(module);
  }

  /// Merged kernels carry suffixed names; number them again in plan order
  /// as k<index>_<last ONNX node>, the form outlining gives. Only the model
  /// functions' calls refer to kernels, so they are updated directly (a
  /// symbol-use walk of the module per kernel is quadratic on big models).
  void renameKernels(ModuleOp module) {
    llvm::StringMap<std::string> newNames;
    unsigned index = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(attrs::kKernel))
        continue;
      std::string name = "k" + std::to_string(index++);
      if (auto nodes = func->getAttrOfType<ArrayAttr>(attrs::kNodes);
          nodes && !nodes.empty()) {
        name += "_";
        for (char c :
             cast<StringAttr>(nodes[nodes.size() - 1]).strref().take_back(40))
          name += std::isalnum((unsigned char)c) ? c : '_';
      }
      newNames[func.getName()] = name;
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr(attrs::kKernel)) {
        SymbolTable::setSymbolName(func, newNames[func.getName()]);
        continue;
      }
      func.walk([&](func::CallOp call) {
        auto it = newNames.find(call.getCallee());
        if (it != newNames.end())
          call.setCallee(it->second);
      });
    }
  }

  /// Merges `second` into `first` when their ops fuse into one loop nest;
  /// returns the call of the merged kernel, or null.
  func::CallOp tryMerge(func::CallOp first, func::CallOp second,
                        SymbolTable &symbols) {
    // Independent kernels over the same work items merge too (the two
    // initializations of a softmax's statistics): one launch instead of two.
    llvm::SetVector<Value> args(first.getOperands().begin(),
                                first.getOperands().end());
    args.insert(second.getOperands().begin(), second.getOperands().end());
    if (args.size() > kMaxKernelArgs)
      return nullptr;
    // Distinct arguments must be distinct memory for the fusion check.
    llvm::SmallPtrSet<Value, 8> roots;
    for (Value v : args)
      if (!roots.insert(rootBuffer(v)).second)
        return nullptr;

    auto f1 = symbols.lookup<func::FuncOp>(first.getCallee());
    auto f2 = symbols.lookup<func::FuncOp>(second.getCallee());
    func::FuncOp merged = buildMerged(f1, first, f2, second, args);
    {
      // The trial: the same lowering dlc-linearize-kernels will run.
      OpBuilder b(merged);
      auto trial = cast<func::FuncOp>(b.clone(*merged));
      IRRewriter rewriter(trial.getContext());
      FailureOr<scf::ParallelOp> nest =
          lowerKernelToLoopNest(rewriter, trial, rowWorkItems);
      bool ok = succeeded(nest) &&
                !(panelRows && losesPanels(*nest, f1, f2, rewriter));
      trial.erase();
      if (!ok) {
        merged.erase();
        return nullptr;
      }
    }
    symbols.insert(merged);
    OpBuilder b(second);
    auto call =
        b.create<func::CallOp>(second.getLoc(), merged, args.getArrayRef());
    first.erase();
    second.erase();
    return call;
  }

  /// Whether a merged nest has a long reduced row that cannot be split
  /// into panels while one of the kernels `f1` and `f2` it merges can.
  static bool losesPanels(scf::ParallelOp merged, func::FuncOp f1,
                          func::FuncOp f2, RewriterBase &rewriter) {
    bool longRow = false;
    for (auto loop : merged.getBody()->getOps<scf::ForOp>())
      loop.walk([&](scf::ParallelOp row) {
        std::optional<SmallVector<int64_t>> ubs = normalizedExtents(row);
        longRow |= ubs && ubs->size() == 1 && ubs->front() > kMaxRegisterRow;
      });
    if (!longRow || splittableRowLength(merged))
      return false;
    return llvm::any_of(std::array{f1, f2}, [&](func::FuncOp f) {
      OpBuilder b(f);
      auto trial = cast<func::FuncOp>(b.clone(*f));
      FailureOr<scf::ParallelOp> nest =
          lowerKernelToLoopNest(rewriter, trial, /*rowWorkItems=*/true);
      bool splittable = succeeded(nest) && splittableRowLength(*nest);
      trial.erase();
      return splittable;
    });
  }

  /// A kernel running the ops of `f1` then those of `f2` over `args`.
  func::FuncOp buildMerged(func::FuncOp f1, func::CallOp c1, func::FuncOp f2,
                           func::CallOp c2,
                           const llvm::SetVector<Value> &args) {
    OpBuilder b(f2);
    auto type =
        b.getFunctionType(TypeRange(ValueRange(args.getArrayRef())), {});
    auto merged = b.create<func::FuncOp>(
        b.getFusedLoc({f1.getLoc(), f2.getLoc()}), f1.getName(), type);
    merged.setPrivate();
    merged->setAttr(attrs::kKernel, b.getUnitAttr());
    merged->setAttr(attrs::kDistinctArgs, b.getUnitAttr());
    SmallVector<Attribute> nodes;
    for (func::FuncOp f : {f1, f2})
      if (auto n = f->getAttrOfType<ArrayAttr>(attrs::kNodes))
        for (Attribute a : n)
          if (!llvm::is_contained(nodes, a))
            nodes.push_back(a);
    merged->setAttr(attrs::kNodes, b.getArrayAttr(nodes));
    Block *entry = merged.addEntryBlock();
    b.setInsertionPointToStart(entry);
    DenseMap<Value, unsigned> position;
    for (auto [i, v] : llvm::enumerate(args))
      position[v] = i;
    for (auto [f, call] : {std::make_pair(f1, c1), std::make_pair(f2, c2)}) {
      IRMapping mapping;
      for (auto [operand, arg] :
           llvm::zip(call.getOperands(), f.getArguments()))
        mapping.map(arg, entry->getArgument(position.lookup(operand)));
      for (Operation &op : f.getBody().front().without_terminator())
        b.clone(op, mapping);
    }
    b.create<func::ReturnOp>(merged.getLoc());
    return merged;
  }
};
} // namespace
