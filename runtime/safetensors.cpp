// safetensors (huggingface/safetensors' format): u64 little-endian N, N bytes of a JSON object
// {"NAME": {"dtype": "F32", "shape": [..], "data_offsets": [BEGIN, END]}, "__metadata__": {...}},
// then the byte buffer the offsets index (from its start). As the reference reader does, the
// tensors must cover the buffer exactly, in order, without holes or overlaps.
#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "runtime/mapped_file.h"
#include "runtime/shape_math.h"
#include "runtime/weights_file.h"

namespace tvms::runtime {

namespace {

// The reference implementation's bound on the header (100 MB) and a nesting bound that keeps a
// hostile header from recursing deep.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr int kMaxHeaderNesting = 64;

std::optional<DType> dtypeOfCode(const std::string& code) {
  if (code == "F32") return DType::F32;
  if (code == "F16") return DType::F16;
  if (code == "BF16") return DType::BF16;
  if (code == "F8_E4M3") return DType::F8E4M3;
  if (code == "F8_E5M2") return DType::F8E5M2;
  if (code == "F64") return DType::F64;
  if (code == "I32") return DType::I32;
  if (code == "I64") return DType::I64;
  if (code == "BOOL") return DType::Bool;
  if (code == "I8") return DType::I8;
  if (code == "U8") return DType::U8;
  if (code == "I16") return DType::I16;
  if (code == "U16") return DType::U16;
  if (code == "U32") return DType::U32;
  if (code == "U64") return DType::U64;
  return std::nullopt;
}

int nestingOf(std::string_view text) {
  int depth = 0, most = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      most = std::max(most, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return most;
}

int64_t nonNegativeInt(const nlohmann::json& v, const std::string& what) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0) throw std::runtime_error(what + " is not a non-negative integer");
  return v.get<int64_t>();
}

}  // namespace

std::vector<NamedTensor> readSafetensors(const std::string& path, const std::shared_ptr<DeviceAPI>& host) {
  std::shared_ptr<MappedFile> file = mapFile(path);
  auto fail = [&](const std::string& why) { return std::runtime_error(path + ": " + why); };
  if (file->size < 8) throw fail("not a safetensors file (shorter than its 8-byte header length)");
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i) headerBytes = headerBytes << 8 | static_cast<unsigned char>(file->data[i]);
  if (headerBytes > kMaxHeaderBytes || headerBytes > file->size - 8)
    throw fail("not a safetensors file (its header length " + std::to_string(headerBytes) + " is past the file's " +
               std::to_string(file->size) + " bytes)");
  std::string_view header(file->data + 8, headerBytes);
  if (header.empty() || header[0] != '{') throw fail("not a safetensors file (the header is not a JSON object)");
  if (nestingOf(header) > kMaxHeaderNesting) throw fail("the safetensors header nests deeper than " + std::to_string(kMaxHeaderNesting));
  // A name given twice is an error (a JSON object would keep one of them without a word).
  std::set<std::string> names;
  std::string twice;
  auto noDuplicates = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key && !names.insert(parsed.get<std::string>()).second && twice.empty())
      twice = parsed.get<std::string>();
    return true;
  };
  nlohmann::json json = nlohmann::json::parse(header.begin(), header.end(), noDuplicates, false);
  if (!twice.empty()) throw fail("the safetensors header names tensor '" + twice + "' twice");
  if (json.is_discarded() || !json.is_object()) throw fail("the safetensors header is not valid JSON");

  char* buffer = file->data + 8 + headerBytes;
  const uint64_t bufferBytes = file->size - 8 - headerBytes;
  struct Span {
    uint64_t begin, end;
    std::string name;
    bool operator<(const Span& o) const { return begin < o.begin || (begin == o.begin && end < o.end); }
  };
  std::vector<Span> spans;
  std::vector<NamedTensor> out;
  for (auto& [name, entry] : json.items()) {
    if (name == "__metadata__") continue;  // free-form strings
    std::string what = "tensor '" + name + "'";
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      throw fail(what + " lacks its dtype, shape or data_offsets");
    if (!entry["dtype"].is_string()) throw fail(what + ": dtype is not a string");
    std::string code = entry["dtype"].get<std::string>();
    auto dtype = dtypeOfCode(code);
    if (!dtype) throw fail(what + " has dtype " + code + ", which tvms does not run (F8_E4M3, F8_E5M2, F16, BF16, F32, F64, I8, U8, I16, U16, I32, U32, I64, U64, BOOL)");
    NDArray a;
    a.dtype = *dtype;
    if (!entry["shape"].is_array()) throw fail(what + ": shape is not a list");
    for (auto& d : entry["shape"]) a.shape.push_back(nonNegativeInt(d, path + ": " + what + ": a dimension"));
    auto& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2) throw fail(what + ": data_offsets is not [BEGIN, END]");
    uint64_t begin = static_cast<uint64_t>(nonNegativeInt(offsets[0], path + ": " + what + ": data_offsets"));
    uint64_t end = static_cast<uint64_t>(nonNegativeInt(offsets[1], path + ": " + what + ": data_offsets"));
    size_t bytes = 0;
    try {
      bytes = a.bytes();
    } catch (const std::exception& e) {
      throw fail(what + ": " + e.what());
    }
    if (begin > end || end > bufferBytes)
      throw fail(what + "'s bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ") run past the file's data (" +
                 std::to_string(bufferBytes) + " bytes)");
    if (end - begin != bytes)
      throw fail(what + " of " + std::string(dtypeName(a.dtype)) + " " + a.shapeText() + " needs " + std::to_string(bytes) + " bytes, its data_offsets give " +
                 std::to_string(end - begin));
    spans.push_back({begin, end, name});
    char* data = buffer + begin;
    if (reinterpret_cast<uintptr_t>(data) % dtypeBytes(a.dtype) == 0) {
      a.storage = std::make_shared<Storage>(host, -1, data, bytes, std::shared_ptr<void>(file));
    } else {  // elements the map does not align: a copy of their own
      a.storage = std::make_shared<Storage>(host, -1, bytes);
      std::memcpy(a.data(), data, bytes);
    }
    out.push_back({name, std::move(a)});
  }
  // The data must be exactly the tensors', one after another (no holes, no overlaps).
  std::sort(spans.begin(), spans.end());
  uint64_t at = 0;
  for (auto& s : spans) {
    if (s.begin != at)
      throw fail("tensor '" + s.name + "' starts at byte " + std::to_string(s.begin) + " of the data, " +
                 (s.begin < at ? "inside the tensor before it" : "after a gap from byte " + std::to_string(at)));
    at = s.end;
  }
  if (at != bufferBytes) throw fail("the data has " + std::to_string(bufferBytes - at) + " bytes after its last tensor");
  return out;
}

}  // namespace tvms::runtime
