//===- Report.cpp - the compile report (--report-json) ----------*- C++ -*-===//

#include "compiler/target/Codegen.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace mlir;
using namespace mlir::dlc;

LogicalResult dlc::writeReport(ModuleOp model, const ModelSignature &signature,
                               StringRef path,
                               const llvm::json::Object *quantization) {
  llvm::json::Array kernels;
  llvm::json::Object memory;
  for (auto f : model.getOps<func::FuncOp>()) {
    if (f->hasAttr(attrs::kKernel)) {
      llvm::json::Array nodes;
      if (auto n = f->getAttrOfType<ArrayAttr>(attrs::kNodes))
        for (auto s : n.getAsRange<StringAttr>())
          nodes.push_back(s.str());
      auto items = f->getAttrOfType<IntegerAttr>(attrs::kWorkItems);
      llvm::json::Object kernel{{"name", f.getName().str()},
                                {"nodes", std::move(nodes)},
                                {"work_items", items ? items.getInt() : 0}};
      // Tensor-core CTA programs: a work item is a CTA of this many threads.
      if (auto threads = f->getAttrOfType<IntegerAttr>(attrs::kCtaThreads)) {
        kernel["cta_threads"] = threads.getInt();
        if (auto smem = f->getAttrOfType<IntegerAttr>(attrs::kSharedBytes))
          kernel["shared_bytes"] = smem.getInt();
        if (auto perSm = f->getAttrOfType<IntegerAttr>(attrs::kMinCtasPerSm))
          kernel["min_ctas_per_sm"] = perSm.getInt();
      }
      kernels.push_back(std::move(kernel));
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
      llvm::json::Object buffer{{"offset", offset.getInt()},
                                {"bytes", bytes},
                                {"first", range[0]},
                                {"last", range[1]}};
      // Written over the buffer with this index (in this list) at the call
      // where that one dies: the two share memory by design.
      if (auto of = alloc->getAttrOfType<IntegerAttr>(attrs::kInPlaceOf))
        buffer["in_place_of"] = of.getInt();
      buffers.push_back(std::move(buffer));
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
  if (quantization)
    report["quantization"] = llvm::json::Object(*quantization);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return model.emitError("cannot write ") << path << ": " << ec.message();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return success();
}

namespace {
std::string dotId(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

StringRef nodeNameOf(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().strref();
  return "";
}
} // namespace

void dlc::writeDot(ModuleOp imported, ModuleOp planned, llvm::raw_ostream &os) {
  auto main = imported.lookupSymbol<func::FuncOp>("main");
  os << "digraph dlc {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n";
  if (!main) {
    os << "}\n";
    return;
  }
  // Kernel membership: the first kernel listing a node holds it; a node
  // split over several kernels (a softmax's passes) says how many.
  llvm::StringMap<std::string> home;
  llvm::StringMap<unsigned> kernelCount;
  SmallVector<std::pair<std::string, SmallVector<std::string>>> clusters;
  for (auto f : planned.getOps<func::FuncOp>()) {
    auto nodes = f->getAttrOfType<ArrayAttr>(attrs::kNodes);
    if (!f->hasAttr(attrs::kKernel) || !nodes)
      continue;
    SmallVector<std::string> members;
    for (auto n : nodes.getAsRange<StringAttr>()) {
      ++kernelCount[n.strref()];
      if (home.try_emplace(n.strref(), f.getName().str()).second)
        members.push_back(n.str());
    }
    clusters.push_back({f.getName().str(), members});
  }
  for (BlockArgument arg : main.getArguments()) {
    auto name =
        main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "dlc.name");
    os << "  " << dotId(("input " + (name ? name.strref() : "")).str())
       << " [shape=ellipse];\n";
  }
  llvm::StringMap<std::string> labels;
  main.walk([&](Operation *op) {
    StringRef name = nodeNameOf(op);
    if (name.empty() || op->hasTrait<OpTrait::ConstantLike>())
      return;
    std::string label = (name + "\n" + op->getName().stripDialect()).str();
    if (kernelCount.lookup(name) > 1)
      label += "\n(" + std::to_string(kernelCount.lookup(name)) + " kernels)";
    labels[name] = label;
  });
  for (auto &[kernel, members] : clusters) {
    if (members.empty())
      continue;
    os << "  subgraph " << dotId("cluster_" + kernel)
       << " {\n    label=" << dotId(kernel) << "; style=rounded; color=blue;\n";
    for (const std::string &m : members)
      if (labels.count(m))
        os << "    " << dotId(m) << " [label=" << dotId(labels[m]) << "];\n";
    os << "  }\n";
  }
  for (auto &[name, label] : labels)
    if (!home.count(name))
      os << "  " << dotId(name) << " [label=" << dotId(label)
         << ", style=dashed];\n";
  // Data edges between ONNX nodes (and from the model inputs).
  std::set<std::pair<std::string, std::string>> edges;
  main.walk([&](Operation *op) {
    StringRef to = nodeNameOf(op);
    if (to.empty() || !labels.count(to))
      return;
    for (Value v : op->getOperands()) {
      std::string from;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        auto name =
            main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "dlc.name");
        from = ("input " + (name ? name.strref() : "")).str();
      } else if (Operation *def = v.getDefiningOp()) {
        StringRef n = nodeNameOf(def);
        if (n.empty() || !labels.count(n))
          continue;
        from = n.str();
      }
      if (!from.empty() && from != to)
        edges.insert({from, to.str()});
    }
  });
  for (auto &[from, to] : edges)
    os << "  " << dotId(from) << " -> " << dotId(to) << ";\n";
  os << "}\n";
}
