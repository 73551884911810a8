#include "compiler/transform/legalize_ops.h"

#include <cstdio>

#include <algorithm>

#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "compiler/analysis/analysis.h"
#include "compiler/ir/printer.h"
#include "compiler/op/legalize.h"
#include "compiler/schedule/schedule.h"
#include "compiler/transform/kernel_prims.h"
#include "compiler/transform/targets.h"
#include "compiler/transform/rewriter.h"
#include "compiler/transform/runtime_shapes.h"
#include "compiler/tir/rewrite.h"
#include "runtime/target_kind.h"

namespace tvms::transform {

using namespace ir;

namespace {

std::optional<double> scalarValue(const ExprPtr& e) {
  if (auto* c = as<Constant>(e)) {
    if (c->value.kind == Value::Kind::Int) return static_cast<double>(c->value.integer);
    if (c->value.kind == Value::Kind::Float) return c->value.real;
    if (c->value.kind == Value::Kind::Bool) return c->value.boolean ? 1.0 : 0.0;
  }
  if (auto* p = as<PrimValue>(e); p && p->value)
    if (auto n = primNumber(*p->value)) return n->value;  // R.prim_value(2), R.prim_value(T.float32(0.5))
  return std::nullopt;
}

class Legalize : public Rewriter {
 public:
  Legalize(LegalizedModule& out, const IRModule& m, const DeviceRemap& remap) : out_(out), m_(m), remap_(remap) {}

 protected:
  void binding(const Binding& b, std::vector<BindingPtr>& out) override {
    auto* c = as<Call>(b.value);
    if (auto* g = c ? as<GlobalVar>(c->callee) : nullptr; g && b.vars.size() == 1)
      if (const ModuleFunction* f = m_.function(g->name); f && f->tir) return directPrimCall(*c, *g, *f->tir, b, out);
    const op::OpDef* def = c && !c->callee ? c->def : nullptr;
    if ((def == &op::builtin::callTir() || def == &op::builtin::callTirInplace()) && b.vars.size() == 1) return userKernel(*c, b, out);
    if (!def || def == &op::builtin::toVDevice() || def == &op::builtin::callTir() || def == &op::builtin::callDpsPacked() ||
        b.vars.size() != 1)
      return Rewriter::binding(b, out);
    if (keptWithoutKernel(*def, b, out)) return;
    // The operands as rewritten so far: their annotations say what is known now (a result shaped
    // at run time by an earlier binding, a parameter given symbolic dims).
    Call current = *c;
    for (auto& a : current.args) a = expr(a);
    c = &current;
    std::vector<std::optional<double>> scalars;
    for (auto& a : c->args) scalars.push_back(scalarValue(a));
    RuntimeShape shapes;
    if (def->shapeFunction) {
      shapes.result = dataDependentResult(*def, *c, b, out, shapes.checks);
      if (!shapes.result) return Rewriter::binding(b, out);
    } else {
      shapes = runtimeShape(*def, *c, b.vars[0]->annotation, b.vars[0]->name, scalars);
    }
    shapedResult_ = shapes.result;  // the binding's new annotation (bindingAnnotation, callTirOf)
    struct Reset {
      StructInfoPtr& p;
      ~Reset() { p = nullptr; }
    } reset{shapedResult_};
    const StructInfo* result = shapes.result ? shapes.result.get() : b.vars[0]->annotation.get();
    // One tensor, or (split, topk, batch_norm, ...) a tuple of tensors: one output buffer each.
    std::vector<const StructInfo*> outputs;
    if (result && result->kind == StructInfo::Kind::Tensor) outputs.push_back(result);
    if (result && result->kind == StructInfo::Kind::Tuple)
      for (auto& f : result->fields) outputs.push_back(f && f->kind == StructInfo::Kind::Tensor ? f.get() : nullptr);
    if (outputs.empty() || std::count(outputs.begin(), outputs.end(), nullptr)) {
      out_.errors.push_back(def->scriptName() + " (bound to '" + b.vars[0]->name + "'): its result's struct info is unknown");
      return Rewriter::binding(b, out);
    }
    Call flat = *c;
    if (!flattenTensorList(*def, c, flat, b, out)) return Rewriter::binding(b, out);
    // The kernel is built for the target of the vdevice its output lives on (after RealizeVDevice).
    const VDevice* placed = executionVDevice(m_, outputs[0]);
    tir::Target target = targetOf(m_, placed, remap_);
    std::vector<StructInfoPtr> holders;
    op::LegalizeInput in{*def, *c, {}, {}, *result, "", target};
    if (!describeOperands(in, b.vars[0]->name, holders)) return Rewriter::binding(b, out);
    // A call the same as an earlier one in everything its kernel builder reads (the op, its attributes,
    // its operands' struct info and compile-time scalars, its result, the target) gets that call's
    // kernel without building, scheduling and printing it again: a 100,000-binding function spent
    // most of its build printing kernels only to find them equal.
    std::string callKey = callKeyOf(*c, in, target);
    if (auto same = kernelByCall_.find(callKey); same != kernelByCall_.end()) {
      out.push_back(copyBinding(b, callTirOf(*c, *b.vars[0], *result, same->second.name, same->second.bufferArgs, freeDims_[same->second.name])));
      if (!shapes.checks.empty()) out_.dimChecks[out.back()->vars[0].get()] = shapes.checks;
      return;
    }
    std::string base = def->name.substr(6);
    for (auto& ch : base) if (ch == '.') ch = '_';
    std::string name = freshName(base);
    in.kernelName = kKernelSymbolPrefix + name;
    op::LegalizeResult r = def->legalize(in);
    if (!r.kernel) {
      out_.errors.push_back(def->scriptName() + " (bound to '" + b.vars[0]->name + "'): " + r.error);
      return Rewriter::binding(b, out);
    }
    std::string kernel = addKernel(base, name, r, in, outputs, placed);
    kernelByCall_[callKey] = {kernel, r.bufferArgs};
    out.push_back(copyBinding(b, callTirOf(*c, *b.vars[0], *result, kernel, r.bufferArgs, freeDims_[kernel])));
    if (!shapes.checks.empty()) out_.dimChecks[out.back()->vars[0].get()] = shapes.checks;
  }

  // An op tvms builds no kernel for: the VM or a pass runs it (a data-dependent shape's dims bound by
  // the VM), or an error naming the library TVM runs it through, or saying it has no kernel yet.
  // False for an op with a kernel builder.
  bool keptWithoutKernel(const op::OpDef& def, const Binding& b, std::vector<BindingPtr>& out) {
    if (def.legalize) return false;
    if (!def.runsBy.empty()) {
      shapedResult_ = shapedShapeValue(*b.vars[0]);
      if (shapedResult_)
        for (auto& d : *shapedResult_->shape) introduced_.push_back(d->name);
      Rewriter::binding(b, out);
      shapedResult_ = nullptr;
      return true;
    }
    if (!def.library.empty())
      out_.errors.push_back(def.scriptName() + " (bound to '" + b.vars[0]->name + "') has no kernel in tvms: TVM runs it only through " + def.library);
    else
      out_.errors.push_back(def.scriptName() + " (bound to '" + b.vars[0]->name + "') has no kernel yet");
    Rewriter::binding(b, out);
    return true;
  }

  // A tensor-list operand written as a tuple (R.concat((a, b)), R.index_tensor(x, (i, j))) reaches
  // the kernel builder as its fields in its place, so each tensor is a buffer of its own: `c` then
  // points at `flat`. False (reported) when the list is neither a tuple nor of tuple struct info.
  bool flattenTensorList(const op::OpDef& def, Call*& c, Call& flat, const Binding& b, std::vector<BindingPtr>& out) {
    size_t list = 0;
    while (list < def.params.size() && def.params[list].kind != op::ParamKind::TensorList) ++list;
    if (list >= def.params.size() || list >= c->args.size()) return true;
    auto* t = as<Tuple>(c->args[list]);
    std::vector<ExprPtr> fields = t ? t->fields : itemsOf(c->args[list], b, out);
    if (fields.empty()) {
      out_.errors.push_back(def.scriptName() + " (bound to '" + b.vars[0]->name + "'): the tensors must be a tuple (a, b, ...) or a variable of tuple struct info to compile");
      return false;
    }
    flat.args.assign(c->args.begin(), c->args.begin() + static_cast<long>(list));
    flat.args.insert(flat.args.end(), fields.begin(), fields.end());
    flat.args.insert(flat.args.end(), c->args.begin() + static_cast<long>(list) + 1, c->args.end());
    c = &flat;
    return true;
  }

  // What the kernel builder reads of each operand of `in.call`: its compile-time scalar and its struct
  // info; a tensor constant written as a list is a buffer of its own shape (LowerToVM loads its data),
  // a scalar constant a 0-d tensor (`holders` keeps the struct info made for them). False (reported)
  // for a constant whose values are not in the text (a numpy array, a metadata entry, a name).
  bool describeOperands(op::LegalizeInput& in, const std::string& boundTo, std::vector<StructInfoPtr>& holders) {
    for (auto& a : in.call.args) {
      in.scalars.push_back(scalarValue(a));
      if (auto* k = as<Constant>(a); k && !scalarValue(a)) {
        auto list = listConstant(*k);
        if (!list) {
          out_.errors.push_back(in.def.scriptName() + " (bound to '" + boundTo +
                                "'): a tensor constant operand whose values are not written in the module (a numpy "
                                "array, a metadata entry or a name) cannot be compiled yet; pass it as a parameter");
          return false;
        }
        std::vector<PrimExprPtr> dims;
        for (int64_t d : list->shape) dims.push_back(primInt(d));
        holders.push_back(tensorSInfo(dims, list->dtype));
        in.args.push_back(holders.back().get());
      } else if (k) {
        holders.push_back(tensorSInfo(std::vector<PrimExprPtr>{}, k->dtype.empty() ? in.out.dtype : k->dtype));
        in.args.push_back(holders.back().get());
      } else {
        in.args.push_back(sinfoOf(a));
      }
    }
    return true;
  }

  // A kernel a builder made, scheduled for its target and added to the module under `name`, or the
  // name of an earlier kernel with the same loops, buffers and target (its name then goes unused).
  std::string addKernel(const std::string& base, const std::string& name, op::LegalizeResult& r, const op::LegalizeInput& in,
                        const std::vector<const StructInfo*>& outputs, const VDevice* placed) {
    r.kernel->target = in.target;
    uniqueBufferNames(*r.kernel);
    tir::Kernel compute = *r.kernel;  // before its schedule: what FuseOps and FuseTIR work on
    schedule::apply(*r.kernel);
    // The same kernel (same loop nest, buffer types and shapes, same target) is built and compiled
    // once; each call site binds it to its own device slot (LowerToVM).
    std::string key = kernelKey(*r.kernel);
    if (auto same = kernelByKey_.find(key); same != kernelByKey_.end()) {
      --counts_[base];
      return same->second;
    }
    freeDims_[name] = freeDimsOf(*r.kernel);
    kernelByKey_[key] = name;
    std::vector<const StructInfo*> params;
    for (size_t i : r.bufferArgs) params.push_back(in.args[i]);
    params.insert(params.end(), outputs.begin(), outputs.end());
    prims.push_back({name, nullptr, primFuncOf(name, *r.kernel, params, freeDims_[name])});
    out_.kernels.push_back(std::move(*r.kernel));
    out_.computes.push_back(std::move(compute));
    out_.kernelVDevices.push_back(placed ? analysis::spellingOf(m_, placed) : "llvm:0");
    return name;
  }

  // An op whose result's shape comes from its operands' values (OpDef::shapeFunction), as TVM
  // legalizes dynamic_strided_slice: its shape kernel writes the result's dims into a 1-D int64
  // tensor (`x_shape`), R.tensor_to_shape reads them into a shape value whose symbolic dims the VM
  // binds (`x_dims`: x_dim0, x_dim1, ...), and the result gets those dims. Dims the annotation
  // already knew become checks the VM makes before the op's kernel runs. Null (an error recorded)
  // when the result's rank is unknown or the shape kernel cannot be built.
  StructInfoPtr dataDependentResult(const op::OpDef& def, const Call& c, const Binding& b, std::vector<BindingPtr>& out,
                                    std::vector<DimCheck>& checks) {
    const Var& var = *b.vars[0];
    auto fail = [&](const std::string& why) -> StructInfoPtr {
      out_.errors.push_back(def.scriptName() + " (bound to '" + var.name + "'): " + why);
      return nullptr;
    };
    const StructInfo* ann = var.annotation.get();
    std::vector<const StructInfo*> results;
    if (ann && ann->kind == StructInfo::Kind::Tensor) results.push_back(ann);
    if (ann && ann->kind == StructInfo::Kind::Tuple)
      for (auto& f : ann->fields) results.push_back(f && f->kind == StructInfo::Kind::Tensor ? f.get() : nullptr);
    int64_t total = 0;
    for (const StructInfo* r : results) {
      if (!r || r->rank() < 0) return fail("its result's rank is unknown, so its dims cannot be computed");
      total += r->rank();
    }
    if (results.empty()) return fail("its result's struct info is unknown");
    const VDevice* placed = executionVDevice(m_, results[0]);
    tir::Target target = targetOf(m_, placed, remap_);
    StructInfoPtr dimsTensor = tensorSInfo(std::vector<PrimExprPtr>{primInt(total)}, "int64", results[0]->vdevice);
    std::vector<const StructInfo*> args;
    std::vector<std::optional<double>> scalars;
    for (auto& a : c.args) {
      if (as<Constant>(a) && !scalarValue(a)) return fail("a tensor constant operand cannot be compiled here; pass it as a parameter");
      args.push_back(sinfoOf(a));
      scalars.push_back(scalarValue(a));
    }
    std::string base = def.name.substr(6) + "_shape";
    for (auto& ch : base) if (ch == '.') ch = '_';
    std::string name = freshName(base);
    op::LegalizeInput in{def, c, args, scalars, *dimsTensor, kKernelSymbolPrefix + name, target};
    op::LegalizeResult r = def.shapeFunction(in);
    if (!r.kernel) return fail(r.error);
    std::string kernel = addKernel(base, name, r, in, {dimsTensor.get()}, placed);
    auto dimsVar = std::make_shared<Var>(var.name + "_shape", dimsTensor, var.isDataflow);
    auto shapeCall = callTirOf(c, *dimsVar, *dimsTensor, kernel, r.bufferArgs, freeDims_[kernel]);
    out.push_back(std::make_shared<Binding>(Binding{Binding::Kind::Var, {dimsVar}, shapeCall, nullptr, {}}));
    // The shape value: one symbolic dim per dim of the result, named after the binding.
    std::vector<PrimExprPtr> dims;
    for (int64_t i = 0; i < total; ++i) {
      dims.push_back(primVar(var.name + "_dim" + std::to_string(i)));
      introduced_.push_back(var.name + "_dim" + std::to_string(i));
    }
    auto shape = std::make_shared<StructInfo>();
    shape->kind = StructInfo::Kind::Shape;
    shape->shape = dims;
    auto toShape = std::make_shared<Call>();
    toShape->def = &op::builtin::tensorToShape();
    toShape->op = toShape->def->name;
    toShape->args = {dimsVar};
    auto shapeVar = std::make_shared<Var>(var.name + "_dims", shape, var.isDataflow);
    out.push_back(std::make_shared<Binding>(Binding{Binding::Kind::Var, {shapeVar}, toShape, nullptr, {}}));
    std::vector<StructInfoPtr> fields;
    size_t next = 0;
    for (const StructInfo* r : results) {
      std::vector<PrimExprPtr> own(dims.begin() + static_cast<long>(next), dims.begin() + static_cast<long>(next) + r->rank());
      for (size_t i = 0; r->shape && i < own.size(); ++i)
        checks.push_back({own[i], (*r->shape)[i], false,
                          def.scriptName() + " (bound to '" + var.name + "'): dim " + std::to_string(i) + " of its result must equal its annotation (computed, annotated)"});
      next += static_cast<size_t>(r->rank());
      fields.push_back(tensorSInfo(own, r->dtype, r->vdevice));
    }
    if (ann->kind == StructInfo::Kind::Tensor) return fields[0];
    auto tuple = std::make_shared<StructInfo>(*ann);
    tuple->fields = fields;
    return tuple;
  }

  // Tensor parameters of known rank get symbolic dims the VM binds (runtime_shapes.h).
  StructInfoPtr paramAnnotation(const Var& p) override {
    StructInfoPtr shaped = shapedParam(p);
    return shaped ? shaped : p.annotation;
  }
  StructInfoPtr bindingAnnotation(const Var& v, const Binding&) override { return shapedResult_ ? shapedResult_ : v.annotation; }

 private:
  // Builders name buffers by role (A, B, C); a kernel whose input and output share a role name (R.ewise_fma's
  // third input and its output) gets them apart, so its printed T.prim_func has distinct parameters.
  static void uniqueBufferNames(tir::Kernel& k) {
    std::set<std::string> taken;
    for (auto& v : k.vars) taken.insert(v.name);
    for (auto& b : k.buffers) {
      std::string name = b.name;
      for (int n = 1; taken.count(name); ++n) name = b.name + "_" + std::to_string(n);
      b.name = name;
      taken.insert(name);
    }
  }

  // A kernel name no function of the module (a user's prim_func) and no earlier kernel has.
  std::string freshName(const std::string& base) {
    for (;;) {
      int n = counts_[base]++;
      std::string name = n ? base + std::to_string(n) : base;
      if (!m_.function(name)) return name;
    }
  }

  // R.call_tir of a prim_func of the module: its body (read by the frontend, lower_tir.h) built for
  // the target of the call's output, scheduled by the target's default schedule unless its author
  // scheduled it. One kernel per (prim_func, target); a prim_func called from two kinds of vdevice
  // gets a kernel for each, the second under a fresh name.
  void userKernel(const Call& c, const Binding& b, std::vector<BindingPtr>& out) {
    auto* g = c.args.empty() ? nullptr : as<GlobalVar>(c.args[0]);
    const ModuleFunction* f = g ? m_.function(g->name) : nullptr;
    if (!f || !f->tir) return Rewriter::binding(b, out);
    called_.insert(g->name);
    if (!f->tir->kernel) {
      out_.errors.push_back("R.call_tir of '" + g->name + "' (bound to '" + b.vars[0]->name + "'): " + f->tir->kernelError);
      return Rewriter::binding(b, out);
    }
    const StructInfo* result = b.vars[0]->annotation.get();
    const StructInfo* first = result && result->kind == StructInfo::Kind::Tuple && !result->fields.empty() ? result->fields[0].get() : result;
    const VDevice* placed = executionVDevice(m_, first);
    tir::Target target = targetOf(m_, placed, remap_);
    std::string why;
    auto built = userKernelFor(*f->tir, target, placed ? analysis::spellingOf(m_, placed) : std::string(runtime::kHostKind) + ":0", why);
    if (!built) {
      out_.errors.push_back("R.call_tir of '" + g->name + "' (bound to '" + b.vars[0]->name + "'): " + why);
      return Rewriter::binding(b, out);
    }
    if (*built == g->name) return Rewriter::binding(b, out);
    auto call = std::make_shared<Call>(c);
    call->args[0] = std::make_shared<GlobalVar>(*built);
    for (size_t i = 1; i < call->args.size(); ++i) call->args[i] = expr(c.args[i]);
    out.push_back(copyBinding(b, call));
  }

  // `cls.f(x, out)`: a prim_func called directly in destination-passing style (TVM's CallTIRRewrite
  // leaves these): its kernel built for the vdevice of its first tensor argument.
  void directPrimCall(const Call& c, const GlobalVar& g, const PrimFunc& f, const Binding& b, std::vector<BindingPtr>& out) {
    called_.insert(g.name);
    if (!f.kernel) {
      out_.errors.push_back("the call of '" + g.name + "' (bound to '" + b.vars[0]->name + "'): " + f.kernelError);
      return Rewriter::binding(b, out);
    }
    const StructInfo* first = nullptr;
    for (auto& a : c.args)
      if (const StructInfo* s = sinfoOf(a); !first && s && s->kind == StructInfo::Kind::Tensor) first = s;
    const VDevice* placed = executionVDevice(m_, first);
    tir::Target target = targetOf(m_, placed, remap_);
    std::string why;
    auto built = userKernelFor(f, target, placed ? analysis::spellingOf(m_, placed) : std::string(runtime::kHostKind) + ":0", why);
    if (!built) {
      out_.errors.push_back("the call of '" + g.name + "' (bound to '" + b.vars[0]->name + "'): " + why);
      return Rewriter::binding(b, out);
    }
    auto call = std::make_shared<Call>(c);
    call->callee = std::make_shared<GlobalVar>(*built);
    for (auto& a : call->args) a = expr(a);
    out.push_back(copyBinding(b, call));
  }

  // The kernel of a user's prim_func for `target` (built on first use, under a fresh name for a second
  // target); nullopt with `why` when it cannot be built there.
  std::optional<std::string> userKernelFor(const PrimFunc& f, const tir::Target& target, const std::string& vdevice, std::string& why) {
    std::string key = f.name + "|" + target.key();
    if (auto built = userKernels_.find(key); built != userKernels_.end()) return built->second;
    std::string name = userKernelCount_[f.name]++ ? freshName(f.name) : f.name;
    tir::Kernel k = *f.kernel;
    k.name = kKernelSymbolPrefix + name;
    k.target = target;
    tir::Kernel compute = k;
    if (why = scheduleUserKernel(k); !why.empty()) return std::nullopt;
    if (name != f.name) {
      auto copy = std::make_shared<PrimFunc>(f);
      copy->name = name;
      prims.push_back({name, nullptr, copy});
    }
    out_.kernels.push_back(std::move(k));
    out_.computes.push_back(std::move(compute));
    out_.kernelVDevices.push_back(vdevice);
    return userKernels_.emplace(key, name).first->second;
  }

 public:
  // A prim_func no R.call_tir builds is compiled as TVM's build compiles every function of a module:
  // for the target its T.func_attr names ({"target": T.target({"kind": "cuda", ...})} or
  // T.target("cuda")), else a GPU when its loops are bound to GPU threads, else the module's first
  // vdevice, else the host. What cannot be read or built is an error, as a call of it would be.
  void buildUncalledPrimFuncs() {
    for (auto& mf : m_.functions) {
      if (!mf.tir || called_.count(mf.name)) continue;
      std::string kind = targetKindOf(*mf.tir);
      // A kernel its author bound to GPU threads is meant for a GPU: the first GPU kind of the table.
      if (kind.empty() && mf.tir->kernel && anyStmt(mf.tir->kernel->body, isThreadLoop)) kind = firstGpuKind();
      const VDevice* first = m_.vdevices.empty() ? nullptr : m_.vdevices.front().get();
      tir::Target target = !kind.empty() ? tir::Target::forKind(kind) : targetOf(m_, first, remap_);
      std::string vdevice = !kind.empty() || !first ? target.kind + ":0" : analysis::spellingOf(m_, first);
      std::string why = mf.tir->kernelError;
      if (mf.tir->kernel) userKernelFor(*mf.tir, target, vdevice, why);
      if (!why.empty()) out_.errors.push_back("prim_func '" + mf.name + "' (built for " + target.kind + ", as no R.call_tir calls it): " + why);
    }
  }

 private:
  // The first GPU kind of the table with a code generator (cuda).
  static std::string firstGpuKind() {
    for (const runtime::TargetKind* t : runtime::targetKinds())
      if (t->deviceClass == runtime::DeviceClass::Gpu && !t->codegen.empty()) return t->name;
    return "";
  }

  // The kind of T.func_attr({"target": ...}): T.target({"kind": "cuda", ...}) or T.target("cuda").
  static std::string targetKindOf(const PrimFunc& f) {
    for (auto& [key, value] : f.attrs) {
      if (key != "target") continue;
      const std::string& t = value.text;
      size_t at = t.find("\"kind\"");
      size_t open = at == std::string::npos ? t.find('"') : t.find('"', t.find(':', at));
      size_t close = open == std::string::npos ? open : t.find('"', open + 1);
      if (close == std::string::npos) return "";
      std::string kind = t.substr(open + 1, close - open - 1);
      kind = kind.substr(0, kind.find(' '));  // "cuda -arch=sm_80"
      return runtime::findTargetKind(kind) ? kind : "";
    }
    return "";
  }

  // The target's default schedule for loops nobody scheduled; an author's schedule kept where the
  // target can run it. On a CPU, loops bound to GPU threads run as serial loops (each thread's work in
  // turn, as `--device cuda:0=cpu` needs), unless the threads share memory or wait at a barrier.
  static std::string scheduleUserKernel(tir::Kernel& k) {
    bool bound = anyStmt(k.body, isThreadLoop);
    bool cooperating = anyStmt(k.body, [](const tir::Stmt& s) { return s.kind == tir::Stmt::Kind::Barrier; });
    for (auto& b : k.buffers) cooperating |= b.scope == tir::MemoryScope::Shared;
    if (k.target.isCpu() && bound) {
      if (cooperating) return "its GPU threads share memory or wait at a barrier (T.tvm_storage_sync); it runs on a cuda vdevice only";
      k.body = tir::mapStmts(k.body, keepExpr, [](tir::Stmt& s) {
        if (isThreadLoop(s)) {
          s.forKind = tir::ForKind::Serial;
          s.threadTag.clear();
        }
      });
      return "";
    }
    if (k.target.isGpu() && !bound) {
      // T.parallel written for a CPU: on a GPU, loops whose iterations are independent, for its
      // default schedule to bind to threads.
      spliceTopLevelBlocks(k);  // each of a root block's loops a launch of its own
      k.body = tir::mapStmts(k.body, keepExpr, [](tir::Stmt& s) {
        if (isParallelLoop(s)) {
          s.forKind = tir::ForKind::Serial;
          s.iter = tir::IterType::Spatial;
        }
      });
    }
    if (!k.scheduledByAuthor || (k.target.isGpu() && !bound)) schedule::apply(k);
    else if (k.target.isGpu()) schedule::canonicalizeGpuLaunches(k);
    else parallelOnlyAtTop(k);
    return "";
  }

  // An author's T.parallel loops on a CPU: the thread pool runs a kernel's top-level loops, so the
  // statement groups a block leaves at the top (Seq) are spliced into the body, and a parallel loop
  // still nested (inside another loop or a condition) runs serially.
  static void parallelOnlyAtTop(tir::Kernel& k) {
    spliceTopLevelBlocks(k);
    for (auto& top : k.body) {
      auto copy = std::make_shared<tir::Stmt>(*top);
      copy->body = tir::mapStmts(top->body, keepExpr, [](tir::Stmt& s) {
        if (isParallelLoop(s)) s.forKind = tir::ForKind::Serial;
      });
      top = copy;
    }
  }

  // What the loop rewrites of a user's kernel look at (each statement's own fields, expressions kept).
  static tir::ExprP keepExpr(const tir::ExprP& e) { return e; }
  static bool isThreadLoop(const tir::Stmt& s) { return s.kind == tir::Stmt::Kind::For && s.forKind == tir::ForKind::ThreadBinding; }
  static bool isParallelLoop(const tir::Stmt& s) { return s.kind == tir::Stmt::Kind::For && s.forKind == tir::ForKind::Parallel; }
  // Whether a statement of `body`, at any depth, is one `pred` holds for.
  static bool anyStmt(const std::vector<tir::StmtP>& body, const std::function<bool(const tir::Stmt&)>& pred) {
    return std::any_of(body.begin(), body.end(), [&](const tir::StmtP& s) { return pred(*s) || anyStmt(s->body, pred); });
  }

  // The statement groups blocks leave at a kernel's top level (Seq) spliced into its body. Not where
  // the kernel has local or shared arrays: one statement's values there would not reach the next
  // once each runs as its own launch or parallel body.
  static void spliceTopLevelBlocks(tir::Kernel& k) {
    for (auto& b : k.buffers)
      if (!b.param) return;
    std::vector<tir::StmtP> top;
    std::function<void(const tir::StmtP&)> splice = [&](const tir::StmtP& s) {
      if (s->kind == tir::Stmt::Kind::Seq) {
        for (auto& x : s->body) splice(x);
      } else {
        top.push_back(s);
      }
    };
    for (auto& s : k.body) splice(s);
    k.body = top;
  }
  // A tuple-valued variable's fields as variables of their own (t0 = t[0], ...) bound before `b`, as
  // TVM's LegalizeOps does for R.concat(t); none when it is not a variable of known tuple struct info.
  std::vector<ExprPtr> itemsOf(const ExprPtr& tuple, const Binding& b, std::vector<BindingPtr>& out) {
    auto* v = as<Var>(tuple);
    const StructInfo* s = v ? v->annotation.get() : nullptr;
    if (!s || s->kind != StructInfo::Kind::Tuple || s->fields.empty()) return {};
    std::vector<ExprPtr> items;
    for (size_t i = 0; i < s->fields.size(); ++i) {
      auto item = std::make_shared<Var>(b.vars[0]->name + "_" + v->name + std::to_string(i), s->fields[i], b.vars[0]->isDataflow);
      auto get = std::make_shared<Binding>();
      get->vars.push_back(item);
      get->value = std::make_shared<TupleGetItem>(tuple, static_cast<int>(i));
      out.push_back(get);
      items.push_back(item);
    }
    return items;
  }

  std::shared_ptr<Call> callTirOf(const Call& c, const Var& var, const StructInfo& result, const std::string& kernel, const std::vector<size_t>& bufferArgs,
                                  const std::vector<std::string>& tirVars) {
    std::vector<ExprPtr> operands;
    for (size_t i : bufferArgs) operands.push_back(expr(c.args[i]));
    StructInfoPtr sinfo = result.kind == StructInfo::Kind::Tuple ? std::make_shared<StructInfo>(result) : shapedResult_ ? shapedResult_ : var.annotation;
    return callTir(kernelRefs_, kernel, std::move(operands), sinfo, tirVars);
  }

  // Everything of a call its kernel builder can read (op::LegalizeInput), as text: operands that are
  // variables by their struct info (their names do not matter), any other operand as written.
  std::string callKeyOf(const Call& c, const op::LegalizeInput& in, const tir::Target& target) const {
    std::string key = c.op + "|" + target.key() + "|";
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (as<Var>(c.args[i])) key += in.args[i] ? printStructInfo(std::make_shared<StructInfo>(*in.args[i]), m_) : "?";
      else key += printExpr(c.args[i], m_);
      if (in.scalars[i]) {
        char exact[32];
        std::snprintf(exact, sizeof exact, "=%.17g", *in.scalars[i]);
        key += exact;
      }
      key += ";";
    }
    for (auto& a : c.attrs) key += a.name + "=" + printValue(a.value, m_) + ";";
    for (auto& si : c.sinfoArgs) key += (si ? printStructInfo(si, m_) : "?") + ";";
    key += "->" + printStructInfo(std::make_shared<StructInfo>(in.out), m_);
    return key;
  }

  struct KernelForCall {
    std::string name;
    std::vector<size_t> bufferArgs;
  };

  StructInfoPtr shapedResult_;  // while a binding is rewritten: its result shaped at run time, if it was
  LegalizedModule& out_;
  const IRModule& m_;
  const DeviceRemap& remap_;
  std::map<std::string, int> counts_;
  std::unordered_map<std::string, std::string> kernelByKey_;
  std::unordered_map<std::string, KernelForCall> kernelByCall_;
  KernelRefs kernelRefs_;  // one GlobalVar (and tir_vars) per kernel for all its calls
  std::unordered_map<std::string, std::vector<std::string>> freeDims_;  // per kernel: its dims passed as tir_vars
  std::unordered_map<std::string, std::string> userKernels_;  // prim_func|target -> kernel name
  std::map<std::string, int> userKernelCount_;
  std::set<std::string> called_;  // prim_funcs some R.call_tir calls (built, or said why not)

 public:
  // The function legalized, declaring the symbolic dims its data-dependent shapes introduced
  // (`x_dim0 = T.int64()`, as TVM's printer writes them), so its printed form reads back.
  FunctionPtr legalizeFunction(const Function& fn) {
    introduced_.clear();
    FunctionPtr out = function(fn);
    for (auto& name : introduced_) out->symbolicVars.push_back({name, "int64"});
    return out;
  }
  std::vector<ModuleFunction> prims;  // added after the walk (the module's function list is being rewritten)

 private:
  std::vector<std::string> introduced_;  // symbolic dims the function being legalized gained
};

}  // namespace

LegalizedModule legalizeOps(const IRModule& m, const DeviceRemap& remap) { return legalizeOps(IRModule(m), remap); }

LegalizedModule legalizeOps(IRModule&& m, const DeviceRemap& remap) {
  LegalizedModule out;
  out.module = std::move(m);
  const IRModule before = signaturesOf(out.module);
  Legalize l(out, before, remap);
  for (auto& mf : out.module.functions)
    if (mf.relax) mf.relax = l.legalizeFunction(*mf.relax);
  l.buildUncalledPrimFuncs();
  out.module.functions.insert(out.module.functions.end(), l.prims.begin(), l.prims.end());
  return out;
}

}  // namespace tvms::transform
