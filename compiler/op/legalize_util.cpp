#include "compiler/op/legalize_util.h"

#include "compiler/ir/printer.h"
#include "compiler/op/infer_util.h"

namespace tvms::op::kernels {

ExprP dimExpr(KernelBuilder& kb, const ir::PrimExprPtr& d) {
  if (!d) return nullptr;
  switch (d->kind) {
    case ir::PrimExpr::Kind::Int: return tir::intImm(d->value);
    case ir::PrimExpr::Kind::Var: return kb.dim(d->name);
    case ir::PrimExpr::Kind::Neg: {
      ExprP a = dimExpr(kb, d->lhs);
      return a ? tir::intImm(0) - a : nullptr;
    }
    case ir::PrimExpr::Kind::Binary: {
      ExprP a = dimExpr(kb, d->lhs), b = dimExpr(kb, d->rhs);
      if (!a || !b) return nullptr;
      const std::string& op = d->name;
      if (op == "+") return a + b;
      if (op == "-") return a - b;
      if (op == "*") return a * b;
      if (op == "//") return tir::floordiv(a, b);
      if (op == "%") return tir::floormod(a, b);
      if (op == "max") return tir::max(a, b);
      if (op == "min") return tir::min(a, b);
      return nullptr;
    }
    default: return nullptr;
  }
}

std::optional<std::vector<ExprP>> shapeExprs(KernelBuilder& kb, const ir::StructInfo* s) {
  if (!s || s->kind != ir::StructInfo::Kind::Tensor || !s->shape) return std::nullopt;
  std::vector<ExprP> out;
  for (auto& d : *s->shape) {
    ExprP e = dimExpr(kb, d);
    if (!e) return std::nullopt;
    out.push_back(e);
  }
  return out;
}

ExprP product(const std::vector<ExprP>& dims, size_t begin, size_t end) {
  ExprP p = tir::intImm(1);
  for (size_t i = begin; i < dims.size() && i < end; ++i) p = p * dims[i];
  return p;
}

std::vector<std::string> shapeText(const ir::StructInfo* s) {
  std::vector<std::string> out;
  if (s && s->shape)
    for (auto& d : *s->shape) out.push_back(ir::printPrimExpr(d));
  return out;
}

std::optional<ScalarType> elementType(const ir::StructInfo* s) {
  if (!s) return std::nullopt;
  return tir::scalarTypeOf(s->dtype);
}

LegalizeResult failure(std::string why) {
  LegalizeResult r;
  r.error = std::move(why);
  return r;
}

ExprP flatIndex(const std::vector<ExprP>& indices, const std::vector<ExprP>& dims) {
  ExprP idx = tir::intImm(0);
  for (size_t i = 0; i < indices.size(); ++i) idx = idx * dims[i] + indices[i];
  return idx;
}

StmtP loopNest(KernelBuilder& kb, const std::vector<ExprP>& dims, const std::function<std::vector<StmtP>(const std::vector<ExprP>&)>& body,
               bool spatial, const std::string& prefix) {
  std::vector<int> loops;
  std::vector<ExprP> idx;
  for (size_t d = 0; d < dims.size(); ++d) {
    loops.push_back(kb.loopVar(prefix + std::to_string(d)));
    idx.push_back(kb.var(loops.back()));
  }
  std::vector<StmtP> inner = body(idx);
  if (dims.empty()) return tir::seq(inner);
  StmtP s = tir::forLoop(loops.back(), dims.back(), inner, spatial);
  for (size_t d = dims.size() - 1; d-- > 0;) s = tir::forLoop(loops[d], dims[d], {s}, spatial);
  return s;
}

StmtP outputNest(KernelBuilder& kb, const std::vector<ExprP>& dims, const std::function<std::vector<StmtP>(const std::vector<ExprP>&)>& body) {
  return loopNest(kb, dims, body, true, "i");  // every output element is independent: all of the nest is spatial
}

ExprP constantOf(double v, ScalarType t) { return tir::isFloat(t) ? tir::floatImm(v, t) : tir::cast(t, tir::intImm(static_cast<int64_t>(v))); }

ExprP indexInAxis(ExprP i, const ExprP& n) {
  using namespace tir;
  i = cast(ScalarType::I64, i);
  i = select(binary(BinOp::Lt, i, intImm(0)), i + n, i);
  return max(intImm(0), min(i, n - intImm(1)));
}

int axisAttr(const LegalizeInput& in, const char* name, int rank, int fallback) {
  auto a = infer::intAttr(in.attr(name));
  if (!a) return fallback;
  return infer::normalizeAxis(*a, rank).value_or(-1);
}

double floatAttr(const LegalizeInput& in, const char* name, double fallback) { return infer::floatAttr(in.attr(name)).value_or(fallback); }

LegalizeResult done(KernelBuilder& kb, std::vector<size_t> buffers) {
  LegalizeResult r;
  r.bufferArgs = std::move(buffers);
  r.kernel = kb.take();
  return r;
}

}  // namespace tvms::op::kernels
