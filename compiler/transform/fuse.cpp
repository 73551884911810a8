#include "compiler/transform/fuse.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <map>
#include <unordered_map>

#include "compiler/analysis/analysis.h"
#include "compiler/op/registry.h"
#include "compiler/schedule/schedule.h"
#include "compiler/tir/fuse.h"
#include "compiler/transform/kernel_prims.h"
#include "compiler/transform/rewriter.h"
#include "compiler/transform/targets.h"

namespace tvms::transform {

using namespace ir;

namespace {

// More members than this make one expression too long to be worth it (TVM's max_fuse_depth is 256
// ops in a tree; a chain here is one expression).
constexpr size_t kMaxGroup = 32;
// A norm reads its input 2-3 times, a pool its window; a matmul reads each operand element N times.
constexpr double kMaxRereads = 16;

const std::string& kernelOf(const Binding& b) {
  static const std::string none;
  auto* c = as<Call>(b.value);
  if (!c || c->callee || c->def != &op::builtin::callTir() || c->args.size() < 2 || b.vars.size() != 1) return none;
  auto* g = as<GlobalVar>(c->args[0]);
  return g ? g->name : none;
}

const Tuple* operandsOf(const Binding& b) { return as<Tuple>(as<Call>(b.value)->args[1]); }

// A group's kernels in order, with where each input of each comes from, and the group's inputs
// (every operand no member makes) in order of first use.
struct GroupPlan {
  std::vector<tir::FusionMember> members;
  std::vector<ExprPtr> inputs;
};

GroupPlan planOf(const std::vector<const Binding*>& bindings, const LegalizedModule& m, const std::unordered_map<std::string, size_t>& byName) {
  GroupPlan plan;
  std::unordered_map<const Var*, int> madeBy;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = *bindings[i];
    tir::FusionMember member;
    member.compute = &m.computes[byName.at(kernelOf(b))];
    for (auto& operand : operandsOf(b)->fields) {
      auto* v = as<Var>(operand);
      if (auto made = madeBy.find(v); made != madeBy.end()) {
        member.inputs.push_back(-made->second - 1);
        continue;
      }
      auto at = std::find(plan.inputs.begin(), plan.inputs.end(), operand);
      if (at == plan.inputs.end()) at = plan.inputs.insert(plan.inputs.end(), operand);
      member.inputs.push_back(static_cast<int>(at - plan.inputs.begin()));
    }
    madeBy[b.vars[0].get()] = static_cast<int>(i);
    plan.members.push_back(member);
  }
  return plan;
}

// "add1" -> "add": the op a kernel's prim_func was built for, for a group's name.
std::string opPart(std::string prim) {
  while (!prim.empty() && std::isdigit(static_cast<unsigned char>(prim.back()))) prim.pop_back();
  return prim;
}

class FuseOpsPass {
 public:
  explicit FuseOpsPass(LegalizedModule& m) : m_(m), byName_(computesByName(m)) {
    for (auto& f : m.module.functions) taken_.insert(f.name);
  }

  FunctionPtr function(const Function& f) {
    uses_ = useCounts(f);
    auto copy = std::make_shared<Function>(f);
    copy->body = seq(*f.body);
    return copy;
  }

  std::vector<ModuleFunction> groups;  // the new Primitive functions

 private:
  struct Group {
    std::vector<size_t> members;  // binding indices in the block, in order
    bool anchor = false;
    bool live = true;
  };

  SeqExprPtr seq(const SeqExpr& s) {
    auto out = std::make_shared<SeqExpr>(s);
    for (auto& blk : out->blocks) blk = block(*blk);
    return out;
  }

  // A kernel call fusion may take: an op builder's single-output kernel of a pattern that fuses.
  std::optional<tir::FusionPattern> patternOf(const Binding& b) const {
    const std::string& k = kernelOf(b);
    auto it = byName_.find(k);
    if (it == byName_.end() || !operandsOf(b) || !b.vars[0]->annotation || b.vars[0]->annotation->kind != StructInfo::Kind::Tensor) return std::nullopt;
    for (auto& operand : operandsOf(b)->fields)
      if (!as<Var>(operand)) return std::nullopt;  // a constant operand stays with an unfused call
    auto p = tir::fusionPattern(m_.computes[it->second]);
    if (p == tir::FusionPattern::Opaque) return std::nullopt;
    return p;
  }

  // The device a call runs on and the target its kernel is built for: members of a group share both.
  std::string placeOf(const Binding& b) const {
    const VDevice* v = executionVDevice(m_.module, b.vars[0]->annotation.get());
    return (v ? analysis::spellingOf(m_.module, v) : "") + "|" + m_.computes[byName_.at(kernelOf(b))].target.key();
  }

  // Whether the group's computes fuse (a dry run), remembered by the group's shape — its kernels and
  // how their inputs are wired — so a model's repeated layers are tried once.
  bool fuses(const std::vector<const Binding*>& bindings) {
    GroupPlan plan = planOf(bindings, m_, byName_);
    std::string shape = std::to_string(plan.inputs.size());
    for (auto& member : plan.members) {
      shape += "|" + member.compute->name;
      for (int from : member.inputs) shape += "," + std::to_string(from);
    }
    auto [it, fresh] = fusesByShape_.try_emplace(shape, false);
    if (fresh) it->second = tir::fuseKernels(plan.members, plan.inputs.size(), "dry_run", nullptr).has_value();
    return it->second;
  }

  BindingBlockPtr block(const BindingBlock& blk) {
    const auto& bs = blk.bindings;
    std::vector<Group> groups;
    std::vector<int> groupOf(bs.size(), -1);
    std::unordered_map<const Var*, size_t> definedAt;
    for (size_t i = 0; i < bs.size(); ++i) {
      for (auto& v : bs[i]->vars) definedAt[v.get()] = i;
      auto pattern = patternOf(*bs[i]);
      if (!pattern) continue;
      Group g;
      g.members = {i};
      g.anchor = *pattern == tir::FusionPattern::Anchor;
      const auto& operands = operandsOf(*bs[i])->fields;
      for (size_t p = 0; p < operands.size(); ++p) {
        auto* v = as<Var>(operands[p]);
        auto at = definedAt.find(v);
        // Every use of v must be this call's (x * x reads it twice, still one consumer).
        std::vector<int> reads;
        for (size_t q = 0; q < operands.size(); ++q)
          if (operands[q].get() == v) reads.push_back(static_cast<int>(q));
        if (at == definedAt.end() || uses_[v] != static_cast<int>(reads.size()) || groupOf[at->second] < 0) continue;
        Group& producer = groups[static_cast<size_t>(groupOf[at->second])];
        if (!producer.live || producer.members.back() != at->second || placeOf(*bs[at->second]) != placeOf(*bs[i])) continue;
        if (producer.members.size() + g.members.size() > kMaxGroup) continue;
        const tir::Kernel& consumer = m_.computes[byName_.at(kernelOf(*bs[i]))];
        bool epilogue = producer.anchor && *pattern == tir::FusionPattern::Injective && !g.anchor &&
                        std::all_of(reads.begin(), reads.end(), [&](int q) { return tir::readsAtOwnIndex(consumer, q); });
        if (producer.anchor && !epilogue) continue;
        // A producer inlined into an anchor is recomputed at each read: only where it is read a few times.
        double rereads = 0;
        for (int q : reads) rereads += readsPerElement(byName_.at(kernelOf(*bs[i])), consumer, q);
        if (!producer.anchor && *pattern == tir::FusionPattern::Anchor && rereads > kMaxRereads) continue;
        std::vector<size_t> merged = producer.members;
        merged.insert(merged.end(), g.members.begin(), g.members.end());
        std::sort(merged.begin(), merged.end());
        std::vector<const Binding*> members;
        for (size_t m : merged) members.push_back(bs[m].get());
        if (!fuses(members)) continue;
        g.members = std::move(merged);
        g.anchor |= producer.anchor;
        producer.live = false;
      }
      groups.push_back(std::move(g));
      for (size_t m : groups.back().members) groupOf[m] = static_cast<int>(groups.size()) - 1;
    }
    auto out = std::make_shared<BindingBlock>(blk);
    out->bindings.clear();
    for (size_t i = 0; i < bs.size(); ++i) {
      if (auto* branch = as<If>(bs[i]->value)) {
        auto copy = std::make_shared<Binding>(*bs[i]);
        auto fused = std::make_shared<If>(*branch);
        if (branch->thenBranch) fused->thenBranch = seq(*branch->thenBranch);
        if (branch->elseBranch) fused->elseBranch = seq(*branch->elseBranch);
        copy->value = fused;
        out->bindings.push_back(copy);
        continue;
      }
      const Group* g = groupOf[i] >= 0 ? &groups[static_cast<size_t>(groupOf[i])] : nullptr;
      if (!g || g->members.size() < 2) out->bindings.push_back(bs[i]);
      else if (g->members.back() == i) out->bindings.push_back(groupCall(*g, bs));
    }
    return out;
  }

  // The group as a private Primitive function, and the call of it bound to the group's output.
  BindingPtr groupCall(const Group& g, const std::vector<BindingPtr>& bs) {
    std::vector<const Binding*> members;
    std::string name = "fused";
    for (size_t m : g.members) {
      members.push_back(bs[m].get());
      if (name.size() < 60) name += "_" + opPart(kernelOf(*bs[m]));
    }
    // Numbered on from the last number this name took: 4,000 layers' groups of one name must not
    // try 1, 2, 3, ... each (that was quadratic).
    std::string unique = name;
    for (int& n = nextNumber_[name]; taken_.count(unique);) unique = name + std::to_string(++n);
    taken_.insert(unique);
    GroupPlan plan = planOf(members, m_, byName_);
    auto fn = std::make_shared<Function>();
    fn->name = unique;
    fn->decoratorArgs = {{"private", Value::ofBool(true)}};
    fn->attrs = {{kPrimitiveAttr, Value::ofBool(true)}};
    fn->hasFuncAttr = true;
    std::unordered_map<const Var*, ExprPtr> param;
    for (auto& input : plan.inputs) {
      auto* v = as<Var>(input);
      fn->params.push_back(std::make_shared<Var>(v->name, v->annotation, false));
      param[v] = fn->params.back();
    }
    const Binding& root = *members.back();
    auto body = std::make_shared<SeqExpr>();
    auto inner = std::make_shared<BindingBlock>();
    inner->dataflow = true;
    for (const Binding* b : members) {
      auto copy = std::make_shared<Binding>(*b);
      auto call = std::make_shared<Call>(*as<Call>(b->value));
      std::vector<ExprPtr> operands;
      for (auto& operand : operandsOf(*b)->fields) {
        auto it = param.find(as<Var>(operand));
        operands.push_back(it == param.end() ? operand : it->second);
      }
      call->args[1] = std::make_shared<Tuple>(operands);
      copy->value = call;
      if (b == &root) copy->vars = {std::make_shared<Var>(root.vars[0]->name, root.vars[0]->annotation, false)};
      inner->bindings.push_back(copy);
      // The members' run-time shape checks run before the fused kernel, at the group's call.
      if (b != &root)
        if (auto checks = m_.dimChecks.find(b->vars[0].get()); checks != m_.dimChecks.end()) {
          auto& to = m_.dimChecks[root.vars[0].get()];
          to.insert(to.end(), checks->second.begin(), checks->second.end());
        }
    }
    body->blocks.push_back(inner);
    body->body = inner->bindings.back()->vars[0];
    fn->body = body;
    fn->retAnnotation = root.vars[0]->annotation;
    groups.push_back({unique, fn, nullptr});
    auto call = std::make_shared<Call>();
    call->callee = std::make_shared<GlobalVar>(unique);
    call->args = plan.inputs;
    auto binding = std::make_shared<Binding>(root);
    binding->value = call;
    return binding;
  }

  LegalizedModule& m_;
  std::unordered_map<std::string, size_t> byName_;  // prim func name -> its compute
  std::unordered_map<const Var*, int> uses_;
  std::set<std::string> taken_;
  std::unordered_map<std::string, bool> fusesByShape_;
  // tir::readsPerElement by (compute, parameter): it walks the whole compute (a scheduled GEMM is
  // thousands of statements), and a model's layers ask it of the same few computes again and again
  // (half of `tvms build` on a module of 1,000 functions before).
  std::map<std::pair<size_t, int>, double> readsPerElement_;
  double readsPerElement(size_t compute, const tir::Kernel& k, int param) {
    auto [it, fresh] = readsPerElement_.try_emplace({compute, param}, 0.0);
    if (fresh) it->second = tir::readsPerElement(k, param);
    return it->second;
  }
  std::unordered_map<std::string, int> nextNumber_;
};

bool isPrimitive(const Function& f) {
  for (auto& [key, value] : f.attrs)
    if (key == kPrimitiveAttr) return value.kind == Value::Kind::Bool ? value.boolean : value.kind == Value::Kind::Int && value.integer != 0;
  return false;
}

class FuseTIRPass {
 public:
  explicit FuseTIRPass(LegalizedModule& m) : m_(m), byName_(computesByName(m)) {}

  FunctionPtr function(const Function& f) {
    return mapBindings(f, [&](const BindingPtr& b) { return binding(b); });
  }

  std::vector<ModuleFunction> prims;
  std::set<std::string> stillCalled;  // Primitive functions left as calls (not fused): they stay in the module
  // The groups FuseOps made for the function being fused, when they are not in the module
  // (fuseOpsAndTIR): looked up before the module's functions.
  const std::vector<ModuleFunction>* pendingGroups = nullptr;

 private:
  const ModuleFunction* functionNamed(const std::string& name) const {
    if (pendingGroups)
      for (auto& g : *pendingGroups)
        if (g.name == name) return &g;
    return m_.module.function(name);
  }

  BindingPtr binding(const BindingPtr& b) {
    auto* c = as<Call>(b->value);
    auto* g = c ? as<GlobalVar>(c->callee) : nullptr;
    const ModuleFunction* f = g ? functionNamed(g->name) : nullptr;
    if (!f || !f->relax || !isPrimitive(*f->relax)) return b;
    std::vector<const Binding*> members;
    for (auto& blk : f->relax->body->blocks)
      for (auto& x : blk->bindings) members.push_back(x.get());
    // A Primitive function the user wrote may hold what is no kernel call with a compute (a binding
    // of another kind, a kernel LegalizeOps could not build and said why): it stays a call of the
    // function, as does one whose kernels do not fuse (a user's kernel is opaque to fusion).
    auto unfused = [&] {
      stillCalled.insert(g->name);
      return b;
    };
    for (const Binding* member : members)
      if (!byName_.count(kernelOf(*member))) return unfused();
    GroupPlan plan = planOf(members, m_, byName_);
    auto fused = tir::fuseKernels(plan.members, plan.inputs.size(), kKernelSymbolPrefix + g->name, nullptr);
    if (!fused) return unfused();
    std::vector<ExprPtr> operands;
    std::vector<const StructInfo*> params;
    for (auto& input : plan.inputs) {
      auto at = std::find(f->relax->params.begin(), f->relax->params.end(), input);
      operands.push_back(c->args.at(static_cast<size_t>(at - f->relax->params.begin())));
      params.push_back(as<Var>(input)->annotation.get());
    }
    params.push_back(f->relax->retAnnotation.get());
    std::string name = kernelFor(g->name, *fused, params, kernelOf(*members.back()));
    auto copy = std::make_shared<Binding>(*b);
    copy->value = callTir(kernelRefs_, name, operands, f->relax->retAnnotation, freeDims_[name]);
    return copy;
  }

  // The fused kernel scheduled for its target, once per distinct kernel (24 layers' identical groups
  // share one).
  std::string kernelFor(const std::string& name, tir::Kernel compute, const std::vector<const StructInfo*>& params, const std::string& rootKernel) {
    tir::Kernel k = compute;
    schedule::apply(k);
    std::string key = kernelKey(k);
    if (auto same = byKey_.find(key); same != byKey_.end()) return same->second;
    byKey_[key] = name;
    freeDims_[name] = freeDimsOf(k);
    prims.push_back({name, nullptr, primFuncOf(name, k, params, freeDims_[name])});
    m_.kernelVDevices.push_back(m_.kernelVDevices.at(byName_.at(rootKernel)));
    m_.kernels.push_back(std::move(k));
    m_.computes.push_back(std::move(compute));
    return name;
  }

  LegalizedModule& m_;
  std::unordered_map<std::string, size_t> byName_;
  std::unordered_map<std::string, std::string> byKey_;
  std::unordered_map<std::string, std::vector<std::string>> freeDims_;
  KernelRefs kernelRefs_;
};

}  // namespace

LegalizedModule fuseOps(LegalizedModule m) {
  FuseOpsPass pass(m);
  for (auto& f : m.module.functions)
    if (f.relax && f.relax->body && !isPrimitive(*f.relax)) f.relax = pass.function(*f.relax);
  m.module.functions.insert(m.module.functions.end(), pass.groups.begin(), pass.groups.end());
  return m;
}

namespace {

// FuseTIR's end: the Primitive functions no call uses any more go (the groups fused, and a user's
// uncalled ones, as TVM's FuseTIR drops them), the fused kernels come in, the members' kernels go
// unless an unfused call still uses them.
void finishFuseTIR(LegalizedModule& m, FuseTIRPass& pass) {
  m.module.functions.erase(std::remove_if(m.module.functions.begin(), m.module.functions.end(),
                                          [&](const ModuleFunction& f) { return f.relax && isPrimitive(*f.relax) && !pass.stillCalled.count(f.name); }),
                           m.module.functions.end());
  m.module.functions.insert(m.module.functions.end(), pass.prims.begin(), pass.prims.end());
  dropUncalledKernels(m);
}

}  // namespace

LegalizedModule fuseTIR(LegalizedModule m) {
  FuseTIRPass pass(m);
  for (auto& f : m.module.functions)
    if (f.relax && f.relax->body && !isPrimitive(*f.relax)) f.relax = pass.function(*f.relax);
  finishFuseTIR(m, pass);
  return m;
}

LegalizedModule fuseOpsAndTIR(LegalizedModule m) {
  FuseOpsPass ops(m);
  FuseTIRPass tir(m);
  tir.pendingGroups = &ops.groups;
  std::vector<ModuleFunction> unfused;  // groups left as calls: after the module's functions, as fuseOps puts them
  for (auto& f : m.module.functions) {
    if (!f.relax || !f.relax->body || isPrimitive(*f.relax)) continue;
    f.relax = tir.function(*ops.function(*f.relax));
    for (auto& g : ops.groups)
      if (tir.stillCalled.count(g.name)) unfused.push_back(std::move(g));
    ops.groups.clear();
  }
  m.module.functions.insert(m.module.functions.end(), unfused.begin(), unfused.end());
  finishFuseTIR(m, tir);
  return m;
}

}  // namespace tvms::transform
