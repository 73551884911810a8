#include "runtime/for_each_in_parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tvms::runtime {

void forEachInParallel(size_t n, unsigned threads, const std::function<void(size_t)>& job) {
  const size_t used = std::min<size_t>(threads, n);
  if (used <= 1) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;  // the first job that threw, rethrown here once every thread is done
  std::mutex failureMutex;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = std::current_exception();
      }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < used; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tvms::runtime
