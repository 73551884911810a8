// Every Before/Expected pair of tests/corpus/passes: the pass named in the first comment, applied to
// the normalized `before` module, gives a module structurally equal to `after`.
#include <doctest/doctest.h>

#include <regex>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"
#include "tests/support/corpus.h"

namespace {

using namespace tvms;

ir::IRModule applyPass(const std::string& spec, const ir::IRModule& before) {
  ir::IRModule m = transform::normalize(before);
  if (spec.rfind("RealizeVDevice", 0) == 0) return transform::realizeVDevice(m);
  if (spec.rfind("Normalize", 0) == 0) return m;
  if (spec.rfind("FoldVDeviceScopeChange", 0) == 0) return transform::foldVDeviceScopeChange(m);
  std::smatch g;
  static const std::regex update(R"re(UpdateVDevice\(I\.vdevice\("(\w+)", (\d+)\), (\d+)\))re");
  if (std::regex_search(spec, g, update)) {
    auto v = std::make_shared<ir::VDevice>();
    v->target.kind = g[1];
    v->vdeviceId = std::stoi(g[2]);
    return transform::updateVDevice(m, v, std::stoul(g[3]));
  }
  FAIL("unknown pass in the corpus: " << spec);
  return m;
}

}  // namespace

TEST_CASE("passes: every Before/Expected pair of corpus/passes") {
  size_t pairs = 0;
  for (const auto& path : test::corpusFiles("passes")) {
    if (path.find(".before.py") == std::string::npos) continue;
    std::string text = test::readFile(path);
    std::smatch g;
    REQUIRE_MESSAGE(std::regex_search(text, g, std::regex("# pass: ([^\\n(]+(\\([^\\n]*\\))?)")), path);
    std::string spec = g[1];
    std::string afterPath = path.substr(0, path.size() - std::string(".before.py").size()) + ".after.py";
    auto before = test::lower(text);
    auto after = test::lower(test::readFile(afterPath));
    INFO(path << " (" << spec << ")");
    REQUIRE(before.codes().empty() == true);
    ir::IRModule got = applyPass(spec, before.module());
    // Like TVM's parser, which gives every variable its deduced struct info, compare against the
    // normalized expectation (written annotations stay; the If-bound variable, which cannot be
    // annotated in text, gets its deduced one).
    std::string diff = ir::firstDifference(got, transform::normalize(after.module()));
    INFO("got:\n" << ir::printModule(got));
    CHECK(diff == "");
    // The input is never mutated: normalizing it again gives what it gave before the pass.
    CHECK(ir::firstDifference(transform::normalize(before.module()), transform::normalize(test::lower(text).module())) == "");
    ++pairs;
  }
  CHECK(pairs >= 10);
}

// The passes rewrite a module they take over in place, function by function, and read the other
// functions through transform::signaturesOf: a caller sees its callee's signature as written, before
// the pass, whether the callee comes before it (already rewritten) or after it (not yet).
TEST_CASE("passes: a module rewritten in place reads the other functions as they were before the pass") {
  const std::string callee = R"(
    @R.function
    def callee(a: R.Tensor((2, 3), "float32", "llvm")):
        b = R.add(a, a)
        return b
)";
  const std::string caller = R"(
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm")):
        y = cls.callee(x)
        z = R.multiply(y, y)
        return z
)";
  const std::string head = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                           "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\")]})\n";
  auto calleeFirst = test::lower(head + callee + caller);
  auto callerFirst = test::lower(head + caller + callee);
  REQUIRE(calleeFirst.codes().empty());
  REQUIRE(callerFirst.codes().empty());
  // Without a written return annotation the call's result is unknown to deduction, so `y` and `z`
  // get none; a Normalize reading the callee already annotated (its deduced return) would give `y`
  // the callee's tensor in one order only.
  auto mainOf = [](const ir::IRModule& m) {
    const ir::ModuleFunction* f = m.function("main");
    REQUIRE((f && f->relax && f->relax->body));
    std::string annotations;
    for (auto& block : f->relax->body->blocks)
      for (auto& b : block->bindings)
        for (auto& v : b->vars) annotations += v->name + ": " + (v->annotation ? ir::printStructInfo(v->annotation, m) : "none") + "\n";
    return annotations;
  };
  for (auto* pass : {"Normalize", "RealizeVDevice"}) {
    INFO(pass);
    ir::IRModule a = applyPass(pass, calleeFirst.module());
    ir::IRModule b = applyPass(pass, callerFirst.module());
    CHECK(mainOf(a) == mainOf(b));
  }
  // The in-place helper the passes use: each old function is freed as its replacement comes, so a
  // large module is not held twice.
  ir::IRModule m = transform::normalize(calleeFirst.module());
  std::vector<std::weak_ptr<const ir::Function>> old;
  for (auto& f : m.functions) old.push_back(f.relax);
  size_t seen = 0;
  ir::IRModule out = transform::mapFunctions(std::move(m), [&](const ir::Function& fn) {
    for (size_t i = 0; i < seen; ++i) CHECK_MESSAGE(old[i].expired(), "function " << i << " is still held while " << fn.name << " is rewritten");
    ++seen;
    return std::make_shared<ir::Function>(fn);
  });
  CHECK(seen == 2);
}
