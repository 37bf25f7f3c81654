//===- thread_pool.cpp - Persistent workers for host kernels --------------===//

#include "thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace dlc {

namespace {
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}
} // namespace

struct ThreadPool::Job {
  ChunkFn fn;
  void *arg;
  int64_t total;
  int64_t chunk;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  /// Workers currently holding a pointer to this job; changed under the
  /// mutex, read without it by the owner spinning for its last chunks.
  std::atomic<int> users{0};
};

ThreadPool::ThreadPool(int numThreads, int64_t spinMicros)
    : spinUs(std::max<int64_t>(0, spinMicros)) {
  numThreads = std::max(1, numThreads);
  workers.reserve(numThreads - 1);
  for (int i = 1; i < numThreads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  workAvailable.notify_all();
  for (std::thread &t : workers)
    t.join();
}

template <typename Pred> bool ThreadPool::spinUntil(Pred ready) const {
  if (ready())
    return true;
  if (spinUs == 0)
    return false;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(spinUs);
  for (;;) {
    // Reading the clock costs ~20 ns; a pause ~40 cycles or more.
    for (int i = 0; i < 64; ++i) {
      cpuRelax();
      if (ready())
        return true;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
  }
}

void ThreadPool::drain(Job &job) {
  for (;;) {
    int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.total)
      return;
    int64_t end = std::min(job.total, begin + job.chunk);
    job.fn(job.arg, begin, end);
    job.done.fetch_add(end - begin, std::memory_order_acq_rel);
  }
}

void ThreadPool::run(int64_t n, ChunkFn fn, void *arg) {
  if (n <= 0)
    return;
  // A single block, or no workers: queueing would only add latency.
  if (n == 1 || workers.empty()) {
    fn(arg, 0, n);
    return;
  }
  Job job;
  job.fn = fn;
  job.arg = arg;
  job.total = n;
  // About four chunks per thread balances uneven blocks without making the
  // shared counter hot.
  int64_t chunks = std::min<int64_t>(n, int64_t(numThreads()) * 4);
  job.chunk = (n + chunks - 1) / chunks;
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(&job);
    queued.store(queue.size(), std::memory_order_release);
  }
  // Cheap when every worker is spinning: glibc skips the futex call when
  // nobody waits.
  workAvailable.notify_all();
  drain(job);

  {
    std::lock_guard<std::mutex> lock(mutex);
    // Nobody may pick the job up once this frame is gone.
    auto it = std::find(queue.begin(), queue.end(), &job);
    if (it != queue.end())
      queue.erase(it);
    queued.store(queue.size(), std::memory_order_release);
  }
  // From here on no worker starts on the job; wait for those that did.
  auto finished = [&] {
    return job.users.load(std::memory_order_acquire) == 0 &&
           job.done.load(std::memory_order_acquire) == job.total;
  };
  if (spinUntil(finished))
    return;
  std::unique_lock<std::mutex> lock(mutex);
  jobFinished.wait(lock, finished);
}

void ThreadPool::workerLoop() {
  for (;;) {
    spinUntil([&] {
      return queued.load(std::memory_order_acquire) != 0 ||
             stopping.load(std::memory_order_relaxed);
    });
    std::unique_lock<std::mutex> lock(mutex);
    workAvailable.wait(lock, [&] { return stopping || !queue.empty(); });
    if (stopping)
      return;
    Job *job = queue.front();
    if (job->next.load(std::memory_order_relaxed) >= job->total) {
      // Fully claimed; its owner waits for the last chunks to finish.
      queue.pop_front();
      queued.store(queue.size(), std::memory_order_release);
      continue;
    }
    job->users.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    drain(*job);
    lock.lock();
    // The owner may return (and free the job) once this reaches 0.
    if (job->users.fetch_sub(1, std::memory_order_acq_rel) == 1)
      jobFinished.notify_all();
  }
}

namespace {
/// A non-negative integer from the environment, or -1.
long envCount(const char *name) {
  if (const char *env = std::getenv(name)) {
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 0)
      return v;
  }
  return -1;
}
} // namespace

int ThreadPool::defaultNumThreads() {
  long v = envCount("DLC_NUM_THREADS");
  if (v > 0)
    return static_cast<int>(std::min(v, 1024L));
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

int64_t ThreadPool::defaultSpinMicros() {
  long v = envCount("DLC_THREAD_SPIN_US");
  return v >= 0 ? std::min(v, 1000000L) : 1000;
}

ThreadPool &ThreadPool::global() {
  static ThreadPool pool(defaultNumThreads(), defaultSpinMicros());
  return pool;
}

} // namespace dlc
