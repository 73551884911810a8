#include "compiler/tir/rewrite.h"

#include <unordered_map>

namespace tvms::tir {

namespace {

// One rewrite of a tree of expressions that shares subexpressions (an op builder's GEMM reuses its
// index expressions: 892 statements, 303,157 nodes walked, 6,850 distinct). Each distinct node is
// rewritten once and its result shared wherever it was, so the rewrite has as many nodes as the
// input. Rewriting by walk instead made a tree of every path: one fusion dry run of a GEMM with a
// prologue grew the process by 14 MiB (a 1 MB module's `tvms build` 52 MiB, 1.3x the rest of it).
// A node held once cannot be reached twice (its one holder is rewritten once), so only nodes held
// more than once are remembered. `f` must depend on its node alone, as every caller's does.
class SharingRewrite {
 public:
  explicit SharingRewrite(const std::function<ExprP(const ExprP&)>& f) : f_(f) {}

  ExprP expr(const ExprP& e) {
    if (!e) return e;
    const bool shared = e.use_count() > 1;
    if (shared)
      if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    ExprP a = expr(e->a), b = expr(e->b), c = expr(e->c);
    ExprP out;
    if (a == e->a && b == e->b && c == e->c) {
      out = f_(e);
    } else {
      auto copy = std::make_shared<Expr>(*e);
      copy->a = a;
      copy->b = b;
      copy->c = c;
      out = f_(copy);
    }
    if (shared) done_.emplace(e.get(), out);
    return out;
  }

  StmtP stmt(const StmtP& s, const std::function<void(Stmt&)>& fields) {
    auto copy = std::make_shared<Stmt>(*s);
    if (fields) fields(*copy);
    copy->extent = expr(s->extent);
    copy->index = expr(s->index);
    copy->value = expr(s->value);
    copy->cond = expr(s->cond);
    copy->body = stmts(s->body, fields);
    return copy;
  }

  std::vector<StmtP> stmts(const std::vector<StmtP>& body, const std::function<void(Stmt&)>& fields) {
    std::vector<StmtP> out;
    out.reserve(body.size());
    for (auto& s : body) out.push_back(stmt(s, fields));
    return out;
  }

 private:
  const std::function<ExprP(const ExprP&)>& f_;
  // Keyed by the input node, which the input tree keeps alive for the rewrite's length.
  std::unordered_map<const Expr*, ExprP> done_;
};

}  // namespace

ExprP mapExpr(const ExprP& e, const std::function<ExprP(const ExprP&)>& f) { return SharingRewrite(f).expr(e); }

StmtP mapStmt(const StmtP& s, const std::function<ExprP(const ExprP&)>& f, const std::function<void(Stmt&)>& fields) {
  return SharingRewrite(f).stmt(s, fields);
}

std::vector<StmtP> mapStmts(const std::vector<StmtP>& body, const std::function<ExprP(const ExprP&)>& f, const std::function<void(Stmt&)>& fields) {
  return SharingRewrite(f).stmts(body, fields);
}

namespace {

std::function<ExprP(const ExprP&)> replacing(const std::map<int, ExprP>& with) {
  return [&with](const ExprP& e) {
    if (e->kind != Expr::Kind::Var) return e;
    auto it = with.find(e->id);
    return it == with.end() ? e : it->second;
  };
}

}  // namespace

ExprP substitute(const ExprP& e, const std::map<int, ExprP>& with) { return mapExpr(e, replacing(with)); }

StmtP substitute(const StmtP& s, const std::map<int, ExprP>& with) { return mapStmt(s, replacing(with)); }

std::map<int, ExprP> rowMajorIndex(const std::vector<int>& vars, const std::vector<ExprP>& extents, ExprP flat) {
  std::map<int, ExprP> index;
  for (size_t i = vars.size(); i-- > 0;) {
    index[vars[i]] = i == 0 ? flat : floormod(flat, extents[i]);
    flat = floordiv(flat, extents[i]);
  }
  return index;
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

namespace tvms::tir {

void orderParamsFirst(Kernel& k) {
  std::vector<int> order;  // new position -> old index
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < k.buffers.size(); ++i)
      if (k.buffers[i].param == (pass == 0)) order.push_back(static_cast<int>(i));
  std::vector<int> newIndex(k.buffers.size());
  bool moved = false;
  for (size_t i = 0; i < order.size(); ++i) {
    newIndex[static_cast<size_t>(order[i])] = static_cast<int>(i);
    moved |= order[i] != static_cast<int>(i);
  }
  if (!moved) return;
  std::vector<Buffer> buffers;
  for (int old : order) buffers.push_back(k.buffers[static_cast<size_t>(old)]);
  k.buffers = std::move(buffers);
  auto renumber = [&](const ExprP& e) -> ExprP {
    if (e->kind != Expr::Kind::Load) return e;
    auto copy = std::make_shared<Expr>(*e);
    copy->id = newIndex[static_cast<size_t>(e->id)];
    return copy;
  };
  k.body = mapStmts(k.body, renumber, [&](Stmt& s) {
    if (s.kind == Stmt::Kind::Store) s.buffer = newIndex[static_cast<size_t>(s.buffer)];
  });
  for (auto& p : k.signature)
    if (!p.scalar) p.index = newIndex[static_cast<size_t>(p.index)];
  for (auto& w : k.workspaces) w.buffer = newIndex[static_cast<size_t>(w.buffer)];
}

}  // namespace tvms::tir
