// The kernels' thread pool: every iteration of a loop runs exactly once, whatever the pool's size,
// the loop's length and the workers' timing, loops follow each other without a gap for a late
// worker to fall into, and callers on several threads take turns.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"

using tvms::runtime::ThreadPool;

namespace {
struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
  static void body(void* self, int64_t begin, int64_t end) {
    auto* c = static_cast<Counts*>(self);
    REQUIRE(begin < end);
    for (int64_t i = begin; i < end; ++i) c->hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
  }
  bool eachOnce() const {
    for (auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
};
}  // namespace

TEST_CASE("thread pool: every iteration runs exactly once, for pools of 1 to 9 threads and loops of 1 to 1000") {
  for (unsigned threads : {1u, 2u, 3u, 4u, 9u}) {
    ThreadPool pool(threads);
    CHECK(pool.size() == threads);
    for (int64_t n : {1, 2, 3, 7, 8, 9, 63, 64, 65, 1000}) {
      Counts c(n);
      pool.parallelFor(n, Counts::body, &c);
      INFO("threads " << threads << ", n " << n);
      CHECK(c.eachOnce());
    }
    pool.parallelFor(0, Counts::body, nullptr);  // nothing to run: the body is not called
  }
}

TEST_CASE("thread pool: thousands of short loops in a row, each complete when parallelFor returns") {
  // Back-to-back loops are where a worker still leaving one loop could read the next one's fields
  // half-written, or a late waker could run a loop that is already done.
  ThreadPool pool(4);
  for (int round = 0; round < 5000; ++round) {
    int64_t n = 1 + round % 37;
    Counts c(n);
    pool.parallelFor(n, Counts::body, &c);
    if (!c.eachOnce()) FAIL("round " << round << ": an iteration ran other than once");
  }
}

TEST_CASE("thread pool: workers asleep after a pause wake for the next loop") {
  ThreadPool pool(3);
  Counts first(30);
  pool.parallelFor(30, Counts::body, &first);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin: the workers sleep
  // Each iteration waits for the others to start, so the loop ends only if a worker came.
  std::atomic<int> started{0};
  struct Meet {
    std::atomic<int>* started;
    static void body(void* self, int64_t begin, int64_t end) {
      auto* m = static_cast<Meet*>(self);
      for (int64_t i = begin; i < end; ++i) {
        m->started->fetch_add(1);
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (m->started->load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      }
    }
  } meet{&started};
  pool.parallelFor(12, Meet::body, &meet);  // grain 1: twelve chunks, the caller cannot take them all at once
  CHECK(started.load() == 12);
  CHECK(first.eachOnce());
}

TEST_CASE("thread pool: callers on two threads take turns") {
  ThreadPool pool(3);
  std::atomic<int> bad{0};
  auto caller = [&] {
    for (int round = 0; round < 500; ++round) {
      Counts c(50);
      pool.parallelFor(50, Counts::body, &c);
      if (!c.eachOnce()) bad.fetch_add(1);
    }
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  CHECK(bad.load() == 0);
}
