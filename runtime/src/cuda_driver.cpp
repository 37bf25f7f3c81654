//===- cuda_driver.cpp - dlopen of libcuda.so.1 ---------------------------===//

#include "cuda_driver.h"

#include <dlfcn.h>
#include <mutex>
#include <type_traits>

namespace dlc {
namespace cu {

Error Driver::error(Result r, const char *call) const {
  const char *name = nullptr, *text = nullptr;
  if (getErrorName)
    getErrorName(r, &name);
  if (getErrorString)
    getErrorString(r, &text);
  dlc_status code = r == 2 /*CUDA_ERROR_OUT_OF_MEMORY*/
                        ? DLC_ERROR_OUT_OF_MEMORY
                        : DLC_ERROR_DEVICE;
  return makeError(code, call, " failed: ", name ? name : "CUDA error", " (",
                   text ? text : cat("code ", r), ")");
}

namespace {

Error doLoad(Driver &d) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    return makeError(DLC_ERROR_DEVICE_UNAVAILABLE,
                     "CUDA requested but libcuda.so.1 could not be loaded: ",
                     err ? err : "unknown error");
  }
  // Kept open for the life of the process: the driver does not support
  // being unloaded and reloaded.
  Error missing;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    if (!fn && missing.ok())
      missing = makeError(DLC_ERROR_DEVICE_UNAVAILABLE, "libcuda.so.1 lacks ",
                          name, "; the NVIDIA driver is too old");
  };
  bind(d.init, "cuInit");
  bind(d.deviceGetCount, "cuDeviceGetCount");
  bind(d.deviceGet, "cuDeviceGet");
  bind(d.deviceGetAttribute, "cuDeviceGetAttribute");
  bind(d.deviceGetName, "cuDeviceGetName");
  bind(d.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(d.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(d.ctxPushCurrent, "cuCtxPushCurrent_v2");
  bind(d.ctxPopCurrent, "cuCtxPopCurrent_v2");
  bind(d.moduleLoadData, "cuModuleLoadData");
  bind(d.moduleLoadDataEx, "cuModuleLoadDataEx");
  bind(d.moduleUnload, "cuModuleUnload");
  bind(d.moduleGetFunction, "cuModuleGetFunction");
  bind(d.funcSetAttribute, "cuFuncSetAttribute");
  bind(d.memAlloc, "cuMemAlloc_v2");
  bind(d.memFree, "cuMemFree_v2");
  bind(d.memcpyHtoD, "cuMemcpyHtoD_v2");
  bind(d.memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  bind(d.memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  bind(d.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  bind(d.streamCreate, "cuStreamCreate");
  bind(d.streamDestroy, "cuStreamDestroy_v2");
  bind(d.streamSynchronize, "cuStreamSynchronize");
  bind(d.ctxSynchronize, "cuCtxSynchronize");
  bind(d.streamBeginCapture, "cuStreamBeginCapture_v2");
  bind(d.streamEndCapture, "cuStreamEndCapture");
  bind(d.graphInstantiate, "cuGraphInstantiateWithFlags");
  bind(d.graphLaunch, "cuGraphLaunch");
  bind(d.graphExecDestroy, "cuGraphExecDestroy");
  bind(d.graphDestroy, "cuGraphDestroy");
  bind(d.eventCreate, "cuEventCreate");
  bind(d.eventRecord, "cuEventRecord");
  bind(d.eventSynchronize, "cuEventSynchronize");
  bind(d.eventElapsedTime, "cuEventElapsedTime");
  bind(d.eventDestroy, "cuEventDestroy_v2");
  bind(d.launchKernel, "cuLaunchKernel");
  bind(d.getErrorName, "cuGetErrorName");
  bind(d.getErrorString, "cuGetErrorString");
  if (!missing.ok())
    return missing;
  // Not bound above: older drivers lack them, and only models with tensor
  // maps (im2col ones) need them (their contexts report their absence).
  d.tensorMapEncodeTiled = reinterpret_cast<decltype(d.tensorMapEncodeTiled)>(
      dlsym(lib, "cuTensorMapEncodeTiled"));
  d.tensorMapEncodeIm2col = reinterpret_cast<decltype(d.tensorMapEncodeIm2col)>(
      dlsym(lib, "cuTensorMapEncodeIm2col"));
  // Optional too (CUDA 11.8+): without it kernels launch without
  // programmatic stream serialization, which is always correct.
  d.launchKernelEx = reinterpret_cast<decltype(d.launchKernelEx)>(
      dlsym(lib, "cuLaunchKernelEx"));

  Result r = d.init(0);
  if (r == kErrorNoDevice)
    return makeError(DLC_ERROR_DEVICE_UNAVAILABLE,
                     "CUDA requested but there is no CUDA device "
                     "(cuInit: CUDA_ERROR_NO_DEVICE)");
  if (r != kSuccess) {
    Error e = d.error(r, "cuInit");
    e.code = DLC_ERROR_DEVICE_UNAVAILABLE;
    e.message = "CUDA requested but the driver failed to start: " + e.message;
    return e;
  }
  int count = 0;
  r = d.deviceGetCount(&count);
  if (r != kSuccess)
    return d.error(r, "cuDeviceGetCount");
  if (count == 0)
    return makeError(DLC_ERROR_DEVICE_UNAVAILABLE,
                     "CUDA requested but there is no CUDA device");
  return Error::success();
}

} // namespace

Error loadDriver(const Driver **out) {
  static Driver driver;
  static Error status;
  static std::once_flag once;
  std::call_once(once, [] { status = doLoad(driver); });
  if (!status.ok())
    return status;
  *out = &driver;
  return Error::success();
}

} // namespace cu
} // namespace dlc
