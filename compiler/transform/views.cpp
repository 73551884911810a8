#include "compiler/transform/views.h"

#include <unordered_map>

#include "compiler/op/registry.h"
#include "compiler/transform/kernel_prims.h"
#include "compiler/transform/rewriter.h"

namespace tvms::transform {

using namespace ir;

namespace {

// for i in range(n): out[i] = in[i], between two buffers of one dtype.
bool copiesInOrder(const tir::Kernel& k) {
  if (!k.signature.empty() || k.buffers.size() != 2 || !k.buffers[0].param || !k.buffers[1].param || k.buffers[0].type != k.buffers[1].type ||
      k.body.size() != 1)
    return false;
  const tir::Stmt& loop = *k.body[0];
  if (loop.kind != tir::Stmt::Kind::For || loop.body.size() != 1) return false;
  const tir::Stmt& s = *loop.body[0];
  auto isLoopVar = [&](const tir::ExprP& e) { return e && e->kind == tir::Expr::Kind::Var && e->id == loop.var; };
  return s.kind == tir::Stmt::Kind::Store && s.buffer == 1 && isLoopVar(s.index) && s.value->kind == tir::Expr::Kind::Load &&
         s.value->id == 0 && isLoopVar(s.value->a);
}

bool writesInPlace(const IRModule& m) {
  bool found = false;
  for (auto& f : m.functions)
    if (f.relax)
      forEachBinding(*f.relax, [&](const Binding& b) {
        auto* c = as<Call>(b.value);
        found |= c && c->def == &op::builtin::callTirInplace();
      });
  return found;
}

}  // namespace

LegalizedModule rewriteDataflowReshape(LegalizedModule m) {
  if (writesInPlace(m.module)) return m;
  auto byName = computesByName(m);
  auto copies = [&](const std::string& prim) {
    auto it = byName.find(prim);
    return it != byName.end() && copiesInOrder(m.computes[it->second]);
  };
  auto view = [&](const BindingPtr& b) -> BindingPtr {
    auto* c = as<Call>(b->value);
    if (!c || c->callee || c->def != &op::builtin::callTir() || c->args.size() != 2 || b->vars.size() != 1) return b;
    auto* g = as<GlobalVar>(c->args[0]);
    auto* operands = as<Tuple>(c->args[1]);
    const StructInfo* out = b->vars[0]->annotation.get();
    if (!g || !copies(g->name) || !operands || operands->fields.size() != 1 || !as<Var>(operands->fields[0]) || !out || !out->shape) return b;
    auto call = std::make_shared<Call>();
    call->def = &op::builtin::reshape();
    call->op = call->def->name;
    call->args = {operands->fields[0], std::make_shared<ShapeExpr>(*out->shape)};
    auto copy = std::make_shared<Binding>(*b);
    copy->value = call;
    return copy;
  };
  for (auto& f : m.module.functions)
    if (f.relax) f.relax = mapBindings(*f.relax, view);
  dropUncalledKernels(m);
  return m;
}

}  // namespace tvms::transform
