// nn.attention (and nn.attention_bias, its spelling with a bias) and the losses nn.nll_loss and
// nn.cross_entropy_with_logits, with TVM's shape rules (src/relax/op/nn/attention.cc, nn.cc).
#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

// query (B, S, N, H), key (B, S_kv, N, H), value (B, S_kv, N, H_v) -> (B, S, N, H_v).
InferResult inferAttention(const InferInput& in) {
  InferResult r;
  const StructInfo* q = tensorOperand(in, 0, r);
  const StructInfo* k = q ? tensorOperand(in, 1, r) : nullptr;
  const StructInfo* v = k ? tensorOperand(in, 2, r) : nullptr;
  if (!q || !k || !v) return r;
  for (auto [t, i] : {std::pair{q, 0}, std::pair{k, 1}, std::pair{v, 2}})
    if (t->rank() >= 0 && t->rank() != 4)
      return fail(diag::Code::TVS103, "R.nn.attention takes 4-D (batch, sequence, heads, head_dim) tensors, got rank " + std::to_string(t->rank()), i);
  if (!sameDType(*q, *k, "R.nn.attention", r, 0, 1) || !sameDType(*q, *v, "R.nn.attention", r, 0, 2)) return r;
  auto mask = stringAttr(in.attr("causal_mask"));
  if (mask && *mask != "TopLeft" && *mask != "BottomRight")
    return fail(diag::Code::TVS005, "R.nn.attention: causal_mask must be \"TopLeft\" or \"BottomRight\", got \"" + *mask + "\"");
  if (!q->shape || !k->shape || !v->shape) return ok(tensor(std::nullopt, q->dtype, 4));
  const Dims &qs = *q->shape, &ks = *k->shape, &vs = *v->shape;
  if (provablyDifferent(qs[3], ks[3]))
    return fail(diag::Code::TVS101, "R.nn.attention: query and key head dims differ (" + dimText(qs[3]) + " vs " + dimText(ks[3]) + ")", 1);
  if (provablyDifferent(ks[1], vs[1]))
    return fail(diag::Code::TVS101, "R.nn.attention: key and value sequence lengths differ (" + dimText(ks[1]) + " vs " + dimText(vs[1]) + ")", 2);
  InferResult result = ok(tensor(Dims{qs[0], qs[1], qs[2], vs[3]}, q->dtype));
  if (!sameDim(qs[3], ks[3])) result.assumedEqual.push_back({qs[3], ks[3]});
  if (!sameDim(ks[1], vs[1])) result.assumedEqual.push_back({ks[1], vs[1]});
  return result;
}

// attention_var_len: queries' shape with the values' last dim, queries' dtype.
InferResult inferAttentionVarLen(const InferInput& in) {
  InferResult r;
  const StructInfo* q = tensorOperand(in, 0, r);
  const StructInfo* v = q ? tensorOperand(in, 2, r) : nullptr;
  if (!q || !v) return r;
  if (!q->shape || !v->shape || q->shape->empty() || v->shape->empty()) return ok(tensor(std::nullopt, q->dtype, q->rank()));
  Dims out = *q->shape;
  out.back() = v->shape->back();
  return ok(tensor(out, q->dtype));
}

// nll_loss: the targets' shape with reduction "none", else a scalar; predictions' dtype.
InferResult inferNllLoss(const InferInput& in) {
  InferResult r;
  const StructInfo* p = tensorOperand(in, 0, r);
  const StructInfo* t = p ? tensorOperand(in, 1, r) : nullptr;
  if (!p || !t) return r;
  if (!t->dtype.empty() && !isIntDType(t->dtype)) return fail(diag::Code::TVS102, "R.nn.nll_loss: targets must be integers, got " + t->dtype, 1);
  std::string reduction = stringAttr(in.attr("reduction")).value_or("mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return fail(diag::Code::TVS005, "R.nn.nll_loss: reduction must be none, mean or sum, got \"" + reduction + "\"");
  if (p->rank() >= 0 && t->rank() >= 0 && p->rank() != (p->rank() == 1 ? 1 : t->rank() + 1) && !(p->rank() == 1 && t->rank() == 0))
    return fail(diag::Code::TVS103, "R.nn.nll_loss: predictions of rank " + std::to_string(p->rank()) + " need targets of rank " +
                                        std::to_string(p->rank() == 1 ? 0 : p->rank() - 1), 1);
  if (reduction != "none") return ok(tensor(Dims{}, p->dtype));
  return ok(tensor(t->shape, p->dtype, t->shape ? -1 : t->rank()));
}

InferResult inferCrossEntropy(const InferInput& in) {
  InferResult r;
  const StructInfo* p = tensorOperand(in, 0, r);
  const StructInfo* l = p ? tensorOperand(in, 1, r) : nullptr;
  if (!p || !l) return r;
  if (!sameDType(*p, *l, "R.nn.cross_entropy_with_logits", r, 0, 1)) return r;
  return ok(tensor(Dims{}, p->dtype));
}

}  // namespace

void addAttentionLossOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  for (auto* name : {"nn.attention", "nn.attention_bias"})
    out.push_back(withKernel(op(name, {tensor("query"), tensor("key"), tensor("value"), optExpr("bias", ParamKind::Tensor),
                                       optional("scale", ParamKind::Float), optional("causal_mask", ParamKind::String),
                                       optional("window_size", ParamKind::Int)},
                                P, "softmax(query key^T * scale + bias) value per batch and head, over (batch, sequence, heads, "
                                   "head_dim) tensors; scale defaults to 1 / sqrt(head_dim); causal_mask \"TopLeft\" or "
                                   "\"BottomRight\" hides later keys.", inferAttention),
                             kernels::attention));
  {
    OpDef d = op("nn.attention_var_len",
                 {tensor("queries"), tensor("keys"), tensor("values"), tensor("seqstart_q"), optExpr("seqstart_k", ParamKind::Tensor),
                  optExpr("max_seqlen_q", ParamKind::Prim), optExpr("max_seqlen_k", ParamKind::Prim), optional("scale", ParamKind::Float),
                  optional("causal_mask", ParamKind::String), optional("window_size", ParamKind::Int)},
                 P, "Attention over sequences of different lengths packed along one axis, each starting at seqstart_q[i] "
                    "(seqstart_k[i] for keys); the result is queries' shape with values' head dim.", inferAttentionVarLen);
    d.library = "CUTLASS's variable-length flash attention (TVM offloads it through BYOC and has no TIR legalization for it)";
    out.push_back(std::move(d));
  }
  out.push_back(withKernel(op("nn.nll_loss", {tensor("predictions"), tensor("targets"), optExpr("weights", ParamKind::Tensor),
                                              attr("reduction", ParamKind::String, s("mean")), attr("ignore_index", ParamKind::Int, i(-100))},
                              P, "Negative log likelihood of the targets' classes in predictions (log-probabilities along axis 1), "
                                 "weighted by class; \"mean\" divides by the weights' sum.", inferNllLoss),
                           kernels::nllLoss));
  out.push_back(withKernel(op("nn.cross_entropy_with_logits", {tensor("predictions"), tensor("labels")}, P,
                              "-sum(predictions * labels), divided by the batch size for 2-D predictions.", inferCrossEntropy),
                           kernels::crossEntropyWithLogits));
}

}  // namespace tvms::op
