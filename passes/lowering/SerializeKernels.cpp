//===- SerializeKernels.cpp - gpu.modules to one linked PTX binary --------===//
//
// The NVPTX backend is the longest stage of a CUDA compile (half of
// bert_base's). gpu-module-to-binary serializes the modules one after
// another; this pass serializes them on the context's threads and links the
// PTX texts into one module, the single PTX / cubin that model.so carries.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Regex.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_SERIALIZEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// A module-scope item of a PTX module: a header directive (.version,
/// .target, .address_size), a declaration, or a function with its body.
struct PtxItem {
  std::string text;
  std::string symbol; ///< the name it declares or defines; empty for headers
  bool header = false;
  bool entry = false;
};

bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; }

/// The name an item declares: the identifier after .entry / .func (past a
/// .func's return parameter list), else the variable before its array
/// size, initializer or semicolon.
std::string declaredSymbol(StringRef text, bool &entry) {
  static const llvm::Regex function(
      "\\.(entry|func)[ \t]+(\\([^)]*\\)[ \t]*)?([A-Za-z_$][A-Za-z0-9_$]*)");
  static const llvm::Regex variable(
      "([A-Za-z_$%][A-Za-z0-9_$]*)[ \t]*(\\[[^]]*\\][ \t]*)*(=|;)");
  SmallVector<StringRef> match;
  StringRef firstLine = text.split('\n').first;
  if (function.match(firstLine, &match)) {
    entry = match[1] == "entry";
    return match[3].str();
  }
  entry = false;
  if (variable.match(text, &match))
    return match[1].str();
  return "";
}

/// Splits a PTX module as the NVPTX backend prints it into module-scope
/// items. Comments and blank lines between items are dropped.
SmallVector<PtxItem> splitPtx(StringRef ptx) {
  SmallVector<PtxItem> items;
  std::string current;
  int depth = 0;
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    ptx = rest;
    StringRef code = line.split("//").first.rtrim();
    if (current.empty() && depth == 0) {
      if (code.trim().empty())
        continue;
      StringRef directive = code.ltrim();
      if (directive.starts_with(".version") ||
          directive.starts_with(".target") ||
          directive.starts_with(".address_size")) {
        PtxItem header;
        header.text = directive.str();
        header.header = true;
        items.push_back(std::move(header));
        continue;
      }
    }
    current += line;
    current += '\n';
    depth += code.count('{') - code.count('}');
    if (depth == 0 && (code.ends_with(";") || code.ends_with("}"))) {
      PtxItem item;
      item.symbol = declaredSymbol(current, item.entry);
      item.text = std::move(current);
      current.clear();
      items.push_back(std::move(item));
    }
  }
  if (!current.empty()) {
    PtxItem item;
    item.text = std::move(current);
    items.push_back(std::move(item));
  }
  return items;
}

/// Replaces whole-identifier occurrences of `from` in `text` by `to`.
void renameSymbol(std::string &text, StringRef from, StringRef to) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find(from.data(), pos, from.size());
    if (at == std::string::npos)
      break;
    size_t end = at + from.size();
    bool whole = (at == 0 || !isIdentChar(text[at - 1])) &&
                 (end == text.size() || !isIdentChar(text[end]));
    out.append(text, pos, end - pos - (whole ? from.size() : 0));
    if (whole)
      out += to.str();
    pos = end;
  }
  out.append(text, pos);
  text = std::move(out);
}

} // namespace

FailureOr<std::string> mlir::dlc::linkPtxModules(ArrayRef<std::string> modules,
                                                 Location loc) {
  std::string linked;
  SmallVector<std::string> headers;
  llvm::StringMap<std::string> defined; // symbol -> its item's text
  for (auto [index, ptx] : llvm::enumerate(modules)) {
    SmallVector<PtxItem> items = splitPtx(ptx);
    // A symbol defined differently before gets a fresh name in this module
    // (the backend names module-scope globals per module: MLIR calls every
    // kernel's dynamic shared memory `__dynamic_shmem__0`); one defined
    // identically is shared.
    for (PtxItem &item : items) {
      if (item.symbol.empty())
        continue;
      auto known = defined.find(item.symbol);
      if (known == defined.end() || known->second == item.text)
        continue;
      if (item.entry)
        return emitError(loc, "two PTX modules define the kernel ")
               << item.symbol;
      std::string fresh;
      for (int n = 1;; ++n) {
        fresh = item.symbol + "_" + std::to_string(n);
        if (!defined.contains(fresh))
          break;
      }
      std::string old = item.symbol;
      for (PtxItem &other : items) {
        renameSymbol(other.text, old, fresh);
        if (other.symbol == old)
          other.symbol = fresh;
      }
    }
    SmallVector<std::string> moduleHeaders;
    for (PtxItem &item : items) {
      if (item.header) {
        moduleHeaders.push_back(item.text);
        if (index == 0)
          linked += item.text + "\n";
        continue;
      }
      if (!item.symbol.empty()) {
        auto [it, inserted] = defined.try_emplace(item.symbol, item.text);
        if (!inserted)
          continue; // identical to the definition already linked
      }
      linked += "\n" + item.text;
    }
    if (index == 0)
      headers = moduleHeaders;
    else if (moduleHeaders != headers)
      return emitError(loc, "PTX module ")
             << index << " has other .version/.target/.address_size "
             << "directives than the first; cannot link them";
  }
  return linked;
}

namespace {

struct SerializeKernelsPass
    : dlc::impl::SerializeKernelsPassBase<SerializeKernelsPass> {
  using SerializeKernelsPassBase::SerializeKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (kernels.empty())
      return;
    Attribute target;
    for (gpu::GPUModuleOp kernel : kernels) {
      ArrayAttr targets = kernel.getTargetsAttr();
      if (!targets || targets.size() != 1 ||
          !isa<NVVM::NVVMTargetAttr>(targets[0])) {
        kernel.emitError("needs exactly one #nvvm.target to serialize");
        return signalPassFailure();
      }
      if (target && targets[0] != target) {
        kernel.emitError("has another #nvvm.target than gpu.module @")
            << kernels.front().getName() << ": one PTX module cannot hold both";
        return signalPassFailure();
      }
      target = targets[0];
    }
    auto serializer = cast<gpu::TargetAttrInterface>(target);
    gpu::TargetOptions options(toolkitPath, {}, {},
                               gpu::CompilationTarget::Assembly);
    SmallVector<std::string> ptx(kernels.size());
    // Each serialization translates its own gpu.module in its own
    // LLVMContext; the modules are isolated from above.
    if (failed(failableParallelForEach(
            &getContext(), llvm::seq<size_t>(0, kernels.size()),
            [&](size_t i) -> LogicalResult {
              std::optional<SmallVector<char, 0>> object =
                  serializer.serializeToObject(kernels[i], options);
              if (!object)
                return kernels[i].emitError("NVPTX could not compile it");
              ptx[i].assign(object->begin(), object->end());
              // The serializer's string ends with a NUL.
              while (!ptx[i].empty() && ptx[i].back() == '\0')
                ptx[i].pop_back();
              return success();
            })))
      return signalPassFailure();

    FailureOr<std::string> linked = linkPtxModules(ptx, module.getLoc());
    if (failed(linked))
      return signalPassFailure();
    SmallVector<char, 0> bytes(linked->begin(), linked->end());
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    b.create<gpu::BinaryOp>(
        module.getLoc(), "dlc_kernels", Attribute(),
        ArrayRef<Attribute>{serializer.createObject(bytes, options)});
    for (gpu::GPUModuleOp kernel : kernels)
      kernel.erase();
  }
};

} // namespace
