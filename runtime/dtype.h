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
enum class DType : uint8_t { Bool, I32, I64, F16, F32, F64, BF16, I8, U8, I16, U16, U32, U64, F8E4M3, F8E5M2 };

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
  if (n == "float8_e4m3fn") return DType::F8E4M3;
  if (n == "float8_e5m2") return DType::F8E5M2;
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
    case DType::F8E4M3: return "float8_e4m3fn";
    case DType::F8E5M2: return "float8_e5m2";
  }
  return "?";
}

inline size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::Bool: case DType::I8: case DType::U8: case DType::F8E4M3: case DType::F8E5M2: return 1;
    case DType::F16: case DType::BF16: case DType::I16: case DType::U16: return 2;
    case DType::I32: case DType::F32: case DType::U32: return 4;
    case DType::I64: case DType::F64: case DType::U64: return 8;
  }
  return 0;
}

inline bool isFloat8DType(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }
inline bool isFloatDType(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64 || isFloat8DType(t); }
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
// The 8-bit float formats (OCP FP8, as TVM, PyTorch and CUDA's __nv_fp8_* name them): float8_e4m3fn
// (4 exponent bits, bias 7, 3 mantissa bits, no infinity, S.1111.111 is NaN, largest 448) and
// float8_e5m2 (5 exponent bits, bias 15, 2 mantissa bits, IEEE-like with infinities, largest 57344).
// Kernels compute them in float32 as they do the 16-bit types. Converting to them rounds to nearest
// even and saturates: a finite value beyond the largest (and an infinity) becomes the largest, as
// CUDA's __NV_SATFINITE; NaN stays NaN. These host functions are the definition the code generators
// follow (the LLVM backend reads its decode table from fp8ToFloat).
struct Fp8Format {
  int mantissaBits, bias;
  uint32_t maxCode;  // the largest finite magnitude's code
};
inline Fp8Format fp8Format(DType t) { return t == DType::F8E4M3 ? Fp8Format{3, 7, 0x7e} : Fp8Format{2, 15, 0x7b}; }
inline float fp8ToFloat(uint8_t b, DType t) {
  Fp8Format f = fp8Format(t);
  uint32_t exponent = (b & 0x7fu) >> f.mantissaBits, mantissa = b & ((1u << f.mantissaBits) - 1);
  float magnitude;
  if (t == DType::F8E4M3 && (b & 0x7fu) == 0x7fu) magnitude = __builtin_nanf("");
  else if (t == DType::F8E5M2 && exponent == 31) magnitude = mantissa ? __builtin_nanf("") : __builtin_inff();
  else if (exponent == 0) magnitude = static_cast<float>(mantissa) * __builtin_ldexpf(1.0f, 1 - f.bias - f.mantissaBits);
  else {
    uint32_t bits = ((exponent - static_cast<uint32_t>(f.bias) + 127u) << 23) | (mantissa << (23 - f.mantissaBits));
    __builtin_memcpy(&magnitude, &bits, 4);
  }
  return (b & 0x80u) ? -magnitude : magnitude;
}
inline uint8_t floatToFp8(float x, DType t) {
  Fp8Format f = fp8Format(t);
  uint32_t bits;
  __builtin_memcpy(&bits, &x, 4);
  uint32_t sign = (bits >> 24) & 0x80u, a = bits & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint8_t>(sign | 0x7fu);
  int32_t exponent = static_cast<int32_t>(a >> 23) - 127;
  uint32_t code;
  if (exponent < 1 - f.bias) {  // below the smallest normal: a multiple of the smallest subnormal
    float magnitude;
    __builtin_memcpy(&magnitude, &a, 4);
    code = static_cast<uint32_t>(__builtin_nearbyintf(magnitude * __builtin_ldexpf(1.0f, f.bias - 1 + f.mantissaBits)));
  } else {
    int shift = 23 - f.mantissaBits;
    uint32_t keep = (a & 0x7fffffu) >> shift, rest = a & ((1u << shift) - 1), half = 1u << (shift - 1);
    uint32_t up = rest > half || (rest == half && (keep & 1u));
    code = (static_cast<uint32_t>(exponent + f.bias) << f.mantissaBits) + keep + up;  // a carry moves into the exponent
  }
  return static_cast<uint8_t>(sign | (code > f.maxCode ? f.maxCode : code));
}

inline float halfToFloat(uint16_t h) { return static_cast<float>(__builtin_bit_cast(_Float16, h)); }
inline uint16_t floatToHalf(float f) { return __builtin_bit_cast(uint16_t, static_cast<_Float16>(f)); }

}  // namespace tvms::runtime
