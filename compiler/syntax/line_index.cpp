#include "compiler/syntax/line_index.h"

#include <algorithm>
#include <cstring>

namespace tvms::syntax {

namespace {
// Whether a line starts at p (0 < p <= size): after "\n", or after a "\r" that no "\n" follows
// (the LSP's three line endings: "\n", "\r\n" and "\r").
bool startsLine(std::string_view text, size_t p) {
  char c = text[p - 1];
  return c == '\n' || (c == '\r' && (p == text.size() || text[p] != '\n'));
}
}  // namespace

void LineIndex::reset(std::string_view text) {
  text_ = text;
  lineStarts_.clear();
  lineStarts_.push_back(0);
  const char* base = text.data();
  const char* end = base + text.size();
  for (const char* p = base; p < end; ++p) {
    // memchr finds the common "\n" fast; the rare "\r" is checked on the way.
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* stop = nl ? nl : end;
    for (const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<size_t>(stop - p))); cr;
         cr = static_cast<const char*>(std::memchr(cr + 1, '\r', static_cast<size_t>(stop - cr - 1))))
      if (cr + 1 < stop || !nl) lineStarts_.push_back(static_cast<uint32_t>(cr + 1 - base));
    if (!nl) break;
    lineStarts_.push_back(static_cast<uint32_t>(nl + 1 - base));
    p = nl;
  }
}

void LineIndex::applyEdit(std::string_view text, uint32_t begin, uint32_t oldEnd, std::string_view inserted) {
  text_ = text;
  const int64_t delta = static_cast<int64_t>(inserted.size()) - (oldEnd - begin);
  // A line start p depends on the bytes at p - 1 and p: the starts in [begin, oldEnd] may change
  // (a "\r" next to the edit can pair with a "\n" or lose one), those before and after may not.
  const uint32_t from = std::max<uint32_t>(begin, 1);
  auto first = std::lower_bound(lineStarts_.begin(), lineStarts_.end(), from);
  auto last = std::upper_bound(first, lineStarts_.end(), oldEnd);
  std::vector<uint32_t> added;
  const uint32_t newEnd = begin + static_cast<uint32_t>(inserted.size());
  for (uint32_t p = from; p <= newEnd && p <= text.size(); ++p)
    if (startsLine(text, p)) added.push_back(p);
  for (auto it = last; it != lineStarts_.end(); ++it) *it = static_cast<uint32_t>(*it + delta);
  auto pos = lineStarts_.erase(first, last);
  lineStarts_.insert(pos, added.begin(), added.end());
}

std::optional<uint32_t> LineIndex::nextCodeLineIndent(uint32_t line) const {
  for (uint32_t l = line + 1; l < lineCount(); ++l) {
    std::string_view content = text_.substr(lineStart(l), lineEnd(l) - lineStart(l));
    size_t first = content.find_first_not_of(" \t\f");
    if (first != std::string_view::npos && content[first] != '#') return static_cast<uint32_t>(first);
  }
  return std::nullopt;
}

uint32_t LineIndex::lineEnd(uint32_t line) const {
  if (line + 1 >= lineStarts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t next = lineStarts_[line + 1];  // just past the line's ending: "\n", "\r\n" or "\r"
  uint32_t end = next - 1;
  if (text_[end] == '\n' && end > lineStarts_[line] && text_[end - 1] == '\r') --end;
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
    // Eight ASCII bytes at a time (no byte with its high bit set): every file tvms reads is checked
    // before anything else runs, and most source is ASCII (a byte at a time was 1% of a lint).
    uint64_t word;
    if (i + sizeof word <= s.size()) {
      std::memcpy(&word, s.data() + i, sizeof word);
      if ((word & 0x8080808080808080ull) == 0) {
        i += sizeof word;
        continue;
      }
    }
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
  if (enc == Encoding::Utf8) {
    // A column inside a multi-byte character means the character's start: an edit there must
    // never split a UTF-8 sequence.
    uint32_t target = std::min<uint64_t>(uint64_t{start} + pos.column, end), i = start;
    while (i < target) {
      uint32_t next = i + utf8Step(text_, i).bytes;
      if (next > target) break;
      i = next;
    }
    return i;
  }
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
