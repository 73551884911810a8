// Document: incremental reparse through ts_tree_edit, reusing the untouched functions' subtrees.
#include <doctest/doctest.h>

#include <random>

#include "compiler/syntax/document.h"

using namespace tvms::syntax;

namespace {
const char* kTwoFunctions = R"(@I.ir_module
class Module:
    @R.function
    def first(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.add(x, x)
        return y

    @R.function
    def second(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.multiply(x, x)
        return z
)";

TSNode functionNamed(const Document& doc, std::string_view name) {
  // module > decorated_definition > class_definition > block > decorated_definition*
  TSNode cls = ts_node_child_by_field_name(ts_node_named_child(doc.root(), 0), "definition", 10);
  TSNode body = ts_node_child_by_field_name(cls, "body", 4);
  for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
    TSNode d = ts_node_named_child(body, i);
    TSNode def = ts_node_child_by_field_name(d, "definition", 10);
    if (doc.nodeText(ts_node_child_by_field_name(def, "name", 4)) == name) return d;
  }
  return TSNode{};
}
}  // namespace

TEST_CASE("document: an edit inside one function leaves the other function's nodes unchanged") {
  Document doc(kTwoFunctions);
  std::string text = doc.text();
  uint32_t at = static_cast<uint32_t>(text.find("R.add"));
  TSNode secondBefore = functionNamed(doc, "second");
  auto secondText = std::string(doc.nodeText(secondBefore));
  // A structural edit: `R.add(x, x)` becomes `R.add(x, R.exp(x))`.
  uint32_t second = static_cast<uint32_t>(text.find("x)", at));
  auto changed = doc.applyEdit(ByteRange{second, second + 1}, "R.exp(x)");
  CHECK(doc.text().find("R.add(x, R.exp(x))") != std::string::npos);
  CHECK(!ts_node_has_error(doc.root()));
  TSNode firstAfter = functionNamed(doc, "first");
  TSNode secondAfter = functionNamed(doc, "second");
  REQUIRE(!ts_node_is_null(secondAfter));
  // Every changed range lies inside the edited function; the second function is outside all of them.
  REQUIRE(!changed.empty());
  for (auto& r : changed) {
    CHECK(r.begin >= ts_node_start_byte(firstAfter));
    CHECK(r.end <= ts_node_end_byte(firstAfter));
    CHECK((r.end <= ts_node_start_byte(secondAfter) || r.begin >= ts_node_end_byte(secondAfter)));
  }
  CHECK(std::string(doc.nodeText(secondAfter)) == secondText);
  CHECK(ts_node_start_byte(secondAfter) == ts_node_start_byte(secondBefore) + 7);
}

TEST_CASE("document: the text after random edits equals the same edits applied to a string") {
  Document doc(kTwoFunctions);
  std::string mirror = kTwoFunctions;
  std::mt19937 rng(7);
  const std::string alphabet = "abc(), é中\n";
  for (int i = 0; i < 300; ++i) {
    uint32_t size = static_cast<uint32_t>(mirror.size());
    uint32_t b = size ? rng() % size : 0;
    uint32_t e = std::min<uint32_t>(size, b + rng() % 3);
    std::string ins;
    if (rng() % 2) ins = alphabet.substr(rng() % alphabet.size(), 1);
    doc.applyEdit(ByteRange{b, e}, ins);
    mirror.replace(b, e - b, ins);
    REQUIRE(doc.text() == mirror);
  }
  // The incremental tree equals a fresh parse of the final text.
  Document fresh(mirror);
  char* a = ts_node_string(doc.root());
  char* c = ts_node_string(fresh.root());
  CHECK(std::string(a) == std::string(c));
  free(a);
  free(c);
}

TEST_CASE("document: edits by UTF-16 position land on the right bytes") {
  Document doc("x = \"é中😀\"\ny = x\n");
  // Replace "y" on line 1 (column 0) with "zz"; then insert after the emoji on line 0 (UTF-16 col 9).
  doc.applyEdit(LineCol{1, 0}, LineCol{1, 1}, "zz", Encoding::Utf16);
  CHECK(doc.text() == "x = \"é中😀\"\nzz = x\n");
  doc.applyEdit(LineCol{0, 9}, LineCol{0, 9}, "!", Encoding::Utf16);
  CHECK(doc.text() == "x = \"é中😀!\"\nzz = x\n");
  // Out-of-range positions clamp instead of failing.
  doc.applyEdit(LineCol{99, 0}, LineCol{120, 4}, "#end", Encoding::Utf16);
  CHECK(doc.text() == "x = \"é中😀!\"\nzz = x\n#end");
}
