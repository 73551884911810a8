#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/cuda_driver.h"
#include "runtime/thread_pool.h"

namespace tvms::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// Kernels of the C ABI, called on the process's thread pool (shared by every CPU device: the VM runs
// one kernel at a time, so pools per device would only oversubscribe the cores).
class CpuLauncher : public KernelLauncher {
 public:
  explicit CpuLauncher(std::shared_ptr<KernelLibrary> library) : library_(std::move(library)) {}
  const void* resolve(const std::string& name) override { return library_ ? library_->find(name) : nullptr; }
  int32_t launch(const void* kernel, void* const* buffers, const int64_t* dims) override {
    return reinterpret_cast<TvmsKernelFn>(const_cast<void*>(kernel))(buffers, dims, ThreadPool::shared().env());
  }

 private:
  std::shared_ptr<KernelLibrary> library_;
};

class CpuDevice : public DeviceAPI {
 public:
  CpuDevice(int index, bool pinned) : index_(index), pinned_(pinned) {}
  std::string name() const override { return "cpu:" + std::to_string(index_); }
  bool hostAccessible() const override { return true; }
  // Freed blocks are kept for reuse by size (up to kCacheBytes), like TVM's pooled allocator: a fresh
  // large block costs a page fault per 4 KiB on first touch, which would dominate repeated runs.
  void* alloc(size_t bytes) override {
    size_t size = (bytes + 63) / 64 * 64;
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(size); it != cache_.end()) {
      void* p = it->second;
      cache_.erase(it);
      cached_ -= size;
      sizes_[p] = size;
      return p;
    }
    void* p = nullptr;
    // Page-locked when a GPU shares the process: its copies to and from this memory run at the DMA
    // engines' rate instead of through a staging copy. Pageable memory when that fails.
    if (pinned_ && cu::driver().memHostAlloc(&p, size, cu::kMemHostAllocPortable) == 0) pinnedBlocks_.insert(p);
    else p = std::aligned_alloc(64, size);
    if (!p) throw std::runtime_error(name() + ": out of memory allocating " + std::to_string(bytes) + " bytes");
    sizes_[p] = size;
    return p;
  }
  void free(void* p) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sizes_.find(p);
    size_t size = it == sizes_.end() ? 0 : it->second;
    if (it != sizes_.end()) sizes_.erase(it);
    if (size && cached_ + size <= kCacheBytes) {
      cache_.emplace(size, p);
      cached_ += size;
      return;
    }
    release(p);
  }
  ~CpuDevice() override {
    for (auto& [size, p] : cache_) release(p);
    for (auto* t : freeEvents_) delete t;
  }
  void copyFromHost(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copyWithin(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  // Work on a CPU device is done when the call returns: streams and events have nothing to order.
  Stream createStream() override { return nullptr; }
  void destroyStream(Stream) override {}
  void synchronize(Stream) override {}
  // An event is the time it was recorded: the work before it is done by then. Events come from a
  // free list (the VM records two per kernel call; the heap would double its dispatch cost).
  Event recordEvent(Stream) override {
    Clock::time_point* t;
    if (freeEvents_.empty()) {
      t = new Clock::time_point;
    } else {
      t = freeEvents_.back();
      freeEvents_.pop_back();
    }
    *t = Clock::now();
    return t;
  }
  void waitEvent(Stream, Event) override {}
  void synchronizeEvent(Event) override {}
  double elapsedSeconds(Event begin, Event end) override {
    return std::chrono::duration<double>(*static_cast<Clock::time_point*>(end) - *static_cast<Clock::time_point*>(begin)).count();
  }
  void destroyEvent(Event e) override { freeEvents_.push_back(static_cast<Clock::time_point*>(e)); }
  std::unique_ptr<KernelLauncher> launcher(std::shared_ptr<KernelLibrary> library) override {
    return std::make_unique<CpuLauncher>(std::move(library));
  }

 private:
  static constexpr size_t kCacheBytes = size_t(1) << 30;
  int index_;
  std::mutex mu_;
  std::multimap<size_t, void*> cache_;
  std::unordered_map<void*, size_t> sizes_;
  size_t cached_ = 0;
  bool pinned_;
  std::unordered_set<void*> pinnedBlocks_;
  void release(void* p) {
    if (pinnedBlocks_.erase(p)) cu::driver().memFreeHost(p);
    else std::free(p);
  }
  std::vector<Clock::time_point*> freeEvents_;  // events are recorded and destroyed on the VM's thread
};

}  // namespace

std::unique_ptr<DeviceAPI> makeCpuDevice(int index, HostMemory memory) {
  return std::make_unique<CpuDevice>(index, memory == HostMemory::Pinned);
}

void copyBetween(DeviceAPI& to, void* dst, DeviceAPI& from, const void* src, size_t bytes) {
  if (&to == &from) {
    to.copyWithin(dst, src, bytes);  // on the device's own stream, in order with its work
    return;
  }
  if (to.copyFromPeer(dst, from, src, bytes)) return;  // device to device, queued behind the source's work
  if (from.hostAccessible()) {
    // Onto `to`'s stream: kernels queued there later run after it, the host does not wait (the
    // device stages the source). The source is host memory its producer finished writing.
    to.copyFromHost(dst, src, bytes);
    return;
  }
  // From a device: queued behind the work that produced the source; the host waits for that copy's
  // event, not for the whole device.
  std::vector<char> staging;
  void* hostDst = dst;
  if (!to.hostAccessible()) {
    staging.resize(bytes);
    hostDst = staging.data();
  }
  from.copyToHost(hostDst, src, bytes);
  Event copied = from.recordEvent();
  from.synchronizeEvent(copied);
  from.destroyEvent(copied);
  if (!to.hostAccessible()) to.copyFromHost(dst, staging.data(), bytes);  // staged by `to`: ours may go
}

}  // namespace tvms::runtime
