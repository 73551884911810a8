#include "compiler/transform/lower_to_vm.h"

#include <algorithm>

#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "compiler/analysis/analysis.h"
#include "compiler/ir/printer.h"
#include "compiler/transform/kernel_prims.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/registry.h"
#include "compiler/transform/rewriter.h"
#include "compiler/transform/targets.h"
#include "runtime/target_kind.h"

namespace tvms::transform {

using namespace ir;
using runtime::Instruction;
using runtime::Opcode;

namespace {

// A PrimExpr operator as the VM's shape-arithmetic code (runtime/shape_math.h shapeOp).
int64_t dimOpCode(const std::string& op) { return op == "//" ? '/' : op == "max" ? 'M' : op == "min" ? 'm' : op[0]; }

struct Storage {
  int reg;
  int slot;
  int64_t bytes;
};

class FunctionLowering {
 public:
  using DimChecks = std::unordered_map<const Var*, std::vector<DimCheck>>;
  FunctionLowering(const IRModule& m, LoweredVM& out, const std::unordered_map<std::string, int>& kernelIndex,
                   const std::unordered_map<std::string, int>& functionIndex, const DimChecks& dimChecks)
      : m_(m), out_(out), kernelIndex_(kernelIndex), functionIndex_(functionIndex), dimChecks_(dimChecks) {}

  runtime::VMFunction lower(const Function& fn) {
    f_.name = fn.name;
    for (auto& p : fn.params) {
      regOf(p.get());  // parameters take registers 0..n-1, in order
      f_.params.push_back(paramSpec(*p));
    }
    for (auto& p : f_.params) compileComputedDims(p);  // every plain dim is bound by now
    countUses(fn.body.get());
    // A view that escapes (returned, in a tuple, passed on) takes its source's storage with it.
    for (auto& [view, root] : viewOf_)
      if (escapes_.count(view)) escapes_.insert(root);
    if (fn.body) {
      seq(*fn.body);
      int ret = valueReg(fn.body->body);
      emit(Opcode::Ret, -1, {ret});
      outputs(fn.body->body);
    }
    f_.retSInfo = printStructInfo(fn.retAnnotation, m_);
    f_.numRegisters = nextReg_;
    f_.numDims = static_cast<int>(dims_.size()) + tempDims_;
    return std::move(f_);
  }

 private:
  void error(std::string s) { out_.errors.push_back(f_.name + ": " + std::move(s)); }
  void emit(Opcode op, int dst, std::vector<int64_t> args) { f_.code.push_back({op, dst, std::move(args)}); }
  int newReg() { return nextReg_++; }
  int regOf(const Var* v) {
    auto it = regs_.find(v);
    if (it != regs_.end()) return it->second;
    return regs_[v] = newReg();
  }

  int slotOf(const StructInfo* s) {
    const VDevice* v = executionVDevice(m_, s);
    return v ? m_.indexOf(v) : 0;
  }

  runtime::ParamSpec paramSpec(const Var& p) { return paramSpec(p.name, p.annotation); }

  // A tensor's checks and dims; a tuple's per field (named x[0], x[1], ...).
  runtime::ParamSpec paramSpec(const std::string& name, const StructInfoPtr& sinfo) {
    runtime::ParamSpec spec;
    spec.name = name;
    const StructInfo* s = sinfo.get();
    spec.sinfo = printStructInfo(sinfo, m_);
    spec.tensor = s && s->kind == StructInfo::Kind::Tensor;
    if (s && s->kind == StructInfo::Kind::Prim && s->primValue && s->primValue->kind == PrimExpr::Kind::Var) {
      spec.prim = true;  // R.Prim(value="n"): the argument binds n
      runtime::ParamSpec::Dim dim;
      auto it = dims_.find(s->primValue->name);
      dim.kind = it == dims_.end() ? runtime::ParamSpec::Dim::Bind : runtime::ParamSpec::Dim::Check;
      dim.value = it == dims_.end() ? (dims_[s->primValue->name] = static_cast<int>(dims_.size())) : it->second;
      dim.name = s->primValue->name;
      spec.dims.push_back(dim);
      return spec;
    }
    if (s && s->kind == StructInfo::Kind::Tuple) {
      spec.tuple = true;
      for (size_t i = 0; i < s->fields.size(); ++i) spec.fields.push_back(paramSpec(name + "[" + std::to_string(i) + "]", s->fields[i]));
    }
    if (!spec.tensor) return spec;
    spec.dtype = s->dtype;
    spec.ndim = s->rank();
    spec.slot = slotOf(s);
    if (s->shape)
      for (auto& d : *s->shape) {
        runtime::ParamSpec::Dim dim;
        if (d->kind == PrimExpr::Kind::Int) {
          dim.kind = runtime::ParamSpec::Dim::Fixed;
          dim.value = d->value;
        } else if (d->kind == PrimExpr::Kind::Var) {
          auto it = dims_.find(d->name);
          dim.kind = it == dims_.end() ? runtime::ParamSpec::Dim::Bind : runtime::ParamSpec::Dim::Check;
          dim.value = it == dims_.end() ? (dims_[d->name] = static_cast<int>(dims_.size())) : it->second;
          dim.name = d->name;
        } else if (d->kind == PrimExpr::Kind::Binary || d->kind == PrimExpr::Kind::Neg) {
          dim.kind = runtime::ParamSpec::Dim::Computed;  // compiled once all parameters are seen
          dim.name = printPrimExpr(d);
          computedDims_[dim.name] = d;
        }
        spec.dims.push_back(dim);
      }
    return spec;
  }

  // The postfix programs of a parameter's dims written as expressions (runtime/shape_math.h).
  void compileComputedDims(runtime::ParamSpec& spec) {
    for (auto& f : spec.fields) compileComputedDims(f);
    for (auto& dim : spec.dims) {
      if (dim.kind != runtime::ParamSpec::Dim::Computed) continue;
      if (!dimProgram(computedDims_[dim.name], dim.program)) {
        error("parameter '" + spec.name + "': its dim " + dim.name + " uses a symbolic dim no parameter binds by itself");
        dim.kind = runtime::ParamSpec::Dim::Any;
      }
    }
  }
  bool dimProgram(const PrimExprPtr& d, std::vector<int64_t>& out) {
    if (!d) return false;
    if (d->kind == PrimExpr::Kind::Int) {
      out.insert(out.end(), {0, d->value});
      return true;
    }
    if (d->kind == PrimExpr::Kind::Var) {
      auto it = dims_.find(d->name);
      if (it == dims_.end()) return false;
      out.insert(out.end(), {1, it->second});
      return true;
    }
    bool neg = d->kind == PrimExpr::Kind::Neg;
    if (neg) out.insert(out.end(), {0, 0});
    if (!neg && !dimProgram(d->lhs, out)) return false;
    if (!dimProgram(neg ? d->lhs : d->rhs, out)) return false;
    const std::string op = neg ? "-" : d->name;
    int64_t code = dimOpCode(op);
    out.insert(out.end(), {code, 0});
    return true;
  }

  // Each dim appended to `args` as an (isSlot, value) operand pair, the VM's shape form.
  void pushDims(std::vector<int64_t>& args, const std::vector<PrimExprPtr>& dims) {
    for (auto& d : dims) {
      runtime::DimOperand o = dimOperand(d);
      args.push_back(o.isSlot);
      args.push_back(o.value);
    }
  }

  // A dim as a VM operand: an immediate, a bound symbolic dim, or a temporary computed into the heap.
  runtime::DimOperand dimOperand(const PrimExprPtr& d) {
    if (!d) return {false, 0};
    if (d->kind == PrimExpr::Kind::Int) return {false, d->value};
    if (d->kind == PrimExpr::Kind::Var) {
      auto it = dims_.find(d->name);
      if (it == dims_.end()) { error("symbolic dim '" + d->name + "' is not bound by any parameter"); return {false, 0}; }
      return {true, it->second};
    }
    if (d->kind == PrimExpr::Kind::Binary || d->kind == PrimExpr::Kind::Neg) {
      runtime::DimOperand a = d->kind == PrimExpr::Kind::Neg ? runtime::DimOperand{false, 0} : dimOperand(d->lhs);
      runtime::DimOperand b = dimOperand(d->kind == PrimExpr::Kind::Neg ? d->lhs : d->rhs);
      std::string op = d->kind == PrimExpr::Kind::Neg ? "-" : d->name;
      int64_t code = dimOpCode(op);
      int slot = static_cast<int>(dims_.size()) + tempDims_++;
      emit(Opcode::ComputeDim, slot, {code, a.isSlot, a.value, b.isSlot, b.value});
      return {true, slot};
    }
    error("shape " + printPrimExpr(d) + " cannot be computed by the VM");
    return {false, 0};
  }

  void countUses(const SeqExpr* s) {
    if (!s) return;
    for (auto& blk : s->blocks)
      for (auto& b : blk->bindings) {
        forEachVarUse(b->value, [&](const Var* v) {
          if (lastUse_.insert_or_assign(v, &b).second) usedInOrder_.push_back(v);
        });
        if (auto* i = as<If>(b->value)) { countUses(i->thenBranch.get()); countUses(i->elseBranch.get()); }
        // A value stored elsewhere (tuples, aliases, branches, other functions) keeps its storage.
        if (!as<Call>(b->value) || as<Call>(b->value)->callee) forEachVarUse(b->value, [&](const Var* v) { escapes_.insert(v); });
        auto* c = as<Call>(b->value);
        if (c && c->def == &op::builtin::reshape() && !c->args.empty() && as<Var>(c->args[0]) && b->vars.size() == 1) {
          // A view: its storage is its source's, shared until both are dead (an alias group, by root).
          const Var* source = as<Var>(c->args[0]);
          const Var* root = viewOf_.count(source) ? viewOf_[source] : source;
          viewOf_[b->vars[0].get()] = root;
          ++liveViews_[root];
        } else if (c && c->def != &op::builtin::callTir() && c->def != &op::builtin::toVDevice()) {
          forEachVarUse(b->value, [&](const Var* v) { escapes_.insert(v); });
        }
      }
    forEachVarUse(s->body, [&](const Var* v) { escapes_.insert(v); });
  }

  int valueReg(const ExprPtr& e) {
    if (auto* v = as<Var>(e)) return regOf(v);
    if (auto* t = as<Tuple>(e)) {
      std::vector<int64_t> fields;
      for (auto& x : t->fields) fields.push_back(valueReg(x));
      int r = newReg();
      emit(Opcode::MakeTuple, r, fields);
      return r;
    }
    if (auto* c = as<Constant>(e)) return constant(*c, 0);
    if (auto* g = as<TupleGetItem>(e)) {
      int r = newReg();
      emit(Opcode::GetItem, r, {valueReg(g->tuple), g->index});
      return r;
    }
    if (auto* sh = as<ShapeExpr>(e)) {  // R.shape([n, 4]): its dims from the heap or immediates
      std::vector<int64_t> operands;
      pushDims(operands, sh->values);
      int r = newReg();
      emit(Opcode::MakeShape, r, operands);
      return r;
    }
    if (auto* p = as<PrimValue>(e); p && p->value && p->value->kind != PrimExpr::Kind::Opaque) {  // R.prim_value(n + 1)
      runtime::DimOperand o = dimOperand(p->value);
      int r = newReg();
      emit(Opcode::MakeInt, r, {o.isSlot, o.value});
      return r;
    }
    error("cannot lower the expression " + printExpr(e, m_) + " to the VM yet");
    return newReg();
  }

  // One element of a constant, stored as `dt` at `at` (integers exactly, not through a double).
  static void storeElement(const Value& v, runtime::DType dt, char* at) {
    double real = v.kind == Value::Kind::Float ? v.real : v.kind == Value::Kind::Bool ? (v.boolean ? 1.0 : 0.0) : static_cast<double>(v.integer);
    int64_t whole = v.kind == Value::Kind::Float ? static_cast<int64_t>(std::clamp(v.real, -9.2e18, 9.2e18))
                                                 : v.kind == Value::Kind::Bool ? int64_t(v.boolean) : v.integer;
    switch (dt) {
      case runtime::DType::F32: { float x = static_cast<float>(real); memcpy(at, &x, 4); break; }
      case runtime::DType::F64: memcpy(at, &real, 8); break;
      case runtime::DType::I32: { int32_t x = static_cast<int32_t>(whole); memcpy(at, &x, 4); break; }
      case runtime::DType::I64: memcpy(at, &whole, 8); break;
      case runtime::DType::F16: { uint16_t x = runtime::floatToHalf(static_cast<float>(real)); memcpy(at, &x, 2); break; }
      case runtime::DType::BF16: { uint16_t x = runtime::floatToBf16(static_cast<float>(real)); memcpy(at, &x, 2); break; }
      case runtime::DType::Bool: *at = real != 0; break;
      case runtime::DType::I8: *at = static_cast<char>(static_cast<int8_t>(whole)); break;
      case runtime::DType::U8: *at = static_cast<char>(static_cast<uint8_t>(whole)); break;
      case runtime::DType::I16: { int16_t x = static_cast<int16_t>(whole); memcpy(at, &x, 2); break; }
      case runtime::DType::U16: { uint16_t x = static_cast<uint16_t>(whole); memcpy(at, &x, 2); break; }
      case runtime::DType::U32: { uint32_t x = static_cast<uint32_t>(whole); memcpy(at, &x, 4); break; }
      case runtime::DType::U64: { uint64_t x = static_cast<uint64_t>(whole); memcpy(at, &x, 8); break; }
      case runtime::DType::F8E4M3: case runtime::DType::F8E5M2: *at = static_cast<char>(runtime::floatToFp8(static_cast<float>(real), dt)); break;
    }
  }

  // The register of an operand of a call that runs on `slot`: a constant is loaded on that device.
  int operandOn(const ExprPtr& a, int slot) {
    if (auto* k = as<Constant>(a)) return constant(*k, slot);
    return valueReg(a);
  }

  // A scalar, or a tensor written as a list (R.const([[0, 1], [2, 3]], "int64")): its data in the
  // executable, loaded once per device slot.
  int constant(const Constant& c, int slot) {
    runtime::ConstantData d;
    auto list = listConstant(c);
    bool scalar = c.value.kind == Value::Kind::Int || c.value.kind == Value::Kind::Float || c.value.kind == Value::Kind::Bool;
    auto dt = runtime::dtypeFromName(list ? list->dtype : c.dtype.empty() ? "float32" : c.dtype);
    if (!dt || (!scalar && !list)) {
      error("a constant whose values are not written in the module (a numpy array, a metadata entry or a name) cannot run in "
            "the VM yet");
      return newReg();
    }
    d.dtype = *dt;
    size_t width = runtime::dtypeBytes(*dt);
    if (list) {
      d.shape = list->shape;
      d.bytes.resize(list->elements.size() * width);
      for (size_t i = 0; i < list->elements.size(); ++i) storeElement(*list->elements[i], *dt, d.bytes.data() + i * width);
    } else {
      d.bytes.resize(width);
      storeElement(c.value, *dt, d.bytes.data());
    }
    out_.exe.constants.push_back(std::move(d));
    int r = newReg();
    emit(Opcode::LoadConst, r, {static_cast<int64_t>(out_.exe.constants.size() - 1), slot});
    return r;
  }

  // A dead storage of the pool on `slot` of at least `bytes`, taken out of the pool (a reuse).
  std::optional<Storage> fromPool(int slot, int64_t bytes) {
    auto it = std::find_if(pool_.begin(), pool_.end(), [&](const Storage& p) { return p.slot == slot && p.bytes >= bytes; });
    if (it == pool_.end()) return std::nullopt;
    Storage taken = *it;
    pool_.erase(it);
    ++out_.storageReuses;
    return taken;
  }

  // An output tensor: storage from the pool of its device when a dead one is large enough.
  // `into` >= 0: a tensor of a tuple, allocated into that register and never pooled.
  // `onSlot`: where the tensor goes when not its vdevice's slot (R.builtin.alloc_tensor's device index).
  int allocTensor(const StructInfo& s, const Var* owner, int into = -1, int onSlot = -1) {
    int slot = onSlot >= 0 ? onSlot : slotOf(&s);
    auto dt = runtime::dtypeFromName(s.dtype);
    if (!dt || !s.shape) { error("'" + owner->name + "': a tensor needs a known dtype and shape to be allocated"); return newReg(); }
    std::vector<int64_t> args{0, static_cast<int64_t>(*dt)};
    bool staticSize = true;
    int64_t bytes = static_cast<int64_t>(runtime::dtypeBytes(*dt));
    for (auto& d : *s.shape) {
      runtime::DimOperand o = dimOperand(d);
      args.push_back(o.isSlot);
      args.push_back(o.value);
      if (o.isSlot) staticSize = false;
      else if (o.value < 0 || __builtin_mul_overflow(bytes, o.value, &bytes)) {
        error("'" + owner->name + "': its shape has " + (o.value < 0 ? "a negative dimension" : "more bytes than a 64-bit size holds"));
        return newReg();
      }
    }
    int storageReg = -1;
    if (staticSize && into < 0)
      if (auto pooled = fromPool(slot, bytes)) {
        storageReg = pooled->reg;
        storage_[owner] = *pooled;
      }
    if (storageReg < 0) {
      storageReg = newReg();
      ++out_.storageAllocations;
      if (staticSize) {
        emit(Opcode::AllocStorage, storageReg, {slot, 0, bytes});
        if (into < 0) storage_[owner] = {storageReg, slot, bytes};
      } else {
        // bytes = dtype size * product of the dims, computed into the heap
        runtime::DimOperand total{false, static_cast<int64_t>(runtime::dtypeBytes(*dt))};
        for (auto& d : *s.shape) {
          runtime::DimOperand o = dimOperand(d);
          int t = static_cast<int>(dims_.size()) + tempDims_++;
          emit(Opcode::ComputeDim, t, {'*', total.isSlot, total.value, o.isSlot, o.value});
          total = {true, t};
        }
        emit(Opcode::AllocStorage, storageReg, {slot, 1, total.value});
      }
    }
    args[0] = storageReg;
    int r = into >= 0 ? into : regOf(owner);
    emit(Opcode::AllocTensor, r, args);
    return r;
  }

  // The variables whose last use is binding `b` die after it: their storage goes back to the pool.
  // Looked up through deadAfter_ (lastUse_ inverted once): scanning lastUse_ for every binding was
  // quadratic in the function's length (a 20,000-binding function spent seconds here).
  void releaseDead(const BindingPtr* b) {
    if (!deadAfterBuilt_) {
      // In the order of first use, not of lastUse_'s hashing of addresses: the bytecode (which
      // storage goes back to the pool first, and is taken next) must not depend on where the heap
      // put the variables.
      for (const Var* v : usedInOrder_) deadAfter_[lastUse_.at(v)].push_back(v);
      deadAfterBuilt_ = true;
    }
    auto dying = deadAfter_.find(b);
    if (dying == deadAfter_.end()) return;
    for (const Var* v : dying->second) {
      // A storage shared with views goes back when the last of its names dies.
      auto view = viewOf_.find(v);
      const Var* root = view == viewOf_.end() ? v : view->second;
      if (auto live = liveViews_.find(root); live != liveViews_.end() && live->second-- > 0) {
        if (!escapes_.count(v) && regs_.count(v)) emit(Opcode::Release, -1, {regs_[v]});
        continue;
      }
      auto st = storage_.find(root);
      if (st != storage_.end() && !escapes_.count(root)) pool_.push_back(st->second);
      if (!escapes_.count(v) && regs_.count(v)) emit(Opcode::Release, -1, {regs_[v]});
    }
    deadAfter_.erase(dying);
  }

  void seq(const SeqExpr& s) {
    for (auto& blk : s.blocks)
      for (auto& b : blk->bindings) {
        binding(*b);
        releaseDead(&b);
      }
  }

  void binding(const Binding& b) {
    if (b.vars.empty()) return;
    const Var* var = b.vars[0].get();
    if (auto checks = dimChecks_.find(var); checks != dimChecks_.end())
      for (const DimCheck& c : checks->second) checkDims(c);
    if (b.kind == Binding::Kind::Unpack) {
      int src = valueReg(b.value);
      for (size_t i = 0; i < b.vars.size(); ++i) emit(Opcode::GetItem, regOf(b.vars[i].get()), {src, static_cast<int64_t>(i)});
      return;
    }
    if (b.kind == Binding::Kind::MatchCast) return matchCast(b, var);
    const ExprPtr& e = b.value;
    if (auto* c = as<Call>(e)) {
      if (c->def == &op::builtin::callTir() || c->def == &op::builtin::callTirInplace()) return callKernel(*c, var);
      if (c->def == &op::builtin::callDpsPacked()) return callLibrary(*c, var);
      if (c->def == &op::builtin::print() || c->def == &op::builtin::assertOp()) return printOrAssert(*c, var);
      if (c->def == &op::builtin::callPacked() || c->def == &op::builtin::callPurePacked() || c->def == &op::builtin::callInplacePacked())
        return callBuiltin(*c, var);
      if (c->def == &op::builtin::callBuiltinWithCtx()) return callBuiltin(*c, var, true);
      if (c->def == &op::builtin::makeClosure()) return makeClosure(*c, var);
      if (c->def == &op::builtin::invokeClosure() || c->def == &op::builtin::invokePureClosure()) return invokeClosure(*c, var);
      if (c->def == &op::builtin::nullValue()) {
        regOf(var);  // a register never written holds nothing: the null object
        return;
      }
      if (c->def == &op::builtin::reshape() && !c->args.empty() && var->annotation && var->annotation->shape) {
        // Only RewriteDataflowReshape leaves a reshape here (LegalizeOps made every other a kernel).
        std::vector<int64_t> args{valueReg(c->args[0])};
        pushDims(args, *var->annotation->shape);
        emit(Opcode::View, regOf(var), args);
        return;
      }
      if (c->def == &op::builtin::shapeOf() && !c->args.empty()) {
        emit(Opcode::ShapeOf, regOf(var), {valueReg(c->args[0])});
        return;
      }
      if (c->def == &op::builtin::tensorToShape() && !c->args.empty()) {
        int r = regOf(var);
        emit(Opcode::TensorToShape, r, {valueReg(c->args[0])});
        bindShapeDims(*var, r);
        return;
      }
      if (c->def == &op::builtin::shapeToTensor() && !c->args.empty()) {
        emit(Opcode::ShapeToTensor, regOf(var), {valueReg(c->args[0]), slotOf(var->annotation.get())});
        return;
      }
      if (c->def == &op::builtin::toVDevice()) {
        int src = valueReg(c->args[0]);
        emit(Opcode::ToDevice, regOf(var), {src, slotOf(var->annotation.get())});
        return;
      }
      if (auto* g = as<GlobalVar>(c->callee); g && kernelIndex_.count(g->name)) return directKernelCall(*c, *g, var);
      if (c->def == &op::builtin::memoryAllocStorage() || c->def == &op::builtin::memoryAllocTensor() || c->def == &op::builtin::builtinAllocTensor() ||
          c->def == &op::builtin::memoryKillStorage() || c->def == &op::builtin::memoryKillTensor() || c->def == &op::builtin::memoryView() ||
          c->def == &op::builtin::memoryEnsureZeroOffset())
        return memoryOp(*c, var);
      if (auto* g = as<GlobalVar>(c->callee)) {
        auto it = functionIndex_.find(g->name);
        if (it == functionIndex_.end()) return error("call of unknown function " + g->name);
        std::vector<int64_t> args{it->second};
        for (auto& a : c->args) args.push_back(valueReg(a));
        emit(Opcode::CallFunc, regOf(var), args);
        return;
      }
      return error("'" + var->name + "': " + (c->op.empty() ? std::string("this call") : c->op) + " cannot run in the VM yet");
    }
    if (auto* g = as<TupleGetItem>(e)) {
      emit(Opcode::GetItem, regOf(var), {valueReg(g->tuple), g->index});
      return;
    }
    if (auto* i = as<If>(e)) {
      int cond = valueReg(i->cond);
      int dst = regOf(var);
      size_t jumpIf = f_.code.size();
      emit(Opcode::IfNot, -1, {cond, 0});
      branch(*i->thenBranch, dst);
      size_t jumpEnd = f_.code.size();
      emit(Opcode::Goto, -1, {0});
      f_.code[jumpIf].args[1] = static_cast<int64_t>(f_.code.size());
      branch(*i->elseBranch, dst);
      f_.code[jumpEnd].args[0] = static_cast<int64_t>(f_.code.size());
      return;
    }
    if (auto* k = as<Constant>(e)) {
      int r = constant(*k, slotOf(var->annotation.get()));
      emit(Opcode::Move, regOf(var), {r});
      return;
    }
    emit(Opcode::Move, regOf(var), {valueReg(e)});
  }

  // A shape value made at run time (R.tensor_to_shape): its symbolic dims (lv_dim0, ...) get heap
  // slots of their own, written from the value, for the kernels and checks that follow.
  void bindShapeDims(const Var& var, int reg) {
    const StructInfo* s = var.annotation.get();
    if (!s || s->kind != StructInfo::Kind::Shape || !s->shape) return;
    std::vector<int64_t> args{reg};
    for (auto& d : *s->shape) {
      if (d->kind != PrimExpr::Kind::Var || dims_.count(d->name)) {
        args.push_back(-1);
        continue;
      }
      int slot = static_cast<int>(dims_.size()) + tempDims_++;  // after every slot handed out so far
      dims_[d->name] = slot;
      args.push_back(slot);
    }
    emit(Opcode::ShapeDims, -1, args);
  }

  // R.match_cast(value, R.Shape([m, n])) or (tensor, R.Tensor((m, n), ...)): the value's dims bind the
  // symbolic dims not bound yet and are checked against the rest (and against constants) when it runs.
  void matchCast(const Binding& b, const Var* var) {
    int dst = regOf(var);
    emit(Opcode::Move, dst, {valueReg(b.value)});
    const StructInfo* cast = b.castSInfo.get();
    if (!cast || !cast->shape || (cast->kind != StructInfo::Kind::Shape && cast->kind != StructInfo::Kind::Tensor)) return;
    int shape = dst;
    if (cast->kind == StructInfo::Kind::Tensor) {
      shape = newReg();
      emit(Opcode::ShapeOf, shape, {dst});
    }
    std::vector<int64_t> args{shape};
    std::vector<std::pair<int64_t, size_t>> compared;  // (heap slot written, index of the dim it is checked against)
    for (size_t i = 0; i < cast->shape->size(); ++i) {
      const PrimExprPtr& d = (*cast->shape)[i];
      int slot = static_cast<int>(dims_.size()) + tempDims_++;
      if (d->kind == PrimExpr::Kind::Var && !dims_.count(d->name)) dims_[d->name] = slot;
      else compared.push_back({slot, i});
      args.push_back(slot);
    }
    emit(Opcode::ShapeDims, -1, args);
    for (auto [slot, i] : compared) {
      runtime::DimOperand want = dimOperand((*cast->shape)[i]);
      out_.exe.strings.push_back("R.match_cast (bound to '" + var->name + "'): dim " + std::to_string(i) + " of the value must equal the cast's " +
                                 printPrimExpr((*cast->shape)[i]));
      emit(Opcode::ComputeDim, -1, {'E', 1, slot, want.isSlot, want.value, static_cast<int64_t>(out_.exe.strings.size() - 1)});
    }
  }

  // A fact about two dims the VM checks before the binding that relies on it (runtime_shapes.h).
  void checkDims(const DimCheck& c) {
    runtime::DimOperand a = dimOperand(c.a), b = dimOperand(c.b);
    out_.exe.strings.push_back(c.message);
    emit(Opcode::ComputeDim, -1, {c.broadcast ? 'B' : 'E', a.isSlot, a.value, b.isSlot, b.value, static_cast<int64_t>(out_.exe.strings.size() - 1)});
  }

  void branch(const SeqExpr& s, int dst) {
    for (auto& blk : s.blocks)
      for (auto& b : blk->bindings) binding(*b);
    emit(Opcode::Move, dst, {valueReg(s.body)});
  }

  // One parameter of a kernel call, in the order of the kernel's signature: a tensor (its register
  // and struct info) or an integer scalar (its value as a dim expression).
  struct CallParam {
    int64_t reg = -1;
    const StructInfo* sinfo = nullptr;
    PrimExprPtr scalar;
  };

  // The scalar an argument passes: R.prim_value(n), or a variable of R.Prim struct info with a value.
  static PrimExprPtr scalarOf(const ExprPtr& a) {
    if (auto* p = as<PrimValue>(a)) return p->value;
    if (auto* v = as<Var>(a); v && v->annotation && v->annotation->kind == StructInfo::Kind::Prim) return v->annotation->primValue;
    return nullptr;
  }

  void callKernel(const Call& c, const Var* var) {
    auto* g = as<GlobalVar>(c.args[0]);
    auto it = g ? kernelIndex_.find(g->name) : kernelIndex_.end();
    if (it == kernelIndex_.end()) {
      const ModuleFunction* f = g ? m_.function(g->name) : nullptr;
      if (f && f->tir && !out_.errors.empty()) return;  // LegalizeOps said why it built no kernel for it
      return error("'" + var->name + "': R.call_tir of " + (g ? "'" + g->name + "', which is not a prim_func of the module" : "a callee that is not a prim_func"));
    }
    const StructInfo* outS = var->annotation.get();
    std::vector<const StructInfo*> outputs;
    if (outS && outS->kind == StructInfo::Kind::Tensor) outputs.push_back(outS);
    if (outS && outS->kind == StructInfo::Kind::Tuple)
      for (auto& f : outS->fields) outputs.push_back(f && f->kind == StructInfo::Kind::Tensor ? f.get() : nullptr);
    if (outputs.empty() || std::count(outputs.begin(), outputs.end(), nullptr))
      return error("'" + var->name + "': a kernel's outputs must be a tensor or a tuple of tensors");
    const tir::Kernel& k = out_.kernels[it->second];
    std::string kernelName = primNameOf(k);
    // The call site binds (kernel, device slot): one kernel may run on several devices of its target.
    int slot = slotOf(outputs[0]);
    std::vector<int64_t> inplace;
    if (!inplaceIndices(c, var, outputs.size(), inplace)) return;
    // The parameters in order: the arguments, the outputs not written in place, the tir_vars.
    std::vector<CallParam> params;
    if (auto* t = as<Tuple>(c.args[1]))
      for (size_t i = 0; i < t->fields.size(); ++i) {
        bool scalar = i < k.signature.size() && k.signature[i].scalar;
        if (scalar) params.push_back({-1, nullptr, scalarOf(t->fields[i])});
        else params.push_back({operandOn(t->fields[i], slot), operandSInfo(c, i), nullptr});
        if (scalar && !params.back().scalar) return error("'" + var->name + "': argument " + std::to_string(i) + " of " + kernelName + " is an integer whose value is not known here");
      }
    for (int64_t index : inplace)
      if (index >= 0 && params[static_cast<size_t>(index)].reg < 0) return error("'" + var->name + "': an output in place of a scalar argument");
    std::vector<int64_t> fields;  // the result's tensors
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (inplace[i] >= 0) {
        fields.push_back(params[static_cast<size_t>(inplace[i])].reg);
        continue;
      }
      bool single = outputs.size() == 1 && outS->kind == StructInfo::Kind::Tensor;
      // A tuple's tensors keep their storage (the pool tracks one tensor per variable).
      fields.push_back(single ? allocTensor(*outS, var) : allocTensor(*outputs[i], var, newReg()));
      params.push_back({fields.back(), outputs[i], nullptr});
    }
    if (c.args.size() > 2)
      if (auto* vars = as<ShapeExpr>(c.args[2]))
        for (auto& v : vars->values) params.push_back({-1, nullptr, v});
    if (outputs.size() == 1 && outS->kind == StructInfo::Kind::Tensor) {
      if (inplace[0] >= 0) emit(Opcode::Move, regOf(var), {fields[0]});
    } else {
      emit(Opcode::MakeTuple, regOf(var), fields);
    }
    launch(k, it->second, slot, params, var);
  }

  // A kernel called with `params` (its buffers and integer scalars in signature order) on `slot`:
  // its dims from the heap, its workspaces allocated for the call.
  void launch(const tir::Kernel& k, int64_t kernelIndex, int slot, const std::vector<CallParam>& params, const Var* var) {
    std::string kernelName = primNameOf(k);
    std::vector<int64_t> regs;
    for (auto& p : params)
      if (p.reg >= 0) regs.push_back(p.reg);
    size_t expected = k.signature.empty() ? k.paramCount() - k.workspaces.size() : k.signature.size();
    size_t given = k.signature.empty() ? regs.size() : params.size();
    if (expected != given || (!k.signature.empty() && regs.size() + k.workspaces.size() != k.paramCount()))
      return error("'" + var->name + "': " + kernelName + " takes " + std::to_string(expected) + " parameters (inputs, outputs, then tir_vars); the call passes " +
                   std::to_string(given));
    std::vector<int64_t> dimSlots;
    for (size_t i = 0; i < k.dims.size(); ++i) {
      auto d = kernelDim(k, i, params, var);
      if (!d) return;
      dimSlots.push_back(*d);
    }
    std::vector<Storage> released;
    for (auto& w : k.workspaces) {
      auto ws = workspace(k, w, dimSlots, slot, var);
      if (!ws) return;
      regs.push_back(ws->first);
      if (ws->second.reg >= 0) released.push_back(ws->second);
    }
    std::vector<int64_t> args{kernelIndex, slot, static_cast<int64_t>(regs.size())};
    args.insert(args.end(), regs.begin(), regs.end());
    args.insert(args.end(), dimSlots.begin(), dimSlots.end());
    emit(Opcode::CallKernel, -1, args);
    // A workspace is dead once its kernel has run (later work on the device's stream follows it).
    pool_.insert(pool_.end(), released.begin(), released.end());
  }

  // A workspace of a user's kernel (Kernel::workspaces): a one-dimensional tensor of its size on the
  // call's device, from the pool when the size is static. Its register, and its storage to give back
  // to the pool after the call (reg -1 when the size is known only at run time).
  std::optional<std::pair<int64_t, Storage>> workspace(const tir::Kernel& k, const tir::Kernel::Workspace& w, const std::vector<int64_t>& dimSlots, int slot,
                                                       const Var* var) {
    const tir::Buffer& b = k.buffers[static_cast<size_t>(w.buffer)];
    auto elements = kernelExprOperand(k, w.elements, dimSlots);
    if (!elements) {
      error("'" + var->name + "': the size of " + primNameOf(k) + "'s buffer '" + b.name + "' cannot be computed by the VM");
      return std::nullopt;
    }
    int64_t bytesPer = static_cast<int64_t>(runtime::dtypeBytes(b.type));
    Storage storage{-1, slot, 0};
    int storageReg = -1;
    if (!elements->isSlot) {
      int64_t bytes = 0;
      if (elements->value < 0 || __builtin_mul_overflow(elements->value, bytesPer, &bytes)) {
        error("'" + var->name + "': " + primNameOf(k) + "'s buffer '" + b.name + "' has more bytes than a 64-bit size holds");
        return std::nullopt;
      }
      if (auto pooled = fromPool(slot, bytes)) {
        storage = *pooled;
        storageReg = pooled->reg;
      } else {
        storageReg = newReg();
        ++out_.storageAllocations;
        emit(Opcode::AllocStorage, storageReg, {slot, 0, bytes});
        storage = {storageReg, slot, bytes};
      }
    } else {
      storageReg = newReg();
      ++out_.storageAllocations;
      int t = static_cast<int>(dims_.size()) + tempDims_++;
      emit(Opcode::ComputeDim, t, {'*', 1, elements->value, 0, bytesPer});
      emit(Opcode::AllocStorage, storageReg, {slot, 1, t});
    }
    int reg = newReg();
    emit(Opcode::AllocTensor, reg, {storageReg, static_cast<int64_t>(b.type), elements->isSlot, elements->value});
    return std::make_pair(static_cast<int64_t>(reg), storage);
  }

  // A kernel's integer expression over its dims (`dimSlots`: the heap slot of each) as a VM operand,
  // computed into the heap where it is not a constant; nullopt for what the VM's dim arithmetic lacks.
  std::optional<runtime::DimOperand> kernelExprOperand(const tir::Kernel& k, const tir::ExprP& e, const std::vector<int64_t>& dimSlots) {
    using tir::Expr;
    if (e->kind == Expr::Kind::Int) return runtime::DimOperand{false, e->intValue};
    if (e->kind == Expr::Kind::Cast && !tir::isFloat(e->a->type)) return kernelExprOperand(k, e->a, dimSlots);
    if (e->kind == Expr::Kind::Var) {
      const tir::Variable& v = k.vars[static_cast<size_t>(e->id)];
      if (v.role != tir::Variable::Role::Dim || static_cast<size_t>(v.dimIndex) >= dimSlots.size()) return std::nullopt;
      return runtime::DimOperand{true, dimSlots[static_cast<size_t>(v.dimIndex)]};
    }
    if (e->kind != Expr::Kind::Binary) return std::nullopt;
    static const std::map<tir::BinOp, std::string> ops = {{tir::BinOp::Add, "+"}, {tir::BinOp::Sub, "-"}, {tir::BinOp::Mul, "*"},
                                                          {tir::BinOp::FloorDiv, "//"}, {tir::BinOp::FloorMod, "%"}, {tir::BinOp::Max, "max"},
                                                          {tir::BinOp::Min, "min"}};
    auto op = ops.find(e->binOp);
    if (op == ops.end()) return std::nullopt;
    auto a = kernelExprOperand(k, e->a, dimSlots), b = kernelExprOperand(k, e->b, dimSlots);
    if (!a || !b) return std::nullopt;
    int slot = static_cast<int>(dims_.size()) + tempDims_++;
    emit(Opcode::ComputeDim, slot, {dimOpCode(op->second), a->isSlot, a->value, b->isSlot, b->value});
    return runtime::DimOperand{true, slot};
  }

  // R.call_tir_inplace: output i is argument inplace_indices[i] itself (not passed again), or a new
  // tensor where the index is -1. Its arguments escape, so their storage is never reused under it.
  bool inplaceIndices(const Call& c, const Var* var, size_t outputs, std::vector<int64_t>& out) {
    out.assign(outputs, -1);
    const CallAttr* ip = c.attr("inplace_indices");
    if (!ip || (ip->value.kind != Value::Kind::List && ip->value.kind != Value::Kind::Int)) return true;
    // One index for one output (inplace_indices=0), or a list of them.
    std::vector<Value> indices = ip->value.kind == Value::Kind::Int ? std::vector<Value>{ip->value} : ip->value.items;
    size_t arguments = c.args.size() > 1 && as<Tuple>(c.args[1]) ? as<Tuple>(c.args[1])->fields.size() : 0;
    if (indices.size() != outputs) {
      error("'" + var->name + "': inplace_indices has " + std::to_string(indices.size()) + " entries for " + std::to_string(outputs) + " outputs");
      return false;
    }
    for (size_t i = 0; i < outputs; ++i) {
      out[i] = indices[i].integer;
      if (out[i] < -1 || out[i] >= static_cast<int64_t>(arguments)) {
        error("'" + var->name + "': inplace index " + std::to_string(out[i]) + " names no argument");
        return false;
      }
    }
    return true;
  }

  // The heap slot of the kernel's dim i: by name from the caller's symbolic dims (the op builders'
  // kernels), or as a user's prim_func binds it: an argument's extent, or an integer parameter.
  std::optional<int64_t> kernelDim(const tir::Kernel& k, size_t i, const std::vector<CallParam>& params, const Var* var) {
    if (k.dimSources.empty()) {
      auto d = dims_.find(k.dims[i]);
      if (d == dims_.end()) {
        error("kernel " + k.name + " reads symbolic dim '" + k.dims[i] + "', which no parameter binds");
        return std::nullopt;
      }
      return d->second;
    }
    auto [position, axis] = k.dimSources[i];
    const CallParam* p = static_cast<size_t>(position) < params.size() ? &params[static_cast<size_t>(position)] : nullptr;
    if (p && axis < 0 && static_cast<size_t>(position) < k.signature.size() && k.signature[static_cast<size_t>(position)].floating)
      return floatBits(k, i, p->scalar, var);
    PrimExprPtr extent;
    if (p && axis < 0) extent = p->scalar;
    else if (p && p->sinfo && p->sinfo->shape && static_cast<size_t>(axis) < p->sinfo->shape->size()) extent = (*p->sinfo->shape)[static_cast<size_t>(axis)];
    if (!extent) {
      error("'" + var->name + "': the value of " + k.name + "'s dim '" + k.dims[i] + "' is not known from its arguments");
      return std::nullopt;
    }
    runtime::DimOperand d = dimOperand(extent);
    if (!d.isSlot) {  // a static value: the kernel reads its dims from the heap
      int temp = static_cast<int>(dims_.size()) + tempDims_++;
      emit(Opcode::ComputeDim, temp, {'+', 0, d.value, 0, 0});
      d = {true, temp};
    }
    return d.value;
  }

  // A float scalar argument (R.prim_value(T.float32(0.5)), a number): its float64 bits in a heap slot,
  // as the kernel reads its float parameters (tir::Kernel::Param::floating). Known when built.
  std::optional<int64_t> floatBits(const tir::Kernel& k, size_t i, const PrimExprPtr& value, const Var* var) {
    std::optional<double> v;
    if (value && value->kind == PrimExpr::Kind::Int) v = static_cast<double>(value->value);
    if (value && value->kind == PrimExpr::Kind::Opaque) {
      std::string t = value->name;
      size_t open = t.find('('), close = t.rfind(')');
      std::string number = t.rfind("T.float", 0) == 0 && open != std::string::npos && close > open ? t.substr(open + 1, close - open - 1) : t;
      char* end = nullptr;
      double d = std::strtod(number.c_str(), &end);
      if (end && end != number.c_str() && *end == '\0') v = d;
    }
    if (!v) {
      error("'" + var->name + "': " + primNameOf(k) + "'s float parameter '" + k.dims[i] + "' takes a number known when the module is built");
      return std::nullopt;
    }
    int64_t bits;
    std::memcpy(&bits, &*v, sizeof bits);
    int temp = static_cast<int>(dims_.size()) + tempDims_++;
    emit(Opcode::ComputeDim, temp, {'+', 0, bits, 0, 0});
    return temp;
  }

  const StructInfo* operandSInfo(const Call& c, size_t i) const {
    auto* t = c.args.size() > 1 ? as<Tuple>(c.args[1]) : nullptr;
    if (!t || i >= t->fields.size()) return nullptr;
    if (auto* v = as<Var>(t->fields[i])) return v->annotation.get();
    return nullptr;
  }

  // A library function of the runtime (OffloadLibraries' calls): its tensors, then the output, on
  // the slot of the output's vdevice.
  void callLibrary(const Call& c, const Var* var) {
    auto* f = c.args.empty() ? nullptr : as<ExternFunc>(c.args[0]);
    const StructInfo* outS = var->annotation.get();
    if (!f || !outS || outS->kind != StructInfo::Kind::Tensor)
      return error("'" + var->name + "': R.call_dps_packed runs in the VM only for a named library function with one tensor output");
    std::vector<int64_t> regs;
    if (c.args.size() > 1)
      if (auto* t = as<Tuple>(c.args[1])) for (auto& a : t->fields) regs.push_back(operandOn(a, slotOf(outS)));
    auto& names = out_.exe.libraryFunctions;
    auto it = std::find(names.begin(), names.end(), f->symbol);
    int64_t index = it - names.begin();
    if (it == names.end()) names.push_back(f->symbol);
    regs.push_back(allocTensor(*outS, var));
    std::vector<int64_t> args{index, slotOf(outS), static_cast<int64_t>(regs.size())};
    args.insert(args.end(), regs.begin(), regs.end());
    emit(Opcode::CallLibrary, -1, args);
  }

  // R.print(values..., format=) and R.assert_op(condition, format_args, format=): the format string
  // goes to the executable's strings (written "..." or R.str("...")), the values to registers.
  void printOrAssert(const Call& c, const Var* var) {
    bool isAssert = c.def == &op::builtin::assertOp();
    std::string what = isAssert ? "R.assert_op" : "R.print";
    int64_t format = -1;
    if (const CallAttr* a = c.attr("format")) {
      auto text = op::infer::literalString(&a->value);
      if (!text) return error("'" + var->name + "': the format of " + what + " must be a string, got " + a->value.text);
      out_.exe.strings.push_back(*text);
      format = static_cast<int64_t>(out_.exe.strings.size() - 1);
    }
    std::vector<int64_t> args;
    std::vector<ExprPtr> values = c.args;
    if (isAssert) {
      if (values.empty() || !values[0]) return error("'" + var->name + "': R.assert_op needs a condition");
      if (as<PrimValue>(values[0])) return error("'" + var->name + "': R.assert_op of a symbolic condition (R.prim_value(...)) cannot run in the VM yet; compare tensors instead");
      args = {valueReg(values[0]), format};
      values.erase(values.begin());
      // format_args: one value or a tuple of them
      if (!values.empty() && values[0])
        if (auto* t = as<Tuple>(values[0])) values = t->fields;
    } else {
      args = {format};
    }
    for (auto& v : values)
      if (v) args.push_back(valueReg(v));
    emit(isAssert ? Opcode::Assert : Opcode::Print, regOf(var), args);
  }

  // R.call_packed / R.call_pure_packed of a VM builtin TVM's modules call by name. The module's own
  // kernels come from its ops and prim_funcs; any other packed function is not in tvms.
  // R.call_inplace_packed takes the same names; R.call_builtin_with_ctx (`argsTuple`) passes its
  // arguments as one tuple.
  void callBuiltin(const Call& c, const Var* var, bool argsTuple = false) {
    auto* f = c.args.empty() ? nullptr : as<ExternFunc>(c.args[0]);
    std::string name = f ? f->symbol : "?";
    const StructInfo* out = var->annotation.get();
    bool tensorOut = out && out->kind == StructInfo::Kind::Tensor;
    std::vector<ExprPtr> args(c.args.begin() + (c.args.empty() ? 0 : 1), c.args.end());
    if (argsTuple) {
      auto* t = args.empty() ? nullptr : as<Tuple>(args[0]);
      if (!t) return error("'" + var->name + "': R.call_builtin_with_ctx's arguments must be a tuple written in the call");
      args = t->fields;
    }
    // vm.builtin.copy(x) and vm.builtin.to_device(x, device_type, device_id): a copy onto the
    // result's vdevice (its struct info says which).
    if ((name == "vm.builtin.copy" || name == "vm.builtin.to_device") && !args.empty() && tensorOut) {
      emit(Opcode::ToDevice, regOf(var), {valueReg(args[0]), slotOf(out)});
      return;
    }
    error("'" + var->name + "': the packed function '" + name +
          "' is not in tvms (its VM runs vm.builtin.copy and vm.builtin.to_device; kernels come from the module's ops and prim_funcs)");
  }

  // `cls.f(x, out)`: a prim_func called directly in destination-passing style, as TVM's CallTIRRewrite
  // leaves it: every argument is a buffer (outputs included, allocated by the module) or an integer.
  void directKernelCall(const Call& c, const GlobalVar& g, const Var* var) {
    const tir::Kernel& k = out_.kernels[kernelIndex_.at(g.name)];
    std::vector<CallParam> params;
    int slot = -1;
    for (size_t i = 0; i < c.args.size(); ++i) {
      bool scalar = i < k.signature.size() && k.signature[i].scalar;
      if (scalar) {
        params.push_back({-1, nullptr, scalarOf(c.args[i])});
        if (!params.back().scalar) return error("'" + var->name + "': argument " + std::to_string(i) + " of " + g.name + " is an integer whose value is not known here");
        continue;
      }
      const StructInfo* s = sinfoOf(c.args[i]);
      if (slot < 0 && s && s->kind == StructInfo::Kind::Tensor) slot = slotOf(s);
      params.push_back({valueReg(c.args[i]), s, nullptr});
    }
    regOf(var);  // the call's value is the empty tuple: nothing to hold
    launch(k, kernelIndex_.at(g.name), std::max(slot, 0), params, var);
  }

  // The allocation forms TVM's memory passes leave: storage and tensors in it (offset 0, where TVM's
  // StaticPlanBlockMemory puts them), kill_* (the register released), a view under another shape.
  void memoryOp(const Call& c, const Var* var) {
    auto arg = [&](size_t i) -> ExprPtr { return i < c.args.size() ? c.args[i] : nullptr; };
    auto attrInt = [&](const char* name, int64_t fallback) {
      const CallAttr* a = c.attr(name);
      return a ? op::infer::literalInt(&a->value).value_or(fallback) : fallback;
    };
    // A virtual device index names an entry of the module's vdevice list (slot i is vdevice i).
    auto deviceSlot = [&](int64_t index) { return index >= 0 && static_cast<size_t>(index) < m_.vdevices.size() ? static_cast<int>(index) : 0; };
    const op::OpDef* def = c.def;
    if (def == &op::builtin::memoryKillStorage() || def == &op::builtin::memoryKillTensor()) {
      if (auto* v = as<Var>(arg(0))) emit(Opcode::Release, -1, {regOf(v)});
      regOf(var);
      return;
    }
    if (def == &op::builtin::memoryEnsureZeroOffset()) {
      emit(Opcode::Move, regOf(var), {valueReg(arg(0))});
      return;
    }
    if (def == &op::builtin::memoryAllocStorage()) {
      auto* size = as<ShapeExpr>(arg(0));
      if (!size || size->values.size() != 1) return error("'" + var->name + "': R.memory.alloc_storage's size must be a shape of one value (bytes)");
      std::vector<int64_t> bytes;
      pushDims(bytes, size->values);
      ++out_.storageAllocations;
      emit(Opcode::AllocStorage, regOf(var), {deviceSlot(attrInt("virtual_device_index", 0)), bytes[0], bytes[1]});
      return;
    }
    const StructInfo* out = var->annotation.get();
    if (!out || out->kind != StructInfo::Kind::Tensor || !out->shape || out->dtype.empty())
      return error("'" + var->name + "': " + def->scriptName() + "'s result needs a known shape and dtype to run");
    auto dtype = runtime::dtypeFromName(out->dtype);
    if (!dtype) return error("'" + var->name + "': dtype " + out->dtype + " has no kernels");
    if (def == &op::builtin::builtinAllocTensor()) {
      allocTensor(*out, var, -1, deviceSlot(attrInt("runtime_device_index", 0)));
      return;
    }
    if (def == &op::builtin::memoryAllocTensor()) {
      auto offset = scalarOf(arg(1));
      if (!offset || offset->kind != PrimExpr::Kind::Int || offset->value != 0)
        return error("'" + var->name + "': R.memory.alloc_tensor at an offset other than 0 cannot run yet");
      std::vector<int64_t> args{valueReg(arg(0)), static_cast<int64_t>(*dtype)};
      pushDims(args, *out->shape);
      emit(Opcode::AllocTensor, regOf(var), args);
      return;
    }
    // memory.view: the same bytes under another shape; another dtype or an offset cannot run yet.
    const StructInfo* in = sinfoOf(arg(0));
    auto offset = scalarOf(arg(3));
    if (!in || in->dtype != out->dtype || (offset && !(offset->kind == PrimExpr::Kind::Int && offset->value == 0)))
      return error("'" + var->name + "': R.memory.view to another dtype or at a byte offset cannot run yet");
    std::vector<int64_t> args{valueReg(arg(0))};
    pushDims(args, *out->shape);
    emit(Opcode::View, regOf(var), args);
  }

  // The registers of a tuple's fields: a tuple written in place, or a tuple-valued variable's items.
  std::optional<std::vector<int64_t>> fieldRegs(const ExprPtr& e) {
    std::vector<int64_t> regs;
    if (auto* t = as<Tuple>(e)) {
      for (auto& x : t->fields) regs.push_back(valueReg(x));
      return regs;
    }
    const StructInfo* s = sinfoOf(e);
    if (!s || s->kind != StructInfo::Kind::Tuple) return std::nullopt;
    int tuple = valueReg(e);
    for (size_t i = 0; i < s->fields.size(); ++i) {
      int r = newReg();
      emit(Opcode::GetItem, r, {tuple, static_cast<int64_t>(i)});
      regs.push_back(r);
    }
    return regs;
  }

  // R.make_closure(cls.f, (captured...)): the function's index and the captured values.
  void makeClosure(const Call& c, const Var* var) {
    auto* g = c.args.empty() ? nullptr : as<GlobalVar>(c.args[0]);
    auto it = g ? functionIndex_.find(g->name) : functionIndex_.end();
    if (it == functionIndex_.end()) return error("'" + var->name + "': R.make_closure of " + (g ? "'" + g->name + "', which is not a Relax function of the module" : "something that is not a function of the module"));
    auto captured = c.args.size() > 1 ? fieldRegs(c.args[1]) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    if (!captured) return error("'" + var->name + "': R.make_closure's captured values must be a tuple");
    std::vector<int64_t> args{it->second};
    args.insert(args.end(), captured->begin(), captured->end());
    emit(Opcode::MakeClosure, regOf(var), args);
  }

  // R.invoke_closure(closure, (args...), sinfo_args=...): the closure's function on the arguments, then
  // what it captured.
  void invokeClosure(const Call& c, const Var* var) {
    if (c.args.size() < 2) return error("'" + var->name + "': R.invoke_closure needs a closure and a tuple of arguments");
    int closure = valueReg(c.args[0]);
    auto given = fieldRegs(c.args[1]);
    if (!given) return error("'" + var->name + "': R.invoke_closure's arguments must be a tuple");
    std::vector<int64_t> args{closure};
    args.insert(args.end(), given->begin(), given->end());
    emit(Opcode::InvokeClosure, regOf(var), args);
  }

  void outputs(const ExprPtr& body) {
    if (auto* v = as<Var>(body)) f_.outputNames.push_back(v->name);
    else if (auto* t = as<Tuple>(body))
      for (size_t i = 0; i < t->fields.size(); ++i) {
        auto* v = as<Var>(t->fields[i]);
        f_.outputNames.push_back(v ? v->name : "output_" + std::to_string(i));
      }
  }

  const IRModule& m_;
  LoweredVM& out_;
  const std::unordered_map<std::string, int>& kernelIndex_;
  const std::unordered_map<std::string, int>& functionIndex_;
  const DimChecks& dimChecks_;
  runtime::VMFunction f_;
  int nextReg_ = 0;
  int tempDims_ = 0;
  std::unordered_map<const Var*, int> regs_;
  std::unordered_map<std::string, int> dims_;
  std::unordered_map<std::string, PrimExprPtr> computedDims_;  // parameters' dims written as expressions, by their text
  std::unordered_map<const Var*, const BindingPtr*> lastUse_;
  std::vector<const Var*> usedInOrder_;  // lastUse_'s keys, in the order of their first use
  std::unordered_map<const BindingPtr*, std::vector<const Var*>> deadAfter_;
  bool deadAfterBuilt_ = false;
  std::unordered_set<const Var*> escapes_;
  std::unordered_map<const Var*, const Var*> viewOf_;  // a view (R.reshape) -> the variable whose storage it shares
  std::unordered_map<const Var*, int> liveViews_;      // per storage root: its names still alive, less one
  std::unordered_map<const Var*, Storage> storage_;
  std::vector<Storage> pool_;
};

}  // namespace

LoweredVM lowerToVM(LegalizedModule legalized) {
  LoweredVM out;
  // Each function's IR goes once its bytecode is made, so a large module is not held beside its
  // bytecode; what the lowering reads of the module (vdevices, prim funcs, signatures) stays in `m`.
  const IRModule m = signaturesOf(legalized.module);
  out.kernels = std::move(legalized.kernels);
  out.errors = std::move(legalized.errors);
  if (m.vdevices.empty()) {
    const std::string host(runtime::kHostKind);
    out.exe.devices.push_back({host, deviceTypeOfKind(host), 0, "global", host + ":0", ""});
  } else {
    for (auto& v : m.vdevices) {
      std::string spelling = analysis::spellingOf(m, v.get());
      out.exe.devices.push_back({v->target.kind, deviceTypeOfKind(v->target.kind), v->vdeviceId, v->memoryScope, spelling, ""});
    }
  }
  std::unordered_map<std::string, int> kernelIndex, functionIndex;
  for (size_t i = 0; i < out.kernels.size(); ++i) {
    const std::string& sym = out.kernels[i].name;
    kernelIndex[primNameOf(out.kernels[i])] = static_cast<int>(i);
    out.exe.kernels.push_back({sym, out.kernels[i].target.kind});
  }
  for (auto& f : m.functions)
    if (f.relax) functionIndex[f.name] = static_cast<int>(functionIndex.size());
  for (auto& f : legalized.module.functions)
    if (f.relax) {
      out.exe.functions.push_back(FunctionLowering(m, out, kernelIndex, functionIndex, legalized.dimChecks).lower(*f.relax));
      f.relax.reset();
    }
  return out;
}

}  // namespace tvms::transform
