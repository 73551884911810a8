// RealizeVDevice (LANGUAGE.md §7): known placements flooded over co-location ties, then every tensor
// variable rewritten onto its component's vdevice and every hint resolved.
#include <unordered_map>

#include "compiler/analysis/analysis.h"
#include "compiler/op/registry.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

// Union-find over variables; each component remembers the first device placed on it.
class Flood {
 public:
  Flood(const IRModule& m, std::vector<diag::Diagnostic>* conflicts) : m_(m), conflicts_(conflicts) {}

  void run(const Function& fn) {
    for (auto& p : fn.params) place(p.get(), placedOn(p->annotation.get()));
    if (!fn.body) return;
    seq(*fn.body);
    placeReturn(fn.body->body, fn.retAnnotation.get());
    // Inputs of hints that nothing placed take the hint's device (step 3), then everything floods again
    // (with union-find the flood is implicit: a component's device is its root's).
    for (auto& [input, device] : hintInputs_) place(input, device);
  }

  const VDevice* deviceOf(const Var* v) {
    auto it = device_.find(find(v));
    return it == device_.end() ? nullptr : it->second;
  }

 private:
  const Var* find(const Var* v) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v) return v;
    const Var* root = find(it->second);
    parent_[v] = root;
    return root;
  }
  void place(const Var* v, const VDevice* d) {
    if (!d) return;
    auto& slot = device_[find(v)];
    if (!slot) slot = d;
  }
  void tie(const Var* a, const Var* b) {
    const Var* ra = find(a);
    const Var* rb = find(b);
    if (ra == rb) return;
    const VDevice* da = device_.count(ra) ? device_[ra] : nullptr;
    const VDevice* db = device_.count(rb) ? device_[rb] : nullptr;
    parent_[rb] = ra;
    if (!da) device_[ra] = db;
    else if (db && db != da && conflicts_)
      conflicts_->push_back(diag::make(diag::Code::TVS204, {}, "two devices meet at '" + a->name + "': \"" +
                                                         analysis::spellingOf(m_, da) + "\" and \"" +
                                                         analysis::spellingOf(m_, db) + "\"; the first wins"));
  }
  void placeReturn(const ExprPtr& body, const StructInfo* ann) {
    if (!ann) return;
    if (auto* v = as<Var>(body)) {
      if (!placedOn(v->annotation.get())) place(v, placedOn(ann));
    } else if (auto* t = as<Tuple>(body); t && ann->kind == StructInfo::Kind::Tuple) {
      for (size_t i = 0; i < t->fields.size() && i < ann->fields.size(); ++i) placeReturn(t->fields[i], ann->fields[i].get());
    }
  }
  void uses(const Var* var, const ExprPtr& e) {
    if (!e) return;
    if (auto* v = as<Var>(e)) return tie(var, v);
    if (auto* c = as<Call>(e)) {
      if (analysis::isDeviceBoundary(*c)) return;
      for (auto& a : c->args) uses(var, a);
    } else if (auto* t = as<Tuple>(e)) {
      for (auto& f : t->fields) uses(var, f);
    } else if (auto* g = as<TupleGetItem>(e)) {
      uses(var, g->tuple);
    } else if (auto* i = as<If>(e)) {
      for (auto* br : {i->thenBranch.get(), i->elseBranch.get()})
        if (br) { seq(*br); uses(var, br->body); }
    }
  }
  void seq(const SeqExpr& s) {
    for (auto& blk : s.blocks)
      for (auto& b : blk->bindings) {
        if (b->vars.empty()) continue;
        const Var* var = b->vars[0].get();
        auto* c = as<Call>(b->value);
        bool hint = c && c->def == &op::builtin::hintOnDevice();
        for (auto& v : b->vars) {
          if (!hint) place(v.get(), placedOn(v->annotation.get()));  // a hint overrides what it was deduced as
          if (v.get() != var) tie(var, v.get());
        }
        if (hint) {
          const VDevice* d = m_.hintedEntry(*c);
          place(var, d);
          if (auto* input = c->args.empty() ? nullptr : as<Var>(c->args[0])) hintInputs_.push_back({input, d});
          continue;
        }
        uses(var, b->value);
      }
  }

  const IRModule& m_;
  std::vector<diag::Diagnostic>* conflicts_;
  std::unordered_map<const Var*, const Var*> parent_;
  std::unordered_map<const Var*, const VDevice*> device_;
  std::vector<std::pair<const Var*, const VDevice*>> hintInputs_;
};

class Realize : public Rewriter {
 public:
  Realize(const IRModule& m, Flood& flood) : m_(m), flood_(flood) {}

 protected:
  StructInfoPtr placed(const Var& v) {
    const VDevice* d = flood_.deviceOf(&v);
    return d ? fill(v.annotation, d) : v.annotation;
  }
  // Tensors (tuple fields too) that sit nowhere yet go onto d; placed ones keep their vdevice.
  StructInfoPtr fill(const StructInfoPtr& s, const VDevice* d) {
    if (!s) return s;
    if (s->kind == StructInfo::Kind::Tensor) return placedOn(s.get()) ? s : withVDevice(s, ref(d));
    if (s->kind != StructInfo::Kind::Tuple) return s;
    auto out = std::make_shared<StructInfo>(*s);
    for (auto& f : out->fields) f = fill(f, d);
    return out;
  }
  StructInfoPtr paramAnnotation(const Var& p) override { return placed(p); }
  StructInfoPtr bindingAnnotation(const Var& v, const Binding&) override { return placed(v); }

  void binding(const Binding& b, std::vector<BindingPtr>& out) override {
    auto* c = as<Call>(b.value);
    if (!c || c->def != &op::builtin::hintOnDevice() || c->args.empty()) return Rewriter::binding(b, out);
    const VDevice* want = m_.hintedEntry(*c);
    auto* input = as<Var>(c->args[0]);
    ExprPtr value = expr(c->args[0]);
    if (want && input && flood_.deviceOf(input) != want) {
      auto copy = std::make_shared<Call>();
      copy->def = &op::builtin::toVDevice();
      copy->op = copy->def->name;
      copy->args = {value};
      copy->attrs.push_back({"dst_vdevice", Value::ofVDevice(ref(want))});
      value = copy;
    }
    auto nb = copyBinding(b, value);
    if (want) nb->vars[0]->annotation = withVDevice(nb->vars[0]->annotation, ref(want));
    out.push_back(nb);
  }

  StructInfoPtr returnAnnotation(const Function& fn, const SeqExpr& body) override {
    StructInfoPtr fromBody = bodySInfo(body.body);
    return fromBody ? fromBody : fn.retAnnotation;
  }

 private:
  StructInfoPtr bodySInfo(const ExprPtr& e) {
    if (auto* v = as<Var>(e)) return v->annotation;
    if (auto* t = as<Tuple>(e)) {
      auto s = std::make_shared<StructInfo>();
      s->kind = StructInfo::Kind::Tuple;
      for (auto& f : t->fields) {
        StructInfoPtr fs = bodySInfo(f);
        if (!fs) return nullptr;
        s->fields.push_back(fs);
      }
      return s;
    }
    return nullptr;
  }
  std::shared_ptr<const VDeviceRef> ref(const VDevice* d) {
    auto r = std::make_shared<VDeviceRef>();
    for (auto& v : m_.vdevices)
      if (v.get() == d) r->device = v;
    r->spelling = analysis::spellingOf(m_, d);
    return r;
  }

  const IRModule& m_;
  Flood& flood_;
};

}  // namespace

IRModule realizeVDevice(const IRModule& m, std::vector<diag::Diagnostic>* conflicts) { return realizeVDevice(IRModule(m), conflicts); }

IRModule realizeVDevice(IRModule&& m, std::vector<diag::Diagnostic>* conflicts) {
  const IRModule before = signaturesOf(m);
  return mapFunctions(std::move(m), [&](const Function& fn) {
    Flood flood(before, conflicts);
    flood.run(fn);
    return Realize(before, flood).function(fn);
  });
}

}  // namespace tvms::transform
