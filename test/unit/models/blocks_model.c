/* A CPU model whose kernel counts how often each of its 1000 blocks runs:
 * output "hits" (int32[1000]) += 1 per block. The runtime must cover every
 * block exactly once, whatever the thread count. */
#include "dlc/model_format.h"

#define N 1000

static void mark(void *const *args, int64_t begin, int64_t end) {
  int32_t *hits = (int32_t *)args[0];
  for (int64_t i = begin; i < end; ++i)
    __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
}

static const int64_t shape[] = {N};
static const dlc_tensor_desc outputs[] = {
    {"hits", DLC_DTYPE_INT32, 1, shape, N * 4},
};
static const dlc_kernel_desc kernels[] = {{"mark", mark}};
static const dlc_buffer_ref args[] = {{DLC_BUFFER_OUTPUT, 0, 0, N * 4}};
static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH, 0, {N, 1, 1}, {1, 1, 1}, 0, 1, args},
    {DLC_STEP_LAUNCH, 0, {0, 1, 1}, {1, 1, 1}, 0, 1, args}, /* no blocks */
};
static const dlc_model_desc desc = {
    DLC_MODEL_ABI_VERSION,
    DLC_TARGET_CPU,
    "x86-64",
    0,
    0,
    1,
    outputs,
    0,
    0,
    0,
    1,
    kernels,
    0,
    0,
    0,
    0,
    2,
    steps,
    "{}",
};

__attribute__((visibility("default"))) const dlc_model_desc *
dlc_model_query(void) {
  return &desc;
}
