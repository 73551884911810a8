// Shared helpers of the ops' deduction rules.
#include "compiler/op/infer_util.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "compiler/ir/printer.h"

namespace tvms::op::infer {

using ir::PrimExpr;
using ir::Value;

std::optional<int64_t> constInt(const PrimExprPtr& e) {
  if (e && e->kind == PrimExpr::Kind::Int) return e->value;
  return std::nullopt;
}

bool sameDim(const PrimExprPtr& a, const PrimExprPtr& b) {
  if (!a || !b) return false;
  if (a.get() == b.get()) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case PrimExpr::Kind::Int: return a->value == b->value;
    case PrimExpr::Kind::Var: case PrimExpr::Kind::Opaque: return a->name == b->name;
    case PrimExpr::Kind::Neg: return sameDim(a->lhs, b->lhs);
    case PrimExpr::Kind::Binary: return a->name == b->name && sameDim(a->lhs, b->lhs) && sameDim(a->rhs, b->rhs);
  }
  return false;
}

bool provablyDifferent(const PrimExprPtr& a, const PrimExprPtr& b) {
  auto x = constInt(a), y = constInt(b);
  return x && y && *x != *y;
}

PrimExprPtr dim(int64_t v) { return ir::primInt(v); }

namespace {
PrimExprPtr fold(const std::string& op, const PrimExprPtr& a, const PrimExprPtr& b) {
  auto x = constInt(a), y = constInt(b);
  if (x && y) {
    if (op == "+") return dim(*x + *y);
    if (op == "-") return dim(*x - *y);
    if (op == "*") return dim(*x * *y);
    if (op == "//" && *y != 0) return dim((*x / *y) - ((*x % *y != 0) && ((*x < 0) != (*y < 0))));
  }
  if (op == "+" && x && *x == 0) return b;
  if ((op == "+" || op == "-") && y && *y == 0) return a;
  if (op == "*" && x && *x == 1) return b;
  if ((op == "*" || op == "//") && y && *y == 1) return a;
  if (op == "*" && ((x && *x == 0) || (y && *y == 0))) return dim(0);
  return ir::primBinary(op, a, b);
}
}  // namespace

PrimExprPtr add(const PrimExprPtr& a, const PrimExprPtr& b) { return fold("+", a, b); }
PrimExprPtr sub(const PrimExprPtr& a, const PrimExprPtr& b) { return fold("-", a, b); }
PrimExprPtr mul(const PrimExprPtr& a, const PrimExprPtr& b) { return fold("*", a, b); }
PrimExprPtr floorDiv(const PrimExprPtr& a, const PrimExprPtr& b) { return fold("//", a, b); }
PrimExprPtr ceilDiv(const PrimExprPtr& a, const PrimExprPtr& b) {
  return floorDiv(sub(add(a, b), dim(1)), b);
}

std::optional<int64_t> product(const Dims& dims) {
  int64_t p = 1;
  for (auto& d : dims) {
    auto v = constInt(d);
    if (!v) return std::nullopt;
    p *= *v;
  }
  return p;
}

std::string dimText(const PrimExprPtr& d) { return ir::printPrimExpr(d); }

std::string dimsText(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + ir::printPrimExpr(d[i]);
  if (d.size() == 1) s += ",";
  return s + ")";
}

std::string shapeText(const StructInfo& s) {
  if (s.shape) return dimsText(*s.shape);
  if (s.ndim >= 0) return "ndim=" + std::to_string(s.ndim);
  return "unknown shape";
}

bool isFloatDType(const std::string& dt) { return dt.rfind("float", 0) == 0 || dt.rfind("bfloat", 0) == 0; }
bool isIntDType(const std::string& dt) { return dt.rfind("int", 0) == 0 || dt.rfind("uint", 0) == 0; }

StructInfoPtr tensor(std::optional<Dims> shape, std::string dtype, int ndim) {
  return ir::tensorSInfo(std::move(shape), std::move(dtype), nullptr, ndim);
}
StructInfoPtr withDType(const StructInfo& like, std::string dtype) {
  return ir::tensorSInfo(like.shape, std::move(dtype), nullptr, like.shape ? -1 : like.ndim);
}

StructInfoPtr tupleOf(std::vector<StructInfoPtr> fields) {
  auto t = std::make_shared<StructInfo>();
  t->kind = StructInfo::Kind::Tuple;
  t->fields = std::move(fields);
  return t;
}

std::optional<int64_t> primOperand(const InferInput& in, size_t i) {
  const StructInfo* s = in.arg(i);
  if (s && s->kind == StructInfo::Kind::Prim) return constInt(s->primValue);
  return std::nullopt;
}

InferResult ok(StructInfoPtr s) { return {std::move(s), {}, {}}; }
InferResult fail(diag::Code code, std::string message, int operand) {
  InferResult r;
  r.issues.push_back({std::move(code), std::move(message), operand, {}});
  return r;
}
InferResult unknown() { return {}; }

namespace {
std::string kindText(const StructInfo& s) {
  switch (s.kind) {
    case StructInfo::Kind::Object: return "an object";
    case StructInfo::Kind::Prim: return "a prim value";
    case StructInfo::Kind::Shape: return "a shape";
    case StructInfo::Kind::Tensor: return "a tensor";
    case StructInfo::Kind::Tuple: return "a tuple";
    case StructInfo::Kind::Func: return "a function";
  }
  return "a value";
}
}  // namespace

std::string operandName(const OpDef& def, size_t i) {
  size_t k = 0;
  for (auto& p : def.params) {
    if (!isExpressionKind(p.kind)) continue;
    if (k++ == i) return p.name;
  }
  return "operand " + std::to_string(i);
}

const StructInfo* tensorOperand(const InferInput& in, size_t i, InferResult& r) {
  const StructInfo* s = in.arg(i);
  if (!s) return nullptr;
  if (s->kind == StructInfo::Kind::Tensor) return s;
  if (s->kind != StructInfo::Kind::Object) {
    std::string name = operandName(in.def, i);
    r.issues.push_back({diag::Code::TVS005, in.def.scriptName() + " expects a tensor for '" + name + "', got " + kindText(*s),
                        static_cast<int>(i), {}});
  }
  return nullptr;
}

std::optional<std::vector<const StructInfo*>> tensorListOperand(const InferInput& in, size_t i, InferResult& r) {
  const StructInfo* s = in.arg(i);
  if (!s || s->kind != StructInfo::Kind::Tuple) {
    if (s && s->kind != StructInfo::Kind::Object)
      r.issues.push_back({diag::Code::TVS005, in.def.scriptName() + " expects a tuple of tensors, got " + kindText(*s),
                          static_cast<int>(i), {}});
    return std::nullopt;
  }
  std::vector<const StructInfo*> out;
  for (auto& f : s->fields) {
    if (!f || f->kind != StructInfo::Kind::Tensor) return std::nullopt;
    out.push_back(f.get());
  }
  return out;
}

std::optional<int> normalizeAxis(int64_t axis, int rank) {
  if (rank < 0) return static_cast<int>(axis);
  if (axis < -rank || axis >= rank) return std::nullopt;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::optional<std::vector<int64_t>> intList(const Value* v) {
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::Int) return std::vector<int64_t>{v->integer};
  if (v->kind != Value::Kind::List) return std::nullopt;
  std::vector<int64_t> out;
  for (auto& item : v->items) {
    if (item.kind != Value::Kind::Int) return std::nullopt;
    out.push_back(item.integer);
  }
  return out;
}

std::optional<std::vector<int64_t>> permutation(const Value* axes, int64_t rank) {
  std::vector<int64_t> out;
  if (auto written = intList(axes)) {
    if (static_cast<int64_t>(written->size()) != rank) return std::nullopt;
    for (int64_t a : *written) {
      if (a < -rank || a >= rank) return std::nullopt;
      out.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int64_t d = rank; d-- > 0;) out.push_back(d);
  }
  return out;
}

std::optional<int64_t> intAttr(const Value* v) {
  if (v && v->kind == Value::Kind::Int) return v->integer;
  return std::nullopt;
}
std::optional<double> floatAttr(const Value* v) {
  if (v && v->kind == Value::Kind::Float) return v->real;
  if (v && v->kind == Value::Kind::Int) return static_cast<double>(v->integer);
  return std::nullopt;
}
std::optional<std::string> stringAttr(const Value* v) {
  if (v && v->kind == Value::Kind::String) return v->text;
  return std::nullopt;
}
namespace {
// The text inside `prefix(...)`, when `text` is exactly that call.
std::optional<std::string> insideCall(const std::string& text, const char* prefix) {
  size_t n = std::strlen(prefix);
  if (text.rfind(prefix, 0) != 0 || text.size() < n + 1 || text.back() != ')') return std::nullopt;
  return text.substr(n, text.size() - n - 1);
}
}  // namespace

std::optional<Dims> shapeOperand(const InferInput& in, size_t i) {
  const StructInfo* s = in.arg(i);
  if (s && s->kind == StructInfo::Kind::Shape && s->shape) return *s->shape;
  return std::nullopt;
}

std::optional<std::string> literalString(const Value* v) {
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::String) return v->text;
  if (v->kind != Value::Kind::Opaque) return std::nullopt;
  for (const char* prefix : {"R.str(", "relax.StringImm(", "R.dtype(", "relax.DataTypeImm("})
    if (auto inner = insideCall(v->text, prefix); inner && inner->size() >= 2 && (inner->front() == '"' || inner->front() == '\'') &&
                                                  inner->back() == inner->front())
      return inner->substr(1, inner->size() - 2);
  return std::nullopt;
}

std::optional<int64_t> literalInt(const Value* v) {
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::Int) return v->integer;
  if (v->kind != Value::Kind::Opaque) return std::nullopt;
  std::string t = v->text;
  for (const char* prefix : {"R.prim_value(", "T.int64(", "T.int32("})
    if (auto inner = insideCall(t, prefix)) t = *inner;
  char* end = nullptr;
  long long n = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || !end || *end != '\0') return std::nullopt;
  return n;
}

bool boolAttr(const Value* v, bool fallback) {
  if (v && v->kind == Value::Kind::Bool) return v->boolean;
  if (v && v->kind == Value::Kind::Int) return v->integer != 0;
  return fallback;
}

std::optional<std::vector<int>> axes(const std::vector<int64_t>& written, int rank, const std::string& opName,
                                     InferResult& r, int operand) {
  std::vector<int> out;
  for (int64_t a : written) {
    auto n = normalizeAxis(a, rank);
    if (!n) {
      r.issues.push_back({diag::Code::TVS103,
                          opName + ": axis " + std::to_string(a) + " is out of range for a tensor of rank " +
                              std::to_string(rank) + " (valid: " + std::to_string(-rank) + " to " +
                              std::to_string(rank - 1) + ")",
                          operand, {}});
      return std::nullopt;
    }
    out.push_back(*n);
  }
  return out;
}

Broadcast broadcast(const StructInfo& a, const StructInfo& b) {
  Broadcast out;
  if (!a.shape || !b.shape) {
    if (a.rank() >= 0 && b.rank() >= 0) out.ndim = std::max(a.rank(), b.rank());
    return out;
  }
  const Dims& x = *a.shape;
  const Dims& y = *b.shape;
  size_t n = std::max(x.size(), y.size());
  Dims r(n);
  for (size_t i = 0; i < n; ++i) {
    PrimExprPtr dx = i < n - x.size() ? nullptr : x[i - (n - x.size())];
    PrimExprPtr dy = i < n - y.size() ? nullptr : y[i - (n - y.size())];
    if (!dx) { r[i] = dy; continue; }
    if (!dy) { r[i] = dx; continue; }
    auto cx = constInt(dx), cy = constInt(dy);
    if (cx && *cx == 1) { r[i] = dy; continue; }
    if (cy && *cy == 1) { r[i] = dx; continue; }
    if (sameDim(dx, dy)) { r[i] = dx; continue; }
    if (cx && cy) {
      out.error = "shapes " + dimsText(x) + " and " + dimsText(y) + " cannot broadcast: dimension " +
                  std::to_string(*cx) + " against " + std::to_string(*cy);
      return out;
    }
    // Two symbolic dims that may differ: TVM gives the rank only.
    out.ndim = static_cast<int>(n);
    return out;
  }
  out.shape = std::move(r);
  out.ndim = static_cast<int>(n);
  return out;
}

bool sameDType(const StructInfo& a, const StructInfo& b, const std::string& opName, InferResult& r, int ia, int ib) {
  if (a.dtype.empty() || b.dtype.empty() || a.dtype == b.dtype) return true;
  r.issues.push_back({diag::Code::TVS102,
                      opName + ": operands have different dtypes, " + a.dtype + " and " + b.dtype +
                          " (cast one with R.astype)",
                      ib, {ia, ib}});
  return false;
}

EinsumSpec parseEinsum(std::string spec) {
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  EinsumSpec e;
  e.ellipsis = spec.find("...") != std::string::npos;
  std::string lhs = spec;
  bool explicitOut = false;
  if (auto arrow = spec.find("->"); arrow != std::string::npos) {
    lhs = spec.substr(0, arrow);
    e.output = spec.substr(arrow + 2);
    explicitOut = true;
  }
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!explicitOut) {
    std::map<char, int> count;
    for (auto& in : e.inputs) for (char c : in) ++count[c];
    for (auto& [c, n] : count) if (n == 1) e.output += c;
  }
  return e;
}

}  // namespace tvms::op::infer
