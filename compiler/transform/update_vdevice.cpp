// UpdateVDevice(new_vdevice, index) (LANGUAGE.md §7): list entry `index` is replaced and everything
// that sat on it follows, to_vdevice targets and out_sinfo included (TVM leaves those behind).
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

class Update : public Rewriter {
 public:
  Update(const VDevice* old, std::shared_ptr<const VDevice> replacement) : old_(old), new_(std::move(replacement)) {}

  StructInfoPtr moved(const StructInfoPtr& s) {
    if (!s) return s;
    bool changes = s->vdevice && s->vdevice->device.get() == old_;
    auto out = std::make_shared<StructInfo>(*s);
    if (changes) out->vdevice = movedRef(*s->vdevice);
    for (auto& f : out->fields) { auto g = moved(f); changes |= g != f; f = g; }
    if (out->params)
      for (auto& p : *out->params) { auto g = moved(p); changes |= g != p; p = g; }
    if (out->ret) { auto g = moved(out->ret); changes |= g != out->ret; out->ret = g; }
    return changes ? out : s;
  }

 protected:
  StructInfoPtr paramAnnotation(const Var& p) override { return moved(p.annotation); }
  StructInfoPtr bindingAnnotation(const Var& v, const Binding&) override { return moved(v.annotation); }
  StructInfoPtr returnAnnotation(const Function& fn, const SeqExpr&) override { return moved(fn.retAnnotation); }
  ExprPtr call(const Call& c) override {
    auto out = std::static_pointer_cast<Call>(Rewriter::call(c));
    for (auto& a : out->attrs)
      if (a.value.kind == Value::Kind::VDevice && a.value.vdevice && a.value.vdevice->device.get() == old_)
        a.value = Value::ofVDevice(movedRef(*a.value.vdevice));
    for (auto& s : out->sinfoArgs) s = moved(s);
    return out;
  }

 private:
  std::shared_ptr<const VDeviceRef> movedRef(const VDeviceRef& r) {
    auto n = std::make_shared<VDeviceRef>(r);
    n->device = new_;
    return n;
  }
  const VDevice* old_;
  std::shared_ptr<const VDevice> new_;
};

}  // namespace

IRModule updateVDevice(const IRModule& m, std::shared_ptr<const VDevice> vdevice, size_t index) {
  IRModule out = m;
  out.vdevices.at(index) = vdevice;
  Update u(m.vdevices[index].get(), vdevice);
  return mapFunctions(out, [&](const Function& fn) { return Update(u).function(fn); });
}

}  // namespace tvms::transform
