// The op registry: every TVM op name known, each declared once, modelled ops with their parameters.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "compiler/op/index_map.h"
#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"

using namespace tvms;

TEST_CASE("registry: every op name of LANGUAGE.md section 11 is known") {
  const char* names =
      "add subtract multiply divide floor_divide mod floor_mod power maximum minimum log_add_exp atan2 equal "
      "not_equal less less_equal greater greater_equal logical_and logical_or logical_xor bitwise_and bitwise_or "
      "bitwise_xor left_shift right_shift abs acos acosh asin asinh atan atanh bitwise_not ceil cos cosh erf exp "
      "floor log logical_not negative round rsqrt sigmoid sign sin sinh sqrt square tan tanh trunc isfinite isinf "
      "isnan clip sum mean max min prod std variance median cumsum cumprod argmax argmin nn.relu nn.gelu "
      "nn.gelu_tanh nn.silu nn.selu nn.leakyrelu nn.prelu nn.softplus nn.softmax nn.log_softmax nn.layer_norm "
      "nn.group_norm nn.instance_norm nn.rms_norm nn.batch_norm nn.dropout nn.conv1d nn.conv2d nn.conv3d "
      "nn.conv1d_transpose nn.conv2d_transpose nn.conv3d_transpose nn.max_pool1d nn.max_pool2d nn.max_pool3d "
      "nn.avg_pool1d nn.avg_pool2d nn.avg_pool3d nn.adaptive_avg_pool1d nn.adaptive_avg_pool2d "
      "nn.adaptive_avg_pool3d nn.attention nn.attention_bias nn.attention_var_len nn.batch_flatten "
      "nn.cross_entropy_with_logits nn.nll_loss nn.pad nn.pixel_shuffle reshape permute_dims expand_dims squeeze "
      "flatten concat split stack tile repeat flip broadcast_to collapse_sum_like collapse_sum_to layout_transform "
      "gather_elements gather_nd scatter_elements scatter_nd take strided_slice dynamic_strided_slice slice_scatter "
      "index_put index_tensor reverse_sequence meshgrid one_hot full full_like zeros zeros_like ones ones_like "
      "arange eye eye_like tril triu hamming_window astype matmul einsum outer where ewise_fma sort argsort topk "
      "unique nonzero bucketize quantize dequantize multinomial_from_uniform shape_of shape_to_tensor "
      "tensor_to_shape size print assert_op null_value to_vdevice hint_on_device call_tir call_tir_inplace "
      "call_tir_with_grad call_dps_packed call_pure_packed call_inplace_packed call_builtin_with_ctx "
      "invoke_closure invoke_pure_closure make_closure wrap_param image.resize2d image.resize3d image.affine_grid "
      "image.grid_sample";
  std::istringstream in(names);
  std::string n;
  int count = 0;
  while (in >> n) {
    INFO(n);
    CHECK(op::findOp("relax." + n) != nullptr);
    CHECK(op::findOp("R." + n) == op::findOp("relax." + n));
    ++count;
  }
  CHECK(count > 180);
  CHECK(op::isKnownOpName("relax.memory.alloc_storage"));
  CHECK(op::isKnownOpName("relax.vm.alloc_tensor"));
  CHECK_FALSE(op::isKnownOpName("relax.sqrtt"));
  CHECK_FALSE(op::isKnownOpName("relax.memory."));
}

TEST_CASE("registry: each op is declared once and every modelled op has docs and a signature") {
  std::set<std::string> seen;
  for (auto* d : op::allOps()) {
    CHECK(seen.insert(d->name).second);
    CHECK(!d->doc.empty());
    if (d->modelled) CHECK(d->deviceRule != op::DeviceRule::Unmodelled);
  }
  CHECK(op::findOp("R.nn.softmax")->signature() == "R.nn.softmax(data, axis=-1)");
  CHECK(op::findOp("R.sum")->signature() == "R.sum(x, axis=None, keepdims=False)");
  CHECK(op::findOp("R.call_tir")->param("out_ty") == op::findOp("R.call_tir")->param("out_sinfo"));
  CHECK(op::findOp("R.matmul")->deviceRule == op::DeviceRule::Lenient);
  CHECK(op::findOp("R.add")->deviceRule == op::DeviceRule::Strict);
  CHECK(op::findOp("R.nn.conv2d")->deviceRule == op::DeviceRule::Strict);
  CHECK(op::findOp("R.exp")->deviceRule == op::DeviceRule::PrimaryInput);
  CHECK(op::findOp("R.vision.all_class_non_max_suppression") == nullptr);  // a builtin family: known by name, not an entry
  CHECK(op::isKnownOpName("relax.vision.all_class_non_max_suppression"));
  CHECK(op::findOp("R.memory.alloc_tensor")->modelled);  // the memory forms the VM runs are entries
  CHECK(op::findOp("R.nn.attention")->modelled);
}

TEST_CASE("registry: Python operators map to their ops: misspellings find the closest op") {
  CHECK(op::findOpByPythonOperator("+", false)->name == "relax.add");
  CHECK(op::findOpByPythonOperator("-", true)->name == "relax.negative");
  CHECK(op::findOpByPythonOperator("%", false)->name == "relax.floor_mod");
  CHECK(op::findOpByPythonOperator("<=", false)->name == "relax.less_equal");
  CHECK(op::findOpByPythonOperator("@", false) == nullptr);
  auto near = op::closestOpNames("relax.sqrtt");
  REQUIRE(!near.empty());
  CHECK(near[0] == "relax.sqrt");
  CHECK(op::closestOpNames("relax.nn.conv2", 1).at(0) == "relax.nn.conv2d");
}

TEST_CASE("registry: every modelled op carries its deduction in its entry") {
  for (const tvms::op::OpDef* d : tvms::op::allOps()) {
    if (!d->modelled) continue;
    using R = tvms::op::DeviceRule;
    bool byRule = d->deviceRule == R::Written || d->deviceRule == R::ToVDevice || d->deviceRule == R::HintOnDevice;
    CHECK_MESSAGE((byRule || d->infer != nullptr), d->name << " has no deduction");
  }
}

TEST_CASE("registry: every modelled op has a kernel, or says what runs it, except the ones known not to run yet") {
  // Not computations: the VM does them (call_tir of a kernel it built, to_vdevice as to_device, print
  // and assert_op), RealizeVDevice removes hint_on_device; each says so in `runsBy`.
  const std::set<std::string> runBySomething = {"relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.to_vdevice",
                                                "relax.hint_on_device", "relax.print", "relax.assert_op", "relax.shape_of",
                                                "relax.shape_to_tensor", "relax.tensor_to_shape", "relax.call_packed", "relax.call_pure_packed",
                                                "relax.null_value", "relax.call_tir_with_grad", "relax.call_inplace_packed",
                                                "relax.call_builtin_with_ctx", "relax.make_closure", "relax.invoke_closure",
                                                "relax.invoke_pure_closure", "relax.memory.alloc_storage", "relax.memory.alloc_tensor",
                                                "relax.builtin.alloc_tensor", "relax.memory.kill_storage", "relax.memory.kill_tensor",
                                                "relax.memory.view", "relax.memory.ensure_zero_offset"};
  // Ops TVM itself runs only through a contrib library (BYOC): each names it.
  const std::set<std::string> libraryOnly = {"relax.nn.attention_var_len"};
  std::set<std::string> runBy, byLibrary, without;
  for (auto* d : tvms::op::allOps()) {
    if (!d->modelled || d->legalize) continue;
    (!d->runsBy.empty() ? runBy : !d->library.empty() ? byLibrary : without).insert(d->name);
  }
  CHECK(runBy == runBySomething);
  CHECK(byLibrary == libraryOnly);
  CHECK(without.empty());
  // Every op of TVM's registry that tvms knows is modelled: none is known by name only.
  for (auto* d : tvms::op::allOps()) CHECK_MESSAGE(d->modelled, d->name << " is not modelled");
}

TEST_CASE("index maps: R.layout_transform's lambdas are read, with the output shape their padding gives") {
  using tvms::ir::primInt;
  using tvms::ir::primVar;
  auto m = tvms::op::parseIndexMap("lambda a, b, c: (a, c, b // 3, b % 3)");
  REQUIRE(m);
  CHECK(m->params == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(m->results.size() == 4);
  auto shape = tvms::op::indexMapShape(*m, {primInt(10), primInt(20), primInt(30)});
  REQUIRE(shape);
  std::vector<int64_t> dims;
  for (auto& d : *shape) dims.push_back(d->kind == tvms::ir::PrimExpr::Kind::Int ? d->value : -1);
  CHECK(dims == std::vector<int64_t>{10, 30, 7, 3});  // 20 rows in threes: 7, the last padded
  // TVM's printed spelling, a trailing comma, T.int64 constants, a symbolic extent.
  auto printed = tvms::op::parseIndexMap("T.index_map(lambda i0, i1: (i1, i0 * T.int64(2),))");
  REQUIRE(printed);
  auto sym = tvms::op::indexMapShape(*printed, {primVar("n"), primInt(4)});
  REQUIRE(sym);
  CHECK(tvms::ir::printPrimExpr((*sym)[0]) == "4");
  CHECK(tvms::ir::printPrimExpr((*sym)[1]) == "(n - 1) * 2 + 1");
  // Not index maps: these leave the shape unknown (no error, no kernel).
  CHECK_FALSE(tvms::op::parseIndexMap("transformation"));
  CHECK_FALSE(tvms::op::parseIndexMap("lambda a: (a + 1) * 2 if a else 0"));
  CHECK_FALSE(tvms::op::indexMapShape(*tvms::op::parseIndexMap("lambda a: (a - 1,)"), {primInt(4)}));  // may go below zero
  // Parentheses nested past any real index map: refused, not a stack overflow.
  CHECK_FALSE(tvms::op::parseIndexMap("lambda a: (" + std::string(100000, '(') + "a" + std::string(100000, ')') + ",)"));
  CHECK(tvms::op::parseIndexMap("lambda a: (" + std::string(50, '(') + "a" + std::string(50, ')') + ",)"));
}
