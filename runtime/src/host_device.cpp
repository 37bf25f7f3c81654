//===- host_device.cpp - Running host (CPU) models ------------------------===//
//
// Host kernels read inputs and write outputs in the caller's buffers
// directly; only the arena belongs to the context. Arena and weight
// arguments are resolved once at context creation, input and output ones on
// every run.
//
//===----------------------------------------------------------------------===//

#include "internal.h"
#include "thread_pool.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace dlc {
namespace {

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

class HostContext final : public DeviceContext {
public:
  explicit HostContext(const dlc_model_desc &desc) : desc(desc) {}

  Error init() {
    if (desc.arena_size) {
      // 64-byte alignment (and size) so kernels may use aligned vector loads.
      size_t size = (desc.arena_size + 63) & ~size_t(63);
      arena.reset(static_cast<uint8_t *>(std::aligned_alloc(64, size)));
      if (!arena)
        return makeError(DLC_ERROR_OUT_OF_MEMORY, "cannot allocate a ",
                         desc.arena_size, "-byte arena");
    }
    size_t total = 0;
    for (int32_t s = 0; s < desc.num_steps; ++s)
      total += desc.steps[s].num_args;
    args.resize(total);
    size_t pos = 0;
    for (int32_t s = 0; s < desc.num_steps; ++s) {
      const dlc_step &step = desc.steps[s];
      for (int32_t a = 0; a < step.num_args; ++a, ++pos) {
        const dlc_buffer_ref &ref = step.args[a];
        if (ref.kind == DLC_BUFFER_ARENA)
          args[pos] = arena.get() + ref.offset;
        else if (ref.kind == DLC_BUFFER_WEIGHT)
          args[pos] = const_cast<uint8_t *>(desc.weights) + ref.offset;
        else if (ref.kind == DLC_BUFFER_STATUS)
          args[pos] = &status;
        else
          perRun.push_back(pos);
      }
    }
    refs.reserve(total);
    for (int32_t s = 0; s < desc.num_steps; ++s)
      for (int32_t a = 0; a < desc.steps[s].num_args; ++a)
        refs.push_back(&desc.steps[s].args[a]);
    return Error::success();
  }

  Error run(const void *const *inputs, void *const *outputs) override {
    return runSteps(inputs, outputs, nullptr);
  }

  Error profile(const void *const *inputs, void *const *outputs,
                double *stepMs) override {
    return runSteps(inputs, outputs, stepMs);
  }

  uint64_t deviceMemoryBytes() const override { return desc.arena_size; }

private:
  Error runSteps(const void *const *inputs, void *const *outputs,
                 double *stepMs) {
    // Kernels only read inputs; the descriptor forbids writes to them.
    auto in = const_cast<uint8_t *const *>(
        reinterpret_cast<const uint8_t *const *>(inputs));
    auto out = reinterpret_cast<uint8_t *const *>(outputs);
    for (size_t pos : perRun)
      args[pos] = resolveRef<uint8_t *>(*refs[pos], nullptr, nullptr, in, out,
                                        nullptr, nullptr);
    status = 0;

    ThreadPool &pool = ThreadPool::global();
    void **stepArgs = args.data();
    for (int32_t s = 0; s < desc.num_steps; ++s) {
      const dlc_step &step = desc.steps[s];
      auto start = std::chrono::steady_clock::now();
      if (step.kind == DLC_STEP_LAUNCH) {
        dlc_host_kernel_fn fn = desc.kernels[step.kernel].host_fn;
        void *const *a = stepArgs;
        pool.parallelFor(step.grid[0],
                         [fn, a](int64_t b, int64_t e) { fn(a, b, e); });
      } else {
        // memmove: the planner may reuse arena space in place.
        std::memmove(stepArgs[1], stepArgs[0], step.args[1].size_bytes);
      }
      if (stepMs)
        stepMs[s] = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      stepArgs += step.num_args;
    }
    // The pool's join orders the kernels' stores before this load.
    return checkStatus(desc, status);
  }

  const dlc_model_desc &desc;
  std::unique_ptr<uint8_t, FreeDeleter> arena;
  /// Resolved arguments of all steps, back to back.
  std::vector<void *> args;
  std::vector<const dlc_buffer_ref *> refs;
  /// Positions in `args` that point into inputs or outputs.
  std::vector<size_t> perRun;
  /// Written by the kernels' run-time checks (16-byte aligned like every
  /// kernel argument).
  alignas(16) int32_t status = 0;
};

class HostModel final : public DeviceModel {
public:
  explicit HostModel(const dlc_model_desc &desc) : desc(desc) {}

  Error createContext(std::unique_ptr<DeviceContext> *out) const override {
    auto ctx = std::make_unique<HostContext>(desc);
    if (Error e = ctx->init(); !e.ok())
      return e;
    *out = std::move(ctx);
    return Error::success();
  }

private:
  const dlc_model_desc &desc;
};

} // namespace

Error createHostModel(const dlc_model_desc &desc,
                      std::unique_ptr<DeviceModel> *out) {
  *out = std::make_unique<HostModel>(desc);
  return Error::success();
}

} // namespace dlc
