//===- thread_pool.cpp - Persistent workers for host kernels --------------===//

#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace dlc {

struct ThreadPool::Job {
  ChunkFn fn;
  void *arg;
  int64_t total;
  int64_t chunk;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  /// Workers currently holding a pointer to this job; guarded by the mutex.
  int users = 0;
};

ThreadPool::ThreadPool(int numThreads) {
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
  }
  workAvailable.notify_all();
  drain(job);

  std::unique_lock<std::mutex> lock(mutex);
  // Nobody may pick the job up once this frame is gone.
  auto it = std::find(queue.begin(), queue.end(), &job);
  if (it != queue.end())
    queue.erase(it);
  jobFinished.wait(lock, [&] {
    return job.users == 0 &&
           job.done.load(std::memory_order_acquire) == job.total;
  });
}

void ThreadPool::workerLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    workAvailable.wait(lock, [&] { return stopping || !queue.empty(); });
    if (stopping)
      return;
    Job *job = queue.front();
    if (job->next.load(std::memory_order_relaxed) >= job->total) {
      // Fully claimed; its owner waits for the last chunks to finish.
      queue.pop_front();
      continue;
    }
    ++job->users;
    lock.unlock();
    drain(*job);
    lock.lock();
    if (--job->users == 0)
      jobFinished.notify_all();
  }
}

int ThreadPool::defaultNumThreads() {
  if (const char *env = std::getenv("DLC_NUM_THREADS")) {
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0)
      return static_cast<int>(std::min(v, 1024L));
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

ThreadPool &ThreadPool::global() {
  static ThreadPool pool(defaultNumThreads());
  return pool;
}

} // namespace dlc
