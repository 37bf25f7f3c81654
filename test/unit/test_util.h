//===- test_util.h - Helpers shared by the runtime unit tests ----*- C++
//-*-===//
#ifndef DLC_TEST_UNIT_TEST_UTIL_H
#define DLC_TEST_UNIT_TEST_UTIL_H

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace dlc_test {

/// Predicate-formatter: `haystack` contains `needle` (gmock-free HasSubstr).
inline ::testing::AssertionResult contains(const char *hayExpr,
                                           const char *needleExpr,
                                           const std::string &haystack,
                                           const std::string &needle) {
  if (haystack.find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << hayExpr << " does not contain " << needleExpr << "\n  actual: \""
         << haystack << "\"\n  wanted: \"" << needle << "\"";
}

/// A directory for this process's scratch files, removed at exit.
inline const std::string &scratchDir() {
  struct Dir {
    std::string path =
        ::testing::TempDir() + "/dlc-unit-" + std::to_string(getpid());
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static Dir dir;
  return dir.path;
}

/// A path for a scratch file, unique to this process and test so that tests
/// running in parallel (ctest -j) never share files.
inline std::string tempPath(const std::string &name) {
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test =
      info ? std::string(info->test_suite_name()) + "." + info->name()
           : "global";
  return scratchDir() + "/" + test + "-" + name;
}

} // namespace dlc_test

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_PRED_FORMAT2(::dlc_test::contains, haystack, needle)

#endif // DLC_TEST_UNIT_TEST_UTIL_H
