// Deduction, vdevice checks, suppression and fixes, through analysis::lintDocument.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "compiler/diagnostics/catalogue.h"
#include "compiler/analysis/lint.h"
#include "tests/support/corpus.h"

namespace {

using namespace tvms;

std::multiset<std::string> codesOf(const analysis::LintResult& r) {
  std::multiset<std::string> out;
  for (auto& d : r.diagnostics) out.insert(std::string(diag::codeName(d.code)));
  return out;
}

analysis::LintResult lint(const std::string& text, const analysis::RuleSelection& rules = {}) {
  syntax::Document doc(text);
  return analysis::lintDocument(doc, rules);
}

std::string applyFix(std::string text, const diag::Fix& fix) {
  auto edits = fix.edits;
  std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.range.begin > b.range.begin; });
  for (auto& e : edits) text.replace(e.range.begin, e.range.end - e.range.begin, e.newText);
  return text;
}

constexpr const char* kHeader = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n";

}  // namespace

TEST_CASE("lint: every fix of every corpus diagnostic applies cleanly and removes its diagnostic, adding none") {
  size_t fixesTried = 0;
  std::set<std::string> codesFixed;
  for (auto& path : test::corpusFiles("lint")) {
    std::string text = test::readFile(path);
    auto before = lint(text);
    auto codes = codesOf(before);
    for (auto& d : before.diagnostics) {
      for (auto& fix : d.fixes) {
        INFO(path << ": " << d.code << " fix '" << fix.title << "'");
        auto after = lint(applyFix(text, fix));
        auto now = codesOf(after);
        // Nothing new appears; the fixed diagnostic's code is reported once less.
        for (auto& c : now) CHECK_MESSAGE(now.count(c) <= codes.count(c), "new diagnostic " << c);
        std::string code(diag::codeName(d.code));
        CHECK(now.count(code) < codes.count(code));
        for (auto& e : after.diagnostics) CHECK(e.code != "TVS001");
        ++fixesTried;
        codesFixed.insert(code);
      }
    }
  }
  CHECK(fixesTried >= 12);
  for (auto* c : {"TVS004", "TVS201", "TVS202", "TVS203", "TVS204", "TVS205", "TVS206", "TVS207", "TVS209", "TVS214"})
    CHECK_MESSAGE(codesFixed.count(c), c << " has a fix exercised by the corpus");
}

TEST_CASE("lint: every corpus file truncated at every 97th byte lints without a crash, with TVS001 where broken") {
  size_t runs = 0;
  for (auto& path : test::corpusFiles()) {
    std::string text = test::readFile(path);
    for (size_t cut = 97; cut < text.size(); cut += 97) {
      std::string prefix = text.substr(0, cut);
      syntax::Document doc(prefix);
      auto r = analysis::lintDocument(doc);
      ++runs;
      // Required where the cut falls inside a region (a cut in the imports leaves no TVMScript).
      size_t trimmed = prefix.find_last_not_of(" \n\t") + 1;
      bool inRegion = std::any_of(r.file.regions.begin(), r.file.regions.end(), [&](auto& g) { return g.range.end >= trimmed; });
      if (ts_node_has_error(doc.root()) && inRegion) {
        bool reported = std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == "TVS001"; });
        CHECK_MESSAGE(reported, path << " cut at " << cut);
      }
    }
  }
  CHECK(runs > 100);
}

TEST_CASE("lint: deduction is per function and reuses unchanged functions") {
  std::string text = std::string(kHeader) + R"(@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})

    @R.function
    def f(x: R.Tensor((2,), "float32", "cuda")) -> R.Tensor((2,), "float32", "cuda"):
        y = R.exp(x)
        return y

    @R.function
    def g(x: R.Tensor((2,), "float32", "llvm")) -> R.Tensor((2,), "float32", "llvm"):
        y = R.negative(x)
        return y
)";
  syntax::Document doc(text);
  auto file = frontend::lowerDocument(doc);
  auto& region = file.regions.at(0);
  auto first = analysis::analyzeModule(region, doc.text());
  CHECK(first.deduced == 2);
  uint32_t at = static_cast<uint32_t>(text.find("R.exp"));
  doc.applyEdit({at + 2, at + 5}, "log");
  REQUIRE(frontend::relowerFunction(doc, region, 0));
  auto second = analysis::analyzeModule(region, doc.text(), &first);
  CHECK(second.deduced == 1);
  CHECK(second.functions[1] == first.functions[1]);  // g: the very same results
  CHECK(second.functions[0] != first.functions[0]);
  // The edited function's deduction is current: y is still on cuda.
  auto& f = *region.module->function("f")->relax;
  auto fact = second.functions[0]->vars.at(f.body->blocks[0]->bindings[0]->vars[0].get());
  REQUIRE(fact.sinfo);
  CHECK(fact.sinfo->vdevice->device == region.module->vdevices[1]);
}

TEST_CASE("lint: deduced struct info follows shapes, dtypes and vdevices") {
  std::string text = std::string(kHeader) + R"(@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda")]})

    @R.function
    def main(x: R.Tensor(("n", 3), "float32", "cuda"), w: R.Tensor((3, 5), "float32", "cuda")):
        a = R.matmul(x, w)
        b = R.sum(a, axis=1, keepdims=True)
        c = R.permute_dims(a)
        d = R.to_vdevice(c, "llvm")
        e = R.less(d, d)
        return e
)";
  syntax::Document doc(text);
  auto file = frontend::lowerDocument(doc);
  auto ma = analysis::analyzeModule(file.regions.at(0), doc.text());
  auto& fn = *file.regions[0].module->function("main")->relax;
  auto printed = [&](size_t i) {
    auto& s = ma.functions[0]->vars.at(fn.body->blocks[0]->bindings[i]->vars[0].get()).sinfo;
    return ir::printStructInfo(s, *file.regions[0].module);
  };
  CHECK(printed(0) == R"(R.Tensor((n, 5), dtype="float32", vdevice="cuda:0"))");
  CHECK(printed(1) == R"(R.Tensor((n, 1), dtype="float32", vdevice="cuda:0"))");
  CHECK(printed(2) == R"(R.Tensor((5, n), dtype="float32", vdevice="cuda:0"))");
  CHECK(printed(3) == R"(R.Tensor((5, n), dtype="float32", vdevice="llvm:0"))");
  CHECK(printed(4) == R"(R.Tensor((5, n), dtype="bool", vdevice="llvm:0"))");
}

TEST_CASE("lint: rules off by default fire only when selected: ignore and select take prefixes") {
  std::string text = std::string(kHeader) + R"(@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 1)]})

    @R.function
    def main(x: R.Tensor((2,), "float32", "cuda:0")) -> R.Tensor((2,), "float32", "cuda:0"):
        return x
)";
  CHECK(codesOf(lint(text)).empty());
  analysis::RuleSelection extra;
  extra.extendSelect = {"TVS208", "TVS211"};
  CHECK(codesOf(lint(text, extra)) == std::multiset<std::string>{"TVS208", "TVS208", "TVS211"});  // param and return
  analysis::RuleSelection prefixOnly;
  prefixOnly.select = {"TVS2"};
  CHECK(codesOf(lint(text, prefixOnly)).empty());  // a prefix does not turn on an off-by-default rule

  std::string bad = std::string(kHeader) + R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32", "cuda")) -> R.Tensor((2,), "float32"):
        y = R.add(x, undefined)
        return y
)";
  CHECK(codesOf(lint(bad)) == std::multiset<std::string>{"TVS003", "TVS201"});
  analysis::RuleSelection ignore2;
  ignore2.ignore = {"TVS2"};
  CHECK(codesOf(lint(bad, ignore2)) == std::multiset<std::string>{"TVS003"});
  analysis::RuleSelection only0;
  only0.select = {"TVS0"};
  CHECK(codesOf(lint(bad, only0)) == std::multiset<std::string>{"TVS003"});
}

TEST_CASE("lint: bare noqa, coded noqa and file-level noqa suppress: unused ones are TVS900") {
  std::string body = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32", "cuda")) -> R.Tensor((2,), "float32"):  # noqa
        y = R.add(x, undefined)  # noqa: TVS003
        z = R.exp(y)  # noqa: TVS203
        w = R.exp(z)  # noqa
        return w
)";
  auto r = lint(std::string(kHeader) + body);
  CHECK(codesOf(r) == std::multiset<std::string>{"TVS900", "TVS900"});
  auto fileLevel = lint(std::string("# tvms: noqa\n") + kHeader + body);
  CHECK(codesOf(fileLevel).empty());
}

TEST_CASE("lint: TVS203 carries the chain of where each vdevice came from, and the declared entries") {
  std::string text = test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/operands_on_two_devices.py");
  auto r = lint(text);
  auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == "TVS203"; });
  REQUIRE(it != r.diagnostics.end());
  std::vector<std::string> notes;
  for (auto& rel : it->related) notes.push_back(rel.message);
  CHECK(std::find(notes.begin(), notes.end(), "'a' is on 'cuda' (its annotation)") != notes.end());
  CHECK(std::find(notes.begin(), notes.end(), "the result of R.exp stays on 'cuda'") != notes.end());
  CHECK(std::find(notes.begin(), notes.end(), "'b' is on 'llvm' (its annotation)") != notes.end());
  CHECK(std::find(notes.begin(), notes.end(), "vdevice 'cuda:0' declared here") != notes.end());
  CHECK(std::find(notes.begin(), notes.end(), "vdevice 'llvm:0' declared here") != notes.end());
  REQUIRE(it->fixes.size() == 1);
  CHECK(it->fixes[0].edits[0].newText == "R.to_vdevice(b, \"cuda:0\")");
}

TEST_CASE("lint: a vdevice used only by a broken function is not called unused (TVS209) while it is broken") {
  std::string module = std::string(kHeader) +
                       "@I.ir_module\nclass Module:\n"
                       "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\"), I.vdevice(\"cuda\", 0)]})\n\n"
                       "    @R.function\n    def a(x: R.Tensor((4,), \"float32\")):\n        return x\n\n"
                       "    @R.function\n    def b(x: R.Tensor((4,), \"float32\")):\n"
                       "        y = R.to_vdevice(x, \"cuda:0\")\n        return y\n";
  CHECK(codesOf(lint(module)).count("TVS209") == 0);
  // While `b` is broken its use of cuda:0 is unknown: nothing is said about cuda:0.
  std::string broken = module;
  broken.replace(broken.find("return y"), 8, "return (y");
  auto r = lint(broken);
  CHECK(codesOf(r).count("TVS001") == 1);
  CHECK(codesOf(r).count("TVS209") == 0);
  // Without the function that used it, cuda:0 is unused.
  std::string unused = module.substr(0, module.find("    @R.function\n    def b"));
  CHECK(codesOf(lint(unused)).count("TVS209") == 1);
}

TEST_CASE("lint: an analysis is reused only for the function object it analysed, not for another at its address") {
  syntax::Document doc(std::string(kHeader) + "@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    return x\n");
  auto file = frontend::lowerDocument(doc);
  REQUIRE(file.regions.size() == 1);
  auto fn = file.regions[0].module->functions.at(0).relax;
  analysis::FunctionAnalysis fa;
  fa.function = fn.get();
  CHECK_FALSE(fa.analyzes(fn));  // no owner: the object it analysed may be gone, its address reused
  fa.owner = fn;
  CHECK(fa.analyzes(fn));
  auto other = std::make_shared<ir::Function>(*fn);
  CHECK_FALSE(fa.analyzes(other));
}

TEST_CASE("diagnostics: the code enum and the rule table are one list (catalogue.def)") {
  const auto& rules = diag::allRules();
  REQUIRE(rules.size() >= 39);
  for (size_t i = 0; i < rules.size(); ++i) {
    INFO(rules[i].code);
    CHECK(static_cast<size_t>(rules[i].id) == i);  // ruleOf(code) indexes the table by the enum
    CHECK(&diag::ruleOf(rules[i].id) == &rules[i]);
    CHECK(diag::codeName(rules[i].id) == rules[i].code);
    CHECK(diag::parseCode(rules[i].code) == rules[i].id);
  }
  CHECK(diag::codeName(diag::Code::TVS201) == "TVS201");
  CHECK(diag::parseCode("TVS999") == std::nullopt);
  CHECK(diag::parseCode("TVS20") == std::nullopt);
  CHECK(diag::make(diag::Code::TVS204, {}, "x").severity == diag::Severity::Warning);  // the catalogue's severity
}

TEST_CASE("lint: a VirtualMachine device is named as TVM's Python spells it, from the target-kind table") {
  std::string text = test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/builder_device_spellings.py");
  syntax::Document doc(text);
  auto r = analysis::lintDocument(doc);
  std::vector<std::string> messages;
  for (auto& d : r.diagnostics)
    if (d.code == diag::Code::TVS302) messages.push_back(d.message);
  REQUIRE(messages.size() == 1);  // tvm.gpu(0) and tvm.device("gpu", 0) are the cuda device: no TVS302
  CHECK(messages[0].find("is tvm.rocm(0) but vdevice entry 0 is 'cuda' id 0") != std::string::npos);
  CHECK(messages[0].find("Pass tvm.cuda(0) there") != std::string::npos);
}
