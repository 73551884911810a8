#pragma once
// The device API every backend implements. The VM holds one DeviceAPI per slot of the module's
// vdevice list; streams and events are in the interface so that an asynchronous device (CUDA) can
// overlap copies with kernels, order copies between devices without stopping the host, and time its
// own work with its own clock. The CPU implements them trivially (work is done when a call returns;
// an event is a timestamp).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/kernel_library.h"

namespace tvms::runtime {

using Stream = void*;  // null: the device's default stream
using Event = void*;

// How one device runs the kernels of a library built for its target kind.
class KernelLauncher {
 public:
  virtual ~KernelLauncher() = default;
  // The kernel `name` of the library, or null when it has none.
  virtual const void* resolve(const std::string& name) = 0;
  // Runs a resolved kernel on the device's stream; returns the kernel's status (0: success).
  virtual int32_t launch(const void* kernel, void* const* buffers, const int64_t* dims) = 0;
};

// Work a device recorded instead of running (a CUDA graph), replayed by launch(). It owns the memory
// allocated while it was recorded (its kernels name those addresses): freed when it is destroyed.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  // False when the device could not record the work (something done while capturing is not
  // capturable); why() says what. Such a recording cannot be launched.
  virtual bool ok() const = 0;
  virtual const std::string& why() const = 0;
  virtual void launch() = 0;  // queued on the device's stream, like a kernel
  virtual size_t nodes() const = 0;
};

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  virtual std::string name() const = 0;           // "cpu:0", "cuda:1"
  virtual bool hostAccessible() const = 0;        // its memory can be read by the host directly
  virtual void* alloc(size_t bytes) = 0;          // throws std::runtime_error when out of memory
  virtual void free(void* p) = 0;
  // Copies between this device and host memory, queued on the device's stream. copyFromHost returns
  // once `src` may be reused (the device stages it); copyToHost returns when `dst` holds the data.
  virtual void copyFromHost(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  virtual void copyToHost(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  virtual void copyWithin(void* dst, const void* src, size_t bytes, Stream stream = nullptr) = 0;
  // A copy from another device's memory straight into this one's (CUDA peer or same-GPU copies),
  // ordered after `from`'s queued work; false when this device cannot reach `from`'s memory.
  virtual bool copyFromPeer(void*, DeviceAPI&, const void*, size_t) { return false; }
  // Copies that overlap the device's work (the VM's copies between vdevices): queued on a stream of
  // their own (the copy engines), the host does not wait. The events mark the copy's start and end,
  // both null when it was done before returning; the caller destroys them. copyFromHostAsync: `dst`
  // comes from allocIncoming, work queued on the device after it waits for it, `src` must stay as it
  // is until `end`. copyToHostAsync: after the device's queued work; `dst` holds the data at `end`,
  // and `src` must not be written until then.
  struct CopyEvents {
    Event begin = nullptr, end = nullptr;
  };
  virtual void* allocIncoming(size_t bytes) { return alloc(bytes); }
  virtual CopyEvents copyFromHostAsync(void* dst, const void* src, size_t bytes) {
    copyFromHost(dst, src, bytes);
    return {};
  }
  virtual CopyEvents copyToHostAsync(void* dst, const void* src, size_t bytes) {
    copyToHost(dst, src, bytes);
    return {};
  }
  virtual Stream createStream() = 0;
  virtual void destroyStream(Stream s) = 0;
  virtual void synchronize(Stream s = nullptr) = 0;
  virtual Event recordEvent(Stream s = nullptr) = 0;
  virtual void waitEvent(Stream s, Event e) = 0;  // later work on s waits for e
  virtual void synchronizeEvent(Event e) = 0;     // the host waits for e alone (not the whole device)
  // Seconds between two recorded events, by this device's own clock (waits for `end`).
  virtual double elapsedSeconds(Event begin, Event end) = 0;
  virtual void destroyEvent(Event e) = 0;
  // A launcher for `library`, whose kernels were built for this device's target kind.
  virtual std::unique_ptr<KernelLauncher> launcher(std::shared_ptr<KernelLibrary> library) = 0;

  // Recording the device's work for replay (CUDA graphs; runtime/graph_capture.h says when the VM
  // does it). Between beginCapture and endCapture, kernels, library calls and stream copies queued
  // on the device's stream are recorded, not run; memory allocated meanwhile belongs to the recording
  // (the recorded work names its addresses) and memory freed meanwhile is freed with it. No host
  // wait may happen while capturing. endCapture always returns a recording (ok() or not).
  virtual bool canCapture() const { return false; }
  virtual void beginCapture() { throw std::runtime_error(name() + " cannot record its work for replay"); }
  virtual std::unique_ptr<CapturedWork> endCapture() { throw std::runtime_error(name() + " cannot record its work for replay"); }

  // The bytes of tensors and library workspaces held on this device now, and the most held at once
  // since it was opened (what `tvms run` reports as each device's peak). Counted by the holders
  // (Storage, the cuDNN workspace), not by the allocator: a CUDA memory pool may keep more reserved.
  void noteAllocated(size_t bytes) {
    size_t now = inUse_.fetch_add(bytes) + bytes;
    size_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {}
  }
  void noteFreed(size_t bytes) { inUse_.fetch_sub(bytes); }
  size_t bytesInUse() const { return inUse_.load(); }
  size_t peakBytes() const { return peak_.load(); }

 private:
  std::atomic<size_t> inUse_{0}, peak_{0};
};

// A copy in flight (DeviceAPI::CopyEvents' end, owned) that memory waits for: Storage::pending.
struct PendingWork {
  DeviceAPI* device;
  Event event;
  PendingWork(DeviceAPI* d, Event e) : device(d), event(e) {}
  ~PendingWork() { device->destroyEvent(event); }
  PendingWork(const PendingWork&) = delete;
  PendingWork& operator=(const PendingWork&) = delete;
};

// A CPU device: host memory (64-byte aligned), synchronous copies, trivial streams, timestamp
// events, kernels called through their C ABI on the process's thread pool.
// Pinned: page-locked memory from the CUDA driver (openDevices asks for it when a cuda slot shares
// the module), so copies to and from GPUs run at DMA speed.
enum class HostMemory { Pageable, Pinned };
std::unique_ptr<DeviceAPI> makeCpuDevice(int index, HostMemory memory = HostMemory::Pageable);

// Copies `bytes` from src (on `from`) to dst (on `to`), through host memory when neither side can
// reach the other directly, ordered by events: a copy from a device is queued behind that device's
// work and the host waits for that copy alone; a copy onto a device is queued on its stream, ahead
// of whatever later runs there.
void copyBetween(DeviceAPI& to, void* dst, DeviceAPI& from, const void* src, size_t bytes);

}  // namespace tvms::runtime
