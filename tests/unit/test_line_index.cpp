// Byte offset <-> (line, column) in UTF-8 and UTF-16, on non-ASCII text.
#include <doctest/doctest.h>

#include <string>

#include "compiler/syntax/line_index.h"

using namespace tvms::syntax;

TEST_CASE("line index: ASCII lines") {
  LineIndex li("ab\ncd\n\nx");
  CHECK(li.lineCount() == 4);
  CHECK(li.toLineCol(0, Encoding::Utf16) == LineCol{0, 0});
  CHECK(li.toLineCol(4, Encoding::Utf16) == LineCol{1, 1});
  CHECK(li.toLineCol(7, Encoding::Utf8) == LineCol{3, 0});
  CHECK(li.toOffset({1, 1}, Encoding::Utf8) == 4);
  CHECK(li.lineEnd(0) == 2);
}

TEST_CASE("line index: UTF-16 columns count surrogate pairs as two units") {
  // "é" is 2 bytes / 1 unit, "中" 3 bytes / 1 unit, "😀" 4 bytes / 2 units.
  std::string text = "x = \"é中😀\" + y\nz";
  LineIndex li(text);
  uint32_t yOffset = static_cast<uint32_t>(text.find('y'));
  CHECK(li.toLineCol(yOffset, Encoding::Utf8) == LineCol{0, yOffset});
  // columns: x,space,=,space,"  (5) é(1) 中(1) 😀(2) "(1) space + space (3) -> y at 13
  CHECK(li.toLineCol(yOffset, Encoding::Utf16) == LineCol{0, 13});
  CHECK(li.toOffset({0, 13}, Encoding::Utf16) == yOffset);
  // round trip every code point boundary
  for (uint32_t off = 0; off <= text.size();) {
    auto lc = li.toLineCol(off, Encoding::Utf16);
    CHECK(li.toOffset(lc, Encoding::Utf16) == off);
    if (off == text.size()) break;
    off += utf8Step(text, off).bytes;
  }
}

TEST_CASE("line index: positions past the end clamp, CRLF lines end before the CR") {
  LineIndex li("ab\r\ncd");
  CHECK(li.lineEnd(0) == 2);
  CHECK(li.toOffset({0, 99}, Encoding::Utf16) == 2);
  CHECK(li.toOffset({9, 0}, Encoding::Utf16) == 6);
}

TEST_CASE("line index: invalid UTF-8 bytes count as one unit each and are found") {
  std::string text = "a\xff\xfe" "b";
  LineIndex li(text);
  CHECK(li.toLineCol(3, Encoding::Utf16) == LineCol{0, 3});
  CHECK(firstInvalidUtf8(text) == 1);
  CHECK(firstInvalidUtf8("plain é") == static_cast<uint32_t>(-1));
  CHECK(firstInvalidUtf8("\xc0\xaf") == 0);       // overlong
  CHECK(firstInvalidUtf8("\xed\xa0\x80") == 0);   // surrogate
  CHECK(firstInvalidUtf8("ok\xe4\xb8") == 2);     // truncated sequence
}

TEST_CASE("line index: a lone CR ends a line, as do LF and CRLF (the LSP's three line endings)") {
  LineIndex li("a\rb\r\nc\nd\r\re");
  REQUIRE(li.lineCount() == 6);
  CHECK(li.lineStart(1) == 2);
  CHECK(li.lineStart(2) == 5);
  CHECK(li.lineStart(3) == 7);
  CHECK(li.lineStart(4) == 9);
  CHECK(li.lineStart(5) == 10);
  CHECK(li.lineEnd(0) == 1);
  CHECK(li.lineEnd(1) == 3);  // before "\r\n"
  CHECK(li.lineEnd(3) == 8);  // "d", then a lone "\r"
  CHECK(li.lineEnd(4) == 9);  // an empty line ended by the second "\r"
  CHECK(li.toLineCol(10, Encoding::Utf16) == LineCol{5, 0});
  CHECK(LineIndex("x\r").lineCount() == 2);
}

TEST_CASE("line index: incremental updates equal a rebuild") {
  std::string text = "ab\ncd\n\nefg\r\nh\ri";
  LineIndex li(text);
  uint32_t seed = 3;
  INFO("linear congruential sequence from seed 3");
  // Carriage returns inserted or removed next to "\n" make and break CRLF pairs at the edit's edges.
  const char* pieces[] = {"", "x", "\n", "y\nz", "\n\n", "é", "\r", "\r\n", "q\r"};
  for (int i = 0; i < 3000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    uint32_t b = (seed >> 8) % static_cast<uint32_t>(text.size() + 1);
    uint32_t e = std::min<uint32_t>(static_cast<uint32_t>(text.size()), b + (seed >> 20) % 3);
    std::string piece = pieces[(seed >> 4) % 9];
    text.replace(b, e - b, piece);
    li.applyEdit(text, b, e, piece);
    LineIndex fresh(text);
    REQUIRE(li.lineCount() == fresh.lineCount());
    for (uint32_t l = 0; l < fresh.lineCount(); ++l) CHECK(li.lineStart(l) == fresh.lineStart(l));
  }
}

// firstInvalidUtf8 skips eight ASCII bytes at a time: a non-ASCII byte (valid or not) at any place
// relative to those words, and near the end, must be found exactly as a byte-at-a-time scan finds it.
TEST_CASE("line index: the first invalid UTF-8 byte is found wherever it falls among ASCII words") {
  auto byByte = [](std::string_view s) {
    for (uint32_t i = 0; i < s.size();) {
      auto step = utf8Step(s, i);
      if (step.bytes == 1 && static_cast<unsigned char>(s[i]) >= 0x80) return i;
      i += step.bytes;
    }
    return static_cast<uint32_t>(-1);
  };
  const std::string pieces[] = {"\xff", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc0\xaf", "\xe4\xb8"};
  for (const std::string& piece : pieces)
    for (uint32_t before = 0; before < 20; ++before)
      for (uint32_t after = 0; after < 12; ++after) {
        std::string text = std::string(before, 'a') + piece + std::string(after, 'b');
        INFO("piece of ", piece.size(), " bytes after ", before, " ASCII bytes, before ", after);
        CHECK(firstInvalidUtf8(text) == byByte(text));
        std::string twice = text + piece + "\xff";  // a second piece and an invalid byte after the first
        CHECK(firstInvalidUtf8(twice) == byByte(twice));
      }
}
