#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

VarPtr Rewriter::define(const VarPtr& old, StructInfoPtr annotation) {
  auto v = std::make_shared<Var>(old->name, std::move(annotation), old->isDataflow);
  vars_[old.get()] = v;
  return v;
}

ExprPtr Rewriter::use(const VarPtr& v) const {
  auto it = vars_.find(v.get());
  return it == vars_.end() ? v : it->second;
}

ExprPtr Rewriter::expr(const ExprPtr& e) {
  if (!e) return e;
  switch (e->kind) {
    case Expr::Kind::Var: return use(std::static_pointer_cast<Var>(e));
    case Expr::Kind::Call: return call(*as<Call>(e));
    case Expr::Kind::Tuple: {
      std::vector<ExprPtr> fields;
      for (auto& f : as<Tuple>(e)->fields) fields.push_back(expr(f));
      return std::make_shared<Tuple>(std::move(fields));
    }
    case Expr::Kind::TupleGetItem: {
      auto* g = as<TupleGetItem>(e);
      return std::make_shared<TupleGetItem>(expr(g->tuple), g->index);
    }
    case Expr::Kind::If: {
      auto* i = as<If>(e);
      auto out = std::make_shared<If>();
      out->cond = expr(i->cond);
      if (i->thenBranch) out->thenBranch = seq(*i->thenBranch);
      if (i->elseBranch) out->elseBranch = seq(*i->elseBranch);
      return out;
    }
    case Expr::Kind::SeqExpr: return seq(*std::static_pointer_cast<SeqExpr>(e));
    default: return e;  // leaves: constants, prim values, strings, shapes, global vars
  }
}

ExprPtr Rewriter::call(const Call& c) {
  auto out = std::make_shared<Call>(c);
  out->callee = expr(c.callee);
  for (auto& a : out->args) a = expr(a);
  return out;
}

BindingPtr Rewriter::copyBinding(const Binding& b, ExprPtr value) {
  auto nb = std::make_shared<Binding>(b);
  nb->value = std::move(value);
  nb->vars.clear();
  for (auto& v : b.vars) nb->vars.push_back(define(v, bindingAnnotation(*v, b)));
  return nb;
}

void Rewriter::binding(const Binding& b, std::vector<BindingPtr>& out) { out.push_back(copyBinding(b, expr(b.value))); }

SeqExprPtr Rewriter::seq(const SeqExpr& s) {
  auto out = std::make_shared<SeqExpr>();
  for (auto& blk : s.blocks) {
    auto nb = std::make_shared<BindingBlock>();
    nb->dataflow = blk->dataflow;
    for (auto& b : blk->bindings) binding(*b, nb->bindings);
    out->blocks.push_back(std::move(nb));
  }
  auto tail = std::make_shared<BindingBlock>();
  out->body = seqBody(s.body, tail->bindings);
  if (!tail->bindings.empty()) out->blocks.push_back(std::move(tail));
  return out;
}

FunctionPtr Rewriter::function(const Function& fn) {
  if (functionDepth_ == 0) vars_.clear();
  ++functionDepth_;
  auto out = std::make_shared<Function>(fn);
  out->params.clear();
  for (auto& p : fn.params) out->params.push_back(define(p, paramAnnotation(*p)));
  if (fn.body) out->body = seq(*fn.body);
  if (out->body) out->retAnnotation = returnAnnotation(fn, *out->body);
  --functionDepth_;
  return out;
}

IRModule mapFunctions(const IRModule& m, const std::function<FunctionPtr(const Function&)>& f) { return mapFunctions(IRModule(m), f); }

IRModule mapFunctions(IRModule&& m, const std::function<FunctionPtr(const Function&)>& f) {
  IRModule out = std::move(m);
  for (auto& mf : out.functions)
    if (mf.relax) mf.relax = f(*mf.relax);
  return out;
}

IRModule signaturesOf(const IRModule& m) {
  IRModule out = m;
  for (auto& mf : out.functions)
    if (mf.relax) {
      auto signature = std::make_shared<Function>(*mf.relax);
      signature->body = nullptr;
      mf.relax = std::move(signature);
    }
  return out;
}

namespace {

SeqExprPtr mapSeq(const SeqExpr& s, const std::function<BindingPtr(const BindingPtr&)>& f) {
  auto out = std::make_shared<SeqExpr>(s);
  for (auto& blk : out->blocks) {
    auto copy = std::make_shared<BindingBlock>(*blk);
    for (auto& b : copy->bindings) {
      if (auto* branch = as<If>(b->value)) {
        auto inner = std::make_shared<Binding>(*b);
        auto mapped = std::make_shared<If>(*branch);
        if (branch->thenBranch) mapped->thenBranch = mapSeq(*branch->thenBranch, f);
        if (branch->elseBranch) mapped->elseBranch = mapSeq(*branch->elseBranch, f);
        inner->value = mapped;
        b = inner;
      }
      b = f(b);
    }
    blk = copy;
  }
  return out;
}

}  // namespace

namespace {

void forEachBindingIn(const SeqExpr& s, const std::function<void(const Binding&)>& f) {
  for (auto& blk : s.blocks)
    for (auto& b : blk->bindings) {
      if (auto* i = as<If>(b->value))
        for (auto* br : {i->thenBranch.get(), i->elseBranch.get()})
          if (br) forEachBindingIn(*br, f);
      f(*b);
    }
}

}  // namespace

void forEachBinding(const Function& fn, const std::function<void(const Binding&)>& f) {
  if (fn.body) forEachBindingIn(*fn.body, f);
}

std::unordered_map<const Var*, int> useCounts(const Function& fn) {
  std::unordered_map<const Var*, int> uses;
  auto count = [&](const Var* v) { ++uses[v]; };
  forEachBinding(fn, [&](const Binding& b) { forEachVarUse(b.value, count); });  // an If's value holds its branches' results
  if (fn.body) forEachVarUse(fn.body->body, count);
  return uses;
}

FunctionPtr mapBindings(const Function& fn, const std::function<BindingPtr(const BindingPtr&)>& f) {
  auto copy = std::make_shared<Function>(fn);
  if (fn.body) copy->body = mapSeq(*fn.body, f);
  return copy;
}

}  // namespace tvms::transform
