//===- api.cpp - The C API of libdlcrt ------------------------------------===//
//
// Every entry point converts internal Errors (and any C++ exception) into a
// dlc_status plus the thread-local message; nothing throws across the C
// boundary.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <functional>
#include <mutex>
#include <new>

#ifndef DLC_VERSION_STRING
#define DLC_VERSION_STRING "unknown"
#endif

struct dlc_model_s {
  std::shared_ptr<dlc::LoadedModel> model;
};

struct dlc_context_s {
  std::shared_ptr<dlc::LoadedModel> model;
  std::unique_ptr<dlc::DeviceContext> impl;
  /// Held while running: a second concurrent run is refused, not raced.
  std::mutex busy;
};

namespace dlc {
namespace {

thread_local std::string lastError;

dlc_status fail(const Error &e) {
  lastError = e.message;
  return e.code;
}

template <typename... Args> dlc_status fail(dlc_status code, Args &&...args) {
  return fail(makeError(code, std::forward<Args>(args)...));
}

/// Runs `body` (returning dlc_status), mapping exceptions to statuses.
template <typename Fn> dlc_status guarded(Fn &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(DLC_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(DLC_ERROR_INTERNAL, "internal error: ", e.what());
  } catch (...) {
    return fail(DLC_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

#define DLC_CHECK_ARG(cond, ...)                                               \
  do {                                                                         \
    if (!(cond))                                                               \
      return fail(DLC_ERROR_INVALID_ARGUMENT, __VA_ARGS__);                    \
  } while (0)

const dlc_model_desc &descOf(dlc_model_t m) { return *m->model->desc; }

dlc_status tensorInfo(dlc_model_t model, int32_t index, dlc_tensor_info *info,
                      bool input) {
  DLC_CHECK_ARG(model && info, "null model or info pointer");
  const dlc_model_desc &d = descOf(model);
  int32_t n = input ? d.num_inputs : d.num_outputs;
  DLC_CHECK_ARG(index >= 0 && index < n, input ? "input" : "output", " index ",
                index, " out of range: the model has ", n);
  const dlc_tensor_desc &t = input ? d.inputs[index] : d.outputs[index];
  *info = {t.name, t.dtype, t.rank, t.shape, t.size_bytes};
  return DLC_OK;
}

std::string listNames(int32_t n, const dlc_tensor_desc *tensors) {
  std::string s;
  for (int32_t i = 0; i < n; ++i)
    s += cat(i ? ", " : "", "'", tensors[i].name, "'");
  return s.empty() ? "none" : s;
}

dlc_status findTensor(dlc_model_t model, const char *name, int32_t *index,
                      bool input) {
  DLC_CHECK_ARG(model && name && index, "null argument");
  const dlc_model_desc &d = descOf(model);
  int32_t n = input ? d.num_inputs : d.num_outputs;
  const dlc_tensor_desc *t = input ? d.inputs : d.outputs;
  for (int32_t i = 0; i < n; ++i)
    if (std::string(t[i].name) == name) {
      *index = i;
      return DLC_OK;
    }
  return fail(DLC_ERROR_INVALID_ARGUMENT, "the model has no ",
              input ? "input" : "output", " named '", name, "' (it has ",
              listNames(n, t), ")");
}

/// Validates one side of a run: count, non-null buffers, exact sizes.
dlc_status checkBuffers(const char *what, int32_t expected,
                        const dlc_tensor_desc *tensors, const void *const *ptrs,
                        const size_t *sizes, int n) {
  if (n != expected)
    return fail(DLC_ERROR_INVALID_ARGUMENT, "expected ", expected, " ", what,
                "s (", listNames(expected, tensors), "), got ", n);
  if (n > 0 && (!ptrs || !sizes))
    return fail(DLC_ERROR_INVALID_ARGUMENT, "null ", what, " array");
  for (int i = 0; i < n; ++i) {
    const dlc_tensor_desc &t = tensors[i];
    if (sizes[i] != t.size_bytes)
      return fail(DLC_ERROR_INVALID_ARGUMENT, what, " '", t.name, "' (#", i,
                  "): expected ", t.size_bytes, " bytes (", describeTensor(t),
                  "), got ", sizes[i]);
    if (!ptrs[i] && t.size_bytes)
      return fail(DLC_ERROR_INVALID_ARGUMENT, what, " '", t.name, "' (#", i,
                  "): null buffer");
  }
  return DLC_OK;
}

/// Checks a run's buffers, holds the context's busy lock, and runs `body`
/// (the context's run or profile).
dlc_status runChecked(dlc_context_t context, const void *const *inputs,
                      const size_t *input_sizes, int n_inputs,
                      void *const *outputs, const size_t *output_sizes,
                      int n_outputs, const std::function<Error()> &body) {
  DLC_CHECK_ARG(context, "null context");
  const dlc_model_desc &d = *context->model->desc;
  if (dlc_status s = checkBuffers("input", d.num_inputs, d.inputs, inputs,
                                  input_sizes, n_inputs))
    return s;
  if (dlc_status s = checkBuffers("output", d.num_outputs, d.outputs, outputs,
                                  output_sizes, n_outputs))
    return s;
  std::unique_lock<std::mutex> lock(context->busy, std::try_to_lock);
  DLC_CHECK_ARG(lock.owns_lock(), "context is already running on another "
                                  "thread; use one context per thread");
  if (Error e = body(); !e.ok())
    return fail(e);
  return DLC_OK;
}

} // namespace
} // namespace dlc

using namespace dlc;

extern "C" {

const char *dlc_status_name(dlc_status status) {
  switch (status) {
  case DLC_OK:
    return "DLC_OK";
  case DLC_ERROR_INVALID_ARGUMENT:
    return "DLC_ERROR_INVALID_ARGUMENT";
  case DLC_ERROR_NOT_FOUND:
    return "DLC_ERROR_NOT_FOUND";
  case DLC_ERROR_INVALID_MODEL:
    return "DLC_ERROR_INVALID_MODEL";
  case DLC_ERROR_ABI_MISMATCH:
    return "DLC_ERROR_ABI_MISMATCH";
  case DLC_ERROR_TARGET_MISMATCH:
    return "DLC_ERROR_TARGET_MISMATCH";
  case DLC_ERROR_DEVICE_UNAVAILABLE:
    return "DLC_ERROR_DEVICE_UNAVAILABLE";
  case DLC_ERROR_DEVICE:
    return "DLC_ERROR_DEVICE";
  case DLC_ERROR_OUT_OF_MEMORY:
    return "DLC_ERROR_OUT_OF_MEMORY";
  case DLC_ERROR_INTERNAL:
    return "DLC_ERROR_INTERNAL";
  case DLC_ERROR_CHECK_FAILED:
    return "DLC_ERROR_CHECK_FAILED";
  default:
    return "DLC_ERROR_UNKNOWN";
  }
}

const char *dlc_last_error(void) { return lastError.c_str(); }

const char *dlc_runtime_version(void) { return DLC_VERSION_STRING; }

uint32_t dlc_runtime_abi_version(void) { return DLC_MODEL_ABI_VERSION; }

const char *dlc_dtype_name(int32_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_FLOAT32:
    return "float32";
  case DLC_DTYPE_UINT8:
    return "uint8";
  case DLC_DTYPE_INT8:
    return "int8";
  case DLC_DTYPE_UINT16:
    return "uint16";
  case DLC_DTYPE_INT16:
    return "int16";
  case DLC_DTYPE_UINT32:
    return "uint32";
  case DLC_DTYPE_UINT64:
    return "uint64";
  case DLC_DTYPE_INT32:
    return "int32";
  case DLC_DTYPE_INT64:
    return "int64";
  case DLC_DTYPE_BOOL:
    return "bool";
  case DLC_DTYPE_FLOAT16:
    return "float16";
  case DLC_DTYPE_FLOAT64:
    return "float64";
  case DLC_DTYPE_BFLOAT16:
    return "bfloat16";
  case DLC_DTYPE_FLOAT8E4M3FN:
    return "float8e4m3fn";
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
    return "float8e4m3fnuz";
  case DLC_DTYPE_FLOAT8E5M2:
    return "float8e5m2";
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
    return "float8e5m2fnuz";
  case DLC_DTYPE_UINT4:
    return "uint4";
  case DLC_DTYPE_INT4:
    return "int4";
  case DLC_DTYPE_FLOAT4E2M1:
    return "float4e2m1";
  case DLC_DTYPE_FLOAT8E8M0:
    return "float8e8m0";
  case DLC_DTYPE_UINT2:
    return "uint2";
  case DLC_DTYPE_INT2:
    return "int2";
  default:
    return "unknown";
  }
}

size_t dlc_dtype_size(int32_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_UINT8:
  case DLC_DTYPE_INT8:
  case DLC_DTYPE_BOOL:
  case DLC_DTYPE_FLOAT8E4M3FN:
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
  case DLC_DTYPE_FLOAT8E5M2:
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
  case DLC_DTYPE_FLOAT8E8M0:
    return 1;
  case DLC_DTYPE_FLOAT16:
  case DLC_DTYPE_BFLOAT16:
  case DLC_DTYPE_INT16:
  case DLC_DTYPE_UINT16:
    return 2;
  case DLC_DTYPE_FLOAT32:
  case DLC_DTYPE_INT32:
  case DLC_DTYPE_UINT32:
    return 4;
  case DLC_DTYPE_INT64:
  case DLC_DTYPE_UINT64:
  case DLC_DTYPE_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

size_t dlc_dtype_bits(int32_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_UINT4:
  case DLC_DTYPE_INT4:
  case DLC_DTYPE_FLOAT4E2M1:
    return 4;
  case DLC_DTYPE_UINT2:
  case DLC_DTYPE_INT2:
    return 2;
  default:
    return 8 * dlc_dtype_size(dtype);
  }
}

dlc_status dlc_model_load(const char *path, dlc_device device,
                          int device_ordinal, dlc_model_t *model) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model, "null output pointer");
    *model = nullptr;
    std::shared_ptr<LoadedModel> loaded;
    if (Error e = loadModel(path, device, device_ordinal, &loaded); !e.ok())
      return fail(e);
    *model = new dlc_model_s{std::move(loaded)};
    return DLC_OK;
  });
}

dlc_status dlc_model_free(dlc_model_t model) {
  return guarded([&]() -> dlc_status {
    delete model;
    return DLC_OK;
  });
}

dlc_status dlc_model_num_inputs(dlc_model_t model, int32_t *count) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && count, "null model or output pointer");
    *count = descOf(model).num_inputs;
    return DLC_OK;
  });
}

dlc_status dlc_model_num_outputs(dlc_model_t model, int32_t *count) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && count, "null model or output pointer");
    *count = descOf(model).num_outputs;
    return DLC_OK;
  });
}

dlc_status dlc_model_input_info(dlc_model_t model, int32_t index,
                                dlc_tensor_info *info) {
  return guarded([&] { return tensorInfo(model, index, info, true); });
}

dlc_status dlc_model_output_info(dlc_model_t model, int32_t index,
                                 dlc_tensor_info *info) {
  return guarded([&] { return tensorInfo(model, index, info, false); });
}

dlc_status dlc_model_find_input(dlc_model_t model, const char *name,
                                int32_t *index) {
  return guarded(
      [&]() -> dlc_status { return findTensor(model, name, index, true); });
}

dlc_status dlc_model_find_output(dlc_model_t model, const char *name,
                                 int32_t *index) {
  return guarded(
      [&]() -> dlc_status { return findTensor(model, name, index, false); });
}

dlc_status dlc_model_check_input(dlc_model_t model, int32_t index,
                                 int32_t dtype, int32_t rank,
                                 const int64_t *shape) {
  return guarded([&]() -> dlc_status {
    dlc_tensor_info info{};
    if (dlc_status s = tensorInfo(model, index, &info, true))
      return s;
    DLC_CHECK_ARG(rank >= 0 && (rank == 0 || shape), "invalid rank or shape");
    bool same = dtype == info.dtype && rank == info.rank;
    for (int32_t i = 0; same && i < rank; ++i)
      same = shape[i] == info.shape[i];
    if (!same)
      return fail(DLC_ERROR_INVALID_ARGUMENT, "input '", info.name,
                  "': expected ",
                  describeTensor(info.dtype, info.rank, info.shape), ", got ",
                  describeTensor(dtype, rank, shape));
    return DLC_OK;
  });
}

dlc_status dlc_model_target(dlc_model_t model, int32_t *target,
                            const char **arch) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model, "null model");
    if (target)
      *target = descOf(model).target;
    if (arch)
      *arch = descOf(model).arch ? descOf(model).arch : "";
    return DLC_OK;
  });
}

dlc_status dlc_model_arena_size(dlc_model_t model, uint64_t *bytes) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && bytes, "null model or output pointer");
    *bytes = descOf(model).arena_size;
    return DLC_OK;
  });
}

dlc_status dlc_model_weights_size(dlc_model_t model, uint64_t *bytes) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && bytes, "null model or output pointer");
    *bytes = descOf(model).weights_size;
    return DLC_OK;
  });
}

dlc_status dlc_model_manifest(dlc_model_t model, const char **manifest) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && manifest, "null model or output pointer");
    *manifest = descOf(model).manifest ? descOf(model).manifest : "{}";
    return DLC_OK;
  });
}

dlc_status dlc_context_create(dlc_model_t model, dlc_context_t *context) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && context, "null model or output pointer");
    *context = nullptr;
    auto ctx = std::make_unique<dlc_context_s>();
    ctx->model = model->model;
    if (Error e = model->model->device->createContext(&ctx->impl); !e.ok())
      return fail(e);
    *context = ctx.release();
    return DLC_OK;
  });
}

dlc_status dlc_context_free(dlc_context_t context) {
  return guarded([&]() -> dlc_status {
    delete context;
    return DLC_OK;
  });
}

dlc_status dlc_context_run(dlc_context_t context, const void *const *inputs,
                           const size_t *input_sizes, int n_inputs,
                           void *const *outputs, const size_t *output_sizes,
                           int n_outputs) {
  return guarded([&]() -> dlc_status {
    return runChecked(context, inputs, input_sizes, n_inputs, outputs,
                      output_sizes, n_outputs,
                      [&] { return context->impl->run(inputs, outputs); });
  });
}

dlc_status dlc_model_num_steps(dlc_model_t model, int32_t *count) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && count, "null model or count pointer");
    *count = descOf(model).num_steps;
    return DLC_OK;
  });
}

dlc_status dlc_context_num_steps(dlc_context_t context, int32_t *count) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context && count, "null context or count pointer");
    *count = context->model->desc->num_steps;
    return DLC_OK;
  });
}

dlc_status dlc_model_step_name(dlc_model_t model, int32_t index,
                               const char **name) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(model && name, "null model or name pointer");
    const dlc_model_desc &d = descOf(model);
    DLC_CHECK_ARG(index >= 0 && index < d.num_steps, "step index ", index,
                  " out of range (", d.num_steps, ")");
    const dlc_step &step = d.steps[index];
    *name = step.kind == DLC_STEP_LAUNCH ? d.kernels[step.kernel].name : "copy";
    return DLC_OK;
  });
}

dlc_status dlc_context_profile(dlc_context_t context, const void *const *inputs,
                               const size_t *input_sizes, int n_inputs,
                               void *const *outputs, const size_t *output_sizes,
                               int n_outputs, double *step_ms,
                               int32_t n_steps) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context, "null context");
    const dlc_model_desc &d = *context->model->desc;
    DLC_CHECK_ARG(step_ms || d.num_steps == 0, "null step_ms");
    DLC_CHECK_ARG(n_steps == d.num_steps, "step_ms has ", n_steps,
                  " entries, the plan has ", d.num_steps, " steps");
    return runChecked(context, inputs, input_sizes, n_inputs, outputs,
                      output_sizes, n_outputs, [&] {
                        return context->impl->profile(inputs, outputs, step_ms);
                      });
  });
}

dlc_status dlc_context_device_buffer(dlc_context_t context, int is_output,
                                     int32_t index, void **device_ptr) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context && device_ptr, "null context or output pointer");
    const dlc_model_desc &d = *context->model->desc;
    int32_t n = is_output ? d.num_outputs : d.num_inputs;
    DLC_CHECK_ARG(index >= 0 && index < n, is_output ? "output" : "input",
                  " index ", index, " out of range (", n, ")");
    uint64_t address = 0;
    if (Error e = context->impl->deviceBuffer(is_output, index, &address);
        !e.ok())
      return fail(e);
    *device_ptr = reinterpret_cast<void *>(uintptr_t(address));
    return DLC_OK;
  });
}

dlc_status dlc_context_run_resident(dlc_context_t context) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context, "null context");
    std::unique_lock<std::mutex> lock(context->busy, std::try_to_lock);
    DLC_CHECK_ARG(lock.owns_lock(), "context is already running on another "
                                    "thread; use one context per thread");
    if (Error e = context->impl->runResident(); !e.ok())
      return fail(e);
    return DLC_OK;
  });
}

dlc_status dlc_context_overlapped_launches(dlc_context_t context,
                                          int32_t *count) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context && count, "null context or output pointer");
    *count = context->impl->overlappedLaunches();
    return DLC_OK;
  });
}

dlc_status dlc_context_device_memory_bytes(dlc_context_t context,
                                           uint64_t *bytes) {
  return guarded([&]() -> dlc_status {
    DLC_CHECK_ARG(context && bytes, "null context or output pointer");
    *bytes = context->impl->deviceMemoryBytes();
    return DLC_OK;
  });
}

} // extern "C"
