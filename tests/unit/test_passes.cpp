// Every Before/Expected pair of tests/corpus/passes: the pass named in the first comment, applied to
// the normalized `before` module, gives a module structurally equal to `after`.
#include <doctest/doctest.h>

#include <regex>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/transform/passes.h"
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
