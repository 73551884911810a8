#include "compiler/transform/runtime_shapes.h"

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize.h"

namespace tvms::transform {

using namespace ir;

namespace {

// What deduction knows of an operand now: a variable's annotation, a shape or prim value, a tuple of those.
StructInfoPtr sinfoNow(const ExprPtr& e) {
  if (auto* v = as<Var>(e)) return v->annotation;
  auto s = std::make_shared<StructInfo>();
  if (auto* sh = as<ShapeExpr>(e)) {
    s->kind = StructInfo::Kind::Shape;
    s->shape = sh->values;
    return s;
  }
  if (auto* p = as<PrimValue>(e)) return primSInfo(p->value);
  if (auto* t = as<Tuple>(e)) {
    s->kind = StructInfo::Kind::Tuple;
    for (auto& f : t->fields) {
      auto x = sinfoNow(f);
      if (!x) return nullptr;
      s->fields.push_back(x);
    }
    return s;
  }
  return nullptr;
}

// Elementwise ops with tensor operands of known (symbolic) shapes: the numpy broadcast, where two
// dims that are neither equal nor 1 become T.max of them, checked to broadcast.
std::optional<std::vector<PrimExprPtr>> broadcastShape(const op::OpDef& def, const Call& call, const std::vector<std::optional<double>>& scalars,
                                                       const std::string& what, std::vector<DimCheck>& checks) {
  std::vector<const std::vector<PrimExprPtr>*> shapes;
  size_t tensorParam = 0;
  for (size_t i = 0; i < def.params.size() && i < call.args.size(); ++i) {
    if (def.params[i].kind != op::ParamKind::Tensor) continue;
    ++tensorParam;
    if (i < scalars.size() && scalars[i]) continue;
    auto* v = as<Var>(call.args[i]);
    if (!v || !v->annotation || v->annotation->kind != StructInfo::Kind::Tensor || !v->annotation->shape) return std::nullopt;
    shapes.push_back(&*v->annotation->shape);
  }
  if (tensorParam < 2 || shapes.empty()) return std::nullopt;
  size_t rank = 0;
  for (auto* s : shapes) rank = std::max(rank, s->size());
  std::vector<PrimExprPtr> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    PrimExprPtr dim;
    for (auto* s : shapes) {
      if (d + s->size() < rank) continue;  // this operand has no axis here
      const PrimExprPtr& x = (*s)[d + s->size() - rank];
      auto c = op::infer::constInt(x);
      if (c && *c == 1) continue;
      if (!dim) { dim = x; continue; }
      if (op::infer::sameDim(dim, x)) continue;
      checks.push_back({dim, x, true, what + ": dim " + std::to_string(d) + " of the operands (" + op::infer::dimText(dim) + ", " +
                                          op::infer::dimText(x) + ") does not broadcast"});
      dim = primBinary("max", dim, x);
    }
    out[d] = dim ? dim : primInt(1);
  }
  return out;
}

}  // namespace

RuntimeShape runtimeShape(const op::OpDef& def, const Call& call, const StructInfoPtr& result, const std::string& bound,
                          const std::vector<std::optional<double>>& scalars) {
  RuntimeShape r;
  std::string what = def.scriptName() + " (bound to '" + bound + "')";
  std::optional<std::vector<PrimExprPtr>> shape;
  if (def.infer) {
    op::InferInput in{def, call, {}};
    for (auto& a : call.args) in.args.push_back(a ? sinfoNow(a) : nullptr);
    op::InferResult deduced = def.infer(in);
    for (auto& [x, y] : deduced.assumedEqual)
      r.checks.push_back({x, y, false, what + ": " + op::infer::dimText(x) + " and " + op::infer::dimText(y) + " must be equal"});
    if (deduced.sinfo && deduced.sinfo->kind == StructInfo::Kind::Tensor && deduced.sinfo->shape) shape = deduced.sinfo->shape;
  }
  if (!result || result->kind != StructInfo::Kind::Tensor || result->shape) return r;
  if (!shape && def.legalize == op::kernels::elementwise) shape = broadcastShape(def, call, scalars, what, r.checks);
  if (!shape || (result->rank() >= 0 && result->rank() != static_cast<int>(shape->size()))) return r;
  auto shaped = std::make_shared<StructInfo>(*result);
  shaped->shape = *shape;
  shaped->ndim = -1;
  r.result = shaped;
  return r;
}

StructInfoPtr shapedShapeValue(const Var& v) {
  const StructInfo* s = v.annotation.get();
  if (!s || s->kind != StructInfo::Kind::Shape || s->shape || s->ndim < 0) return nullptr;
  auto shaped = std::make_shared<StructInfo>(*s);
  shaped->shape = std::vector<PrimExprPtr>{};
  for (int i = 0; i < s->ndim; ++i) shaped->shape->push_back(primVar(v.name + "_dim" + std::to_string(i)));
  shaped->ndim = -1;
  return shaped;
}

StructInfoPtr shapedParam(const Var& p) {
  const StructInfo* s = p.annotation.get();
  if (s && s->kind == StructInfo::Kind::Prim && !s->primValue && (s->dtype == "int64" || s->dtype == "int32")) {
    auto named = std::make_shared<StructInfo>(*s);  // R.Prim("int64"): its value is a dim named after it
    named->primValue = primVar(p.name);
    return named;
  }
  if (!s || s->kind != StructInfo::Kind::Tensor || s->shape || s->rank() < 0) return nullptr;
  auto shaped = std::make_shared<StructInfo>(*s);
  shaped->shape = std::vector<PrimExprPtr>{};
  for (int i = 0; i < s->rank(); ++i) shaped->shape->push_back(primVar(p.name + "_dim" + std::to_string(i)));
  shaped->ndim = -1;
  return shaped;
}

}  // namespace tvms::transform
