// The editor features as functions over the compiler's types (no JSON, no server): what the language
// server shows, checked directly.
#include <doctest/doctest.h>

#include <algorithm>

#include "server/features.h"
#include "tests/support/marked.h"

namespace {

using namespace tvms;
namespace test = tvms::test;

// The module the features are tried on, with the positions the tests ask about marked (marked.h).
const char* kModuleMarked = R"($[import]from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.v$[vdevice_decl]device("cuda", 0), I.vdevice("llvm"), I.vdevice("cuda", 1)]})

    @R.function
    def helper(a: R.Tensor((2, 3), "float32", "cuda:1")) -> R.Tensor((2, 3), "float32", "cuda:1"):
        return a

    @R.function
    def main($[x_param]x: R.Tensor((2, 3), "float32", "$[x_vdevice]cuda:0"), y: R.Tensor((2, 3), "float32", "cuda:1")):
        with R.dataflow():
            $[s_def]s = $[add_ns]R.$[after_r_dot]$[add_name]add(x, $[add_second]x)
            t = R.nn.$[softmax]softmax($[softmax_arg]s, ax$[axis]is=-1)
            u = R.to_vdevice(t, $[llvm_string]"l$[llvm_inside]lvm")
            R.output($[output_u]u)
        v = Module.$[helper_call]helper(y)  # noqa: TV$[noqa_code]S211
        return (u, v)
)";
const tvms::test::Marked& fixture() {
  static const tvms::test::Marked m = tvms::test::marked(kModuleMarked);
  return m;
}

server::Snapshot snapshotOf(const std::string& text) {
  server::Snapshot s;
  s.doc = std::make_unique<syntax::Document>(text);
  s.lint = analysis::lintDocument(*s.doc);
  return s;
}

std::string applied(std::string text, std::vector<diag::TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.range.begin > b.range.begin; });
  for (auto& e : edits) text.replace(e.range.begin, e.range.end - e.range.begin, e.newText);
  return text;
}

}  // namespace

TEST_CASE("features: hover shows deduced struct info with the vdevice, op signatures, vdevice entries, rules") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto h = server::hoverAt(s, m["s_def"]);
  REQUIRE(h);
  CHECK(h->markdown.find("s: R.Tensor((2, 3), dtype=\"float32\", vdevice=\"cuda:0\")") != std::string::npos);
  CHECK(h->markdown.find("physical device cuda 0") != std::string::npos);
  auto op = server::hoverAt(s, m["softmax"]);
  REQUIRE(op);
  CHECK(op->markdown.find("R.nn.softmax(data, axis=-1)") != std::string::npos);
  auto vd = server::hoverAt(s, m["llvm_inside"]);
  REQUIRE(vd);
  CHECK(vd->markdown.find("list entry 1") != std::string::npos);
  auto rule = server::hoverAt(s, m["noqa_code"]);
  REQUIRE(rule);
  CHECK(rule->markdown.find("**TVS211**") != std::string::npos);
  CHECK_FALSE(server::hoverAt(s, m["import"]));  // outside the region: nothing
}

TEST_CASE("features: renaming a variable rewrites its definition and every use, and refuses a clash") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto r = server::renameAt(s, m["s_def"], "summed");
  REQUIRE(r.error.empty());
  CHECK(r.edits.size() == 2);
  std::string out = applied(text, r.edits);
  CHECK(out.find("summed = R.add(x, x)") != std::string::npos);
  CHECK(out.find("R.nn.softmax(summed, axis=-1)") != std::string::npos);
  CHECK(server::renameAt(s, m["s_def"], "t").error.find("already bound") != std::string::npos);
  CHECK(server::renameAt(s, m["s_def"], "not valid").error.find("identifier") != std::string::npos);
  CHECK(server::renameAt(s, m["s_def"], "class").error.find("identifier") != std::string::npos);
  auto range = server::renameRange(s, m["s_def"]);
  REQUIRE(range);
  CHECK(s.doc->slice(*range) == "s");
}

TEST_CASE("features: renaming a function rewrites its definition and each Module.f use") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto r = server::renameAt(s, m["helper_call"], "on_second_gpu");
  REQUIRE(r.error.empty());
  std::string out = applied(text, r.edits);
  CHECK(out.find("def on_second_gpu(a:") != std::string::npos);
  CHECK(out.find("Module.on_second_gpu(y)") != std::string::npos);
  CHECK(server::renameAt(s, m["helper_call"], "main").error.find("already has") != std::string::npos);
}

TEST_CASE("features: renaming a vdevice's kind re-indexes every vdevice string whose spelling changes") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  // The first cuda entry becomes rocm: "cuda:0" -> "rocm:0", and the second cuda entry is now the
  // first of its kind: "cuda:1" -> "cuda:0". "llvm" is untouched.
  auto r = server::renameAt(s, m["x_vdevice"], "rocm");
  REQUIRE(r.error.empty());
  std::string out = applied(text, r.edits);
  CHECK(out.find("I.vdevice(\"rocm\", 0), I.vdevice(\"llvm\"), I.vdevice(\"cuda\", 1)") != std::string::npos);
  CHECK(out.find("x: R.Tensor((2, 3), \"float32\", \"rocm:0\")") != std::string::npos);
  CHECK(out.find("y: R.Tensor((2, 3), \"float32\", \"cuda:0\")") != std::string::npos);
  CHECK(out.find("\"cuda:1\"") == std::string::npos);
  CHECK(out.find("R.to_vdevice(t, \"llvm\")") != std::string::npos);
  // The renamed module means the same placement: it lints as clean as before.
  auto before = s.lint.diagnostics.size();
  auto after = snapshotOf(out);
  CHECK(after.lint.diagnostics.size() == before);
  // From the declaration too.
  auto fromDecl = server::renameAt(s, m["vdevice_decl"], "rocm:0");
  CHECK(applied(text, fromDecl.edits) == out);
}

TEST_CASE("features: signature help names the parameter under the cursor, by position or keyword") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto h = server::signatureAt(s, m["softmax_arg"]);
  REQUIRE(h);
  CHECK(h->label == "R.nn.softmax(data, axis=-1)");
  REQUIRE(h->parameters.size() == 2);
  CHECK(h->label.substr(h->parameters[1].first, h->parameters[1].second - h->parameters[1].first) == "axis=-1");
  CHECK(h->active == 0);
  auto onAxis = server::signatureAt(s, m["axis"]);
  REQUIRE(onAxis);
  CHECK(onAxis->active == 1);
  auto second = server::signatureAt(s, m["add_second"]);
  REQUIRE(second);
  CHECK(second->active == 1);
  CHECK_FALSE(server::signatureAt(s, m["s_def"]));
}

TEST_CASE("features: semantic tokens mark namespaces, ops, variables by device kind, vdevice strings") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto tokens = server::semanticTokens(s);
  auto& types = server::semanticTokenTypes();
  auto& mods = server::semanticTokenModifiers();
  auto tokenAt = [&](uint32_t offset) -> const server::SemanticToken* {
    for (auto& t : tokens)
      if (t.offset == offset) return &t;
    return nullptr;
  };
  auto has = [&](const server::SemanticToken* t, const std::string& m) {
    auto i = std::find(mods.begin(), mods.end(), m) - mods.begin();
    return t && (t->modifiers >> i) & 1u;
  };
  auto type = [&](const server::SemanticToken* t) { return t ? types[t->type] : std::string("none"); };
  const auto* r = tokenAt(m["add_ns"]);
  CHECK(type(r) == "namespace");
  const auto* add = tokenAt(m["add_name"]);
  CHECK(type(add) == "function");
  CHECK(has(add, "defaultLibrary"));
  const auto* sDef = tokenAt(m["s_def"]);
  CHECK(type(sDef) == "variable");
  CHECK(has(sDef, "declaration"));
  CHECK(has(sDef, "dataflow"));
  CHECK(has(sDef, "device_cuda"));
  const auto* u = tokenAt(m["output_u"]);
  CHECK(has(u, "device_llvm"));
  const auto* x = tokenAt(m["x_param"]);
  CHECK(type(x) == "parameter");
  const auto* llvm = tokenAt(m["llvm_string"]);
  CHECK(type(llvm) == "vdevice");
  CHECK(has(llvm, "device_llvm"));
  for (size_t i = 1; i < tokens.size(); ++i) CHECK(tokens[i - 1].offset + tokens[i - 1].length <= tokens[i].offset);
}

TEST_CASE("features: symbol search matches subsequences, case-insensitively") {
  CHECK(server::fuzzyMatches("hlp", "helper"));
  CHECK(server::fuzzyMatches("MAIN", "main"));
  CHECK(server::fuzzyMatches("", "anything"));
  CHECK_FALSE(server::fuzzyMatches("xyz", "helper"));
}

TEST_CASE("features: after incremental edits the features see the edited function's own tree and shifted ranges") {
  const auto& m = fixture();
  std::string text = m.text;
  server::Snapshot s = snapshotOf(text);
  // Type into main's body: rename `s` to `sx` by hand (definition and use), as an editor would: an
  // `x` after the definition's `s`, then one after the use's (which the first has moved by a byte).
  for (uint32_t p : {m["s_def"] + 1, m["softmax_arg"] + 2}) {
    syntax::ByteRange range{p, p};
    s.doc->applyEdit(range, "x");
    REQUIRE(analysis::followEdit(s.lint, *s.doc, range, 1));
  }
  analysis::finishLint(s.lint, *s.doc);
  auto h = server::hoverAt(s, m["s_def"]);  // the definition has not moved
  REQUIRE(h);
  CHECK(h->markdown.find("sx: R.Tensor((2, 3), dtype=\"float32\", vdevice=\"cuda:0\")") != std::string::npos);
  const uint32_t inUse = m["softmax_arg"] + 2;  // the use's `x`
  auto chain = server::selectionChain(s, inUse);
  REQUIRE(chain.size() >= 3);
  CHECK(s.doc->slice(chain[0]) == "sx");
  CHECK(s.doc->slice(chain[1]) == "(sx, axis=-1)");
  auto t = server::nameAt(s, inUse);
  REQUIRE(t);
  CHECK(t->all.size() == 2);
  CHECK(s.doc->slice(t->all[0]->range) == "sx");
}

TEST_CASE("features: in a T.prim_func, hover shows a buffer's shape, dtype and scope, and definition and references find loop variables") {
  auto m = test::marked(R"(from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        for i, $[j_def]j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, $[j_use]j])
                S[vj] = $[A_use]A[$[vi_use]vi, vj]
                $[B_use]B[vi, vj] = $[S_use]S[vj] * T.float32(2)
)");
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto a = server::hoverAt(s, m["A_use"]);
  REQUIRE(a);
  CHECK(a->markdown.find("A: T.Buffer((4, 8), \"float32\")  # parameter") != std::string::npos);
  auto shared = server::hoverAt(s, m["S_use"]);
  REQUIRE(shared);
  CHECK(shared->markdown.find("S: T.Buffer((8,), \"float32\", scope=\"shared\")  # allocated") != std::string::npos);
  auto axis = server::hoverAt(s, m["vi_use"]);
  REQUIRE(axis);
  CHECK(axis->markdown.find("vi = T.axis.spatial(..., i)  # block axis") != std::string::npos);
  // Definition of j (used in the remap) is the loop's `j`; references list the definition and the use.
  auto j = server::nameAt(s, m["j_use"]);
  REQUIRE(j);
  REQUIRE(j->all.size() == 2);
  CHECK(j->all[0]->isDefinition);
  CHECK(j->all[0]->range.begin == m["j_def"]);
  // The buffer B: its parameter, then its store.
  auto b = server::nameAt(s, m["B_use"]);
  REQUIRE(b);
  CHECK(b->all.size() == 2);
  CHECK(server::renameAt(s, m["B_use"], "C").error.find("not supported yet") != std::string::npos);
}

TEST_CASE("features: after R. the completions offer the device constructors of the kinds tvms runs, from the target-kind table") {
  const auto& m = fixture();
  std::string text = m.text;
  auto s = snapshotOf(text);
  auto items = server::completionsAt(s, m["after_r_dot"]);
  auto has = [&](const std::string& label) {
    return std::any_of(items.begin(), items.end(), [&](auto& c) { return c.label == label && c.kind == server::Completion::Kind::Keyword; });
  };
  CHECK(has("cpu"));   // llvm's constructor
  CHECK(has("cuda"));
  CHECK_FALSE(has("llvm"));  // a kind name, not a constructor
  CHECK_FALSE(has("rocm"));  // known to TVM, not run by tvms
}
