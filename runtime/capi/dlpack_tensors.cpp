#include "runtime/capi/dlpack_tensors.h"

#include <cstring>

#include "runtime/device_api.h"
#include <stdexcept>
#include <string>
#include <vector>

namespace tvms::runtime::capi {

namespace {
// DLPack 1.0 names bool kDLBool (6); dlpack.h 0.6 has no name for it.
constexpr uint8_t kBoolCode = 6;
// DLPack 1.1's float8 codes (Debian's dlpack.h 0.6 predates them).
constexpr uint8_t kFloat8E4M3FnCode = 10, kFloat8E5M2Code = 12;
}  // namespace

std::optional<DType> dtypeOfDL(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == kDLFloat && t.bits == 16) return DType::F16;
  if (t.code == kDLFloat && t.bits == 32) return DType::F32;
  if (t.code == kDLFloat && t.bits == 64) return DType::F64;
  if (t.code == kDLBfloat && t.bits == 16) return DType::BF16;
  if (t.code == kDLInt && t.bits == 32) return DType::I32;
  if (t.code == kDLInt && t.bits == 64) return DType::I64;
  if (t.code == kBoolCode && t.bits == 8) return DType::Bool;
  if (t.code == kDLInt && t.bits == 8) return DType::I8;
  if (t.code == kDLUInt && t.bits == 8) return DType::U8;
  if (t.code == kDLInt && t.bits == 16) return DType::I16;
  if (t.code == kDLUInt && t.bits == 16) return DType::U16;
  if (t.code == kDLUInt && t.bits == 32) return DType::U32;
  if (t.code == kDLUInt && t.bits == 64) return DType::U64;
  if (t.code == kFloat8E4M3FnCode && t.bits == 8) return DType::F8E4M3;
  if (t.code == kFloat8E5M2Code && t.bits == 8) return DType::F8E5M2;
  return std::nullopt;
}

DLDataType dlDataTypeOf(DType t) {
  switch (t) {
    case DType::Bool: return {kBoolCode, 8, 1};
    case DType::I32: return {kDLInt, 32, 1};
    case DType::I64: return {kDLInt, 64, 1};
    case DType::F16: return {kDLFloat, 16, 1};
    case DType::F32: return {kDLFloat, 32, 1};
    case DType::F64: return {kDLFloat, 64, 1};
    case DType::BF16: return {kDLBfloat, 16, 1};
    case DType::I8: return {kDLInt, 8, 1};
    case DType::U8: return {kDLUInt, 8, 1};
    case DType::I16: return {kDLInt, 16, 1};
    case DType::U16: return {kDLUInt, 16, 1};
    case DType::U32: return {kDLUInt, 32, 1};
    case DType::U64: return {kDLUInt, 64, 1};
    case DType::F8E4M3: return {kFloat8E4M3FnCode, 8, 1};
    case DType::F8E5M2: return {kFloat8E5M2Code, 8, 1};
  }
  return {kDLFloat, 32, 1};
}

std::string dlDataTypeName(DLDataType t) {
  static const char* codes[] = {"int", "uint", "float", "handle", "bfloat", "complex", "bool"};
  std::string s = t.code < 7 ? codes[t.code] : "code" + std::to_string(t.code);
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

ForeignTensor adoptDLPack(void* managed, bool versioned) {
  ForeignTensor f;
  if (!managed) {
    f.problem = "a null DLPack tensor";
    return f;
  }
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(managed);
    f.owner = std::shared_ptr<void>(m, [](void* p) {
      auto* t = static_cast<DLManagedTensorVersioned*>(p);
      if (t->deleter) t->deleter(t);
    });
    f.tensor = &m->dl_tensor;
    f.readOnly = m->flags & DLPACK_FLAG_BITMASK_READ_ONLY;
    if (m->version.major != 1)
      f.problem = "a DLPack " + std::to_string(m->version.major) + "." + std::to_string(m->version.minor) +
                  " tensor (tvms takes DLPack 1.x and the older DLManagedTensor)";
  } else {
    auto* m = static_cast<DLManagedTensor*>(managed);
    f.owner = std::shared_ptr<void>(m, [](void* p) {
      auto* t = static_cast<DLManagedTensor*>(p);
      if (t->deleter) t->deleter(t);
    });
    f.tensor = &m->dl_tensor;
  }
  if (f.problem.empty() && (f.tensor->ndim < 0 || (f.tensor->ndim > 0 && !f.tensor->shape))) f.problem = "a DLPack tensor without a shape";
  if (f.problem.empty() && !f.tensor->data && f.tensor->ndim > 0) {
    bool empty = false;
    for (int d = 0; d < f.tensor->ndim; ++d) empty |= f.tensor->shape[d] == 0;
    if (!empty) f.problem = "a DLPack tensor without data";
  }
  return f;
}

bool isCompact(const DLTensor& t) {
  if (!t.strides) return true;
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

void copyCompact(const DLTensor& t, void* dst, size_t elementBytes) {
  const char* base = static_cast<const char*>(t.data) + t.byte_offset;
  int64_t total = 1;
  for (int d = 0; d < t.ndim; ++d) total *= t.shape[d];
  std::vector<int64_t> index(static_cast<size_t>(t.ndim), 0);
  char* out = static_cast<char*>(dst);
  for (int64_t n = 0; n < total; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
    std::memcpy(out + n * static_cast<int64_t>(elementBytes), base + offset * static_cast<int64_t>(elementBytes), elementBytes);
    for (int d = t.ndim - 1; d >= 0 && ++index[d] == t.shape[d]; --d) index[d] = 0;
  }
}

NDArray hostCopyOf(const NDArray& a) {
  static const std::shared_ptr<DeviceAPI> host = makeCpuDevice(-1);
  return hostCopy(a, host);
}

namespace {

// What an export keeps alive: the array (its storage) and the shape DLTensor points at.
struct ExportContext {
  NDArray array;
  std::vector<int64_t> shape;
};

template <typename Managed>
Managed* exportAs(const NDArray& a, DLDevice device) {
  auto* ctx = new ExportContext{a, a.shape};
  auto* m = new Managed{};
  m->manager_ctx = ctx;
  m->deleter = [](Managed* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  m->dl_tensor.data = a.data();
  m->dl_tensor.device = device;
  m->dl_tensor.ndim = static_cast<int32_t>(a.shape.size());
  m->dl_tensor.dtype = dlDataTypeOf(a.dtype);
  m->dl_tensor.shape = ctx->shape.data();
  m->dl_tensor.strides = nullptr;
  m->dl_tensor.byte_offset = 0;
  return m;
}

}  // namespace

DLManagedTensorVersioned* exportVersioned(const NDArray& a, DLDevice device) {
  auto* m = exportAs<DLManagedTensorVersioned>(a, device);
  m->version = {1, 0};
  m->flags = 0;
  return m;
}

DLManagedTensor* exportLegacy(const NDArray& a, DLDevice device) { return exportAs<DLManagedTensor>(a, device); }

}  // namespace tvms::runtime::capi
