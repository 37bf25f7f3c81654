//===- loader.cpp - Opening model.so files and checking descriptors -------===//

#include "internal.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>

namespace dlc {

const char *targetName(int32_t target) {
  switch (target) {
  case DLC_TARGET_CPU:
    return "cpu";
  case DLC_TARGET_CUDA:
    return "cuda";
  default:
    return "unknown";
  }
}

std::string describeTensor(int32_t dtype, int32_t rank, const int64_t *shape) {
  std::string s = dlc_dtype_name(dtype);
  s += '[';
  for (int32_t i = 0; i < rank; ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ']';
}

int tensorMapDataType(int32_t dtype) {
  // CUtensorMapDataType; TMA moves bytes, so the 1-byte types share UINT8.
  switch (dtype) {
  case DLC_DTYPE_UINT8:
  case DLC_DTYPE_INT8:
  case DLC_DTYPE_BOOL:
  case DLC_DTYPE_FLOAT8E4M3FN:
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
  case DLC_DTYPE_FLOAT8E5M2:
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
    return 0;
  case DLC_DTYPE_INT16:
  case DLC_DTYPE_UINT16:
    return 1;
  case DLC_DTYPE_UINT32:
    return 2;
  case DLC_DTYPE_INT32:
    return 3;
  case DLC_DTYPE_UINT64:
    return 4;
  case DLC_DTYPE_INT64:
    return 5;
  case DLC_DTYPE_FLOAT16:
    return 6;
  case DLC_DTYPE_FLOAT32:
    return 7;
  case DLC_DTYPE_FLOAT64:
    return 8;
  case DLC_DTYPE_BFLOAT16:
    return 9;
  default:
    return -1;
  }
}

LoadedModel::~LoadedModel() {
  // Device state may point into the .so (weights), so it goes first.
  device.reset();
  if (handle)
    dlclose(handle);
}

namespace {

/// a + b <= limit without overflow.
bool fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

Error checkTensors(const char *what, int32_t count,
                   const dlc_tensor_desc *tensors) {
  if (count < 0 || (count > 0 && !tensors))
    return makeError(DLC_ERROR_INVALID_MODEL, "invalid ", what, " table");
  for (int32_t i = 0; i < count; ++i) {
    const dlc_tensor_desc &t = tensors[i];
    if (!t.name)
      return makeError(DLC_ERROR_INVALID_MODEL, what, " #", i, " has no name");
    size_t bits = dlc_dtype_bits(t.dtype);
    if (!bits)
      return makeError(DLC_ERROR_INVALID_MODEL, what, " '", t.name,
                       "' has unknown dtype ", t.dtype);
    if (t.rank < 0 || t.rank > 64 || (t.rank > 0 && !t.shape))
      return makeError(DLC_ERROR_INVALID_MODEL, what, " '", t.name,
                       "' has an invalid rank ", t.rank);
    // In bits, so that sub-byte tensors round up to their packed bytes.
    uint64_t totalBits = bits;
    for (int32_t d = 0; d < t.rank; ++d) {
      if (t.shape[d] < 0)
        return makeError(DLC_ERROR_INVALID_MODEL, what, " '", t.name,
                         "' has a dynamic or negative dim ", d);
      if (t.shape[d] && totalBits > (UINT64_MAX / 8) / uint64_t(t.shape[d]))
        return makeError(DLC_ERROR_INVALID_MODEL, what, " '", t.name,
                         "' is too large");
      totalBits *= uint64_t(t.shape[d]);
    }
    uint64_t bytes = (totalBits + 7) / 8;
    if (bytes != t.size_bytes)
      return makeError(DLC_ERROR_INVALID_MODEL, what, " '", t.name,
                       "': size_bytes ", t.size_bytes, " does not match ",
                       describeTensor(t), " (", bytes, " bytes)");
  }
  return Error::success();
}

Error checkRef(const dlc_model_desc &desc, const dlc_buffer_ref &ref,
               uint64_t size, const std::string &where) {
  auto range = [&](const char *buffer, uint64_t limit) -> Error {
    if (fits(ref.offset, size, limit))
      return Error::success();
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": ", buffer, " range [",
                     ref.offset, ", ", ref.offset + size, ") exceeds its size ",
                     limit);
  };
  switch (ref.kind) {
  case DLC_BUFFER_ARENA:
    return range("arena", desc.arena_size);
  case DLC_BUFFER_WEIGHT:
    return range("weights", desc.weights_size);
  case DLC_BUFFER_INPUT:
  case DLC_BUFFER_OUTPUT: {
    bool in = ref.kind == DLC_BUFFER_INPUT;
    int32_t n = in ? desc.num_inputs : desc.num_outputs;
    if (ref.index < 0 || ref.index >= n)
      return makeError(DLC_ERROR_INVALID_MODEL, where, ": ",
                       in ? "input" : "output", " index ", ref.index,
                       " out of range (", n, ")");
    const dlc_tensor_desc &t =
        in ? desc.inputs[ref.index] : desc.outputs[ref.index];
    return range(in ? "input" : "output", t.size_bytes);
  }
  case DLC_BUFFER_STATUS:
    if (desc.num_checks <= 0)
      return makeError(DLC_ERROR_INVALID_MODEL, where,
                       ": uses the status word but the model has no checks");
    return range("status word", sizeof(int32_t));
  case DLC_BUFFER_TENSOR_MAP:
    return makeError(DLC_ERROR_INVALID_MODEL, where,
                     ": a tensor map can only be a kernel argument");
  default:
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": unknown buffer kind ",
                     ref.kind);
  }
}

// The layout test/tools/describe_model.py reads (ABI 5).
static_assert(sizeof(dlc_tensor_map) == 192 &&
                  offsetof(dlc_tensor_map, mode) == 136 &&
                  offsetof(dlc_tensor_map, element_strides) == 172,
              "dlc_tensor_map layout");

/// What cuTensorMapEncodeIm2col requires of an im2col map's own fields
/// (rank, dims and swizzle already checked).
Error checkIm2col(const dlc_tensor_map &m, uint64_t elemSize,
                  const std::string &where) {
  auto fail = [&](auto &&...args) {
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": ",
                     std::forward<decltype(args)>(args)...);
  };
  // The corners' precision shrinks with the number of spatial dimensions.
  int64_t limit = m.rank == 3 ? 32768 : m.rank == 4 ? 128 : 16;
  for (int32_t i = 0; i < m.rank - 2; ++i) {
    for (const auto &[name, corner] :
         {std::pair("lower_corner", m.lower_corner),
          std::pair("upper_corner", m.upper_corner)})
      if (corner[i] < -limit || corner[i] >= limit)
        return fail(name, "[", i, "] = ", corner[i], " is not in ", -limit,
                    "..", limit - 1, " (im2col, rank ", m.rank, ")");
    int64_t extent =
        int64_t(m.dims[1 + i]) + m.upper_corner[i] - m.lower_corner[i];
    if (extent < 1)
      return fail("im2col bounding box is empty in dims[", 1 + i, "]: dims[",
                  1 + i, "] + upper_corner[", i, "] - lower_corner[", i,
                  "] = ", m.dims[1 + i], " + ", m.upper_corner[i], " - ",
                  m.lower_corner[i], " = ", extent);
  }
  if (m.channels_per_pixel < 1 || m.channels_per_pixel > 256)
    return fail("channels_per_pixel = ", m.channels_per_pixel,
                " is not in 1..256");
  uint64_t pixelBytes = m.channels_per_pixel * elemSize;
  if (pixelBytes % 16)
    return fail("channels_per_pixel * element size = ", pixelBytes,
                " bytes is not a multiple of 16");
  if (m.swizzle && pixelBytes > uint64_t(m.swizzle))
    return fail("channels_per_pixel * element size = ", pixelBytes,
                " bytes exceeds the swizzle span of ", m.swizzle, " bytes");
  if (m.pixels_per_column < 1 || m.pixels_per_column > 1024)
    return fail("pixels_per_column = ", m.pixels_per_column,
                " is not in 1..1024");
  for (int32_t d = 0; d < m.rank; ++d)
    if (m.element_strides[d] < 1 || m.element_strides[d] > 8)
      return fail("element_strides[", d, "] = ", m.element_strides[d],
                  " is not in 1..8");
  return Error::success();
}

/// What the driver requires of a tensor map (cuTensorMapEncodeTiled, or
/// cuTensorMapEncodeIm2col for im2col maps) and that it addresses nothing
/// past its buffer.
Error checkTensorMap(const dlc_model_desc &desc, const dlc_tensor_map &m,
                     const std::string &where) {
  auto fail = [&](auto &&...args) {
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": ",
                     std::forward<decltype(args)>(args)...);
  };
  if (m.mode != DLC_TENSOR_MAP_TILED && m.mode != DLC_TENSOR_MAP_IM2COL)
    return fail("mode ", m.mode, " is not ", int(DLC_TENSOR_MAP_TILED),
                " (tiled) or ", int(DLC_TENSOR_MAP_IM2COL), " (im2col)");
  bool im2col = m.mode == DLC_TENSOR_MAP_IM2COL;
  if (im2col && (m.rank < 3 || m.rank > 5))
    return fail("rank ", m.rank, " is not in 3..5 (im2col)");
  if (m.rank < 1 || m.rank > 5)
    return fail("rank ", m.rank, " is not in 1..5");
  uint64_t elemSize = dlc_dtype_size(m.dtype);
  if (tensorMapDataType(m.dtype) < 0)
    return fail("dtype ", m.dtype, " (", dlc_dtype_name(m.dtype),
                ") has no TMA data type");
  const dlc_buffer_ref &t = m.tensor;
  // checkRef refuses unknown kinds.
  if (t.kind == DLC_BUFFER_STATUS || t.kind == DLC_BUFFER_TENSOR_MAP)
    return fail("cannot map ",
                t.kind == DLC_BUFFER_STATUS ? "the status word"
                                            : "another tensor map",
                "; only arena, weight, input and output buffers");
  if (Error e = checkRef(desc, t, t.size_bytes, where + ", tensor"); !e.ok())
    return e;
  // Every buffer base is at least 256-byte aligned on the device.
  if (t.offset % 16)
    return fail("tensor offset ", t.offset, " is not 16-byte aligned");

  // The highest byte addressed: the last element of every dimension.
  uint64_t extent = elemSize;
  bool overflow = false;
  for (int32_t d = 0; d < m.rank; ++d) {
    if (m.dims[d] < 1 || m.dims[d] > (uint64_t(1) << 32))
      return fail("dims[", d, "] = ", m.dims[d], " is not in 1..2^32");
    if (d == 0) {
      if (m.strides[0] != elemSize)
        return fail("strides[0] = ", m.strides[0], " is not the element size ",
                    elemSize);
      overflow |= __builtin_mul_overflow(elemSize, m.dims[0], &extent);
    } else {
      if (m.strides[d] % 16)
        return fail("strides[", d, "] = ", m.strides[d],
                    " is not a multiple of 16");
      if (m.strides[d] >= (uint64_t(1) << 40))
        return fail("strides[", d, "] = ", m.strides[d], " is not below 2^40");
      uint64_t span = 0;
      overflow |= __builtin_mul_overflow(m.dims[d] - 1, m.strides[d], &span);
      overflow |= __builtin_add_overflow(extent, span, &extent);
    }
    if (im2col) // im2col maps have no box
      continue;
    if (m.box[d] < 1 || m.box[d] > 256)
      return fail("box[", d, "] = ", m.box[d], " is not in 1..256");
    // A box larger than the tensor makes an invalid map whose copies fault.
    if (m.box[d] > m.dims[d])
      return fail("box[", d, "] = ", m.box[d], " exceeds dims[", d,
                  "] = ", m.dims[d]);
  }
  uint64_t rowBytes = m.box[0] * elemSize;
  if (!im2col && rowBytes % 16)
    return fail("box[0] * element size = ", rowBytes,
                " bytes is not a multiple of 16");
  if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 && m.swizzle != 128)
    return fail("swizzle ", m.swizzle, " is not 0, 32, 64 or 128");
  if (!im2col && m.swizzle && rowBytes > uint64_t(m.swizzle))
    return fail("box[0] * element size = ", rowBytes,
                " bytes exceeds the swizzle span of ", m.swizzle, " bytes");
  if (im2col)
    if (Error e = checkIm2col(m, elemSize, where); !e.ok())
      return e;
  if (overflow || extent > t.size_bytes)
    return fail("dims and strides span ",
                overflow ? std::string("more than 2^64") : cat(extent),
                " bytes, past the ", t.size_bytes, " bytes of its tensor");
  return Error::success();
}

/// A kernel argument {DLC_BUFFER_TENSOR_MAP, index}.
Error checkTensorMapArg(const dlc_model_desc &desc, const dlc_buffer_ref &ref,
                        const std::string &where) {
  if (ref.index < 0 || ref.index >= desc.num_tensor_maps)
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": tensor map index ",
                     ref.index, " out of range (", desc.num_tensor_maps,
                     " tensor maps)");
  if (ref.offset != 0)
    return makeError(DLC_ERROR_INVALID_MODEL, where, ": tensor map #",
                     ref.index, " at offset ", ref.offset,
                     "; a map is passed whole (offset 0)");
  return Error::success();
}

} // namespace

Error checkStatus(const dlc_model_desc &desc, int32_t status) {
  if (status == 0)
    return Error::success();
  if (status < 0 || status > desc.num_checks)
    return makeError(DLC_ERROR_INTERNAL, "the model's status word holds ",
                     status, ", which names no check");
  return makeError(DLC_ERROR_CHECK_FAILED, desc.checks[status - 1]);
}

Error validateDescriptor(const dlc_model_desc &desc) {
  if (desc.abi_version != DLC_MODEL_ABI_VERSION)
    return makeError(DLC_ERROR_ABI_MISMATCH, "model ABI version ",
                     desc.abi_version, " but this runtime loads version ",
                     DLC_MODEL_ABI_VERSION,
                     "; recompile the model with a matching dlc");
  if (desc.target != DLC_TARGET_CPU && desc.target != DLC_TARGET_CUDA)
    return makeError(DLC_ERROR_INVALID_MODEL, "unknown target ", desc.target);
  bool cuda = desc.target == DLC_TARGET_CUDA;
  if (Error e = checkTensors("input", desc.num_inputs, desc.inputs); !e.ok())
    return e;
  if (Error e = checkTensors("output", desc.num_outputs, desc.outputs); !e.ok())
    return e;
  if (desc.weights_size && !desc.weights)
    return makeError(DLC_ERROR_INVALID_MODEL, "weights_size is ",
                     desc.weights_size, " but there is no weights blob");

  if (desc.num_kernels < 0 || (desc.num_kernels > 0 && !desc.kernels))
    return makeError(DLC_ERROR_INVALID_MODEL, "invalid kernel table");
  for (int32_t i = 0; i < desc.num_kernels; ++i) {
    const dlc_kernel_desc &k = desc.kernels[i];
    if (cuda && !k.name)
      return makeError(DLC_ERROR_INVALID_MODEL, "kernel #", i, " has no name");
    if (!cuda && !k.host_fn)
      return makeError(DLC_ERROR_INVALID_MODEL, "kernel #", i, " ('",
                       k.name ? k.name : "?", "') has no host function");
  }
  if (cuda && desc.num_kernels > 0 && !(desc.ptx && desc.ptx_size) &&
      !(desc.cubin && desc.cubin_size))
    return makeError(DLC_ERROR_INVALID_MODEL,
                     "CUDA model carries neither PTX nor a cubin");

  if (desc.num_checks < 0 || (desc.num_checks > 0 && !desc.checks))
    return makeError(DLC_ERROR_INVALID_MODEL, "invalid check table");
  for (int32_t i = 0; i < desc.num_checks; ++i)
    if (!desc.checks[i])
      return makeError(DLC_ERROR_INVALID_MODEL, "check #", i + 1,
                       " has no message");

  if (desc.num_tensor_maps < 0 ||
      (desc.num_tensor_maps > 0 && !desc.tensor_maps))
    return makeError(DLC_ERROR_INVALID_MODEL, "invalid tensor map table");
  if (!cuda && desc.num_tensor_maps > 0)
    return makeError(
        DLC_ERROR_INVALID_MODEL, "tensor maps are CUDA only (TMA), but this ",
        targetName(desc.target), " model has ", desc.num_tensor_maps);
  for (int32_t i = 0; i < desc.num_tensor_maps; ++i)
    if (Error e =
            checkTensorMap(desc, desc.tensor_maps[i], cat("tensor map #", i));
        !e.ok())
      return e;

  constexpr uint32_t kKnownFlags = DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES;
  if (desc.flags & ~kKnownFlags)
    return makeError(DLC_ERROR_INVALID_MODEL, "unknown model flags ",
                     desc.flags & ~kKnownFlags, " (this runtime knows ",
                     kKnownFlags, ")");
  if (!cuda && (desc.flags & DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES))
    return makeError(DLC_ERROR_INVALID_MODEL,
                     "kernels that wait for grid dependencies are CUDA only "
                     "(griddepcontrol), but this ",
                     targetName(desc.target), " model says so");

  if (desc.num_steps < 0 || (desc.num_steps > 0 && !desc.steps))
    return makeError(DLC_ERROR_INVALID_MODEL, "invalid step table");
  for (int32_t s = 0; s < desc.num_steps; ++s) {
    const dlc_step &step = desc.steps[s];
    std::string where = cat("step ", s);
    if (step.num_args < 0 || (step.num_args > 0 && !step.args))
      return makeError(DLC_ERROR_INVALID_MODEL, where, ": invalid arguments");
    if (step.kind == DLC_STEP_LAUNCH) {
      if (step.kernel < 0 || step.kernel >= desc.num_kernels)
        return makeError(DLC_ERROR_INVALID_MODEL, where, ": kernel index ",
                         step.kernel, " out of range (", desc.num_kernels,
                         " kernels)");
      const char *name = desc.kernels[step.kernel].name;
      where += cat(" (kernel '", name ? name : "?", "')");
      if (cuda && (!step.grid[0] || !step.grid[1] || !step.grid[2] ||
                   !step.block[0] || !step.block[1] || !step.block[2]))
        return makeError(DLC_ERROR_INVALID_MODEL, where,
                         ": zero grid or block dimension");
      for (int32_t a = 0; a < step.num_args; ++a) {
        const dlc_buffer_ref &ref = step.args[a];
        std::string arg = cat(where, ", arg ", a);
        Error e = ref.kind == DLC_BUFFER_TENSOR_MAP
                      ? checkTensorMapArg(desc, ref, arg)
                      : checkRef(desc, ref, ref.size_bytes, arg);
        if (!e.ok())
          return e;
      }
    } else if (step.kind == DLC_STEP_COPY) {
      if (step.num_args != 2)
        return makeError(DLC_ERROR_INVALID_MODEL, where,
                         ": copy takes 2 "
                         "arguments, not ",
                         step.num_args);
      int32_t dstKind = step.args[1].kind;
      if (dstKind == DLC_BUFFER_WEIGHT || dstKind == DLC_BUFFER_INPUT ||
          dstKind == DLC_BUFFER_STATUS ||
          step.args[0].kind == DLC_BUFFER_STATUS)
        return makeError(
            DLC_ERROR_INVALID_MODEL, where,
            ": copy into read-only weights or inputs, or of the status word");
      uint64_t bytes = step.args[1].size_bytes;
      if (Error e = checkRef(desc, step.args[0], bytes, where + ", source");
          !e.ok())
        return e;
      if (Error e = checkRef(desc, step.args[1], bytes, where + ", dest");
          !e.ok())
        return e;
    } else {
      return makeError(DLC_ERROR_INVALID_MODEL, where, ": unknown step kind ",
                       step.kind);
    }
  }
  return Error::success();
}

Error loadModel(const char *path, dlc_device device, int ordinal,
                std::shared_ptr<LoadedModel> *out) {
  if (!path || !*path)
    return makeError(DLC_ERROR_INVALID_ARGUMENT, "model path is empty");
  if (device != DLC_DEVICE_AUTO && device != DLC_DEVICE_CPU &&
      device != DLC_DEVICE_CUDA)
    return makeError(DLC_ERROR_INVALID_ARGUMENT, "unknown device ",
                     int(device));
  struct stat st;
  if (stat(path, &st) != 0)
    return makeError(DLC_ERROR_NOT_FOUND, "cannot open model '", path,
                     "': ", std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return makeError(DLC_ERROR_NOT_FOUND, "cannot open model '", path,
                     "': not a regular file");

  auto model = std::make_shared<LoadedModel>();
  model->path = path;
  // Without a slash dlopen would search the library path instead of using
  // the file the caller named.
  std::string file = std::strchr(path, '/') ? path : cat("./", path);
  // RTLD_LOCAL: two models must not resolve each other's symbols.
  model->handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model->handle) {
    const char *err = dlerror();
    return makeError(DLC_ERROR_INVALID_MODEL, "cannot load '", path,
                     "' as a shared library: ", err ? err : "unknown error");
  }
  dlerror();
  void *sym = dlsym(model->handle, DLC_MODEL_QUERY_SYMBOL);
  if (!sym)
    return makeError(DLC_ERROR_INVALID_MODEL, "'", path,
                     "' is not a dlc model: it does not export ",
                     DLC_MODEL_QUERY_SYMBOL);
  auto query = reinterpret_cast<dlc_model_query_fn>(sym);
  model->desc = query();
  if (!model->desc)
    return makeError(DLC_ERROR_INVALID_MODEL, "'", path,
                     "': ", DLC_MODEL_QUERY_SYMBOL, " returned no descriptor");
  if (Error e = validateDescriptor(*model->desc); !e.ok()) {
    e.message = cat("'", path, "': ", e.message);
    return e;
  }

  const dlc_model_desc &desc = *model->desc;
  bool wantCuda = device == DLC_DEVICE_CUDA ||
                  (device == DLC_DEVICE_AUTO && desc.target == DLC_TARGET_CUDA);
  bool isCuda = desc.target == DLC_TARGET_CUDA;
  if (wantCuda != isCuda)
    return makeError(
        DLC_ERROR_TARGET_MISMATCH, "'", path, "' was compiled for target ",
        targetName(desc.target), " (", desc.arch ? desc.arch : "?",
        ") but device ", wantCuda ? "cuda" : "cpu",
        " was requested; recompile with --target=", wantCuda ? "cuda" : "cpu");
  Error e = isCuda ? createCudaModel(desc, ordinal, &model->device)
                   : createHostModel(desc, &model->device);
  if (!e.ok())
    return e;
  *out = std::move(model);
  return Error::success();
}

} // namespace dlc
