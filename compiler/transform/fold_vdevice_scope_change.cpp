// FoldVDeviceScopeChange, TVM's pass (relax.backend.adreno.transform): where a call_tir's only
// consumer is an R.to_vdevice to a vdevice that differs from its output's in memory scope alone
// (same kind, same device id), the kernel writes into the target scope directly and the copy goes:
//   lv = R.call_tir(f, args, out_sinfo=R.Tensor(..., vdevice="opencl:0:global.texture"))
//   gv = R.to_vdevice(lv, "opencl:1:global")
// becomes
//   gv = R.call_tir(f, args, out_sinfo=R.Tensor(..., vdevice="opencl:1:global"))
// Input: a legalized module (call_tir calls). Opt-in (`tvms build --fold-vdevice-scope-change`), as TVM
// runs it only in its texture pipeline.
#include <map>

#include "compiler/op/registry.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

// How many times each variable is used, anywhere in the function (operands, tuples, returns, inside
// branches).
void countUses(const SeqExpr* s, std::map<const Var*, int>& uses) {
  if (!s) return;
  auto count = [&](const Var* v) { ++uses[v]; };
  for (auto& blk : s->blocks)
    for (auto& b : blk->bindings) {
      if (auto* i = as<If>(b->value)) {
        forEachVarUse(i->cond, count);
        countUses(i->thenBranch.get(), uses);
        countUses(i->elseBranch.get(), uses);
      } else {
        forEachVarUse(b->value, count);
      }
    }
  forEachVarUse(s->body, count);
}

const VDeviceRef* toVDeviceTarget(const Call& c) {
  if (c.def != &op::builtin::toVDevice()) return nullptr;
  for (auto& a : c.attrs)
    if (a.value.kind == Value::Kind::VDevice && a.value.vdevice && a.value.vdevice->device) return a.value.vdevice.get();
  return nullptr;
}

bool onlyScopeDiffers(const VDevice& a, const VDevice& b) {
  return a.target.kind == b.target.kind && a.vdeviceId == b.vdeviceId && a.memoryScope != b.memoryScope;
}

class Fold : public Rewriter {
 public:
  explicit Fold(const Function& fn) {
    std::map<const Var*, int> uses;
    std::map<const Var*, const Call*> producers;  // variables bound to a call_tir of one tensor
    std::vector<std::pair<const Var*, const Binding*>> moves;
    countUses(fn.body.get(), uses);
    for (auto& blk : fn.body->blocks)
      for (auto& b : blk->bindings) {
        auto* c = as<Call>(b->value);
        if (!c || b->vars.size() != 1) continue;
        if (c->def == &op::builtin::callTir() && c->sinfoArgs.size() == 1 && c->sinfoArgs[0] &&
            c->sinfoArgs[0]->kind == StructInfo::Kind::Tensor && c->sinfoArgs[0]->vdevice && c->sinfoArgs[0]->vdevice->device)
          producers[b->vars[0].get()] = c;
        if (toVDeviceTarget(*c) && !c->args.empty())
          if (auto* src = as<Var>(c->args[0])) moves.emplace_back(src, b.get());
      }
    for (auto& [src, move] : moves) {
      auto p = producers.find(src);
      if (p == producers.end() || uses[src] != 1) continue;
      const VDeviceRef* target = toVDeviceTarget(*as<Call>(move->value));
      if (!onlyScopeDiffers(*p->second->sinfoArgs[0]->vdevice->device, *target->device)) continue;
      folded_[src] = p->second;
      intoMove_[move] = p->second;
      targets_[move] = target;
    }
  }
  bool changes() const { return !folded_.empty(); }

 protected:
  void binding(const Binding& b, std::vector<BindingPtr>& out) override {
    if (b.vars.size() == 1 && folded_.count(b.vars[0].get())) return;  // written by the folded move instead
    auto it = intoMove_.find(&b);
    if (it == intoMove_.end()) return Rewriter::binding(b, out);
    auto produced = std::static_pointer_cast<Call>(Rewriter::call(*it->second));
    auto sinfo = std::make_shared<StructInfo>(*produced->sinfoArgs[0]);
    auto ref = std::make_shared<VDeviceRef>(*targets_.at(&b));
    sinfo->vdevice = ref;
    produced->sinfoArgs[0] = sinfo;
    out.push_back(copyBinding(b, produced));
  }

 private:
  std::map<const Var*, const Call*> folded_;
  std::map<const Binding*, const Call*> intoMove_;
  std::map<const Binding*, const VDeviceRef*> targets_;
};

}  // namespace

IRModule foldVDeviceScopeChange(const IRModule& m) {
  return mapFunctions(m, [&](const Function& fn) -> FunctionPtr {
    if (!fn.body) return std::make_shared<Function>(fn);
    Fold f(fn);
    return f.function(fn);
  });
}

}  // namespace tvms::transform
