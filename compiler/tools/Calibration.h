//===- Calibration.h - post-training int8 quantization -----------*- C++
//-*-===//
//
/// \file
/// `dlc --precision=int8 --calibrate=DIR`: runs the fp32 model on the host
/// (a temporary --target=cpu model.so loaded with libdlcrt) on the samples
/// of DIR, derives per-tensor activation ranges, marks the Conv/Gemm/MatMul
/// layers to quantize with `dlc.input_ranges` (dlc-quantize does the rest in
/// the frontend pipeline), measures the quantized model against the fp32
/// one (SQNR per layer and end to end) and, with a budget, searches the
/// fewest layers to keep in fp32 for the end-to-end SQNR to reach it (a
/// ranking by the gain of restoring each layer alone, bisected and pruned,
/// on one model compiled with every layer switchable per run).
//
//===----------------------------------------------------------------------===//

#ifndef DLC_COMPILER_TOOLS_CALIBRATION_H
#define DLC_COMPILER_TOOLS_CALIBRATION_H

#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::dlc {

struct PtqOptions {
  /// The samples: DIR/<sample>/<input>.npy|.pb, or DIR itself as one sample.
  std::string calibrateDir;
  /// "minmax", "percentile" or "entropy" (the clipping whose 8-bit grid
  /// keeps the histogram's distribution best: TensorRT's default).
  std::string method = "minmax";
  /// With "percentile": the share of values (%) inside the range, per tail.
  double percentile = 99.99;
  /// Quantize the first and last quantizable layers too (kept in fp32 by
  /// default).
  bool quantizeFirstLast = false;
  /// Quantize MatMuls of two activations (attention's Q.K^T and P.V) too;
  /// kept in float, they stay one flash-attention kernel in the CUDA form.
  bool quantizeAttention = true;
  /// ONNX node names of layers to keep in fp32.
  std::vector<std::string> keepFp32;
  /// Outputs added by --keep-outputs: their SQNR is reported but not part
  /// of the end-to-end figure.
  std::vector<std::string> extraOutputs;
  /// Keep layers in fp32 (as few as the search finds) until the end-to-end
  /// SQNR reaches this many dB.
  std::optional<double> maxErrorDb;
  /// A calibration cache (--calibration-cache): where it holds the result
  /// of a calibration of this model on these samples with these options
  /// (its key), the ranges, the layers kept in fp32 and the report are
  /// read from it instead of running anything; otherwise the calibration
  /// runs and writes it.
  std::string cacheFile;
  /// Progress lines on stderr.
  std::function<void(llvm::StringRef)> progress;
};

/// Calibrates `module` (the imported model, canonicalized here) and marks
/// the layers to quantize. Returns the accuracy report (the `quantization`
/// object of --report-json; with a cache, its `calibration_cache` says
/// "read" or "written"). Errors (bad samples, compile or run failures, a
/// cache that cannot be written) are printed and fail; a cache of another
/// model, samples or options, or one that does not parse, is recalibrated
/// and overwritten.
FailureOr<llvm::json::Object> calibrateAndMark(ModuleOp module,
                                               const PtqOptions &options,
                                               const CompileOptions &base);

/// Prints the report's per-layer table (worst SQNR first) and the
/// end-to-end figures.
void printQuantizationTable(const llvm::json::Object &report,
                            llvm::raw_ostream &os, size_t maxRows);

} // namespace mlir::dlc

#endif
