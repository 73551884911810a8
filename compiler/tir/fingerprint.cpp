// tir::fingerprint: a kernel serialised field by field (ids, not names, for variables and buffers,
// so two variables that print alike stay apart), for content-keyed caches of compiled code and for
// LegalizeOps's one kernel per distinct loop nest.
#include <cstring>
#include <unordered_map>

#include "compiler/tir/loop_ir.h"

namespace tvms::tir {

namespace {

struct Writer {
  std::string out;
  // A scheduled kernel's expressions are a DAG (a CPU GEMM's 6,850 distinct nodes are 303,157 as a
  // tree): each node is written once, and again as `#id` where it recurs, so the text stays the size
  // of the DAG. Equal texts still mean equal trees.
  std::unordered_map<const Expr*, int64_t> written;
  void num(int64_t v) {
    out += std::to_string(v);
    out += ',';
  }
  void text(const std::string& s) {
    num(static_cast<int64_t>(s.size()));
    out += s;
  }
  void expr(const ExprP& e) {
    if (!e) {
      out += '_';
      return;
    }
    auto [at, first] = written.try_emplace(e.get(), static_cast<int64_t>(written.size()));
    if (!first) {
      out += '#';
      num(at->second);
      return;
    }
    out += '(';
    num(static_cast<int>(e->kind));
    num(static_cast<int>(e->type));
    switch (e->kind) {
      case Expr::Kind::Int: num(e->intValue); break;
      case Expr::Kind::Float: {
        int64_t bits;
        std::memcpy(&bits, &e->floatValue, sizeof bits);
        num(bits);
        break;
      }
      case Expr::Kind::Var:
      case Expr::Kind::Load: num(e->id); break;
      case Expr::Kind::Binary: num(static_cast<int>(e->binOp)); break;
      case Expr::Kind::Unary: num(static_cast<int>(e->unOp)); break;
      default: break;
    }
    expr(e->a);
    expr(e->b);
    expr(e->c);
    out += ')';
  }
  void stmt(const StmtP& s) {
    out += '{';
    num(static_cast<int>(s->kind));
    num(s->var);
    expr(s->extent);
    num(static_cast<int>(s->iter));
    num(static_cast<int>(s->forKind));
    text(s->threadTag);
    num(s->keepScalar);
    num(s->buffer);
    num(s->atomicAdd);
    expr(s->index);
    expr(s->value);
    expr(s->cond);
    num(static_cast<int>(s->combiner));
    for (auto& b : s->body) stmt(b);
    out += '}';
  }
};

}  // namespace

std::string fingerprint(const Kernel& k, bool withName) {
  Writer w;
  w.text(withName ? k.name : std::string());
  w.text(k.target.key());
  for (auto& b : k.buffers) {
    w.out += 'B';
    w.text(b.name);
    w.num(static_cast<int>(b.type));
    w.num(b.param);
    w.num(b.localSize);
    w.num(static_cast<int>(b.scope));
    for (auto& d : b.shape) w.text(d);
  }
  for (auto& v : k.vars) {
    w.out += 'V';
    w.text(v.name);
    w.num(static_cast<int>(v.type));
    w.num(static_cast<int>(v.role));
    w.num(v.dimIndex);
  }
  for (auto& ws : k.workspaces) {
    w.out += 'W';
    w.num(ws.buffer);
    w.expr(ws.elements);
  }
  for (auto& d : k.dims) {
    w.out += 'D';
    w.text(d);
  }
  for (auto& s : k.body) w.stmt(s);
  return std::move(w.out);
}

}  // namespace tvms::tir
