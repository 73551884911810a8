// Reading a file by function (syntax::Parsing::ByFunction, skeleton_scan.h): the scan finds the
// functions of column-0 classes as Python's lines say, gives up where it is unsure, and a one-shot
// lint of a document read by function says exactly what the lint of the whole-file tree says.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/analysis/lint.h"
#include "compiler/syntax/document.h"
#include "compiler/syntax/function_trees.h"
#include "compiler/syntax/line_index.h"
#include "compiler/syntax/parse_text.h"
#include "compiler/syntax/skeleton_scan.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {

std::string describe(const std::vector<diag::Diagnostic>& ds) {
  std::ostringstream out;
  for (auto& d : ds) {
    out << diag::codeName(d.code) << "@" << d.range.begin << "-" << d.range.end << " " << d.message;
    for (auto& f : d.fixes) {
      out << " fix[" << f.title;
      for (auto& e : f.edits) out << " " << e.range.begin << "-" << e.range.end << "=" << e.newText;
      out << "]";
    }
    out << "\n";
  }
  return out.str();
}

// The lint of `text` read whole and read by function (with `helpers` threads), and whether the second
// really went by function.
struct BothLints {
  std::string whole, byFunction;
  bool readByFunction = false, readWholeAfterAll = false;
  size_t parsed = 0, mostAlive = 0;
};
BothLints lintBothWays(const std::string& text, unsigned helpers) {
  BothLints out;
  syntax::Document whole(text);
  out.whole = describe(analysis::lintDocumentOnce(whole).diagnostics);
  syntax::Document split(text, syntax::Parsing::ByFunction, helpers);
  out.readByFunction = split.readsByFunction();
  auto r = analysis::lintDocumentOnce(split);
  out.parsed = split.functionTreesParsed();
  out.mostAlive = split.mostFunctionTreesAlive();
  out.readWholeAfterAll = split.readWholeAfterAll();
  out.byFunction = describe(r.diagnostics);
  return out;
}

const char* kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})

    @R.function
    def first(x: R.Tensor((2, 3), "float32", "cuda")) -> R.Tensor((2, 3), "float32", "cuda"):
        s = """def not_a_function():
    pass"""
        y = R.add(x, x)  # a comment
# a comment at column 0 inside the body
        z = R.multiply(
            y,
    y)
        return z

    @R.function(pure=True)
    def second(x: R.Tensor((2, 3), "float32", "llvm"),
               w: R.Tensor((2, 3), "float32", "cuda")) -> R.Tensor((2, 3), "float32", "llvm"):
        y = R.add(x, w)
        if True:
            pass
        return y  # trailing

    def one_line(self): return 1
)";

}  // namespace

TEST_CASE("read by function: the scan finds each function of a column-0 class, with its decorators and whole body") {
  auto skeleton = syntax::scanSkeleton(kModule);
  REQUIRE(skeleton.has_value());
  std::string text = kModule;
  REQUIRE(skeleton->functions.size() == 2);  // the one-line function is left in the skeleton as it is
  auto& first = skeleton->functions[0];
  CHECK(text.substr(first.range.begin, 24) == "    @R.function\n    def ");
  CHECK(text.substr(first.range.end - 16, 16) == "        return z");
  auto& second = skeleton->functions[1];
  CHECK(text.substr(second.range.end - 20, 20) == "return y  # trailing");
  CHECK(text.substr(first.header.begin, first.header.end - first.header.begin) == "@I.ir_module\nclass Module:\n");
  // Same length, same lines; bodies blank but one statement on the last line; headers as written.
  REQUIRE(skeleton->text.size() == text.size());
  for (size_t i = 0; i < text.size(); ++i)
    if ((text[i] == '\n') != (skeleton->text[i] == '\n')) FAIL("line break moved at byte " << i);
  CHECK(skeleton->text.find("not_a_function") == std::string::npos);
  // Signatures are blank but for the name (only the function's own tree is read for them).
  CHECK(skeleton->text.find("    def second(") != std::string::npos);
  CHECK(skeleton->text.find("w: R.Tensor") == std::string::npos);
  CHECK(skeleton->text.find("@R.function(pure=True)") != std::string::npos);
  // The last line's filler reaches its last character (tree-sitter ends a definition after a comment there).
  CHECK(skeleton->text.find("     xxxxxxxxxxxxxxxxxxxxxxx\n") != std::string::npos);
}

TEST_CASE("read by function: the scan gives up where it is unsure, and the file is then parsed whole") {
  for (const char* text : {
           "class M:\n\tdef f(self):\n\t\treturn 1\n",                       // tabs
           "class M:\r\n    def f(self):\r\n        return 1\r\n",            // carriage returns
           "class M:\n    def f(self):\n        s = 'open\n        return 1\n",  // an unclosed string
           "class M:\n    def f(self):\n        return (1\n",                  // an unclosed bracket
           "class M:\n    def f(self):\n        return 1\n  def g(self):\n        return 2\n",  // a line at another column
           "class M:\n    def f(self):\n        return 1\n    @R.function\n",  // a decorator over nothing
           "x = 1\n",                                                           // no class: nothing to split
       }) {
    CAPTURE(text);
    CHECK_FALSE(syntax::scanSkeleton(text).has_value());
    syntax::Document doc(text, syntax::Parsing::ByFunction);
    CHECK_FALSE(doc.readsByFunction());
  }
}

TEST_CASE("read by function: a module's lint is the whole-file lint, each function parsed once and freed after") {
  for (unsigned helpers : {0u, 1u, 3u}) {
    CAPTURE(helpers);
    auto both = lintBothWays(kModule, helpers);
    CHECK(both.readByFunction);
    CHECK_FALSE(both.readWholeAfterAll);
    CHECK(both.byFunction == both.whole);
    CHECK(both.parsed == 2);
  }
  // Many functions: few trees at once (the helper's window past the reader, the reader's own).
  std::string big = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n";
  for (int i = 0; i < 200; ++i)
    big += "    @R.function\n    def f" + std::to_string(i) +
           "(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n        y = R.add(x, x)\n        return y\n\n";
  big += "    @R.function\n    def broken_use(x: R.Tensor((2, 3), \"float32\")):\n        return R.add(x, undefined_name)\n";
  auto both = lintBothWays(big, 1);
  CHECK(both.readByFunction);
  CHECK_FALSE(both.readWholeAfterAll);
  CHECK(both.byFunction == both.whole);
  CHECK(both.whole.find("undefined_name") != std::string::npos);
  CHECK(both.parsed == 201);
  // The helper's window is in bytes of source: as many of these functions as it holds, the reader's
  // own and the one a helper may always take.
  const std::string one = "    @R.function\n    def f0(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
                          "        y = R.add(x, x)\n        return y\n\n";
  CHECK(both.mostAlive <= syntax::FunctionTrees::kAheadBytesPerHelper / (one.size() - 1) + 3);
  CHECK(both.mostAlive < 201);
}

TEST_CASE("read by function: a function whose own parse disagrees with the skeleton is read again whole") {
  // A syntax error inside a body: the skeleton (body blank) is clean, the function's own tree is not.
  std::string text =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n"
      "        y = R.add(x, x) +* 2\n        return y\n";
  syntax::Document doc(text, syntax::Parsing::ByFunction, 1);
  CHECK(doc.readsByFunction());
  auto both = lintBothWays(text, 1);
  CHECK(both.readWholeAfterAll);
  CHECK(both.byFunction == both.whole);
  CHECK(both.whole.find("TVS001") != std::string::npos);
}

TEST_CASE("read by function: every corpus file lints the same read whole and read by function") {
  size_t files = 0, split = 0, again = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(TVMS_CORPUS_DIR)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CAPTURE(entry.path().string());
    auto both = lintBothWays(text, 1);
    CHECK(both.byFunction == both.whole);
    ++files;
    split += both.readByFunction && !both.readWholeAfterAll;
    again += both.readWholeAfterAll;
  }
  CHECK(files > 50);
  CHECK(split > files / 4);  // most corpus files are modules the scan reads
  MESSAGE(files << " corpus files, " << split << " read by function, " << again << " read again whole");
}

TEST_CASE("read by function: visitTreesIn walks each function's own tree once per pass and frees it, pass after pass") {
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n";
  const int count = 600;  // more source than two helpers' windows
  for (int i = 0; i < count; ++i)
    text += "    @R.function\n    def f" + std::to_string(i) + "(x: R.Tensor((2,), \"float32\")):\n        return x\n\n";
  const size_t shortest = std::string("    @R.function\n    def f0(x: R.Tensor((2,), \"float32\")):\n        return x\n\n").size();
  for (unsigned helpers : {0u, 1u, 2u}) {
    CAPTURE(helpers);
    syntax::Document doc(text, syntax::Parsing::ByFunction, helpers);
    REQUIRE(doc.readsByFunction());
    for (int pass = 1; pass <= 2; ++pass) {
      CAPTURE(pass);
      doc.readFunctionsAgain();
      size_t functions = 0, definitions = 0;
      uint32_t lastEnd = 0;
      doc.visitTreesIn({0, static_cast<uint32_t>(text.size())}, [&](const syntax::Document::TreePart& p) {
        CHECK(p.part.begin >= lastEnd);  // in order, disjoint
        lastEnd = p.part.end;
        if (ts_node_eq(p.root, doc.root())) return;
        ++functions;
        // A function's part is its own tree: the definition is there whole, not the skeleton's blank one.
        TSNode def = ts_node_descendant_for_byte_range(p.root, p.part.begin + 4, p.part.begin + 4);
        while (!ts_node_is_null(def) && std::string_view(ts_node_type(def)) != "decorated_definition") def = ts_node_parent(def);
        REQUIRE_FALSE(ts_node_is_null(def));
        definitions += doc.nodeText(def).find("return x") != std::string_view::npos;
      });
      CHECK(lastEnd == text.size());
      CHECK(functions == count);
      CHECK(definitions == count);
      CHECK(doc.functionTreesParsed() == size_t(count) * pass);
      const size_t bound = syntax::FunctionTrees::kAheadBytesPerHelper * helpers / (shortest - 1) + 3;
      CHECK(bound < size_t(count));
      CHECK(doc.mostFunctionTreesAlive() <= bound);
    }
    CHECK_FALSE(doc.byFunctionFailed());
  }
}

TEST_CASE("read by function: functions larger than a helper's window are still parsed ahead, one at a time") {
  // Each function holds more source than kAheadBytesPerHelper: a helper may take the next one only.
  std::string body;
  while (body.size() <= syntax::FunctionTrees::kAheadBytesPerHelper) body += "        y = R.add(x, x)\n";
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n";
  for (int i = 0; i < 12; ++i)
    text += "    @R.function\n    def f" + std::to_string(i) + "(x: R.Tensor((2,), \"float32\")):\n" + body + "        return y\n\n";
  for (unsigned helpers : {1u, 2u}) {
    CAPTURE(helpers);
    syntax::Document doc(text, syntax::Parsing::ByFunction, helpers);
    REQUIRE(doc.readsByFunction());
    size_t functions = 0;
    doc.visitTreesIn({0, static_cast<uint32_t>(text.size())}, [&](const syntax::Document::TreePart& p) {
      functions += !ts_node_eq(p.root, doc.root());
    });
    CHECK(functions == 12);
    CHECK(doc.functionTreesParsed() == 12);
    // The reader's own, the one ahead it may parse itself, and the helpers' one each.
    CHECK(doc.mostFunctionTreesAlive() <= helpers + 2);
    CHECK_FALSE(doc.byFunctionFailed());
  }
}

// The skeleton is parsed without its functions' blank body lines (skeletonReadRanges): the tree must be
// the one a parse of the whole skeleton gives, node for node and byte for byte.
TEST_CASE("read by function: the skeleton parsed without its blank body lines is the whole skeleton's tree") {
  std::vector<std::string> texts{kModule};
  for (auto& path : test::corpusFiles()) texts.push_back(test::readFile(path));
  size_t compared = 0, skipping = 0;
  TSParser* parser = syntax::newPythonParser();
  for (auto& text : texts) {
    auto skeleton = syntax::scanSkeleton(text);
    if (!skeleton) continue;
    syntax::LineIndex lines(skeleton->text);
    auto ranges = syntax::skeletonReadRanges(*skeleton);
    REQUIRE_FALSE(ranges.empty());
    CHECK(ranges.front().begin == 0);
    CHECK(ranges.back().end == skeleton->text.size());
    skipping += ranges.size() > 1;
    // Nothing skipped but spaces and line breaks.
    for (size_t i = 0; i + 1 < ranges.size(); ++i)
      for (uint32_t b = ranges[i].end; b < ranges[i + 1].begin; ++b) REQUIRE((skeleton->text[b] == ' ' || skeleton->text[b] == '\n'));
    TSTree* whole = syntax::parseText(parser, nullptr, skeleton->text);
    TSTree* read = syntax::parseRangesWith(parser, skeleton->text, lines, ranges);
    // Every node of both trees, in order: type, bytes, and whether it is an error.
    auto nodes = [](TSTree* tree) {
      std::string out;
      std::vector<TSNode> stack{ts_tree_root_node(tree)};
      while (!stack.empty()) {
        TSNode n = stack.back();
        stack.pop_back();
        out += std::string(ts_node_type(n)) + "@" + std::to_string(ts_node_start_byte(n)) + "-" + std::to_string(ts_node_end_byte(n)) +
               (ts_node_has_error(n) || ts_node_is_missing(n) ? "!" : "") + "\n";
        for (uint32_t i = ts_node_child_count(n); i > 0; --i) stack.push_back(ts_node_child(n, i - 1));
      }
      return out;
    };
    CHECK(nodes(read) == nodes(whole));
    ts_tree_delete(whole);
    ts_tree_delete(read);
    ++compared;
  }
  ts_parser_delete(parser);
  CHECK(compared > 50);
  CHECK(skipping > 50);  // most of them have bodies of several lines to skip
}

// A one-shot lint deduces a large module's functions on helper threads too (analyzeModule's
// `helpers`): the diagnostics, fixes included, are the same and in the same order as on one thread.
TEST_CASE("read by function: a module's functions deduced on helper threads give the one-thread lint") {
  // calls_between_functions.py's two functions, renamed 100 times over: calls between functions,
  // vdevice and shape errors with their fixes in every copy.
  std::string source = test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/calls_between_functions.py");
  const size_t classAt = source.find("class Module:");
  REQUIRE(classAt != std::string::npos);
  const size_t bodyAt = source.find("    @R.function", classAt);
  REQUIRE(bodyAt != std::string::npos);
  std::string text = source.substr(0, bodyAt);
  const std::string functions = source.substr(bodyAt);
  for (int k = 0; k < 100; ++k) {
    std::string copy = functions;
    for (const std::string name : {"on_gpu", "main"})
      for (size_t at = 0; (at = copy.find(name, at)) != std::string::npos; at += name.size() + 4)
        copy.replace(at, name.size(), name + "_" + std::to_string(k % 10) + std::to_string(k / 10));
    text += copy + "\n";
  }
  auto lintWith = [&](unsigned helpers) {
    syntax::Document doc(text, syntax::Parsing::ByFunction, helpers);
    CHECK(doc.readsByFunction());
    return describe(analysis::lintDocumentOnce(doc, {}, helpers).diagnostics);
  };
  const std::string one = lintWith(0);
  CHECK(one.find("TVS203") != std::string::npos);
  CHECK(one.find("on_gpu_99") != std::string::npos);  // names in messages carry the copy's suffix
  CHECK(std::count(one.begin(), one.end(), '\n') >= 300);
  for (unsigned helpers : {1u, 3u}) {
    CAPTURE(helpers);
    CHECK(lintWith(helpers) == one);
  }
}

// Past kMostSkippedBodies bodies the skeleton is read whole: tree-sitter's lexer scans the included
// ranges from the first on every token, so their number must stay bounded.
TEST_CASE("read by function: a skeleton with more bodies to skip than the bound is read whole") {
  auto moduleOf = [](size_t functions) {
    std::string text = "class Module:\n";
    for (size_t k = 0; k < functions; ++k) text += "    def f" + std::to_string(k) + "(self):\n        x = 1\n        return x\n";
    return text;
  };
  auto within = syntax::scanSkeleton(moduleOf(syntax::kMostSkippedBodies));
  REQUIRE(within.has_value());
  CHECK(syntax::skeletonReadRanges(*within).size() == syntax::kMostSkippedBodies + 1);
  auto past = syntax::scanSkeleton(moduleOf(syntax::kMostSkippedBodies + 1));
  REQUIRE(past.has_value());
  auto ranges = syntax::skeletonReadRanges(*past);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].begin == 0);
  CHECK(ranges[0].end == past->text.size());
}

// The reader hands the trees it is done with to a helper to free; a helper that gets no time must not
// let them pile up (each is memory): past a bound the reader frees its own.
TEST_CASE("read by function: trees waiting for a helper to free them stay bounded when the helper gets no time") {
  std::string text = "class Module:\n";
  for (int i = 0; i < 200; ++i) text += "    def f" + std::to_string(i) + "(self):\n        x = 1\n        return x\n";
  auto skeleton = syntax::scanSkeleton(text);
  REQUIRE(skeleton.has_value());
  std::vector<syntax::FunctionTrees::Function> functions;
  for (auto& f : skeleton->functions) functions.push_back({f.header, f.range, f.definitionBegin, f.definitionEnd});
  REQUIRE(functions.size() == 200);
  syntax::LineIndex lines(text);
  syntax::FunctionTrees trees(text, lines, functions, 1);
  trees.holdHelpers(true);
  for (size_t k = 0; k < functions.size(); ++k) {
    CHECK_FALSE(ts_node_is_null(trees.root(k)));
    trees.doneWith(k);
  }
  CHECK(trees.mostWaitingToBeFreed() == syntax::FunctionTrees::kMostWaitingToBeFreed);
  trees.holdHelpers(false);
  CHECK(trees.parsed() == 200);
  CHECK_FALSE(trees.failed());
}

// Each chunk handed to tree-sitter ends where its included range does (so a function's parse does not
// search 64 KiB past it for "\r"). The ranges far apart, a lone "\r" read as a line end in the second,
// and a second range that ends exactly where a third begins: the tree is the one of the same text
// without the bytes between the ranges.
TEST_CASE("read by function: ranges read chunk by chunk give the tree of their text alone") {
  const std::string header = "class M:\n";
  const std::string function = "    def f(x):\r        y = x\n";
  const std::string rest = "        return y\n";
  std::string filler;
  while (filler.size() < 70000) filler += "# a line the ranges leave out\n";
  const std::string text = header + filler + function + rest;
  syntax::LineIndex lines(text);
  const uint32_t at = static_cast<uint32_t>(header.size() + filler.size());
  const uint32_t mid = at + static_cast<uint32_t>(function.size());
  std::vector<syntax::ByteRange> ranges{{0, static_cast<uint32_t>(header.size())}, {at, mid}, {mid, static_cast<uint32_t>(text.size())}};
  TSParser* parser = syntax::newPythonParser();
  TSTree* apart = syntax::parseRangesWith(parser, text, lines, ranges);
  const std::string alone = header + function + rest;
  TSTree* together = syntax::parseText(parser, nullptr, alone);
  REQUIRE(apart);
  REQUIRE(together);
  char* a = ts_node_string(ts_tree_root_node(apart));
  char* b = ts_node_string(ts_tree_root_node(together));
  CHECK(std::string(a) == std::string(b));
  CHECK_FALSE(ts_node_has_error(ts_tree_root_node(apart)));
  CHECK(std::string(a).find("return_statement") != std::string::npos);
  std::free(a);
  std::free(b);
  ts_tree_delete(apart);
  ts_tree_delete(together);
  ts_parser_delete(parser);
}
