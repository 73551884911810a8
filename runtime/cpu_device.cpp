#include <cstdlib>
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
  void* alloc(size_t bytes) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw std::runtime_error(name() + ": out of memory allocating " + std::to_string(bytes) + " bytes");
    return p;
  }
  void free(void* p) override { std::free(p); }
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
  int index_;
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
