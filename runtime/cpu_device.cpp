#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

#include "runtime/device_api.h"

namespace tvms::runtime {

namespace {

class CpuDevice : public DeviceAPI {
 public:
  explicit CpuDevice(int index) : index_(index) {}
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
    void* p = std::aligned_alloc(64, size);
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
    std::free(p);
  }
  ~CpuDevice() override {
    for (auto& [size, p] : cache_) std::free(p);
  }
  void copyFromHost(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copyWithin(void* dst, const void* src, size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  // Work on a CPU device is done when the call returns: streams and events have nothing to order.
  Stream createStream() override { return nullptr; }
  void destroyStream(Stream) override {}
  void synchronize(Stream) override {}
  Event recordEvent(Stream) override { return nullptr; }
  void waitEvent(Stream, Event) override {}
  void destroyEvent(Event) override {}

 private:
  static constexpr size_t kCacheBytes = size_t(1) << 30;
  int index_;
  std::mutex mu_;
  std::multimap<size_t, void*> cache_;
  std::unordered_map<void*, size_t> sizes_;
  size_t cached_ = 0;
};

}  // namespace

std::unique_ptr<DeviceAPI> makeCpuDevice(int index) { return std::make_unique<CpuDevice>(index); }

void copyBetween(DeviceAPI& to, void* dst, DeviceAPI& from, const void* src, size_t bytes) {
  if (&to == &from) {
    to.copyWithin(dst, src, bytes);
  } else if (from.hostAccessible()) {
    to.copyFromHost(dst, src, bytes);
  } else if (to.hostAccessible()) {
    from.copyToHost(dst, src, bytes);
  } else {
    std::vector<char> staging(bytes);
    from.copyToHost(staging.data(), src, bytes);
    from.synchronize();
    to.copyFromHost(dst, staging.data(), bytes);
  }
  to.synchronize();
}

}  // namespace tvms::runtime
