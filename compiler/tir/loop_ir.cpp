#include "compiler/tir/loop_ir.h"

#include <cmath>
#include <limits>

#include <algorithm>

#include <cctype>
#include <sstream>

namespace tvms::tir {

std::optional<ScalarType> scalarTypeOf(std::string_view d) {
  return runtime::dtypeFromName(d);
}

std::string_view opName(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "mod";
    case BinOp::FloorDiv: return "floordiv";
    case BinOp::FloorMod: return "floormod";
    case BinOp::Min: return "min";
    case BinOp::Max: return "max";
    case BinOp::Pow: return "pow";
    case BinOp::Atan2: return "atan2";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::And: return "and";
    case BinOp::Or: return "or";
    case BinOp::Xor: return "xor";
    case BinOp::Shl: return "<<";
    case BinOp::Shr: return ">>";
  }
  return "?";
}

std::string_view opName(UnOp op) {
  static constexpr std::string_view names[] = {"neg", "not", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf",
                                               "floor", "ceil", "round", "trunc", "sin", "cos", "tan", "asin", "acos", "atan",
                                               "sinh", "cosh", "asinh", "acosh", "atanh"};
  return names[static_cast<int>(op)];
}

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq || op == BinOp::Ne;
}

std::string_view forKindName(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "serial";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unroll";
    case ForKind::ThreadBinding: return "thread_binding";
  }
  return "?";
}

std::string_view scopeName(MemoryScope s) {
  switch (s) {
    case MemoryScope::Global: return "global";
    case MemoryScope::Shared: return "shared";
    case MemoryScope::Local: return "local";
  }
  return "?";
}

bool isFloat(ScalarType t) { return runtime::isFloatDType(t); }

size_t Kernel::paramCount() const {
  size_t n = 0;
  for (auto& b : buffers) n += b.param;
  return n;
}

int KernelBuilder::param(std::string name, ScalarType t, std::vector<std::string> shape) {
  k_.buffers.push_back({std::move(name), t, true, 0, std::move(shape)});
  return static_cast<int>(k_.buffers.size()) - 1;
}
int KernelBuilder::localArray(std::string name, ScalarType t, int64_t size, MemoryScope scope) {
  k_.buffers.push_back({std::move(name), t, false, size, {}, scope});
  return static_cast<int>(k_.buffers.size()) - 1;
}
int KernelBuilder::workspace(std::string name, ScalarType t, ExprP elements) {
  k_.buffers.push_back({std::move(name), t, true, 0, {}});
  int b = static_cast<int>(k_.buffers.size()) - 1;
  k_.workspaces.push_back({b, std::move(elements)});
  return b;
}
ExprP KernelBuilder::dim(const std::string& name) {
  for (size_t i = 0; i < k_.vars.size(); ++i)
    if (k_.vars[i].role == Variable::Role::Dim && k_.vars[i].name == name) return var(static_cast<int>(i));
  k_.vars.push_back({name, ScalarType::I64, Variable::Role::Dim, static_cast<int>(k_.dims.size())});
  k_.dims.push_back(name);
  return var(static_cast<int>(k_.vars.size()) - 1);
}
int KernelBuilder::loopVar(std::string name) {
  k_.vars.push_back({std::move(name), ScalarType::I64, Variable::Role::Loop, -1});
  return static_cast<int>(k_.vars.size()) - 1;
}
int KernelBuilder::local(std::string name, ScalarType t) {
  k_.vars.push_back({std::move(name), t, Variable::Role::Local, -1});
  return static_cast<int>(k_.vars.size()) - 1;
}
ExprP KernelBuilder::var(int id) const {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Var;
  e->id = id;
  e->type = k_.vars[id].type;
  return e;
}
ExprP KernelBuilder::load(int buffer, ExprP index) const {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Load;
  e->id = buffer;
  e->type = k_.buffers[buffer].type;
  e->a = std::move(index);
  return e;
}

ExprP intImm(int64_t v) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Int;
  e->intValue = v;
  return e;
}
ExprP floatImm(double v, ScalarType t) {
  auto e = std::make_shared<Expr>();
  e->kind = isFloat(t) ? Expr::Kind::Float : Expr::Kind::Int;
  e->type = t;
  e->floatValue = v;
  // An integer immediate of a float value saturates (a reduction's -inf start on an integer type is
  // the type's lowest value; converting an out-of-range double is undefined behaviour); NaN is 0.
  if (std::isnan(v)) e->intValue = 0;
  else if (v <= -9223372036854775808.0) e->intValue = std::numeric_limits<int64_t>::min();
  else if (v >= 9223372036854775808.0) e->intValue = std::numeric_limits<int64_t>::max();
  else e->intValue = static_cast<int64_t>(v);
  return e;
}
ExprP binary(BinOp op, ExprP a, ExprP b) {
  // Integer constants fold (shape arithmetic is mostly static).
  if (a->kind == Expr::Kind::Int && b->kind == Expr::Kind::Int && a->type == ScalarType::I64 && b->type == ScalarType::I64) {
    int64_t x = a->intValue, y = b->intValue;
    if (op == BinOp::Add) return intImm(x + y);
    if (op == BinOp::Mul) return intImm(x * y);
    if (op == BinOp::Sub) return intImm(x - y);
    if (op == BinOp::Min) return intImm(std::min(x, y));
    if (op == BinOp::Max) return intImm(std::max(x, y));
    if (op == BinOp::FloorDiv && y > 0) return intImm(x >= 0 ? x / y : -((-x + y - 1) / y));
  }
  if (a->kind == Expr::Kind::Int && a->type == ScalarType::I64) {
    if (op == BinOp::Mul && a->intValue == 1) return b;
    if (op == BinOp::Add && a->intValue == 0) return b;
    if (op == BinOp::Mul && a->intValue == 0) return a;
  }
  if (b->kind == Expr::Kind::Int && b->type == ScalarType::I64) {
    if ((op == BinOp::Mul || op == BinOp::FloorDiv) && b->intValue == 1) return a;
    if ((op == BinOp::Add || op == BinOp::Sub) && b->intValue == 0) return a;
  }
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Binary;
  e->type = isComparison(op) ? ScalarType::Bool : a->type;
  e->binOp = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}
ExprP unary(UnOp op, ExprP a) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Unary;
  e->type = op == UnOp::Not && a->type == ScalarType::Bool ? ScalarType::Bool : a->type;
  e->unOp = op;
  e->a = std::move(a);
  return e;
}
ExprP select(ExprP cond, ExprP a, ExprP b) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Select;
  e->type = a->type;
  e->a = std::move(cond);
  e->b = std::move(a);
  e->c = std::move(b);
  return e;
}
namespace {
// A conversion of `a` to type t: its value (Cast) or its bits (Reinterpret).
ExprP conversion(Expr::Kind kind, ScalarType t, ExprP a) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = t;
  e->a = std::move(a);
  return e;
}
}  // namespace
ExprP cast(ScalarType t, ExprP a) { return a->type == t ? a : conversion(Expr::Kind::Cast, t, std::move(a)); }
ExprP reinterpret(ScalarType t, ExprP a) { return conversion(Expr::Kind::Reinterpret, t, std::move(a)); }

StmtP forLoop(int var, ExprP extent, std::vector<StmtP> body, bool spatial) {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::For;
  s->var = var;
  s->extent = std::move(extent);
  s->iter = spatial ? IterType::Spatial : IterType::Reduction;
  s->body = std::move(body);
  return s;
}
StmtP tileLoop(int var, ExprP extent, std::vector<StmtP> body) {
  auto s = std::make_shared<Stmt>(*forLoop(var, std::move(extent), std::move(body)));
  s->keepScalar = true;
  return s;
}

StmtP store(int buffer, ExprP index, ExprP value) {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::Store;
  s->buffer = buffer;
  s->index = std::move(index);
  s->value = std::move(value);
  return s;
}
StmtP atomicAddTo(int buffer, ExprP index, ExprP value) {
  auto s = std::make_shared<Stmt>(*store(buffer, std::move(index), std::move(value)));
  s->atomicAdd = true;
  return s;
}
StmtP assign(int local, ExprP value) {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::Assign;
  s->var = local;
  s->value = std::move(value);
  return s;
}
namespace {
// A body under a condition: run once where it holds (If) or again while it holds (While).
StmtP conditional(Stmt::Kind kind, ExprP cond, std::vector<StmtP> body) {
  auto s = std::make_shared<Stmt>();
  s->kind = kind;
  s->cond = std::move(cond);
  s->body = std::move(body);
  return s;
}
}  // namespace
StmtP ifThen(ExprP cond, std::vector<StmtP> body) { return conditional(Stmt::Kind::If, std::move(cond), std::move(body)); }
StmtP whileLoop(ExprP cond, std::vector<StmtP> body) { return conditional(Stmt::Kind::While, std::move(cond), std::move(body)); }
StmtP warpReduce(int local, BinOp combiner) {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::WarpReduce;
  s->var = local;
  s->combiner = combiner;
  return s;
}
StmtP barrier() {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::Barrier;
  return s;
}
StmtP seq(std::vector<StmtP> body) {
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Kind::Seq;
  s->body = std::move(body);
  return s;
}

namespace {
// Prints a kernel as TIR text that the TIR reader (compiler/frontend/lower_tir.cpp) reads back to the
// same loop IR: parameters are indexed through flat views (`A_flat = T.Buffer((n,), data=A.data)`,
// as TVM's FlattenBuffer writes; the kernel's indices are flat), symbolic dims are declared
// (`n = T.int64()`), a register tile's reduction loop carries its mark as an annotation, and
// operators are spelled as Python and TVMScript take them.
struct Printer {
  const Kernel& k;
  std::vector<std::string> lines;
  std::vector<std::string> names = bufferNames(k);  // the name each buffer is indexed by

  static std::vector<std::string> bufferNames(const Kernel& k) {
    std::vector<std::string> out;
    for (auto& b : k.buffers) out.push_back(b.param ? b.name + "_flat" : b.name);
    return out;
  }
  static std::string number(double v, ScalarType t) {
    std::ostringstream o;
    o.precision(17);
    if (std::isnan(v)) o << "T." << dtypeName(t) << "(\"nan\")";
    else if (std::isinf(v)) o << "T." << dtypeName(t) << "(\"" << (v < 0 ? "-inf" : "inf") << "\")";
    else o << "T." << dtypeName(t) << "(" << v << ")";
    return o.str();
  }
  std::string expr(const ExprP& e) {
    switch (e->kind) {
      case Expr::Kind::Int: return e->type == ScalarType::I64 ? std::to_string(e->intValue) : "T." + std::string(dtypeName(e->type)) + "(" + std::to_string(e->intValue) + ")";
      case Expr::Kind::Float: return number(e->floatValue, e->type);
      case Expr::Kind::Var: return k.vars[e->id].name;
      case Expr::Kind::Load: return names[e->id] + "[" + expr(e->a) + "]";
      case Expr::Kind::Binary: {
        bool logical = e->a->type == ScalarType::Bool;
        if (e->binOp == BinOp::And) return "(" + expr(e->a) + (logical ? " and " : " & ") + expr(e->b) + ")";
        if (e->binOp == BinOp::Or) return "(" + expr(e->a) + (logical ? " or " : " | ") + expr(e->b) + ")";
        if (e->binOp == BinOp::Xor) return "(" + expr(e->a) + " ^ " + expr(e->b) + ")";
        std::string op(opName(e->binOp));
        if (std::isalpha(static_cast<unsigned char>(op[0]))) return "T." + op + "(" + expr(e->a) + ", " + expr(e->b) + ")";
        return "(" + expr(e->a) + " " + op + " " + expr(e->b) + ")";
      }
      case Expr::Kind::Unary:
        if (e->unOp == UnOp::Neg) return "(-" + expr(e->a) + ")";
        if (e->unOp == UnOp::Not) return e->a->type == ScalarType::Bool ? "(not " + expr(e->a) + ")" : "(~" + expr(e->a) + ")";
        return "T." + std::string(opName(e->unOp)) + "(" + expr(e->a) + ")";
      case Expr::Kind::Select: return "T.Select(" + expr(e->a) + ", " + expr(e->b) + ", " + expr(e->c) + ")";
      case Expr::Kind::Cast: return "T.Cast(\"" + std::string(dtypeName(e->type)) + "\", " + expr(e->a) + ")";
      case Expr::Kind::Reinterpret: return "T.reinterpret(\"" + std::string(dtypeName(e->type)) + "\", " + expr(e->a) + ")";
    }
    return "?";
  }
  void stmt(const StmtP& s, int depth) {
    std::string pad(depth * 4, ' ');
    switch (s->kind) {
      case Stmt::Kind::For:
        if (s->forKind == ForKind::ThreadBinding)
          lines.push_back(pad + "for " + k.vars[s->var].name + " in T.thread_binding(" + expr(s->extent) + ", thread=\"" + s->threadTag + "\"):");
        else
          lines.push_back(pad + "for " + k.vars[s->var].name + " in T." + std::string(forKindName(s->forKind)) + "(" + expr(s->extent) +
                          (s->keepScalar ? ", annotations={\"tvms.keep_scalar\": True}" : "") + "):");
        for (auto& b : s->body) stmt(b, depth + 1);
        break;
      case Stmt::Kind::Store:
        // An atomic add as TVM writes one: T.call_extern of CUDA's atomicAdd on the element's address.
        if (s->atomicAdd)
          lines.push_back(pad + "T.evaluate(T.call_extern(\"" + std::string(dtypeName(k.buffers[s->buffer].type)) + "\", \"atomicAdd\", T.address_of(" +
                          names[s->buffer] + "[" + expr(s->index) + "]), " + expr(s->value) + "))");
        else
          lines.push_back(pad + names[s->buffer] + "[" + expr(s->index) + "] = " + expr(s->value));
        break;
      case Stmt::Kind::Assign: lines.push_back(pad + k.vars[s->var].name + " = " + expr(s->value)); break;
      case Stmt::Kind::Seq: for (auto& b : s->body) stmt(b, depth); break;
      case Stmt::Kind::Barrier: lines.push_back(pad + "T.tvm_storage_sync(\"shared\")"); break;
      case Stmt::Kind::WarpReduce:
        lines.push_back(pad + k.vars[s->var].name + " = T.tvm_warp_allreduce(" + k.vars[s->var].name + ", \"" + std::string(opName(s->combiner)) + "\")");
        break;
      case Stmt::Kind::If:
      case Stmt::Kind::While:
        lines.push_back(pad + (s->kind == Stmt::Kind::If ? "if " : "while ") + expr(s->cond) + ":");
        for (auto& b : s->body) stmt(b, depth + 1);
        break;
    }
  }
};
}  // namespace

std::vector<std::string> printKernelBody(const Kernel& k) {
  Printer p{k, {}};
  p.lines.push_back("T.func_attr({\"global_symbol\": \"" + k.name + "\", \"tir.noalias\": True})");
  // Symbolic dims: those the kernel reads and those naming a parameter's extent.
  std::vector<std::string> symbols = k.dims;
  for (auto& b : k.buffers)
    for (auto& d : b.shape)
      if (!d.empty() && (std::isalpha(static_cast<unsigned char>(d[0])) || d[0] == '_') &&
          std::all_of(d.begin(), d.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
          std::find(symbols.begin(), symbols.end(), d) == symbols.end())
        symbols.push_back(d);
  for (auto& d : symbols) p.lines.push_back(d + " = T.int64()");
  // A workspace reads back as what it is in TVM's TIR: a global allocation of the kernel.
  std::vector<bool> isWorkspace(k.buffers.size(), false);
  for (auto& w : k.workspaces) {
    isWorkspace[static_cast<size_t>(w.buffer)] = true;
    const Buffer& b = k.buffers[static_cast<size_t>(w.buffer)];
    p.lines.push_back(p.names[static_cast<size_t>(w.buffer)] + " = T.alloc_buffer((" + p.expr(w.elements) + ",), \"" + std::string(dtypeName(b.type)) + "\")");
  }
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    const Buffer& b = k.buffers[i];
    if (!b.param || isWorkspace[i]) continue;
    std::string size;
    for (auto& d : b.shape) size += (size.empty() ? "" : " * ") + (d.find(' ') == std::string::npos ? d : "(" + d + ")");
    p.lines.push_back(p.names[i] + " = T.Buffer((" + (size.empty() ? "1" : size) + ",), \"" + std::string(dtypeName(b.type)) + "\", data=" + b.name + ".data)");
  }
  for (auto& b : k.buffers)
    if (!b.param) p.lines.push_back(b.name + " = T.alloc_buffer((" + std::to_string(b.localSize) + ",), \"" + std::string(dtypeName(b.type)) + "\", scope=\"" + std::string(scopeName(b.scope)) + "\")");
  for (auto& v : k.vars)
    if (v.role == Variable::Role::Local) p.lines.push_back(v.name + " = T.decl_scalar(\"" + std::string(dtypeName(v.type)) + "\")");
  for (auto& s : k.body) p.stmt(s, 0);
  return p.lines;
}

}  // namespace tvms::tir
