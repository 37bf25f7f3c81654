//===- tools_test.cpp - dlc-run and dlc-bench end to end ------------------===//

#include "tensor_io.h"
#include "test_util.h"

#include "dlc_runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

struct Result {
  int exitCode;
  std::string out, err;
};

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result run(const std::string &command) {
  std::string out = dlc_test::tempPath("tool.out");
  std::string err = dlc_test::tempPath("tool.err");
  int status = std::system((command + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

std::string writeInput(const std::string &name, std::vector<int64_t> shape,
                       const std::vector<float> &values) {
  dlc::io::Tensor t;
  t.dtype = DLC_DTYPE_FLOAT32;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  std::string path = dlc_test::tempPath("") + name;
  std::string error;
  EXPECT_TRUE(dlc::io::writeNpy(path, t, &error)) << error;
  return path;
}

/// A TensorProto .pb with float_data, written by hand.
std::string writePb(const std::string &name, const std::vector<float> &values) {
  std::vector<uint8_t> pb = {0x08, 2, 0x08, 4,
                             0x10, 1, 0x22, uint8_t(values.size() * 4)};
  const uint8_t *p = reinterpret_cast<const uint8_t *>(values.data());
  pb.insert(pb.end(), p, p + values.size() * 4);
  std::string path = dlc_test::tempPath("") + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(pb.data()), pb.size());
  return path;
}

const std::string kRun = DLC_RUN_EXE;
const std::string kModel = FAKE_ADD_SO;

TEST(DlcRun, WritesOutputs) {
  std::string a = writeInput("a.npy", {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  std::string b = writePb("b.pb", {1, 1, 1, 1, 1, 1, 1, 1});
  std::string dir = dlc_test::tempPath("dlc-run-out");
  Result r = run(kRun + " " + kModel + " --input b=" + b + " " + a +
                 " --output-dir " + dir + " --print");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.out, "out/c:0: float32[2,4] [101, 202, 303");

  dlc::io::Tensor c;
  std::string error;
  ASSERT_TRUE(dlc::io::readNpy(dir + "/out_c_0.npy", &c, &error)) << error;
  EXPECT_EQ(c.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(dlc::io::elementAsDouble(c, 7), 7 + 1 + 800);
}

TEST(DlcRun, ErrorsNameTheInput) {
  std::string a = writeInput("a.npy", {2, 4}, std::vector<float>(8));
  std::string bad = writeInput("bad.npy", {4, 2}, std::vector<float>(8));
  Result r = run(kRun + " " + kModel + " --input a=" + a + " --input b=" + bad);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "input 'b': expected float32[2,4], got float32[4,2]");

  r = run(kRun + " " + kModel + " " + a);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "missing input 'b' (float32[2,4])");

  r = run(kRun + " " + kModel + " " + a + " " + a + " " + a);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "too many inputs");

  r = run(kRun + " " + kModel + " --input x=" + a + " " + a);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "no input named 'x'");

  r = run(kRun + " " + kModel + " --input a=/nonexistent.npy " + a);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "input 'a': cannot open '/nonexistent.npy'");

  r = run(kRun + " /nonexistent/model.so");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "cannot open model");

  r = run(kRun + " " + kModel + " --device cuda " + a + " " + a);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "compiled for target cpu");
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

TEST(DlcBench, Json) {
  Result r = run(std::string(DLC_BENCH_EXE) + " " + kModel +
                 " --warmup 2 --iters 7 --threads 2 --json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char *key :
       {"\"iters\": 7", "\"p50\":", "\"p90\":", "\"p99\":", "\"mean\":",
        "\"min\":", "\"batch\": 2", "\"throughput_per_s\":", "\"threads\": 2"})
    EXPECT_CONTAINS(r.out, key);
  EXPECT_EQ(r.out.front(), '{');

  r = run(std::string(DLC_BENCH_EXE) + " " + kModel + " --min-time 0.05");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.out, "latency ms:");
  EXPECT_CONTAINS(r.out, "inferences/s");

  r = run(std::string(DLC_BENCH_EXE) + " " + kModel + " --iters 0");
  EXPECT_EQ(r.exitCode, 1);

  r = run(std::string(DLC_BENCH_EXE) + " " + kModel + " --resident");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "--resident needs a CUDA model");
}

TEST(DlcBench, Steps) {
  // The fake model's plan: two add_f32 launches and a copy; the two
  // longest of its steps, named, in the text and the JSON.
  Result r =
      run(std::string(DLC_BENCH_EXE) + " " + kModel + " --iters 2 --steps 2");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.out, "ms step by step; the longest:");
  EXPECT_EQ(countOf(r.out, "  step "), 2u) << r.out;
  r = run(std::string(DLC_BENCH_EXE) + " " + kModel +
          " --iters 2 --steps 5 --json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.out, "\"steps_total_ms\":");
  EXPECT_CONTAINS(r.out, "\"name\": \"add_f32\"");
  EXPECT_CONTAINS(r.out, "\"name\": \"copy\"");
  EXPECT_EQ(countOf(r.out, "\"step\":"), 3u) << r.out;

  r = run(std::string(DLC_BENCH_EXE) + " " + kModel + " --steps 0");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_CONTAINS(r.err, "--steps needs a positive integer");
}

} // namespace
