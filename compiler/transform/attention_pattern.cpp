#include "compiler/transform/attention_pattern.h"

#include <cmath>
#include <functional>

#include "compiler/op/infer_util.h"
#include "compiler/op/registry.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

// A scalar constant's value (R.const(0.125, "float16"), a literal).
std::optional<double> scalarConstant(const ExprPtr& e) {
  auto* c = as<Constant>(e);
  if (!c || c->arrayShape) return std::nullopt;
  if (c->value.kind == Value::Kind::Float) return c->value.real;
  if (c->value.kind == Value::Kind::Int) return static_cast<double>(c->value.integer);
  return std::nullopt;
}

class Finder {
 public:
  Finder(const Function& f, const AttentionTakes& takes) : takes_(takes), uses_(useCounts(f)) {
    forEachBinding(f, [&](const Binding& b) {
      if (b.vars.size() != 1) return;
      bindingOf_[b.vars[0].get()] = &b;
      if (auto* c = as<Call>(b.value); c && !c->callee)
        for (auto& a : c->args)
          if (auto* v = as<Var>(a)) userOf_[v] = &b;
    });
  }

  AttentionPlan run(const Function& f) {
    forEachBinding(f, [&](const Binding& b) {
      auto* c = callOf(b);
      if (c && (c->def == attention_ || c->def == attentionBias_)) return opAttention(b, *c);
      if (c && c->def == softmax_) writtenOut(b, *c);
    });
    return std::move(plan_);
  }

 private:
  const Call* callOf(const Binding& b) const {
    auto* c = b.vars.size() == 1 ? as<Call>(b.value) : nullptr;
    return c && !c->callee && c->def ? c : nullptr;
  }
  // The call that defines `e`, when `e` is a variable read only once (so the chain may swallow it).
  const Binding* soleProducer(const ExprPtr& e) const {
    auto* v = as<Var>(e);
    if (!v || uses_.count(v) == 0 || uses_.at(v) != 1) return nullptr;
    auto it = bindingOf_.find(v);
    return it == bindingOf_.end() || !callOf(*it->second) ? nullptr : it->second;
  }
  static int rankOf(const ExprPtr& e) {
    const StructInfo* s = sinfoOf(e);
    return s && s->kind == StructInfo::Kind::Tensor ? s->rank() : -1;
  }
  std::optional<std::vector<int64_t>> permuteAxes(const Call& permute) const {
    const StructInfo* x = sinfoOf(permute.args.empty() ? nullptr : permute.args[0]);
    if (!x || x->rank() < 1) return std::nullopt;
    return op::infer::permutation(permute.attrValue("axes"), x->rank());
  }
  // The tensor an operand reads and where its logical axes lie: through a permute_dims only the chain
  // reads (that permute then dropped), else the operand itself. `logical` holds the operand's axes.
  ExprPtr throughPermute(const ExprPtr& operand, std::vector<int64_t>& logical, std::vector<const Binding*>& dropped) const {
    const Binding* b = soleProducer(operand);
    auto* c = b ? callOf(*b) : nullptr;
    if (!c || c->def != permute_) return operand;
    auto axes = permuteAxes(*c);
    if (!axes) return operand;
    for (auto& a : logical)
      if (a >= 0) a = (*axes)[static_cast<size_t>(a)];
    dropped.push_back(b);
    return c->args[0];
  }
  // q @ kt, or it scaled by a scalar constant: the side of an add that is the scores, not the bias.
  bool leadsToScores(const Call& c) const {
    if (c.def == matmul_) return true;
    if ((c.def != multiply_ && c.def != divide_) || c.args.size() != 2) return false;
    for (int side : {0, 1}) {
      if (!scalarConstant(c.args[static_cast<size_t>(1 - side)])) continue;
      const Binding* b = soleProducer(c.args[static_cast<size_t>(side)]);
      if (b && callOf(*b) && callOf(*b)->def == matmul_) return true;
    }
    return false;
  }
  // A bias of rank r aligned to the right of (batch, head, query row, key), as broadcasting aligns it:
  // -1 for the axes it lacks.
  static std::vector<int64_t> broadcastAxes(int rank) {
    std::vector<int64_t> axes(4);
    for (int l = 0; l < 4; ++l) axes[static_cast<size_t>(l)] = l - (4 - rank) >= 0 ? l - (4 - rank) : -1;
    return axes;
  }
  // A bias: a tensor like the output of rank 1 to 4.
  static bool biasLike(const StructInfo* out, const ExprPtr& e) { return likeOutput(out, e) && sinfoOf(e)->rank() >= 1 && sinfoOf(e)->rank() <= 4; }
  static std::vector<int64_t> logicalAxes(int rank, std::vector<int64_t> rank4) {
    if (rank == 3) {  // (head, row, feature): no batch axis
      for (auto& a : rank4) a -= 1;
    }
    return rank4;
  }
  // `e` a tensor of `out`'s dtype on `out`'s vdevice.
  static bool likeOutput(const StructInfo* out, const ExprPtr& e) {
    const StructInfo* s = sinfoOf(e);
    if (!out || out->kind != StructInfo::Kind::Tensor || !s || s->kind != StructInfo::Kind::Tensor || s->dtype != out->dtype) return false;
    return (s->vdevice ? s->vdevice->spelling : "") == (out->vdevice ? out->vdevice->spelling : "");
  }
  bool sameVDeviceAndDType(const StructInfo* out, std::initializer_list<ExprPtr> operands) const {
    for (auto& e : operands)
      if (!likeOutput(out, e) || sinfoOf(e)->rank() != out->rank()) return false;
    return out != nullptr;
  }

  // softmax(scale * (q @ kt), axis=-1) @ v, the intermediates read once.
  void writtenOut(const Binding& softmaxBinding, const Call& softmax) {
    const Var* p = softmaxBinding.vars[0].get();
    int rank = rankOf(softmax.args.empty() ? nullptr : softmax.args[0]);
    if ((rank != 3 && rank != 4) || uses_[p] != 1) return;
    auto axis = op::infer::intAttr(softmax.attrValue("axis")).value_or(-1);
    if (axis != -1 && axis != rank - 1) return;
    auto user = userOf_.find(p);
    if (user == userOf_.end()) return;
    const Binding* pv = user->second;
    const Call* pvCall = callOf(*pv);
    if (!pvCall || pvCall->def != matmul_ || pvCall->args.size() != 2 || as<Var>(pvCall->args[0]) != p) return;
    std::vector<const Binding*> dropped{&softmaxBinding};
    double scale = 1;
    const Binding* scoresBinding = soleProducer(softmax.args[0]);
    const Call* scores = scoresBinding ? callOf(*scoresBinding) : nullptr;
    // A bias added to the scaled scores (a mask, a position bias), either operand of the add.
    ExprPtr bias;
    if (scores && scores->def == add_ && scores->args.size() == 2) {
      for (int side : {0, 1}) {
        const Binding* other = soleProducer(scores->args[static_cast<size_t>(side)]);
        const Call* c = other ? callOf(*other) : nullptr;
        if (c && leadsToScores(*c) && rankOf(scores->args[static_cast<size_t>(1 - side)]) >= 1) {
          bias = scores->args[static_cast<size_t>(1 - side)];
          dropped.push_back(scoresBinding);
          scoresBinding = other;
          scores = c;
          break;
        }
      }
      if (!bias) return;
    }
    if (scores && (scores->def == multiply_ || scores->def == divide_) && scores->args.size() == 2) {
      int constantAt = scalarConstant(scores->args[1]) ? 1 : scores->def == multiply_ && scalarConstant(scores->args[0]) ? 0 : -1;
      if (constantAt < 0) return;
      double c = *scalarConstant(scores->args[static_cast<size_t>(constantAt)]);
      if (scores->def == divide_ && c == 0) return;
      scale = scores->def == divide_ ? 1 / c : c;
      dropped.push_back(scoresBinding);
      scoresBinding = soleProducer(scores->args[static_cast<size_t>(1 - constantAt)]);
      scores = scoresBinding ? callOf(*scoresBinding) : nullptr;
    }
    if (!scores || scores->def != matmul_ || scores->args.size() != 2) return;
    for (auto* mm : {scores, pvCall})
      if (auto d = op::infer::stringAttr(mm->attrValue("out_dtype")); d && !d->empty() && *d != sinfoOf(scores->args[0])->dtype) return;
    dropped.push_back(scoresBinding);

    AttentionMatch m;
    m.scale = scale;
    if (bias) {
      m.bias = bias;
      m.biasAxes = broadcastAxes(rankOf(bias));
    }
    m.qAxes = logicalAxes(rank, {0, 1, 2, 3});
    m.kAxes = logicalAxes(rank, {0, 1, 3, 2});  // kt is (batch, head, feature, key)
    m.vAxes = logicalAxes(rank, {0, 1, 2, 3});
    m.oAxes = logicalAxes(rank, {0, 1, 2, 3});
    const ExprPtr &q0 = scores->args[0], &kt0 = scores->args[1], &v0 = pvCall->args[1];
    if (!sameVDeviceAndDType(pv->vars[0]->annotation.get(), {q0, kt0, v0})) return;
    if (bias && !biasLike(pv->vars[0]->annotation.get(), bias)) return;
    m.q = throughPermute(q0, m.qAxes, dropped);
    m.k = throughPermute(kt0, m.kAxes, dropped);
    m.v = throughPermute(v0, m.vAxes, dropped);
    m.result = pv;
    // An output read only by a permute_dims is written in that permute's layout.
    const Var* o = pv->vars[0].get();
    auto next = userOf_.find(o);
    if (uses_[o] == 1 && next != userOf_.end() && callOf(*next->second) && callOf(*next->second)->def == permute_) {
      if (auto axes = permuteAxes(*callOf(*next->second))) {
        std::vector<int64_t> inverse(axes->size());
        for (size_t a = 0; a < axes->size(); ++a) inverse[static_cast<size_t>((*axes)[a])] = static_cast<int64_t>(a);
        for (auto& a : m.oAxes)
          if (a >= 0) a = inverse[static_cast<size_t>(a)];
        dropped.push_back(pv);
        m.result = next->second;
      }
    }
    record(std::move(m), dropped);
  }

  // R.nn.attention(q, k, v, bias, scale=, causal_mask=) over (batch, sequence, heads, feature)
  // tensors; its bias (batch, heads, query rows, keys) broadcast as TVM's deduction allows.
  void opAttention(const Binding& b, const Call& c) {
    if (c.args.size() < 3) return;
    if (const Value* w = c.attrValue("window_size"); w && w->kind != Value::Kind::None) return;
    const StructInfo* out = b.vars[0]->annotation.get();
    if (rankOf(c.args[0]) != 4 || !sameVDeviceAndDType(out, {c.args[0], c.args[1], c.args[2]})) return;
    AttentionMatch m;
    if (c.args.size() > 3 && c.args[3]) {
      if (!biasLike(out, c.args[3])) return;
      m.bias = c.args[3];
      m.biasAxes = broadcastAxes(rankOf(c.args[3]));
    }
    m.result = &b;
    m.q = c.args[0], m.k = c.args[1], m.v = c.args[2];
    m.qAxes = m.kAxes = m.vAxes = m.oAxes = {0, 2, 1, 3};
    const Value* scale = c.attrValue("scale");
    auto d = op::infer::constInt(sinfoOf(c.args[0])->shape ? (*sinfoOf(c.args[0])->shape)[3] : nullptr);
    if (scale && scale->kind == Value::Kind::Float) m.scale = scale->real;
    else if (scale && scale->kind == Value::Kind::Int) m.scale = static_cast<double>(scale->integer);
    else if (d) m.scale = 1 / std::sqrt(static_cast<double>(*d));
    else return;
    std::string mask = op::infer::stringAttr(c.attrValue("causal_mask")).value_or("");
    m.causal = mask == "TopLeft" ? 1 : mask == "BottomRight" ? 2 : 0;
    record(std::move(m), {});
  }

  // The feature size of a tensor's logical axis `at`, when known.
  static std::optional<int64_t> featureSize(const ExprPtr& e, int64_t at) {
    const StructInfo* s = sinfoOf(e);
    if (!s || !s->shape || at < 0 || at >= static_cast<int64_t>(s->shape->size())) return std::nullopt;
    return op::infer::constInt((*s->shape)[static_cast<size_t>(at)]);
  }

  // The dim of a tensor's logical axis `at` (null for an absent batch axis: extent 1).
  static PrimExprPtr dimOf(const ExprPtr& e, int64_t at) {
    const StructInfo* s = sinfoOf(e);
    if (at < 0) return op::infer::dim(1);
    return s && s->shape && at < static_cast<int64_t>(s->shape->size()) ? (*s->shape)[static_cast<size_t>(at)] : nullptr;
  }

  void record(AttentionMatch m, const std::vector<const Binding*>& dropped) {
    auto d = featureSize(m.q, m.qAxes[3]), dv = featureSize(m.v, m.vAxes[3]);
    const StructInfo* out = m.result->vars[0]->annotation.get();
    if (!d || d != dv || !takes_(*out, *d)) return;
    // One batch and head count throughout (a matmul's broadcast batch stays unfused), K and V of one length.
    for (int64_t axis : {0, 1}) {
      PrimExprPtr qd = dimOf(m.q, m.qAxes[static_cast<size_t>(axis)]);
      for (auto [e, axes] : {std::pair{&m.k, &m.kAxes}, {&m.v, &m.vAxes}}) {
        PrimExprPtr other = dimOf(*e, (*axes)[static_cast<size_t>(axis)]);
        if (!qd || !other || !op::infer::sameDim(qd, other)) return;
      }
    }
    PrimExprPtr kRows = dimOf(m.k, m.kAxes[2]), vRows = dimOf(m.v, m.vAxes[2]);
    if (!kRows || !vRows || !op::infer::sameDim(kRows, vRows)) return;
    // Each of the bias's axes: the scores' extent, or 1 (broadcast).
    if (m.bias) {
      PrimExprPtr want[4] = {dimOf(m.q, m.qAxes[0]), dimOf(m.q, m.qAxes[1]), dimOf(m.q, m.qAxes[2]), kRows};
      for (size_t l = 0; l < 4; ++l) {
        if (m.biasAxes[l] < 0) continue;
        PrimExprPtr d = dimOf(m.bias, m.biasAxes[l]);
        auto one = d ? op::infer::constInt(d) : std::nullopt;
        if (!d || !want[l] || (!(one && *one == 1) && !op::infer::sameDim(d, want[l]))) return;
      }
    }
    for (const Binding* b : dropped) plan_.dropped.insert(b);
    plan_.calls.emplace(m.result, std::move(m));
  }

  const AttentionTakes& takes_;
  std::unordered_map<const Var*, int> uses_;
  std::unordered_map<const Var*, const Binding*> bindingOf_;
  std::unordered_map<const Var*, const Binding*> userOf_;  // a variable's reader, when the variable is read once
  AttentionPlan plan_;
  const op::OpDef* matmul_ = op::findOp("relax.matmul");
  const op::OpDef* softmax_ = op::findOp("relax.nn.softmax");
  const op::OpDef* multiply_ = op::findOp("relax.multiply");
  const op::OpDef* divide_ = op::findOp("relax.divide");
  const op::OpDef* add_ = op::findOp("relax.add");
  const op::OpDef* permute_ = op::findOp("relax.permute_dims");
  const op::OpDef* attention_ = op::findOp("relax.nn.attention");
  const op::OpDef* attentionBias_ = op::findOp("relax.nn.attention_bias");
};

}  // namespace

AttentionPlan findAttention(const Function& f, const AttentionTakes& takes) { return Finder(f, takes).run(f); }

}  // namespace tvms::transform
