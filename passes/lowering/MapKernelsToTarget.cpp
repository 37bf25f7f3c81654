//===- MapKernelsToTarget.cpp - work items to threads or ranges --*- C++
//-*-===//
//
// The two ends of the shared kernel form (see LinearizeKernels.cpp): CUDA
// threads in fixed-size blocks, or a [begin, end) range per host task.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_MAPKERNELSTOGPUPASS
#define GEN_PASS_DEF_MAPKERNELSTOHOSTPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// The work item loop of a linearized kernel. Canonicalization folds away
/// the loop of a single work item; it is restored here.
FailureOr<scf::ParallelOp> workItemLoop(RewriterBase &rewriter,
                                        func::FuncOp func) {
  auto loops =
      llvm::to_vector(func.getBody().front().getOps<scf::ParallelOp>());
  auto items = func->getAttrOfType<IntegerAttr>(attrs::kWorkItems);
  if (loops.empty() && items && items.getInt() == 1)
    return wrapInSingleWorkItem(rewriter, func);
  if (loops.size() != 1 || loops[0].getNumLoops() != 1 || !items)
    return func.emitOpError("is not a linearized kernel (run "
                            "dlc-linearize-kernels first)");
  return loops[0];
}

/// Moves the body of `loop` before `loop` with its induction variable
/// replaced by `iv`, then erases the loop.
void inlineLoopBody(RewriterBase &rewriter, scf::ParallelOp loop, Value iv) {
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, loop, ValueRange{iv});
  rewriter.eraseOp(loop);
}

struct MapKernelsToGpuPass
    : dlc::impl::MapKernelsToGpuPassBase<MapKernelsToGpuPass> {
  using MapKernelsToGpuPassBase::MapKernelsToGpuPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attrs::kKernel))
        kernels.push_back(func);
    if (kernels.empty())
      return;
    if (blockSize <= 0 || blockSize > 1024) {
      module.emitError("block-size must be in [1, 1024]");
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    OpBuilder b(ctx);
    IRRewriter rewriter(ctx);
    for (func::FuncOp func : kernels) {
      FailureOr<scf::ParallelOp> loop = workItemLoop(rewriter, func);
      if (failed(loop))
        return signalPassFailure();
      int64_t items =
          cast<IntegerAttr>(func->getAttr(attrs::kWorkItems)).getInt();
      // A CTA program's work item is a block of its own thread count.
      auto ctaThreads = func->getAttrOfType<IntegerAttr>(attrs::kCtaThreads);
      int64_t threads = ctaThreads ? ctaThreads.getInt() : blockSize;
      int64_t grid = ctaThreads ? items : cudaLaunchShape(items, blockSize).grid;
      if (grid > INT32_MAX) {
        func.emitOpError("needs more than 2^31 blocks");
        return signalPassFailure();
      }

      // One gpu.module per kernel, named after it (the function is erased
      // below): the NVVM lowering and serialization run on them in parallel.
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule =
          b.create<gpu::GPUModuleOp>(func.getLoc(), func.getName());
      b.setInsertionPoint(gpuModule.getBody()->getTerminator());
      auto kernel = b.create<gpu::GPUFuncOp>(func.getLoc(), func.getName(),
                                             func.getFunctionType());
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                      UnitAttr::get(ctx));
      kernel->setAttr(attrs::kGrid,
                      b.getDenseI32ArrayAttr({(int32_t)grid, 1, 1}));
      kernel->setAttr(attrs::kBlock,
                      b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
      kernel->setAttr(attrs::kWorkItems, func->getAttr(attrs::kWorkItems));
      if (func->hasAttr(attrs::kDistinctArgs))
        kernel->setAttr(attrs::kDistinctArgs, UnitAttr::get(ctx));
      markNoAliasArguments(kernel);
      markAlignedArguments(kernel);
      kernel->setAttr(kernel.getKnownBlockSizeAttrName(),
                      b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));

      // Move the body over; the gpu.func entry block already exists.
      Block &entry = kernel.getBody().front();
      Block &old = func.getBody().front();
      rewriter.eraseOp(old.getTerminator());
      rewriter.inlineBlockBefore(&old, &entry, entry.end(),
                                 entry.getArguments());
      rewriter.setInsertionPointToEnd(&entry);
      rewriter.create<gpu::ReturnOp>(func.getLoc());

      Location loc = loop->getLoc();
      rewriter.setInsertionPoint(*loop);
      if (ctaThreads) {
        // One CTA per work item; the program indexes its own threads.
        inlineLoopBody(rewriter, *loop,
                       rewriter.create<gpu::BlockIdOp>(loc, gpu::Dimension::x));
        hoistPrivateAllocas(kernel);
        rewriter.eraseOp(func);
        continue;
      }
      // id = block_id.x * blockSize + thread_id.x; if (id < items) body.
      Value bid = rewriter.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
      Value tid = rewriter.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
      Value bs = rewriter.create<arith::ConstantIndexOp>(loc, blockSize);
      Value id = rewriter.create<arith::AddIOp>(
          loc, rewriter.create<arith::MulIOp>(loc, bid, bs), tid);
      Value n = rewriter.create<arith::ConstantIndexOp>(loc, items);
      Value inRange =
          rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, id, n);
      auto guard = rewriter.create<scf::IfOp>(loc, inRange, false);
      rewriter.moveOpBefore(*loop, guard.thenBlock()->getTerminator());
      inlineLoopBody(rewriter, *loop, id);
      hoistPrivateAllocas(kernel);
      rewriter.eraseOp(func);
    }
  }
};

struct MapKernelsToHostPass
    : dlc::impl::MapKernelsToHostPassBase<MapKernelsToHostPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(attrs::kKernel))
        continue;
      FailureOr<scf::ParallelOp> loop = workItemLoop(rewriter, func);
      if (failed(loop))
        return signalPassFailure();
      Type indexType = rewriter.getIndexType();
      unsigned n = func.getNumArguments();
      func.insertArguments({n, n}, {indexType, indexType},
                           {DictionaryAttr(), DictionaryAttr()},
                           {func.getLoc(), func.getLoc()});
      Value begin = func.getArgument(n), end = func.getArgument(n + 1);
      func.setPublic();
      markNoAliasArguments(func);

      rewriter.setInsertionPoint(*loop);
      Location loc = loop->getLoc();
      Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
      // Bounds integer range analysis can see (non-negative ids).
      Value count = loop->getUpperBound().front();
      Value lo = rewriter.create<arith::MinUIOp>(loc, begin, count);
      Value hi = rewriter.create<arith::MinUIOp>(loc, end, count);
      auto forOp = rewriter.create<scf::ForOp>(loc, lo, hi, one);
      rewriter.moveOpBefore(*loop, forOp.getBody()->getTerminator());
      inlineLoopBody(rewriter, *loop, forOp.getInductionVar());
      hoistPrivateAllocas(func);
    }
  }
};
} // namespace
