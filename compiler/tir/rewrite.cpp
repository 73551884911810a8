#include "compiler/tir/rewrite.h"

namespace tvms::tir {

ExprP substitute(const ExprP& e, const std::map<int, ExprP>& with) {
  if (!e) return e;
  if (e->kind == Expr::Kind::Var) {
    auto it = with.find(e->id);
    return it == with.end() ? e : it->second;
  }
  ExprP a = substitute(e->a, with), b = substitute(e->b, with), c = substitute(e->c, with);
  if (a == e->a && b == e->b && c == e->c) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->a = a;
  copy->b = b;
  copy->c = c;
  return copy;
}

StmtP substitute(const StmtP& s, const std::map<int, ExprP>& with) {
  auto copy = std::make_shared<Stmt>(*s);
  copy->extent = substitute(s->extent, with);
  copy->index = substitute(s->index, with);
  copy->value = substitute(s->value, with);
  copy->cond = substitute(s->cond, with);
  for (auto& b : copy->body) b = substitute(b, with);
  return copy;
}

void variablesOf(const ExprP& e, std::set<int>& out) {
  if (!e) return;
  if (e->kind == Expr::Kind::Var) out.insert(e->id);
  variablesOf(e->a, out);
  variablesOf(e->b, out);
  variablesOf(e->c, out);
}

bool readsLoopVariable(const Kernel& k, const ExprP& e) {
  std::set<int> vars;
  variablesOf(e, vars);
  for (int v : vars)
    if (k.vars[static_cast<size_t>(v)].role == Variable::Role::Loop) return true;
  return false;
}

int newLoopVar(Kernel& k, std::string name) {
  k.vars.push_back({std::move(name), ScalarType::I64, Variable::Role::Loop, -1});
  return static_cast<int>(k.vars.size()) - 1;
}

ExprP varRef(const Kernel& k, int id) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Var;
  e->id = id;
  e->type = k.vars[static_cast<size_t>(id)].type;
  return e;
}

ExprP loadRef(const Kernel& k, int buffer, ExprP index) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Load;
  e->id = buffer;
  e->type = k.buffers[static_cast<size_t>(buffer)].type;
  e->a = std::move(index);
  return e;
}

// The coefficient of loop variable `v` in an index expression, when the index is linear in it.
std::optional<int64_t> strideOf(const ExprP& e, int v) {
  switch (e->kind) {
    case Expr::Kind::Int: return 0;
    case Expr::Kind::Var: return e->id == v ? 1 : 0;
    case Expr::Kind::Binary: {
      auto a = strideOf(e->a, v), b = strideOf(e->b, v);
      if (!a || !b) return std::nullopt;
      if (e->binOp == BinOp::Add) return *a + *b;
      if (e->binOp == BinOp::Sub) return *a - *b;
      if (e->binOp == BinOp::Mul) {
        if (*a == 0 && *b == 0) return 0;
        if (*a == 0 && e->a->kind == Expr::Kind::Int) return e->a->intValue * *b;
        if (*b == 0 && e->b->kind == Expr::Kind::Int) return *a * e->b->intValue;
        return std::nullopt;
      }
      if (*a == 0 && *b == 0) return 0;  // floordiv / min / ... of expressions free of v
      return std::nullopt;
    }
    case Expr::Kind::Load: return strideOf(e->a, v) == std::optional<int64_t>(0) ? std::optional<int64_t>(0) : std::nullopt;
    default: {
      for (const ExprP* c : {&e->a, &e->b, &e->c})
        if (*c && strideOf(*c, v) != std::optional<int64_t>(0)) return std::nullopt;
      return 0;
    }
  }
}

bool containsLoop(const std::vector<StmtP>& body) {
  for (auto& s : body)
    if (s->kind == Stmt::Kind::For || containsLoop(s->body)) return true;
  return false;
}

}  // namespace tvms::tir
