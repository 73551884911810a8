#include "runtime/ndarray.h"

#include "runtime/device_api.h"

namespace tvms::runtime {

Storage::Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n) : device(std::move(d)), slot(s), data(device->alloc(n ? n : 1)), bytes(n) {
  device->noteAllocated(bytes);
}
Storage::~Storage() {
  device->noteFreed(bytes);
  device->free(data);
}

int64_t NDArray::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string NDArray::shapeText() const {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace tvms::runtime
