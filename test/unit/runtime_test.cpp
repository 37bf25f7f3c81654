//===- runtime_test.cpp - Loading and running models through the C API ----===//

#include "dlc/runtime.hpp"
#include "dlc_runtime.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

const float kWeights[8] = {100, 200, 300, 400, 500, 600, 700, 800};

/// Loads `path`, expecting failure; returns the message.
std::string loadError(const char *path, dlc_status expected,
                      dlc_device device = DLC_DEVICE_AUTO) {
  dlc_model_t model = nullptr;
  dlc_status s = dlc_model_load(path, device, 0, &model);
  EXPECT_EQ(s, expected) << dlc_status_name(s) << ": " << dlc_last_error();
  EXPECT_EQ(model, nullptr);
  dlc_model_free(model);
  return dlc_last_error();
}

TEST(Runtime, Signature) {
  auto model = dlc::Model::load(FAKE_ADD_SO);
  ASSERT_TRUE(model) << model.status().toString();
  ASSERT_EQ(model->inputs().size(), 2u);
  EXPECT_EQ(model->inputs()[1].name, "b");
  EXPECT_EQ(model->inputs()[0].typeString(), "float32[2,4]");
  EXPECT_EQ(model->inputs()[0].sizeBytes, 32u);
  ASSERT_EQ(model->outputs().size(), 1u);
  EXPECT_EQ(model->outputs()[0].name, "out/c:0");
  EXPECT_EQ(model->target(), DLC_TARGET_CPU);
  EXPECT_EQ(model->arch(), "x86-64");
  EXPECT_EQ(model->arenaSize(), 96u);
  EXPECT_EQ(model->weightsSize(), 32u);
  EXPECT_CONTAINS(model->manifest(), "\"model\": \"add\"");

  int32_t index = -1;
  EXPECT_EQ(dlc_model_find_input(model->handle(), "b", &index), DLC_OK);
  EXPECT_EQ(index, 1);
  EXPECT_EQ(dlc_model_find_output(model->handle(), "out/c:0", &index), DLC_OK);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(dlc_model_find_input(model->handle(), "x", &index),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "no input named 'x'");
  EXPECT_CONTAINS(dlc_last_error(), "'a', 'b'");

  dlc_tensor_info info;
  EXPECT_EQ(dlc_model_input_info(model->handle(), 2, &info),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "input index 2 out of range");
}

TEST(Runtime, RunsPlanWithArenaWeightsAndCopy) {
  auto model = dlc::Model::load(FAKE_ADD_SO, dlc::Device::Cpu);
  ASSERT_TRUE(model) << model.status().toString();
  auto ctx = model->createContext();
  ASSERT_TRUE(ctx) << ctx.status().toString();
  EXPECT_EQ(ctx->deviceMemoryBytes(), 96u);
  std::vector<float> a(8), b(8), c(8, -1);
  for (int i = 0; i < 8; ++i) {
    a[i] = float(i);
    b[i] = float(10 * i);
  }
  // Twice: the second run must not depend on leftovers of the first.
  for (int round = 0; round < 2; ++round) {
    dlc::Status s = ctx->run({a, b}, {c});
    ASSERT_TRUE(s) << s.toString();
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(c[i], a[i] + b[i] + kWeights[i]) << "element " << i;
    a[0] = 1000;
  }
}

TEST(Runtime, ProfileTimesEveryStep) {
  auto model = dlc::Model::load(FAKE_ADD_SO, dlc::Device::Cpu);
  ASSERT_TRUE(model) << model.status().toString();
  int32_t steps = 0;
  ASSERT_EQ(dlc_model_num_steps(model->handle(), &steps), DLC_OK);
  EXPECT_EQ(steps, 3);
  const char *name = nullptr;
  ASSERT_EQ(dlc_model_step_name(model->handle(), 0, &name), DLC_OK);
  EXPECT_STREQ(name, "add_f32");
  ASSERT_EQ(dlc_model_step_name(model->handle(), 2, &name), DLC_OK);
  EXPECT_STREQ(name, "copy");
  EXPECT_EQ(dlc_model_step_name(model->handle(), 3, &name),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "step index 3 out of range (3)");

  auto ctx = model->createContext();
  ASSERT_TRUE(ctx) << ctx.status().toString();
  std::vector<float> a(8), b(8), c(8, -1);
  for (int i = 0; i < 8; ++i) {
    a[i] = float(i);
    b[i] = float(10 * i);
  }
  // The same results as run(), one time per step.
  dlc::Expected<std::vector<double>> ms = ctx->profile({a, b}, {c});
  ASSERT_TRUE(ms) << ms.status().toString();
  ASSERT_EQ(ms->size(), 3u);
  for (double t : *ms)
    EXPECT_GE(t, 0.0);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(c[i], a[i] + b[i] + kWeights[i]) << "element " << i;

  // The step array must match the plan; buffers are checked as in run().
  double one = 0;
  const void *in[] = {a.data(), b.data()};
  size_t inSizes[] = {32, 32};
  void *out[] = {c.data()};
  size_t outSizes[] = {32};
  EXPECT_EQ(dlc_context_profile(ctx->handle(), in, inSizes, 2, out, outSizes, 1,
                                &one, 1),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(),
                  "step_ms has 1 entries, the plan has 3 steps");
  std::vector<double> three(3);
  size_t small[] = {16, 32};
  EXPECT_EQ(dlc_context_profile(ctx->handle(), in, small, 2, out, outSizes, 1,
                                three.data(), 3),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "input 'a'");
}

TEST(Runtime, WrongInputsNameTheTensor) {
  auto model = dlc::Model::load(FAKE_ADD_SO);
  ASSERT_TRUE(model);
  auto ctx = model->createContext();
  ASSERT_TRUE(ctx);
  std::vector<float> a(8), b(8), c(8), small(4);

  dlc::Status s = ctx->run({a}, {c});
  EXPECT_EQ(s.code(), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(s.message(), "expected 2 inputs ('a', 'b'), got 1");

  s = ctx->run({a, small}, {c});
  EXPECT_EQ(s.code(), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(s.message(), "input 'b'");
  EXPECT_CONTAINS(s.message(), "expected 32 bytes (float32[2,4]), got 16");

  s = ctx->run({a, b}, {small});
  EXPECT_CONTAINS(s.message(), "output 'out/c:0'");

  s = ctx->run({a, dlc::ConstBuffer(nullptr, 32)}, {c});
  EXPECT_CONTAINS(s.message(), "input 'b' (#1): null buffer");

  s = ctx->run({a, b}, {});
  EXPECT_CONTAINS(s.message(), "expected 1 outputs");

  int64_t shape[] = {2, 3};
  EXPECT_EQ(
      dlc_model_check_input(model->handle(), 1, DLC_DTYPE_FLOAT32, 2, shape),
      DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(),
                  "input 'b': expected float32[2,4], got float32[2,3]");
  int64_t good[] = {2, 4};
  EXPECT_EQ(dlc_model_check_input(model->handle(), 0, DLC_DTYPE_INT64, 2, good),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "got int64[2,4]");
  EXPECT_EQ(
      dlc_model_check_input(model->handle(), 0, DLC_DTYPE_FLOAT32, 2, good),
      DLC_OK);
}

TEST(Runtime, NullArgumentsAreErrors) {
  EXPECT_EQ(dlc_model_load(FAKE_ADD_SO, DLC_DEVICE_AUTO, 0, nullptr),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(dlc_context_create(nullptr, nullptr), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(dlc_context_run(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(dlc_model_free(nullptr), DLC_OK);
  EXPECT_EQ(dlc_context_free(nullptr), DLC_OK);
  int32_t count = 0;
  EXPECT_EQ(dlc_context_overlapped_launches(nullptr, &count),
            DLC_ERROR_INVALID_ARGUMENT);
  dlc_model_t model = nullptr;
  EXPECT_EQ(dlc_model_load(FAKE_ADD_SO, dlc_device(7), 0, &model),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "unknown device 7");
}

TEST(Runtime, LastErrorSurvivesSuccessfulCalls) {
  dlc_model_t model = nullptr;
  ASSERT_NE(dlc_model_load("/nonexistent/model.so", DLC_DEVICE_AUTO, 0, &model),
            DLC_OK);
  std::string message = dlc_last_error();
  EXPECT_EQ(dlc_model_free(model), DLC_OK);
  EXPECT_EQ(message, dlc_last_error());
}

TEST(Runtime, LastErrorIsPerThread) {
  ASSERT_NE(dlc_model_load("/nonexistent/a.so", DLC_DEVICE_AUTO, 0, nullptr),
            DLC_OK);
  std::string other;
  std::thread([&] { other = dlc_last_error(); }).join();
  EXPECT_EQ(other, "");
}

TEST(Loader, MissingFile) {
  std::string msg = loadError("/nonexistent/model.so", DLC_ERROR_NOT_FOUND);
  EXPECT_CONTAINS(msg, "cannot open model '/nonexistent/model.so'");
  EXPECT_CONTAINS(msg, "No such file");
}

TEST(Loader, NotASharedLibrary) {
  std::string path = dlc_test::tempPath("not_a_model.so");
  FILE *f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("hello", f);
  std::fclose(f);
  std::string msg = loadError(path.c_str(), DLC_ERROR_INVALID_MODEL);
  EXPECT_CONTAINS(msg, "as a shared library");
  loadError(::testing::TempDir().c_str(), DLC_ERROR_NOT_FOUND);
}

TEST(Loader, MissingQuerySymbol) {
  std::string msg = loadError(FAKE_NO_SYMBOL_SO, DLC_ERROR_INVALID_MODEL);
  EXPECT_CONTAINS(msg, "is not a dlc model");
  EXPECT_CONTAINS(msg, "dlc_model_query");
}

TEST(Loader, AbiMismatch) {
  std::string msg = loadError(FAKE_BAD_ABI_SO, DLC_ERROR_ABI_MISMATCH);
  EXPECT_CONTAINS(msg, "model ABI version 999");
  EXPECT_CONTAINS(msg, "runtime loads version 5");
}

TEST(Loader, BadFlags) {
  EXPECT_CONTAINS(loadError(FAKE_BAD_FLAGS_SO, DLC_ERROR_INVALID_MODEL),
                  "unknown model flags 6 (this runtime knows 1)");
  EXPECT_CONTAINS(loadError(FAKE_CPU_WAITS_SO, DLC_ERROR_INVALID_MODEL),
                  "kernels that wait for grid dependencies are CUDA only "
                  "(griddepcontrol), but this cpu model says so");
}

TEST(Loader, OutOfRangePlans) {
  EXPECT_CONTAINS(loadError(FAKE_BAD_ARENA_SO, DLC_ERROR_INVALID_MODEL),
                  "step 1 (kernel 'add_f32'), arg 2: arena range [64, 96) "
                  "exceeds its size 80");
  EXPECT_CONTAINS(loadError(FAKE_BAD_KERNEL_SO, DLC_ERROR_INVALID_MODEL),
                  "step 1: kernel index 5 out of range (2 kernels)");
  EXPECT_CONTAINS(loadError(FAKE_BAD_WEIGHT_SO, DLC_ERROR_INVALID_MODEL),
                  "weights range [16, 48) exceeds its size 32");
  EXPECT_CONTAINS(loadError(FAKE_BAD_INPUT_SO, DLC_ERROR_INVALID_MODEL),
                  "step 0 (kernel 'add_f32'), arg 1: input index 2 out of "
                  "range (2)");
  EXPECT_CONTAINS(loadError(FAKE_BAD_STATUS_SO, DLC_ERROR_INVALID_MODEL),
                  "step 0 (kernel 'add_checked'), arg 3: uses the status word "
                  "but the model has no checks");
}

// Tensor maps are checked against what cuTensorMapEncodeTiled accepts and
// against their buffer before any driver is loaded.
TEST(Loader, BadTensorMaps) {
  EXPECT_CONTAINS(loadError(FAKE_BAD_CPU_TMA_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor maps are CUDA only (TMA), but this cpu model has 1");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_RANK_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #0: rank 0 is not in 1..5");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_BOX_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #0: box[1] = 300 is not in 1..256");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_BOX_DIMS_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #0: box[1] = 5 exceeds dims[1] = 4");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_STRIDE_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #1: strides[1] = 56 is not a multiple of 16");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_SWIZZLE_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #1: box[0] * element size = 64 bytes exceeds "
                  "the swizzle span of 32 bytes");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_EXTENT_SO, DLC_ERROR_INVALID_MODEL),
                  "tensor map #1: dims and strides span 256 bytes, past the "
                  "192 bytes of its tensor");
  EXPECT_CONTAINS(
      loadError(FAKE_TMA_BAD_MAP_OFFSET_SO, DLC_ERROR_INVALID_MODEL),
      "tensor map #1: tensor offset 56 is not 16-byte aligned");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_MAP_INDEX_SO, DLC_ERROR_INVALID_MODEL),
                  "step 1 (kernel 'tma_box_2d'), arg 0: tensor map index 2 "
                  "out of range (2 tensor maps)");
  EXPECT_CONTAINS(loadError(FAKE_TMA_BAD_MAP_COPY_SO, DLC_ERROR_INVALID_MODEL),
                  "step 2, source: a tensor map can only be a kernel "
                  "argument");
}

// Im2col maps are checked against what cuTensorMapEncodeIm2col accepts;
// the box checks do not apply to them.
TEST(Loader, BadIm2colTensorMaps) {
  struct Case {
    const char *path, *message;
  } cases[] = {
      {FAKE_IM2COL_BAD_MODE_SO,
       "tensor map #0: mode 2 is not 0 (tiled) or 1 (im2col)"},
      {FAKE_IM2COL_BAD_RANK_SO,
       "tensor map #0: rank 2 is not in 3..5 (im2col)"},
      {FAKE_IM2COL_BAD_CORNER_SO,
       "tensor map #0: lower_corner[1] = -129 is not in -128..127 (im2col, "
       "rank 4)"},
      {FAKE_IM2COL_BAD_BBOX_SO,
       "tensor map #0: im2col bounding box is empty in dims[2]: dims[2] + "
       "upper_corner[1] - lower_corner[1] = 5 + -4 - 1 = 0"},
      {FAKE_IM2COL_BAD_CHANNELS0_SO,
       "tensor map #0: channels_per_pixel = 0 is not in 1..256"},
      {FAKE_IM2COL_BAD_CHANNELS257_SO,
       "tensor map #0: channels_per_pixel = 257 is not in 1..256"},
      {FAKE_IM2COL_BAD_CHANNELS_SWIZZLE_SO,
       "tensor map #0: channels_per_pixel * element size = 128 bytes exceeds "
       "the swizzle span of 64 bytes"},
      {FAKE_IM2COL_BAD_CHANNELS_ALIGN_SO,
       "tensor map #0: channels_per_pixel * element size = 8 bytes is not a "
       "multiple of 16"},
      {FAKE_IM2COL_BAD_PIXELS_SO,
       "tensor map #0: pixels_per_column = 1025 is not in 1..1024"},
      {FAKE_IM2COL_BAD_ESTRIDE0_SO,
       "tensor map #0: element_strides[2] = 0 is not in 1..8"},
      {FAKE_IM2COL_BAD_ESTRIDE9_SO,
       "tensor map #0: element_strides[1] = 9 is not in 1..8"},
  };
  for (const Case &c : cases)
    EXPECT_CONTAINS(loadError(c.path, DLC_ERROR_INVALID_MODEL), c.message)
        << c.path;
}

TEST(Runtime, HostContextsHaveNoDeviceBuffers) {
  auto model = dlc::Model::load(FAKE_ADD_SO, dlc::Device::Cpu);
  ASSERT_TRUE(model);
  auto ctx = model->createContext();
  ASSERT_TRUE(ctx);
  dlc::Status s = ctx->runResident();
  EXPECT_EQ(s.code(), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(s.message(), "host contexts have no device buffers");
  auto buffer = ctx->deviceBuffer(false, 0);
  EXPECT_FALSE(buffer);
  EXPECT_CONTAINS(buffer.status().message(), "dlc_context_run");
  EXPECT_EQ(dlc_context_run_resident(nullptr), DLC_ERROR_INVALID_ARGUMENT);
}

// A failed run-time check is the run's error, names the check, and leaves
// the context usable: the next good run succeeds.
TEST(Runtime, FailedCheckIsTheRunsError) {
  auto model = dlc::Model::load(FAKE_CHECKED_SO, dlc::Device::Cpu);
  ASSERT_TRUE(model) << model.status().toString();
  auto ctx = model->createContext();
  ASSERT_TRUE(ctx) << ctx.status().toString();
  std::vector<float> a(8, 1), b(8, 2), c(8);
  ASSERT_TRUE(ctx->run({a, b}, {c}));
  EXPECT_EQ(c[3], 1 + 2 + kWeights[3]);
  a[5] = -1;
  dlc::Status s = ctx->run({a, b}, {c});
  EXPECT_EQ(s.code(), DLC_ERROR_CHECK_FAILED);
  EXPECT_EQ(s.message(), "Gather node 'gather_0': index out of range (axis 0 "
                         "has 8 entries)");
  EXPECT_STREQ(dlc_status_name(DLC_ERROR_CHECK_FAILED),
               "DLC_ERROR_CHECK_FAILED");
  a[5] = 1;
  EXPECT_TRUE(ctx->run({a, b}, {c}));
}

TEST(Loader, TargetMismatch) {
  std::string msg =
      loadError(FAKE_ADD_SO, DLC_ERROR_TARGET_MISMATCH, DLC_DEVICE_CUDA);
  EXPECT_CONTAINS(msg, "compiled for target cpu (x86-64) but device "
                       "cuda was requested");
  msg = loadError(FAKE_CUDA_SO, DLC_ERROR_TARGET_MISMATCH, DLC_DEVICE_CPU);
  EXPECT_CONTAINS(msg, "compiled for target cuda (sm_90)");
}

// Without a GPU (CI) loading must fail with a clear message; with one the
// hand-written PTX kernel must run.
TEST(Cuda, LoadsOrFailsCleanly) {
  dlc_model_t model = nullptr;
  dlc_status s = dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_AUTO, 0, &model);
  if (s != DLC_OK) {
    EXPECT_EQ(s, DLC_ERROR_DEVICE_UNAVAILABLE) << dlc_last_error();
    EXPECT_CONTAINS(dlc_last_error(), "CUDA requested but");
    // The failure is remembered, not retried into a crash.
    EXPECT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 0, &model), s);
    GTEST_SKIP() << "no usable GPU: " << dlc_last_error();
  }
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK) << dlc_last_error();
  float a[8], b[8], c[8];
  for (int round = 0; round < 3; ++round) { // capture, then graph replays
    for (int i = 0; i < 8; ++i) {
      a[i] = float(i + round);
      b[i] = 0.5f * float(i);
    }
    const void *in[] = {a, b};
    size_t inSizes[] = {32, 32};
    void *out[] = {c};
    size_t outSizes[] = {32};
    ASSERT_EQ(dlc_context_run(ctx, in, inSizes, 2, out, outSizes, 1), DLC_OK)
        << dlc_last_error();
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(c[i], a[i] + b[i]);
  }
  uint64_t bytes = 0;
  EXPECT_EQ(dlc_context_device_memory_bytes(ctx, &bytes), DLC_OK);
  EXPECT_GE(bytes, 96u);
  int32_t overlapped = -1;
  EXPECT_EQ(dlc_context_overlapped_launches(ctx, &overlapped), DLC_OK);
  EXPECT_EQ(overlapped, 0);
  dlc_context_free(ctx);
  dlc_model_free(model);
  int32_t n = 0;
  EXPECT_EQ(dlc_model_load(FAKE_CUDA_SO, DLC_DEVICE_CUDA, 99, &model),
            DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(dlc_last_error(), "ordinal 99 out of range");
  (void)n;
}

TEST(Runtime, EveryBlockRunsOnce) {
  auto model = dlc::Model::load(FAKE_BLOCKS_SO);
  ASSERT_TRUE(model) << model.status().toString();
  auto ctx = model->createContext();
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->deviceMemoryBytes(), 0u);
  for (int round = 0; round < 20; ++round) {
    std::vector<int32_t> hits(1000, 0);
    ASSERT_TRUE(ctx->run({}, {hits}));
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(hits[i], 1) << "block " << i << " in round " << round;
  }
}

TEST(Runtime, ContextsOnManyThreads) {
  auto model = dlc::Model::load(FAKE_ADD_SO);
  ASSERT_TRUE(model);
  constexpr int kThreads = 8, kRuns = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto ctx = model->createContext();
      if (!ctx) {
        ++failures;
        return;
      }
      std::vector<float> a(8), b(8), c(8);
      for (int r = 0; r < kRuns; ++r) {
        for (int i = 0; i < 8; ++i) {
          a[i] = float(t * 1000 + r);
          b[i] = float(i);
        }
        if (!ctx->run({a, b}, {c})) {
          ++failures;
          return;
        }
        for (int i = 0; i < 8; ++i)
          if (c[i] != a[i] + b[i] + kWeights[i])
            ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Runtime, ContextOutlivesModel) {
  dlc_model_t model = nullptr;
  ASSERT_EQ(dlc_model_load(FAKE_ADD_SO, DLC_DEVICE_CPU, 0, &model), DLC_OK);
  dlc_context_t ctx = nullptr;
  ASSERT_EQ(dlc_context_create(model, &ctx), DLC_OK);
  ASSERT_EQ(dlc_model_free(model), DLC_OK);
  float a[8] = {1}, b[8] = {2}, c[8];
  const void *in[] = {a, b};
  size_t sizes[] = {32, 32, 32};
  void *out[] = {c};
  ASSERT_EQ(dlc_context_run(ctx, in, sizes, 2, out, sizes, 1), DLC_OK)
      << dlc_last_error();
  EXPECT_EQ(c[0], 103);
  EXPECT_EQ(dlc_context_free(ctx), DLC_OK);
}

TEST(Runtime, Versions) {
  EXPECT_EQ(dlc_runtime_abi_version(), DLC_MODEL_ABI_VERSION);
  EXPECT_STRNE(dlc_runtime_version(), "");
  EXPECT_STREQ(dlc_dtype_name(DLC_DTYPE_BFLOAT16), "bfloat16");
  EXPECT_STREQ(dlc_dtype_name(DLC_DTYPE_FLOAT8E5M2FNUZ), "float8e5m2fnuz");
  EXPECT_EQ(dlc_dtype_size(DLC_DTYPE_FLOAT8E4M3FN), 1u);
  EXPECT_EQ(dlc_dtype_size(DLC_DTYPE_INT4), 0u);
  EXPECT_EQ(dlc_dtype_bits(DLC_DTYPE_INT4), 4u);
  EXPECT_EQ(dlc_dtype_bits(DLC_DTYPE_UINT2), 2u);
  EXPECT_EQ(dlc_dtype_bits(DLC_DTYPE_INT64), 64u);
  EXPECT_STREQ(dlc_dtype_name(DLC_DTYPE_INT2), "int2");
  EXPECT_EQ(dlc_dtype_bits(DLC_DTYPE_FLOAT4E2M1), 4u);
  EXPECT_EQ(dlc_dtype_size(DLC_DTYPE_FLOAT8E8M0), 1u);
  EXPECT_EQ(dlc_dtype_size(DLC_DTYPE_INT64), 8u);
  EXPECT_EQ(dlc_dtype_size(42), 0u);
  EXPECT_STREQ(dlc_status_name(DLC_ERROR_ABI_MISMATCH),
               "DLC_ERROR_ABI_MISMATCH");
}

} // namespace
