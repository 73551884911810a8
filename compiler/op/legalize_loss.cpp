// Losses: nn.nll_loss (per element with reduction "none"; else one serial accumulation of the loss
// and the weights, divided for "mean") and nn.cross_entropy_with_logits (one accumulation).
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult nllLoss(const LegalizeInput& in) {
  auto t = elementType(in.args.size() > 0 ? in.args[0] : nullptr);
  auto it = elementType(in.args.size() > 1 ? in.args[1] : nullptr);
  if (!t || !isFloat(*t) || !it || (*it != ScalarType::I32 && *it != ScalarType::I64)) return failure("R.nn.nll_loss needs float predictions and int32/int64 targets");
  bool weighted = in.call.args.size() > 2 && in.call.args[2] && in.args.size() > 2 && in.args[2];
  std::string reduction = infer::stringAttr(in.attr("reduction")).value_or("mean");
  int64_t ignore = infer::intAttr(in.attr("ignore_index")).value_or(-100);
  KernelBuilder kb(in.kernelName);
  auto pd = shapeExprs(kb, in.args[0]), td = shapeExprs(kb, in.args[1]);
  if (!pd || !td || pd->empty()) return failure("the shapes must be known to compile R.nn.nll_loss");
  ScalarType acc = *t == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  const ExprP& C = pd->size() == 1 ? (*pd)[0] : (*pd)[1];
  int p = kb.param("predictions", *t, shapeText(in.args[0]));
  int tg = kb.param("targets", *it, shapeText(in.args[1]));
  int w = weighted ? kb.param("weights", *t, shapeText(in.args[2])) : -1;
  int c = kb.param("C", *t, shapeText(&in.out));
  // The loss of the target at index `idx` (n, d...) and its weight; 0 and 0 for ignored or
  // out-of-range classes.
  auto lossAt = [&](const std::vector<ExprP>& idx, ExprP& weight) {
    ExprP cls = cast(ScalarType::I64, kb.load(tg, flatIndex(idx, *td)));
    ExprP valid = binary(BinOp::And, binary(BinOp::Ne, cls, intImm(ignore)),
                         binary(BinOp::And, binary(BinOp::Ge, cls, intImm(0)), binary(BinOp::Lt, cls, C)));
    ExprP safe = max(intImm(0), min(cls, C - intImm(1)));
    std::vector<ExprP> at;
    if (pd->size() == 1) at = {safe};
    else {
      at = {idx[0], safe};
      at.insert(at.end(), idx.begin() + 1, idx.end());
    }
    ExprP wv = weighted ? cast(acc, kb.load(w, safe)) : floatImm(1, acc);
    weight = select(valid, wv, floatImm(0, acc));
    return select(valid, floatImm(0, acc) - cast(acc, kb.load(p, flatIndex(at, *pd))) * wv, floatImm(0, acc));
  };
  if (reduction == "none") {
    kb.add(outputNest(kb, *td, [&](const std::vector<ExprP>& idx) {
      ExprP weight;
      return std::vector<StmtP>{store(c, flatIndex(idx, *td), cast(*t, lossAt(idx, weight)))};
    }));
  } else {
    int total = kb.local("total", acc), weights = kb.local("weights_sum", acc);
    std::vector<int> loops;
    std::vector<ExprP> idx;
    for (size_t d = 0; d < td->size(); ++d) {
      loops.push_back(kb.loopVar("i" + std::to_string(d)));
      idx.push_back(kb.var(loops.back()));
    }
    ExprP weight;
    ExprP loss = lossAt(idx, weight);
    StmtP body = seq({assign(total, kb.var(total) + loss), assign(weights, kb.var(weights) + weight)});
    for (size_t d = td->size(); d-- > 0;) body = forLoop(loops[d], (*td)[d], {body});
    ExprP result = reduction == "mean" ? binary(BinOp::Div, kb.var(total), kb.var(weights)) : kb.var(total);
    kb.add(seq({assign(total, floatImm(0, acc)), assign(weights, floatImm(0, acc)), body, store(c, intImm(0), cast(*t, result))}));
  }
  std::vector<size_t> buffers{0, 1};
  if (weighted) buffers.push_back(2);
  return done(kb, buffers);
}

LegalizeResult crossEntropyWithLogits(const LegalizeInput& in) {
  auto t = elementType(in.args.size() > 0 ? in.args[0] : nullptr);
  if (!t || !isFloat(*t)) return failure("R.nn.cross_entropy_with_logits kernels take float tensors");
  KernelBuilder kb(in.kernelName);
  auto pd = shapeExprs(kb, in.args[0]);
  if (!pd) return failure("the shapes must be known to compile R.nn.cross_entropy_with_logits");
  ScalarType acc = *t == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  int p = kb.param("predictions", *t, shapeText(in.args[0]));
  int l = kb.param("labels", *t, shapeText(in.args[1]));
  int c = kb.param("C", *t, shapeText(&in.out));
  int total = kb.local("total", acc), i = kb.loopVar("i");
  ExprP term = cast(acc, kb.load(p, kb.var(i))) * cast(acc, kb.load(l, kb.var(i)));
  ExprP batch = pd->size() == 2 ? cast(acc, (*pd)[0]) : floatImm(1, acc);
  kb.add(seq({assign(total, floatImm(0, acc)), forLoop(i, product(*pd), {assign(total, kb.var(total) + term)}),
              store(c, intImm(0), cast(*t, binary(BinOp::Div, floatImm(0, acc) - kb.var(total), batch)))}));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
