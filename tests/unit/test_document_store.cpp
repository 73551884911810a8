// The language server's document store: didChange's edits applied in the session's encoding, the
// version, whole-text replacements, edits outside the document left out and counted.
#include <doctest/doctest.h>

#include "server/document_store.h"

using tvms::server::DocumentStore;
using tvms::server::json;

namespace {
json edit(uint32_t l0, uint32_t c0, uint32_t l1, uint32_t c1, const std::string& text) {
  return {{"range", {{"start", {{"line", l0}, {"character", c0}}}, {"end", {{"line", l1}, {"character", c1}}}}}, {"text", text}};
}
}  // namespace

TEST_CASE("document store: edits in order, in UTF-16 columns, with the version given or the last plus one") {
  DocumentStore docs;
  docs.open("file:///a.py", "x = \"\xC3\xA9\xF0\x9F\x98\x80\"\ny = 1\n", 3);  // é is 1 UTF-16 unit, 😀 2
  // After the emoji (column 1 + 1 + 2 = 4 in UTF-16), then the second line's value.
  auto c = docs.change("file:///a.py", json::array({edit(0, 8, 0, 8, "!"), edit(1, 4, 1, 5, "22")}), std::nullopt,
                       tvms::syntax::Encoding::Utf16);
  REQUIRE(c.has_value());
  CHECK_FALSE(c->whole);
  REQUIRE(c->edits.size() == 2);
  CHECK(c->edits[0].range.begin == 11);  // bytes: `x = "` 5, é 2, 😀 4
  CHECK(docs.find("file:///a.py")->text == "x = \"\xC3\xA9\xF0\x9F\x98\x80!\"\ny = 22\n");
  CHECK(docs.find("file:///a.py")->version == 4);
  c = docs.change("file:///a.py", json::array({edit(1, 0, 1, 0, "#")}), 10, tvms::syntax::Encoding::Utf16);
  CHECK(docs.find("file:///a.py")->version == 10);
  CHECK(docs.find("file:///a.py")->lines.lineCount() == 3);
}

TEST_CASE("document store: a whole-text change replaces the edits before it and an edit outside the document is counted and left out") {
  DocumentStore docs;
  docs.open("file:///b.py", "a\nb\n", 1);
  auto c = docs.change("file:///b.py", json::array({edit(0, 0, 0, 1, "z"), {{"text", "new\n"}}, edit(7, 0, 7, 1, "q"), edit(0, 0, 0, 0, "#")}),
                       2, tvms::syntax::Encoding::Utf8);
  REQUIRE(c.has_value());
  CHECK(c->whole);
  CHECK(c->ignored == 1);
  CHECK(c->edits.size() == 1);  // the one after the replacement
  CHECK(docs.find("file:///b.py")->text == "#new\n");
  CHECK_FALSE(docs.change("file:///nope.py", json::array(), 1, tvms::syntax::Encoding::Utf8).has_value());
  docs.close("file:///b.py");
  CHECK(docs.find("file:///b.py") == nullptr);
  CHECK(docs.all().empty());
}
