#include "compiler/diagnostics/render_text.h"

#include <algorithm>

namespace tvms::diag {

namespace {

std::string location(const TextSource& src, uint32_t offset) {
  auto lc = src.lines->toLineCol(offset, syntax::Encoding::Utf16);
  return src.path + ":" + std::to_string(lc.line + 1) + ":" + std::to_string(lc.column + 1);
}

// The line holding `r.begin`, with carets under the range (clipped to that line).
std::string excerpt(const TextSource& src, ByteRange r, bool color, const char* caretColor) {
  uint32_t line = src.lines->lineOf(r.begin);
  uint32_t start = src.lines->lineStart(line), end = src.lines->lineEnd(line);
  std::string_view text = src.text.substr(start, end - start);
  std::string number = std::to_string(line + 1);
  std::string gutter(number.size(), ' ');
  uint32_t from = src.lines->toLineCol(r.begin, syntax::Encoding::Utf16).column;
  uint32_t to = src.lines->toLineCol(std::min(std::max(r.end, r.begin + 1), end > r.begin ? end : r.begin + 1),
                                     syntax::Encoding::Utf16).column;
  if (to <= from) to = from + 1;
  std::string out = gutter + " |\n" + number + " | " + std::string(text) + "\n" + gutter + " | " + std::string(from, ' ');
  if (color) out += caretColor;
  out += std::string(to - from, '^');
  if (color) out += "\x1b[0m";
  return out + "\n";
}

}  // namespace

std::string renderText(const Diagnostic& d, const TextSource& src, bool color) {
  const char* sevColor = d.severity == Severity::Error ? "\x1b[1;31m" : d.severity == Severity::Warning ? "\x1b[1;33m" : "\x1b[1;36m";
  std::string out = location(src, d.range.begin) + ": ";
  if (color) out += sevColor;
  out += std::string(severityName(d.severity)) + "[" + std::string(codeName(d.code)) + "]";
  if (color) out += "\x1b[0m\x1b[1m";
  out += ": " + d.message;
  if (color) out += "\x1b[0m";
  out += "\n" + excerpt(src, d.range, color, sevColor);
  for (auto& r : d.related) out += "  note: " + location(src, r.range.begin) + ": " + r.message + "\n";
  for (auto& f : d.fixes) out += "  fix: " + f.title + "\n";
  return out;
}

}  // namespace tvms::diag
