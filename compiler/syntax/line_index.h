#pragma once
// Line starts of a text and the conversions byte offset <-> (line, column) in UTF-8 or UTF-16.
// Invalid UTF-8 bytes count as one code point each (one UTF-16 unit), as editors show them as U+FFFD.
#include <optional>
#include <string_view>
#include <vector>

#include "compiler/syntax/position.h"

namespace tvms::syntax {

class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text) { reset(text); }
  void reset(std::string_view text);
  // Updates the index after text[begin, oldEnd) was replaced by `inserted`; `text` is the new text.
  // Costs the edit plus a shift of the following line starts, not a rescan of the text.
  void applyEdit(std::string_view text, uint32_t begin, uint32_t oldEnd, std::string_view inserted);

  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }
  uint32_t lineStart(uint32_t line) const { return lineStarts_[line]; }
  // Byte offset just past the line's content (before its '\n' or "\r\n").
  uint32_t lineEnd(uint32_t line) const;
  uint32_t lineOf(uint32_t offset) const;
  // The indentation in bytes of the first line after `line` that holds code (neither blank nor only a
  // comment), or nothing when none follows: where a Python block really ends, whatever a recovered
  // tree says.
  std::optional<uint32_t> nextCodeLineIndent(uint32_t line) const;

  LineCol toLineCol(uint32_t offset, Encoding enc) const;
  // Clamps: a line past the end gives the text's end, a column past the line's end gives the line's end,
  // a column inside a character (a UTF-8 byte or half a UTF-16 surrogate pair) gives a character boundary.
  uint32_t toOffset(LineCol pos, Encoding enc) const;

 private:
  std::string_view text_;
  std::vector<uint32_t> lineStarts_;
};

// Length in bytes of the UTF-8 sequence starting at s[i] (1 for an invalid byte), and its UTF-16 length.
struct Utf8Step {
  uint32_t bytes;
  uint32_t utf16Units;
};
Utf8Step utf8Step(std::string_view s, uint32_t i);

// Offset of the first invalid UTF-8 byte, or npos (as uint32_t(-1)) when the text is valid.
uint32_t firstInvalidUtf8(std::string_view s);

}  // namespace tvms::syntax
