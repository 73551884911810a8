#include "compiler/ir/struct_info_intern.h"

#include "compiler/ir/vdevice.h"

namespace tvms::ir {

namespace {

std::string addressOf(const void* p) { return std::to_string(reinterpret_cast<uintptr_t>(p)) + ","; }

// Only the fields a tensor or a tuple struct info uses may be set: anything else is left alone.
bool internable(const StructInfo& s) {
  if (s.primValue || s.params || s.ret || !s.pure) return false;
  if (s.kind == StructInfo::Kind::Tensor) return s.fields.empty();
  if (s.kind == StructInfo::Kind::Tuple) return !s.shape && s.dtype.empty() && !s.vdevice;
  return false;
}

}  // namespace

PrimExprPtr StructInfoInterner::dim(const PrimExprPtr& d) {
  if (!d) return d;
  if (d->kind == PrimExpr::Kind::Int && d->name.empty() && !d->lhs && !d->rhs) return ints_.try_emplace(d->value, d).first->second;
  if (d->kind == PrimExpr::Kind::Var && d->value == 0 && !d->lhs && !d->rhs) return vars_.try_emplace(d->name, d).first->second;
  return d;  // an expression of dims: kept, and told apart by its address
}

std::shared_ptr<const VDeviceRef> StructInfoInterner::vdevice(const std::shared_ptr<const VDeviceRef>& v) {
  // An inline I.vdevice is looked up by identity (TVM's, analysis/vdevice_checks): it stays itself.
  if (!v || v->isInline) return v;
  return vdevices_.try_emplace(addressOf(v->device.get()) + v->spelling, v).first->second;
}

StructInfoPtr StructInfoInterner::intern(const StructInfoPtr& s) {
  if (!s || !internable(*s)) return s;
  std::string key;
  StructInfo canonical = *s;
  bool changed = false;
  if (s->kind == StructInfo::Kind::Tensor) {
    canonical.vdevice = vdevice(s->vdevice);
    changed |= canonical.vdevice != s->vdevice;
    key = "T" + std::to_string(s->ndim) + "," + s->dtype + "," + addressOf(canonical.vdevice.get());
    if (canonical.shape) {
      key += "(";
      for (auto& d : *canonical.shape) {
        PrimExprPtr same = dim(d);
        changed |= same != d;
        d = same;
        key += addressOf(d.get());
      }
    }
  } else {
    key = "U";
    for (auto& f : canonical.fields) {
      StructInfoPtr same = intern(f);
      changed |= same != f;
      f = same;
      key += addressOf(f.get());
    }
  }
  auto [at, fresh] = infos_.try_emplace(key, nullptr);
  if (fresh) at->second = changed ? std::make_shared<const StructInfo>(std::move(canonical)) : s;
  return at->second;
}

}  // namespace tvms::ir
