//===- ExpandIntegerDivision.cpp - ceil/floor division for NVPTX -*- C++
//-*-===//
//
// arith.ceildivsi / ceildivui / floordivsi have no LLVM lowering; this pass
// expands them, and only them, in kernels bound for NVPTX. MLIR's
// arith-expand would also turn every maximumf / minimumf / maxnumf /
// minnumf into a compare and a select, which LLVM's NVPTX backend would
// otherwise emit as one max.NaN.f32 / min.f32 (sm_80+).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_EXPANDINTEGERDIVISIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;

namespace {
struct ExpandIntegerDivisionPass
    : dlc::impl::ExpandIntegerDivisionPassBase<ExpandIntegerDivisionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
