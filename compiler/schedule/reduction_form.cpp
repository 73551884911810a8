#include "compiler/schedule/reduction_form.h"

#include <set>

#include "compiler/tir/rewrite.h"

namespace tvms::schedule {

using namespace tir;

ExprP combinedOperand(const Stmt& s) {
  const Expr& v = *s.value;
  return v.a->kind == Expr::Kind::Var && v.a->id == s.var ? v.b : v.a;
}

std::optional<BinOp> combinerOf(const Stmt& s) {
  const Expr* v = s.value.get();
  if (s.kind != Stmt::Kind::Assign || v->kind != Expr::Kind::Binary) return std::nullopt;
  if (v->binOp != BinOp::Add && v->binOp != BinOp::Mul && v->binOp != BinOp::Max && v->binOp != BinOp::Min) return std::nullopt;
  auto isAcc = [&](const ExprP& e) { return e->kind == Expr::Kind::Var && e->id == s.var; };
  std::set<int> others;
  variablesOf(combinedOperand(s), others);
  if (!(isAcc(v->a) || isAcc(v->b)) || others.count(s.var)) return std::nullopt;
  return v->binOp;
}

namespace {

bool collect(const std::vector<StmtP>& body, std::map<int, BinOp>& accumulators, std::set<int>& read) {
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::For) {
      if (!collect(s->body, accumulators, read)) return false;
      continue;
    }
    auto op = combinerOf(*s);
    if (!op) return false;
    auto [it, fresh] = accumulators.emplace(s->var, *op);
    if (!fresh && it->second != *op) return false;
    variablesOf(combinedOperand(*s), read);
  }
  return true;
}

}  // namespace

// The accumulators of a reduction loop's body, or false when something else is assigned there, or
// when one accumulator's update reads another (a running sum counted as it grows, as
// multinomial_from_uniform's: a scan, whose iterations cannot be dealt out).
bool reductionBody(const std::vector<StmtP>& body, std::map<int, BinOp>& accumulators) {
  std::set<int> read;
  if (!collect(body, accumulators, read)) return false;
  for (int v : read)
    if (accumulators.count(v)) return false;
  return true;
}

}  // namespace tvms::schedule
