#pragma once
// The device API every backend implements. The VM holds one DeviceAPI per slot of the module's
// vdevice list; streams and events are in the interface so that an asynchronous device (CUDA) can
// overlap copies with kernels, and the CPU implements them trivially.
#include <cstddef>
#include <memory>
#include <string>

namespace tvms::runtime {

using Stream = void*;  // null: the device's default stream
using Event = void*;

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  virtual std::string name() const = 0;           // "cpu:0", "cuda:1"
  virtual bool hostAccessible() const = 0;        // its memory can be read by the host directly
  virtual void* alloc(size_t bytes) = 0;          // throws std::runtime_error when out of memory
  virtual void free(void* p) = 0;
  // Copies between this device and host memory; async variants enqueue on `stream`.
  virtual void copyFromHost(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  virtual void copyToHost(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  virtual void copyWithin(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  virtual Stream createStream() = 0;
  virtual void destroyStream(Stream s) = 0;
  virtual void synchronize(Stream s = nullptr) = 0;
  virtual Event recordEvent(Stream s = nullptr) = 0;
  virtual void waitEvent(Stream s, Event e) = 0;  // later work on s waits for e
  virtual void destroyEvent(Event e) = 0;
};

// A CPU device: host memory (64-byte aligned), synchronous copies, trivial streams and events.
std::unique_ptr<DeviceAPI> makeCpuDevice(int index);

// Copies `bytes` from src (on `from`) to dst (on `to`), through host memory when neither side can
// reach the other directly, and waits for it.
void copyBetween(DeviceAPI& to, void* dst, DeviceAPI& from, const void* src, size_t bytes);

}  // namespace tvms::runtime
