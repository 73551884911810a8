#pragma once
// Independent jobs on a few threads, outside the kernels' pool: a one-shot lint's files, a large
// module's functions deduced.
#include <cstddef>
#include <functional>

namespace tvms::runtime {

// Runs job(0) ... job(n - 1) on up to `threads` threads, the caller's included; each index once, taken
// from a shared counter so a slow job holds up no fixed share. Every job runs even when one throws; the
// first exception is rethrown here once all threads are done.
void forEachInParallel(size_t n, unsigned threads, const std::function<void(size_t)>& job);

}  // namespace tvms::runtime
