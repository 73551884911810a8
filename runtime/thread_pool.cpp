#include "runtime/thread_pool.h"

#include <chrono>

#include "runtime/usable_cores.h"

namespace tvms::runtime {

namespace {
void parallelForThunk(void* pool, int64_t n, TvmsParallelBody body, void* closure) {
  static_cast<ThreadPool*>(pool)->parallelFor(n, body, closure);
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// How long a worker spins for the next loop before it sleeps: long enough to span the VM's dispatch
// between two kernels, short enough that an idle pool gives its cores back at once.
constexpr std::chrono::microseconds kSpinFor{200};

// Spins until `ready()`, yielding the core after a while (a thread it waits for may need it on a
// machine with fewer cores than threads).
template <typename Ready>
void spinUntil(Ready ready) {
  for (unsigned i = 0; !ready(); ++i) {
    if (i < 4096) cpuRelax();
    else std::this_thread::yield();
  }
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = usableCores();
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
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
  if (n <= 0) return;
  if (size() == 1 || n == 1) {
    body(closure, 0, n);
    return;
  }
  std::lock_guard<std::mutex> turn(callers_);
  n_ = n;
  // About four chunks per thread: few trips to the counter, and room to even out late starters.
  grain_ = std::max<int64_t>(1, n / (static_cast<int64_t>(size()) * 4));
  body_ = body;
  closure_ = closure;
  next_.store(0, std::memory_order_relaxed);
  // A new generation, open, nobody inside (the last loop's workers have all left).
  uint64_t generation = (state_.load(std::memory_order_relaxed) & ~(kClosed | kInside)) + kGeneration;
  state_.store(generation, std::memory_order_seq_cst);
  // A worker going to sleep counts itself before it reads state_ under mu_; one that read the old
  // state is counted here and woken.
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    wake_.notify_all();
  }
  runChunks();
  // Every chunk is taken. Closed, a worker that wakes now leaves the loop alone; those inside are
  // running the last chunks, and the loop is done when they have left (their release orders their
  // writes before the caller's return, and the fields are free for the next loop).
  state_.fetch_or(kClosed, std::memory_order_acq_rel);
  spinUntil([&] { return (state_.load(std::memory_order_acquire) & kInside) == 0; });
}

void ThreadPool::runChunks() {
  for (;;) {
    int64_t begin = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (begin >= n_) return;
    int64_t end = std::min(n_, begin + grain_);
    body_(closure_, begin, end);
  }
}

uint64_t ThreadPool::awaitLoop(uint64_t seen) {
  auto newer = [&](uint64_t s) { return (s & ~(kClosed | kInside)) != seen && !(s & kClosed); };
  auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (unsigned i = 1;; ++i) {
    if (stop_.load(std::memory_order_relaxed)) return 0;
    uint64_t s = state_.load(std::memory_order_acquire);
    if (newer(s)) return s;
    cpuRelax();
    if (i % 256 == 0 && std::chrono::steady_clock::now() > until) break;
  }
  std::unique_lock<std::mutex> lock(mu_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  uint64_t s = 0;
  wake_.wait(lock, [&] { return stop_.load() || newer(s = state_.load(std::memory_order_seq_cst)); });
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  return stop_.load() ? 0 : s;
}

void ThreadPool::work() {
  uint64_t seen = 0;  // the generation of the last loop this worker entered (none yet: 0)
  for (;;) {
    uint64_t s = awaitLoop(seen);
    if (!s) return;
    // Enter only the loop just seen, and only while it is open; else look again.
    if (!state_.compare_exchange_strong(s, s + 1, std::memory_order_acq_rel)) continue;
    seen = s & ~(kClosed | kInside);
    runChunks();
    state_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace tvms::runtime
