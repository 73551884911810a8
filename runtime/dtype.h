#pragma once
// The element types, one list for the whole toolchain: the runtime's tensors, the .npy reader, and the
// loop IR of the kernels (codegen::ScalarType is this type). Header-only, no dependencies, so the
// compiler can use it without linking the runtime.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tvms::runtime {

enum class DType : uint8_t { Bool, I32, I64, F16, F32, F64 };

inline std::optional<DType> dtypeFromName(std::string_view n) {  // "float32" -> F32
  if (n == "bool") return DType::Bool;
  if (n == "int32") return DType::I32;
  if (n == "int64") return DType::I64;
  if (n == "float16") return DType::F16;
  if (n == "float32") return DType::F32;
  if (n == "float64") return DType::F64;
  return std::nullopt;
}

inline std::string_view dtypeName(DType t) {
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

inline size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::F16: return 2;
    case DType::I32: case DType::F32: return 4;
    case DType::I64: case DType::F64: return 8;
  }
  return 0;
}

inline bool isFloatDType(DType t) { return t == DType::F16 || t == DType::F32 || t == DType::F64; }

}  // namespace tvms::runtime
