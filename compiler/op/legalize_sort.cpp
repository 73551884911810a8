// Ordering along an axis: sort, argsort, topk. Each row (the positions of the other axes, on the
// thread pool) is ordered by repeated selection: pick r takes the best element that comes after
// pick r-1 in the order (value, then index), so ties keep index order and no marks are needed. That
// is O(count x length) per row: fine for the short axes these ops see in models (top-k of logits,
// sorting a few hundred scores); a long axis wants a real sort (noted in ARCHITECTURE.md).
#include <limits>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult ordering(const LegalizeInput& in, Ordering op) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t) return failure(in.def.scriptName() + ": dtype has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims || dims->empty()) return failure("the shape must be known to compile " + in.def.scriptName());
  const int rank = static_cast<int>(dims->size());
  const int axis = axisAttr(in, "axis", rank, rank - 1);
  if (axis < 0 || axis >= rank) return failure(in.def.scriptName() + ": axis out of range");
  bool descending = infer::boolAttr(in.attr(op == Ordering::Topk ? "largest" : "descending"), op == Ordering::Topk);
  std::string ret = infer::stringAttr(in.attr("ret_type")).value_or("both");
  bool wantValues = op == Ordering::Sort || (op == Ordering::Topk && ret != "indices");
  bool wantIndices = op == Ordering::Argsort || (op == Ordering::Topk && ret != "values");
  // The output struct infos in order (topk "both": values, indices).
  std::vector<const ir::StructInfo*> outs;
  if (in.out.kind == ir::StructInfo::Kind::Tuple) for (auto& f : in.out.fields) outs.push_back(f.get());
  else outs.push_back(&in.out);
  if (outs.size() != static_cast<size_t>(wantValues) + static_cast<size_t>(wantIndices)) return failure(in.def.scriptName() + ": unexpected result");
  int a = kb.param("A", *t, shapeText(x));
  int values = wantValues ? kb.param("values", *t, shapeText(outs[0])) : -1;
  const ir::StructInfo* idxS = wantIndices ? outs.back() : nullptr;
  auto it = idxS ? elementType(idxS) : std::optional<ScalarType>(ScalarType::I64);
  if (!it) return failure(in.def.scriptName() + ": index dtype has no kernels yet");
  int indices = wantIndices ? kb.param("indices", *it, shapeText(idxS)) : -1;
  auto od = shapeExprs(kb, outs[0]);
  if (!od) return failure("the result's shape must be known to compile " + in.def.scriptName());

  ExprP outer = product(*dims, 0, static_cast<size_t>(axis)), len = (*dims)[static_cast<size_t>(axis)];
  ExprP innerN = product(*dims, static_cast<size_t>(axis) + 1), picks = (*od)[static_cast<size_t>(axis)];
  int o = kb.loopVar("o"), i = kb.loopVar("i"), r = kb.loopVar("r"), j = kb.loopVar("j");
  int best = kb.local("best", *t), bi = kb.local("bi", ScalarType::I64), pv = kb.local("prev", *t), pi = kb.local("prev_i", ScalarType::I64);
  int taken = kb.local("take", ScalarType::Bool);  // decided once per element, before best and bi change
  ExprP v = kb.load(a, (kb.var(o) * len + kb.var(j)) * innerN + kb.var(i));
  BinOp before = descending ? BinOp::Lt : BinOp::Gt;  // comes after the previous pick
  BinOp beats = descending ? BinOp::Gt : BinOp::Lt;
  ExprP after = binary(BinOp::Or, binary(before, v, kb.var(pv)), binary(BinOp::And, binary(BinOp::Eq, v, kb.var(pv)), binary(BinOp::Gt, kb.var(j), kb.var(pi))));
  ExprP eligible = binary(BinOp::Or, binary(BinOp::Eq, kb.var(r), intImm(0)), after);
  ExprP take = binary(BinOp::And, eligible, binary(BinOp::Or, binary(BinOp::Lt, kb.var(bi), intImm(0)), binary(beats, v, kb.var(best))));
  ExprP at = (kb.var(o) * picks + kb.var(r)) * innerN + kb.var(i);
  std::vector<StmtP> pick{assign(bi, intImm(-1)), assign(best, kb.load(a, (kb.var(o) * len) * innerN + kb.var(i))),
                          forLoop(j, len, {assign(taken, take), assign(best, select(kb.var(taken), v, kb.var(best))),
                                           assign(bi, select(kb.var(taken), kb.var(j), kb.var(bi)))})};
  if (wantValues) pick.push_back(store(values, at, kb.var(best)));
  if (wantIndices) pick.push_back(store(indices, at, cast(*it, kb.var(bi))));
  pick.push_back(assign(pv, kb.var(best)));
  pick.push_back(assign(pi, kb.var(bi)));
  // prev starts defined (the first pick ignores it): an undefined local would poison the conditions.
  kb.add(forLoop(o, outer, {forLoop(i, innerN, {assign(pv, kb.load(a, (kb.var(o) * len) * innerN + kb.var(i))), assign(pi, intImm(-1)),
                                                forLoop(r, picks, pick)})}, true));
  return done(kb, {0});
}

// arange(start, end, step): start + i * step, the length from the result's shape.
LegalizeResult arange(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->size() != 1) return failure("the length of R.arange must be known to compile it");
  bool twoBounds = in.scalars.size() > 1 && in.scalars[1];
  if (in.scalars.empty() || !in.scalars[0]) return failure("R.arange needs compile-time bounds");
  double start = twoBounds ? *in.scalars[0] : 0;
  double step = floatAttr(in, "step", 1);
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& idx) {
    ExprP v = floatImm(start, ScalarType::F64) + cast(ScalarType::F64, idx[0]) * floatImm(step, ScalarType::F64);
    return std::vector<StmtP>{store(c, idx[0], cast(*t, v))};
  }));
  return done(kb, {});
}

// dropout at inference, as TVM's inference pipeline treats it: the data unchanged and a mask of ones.
LegalizeResult dropout(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || in.out.kind != ir::StructInfo::Kind::Tuple || in.out.fields.size() != 2) return failure("R.nn.dropout: unexpected operand or result");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims) return failure("the shape must be known to compile R.nn.dropout");
  int a = kb.param("A", *t, shapeText(x));
  int out = kb.param("out", *t, shapeText(in.out.fields[0].get()));
  auto mt = elementType(in.out.fields[1].get());
  int mask = kb.param("mask", mt.value_or(*t), shapeText(in.out.fields[1].get()));
  ExprP one = isFloat(mt.value_or(*t)) ? floatImm(1, mt.value_or(*t)) : cast(mt.value_or(*t), intImm(1));
  kb.add(outputNest(kb, *dims, [&](const std::vector<ExprP>& idx) {
    ExprP at = flatIndex(idx, *dims);
    return std::vector<StmtP>{store(out, at, kb.load(a, at)), store(mask, at, one)};
  }));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
