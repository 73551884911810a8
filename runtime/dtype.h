#pragma once
// The element types, one list for the whole toolchain: the runtime's tensors, the .npy reader, and the
// loop IR of the kernels (codegen::ScalarType is this type). Header-only, no dependencies, so the
// compiler can use it without linking the runtime.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tvms::runtime {

// Values are stored in artifacts (alloc_tensor's dtype): append, never reorder.
enum class DType : uint8_t { Bool, I32, I64, F16, F32, F64, BF16, I8, U8, I16, U16, U32, U64 };

inline std::optional<DType> dtypeFromName(std::string_view n) {  // "float32" -> F32
  if (n == "bool") return DType::Bool;
  if (n == "int32") return DType::I32;
  if (n == "int64") return DType::I64;
  if (n == "float16") return DType::F16;
  if (n == "float32") return DType::F32;
  if (n == "float64") return DType::F64;
  if (n == "bfloat16") return DType::BF16;
  if (n == "int8") return DType::I8;
  if (n == "uint8") return DType::U8;
  if (n == "int16") return DType::I16;
  if (n == "uint16") return DType::U16;
  if (n == "uint32") return DType::U32;
  if (n == "uint64") return DType::U64;
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
    case DType::BF16: return "bfloat16";
    case DType::I8: return "int8";
    case DType::U8: return "uint8";
    case DType::I16: return "int16";
    case DType::U16: return "uint16";
    case DType::U32: return "uint32";
    case DType::U64: return "uint64";
  }
  return "?";
}

inline size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::Bool: case DType::I8: case DType::U8: return 1;
    case DType::F16: case DType::BF16: case DType::I16: case DType::U16: return 2;
    case DType::I32: case DType::F32: case DType::U32: return 4;
    case DType::I64: case DType::F64: case DType::U64: return 8;
  }
  return 0;
}

inline bool isFloatDType(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }
// The unsigned types: their arithmetic, comparisons and conversions are unsigned.
inline bool isUnsignedDType(DType t) { return t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64; }

// The 16-bit float formats to and from float32 (round to nearest even), for inputs and reports.
inline float bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  __builtin_memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
}
inline float halfToFloat(uint16_t h) { return static_cast<float>(__builtin_bit_cast(_Float16, h)); }
inline uint16_t floatToHalf(float f) { return __builtin_bit_cast(uint16_t, static_cast<_Float16>(f)); }

}  // namespace tvms::runtime
