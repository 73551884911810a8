// Document: incremental reparse through ts_tree_edit, reusing the untouched functions' subtrees.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "compiler/syntax/document.h"
#include "tests/support/corpus.h"

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

// The current node of a method of the module class (its island's tree when it has one).
TSNode functionNamed(const Document& doc, std::string_view name) {
  // module > decorated_definition > class_definition > block > decorated_definition*
  TSNode cls = ts_node_child_by_field_name(ts_node_named_child(doc.root(), 0), "definition", 10);
  TSNode body = ts_node_child_by_field_name(cls, "body", 4);
  for (TSNode d : doc.statementsOf(body)) {
    if (std::string(ts_node_type(d)) != "decorated_definition") continue;
    TSNode def = ts_node_child_by_field_name(d, "definition", 10);
    if (doc.nodeText(ts_node_child_by_field_name(def, "name", 4)) == name) return doc.definitionAt(d);
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
  doc.applyEdit(ByteRange{second, second + 1}, "R.exp(x)");
  CHECK(doc.text().find("R.add(x, R.exp(x))") != std::string::npos);
  // Only the edited function was reparsed (as its own tree), never the whole file.
  CHECK(doc.wholeFileReparses() == 0);
  CHECK(doc.islandReparses() == 1);
  // A second edit there reparses that function's tree incrementally.
  uint32_t exp = static_cast<uint32_t>(doc.text().find("R.exp(x)"));
  auto changed = doc.applyEdit(ByteRange{exp + 6, exp + 7}, "R.abs(x)");
  CHECK(doc.text().find("R.add(x, R.exp(R.abs(x)))") != std::string::npos);
  CHECK(doc.islandReparses() == 2);
  CHECK(doc.wholeFileReparses() == 0);
  TSNode firstAfter = functionNamed(doc, "first");
  CHECK_FALSE(ts_node_has_error(firstAfter));
  CHECK(std::string(ts_node_type(firstAfter)) == "decorated_definition");
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
  CHECK(ts_node_start_byte(secondAfter) == ts_node_start_byte(secondBefore) + 14);
}

TEST_CASE("document: an edit outside every function reparses the file: one that closes a function too") {
  Document doc(kTwoFunctions);
  uint32_t cls = static_cast<uint32_t>(doc.text().find("Module"));
  doc.applyEdit(ByteRange{cls, cls + 6}, "Mod");
  CHECK(doc.wholeFileReparses() == 1);
  // A dedented statement typed at the end of a function ends it: the island cannot hold it.
  uint32_t ret = static_cast<uint32_t>(doc.text().find("return y") + 8);
  doc.applyEdit(ByteRange{ret, ret}, "\nx = 1");
  CHECK(doc.wholeFileReparses() == 2);
  Document fresh(doc.text());
  char* a = ts_node_string(doc.root());
  char* b = ts_node_string(fresh.root());
  CHECK(std::string(a) == std::string(b));
  free(a);
  free(b);
}

// For text without syntax errors the island trees must equal a fresh parse of the whole file. (With an
// error inside a function they deliberately differ: the island keeps the error inside its function,
// where a whole-file parse lets it swallow the functions after it.)
TEST_CASE("document: after random edits, every definition of valid text equals a fresh parse") {
  Document doc(kTwoFunctions);
  std::mt19937 rng(11);
  const char* pieces[] = {"a", "(", ")", " ", "\n        ", ",", "R.exp(x)", "#", "\"", ":", "b1", ""};
  int compared = 0;
  auto compare = [&]() {
    Document fresh(doc.text());
    if (ts_node_has_error(fresh.root())) return;
    // Compare each top-level definition's current node with the fresh parse.
    TSNode freshRoot = fresh.root();
    for (uint32_t k = 0; k < ts_node_named_child_count(freshRoot); ++k) {
      TSNode top = ts_node_named_child(freshRoot, k);
      if (std::string(ts_node_type(top)) != "decorated_definition") continue;
      TSNode clsDef = ts_node_child_by_field_name(top, "definition", 10);
      TSNode body = ts_node_child_by_field_name(clsDef, "body", 4);
      for (uint32_t j = 0; !ts_node_is_null(body) && j < ts_node_named_child_count(body); ++j) {
        TSNode freshDef = ts_node_named_child(body, j);
        if (std::string(ts_node_type(freshDef)) != "decorated_definition") continue;
        TSNode mine = ts_node_descendant_for_byte_range(doc.root(), ts_node_start_byte(freshDef), ts_node_start_byte(freshDef));
        while (!ts_node_is_null(mine) && std::string(ts_node_type(mine)) != "decorated_definition") mine = ts_node_parent(mine);
        if (ts_node_is_null(mine)) continue;
        mine = doc.definitionAt(mine);
        char* x = ts_node_string(mine);
        char* y = ts_node_string(freshDef);
        CHECK(std::string(x) == std::string(y));
        CHECK(ts_node_start_byte(mine) == ts_node_start_byte(freshDef));
        CHECK(ts_node_end_byte(mine) == ts_node_end_byte(freshDef));
        free(x);
        free(y);
        ++compared;
      }
    }
  };
  for (int i = 0; i < 300; ++i) {
    // An edit, then its undo, as a person types and deletes; a third of the edits are kept when they
    // leave the text parseable and add no line break, so the document drifts but its indentation stays
    // Python's (tree-sitter accepts some indentation that CPython rejects, where whole-file and
    // per-function parses may legitimately differ).
    std::string before = doc.text();
    uint32_t b = rng() % static_cast<uint32_t>(before.size());
    uint32_t e = std::min<uint32_t>(static_cast<uint32_t>(before.size()), b + rng() % 2);
    std::string piece = pieces[rng() % 12];
    std::string removed = before.substr(b, e - b);
    doc.applyEdit(ByteRange{b, e}, piece);
    compare();
    bool keep = rng() % 3 == 0 && piece.find('\n') == std::string::npos && removed.find('\n') == std::string::npos &&
                !ts_node_has_error(Document(doc.text()).root());
    if (!keep) {
      doc.applyEdit(ByteRange{b, b + static_cast<uint32_t>(piece.size())}, removed);
      CHECK(doc.text() == before);
      compare();
    }
  }
  CHECK(compared > 300);
  CHECK(doc.islandReparses() > 50);
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

TEST_CASE("document: a syntax error typed into a function stays inside its island") {
  Document doc(kTwoFunctions);
  // A character typed into the indentation of `return y`: tree-sitter reports an error at class level.
  uint32_t at = static_cast<uint32_t>(doc.text().find("        return y")) + 2;
  doc.applyEdit(ByteRange{at, at}, "x");
  CHECK(doc.wholeFileReparses() == 0);
  TSNode first = functionNamed(doc, "first");
  auto broken = doc.brokenIslandAt(first);
  REQUIRE(broken.has_value());
  CHECK(ts_node_has_error(broken->root));
  CHECK_FALSE(doc.brokenIslandAt(functionNamed(doc, "second")).has_value());
  doc.applyEdit(ByteRange{at, at + 1}, "");
  CHECK(doc.wholeFileReparses() == 0);
  CHECK_FALSE(doc.brokenIslandAt(functionNamed(doc, "first")).has_value());
  CHECK_FALSE(ts_node_has_error(functionNamed(doc, "first")));
  CHECK(doc.text() == kTwoFunctions);
}

namespace {
// The statements of the first column-0 class body, as "type start-end" lines, each a definition's
// current node (its island's tree) where it has one.
std::string classStatements(const Document& doc) {
  TSNode root = doc.root();
  for (uint32_t k = 0; k < ts_node_named_child_count(root); ++k) {
    TSNode top = ts_node_named_child(root, k);
    TSNode cls = std::string(ts_node_type(top)) == "decorated_definition" ? ts_node_child_by_field_name(top, "definition", 10) : top;
    if (std::string(ts_node_type(cls)) != "class_definition") continue;
    std::string out;
    for (TSNode c : doc.statementsOf(ts_node_child_by_field_name(cls, "body", 4))) {
      TSNode d = doc.definitionAt(c);
      char* tree = ts_node_string(d);
      out += std::to_string(ts_node_start_byte(d)) + "-" + std::to_string(ts_node_end_byte(d)) + " " + tree + "\n";
      free(tree);
    }
    return out;
  }
  return "";
}

std::string functionText(int n, const std::string& body = "        return x\n") {
  return "    @R.function\n    def f" + std::to_string(n) + "(x: R.Tensor((2,), \"float32\")):\n" + body + "\n";
}

std::string moduleOf(int functions) {
  std::string text = "@I.ir_module\nclass Module:\n    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\")]})\n\n";
  for (int i = 0; i < functions; ++i) text += functionText(i);
  return text + "\nx = 1\n";
}
}  // namespace

TEST_CASE("document: typing a new function or pasting or deleting functions reparses a span and not the file") {
  Document doc(moduleOf(5));
  uint32_t at = static_cast<uint32_t>(doc.text().find("    @R.function\n    def f2"));
  // Typed line by line above f2: a decorator (joining f2's), a def line with no body yet, its body.
  const char* lines[] = {"    @R.function\n", "    def typed(x: R.Tensor((2,), \"float32\")):\n", "        return x\n", "\n"};
  uint32_t pos = at;
  for (const char* line : lines) {
    doc.applyEdit(ByteRange{pos, pos}, line);
    pos += static_cast<uint32_t>(std::string(line).size());
    CHECK(classStatements(doc) == classStatements(Document(doc.text())));
  }
  CHECK(functionNamed(doc, "typed").id != nullptr);
  // Ten functions pasted, then deleted again; then f3 deleted.
  std::string pasted;
  for (int i = 10; i < 20; ++i) pasted += functionText(i);
  doc.applyEdit(ByteRange{at, at}, pasted);
  CHECK(classStatements(doc) == classStatements(Document(doc.text())));
  CHECK(functionNamed(doc, "f15").id != nullptr);
  doc.applyEdit(ByteRange{at, at + static_cast<uint32_t>(pasted.size())}, "");
  uint32_t f3 = static_cast<uint32_t>(doc.text().find("    @R.function\n    def f3"));
  uint32_t f4 = static_cast<uint32_t>(doc.text().find("    @R.function\n    def f4"));
  doc.applyEdit(ByteRange{f3, f4}, "");
  CHECK(classStatements(doc) == classStatements(Document(doc.text())));
  CHECK(functionNamed(doc, "f3").id == nullptr);
  CHECK(doc.wholeFileReparses() == 0);
  CHECK(doc.spanReparses() == 7);
  // A function typed in the span keeps its own island afterwards: typing in it reparses only it.
  uint32_t ret = static_cast<uint32_t>(doc.text().find("return x", doc.text().find("def typed")));
  doc.applyEdit(ByteRange{ret + 7, ret + 7}, "x");
  CHECK(doc.islandReparses() == 1);
  CHECK(classStatements(doc) == classStatements(Document(doc.text())));
}

TEST_CASE("document: a span whose parse is not bounded reparses the whole file") {
  Document doc(moduleOf(4));
  uint32_t at = static_cast<uint32_t>(doc.text().find("    @R.function\n    def f2"));
  SUBCASE("an unclosed bracket swallows the function after it") { doc.applyEdit(ByteRange{at, at}, "    y = (\n"); }
  SUBCASE("a line dedented out of the class") { doc.applyEdit(ByteRange{at, at}, "z = 2\n"); }
  SUBCASE("a statement at a deeper column than the class body's") { doc.applyEdit(ByteRange{at, at}, "      y = 1\n"); }
  CHECK(doc.spanReparses() == 0);
  CHECK(doc.wholeFileReparses() == 1);
  CHECK(classStatements(doc) == classStatements(Document(doc.text())));
}

// Structural edits at random line starts (functions typed, pasted, deleted; blank lines, comments,
// decorators, statements at other columns, unclosed brackets), each undone or kept: wherever a fresh
// parse of the text is clean, the class body's statements and every definition equal it.
TEST_CASE("document: after random structural edits the class body equals a fresh parse") {
  for (uint32_t seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    Document doc(moduleOf(8));
    const std::vector<std::string> pieces = {
        functionText(90), functionText(91) + functionText(92), "\n", "    # a comment\n", "    @R.function\n",
        "    def g(x):\n", "        return x\n", "    y = (\n", "    )\n", "  z = 1\n", "w = 2\n",
        "            q = 3\n", functionText(93, "        y = R.add(x, x\n        return y\n")};
    int compared = 0;
    for (int i = 0; i < 250; ++i) {
      std::string before = doc.text();
      // A line start, and for a deletion the start of a later line (a whole function, or a few lines).
      std::vector<uint32_t> starts{0};
      for (uint32_t k = 0; k < before.size(); ++k)
        if (before[k] == '\n') starts.push_back(k + 1);
      size_t li = rng() % starts.size();
      uint32_t b = starts[li];
      uint32_t e = rng() % 3 == 0 ? starts[std::min(starts.size() - 1, li + 1 + rng() % 6)] : b;
      std::string piece = e > b && rng() % 2 ? "" : pieces[rng() % pieces.size()];
      std::string removed = before.substr(b, e - b);
      doc.applyEdit(ByteRange{b, e}, piece);
      Document fresh(doc.text());
      if (tvms::test::cleanForCPython(fresh)) {
        INFO("edit " << i << ": bytes " << b << "-" << e << " -> '" << piece << "'\n" << doc.text());
        REQUIRE(classStatements(doc) == classStatements(fresh));
        ++compared;
      }
      bool keep = rng() % 4 == 0 && tvms::test::cleanForCPython(fresh);
      if (!keep) {
        doc.applyEdit(ByteRange{b, b + static_cast<uint32_t>(piece.size())}, removed);
        REQUIRE(doc.text() == before);
        if (tvms::test::cleanForCPython(Document(before))) REQUIRE(classStatements(doc) == classStatements(Document(before)));
      }
    }
    CHECK(compared > 100);
    CHECK(doc.spanReparses() > 20);
  }
}

TEST_CASE("document: a body line dedented to the class body's column breaks only its function (unexpected indent)") {
  std::string text = kTwoFunctions;
  Document doc(text);
  // `z = R.multiply(x, x)` of `second` is moved left to the class body's column; `return z` stays deeper.
  uint32_t line = static_cast<uint32_t>(text.find("        z = R.multiply"));
  doc.applyEdit(ByteRange{line, line + 4}, "");
  CHECK(doc.wholeFileReparses() == 0);
  CHECK(doc.islandReparses() == 1);
  auto broken = doc.brokenIslandAt(functionNamed(doc, "second"));
  REQUIRE(broken.has_value());
  REQUIRE(broken->indentError.has_value());
  CHECK(*broken->indentError == doc.text().find("return z"));
  // Put back: the island parses clean again, still without reparsing the file.
  doc.applyEdit(ByteRange{line, line}, "    ");
  CHECK(doc.text() == text);
  CHECK(doc.wholeFileReparses() == 0);
  CHECK_FALSE(doc.brokenIslandAt(functionNamed(doc, "second")).has_value());
}

TEST_CASE("document: a dedented body line that starts another definition reparses the whole file") {
  // `def h(): pass` at the class body's column, `return z` still deeper: the frontend reads the whole
  // file's tree as `second`, then `h` broken by the unexpected indent; an island of `second` alone
  // could not say the same, so the file is reparsed.
  Document doc(kTwoFunctions);
  std::string text = doc.text();
  uint32_t line = static_cast<uint32_t>(text.find("        z = R.multiply(x, x)"));
  doc.applyEdit(ByteRange{line, line + static_cast<uint32_t>(std::string("        z = R.multiply(x, x)").size())}, "    def h(): pass");
  CHECK(doc.wholeFileReparses() == 1);
  CHECK_FALSE(doc.brokenIslandAt(functionNamed(doc, "second")).has_value());
}
