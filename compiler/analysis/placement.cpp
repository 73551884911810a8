// RealizeVDevice's view of a function (LANGUAGE.md §7): known placements flooded over co-location
// ties. Where two different devices meet, TVM lets one win silently; tvms reports it (TVS204) at the
// binding where they meet, in source order.
#include <unordered_map>

#include "compiler/analysis/checks.h"
#include "compiler/analysis/relation.h"
#include "compiler/op/registry.h"

namespace tvms::analysis {

using namespace ir;

namespace {

struct Component {
  const VDevice* device = nullptr;
  diag::Related origin;
};

class Placement {
 public:
  Placement(const DeduceContext& c, const std::vector<diag::Diagnostic>& reported, std::vector<diag::Diagnostic>& out)
      : ctx_(c), reported_(reported), out_(out) {}

  void run(const Function& fn) {
    for (auto& p : fn.params)
      if (const VDevice* v = placedOn(placedOnly(p->annotation).get())) place(p.get(), v, range(p.get()), "'" + p->name + "' is annotated on \"" + spellingOf(ctx_.module, v) + "\"");
    if (fn.body) seq(*fn.body);
  }

 private:
  ByteRange range(const void* n) const {
    const ByteRange* r = ctx_.map.find(n);
    return r ? *r : ByteRange{};
  }
  const void* find(const void* x) {
    auto it = parent_.find(x);
    if (it == parent_.end()) { parent_[x] = x; return x; }
    if (it->second == x) return x;
    const void* root = find(it->second);
    parent_[x] = root;
    return root;
  }
  void place(const Var* v, const VDevice* d, ByteRange at, std::string why) {
    auto& c = comps_[find(v)];
    if (!c.device) c = {d, {at, std::move(why)}};
  }
  // Ties a and b; returns the two devices' origins when they differ.
  bool tie(const void* a, const void* b, Component& first, Component& second) {
    const void* ra = find(a);
    const void* rb = find(b);
    if (ra == rb) return false;
    Component ca = comps_[ra], cb = comps_[rb];
    parent_[rb] = ra;
    if (!ca.device) comps_[ra] = cb;
    if (ca.device && cb.device && ca.device != cb.device) {
      first = ca;
      second = cb;
      return true;
    }
    return false;
  }

  void uses(const ExprPtr& e, std::vector<std::pair<const Var*, ByteRange>>& out, const void* parent, size_t index) {
    if (!e) return;
    if (auto* v = as<Var>(e)) { out.push_back({v, ctx_.map.operand(parent, index)}); return; }
    if (auto* c = as<Call>(e)) {
      if (isDeviceBoundary(*c)) return;
      for (size_t i = 0; i < c->args.size(); ++i) uses(c->args[i], out, c, i);
    } else if (auto* t = as<Tuple>(e)) {
      for (size_t i = 0; i < t->fields.size(); ++i) uses(t->fields[i], out, t, i);
    } else if (auto* g = as<TupleGetItem>(e)) {
      uses(g->tuple, out, g, 0);
    } else if (auto* i = as<If>(e)) {
      for (auto* br : {i->thenBranch.get(), i->elseBranch.get()}) {
        if (!br) continue;
        seq(*br);
        uses(br->body, out, br, 0);
      }
    }
  }

  void seq(const SeqExpr& s) {
    for (auto& blk : s.blocks)
      for (auto& b : blk->bindings) binding(*b);
  }

  void binding(const Binding& b) {
    if (b.vars.empty()) return;
    const Var* var = b.vars[0].get();
    // An annotation places a freshly built call; on an already-typed value TVM drops it (TVS106).
    bool fresh = b.value && b.value->kind == Expr::Kind::Call;
    for (auto& v : b.vars) {
      if (const VDevice* d = fresh ? placedOn(placedOnly(v->annotation).get()) : nullptr)
        place(v.get(), d, ctx_.map.operand(&b, 1), "'" + v->name + "' is annotated on \"" + spellingOf(ctx_.module, d) + "\"");
      if (v.get() != var) { Component a, c; tie(var, v.get(), a, c); }
    }
    if (auto* c = as<Call>(b.value); c && c->def == &op::builtin::hintOnDevice()) {
      if (const VDevice* d = ctx_.module.hintedEntry(*c)) place(var, d, range(c), "hinted onto \"" + spellingOf(ctx_.module, d) + "\" here");
      return;
    }
    std::vector<std::pair<const Var*, ByteRange>> used;
    uses(b.value, used, &b, 0);
    for (auto& [u, at] : used) {
      Component first, second;
      if (!tie(var, u, first, second)) continue;
      ByteRange where = range(&b);
      if (alreadyReported(where)) return;
      auto d = diag::make(diag::Code::TVS204, where,
                          "two devices meet here: \"" + spellingOf(ctx_.module, first.device) + "\" and \"" +
                              spellingOf(ctx_.module, second.device) + "\"; RealizeVDevice lets one win silently");
      d.related.push_back(first.origin);
      d.related.push_back(second.origin);
      if (at.end > at.begin) {
        std::string t(ctx_.text.substr(at.begin, at.end - at.begin));
        std::string spell = spellingOf(ctx_.module, first.device);
        d.fixes.push_back({"Copy " + t + " to \"" + spell + "\" with R.to_vdevice", {{at, "R.to_vdevice(" + t + ", \"" + spell + "\")"}}, false});
      }
      out_.push_back(std::move(d));
      return;
    }
  }

  bool alreadyReported(ByteRange where) const {
    for (auto& d : reported_)
      if ((d.code == diag::Code::TVS203 || d.code == diag::Code::TVS214) && d.range.begin >= where.begin && d.range.end <= where.end) return true;
    return false;
  }

  const DeduceContext& ctx_;
  const std::vector<diag::Diagnostic>& reported_;
  std::vector<diag::Diagnostic>& out_;
  std::unordered_map<const void*, const void*> parent_;
  std::unordered_map<const void*, Component> comps_;
};

}  // namespace

bool isDeviceBoundary(const Call& c) {
  if (c.callee) return true;  // calls of other functions do not tie across the call
  if (c.def == &op::builtin::hintOnDevice() || c.def == &op::builtin::toVDevice()) return true;
  return c.def && c.def->deviceRule == op::DeviceRule::Written;
}

void checkPlacement(const DeduceContext& ctx, const Function& fn, const std::vector<diag::Diagnostic>& reported,
                    std::vector<diag::Diagnostic>& out) {
  Placement(ctx, reported, out).run(fn);
}

}  // namespace tvms::analysis
