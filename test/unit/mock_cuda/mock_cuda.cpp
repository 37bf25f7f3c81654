//===- mock_cuda.cpp - A fake libcuda.so.1 for testing the CUDA path ------===//
//
// Implements the driver entry points libdlcrt uses on host memory, so the
// CUDA device code (module loading, weights upload, context buffers, graph
// capture and replay, error reporting) is exercised on machines without a
// GPU. "Device pointers" are host pointers. The only kernel is add_f32, the
// one in test/unit/models/cuda_model.c: c[i] = a[i] + b[i] for threads i < 8.
// It checks what the real driver would reject: calls without a current
// context, synchronous copies inside a stream capture, unknown handles.
//
// DLC_MOCK_CUDA_DEVICES=N sets the device count (0: cuInit reports
// CUDA_ERROR_NO_DEVICE).
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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
  kCaptureUnsupported = 900,
};

struct Op {
  bool launch;
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
int fakeFunction;

std::mutex mu;
std::set<void *> allocations;
int retained = 0, captures = 0, graphLaunches = 0, cubinLoads = 0, ptxLoads = 0;
thread_local std::vector<void *> ctxStack;

bool current() { return !ctxStack.empty(); }

int deviceCount() {
  const char *env = std::getenv("DLC_MOCK_CUDA_DEVICES");
  return env ? std::atoi(env) : 1;
}

void execute(const Op &op) {
  if (!op.launch) {
    std::memmove(reinterpret_cast<void *>(op.dst),
                 reinterpret_cast<void *>(op.src), op.bytes);
    return;
  }
  auto a = reinterpret_cast<const float *>(op.args[0]);
  auto b = reinterpret_cast<const float *>(op.args[1]);
  auto c = reinterpret_cast<float *>(op.args[2]);
  for (unsigned t = 0; t < op.block[0] * op.grid[0] && t < 8; ++t)
    c[t] = a[t] + b[t];
}

} // namespace

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
int mock_ptx_loads() { return ptxLoads; }

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
  if (!std::strstr(ptx, ".entry add_f32")) {
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
  if (std::strcmp(name, "add_f32") != 0)
    return kNotFound;
  *fn = &fakeFunction;
  return kOk;
}

CUresult cuFuncSetAttribute(void *, int, int) { return kOk; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (!current())
    return kInvalidContext;
  if (!bytes)
    return kInvalidValue; // like the real driver
  void *mem = std::malloc(bytes);
  if (!mem)
    return kOutOfMemory;
  std::lock_guard<std::mutex> lock(mu);
  allocations.insert(mem);
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

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  if (!current())
    return kInvalidContext;
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kOk;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                              Stream *s) {
  if (!current() || !s)
    return kInvalidContext;
  if (s->capturing)
    return kCaptureUnsupported; // pageable host memory in a graph
  return cuMemcpyHtoD_v2(dst, src, n);
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
  if (!current() || !s || s->capturing)
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
  if (!current() || fn != &fakeFunction || !s || !params || extra)
    return kInvalidValue;
  Op op{};
  op.launch = true;
  op.grid[0] = gx, op.grid[1] = gy, op.grid[2] = gz;
  op.block[0] = bx, op.block[1] = by, op.block[2] = bz;
  // Parameters are read through their pointers at launch time.
  for (int i = 0; i < 3; ++i)
    op.args[i] = *static_cast<CUdeviceptr *>(params[i]);
  if (s->capturing)
    s->ops.push_back(op);
  else
    execute(op);
  return kOk;
}

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
