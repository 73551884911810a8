#include "compiler/op/legalize_util.h"

#include "compiler/ir/printer.h"

namespace tvms::op::kernels {

ExprP dimExpr(KernelBuilder& kb, const ir::PrimExprPtr& d) {
  if (!d) return nullptr;
  switch (d->kind) {
    case ir::PrimExpr::Kind::Int: return codegen::intImm(d->value);
    case ir::PrimExpr::Kind::Var: return kb.dim(d->name);
    case ir::PrimExpr::Kind::Neg: {
      ExprP a = dimExpr(kb, d->lhs);
      return a ? codegen::intImm(0) - a : nullptr;
    }
    case ir::PrimExpr::Kind::Binary: {
      ExprP a = dimExpr(kb, d->lhs), b = dimExpr(kb, d->rhs);
      if (!a || !b) return nullptr;
      const std::string& op = d->name;
      if (op == "+" || op == "-" || op == "*") return codegen::binary(op, a, b);
      if (op == "//") return codegen::binary("floordiv", a, b);
      if (op == "%") return codegen::binary("floormod", a, b);
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
  ExprP p = codegen::intImm(1);
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
  return codegen::scalarTypeOf(s->dtype);
}

LegalizeResult failure(std::string why) {
  LegalizeResult r;
  r.error = std::move(why);
  return r;
}

ExprP flatIndex(const std::vector<ExprP>& indices, const std::vector<ExprP>& dims) {
  ExprP idx = codegen::intImm(0);
  for (size_t i = 0; i < indices.size(); ++i) idx = idx * dims[i] + indices[i];
  return idx;
}

}  // namespace tvms::op::kernels
