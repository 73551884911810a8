// tvms fmt over the corpus: idempotent, every comment kept, all other Python byte-identical, and the
// module unchanged in meaning.
#include <doctest/doctest.h>

#include "compiler/format/formatter.h"
#include "compiler/ir/structural_equal.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {
// The text outside the regions (plain Python), in order.
std::vector<std::string> outside(const test::Lowered& l) {
  std::vector<std::string> out;
  uint32_t pos = 0;
  const std::string& text = l.doc->text();
  for (auto& r : l.file.regions) {
    auto lines = frontend::regionLines(*l.doc, r.range);
    out.push_back(text.substr(pos, lines.begin - pos));
    pos = lines.end;
  }
  out.push_back(text.substr(pos));
  return out;
}
}  // namespace

TEST_CASE("fmt: every corpus file is formatted idempotently, keeping comments and plain Python") {
  for (auto& path : test::corpusFiles()) {
    INFO(path);
    std::string src = test::readFile(path);
    auto once = format::formatSource(src);
    auto twice = format::formatSource(once.text);
    CHECK(twice.text == once.text);
    CHECK_FALSE(twice.changed);
    auto before = test::lower(src), after = test::lower(once.text);
    REQUIRE(before.file.regions.size() == after.file.regions.size());
    CHECK(outside(before) == outside(after));
    for (size_t i = 0; i < before.file.regions.size(); ++i) {
      auto& b = before.file.regions[i];
      auto& a = after.file.regions[i];
      CHECK(frontend::commentsIn(*before.doc, frontend::regionLines(*before.doc, b.range)) ==
            frontend::commentsIn(*after.doc, frontend::regionLines(*after.doc, a.range)));
      if (b.formattable()) CHECK(ir::firstDifference(*b.module, *a.module) == "");
      else CHECK(before.doc->slice(frontend::regionLines(*before.doc, b.range)) ==
                 after.doc->slice(frontend::regionLines(*after.doc, a.range)));  // left as written
    }
    // Only region notes for files that cannot be formatted: a syntax error (an empty body is one, as
    // in the reliability reproduction that ends at its `def` line), a `for` loop, and (a known limit
    // of the printer) comments on the items of a multi-line vdevice list, which it cannot place yet,
    // so the safety check keeps that module as written.
    bool leftAsWritten = path.find("syntax_error") != std::string::npos || path.find("structure_more") != std::string::npos ||
                         path.find("vdevice_list") != std::string::npos || path.find("empty_body") != std::string::npos ||
                         path.find("internal_error_stoll") != std::string::npos ||
                         path.find("tvm_distributed") != std::string::npos ||  // R.DTensor: kept as written (TVS011)
                         path.find("tvm_captured_python") != std::string::npos ||  // Python values: kept as written (TVS011)
                         path.find("tvm_not_modelled") != std::string::npos ||  // R.emit_te, ...: kept as written (TVS011)
                         path.find("python_values") != std::string::npos ||  // TVMScript reading Python values
                         path.find("builder_pipeline") != std::string::npos;
    if (!leftAsWritten) CHECK(once.notes.empty());
    else CHECK_FALSE(once.notes.empty());
  }
}

TEST_CASE("fmt: canonical spelling, comments beside their statements, nested regions keep their indent") {
  std::string src = R"(from tvm.script import ir as I
from tvm.script import relax as R

x = {  'untouched' :1}

def test():
    @I.ir_module
    class M:
        @R.function
        def f(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            b = R.add(a,a)  # keep me


            c = a+b
            return c
)";
  auto r = format::formatSource(src);
  CHECK(r.changed);
  CHECK(r.text == R"(from tvm.script import ir as I
from tvm.script import relax as R

x = {  'untouched' :1}

def test():
    @I.ir_module
    class M:
        @R.function
        def f(a: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            b = R.add(a, a)  # keep me

            c = a + b
            return c
)");
}

TEST_CASE("fmt: regions with errors are left exactly as written") {
  std::string src = test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/syntax_error.py");
  auto r = format::formatSource(src);
  CHECK_FALSE(r.changed);
  CHECK(r.text == src);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("syntax error") != std::string::npos);
}

TEST_CASE("fmt: long lines break black-style within the line width") {
  std::string src = R"(from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class M:
    @R.function
    def f(data: R.Tensor((16, 32, 32, 16), "float32"), weight: R.Tensor((32, 3, 3, 16), "float32")) -> R.Tensor((16, 32, 32, 32), "float32"):
        conv = R.nn.conv2d(data, weight, padding=(1, 1), data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32")
        return conv
)";
  format::FormatOptions opts;
  opts.lineWidth = 80;
  auto r = format::formatSource(src, opts);
  size_t pos = 0, longest = 0;
  while (pos < r.text.size()) {
    size_t nl = r.text.find('\n', pos);
    longest = std::max(longest, (nl == std::string::npos ? r.text.size() : nl) - pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  CHECK(longest <= 80);
  CHECK(r.text.find("    def f(\n        data: R.Tensor((16, 32, 32, 16), dtype=\"float32\"),\n") != std::string::npos);
  CHECK(format::formatSource(r.text, opts).text == r.text);
}

TEST_CASE("fmt: unified diff") {
  CHECK(format::unifiedDiff("a\nb\nc\n", "a\nb\nc\n", "f.py").empty());
  std::string d = format::unifiedDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n", "f.py");
  CHECK(d == "--- f.py\n+++ f.py\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n");
}

TEST_CASE("fmt: a magic trailing comma keeps a list one item per line, as black and ruff do") {
  std::string src = R"(from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class M:
    @R.function
    def f(
        a: R.Tensor((2,), "float32"),
    ) -> R.Tensor((2,), "float32"):
        b = R.add(
            a,
            a,
        )
        c = R.add(a, b,)
        d = R.add(
            a, c
        )
        return d
)";
  auto r = format::formatSource(src);
  CHECK(r.text.find("    def f(\n        a: R.Tensor((2,), dtype=\"float32\"),\n    ) -> R.Tensor((2,), dtype=\"float32\"):\n") !=
        std::string::npos);
  CHECK(r.text.find("        b = R.add(\n            a,\n            a,\n        )\n") != std::string::npos);
  CHECK(r.text.find("        c = R.add(\n            a,\n            b,\n        )\n") != std::string::npos);
  CHECK(r.text.find("        d = R.add(a, c)\n") != std::string::npos);  // no trailing comma: joined
  CHECK(format::formatSource(r.text).text == r.text);
}

TEST_CASE("fmt: idempotent when an unterminated f-string with an invalid byte comes before a module (fuzz_frontend)") {
  // tests/fuzz/frontend/crash-1b7fac58... reduced by libFuzzer's -minimize_crash.
  std::string text = "f'\xCA\n    I\n@I.ir_module\nclass e:";
  auto once = format::formatSource(text);
  auto twice = format::formatSource(once.text);
  INFO("once: [" << once.text << "]");
  INFO("twice: [" << twice.text << "]");
  CHECK(twice.text == once.text);
  CHECK(once.text == text);  // not UTF-8: left as written, and said
  REQUIRE(once.notes.size() == 1);
  CHECK(once.notes[0].find("not valid UTF-8") != std::string::npos);
}

TEST_CASE("fmt: text with a NUL byte is left as written (fuzz_frontend: an f-string holding one made fmt not idempotent)") {
  // tests/fuzz/frontend/crash-2bab0fc7... reduced by libFuzzer's -minimize_crash; the server can receive
  // NUL as \u0000 in JSON, so this reaches formatting through the LSP.
  std::string text = std::string("f'") + '\0' + "\n    r\n@I.ir_module\nclass u:\n b";
  auto once = format::formatSource(text);
  CHECK(once.text == text);
  CHECK(format::formatSource(once.text).text == once.text);
  REQUIRE(once.notes.size() == 1);
  CHECK(once.notes[0].find("NUL") != std::string::npos);
}

TEST_CASE("fmt: a module whose body tree-sitter cut off is left as written (fuzz_frontend: `pass` added on every run)") {
  // tests/fuzz/frontend/crash-2bab0fc7... reduced by deleting lines: an unterminated string before the
  // module and an unclosed bracket in its body leave `class Module:` with an empty body in the tree.
  std::string text = "f'x\nclass M:\n    I.m\n@I.ir_module\nclass Module:\n    y = (((((((((";
  auto once = format::formatSource(text);
  CHECK(once.text == text);
  CHECK(format::formatSource(once.text).text == once.text);
  CHECK_FALSE(once.notes.empty());
}

TEST_CASE("fmt: a region with a control character before it on its line is left as written (fuzz_frontend: it moved into the class above)") {
  // tree-sitter skips the \x1c; reprinting the whole line dropped it and indented the function under
  // the class above, which the next run then formatted as part of the class.
  std::string src =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\")]})\n\n"
      "\x1c   @R.function\n    def f(a: R.Tensor((2, 3), \"float32\", \"llvm\")) -> R.Tensor((2, 3), \"float32\", \"llvm\"):\n        return a\n";
  auto once = format::formatSource(src);
  CHECK(once.text.find("\x1c   @R.function\n    def f(a: R.Tensor((2, 3), \"float32\", \"llvm\"))") != std::string::npos);
  CHECK(format::formatSource(once.text).text == once.text);
  bool noted = false;
  for (auto& n : once.notes) noted |= n.find("something other than indentation precedes it") != std::string::npos;
  CHECK(noted);
}
