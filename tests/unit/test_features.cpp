// The editor features as functions over the compiler's types (no JSON, no server): what the language
// server shows, checked directly.
#include <doctest/doctest.h>

#include <algorithm>

#include "server/features.h"

namespace {

using namespace tvms;

const char* kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm"), I.vdevice("cuda", 1)]})

    @R.function
    def helper(a: R.Tensor((2, 3), "float32", "cuda:1")) -> R.Tensor((2, 3), "float32", "cuda:1"):
        return a

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "cuda:0"), y: R.Tensor((2, 3), "float32", "cuda:1")):
        with R.dataflow():
            s = R.add(x, x)
            t = R.nn.softmax(s, axis=-1)
            u = R.to_vdevice(t, "llvm")
            R.output(u)
        v = Module.helper(y)  # noqa: TVS211
        return (u, v)
)";

server::Snapshot snapshotOf(const std::string& text) {
  server::Snapshot s;
  s.doc = std::make_unique<syntax::Document>(text);
  s.lint = analysis::lintDocument(*s.doc);
  return s;
}

uint32_t at(const std::string& text, const std::string& what, size_t from = 0, uint32_t into = 0) {
  size_t p = text.find(what, from);
  REQUIRE(p != std::string::npos);
  return static_cast<uint32_t>(p) + into;
}

std::string applied(std::string text, std::vector<diag::TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.range.begin > b.range.begin; });
  for (auto& e : edits) text.replace(e.range.begin, e.range.end - e.range.begin, e.newText);
  return text;
}

}  // namespace

TEST_CASE("features: hover shows deduced struct info with the vdevice, op signatures, vdevice entries, rules") {
  std::string text = kModule;
  auto s = snapshotOf(text);
  auto h = server::hoverAt(s, at(text, "s = R.add"));
  REQUIRE(h);
  CHECK(h->markdown.find("s: R.Tensor((2, 3), dtype=\"float32\", vdevice=\"cuda:0\")") != std::string::npos);
  CHECK(h->markdown.find("physical device cuda 0") != std::string::npos);
  auto op = server::hoverAt(s, at(text, "softmax"));
  REQUIRE(op);
  CHECK(op->markdown.find("R.nn.softmax(data, axis=-1)") != std::string::npos);
  auto vd = server::hoverAt(s, at(text, "\"llvm\")\n", 0, 2));
  REQUIRE(vd);
  CHECK(vd->markdown.find("list entry 1") != std::string::npos);
  auto rule = server::hoverAt(s, at(text, "TVS211", 0, 2));
  REQUIRE(rule);
  CHECK(rule->markdown.find("**TVS211**") != std::string::npos);
  CHECK_FALSE(server::hoverAt(s, at(text, "import ir")));  // outside the region: nothing
}

TEST_CASE("features: renaming a variable rewrites its definition and every use, and refuses a clash") {
  std::string text = kModule;
  auto s = snapshotOf(text);
  auto r = server::renameAt(s, at(text, "s = R.add"), "summed");
  REQUIRE(r.error.empty());
  CHECK(r.edits.size() == 2);
  std::string out = applied(text, r.edits);
  CHECK(out.find("summed = R.add(x, x)") != std::string::npos);
  CHECK(out.find("R.nn.softmax(summed, axis=-1)") != std::string::npos);
  CHECK(server::renameAt(s, at(text, "s = R.add"), "t").error.find("already bound") != std::string::npos);
  CHECK(server::renameAt(s, at(text, "s = R.add"), "not valid").error.find("identifier") != std::string::npos);
  CHECK(server::renameAt(s, at(text, "s = R.add"), "class").error.find("identifier") != std::string::npos);
  auto range = server::renameRange(s, at(text, "s = R.add"));
  REQUIRE(range);
  CHECK(s.doc->slice(*range) == "s");
}

TEST_CASE("features: renaming a function rewrites its definition and each Module.f use") {
  std::string text = kModule;
  auto s = snapshotOf(text);
  auto r = server::renameAt(s, at(text, "helper(y)"), "on_second_gpu");
  REQUIRE(r.error.empty());
  std::string out = applied(text, r.edits);
  CHECK(out.find("def on_second_gpu(a:") != std::string::npos);
  CHECK(out.find("Module.on_second_gpu(y)") != std::string::npos);
  CHECK(server::renameAt(s, at(text, "helper(y)"), "main").error.find("already has") != std::string::npos);
}

TEST_CASE("features: renaming a vdevice's kind re-indexes every vdevice string whose spelling changes") {
  std::string text = kModule;
  auto s = snapshotOf(text);
  // The first cuda entry becomes rocm: "cuda:0" -> "rocm:0", and the second cuda entry is now the
  // first of its kind: "cuda:1" -> "cuda:0". "llvm" is untouched.
  auto r = server::renameAt(s, at(text, "\"cuda:0\"", 0, 1), "rocm");
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
  auto fromDecl = server::renameAt(s, at(text, "I.vdevice(\"cuda\", 0)", 0, 3), "rocm:0");
  CHECK(applied(text, fromDecl.edits) == out);
}

TEST_CASE("features: signature help names the parameter under the cursor, by position or keyword") {
  std::string text = kModule;
  auto s = snapshotOf(text);
  auto h = server::signatureAt(s, at(text, "softmax(s", 0, 8));
  REQUIRE(h);
  CHECK(h->label == "R.nn.softmax(data, axis=-1)");
  REQUIRE(h->parameters.size() == 2);
  CHECK(h->label.substr(h->parameters[1].first, h->parameters[1].second - h->parameters[1].first) == "axis=-1");
  CHECK(h->active == 0);
  auto onAxis = server::signatureAt(s, at(text, "axis=-1", 0, 3));
  REQUIRE(onAxis);
  CHECK(onAxis->active == 1);
  auto second = server::signatureAt(s, at(text, "R.add(x, x)", 0, 9));
  REQUIRE(second);
  CHECK(second->active == 1);
  CHECK_FALSE(server::signatureAt(s, at(text, "s = R.add")));
}

TEST_CASE("features: semantic tokens mark namespaces, ops, variables by device kind, vdevice strings") {
  std::string text = kModule;
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
  const auto* r = tokenAt(at(text, "R.add"));
  CHECK(type(r) == "namespace");
  const auto* add = tokenAt(at(text, "R.add", 0, 2));
  CHECK(type(add) == "function");
  CHECK(has(add, "defaultLibrary"));
  const auto* sDef = tokenAt(at(text, "s = R.add"));
  CHECK(type(sDef) == "variable");
  CHECK(has(sDef, "declaration"));
  CHECK(has(sDef, "dataflow"));
  CHECK(has(sDef, "device_cuda"));
  const auto* u = tokenAt(at(text, "R.output(u)", 0, 9));
  CHECK(has(u, "device_llvm"));
  const auto* x = tokenAt(at(text, "x: R.Tensor"));
  CHECK(type(x) == "parameter");
  const auto* llvm = tokenAt(at(text, "\"llvm\")\n"));
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
  std::string text = kModule;
  server::Snapshot s = snapshotOf(text);
  // Type into main's body: rename `s` to `sx` by hand (definition and use), as an editor would.
  for (const char* anchor : {"s = R.add", "softmax(s"}) {
    uint32_t p = at(s.doc->text(), anchor) + (std::string(anchor) == "s = R.add" ? 1 : 9);
    syntax::ByteRange range{p, p};
    s.doc->applyEdit(range, "x");
    REQUIRE(analysis::followEdit(s.lint, *s.doc, range, 1));
  }
  analysis::finishLint(s.lint, *s.doc);
  const std::string& now = s.doc->text();
  auto h = server::hoverAt(s, at(now, "sx = R.add"));
  REQUIRE(h);
  CHECK(h->markdown.find("sx: R.Tensor((2, 3), dtype=\"float32\", vdevice=\"cuda:0\")") != std::string::npos);
  auto chain = server::selectionChain(s, at(now, "softmax(sx", 0, 9));
  REQUIRE(chain.size() >= 3);
  CHECK(s.doc->slice(chain[0]) == "sx");
  CHECK(s.doc->slice(chain[1]) == "(sx, axis=-1)");
  auto t = server::nameAt(s, at(now, "softmax(sx", 0, 9));
  REQUIRE(t);
  CHECK(t->all.size() == 2);
  CHECK(s.doc->slice(t->all[0]->range) == "sx");
}

TEST_CASE("features: in a T.prim_func, hover shows a buffer's shape, dtype and scope, and definition and references find loop variables") {
  std::string text = R"(from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                S[vj] = A[vi, vj]
                B[vi, vj] = S[vj] * T.float32(2)
)";
  auto s = snapshotOf(text);
  auto a = server::hoverAt(s, at(text, "A[vi, vj]"));
  REQUIRE(a);
  CHECK(a->markdown.find("A: T.Buffer((4, 8), \"float32\")  # parameter") != std::string::npos);
  auto shared = server::hoverAt(s, at(text, "S[vj] *"));
  REQUIRE(shared);
  CHECK(shared->markdown.find("S: T.Buffer((8,), \"float32\", scope=\"shared\")  # allocated") != std::string::npos);
  auto axis = server::hoverAt(s, at(text, "vi, vj]"));
  REQUIRE(axis);
  CHECK(axis->markdown.find("vi = T.axis.spatial(..., i)  # block axis") != std::string::npos);
  // Definition of j (used in the remap) is the loop's `j`; references list the definition and the use.
  auto j = server::nameAt(s, at(text, "j])"));
  REQUIRE(j);
  REQUIRE(j->all.size() == 2);
  CHECK(j->all[0]->isDefinition);
  CHECK(j->all[0]->range.begin == at(text, "j in T.grid"));
  // The buffer B: its parameter, then its store.
  auto b = server::nameAt(s, at(text, "B[vi"));
  REQUIRE(b);
  CHECK(b->all.size() == 2);
  CHECK(server::renameAt(s, at(text, "B[vi"), "C").error.find("not supported yet") != std::string::npos);
}

TEST_CASE("features: after R. the completions offer the device constructors of the kinds tvms runs, from the target-kind table") {
  std::string text = kModule;
  size_t at = text.find("s = R.add") + 6;  // just after "R."
  auto s = snapshotOf(text);
  auto items = server::completionsAt(s, static_cast<uint32_t>(at));
  auto has = [&](const std::string& label) {
    return std::any_of(items.begin(), items.end(), [&](auto& c) { return c.label == label && c.kind == server::Completion::Kind::Keyword; });
  };
  CHECK(has("cpu"));   // llvm's constructor
  CHECK(has("cuda"));
  CHECK_FALSE(has("llvm"));  // a kind name, not a constructor
  CHECK_FALSE(has("rocm"));  // known to TVM, not run by tvms
}
