//===- cuda_driver.h - The CUDA driver API, loaded at run time ---*- C++
//-*-===//
//
// libdlcrt never links libcuda: it dlopens libcuda.so.1 on the first CUDA
// model, so the runtime builds without a CUDA toolkit and runs on machines
// without a GPU. The handful of driver types used are declared here with the
// same layout as <cuda.h>.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CUDA_DRIVER_H
#define DLC_RUNTIME_CUDA_DRIVER_H

#include "internal.h"

#include <cstddef>

namespace dlc {
namespace cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;
using Event = struct CUevent_st *;

constexpr Result kSuccess = 0;
constexpr Result kErrorNoDevice = 100;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr unsigned kStreamNonBlocking = 1;
/// CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: other threads' allocations during
/// our capture stay legal.
constexpr int kCaptureModeThreadLocal = 1;
/// cuTensorMapEncodeTiled's and cuTensorMapEncodeIm2col's options:
/// CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
/// CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (out-of-bounds elements read as zero).
constexpr int kTensorMapInterleaveNone = 0;
constexpr int kTensorMapL2Promotion256B = 3;
constexpr int kTensorMapOobFillNone = 0;
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;

/// CUlaunchAttribute: an id, padded to 8 bytes, and a 64-byte value union
/// (programmaticStreamSerializationAllowed is its first int).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute layout");

/// CUlaunchConfig.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

/// A CUtensorMap's alignment (its size is kTensorMapBytes).
constexpr size_t kTensorMapAlign = 64;

/// The driver entry points libdlcrt uses (the _v2 ABI where one exists).
struct Driver {
  Result (*init)(unsigned);
  Result (*deviceGetCount)(int *);
  Result (*deviceGet)(Device *, int);
  Result (*deviceGetAttribute)(int *, int, Device);
  Result (*deviceGetName)(char *, int, Device);
  Result (*primaryCtxRetain)(Context *, Device);
  Result (*primaryCtxRelease)(Device);
  Result (*ctxPushCurrent)(Context);
  Result (*ctxPopCurrent)(Context *);
  Result (*moduleLoadData)(Module *, const void *);
  Result (*moduleLoadDataEx)(Module *, const void *, unsigned, int *, void **);
  Result (*moduleUnload)(Module);
  Result (*moduleGetFunction)(Function *, Module, const char *);
  Result (*funcSetAttribute)(Function, int, int);
  Result (*memAlloc)(DevicePtr *, size_t);
  Result (*memFree)(DevicePtr);
  Result (*memcpyHtoD)(DevicePtr, const void *, size_t);
  Result (*memcpyHtoDAsync)(DevicePtr, const void *, size_t, Stream);
  Result (*memcpyDtoHAsync)(void *, DevicePtr, size_t, Stream);
  Result (*memcpyDtoDAsync)(DevicePtr, DevicePtr, size_t, Stream);
  Result (*streamCreate)(Stream *, unsigned);
  Result (*streamDestroy)(Stream);
  Result (*streamSynchronize)(Stream);
  Result (*ctxSynchronize)();
  Result (*streamBeginCapture)(Stream, int);
  Result (*streamEndCapture)(Stream, Graph *);
  Result (*graphInstantiate)(GraphExec *, Graph, unsigned long long);
  Result (*graphLaunch)(GraphExec, Stream);
  Result (*graphExecDestroy)(GraphExec);
  Result (*graphDestroy)(Graph);
  Result (*eventCreate)(Event *, unsigned);
  Result (*eventRecord)(Event, Stream);
  Result (*eventSynchronize)(Event);
  Result (*eventElapsedTime)(float *, Event, Event);
  Result (*eventDestroy)(Event);
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, Stream, void **,
                         void **);
  Result (*getErrorName)(Result, const char **);
  Result (*getErrorString)(Result, const char **);
  /// Optional (CUDA 12 drivers and newer), else null: models with tensor
  /// maps need it, the others load without it.
  Result (*tensorMapEncodeTiled)(void *map, int dataType, uint32_t rank,
                                 void *globalAddress, const uint64_t *globalDim,
                                 const uint64_t *globalStrides,
                                 const uint32_t *boxDim,
                                 const uint32_t *elementStrides, int interleave,
                                 int swizzle, int l2Promotion, int oobFill);
  /// Optional (CUDA 12 drivers and newer), else null: models with im2col
  /// tensor maps (DLC_TENSOR_MAP_IM2COL) need it. The corners are
  /// innermost spatial dimension first, rank - 2 of them.
  Result (*tensorMapEncodeIm2col)(
      void *map, int dataType, uint32_t rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides,
      const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
      uint32_t channelsPerPixel, uint32_t pixelsPerColumn,
      const uint32_t *elementStrides, int interleave, int swizzle,
      int l2Promotion, int oobFill);

  /// Optional (CUDA 11.8 drivers and newer), else null: launches with
  /// programmatic stream serialization (DLC_MODEL_KERNELS_WAIT_FOR_GRID_
  /// DEPENDENCIES) need it, the others use launchKernel.
  Result (*launchKernelEx)(const LaunchConfig *config, Function f,
                           void **kernelParams, void **extra);

  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  Error error(Result r, const char *call) const;
};

/// Loads libcuda.so.1 and calls cuInit once per process; later calls return
/// the same driver or the same error.
Error loadDriver(const Driver **out);

/// Makes `ctx` current on this thread for the scope's lifetime.
class ScopedContext {
public:
  ScopedContext(const Driver &drv, Context ctx) : drv(drv) {
    pushed = drv.ctxPushCurrent(ctx) == kSuccess;
  }
  ~ScopedContext() {
    if (pushed) {
      Context popped;
      drv.ctxPopCurrent(&popped);
    }
  }
  bool ok() const { return pushed; }

private:
  const Driver &drv;
  bool pushed;
};

} // namespace cu
} // namespace dlc

#endif // DLC_RUNTIME_CUDA_DRIVER_H
