//===- cuda_device.cpp - Running CUDA models through the driver API -------===//
//
// A CudaModel holds the module (cubin when it matches the GPU, else PTX JIT)
// and the weights in device memory; both are shared by all its contexts. A
// CudaContext owns one device allocation (arena + inputs + outputs + status
// word + encoded tensor maps) and a stream. Every argument address is fixed
// per context, so the first run captures the whole plan into a CUDA graph and
// later runs replay it between the input and output copies.
//
//===----------------------------------------------------------------------===//

#include "cuda_driver.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace dlc {
namespace {

constexpr uint64_t kDeviceAlign = 256;
/// Above this much dynamic shared memory a kernel must opt in.
constexpr uint32_t kDefaultSharedMemLimit = 48 * 1024;

uint64_t alignUp(uint64_t v) {
  return (v + kDeviceAlign - 1) & ~(kDeviceAlign - 1);
}

/// Whether a cubin built for `arch` ("sm_90", "sm_90a") runs on a device of
/// compute capability major.minor: same major and no newer minor; "a"
/// (architecture-specific) cubins need the exact device.
bool cubinMatches(const char *arch, int major, int minor) {
  if (!arch || std::strncmp(arch, "sm_", 3) != 0)
    return false;
  char *end = nullptr;
  long n = std::strtol(arch + 3, &end, 10);
  if (end == arch + 3 || n < 10)
    return false;
  int cubinMajor = int(n / 10), cubinMinor = int(n % 10);
  if (*end == 'a')
    return cubinMajor == major && cubinMinor == minor;
  return *end == '\0' && cubinMajor == major && cubinMinor <= minor;
}

class CudaModel final : public DeviceModel {
public:
  CudaModel(const dlc_model_desc &desc, const cu::Driver &drv)
      : desc(desc), drv(drv) {}

  ~CudaModel() override {
    if (!ctx)
      return;
    {
      cu::ScopedContext scope(drv, ctx);
      if (module)
        drv.moduleUnload(module);
      if (weights)
        drv.memFree(weights);
    }
    drv.primaryCtxRelease(device);
  }

  Error init(int ordinal) {
    int count = 0;
    if (cu::Result r = drv.deviceGetCount(&count); r != cu::kSuccess)
      return drv.error(r, "cuDeviceGetCount");
    if (ordinal < 0 || ordinal >= count)
      return makeError(DLC_ERROR_INVALID_ARGUMENT, "CUDA device ordinal ",
                       ordinal, " out of range: ", count, " device(s)");
    if (cu::Result r = drv.deviceGet(&device, ordinal); r != cu::kSuccess)
      return drv.error(r, "cuDeviceGet");
    if (cu::Result r = drv.primaryCtxRetain(&ctx, device); r != cu::kSuccess) {
      ctx = nullptr;
      return drv.error(r, "cuDevicePrimaryCtxRetain");
    }
    cu::ScopedContext scope(drv, ctx);
    if (!scope.ok())
      return makeError(DLC_ERROR_DEVICE,
                       "cannot make the CUDA context current");
    if (Error e = loadModule(); !e.ok())
      return e;
    if (Error e = loadFunctions(); !e.ok())
      return e;
    if (desc.weights_size) {
      if (cu::Result r = drv.memAlloc(&weights, desc.weights_size);
          r != cu::kSuccess)
        return drv.error(
            r, cat("cuMemAlloc of ", desc.weights_size, " bytes of weights")
                   .c_str());
      if (cu::Result r =
              drv.memcpyHtoD(weights, desc.weights, desc.weights_size);
          r != cu::kSuccess)
        return drv.error(r, "cuMemcpyHtoD of the weights");
      // From pageable memory the copy may return before its DMA lands, and
      // contexts run on non-blocking streams, which do not wait for it.
      if (cu::Result r = drv.ctxSynchronize(); r != cu::kSuccess)
        return drv.error(r, "cuCtxSynchronize after the weights' upload");
    }
    return Error::success();
  }

  Error createContext(std::unique_ptr<DeviceContext> *out) const override;

  const dlc_model_desc &desc;
  const cu::Driver &drv;
  cu::Device device = 0;
  cu::Context ctx = nullptr;
  cu::Module module = nullptr;
  std::vector<cu::Function> functions;
  cu::DevicePtr weights = 0;

private:
  Error loadModule() {
    // A model of only copies and reshapes (Identity, Shape, Flatten) has no
    // kernels, and the compiler writes neither PTX nor cubin for it.
    if (desc.num_kernels == 0)
      return Error::success();
    int major = 0, minor = 0;
    drv.deviceGetAttribute(&major, cu::kAttrComputeCapabilityMajor, device);
    drv.deviceGetAttribute(&minor, cu::kAttrComputeCapabilityMinor, device);
    std::string cubinError;
    if (desc.cubin && desc.cubin_size) {
      if (cubinMatches(desc.arch, major, minor)) {
        cu::Result r = drv.moduleLoadData(&module, desc.cubin);
        if (r == cu::kSuccess)
          return Error::success();
        module = nullptr;
        cubinError = drv.error(r, "cuModuleLoadData (cubin)").message;
      } else {
        cubinError = cat("cubin is for ", desc.arch ? desc.arch : "?",
                         ", device is sm_", major, minor);
      }
    }
    if (!desc.ptx || !desc.ptx_size)
      return makeError(DLC_ERROR_DEVICE,
                       "cannot load the kernels: ", cubinError,
                       " and the model carries no PTX");
    // A private, certainly NUL-terminated copy for the JIT.
    std::string ptx(desc.ptx, desc.ptx_size);
    while (!ptx.empty() && ptx.back() == '\0')
      ptx.pop_back();
    char log[4096] = {0};
    int options[] = {cu::kJitErrorLogBuffer, cu::kJitErrorLogBufferSizeBytes};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
    cu::Result r =
        drv.moduleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (r != cu::kSuccess) {
      module = nullptr;
      Error e =
          drv.error(r, cat("JIT of the PTX for sm_", major, minor).c_str());
      if (!cubinError.empty())
        e.message += cat(" (after: ", cubinError, ")");
      if (log[0])
        e.message += cat(":\n", log);
      return e;
    }
    return Error::success();
  }

  Error loadFunctions() {
    functions.resize(desc.num_kernels);
    std::vector<uint32_t> sharedMem(desc.num_kernels, 0);
    for (int32_t s = 0; s < desc.num_steps; ++s)
      if (desc.steps[s].kind == DLC_STEP_LAUNCH)
        sharedMem[desc.steps[s].kernel] = std::max(
            sharedMem[desc.steps[s].kernel], desc.steps[s].shared_mem_bytes);
    for (int32_t k = 0; k < desc.num_kernels; ++k) {
      const char *name = desc.kernels[k].name;
      if (cu::Result r = drv.moduleGetFunction(&functions[k], module, name);
          r != cu::kSuccess)
        return drv.error(r, cat("cuModuleGetFunction('", name, "')").c_str());
      if (sharedMem[k] > kDefaultSharedMemLimit)
        if (cu::Result r = drv.funcSetAttribute(
                functions[k], cu::kFuncAttrMaxDynamicSharedSizeBytes,
                int(sharedMem[k]));
            r != cu::kSuccess)
          return drv.error(r, cat("cuFuncSetAttribute('", name, "', ",
                                  sharedMem[k], " bytes of shared memory)")
                                  .c_str());
    }
    return Error::success();
  }
};

class CudaContext final : public DeviceContext {
public:
  explicit CudaContext(const CudaModel &model)
      : model(model), desc(model.desc), drv(model.drv) {}

  ~CudaContext() override {
    cu::ScopedContext scope(drv, model.ctx);
    if (exec)
      drv.graphExecDestroy(exec);
    if (graph)
      drv.graphDestroy(graph);
    if (stream)
      drv.streamDestroy(stream);
    if (memory)
      drv.memFree(memory);
  }

  Error init() {
    cu::ScopedContext scope(drv, model.ctx);
    if (!scope.ok())
      return makeError(DLC_ERROR_DEVICE,
                       "cannot make the CUDA context current");
    if (cu::Result r = drv.streamCreate(&stream, cu::kStreamNonBlocking);
        r != cu::kSuccess) {
      stream = nullptr;
      return drv.error(r, "cuStreamCreate");
    }
    bool tiled = false, im2col = false;
    for (int32_t i = 0; i < desc.num_tensor_maps; ++i) {
      bool isIm2col = desc.tensor_maps[i].mode == DLC_TENSOR_MAP_IM2COL;
      im2col |= isIm2col;
      tiled |= !isIm2col;
    }
    if (tiled && !drv.tensorMapEncodeTiled)
      return makeError(DLC_ERROR_DEVICE,
                       "this model uses TMA tensor maps (sm_90); the CUDA "
                       "driver has no cuTensorMapEncodeTiled (CUDA 12 or "
                       "newer)");
    if (im2col && !drv.tensorMapEncodeIm2col)
      return makeError(DLC_ERROR_DEVICE,
                       "this model uses im2col TMA tensor maps (sm_90); the "
                       "CUDA driver has no cuTensorMapEncodeIm2col (CUDA 12 "
                       "or newer)");
    // One allocation carved into arena, inputs, outputs, the status word and
    // the tensor maps.
    uint64_t arenaOffset = 0;
    bytes = alignUp(desc.arena_size);
    std::vector<uint64_t> inOffsets, outOffsets;
    for (int32_t i = 0; i < desc.num_inputs; ++i) {
      inOffsets.push_back(bytes);
      bytes += alignUp(desc.inputs[i].size_bytes);
    }
    for (int32_t i = 0; i < desc.num_outputs; ++i) {
      outOffsets.push_back(bytes);
      bytes += alignUp(desc.outputs[i].size_bytes);
    }
    uint64_t statusOffset = bytes;
    if (desc.num_checks > 0)
      bytes += alignUp(sizeof(int32_t));
    uint64_t mapsOffset = bytes;
    bytes += alignUp(kTensorMapBytes * uint64_t(desc.num_tensor_maps));
    if (bytes) {
      if (cu::Result r = drv.memAlloc(&memory, bytes); r != cu::kSuccess) {
        memory = 0;
        return drv.error(
            r, cat("cuMemAlloc of a ", bytes, "-byte context").c_str());
      }
    }
    arena = memory + arenaOffset;
    for (uint64_t off : inOffsets)
      inputs.push_back(memory + off);
    for (uint64_t off : outOffsets)
      outputs.push_back(memory + off);
    if (desc.num_checks > 0)
      status = memory + statusOffset;
    if (desc.num_tensor_maps > 0) {
      tensorMaps = memory + mapsOffset;
      if (Error e = uploadTensorMaps(); !e.ok())
        return e;
    }

    // Device addresses never change, so every kernel argument is final now.
    for (int32_t s = 0; s < desc.num_steps; ++s)
      for (int32_t a = 0; a < desc.steps[s].num_args; ++a)
        args.push_back(resolveRef(desc.steps[s].args[a]));
    return Error::success();
  }

  Error run(const void *const *in, void *const *out) override {
    cu::ScopedContext scope(drv, model.ctx);
    if (!scope.ok())
      return makeError(DLC_ERROR_DEVICE,
                       "cannot make the CUDA context current");
    if (Error e = copyIn(in); !e.ok())
      return e;
    if (Error e = enqueueRun(); !e.ok())
      return e;
    if (Error e = copyOut(out); !e.ok())
      return e;
    return finishRun();
  }

  Error profile(const void *const *in, void *const *out,
                double *stepMs) override {
    cu::ScopedContext scope(drv, model.ctx);
    if (!scope.ok())
      return makeError(DLC_ERROR_DEVICE,
                       "cannot make the CUDA context current");
    // Events around every step, launched one by one on the stream.
    std::vector<cu::Event> events(desc.num_steps + 1, nullptr);
    auto destroy = [&] {
      for (cu::Event e : events)
        if (e)
          drv.eventDestroy(e);
    };
    for (cu::Event &e : events)
      if (cu::Result r = drv.eventCreate(&e, 0); r != cu::kSuccess) {
        e = nullptr;
        destroy();
        return drv.error(r, "cuEventCreate");
      }
    auto record = [&](int32_t event) -> Error {
      if (cu::Result r = drv.eventRecord(events[event], stream);
          r != cu::kSuccess)
        return drv.error(r, "cuEventRecord");
      return Error::success();
    };
    Error err = copyIn(in);
    if (err.ok())
      err = enqueueRun([&]() -> Error {
        if (Error e = enqueuePlan(record); !e.ok())
          return e;
        return record(desc.num_steps);
      });
    if (err.ok())
      err = copyOut(out);
    if (err.ok())
      err = finishRun();
    for (int32_t s = 0; err.ok() && s < desc.num_steps; ++s) {
      float ms = 0;
      if (cu::Result r = drv.eventElapsedTime(&ms, events[s], events[s + 1]);
          r != cu::kSuccess)
        err = drv.error(r, "cuEventElapsedTime");
      stepMs[s] = ms;
    }
    destroy();
    return err;
  }

  Error runResident() override {
    cu::ScopedContext scope(drv, model.ctx);
    if (!scope.ok())
      return makeError(DLC_ERROR_DEVICE,
                       "cannot make the CUDA context current");
    if (Error e = enqueueRun(); !e.ok())
      return e;
    return finishRun();
  }

  Error deviceBuffer(bool output, int32_t index, uint64_t *address) override {
    *address = output ? outputs[index] : inputs[index];
    return Error::success();
  }

  uint64_t deviceMemoryBytes() const override { return bytes; }
  int32_t overlappedLaunches() const override {
    int32_t n = 0;
    if (exec)
      for (int32_t s = 0; s < desc.num_steps; ++s)
        n += overlapsPredecessor(s);
    return n;
  }

private:
  /// The device address of `ref` in this context.
  cu::DevicePtr resolveRef(const dlc_buffer_ref &ref) const {
    return dlc::resolveRef<cu::DevicePtr>(ref, arena, model.weights,
                                          inputs.data(), outputs.data(), status,
                                          tensorMaps);
  }

  /// Encodes every tensor map over this context's buffers and copies them
  /// to `tensorMaps`, before the first capture can read them.
  Error uploadTensorMaps() {
    struct alignas(cu::kTensorMapAlign) Encoded {
      uint8_t bytes[kTensorMapBytes];
    };
    static_assert(sizeof(Encoded) == kTensorMapBytes, "maps are back to back");
    std::vector<Encoded> encoded(desc.num_tensor_maps);
    for (int32_t i = 0; i < desc.num_tensor_maps; ++i) {
      const dlc_tensor_map &m = desc.tensor_maps[i];
      bool im2col = m.mode == DLC_TENSOR_MAP_IM2COL;
      // The driver takes strides[1..rank-1]: strides[0] is the element size.
      uint64_t dims[5] = {0}, strides[4] = {0};
      uint32_t box[5] = {0}, elementStrides[5] = {1, 1, 1, 1, 1};
      int lower[3] = {0}, upper[3] = {0};
      for (int32_t d = 0; d < m.rank; ++d) {
        dims[d] = m.dims[d];
        box[d] = m.box[d];
        if (d > 0)
          strides[d - 1] = m.strides[d];
        // Tiled maps step through every element, whatever the field says.
        if (im2col)
          elementStrides[d] = m.element_strides[d];
      }
      for (int32_t i = 0; im2col && i < m.rank - 2; ++i) {
        lower[i] = m.lower_corner[i];
        upper[i] = m.upper_corner[i];
      }
      // CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}.
      int swizzle = m.swizzle == 128  ? 3
                    : m.swizzle == 64 ? 2
                    : m.swizzle == 32 ? 1
                                      : 0;
      void *address = reinterpret_cast<void *>(resolveRef(m.tensor));
      cu::Result r =
          im2col
              ? drv.tensorMapEncodeIm2col(
                    encoded[i].bytes, tensorMapDataType(m.dtype),
                    uint32_t(m.rank), address, dims, strides, lower, upper,
                    m.channels_per_pixel, m.pixels_per_column, elementStrides,
                    cu::kTensorMapInterleaveNone, swizzle,
                    cu::kTensorMapL2Promotion256B, cu::kTensorMapOobFillNone)
              : drv.tensorMapEncodeTiled(
                    encoded[i].bytes, tensorMapDataType(m.dtype),
                    uint32_t(m.rank), address, dims, strides, box,
                    elementStrides, cu::kTensorMapInterleaveNone, swizzle,
                    cu::kTensorMapL2Promotion256B, cu::kTensorMapOobFillNone);
      if (r != cu::kSuccess)
        return drv.error(
            r,
            cat(im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled",
                " of tensor map #", i, " (", describeTensorMap(m), ")")
                .c_str());
    }
    // On the context's stream and waited for: a pageable cuMemcpyHtoD may
    // return before its DMA lands, and the non-blocking stream would not
    // wait for it.
    if (cu::Result r =
            drv.memcpyHtoDAsync(tensorMaps, encoded.data(),
                                kTensorMapBytes * encoded.size(), stream);
        r != cu::kSuccess)
      return drv.error(r, "cuMemcpyHtoDAsync of the tensor maps");
    if (cu::Result r = drv.streamSynchronize(stream); r != cu::kSuccess)
      return drv.error(r, "cuStreamSynchronize after the tensor maps' upload");
    return Error::success();
  }

  /// "float16 dims [64,128] strides [2,128] box [64,64] swizzle 128"; for
  /// im2col maps "int8 dims [64,6,5,2] strides [1,64,384,1920] swizzle 64
  /// im2col lower [-1,-1] upper [-1,-1] channels 64 pixels 128 element
  /// strides [1,1,1,1]".
  static std::string describeTensorMap(const dlc_tensor_map &m) {
    auto list = [&](const auto *values, int32_t n) {
      std::string s = "[";
      for (int32_t d = 0; d < n; ++d)
        s += (d ? "," : "") + std::to_string(values[d]);
      return s + "]";
    };
    std::string s = cat(dlc_dtype_name(m.dtype), " dims ", list(m.dims, m.rank),
                        " strides ", list(m.strides, m.rank));
    if (m.mode != DLC_TENSOR_MAP_IM2COL)
      return cat(s, " box ", list(m.box, m.rank), " swizzle ", m.swizzle);
    int32_t spatial = m.rank - 2;
    return cat(s, " swizzle ", m.swizzle, " im2col lower ",
               list(m.lower_corner, spatial), " upper ",
               list(m.upper_corner, spatial), " channels ",
               m.channels_per_pixel, " pixels ", m.pixels_per_column,
               " element strides ", list(m.element_strides, m.rank));
  }

  /// Enqueues the copies of the host inputs to the context's buffers.
  Error copyIn(const void *const *in) {
    for (int32_t i = 0; i < desc.num_inputs; ++i)
      if (cu::Result r = drv.memcpyHtoDAsync(inputs[i], in[i],
                                             desc.inputs[i].size_bytes, stream);
          r != cu::kSuccess)
        return drv.error(
            r, cat("cuMemcpyHtoDAsync of input '", desc.inputs[i].name, "'")
                   .c_str());
    return Error::success();
  }

  /// Enqueues the copies of the context's output buffers to the host.
  Error copyOut(void *const *out) {
    for (int32_t i = 0; i < desc.num_outputs; ++i)
      if (cu::Result r = drv.memcpyDtoHAsync(
              out[i], outputs[i], desc.outputs[i].size_bytes, stream);
          r != cu::kSuccess)
        return drv.error(
            r, cat("cuMemcpyDtoHAsync of output '", desc.outputs[i].name, "'")
                   .c_str());
    return Error::success();
  }

  /// Enqueues one run of the plan on the context's buffers: the graph
  /// (captured on first use) between the status word's reset and read-back.
  Error enqueueRun() {
    if (!exec && desc.num_steps > 0)
      if (Error e = capture(); !e.ok())
        return e;
    return enqueueRun([&]() -> Error {
      if (exec)
        if (cu::Result r = drv.graphLaunch(exec, stream); r != cu::kSuccess)
          return drv.error(r, "cuGraphLaunch");
      return Error::success();
    });
  }

  /// Enqueues `steps` between the reset of the status word and its
  /// read-back.
  Error enqueueRun(const std::function<Error()> &steps) {
    hostStatus = 0;
    if (status)
      if (cu::Result r = drv.memcpyHtoDAsync(status, &hostStatus,
                                             sizeof(hostStatus), stream);
          r != cu::kSuccess)
        return drv.error(r, "cuMemcpyHtoDAsync of the status word");
    if (Error e = steps(); !e.ok())
      return e;
    if (status)
      if (cu::Result r = drv.memcpyDtoHAsync(&hostStatus, status,
                                             sizeof(hostStatus), stream);
          r != cu::kSuccess)
        return drv.error(r, "cuMemcpyDtoHAsync of the status word");
    return Error::success();
  }

  /// Waits for the enqueued work; the run's error, if a check failed.
  Error finishRun() {
    // The API promises finished results, and kernel faults surface here.
    if (cu::Result r = drv.streamSynchronize(stream); r != cu::kSuccess)
      return drv.error(r, "cuStreamSynchronize after the model's kernels");
    return checkStatus(desc, hostStatus);
  }

  /// Records every step on the stream into a graph and instantiates it.
  Error capture() {
    Error err = captureOnce();
    // A driver that cannot capture programmatic launches still runs the
    // same kernels with full stream serialization.
    if (!err.ok() && overlapLaunches) {
      overlapLaunches = false;
      err = captureOnce();
    }
    return err;
  }

  Error captureOnce() {
    if (cu::Result r =
            drv.streamBeginCapture(stream, cu::kCaptureModeThreadLocal);
        r != cu::kSuccess)
      return drv.error(r, "cuStreamBeginCapture");
    Error err = enqueuePlan();
    // End the capture even after an error so the stream is usable again.
    cu::Result r = drv.streamEndCapture(stream, &graph);
    if (err.ok() && r != cu::kSuccess)
      err = drv.error(r, "cuStreamEndCapture");
    if (err.ok()) {
      r = drv.graphInstantiate(&exec, graph, 0);
      if (r != cu::kSuccess) {
        exec = nullptr;
        err = drv.error(r, "cuGraphInstantiate");
      }
    }
    if (!err.ok() && graph) {
      drv.graphDestroy(graph);
      graph = nullptr;
    }
    return err;
  }

  /// Enqueues the plan's steps; `beforeStep(s)`, when given, is called
  /// before step s is enqueued (profile() records an event there).
  Error enqueuePlan(const std::function<Error(int32_t)> &beforeStep = nullptr) {
    std::vector<void *> params;
    const cu::DevicePtr *stepArgs = args.data();
    for (int32_t s = 0; s < desc.num_steps; ++s) {
      const dlc_step &step = desc.steps[s];
      if (beforeStep)
        if (Error e = beforeStep(s); !e.ok())
          return e;
      if (step.kind == DLC_STEP_LAUNCH) {
        // cuLaunchKernel reads each parameter through a pointer to it.
        params.clear();
        for (int32_t a = 0; a < step.num_args; ++a)
          params.push_back(const_cast<cu::DevicePtr *>(stepArgs + a));
        // Not when profiling, whose events time each kernel alone.
        bool overlap = !beforeStep && overlapsPredecessor(s);
        cu::Result r = overlap ? launchOverlapped(step, params.data())
                               : drv.launchKernel(
                                     model.functions[step.kernel],
                                     step.grid[0], step.grid[1], step.grid[2],
                                     step.block[0], step.block[1],
                                     step.block[2], step.shared_mem_bytes,
                                     stream, params.data(), nullptr);
        if (r != cu::kSuccess)
          return drv.error(r, cat("cuLaunchKernel of step ", s, " ('",
                                  desc.kernels[step.kernel].name, "')")
                                  .c_str());
      } else {
        cu::Result r = drv.memcpyDtoDAsync(stepArgs[1], stepArgs[0],
                                           step.args[1].size_bytes, stream);
        if (r != cu::kSuccess)
          return drv.error(r, cat("cuMemcpyDtoDAsync of step ", s).c_str());
      }
      stepArgs += step.num_args;
    }
    return Error::success();
  }

  /// Whether step `s` of the captured graph is a kernel right after a
  /// kernel that may be scheduled while its predecessor finishes (it waits
  /// in griddepcontrol.wait).
  bool overlapsPredecessor(int32_t s) const {
    return overlapLaunches && s > 0 &&
           desc.steps[s].kind == DLC_STEP_LAUNCH &&
           desc.steps[s - 1].kind == DLC_STEP_LAUNCH;
  }

  /// cuLaunchKernelEx with programmatic stream serialization.
  cu::Result launchOverlapped(const dlc_step &step, void **params) {
    cu::LaunchAttribute attr{};
    attr.id = cu::kLaunchAttrProgrammaticStreamSerialization;
    attr.value.programmaticStreamSerializationAllowed = 1;
    cu::LaunchConfig config{};
    config.gridDimX = step.grid[0];
    config.gridDimY = step.grid[1];
    config.gridDimZ = step.grid[2];
    config.blockDimX = step.block[0];
    config.blockDimY = step.block[1];
    config.blockDimZ = step.block[2];
    config.sharedMemBytes = step.shared_mem_bytes;
    config.hStream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    return drv.launchKernelEx(&config, model.functions[step.kernel], params,
                              nullptr);
  }

  const CudaModel &model;
  const dlc_model_desc &desc;
  const cu::Driver &drv;
  cu::Stream stream = nullptr;
  cu::DevicePtr memory = 0;
  uint64_t bytes = 0;
  cu::DevicePtr arena = 0;
  std::vector<cu::DevicePtr> inputs, outputs;
  /// The status word of the model's run-time checks (0 if it has none) and
  /// its host copy.
  cu::DevicePtr status = 0;
  int32_t hostStatus = 0;
  /// The encoded tensor maps, kTensorMapBytes each (0 if the model has none).
  cu::DevicePtr tensorMaps = 0;
  /// Resolved device addresses of all step arguments, back to back.
  std::vector<cu::DevicePtr> args;
  cu::Graph graph = nullptr;
  cu::GraphExec exec = nullptr;
  /// Whether kernels that follow kernels launch with programmatic stream
  /// serialization (the model's kernels wait for their predecessors and the
  /// driver has cuLaunchKernelEx); cleared if the driver cannot capture it.
  bool overlapLaunches =
      (desc.flags & DLC_MODEL_KERNELS_WAIT_FOR_GRID_DEPENDENCIES) &&
      drv.launchKernelEx;
};

Error CudaModel::createContext(std::unique_ptr<DeviceContext> *out) const {
  auto c = std::make_unique<CudaContext>(*this);
  if (Error e = c->init(); !e.ok())
    return e;
  *out = std::move(c);
  return Error::success();
}

} // namespace

Error createCudaModel(const dlc_model_desc &desc, int ordinal,
                      std::unique_ptr<DeviceModel> *out) {
  const cu::Driver *drv = nullptr;
  if (Error e = cu::loadDriver(&drv); !e.ok())
    return e;
  auto model = std::make_unique<CudaModel>(desc, *drv);
  if (Error e = model->init(ordinal); !e.ok())
    return e;
  *out = std::move(model);
  return Error::success();
}

} // namespace dlc
