/* A CUDA model.so with one im2col TMA tensor map, for the mock driver (its
 * PTX kernel is a stub; the mock implements tma_im2col(map, out): copy the
 * map's first im2col column, pixel after pixel, densely into out).
 *   map 0: input x, int8 [N=2][H=5][W=6][C=64] channels-last (dims {64, 6,
 *          5, 2}), a bounding box that differs per dimension (lower {W -1,
 *          H -2}, upper {W -2, H 0}: w in -1..3, h in -2..4), 64 channels
 *          of 128 pixels, element strides {1, 1, 2, 1} (every other row),
 *          64-byte swizzle;
 *   step 0: tma_im2col(map 0 -> output y, int8 [128][64]): pixel p is
 *           x[p / 20][p % 20 / 5 * 2 - 2][p % 5 - 1] (zero outside x, and
 *           for p >= 40, past the last image).
 * The BAD_* macros build broken variants for the loader tests. */
#include "dlc/model_format.h"

#ifdef BAD_MODE
#define MAP_MODE 2
#else
#define MAP_MODE DLC_TENSOR_MAP_IM2COL
#endif
#ifdef BAD_RANK
#define MAP_RANK 2 /* im2col needs a spatial dimension */
#else
#define MAP_RANK 4
#endif
#ifdef BAD_CORNER
#define MAP_LOWER_H (-129) /* rank 4 corners lie in [-128, 127] */
#elif defined(BAD_BBOX)
#define MAP_LOWER_H 1 /* 5 + (-4) - 1 = 0 rows */
#else
#define MAP_LOWER_H (-2)
#endif
#ifdef BAD_BBOX
#define MAP_UPPER_H (-4)
#else
#define MAP_UPPER_H 0
#endif
#ifdef BAD_CHANNELS0
#define MAP_CHANNELS 0u
#elif defined(BAD_CHANNELS257)
#define MAP_CHANNELS 257u
#elif defined(BAD_CHANNELS_SWIZZLE)
#define MAP_CHANNELS 128u /* 128 bytes, more than the 64-byte swizzle */
#elif defined(BAD_CHANNELS_ALIGN)
#define MAP_CHANNELS 8u /* 8 bytes, not a multiple of 16 */
#else
#define MAP_CHANNELS 64u
#endif
#ifdef BAD_PIXELS
#define MAP_PIXELS 1025u
#else
#define MAP_PIXELS 128u
#endif
#ifdef BAD_ESTRIDE0
#define MAP_ESTRIDE_H 0u
#else
#define MAP_ESTRIDE_H 2u
#endif
#ifdef BAD_ESTRIDE9
#define MAP_ESTRIDE_W 9u
#else
#define MAP_ESTRIDE_W 1u
#endif

static const char ptx[] = ".version 8.0\n"
                          ".target sm_90\n"
                          ".address_size 64\n"
                          "\n"
                          ".visible .entry tma_im2col"
                          "(.param .u64 map, .param .u64 out)\n"
                          "{\n"
                          "  ret;\n"
                          "}\n";

static const int64_t x_shape[] = {2, 5, 6, 64};
static const int64_t y_shape[] = {128, 64};
static const dlc_tensor_desc inputs[] = {
    {"x", DLC_DTYPE_INT8, 4, x_shape, 3840},
};
static const dlc_tensor_desc outputs[] = {
    {"y", DLC_DTYPE_INT8, 2, y_shape, 8192},
};

static const dlc_tensor_map maps[] = {
    {{DLC_BUFFER_INPUT, 0, 0, 3840},
     DLC_DTYPE_INT8,
     MAP_RANK,
     {64, 6, 5, 2},
     {1, 64, 384, 1920},
     {0},
     64,
     MAP_MODE,
     {-1, MAP_LOWER_H},
     {-2, MAP_UPPER_H},
     MAP_CHANNELS,
     MAP_PIXELS,
     {1, MAP_ESTRIDE_W, MAP_ESTRIDE_H, 1}},
};

static const dlc_kernel_desc kernels[] = {{"tma_im2col", 0}};
static const dlc_buffer_ref step0_args[] = {
    {DLC_BUFFER_TENSOR_MAP, 0, 0, 128},
    {DLC_BUFFER_OUTPUT, 0, 0, 8192},
};
static const dlc_step steps[] = {
    {DLC_STEP_LAUNCH, 0, {1, 1, 1}, {128, 1, 1}, 0, 2, step0_args},
};

static const dlc_model_desc desc = {
    DLC_MODEL_ABI_VERSION,
    DLC_TARGET_CUDA,
    "sm_90",
    1,
    inputs,
    1,
    outputs,
    0,
    0,
    0,
    1,
    kernels,
    ptx,
    sizeof(ptx),
    0,
    0,
    1,
    steps,
    "{}",
    0,
    0,
    1,
    maps,
};

__attribute__((visibility("default"))) const dlc_model_desc *
dlc_model_query(void) {
  return &desc;
}
