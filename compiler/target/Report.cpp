//===- Report.cpp - the compile report (--report-json) ----------*- C++ -*-===//

#include "compiler/target/Codegen.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::dlc;

LogicalResult dlc::writeReport(ModuleOp model, const ModelSignature &signature,
                               StringRef path) {
  llvm::json::Array kernels;
  llvm::json::Object memory;
  for (auto f : model.getOps<func::FuncOp>()) {
    if (f->hasAttr(attrs::kKernel)) {
      llvm::json::Array nodes;
      if (auto n = f->getAttrOfType<ArrayAttr>(attrs::kNodes))
        for (auto s : n.getAsRange<StringAttr>())
          nodes.push_back(s.str());
      auto items = f->getAttrOfType<IntegerAttr>(attrs::kWorkItems);
      kernels.push_back(llvm::json::Object{
          {"name", f.getName().str()},
          {"nodes", std::move(nodes)},
          {"work_items", items ? items.getInt() : 0}});
      continue;
    }
    if (f.isExternal())
      continue;
    auto get = [&](StringRef name) -> int64_t {
      auto a = f->getAttrOfType<IntegerAttr>(name);
      return a ? a.getInt() : 0;
    };
    // Every arena buffer with its live range, so tools can check the plan.
    llvm::json::Array buffers;
    f.walk([&](memref::AllocOp alloc) {
      auto offset = alloc->getAttrOfType<IntegerAttr>(attrs::kArenaOffset);
      auto range = alloc->getAttrOfType<DenseI64ArrayAttr>(attrs::kLiveRange);
      if (!offset || !range || range.size() != 2)
        return;
      MemRefType type = alloc.getType();
      int64_t bytes =
          type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
      buffers.push_back(llvm::json::Object{{"offset", offset.getInt()},
                                           {"bytes", bytes},
                                           {"first", range[0]},
                                           {"last", range[1]}});
    });
    memory["buffers"] = std::move(buffers);
    memory["arena_bytes"] = get(attrs::kArenaSize);
    memory["naive_bytes"] = get(attrs::kNaiveSize);
    memory["lower_bound_bytes"] = get(attrs::kLowerBound);
  }
  llvm::json::Object report{{"model_hash", signature.modelHash},
                            {"kernel_count", (int64_t)kernels.size()},
                            {"kernels", std::move(kernels)}};
  for (auto &kv : memory)
    report[kv.first] = std::move(kv.second);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return model.emitError("cannot write ") << path << ": " << ec.message();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return success();
}
