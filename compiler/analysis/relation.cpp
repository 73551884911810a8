// TypeBaseCheck / TypeLCA, as far as tvms can prove them.
#include "compiler/analysis/relation.h"

#include "compiler/ir/printer.h"

namespace tvms::analysis {

using ir::StructInfo;
using ir::StructInfoPtr;

namespace {
std::string dims(const std::vector<ir::PrimExprPtr>& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + ir::printPrimExpr(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}
bool constDiffer(const ir::PrimExprPtr& a, const ir::PrimExprPtr& b) {
  return a && b && a->kind == ir::PrimExpr::Kind::Int && b->kind == ir::PrimExpr::Kind::Int && a->value != b->value;
}
}  // namespace

std::optional<std::string> contradiction(const StructInfo& base, const StructInfo& derived) {
  if (base.kind == StructInfo::Kind::Object || derived.kind == StructInfo::Kind::Object) return std::nullopt;
  if (base.kind != derived.kind) return std::string("a different kind of value");
  if (base.kind == StructInfo::Kind::Tuple) {
    if (base.fields.size() != derived.fields.size())
      return "a tuple of " + std::to_string(base.fields.size()) + " against one of " + std::to_string(derived.fields.size());
    for (size_t i = 0; i < base.fields.size(); ++i)
      if (base.fields[i] && derived.fields[i])
        if (auto why = contradiction(*base.fields[i], *derived.fields[i])) return "field " + std::to_string(i) + ": " + *why;
    return std::nullopt;
  }
  if (base.kind != StructInfo::Kind::Tensor) return std::nullopt;
  if (!base.dtype.empty() && !derived.dtype.empty() && base.dtype != derived.dtype)
    return "dtype " + base.dtype + " against " + derived.dtype;
  if (base.rank() >= 0 && derived.rank() >= 0 && base.rank() != derived.rank())
    return "rank " + std::to_string(base.rank()) + " against " + std::to_string(derived.rank());
  if (base.shape && derived.shape)
    for (size_t i = 0; i < base.shape->size(); ++i)
      if (constDiffer((*base.shape)[i], (*derived.shape)[i]))
        return "shape " + dims(*base.shape) + " against " + dims(*derived.shape);
  const ir::VDevice* a = placedOn(&base);
  const ir::VDevice* b = placedOn(&derived);
  if (a && b && a != b)
    return "vdevice '" + base.vdevice->spelling + "' against '" + derived.vdevice->spelling + "'";
  return std::nullopt;
}

std::optional<std::string> droppedByAnnotation(const StructInfo& ann, const StructInfo& value) {
  if (ann.kind != StructInfo::Kind::Tensor || value.kind != StructInfo::Kind::Tensor) return std::nullopt;
  if (placedOn(&ann) && !placedOn(&value)) return "vdevice '" + ann.vdevice->spelling + "'";
  if (ann.shape && !value.shape) return "shape " + dims(*ann.shape);
  return std::nullopt;
}

StructInfoPtr lca(const StructInfoPtr& a, const StructInfoPtr& b) {
  if (!a || !b) return nullptr;
  if (a->kind != b->kind) return ir::objectSInfo();
  if (a->kind == StructInfo::Kind::Tuple) {
    if (a->fields.size() != b->fields.size()) return ir::objectSInfo();
    auto out = std::make_shared<StructInfo>(*a);
    for (size_t i = 0; i < a->fields.size(); ++i) out->fields[i] = lca(a->fields[i], b->fields[i]);
    return out;
  }
  if (a->kind != StructInfo::Kind::Tensor) return a;
  auto out = std::make_shared<StructInfo>(*a);
  if (a->dtype != b->dtype) out->dtype.clear();
  bool sameShape = a->shape && b->shape && a->shape->size() == b->shape->size();
  for (size_t i = 0; sameShape && i < a->shape->size(); ++i)
    sameShape = ir::printPrimExpr((*a->shape)[i]) == ir::printPrimExpr((*b->shape)[i]);
  if (!sameShape) {
    out->shape.reset();
    out->ndim = a->rank() == b->rank() ? a->rank() : -1;
  }
  if (placedOn(a.get()) != placedOn(b.get())) out->vdevice = nullptr;
  return out;
}

}  // namespace tvms::analysis
