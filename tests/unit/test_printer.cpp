// The printer's canonical style (LANGUAGE.md section 9) and its line breaking.
#include <doctest/doctest.h>

#include "compiler/ir/doc.h"
#include "compiler/ir/printer.h"
#include "tests/support/corpus.h"

using namespace tvms;

TEST_CASE("printer: TVM's printed style for vdevices, tensors, hints and copies") {
  auto l = test::lower(R"(from tvm.script import ir as I
from tvm.script import relax as R
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 1), I.vdevice("cuda", 0)]})
    @R.function
    def main(x: R.Tensor((2, 3), "float32", "cuda:1"), s: R.Shape(["n", 4]), p: R.Prim("int64"), o: R.Object) -> R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor):
        a = R.hint_on_device(x, R.cpu())
        b = R.to_vdevice(a, "cuda")
        c = R.const(1.5, "float32")
        return (b, c)
)");
  ir::PrintOptions po;
  po.importHeader = true;
  po.lineWidth = 300;
  std::string out = ir::printModule(l.module(), po);
  CHECK(out.find("# from tvm.script import ir as I\n# from tvm.script import relax as R\n") == 0);
  CHECK(out.find(R"(I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 1, "global"), I.vdevice("cuda", 0, "global"))") != std::string::npos);
  CHECK(out.find(R"(x: R.Tensor((2, 3), dtype="float32", vdevice="cuda:1"))") != std::string::npos);
  CHECK(out.find(R"(s: R.Shape(["n", 4]))") != std::string::npos);
  CHECK(out.find(R"(p: R.Prim("int64"))") != std::string::npos);
  CHECK(out.find("o: R.Object") != std::string::npos);
  CHECK(out.find(R"(R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor))") != std::string::npos);
  CHECK(out.find(R"(a = R.hint_on_device(x, R.device(device_type=1, index=0), "global"))") != std::string::npos);
  CHECK(out.find(R"(b = R.to_vdevice(a, dst_vdevice="cuda:0"))") != std::string::npos);
  CHECK(out.find(R"(c = R.const(1.5, "float32"))") != std::string::npos);
  CHECK(out.find("return (b, c)") != std::string::npos);
}

TEST_CASE("printer: the v0.26 era prints scopes and R.Any") {
  auto l = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/frontend/v026_era.py"));
  CHECK(l.module().era == ir::Era::V026);
  std::string out = ir::printModule(l.module());
  CHECK(out.find(R"(vdevice="cuda:0:global")") != std::string::npos);
  CHECK(out.find("o: R.Any") != std::string::npos);
  CHECK(out.find("out_ty=") != std::string::npos);
  CHECK(out.find("ty_args=") != std::string::npos);
}

TEST_CASE("doc layout: flat when it fits, hug, then one item per line") {
  using ir::Doc;
  auto call = [](std::vector<std::string> args, std::string callee = "f") {
    std::vector<Doc> items;
    for (auto& a : args) items.push_back(Doc::txt(a));
    return Doc::cat({Doc::txt(callee), Doc::bracket("(", items, ")")});
  };
  CHECK(ir::renderDoc(call({"a", "b"}), 0, 20) == "f(a, b)");
  CHECK(ir::renderDoc(call({"aaaaaaaa", "bbbbbbbb"}, "function_name"), 0, 24) ==
        "function_name(\n    aaaaaaaa, bbbbbbbb\n)");
  CHECK(ir::renderDoc(call({"aaaaaaaaaaaa", "bbbbbbbbbbbb"}), 0, 20) == "f(\n    aaaaaaaaaaaa,\n    bbbbbbbbbbbb,\n)");
  Doc withComment = call({"a", "b"});
  withComment.parts[1].comments = {"# why", ""};
  CHECK(ir::renderDoc(withComment, 0, 80) == "f(\n    a,  # why\n    b,\n)");
  Doc single = Doc::bracket("(", {Doc::txt("x")}, ")");
  single.singleTrailingComma = true;
  CHECK(ir::flatDoc(single) == "(x,)");
}
