#pragma once
// Tensors of the runtime: a dtype, a shape, the device slot they live on, and shared storage (views of
// one storage at offsets are how memory planning reuses memory).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/dtype.h"

namespace tvms::runtime {


class DeviceAPI;
struct PendingWork;

// One allocation on one device; freed through the device when the last tensor on it goes (the
// storage keeps its device alive, so tensors may outlive the VM that made them).
struct Storage {
  std::shared_ptr<DeviceAPI> device;
  int slot = 0;
  void* data = nullptr;
  size_t bytes = 0;
  // Non-null: memory tvms did not allocate (a caller's DLPack tensor, a memory-mapped weights file)
  // seen as storage on `device`: never freed through the device, and `owner` (which frees it, or
  // hands it back to its producer) is released when the last tensor on it goes.
  std::shared_ptr<void> owner;
  // A copy on another stream that reads or writes this memory and has not been seen to finish (the
  // VM's overlapped copies): the host, or a device's stream, waits for it before touching the memory.
  std::shared_ptr<PendingWork> pending;
  Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n);
  // Memory that a copy onto the device fills first (DeviceAPI::allocIncoming).
  struct ForIncomingCopy {};
  Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n, ForIncomingCopy);
  Storage(std::shared_ptr<DeviceAPI> d, int s, void* external, size_t n, std::shared_ptr<void> externalOwner);
  ~Storage();
  // Waits (on the host) for the pending copy, if any.
  void hostWait();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
};

struct NDArray {
  std::shared_ptr<Storage> storage;
  size_t offset = 0;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  // Both throw std::runtime_error for a negative dimension or a count past int64 (runtime/shape_math.h).
  int64_t numel() const;
  size_t bytes() const;
  int slot() const { return storage ? storage->slot : -1; }
  void* data() const { return static_cast<char*>(storage->data) + offset; }
  std::string shapeText() const;  // "(2, 3)"
};

// `a` in host memory: `a` itself when the host reads it where it is, else a copy in memory of `host`
// (the host waits for that copy alone, not for the whole device).
NDArray hostCopy(const NDArray& a, const std::shared_ptr<DeviceAPI>& host);

}  // namespace tvms::runtime
