#pragma once
// The kernels' thread pool: parallel loops are split into one contiguous part per thread, the caller
// running the first part itself. Exposed to kernels through TvmsKernelEnv.
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
  void parallelFor(int64_t n, TvmsParallelBody body, void* closure);
  const TvmsKernelEnv* env() const { return &env_; }

 private:
  void work(unsigned index);
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool stop_ = false;
  int64_t n_ = 0;
  TvmsParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  TvmsKernelEnv env_;
};

}  // namespace tvms::runtime
