#include "compiler/transform/kernel_prims.h"

#include <algorithm>
#include <functional>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

std::string primNameOf(const tir::Kernel& k) {
  std::string_view prefix = kKernelSymbolPrefix;
  return k.name.compare(0, prefix.size(), prefix) == 0 ? k.name.substr(prefix.size()) : k.name;
}

std::unordered_map<std::string, size_t> computesByName(const LegalizedModule& m) {
  std::unordered_map<std::string, size_t> byName;
  for (size_t i = 0; i < m.computes.size(); ++i) byName[primNameOf(m.computes[i])] = i;
  return byName;
}

std::vector<std::string> freeDimsOf(const tir::Kernel& k) {
  std::set<std::string> named;
  for (auto& b : k.buffers)
    if (b.param) named.insert(b.shape.begin(), b.shape.end());
  std::vector<std::string> free;
  for (auto& d : k.dims)
    if (!named.count(d)) free.push_back(d);
  return free;
}

std::string kernelKey(const tir::Kernel& k) { return tir::fingerprint(k, /*withName=*/false); }

namespace {

TirParam bufferParam(const std::string& name, const StructInfo* s) {
  TirParam p;
  p.name = name;
  p.kind = TirParam::Kind::Buffer;
  p.buffer.name = name;
  p.buffer.dtype = s->dtype;
  if (s->shape) p.buffer.shape = *s->shape;
  std::string shape;
  for (size_t i = 0; i < p.buffer.shape.size(); ++i) shape += (i ? ", " : "") + printPrimExpr(p.buffer.shape[i]);
  if (p.buffer.shape.size() == 1) shape += ",";
  p.annotation = "T.Buffer((" + shape + "), \"" + s->dtype + "\")";
  return p;
}

// The kernel's T.prim_func body, printed when asked for; the free dims' `a = T.int64()` lines go (they
// are scalar parameters).
struct KernelBody : PrimFunc::LazyBody {
  tir::Kernel kernel;  // shares its statements and expressions with the module's kernel
  std::vector<std::string> freeDims;
  std::vector<std::string> lines() const override {
    std::vector<std::string> body = tir::printKernelBody(kernel);
    for (const std::string& d : freeDims) body.erase(std::remove(body.begin(), body.end(), d + " = T.int64()"), body.end());
    return body;
  }
};

}  // namespace

PrimFuncPtr primFuncOf(const std::string& name, const tir::Kernel& k, const std::vector<const StructInfo*>& params,
                       const std::vector<std::string>& freeDims) {
  auto prim = std::make_shared<PrimFunc>();
  prim->name = name;
  for (const StructInfo* s : params) prim->params.push_back(bufferParam(k.buffers[prim->params.size()].name, s));
  // Dims no buffer's shape binds by name (a in T.max(a, c)) are scalar parameters, as TVM passes
  // them (tir_vars), so the printed prim_func reads back.
  for (const std::string& d : freeDims) {
    TirParam scalar;
    scalar.name = d;
    scalar.kind = TirParam::Kind::Scalar;
    scalar.annotation = "T.int64";
    prim->params.push_back(scalar);
  }
  auto body = std::make_shared<KernelBody>();
  body->kernel = k;
  body->freeDims = freeDims;
  prim->lazyBody = std::move(body);
  return prim;
}

const ExprPtr& KernelRefs::globalVar(const std::string& kernel) {
  Refs& r = byKernel_[kernel];
  if (!r.globalVar) r.globalVar = std::make_shared<GlobalVar>(kernel);
  return r.globalVar;
}

const ExprPtr& KernelRefs::tirVars(const std::string& kernel, const std::vector<std::string>& names) {
  static const ExprPtr none;
  if (names.empty()) return none;
  Refs& r = byKernel_[kernel];
  if (!r.tirVars || r.tirVarNames != names) {  // a kernel's free dims are its own: the same at every call
    std::vector<PrimExprPtr> values;
    for (auto& d : names) values.push_back(primVar(d));
    r.tirVars = std::make_shared<ShapeExpr>(values);
    r.tirVarNames = names;
  }
  return r.tirVars;
}

namespace {

std::shared_ptr<Call> callTirWith(ExprPtr kernel, ExprPtr tirVars, std::vector<ExprPtr> operands, const StructInfoPtr& result) {
  auto call = std::make_shared<Call>();
  call->def = &op::builtin::callTir();
  call->op = call->def->name;
  call->args = {std::move(kernel), std::make_shared<Tuple>(std::move(operands))};
  if (result && result->kind == StructInfo::Kind::Tuple) {
    call->sinfoArgs = result->fields;
    call->sinfoArgsAsList = true;
  } else {
    call->sinfoArgs = {result};
  }
  call->sinfoKey = Call::SInfoArgsKey::OutSInfo;
  if (tirVars) {
    call->args.push_back(std::move(tirVars));
    call->trailingArgNames = {"tir_vars"};  // printed after out_sinfo, by keyword
    call->trailingArgsFrom = 2;
  }
  return call;
}

}  // namespace

std::shared_ptr<Call> callTir(KernelRefs& refs, const std::string& kernel, std::vector<ExprPtr> operands, const StructInfoPtr& result,
                              const std::vector<std::string>& tirVars) {
  return callTirWith(refs.globalVar(kernel), refs.tirVars(kernel, tirVars), std::move(operands), result);
}

namespace {

// The names of the kernels the module's Relax functions still call.
std::set<std::string> calledKernels(const IRModule& m) {
  std::set<std::string> called;
  for (auto& f : m.functions)
    if (f.relax)
      forEachBinding(*f.relax, [&](const Binding& b) {
        if (auto* c = as<Call>(b.value); c && !c->args.empty())
          if (auto* g = as<GlobalVar>(c->args[0])) called.insert(g->name);
      });
  return called;
}

}  // namespace

void dropUncalledKernels(LegalizedModule& m) {
  std::set<std::string> called = calledKernels(m.module), dropped;
  size_t kept = 0;
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    std::string name = primNameOf(m.kernels[i]);
    if (m.computes[i].signature.empty() && !called.count(name)) {
      dropped.insert(name);
      continue;
    }
    if (kept != i) {
      m.kernels[kept] = std::move(m.kernels[i]);
      m.computes[kept] = std::move(m.computes[i]);
      m.kernelVDevices[kept] = std::move(m.kernelVDevices[i]);
    }
    ++kept;
  }
  m.kernels.resize(kept);
  m.computes.resize(kept);
  m.kernelVDevices.resize(kept);
  m.module.functions.erase(std::remove_if(m.module.functions.begin(), m.module.functions.end(),
                                          [&](const ModuleFunction& f) { return f.tir && dropped.count(f.name); }),
                           m.module.functions.end());
}

}  // namespace tvms::transform
