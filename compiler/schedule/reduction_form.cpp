#include "compiler/schedule/reduction_form.h"

#include <set>

#include "compiler/tir/rewrite.h"

namespace tvms::schedule {

using namespace tir;

std::optional<BinOp> combinerOf(const Stmt& s) {
  const Expr* v = s.value.get();
  if (s.kind != Stmt::Kind::Assign || v->kind != Expr::Kind::Binary) return std::nullopt;
  if (v->binOp != BinOp::Add && v->binOp != BinOp::Mul && v->binOp != BinOp::Max && v->binOp != BinOp::Min) return std::nullopt;
  auto isAcc = [&](const ExprP& e) { return e->kind == Expr::Kind::Var && e->id == s.var; };
  std::set<int> others;
  variablesOf(isAcc(v->a) ? v->b : v->a, others);
  if (!(isAcc(v->a) || isAcc(v->b)) || others.count(s.var)) return std::nullopt;
  return v->binOp;
}

// The accumulators of a reduction loop's body, or false when something else is assigned there.
bool reductionBody(const std::vector<StmtP>& body, std::map<int, BinOp>& accumulators) {
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::For) {
      if (!reductionBody(s->body, accumulators)) return false;
      continue;
    }
    auto op = combinerOf(*s);
    if (!op) return false;
    auto [it, fresh] = accumulators.emplace(s->var, *op);
    if (!fresh && it->second != *op) return false;
  }
  return true;
}

}  // namespace tvms::schedule
