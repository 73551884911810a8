#include "compiler/syntax/skeleton_scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace tvms::syntax {

namespace {

// One logical line of code (blank and comment-only lines are none).
struct LogicalLine {
  uint32_t lineStart;  // the start of its first physical line
  uint32_t indent;     // its first physical line's indentation, in bytes (spaces only)
  uint32_t end;        // the end of its last physical line (its '\n' or the text's end)
  uint32_t lastAt;     // where its last character of code is
  char last;           // its last character of code
};

// Just past the string literal whose opening quote is text[q], or npos when it does not close.
// A backslash takes the next character with it in every kind of string (r"\"" is one string too).
size_t stringEnd(std::string_view t, size_t q) {
  const char quote = t[q];
  const bool triple = q + 2 < t.size() && t[q + 1] == quote && t[q + 2] == quote;
  size_t i = q + (triple ? 3 : 1);
  while (i < t.size()) {
    char c = t[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '\n' && !triple) return std::string_view::npos;
    if (c == quote) {
      if (!triple) return i + 1;
      if (i + 2 < t.size() && t[i + 1] == quote && t[i + 2] == quote) return i + 3;
    }
    ++i;
  }
  return std::string_view::npos;
}

// The bytes logicalLines treats as any other: all but line ends, comments, backslashes, quotes,
// brackets and blanks.
constexpr auto kOrdinary = [] {
  std::array<bool, 256> ordinary{};
  for (int c = 0; c < 256; ++c) ordinary[c] = true;
  for (unsigned char c : std::string_view("\n#\\\"'()[]{} \t")) ordinary[c] = false;
  return ordinary;
}();

std::optional<std::vector<LogicalLine>> logicalLines(std::string_view t) {
  std::vector<LogicalLine> out;
  size_t i = 0;
  const size_t n = t.size();
  while (i < n) {
    size_t p = i;
    while (p < n && t[p] == ' ') ++p;
    if (p < n && (t[p] == '\t' || t[p] == '\f')) return std::nullopt;  // columns the scan does not count
    if (p == n) break;
    if (t[p] == '\n' || t[p] == '#') {
      const char* nl = static_cast<const char*>(std::memchr(t.data() + p, '\n', n - p));
      i = nl ? static_cast<size_t>(nl - t.data()) + 1 : n;
      continue;
    }
    LogicalLine line{static_cast<uint32_t>(i), static_cast<uint32_t>(p - i), 0, 0, 0};
    int depth = 0;
    size_t q = p;
    for (;;) {
      // A run of characters with no meaning to the scan (names, digits, operators) at once: only its
      // last one is remembered. The scan reads every byte of the file before any parse starts, on
      // one core (10k lines: a fifth of its instructions went to testing each byte below).
      size_t run = q;
      while (q < n && kOrdinary[static_cast<unsigned char>(t[q])]) ++q;
      if (q > run) {
        line.last = t[q - 1];
        line.lastAt = static_cast<uint32_t>(q - 1);
      }
      if (q >= n) {
        if (depth) return std::nullopt;
        line.end = static_cast<uint32_t>(n);
        break;
      }
      char c = t[q];
      if (c == '\n') {
        if (depth == 0) {
          line.end = static_cast<uint32_t>(q);
          ++q;
          break;
        }
        ++q;
      } else if (c == '#') {
        const char* nl = static_cast<const char*>(std::memchr(t.data() + q, '\n', n - q));
        q = nl ? static_cast<size_t>(nl - t.data()) : n;
      } else if (c == '\\') {
        if (q + 1 >= n || t[q + 1] != '\n') return std::nullopt;  // a backslash outside a string only continues a line
        q += 2;
      } else if (c == '"' || c == '\'') {
        line.lastAt = static_cast<uint32_t>(q);
        q = stringEnd(t, q);
        if (q == std::string_view::npos) return std::nullopt;
        line.last = c;
      } else {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
          if (depth == 0) return std::nullopt;
          --depth;
        }
        if (c != ' ' && c != '\t') {
          line.last = c;
          line.lastAt = static_cast<uint32_t>(q);
        }
        ++q;
      }
    }
    out.push_back(line);
    i = q;
  }
  return out;
}

bool startsWithWord(std::string_view t, size_t at, std::string_view word) {
  if (t.substr(at, word.size()) != word) return false;
  size_t after = at + word.size();
  return after >= t.size() || t[after] == ' ' || t[after] == '(' || t[after] == ':' || t[after] == '\\';
}

bool isDef(std::string_view t, const LogicalLine& l) {
  size_t at = l.lineStart + l.indent;
  if (startsWithWord(t, at, "async")) {
    at += 5;
    while (at < t.size() && t[at] == ' ') ++at;
  }
  return startsWithWord(t, at, "def");
}

char firstChar(std::string_view t, const LogicalLine& l) { return t[l.lineStart + l.indent]; }

// The line start after `end` (a line's end): where the next line begins.
uint32_t nextLineStart(std::string_view t, uint32_t end) { return end < t.size() ? end + 1 : end; }

// Blanks a function's body in the skeleton: every byte but line breaks becomes a space, then its last
// line gets `x`s from one column right of the `def` to that line's last character (tree-sitter ends a
// definition after a comment on its last line too). False when that line ends left of there (a
// closing bracket dedented to the `def`'s column).
bool blankBody(std::string& skeleton, ScannedFunction& f) {
  uint32_t lastLineStart = f.range.end;
  while (lastLineStart > f.bodyBegin && skeleton[lastLineStart - 1] != '\n') --lastLineStart;
  uint32_t end = f.range.end;
  while (end > lastLineStart && skeleton[end - 1] == ' ') --end;
  for (uint32_t k = f.bodyBegin; k < f.range.end; ++k)
    if (skeleton[k] != '\n') skeleton[k] = ' ';
  uint32_t from = lastLineStart + f.column + 1;
  if (end <= from) return false;
  std::memset(&skeleton[from], 'x', end - from);
  f.lastLineBegin = lastLineStart;
  f.definitionBegin = f.range.begin + f.column;
  f.definitionEnd = end;
  return true;
}

bool identifierByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

// Blanks what is between a `def`'s parentheses and what is between its `)` and the `:` ending the line
// (a return annotation), line breaks kept. Left as it is when the line is not read as `def NAME(...)`.
void blankSignature(std::string& skeleton, const ScannedFunction& f) {
  std::string_view t = skeleton;
  size_t p = f.signature.begin;
  auto skipSpaces = [&] { while (p < f.signature.end && t[p] == ' ') ++p; };
  if (t.substr(p, 5) == "async") {
    p += 5;
    skipSpaces();
  }
  p += 3;  // def
  skipSpaces();
  while (p < f.signature.end && identifierByte(t[p])) ++p;
  skipSpaces();
  if (p >= f.signature.end || t[p] != '(') return;
  const size_t open = p;
  int depth = 0;
  for (; p < f.signature.end; ++p) {
    char c = t[p];
    if (c == '"' || c == '\'') {
      p = stringEnd(t, p);
      if (p == std::string_view::npos) return;
      --p;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
      break;
    }
  }
  if (p >= f.signature.end) return;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k)
      if (skeleton[k] != '\n') skeleton[k] = ' ';
  };
  blank(open + 1, p);
  blank(p + 1, f.signature.end);
}

}  // namespace

std::optional<Skeleton> scanSkeleton(std::string_view text) {
  if (text.find('\r') != std::string_view::npos) return std::nullopt;
  if (text.size() >= UINT32_MAX) return std::nullopt;
  auto lines = logicalLines(text);
  if (!lines) return std::nullopt;
  Skeleton out;
  const auto& ls = *lines;
  std::optional<uint32_t> decorators;  // the first line of the decorators seen just before
  for (size_t k = 0; k < ls.size();) {
    const LogicalLine& line = ls[k];
    if (line.indent != 0) {  // the body of a top-level statement that is not a class
      ++k;
      continue;
    }
    if (firstChar(text, line) == '@') {
      if (!decorators) decorators = line.lineStart;
      ++k;
      continue;
    }
    const uint32_t classBegin = decorators.value_or(line.lineStart);
    decorators.reset();
    if (!startsWithWord(text, line.lineStart, "class") || line.last != ':' || k + 1 >= ls.size() || ls[k + 1].indent == 0) {
      ++k;
      continue;
    }
    const ByteRange header{classBegin, nextLineStart(text, line.end)};
    const uint32_t column = ls[k + 1].indent;
    size_t m = k + 1;
    constexpr uint32_t kNone = UINT32_MAX;
    uint32_t memberDecorators = kNone;  // the first line of the member's decorators seen just before
    while (m < ls.size() && ls[m].indent != 0) {
      const LogicalLine& member = ls[m];
      if (member.indent != column) return std::nullopt;  // CPython's IndentationError: the whole parse reports it
      if (firstChar(text, member) == '@') {
        if (memberDecorators == kNone) memberDecorators = member.lineStart;
        ++m;
        continue;
      }
      const uint32_t begin = memberDecorators == kNone ? member.lineStart : memberDecorators;
      memberDecorators = kNone;
      size_t last = m;
      while (last + 1 < ls.size() && ls[last + 1].indent > column) ++last;
      if (last > m && member.last != ':') return std::nullopt;  // a deeper line after a simple statement
      if (last > m && isDef(text, member)) {
        ScannedFunction f{header, {begin, ls[last].end}, ls[m + 1].lineStart, column, {member.lineStart + member.indent, member.lastAt}};
        out.functions.push_back(f);
      }
      m = last + 1;
    }
    if (memberDecorators != kNone) return std::nullopt;  // decorators with nothing under them
    k = m;
  }
  if (decorators) return std::nullopt;
  if (out.functions.empty()) return std::nullopt;
  out.text.assign(text);
  for (auto& f : out.functions) {
    if (!blankBody(out.text, f)) return std::nullopt;
    blankSignature(out.text, f);
  }
  return out;
}

std::vector<ByteRange> skeletonReadRanges(const Skeleton& skeleton) {
  std::vector<ByteRange> read;
  uint32_t from = 0;
  for (const ScannedFunction& f : skeleton.functions) {
    if (f.lastLineBegin <= f.bodyBegin) continue;  // one body line: nothing to skip
    read.push_back({from, f.bodyBegin});
    from = f.lastLineBegin;
  }
  read.push_back({from, static_cast<uint32_t>(skeleton.text.size())});
  if (read.size() > kMostSkippedBodies + 1) return {{0, static_cast<uint32_t>(skeleton.text.size())}};
  return read;
}

}  // namespace tvms::syntax
