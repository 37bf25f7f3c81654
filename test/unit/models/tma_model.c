/* A CUDA model.so with two TMA tensor maps, for the mock driver (its PTX
 * kernel is a stub; the mock implements tma_box_2d(map, out): copy the
 * map's first box, innermost dimension first, densely into out).
 *   map 0: input x, float32 [4][8] whole (dims {8, 4}, box {8, 4}),
 *          32-byte swizzle;
 *   map 1: rows 1..3 of the weights, float32 [4][16] (offset 64, dims
 *          {16, 3}, box {4, 2}): w[r][c] = 16 * r + c; its im2col fields
 *          hold values an im2col map could not have (ignored).
 *   step 0: tma_box_2d(map 0 -> output y, float32 [4][8]) = x
 *   step 1: tma_box_2d(map 1 -> output w, float32 [2][4]) = weights rows 1..2,
 *           columns 0..3
 * The BAD_* macros build broken variants for the loader tests. */
#include "dlc/model_format.h"

#ifdef BAD_RANK
#define MAP0_RANK 0
#else
#define MAP0_RANK 2
#endif
#ifdef BAD_BOX
#define MAP0_BOX1 300
#elif defined(BAD_BOX_DIMS)
#define MAP0_BOX1 5 /* one row more than x has */
#else
#define MAP0_BOX1 4
#endif
#ifdef BAD_STRIDE
#define MAP1_STRIDE1 56 /* not a multiple of 16 */
#else
#define MAP1_STRIDE1 64
#endif
#ifdef BAD_SWIZZLE
#define MAP1_BOX0 16 /* 64 bytes per box row, more than the 32-byte swizzle */
#define MAP1_SWIZZLE 32
#else
#define MAP1_BOX0 4
#define MAP1_SWIZZLE 0
#endif
#ifdef BAD_EXTENT
#define MAP1_ROWS 4 /* rows 1..4 of a 4-row blob */
#else
#define MAP1_ROWS 3
#endif
#ifdef BAD_MAP_OFFSET
#define MAP1_OFFSET 56 /* in range, not 16-byte aligned */
#else
#define MAP1_OFFSET 64
#endif
#ifdef BAD_MAP_INDEX
#define STEP1_MAP 2
#else
#define STEP1_MAP 1
#endif
#ifdef BAD_MAP_COPY
#define NUM_STEPS 3 /* step 2 copies map 0 into output y */
#else
#define NUM_STEPS 2
#endif

static const char ptx[] = ".version 8.0\n"
                          ".target sm_90\n"
                          ".address_size 64\n"
                          "\n"
                          ".visible .entry tma_box_2d"
                          "(.param .u64 map, .param .u64 out)\n"
                          "{\n"
                          "  ret;\n"
                          "}\n";

static const int64_t x_shape[] = {4, 8};
static const int64_t w_shape[] = {2, 4};
static const dlc_tensor_desc inputs[] = {
    {"x", DLC_DTYPE_FLOAT32, 2, x_shape, 128},
};
static const dlc_tensor_desc outputs[] = {
    {"y", DLC_DTYPE_FLOAT32, 2, x_shape, 128},
    {"w", DLC_DTYPE_FLOAT32, 2, w_shape, 32},
};

static const float weights[64] __attribute__((aligned(64))) = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

static const dlc_tensor_map maps[] = {
    {{DLC_BUFFER_INPUT, 0, 0, 128},
     DLC_DTYPE_FLOAT32,
     MAP0_RANK,
     {8, 4},
     {4, 32},
     {8, MAP0_BOX1},
     32},
    {{DLC_BUFFER_WEIGHT, 0, MAP1_OFFSET, 192},
     DLC_DTYPE_FLOAT32,
     2,
     {16, MAP1_ROWS},
     {4, MAP1_STRIDE1},
     {MAP1_BOX0, 2},
     MAP1_SWIZZLE,
     /* A tiled map: the runtime ignores the im2col fields, element strides
      * included (it encodes 1s). */
     DLC_TENSOR_MAP_TILED,
     {-200, 3, 9},
     {7, -300, 1},
     0,
     2000,
     {9, 0, 4, 8, 100}},
};

static const dlc_kernel_desc kernels[] = {{"tma_box_2d", 0}};
static const dlc_buffer_ref step0_args[] = {
    {DLC_BUFFER_TENSOR_MAP, 0, 0, 128},
    {DLC_BUFFER_OUTPUT, 0, 0, 128},
};
static const dlc_buffer_ref step1_args[] = {
    {DLC_BUFFER_TENSOR_MAP, STEP1_MAP, 0, 128},
    {DLC_BUFFER_OUTPUT, 1, 0, 32},
};
static const dlc_buffer_ref step2_args[] = {
    {DLC_BUFFER_TENSOR_MAP, 0, 0, 128},
    {DLC_BUFFER_OUTPUT, 0, 0, 128},
};
static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {128, 1, 1}, 0, 2, step0_args},
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {128, 1, 1}, 0, 2, step1_args},
    {DLC_STEP_COPY, 0, {0, 0, 0}, {0, 0, 0}, 0, 2, step2_args},
};

static const dlc_model_desc desc = {
    DLC_MODEL_ABI_VERSION,
    DLC_TARGET_CUDA,
    "sm_90",
    1,
    inputs,
    2,
    outputs,
    (const uint8_t *)weights,
    sizeof(weights),
    0,
    1,
    kernels,
    ptx,
    sizeof(ptx),
    0,
    0,
    NUM_STEPS,
    steps,
    "{}",
    0,
    0,
    2,
    maps,
};

__attribute__((visibility("default"))) const dlc_model_desc *
dlc_model_query(void) {
  return &desc;
}
