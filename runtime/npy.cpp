#include "runtime/npy.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <stdexcept>

#include "runtime/device_api.h"

namespace tvms::runtime {

namespace {

const char* descrOf(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::F16: return "<f2";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::BF16: return "|V2";  // numpy has no bfloat16: raw 2-byte values, as ml_dtypes stores them
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::I16: return "<i2";
    case DType::U16: return "<u2";
    case DType::U32: return "<u4";
    case DType::U64: return "<u8";
    // numpy has no float8: raw bytes as ml_dtypes stores them. '|V1' reads back as float8_e4m3fn.
    case DType::F8E4M3: case DType::F8E5M2: return "|V1";
  }
  return "?";
}

// The text after `'key':` in the header's dict (spaces skipped), or nothing. A scan, not std::regex:
// libstdc++'s regex recurses once per character and overflowed the stack on a long header (fuzz_npy).
std::optional<std::string_view> valueOf(std::string_view header, std::string_view key) {
  std::string quoted = "'" + std::string(key) + "'";
  for (size_t at = header.find(quoted); at != std::string_view::npos; at = header.find(quoted, at + 1)) {
    size_t i = header.find_first_not_of(" \t", at + quoted.size());
    if (i == std::string_view::npos || header[i] != ':') continue;
    i = header.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos) return std::nullopt;
    return header.substr(i);
  }
  return std::nullopt;
}

// The text between `open` at the start of `v` and the next `close`, or nothing.
std::optional<std::string> enclosed(std::optional<std::string_view> v, char open, char close) {
  if (!v || v->empty() || (*v)[0] != open) return std::nullopt;
  size_t end = v->find(close, 1);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(v->substr(1, end - 1));
}

}  // namespace

NDArray readNpy(const std::string& path, const std::shared_ptr<DeviceAPI>& host) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read " + path);
  const auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  return readNpy(in, size, host, path);
}

NDArray readNpy(std::istream& in, uint64_t size, const std::shared_ptr<DeviceAPI>& host, const std::string& path) {
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + " is not a .npy file");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint16_t n;
    in.read(reinterpret_cast<char*>(&n), 2);
    headerLen = n;
  } else {
    in.read(reinterpret_cast<char*>(&headerLen), 4);
  }
  if (!in || headerLen > (1u << 20)) throw std::runtime_error(path + ": damaged .npy header");
  std::string header(headerLen, '\0');
  in.read(header.data(), headerLen);
  auto descrText = enclosed(valueOf(header, "descr"), '\'', '\'');
  if (!descrText || descrText->empty()) throw std::runtime_error(path + ": no dtype in the .npy header");
  std::string descr = *descrText;
  NDArray a;
  bool found = false;
  for (DType t : {DType::Bool, DType::I32, DType::I64, DType::F16, DType::F32, DType::F64, DType::BF16, DType::I8, DType::U8, DType::I16, DType::U16,
                  DType::U32, DType::U64, DType::F8E4M3})
    if (!found && (descr == descrOf(t) || (t == DType::Bool && descr == "<b1"))) { a.dtype = t; found = true; }
  if (!found) throw std::runtime_error(path + ": dtype '" + descr + "' is not supported (float16/32/64, int8/32/64, uint8, bool, little-endian)");
  if (auto fortran = valueOf(header, "fortran_order"); fortran && fortran->substr(0, 4) == "True")
    throw std::runtime_error(path + ": Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  auto shapeText = enclosed(valueOf(header, "shape"), '(', ')');
  if (!shapeText) throw std::runtime_error(path + ": no shape in the .npy header");
  // Each dimension a non-negative integer, and the whole array no larger than what the file holds
  // (a negative dimension was read as positive; a shape whose product overflows crashed).
  std::string dims = *shapeText;
  uint64_t elements = 1;
  for (size_t at = 0; at < dims.size();) {
    size_t comma = dims.find(',', at);
    if (comma == std::string::npos) comma = dims.size();
    std::string item = dims.substr(at, comma - at);
    at = comma + 1;
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \tL") + 1);
    if (item.empty()) continue;  // the trailing comma of a 1-d shape: (5,)
    int64_t d = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (ec != std::errc() || end != item.data() + item.size() || d < 0)
      throw std::runtime_error(path + ": the .npy shape (" + dims + ") has a dimension that is not a non-negative integer: '" + item + "'");
    // Every prefix product fits int64 (NDArray::numel multiplies the dims in order, so a zero after
    // two huge dims still overflowed there: fuzz_npy).
    if (d != 0 && elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / static_cast<uint64_t>(d))
      throw std::runtime_error(path + ": the .npy shape (" + dims + ") is too large");
    elements *= static_cast<uint64_t>(d);
    a.shape.push_back(d);
  }
  const uint64_t dataStart = 8 + (magic[6] == 1 ? 2 : 4) + uint64_t{headerLen};
  const uint64_t available = size > dataStart ? size - dataStart : 0;
  const uint64_t width = dtypeBytes(a.dtype);
  if (elements > available / width)
    throw std::runtime_error(path + ": its shape " + a.shapeText() + " needs " + std::to_string(elements) + " elements, the file holds " +
                             std::to_string(available / width));
  a.storage = std::make_shared<Storage>(host, -1, a.bytes());
  in.read(static_cast<char*>(a.data()), static_cast<std::streamsize>(a.bytes()));
  if (!in) throw std::runtime_error(path + ": fewer bytes than its shape " + a.shapeText() + " needs");
  return a;
}

void writeNpy(const std::string& path, const NDArray& a) {
  std::string header = "{'descr': '" + std::string(descrOf(a.dtype)) + "', 'fortran_order': False, 'shape': " + a.shapeText() + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t n = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&n), 2);
  out << header;
  out.write(static_cast<const char*>(a.data()), static_cast<std::streamsize>(a.bytes()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace tvms::runtime
