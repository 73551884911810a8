#include "runtime/thread_pool.h"

#include "runtime/usable_cores.h"

namespace tvms::runtime {

namespace {
void parallelForThunk(void* pool, int64_t n, TvmsParallelBody body, void* closure) {
  static_cast<ThreadPool*>(pool)->parallelFor(n, body, closure);
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = usableCores();
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  env_.pool = this;
  env_.parallel_for = parallelForThunk;
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::parallelFor(int64_t n, TvmsParallelBody body, void* closure) {
  unsigned parts = size();
  if (n <= 0) return;
  if (parts == 1 || n == 1) { body(closure, 0, n); return; }
  {
    std::lock_guard<std::mutex> lock(mu_);
    n_ = n;
    body_ = body;
    closure_ = closure;
    pending_ = parts - 1;
    ++generation_;
  }
  wake_.notify_all();
  body(closure, 0, n / parts + (n % parts > 0));
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

void ThreadPool::work(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    int64_t n;
    TvmsParallelBody body;
    void* closure;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      n = n_;
      body = body_;
      closure = closure_;
    }
    // Part `index` of size(): the first n % parts parts take one extra iteration.
    int64_t parts = size(), base = n / parts, extra = n % parts;
    int64_t begin = index * base + std::min<int64_t>(index, extra);
    int64_t end = begin + base + (index < extra);
    if (begin < end) body(closure, begin, end);
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace tvms::runtime
