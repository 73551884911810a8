// The frontend: regions inside Python, aliases, every construct of LANGUAGE.md, source ranges,
// and diagnostics instead of exceptions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>

#include "compiler/frontend/cst.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {
const char* kHeader = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n";

test::Lowered lowerModule(const std::string& body) { return test::lower(std::string(kHeader) + body); }

bool has(const std::vector<std::string>& codes, const std::string& c) {
  return std::find(codes.begin(), codes.end(), c) != codes.end();
}

const ir::Binding& binding(const ir::Function& f, size_t block, size_t i) { return *f.body->blocks.at(block)->bindings.at(i); }
}  // namespace

TEST_CASE("frontend: finds modules and functions inside ordinary Python and ignores the rest") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/frontend/standalone_and_nested.py"));
  REQUIRE(l.file.regions.size() == 2);
  CHECK(l.module(0).standalone);
  CHECK(l.module(0).functions.at(0).name == "standalone");
  CHECK(l.module(0).functions.at(0).relax->isPrivate());
  CHECK(l.module(1).name == "Before");
  CHECK(l.file.regions[1].indentColumn == 4);
  CHECK(l.codes().empty());

  auto plain = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/plain_python_untouched.py"));
  CHECK(plain.file.regions.size() == 1);
  CHECK(plain.codes().empty());  // `undefined_here` in the plain helper is not ours to judge
}

TEST_CASE("frontend: resolves the import aliases a file uses, including the long spellings") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/frontend/long_spellings.py"));
  REQUIRE(l.file.regions.size() == 1);
  auto& f = *l.module().functions.at(0).relax;
  auto* relu = ir::as<ir::Call>(binding(f, 0, 0).value);
  REQUIRE(relu);
  CHECK(relu->op == "relax.nn.relu");
  CHECK(l.codes().empty());

  // R. without an import: the conventional meaning, said once (TVS010).
  auto implicit = test::lower("@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((1,), \"float32\")) -> R.Tensor((1,), \"float32\"):\n        return x\n");
  REQUIRE(implicit.file.regions.size() == 1);
  auto codes = implicit.codes();
  CHECK(std::count(codes.begin(), codes.end(), "TVS010") == 2);  // I and R, once each

  // A decorator that only looks like ours is not: `@function` from elsewhere.
  auto other = test::lower("from mylib import R\n@R.function\ndef f(x):\n    return x\n");
  CHECK(other.file.regions.empty());
}

TEST_CASE("frontend: global_infos, vdevice strings and inline vdevices") {
  auto l = lowerModule(R"(
@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32", "cuda:1"), y: R.Tensor((2,), "float32", "metal")) -> R.Tensor((2,), "float32"):
        a = R.to_vdevice(x, I.vdevice("llvm"))
        b = R.to_vdevice(a, "vdevice:0")
        return b
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 1), I.vdevice({"kind": "cuda", "arch": "sm_90"}, 0, "global")], "dummy": [1]})
)");
  auto& m = l.module();
  REQUIRE(m.vdevices.size() == 3);  // read before the functions, wherever it stands
  CHECK(m.vdevices[2]->target.kind == "cuda");
  CHECK(m.vdevices[2]->target.writtenAsDict());
  CHECK(m.otherGlobalInfos.size() == 1);
  auto& f = *m.functions.at(0).relax;
  CHECK(f.params[0]->annotation->vdevice->device == m.vdevices[2]);  // "cuda:1" = the 2nd cuda entry
  CHECK(f.params[1]->annotation->vdevice->device == nullptr);         // no metal entry: unresolved
  CHECK(f.params[1]->annotation->vdevice->spelling == "metal");
  auto* move = ir::as<ir::Call>(binding(f, 0, 0).value);
  const ir::CallAttr* dst = move->attr("dst_vdevice");
  REQUIRE(dst);
  CHECK(dst->value.vdevice->isInline);
  CHECK(ir::sameValue(*dst->value.vdevice->device, *m.vdevices[0]));
  CHECK_FALSE(ir::sameDeclaredEntry(m, *dst->value.vdevice, ir::VDeviceRef{m.vdevices[0], "llvm", false}));
  auto* back = ir::as<ir::Call>(binding(f, 0, 1).value);
  CHECK(back->attr("dst_vdevice")->value.vdevice->device == m.vdevices[0]);
  // A second I.module_global_infos is TVS006, related to the first.
  auto dup = lowerModule("@I.ir_module\nclass M:\n    I.module_global_infos({\"vdevice\": []})\n    I.module_global_infos({\"vdevice\": []})\n");
  auto all = dup.file.all();
  REQUIRE(all.size() == 1);
  CHECK(all[0].code == "TVS006");
  CHECK(all[0].related.size() == 1);
}

TEST_CASE("frontend: dataflow blocks, outputs, and dataflow variables that escape") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/structure.py"));
  auto codes = l.codes();
  CHECK(codes == std::vector<std::string>{"TVS004", "TVS007", "TVS003", "TVS005"});
  auto& f = *l.module().functions.at(0).relax;
  REQUIRE(f.body->blocks.size() == 2);
  CHECK(f.body->blocks[0]->dataflow);
  CHECK_FALSE(binding(f, 0, 0).vars[0]->isDataflow);  // `a` is an output
  CHECK(binding(f, 0, 1).vars[0]->isDataflow);        // `b` is not
  CHECK_FALSE(f.body->blocks[1]->dataflow);
}

TEST_CASE("frontend: every binding form of control_flow.py") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/frontend/control_flow.py"));
  CHECK(l.codes().empty());
  auto& m = l.module();
  CHECK(m.hasAttrs);
  REQUIRE(m.functions.size() == 4);
  auto& tir = *m.functions[0].tir;
  CHECK(tir.params.size() == 2);
  CHECK(tir.params[0].kind == ir::TirParam::Kind::Buffer);
  CHECK(tir.params[0].buffer.dtype == "float32");
  CHECK(tir.params[0].buffer.shape.size() == 2);
  CHECK(tir.attrs.size() == 1);
  CHECK(tir.bodyLines.back().find("# a comment inside TIR stays") != std::string::npos);

  auto& main = *m.functions[1].relax;
  CHECK_FALSE(main.isPure());
  CHECK(main.hasFuncAttr);
  auto& iff = binding(main, 0, 0);
  auto* cond = ir::as<ir::If>(iff.value);
  REQUIRE(cond);
  CHECK(iff.vars[0]->name == "r");
  CHECK(cond->thenBranch->blocks[0]->bindings.size() == 2);
  auto* callTir = ir::as<ir::Call>(binding(main, 0, 1).value);
  CHECK(callTir->op == "relax.call_tir");
  CHECK(ir::as<ir::GlobalVar>(callTir->args[0])->name == "add_one");
  CHECK(callTir->sinfoArgs.size() == 1);
  CHECK(binding(main, 0, 3).kind == ir::Binding::Kind::Unpack);
  auto* plus = ir::as<ir::Call>(binding(main, 0, 4).value);
  CHECK(plus->op == "relax.add");
  CHECK(plus->infix == "+");
  CHECK(ir::as<ir::Call>(plus->args[1])->op == "relax.multiply");
  CHECK(ir::as<ir::Call>(binding(main, 0, 5).value)->op == "relax.negative");
  auto* packed = ir::as<ir::Call>(binding(main, 0, 6).value);
  CHECK(ir::as<ir::ExternFunc>(packed->args[0])->symbol == "vm.builtin.copy");
  auto* meta = ir::as<ir::Call>(binding(main, 0, 8).value);
  CHECK(ir::as<ir::Constant>(meta->args[1])->metadataIndex == 0);

  auto& dyn = *m.functions[2].relax;
  CHECK(dyn.symbolicVars.size() == 2);
  CHECK(dyn.retAnnotation->shape->at(0)->kind == ir::PrimExpr::Kind::Binary);
  CHECK(binding(dyn, 0, 1).kind == ir::Binding::Kind::MatchCast);

  auto& place = *m.functions[3].relax;
  auto* hint = ir::as<ir::Call>(binding(place, 0, 0).value);
  CHECK(hint->attr("device")->value.device == ir::DeviceHint{2, 1});
  CHECK(hint->attr("memory_scope")->written == false);
  CHECK(ir::as<ir::Call>(binding(place, 0, 1).value)->attr("device")->value.device == ir::DeviceHint{1, 0});
  auto* conv = ir::as<ir::Call>(binding(place, 0, 5).value);
  CHECK(conv->attrs.size() == 8);  // every attribute, defaults filled (and marked as not written)
  CHECK(conv->attr("groups")->written == false);
  CHECK(conv->attr("strides")->written == true);
}

TEST_CASE("frontend: source ranges for nodes and for every name's definition and uses") {
  std::string text = std::string(kHeader) + R"(
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0)]})
    @R.function
    def f(x: R.Tensor((2,), "float32", "cuda")) -> R.Tensor((2,), "float32"):
        y = R.exp(x)
        z = R.add(y, x)
        return z
)";
  auto l = test::lower(text);
  auto& region = l.file.regions.at(0);
  auto& f = *l.module().functions.at(0).relax;
  auto* xDef = f.params[0].get();
  std::vector<uint32_t> xs;
  for (auto& n : region.map.names)
    if (n.target == xDef) xs.push_back(n.range.begin);
  REQUIRE(xs.size() == 3);  // the parameter and two uses
  for (uint32_t at : xs) CHECK(text.substr(at, 1) == "x");
  auto* add = binding(f, 0, 1).value.get();
  const syntax::ByteRange* r = region.map.find(add);
  REQUIRE(r);
  CHECK(text.substr(r->begin, r->end - r->begin) == "R.add(y, x)");
  // The vdevice string is a use of the declared entry.
  bool found = false;
  for (auto& n : region.map.names)
    if (n.kind == frontend::NameRef::Kind::VDevice && !n.isDefinition) {
      found = n.target == l.module().vdevices[0].get();
      CHECK(text.substr(n.range.begin, n.range.end - n.range.begin) == "\"cuda\"");
    }
  CHECK(found);
}

TEST_CASE("frontend: unsupported constructs are diagnostics with ranges, and the rest is lowered") {
  auto l = lowerModule(R"(
@I.ir_module
class M:
    x = 3
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        for i in range(3):
            pass
        g = lambda v: v
        y = R.exp(x)
        return y
    @R.function
    def g(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.nn.softmax(x, axis=x)
        z = R.sum(x, 1, True, 4)
        w = R.nn.softmax()
        return z
)");
  auto codes = l.codes();
  CHECK(std::count(codes.begin(), codes.end(), "TVS002") == 3);
  CHECK(std::count(codes.begin(), codes.end(), "TVS005") == 3);
  REQUIRE(l.module().functions.size() == 2);
  CHECK(l.module().functions[0].relax->body->body != nullptr);  // `y = R.exp(x); return y` still lowered
  CHECK_FALSE(l.file.regions[0].formattable());
}

TEST_CASE("frontend: a syntax error in one function leaves the next one analysed") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/syntax_error.py"));
  CHECK(l.codes() == std::vector<std::string>{"TVS001", "TVS003"});
  auto all = l.file.all();
  CHECK(all[0].message == "'(' was never closed");
  CHECK(l.doc->lines().toLineCol(all[0].range.begin, syntax::Encoding::Utf8).line == 10);
  REQUIRE(l.module().function("fine") != nullptr);
  CHECK(l.module().function("broken") == nullptr);
  CHECK(l.file.regions[0].functions.size() == 2);
  CHECK(l.file.regions[0].functions[0].broken);
}

TEST_CASE("frontend: never throws on hostile text") {
  std::vector<std::string> inputs = {
      "", "\n\n", "@I.ir_module\n", "@I.ir_module\nclass", "from tvm.script import relax as R\n@R.function\ndef",
      std::string(kHeader) + "@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")) -> R.Tensor:\n        y = " +
          std::string(10000, '(') + "x" + std::string(10000, ')') + "\n        return y\n",
      std::string(kHeader) + "@R.function\ndef f(x: R.Tensor(" + std::string(5000, '[') + ")) -> R.Tensor:\n    return x\n",
      std::string(kHeader) + "@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((\"n\",), \"float32\")) -> R.Tensor((\"n +\",)):\n        return x\n",
  };
  for (auto& text : inputs) {
    CHECK_NOTHROW(test::lower(text));
  }
  auto deep = test::lower(inputs[5]);
  CHECK(has(deep.codes(), "TVS002"));  // nested too deeply, said once
}

// Two functions, g calling f, for the relowering tests.
const char* kCallingModule = R"(
@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.exp(x)
        return y

    @R.function
    def g(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = cls.f(x)
        return y
)";

TEST_CASE("frontend: relowering one function after an edit replaces only that function") {
  std::string text = std::string(kHeader) + kCallingModule;
  syntax::Document doc(text);
  auto file = frontend::lowerDocument(doc);
  auto& region = file.regions.at(0);
  auto gBefore = region.module->function("g")->relax;
  uint32_t at = static_cast<uint32_t>(text.find("R.exp"));
  doc.applyEdit({at + 2, at + 5}, "log");
  REQUIRE(frontend::relowerFunction(doc, region, 0));
  auto* call = ir::as<ir::Call>(region.module->function("f")->relax->body->blocks[0]->bindings[0]->value);
  CHECK(call->op == "relax.log");
  CHECK(region.module->function("g")->relax == gBefore);  // untouched: the same object
}

TEST_CASE("frontend: lowering an incrementally edited document equals lowering the same text afresh") {
  std::string text = test::readFile(std::string(TVMS_CORPUS_DIR) + "/frontend/control_flow.py");
  syntax::Document doc(text);
  uint32_t seed = 5;
  int compared = 0;
  for (int i = 0; i < 150; ++i) {
    seed = seed * 1103515245u + 12345u;
    uint32_t at = (seed >> 8) % static_cast<uint32_t>(doc.text().size());
    const char* piece = (i % 3 == 0) ? "b" : (i % 3 == 1) ? " " : "R.exp(x)";
    doc.applyEdit({at, at}, piece);
    syntax::Document fresh(doc.text());
    auto mine = frontend::lowerDocument(doc);
    auto theirs = frontend::lowerDocument(fresh);
    bool clean = test::cleanForCPython(fresh);
    if (clean && mine.regions.size() == theirs.regions.size()) {
      for (size_t r = 0; r < mine.regions.size(); ++r)
        CHECK(ir::firstDifference(*mine.regions[r].module, *theirs.regions[r].module) == "");
      std::vector<std::string> a, b;
      for (auto& d : mine.all()) a.push_back(std::string(diag::codeName(d.code)) + "@" + std::to_string(d.range.begin));
      for (auto& d : theirs.all()) b.push_back(std::string(diag::codeName(d.code)) + "@" + std::to_string(d.range.begin));
      CHECK(a == b);
      ++compared;
    }
    doc.applyEdit({at, at + static_cast<uint32_t>(std::strlen(piece))}, "");
    REQUIRE(doc.text() == text);
  }
  CHECK(compared > 50);
  CHECK(doc.islandReparses() > 50);
}

TEST_CASE("frontend: `from __future__ import annotations` in a TVMScript file is TVS009") {
  auto l = test::lower(std::string("from __future__ import annotations\n") + kHeader +
                       "@R.function\ndef f(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n    return x\n");
  CHECK(l.codes() == std::vector<std::string>{"TVS009"});
  auto plain = test::lower("from __future__ import annotations\nimport os\n");
  CHECK(plain.codes().empty());  // no TVMScript, nothing to say
}

TEST_CASE("frontend: every corpus file truncated at every 97th byte lowers, and broken text says TVS001") {
  int runs = 0;
  for (auto& path : test::corpusFiles()) {
    std::string text = test::readFile(path);
    for (size_t cut = 0; cut < text.size(); cut += 97) {
      INFO(path << " cut at " << cut);
      auto l = test::lower(text.substr(0, cut));
      ++runs;
      bool broken = ts_node_has_error(l.doc->root());
      bool ours = !l.file.regions.empty();
      if (broken && ours) CHECK(has(l.codes(), "TVS001"));
    }
  }
  CHECK(runs > 200);
}

TEST_CASE("frontend: relowering a function whose edit broke it reports TVS001 there and keeps the rest") {
  std::string text = std::string(kHeader) + kCallingModule;
  syntax::Document doc(text);
  auto file = frontend::lowerDocument(doc);
  auto& region = file.regions.at(0);
  auto g = region.module->function("g")->relax;
  uint32_t at = static_cast<uint32_t>(text.find("        return y")) + 3;
  doc.applyEdit({at, at}, "q");
  REQUIRE(frontend::relowerFunction(doc, region, 0));
  CHECK(doc.wholeFileReparses() == 0);
  CHECK(region.functions[0].broken);
  CHECK(region.module->function("f") == nullptr);
  CHECK(region.module->function("g")->relax == g);
  size_t errors = std::count_if(region.diagnostics.begin(), region.diagnostics.end(), [](auto& d) { return d.code == "TVS001"; });
  CHECK(errors == 1);
  // A full lowering of the edited document agrees: one syntax error, f broken, g intact. (A whole-file
  // parse of this text does worse: tree-sitter ends the class at the bad line and reads g as a
  // standalone function.)
  auto again = frontend::lowerDocument(doc);
  REQUIRE(again.regions.size() == 1);
  auto codes = test::Lowered{nullptr, again}.codes();
  INFO(codes.size() << " codes, first " << (codes.empty() ? "" : codes[0]) << ", last " << (codes.empty() ? "" : codes.back()));
  CHECK(codes == std::vector<std::string>{"TVS001"});
  CHECK(again.regions[0].module->function("g") != nullptr);
  CHECK(again.regions[0].module->function("f") == nullptr);
  // Undo: the function comes back.
  doc.applyEdit({at, at + 1}, "");
  REQUIRE(frontend::relowerFunction(doc, region, 0));
  CHECK_FALSE(region.functions[0].broken);
  REQUIRE(region.module->function("f") != nullptr);
}

TEST_CASE("frontend: regions never overlap, on every corpus file and every fuzz input (a definition inside a region is part of it)") {
  // fuzz_frontend found a module whose function the whole-file tree showed as a statement of its own
  // after a syntax error: it was lowered twice, as the module and as a standalone function, and fmt
  // wrote its text twice.
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const char* dir : {"/lint", "/../fuzz/frontend"})
    for (auto& e : fs::recursive_directory_iterator(std::string(TVMS_CORPUS_DIR) + dir)) {
      if (!e.is_regular_file()) continue;
      ++files;
      auto l = test::lower(test::readFile(e.path().string()));
      INFO(e.path().string());
      for (size_t i = 1; i < l.file.regions.size(); ++i)
        CHECK(l.file.regions[i - 1].range.end <= l.file.regions[i].range.begin);
    }
  CHECK(files > 40);
}

// namedChildren takes a node's few named children by number and walks many with a cursor: both must
// list every named child but comments, in order, whether comments lie between them or not.
TEST_CASE("frontend: namedChildren lists the named children but comments, in order, for few and for many") {
  auto expected = [](TSNode n) {
    std::vector<TSNode> out;
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
      TSNode c = ts_node_child(n, i);
      if (ts_node_is_named(c) && std::strcmp(ts_node_type(c), "comment") != 0) out.push_back(c);
    }
    return out;
  };
  for (int count : {0, 1, 2, 3, 7, 8, 9, 16, 40}) {
    for (bool comments : {false, true}) {
      std::string args;
      for (int i = 0; i < count; ++i) args += (comments ? "  # before\n  a" : "a") + std::to_string(i) + ",";
      const std::string text = "f(" + args + (comments ? "  # last\n" : "") + ")\n";
      syntax::Document doc(text);
      TSNode call = ts_node_named_child(ts_node_named_child(doc.root(), 0), 0);
      TSNode list = ts_node_child_by_field_name(call, "arguments", 9);
      REQUIRE(std::strcmp(ts_node_type(list), "argument_list") == 0);
      INFO(count, " arguments", comments ? ", comments between" : "");
      auto got = frontend::namedChildren(list);
      auto want = expected(list);
      REQUIRE(got.size() == want.size());
      CHECK(got.size() == static_cast<size_t>(count));
      for (size_t i = 0; i < got.size(); ++i) CHECK(ts_node_eq(got[i], want[i]));
    }
  }
}

// dottedName takes an attribute chain written without blanks or comments from its text: it must give
// what walking the chain gives, and nothing for chains whose head is not a name.
TEST_CASE("frontend: dottedName of attribute chains, from their text or by their parts") {
  std::function<std::string(const syntax::Document&, TSNode)> byParts = [&](const syntax::Document& doc, TSNode n) -> std::string {
    if (std::strcmp(ts_node_type(n), "identifier") == 0) return std::string(doc.nodeText(n));
    if (std::strcmp(ts_node_type(n), "attribute") != 0) return "";
    std::string head = byParts(doc, ts_node_child_by_field_name(n, "object", 6));
    if (head.empty()) return "";
    return head + "." + std::string(doc.nodeText(ts_node_child_by_field_name(n, "attribute", 9)));
  };
  const char* cases[] = {"R.add", "R.nn.relu", "x", "T.float32", "(R).add", "(R . add)", "(R.\n  add)", "(R  # c\n .add)",
                         "None.x", "True.real", "f().x", "a[0].b", "_x1.y_2", "R.add.__name__"};
  for (const char* expr : cases) {
    std::string text = std::string("v = ") + expr + "\n";
    syntax::Document doc(text);
    TSNode assignment = ts_node_named_child(ts_node_named_child(doc.root(), 0), 0);
    TSNode value = ts_node_child_by_field_name(assignment, "right", 5);
    while (std::strcmp(ts_node_type(value), "parenthesized_expression") == 0) value = ts_node_named_child(value, 0);
    INFO(expr);
    CHECK(frontend::dottedName(doc, value) == byParts(doc, value));
  }
}

// stringLiteral looks for interpolations only in strings whose prefix may make them f-strings; bytes
// and f-strings are never a string's value.
TEST_CASE("frontend: stringLiteral reads plain, raw and unicode strings, not bytes or f-strings") {
  struct Case {
    const char* expr;
    std::optional<std::string> value;
  };
  const Case cases[] = {{"\"float32\"", "float32"}, {"'cuda'", "cuda"}, {"r'a\\\\b'", "a\\\\b"}, {"u\"x\"", "x"},
                        {"f\"{n}\"", std::nullopt}, {"F'a{n}b'", std::nullopt}, {"rf'{n}'", std::nullopt},
                        {"Rb'q'", std::nullopt}, {"f'plain'", std::nullopt}, {"'a' 'b'", "ab"}};
  for (const Case& c : cases) {
    std::string text = std::string("v = ") + c.expr + "\n";
    syntax::Document doc(text);
    TSNode assignment = ts_node_named_child(ts_node_named_child(doc.root(), 0), 0);
    TSNode value = ts_node_child_by_field_name(assignment, "right", 5);
    INFO(std::string(c.expr), " gives ", frontend::stringLiteral(doc, value).value_or("nothing"));
    CHECK(frontend::stringLiteral(doc, value) == c.value);
  }
}

// hasTrailingComma answers from the text unless a comment or a line continuation may stand in the way:
// either way it must agree with the children of the list.
TEST_CASE("frontend: hasTrailingComma agrees with the list's children, comments and continued lines included") {
  auto byChildren = [](TSNode list) {
    for (uint32_t i = ts_node_child_count(list); i-- > 0;) {
      std::string_view t = ts_node_type(ts_node_child(list, i));
      if (t == ")" || t == "]" || t == "}" || t == "comment") continue;
      return t == ",";
    }
    return false;
  };
  const char* cases[] = {"f(a, b)", "f(a, b,)", "f(a,\n)", "f(a,  # c\n)", "f(a  # c,\n)", "f(\n  a,\n  # last\n)",
                         "f('#', b,)", "f(a, \\\n)", "f()", "f(a,\n  b  # x\n)", "f(a, b , )", "f('x,')", "f(a,\t\n )",
                         "f(\"\"\"a,\n#\"\"\",)", "f(x for x in y)"};
  int lists = 0;
  for (const char* expr : cases) {
    std::string text = std::string("v = ") + expr + "\n";
    syntax::Document doc(text);
    TSNode assignment = ts_node_named_child(ts_node_named_child(doc.root(), 0), 0);
    TSNode call = ts_node_child_by_field_name(assignment, "right", 5);
    TSNode list = ts_node_child_by_field_name(call, "arguments", 9);
    if (std::strcmp(ts_node_type(list), "argument_list") != 0) continue;
    ++lists;
    INFO(std::string(expr));
    CHECK(frontend::hasTrailingComma(doc, list) == byChildren(list));
  }
  CHECK(lists >= 13);
}
