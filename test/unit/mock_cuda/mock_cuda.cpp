//===- mock_cuda.cpp - A fake libcuda.so.1 for testing the CUDA path ------===//
//
// Implements the driver entry points libdlcrt uses on host memory, so the
// CUDA device code (module loading, weights upload, context buffers, graph
// capture and replay, error reporting) is exercised on machines without a
// GPU. "Device pointers" are host pointers. The kernels:
//  - add_f32 (test/unit/models/cuda_model.c): c[i] = a[i] + b[i] for threads
//    i < 8;
//  - tma_box_2d(map, out) (test/unit/models/tma_model.c): reads the tensor
//    map at device address `map` (a MockTensorMap, see mock_cuda.h) and
//    copies the first box of its tensor, innermost dimension first, densely
//    into `out`, with zeros past the tensor's dims like TMA;
//  - tma_im2col(map, out) (test/unit/models/im2col_model.c): reads the
//    im2col tensor map at `map` (a MockIm2colTensorMap) and copies one
//    im2col column densely into `out`: its first pixelsPerColumn pixels
//    (filter tap 0, coordinates 0), channelsPerPixel channels each, zeros
//    for pixels outside the tensor like TMA.
// It checks what the real driver would reject: calls without a current
// context, synchronous copies inside a stream capture, unknown handles,
// tensor maps the real cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col
// refuses, and tensor map arguments outside device memory.
//
// DLC_MOCK_CUDA_DEVICES=N sets the device count (0: cuInit reports
// CUDA_ERROR_NO_DEVICE). DLC_MOCK_CUDA_NO_TMA=1 makes cuTensorMapEncodeTiled
// and cuTensorMapEncodeIm2col fail with CUDA_ERROR_NOT_SUPPORTED. Built with
// DLC_MOCK_CUDA_OLD_DRIVER it exports neither (a pre-CUDA-12 driver).
//
//===----------------------------------------------------------------------===//

#include "mock_cuda.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

enum : CUresult {
  kOk = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidContext = 201,
  kInvalidPtx = 218,
  kNotFound = 500,
  kNotSupported = 801,
  kCaptureUnsupported = 900,
};

struct Op {
  bool launch;
  /// Launched with programmatic stream serialization (cuLaunchKernelEx).
  bool programmatic;
  void *fn;
  unsigned grid[3], block[3];
  CUdeviceptr args[3];
  CUdeviceptr dst, src;
  size_t bytes;
};

struct Stream {
  bool capturing = false;
  std::vector<Op> ops;
};

struct Graph {
  std::vector<Op> ops;
};

int fakeContext; // its address is the one CUcontext
int fakeModule;
int fakeFunction;       // add_f32
int fakeTmaFunction;    // tma_box_2d
int fakeIm2colFunction; // tma_im2col

std::mutex mu;
std::map<void *, size_t> allocations; // base -> bytes
int retained = 0, captures = 0, graphLaunches = 0, cubinLoads = 0, ptxLoads = 0;
/// Kernel launches recorded into graphs, and those of them programmatic.
int capturedLaunches = 0, programmaticLaunches = 0;
/// The map addresses tma_box_2d and tma_im2col read, in order, and how
/// many were no map (of their kind).
std::vector<CUdeviceptr> tensorMapsSeen;
int badTensorMaps = 0;
thread_local std::vector<void *> ctxStack;

bool current() { return !ctxStack.empty(); }

int deviceCount() {
  const char *env = std::getenv("DLC_MOCK_CUDA_DEVICES");
  return env ? std::atoi(env) : 1;
}

/// Whether [p, p + bytes) lies in one live allocation.
bool inDeviceMemory(CUdeviceptr p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = allocations.upper_bound(reinterpret_cast<void *>(p));
  if (it == allocations.begin())
    return false;
  --it;
  auto base = reinterpret_cast<CUdeviceptr>(it->first);
  return p - base <= it->second && bytes <= it->second - (p - base);
}

/// Bytes per element of each CUtensorMapDataType (UINT8 .. TFLOAT32_FTZ).
constexpr size_t kTmaElementSize[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

void tmaBox2d(CUdeviceptr mapAddress, CUdeviceptr out) {
  std::lock_guard<std::mutex> lock(mu);
  tensorMapsSeen.push_back(mapAddress);
  dlc_mock::MockTensorMap map;
  std::memcpy(&map, reinterpret_cast<const void *>(mapAddress), sizeof(map));
  if (map.magic != dlc_mock::kTensorMapMagic || map.rank > 2 ||
      map.dataType < 0 || map.dataType > 12) {
    ++badTensorMaps;
    return;
  }
  size_t elem = kTmaElementSize[map.dataType];
  uint64_t dims1 = map.rank > 1 ? map.dims[1] : 1;
  uint32_t box1 = map.rank > 1 ? map.box[1] : 1;
  auto src = reinterpret_cast<const uint8_t *>(map.globalAddress);
  auto dst = reinterpret_cast<uint8_t *>(out);
  for (uint32_t y = 0; y < box1; ++y)
    for (uint32_t x = 0; x < map.box[0]; ++x) {
      uint8_t *to = dst + (size_t(y) * map.box[0] + x) * elem;
      if (x < map.dims[0] && y < dims1)
        std::memcpy(
            to, src + y * (map.rank > 1 ? map.strides[0] : 0) + x * elem, elem);
      else
        std::memset(to, 0, elem);
    }
}

void tmaIm2col(CUdeviceptr mapAddress, CUdeviceptr out) {
  std::lock_guard<std::mutex> lock(mu);
  tensorMapsSeen.push_back(mapAddress);
  dlc_mock::MockIm2colTensorMap map;
  std::memcpy(&map, reinterpret_cast<const void *>(mapAddress), sizeof(map));
  if (map.magic != dlc_mock::kIm2colTensorMapMagic || map.rank < 3 ||
      map.rank > 5 || map.dataType < 0 || map.dataType > 12) {
    ++badTensorMaps;
    return;
  }
  size_t elem = kTmaElementSize[map.dataType];
  uint32_t spatial = map.rank - 2;
  auto src = reinterpret_cast<const uint8_t *>(map.globalAddress);
  auto dst = reinterpret_cast<uint8_t *>(out);
  // The pixels of the bounding box, innermost spatial dimension first, then
  // the next image; coord[d] is the pixel's index in dimension d >= 1.
  int64_t coord[5] = {0};
  for (uint32_t i = 0; i < spatial; ++i)
    coord[1 + i] = map.lowerCorner[i];
  for (uint32_t p = 0; p < map.pixelsPerColumn; ++p) {
    bool inside = coord[map.rank - 1] < int64_t(map.dims[map.rank - 1]);
    const uint8_t *pixel = src;
    for (uint32_t d = 1; d < map.rank; ++d) {
      inside &= coord[d] >= 0 && coord[d] < int64_t(map.dims[d]);
      pixel += coord[d] * int64_t(map.strides[d - 1]);
    }
    for (uint32_t c = 0; c < map.channelsPerPixel; ++c) {
      uint8_t *to = dst + (size_t(p) * map.channelsPerPixel + c) * elem;
      if (inside && c < map.dims[0])
        std::memcpy(to, pixel + c * elem, elem);
      else
        std::memset(to, 0, elem);
    }
    // The next pixel: step the innermost spatial dimension, carrying past
    // the bounding box's upper corner into the next one, and into N.
    for (uint32_t d = 1; d < map.rank; ++d) {
      coord[d] += map.elementStrides[d];
      if (d == map.rank - 1)
        break;
      int64_t last = int64_t(map.dims[d]) - 1 + map.upperCorner[d - 1];
      if (coord[d] <= last)
        break;
      coord[d] = map.lowerCorner[d - 1];
    }
  }
}

void execute(const Op &op) {
  if (!op.launch) {
    std::memmove(reinterpret_cast<void *>(op.dst),
                 reinterpret_cast<void *>(op.src), op.bytes);
    return;
  }
  if (op.fn == &fakeTmaFunction) {
    tmaBox2d(op.args[0], op.args[1]);
    return;
  }
  if (op.fn == &fakeIm2colFunction) {
    tmaIm2col(op.args[0], op.args[1]);
    return;
  }
  auto a = reinterpret_cast<const float *>(op.args[0]);
  auto b = reinterpret_cast<const float *>(op.args[1]);
  auto c = reinterpret_cast<float *>(op.args[2]);
  for (unsigned t = 0; t < op.block[0] * op.grid[0] && t < 8; ++t)
    c[t] = a[t] + b[t];
}

} // namespace

#ifndef DLC_MOCK_CUDA_OLD_DRIVER
namespace {
/// What the CUDA 12 driver documents for every tensor map: a 64-byte
/// aligned map, a known data type, a rank from `minRank` to 5, a 16-byte
/// aligned address, dims in 1..2^32, strides multiples of 16 below 2^40,
/// element strides 1..8 and known option values.
bool badTensor(void *map, int dataType, uint32_t rank, uint32_t minRank,
               void *globalAddress, const uint64_t *globalDim,
               const uint64_t *globalStrides, const uint32_t *elementStrides,
               int interleave, int swizzle, int l2Promotion, int oobFill) {
  if (!map || reinterpret_cast<uintptr_t>(map) % 64 || dataType < 0 ||
      dataType > 12 || rank < minRank || rank > 5 || !globalAddress ||
      reinterpret_cast<uintptr_t>(globalAddress) % 16 || !globalDim ||
      (rank > 1 && !globalStrides) || !elementStrides || interleave < 0 ||
      interleave > 2 || swizzle < 0 || swizzle > 3 || l2Promotion < 0 ||
      l2Promotion > 3 || oobFill < 0 || oobFill > 1)
    return true;
  for (uint32_t d = 0; d < rank; ++d) {
    if (globalDim[d] < 1 || globalDim[d] > (uint64_t(1) << 32) ||
        elementStrides[d] < 1 || elementStrides[d] > 8)
      return true;
    if (d + 1 < rank &&
        (globalStrides[d] % 16 || globalStrides[d] >= (uint64_t(1) << 40)))
      return true;
  }
  return false;
}

/// Whether a copy's innermost row of `bytes` is refused: not a multiple of
/// 16 bytes, or wider than the swizzle span (without interleave).
bool badRow(size_t bytes, int interleave, int swizzle) {
  return interleave == 0 &&
         (bytes % 16 || (swizzle && bytes > (size_t(16) << swizzle)));
}

/// Stores the arguments both kinds of map share into `m`'s header and `m`
/// into the 128 bytes of `map`.
template <typename Map>
CUresult storeMap(Map &m, void *map, int dataType, uint32_t rank,
                  void *globalAddress, const uint64_t *globalDim,
                  const uint64_t *globalStrides, const uint32_t *elementStrides,
                  int interleave, int swizzle, int l2Promotion, int oobFill) {
  m.dataType = dataType;
  m.rank = rank;
  m.swizzle = swizzle;
  m.globalAddress = reinterpret_cast<uint64_t>(globalAddress);
  for (uint32_t d = 0; d < rank; ++d) {
    m.dims[d] = globalDim[d];
    m.elementStrides[d] = uint8_t(elementStrides[d]);
    if (d + 1 < rank)
      m.strides[d] = globalStrides[d];
  }
  m.interleave = uint8_t(interleave);
  m.l2Promotion = uint8_t(l2Promotion);
  m.oobFill = uint8_t(oobFill);
  std::memset(map, 0, 128);
  std::memcpy(map, &m, sizeof(m));
  return kOk;
}
} // namespace
#endif

extern "C" {

// Queries for the tests (found with dlopen(RTLD_NOLOAD) + dlsym).
int mock_live_allocations() {
  std::lock_guard<std::mutex> lock(mu);
  return int(allocations.size());
}
int mock_retained_contexts() { return retained; }
int mock_captures() { return captures; }
int mock_graph_launches() { return graphLaunches; }
int mock_cubin_loads() { return cubinLoads; }
int mock_captured_launches() { return capturedLaunches; }
int mock_programmatic_launches() { return programmaticLaunches; }
int mock_ptx_loads() { return ptxLoads; }
/// The device address of the tensor map the i-th tma_box_2d or tma_im2col
/// run read.
CUdeviceptr mock_tensor_map_seen(int i) {
  std::lock_guard<std::mutex> lock(mu);
  return i >= 0 && size_t(i) < tensorMapsSeen.size() ? tensorMapsSeen[i] : 0;
}
int mock_tensor_maps_seen() {
  std::lock_guard<std::mutex> lock(mu);
  return int(tensorMapsSeen.size());
}
int mock_bad_tensor_maps() { return badTensorMaps; }
/// The size of the live allocation at `p`, or 0.
unsigned long long mock_allocation_size(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = allocations.find(reinterpret_cast<void *>(p));
  return it == allocations.end() ? 0 : it->second;
}

CUresult cuInit(unsigned) { return deviceCount() > 0 ? kOk : kNoDevice; }

CUresult cuDeviceGetCount(int *n) {
  *n = deviceCount();
  return kOk;
}

CUresult cuDeviceGet(int *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return kInvalidDevice;
  *dev = ordinal;
  return kOk;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int) {
  *v = attr == 75 ? 9 : 0; // compute capability 9.0
  return kOk;
}

CUresult cuDeviceGetName(char *name, int len, int) {
  std::strncpy(name, "Mock GPU", size_t(len));
  return kOk;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int) {
  ++retained;
  *ctx = &fakeContext;
  return kOk;
}

CUresult cuDevicePrimaryCtxRelease_v2(int) {
  --retained;
  return kOk;
}

CUresult cuCtxPushCurrent_v2(void *ctx) {
  if (ctx != &fakeContext)
    return kInvalidContext;
  ctxStack.push_back(ctx);
  return kOk;
}

CUresult cuCtxPopCurrent_v2(void **ctx) {
  if (ctxStack.empty())
    return kInvalidContext;
  *ctx = ctxStack.back();
  ctxStack.pop_back();
  return kOk;
}

CUresult cuModuleLoadData(void **mod, const void *image) {
  if (!current())
    return kInvalidContext;
  if (!image || std::memcmp(image,
                            "\x7f"
                            "ELF",
                            4) != 0)
    return kInvalidValue; // the runtime passes PTX through the JIT call
  ++cubinLoads;
  *mod = &fakeModule;
  return kOk;
}

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n,
                            int *options, void **values) {
  if (!current())
    return kInvalidContext;
  const char *ptx = static_cast<const char *>(image);
  if (!std::strstr(ptx, ".entry add_f32") &&
      !std::strstr(ptx, ".entry tma_box_2d") &&
      !std::strstr(ptx, ".entry tma_im2col")) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::strcpy(static_cast<char *>(values[i]), "ptxas: mock error");
    return kInvalidPtx;
  }
  ++ptxLoads;
  *mod = &fakeModule;
  return kOk;
}

CUresult cuModuleUnload(void *mod) {
  return mod == &fakeModule && current() ? kOk : kInvalidValue;
}

CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  if (mod != &fakeModule)
    return kInvalidValue;
  if (std::strcmp(name, "add_f32") == 0)
    *fn = &fakeFunction;
  else if (std::strcmp(name, "tma_box_2d") == 0)
    *fn = &fakeTmaFunction;
  else if (std::strcmp(name, "tma_im2col") == 0)
    *fn = &fakeIm2colFunction;
  else
    return kNotFound;
  return kOk;
}

CUresult cuFuncSetAttribute(void *, int, int) { return kOk; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (!current())
    return kInvalidContext;
  if (!bytes)
    return kInvalidValue; // like the real driver
  // 256-byte aligned like the real driver's (the runtime relies on it).
  void *mem = std::aligned_alloc(256, (bytes + 255) & ~size_t(255));
  if (!mem)
    return kOutOfMemory;
  std::lock_guard<std::mutex> lock(mu);
  allocations[mem] = bytes;
  *p = reinterpret_cast<CUdeviceptr>(mem);
  return kOk;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  if (!current())
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  if (!allocations.erase(reinterpret_cast<void *>(p)))
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(p));
  return kOk;
}

// A synchronous copy from pageable memory may return before its DMA has
// landed; work on a non-blocking stream does not wait for it. Launches
// fail until the context is synchronized.
static bool pageableCopyInFlight = false;

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  if (!current())
    return kInvalidContext;
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  pageableCopyInFlight = true;
  return kOk;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                              Stream *s) {
  if (!current() || !s)
    return kInvalidContext;
  if (s->capturing)
    return kCaptureUnsupported; // pageable host memory in a graph
  // Ordered on its stream: later work there sees it.
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kOk;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, Stream *s) {
  if (!current() || !s)
    return kInvalidContext;
  if (s->capturing)
    return kCaptureUnsupported;
  std::memcpy(dst, reinterpret_cast<void *>(src), n);
  return kOk;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n,
                              Stream *s) {
  if (!current() || !s)
    return kInvalidContext;
  Op op{};
  op.dst = dst;
  op.src = src;
  op.bytes = n;
  if (s->capturing)
    s->ops.push_back(op);
  else
    execute(op);
  return kOk;
}

CUresult cuStreamCreate(Stream **s, unsigned) {
  if (!current())
    return kInvalidContext;
  *s = new Stream;
  return kOk;
}

CUresult cuStreamDestroy_v2(Stream *s) {
  delete s;
  return kOk;
}

CUresult cuStreamSynchronize(Stream *s) {
  return current() && s && !s->capturing ? kOk : kInvalidValue;
}

// Work runs when it is enqueued, so there is nothing to wait for; the real
// driver refuses the call without a current context.
CUresult cuCtxSynchronize() {
  if (!current())
    return kInvalidContext;
  pageableCopyInFlight = false;
  return kOk;
}

CUresult cuStreamBeginCapture_v2(Stream *s, int mode) {
  if (!current() || s->capturing || mode != 1)
    return kInvalidValue;
  s->capturing = true;
  s->ops.clear();
  return kOk;
}

CUresult cuStreamEndCapture(Stream *s, Graph **g) {
  if (!s->capturing)
    return kInvalidValue;
  s->capturing = false;
  *g = new Graph{std::move(s->ops)};
  ++captures;
  return kOk;
}

CUresult cuGraphInstantiateWithFlags(Graph **exec, Graph *g,
                                     unsigned long long) {
  *exec = new Graph(*g);
  return kOk;
}

CUresult cuGraphLaunch(Graph *exec, Stream *s) {
  if (!current() || !s || s->capturing || pageableCopyInFlight)
    return kInvalidValue;
  for (const Op &op : exec->ops)
    execute(op);
  ++graphLaunches;
  return kOk;
}

CUresult cuGraphExecDestroy(Graph *g) {
  delete g;
  return kOk;
}

CUresult cuGraphDestroy(Graph *g) {
  delete g;
  return kOk;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned,
                        Stream *s, void **params, void **extra) {
  bool tma = fn == &fakeTmaFunction || fn == &fakeIm2colFunction;
  if (!current() || (fn != &fakeFunction && !tma) || !s || !params || extra ||
      pageableCopyInFlight)
    return kInvalidValue;
  Op op{};
  op.launch = true;
  op.fn = fn;
  op.grid[0] = gx, op.grid[1] = gy, op.grid[2] = gz;
  op.block[0] = bx, op.block[1] = by, op.block[2] = bz;
  // Parameters are read through their pointers at launch time.
  for (int i = 0; i < (tma ? 2 : 3); ++i)
    op.args[i] = *static_cast<CUdeviceptr *>(params[i]);
  // A kernel dereferences its map on the device: a host address faults.
  if (tma && (op.args[0] % 64 || !inDeviceMemory(op.args[0], 128)))
    return kInvalidValue;
  if (s->capturing) {
    s->ops.push_back(op);
    ++capturedLaunches;
  } else {
    execute(op);
  }
  return kOk;
}

#ifndef DLC_MOCK_CUDA_OLD_DRIVER
namespace {
/// CUlaunchAttribute and CUlaunchConfig, as <cuda.h> lays them out.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
struct LaunchConfig {
  unsigned grid[3], block[3];
  unsigned sharedMemBytes;
  Stream *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
constexpr int kProgrammaticStreamSerialization = 6;
} // namespace

// Accepts only the programmatic-serialization attribute. With
// DLC_MOCK_CUDA_NO_PDL_CAPTURE=1 a programmatic launch fails inside a
// capture (a driver that cannot record programmatic edges).
CUresult cuLaunchKernelEx(const LaunchConfig *config, void *fn,
                          void **params, void **extra) {
  if (!config || (config->numAttrs && !config->attrs))
    return kInvalidValue;
  bool programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id != kProgrammaticStreamSerialization)
      return kInvalidValue;
    programmatic |=
        config->attrs[i].value.programmaticStreamSerializationAllowed != 0;
  }
  Stream *s = config->hStream;
  if (programmatic && s && s->capturing &&
      std::getenv("DLC_MOCK_CUDA_NO_PDL_CAPTURE"))
    return kNotSupported;
  size_t before = s ? s->ops.size() : 0;
  CUresult r = cuLaunchKernel(fn, config->grid[0], config->grid[1],
                              config->grid[2], config->block[0],
                              config->block[1], config->block[2],
                              config->sharedMemBytes, s, params, extra);
  if (r == kOk && s->capturing && s->ops.size() == before + 1) {
    s->ops.back().programmatic = programmatic;
    programmaticLaunches += programmatic;
  }
  return r;
}
#endif

// Events: work runs when it is enqueued (outside a capture), so an event
// records the time of its cuEventRecord call.
namespace {
struct Event {
  double ms = 0;
  bool recorded = false;
};
std::set<Event *> liveEvents;
} // namespace

CUresult cuEventCreate(Event **e, unsigned) {
  if (!current() || !e)
    return kInvalidValue;
  *e = new Event;
  liveEvents.insert(*e);
  return kOk;
}

CUresult cuEventRecord(Event *e, Stream *s) {
  if (!liveEvents.count(e) || !s || s->capturing)
    return kInvalidValue;
  static const auto origin = std::chrono::steady_clock::now();
  e->ms = std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - origin)
              .count();
  e->recorded = true;
  return kOk;
}

CUresult cuEventSynchronize(Event *e) {
  return liveEvents.count(e) ? kOk : kInvalidValue;
}

CUresult cuEventElapsedTime(float *ms, Event *start, Event *end) {
  if (!liveEvents.count(start) || !liveEvents.count(end) || !start->recorded ||
      !end->recorded)
    return kInvalidValue;
  *ms = float(end->ms - start->ms);
  return kOk;
}

CUresult cuEventDestroy_v2(Event *e) {
  if (!liveEvents.erase(e))
    return kInvalidValue;
  delete e;
  return kOk;
}

#ifndef DLC_MOCK_CUDA_OLD_DRIVER
// Checks what the CUDA 12 driver documents for tiled maps, then stores the
// arguments as a MockTensorMap.
CUresult cuTensorMapEncodeTiled(void *map, int dataType, uint32_t rank,
                                void *globalAddress, const uint64_t *globalDim,
                                const uint64_t *globalStrides,
                                const uint32_t *boxDim,
                                const uint32_t *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  if (std::getenv("DLC_MOCK_CUDA_NO_TMA"))
    return kNotSupported;
  if (badTensor(map, dataType, rank, 1, globalAddress, globalDim, globalStrides,
                elementStrides, interleave, swizzle, l2Promotion, oobFill) ||
      !boxDim)
    return kInvalidValue;
  for (uint32_t d = 0; d < rank; ++d)
    if (boxDim[d] < 1 || boxDim[d] > 256)
      return kInvalidValue;
  if (badRow(boxDim[0] * kTmaElementSize[dataType], interleave, swizzle))
    return kInvalidValue;

  dlc_mock::MockTensorMap m{};
  m.magic = dlc_mock::kTensorMapMagic;
  for (uint32_t d = 0; d < rank; ++d)
    m.box[d] = boxDim[d];
  return storeMap(m, map, dataType, rank, globalAddress, globalDim,
                  globalStrides, elementStrides, interleave, swizzle,
                  l2Promotion, oobFill);
}

// Checks what the CUDA 12 driver documents for im2col maps, then stores the
// arguments as a MockIm2colTensorMap.
CUresult cuTensorMapEncodeIm2col(void *map, int dataType, uint32_t rank,
                                 void *globalAddress, const uint64_t *globalDim,
                                 const uint64_t *globalStrides,
                                 const int *pixelBoxLowerCorner,
                                 const int *pixelBoxUpperCorner,
                                 uint32_t channelsPerPixel,
                                 uint32_t pixelsPerColumn,
                                 const uint32_t *elementStrides, int interleave,
                                 int swizzle, int l2Promotion, int oobFill) {
  if (std::getenv("DLC_MOCK_CUDA_NO_TMA"))
    return kNotSupported;
  if (badTensor(map, dataType, rank, 3, globalAddress, globalDim, globalStrides,
                elementStrides, interleave, swizzle, l2Promotion, oobFill) ||
      !pixelBoxLowerCorner || !pixelBoxUpperCorner || channelsPerPixel < 1 ||
      channelsPerPixel > 256 || pixelsPerColumn < 1 || pixelsPerColumn > 1024)
    return kInvalidValue;
  // The corners' range shrinks with the spatial rank; the bounding box must
  // not be empty.
  int limit = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (uint32_t i = 0; i + 2 < rank; ++i) {
    int lower = pixelBoxLowerCorner[i], upper = pixelBoxUpperCorner[i];
    if (lower < -limit || lower >= limit || upper < -limit || upper >= limit ||
        int64_t(globalDim[1 + i]) + upper - lower < 1)
      return kInvalidValue;
  }
  if (badRow(channelsPerPixel * kTmaElementSize[dataType], interleave, swizzle))
    return kInvalidValue;

  dlc_mock::MockIm2colTensorMap m{};
  m.magic = dlc_mock::kIm2colTensorMapMagic;
  for (uint32_t i = 0; i + 2 < rank; ++i) {
    m.lowerCorner[i] = int16_t(pixelBoxLowerCorner[i]);
    m.upperCorner[i] = int16_t(pixelBoxUpperCorner[i]);
  }
  m.channelsPerPixel = uint16_t(channelsPerPixel);
  m.pixelsPerColumn = uint16_t(pixelsPerColumn);
  return storeMap(m, map, dataType, rank, globalAddress, globalDim,
                  globalStrides, elementStrides, interleave, swizzle,
                  l2Promotion, oobFill);
}
#endif

CUresult cuGetErrorName(CUresult r, const char **name) {
  switch (r) {
  case kNoDevice:
    *name = "CUDA_ERROR_NO_DEVICE";
    return kOk;
  case kInvalidPtx:
    *name = "CUDA_ERROR_INVALID_PTX";
    return kOk;
  case kInvalidDevice:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return kOk;
  case kNotSupported:
    *name = "CUDA_ERROR_NOT_SUPPORTED";
    return kOk;
  default:
    *name = "CUDA_ERROR_MOCK";
    return kOk;
  }
}

CUresult cuGetErrorString(CUresult r, const char **text) {
  static thread_local std::string s;
  s = "mock error " + std::to_string(r);
  *text = s.c_str();
  return kOk;
}

} // extern "C"
