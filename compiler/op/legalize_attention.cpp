// nn.attention as a plain kernel, in float32 (float64 for float64 inputs). On a CPU, with the key
// count and feature size known: one query row at a time, its scores computed once into a local
// array. Elsewhere: each output element (b, s, n, hv) takes the maximum of its row of scores, their
// sum of exponentials and the weighted sum of value's column, recomputing each score (q . k) in every
// pass; correct on any vdevice and for any sequence length (on cuda, tvms.attention replaces it in
// float16 / bfloat16).
#include <cmath>
#include <limits>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {
// The row form's local arrays (one per CPU thread's frame): up to 16 KiB of scores and 4 KiB of
// output features in float32; longer rows take the recomputing form.
constexpr int64_t kRowScores = 4096, kRowFeatures = 1024;
}  // namespace

LegalizeResult attention(const LegalizeInput& in) {
  if (const ir::Value* w = in.attr("window_size"); w && w->kind != ir::Value::Kind::None)
    return failure("R.nn.attention with a window_size has no kernel yet");
  auto t = elementType(in.args.size() > 0 ? in.args[0] : nullptr);
  if (!t || !isFloat(*t)) return failure("R.nn.attention kernels take float tensors");
  ScalarType acc = *t == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  KernelBuilder kb(in.kernelName);
  auto qd = shapeExprs(kb, in.args[0]), kd = shapeExprs(kb, in.args.size() > 1 ? in.args[1] : nullptr),
       vd = shapeExprs(kb, in.args.size() > 2 ? in.args[2] : nullptr), od = shapeExprs(kb, &in.out);
  if (!qd || !kd || !vd || !od || qd->size() != 4 || kd->size() != 4 || vd->size() != 4) return failure("the shapes must be known to compile R.nn.attention");
  bool hasBias = in.call.args.size() > 3 && in.call.args[3] && in.args.size() > 3 && in.args[3];
  std::optional<std::vector<ExprP>> bd;
  if (hasBias) {
    bd = shapeExprs(kb, in.args[3]);
    if (!bd || bd->size() > 4 || elementType(in.args[3]) != t) return failure("R.nn.attention: the bias must be a tensor of query's dtype, of rank <= 4, with a known shape");
  }
  std::string mask = infer::stringAttr(in.attr("causal_mask")).value_or("");
  const ExprP& H = (*qd)[3];
  ExprP S = (*qd)[1], Skv = (*kd)[1];
  int q = kb.param("Q", *t, shapeText(in.args[0]));
  int k = kb.param("K", *t, shapeText(in.args[1]));
  int v = kb.param("V", *t, shapeText(in.args[2]));
  int bias = hasBias ? kb.param("bias", *t, shapeText(in.args[3])) : -1;
  int c = kb.param("C", *t, shapeText(&in.out));
  int mx = kb.local("mx", acc), sum = kb.local("sum", acc), out = kb.local("out", acc), dot = kb.local("dot", acc);
  double scaleValue = floatAttr(in, "scale", 0);
  // score(j) = (q[b, s, n, :] . k[b, j, n, :]) * scale + bias[b, n, s, j], into `dot`
  auto score = [&](const ExprP& b, const ExprP& s, const ExprP& n, const ExprP& j) {
    int h = kb.loopVar("h");
    ExprP qv = cast(acc, kb.load(q, flatIndex({b, s, n, kb.var(h)}, *qd)));
    ExprP kv = cast(acc, kb.load(k, flatIndex({b, j, n, kb.var(h)}, *kd)));
    ExprP scale = scaleValue != 0 ? floatImm(scaleValue, acc) : unary(UnOp::Rsqrt, cast(acc, H));
    std::vector<StmtP> steps{assign(dot, floatImm(0, acc)), forLoop(h, H, {assign(dot, kb.var(dot) + qv * kv)}), assign(dot, kb.var(dot) * scale)};
    if (hasBias) {  // broadcast into (B, N, S, S_kv), right-aligned
      std::vector<ExprP> full{b, n, s, j}, at;
      size_t lead = 4 - bd->size();
      for (size_t d = 0; d < bd->size(); ++d) {
        const ExprP& extent = (*bd)[d];
        bool one = extent->kind == Expr::Kind::Int && extent->intValue == 1;
        at.push_back(one ? intImm(0) : full[lead + d]);
      }
      steps.push_back(assign(dot, kb.var(dot) + cast(acc, kb.load(bias, flatIndex(at, *bd)))));
    }
    return steps;
  };
  // Keys a causal mask hides: j > s (TopLeft), j > s + S_kv - S (BottomRight).
  auto visible = [&](const ExprP& s, const ExprP& j) -> ExprP {
    if (mask == "TopLeft") return binary(BinOp::Le, j, s);
    if (mask == "BottomRight") return binary(BinOp::Le, j, s + Skv - S);
    return nullptr;
  };
  const ExprP& D = (*vd)[3];
  bool staticRow = Skv->kind == Expr::Kind::Int && Skv->intValue > 0 && Skv->intValue <= kRowScores && D->kind == Expr::Kind::Int &&
                   D->intValue > 0 && D->intValue <= kRowFeatures;
  if (in.target.isCpu() && staticRow) {
    // On a CPU: each query row's scores computed once into a local array, turned into weights in
    // place, then value's rows added into a local row of output features (unit stride: the compiler
    // vectorizes it). Each score costs one dot product instead of two per output feature.
    int scores = kb.localArray("scores", acc, Skv->intValue), row = kb.localArray("row", acc, D->intValue);
    kb.add(outputNest(kb, {(*od)[0], (*od)[1], (*od)[2]}, [&](const std::vector<ExprP>& o) {
      const ExprP &b = o[0], &s = o[1], &n = o[2];
      const ExprP minusInf = floatImm(-std::numeric_limits<double>::infinity(), acc);
      int j = kb.loopVar("j"), j2 = kb.loopVar("j"), j3 = kb.loopVar("j"), h0 = kb.loopVar("hv"), h1 = kb.loopVar("hv"), h2 = kb.loopVar("hv");
      std::vector<StmtP> scoreOne = score(b, s, n, kb.var(j));
      ExprP seen = visible(s, kb.var(j));
      scoreOne.push_back(store(scores, kb.var(j), seen ? select(seen, kb.var(dot), minusInf) : kb.var(dot)));
      scoreOne.push_back(assign(mx, max(kb.var(mx), kb.load(scores, kb.var(j)))));
      // A hidden key weighs 0 (exp(-inf - mx) would be NaN when every key is hidden).
      ExprP seen2 = visible(s, kb.var(j2));
      ExprP weight = unary(UnOp::Exp, kb.load(scores, kb.var(j2)) - kb.var(mx));
      std::vector<StmtP> r{assign(mx, minusInf), forLoop(j, Skv, scoreOne), assign(sum, floatImm(0, acc)),
                           forLoop(j2, Skv, {store(scores, kb.var(j2), seen2 ? select(seen2, weight, floatImm(0, acc)) : weight),
                                             assign(sum, kb.var(sum) + kb.load(scores, kb.var(j2)))}),
                           forLoop(h0, D, {store(row, kb.var(h0), floatImm(0, acc))}),
                           forLoop(j3, Skv, {forLoop(h1, D, {store(row, kb.var(h1), kb.load(row, kb.var(h1)) +
                                                                                        kb.load(scores, kb.var(j3)) * cast(acc, kb.load(v, flatIndex({b, kb.var(j3), n, kb.var(h1)}, *vd))))})})};
      // A row every key of which is hidden has no weights: 0, not 0 / 0.
      ExprP value = select(binary(BinOp::Gt, kb.var(sum), floatImm(0, acc)), binary(BinOp::Div, kb.load(row, kb.var(h2)), kb.var(sum)), floatImm(0, acc));
      r.push_back(forLoop(h2, D, {store(c, flatIndex({b, s, n, kb.var(h2)}, *od), cast(*t, value))}));
      return r;
    }));
  } else {
    kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
      const ExprP &b = o[0], &s = o[1], &n = o[2], &hv = o[3];
      auto overKeys = [&](const std::function<std::vector<StmtP>(const ExprP&)>& body) {
        int j = kb.loopVar("j");
        std::vector<StmtP> inner = score(b, s, n, kb.var(j));
        for (auto& st : body(kb.var(j))) inner.push_back(st);
        ExprP keep = visible(s, kb.var(j));
        return forLoop(j, Skv, keep ? std::vector<StmtP>{ifThen(keep, inner)} : inner);
      };
      std::vector<StmtP> row{assign(mx, floatImm(-std::numeric_limits<double>::infinity(), acc))};
      row.push_back(overKeys([&](const ExprP&) { return std::vector<StmtP>{assign(mx, max(kb.var(mx), kb.var(dot)))}; }));
      row.push_back(assign(sum, floatImm(0, acc)));
      row.push_back(assign(out, floatImm(0, acc)));
      row.push_back(overKeys([&](const ExprP& j) {
        ExprP e = unary(UnOp::Exp, kb.var(dot) - kb.var(mx));
        return std::vector<StmtP>{assign(sum, kb.var(sum) + e), assign(out, kb.var(out) + e * cast(acc, kb.load(v, flatIndex({b, j, n, hv}, *vd))))};
      }));
      // A row every key of which is hidden has no weights: 0, not 0 / 0.
      ExprP value = select(binary(BinOp::Gt, kb.var(sum), floatImm(0, acc)), binary(BinOp::Div, kb.var(out), kb.var(sum)), floatImm(0, acc));
      row.push_back(store(c, flatIndex(o, *od), cast(*t, value)));
      return row;
    }));
  }
  std::vector<size_t> buffers{0, 1, 2};
  if (hasBias) buffers.push_back(3);
  return done(kb, buffers);
}

}  // namespace tvms::op::kernels
