#include "runtime/ndarray.h"

#include "runtime/device_api.h"
#include "runtime/shape_math.h"

namespace tvms::runtime {

Storage::Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n) : device(std::move(d)), slot(s), data(device->alloc(n ? n : 1)), bytes(n) {
  device->noteAllocated(bytes);
}
Storage::Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n, ForIncomingCopy)
    : device(std::move(d)), slot(s), data(device->allocIncoming(n ? n : 1)), bytes(n) {
  device->noteAllocated(bytes);
}
void Storage::hostWait() {
  if (!pending) return;
  pending->device->synchronizeEvent(pending->event);
  pending.reset();
}
Storage::Storage(std::shared_ptr<DeviceAPI> d, int s, void* external, size_t n, std::shared_ptr<void> externalOwner)
    : device(std::move(d)), slot(s), data(external), bytes(n), owner(std::move(externalOwner)) {
  if (!owner) throw std::invalid_argument("external storage needs an owner");
}
Storage::~Storage() {
  if (owner) return;  // not ours: the owner lets it go
  device->noteFreed(bytes);
  device->free(data);
}

NDArray hostCopy(const NDArray& a, const std::shared_ptr<DeviceAPI>& host) {
  if (a.storage->device->hostAccessible()) {
    a.storage->hostWait();  // a download still in flight
    return a;
  }
  NDArray out;
  out.dtype = a.dtype;
  out.shape = a.shape;
  out.storage = std::make_shared<Storage>(host, -1, a.bytes());
  DeviceAPI& from = *a.storage->device;
  from.copyToHost(out.data(), a.data(), a.bytes());
  Event copied = from.recordEvent();
  from.synchronizeEvent(copied);
  from.destroyEvent(copied);
  return out;
}

int64_t NDArray::numel() const {
  for (auto d : shape) {
    if (d < 0) throw std::runtime_error("shape " + shapeText() + " has a negative dimension");
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (auto d : shape) n = shapeMul(n, d, ("the element count of shape " + shapeText()).c_str());
  return n;
}

size_t NDArray::bytes() const {
  return static_cast<size_t>(shapeMul(numel(), static_cast<int64_t>(dtypeBytes(dtype)), ("the byte size of shape " + shapeText()).c_str()));
}

std::string NDArray::shapeText() const {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace tvms::runtime
