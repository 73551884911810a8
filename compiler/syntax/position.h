#pragma once
// Positions as the compiler speaks them: byte offsets into a document's UTF-8 text.
// Editors speak (line, column) in UTF-16 code units (LSP's default) or UTF-8 bytes;
// LineIndex converts between the two.
#include <cstdint>

namespace tvms::syntax {

struct ByteRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool contains(uint32_t offset) const { return begin <= offset && offset < end; }
  bool operator==(const ByteRange&) const = default;
};

// Column unit of a (line, column) position.
enum class Encoding { Utf8, Utf16 };

struct LineCol {
  uint32_t line = 0;    // 0-based
  uint32_t column = 0;  // 0-based, in the unit of the Encoding used
  bool operator==(const LineCol&) const = default;
};

}  // namespace tvms::syntax
