// Normalize: every op operand becomes a variable or a constant (nested calls get their own bindings,
// as TVM's BlockBuilder does), then every variable is annotated with its deduced struct info, so the
// passes after it read struct info off the variables.
#include <unordered_set>

#include "compiler/analysis/analysis.h"
#include "compiler/ir/struct_info_intern.h"
#include "compiler/op/registry.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

// Step 1: nested calls and tuple items (and tuples of them) in operand position become bindings before their use.
class Flatten : public Rewriter {
 public:
  explicit Flatten(const Function& fn) {
    for (auto& p : fn.params) taken_.insert(p->name);
    collect(fn.body.get());
  }

 protected:
  void binding(const Binding& b, std::vector<BindingPtr>& out) override {
    bool dataflow = false;
    for (auto& v : b.vars) dataflow = dataflow || v->isDataflow;
    bindingInto(out, dataflow, [&] {
      ExprPtr value = b.value;
      if (auto* c = as<Call>(value)) value = flatCall(*c);
      else value = expr(value);
      out.push_back(copyBinding(b, value));
      return nullptr;
    });
  }

  // `return R.add(x, y)`: the call gets a binding of its own after the sequence's blocks, as TVM's
  // normalizer gives it one, so the body is a variable (or a tuple of them).
  ExprPtr seqBody(const ExprPtr& body, std::vector<BindingPtr>& tail) override {
    return bindingInto(tail, false, [&] { return operand(body); });
  }

 private:
  // Runs f with new bindings going to `out` (an If's branches are bindings of their own, so the outer
  // destination is restored after).
  template <typename F>
  ExprPtr bindingInto(std::vector<BindingPtr>& out, bool dataflow, F&& f) {
    auto* outerOut = out_;
    bool outerDataflow = dataflow_;
    out_ = &out;
    dataflow_ = dataflow;
    ExprPtr result = f();
    out_ = outerOut;
    dataflow_ = outerDataflow;
    return result;
  }

  ExprPtr flatCall(const Call& c) {
    auto out = std::make_shared<Call>(c);
    out->callee = expr(c.callee);
    for (auto& a : out->args) a = operand(a);
    // call_tir_with_grad names its gradient for TVM's Gradient pass; what it computes is call_tir's.
    if (out->def == &op::builtin::callTirWithGrad()) {
      out->def = &op::builtin::callTir();
      out->op = out->def->name;
      std::erase_if(out->attrs, [](const CallAttr& a) { return a.name == "te_grad_name" || a.name == "te_grad_kwargs"; });
    }
    return out;
  }
  ExprPtr operand(const ExprPtr& a) {
    if (auto* c = as<Call>(a)) return bindFresh(flatCall(*c));
    if (as<TupleGetItem>(a)) return bindFresh(expr(a));  // parts[1] as an operand gets a variable, as in TVM
    if (auto* t = as<Tuple>(a)) {
      std::vector<ExprPtr> fields;
      for (auto& f : t->fields) fields.push_back(operand(f));
      return std::make_shared<Tuple>(std::move(fields));
    }
    return expr(a);
  }
  ExprPtr bindFresh(ExprPtr value) {
    std::string name;
    do name = counter_ == 0 ? "lv" : "lv" + std::to_string(counter_); while (++counter_, taken_.count(name));
    taken_.insert(name);
    auto b = std::make_shared<Binding>();
    auto v = std::make_shared<Var>(name, nullptr, dataflow_);
    b->vars.push_back(v);
    b->value = std::move(value);
    out_->push_back(b);
    return v;
  }
  void collect(const SeqExpr* s) {
    if (!s) return;
    for (auto& blk : s->blocks)
      for (auto& b : blk->bindings) {
        for (auto& v : b->vars) taken_.insert(v->name);
        if (auto* i = as<If>(b->value)) { collect(i->thenBranch.get()); collect(i->elseBranch.get()); }
      }
  }
  std::unordered_set<std::string> taken_;
  int counter_ = 0;
  std::vector<BindingPtr>* out_ = nullptr;
  bool dataflow_ = false;
};

// Step 2: every variable annotated with what deduction found (its written annotation where deduction
// knows nothing more).
// Equal struct infos become one object (`shared`, the module's): the passes after hold them all.
class Annotate : public Rewriter {
 public:
  Annotate(const analysis::FunctionAnalysis& fa, StructInfoInterner& shared) : fa_(fa), shared_(shared) {}

 protected:
  StructInfoPtr known(const Var& v) {
    auto it = fa_.vars.find(&v);
    if (it != fa_.vars.end() && it->second.sinfo) return shared_.intern(it->second.sinfo);
    return v.annotation ? shared_.intern(v.annotation) : objectSInfo();
  }
  StructInfoPtr paramAnnotation(const Var& p) override { return p.annotation ? shared_.intern(p.annotation) : objectSInfo(); }
  StructInfoPtr bindingAnnotation(const Var& v, const Binding&) override { return known(v); }
  StructInfoPtr returnAnnotation(const Function& fn, const SeqExpr&) override {
    return shared_.intern(fn.retAnnotation ? fn.retAnnotation : fa_.ret);
  }

 private:
  const analysis::FunctionAnalysis& fa_;
  StructInfoInterner& shared_;
};

}  // namespace

IRModule normalize(const IRModule& m) { return normalize(IRModule(m)); }

IRModule normalize(IRModule&& m) {
  // Flattened and annotated in place, so a large module is not held twice. Annotating reads the
  // other functions' signatures (calls between functions) as flattening left them.
  IRModule flat = mapFunctions(std::move(m), [](const Function& fn) { return Flatten(fn).function(fn); });
  const IRModule before = signaturesOf(flat);
  StructInfoInterner shared;
  return mapFunctions(std::move(flat), [&](const Function& fn) {
    auto fa = analysis::deduceWithoutSource(before, fn);
    return Annotate(*fa, shared).function(fn);
  });
}

}  // namespace tvms::transform
