#pragma once
// The kernels' thread pool. A parallel loop's iterations are dealt out in chunks from a shared
// counter (the caller takes chunks too), so threads that wake late or run slower take fewer and
// none waits idle for a fixed share. Workers spin a short while after a loop before sleeping: the
// kernels of a module come one after another, and a futex wake-up per worker (tens of microseconds
// on a 16-core host) is a large part of a sub-millisecond kernel. Exposed to kernels through
// TvmsKernelEnv.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/kernel_abi.h"

namespace tvms::runtime {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads = 0);  // 0: usableCores() (affinity, cgroup quota, TVMS_NUM_THREADS)
  ~ThreadPool();
  // The process's pool, made on first use: every CPU device runs its kernels on it.
  static ThreadPool& shared();
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Runs body(closure, begin, end) over disjoint ranges covering [0, n) and returns when all are
  // done. Callers on several threads take turns (one loop at a time).
  void parallelFor(int64_t n, TvmsParallelBody body, void* closure);
  const TvmsKernelEnv* env() const { return &env_; }

 private:
  // state_: the loop's generation in bits 33..63, bit 32 set once the loop is closed to newcomers,
  // and in bits 0..31 the workers inside it. A worker enters only an open loop of a generation it has
  // not run, and the loop's fields stay as they are until it is closed and every worker has left.
  static constexpr uint64_t kClosed = uint64_t(1) << 32, kInside = kClosed - 1, kGeneration = uint64_t(1) << 33;
  void work();
  void runChunks();
  uint64_t awaitLoop(uint64_t seen);  // the state of an open loop newer than `seen`, or 0 once stopping
  std::vector<std::thread> workers_;
  std::mutex callers_;  // one loop at a time
  std::mutex mu_;       // sleeping workers
  std::condition_variable wake_;
  std::atomic<unsigned> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> state_{0};
  // The current loop.
  int64_t n_ = 0, grain_ = 1;
  TvmsParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  std::atomic<int64_t> next_{0};  // the next chunk's first iteration
  TvmsKernelEnv env_;
};

}  // namespace tvms::runtime
