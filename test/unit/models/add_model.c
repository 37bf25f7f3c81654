/* A hand-written CPU model.so: out = a + b + w, in three steps.
 *   step 0: launch add(a, b -> arena[0:32])
 *   step 1: launch add(arena[0:32], weights[0:32] -> arena[64:96])
 *   step 2: copy arena[64:96] -> output "out/c:0"
 * WITH_CHECK: step 0 also gets the status word and reports check 1 when an
 * element of `a` is negative (as a Gather kernel does for a bad index).
 * The BAD_* macros build broken variants for the loader tests (BAD_TMA: a
 * tensor map, which only CUDA models may have); FLAGS sets
 * dlc_model_desc.flags. */
#include "dlc/model_format.h"

#ifndef ABI_VERSION
#define ABI_VERSION DLC_MODEL_ABI_VERSION
#endif
#ifndef FLAGS
#define FLAGS 0
#endif
#ifndef QUERY_NAME
#define QUERY_NAME dlc_model_query
#endif
#ifdef BAD_ARENA
#define ARENA_SIZE 80 /* step 1 writes [64, 96) */
#else
#define ARENA_SIZE 96
#endif
#ifdef BAD_KERNEL
#define SECOND_KERNEL 5
#else
#define SECOND_KERNEL 0
#endif
#ifdef BAD_WEIGHT
#define WEIGHT_OFFSET 16 /* [16, 48) is past the 32-byte blob */
#else
#define WEIGHT_OFFSET 0
#endif
#ifdef BAD_INPUT_INDEX
#define SECOND_INPUT 2
#else
#define SECOND_INPUT 1
#endif

static void add_f32(void *const *args, int64_t begin, int64_t end) {
  const float *x = (const float *)args[0];
  const float *y = (const float *)args[1];
  float *z = (float *)args[2];
  for (int64_t i = begin; i < end; ++i)
    z[i] = x[i] + y[i];
}

/* add_f32 that stores check 1 into the status word (args[3]) on a < 0. */
static void add_checked(void *const *args, int64_t begin, int64_t end) {
  add_f32(args, begin, end);
  const float *x = (const float *)args[0];
  for (int64_t i = begin; i < end; ++i)
    if (x[i] < 0)
      *(int32_t *)args[3] = 1;
}

#if defined(WITH_CHECK) || defined(BAD_STATUS)
#define FIRST_KERNEL 1
#define FIRST_ARITY 4
#else
#define FIRST_KERNEL 0
#define FIRST_ARITY 3
#endif
#ifdef WITH_CHECK
#define NUM_CHECKS 1
#else
#define NUM_CHECKS 0 /* BAD_STATUS: a status argument without checks */
#endif

static const int64_t shape[] = {2, 4};
static const dlc_tensor_desc inputs[] = {
    {"a", DLC_DTYPE_FLOAT32, 2, shape, 32},
    {"b", DLC_DTYPE_FLOAT32, 2, shape, 32},
};
static const dlc_tensor_desc outputs[] = {
    {"out/c:0", DLC_DTYPE_FLOAT32, 2, shape, 32},
};

static const float weights[8]
    __attribute__((aligned(64))) = {100, 200, 300, 400, 500, 600, 700, 800};

static const dlc_kernel_desc kernels[] = {{"add_f32", add_f32},
                                          {"add_checked", add_checked}};
static const char *const checks[] = {
    "Gather node 'gather_0': index out of range (axis 0 has 8 entries)"};

static const dlc_buffer_ref step0_args[] = {
    {DLC_BUFFER_INPUT, 0, 0, 32},
    {DLC_BUFFER_INPUT, SECOND_INPUT, 0, 32},
    {DLC_BUFFER_ARENA, 0, 0, 32},
    {DLC_BUFFER_STATUS, 0, 0, 4},
};
static const dlc_buffer_ref step1_args[] = {
    {DLC_BUFFER_ARENA, 0, 0, 32},
    {DLC_BUFFER_WEIGHT, 0, WEIGHT_OFFSET, 32},
    {DLC_BUFFER_ARENA, 0, 64, 32},
};
static const dlc_buffer_ref step2_args[] = {
    {DLC_BUFFER_ARENA, 0, 64, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32},
};
#ifdef BAD_TMA
static const dlc_tensor_map maps[] = {
    {{DLC_BUFFER_INPUT, 0, 0, 32},
     DLC_DTYPE_FLOAT32,
     2,
     {4, 2},
     {4, 16},
     {4, 2},
     0},
};
#define NUM_MAPS 1
#define MAPS maps
#else
#define NUM_MAPS 0
#define MAPS 0
#endif

static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH,
     FIRST_KERNEL,
     {8, 1, 1},
     {1, 1, 1},
     0,
     FIRST_ARITY,
     step0_args},
    {DLC_STEP_LAUNCH, SECOND_KERNEL, {8, 1, 1}, {1, 1, 1}, 0, 3, step1_args},
    {DLC_STEP_COPY, 0, {0, 0, 0}, {0, 0, 0}, 0, 2, step2_args},
};

static const dlc_model_desc desc = {
    ABI_VERSION,
    DLC_TARGET_CPU,
    "x86-64",
    2,
    inputs,
    1,
    outputs,
    (const uint8_t *)weights,
    sizeof(weights),
    ARENA_SIZE,
    2,
    kernels,
    0,
    0,
    0,
    0,
    3,
    steps,
    "{\"dlc_version\": \"test\", \"model\": \"add\"}",
    NUM_CHECKS,
    checks,
    NUM_MAPS,
    MAPS,
    FLAGS,
};

__attribute__((visibility("default"))) const dlc_model_desc *QUERY_NAME(void) {
  return &desc;
}
