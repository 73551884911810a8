#include "compiler/syntax/line_index.h"

#include <algorithm>
#include <cstring>

namespace tvms::syntax {

void LineIndex::reset(std::string_view text) {
  text_ = text;
  lineStarts_.clear();
  lineStarts_.push_back(0);
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', text.data() + text.size() - p)));)
    lineStarts_.push_back(static_cast<uint32_t>(++p - text.data()));
}

void LineIndex::applyEdit(std::string_view text, uint32_t begin, uint32_t oldEnd, std::string_view inserted) {
  text_ = text;
  const int64_t delta = static_cast<int64_t>(inserted.size()) - (oldEnd - begin);
  // Line starts in (begin, oldEnd] came from removed newlines.
  auto first = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), begin);
  auto last = std::upper_bound(first, lineStarts_.end(), oldEnd);
  std::vector<uint32_t> added;
  for (uint32_t i = 0; i < inserted.size(); ++i)
    if (inserted[i] == '\n') added.push_back(begin + i + 1);
  for (auto it = last; it != lineStarts_.end(); ++it) *it = static_cast<uint32_t>(*it + delta);
  auto pos = lineStarts_.erase(first, last);
  lineStarts_.insert(pos, added.begin(), added.end());
}

uint32_t LineIndex::lineEnd(uint32_t line) const {
  uint32_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1] - 1 : static_cast<uint32_t>(text_.size());
  if (end > lineStarts_[line] && end <= text_.size() && end > 0 && text_[end - 1] == '\r' &&
      line + 1 < lineStarts_.size())
    --end;
  return end;
}

uint32_t LineIndex::lineOf(uint32_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  return static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
}

Utf8Step utf8Step(std::string_view s, uint32_t i) {
  auto byte = [&](uint32_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  uint32_t need = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 99;
  if (need == 0) return {1, 1};
  if (need == 99 || i + need >= s.size()) return {1, 1};
  for (uint32_t k = 1; k <= need; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return {1, 1};
  // Reject overlong encodings and surrogates so that "valid" means what Python means.
  uint32_t cp = need == 1 ? (c & 0x1F) : need == 2 ? (c & 0x0F) : (c & 0x07);
  for (uint32_t k = 1; k <= need; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  if ((need == 1 && cp < 0x80) || (need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
    return {1, 1};
  return {need + 1, need == 3 ? 2u : 1u};
}

uint32_t firstInvalidUtf8(std::string_view s) {
  for (uint32_t i = 0; i < s.size();) {
    auto step = utf8Step(s, i);
    if (step.bytes == 1 && static_cast<unsigned char>(s[i]) >= 0x80) return i;
    i += step.bytes;
  }
  return static_cast<uint32_t>(-1);
}

LineCol LineIndex::toLineCol(uint32_t offset, Encoding enc) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  uint32_t line = lineOf(offset);
  uint32_t start = lineStarts_[line];
  if (enc == Encoding::Utf8) return {line, offset - start};
  uint32_t units = 0;
  for (uint32_t i = start; i < offset;) {
    auto step = utf8Step(text_, i);
    units += step.utf16Units;
    i += step.bytes;
  }
  return {line, units};
}

uint32_t LineIndex::toOffset(LineCol pos, Encoding enc) const {
  if (pos.line >= lineStarts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t start = lineStarts_[pos.line];
  uint32_t end = lineEnd(pos.line);
  if (enc == Encoding::Utf8) return std::min(start + pos.column, end);
  uint32_t units = 0;
  uint32_t i = start;
  while (i < end && units < pos.column) {
    auto step = utf8Step(text_, i);
    units += step.utf16Units;
    i += step.bytes;
  }
  return std::min(i, end);
}

}  // namespace tvms::syntax
