// Along one axis, per position of the others: argmax/argmin (the first index of the extreme, as
// numpy) and cumsum/cumprod (inclusive or exclusive). axis=None works on the flattened tensor.
// The tensor is viewed as [outer, axis, inner]; outer runs on the thread pool.
#include <limits>
#include <variant>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {
struct AxisView {
  ExprP outer, len, inner;
};
std::optional<AxisView> viewAlong(const LegalizeInput& in, const std::vector<ExprP>& dims) {
  const ir::Value* a = in.attr("axis");
  if (!a || a->kind == ir::Value::Kind::None) return AxisView{intImm(1), product(dims), intImm(1)};
  int rank = static_cast<int>(dims.size());
  auto list = infer::intList(a);  // axis=1, or median's axis=[1]: one axis only
  if (!list || list->size() != 1) return std::nullopt;
  int axis = infer::normalizeAxis((*list)[0], rank).value_or(-1);
  if (axis < 0 || axis >= rank) return std::nullopt;
  return AxisView{product(dims, 0, static_cast<size_t>(axis)), dims[static_cast<size_t>(axis)], product(dims, static_cast<size_t>(axis) + 1)};
}
// The shared start of both kernels: input A and output C of their dtypes, the [outer, axis, inner] view.
struct AlongAxis {
  KernelBuilder kb;
  ScalarType t = ScalarType::F32, ot = ScalarType::F32;
  AxisView v;
  int a = -1, c = -1;
};
std::variant<AlongAxis, LegalizeResult> alongAxis(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x), ot = elementType(&in.out);
  if (!t || !ot) return failure(in.def.scriptName() + ": dtype has no kernels yet");
  AlongAxis k{KernelBuilder(in.kernelName), *t, *ot, {}, -1, -1};
  auto dims = shapeExprs(k.kb, x);
  if (!dims) return failure("the shape must be known to compile " + in.def.scriptName());
  auto v = viewAlong(in, *dims);
  if (!v) return failure(in.def.scriptName() + ": axis out of range");
  k.v = *v;
  k.a = k.kb.param("A", *t, shapeText(x));
  k.c = k.kb.param("C", *ot, shapeText(&in.out));
  return k;
}
}  // namespace

LegalizeResult argReduce(const LegalizeInput& in, bool isMax) {
  auto setup = alongAxis(in);
  if (auto* failed = std::get_if<LegalizeResult>(&setup)) return std::move(*failed);
  auto& [kb, t, ot, view, a, c] = std::get<AlongAxis>(setup);
  const AxisView* v = &view;
  int o = kb.loopVar("o"), i = kb.loopVar("i"), k = kb.loopVar("k");
  int best = kb.local("best", t), at = kb.local("at", ScalarType::I64);
  ExprP value = kb.load(a, (kb.var(o) * v->len + kb.var(k)) * v->inner + kb.var(i));
  ExprP better = binary(isMax ? BinOp::Gt : BinOp::Lt, value, kb.var(best));
  ExprP first = isFloat(t) ? floatImm(isMax ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(), t)
                            : kb.load(a, kb.var(o) * v->len * v->inner + kb.var(i));
  StmtP body = seq({assign(best, first), assign(at, intImm(0)),
                    forLoop(k, v->len, {assign(at, select(better, kb.var(k), kb.var(at))), assign(best, select(better, value, kb.var(best)))}),
                    store(c, kb.var(o) * v->inner + kb.var(i), cast(ot, kb.var(at)))});
  kb.add(forLoop(o, v->outer, {forLoop(i, v->inner, {body})}, true));
  return done(kb, {0});
}

LegalizeResult scan(const LegalizeInput& in, bool sum) {
  auto setup = alongAxis(in);
  if (auto* failed = std::get_if<LegalizeResult>(&setup)) return std::move(*failed);
  auto& [kb, t, ot, view, a, c] = std::get<AlongAxis>(setup);
  const AxisView* v = &view;
  bool exclusive = infer::boolAttr(in.attr("exclusive"), false);
  int o = kb.loopVar("o"), i = kb.loopVar("i"), k = kb.loopVar("k");
  int acc = kb.local("acc", ot);
  ExprP idx = (kb.var(o) * v->len + kb.var(k)) * v->inner + kb.var(i);
  ExprP x_ = kb.load(a, idx);
  if (t != ot) x_ = cast(ot, x_);
  ExprP init = isFloat(ot) ? floatImm(sum ? 0 : 1, ot) : cast(ot, intImm(sum ? 0 : 1));
  ExprP next = sum ? kb.var(acc) + x_ : kb.var(acc) * x_;
  std::vector<StmtP> step = exclusive ? std::vector<StmtP>{store(c, idx, kb.var(acc)), assign(acc, next)}
                                      : std::vector<StmtP>{assign(acc, next), store(c, idx, kb.var(acc))};
  kb.add(forLoop(o, v->outer, {forLoop(i, v->inner, {assign(acc, init), forLoop(k, v->len, step)})}, true));
  return done(kb, {0});
}

// median along one axis (or of everything): the element(s) of middle rank, found by counting for
// each element how many are smaller or equal (O(length^2) per row; the mean of the two middle ones
// for an even length, as numpy).
LegalizeResult median(const LegalizeInput& in) {
  auto setup = alongAxis(in);
  if (auto* failed = std::get_if<LegalizeResult>(&setup)) return std::move(*failed);
  auto& [kb, t, ot, view, a, c] = std::get<AlongAxis>(setup);
  if (!isFloat(t)) return failure("R.median kernels take float tensors");
  const AxisView* v = &view;
  int o = kb.loopVar("o"), i = kb.loopVar("i"), j = kb.loopVar("j"), q = kb.loopVar("q");
  int less = kb.local("less", ScalarType::I64), equal = kb.local("equal", ScalarType::I64);
  int lowV = kb.local("low", t), highV = kb.local("high", t);
  auto at = [&](int k) { return kb.load(a, (kb.var(o) * v->len + kb.var(k)) * v->inner + kb.var(i)); };
  ExprP lo = binary(BinOp::FloorDiv, v->len - intImm(1), intImm(2)), hi = binary(BinOp::FloorDiv, v->len, intImm(2));
  auto holds = [&](const ExprP& rank) { return binary(BinOp::And, binary(BinOp::Le, kb.var(less), rank), binary(BinOp::Lt, rank, kb.var(less) + kb.var(equal))); };
  StmtP count = forLoop(q, v->len, {assign(less, kb.var(less) + select(binary(BinOp::Lt, at(q), at(j)), intImm(1), intImm(0))),
                                    assign(equal, kb.var(equal) + select(binary(BinOp::Eq, at(q), at(j)), intImm(1), intImm(0)))});
  StmtP body = seq({assign(lowV, floatImm(0, t)), assign(highV, floatImm(0, t)),
                    forLoop(j, v->len, {assign(less, intImm(0)), assign(equal, intImm(0)), count,
                                        assign(lowV, select(holds(lo), at(j), kb.var(lowV))), assign(highV, select(holds(hi), at(j), kb.var(highV)))}),
                    store(c, kb.var(o) * v->inner + kb.var(i), cast(ot, (kb.var(lowV) + kb.var(highV)) * floatImm(0.5, t)))});
  kb.add(forLoop(o, v->outer, {forLoop(i, v->inner, {body})}, true));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
