// print(parse(text)) parses back to a structurally equal module, for every corpus file, in both the
// canonical (dump) style and the formatting style; equal modules dump to identical text.
#include <doctest/doctest.h>

#include <algorithm>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {
std::string dump(const test::Lowered& l) {
  std::string out;
  ir::PrintOptions po;
  for (auto& r : l.file.regions) out += ir::printModule(*r.module, po) + "\n";
  return out;
}

std::string header(const std::string& source) {
  // The imports of the source, so that the printed module resolves the same way.
  std::string out;
  size_t pos = 0;
  while (pos < source.size()) {
    size_t nl = source.find('\n', pos);
    std::string line = source.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (line.rfind("from tvm", 0) == 0 || line.rfind("import tvm", 0) == 0) out += line + "\n";
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}
}  // namespace

TEST_CASE("round trip: every corpus file, canonical and formatting styles") {
  auto files = test::corpusFiles();
  REQUIRE(files.size() >= 30);
  for (auto& path : files) {
    INFO(path);
    std::string src = test::readFile(path);
    auto first = test::lower(src);
    if (first.file.regions.empty()) {  // tree-sitter read no module at all (dedented_continuation.py): a TVS001 says so
      auto codes = first.codes();
      CHECK(std::find(codes.begin(), codes.end(), "TVS001") != codes.end());
      continue;
    }
    for (bool canonical : {true, false}) {
      std::string printed = header(src);
      for (auto& r : first.file.regions) {
        if (!r.formattable()) continue;  // holds a syntax error: nothing to round-trip
        ir::PrintOptions po;
        po.canonical = canonical;
        printed += "\n" + ir::printModule(*r.module, po);
      }
      auto second = test::lower(printed);
      size_t k = 0;
      for (auto& r : first.file.regions) {
        if (!r.formattable()) continue;
        REQUIRE(k < second.file.regions.size());
        CHECK(ir::firstDifference(*r.module, *second.file.regions[k].module) == "");
        ++k;
      }
      CHECK(k == second.file.regions.size());
    }
    // The canonical dump is a fixed point: dump(parse(dump(x))) == dump(x).
    bool clean = true;
    for (auto& r : first.file.regions) clean = clean && r.formattable();
    if (clean) {
      std::string d1 = dump(first);
      auto again = test::lower(header(src) + d1);
      CHECK(dump(again) == d1);
    }
  }
}

TEST_CASE("round trip: two spellings of one module dump to identical text") {
  const char* a = R"(from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "llvm")) -> R.Tensor((2, 3), "float32", "cuda"):
        y = R.to_vdevice(x, "cuda")
        z = y * y
        return z
)";
  const char* b = R"(import tvm
from tvm.script import relax as R
@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(shape=(2, 3), dtype="float32", vdevice="vdevice:1")) -> R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"):
        # a comment changes nothing
        y = R.to_vdevice(x, dst_vdevice="cuda:0")
        z = R.multiply(y, y)
        return z
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0, "global"), I.vdevice("llvm", 0, "global")]})
)";
  auto la = test::lower(a), lb = test::lower(b);
  CHECK(ir::modulesEqual(la.module(), lb.module()));
  CHECK(dump(la) == dump(lb));
}
