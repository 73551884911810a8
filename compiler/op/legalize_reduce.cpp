// Reductions and softmax: the kept dims are the loop nest (outermost parallel), the reduced dims an
// inner nest accumulating into a local scalar.
#include <cmath>
#include <limits>
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"
#include "compiler/op/reduce_attrs.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult reduce(const LegalizeInput& in, Reduction op) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  // Integer tensors sum, multiply and compare exactly (numpy keeps their dtype); their mean, std and
  // variance are not integers.
  bool exact = op == Reduction::Sum || op == Reduction::Prod || op == Reduction::Max || op == Reduction::Min;
  if (!t || (!isFloat(*t) && !(exact && (*t == ScalarType::I32 || *t == ScalarType::I64))))
    return failure(in.def.scriptName() + " kernels take float tensors" + (exact ? " and int32 / int64 ones" : ""));
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims) return failure("the shape of the operand must be known to compile " + in.def.scriptName());
  if (elementType(&in.out) != t) return failure(in.def.scriptName() + ": the result's dtype must be the operand's to compile");
  int rank = static_cast<int>(dims->size());
  const std::set<int> reduced = reduceAttrs(in.call).reduced(rank);
  double init = op == Reduction::Max ? -std::numeric_limits<double>::infinity() : op == Reduction::Min ? std::numeric_limits<double>::infinity() : op == Reduction::Prod ? 1 : 0;
  bool moments = op == Reduction::Std || op == Reduction::Variance;  // two passes: the mean, then the mean squared deviation
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  int acc = kb.local("acc", *t), mean = kb.local("mean", *t);
  std::vector<int> loops(rank);
  for (int d = 0; d < rank; ++d) loops[d] = kb.loopVar("i" + std::to_string(d));
  std::vector<ExprP> idx;
  for (int d = 0; d < rank; ++d) idx.push_back(kb.var(loops[d]));
  ExprP v = kb.load(a, flatIndex(idx, *dims));
  ExprP cur = kb.var(acc);
  auto overReduced = [&](StmtP leaf) {
    for (int d = rank; d-- > 0;)
      if (reduced.count(d)) leaf = forLoop(loops[d], (*dims)[d], {leaf});
    return leaf;
  };
  ExprP next = op == Reduction::Max ? binary(BinOp::Max, cur, v) : op == Reduction::Min ? binary(BinOp::Min, cur, v) : op == Reduction::Prod ? cur * v : cur + v;
  StmtP inner = overReduced(assign(acc, next));
  ExprP count = intImm(1);
  for (int d : reduced) count = count * (*dims)[d];
  ExprP n = cast(*t, count);
  ExprP result = op == Reduction::Mean ? binary(BinOp::Div, kb.var(acc), n) : kb.var(acc);
  ExprP start = isFloat(*t) ? floatImm(init, *t)
               : cast(*t, intImm(op == Reduction::Max ? (*t == ScalarType::I32 ? INT32_MIN : INT64_MIN)
                                : op == Reduction::Min ? (*t == ScalarType::I32 ? INT32_MAX : INT64_MAX) : static_cast<int64_t>(init)));
  std::vector<StmtP> steps{assign(acc, start), inner};
  if (moments) {
    ExprP dev = v - kb.var(mean);
    steps.push_back(assign(mean, binary(BinOp::Div, kb.var(acc), n)));
    steps.push_back(assign(acc, floatImm(0, *t)));
    steps.push_back(overReduced(assign(acc, kb.var(acc) + dev * dev)));
    result = binary(BinOp::Div, kb.var(acc), n);
    if (op == Reduction::Std) result = unary(UnOp::Sqrt, result);
  }
  // The output index: kept dims in order (a reduced dim kept with keepdims indexes 0 of size 1).
  ExprP outIdx = intImm(0);
  for (int d = 0; d < rank; ++d)
    if (!reduced.count(d)) outIdx = outIdx * (*dims)[d] + kb.var(loops[d]);
  steps.push_back(store(c, outIdx, result));
  StmtP body = seq(steps);
  // The kept dims are spatial (each output element is independent); the reduced ones are not.
  for (int d = rank; d-- > 0;)
    if (!reduced.count(d)) body = forLoop(loops[d], (*dims)[d], {body}, true);
  kb.add(body);
  return done(kb, {0});
}

LegalizeResult softmax(const LegalizeInput& in, bool logSoftmax) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || !isFloat(*t)) return failure(in.def.scriptName() + " kernels take float tensors");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims || dims->empty()) return failure("the shape of the operand must be known to compile " + in.def.scriptName());
  int rank = static_cast<int>(dims->size());
  int64_t axis = infer::intAttr(in.attr("axis")).value_or(-1);
  if (axis < 0) axis += rank;
  // [outer, axis, inner]
  ExprP outer = product(*dims, 0, static_cast<size_t>(axis)), len = (*dims)[axis], innerN = product(*dims, static_cast<size_t>(axis) + 1);
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  int o = kb.loopVar("o"), i = kb.loopVar("i"), k1 = kb.loopVar("k"), k2 = kb.loopVar("k2"), k3 = kb.loopVar("k3");
  int mx = kb.local("mx", *t), sum = kb.local("sum", *t);
  auto at = [&](int k) { return (kb.var(o) * len + kb.var(k)) * innerN + kb.var(i); };
  StmtP body = seq({
      assign(mx, floatImm(-std::numeric_limits<double>::infinity(), *t)),
      forLoop(k1, len, {assign(mx, binary(BinOp::Max, kb.var(mx), kb.load(a, at(k1))))}),
      assign(sum, floatImm(0, *t)),
      forLoop(k2, len, {assign(sum, kb.var(sum) + unary(UnOp::Exp, kb.load(a, at(k2)) - kb.var(mx)))}),
      forLoop(k3, len, {store(c, at(k3), logSoftmax ? kb.load(a, at(k3)) - kb.var(mx) - unary(UnOp::Log, kb.var(sum))
                                                     : binary(BinOp::Div, unary(UnOp::Exp, kb.load(a, at(k3)) - kb.var(mx)), kb.var(sum)))}, true),
  });
  kb.add(forLoop(o, outer, {forLoop(i, innerN, {body}, true)}, true));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
