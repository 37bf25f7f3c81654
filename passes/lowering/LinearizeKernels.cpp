//===- LinearizeKernels.cpp - kernels as 1-D parallel loops ------*- C++
//-*-===//
//
// Both targets share one kernel form: a single scf.parallel from 0 to the
// number of work items, reductions sequential inside. CUDA maps it to
// threads, the host to ranges on its thread pool.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/lowering/KernelForm.h"

#include "dialects/dlc/DlcDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_LINEARIZEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// `width` elements per work item are 128-bit accesses for 32-bit data;
/// kernels that store narrower elements (f16, bf16, i8) take as many more
/// as keep their stores 128-bit wide.
int64_t vectorWidthFor(scf::ParallelOp loop, int64_t width) {
  if (width <= 1)
    return width;
  unsigned minBits = 32;
  loop.walk([&](memref::StoreOp store) {
    Type t = store.getValueToStore().getType();
    if (t.isIntOrFloat())
      minBits = std::min(minBits, std::max(8u, t.getIntOrFloatBitWidth()));
  });
  return width * (32 / minBits);
}

/// Whether the work item runs a loop (a reduction) rather than straight-line
/// code.
bool loopsOverReduction(scf::ParallelOp loop) {
  return loop.getBody()
      ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The work items of `loop` (its static trip counts multiplied); none when a
/// bound is not constant.
std::optional<int64_t> tripCount(scf::ParallelOp loop) {
  int64_t count = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
         s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    count *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
  }
  return count;
}

struct LinearizeKernelsPass
    : dlc::impl::LinearizeKernelsPassBase<LinearizeKernelsPass> {
  using LinearizeKernelsPassBase::LinearizeKernelsPassBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      // CTA programs (dlc-tile-gemm-kernels) are already linearized.
      if (func->hasAttr(attrs::kKernel) && !func->hasAttr(attrs::kCtaThreads) &&
          failed(linearize(func)))
        return signalPassFailure();
  }

  LogicalResult linearize(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    unsigned numOps = 0;
    func.walk([&](Operation *op) {
      numOps += isa<linalg::LinalgOp, AttentionKernelOp>(op);
    });
    if (numOps == 0)
      return func.emitOpError("expected structured ops in a kernel");
    FailureOr<scf::ParallelOp> nest =
        lowerKernelToLoopNest(rewriter, func, rowWorkItems);
    if (failed(nest))
      return func.emitOpError("ops do not fuse into one parallel loop nest");
    Block &body = func.getBody().front();
    int64_t width = vectorWidth;
    if (minThreads > 0 && width > 1 && loopsOverReduction(*nest))
      if (std::optional<int64_t> items = tripCount(*nest))
        if (*items / width < minThreads)
          width = 1;
    scf::ParallelOp loop =
        splitInnermostDim(rewriter, *nest, vectorWidthFor(*nest, width));
    if (loop == *nest)
      loop = splitInnermostDim(rewriter, *nest, width);
    std::optional<int64_t> workItems = tripCount(loop);
    if (!workItems)
      return loop.emitOpError("expected static loop bounds");
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
      loop = *body.getOps<scf::ParallelOp>().begin();
    }
    // Collapsing computes the bound with arith ops; pin it to the constant
    // so that both targets read the work item count off the loop.
    rewriter.setInsertionPoint(loop);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), 1);
    Value count =
        rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), *workItems);
    auto lb = getConstantIntValue(loop.getLowerBound()[0]);
    auto step = getConstantIntValue(loop.getStep()[0]);
    if (!lb || !step || *lb != 0 || *step != 1)
      return loop.emitOpError("expected a normalized loop");
    loop.getLowerBoundMutable().assign(zero);
    loop.getUpperBoundMutable().assign(count);
    loop.getStepMutable().assign(one);
    func->setAttr(attrs::kWorkItems, rewriter.getI64IntegerAttr(*workItems));
    return success();
  }
};
} // namespace
