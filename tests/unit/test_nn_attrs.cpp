// The typed attribute records of convolutions and pooling (compiler/op/nn_attrs.h), of reductions
// (compiler/op/reduce_attrs.h) and of resizes (compiler/op/image_attrs.h), read from calls as
// the frontend lowers them: every reader (deduction, kernel builders, OffloadLibraries) gets these.
#include <doctest/doctest.h>

#include "compiler/ir/expr.h"
#include "compiler/op/image_attrs.h"
#include "compiler/op/nn_attrs.h"
#include "compiler/op/reduce_attrs.h"
#include "compiler/op/registry.h"
#include "tests/support/corpus.h"

using namespace tvms;

namespace {

// A module of one function, main (`mainText`: its signature and body), lowered, and the calls of its
// bindings in order; `count` of them are required. The calls point into `lowered`.
struct MainCalls {
  test::Lowered lowered;
  std::vector<const ir::Call*> calls;
};
MainCalls mainCalls(const std::string& mainText, size_t count) {
  MainCalls m{test::lower("from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n" +
                          mainText),
              {}};
  for (auto& b : m.lowered.module().function("main")->relax->body->blocks[0]->bindings)
    if (auto* c = ir::as<ir::Call>(b->value)) m.calls.push_back(c);
  REQUIRE(m.calls.size() == count);
  return m;
}

const op::OpDef& defOf(const ir::Call& c) {
  const op::OpDef* d = op::findOp(c.op);
  REQUIRE(d);
  return *d;
}

}  // namespace

TEST_CASE("nn attrs: a convolution's record holds its layouts, per-dim lists, padding forms and defaults") {
  MainCalls m = mainCalls(
      "    def main(x: R.Tensor((1, 8, 8, 4), \"float32\"), w: R.Tensor((6, 3, 3, 4), \"float32\"), t: R.Tensor((1, 4, 5), \"float32\"),"
      " u: R.Tensor((4, 2, 3), \"float32\")):\n"
      "        a = R.nn.conv2d(x, w, strides=2, padding=(1, 2, 3, 4), dilation=(1, 2), data_layout=\"NHWC\", kernel_layout=\"OHWI\", out_dtype=\"float32\")\n"
      "        b = R.nn.conv1d_transpose(t, u, padding=1, output_padding=(1,))\n"
      "        c = R.nn.conv2d(x, w, strides=(1, 1, 1), data_layout=\"NHWC\", kernel_layout=\"OHWI\")\n"
      "        return (a, b, c)\n", 3);
  const auto& calls = m.calls;
  op::nn::ConvAttrs a = op::nn::convAttrs(defOf(*calls[0]), *calls[0]);
  CHECK(a.dims == 2);
  CHECK_FALSE(a.transpose);
  CHECK(a.dataLayoutText == "NHWC");
  CHECK(a.outLayoutText == "NHWC");  // out_layout defaults to the data's
  CHECK(a.data.channel == 3);
  CHECK(a.data.spatial == std::vector<int>{1, 2});
  CHECK(a.kernel.batch == 0);  // O
  CHECK(a.kernel.channel == 3);  // I
  CHECK(a.strides == std::vector<int64_t>{2, 2});
  CHECK(a.dilation == std::vector<int64_t>{1, 2});
  CHECK(a.padding.before == std::vector<int64_t>{1, 2});
  CHECK(a.padding.after == std::vector<int64_t>{3, 4});
  CHECK(a.outDType == std::optional<std::string>("float32"));
  CHECK(a.groups == 1);
  CHECK(a.intsKnown);
  CHECK(a.listsExact);
  op::nn::ConvAttrs b = op::nn::convAttrs(defOf(*calls[1]), *calls[1]);
  CHECK(b.dims == 1);
  CHECK(b.transpose);
  CHECK(b.kernel.batch == 0);  // I leads a transposed convolution's weight (IOW)
  CHECK(b.kernel.channel == 1);
  CHECK(b.padding.before == std::vector<int64_t>{1});
  CHECK(b.padding.after == std::vector<int64_t>{1});
  CHECK(b.outputPadding == std::vector<int64_t>{1});
  CHECK(b.strides == std::vector<int64_t>{1});  // the default
  // Three strides for two spatial dims: the default is used, and the record says so.
  op::nn::ConvAttrs c = op::nn::convAttrs(defOf(*calls[2]), *calls[2]);
  CHECK(c.strides == std::vector<int64_t>{1, 1});
  CHECK_FALSE(c.listsExact);
}

TEST_CASE("nn attrs: a pooling's record holds its window, padding, modes and an adaptive pool's output size") {
  MainCalls m = mainCalls(
      "    def main(x: R.Tensor((1, 4, 9, 9), \"float32\")):\n"
      "        a = R.nn.avg_pool2d(x, pool_size=(3, 2), strides=2, padding=(1, 1), ceil_mode=True, count_include_pad=True)\n"
      "        b = R.nn.adaptive_avg_pool2d(x, output_size=(2, 3), layout=\"NCHW\", out_layout=\"NHWC\")\n"
      "        return (a, b)\n", 2);
  const auto& calls = m.calls;
  op::nn::PoolAttrs a = op::nn::poolAttrs(defOf(*calls[0]), *calls[0]);
  CHECK(a.dims == 2);
  CHECK_FALSE(a.adaptive);
  CHECK(a.poolSize == std::vector<int64_t>{3, 2});
  CHECK(a.strides == std::vector<int64_t>{2, 2});
  CHECK(a.padding.before == std::vector<int64_t>{1, 1});
  CHECK(a.ceilMode);
  CHECK(a.countIncludePad);
  CHECK(a.intsKnown);
  op::nn::PoolAttrs b = op::nn::poolAttrs(defOf(*calls[1]), *calls[1]);
  CHECK(b.adaptive);
  CHECK(b.outputSize == std::optional<std::vector<int64_t>>(std::vector<int64_t>{2, 3}));
  CHECK(b.out.channel == 3);  // NHWC
  CHECK(b.data.channel == 1);
}

TEST_CASE("nn attrs: every convolution and pooling declares its window (dims, transpose, adaptive) with the op") {
  int declared = 0;
  for (const op::OpDef* d : op::allOps()) {
    const bool conv = d->name.rfind("relax.nn.conv", 0) == 0, pool = d->name.find("pool") != std::string::npos && d->name.rfind("relax.nn.", 0) == 0;
    if (!d->modelled || (!conv && !pool)) continue;
    INFO(d->name);
    CHECK(d->window.dims == d->name[d->name.find('d', 14) - 1] - '0');  // "conv2d" -> 2, "max_pool3d" -> 3
    CHECK(d->window.transpose == (d->name.find("transpose") != std::string::npos));
    CHECK(d->window.adaptive == (d->name.find("adaptive") != std::string::npos));
    ++declared;
  }
  CHECK(declared == 15);  // conv1-3d, their transposes, max / avg / adaptive_avg pool 1-3d
}

TEST_CASE("reduce attrs: a reduction's record holds its axes as written (none: every axis) and keepdims, negatives normalized per rank") {
  MainCalls m = mainCalls(
      "    def main(x: R.Tensor((2, 3, 4), \"float32\")):\n"
      "        a = R.sum(x, axis=[0, -1], keepdims=True)\n"
      "        b = R.max(x)\n"
      "        c = R.argmax(x, axis=-2)\n"
      "        return (a, b, c)\n", 3);
  const auto& calls = m.calls;
  op::ReduceAttrs a = op::reduceAttrs(*calls[0]);
  CHECK(a.axes == std::optional<std::vector<int64_t>>(std::vector<int64_t>{0, -1}));
  CHECK(a.keepdims);
  CHECK(a.reduced(3) == std::set<int>{0, 2});
  op::ReduceAttrs b = op::reduceAttrs(*calls[1]);
  CHECK_FALSE(b.axes);
  CHECK_FALSE(b.keepdims);  // the default
  CHECK(b.reduced(3) == std::set<int>{0, 1, 2});
  op::ReduceAttrs c = op::reduceAttrs(*calls[2]);  // one int, as argmax writes it
  CHECK(c.reduced(3) == std::set<int>{1});
}

TEST_CASE("resize attrs: a resize's record holds what is written and the defaults by its dims") {
  MainCalls m = mainCalls(
      "    def main(x: R.Tensor((1, 3, 8, 8), \"float32\"), y: R.Tensor((1, 3, 4, 8, 8), \"float32\")):\n"
      "        a = R.image.resize2d(x, (16, 16), layout=\"NCHW\", method=\"cubic\", coordinate_transformation_mode=\"align_corners\", cubic_alpha=-0.5, cubic_exclude=1, out_dtype=\"float16\")\n"
      "        b = R.image.resize3d(y, (8, 16, 16))\n"
      "        c = R.image.resize2d(x, (4, 4), out_dtype=\"\")\n"
      "        return (a, b, c)\n", 3);
  const auto& calls = m.calls;
  CHECK_FALSE(op::resizeAttrs(*calls[2], 2).outDType);  // "" is TVM's "the data's dtype"
  op::ResizeAttrs a = op::resizeAttrs(*calls[0], 2);
  CHECK(a.layout == "NCHW");
  CHECK(a.method == "cubic");
  CHECK(a.coordinateMode == "align_corners");
  CHECK(a.rounding == "round");
  CHECK(a.cubicAlpha == -0.5);
  CHECK(a.cubicExclude);
  CHECK(a.outDType == std::optional<std::string>("float16"));
  op::ResizeAttrs b = op::resizeAttrs(*calls[1], 3);
  CHECK(b.layout == "NCDHW");  // resize3d's default
  CHECK(b.method == "linear");
  CHECK(b.coordinateMode == "half_pixel");
  CHECK(b.cubicAlpha == -0.75);
  CHECK_FALSE(b.cubicExclude);
  CHECK_FALSE(b.outDType);
}
