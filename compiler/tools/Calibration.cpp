//===- Calibration.cpp - post-training int8 quantization ----------*- C++ -*-=//

#include "compiler/tools/Calibration.h"

#include "compiler/target/Codegen.h"
#include "dialects/dlc/ConstantValues.h"
#include "dialects/dlc/DlcDialect.h"
#include "passes/Passes.h"
#include "passes/quantization/Quantization.h"

#include "dlc/runtime.hpp"
#include "tensor_io.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::dlc;

namespace {
/// One sample: a tensor per model input, in the signature's order.
using Sample = std::vector<::dlc::io::Tensor>;

/// SQNR values are capped here (an exact match has infinite SQNR).
constexpr double kMaxSqnrDb = 200.0;

void error(const llvm::Twine &msg) {
  llvm::errs() << "dlc: error: --calibrate: " << msg << "\n";
}

/// The samples of `dir`: each subdirectory (sorted by name) is one sample;
/// a directory without subdirectories is one sample itself. A sample holds
/// NAME.npy or NAME.pb for each model input NAME, or a .pb file whose
/// TensorProto is named NAME (the ONNX test-data layout, input_0.pb...).
FailureOr<std::vector<Sample>> loadSamples(StringRef dir,
                                           const ModelSignature &signature) {
  if (!llvm::sys::fs::is_directory(dir)) {
    error("'" + dir + "' is not a directory");
    return failure();
  }
  std::vector<std::string> sampleDirs, files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::fs::is_directory(it->path()))
      sampleDirs.push_back(it->path());
    else
      files.push_back(it->path());
  }
  if (ec) {
    error("cannot read '" + dir + "': " + ec.message());
    return failure();
  }
  if (sampleDirs.empty()) {
    if (files.empty()) {
      error("'" + dir +
            "' holds no samples (one subdirectory per sample with "
            "a NAME.npy or NAME.pb per model input)");
      return failure();
    }
    sampleDirs.push_back(dir.str());
  }
  llvm::sort(sampleDirs);
  std::vector<Sample> samples;
  for (const std::string &sampleDir : sampleDirs) {
    Sample sample;
    // .pb files by the name inside them, read on demand.
    std::optional<llvm::StringMap<std::string>> pbByName;
    for (const TensorSignature &input : signature.inputs) {
      std::string path;
      for (const char *ext : {".npy", ".pb"}) {
        llvm::SmallString<256> p(sampleDir);
        llvm::sys::path::append(p, input.name + ext);
        if (llvm::sys::fs::is_regular_file(p)) {
          path = p.str().str();
          break;
        }
      }
      if (path.empty()) {
        if (!pbByName) {
          pbByName.emplace();
          std::error_code ec2;
          for (llvm::sys::fs::directory_iterator it(sampleDir, ec2), end;
               it != end && !ec2; it.increment(ec2)) {
            if (llvm::sys::path::extension(it->path()) != ".pb")
              continue;
            ::dlc::io::Tensor t;
            std::string ignored;
            if (::dlc::io::readTensorFile(it->path(), &t, &ignored) &&
                !t.name.empty())
              pbByName->try_emplace(t.name, it->path());
          }
        }
        auto it = pbByName->find(input.name);
        if (it == pbByName->end()) {
          error("sample '" + sampleDir + "' has no file for input '" +
                input.name + "' (expected " + input.name + ".npy, " +
                input.name + ".pb or a .pb tensor named '" + input.name + "')");
          return failure();
        }
        path = it->second;
      }
      ::dlc::io::Tensor t;
      std::string why;
      if (!::dlc::io::readTensorFile(path, &t, &why)) {
        error("cannot read '" + path + "': " + why);
        return failure();
      }
      if (t.dtype != input.dtype || t.shape != input.shape) {
        error("'" + path + "' holds " + ::dlc::io::describe(t.dtype, t.shape) +
              " but input '" + input.name + "' is " +
              ::dlc::io::describe(input.dtype, input.shape));
        return failure();
      }
      sample.push_back(std::move(t));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

/// A Conv/Gemm/MatMul (or global average pool) dlc could quantize, in
/// program order.
struct Layer {
  std::string name, opType;
  /// Captured tensors: the activation operands, and the result.
  SmallVector<unsigned> inputs;
  unsigned output = 0;
  bool quantize = true;
  std::string keptBecause;
  double sqnrDb = 0.0;
  /// --max-error-db: the end-to-end SQNR with every other searched layer in
  /// int8 and this one in fp32, and its place in that ranking (0 = the
  /// largest gain; -1 = not searched).
  double restoredDb = 0.0;
  int rank = -1;
};

/// A tensor captured as an extra model output: operand `operand` of layer
/// `layer`, or its result when `operand` is -1.
struct Capture {
  unsigned layer;
  int operand;
};

SmallVector<Operation *> candidateOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return ops;
  main.walk([&](Operation *op) {
    if (quantizableActivationOperands(op) > 0)
      ops.push_back(op);
  });
  return ops;
}

std::string nodeName(Operation *op, unsigned index) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "layer" + std::to_string(index);
}

/// A running per-tensor range, then (percentile) a histogram over it.
struct RangeStats {
  float lo = INFINITY, hi = -INFINITY;
  std::vector<uint64_t> histogram;
  uint64_t count = 0;
};
constexpr size_t kHistogramBins = 4096;

/// The KL divergence between bins [first, last) of `hist` with the bins
/// outside folded into the two edge bins (what clipping to that range does
/// to the values) and the same bins quantized to `levels` levels, each
/// level's count spread over its non-empty bins (what the 8-bit grid keeps
/// of them): TensorRT's entropy criterion, as MXNet and ONNX Runtime
/// compute it, both distributions normalized. Infinity when the range has
/// fewer bins than levels.
double clippingDivergence(const std::vector<uint64_t> &hist, size_t first,
                          size_t last, size_t levels) {
  size_t n = last - first;
  if (n < levels)
    return INFINITY;
  std::vector<double> p(n), q(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    p[i] = (double)hist[first + i];
  for (size_t i = 0; i < first; ++i)
    p[0] += (double)hist[i];
  for (size_t i = last; i < hist.size(); ++i)
    p[n - 1] += (double)hist[i];
  for (size_t level = 0; level < levels; ++level) {
    size_t begin = level * n / levels, end = (level + 1) * n / levels;
    double sum = 0;
    size_t nonZero = 0;
    for (size_t i = begin; i < end; ++i) {
      sum += (double)hist[first + i];
      nonZero += p[i] != 0;
    }
    for (size_t i = begin; i < end && nonZero; ++i)
      if (p[i] != 0)
        q[i] = sum / (double)nonZero;
  }
  double pTotal = 0, qTotal = 0;
  for (size_t i = 0; i < n; ++i) {
    pTotal += p[i];
    qTotal += q[i];
  }
  if (!(pTotal > 0) || !(qTotal > 0))
    return INFINITY;
  // Only an edge bin holding nothing but folded outliers has q = 0 where
  // p > 0: it gets a floor instead of an infinite cost (MXNet and ONNX
  // Runtime smooth with an eps that exceeds a sparse histogram's bins).
  double kl = 0;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == 0)
      continue;
    double pi = p[i] / pTotal, qi = std::max(q[i] / qTotal, 1e-12);
    kl += pi * std::log(pi / qi);
  }
  return kl;
}

/// The bins [first, last) of an entropy-calibrated range over `hist`
/// (bins of `width` from `lo`): the clipping with the least
/// clippingDivergence at 256 levels, the range still holding zero (the
/// asymmetric grid's zero point). Each tail is searched with the other
/// fixed, twice: a rare outlier on one side (what min-max calibration
/// spends most of the grid on) is clipped without clipping the other.
/// Candidates every bins / 1024 bins.
std::pair<size_t, size_t> entropyBins(std::vector<uint64_t> hist, double lo,
                                      double width) {
  size_t bins = hist.size(), levels = 256;
  size_t zero =
      lo >= 0 ? 0 : std::min<size_t>(bins, (size_t)std::llround(-lo / width));
  // The bin holding 0 takes its neighbor's count, as NVIDIA's
  // pytorch-quantization does: a ReLU's output is half zeros, a spike that
  // the level holding it spreads over its other bins at any range wider
  // than 256 bins, so the divergence alone would clip every ReLU output to
  // the narrowest range (a small test CNN: 1.6 dB end to end).
  if (lo <= 0 && zero < bins && bins > 1)
    hist[zero] = hist[zero + 1 < bins ? zero + 1 : zero - 1];
  size_t step = std::max<size_t>(1, bins / 1024);
  size_t first = 0, last = bins;
  for (int pass = 0; pass < 2; ++pass) {
    double best = clippingDivergence(hist, first, last, levels);
    for (size_t end = std::max(first + levels, zero); end < bins; end += step)
      if (double kl = clippingDivergence(hist, first, end, levels); kl < best) {
        best = kl;
        last = end;
      }
    for (size_t begin = step; begin <= zero && begin + levels <= last;
         begin += step)
      if (double kl = clippingDivergence(hist, begin, last, levels);
          kl < best) {
        best = kl;
        first = begin;
      }
  }
  return {first, last};
}

/// An fp32 model with the captured tensors as extra outputs, compiled for
/// the host into a temporary file.
class HostModel {
public:
  ~HostModel() {
    context_.reset();
    model_.reset();
    if (!path_.empty())
      llvm::sys::fs::remove(path_);
  }
  LogicalResult compile(ModuleOp module, const CompileOptions &base) {
    llvm::SmallString<128> p;
    if (llvm::sys::fs::createTemporaryFile("dlc-calibrate", "so", p)) {
      error("cannot create a temporary file");
      return failure();
    }
    path_ = p.str().str();
    FailureOr<ModelSignature> signature = readSignature(module);
    if (failed(signature))
      return failure();
    CompileOptions options = base;
    options.target = Target::Cpu;
    options.hostRunsCudaKernelForm = false;
    // The reference is fp32, and the SQNR figures measure int8 alone: the
    // float layers stay fp32 here whatever --fallback-precision builds.
    options.reducedPrecision.clear();
    // The host's own kernels are fastest NCHW; numerics do not depend on it.
    options.convLayout = ConvLayout::Nchw;
    // This library never leaves the machine: its kernels may use every
    // instruction the CPU has (resnet50 b32, one sample on 2 cores: 38 s
    // for x86-64-v2, 21 s with AVX-512). The features are the CPU's own
    // report (cpuid), which a VM masks, not the CPU name's full set.
    useNativeHostCpu(options);
    PassManager pm(module.getContext());
    buildFrontendPipeline(pm, options);
    if (failed(pm.run(module)))
      return failure();
    FailureOr<KernelCode> code = emitHostKernels(module, options);
    if (failed(code))
      return failure();
    return writeModelLibrary(module, *signature, *code, options, "{}", path_);
  }
  /// Runs `samples` with `extra` appended to each sample's inputs (the
  /// switches of a switchable model); `fn(sample, outputs)` sees the outputs
  /// as bytes. The model is loaded on the first run and kept.
  LogicalResult
  run(ArrayRef<Sample> samples,
      const std::function<void(size_t, std::vector<std::vector<uint8_t>> &)>
          &fn,
      ArrayRef<uint8_t> extra = {}) {
    if (!context_) {
      auto model = ::dlc::Model::load(path_, ::dlc::Device::Cpu);
      if (!model) {
        error("cannot load the calibration model: " +
              model.status().toString());
        return failure();
      }
      model_ = std::make_unique<::dlc::Model>(std::move(*model));
      auto context = model_->createContext();
      if (!context) {
        error(context.status().toString());
        return failure();
      }
      context_ = std::make_unique<::dlc::Context>(std::move(*context));
      outputs_.resize(model_->outputs().size());
      for (size_t i = 0; i < outputs_.size(); ++i)
        outputs_[i].resize(model_->outputs()[i].sizeBytes);
    }
    for (size_t s = 0; s < samples.size(); ++s) {
      std::vector<::dlc::ConstBuffer> in;
      for (const ::dlc::io::Tensor &t : samples[s])
        in.emplace_back(t.data.data(), t.data.size());
      // One byte (an i1 tensor<1>) per switch.
      for (const uint8_t &b : extra)
        in.emplace_back(&b, 1);
      std::vector<::dlc::Buffer> out;
      for (auto &o : outputs_)
        out.emplace_back(o.data(), o.size());
      ::dlc::Status status = context_->run(in, out);
      if (!status) {
        error("running sample " + llvm::Twine(s) + ": " + status.toString());
        return failure();
      }
      fn(s, outputs_);
    }
    return success();
  }

private:
  std::string path_;
  std::unique_ptr<::dlc::Model> model_;
  std::unique_ptr<::dlc::Context> context_;
  std::vector<std::vector<uint8_t>> outputs_;
};

/// How Calibrator::buildModule prepares its clone of the model.
enum class Form {
  /// fp32, the captures as extra outputs (the calibration run).
  Fp32,
  /// The layers with `quantize` marked, the captures as extra outputs.
  Quantized,
  /// The layers of the --max-error-db search quantized by dlc-quantize,
  /// each quantized operand then chosen per run by `dlc.where(switch,
  /// dequantize(quantize(x)), x)` with `switch` an i1 model input appended
  /// after the real ones (true: int8); no captures. One compile serves every
  /// configuration the search measures, at about the cost of an fp32 run
  /// (a layer with both an int8 and an fp32 copy ran 2.3 times as long on
  /// resnet50). The float layer on fake-quantized operands computes what the
  /// integer kernel does but for f32 rounding and the i32 bias; the search
  /// result is checked on the real int8 model.
  Switchable,
};

/// Samples each --max-error-db ranking run measures (the bisection and the
/// pruning use all): the ranking takes one run per layer, and ranked on four
/// samples the search kept the same 5 layers of resnet50 and 10 instead of 9
/// of bert_base, at four times the ranking's cost.
constexpr size_t kRankingSamples = 1;

/// The PTQ state: layers, captures, the fp32 reference.
class Calibrator {
public:
  Calibrator(ModuleOp base, const PtqOptions &options,
             const CompileOptions &compile)
      : base_(base), options_(options), compile_(compile) {}

  FailureOr<llvm::json::Object> run();

private:
  void progress(const llvm::Twine &what) {
    if (options_.progress)
      options_.progress(what.str());
  }
  /// A clone of the base module prepared as `form` says.
  OwningOpRef<ModuleOp> buildModule(Form form);
  /// Marks `ops[i]` (the candidates of the module, in layer order) with its
  /// input ranges where `quantize(i)`.
  void mark(ArrayRef<Operation *> ops,
            llvm::function_ref<bool(unsigned)> quantize, bool outputRanges);
  /// Runs the quantized model; fills the layers' SQNR and returns the
  /// end-to-end SQNR of each float model output.
  FailureOr<std::vector<double>> evaluate();
  /// The budgeted end-to-end SQNR: the worst float output of the graph
  /// itself (tensors exposed by --keep-outputs are reported, not budgeted).
  double worst(ArrayRef<double> outputsDb) const;
  /// The --max-error-db search on a switchable model: sets `quantize` of the
  /// layers so the end-to-end SQNR reaches `targetDb` with few in fp32.
  /// With `force`, the ranking runs even where every layer in int8 meets
  /// the target on the switchable model (the real one missed it).
  LogicalResult search(double targetDb, bool force);
  /// The budgeted end-to-end SQNR of the switchable `model` with the
  /// switches `int8` (one byte per entry of switches_), over the first
  /// `samples` samples.
  FailureOr<double> measure(HostModel &model, ArrayRef<uint8_t> int8,
                            size_t samples);
  /// What a calibration's result depends on, as 16 hex digits: the module
  /// (its ops and every constant's bytes), the samples and the PTQ options.
  std::string cacheKey();
  /// The cached result for `key`: fills ranges_ and the layers' decisions
  /// and returns the report; none (with a note why) where the file is
  /// missing, does not parse or is for another key or layer list.
  std::optional<llvm::json::Object> readCache(StringRef key);
  LogicalResult writeCache(StringRef key, const llvm::json::Object &report);

  ModuleOp base_;
  const PtqOptions &options_;
  const CompileOptions &compile_;
  std::vector<Sample> samples_;
  std::vector<Layer> layers_;
  std::vector<Capture> captures_;
  unsigned modelOutputs_ = 0;
  std::vector<int32_t> outputDtypes_;
  std::vector<std::string> outputNames_;
  /// fp32 reference: [sample][output] as floats (captured tensors and the
  /// model's float outputs; empty for other dtypes).
  std::vector<std::vector<std::vector<float>>> reference_;
  /// Per captured tensor: the calibrated range.
  std::vector<std::pair<float, float>> ranges_;
  /// The layers of the --max-error-db search (Form::Switchable), in order.
  std::vector<unsigned> switches_;
  /// What the search did, for the report.
  unsigned evaluations_ = 0, compiles_ = 0;
};

OwningOpRef<ModuleOp> Calibrator::buildModule(Form form) {
  OwningOpRef<ModuleOp> module = base_.clone();
  SmallVector<Operation *> ops = candidateOps(*module);
  auto main = module->lookupSymbol<func::FuncOp>("main");
  OpBuilder b(module->getContext());
  if (form == Form::Switchable) {
    // dlc-quantize rewrites the marked ops' operands in place and may erase
    // the float weights it replaced: keep the operands and constants.
    SmallVector<SmallVector<Value>> operands;
    SmallVector<SmallVector<TypedAttr>> constants;
    for (unsigned i : switches_) {
      operands.emplace_back(ops[i]->getOperands());
      auto &c = constants.emplace_back();
      for (Value v : ops[i]->getOperands()) {
        auto cst = v.getDefiningOp<arith::ConstantOp>();
        c.push_back(cst ? cst.getValue() : TypedAttr());
      }
    }
    // No output ranges: a result's quantize pair for a residual add would
    // not switch with its layer. The search runs without them; the real
    // model, measured after it, has them.
    mark(
        ops, [&](unsigned i) { return llvm::is_contained(switches_, i); },
        /*outputRanges=*/false);
    PassManager pm(module->getContext());
    pm.addPass(createQuantizeModelPass());
    if (failed(pm.run(*module)))
      return nullptr;
    auto switchType = RankedTensorType::get({1}, b.getI1Type());
    for (auto [k, i] : llvm::enumerate(switches_)) {
      Operation *op = ops[i];
      unsigned arg = main.getNumArguments();
      main.insertArgument(
          arg, switchType,
          b.getDictionaryAttr(b.getNamedAttr(
              "dlc.name", b.getStringAttr("dlc.switch." + Twine(k)))),
          op->getLoc());
      for (unsigned n = 0; n < op->getNumOperands(); ++n) {
        Value quantized = op->getOperand(n);
        if (quantized == operands[k][n])
          continue;
        // Right after the dequantized value: the residual adds that
        // dlc-quantize pointed at it switch with the layer, and may come
        // before it.
        b.setInsertionPointAfterValue(quantized);
        Value fp32 =
            constants[k][n]
                ? b.create<arith::ConstantOp>(op->getLoc(), constants[k][n])
                : operands[k][n];
        Value where = b.create<WhereOp>(op->getLoc(), main.getArgument(arg),
                                        quantized, fp32);
        op->setOperand(n, where);
        quantized.replaceUsesWithIf(where, [](OpOperand &use) {
          return isa<AddOp>(use.getOwner());
        });
      }
    }
    return module;
  }
  auto ret = cast<func::ReturnOp>(main.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  for (const Capture &c : captures_) {
    Operation *op = ops[c.layer];
    results.push_back(c.operand < 0 ? op->getResult(0)
                                    : op->getOperand(c.operand));
  }
  b.setInsertionPoint(ret);
  b.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  unsigned oldResults = main.getNumResults();
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < oldResults; ++i)
    resultAttrs.push_back(main.getResultAttrDict(i));
  main.setType(FunctionType::get(module->getContext(), main.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  for (unsigned i = 0; i < results.size(); ++i) {
    if (i < oldResults) {
      main.setResultAttrs(i, resultAttrs[i]);
      continue;
    }
    main.setResultAttr(
        i, "dlc.name",
        b.getStringAttr("dlc.capture." + std::to_string(i - oldResults)));
  }
  if (form == Form::Quantized)
    mark(
        ops, [&](unsigned i) { return layers_[i].quantize; },
        /*outputRanges=*/true);
  return module;
}

void Calibrator::mark(ArrayRef<Operation *> ops,
                      llvm::function_ref<bool(unsigned)> quantize,
                      bool outputRanges) {
  if (ops.empty())
    return;
  Builder b(ops.front()->getContext());
  for (auto [i, layer] : llvm::enumerate(layers_)) {
    if (!quantize(i))
      continue;
    SmallVector<Attribute> ranges;
    for (unsigned c : layer.inputs)
      ranges.push_back(
          b.getDenseF32ArrayAttr({ranges_[c].first, ranges_[c].second}));
    ops[i]->setAttr(kInputRangesAttr, b.getArrayAttr(ranges));
    if (outputRanges)
      ops[i]->setAttr(kOutputRangeAttr,
                      b.getDenseF32ArrayAttr({ranges_[layer.output].first,
                                              ranges_[layer.output].second}));
  }
}

/// 10 log10(signal / noise), capped.
double sqnrDb(double signal, double noise) {
  if (noise <= 0.0)
    return kMaxSqnrDb;
  if (signal <= 0.0)
    return -kMaxSqnrDb;
  return std::clamp(10.0 * std::log10(signal / noise), -kMaxSqnrDb, kMaxSqnrDb);
}

FailureOr<std::vector<double>> Calibrator::evaluate() {
  OwningOpRef<ModuleOp> module = buildModule(Form::Quantized);
  HostModel model;
  if (failed(model.compile(*module, compile_)))
    return failure();
  size_t outputs = modelOutputs_ + captures_.size();
  std::vector<double> signal(outputs, 0.0), noise(outputs, 0.0);
  if (failed(model.run(samples_, [&](size_t s, auto &got) {
        for (size_t o = 0; o < outputs; ++o) {
          const std::vector<float> &ref = reference_[s][o];
          if (ref.empty())
            continue;
          const float *q = reinterpret_cast<const float *>(got[o].data());
          for (size_t i = 0; i < ref.size(); ++i) {
            double r = ref[i], d = r - (double)q[i];
            signal[o] += r * r;
            noise[o] += d * d;
          }
        }
      })))
    return failure();
  for (Layer &layer : layers_) {
    unsigned o = modelOutputs_ + layer.output;
    layer.sqnrDb = sqnrDb(signal[o], noise[o]);
  }
  std::vector<double> e2e;
  for (unsigned o = 0; o < modelOutputs_; ++o)
    e2e.push_back(outputDtypes_[o] == 1 ? sqnrDb(signal[o], noise[o])
                                        : kMaxSqnrDb);
  return e2e;
}

double Calibrator::worst(ArrayRef<double> outputsDb) const {
  double w = kMaxSqnrDb;
  for (size_t o = 0; o < outputsDb.size(); ++o)
    if (!llvm::is_contained(options_.extraOutputs, outputNames_[o]))
      w = std::min(w, outputsDb[o]);
  return w;
}

FailureOr<double> Calibrator::measure(HostModel &model, ArrayRef<uint8_t> int8,
                                      size_t samples) {
  ++evaluations_;
  std::vector<double> signal(modelOutputs_, 0.0), noise(modelOutputs_, 0.0);
  if (failed(model.run(
          ArrayRef<Sample>(samples_).take_front(samples),
          [&](size_t s, auto &got) {
            for (unsigned o = 0; o < modelOutputs_; ++o) {
              const std::vector<float> &ref = reference_[s][o];
              const float *q = reinterpret_cast<const float *>(got[o].data());
              for (size_t i = 0; i < ref.size(); ++i) {
                double r = ref[i], d = r - (double)q[i];
                signal[o] += r * r;
                noise[o] += d * d;
              }
            }
          },
          int8)))
    return failure();
  std::vector<double> db(modelOutputs_, kMaxSqnrDb);
  for (unsigned o = 0; o < modelOutputs_; ++o)
    if (outputDtypes_[o] == 1)
      db[o] = sqnrDb(signal[o], noise[o]);
  return worst(db);
}

LogicalResult Calibrator::search(double targetDb, bool force) {
  switches_.clear();
  for (auto [i, layer] : llvm::enumerate(layers_))
    if (layer.quantize)
      switches_.push_back(i);
  size_t n = switches_.size();
  if (n == 0)
    return success();
  progress(llvm::formatv("quantizing: compiling a model that switches each of "
                         "{0} layers between int8 and fp32 per run",
                         n)
               .str());
  HostModel model;
  {
    OwningOpRef<ModuleOp> module = buildModule(Form::Switchable);
    if (!module || failed(model.compile(*module, compile_)))
      return failure();
  }
  ++compiles_;
  std::vector<uint8_t> int8(n, 1);
  if (!force) {
    FailureOr<double> db = measure(model, int8, samples_.size());
    if (failed(db))
      return failure();
    progress(llvm::formatv("quantizing: every layer in int8: e2e SQNR {0:f2} "
                           "dB",
                           *db)
                 .str());
    if (*db >= targetDb)
      return success();
  }

  // The ranking: the end-to-end SQNR with one layer alone back in fp32 and
  // the others in int8, i.e. what restoring that layer gains where the
  // search starts. It covers how far the network after the layer damps its
  // noise (resnet50: 250 times from the first blocks, 5 times from the
  // last) and how that noise adds to the others' (partly coherently:
  // restoring a layer removed twice the noise it causes alone). A layer's
  // own noise (its output's minus its input's, about the same for every
  // layer) predicts neither: ranked by it, resnet50 kept 28 of its 52
  // searched layers in fp32 for 43 dB where this search keeps 5.
  std::vector<double> restored(n);
  size_t rankingSamples = std::min(samples_.size(), kRankingSamples);
  progress(llvm::formatv("quantizing: ranking {0} layers, one run each with "
                         "the layer alone in fp32 (on {1} sample{2})",
                         n, rankingSamples, rankingSamples == 1 ? "" : "s")
               .str());
  for (size_t k = 0; k < n; ++k) {
    int8[k] = 0;
    FailureOr<double> db = measure(model, int8, rankingSamples);
    if (failed(db))
      return failure();
    restored[k] = *db;
    int8[k] = 1;
  }
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return restored[a] > restored[b];
  });
  for (auto [r, k] : llvm::enumerate(order)) {
    layers_[switches_[k]].restoredDb = restored[k];
    layers_[switches_[k]].rank = r;
  }

  // The fewest leading layers of the ranking to keep in fp32, by bisection
  // (about log2(n) runs): `lo` misses the target (0: every layer in int8),
  // `hi` meets it (n: everything in fp32 is the reference). The SQNR is not
  // quite monotonic in the count; the pruning below makes up for that.
  auto keepFirst = [&](size_t kept) {
    for (size_t r = 0; r < n; ++r)
      int8[order[r]] = r >= kept;
  };
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    keepFirst(mid);
    FailureOr<double> db = measure(model, int8, samples_.size());
    if (failed(db))
      return failure();
    progress(llvm::formatv("quantizing: the first {0} of the ranking in fp32: "
                           "e2e SQNR {1:f2} dB",
                           mid, *db)
                 .str());
    (*db >= targetDb ? hi : lo) = mid;
  }
  keepFirst(hi);

  // Pruning: the ranking measured each layer with all others in int8; with
  // the leading ones in fp32, some of those may no longer be needed (int8
  // errors partly cancel: bert_base's budget kept 24 after the bisection
  // and 9 after pruning). Each kept layer goes back to int8, the least
  // important first, where the target still holds: no single kept layer
  // can then be quantized without missing it. (The last kept one is skipped:
  // the bisection measured it missing the target with the others kept.)
  for (size_t r = hi > 1 ? hi - 1 : 0; r-- > 0;) {
    int8[order[r]] = 1;
    FailureOr<double> db = measure(model, int8, samples_.size());
    if (failed(db))
      return failure();
    if (*db < targetDb) {
      int8[order[r]] = 0;
      continue;
    }
    progress(llvm::formatv("quantizing: '{0}' back in int8: e2e SQNR {1:f2} "
                           "dB",
                           layers_[switches_[order[r]]].name, *db)
                 .str());
  }
  for (size_t k = 0; k < n; ++k)
    if (!int8[k]) {
      layers_[switches_[k]].quantize = false;
      layers_[switches_[k]].keptBecause = "--max-error-db";
    }
  return success();
}

FailureOr<llvm::json::Object> Calibrator::run() {
  // The graph as the frontend pipeline will see it (folded, CSE'd), so the
  // layers marked here are the ones dlc-quantize finds.
  {
    PassManager pm(base_.getContext());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(base_)))
      return failure();
  }
  FailureOr<ModelSignature> signature = readSignature(base_);
  if (failed(signature))
    return failure();
  FailureOr<std::vector<Sample>> samples =
      loadSamples(options_.calibrateDir, *signature);
  if (failed(samples))
    return failure();
  samples_ = std::move(*samples);
  modelOutputs_ = signature->outputs.size();
  for (const TensorSignature &o : signature->outputs) {
    outputDtypes_.push_back(o.dtype);
    outputNames_.push_back(o.name);
  }

  // The layers and the tensors to capture (each activation once).
  SmallVector<Operation *> ops = candidateOps(base_);
  // The layers with weights; global average pools quantize only between
  // them.
  SmallVector<unsigned> weighted;
  for (auto [i, op] : llvm::enumerate(ops))
    if (!isa<ReduceMeanOp>(op))
      weighted.push_back(i);
  if (weighted.empty()) {
    error("the model has no Conv, Gemm or MatMul that dlc can quantize");
    return failure();
  }
  unsigned firstWeighted = weighted.front(), lastWeighted = weighted.back();
  llvm::DenseMap<Value, unsigned> captured;
  for (auto [i, op] : llvm::enumerate(ops)) {
    Layer layer;
    layer.name = nodeName(op, i);
    layer.opType = op->getName().stripDialect().str();
    unsigned n = quantizableActivationOperands(op);
    for (unsigned k = 0; k < n; ++k) {
      Value v = op->getOperand(k);
      auto [it, inserted] = captured.try_emplace(v, captures_.size());
      if (inserted)
        captures_.push_back({(unsigned)i, (int)k});
      layer.inputs.push_back(it->second);
    }
    layer.output = captures_.size();
    captures_.push_back({(unsigned)i, -1});
    layers_.push_back(std::move(layer));
  }
  if (!options_.quantizeFirstLast)
    for (auto [i, layer] : llvm::enumerate(layers_)) {
      // A pool before the first or after the last weighted layer
      // (SqueezeNet's, after its last conv) stays with it.
      if (i <= firstWeighted) {
        layer.quantize = false;
        layer.keptBecause = "first layer";
      } else if (i >= lastWeighted) {
        layer.quantize = false;
        layer.keptBecause = "last layer";
      }
    }
  if (!options_.quantizeAttention)
    for (auto [i, layer] : llvm::enumerate(layers_))
      if (layer.quantize && quantizableActivationOperands(ops[i]) == 2) {
        layer.quantize = false;
        layer.keptBecause = "attention";
      }
  for (Layer &layer : layers_)
    if (llvm::is_contained(options_.keepFp32, layer.name)) {
      layer.quantize = false;
      layer.keptBecause = "--keep-fp32";
    }
  for (const std::string &name : options_.keepFp32)
    if (!llvm::any_of(layers_,
                      [&](const Layer &l) { return l.name == name; })) {
      llvm::errs() << "dlc: error: --keep-fp32: no quantizable Conv, Gemm, "
                      "MatMul or GlobalAveragePool node is named '"
                   << name << "'\n";
      return failure();
    }

  // A cached calibration of the same module, samples and options.
  std::string key;
  if (!options_.cacheFile.empty()) {
    key = cacheKey();
    if (std::optional<llvm::json::Object> report = readCache(key)) {
      progress("calibration read from " + options_.cacheFile);
      mark(
          candidateOps(base_), [&](unsigned i) { return layers_[i].quantize; },
          /*outputRanges=*/true);
      (*report)["calibration_cache"] = "read";
      return std::move(*report);
    }
  }

  // fp32 run: the reference and the activation ranges.
  progress("calibrating: compiling the fp32 model with " +
           llvm::Twine(captures_.size()) + " captured tensors");
  size_t outputs = modelOutputs_ + captures_.size();
  std::vector<RangeStats> stats(captures_.size());
  {
    OwningOpRef<ModuleOp> module = buildModule(Form::Fp32);
    HostModel model;
    if (failed(model.compile(*module, compile_)))
      return failure();
    progress("calibrating: running " + llvm::Twine(samples_.size()) +
             " samples");
    reference_.assign(samples_.size(), {});
    if (failed(model.run(samples_, [&](size_t s, auto &got) {
          reference_[s].resize(outputs);
          for (size_t o = 0; o < outputs; ++o) {
            bool isFloat = o >= modelOutputs_ || outputDtypes_[o] == 1;
            if (!isFloat)
              continue;
            std::vector<float> &ref = reference_[s][o];
            ref.resize(got[o].size() / 4);
            std::memcpy(ref.data(), got[o].data(), ref.size() * 4);
            if (o < modelOutputs_)
              continue;
            RangeStats &st = stats[o - modelOutputs_];
            for (float v : ref) {
              if (!std::isfinite(v))
                continue;
              st.lo = std::min(st.lo, v);
              st.hi = std::max(st.hi, v);
            }
          }
        })))
      return failure();
  }
  // Ranges: min-max, or from a histogram over [min, max]: its percentile,
  // or the clipping of least entropy loss.
  ranges_.assign(captures_.size(), {0.0f, 0.0f});
  for (size_t c = 0; c < captures_.size(); ++c) {
    RangeStats &st = stats[c];
    if (!(st.lo <= st.hi))
      continue; // never finite: quantize around 0 with the default scale
    ranges_[c] = {st.lo, st.hi};
    if (options_.method == "minmax" || captures_[c].operand < 0 ||
        st.lo == st.hi)
      continue;
    st.histogram.assign(kHistogramBins, 0);
    double width = ((double)st.hi - st.lo) / kHistogramBins;
    for (const auto &sample : reference_)
      for (float v : sample[modelOutputs_ + c]) {
        if (!std::isfinite(v))
          continue;
        size_t bin = std::min<size_t>(kHistogramBins - 1,
                                      (size_t)(((double)v - st.lo) / width));
        ++st.histogram[bin];
        ++st.count;
      }
    if (options_.method == "entropy") {
      auto [first, last] = entropyBins(st.histogram, st.lo, width);
      ranges_[c] = {(float)(st.lo + first * width),
                    (float)(st.lo + last * width)};
      continue;
    }
    // Clip each tail to (100 - p)% of the values.
    uint64_t tail = (uint64_t)std::floor((100.0 - options_.percentile) / 100.0 *
                                         (double)st.count);
    uint64_t seen = 0;
    size_t loBin = 0, hiBin = kHistogramBins - 1;
    while (loBin < hiBin && seen + st.histogram[loBin] <= tail)
      seen += st.histogram[loBin++];
    seen = 0;
    while (hiBin > loBin && seen + st.histogram[hiBin] <= tail)
      seen += st.histogram[hiBin--];
    ranges_[c] = {(float)(st.lo + loBin * width),
                  (float)(st.lo + (hiBin + 1) * width)};
  }

  // With a budget, search the layers to keep in fp32 first; then quantize
  // and measure the real model.
  if (options_.maxErrorDb &&
      failed(search(*options_.maxErrorDb, /*force=*/false)))
    return failure();
  progress("quantizing: compiling and running the int8 model");
  FailureOr<std::vector<double>> e2e = evaluate();
  if (failed(e2e))
    return failure();
  if (options_.maxErrorDb) {
    double target = *options_.maxErrorDb;
    ++compiles_;
    // The switchable model computes what the integer kernels do but for f32
    // rounding and the i32 bias (resnet50, every layer int8: 40.63 dB there,
    // 40.45 dB here). Where that leaves the real model short, the search
    // runs if it stopped at "every layer in int8", then the next layers of
    // its ranking go to fp32, one compile each.
    if (worst(*e2e) < target &&
        llvm::none_of(layers_, [](const Layer &l) { return l.rank >= 0; })) {
      progress(llvm::formatv("quantizing: e2e SQNR {0:f2} dB < {1} dB on the "
                             "int8 model: searching",
                             worst(*e2e), target)
                   .str());
      if (failed(search(target, /*force=*/true)))
        return failure();
      progress("quantizing: compiling and running the int8 model");
      e2e = evaluate();
      if (failed(e2e))
        return failure();
      ++compiles_;
    }
    while (worst(*e2e) < target) {
      Layer *next = nullptr;
      for (Layer &layer : layers_)
        if (layer.quantize && layer.rank >= 0 &&
            (!next || layer.rank < next->rank))
          next = &layer;
      if (!next)
        break;
      next->quantize = false;
      next->keptBecause = "--max-error-db";
      progress(llvm::formatv("quantizing: e2e SQNR {0:f2} dB < {1} dB, also "
                             "keeping '{2}' in fp32",
                             worst(*e2e), target, next->name)
                   .str());
      e2e = evaluate();
      if (failed(e2e))
        return failure();
      ++compiles_;
    }
    if (worst(*e2e) < target)
      llvm::errs() << llvm::formatv(
          "dlc: warning: --max-error-db={0}: the end-to-end SQNR is {1:f2} "
          "dB with every layer in fp32\n",
          target, worst(*e2e));
  }
  mark(
      candidateOps(base_), [&](unsigned i) { return layers_[i].quantize; },
      /*outputRanges=*/true);

  // The report.
  llvm::json::Array layers;
  unsigned quantized = 0;
  for (const Layer &layer : layers_) {
    quantized += layer.quantize;
    llvm::json::Object l{{"name", layer.name},
                         {"op", layer.opType},
                         {"quantized", layer.quantize},
                         {"sqnr_db", std::round(layer.sqnrDb * 100) / 100}};
    if (!layer.quantize)
      l["kept_fp32"] = layer.keptBecause;
    if (layer.rank >= 0) {
      l["restored_e2e_sqnr_db"] = std::round(layer.restoredDb * 100) / 100;
      l["restore_rank"] = layer.rank;
    }
    layers.push_back(std::move(l));
  }
  llvm::json::Object outputsSqnr;
  for (unsigned o = 0; o < modelOutputs_; ++o)
    if (outputDtypes_[o] == 1)
      outputsSqnr[signature->outputs[o].name] =
          std::round((*e2e)[o] * 100) / 100;
  llvm::json::Object report{
      {"precision", "int8"},
      {"calibration", options_.method},
      {"samples", (int64_t)samples_.size()},
      {"layers_total", (int64_t)layers_.size()},
      {"layers_quantized", (int64_t)quantized},
      {"e2e_sqnr_db", std::round(worst(*e2e) * 100) / 100},
      {"output_sqnr_db", std::move(outputsSqnr)},
      {"layers", std::move(layers)}};
  if (options_.method == "percentile")
    report["percentile"] = options_.percentile;
  if (options_.maxErrorDb) {
    report["max_error_db"] = *options_.maxErrorDb;
    report["max_error_db_evaluations"] = (int64_t)evaluations_;
    report["max_error_db_compiles"] = (int64_t)compiles_;
  }
  if (!options_.cacheFile.empty()) {
    if (failed(writeCache(key, report)))
      return failure();
    report["calibration_cache"] = "written";
  }
  return report;
}
} // namespace

/// The cache file's format; a file of another one is recalibrated.
// 2: global average pools are layers.
constexpr llvm::StringLiteral kCacheFormat = "dlc-calibration-cache-2";

std::string Calibrator::cacheKey() {
  // xxh3 of each part, then of the parts' hashes.
  std::vector<uint64_t> parts;
  auto add = [&](StringRef bytes) {
    parts.push_back(llvm::xxh3_64bits(bytes));
  };
  add(kCacheFormat);
  // The module: its ops as printed (large constants elided), then the
  // bytes of every constant (dense_resource blobs and dense elements).
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    base_->print(
        os,
        OpPrintingFlags().elideLargeElementsAttrs(16).elideLargeResourceString(
            16));
    add(text);
  }
  base_->walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      std::optional<ArrayRef<char>> bytes = resourceData(attr.getValue());
      if (auto dense = dyn_cast<DenseElementsAttr>(attr.getValue()))
        bytes = dense.getRawData();
      if (bytes)
        add(StringRef(bytes->data(), bytes->size()));
    }
  });
  for (const Sample &sample : samples_)
    for (const ::dlc::io::Tensor &t : sample)
      parts.push_back(llvm::xxh3_64bits(t.data));
  std::string opts;
  llvm::raw_string_ostream os(opts);
  os << options_.method << ' ' << llvm::format("%.17g", options_.percentile)
     << ' ' << options_.quantizeFirstLast << options_.quantizeAttention;
  for (const std::string &k : options_.keepFp32)
    os << " keep:" << k;
  for (const std::string &o : options_.extraOutputs)
    os << " output:" << o;
  if (options_.maxErrorDb)
    os << " db:" << llvm::format("%.17g", *options_.maxErrorDb);
  for (const Sample &sample : samples_)
    for (const ::dlc::io::Tensor &t : sample) {
      os << " sample:" << t.dtype;
      for (int64_t d : t.shape)
        os << 'x' << d;
    }
  add(opts);
  return llvm::utohexstr(
      llvm::xxh3_64bits(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(parts.data()), parts.size() * 8)),
      /*LowerCase=*/true, /*Width=*/16);
}

std::optional<llvm::json::Object> Calibrator::readCache(StringRef key) {
  StringRef file = options_.cacheFile;
  auto stale =
      [&](const llvm::Twine &why) -> std::optional<llvm::json::Object> {
    progress("calibration cache " + file + " " + why + ": calibrating");
    return std::nullopt;
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file);
  if (!buffer)
    return stale("not read (" + buffer.getError().message() + ")");
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return stale("does not parse");
  }
  const llvm::json::Object *cache = parsed->getAsObject();
  if (!cache || cache->getString("format") != kCacheFormat)
    return stale("is not a " + kCacheFormat + " file");
  if (cache->getString("key") != key)
    return stale("is for another model, samples or options");
  const llvm::json::Array *layers = cache->getArray("layers");
  const llvm::json::Array *ranges = cache->getArray("ranges");
  const llvm::json::Object *report = cache->getObject("report");
  if (!layers || !ranges || !report || layers->size() != layers_.size() ||
      ranges->size() != captures_.size())
    return stale("does not list this model's layers");
  std::vector<std::pair<float, float>> read;
  for (const llvm::json::Value &r : *ranges) {
    const llvm::json::Array *pair = r.getAsArray();
    std::optional<double> lo =
        pair && pair->size() == 2 ? (*pair)[0].getAsNumber() : std::nullopt;
    std::optional<double> hi =
        pair && pair->size() == 2 ? (*pair)[1].getAsNumber() : std::nullopt;
    if (!lo || !hi || !(*lo <= *hi))
      return stale("has a bad range");
    read.emplace_back(float(*lo), float(*hi));
  }
  std::vector<Layer> decided = layers_;
  for (auto [layer, v] : llvm::zip_equal(decided, *layers)) {
    const llvm::json::Object *l = v.getAsObject();
    std::optional<bool> quantize =
        l ? l->getBoolean("quantized") : std::nullopt;
    if (!l || l->getString("name") != layer.name || !quantize)
      return stale("does not list this model's layers");
    layer.quantize = *quantize;
    layer.keptBecause = l->getString("kept_fp32").value_or("").str();
  }
  ranges_ = std::move(read);
  layers_ = std::move(decided);
  return *report;
}

LogicalResult Calibrator::writeCache(StringRef key,
                                     const llvm::json::Object &report) {
  llvm::json::Array layers, ranges;
  for (const Layer &layer : layers_) {
    llvm::json::Object l{{"name", layer.name}, {"quantized", layer.quantize}};
    if (!layer.quantize)
      l["kept_fp32"] = layer.keptBecause;
    layers.push_back(std::move(l));
  }
  for (auto [lo, hi] : ranges_)
    ranges.push_back(llvm::json::Array{double(lo), double(hi)});
  llvm::json::Object cache{{"format", kCacheFormat},
                           {"key", key},
                           {"layers", std::move(layers)},
                           {"ranges", std::move(ranges)},
                           {"report", llvm::json::Object(report)}};
  // Written whole to a temporary file, then renamed over FILE: builds that
  // share the cache (parallel variants) read either none or a complete one.
  if (llvm::Error error =
          llvm::writeToOutput(options_.cacheFile, [&](llvm::raw_ostream &os) {
            os << llvm::formatv("{0:2}", llvm::json::Value(std::move(cache)))
               << "\n";
            return llvm::Error::success();
          })) {
    llvm::errs() << "dlc: error: --calibration-cache: cannot write '"
                 << options_.cacheFile
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  return success();
}

FailureOr<llvm::json::Object>
mlir::dlc::calibrateAndMark(ModuleOp module, const PtqOptions &options,
                            const CompileOptions &base) {
  return Calibrator(module, options, base).run();
}

void mlir::dlc::printQuantizationTable(const llvm::json::Object &report,
                                       llvm::raw_ostream &os, size_t maxRows) {
  struct Row {
    std::string name, op, note;
    double sqnr;
    bool quantized;
  };
  std::vector<Row> rows;
  if (const llvm::json::Array *layers = report.getArray("layers"))
    for (const llvm::json::Value &v : *layers) {
      const llvm::json::Object *l = v.getAsObject();
      if (!l)
        continue;
      rows.push_back({l->getString("name").value_or("").str(),
                      l->getString("op").value_or("").str(),
                      l->getString("kept_fp32").value_or("").str(),
                      l->getNumber("sqnr_db").value_or(0.0),
                      l->getBoolean("quantized").value_or(false)});
    }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row &a, const Row &b) { return a.sqnr < b.sqnr; });
  os << llvm::formatv("int8: {0} of {1} layers quantized ({2}), end-to-end "
                      "SQNR {3:f2} dB\n",
                      report.getInteger("layers_quantized").value_or(0),
                      report.getInteger("layers_total").value_or(0),
                      report.getString("calibration").value_or(""),
                      report.getNumber("e2e_sqnr_db").value_or(0.0));
  os << llvm::formatv("  {0,-48} {1,-7} {2,9}  {3}\n", "layer (worst first)",
                      "op", "SQNR dB", "precision");
  for (size_t i = 0; i < rows.size() && i < maxRows; ++i)
    os << llvm::formatv("  {0,-48} {1,-7} {2,9:f2}  {3}\n", rows[i].name,
                        rows[i].op, rows[i].sqnr,
                        rows[i].quantized ? "int8"
                                          : "fp32 (" + rows[i].note + ")");
}
