#include "runtime/ndarray.h"

#include "runtime/device_api.h"

namespace tvms::runtime {

std::optional<DType> dtypeFromName(std::string_view n) {
  if (n == "bool") return DType::Bool;
  if (n == "int32") return DType::I32;
  if (n == "int64") return DType::I64;
  if (n == "float16") return DType::F16;
  if (n == "float32") return DType::F32;
  if (n == "float64") return DType::F64;
  return std::nullopt;
}

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::F16: return "float16";
    case DType::F32: return "float32";
    case DType::F64: return "float64";
  }
  return "?";
}

size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::F16: return 2;
    case DType::I32: case DType::F32: return 4;
    case DType::I64: case DType::F64: return 8;
  }
  return 0;
}

Storage::Storage(std::shared_ptr<DeviceAPI> d, int s, size_t n) : device(std::move(d)), slot(s), data(device->alloc(n ? n : 1)), bytes(n) {}
Storage::~Storage() { device->free(data); }

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
