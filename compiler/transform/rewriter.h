#pragma once
// Copying a function with its variables replaced: the tool every pass is written with. Passes never
// mutate their input (LANGUAGE.md §7): a Rewriter builds new Vars, Bindings and expressions, and
// shares what it does not change (struct info, constants, prim funcs).
#include <functional>
#include <unordered_map>

#include "compiler/ir/module.h"

namespace tvms::transform {

class Rewriter {
 public:
  virtual ~Rewriter() = default;

  // The copy of `fn` through the hooks below. Variables are local to a function, so the map of
  // replaced variables starts empty for each one: a pass rewriting a module in place frees each old
  // function as its copy comes, and a key left from it could name a new object at the same address.
  ir::FunctionPtr function(const ir::Function& fn);

  // A fresh definition standing for `old` (same name and kind), annotated with `annotation`.
  ir::VarPtr define(const ir::VarPtr& old, ir::StructInfoPtr annotation);
  // The replacement of a use of `v` (itself when it was not redefined).
  ir::ExprPtr use(const ir::VarPtr& v) const;

 protected:
  // Hooks. The defaults copy.
  virtual ir::StructInfoPtr paramAnnotation(const ir::Var& p) { return p.annotation; }
  // Rewrites one binding into zero or more bindings appended to `out` (the default copies it, with
  // `bindingAnnotation` on its variables).
  virtual void binding(const ir::Binding& b, std::vector<ir::BindingPtr>& out);
  virtual ir::StructInfoPtr bindingAnnotation(const ir::Var& v, const ir::Binding&) { return v.annotation; }
  virtual ir::ExprPtr call(const ir::Call& c);
  // The result expression of a sequence (a function's or a branch's body); `tail` is a block the
  // hook may append bindings to, placed after the sequence's own blocks when it is not empty.
  virtual ir::ExprPtr seqBody(const ir::ExprPtr& body, std::vector<ir::BindingPtr>& tail) {
    (void)tail;
    return expr(body);
  }
  virtual ir::StructInfoPtr returnAnnotation(const ir::Function& fn, const ir::SeqExpr& rewrittenBody) {
    (void)rewrittenBody;
    return fn.retAnnotation;
  }

  ir::ExprPtr expr(const ir::ExprPtr& e);
  ir::SeqExprPtr seq(const ir::SeqExpr& s);
  // The binding `b` with a new value and its variables defined anew through bindingAnnotation.
  ir::BindingPtr copyBinding(const ir::Binding& b, ir::ExprPtr value);

  std::unordered_map<const ir::Var*, ir::VarPtr> vars_;

 private:
  int functionDepth_ = 0;  // function() inside function() (a pass copying a nested function) keeps the map
};

// The struct info a variable is known by after Normalize: its annotation (every variable has one).
inline const ir::StructInfo* sinfoOf(const ir::ExprPtr& e) {
  auto* v = ir::as<ir::Var>(e);
  return v ? v->annotation.get() : nullptr;
}

// Calls f(var) for each variable an expression uses as a value: call operands, tuple fields, tuple
// items, an If's condition and its branches' results (not their bindings, not a call's callee).
template <typename F>
void forEachVarUse(const ir::ExprPtr& e, F&& f) {
  if (!e) return;
  if (auto* v = ir::as<ir::Var>(e)) return f(v);
  if (auto* c = ir::as<ir::Call>(e)) { for (auto& a : c->args) forEachVarUse(a, f); return; }
  if (auto* t = ir::as<ir::Tuple>(e)) { for (auto& x : t->fields) forEachVarUse(x, f); return; }
  if (auto* g = ir::as<ir::TupleGetItem>(e)) return forEachVarUse(g->tuple, f);
  if (auto* i = ir::as<ir::If>(e)) {
    forEachVarUse(i->cond, f);
    for (auto* br : {i->thenBranch.get(), i->elseBranch.get()})
      if (br) forEachVarUse(br->body, f);
  }
}

// Calls f(binding) for every binding of `fn`, those in the branches of an If before the If's own.
void forEachBinding(const ir::Function& fn, const std::function<void(const ir::Binding&)>& f);
// How many times each variable is used as a value in `fn` (forEachVarUse over every binding, the
// bindings of every If's branches included, and the function's result).
std::unordered_map<const ir::Var*, int> useCounts(const ir::Function& fn);

// A copy of `fn` with each binding (in every block, and in the branches of every If, innermost first)
// replaced by f(binding); variables are kept, so what is keyed by them stays true. f returns its
// argument to keep a binding.
ir::FunctionPtr mapBindings(const ir::Function& fn, const std::function<ir::BindingPtr(const ir::BindingPtr&)>& f);

// A copy of `m` with each Relax function replaced by f(function); prim funcs are shared.
ir::IRModule mapFunctions(const ir::IRModule& m, const std::function<ir::FunctionPtr(const ir::Function&)>& f);
// The same on a module it takes over, in place: each old function goes as its replacement comes (when
// nothing else holds it), so a large module is not held twice.
ir::IRModule mapFunctions(ir::IRModule&& m, const std::function<ir::FunctionPtr(const ir::Function&)>& f);

// What a pass rewriting `m` in place reads of the module while it works: the same vdevices, attributes
// and prim funcs, and each Relax function's signature (parameters, return annotation, attributes)
// without its body. The passes read other functions only through their signatures (a call's callee),
// so with this they see the module as it was before the pass, whichever functions are already
// rewritten, and the old bodies can go one by one.
ir::IRModule signaturesOf(const ir::IRModule& m);

}  // namespace tvms::transform
