//===- thread_pool_test.cpp - The host thread pool ------------------------===//

#include "thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

/// parallelFor over [0, n) hits every index exactly once with valid ranges.
void expectCoversOnce(dlc::ThreadPool &pool, int64_t n) {
  std::unique_ptr<std::atomic<int>[]> hits(new std::atomic<int>[n + 1]);
  for (int64_t i = 0; i <= n; ++i)
    hits[i] = 0;
  std::atomic<bool> badRange{false};
  pool.parallelFor(n, [&](int64_t begin, int64_t end) {
    if (begin < 0 || end > n || begin >= end)
      badRange = true;
    for (int64_t i = begin; i < end; ++i)
      ++hits[i];
  });
  EXPECT_FALSE(badRange) << "n = " << n;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
}

TEST(ThreadPool, CoversEveryBlockOnce) {
  for (int64_t spin : {0, 1000})
    for (int threads : {1, 2, 3, 8}) {
      dlc::ThreadPool pool(threads, spin);
      EXPECT_EQ(pool.numThreads(), threads);
      for (int64_t n = 0; n <= 130; ++n)
        expectCoversOnce(pool, n);
      for (int64_t n : {1000, 4097, 100003})
        expectCoversOnce(pool, n);
    }
}

TEST(ThreadPool, ZeroBlocksCallsNothing) {
  dlc::ThreadPool pool(4);
  int calls = 0;
  pool.parallelFor(0, [&](int64_t, int64_t) { ++calls; });
  pool.parallelFor(-3, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

/// How many threads ran the blocks of one parallelFor whose blocks wait for
/// each other (they can only finish together if they run in parallel).
size_t threadsUsed(dlc::ThreadPool &pool) {
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool.parallelFor(4 * 4, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
    }
    ++arrived;
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (arrived < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  });
  return ids.size();
}

TEST(ThreadPool, UsesSeveralThreads) {
  dlc::ThreadPool pool(4);
  EXPECT_GE(threadsUsed(pool), 2u);
}

// Workers idle past their spin block on the condition variable; the next
// job must still wake them (and the spinning ones must see it too).
TEST(ThreadPool, WakesWorkersAfterTheirSpin) {
  for (int64_t spin : {0, 50, 1000}) {
    dlc::ThreadPool pool(2, spin);
    EXPECT_EQ(pool.spinMicros(), spin);
    for (int round = 0; round < 10; ++round) {
      std::this_thread::sleep_for(std::chrono::milliseconds(round % 2 ? 3 : 0));
      EXPECT_GE(threadsUsed(pool), 2u) << "spin " << spin << ", round " << round;
    }
  }
}

TEST(ThreadPool, ConcurrentCallers) {
  dlc::ThreadPool pool(4);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        int64_t n = 1 + (t * 37 + round * 11) % 300;
        std::vector<std::atomic<int>> hits(n);
        pool.parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            ++hits[i];
        });
        for (int64_t i = 0; i < n; ++i)
          if (hits[i] != 1)
            ++failures;
      }
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, DefaultThreadsFromEnvironment) {
  setenv("DLC_NUM_THREADS", "3", 1);
  EXPECT_EQ(dlc::ThreadPool::defaultNumThreads(), 3);
  setenv("DLC_NUM_THREADS", "zero", 1);
  EXPECT_GE(dlc::ThreadPool::defaultNumThreads(), 1);
  unsetenv("DLC_NUM_THREADS");
  EXPECT_GE(dlc::ThreadPool::defaultNumThreads(), 1);
}

TEST(ThreadPool, DefaultSpinFromEnvironment) {
  setenv("DLC_THREAD_SPIN_US", "0", 1);
  EXPECT_EQ(dlc::ThreadPool::defaultSpinMicros(), 0);
  setenv("DLC_THREAD_SPIN_US", "250", 1);
  EXPECT_EQ(dlc::ThreadPool::defaultSpinMicros(), 250);
  setenv("DLC_THREAD_SPIN_US", "-5", 1);
  EXPECT_EQ(dlc::ThreadPool::defaultSpinMicros(), 1000);
  setenv("DLC_THREAD_SPIN_US", "1ms", 1);
  EXPECT_EQ(dlc::ThreadPool::defaultSpinMicros(), 1000);
  unsetenv("DLC_THREAD_SPIN_US");
  EXPECT_EQ(dlc::ThreadPool::defaultSpinMicros(), 1000);
}

} // namespace
