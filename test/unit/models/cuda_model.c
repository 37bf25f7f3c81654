/* A CUDA model.so with hand-written PTX: c = a + b over 8 floats. Without a
 * GPU, loading it must fail cleanly; with one, it must compute. */
#include "dlc/model_format.h"

/* NO_KERNELS: c = a by one copy step, no kernels and no PTX (what dlc
 * writes for a model of Identity/Reshape/Shape alone).
 * BAD_PTX: the PTX lacks the kernel (JIT must fail with its log).
 * WITH_CUBIN: also carries a (fake) sm_90 cubin, which a matching device
 * loads instead of the PTX. */
#ifdef BAD_PTX
#define ENTRY "not_the_kernel"
#else
#define ENTRY "add_f32"
#endif
#ifdef WITH_CUBIN
static const uint8_t cubin[] = {0x7f, 'E', 'L', 'F'};
#define CUBIN cubin
#define CUBIN_SIZE sizeof(cubin)
#else
#define CUBIN 0
#define CUBIN_SIZE 0
#endif

static const char ptx[] = ".version 7.0\n"
                          ".target sm_50\n"
                          ".address_size 64\n"
                          "\n"
                          ".visible .entry " ENTRY
                          "(.param .u64 pa, .param .u64 pb, .param .u64 pc)\n"
                          "{\n"
                          "  .reg .pred %p;\n"
                          "  .reg .b32 %r<3>;\n"
                          "  .reg .f32 %f<4>;\n"
                          "  .reg .b64 %rd<8>;\n"
                          "  ld.param.u64 %rd1, [pa];\n"
                          "  ld.param.u64 %rd2, [pb];\n"
                          "  ld.param.u64 %rd3, [pc];\n"
                          "  mov.u32 %r1, %tid.x;\n"
                          "  setp.ge.u32 %p, %r1, 8;\n"
                          "  @%p bra DONE;\n"
                          "  cvta.to.global.u64 %rd1, %rd1;\n"
                          "  cvta.to.global.u64 %rd2, %rd2;\n"
                          "  cvta.to.global.u64 %rd3, %rd3;\n"
                          "  mul.wide.u32 %rd4, %r1, 4;\n"
                          "  add.s64 %rd5, %rd1, %rd4;\n"
                          "  add.s64 %rd6, %rd2, %rd4;\n"
                          "  add.s64 %rd7, %rd3, %rd4;\n"
                          "  ld.global.f32 %f1, [%rd5];\n"
                          "  ld.global.f32 %f2, [%rd6];\n"
                          "  add.f32 %f3, %f1, %f2;\n"
                          "  st.global.f32 [%rd7], %f3;\n"
                          "DONE:\n"
                          "  ret;\n"
                          "}\n";

static const int64_t shape[] = {8};
static const dlc_tensor_desc inputs[] = {
    {"a", DLC_DTYPE_FLOAT32, 1, shape, 32},
    {"b", DLC_DTYPE_FLOAT32, 1, shape, 32},
};
static const dlc_tensor_desc outputs[] = {
    {"c", DLC_DTYPE_FLOAT32, 1, shape, 32},
};
#ifdef NO_KERNELS
#define NUM_KERNELS 0
#define KERNELS 0
#define PTX 0
#define PTX_SIZE 0
#define NUM_INPUTS 1
static const dlc_buffer_ref args[] = {
    {DLC_BUFFER_INPUT, 0, 0, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32},
};
static const dlc_step steps[] = {
    {DLC_STEP_COPY, 0, {1, 1, 1}, {1, 1, 1}, 0, 2, args},
};
#elif defined(OVERLAP)
/* Kernels that wait for their predecessors (DLC_MODEL_KERNELS_WAIT_FOR_GRID_
 * DEPENDENCIES): c = a + b twice, c copied to the arena, then c = a + b
 * again. Only the second launch follows a launch. */
#define NUM_KERNELS 1
#define KERNELS kernels
#define PTX ptx
#define PTX_SIZE sizeof(ptx)
#define NUM_INPUTS 2
#define NUM_STEPS 4
#define ARENA 32
#define FLAGS DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES
static const dlc_kernel_desc kernels[] = {{"add_f32", 0}};
static const dlc_buffer_ref args[] = {
    {DLC_BUFFER_INPUT, 0, 0, 32},  {DLC_BUFFER_INPUT, 1, 0, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32}, {DLC_BUFFER_INPUT, 0, 0, 32},
    {DLC_BUFFER_INPUT, 1, 0, 32},  {DLC_BUFFER_OUTPUT, 0, 0, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32}, {DLC_BUFFER_ARENA, 0, 0, 32},
    {DLC_BUFFER_INPUT, 0, 0, 32},  {DLC_BUFFER_INPUT, 1, 0, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32},
};
static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {8, 1, 1}, 0, 3, args},
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {8, 1, 1}, 0, 3, args + 3},
    {DLC_STEP_COPY, 0, {1, 1, 1}, {1, 1, 1}, 0, 2, args + 6},
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {8, 1, 1}, 0, 3, args + 8},
};
#else
#define NUM_KERNELS 1
#define KERNELS kernels
#define PTX ptx
#define PTX_SIZE sizeof(ptx)
#define NUM_INPUTS 2
static const dlc_kernel_desc kernels[] = {{"add_f32", 0}};
static const dlc_buffer_ref args[] = {
    {DLC_BUFFER_INPUT, 0, 0, 32},
    {DLC_BUFFER_INPUT, 1, 0, 32},
    {DLC_BUFFER_OUTPUT, 0, 0, 32},
};
static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {8, 1, 1}, 0, 3, args},
};
#endif
#ifndef NUM_STEPS
#define NUM_STEPS 1
#define ARENA 0
#define FLAGS 0
#endif
static const dlc_model_desc desc = {
    DLC_MODEL_ABI_VERSION,
    DLC_TARGET_CUDA,
    "sm_90",
    NUM_INPUTS,
    inputs,
    1,
    outputs,
    0,
    0,
    ARENA,
    NUM_KERNELS,
    KERNELS,
    PTX,
    PTX_SIZE,
    CUBIN,
    CUBIN_SIZE,
    NUM_STEPS,
    steps,
    "{}",
    0,
    0,
    0,
    0,
    FLAGS,
};

__attribute__((visibility("default"))) const dlc_model_desc *
dlc_model_query(void) {
  return &desc;
}
