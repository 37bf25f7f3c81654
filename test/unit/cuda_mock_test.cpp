//===- cuda_mock_test.cpp - The CUDA device against a mock driver ---------===//
//
// Runs with LD_LIBRARY_PATH pointing at the mock libcuda.so.1 (see
// mock_cuda/), so libdlcrt's dlopen finds it: module loading, weight upload,
// context buffers, graph capture/replay and cleanup run for real on the host.
//
//===----------------------------------------------------------------------===//

#include "dlc_runtime.h"
#include "mock_cuda/mock_cuda.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

namespace {

bool mockHasDevices() {
  const char *env = std::getenv("DLC_MOCK_CUDA_DEVICES");
  return !env || std::atoi(env) > 0;
}

/// Calls `name`, a query exported by the mock driver (loaded by libdlcrt);
/// `fallback` when there is none.
template <typename R, typename... Args>
R mockQuery(const char *name, R fallback, Args... args) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    return fallback;
  auto fn = reinterpret_cast<R (*)(Args...)>(dlsym(lib, name));
  R v = fn ? fn(args...) : fallback;
  dlclose(lib);
  return v;
}

/// A counter exported by the mock driver.
int mockCounter(const char *name) { return mockQuery<int>(name, -1); }

/// Loads and frees a CUDA model, so that libdlcrt has loaded the mock
/// driver and its counters can be read before the load a test counts.
void loadMockDriver() {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_model_free(model);
}

/// Whether the libcuda.so.1 found first exports cuTensorMapEncodeTiled.
bool driverHasTma() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  bool has = dlsym(lib, "cuTensorMapEncodeTiled") != nullptr;
  dlclose(lib);
  return has;
}

/// Whether the libcuda.so.1 found first exports cuTensorMapEncodeIm2col.
bool driverHasIm2col() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  bool has = dlsym(lib, "cuTensorMapEncodeIm2col") != nullptr;
  dlclose(lib);
  return has;
}

/// The encoding the mock driver wrote at device address `address` (host
/// memory in the mock): a MockTensorMap or a MockIm2colTensorMap.
template <typename Map = dlc_mock::MockTensorMap>
Map readTensorMap(unsigned long long address) {
  Map m;
  std::memcpy(&m, reinterpret_cast<const void *>(address), sizeof(m));
  return m;
}

bool runAdd(dlc_context_t ctx, float offset) {
  float a[8], b[8], c[8] = {0};
  for (int i = 0; i < 8; ++i) {
    a[i] = float(i) + offset;
    b[i] = 2.0f * float(i);
  }
  const void *in[] = {a, b};
  size_t sizes[] = {32, 32};
  void *out[] = {c};
  if (dlc_context_run(ctx, in, sizes, 2, out, sizes, 1) != DLC_OK) {
    ADD_FAILURE() << dlc_last_error();
    return false;
  }
  for (int i = 0; i < 8; ++i)
    if (c[i] != a[i] + b[i]) {
      ADD_FAILURE() << "c[" << i << "] = " << c[i];
      return false;
    }
  return true;
}

class CudaMock : public ::testing::Test {
protected:
  void SetUp() override {
    if (!mockHasDevices())
      GTEST_SKIP() << "DLC_MOCK_CUDA_DEVICES=0";
  }
};

TEST_F(CudaMock, CapturesOnceAndReplays) {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_AUTO, 0, &model), DLC_OK)
      << dlc_last_error();
  int captures = mockCounter("mock_captures");
  int launches = mockCounter("mock_graph_launches");
  dlc_context_t ctx1 = nullptr, ctx2 = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx1), DLC_OK) << dlc_last_error();
  ASSERT_EQ(dlc_context_create(model, &ctx2), DLC_OK) << dlc_last_error();
  uint64_t bytes = 0;
  EXPECT_EQ(dlc_context_device_memory_bytes(ctx1, &bytes), DLC_OK);
  EXPECT_EQ(bytes, 3u * 256); // a, b, c, each 256-byte aligned; no arena
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(runAdd(ctx1, float(round)));
    EXPECT_TRUE(runAdd(ctx2, float(10 * round)));
  }
  EXPECT_EQ(mockCounter("mock_captures") - captures, 2);
  EXPECT_EQ(mockCounter("mock_graph_launches") - launches, 6);
  dlc_model_free(model); // contexts keep it alive
  EXPECT_TRUE(runAdd(ctx1, 5));
  dlc_context_free(ctx1);
  dlc_context_free(ctx2);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
  EXPECT_EQ(mockCounter("mock_retained_contexts"), 0);
}

// Inputs written straight into the context's device buffers (the mock's
// device memory is host memory) run without host copies; outputs stay there.
TEST_F(CudaMock, RunsResidentOnItsDeviceBuffers) {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  void *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(dlc_context_device_buffer(ctx, 0, 0, &a), DLC_OK);
  ASSERT_EQ(dlc_context_device_buffer(ctx, 0, 1, &b), DLC_OK);
  ASSERT_EQ(dlc_context_device_buffer(ctx, 1, 0, &c), DLC_OK);
  EXPECT_NE(a, b);
  for (int i = 0; i < 8; ++i) {
    static_cast<float *>(a)[i] = float(i);
    static_cast<float *>(b)[i] = 100.0f;
  }
  int launches = mockCounter("mock_graph_launches");
  ASSERT_EQ(dlc_context_run_resident(ctx), DLC_OK) << dlc_last_error();
  EXPECT_EQ(mockCounter("mock_graph_launches") - launches, 1);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(static_cast<float *>(c)[i], float(i) + 100.0f) << i;
  // A host run leaves its inputs in the same buffers.
  EXPECT_TRUE(runAdd(ctx, 3));
  EXPECT_EQ(static_cast<float *>(a)[1], 4.0f);

  void *p = nullptr;
  EXPECT_EQ(dlc_context_device_buffer(ctx, 1, 1, &p),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "output index 1 out of range (1)");
  dlc_context_free(ctx);
  dlc_model_free(model);
}

TEST_F(CudaMock, ProfileLaunchesStepsWithoutTheGraph) {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  float a[8], b[8], c[8], d[8];
  for (int i = 0; i < 8; ++i) {
    a[i] = float(i);
    b[i] = 100.0f;
    c[i] = d[i] = -1.0f;
  }
  const void *in[] = {a, b};
  size_t inSizes[] = {sizeof(a), sizeof(b)};
  void *out[] = {c};
  size_t outSizes[] = {sizeof(c)};
  int32_t steps = 0;
  ASSERT_EQ(dlc_context_num_steps(ctx, &steps), DLC_OK);
  ASSERT_EQ(steps, 1);
  double ms = -1;
  int launches = mockCounter("mock_graph_launches");
  ASSERT_EQ(dlc_context_profile(ctx, in, inSizes, 2, out, outSizes, 1, &ms, 1),
            DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(mockCounter("mock_graph_launches"), launches);
  EXPECT_GE(ms, 0.0);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(c[i], float(i) + 100.0f) << i;
  // A graph run after a profile still captures and replays.
  void *out2[] = {d};
  ASSERT_EQ(dlc_context_run(ctx, in, inSizes, 2, out2, outSizes, 1), DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(mockCounter("mock_graph_launches") - launches, 1);
  EXPECT_EQ(d[7], 107.0f);
  dlc_context_free(ctx);
  dlc_model_free(model);
}

TEST_F(CudaMock, ContextsOnManyThreads) {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([model, t] {
      dlc_context_t ctx = nullptr;
      ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
      for (int r = 0; r < 50; ++r)
        if (!runAdd(ctx, float(t * 100 + r)))
          break;
      dlc_context_free(ctx);
    });
  for (std::thread &t : threads)
    t.join();
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

TEST_F(CudaMock, CubinPreferredWhenArchMatches) {
  ASSERT_NO_FATAL_FAILURE(loadMockDriver());
  dlc_model_t model = nullptr;
  int cubins = mockCounter("mock_cubin_loads");
  int ptxs = mockCounter("mock_ptx_loads");
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_CUBIN_SO, DLC_DEVICE_CUDA, 0, &model),
            DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(mockCounter("mock_cubin_loads") - cubins, 1);
  EXPECT_EQ(mockCounter("mock_ptx_loads") - ptxs, 0);
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK);
  EXPECT_TRUE(runAdd(ctx, 1));
  dlc_context_free(ctx);
  dlc_model_free(model);
}

TEST_F(CudaMock, JitErrorCarriesTheLog) {
  dlc_model_t model = nullptr;
  EXPECT_EQ(dlc_model_load(FAKE_CUDA_BAD_PTX_SO, DLC_DEVICE_CUDA, 0, &model),
            DLC_ERROR_DEVICE);
  EXPECT_CONTAINS(dlc_last_error(), "JIT of the PTX for sm_90 failed: "
                                    "CUDA_ERROR_INVALID_PTX");
  EXPECT_CONTAINS(dlc_last_error(), "ptxas: mock error");
  EXPECT_EQ(mockCounter("mock_retained_contexts"), 0);
}

// Identity-only models have no kernels and no PTX: nothing to load, the
// copy step still runs.
TEST_F(CudaMock, ModelWithoutKernels) {
  ASSERT_NO_FATAL_FAILURE(loadMockDriver());
  dlc_model_t model = nullptr;
  int ptxs = mockCounter("mock_ptx_loads");
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_NO_KERNELS_SO, DLC_DEVICE_CUDA, 0, &model),
            DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(mockCounter("mock_ptx_loads") - ptxs, 0);
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  float a[8], c[8] = {0};
  for (int i = 0; i < 8; ++i)
    a[i] = 1.5f * float(i);
  const void *in[] = {a};
  size_t sizes[] = {32};
  void *out[] = {c};
  ASSERT_EQ(dlc_context_run(ctx, in, sizes, 1, out, sizes, 1), DLC_OK)
      << dlc_last_error();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(c[i], a[i]) << i;
  dlc_context_free(ctx);
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

TEST_F(CudaMock, OrdinalOutOfRange) {
  dlc_model_t model = nullptr;
  EXPECT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 3, &model),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(),
                  "CUDA device ordinal 3 out of range: 1 device(s)");
}

/// Runs tma_model.c: y = x through map 0, w = weights rows 1..2, columns
/// 0..3 through map 1.
bool runTma(dlc_context_t ctx, float offset) {
  float x[32], y[32] = {0}, w[8] = {0};
  for (int i = 0; i < 32; ++i)
    x[i] = float(i) + offset;
  const void *in[] = {x};
  size_t inSizes[] = {sizeof(x)};
  void *out[] = {y, w};
  size_t outSizes[] = {sizeof(y), sizeof(w)};
  if (dlc_context_run(ctx, in, inSizes, 1, out, outSizes, 2) != DLC_OK) {
    ADD_FAILURE() << dlc_last_error();
    return false;
  }
  bool ok = true;
  for (int i = 0; i < 32; ++i)
    if (y[i] != x[i]) {
      ADD_FAILURE() << "y[" << i << "] = " << y[i];
      ok = false;
    }
  const float wantW[8] = {16, 17, 18, 19, 32, 33, 34, 35};
  for (int i = 0; i < 8; ++i)
    if (w[i] != wantW[i]) {
      ADD_FAILURE() << "w[" << i << "] = " << w[i];
      ok = false;
    }
  return ok;
}

// The context encodes each map over its own buffers, uploads it into its
// allocation, and passes that device copy to the kernel.
TEST_F(CudaMock, TensorMapsReachTheKernel) {
  if (!driverHasTma())
    GTEST_SKIP() << "the mock driver lacks cuTensorMapEncodeTiled";
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_TMA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx1 = nullptr, ctx2 = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx1), DLC_OK) << dlc_last_error();
  ASSERT_EQ(dlc_context_create(model, &ctx2), DLC_OK) << dlc_last_error();
  uint64_t bytes = 0;
  EXPECT_EQ(dlc_context_device_memory_bytes(ctx1, &bytes), DLC_OK);
  // x, y, w and the two 128-byte maps, each 256-byte aligned; no arena.
  EXPECT_EQ(bytes, 4u * 256);

  for (dlc_context_t ctx : {ctx1, ctx2}) {
    int seen = mockCounter("mock_tensor_maps_seen");
    for (int round = 0; round < 3; ++round) // capture, then graph replays
      EXPECT_TRUE(runTma(ctx, float(10 * round)));
    ASSERT_EQ(mockCounter("mock_tensor_maps_seen") - seen, 6);
    EXPECT_EQ(mockCounter("mock_bad_tensor_maps"), 0);
    auto map0 = mockQuery<unsigned long long>("mock_tensor_map_seen", 0, seen);
    auto map1 =
        mockQuery<unsigned long long>("mock_tensor_map_seen", 0, seen + 1);
    // Every replay passes the same device copies.
    EXPECT_EQ(
        mockQuery<unsigned long long>("mock_tensor_map_seen", 0, seen + 4),
        map0);

    // The maps lie back to back, 64-byte aligned, in the context's one
    // allocation, which starts at input x (the model has no arena).
    void *x = nullptr;
    ASSERT_EQ(dlc_context_device_buffer(ctx, 0, 0, &x), DLC_OK);
    auto base = reinterpret_cast<unsigned long long>(x);
    ASSERT_EQ(mockQuery<unsigned long long>("mock_allocation_size", 0, base),
              bytes);
    EXPECT_EQ(map0 % 64, 0u);
    EXPECT_EQ(map1, map0 + 128);
    EXPECT_GE(map0, base);
    EXPECT_LE(map1 + 128, base + bytes);

    dlc_mock::MockTensorMap m = readTensorMap(map0);
    EXPECT_EQ(m.magic, dlc_mock::kTensorMapMagic);
    EXPECT_EQ(m.dataType, 7); // FLOAT32
    EXPECT_EQ(m.rank, 2u);
    EXPECT_EQ(m.globalAddress, base); // this context's x
    EXPECT_EQ(m.dims[0], 8u);
    EXPECT_EQ(m.dims[1], 4u);
    EXPECT_EQ(m.strides[0], 32u);
    EXPECT_EQ(m.box[0], 8u);
    EXPECT_EQ(m.box[1], 4u);
    EXPECT_EQ(m.swizzle, 1); // 32B
    EXPECT_EQ(m.elementStrides[0], 1);
    EXPECT_EQ(m.elementStrides[1], 1);
    EXPECT_EQ(m.interleave, 0);
    EXPECT_EQ(m.l2Promotion, 3); // 256B
    EXPECT_EQ(m.oobFill, 0);

    m = readTensorMap(map1);
    EXPECT_EQ(m.magic, dlc_mock::kTensorMapMagic);
    // 64 bytes into the model's device copy of the 256-byte weights.
    EXPECT_EQ(mockQuery<unsigned long long>("mock_allocation_size", 0,
                                            m.globalAddress - 64),
              256u);
    EXPECT_EQ(m.dims[0], 16u);
    EXPECT_EQ(m.dims[1], 3u);
    EXPECT_EQ(m.strides[0], 64u);
    EXPECT_EQ(m.box[0], 4u);
    EXPECT_EQ(m.box[1], 2u);
    EXPECT_EQ(m.swizzle, 0);
    // Its im2col fields hold junk, which a tiled map ignores.
    EXPECT_EQ(m.elementStrides[0], 1);
    EXPECT_EQ(m.elementStrides[1], 1);
  }
  dlc_context_free(ctx1);
  dlc_context_free(ctx2);
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

/// Loads `so` and creates a context while the mock's encoders refuse
/// (DLC_MOCK_CUDA_NO_TMA): the creation fails with an error containing
/// `want`, which names the map. Returns the model, still loaded.
dlc_model_t contextFailsToEncode(const char *so, const char *want) {
  dlc_model_t model = nullptr;
  EXPECT_EQ(dlc_model_load(so, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  if (!model)
    return nullptr;
  setenv("DLC_MOCK_CUDA_NO_TMA", "1", 1);
  dlc_context_t ctx = nullptr;
  dlc_status s = dlc_context_create(model, &ctx);
  unsetenv("DLC_MOCK_CUDA_NO_TMA");
  EXPECT_EQ(s, DLC_ERROR_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_CONTAINS(dlc_last_error(), want);
  return model;
}

TEST_F(CudaMock, TensorMapEncodeErrorNamesTheMap) {
  if (!driverHasTma())
    GTEST_SKIP() << "the mock driver lacks cuTensorMapEncodeTiled";
  dlc_model_t model = contextFailsToEncode(
      FAKE_TMA_SO, "cuTensorMapEncodeTiled of tensor map #0 (float32 dims "
                   "[8,4] strides [4,32] box [8,4] swizzle 32) failed: "
                   "CUDA_ERROR_NOT_SUPPORTED");
  ASSERT_NE(model, nullptr);
  // The failed context left nothing behind and the model still works.
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  EXPECT_TRUE(runTma(ctx, 1));
  dlc_context_free(ctx);
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

/// Runs im2col_model.c with x[n][h][w][c] = n + 2h + 3w + c (mod 256) + 1:
/// y is the im2col column of its bounding box (w in -1..3, every other h in
/// -2..4), 128 pixels of 64 channels, zero outside x.
bool runIm2col(dlc_context_t ctx) {
  std::vector<int8_t> x(2 * 5 * 6 * 64), y(128 * 64, -1);
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 5; ++h)
      for (int w = 0; w < 6; ++w)
        for (int c = 0; c < 64; ++c)
          x[((n * 5 + h) * 6 + w) * 64 + c] =
              int8_t((n + 2 * h + 3 * w + c) % 127 + 1);
  const void *in[] = {x.data()};
  size_t inSizes[] = {x.size()};
  void *out[] = {y.data()};
  size_t outSizes[] = {y.size()};
  if (dlc_context_run(ctx, in, inSizes, 1, out, outSizes, 1) != DLC_OK) {
    ADD_FAILURE() << dlc_last_error();
    return false;
  }
  for (int p = 0; p < 128; ++p) {
    int n = p / 20, h = p % 20 / 5 * 2 - 2, w = p % 5 - 1;
    bool inside = n < 2 && h >= 0 && w >= 0;
    for (int c = 0; c < 64; ++c) {
      int8_t want = inside ? x[((n * 5 + h) * 6 + w) * 64 + c] : 0;
      if (y[p * 64 + c] != want) {
        ADD_FAILURE() << "pixel " << p << " channel " << c << ": "
                      << int(y[p * 64 + c]) << ", want " << int(want);
        return false;
      }
    }
  }
  return true;
}

// An im2col map reaches cuTensorMapEncodeIm2col with exactly the model's
// parameters (corners innermost first) over the context's own input.
TEST_F(CudaMock, Im2colTensorMapsReachTheKernel) {
  if (!driverHasIm2col())
    GTEST_SKIP() << "the mock driver lacks cuTensorMapEncodeIm2col";
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_IM2COL_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  int seen = mockCounter("mock_tensor_maps_seen");
  int bad = mockCounter("mock_bad_tensor_maps");
  EXPECT_TRUE(runIm2col(ctx));
  EXPECT_TRUE(runIm2col(ctx)); // a graph replay
  ASSERT_EQ(mockCounter("mock_tensor_maps_seen") - seen, 2);
  EXPECT_EQ(mockCounter("mock_bad_tensor_maps"), bad);
  auto address = mockQuery<unsigned long long>("mock_tensor_map_seen", 0, seen);
  EXPECT_EQ(address % 64, 0u);

  void *x = nullptr;
  ASSERT_EQ(dlc_context_device_buffer(ctx, 0, 0, &x), DLC_OK);
  auto m = readTensorMap<dlc_mock::MockIm2colTensorMap>(address);
  EXPECT_EQ(m.magic, dlc_mock::kIm2colTensorMapMagic);
  EXPECT_EQ(m.dataType, 0); // UINT8 (int8 moves as bytes)
  EXPECT_EQ(m.rank, 4u);
  EXPECT_EQ(m.globalAddress, reinterpret_cast<unsigned long long>(x));
  const uint64_t dims[] = {64, 6, 5, 2}, strides[] = {64, 384, 1920};
  const int elementStrides[] = {1, 1, 2, 1};
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(m.dims[d], dims[d]) << d;
    EXPECT_EQ(m.elementStrides[d], elementStrides[d]) << d;
  }
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(m.strides[d], strides[d]) << d;
  EXPECT_EQ(m.lowerCorner[0], -1); // W
  EXPECT_EQ(m.lowerCorner[1], -2); // H
  EXPECT_EQ(m.upperCorner[0], -2);
  EXPECT_EQ(m.upperCorner[1], 0);
  EXPECT_EQ(m.channelsPerPixel, 64);
  EXPECT_EQ(m.pixelsPerColumn, 128);
  EXPECT_EQ(m.swizzle, 2); // 64B
  EXPECT_EQ(m.interleave, 0);
  EXPECT_EQ(m.l2Promotion, 3); // 256B
  EXPECT_EQ(m.oobFill, 0);
  dlc_context_free(ctx);
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

TEST_F(CudaMock, Im2colEncodeErrorNamesTheMap) {
  if (!driverHasIm2col())
    GTEST_SKIP() << "the mock driver lacks cuTensorMapEncodeIm2col";
  dlc_model_t model = contextFailsToEncode(
      FAKE_IM2COL_SO,
      "cuTensorMapEncodeIm2col of tensor map #0 (int8 dims [64,6,5,2] "
      "strides [1,64,384,1920] swizzle 64 im2col lower [-1,-2] upper [-2,0] "
      "channels 64 pixels 128 element strides [1,1,2,1]) failed: "
      "CUDA_ERROR_NOT_SUPPORTED");
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

/// The mock's cuTensorMapEncodeIm2col, which the tests above rely on to
/// refuse what the real driver refuses.
using EncodeIm2col = int (*)(void *, int, uint32_t, void *, const uint64_t *,
                             const uint64_t *, const int *, const int *,
                             uint32_t, uint32_t, const uint32_t *, int, int,
                             int, int);

// The arguments im2col_model.c's map gives, then one wrong argument at a
// time: each is CUDA_ERROR_INVALID_VALUE.
TEST_F(CudaMock, MockIm2colEncodeRefusesWhatTheDriverRefuses) {
  ASSERT_NO_FATAL_FAILURE(loadMockDriver());
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto encode =
      reinterpret_cast<EncodeIm2col>(dlsym(lib, "cuTensorMapEncodeIm2col"));
  dlclose(lib);
  if (!encode)
    GTEST_SKIP() << "the mock driver lacks cuTensorMapEncodeIm2col";
  struct Args {
    uint32_t rank = 4;
    uint64_t dims[5] = {64, 6, 5, 2}, strides[4] = {64, 384, 1920};
    int lower[3] = {-1, -1}, upper[3] = {-1, -1};
    uint32_t channels = 64, pixels = 128, elementStrides[5] = {1, 1, 1, 1};
    int swizzle = 2; // 64B
  };
  alignas(64) static uint8_t map[128], tensor[3840];
  auto call = [&](const Args &a) {
    return encode(map, 0, a.rank, tensor, a.dims, a.strides, a.lower, a.upper,
                  a.channels, a.pixels, a.elementStrides, 0, a.swizzle, 3, 0);
  };
  EXPECT_EQ(call(Args{}), 0);
  auto expectRefused = [&](const char *what, auto change) {
    Args a;
    change(a);
    EXPECT_EQ(call(a), 1) << what;
  };
  expectRefused("rank 2", [](Args &a) { a.rank = 2; });
  expectRefused("corner -129", [](Args &a) { a.lower[1] = -129; });
  expectRefused("corner 128", [](Args &a) { a.upper[0] = 128; });
  expectRefused("empty box", [](Args &a) { a.lower[1] = 1, a.upper[1] = -4; });
  expectRefused("channels 0", [](Args &a) { a.channels = 0; });
  expectRefused("channels 257", [](Args &a) { a.channels = 257; });
  expectRefused("channels past the swizzle", [](Args &a) { a.channels = 128; });
  expectRefused("channels of 8 bytes", [](Args &a) { a.channels = 8; });
  expectRefused("pixels 1025", [](Args &a) { a.pixels = 1025; });
  expectRefused("element stride 0", [](Args &a) { a.elementStrides[2] = 0; });
  expectRefused("element stride 9", [](Args &a) { a.elementStrides[1] = 9; });
  expectRefused("stride 56", [](Args &a) { a.strides[0] = 56; });
  // Rank 3 ([N, W, C]) corners reach further; the box may be one pixel
  // wide (6 + upper - lower = 1), not none.
  Args wide;
  wide.rank = 3;
  wide.dims[2] = 2;
  wide.lower[0] = -32763;
  wide.upper[0] = -32768;
  EXPECT_EQ(call(wide), 0);
  wide.lower[0] = -32762;
  EXPECT_EQ(call(wide), 1);
  wide.upper[0] = -32769;
  EXPECT_EQ(call(wide), 1);
}

// Run by ctest against the mock built without cuTensorMapEncodeTiled (a
// driver older than CUDA 12): models without maps still run.
TEST(CudaMockOldDriver, TensorMapsNeedCuda12) {
  if (!mockHasDevices() || driverHasTma())
    GTEST_SKIP() << "needs the mock driver without cuTensorMapEncodeTiled";
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  EXPECT_TRUE(runAdd(ctx, 1));
  dlc_context_free(ctx);
  dlc_model_free(model);

  ASSERT_EQ(dlc_model_load(FAKE_TMA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(dlc_context_create(model, &ctx), DLC_ERROR_DEVICE);
  EXPECT_CONTAINS(dlc_last_error(),
                  "this model uses TMA tensor maps (sm_90); the CUDA driver "
                  "has no cuTensorMapEncodeTiled (CUDA 12 or newer)");
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

// The same driver has no cuTensorMapEncodeIm2col either: a model with an
// im2col map loads (it is valid) but its contexts say what is missing.
TEST(CudaMockOldDriver, Im2colTensorMapsNeedCuda12) {
  if (!mockHasDevices() || driverHasIm2col())
    GTEST_SKIP() << "needs the mock driver without cuTensorMapEncodeIm2col";
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_IM2COL_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  EXPECT_EQ(dlc_context_create(model, &ctx), DLC_ERROR_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_CONTAINS(dlc_last_error(),
                  "this model uses im2col TMA tensor maps (sm_90); the CUDA "
                  "driver has no cuTensorMapEncodeIm2col (CUDA 12 or newer)");
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

/// Runs FAKE_CUDA_OVERLAP_SO (launch, launch, copy, launch) twice; the
/// captured launches, how many of them were programmatic, and what the
/// context says of them (dlc_context_overlapped_launches).
void runOverlapModel(int *captured, int *programmatic, int32_t *reported) {
  loadMockDriver();
  int launches0 = mockCounter("mock_captured_launches");
  int programmatic0 = mockCounter("mock_programmatic_launches");
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_OVERLAP_SO, DLC_DEVICE_CUDA, 0, &model),
            DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  int32_t before = -1;
  ASSERT_EQ(dlc_context_overlapped_launches(ctx, &before), DLC_OK);
  EXPECT_EQ(before, 0) << "the graph is captured by the first run";
  EXPECT_TRUE(runAdd(ctx, 1));
  EXPECT_TRUE(runAdd(ctx, 2));
  ASSERT_EQ(dlc_context_overlapped_launches(ctx, reported), DLC_OK);
  dlc_context_free(ctx);
  dlc_model_free(model);
  *captured = mockCounter("mock_captured_launches") - launches0;
  *programmatic = mockCounter("mock_programmatic_launches") - programmatic0;
}

// Kernels that wait for their grid dependencies: a launch right after a
// launch is programmatic, the first one and the one after a copy are not;
// models without the flag never are.
TEST_F(CudaMock, OverlapsOnlyLaunchesThatFollowLaunches) {
  if (std::getenv("DLC_MOCK_CUDA_NO_PDL_CAPTURE"))
    GTEST_SKIP() << "DLC_MOCK_CUDA_NO_PDL_CAPTURE=1";
  int captured = 0, programmatic = 0;
  int32_t reported = 0;
  runOverlapModel(&captured, &programmatic, &reported);
  EXPECT_EQ(captured, 3);
  EXPECT_EQ(programmatic, 1);
  EXPECT_EQ(reported, 1);

  int programmatic0 = mockCounter("mock_programmatic_launches");
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), DLC_OK)
      << dlc_last_error();
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  EXPECT_TRUE(runAdd(ctx, 1));
  reported = -1;
  ASSERT_EQ(dlc_context_overlapped_launches(ctx, &reported), DLC_OK);
  EXPECT_EQ(reported, 0);
  dlc_context_free(ctx);
  dlc_model_free(model);
  EXPECT_EQ(mockCounter("mock_programmatic_launches"), programmatic0);
}

/// Runs the overlap model where programmatic launches are not to be had:
/// `captured` launches recorded, none programmatic, none reported.
void expectSerializedRuns(int captured) {
  int got = 0, programmatic = 0;
  int32_t reported = -1;
  runOverlapModel(&got, &programmatic, &reported);
  EXPECT_EQ(got, captured);
  EXPECT_EQ(programmatic, 0);
  EXPECT_EQ(reported, 0);
}

// Run by ctest with DLC_MOCK_CUDA_NO_PDL_CAPTURE=1: a driver that cannot
// capture programmatic launches gets the same kernels fully serialized.
TEST(CudaMockNoPdlCapture, FallsBackToSerializedLaunches) {
  if (!mockHasDevices() || !std::getenv("DLC_MOCK_CUDA_NO_PDL_CAPTURE"))
    GTEST_SKIP() << "needs DLC_MOCK_CUDA_NO_PDL_CAPTURE=1";
  // The failed capture recorded the first launch before it gave up.
  expectSerializedRuns(/*captured=*/4);
  EXPECT_EQ(mockCounter("mock_live_allocations"), 0);
}

// Run by ctest against the mock without cuLaunchKernelEx (nor
// cuTensorMapEncodeTiled): the same model runs, nothing programmatic.
TEST(CudaMockOldDriver, OverlapNeedsLaunchKernelEx) {
  if (!mockHasDevices() || driverHasTma())
    GTEST_SKIP() << "needs the mock driver without cuLaunchKernelEx";
  expectSerializedRuns(/*captured=*/3);
}

// Run by ctest with DLC_MOCK_CUDA_DEVICES=0.
TEST(CudaMockNoDevice, ClearError) {
  if (mockHasDevices())
    GTEST_SKIP() << "needs DLC_MOCK_CUDA_DEVICES=0";
  dlc_model_t model = nullptr;
  EXPECT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_AUTO, 0, &model),
            DLC_ERROR_DEVICE_UNAVAILABLE);
  EXPECT_CONTAINS(dlc_last_error(), "there is no CUDA device");
}

} // namespace
