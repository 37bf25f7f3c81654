/*===- dlc_runtime.h - The dlc runtime C API --------------------*- C -*-===//
 *
 * libdlcrt loads a model.so written by the dlc compiler and runs it on the
 * host CPU or an NVIDIA GPU.
 *
 *   dlc_model_t model;
 *   if (dlc_model_load("model.so", DLC_DEVICE_AUTO, 0, &model) != DLC_OK)
 *     fprintf(stderr, "%s\n", dlc_last_error());
 *   dlc_context_t ctx;
 *   dlc_context_create(model, &ctx);
 *   dlc_context_run(ctx, inputs, input_sizes, 1, outputs, output_sizes, 1);
 *   dlc_context_free(ctx);
 *   dlc_model_free(model);
 *
 * Errors: every function that can fail returns a dlc_status; DLC_OK (0) is
 * success. A failing call also stores a message, naming what was wrong, in a
 * thread-local slot read with dlc_last_error(). Successful calls leave that
 * slot unchanged (like errno), so cleanup calls do not erase a message.
 *
 * Threads: a dlc_model_t is immutable after loading and may be used from any
 * number of threads at once. A dlc_context_t holds the per-run state (arena,
 * stream) and runs one inference at a time; use one context per thread.
 * A context keeps its model alive: the two may be freed in any order.
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_H
#define DLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "dlc/model_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DLC_API __attribute__((visibility("default")))
#else
#define DLC_API
#endif

/// Result of every fallible call.
typedef int32_t dlc_status;

/// Status codes. New codes may be added; treat unknown ones as errors.
enum {
  DLC_OK = 0,
  /// A null handle or pointer, an index out of range, a bad option.
  DLC_ERROR_INVALID_ARGUMENT = 1,
  /// The model file does not exist or cannot be read.
  DLC_ERROR_NOT_FOUND = 2,
  /// The file is not a model.so or its descriptor is malformed.
  DLC_ERROR_INVALID_MODEL = 3,
  /// The model was written for another descriptor ABI version.
  DLC_ERROR_ABI_MISMATCH = 4,
  /// The model's target does not match the requested device.
  DLC_ERROR_TARGET_MISMATCH = 5,
  /// The requested device (driver, GPU) is not available.
  DLC_ERROR_DEVICE_UNAVAILABLE = 6,
  /// The device reported an error (CUDA driver call failed).
  DLC_ERROR_DEVICE = 7,
  /// Host or device memory could not be allocated.
  DLC_ERROR_OUT_OF_MEMORY = 8,
  /// A bug in the runtime.
  DLC_ERROR_INTERNAL = 9,
  /// A run-time check of the model failed on this run's input data (e.g. a
  /// Gather or Scatter index out of range); the message names the node. The
  /// outputs of that run are unspecified; the context stays usable.
  DLC_ERROR_CHECK_FAILED = 10,
};

/// Where a model runs.
typedef enum dlc_device {
  DLC_DEVICE_AUTO = 0, ///< The device the model was compiled for.
  DLC_DEVICE_CPU = 1,
  DLC_DEVICE_CUDA = 2,
  /// Not a device: makes every int32 value a valid dlc_device, so a bad
  /// value from C is a reported error rather than undefined behaviour.
  DLC_DEVICE_MAX_ENUM = 0x7fffffff,
} dlc_device;

/// A loaded model (opaque).
typedef struct dlc_model_s *dlc_model_t;
/// Per-inference state of a model: arena, I/O buffers, stream (opaque).
typedef struct dlc_context_s *dlc_context_t;

/// One model input or output. Pointers stay valid while the model lives.
typedef struct dlc_tensor_info {
  const char *name;
  int32_t dtype; ///< dlc_dtype
  int32_t rank;
  const int64_t *shape; ///< rank entries
  uint64_t size_bytes;
} dlc_tensor_info;

/// Short name of a status code, e.g. "DLC_ERROR_NOT_FOUND".
DLC_API const char *dlc_status_name(dlc_status status);

/// Message of the most recent failing call on this thread ("" if none).
/// Valid until the next failing call on this thread.
DLC_API const char *dlc_last_error(void);

/// Version of libdlcrt, e.g. "0.1.0".
DLC_API const char *dlc_runtime_version(void);

/// Descriptor ABI version this runtime loads (DLC_MODEL_ABI_VERSION).
DLC_API uint32_t dlc_runtime_abi_version(void);

/// Name of an element type ("float32", "int64", ...) or "unknown".
DLC_API const char *dlc_dtype_name(int32_t dtype);

/// Bytes per element of an element type, 0 if unknown or less than a byte
/// (int4, uint4, float4e2m1, int2, uint2: see dlc_dtype_bits).
DLC_API size_t dlc_dtype_size(int32_t dtype);

/// Bits per element of an element type (4 for int4/uint4/float4e2m1, 2 for
/// int2/uint2,
/// 8 * dlc_dtype_size otherwise), 0 if unknown. A tensor of n elements takes
/// (n * bits + 7) / 8 bytes.
DLC_API size_t dlc_dtype_bits(int32_t dtype);

/// Loads a model.so. `device` must match the model's target (or be
/// DLC_DEVICE_AUTO); `device_ordinal` selects the GPU for CUDA models and is
/// ignored on the CPU. On CUDA the weights are uploaded here, once.
DLC_API dlc_status dlc_model_load(const char *path, dlc_device device,
                                  int device_ordinal, dlc_model_t *model);

/// Releases the caller's reference to a model; NULL is a no-op. The model
/// is destroyed once its last context is freed too.
DLC_API dlc_status dlc_model_free(dlc_model_t model);

DLC_API dlc_status dlc_model_num_inputs(dlc_model_t model, int32_t *count);
DLC_API dlc_status dlc_model_num_outputs(dlc_model_t model, int32_t *count);

/// Describes input #index.
DLC_API dlc_status dlc_model_input_info(dlc_model_t model, int32_t index,
                                        dlc_tensor_info *info);
/// Describes output #index.
DLC_API dlc_status dlc_model_output_info(dlc_model_t model, int32_t index,
                                         dlc_tensor_info *info);

/// Index of the input called `name`; DLC_ERROR_INVALID_ARGUMENT listing the
/// model's inputs if there is none.
DLC_API dlc_status dlc_model_find_input(dlc_model_t model, const char *name,
                                        int32_t *index);
/// Index of the output called `name`.
DLC_API dlc_status dlc_model_find_output(dlc_model_t model, const char *name,
                                         int32_t *index);

/// Checks that a tensor of `dtype` and `shape` fits input #index; the error
/// names the input and gives the expected and actual types.
DLC_API dlc_status dlc_model_check_input(dlc_model_t model, int32_t index,
                                         int32_t dtype, int32_t rank,
                                         const int64_t *shape);

/// The model's target (dlc_target) and architecture ("sm_90", "x86-64").
DLC_API dlc_status dlc_model_target(dlc_model_t model, int32_t *target,
                                    const char **arch);

/// Bytes of scratch memory (the arena) each context allocates.
DLC_API dlc_status dlc_model_arena_size(dlc_model_t model, uint64_t *bytes);

/// Bytes of the weights blob (on CUDA, device memory held by the model).
DLC_API dlc_status dlc_model_weights_size(dlc_model_t model, uint64_t *bytes);

/// The compiler's manifest (JSON: dlc version, options, source model hash).
DLC_API dlc_status dlc_model_manifest(dlc_model_t model, const char **manifest);

/// Creates a context: allocates the arena and, on CUDA, device I/O buffers
/// and a stream.
DLC_API dlc_status dlc_context_create(dlc_model_t model,
                                      dlc_context_t *context);

/// Destroys a context; NULL is a no-op.
DLC_API dlc_status dlc_context_free(dlc_context_t context);

/// Runs the model once and waits for it to finish. inputs[i] and outputs[i]
/// are host buffers of input_sizes[i] / output_sizes[i] bytes, in the
/// model's order; each size must equal the tensor's size_bytes. Buffers must
/// not overlap and need only the alignment of their element type. A wrong
/// count, a null buffer or a wrong size is an error naming the tensor.
/// Fails with DLC_ERROR_INVALID_ARGUMENT if the context is already running
/// on another thread.
DLC_API dlc_status dlc_context_run(dlc_context_t context,
                                   const void *const *inputs,
                                   const size_t *input_sizes, int n_inputs,
                                   void *const *outputs,
                                   const size_t *output_sizes, int n_outputs);

/// Device address (a CUdeviceptr) of the CUDA context's own buffer for
/// input (`is_output` = 0) or output #index: where dlc_context_run copies
/// inputs to and outputs from, and where dlc_context_run_resident reads and
/// writes. Fixed for the context's lifetime (its CUDA graph uses it), so
/// inputs produced on the GPU can be written there directly. Host contexts
/// have no buffers of their own: DLC_ERROR_INVALID_ARGUMENT.
DLC_API dlc_status dlc_context_device_buffer(dlc_context_t context,
                                             int is_output, int32_t index,
                                             void **device_ptr);

/// Runs the model on the inputs already in the context's device buffers
/// (left by an earlier dlc_context_run, or written through
/// dlc_context_device_buffer by work finished before this call) and leaves
/// the outputs there: no host copies. Waits for the run to finish. CUDA
/// contexts only (DLC_ERROR_INVALID_ARGUMENT on host contexts).
DLC_API dlc_status dlc_context_run_resident(dlc_context_t context);

/// The number of steps of the model's plan (kernel launches and copies),
/// what dlc_context_profile times.
DLC_API dlc_status dlc_model_num_steps(dlc_model_t model, int32_t *count);

/// The same count from a context (which may outlive its model handle).
DLC_API dlc_status dlc_context_num_steps(dlc_context_t context, int32_t *count);

/// The name of step #index: its kernel's symbol (e.g.
/// "k5_encoder_layer_0_attention_self_query_Add"), or "copy" for a copy
/// step. The string lives as long as the model.
DLC_API dlc_status dlc_model_step_name(dlc_model_t model, int32_t index,
                                       const char **name);

/// Runs the model once like dlc_context_run (same buffers, same checks),
/// but one step at a time instead of as one CUDA graph, and writes each
/// step's time in milliseconds to step_ms[0 .. n_steps) (n_steps must be
/// dlc_model_num_steps): the device time between CUDA events around the
/// step, or the wall time of the step on the host. Slower than
/// dlc_context_run (no graph): for finding where the time goes, not for
/// measuring the total.
DLC_API dlc_status dlc_context_profile(
    dlc_context_t context, const void *const *inputs, const size_t *input_sizes,
    int n_inputs, void *const *outputs, const size_t *output_sizes,
    int n_outputs, double *step_ms, int32_t n_steps);

/// Memory this context holds on its device: arena plus, on CUDA, the device
/// input/output buffers. Host contexts report their arena.
DLC_API dlc_status dlc_context_device_memory_bytes(dlc_context_t context,
                                                   uint64_t *bytes);

/// How many launches of the context's CUDA graph may be scheduled while
/// the kernel before them still runs (programmatic dependent launch, for
/// models built with dlc --overlap-launches): every launch that follows a
/// launch, or 0 where the driver has no cuLaunchKernelEx or could not
/// capture such launches (the graph is then fully serialized). 0 before
/// the context's first run (the graph is captured then) and on the host.
DLC_API dlc_status dlc_context_overlapped_launches(dlc_context_t context,
                                                  int32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* DLC_RUNTIME_H */
