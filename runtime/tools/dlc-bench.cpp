//===- dlc-bench.cpp - Latency and throughput of a compiled model ---------===//
//
//   dlc-bench MODEL.so [--warmup N] [--iters N | --min-time SEC]
//             [--device cpu|cuda|auto] [--device-id N] [--threads N]
//             [--input NAME=FILE]... [--resident] [--steps N] [--json]
//
// Runs one Context repeatedly and reports latency percentiles and
// throughput. Inputs not given as files are filled with deterministic random
// values: floats uniform in [-1, 1), integers and bools 0 or 1 (safe as
// indices, masks and token types).
//
//===----------------------------------------------------------------------===//

#include "dlc/runtime.hpp"
#include "tensor_io.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

const char kUsage[] =
    "usage: dlc-bench MODEL.so [--warmup N] [--iters N | --min-time SEC]\n"
    "                 [--device cpu|cuda|auto] [--device-id N] [--threads N]\n"
    "                 [--input NAME=FILE]... [--resident] [--steps N]\n"
    "                 [--json]\n"
    "\n"
    "Measures latency (mean, min, p50, p90, p99, max in ms) and throughput\n"
    "(batch / mean latency, batch = dim 0 of the first input) of one\n"
    "context. Defaults: --warmup 10 --min-time 1 (at least 10 iterations).\n"
    "--threads sets DLC_NUM_THREADS for host models. --resident (CUDA): the\n"
    "inputs are uploaded once and each timed run reads and writes the\n"
    "context's device buffers (dlc_context_run_resident): device time\n"
    "without host copies. --steps N: afterwards, 5 runs step by step (no\n"
    "CUDA graph; dlc_context_profile) and the N steps (kernels, copies)\n"
    "that take longest, by their best time: where the time goes.\n";

int fail(const std::string &message) {
  std::cerr << "dlc-bench: error: " << message << "\n";
  return 1;
}

/// Deterministic random contents for an input of `info`'s type.
void fillRandom(const dlc::TensorInfo &info, uint64_t seed,
                std::vector<uint8_t> &buf) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  size_t elem = dlc_dtype_size(info.dtype);
  if (!elem) { // sub-byte integers: every bit pattern is a value
    for (uint8_t &byte : buf)
      byte = uint8_t(rng());
    return;
  }
  for (size_t i = 0; i + elem <= buf.size(); i += elem) {
    uint8_t *p = &buf[i];
    switch (info.dtype) {
    case DLC_DTYPE_FLOAT32: {
      float v = real(rng);
      std::memcpy(p, &v, 4);
      break;
    }
    case DLC_DTYPE_FLOAT64: {
      double v = real(rng);
      std::memcpy(p, &v, 8);
      break;
    }
    case DLC_DTYPE_FLOAT16:
    case DLC_DTYPE_BFLOAT16: {
      float v = real(rng);
      uint16_t h = info.dtype == DLC_DTYPE_FLOAT16
                       ? dlc::io::floatToHalf(v)
                       : dlc::io::floatToBfloat16(v);
      std::memcpy(p, &h, 2);
      break;
    }
    case DLC_DTYPE_FLOAT8E4M3FN:
    case DLC_DTYPE_FLOAT8E4M3FNUZ:
    case DLC_DTYPE_FLOAT8E5M2:
    case DLC_DTYPE_FLOAT8E5M2FNUZ:
      // Codes 0x08-0x3f either sign: normal finite values below 2 in every
      // float8 format (none is a NaN or infinity).
      p[0] = uint8_t((0x08 + rng() % 0x38) | (rng() & 1 ? 0x80 : 0));
      break;
    case DLC_DTYPE_FLOAT8E8M0: // 2^-8 .. 2^7
      p[0] = uint8_t(119 + rng() % 16);
      break;
    default: // little-endian integers and bools: 0 or 1
      std::memset(p, 0, elem);
      p[0] = uint8_t(rng() & 1);
    }
  }
}

double percentile(const std::vector<double> &sorted, double q) {
  // Nearest rank.
  size_t rank = size_t(std::ceil(q * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank ? rank - 1 : 0)];
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string modelPath, deviceName = "auto";
  dlc::Device device = dlc::Device::Auto;
  int deviceId = 0;
  long warmup = 10, iters = -1;
  double minTime = 1.0;
  bool json = false;
  bool resident = false;
  long topSteps = 0;
  std::vector<std::string> inputArgs;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string flag = arg.substr(0, arg.find('='));
    const char *v = nullptr;
    if (flag != arg)
      v = argv[i] + flag.size() + 1;
    auto value = [&]() -> const char * {
      if (!v && i + 1 < argc)
        v = argv[++i];
      return v;
    };
    auto integer = [&](long *out) {
      const char *s = value();
      char *end = nullptr;
      if (!s || (*out = std::strtol(s, &end, 10), *end) || *out < 0)
        return false;
      return true;
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--resident") {
      resident = true;
    } else if (flag == "--steps") {
      if (!integer(&topSteps) || topSteps < 1)
        return fail("--steps needs a positive integer");
    } else if (flag == "--warmup") {
      if (!integer(&warmup))
        return fail("--warmup needs a non-negative integer");
    } else if (flag == "--iters") {
      if (!integer(&iters) || iters < 1)
        return fail("--iters needs a positive integer");
    } else if (flag == "--min-time") {
      const char *s = value();
      char *end = nullptr;
      if (!s || (minTime = std::strtod(s, &end), *end) || !(minTime > 0))
        return fail("--min-time needs a positive number of seconds");
    } else if (flag == "--device") {
      deviceName = value() ? v : "";
      if (deviceName == "cpu")
        device = dlc::Device::Cpu;
      else if (deviceName == "cuda" || deviceName == "gpu")
        device = dlc::Device::Cuda;
      else if (deviceName != "auto")
        return fail("--device must be cpu, cuda or auto");
    } else if (flag == "--device-id") {
      long id;
      if (!integer(&id))
        return fail("--device-id needs a non-negative integer");
      deviceId = int(id);
    } else if (flag == "--threads") {
      long n;
      if (!integer(&n) || n < 1)
        return fail("--threads needs a positive integer");
      // Read when the host thread pool starts, i.e. at the first run.
      setenv("DLC_NUM_THREADS", std::to_string(n).c_str(), 1);
    } else if (flag == "--input") {
      if (!value())
        return fail("--input needs NAME=FILE");
      inputArgs.push_back(v);
    } else if (arg.size() > 1 && arg[0] == '-') {
      return fail("unknown option '" + arg + "' (see --help)");
    } else if (modelPath.empty()) {
      modelPath = arg;
    } else {
      inputArgs.push_back(arg);
    }
  }
  if (modelPath.empty()) {
    std::cerr << kUsage;
    return 1;
  }

  dlc::Expected<dlc::Model> model =
      dlc::Model::load(modelPath, device, deviceId);
  if (!model)
    return fail(model.status().message());
  const std::vector<dlc::TensorInfo> &infos = model->inputs();

  std::vector<std::vector<uint8_t>> inputs(infos.size());
  std::vector<bool> given(infos.size(), false);
  size_t nextPositional = 0;
  for (const std::string &a : inputArgs) {
    size_t eq = a.find('=');
    int32_t index = -1;
    std::string file = a;
    if (eq != std::string::npos &&
        dlc_model_find_input(model->handle(), a.substr(0, eq).c_str(),
                             &index) == DLC_OK) {
      file = a.substr(eq + 1);
    } else {
      while (nextPositional < infos.size() && given[nextPositional])
        ++nextPositional;
      if (nextPositional == infos.size())
        return fail("too many inputs for '" + a + "'");
      index = int32_t(nextPositional);
    }
    dlc::io::Tensor t;
    std::string error;
    if (!dlc::io::readTensorFile(file, &t, &error))
      return fail("input '" + infos[index].name + "': " + error);
    if (dlc_model_check_input(model->handle(), index, t.dtype,
                              int32_t(t.shape.size()),
                              t.shape.data()) != DLC_OK)
      return fail(std::string(dlc_last_error()) + " from '" + file + "'");
    inputs[index] = std::move(t.data);
    given[index] = true;
  }
  for (size_t i = 0; i < infos.size(); ++i)
    if (!given[i]) {
      inputs[i].resize(infos[i].sizeBytes);
      fillRandom(infos[i], 0x5eed + i, inputs[i]);
    }
  std::vector<std::vector<uint8_t>> outputs;
  for (const dlc::TensorInfo &t : model->outputs())
    outputs.emplace_back(t.sizeBytes);
  std::vector<dlc::ConstBuffer> in(inputs.begin(), inputs.end());
  std::vector<dlc::Buffer> out(outputs.begin(), outputs.end());

  dlc::Expected<dlc::Context> ctx = model->createContext();
  if (!ctx)
    return fail(ctx.status().message());
  if (resident && model->target() != DLC_TARGET_CUDA)
    return fail("--resident needs a CUDA model (host models run on the "
                "caller's buffers)");
  // One timed step: a full run, or (--resident) a run on the inputs that
  // the warm-up runs left in the context's device buffers.
  auto step = [&]() {
    return resident ? ctx->runResident() : ctx->run(in, out);
  };

  using Clock = std::chrono::steady_clock;
  for (long i = 0; i < std::max(warmup, resident ? 1L : 0L); ++i)
    if (dlc::Status s = ctx->run(in, out); !s)
      return fail(s.message());
  // run() returns after the device has finished (stream synchronized), so
  // wall-clock time around it is the latency.
  std::vector<double> ms;
  Clock::time_point start = Clock::now();
  for (long i = 0;; ++i) {
    if (iters > 0
            ? i >= iters
            : i >= 10 &&
                  std::chrono::duration<double>(Clock::now() - start).count() >=
                      minTime)
      break;
    Clock::time_point t0 = Clock::now();
    if (dlc::Status s = step(); !s)
      return fail(s.message());
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }

  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double v : ms)
    mean += v;
  mean /= double(ms.size());
  int64_t batch =
      !infos.empty() && !infos[0].shape.empty() ? infos[0].shape[0] : 1;
  double throughput = mean > 0 ? double(batch) * 1000.0 / mean : 0;
  // Per step: the best of 5 step-by-step runs, the longest first.
  struct StepTime {
    int32_t index;
    const char *name;
    double ms;
  };
  std::vector<StepTime> steps;
  double stepsTotal = 0;
  if (topSteps > 0) {
    std::vector<double> best;
    for (int r = 0; r < 5; ++r) {
      dlc::Expected<std::vector<double>> t = ctx->profile(in, out);
      if (!t)
        return fail(t.status().message());
      if (best.empty())
        best = *t;
      for (size_t i = 0; i < best.size(); ++i)
        best[i] = std::min(best[i], (*t)[i]);
    }
    for (size_t i = 0; i < best.size(); ++i) {
      const char *name = "?";
      dlc_model_step_name(model->handle(), int32_t(i), &name);
      steps.push_back({int32_t(i), name, best[i]});
      stepsTotal += best[i];
    }
    std::stable_sort(
        steps.begin(), steps.end(),
        [](const StepTime &a, const StepTime &b) { return a.ms > b.ms; });
    steps.resize(std::min(steps.size(), size_t(topSteps)));
  }
  const char *target = model->target() == DLC_TARGET_CUDA ? "cuda" : "cpu";
  int threads = 0;
  if (model->target() == DLC_TARGET_CPU) {
    const char *env = std::getenv("DLC_NUM_THREADS");
    threads = env && std::atoi(env) > 0
                  ? std::atoi(env)
                  : int(std::thread::hardware_concurrency());
  }

  if (json) {
    std::printf("{\"model\": \"%s\", \"device\": \"%s\", \"arch\": \"%s\", "
                "\"threads\": %d, \"batch\": %lld, \"warmup\": %ld, "
                "\"iters\": %zu, \"latency_ms\": {\"mean\": %.6f, "
                "\"min\": %.6f, \"p50\": %.6f, \"p90\": %.6f, "
                "\"p99\": %.6f, \"max\": %.6f}, \"throughput_per_s\": %.3f, "
                "\"device_memory_bytes\": %llu, \"overlapped_launches\": %d, "
                "\"resident\": %s",
                jsonEscape(modelPath).c_str(), target,
                jsonEscape(model->arch()).c_str(), threads, (long long)batch,
                warmup, ms.size(), mean, sorted.front(),
                percentile(sorted, 0.5), percentile(sorted, 0.9),
                percentile(sorted, 0.99), sorted.back(), throughput,
                (unsigned long long)ctx->deviceMemoryBytes(),
                ctx->overlappedLaunches(), resident ? "true" : "false");
    if (topSteps > 0) {
      std::printf(", \"steps_total_ms\": %.6f, \"steps\": [", stepsTotal);
      for (size_t i = 0; i < steps.size(); ++i)
        std::printf("%s{\"step\": %d, \"name\": \"%s\", \"ms\": %.6f}",
                    i ? ", " : "", steps[i].index,
                    jsonEscape(steps[i].name).c_str(), steps[i].ms);
      std::printf("]");
    }
    std::printf("}\n");
  } else {
    std::printf("model:      %s (%s, %s%s)\n", modelPath.c_str(), target,
                model->arch().c_str(),
                threads ? (", " + std::to_string(threads) + " threads").c_str()
                        : "");
    std::printf("runs:       %ld warm-up, %zu timed%s, batch %lld\n", warmup,
                ms.size(), resident ? " (resident: no host copies)" : "",
                (long long)batch);
    std::printf("latency ms: mean %.4f  min %.4f  p50 %.4f  p90 %.4f  "
                "p99 %.4f  max %.4f\n",
                mean, sorted.front(), percentile(sorted, 0.5),
                percentile(sorted, 0.9), percentile(sorted, 0.99),
                sorted.back());
    std::printf("throughput: %.2f inferences/s\n", throughput);
    if (int32_t n = ctx->overlappedLaunches())
      std::printf("overlapped: %d launches start while the kernel before "
                  "them runs\n",
                  n);
    if (topSteps > 0) {
      std::printf("steps:      %.4f ms step by step; the longest:\n",
                  stepsTotal);
      for (const StepTime &t : steps)
        std::printf("  %10.4f ms %5.1f%%  step %4d  %s\n", t.ms,
                    stepsTotal > 0 ? 100.0 * t.ms / stepsTotal : 0.0, t.index,
                    t.name);
    }
  }
  return 0;
}
