// Normalisations over the trailing axes (layer_norm, rms_norm) and prelu. The normalised axes must
// be the last ones (as transformers write them): the tensor is [rows, row], each row normalised in
// float accumulators of its own dtype, rows on the thread pool; gamma / beta / weight have the
// row's shape.
#include <cmath>
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {
// Where the trailing normalised axes start, or -1 when `axes` are not the last ones.
int trailingStart(const LegalizeInput& in, int rank) {
  std::set<int> axes;
  if (auto list = infer::intList(in.attr("axes")))  // axes=-1 or axes=[-2, -1]
    for (auto a : *list) axes.insert(static_cast<int>(a < 0 ? a + rank : a));
  if (axes.empty()) return -1;
  int start = rank - static_cast<int>(axes.size());
  for (int a = start; a < rank; ++a)
    if (!axes.count(a)) return -1;
  return start;
}
}  // namespace

LegalizeResult norm(const LegalizeInput& in, bool rms) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || !isFloat(*t)) return failure(in.def.scriptName() + " kernels take float tensors");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims || dims->empty()) return failure("the shape must be known to compile " + in.def.scriptName());
  int rank = static_cast<int>(dims->size());
  int start = trailingStart(in, rank);
  if (start < 0) return failure(in.def.scriptName() + " has a kernel only for normalising the last axes");
  ExprP rows = product(*dims, 0, static_cast<size_t>(start)), len = product(*dims, static_cast<size_t>(start));
  bool scale = rms || infer::boolAttr(in.attr("scale"), true), center = !rms && infer::boolAttr(in.attr("center"), true);
  double eps = floatAttr(in, "epsilon", 1e-5);
  int a = kb.param("A", *t, shapeText(x));
  int g = kb.param(rms ? "weight" : "gamma", *t, shapeText(in.args[1]));
  int b = rms ? -1 : kb.param("beta", *t, shapeText(in.args[2]));
  int c = kb.param("C", *t, shapeText(&in.out));
  int r = kb.loopVar("r"), k1 = kb.loopVar("k"), k2 = kb.loopVar("k2"), k3 = kb.loopVar("k3");
  int mean = kb.local("mean", *t), var = kb.local("var", *t);
  auto at = [&](int k) { return kb.var(r) * len + kb.var(k); };
  ExprP n = cast(*t, len);
  std::vector<StmtP> body;
  if (!rms) {
    body.push_back(assign(mean, floatImm(0, *t)));
    body.push_back(forLoop(k1, len, {assign(mean, kb.var(mean) + kb.load(a, at(k1)))}));
    body.push_back(assign(mean, binary(BinOp::Div, kb.var(mean), n)));
  }
  ExprP centred = rms ? kb.load(a, at(k2)) : kb.load(a, at(k2)) - kb.var(mean);
  body.push_back(assign(var, floatImm(0, *t)));
  body.push_back(forLoop(k2, len, {assign(var, kb.var(var) + centred * centred)}));
  body.push_back(assign(var, unary(UnOp::Rsqrt, binary(BinOp::Div, kb.var(var), n) + floatImm(eps, *t))));
  ExprP y = (rms ? kb.load(a, at(k3)) : kb.load(a, at(k3)) - kb.var(mean)) * kb.var(var);
  if (scale) y = y * kb.load(g, kb.var(k3));
  if (center) y = y + kb.load(b, kb.var(k3));
  body.push_back(forLoop(k3, len, {store(c, at(k3), y)}, true));
  kb.add(forLoop(r, rows, body, true));
  return done(kb, rms ? std::vector<size_t>{0, 1} : std::vector<size_t>{0, 1, 2});
}

LegalizeResult prelu(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || !isFloat(*t)) return failure("R.nn.prelu kernels take float tensors");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims || dims->empty()) return failure("the shape must be known to compile R.nn.prelu");
  int axis = axisAttr(in, "axis", static_cast<int>(dims->size()), 1);
  if (axis < 0 || axis >= static_cast<int>(dims->size())) return failure("R.nn.prelu: axis out of range");
  int a = kb.param("A", *t, shapeText(x));
  int alpha = kb.param("alpha", *t, shapeText(in.args[1]));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *dims, [&](const std::vector<ExprP>& idx) {
    ExprP at = flatIndex(idx, *dims);
    ExprP v = kb.load(a, at);
    return std::vector<StmtP>{store(c, at, select(binary(BinOp::Gt, v, floatImm(0, *t)), v, kb.load(alpha, idx[static_cast<size_t>(axis)]) * v))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
