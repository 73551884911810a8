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
// `out`: the output C stands for (median's values when the result is (values, indices)).
std::variant<AlongAxis, LegalizeResult> alongAxis(const LegalizeInput& in, const ir::StructInfo* out = nullptr) {
  if (!out) out = &in.out;
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x), ot = elementType(out);
  if (!t || !ot) return failure(in.def.scriptName() + ": dtype has no kernels yet");
  AlongAxis k{KernelBuilder(in.kernelName), *t, *ot, {}, -1, -1};
  auto dims = shapeExprs(k.kb, x);
  if (!dims) return failure("the shape must be known to compile " + in.def.scriptName());
  auto v = viewAlong(in, *dims);
  if (!v) return failure(in.def.scriptName() + ": axis out of range");
  k.v = *v;
  k.a = k.kb.param("A", *t, shapeText(x));
  k.c = k.kb.param("C", *ot, shapeText(out));
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

// median along one axis (or of everything), as TVM computes it (topi: a stable ascending argsort,
// then the element at position (length - 1) // 2, the lower median as torch.median): each element's
// position in that order is the count of smaller elements plus the count of equal ones before it
// (O(length^2) per row). Along an axis the result is (values, indices).
LegalizeResult median(const LegalizeInput& in) {
  bool pair = in.out.kind == ir::StructInfo::Kind::Tuple;
  if (pair && in.out.fields.size() != 2) return failure("R.median: unexpected result");
  auto setup = alongAxis(in, pair ? in.out.fields[0].get() : nullptr);
  if (auto* failed = std::get_if<LegalizeResult>(&setup)) return std::move(*failed);
  auto& [kb, t, ot, view, a, c] = std::get<AlongAxis>(setup);
  const AxisView* v = &view;
  int indices = pair ? kb.param("indices", ScalarType::I64, shapeText(in.out.fields[1].get())) : -1;
  int o = kb.loopVar("o"), i = kb.loopVar("i"), j = kb.loopVar("j"), q = kb.loopVar("q");
  int position = kb.local("position", ScalarType::I64);
  int value = kb.local("value", t), index = kb.local("index", ScalarType::I64);
  auto at = [&](int k) { return kb.load(a, (kb.var(o) * v->len + kb.var(k)) * v->inner + kb.var(i)); };
  ExprP mid = binary(BinOp::FloorDiv, v->len - intImm(1), intImm(2));
  ExprP before = binary(BinOp::Or, binary(BinOp::Lt, at(q), at(j)),
                        binary(BinOp::And, binary(BinOp::Eq, at(q), at(j)), binary(BinOp::Lt, kb.var(q), kb.var(j))));
  StmtP count = forLoop(q, v->len, {assign(position, kb.var(position) + select(before, intImm(1), intImm(0)))});
  ExprP isMid = binary(BinOp::Eq, kb.var(position), mid);
  // Starts defined (every row has its middle element, found below): an undefined local would poison the selects.
  std::vector<StmtP> body{assign(value, kb.load(a, kb.var(o) * v->len * v->inner + kb.var(i))), assign(index, intImm(0)),
                          forLoop(j, v->len, {assign(position, intImm(0)), count,
                                              assign(value, select(isMid, at(j), kb.var(value))),
                                              assign(index, select(isMid, kb.var(j), kb.var(index)))})};
  ExprP out = kb.var(o) * v->inner + kb.var(i);
  body.push_back(store(c, out, cast(ot, kb.var(value))));
  if (pair) body.push_back(store(indices, out, kb.var(index)));
  kb.add(forLoop(o, v->outer, {forLoop(i, v->inner, {seq(body)})}, true));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
