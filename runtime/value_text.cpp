#include "runtime/value_text.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace tvms::runtime {

namespace {

// Long axes print their first and last three entries, as numpy does past 1000 elements.
constexpr int64_t kSummariseAbove = 1000;
constexpr int64_t kEdgeItems = 3;

std::string floatText(double v, bool scalar) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  std::string s = buf;
  // numpy: a whole float is "1.0" alone and "1." in an array
  if (s.find_first_of(".en") == std::string::npos) s += scalar ? ".0" : ".";
  return s;
}

std::string elementText(const NDArray& a, int64_t i, bool scalar) {
  const char* p = static_cast<const char*>(a.data()) + i * static_cast<int64_t>(dtypeBytes(a.dtype));
  switch (a.dtype) {
    case DType::Bool: return *reinterpret_cast<const uint8_t*>(p) ? "True" : "False";
    case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case DType::I64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case DType::F32: { float v; std::memcpy(&v, p, 4); return floatText(v, scalar); }
    case DType::F64: { double v; std::memcpy(&v, p, 8); return floatText(v, scalar); }
    case DType::F16: { uint16_t v; std::memcpy(&v, p, 2); return floatText(halfToFloat(v), scalar); }
    case DType::BF16: { uint16_t v; std::memcpy(&v, p, 2); return floatText(bf16ToFloat(v), scalar); }
    case DType::I8: return std::to_string(*reinterpret_cast<const int8_t*>(p));
    case DType::U8: return std::to_string(*reinterpret_cast<const uint8_t*>(p));
    case DType::I16: { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case DType::U16: { uint16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case DType::U32: { uint32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case DType::U64: { uint64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case DType::F8E4M3: case DType::F8E5M2: return floatText(fp8ToFloat(*reinterpret_cast<const uint8_t*>(p), a.dtype), scalar);
  }
  return "?";
}

}  // namespace

std::string hostTensorText(const NDArray& a) {
  if (a.shape.empty()) return elementText(a, 0, true);
  bool summarise = a.numel() > kSummariseAbove;
  std::function<std::string(size_t, int64_t)> axis = [&](size_t d, int64_t offset) {
    int64_t n = a.shape[d], stride = 1;
    for (size_t k = d + 1; k < a.shape.size(); ++k) stride *= a.shape[k];
    std::string out = "[";
    std::string sep = d + 1 == a.shape.size() ? " " : "\n" + std::string(d + 1, ' ');
    for (int64_t i = 0; i < n; ++i) {
      if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) {
        out += "..." + sep;
        i = n - kEdgeItems - 1;
        continue;
      }
      out += d + 1 == a.shape.size() ? elementText(a, offset + i, false) : axis(d + 1, offset + i * stride);
      if (i + 1 < n) out += sep;
    }
    return out + "]";
  };
  return axis(0, 0);
}

std::string formatWithBraces(const std::string& format, const std::vector<std::string>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format.compare(i, 2, "{{") == 0 || format.compare(i, 2, "}}") == 0) {
      out += format[i++];
      continue;
    }
    if (format.compare(i, 2, "{}") == 0) {
      if (next >= args.size())
        throw std::runtime_error("the format \"" + format + "\" has more {} than the " + std::to_string(args.size()) + " values given");
      out += args[next++];
      ++i;
      continue;
    }
    out += format[i];
  }
  return out;
}

}  // namespace tvms::runtime
