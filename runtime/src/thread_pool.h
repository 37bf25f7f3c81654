//===- thread_pool.h - Persistent workers for host kernels -------*- C++
//-*-===//
//
// Host kernels take a range of blocks; parallelFor splits [0, n) into chunks
// and runs them on persistent workers plus the calling thread. Several
// threads may call parallelFor on one pool at once (one per Context): jobs
// queue up, workers help whichever job is at the front, and every caller
// works on its own job, so a caller never waits on a queue it cannot drain.
//
// A model runs its kernels back to back, most of them 0.02-0.5 ms, so the
// pool spins before it sleeps: an idle worker polls for the next job, and a
// caller polls for its last chunks, for up to spinMicros() each. Waking a
// sleeping thread took ~50 us on a 2-core VM, as long as a small kernel: a
// kernel split over 2 threads ran no faster than on one.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_THREAD_POOL_H
#define DLC_RUNTIME_THREAD_POOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace dlc {

class ThreadPool {
public:
  /// A pool of `numThreads` threads in all: the caller of parallelFor counts
  /// as one, so numThreads - 1 workers are started. numThreads < 1 means 1.
  /// Idle threads spin `spinMicros` before they block (0: block at once).
  explicit ThreadPool(int numThreads, int64_t spinMicros = defaultSpinMicros());
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int numThreads() const { return static_cast<int>(workers.size()) + 1; }
  int64_t spinMicros() const { return spinUs; }

  /// Calls fn(begin, end) on disjoint sub-ranges covering [0, n) exactly once
  /// and returns when all calls have returned. fn must not throw.
  template <typename Fn> void parallelFor(int64_t n, Fn &&fn) {
    run(
        n, [](void *f, int64_t b, int64_t e) { (*static_cast<Fn *>(f))(b, e); },
        static_cast<void *>(&fn));
  }

  /// The process-wide pool used by all host models: DLC_NUM_THREADS threads
  /// if that is set to a positive number, else the hardware concurrency.
  static ThreadPool &global();

  /// The thread count global() uses, from the environment.
  static int defaultNumThreads();

  /// How long idle threads spin before blocking: DLC_THREAD_SPIN_US if that
  /// is set to a number >= 0, else 1000 (1 ms).
  static int64_t defaultSpinMicros();

private:
  using ChunkFn = void (*)(void *, int64_t, int64_t);
  struct Job;

  void run(int64_t n, ChunkFn fn, void *arg);
  void workerLoop();
  /// Claims and runs chunks of `job` until none are left.
  static void drain(Job &job);
  /// Polls `ready` for up to spinUs; true once it holds.
  template <typename Pred> bool spinUntil(Pred ready) const;

  std::vector<std::thread> workers;
  int64_t spinUs;
  std::mutex mutex;
  std::condition_variable workAvailable;
  std::condition_variable jobFinished;
  std::deque<Job *> queue;
  /// queue.size(), written under the mutex, read by spinning workers.
  std::atomic<size_t> queued{0};
  std::atomic<bool> stopping{false};
};

} // namespace dlc

#endif // DLC_RUNTIME_THREAD_POOL_H
