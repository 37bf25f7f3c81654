/*===- dlc/model_format.h - The model.so descriptor ---------------*- C -*-===//
 *
 * The contract between the dlc compiler (which writes it as C source into
 * every model.so) and libdlcrt (which reads it). A model.so exports exactly
 * one symbol, DLC_MODEL_QUERY_SYMBOL; calling it returns a read-only
 * descriptor. Everything the runtime needs is reachable from there: the
 * signature, the weights, the arena size, the kernels and the plan.
 *
 * Plain C so that the generated code compiles with any C compiler and the
 * runtime never needs LLVM or MLIR. Bump DLC_MODEL_ABI_VERSION on any layout
 * change; the runtime refuses descriptors of another version.
 *===----------------------------------------------------------------------===*/
#ifndef DLC_MODEL_FORMAT_H
#define DLC_MODEL_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLC_MODEL_ABI_VERSION 5u
#define DLC_MODEL_QUERY_SYMBOL "dlc_model_query"

/* Element types; the values match onnx.TensorProto.DataType. */
typedef enum dlc_dtype {
  DLC_DTYPE_FLOAT32 = 1,
  DLC_DTYPE_UINT8 = 2,
  DLC_DTYPE_INT8 = 3,
  DLC_DTYPE_UINT16 = 4,
  DLC_DTYPE_INT16 = 5,
  DLC_DTYPE_INT32 = 6,
  DLC_DTYPE_INT64 = 7,
  DLC_DTYPE_BOOL = 9,
  DLC_DTYPE_FLOAT16 = 10,
  DLC_DTYPE_FLOAT64 = 11,
  DLC_DTYPE_UINT32 = 12,
  DLC_DTYPE_UINT64 = 13,
  DLC_DTYPE_BFLOAT16 = 16,
  DLC_DTYPE_FLOAT8E4M3FN = 17,
  DLC_DTYPE_FLOAT8E4M3FNUZ = 18,
  DLC_DTYPE_FLOAT8E5M2 = 19,
  DLC_DTYPE_FLOAT8E5M2FNUZ = 20,
  /* Sub-byte integers, packed as ONNX packs them: the first element in the
   * low bits of each byte, the last byte padded; see dlc_dtype_bits. */
  DLC_DTYPE_UINT4 = 21,
  DLC_DTYPE_INT4 = 22,
  DLC_DTYPE_FLOAT4E2M1 = 23, /* +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, 4-bit codes */
  DLC_DTYPE_FLOAT8E8M0 = 24, /* 2^(code - 127), 255 NaN: the MX scales */
  DLC_DTYPE_UINT2 = 25,
  DLC_DTYPE_INT2 = 26,
} dlc_dtype;

typedef enum dlc_target {
  DLC_TARGET_CPU = 0,
  DLC_TARGET_CUDA = 1,
} dlc_target;

/* One model input or output. */
typedef struct dlc_tensor_desc {
  const char *name;
  int32_t dtype; /* dlc_dtype */
  int32_t rank;
  const int64_t *shape; /* rank entries, all static */
  uint64_t size_bytes;
} dlc_tensor_desc;

/* Where a kernel argument or copy operand lives. */
typedef enum dlc_buffer_kind {
  DLC_BUFFER_ARENA = 0,  /* arena + offset */
  DLC_BUFFER_WEIGHT = 1, /* weights blob + offset (read-only) */
  DLC_BUFFER_INPUT = 2,  /* model input #index (+ offset) */
  DLC_BUFFER_OUTPUT = 3, /* model output #index (+ offset) */
  /* The context's 4-byte status word (offset 0). Kernels that check data
   * read at run time (Gather/Scatter indices) store k there when check k
   * fails; the runtime zeroes it before a run and reports checks[k - 1]. */
  DLC_BUFFER_STATUS = 4,
  /* CUDA only, kernel arguments only: the device address of the context's
   * encoded copy of tensor map #index (offset 0, size_bytes 128). */
  DLC_BUFFER_TENSOR_MAP = 5,
} dlc_buffer_kind;

typedef struct dlc_buffer_ref {
  int32_t kind; /* dlc_buffer_kind */
  int32_t index;
  uint64_t offset;
  uint64_t size_bytes;
} dlc_buffer_ref;

/* Host kernels: the compiler wraps each generated function so that it takes
 * its pointer arguments as an array and a half-open range of "blocks" (the
 * linearized iteration space of the kernel). The runtime splits
 * [0, num_blocks) over its thread pool. */
typedef void (*dlc_host_kernel_fn)(void *const *args, int64_t begin,
                                   int64_t end);

typedef enum dlc_tensor_map_mode {
  DLC_TENSOR_MAP_TILED = 0,  /* cuTensorMapEncodeTiled: boxes of the tensor */
  DLC_TENSOR_MAP_IM2COL = 1, /* cuTensorMapEncodeIm2col: convolution input
                                columns (implicit GEMM) */
} dlc_tensor_map_mode;

/* A TMA tensor map (CUtensorMap, sm_90) over a buffer: the runtime encodes
 * it when it creates a context (every buffer address is fixed then) and
 * copies the 128 bytes to device memory, 64-byte aligned; a kernel argument
 * {DLC_BUFFER_TENSOR_MAP, index} is that copy's address. Elements past a
 * dimension's end read as zero (OOB fill none), interleave none, L2
 * promotion 256 bytes.
 *
 * DLC_TENSOR_MAP_TILED maps are encoded with cuTensorMapEncodeTiled, element
 * strides 1 (element_strides and the other im2col fields are ignored; the
 * compiler leaves them zero).
 *
 * DLC_TENSOR_MAP_IM2COL maps are encoded with cuTensorMapEncodeIm2col over a
 * channels-last tensor [N, (D,) H, W, C] of rank 3 .. 5: dims[0] = C,
 * dims[1] = W, dims[2] = H, (dims[3] = D,) dims[rank - 1] = N. A copy moves
 * channels_per_pixel channels of each of pixels_per_column pixels. Those
 * pixels are the filter origins of a convolution (its padded output
 * positions; the copy's offsets add the filter tap): in spatial dimension i
 * (dims[1 + i]) from lower_corner[i] to dims[1 + i] - 1 + upper_corner[i],
 * every element_strides[1 + i]-th, innermost dimension first, then the next
 * image. Pixels outside the tensor (padding) read as zero. box is unused. */
typedef struct dlc_tensor_map {
  dlc_buffer_ref tensor; /* arena/weight/input/output; 16-byte aligned */
  int32_t dtype;         /* dlc_dtype of the elements */
  int32_t rank;          /* 1 .. 5 (im2col: 3 .. 5) */
  uint64_t dims[5];      /* extents in elements, innermost first */
  uint64_t strides[5];   /* bytes from index i to i + 1 of dims[d], d >= 1
                            (strides[0] is the element size); multiples
                            of 16 */
  uint32_t box[5];       /* tiled: the box one copy moves, innermost first,
                            each 1 .. 256; box[0] * element size a multiple
                            of 16 bytes and, when swizzled, at most swizzle */
  int32_t swizzle;       /* 0, 32, 64 or 128 bytes */
  int32_t mode;          /* dlc_tensor_map_mode */
  /* DLC_TENSOR_MAP_IM2COL only (cuTensorMapEncodeIm2col); zero for tiled.
   * The corners: pixelBoxLowerCorner and pixelBoxUpperCorner, innermost
   * spatial dimension first (W, H, D), rank - 2 of them used, each in
   * [-32768, 32767] (rank 3), [-128, 127] (rank 4) or [-16, 15] (rank 5);
   * the bounding box is not empty: dims[1 + i] + upper_corner[i] -
   * lower_corner[i] > 0. */
  int32_t lower_corner[3];     /* pixelBoxLowerCorner */
  int32_t upper_corner[3];     /* pixelBoxUpperCorner */
  uint32_t channels_per_pixel; /* elements of dims[0] one copy moves per
                                  pixel, 1 .. 256; times the element size
                                  a multiple of 16 bytes and, when
                                  swizzled, at most swizzle */
  uint32_t pixels_per_column;  /* pixels one copy moves, 1 .. 1024 */
  uint32_t element_strides[5]; /* traversal strides, innermost first (a
                                  convolution's strides in the spatial
                                  dims), each 1 .. 8; rank used */
} dlc_tensor_map;

/* dlc_model_desc.flags. */
typedef enum dlc_model_flags {
  /* cuda: every kernel begins with griddepcontrol.wait (it reads nothing
   * before the grids it depends on have finished and their writes are
   * visible) and then griddepcontrol.launch_dependents, so the runtime may
   * launch a kernel that follows a kernel with programmatic stream
   * serialization: its CTAs are scheduled while its predecessor's last
   * wave still runs (sm_90 and newer; dlc --overlap-launches). */
  DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES = 1u,
} dlc_model_flags;

typedef struct dlc_kernel_desc {
  const char *name;           /* entry name in the PTX / cubin (cuda) */
  dlc_host_kernel_fn host_fn; /* cpu target only, else NULL */
} dlc_kernel_desc;

typedef enum dlc_step_kind {
  DLC_STEP_LAUNCH = 0, /* run kernels[kernel] with args */
  DLC_STEP_COPY = 1,   /* args[0] -> args[1], args[1].size_bytes bytes */
} dlc_step_kind;

/* One step of the execution plan, run in order on one stream. */
typedef struct dlc_step {
  int32_t kind; /* dlc_step_kind */
  int32_t kernel;
  uint32_t grid[3];  /* cuda: grid dims; cpu: grid[0] = num_blocks */
  uint32_t block[3]; /* cuda: block dims; cpu: unused (1) */
  uint32_t shared_mem_bytes;
  int32_t num_args;
  const dlc_buffer_ref *args;
} dlc_step;

typedef struct dlc_model_desc {
  uint32_t abi_version; /* DLC_MODEL_ABI_VERSION */
  int32_t target;       /* dlc_target */
  const char *arch;     /* "sm_90", "x86-64" */
  int32_t num_inputs;
  const dlc_tensor_desc *inputs;
  int32_t num_outputs;
  const dlc_tensor_desc *outputs;
  const uint8_t *weights; /* 64-byte aligned */
  uint64_t weights_size;
  uint64_t arena_size;
  int32_t num_kernels;
  const dlc_kernel_desc *kernels;
  const char *ptx; /* NUL-terminated PTX of all kernels (cuda) or NULL */
  uint64_t ptx_size;
  const uint8_t *cubin; /* cubin for `arch` (cuda) or NULL */
  uint64_t cubin_size;
  int32_t num_steps;
  const dlc_step *steps;
  const char *manifest; /* JSON: dlc version, options, source model hash */
  int32_t num_checks;
  const char *const *checks; /* message of check k at [k - 1] */
  int32_t num_tensor_maps;   /* cuda only, else 0 */
  const dlc_tensor_map *tensor_maps;
  uint32_t flags; /* dlc_model_flags */
} dlc_model_desc;

/* The one symbol a model.so exports. */
typedef const dlc_model_desc *(*dlc_model_query_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* DLC_MODEL_FORMAT_H */
