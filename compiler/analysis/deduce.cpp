// Struct-info deduction of one Relax function: every binding of every block (dataflow or not), If
// branches, tuples, calls of module functions; annotations and returns checked against it. Vdevice
// origins are tracked per variable so that a conflict can show where each side came from.
#include "compiler/analysis/deduce.h"

#include <algorithm>

#include "compiler/analysis/relation.h"
#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"
#include "runtime/dtype.h"

namespace tvms::analysis {

using namespace ir;
using diag::Related;

namespace {

// A tensor whose static shape holds more bytes than a 64-bit size can count (TVS108): no device can
// hold it, and a wrapped count would allocate a few bytes that kernels then write far past. Shapes
// with symbolic dims are checked when the VM allocates them.
std::optional<std::string> tooLarge(const StructInfo* s) {
  if (!s) return std::nullopt;
  if (s->kind == StructInfo::Kind::Tuple) {
    for (auto& f : s->fields)
      if (auto why = tooLarge(f.get())) return why;
    return std::nullopt;
  }
  if (s->kind != StructInfo::Kind::Tensor || !s->shape) return std::nullopt;
  auto dt = runtime::dtypeFromName(s->dtype);
  int64_t bytes = dt ? static_cast<int64_t>(runtime::dtypeBytes(*dt)) : 1;
  bool overflows = false;
  for (auto& d : *s->shape) {
    if (!d || d->kind != PrimExpr::Kind::Int) return std::nullopt;
    if (d->value == 0) return std::nullopt;
    if (d->value > 0) overflows |= __builtin_mul_overflow(bytes, d->value, &bytes);
  }
  if (!overflows) return std::nullopt;
  std::string shape;
  for (auto& d : *s->shape) shape += (shape.empty() ? "" : ", ") + ir::printPrimExpr(d);
  return "a tensor of shape (" + shape + ") and dtype " + s->dtype + " holds more bytes than a 64-bit size can count";
}

constexpr size_t kMaxChain = 4;

class Deducer {
 public:
  Deducer(const DeduceContext& c, FunctionAnalysis& out) : ctx_(c), out_(out) {}

  // Every module function the deduction looks at is recorded: its analysis depends on their
  // signatures (analyzeModule reuses it while they are unchanged).
  const ModuleFunction* moduleFunction(const std::string& name) {
    if (std::find(out_.globalsUsed.begin(), out_.globalsUsed.end(), name) == out_.globalsUsed.end()) out_.globalsUsed.push_back(name);
    return ctx_.module.function(name);
  }

  void run(const Function& fn) {
    for (auto& p : fn.params) {
      VarFact f;
      f.sinfo = placedOnly(p->annotation);
      if (placedOn(f.sinfo.get()))
        f.placement.push_back({where(p.get()), "'" + p->name + "' is on '" + f.sinfo->vdevice->spelling +
                                                      "' (its annotation)"});
      if (auto why = tooLarge(f.sinfo.get())) out_.diagnostics.push_back(diag::make(diag::Code::TVS108, where(p.get()), "parameter '" + p->name + "': " + *why));
      out_.vars[p.get()] = std::move(f);
    }
    if (!fn.body) return;
    std::vector<Related> origin;
    StructInfoPtr body = seq(*fn.body, origin);
    StructInfoPtr ann = placedOnly(fn.retAnnotation);
    out_.ret = ann ? ann : body;
    if (ann && body && fn.body->body) {
      if (auto why = contradiction(*ann, *body)) {
        ByteRange at = ctx_.map.operand(fn.body.get(), 0);
        auto d = diag::make(diag::Code::TVS105, at, "the returned value does not fit the return annotation: " + *why);
        if (const ByteRange* r = ctx_.map.find(fn.retAnnotation.get())) d.related.push_back({*r, "the return annotation"});
        for (auto& o : origin) d.related.push_back(o);
        out_.diagnostics.push_back(std::move(d));
      } else if (!contradiction(*body, *ann) && !droppedByAnnotation(*ann, *body) && !placedOn(ann.get())) {
        out_.ret = ann;
      }
    }
  }

 private:
  ByteRange where(const void* node) const {
    const ByteRange* r = ctx_.map.find(node);
    return r ? *r : ByteRange{};
  }

  StructInfoPtr seq(const SeqExpr& s, std::vector<Related>& origin) {
    for (auto& block : s.blocks)
      for (auto& b : block->bindings) binding(*b);
    if (!s.body) return nullptr;
    return expr(s.body, origin);
  }

  // The struct info of an expression, and (for a variable) where its vdevice came from.
  StructInfoPtr expr(const ExprPtr& e, std::vector<Related>& origin) {
    if (!e) return nullptr;
    switch (e->kind) {
      case Expr::Kind::Var: {
        auto it = out_.vars.find(static_cast<Var*>(e.get()));
        if (it == out_.vars.end()) return nullptr;
        origin = it->second.placement;
        return it->second.sinfo;
      }
      case Expr::Kind::Constant: return constant(*static_cast<Constant*>(e.get()));
      case Expr::Kind::PrimValue: return ir::primSInfo(static_cast<PrimValue*>(e.get())->value);
      case Expr::Kind::ShapeExpr: {
        auto s = std::make_shared<StructInfo>();
        s->kind = StructInfo::Kind::Shape;
        s->shape = static_cast<ShapeExpr*>(e.get())->values;
        return s;
      }
      case Expr::Kind::StringImm: case Expr::Kind::DataTypeImm: return objectSInfo();
      case Expr::Kind::Tuple: {
        auto s = std::make_shared<StructInfo>();
        s->kind = StructInfo::Kind::Tuple;
        for (auto& f : static_cast<Tuple*>(e.get())->fields) {
          std::vector<Related> o;
          auto fs = expr(f, o);
          if (!fs) return nullptr;
          s->fields.push_back(fs);
          if (origin.empty()) origin = o;
        }
        return s;
      }
      case Expr::Kind::TupleGetItem: {
        auto* g = static_cast<TupleGetItem*>(e.get());
        auto t = expr(g->tuple, origin);
        if (!t || t->kind != StructInfo::Kind::Tuple) return nullptr;
        if (g->index < 0 || g->index >= static_cast<int>(t->fields.size())) {
          out_.diagnostics.push_back(diag::make(diag::Code::TVS103, where(e.get()),
                                                "index " + std::to_string(g->index) + " is out of range for a tuple of " +
                                                    std::to_string(t->fields.size())));
          return nullptr;
        }
        return t->fields[g->index];
      }
      case Expr::Kind::Call: return call(*static_cast<Call*>(e.get()), origin);
      case Expr::Kind::If: {
        auto* i = static_cast<If*>(e.get());
        std::vector<Related> o1, o2;
        expr(i->cond, o1);
        auto a = i->thenBranch ? seq(*i->thenBranch, o1) : nullptr;
        auto b = i->elseBranch ? seq(*i->elseBranch, o2) : nullptr;
        origin = o1;
        return lca(a, b);
      }
      default: return nullptr;
    }
  }

  StructInfoPtr constant(const Constant& c) {
    if (c.metadataIndex >= 0) return tensorSInfo(std::nullopt, c.dtype);
    if (c.value.kind == Value::Kind::Opaque && !c.arrayShape) return nullptr;  // a value not known: unknown, silent
    if (c.arrayShape) {
      std::vector<PrimExprPtr> shape;
      for (int64_t d : *c.arrayShape) shape.push_back(primInt(d));
      return tensorSInfo(shape, c.dtype);
    }
    std::vector<PrimExprPtr> dims;
    const Value* v = &c.value;
    while (v->kind == Value::Kind::List) {
      dims.push_back(primInt(static_cast<int64_t>(v->items.size())));
      if (v->items.empty()) break;
      v = &v->items[0];
    }
    return tensorSInfo(dims, constantDType(c));
  }

  StructInfoPtr call(const Call& c, std::vector<Related>& origin) {
    std::vector<StructInfoPtr> args;
    std::vector<std::vector<Related>> origins;
    for (auto& a : c.args) {
      std::vector<Related> o;
      args.push_back(expr(a, o));
      origins.push_back(std::move(o));
    }
    if (c.callee) return moduleCall(c, args, origins);
    const op::OpDef* def = c.def;
    if (!def) return nullptr;
    op::InferInput in{*def, c, args};
    op::InferResult r = op::inferCall(in);
    for (auto& issue : r.issues) report(c, issue, args, origins);
    if (!r.issues.empty()) {
      bool error = false;
      for (auto& i : r.issues) error |= i.code != diag::Code::TVS214;
      if (error) return nullptr;
    }
    // The result's vdevice came from the operand that carries it (or from the op: to_vdevice).
    if (const VDevice* v = placedOn(r.sinfo.get())) {
      if (def->deviceRule == op::DeviceRule::ToVDevice) {
        origin = {{where(&c), "moved to '" + r.sinfo->vdevice->spelling + "' here"}};
      } else {
        for (size_t i = 0; i < args.size(); ++i)
          if (placedOn(args[i].get()) == v) { origin = origins[i]; break; }
        if (origin.size() >= kMaxChain) origin.erase(origin.begin() + 1);
        origin.push_back({where(&c), "the result of " + def->scriptName() + " stays on '" + r.sinfo->vdevice->spelling + "'"});
      }
    } else if (def->deviceRule == op::DeviceRule::Written && !c.sinfoArgs.empty()) {
      origin = {{where(&c), "placed by the written " + std::string(c.sinfoKey == Call::SInfoArgsKey::OutSInfo ? "out_sinfo" : "sinfo_args")}};
    }
    if (def->deviceRule == op::DeviceRule::ToVDevice && !args.empty() && placedOn(args[0].get()) &&
        placedOn(args[0].get()) == placedOn(r.sinfo.get())) {
      ByteRange x = ctx_.map.operand(&c, 0);
      auto d = diag::make(diag::Code::TVS207, where(&c), "R.to_vdevice onto '" + r.sinfo->vdevice->spelling +
                                                     "', where the value already is: a copy for nothing");
      for (auto& o : origins[0]) d.related.push_back(o);
      if (x.end > x.begin)
        d.fixes.push_back({"Remove the copy", {{where(&c), std::string(ctx_.text.substr(x.begin, x.end - x.begin))}}, true});
      out_.diagnostics.push_back(std::move(d));
    }
    if (def->name == "relax.call_tir" || def->name == "relax.call_tir_inplace") checkCallTir(c, args);
    return r.sinfo;
  }

  ByteRange operandRange(const Call& c, int i) const {
    ByteRange r = i >= 0 ? ctx_.map.operand(&c, static_cast<size_t>(i)) : ByteRange{};
    return r.end > r.begin ? r : where(&c);
  }

  void report(const Call& c, const op::InferIssue& issue, const std::vector<StructInfoPtr>& args,
              const std::vector<std::vector<Related>>& origins) {
    auto d = diag::make(issue.code, operandRange(c, issue.operand), issue.message);
    std::vector<const VDevice*> declared;
    for (int i : issue.operands) {
      if (i < 0 || i >= static_cast<int>(origins.size())) continue;
      for (auto& o : origins[i]) d.related.push_back(o);
      const VDevice* v = placedOn(args[i].get());
      if (v && std::find(declared.begin(), declared.end(), v) == declared.end()) declared.push_back(v);
    }
    // Where each vdevice involved is declared ("cuda:0" may be a surprise: it counts entries).
    if (issue.code == diag::Code::TVS203 || issue.code == diag::Code::TVS214)
      for (const VDevice* v : declared)
        if (const ByteRange* r = ctx_.map.find(v)) d.related.push_back({*r, "vdevice '" + spellingOf(ctx_.module, v) + "' declared here"});
    // A vdevice conflict offers to move the second operand onto the first one's vdevice.
    if ((issue.code == diag::Code::TVS203 || issue.code == diag::Code::TVS214) && issue.operands.size() == 2) {
      int keep = issue.operands[0], move = issue.operands[1];
      const VDevice* target = placedOn(args[keep].get());
      ByteRange r = ctx_.map.operand(&c, static_cast<size_t>(move));
      if (target && r.end > r.begin && args[move] && args[move]->kind == StructInfo::Kind::Tensor) {
        std::string spell = spellingOf(ctx_.module, target);
        std::string operandText(ctx_.text.substr(r.begin, r.end - r.begin));
        d.fixes.push_back({"Move " + operandText + " to '" + spell + "' with R.to_vdevice",
                           {{r, "R.to_vdevice(" + operandText + ", \"" + spell + "\")"}}, false});
      }
    }
    out_.diagnostics.push_back(std::move(d));
  }

  StructInfoPtr moduleCall(const Call& c, const std::vector<StructInfoPtr>& args,
                           const std::vector<std::vector<Related>>& origins) {
    auto* gv = as<GlobalVar>(c.callee);
    if (auto* local = as<Var>(c.callee)) return localCall(c, *local, args);
    if (!gv) return nullptr;
    const ModuleFunction* f = moduleFunction(gv->name);
    if (!f || !f->relax) return nullptr;
    const Function& callee = *f->relax;
    if (args.size() != callee.params.size()) {
      out_.diagnostics.push_back(diag::make(diag::Code::TVS005, where(&c),
                                            "'" + callee.name + "' takes " + std::to_string(callee.params.size()) +
                                                " arguments, " + std::to_string(args.size()) + " given"));
      return nullptr;
    }
    bool ok = true;
    for (size_t i = 0; i < args.size(); ++i) {
      StructInfoPtr param = placedOnly(callee.params[i]->annotation);
      if (!param || !args[i]) continue;
      ByteRange at = operandRange(c, static_cast<int>(i));
      Related declared{where(callee.params[i].get()), "parameter '" + callee.params[i]->name + "' of '" + callee.name + "'"};
      const VDevice* pv = placedOn(param.get());
      const VDevice* av = placedOn(args[i].get());
      if (pv && av && pv != av) {
        auto d = diag::make(diag::Code::TVS203, at, "argument " + std::to_string(i) + " is on '" + args[i]->vdevice->spelling +
                                              "' but parameter '" + callee.params[i]->name + "' of '" + callee.name +
                                              "' is on '" + param->vdevice->spelling + "'");
        d.related.push_back(declared);
        for (auto& o : origins[i]) d.related.push_back(o);
        std::string operandText(ctx_.text.substr(at.begin, at.end - at.begin));
        std::string spell = spellingOf(ctx_.module, pv);
        d.fixes.push_back({"Move " + operandText + " to '" + spell + "' with R.to_vdevice",
                           {{at, "R.to_vdevice(" + operandText + ", \"" + spell + "\")"}}, false});
        out_.diagnostics.push_back(std::move(d));
        ok = false;
        continue;
      }
      std::optional<std::string> why = contradiction(*param, *args[i]);
      if (!why && pv && !av && args[i]->kind == StructInfo::Kind::Tensor)
        why = "the parameter is on '" + param->vdevice->spelling + "' and the argument has no vdevice";
      if (why) {
        auto d = diag::make(diag::Code::TVS104, at, "argument " + std::to_string(i) + " does not fit parameter '" +
                                              callee.params[i]->name + "' of '" + callee.name + "': " + *why);
        d.related.push_back(declared);
        out_.diagnostics.push_back(std::move(d));
        ok = false;
      }
    }
    if (!ok) return nullptr;
    return placedOnly(callee.retAnnotation);
  }

  // A call of a local function value (a nested @R.function, an R.Callable parameter): the arguments
  // against its signature's parameters, the result its signature's return.
  StructInfoPtr localCall(const Call& c, const Var& callee, const std::vector<StructInfoPtr>& args) {
    const StructInfo* sig = callee.annotation.get();
    if (!sig || sig->kind != StructInfo::Kind::Func) return nullptr;
    Related declared{where(&callee), "'" + callee.name + "' is defined here"};
    if (sig->params && sig->params->size() != args.size()) {
      auto d = diag::make(diag::Code::TVS104, where(&c), "'" + callee.name + "' takes " + std::to_string(sig->params->size()) +
                                                  " arguments, " + std::to_string(args.size()) + " given");
      d.related.push_back(declared);
      out_.diagnostics.push_back(std::move(d));
      return nullptr;
    }
    for (size_t i = 0; sig->params && i < args.size(); ++i) {
      StructInfoPtr param = placedOnly((*sig->params)[i]);
      if (!param || !args[i]) continue;
      if (auto why = contradiction(*param, *args[i])) {
        auto d = diag::make(diag::Code::TVS104, operandRange(c, static_cast<int>(i)),
                            "argument " + std::to_string(i) + " does not fit parameter " + std::to_string(i) + " of '" +
                                callee.name + "': " + *why);
        d.related.push_back(declared);
        out_.diagnostics.push_back(std::move(d));
        return nullptr;
      }
    }
    return placedOnly(sig->ret);
  }

  // R.call_tir(cls.kernel, (inputs...), out_sinfo, tir_vars): the prim_func's parameters are the inputs
  // (tensors, and R.prim_value scalars), then the outputs that are not written in place
  // (call_tir_inplace's index -1), then the tir_vars; buffers must match their tensors.
  void checkCallTir(const Call& c, const std::vector<StructInfoPtr>& args) {
    if (c.args.empty()) return;
    auto* gv = as<GlobalVar>(c.args[0]);
    if (!gv) return;
    const ModuleFunction* f = moduleFunction(gv->name);
    if (!f || !f->tir) return;
    const PrimFunc& pf = *f->tir;
    std::vector<const TirBuffer*> slots;  // null: a scalar, or a handle without T.match_buffer
    size_t matched = 0;
    for (auto& p : pf.params) {
      if (p.kind == TirParam::Kind::Buffer) slots.push_back(&p.buffer);
      else if (p.kind == TirParam::Kind::Handle && matched < pf.matchedBuffers.size()) slots.push_back(&pf.matchedBuffers[matched++]);
      else if (p.kind == TirParam::Kind::Other) return;  // not modelled
      else slots.push_back(nullptr);
    }
    if (args.size() < 2 || !args[1]) return;
    std::vector<StructInfoPtr> actual = args[1]->kind == StructInfo::Kind::Tuple ? args[1]->fields
                                                                                  : std::vector<StructInfoPtr>{args[1]};
    size_t inputs = actual.size();
    std::vector<int64_t> inplace;
    for (auto& a : c.attrs)
      if (a.name == "inplace_indices") {
        if (a.value.kind == Value::Kind::Int) inplace.push_back(a.value.integer);
        for (auto& item : a.value.items) inplace.push_back(item.integer);
      }
    size_t outputs = 0;
    for (size_t i = 0; i < c.sinfoArgs.size(); ++i) {
      bool inPlace = i < inplace.size() && inplace[i] >= 0;
      if (!inPlace) {
        actual.push_back(placedOnly(c.sinfoArgs[i]));
        ++outputs;
      }
    }
    size_t tirVars = 0;
    if (c.args.size() > 2 && c.args[2])
      if (auto* shape = as<ShapeExpr>(c.args[2])) tirVars = shape->values.size();
    for (size_t i = 0; i < tirVars; ++i) actual.push_back(nullptr);
    Related sig{where(&pf), "the prim_func '" + pf.name + "'"};
    if (slots.size() != actual.size()) {
      std::string passes = std::to_string(inputs) + " input" + (inputs == 1 ? "" : "s") + " and " +
                           std::to_string(outputs) + " output" + (outputs == 1 ? "" : "s");
      if (tirVars) passes += " and " + std::to_string(tirVars) + " tir_vars";
      auto d = diag::make(diag::Code::TVS107, where(&c),
                          "'" + pf.name + "' takes " + std::to_string(slots.size()) + " parameters, but the call passes " +
                              passes);
      d.related.push_back(sig);
      out_.diagnostics.push_back(std::move(d));
      return;
    }
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!slots[i] || !actual[i] || actual[i]->kind != StructInfo::Kind::Tensor) continue;
      auto want = tensorSInfo(slots[i]->shape, slots[i]->dtype);
      if (auto why = contradiction(*want, *actual[i])) {
        bool output = i >= inputs;
        auto d = diag::make(diag::Code::TVS107, output ? where(&c) : operandRange(c, 1),
                            "buffer '" + slots[i]->name + "' of '" + pf.name + "' does not match the " +
                                (output ? "out_sinfo" : "argument") + ": " + *why);
        d.related.push_back(sig);
        out_.diagnostics.push_back(std::move(d));
      }
    }
  }

  void binding(const Binding& b) {
    std::vector<Related> origin;
    StructInfoPtr value = expr(b.value, origin);
    ByteRange valueRange = ctx_.map.operand(&b, 0);
    if (auto why = tooLarge(value.get())) out_.diagnostics.push_back(diag::make(diag::Code::TVS108, where(&b), *why));
    if (b.kind == Binding::Kind::Unpack) {
      bool tuple = value && value->kind == StructInfo::Kind::Tuple;
      if (tuple && value->fields.size() != b.vars.size())
        out_.diagnostics.push_back(diag::make(diag::Code::TVS104, where(&b),
                                              "unpacks " + std::to_string(b.vars.size()) + " names from a tuple of " +
                                                  std::to_string(value->fields.size())));
      for (size_t i = 0; i < b.vars.size(); ++i) {
        VarFact f;
        if (tuple && value->fields.size() == b.vars.size()) f.sinfo = value->fields[i];
        f.placement = origin;
        out_.vars[b.vars[i].get()] = std::move(f);
      }
      return;
    }
    const Var& var = *b.vars[0];
    VarFact fact;
    fact.placement = origin;
    if (b.kind == Binding::Kind::MatchCast) {
      StructInfoPtr cast = placedOnly(b.castSInfo);
      if (cast && value)
        if (auto why = contradiction(*cast, *value))
          out_.diagnostics.push_back(diag::make(diag::Code::TVS104, valueRange.end > valueRange.begin ? valueRange : where(&b),
                                                "R.match_cast can never succeed: " + *why));
      fact.sinfo = cast;
      out_.vars[&var] = std::move(fact);
      return;
    }
    StructInfoPtr ann = placedOnly(var.annotation);
    fact.sinfo = value;
    if (ann) {
      ByteRange annRange = ctx_.map.operand(&b, 1);
      if (annRange.end <= annRange.begin) annRange = where(&b);
      bool fresh = b.value && b.value->kind == Expr::Kind::Call;
      if (value) {
        if (auto why = contradiction(*ann, *value)) {
          auto d = diag::make(diag::Code::TVS104, annRange, "the annotation of '" + var.name + "' contradicts its deduced struct info: " + *why);
          d.related.push_back({valueRange, "deduced from this value"});
          for (auto& o : origin) d.related.push_back(o);
          out_.diagnostics.push_back(std::move(d));
          fact.sinfo = nullptr;
          out_.vars[&var] = std::move(fact);
          return;
        }
      }
      if (fresh) {
        // TVM gives a freshly built call the annotation as its struct info: how a result is placed.
        fact.sinfo = ann;
        if (const VDevice* v = placedOn(ann.get()); v && placedOn(value.get()) != v)
          fact.placement = {{annRange, "'" + var.name + "' is annotated on '" + ann->vdevice->spelling + "'"}};
      } else if (value) {
        if (auto lost = droppedByAnnotation(*ann, *value)) {
          auto d = diag::make(diag::Code::TVS106, annRange,
                              "TVM keeps the struct info of the right side and drops the annotated " + *lost + " of '" +
                                  var.name + "': the right side is already typed");
          std::string rhs(ctx_.text.substr(valueRange.begin, valueRange.end - valueRange.begin));
          if (placedOn(ann.get()) && valueRange.end > valueRange.begin)
            d.fixes.push_back({"Copy with R.to_vdevice", {{valueRange, "R.to_vdevice(" + rhs + ", \"" +
                                                                         spellingOf(ctx_.module, placedOn(ann.get())) + "\")"}}, false});
          out_.diagnostics.push_back(std::move(d));
        }
      }
    }
    if (fact.placement.size() > kMaxChain) fact.placement.erase(fact.placement.begin() + 1, fact.placement.end() - (kMaxChain - 1));
    out_.vars[&var] = std::move(fact);
  }

  const DeduceContext& ctx_;
  FunctionAnalysis& out_;
};

}  // namespace

std::shared_ptr<FunctionAnalysis> deduceFunction(const DeduceContext& ctx, const Function& fn) {
  auto out = std::make_shared<FunctionAnalysis>();
  out->function = &fn;
  // A function that uses Python values TVM evaluates and tvms does not yet (TVS011 says so): its struct
  // info checks would judge values tvms does not know, so they are not reported.
  Deducer(ctx, *out).run(fn);
  if (fn.capturesPython)
    std::erase_if(out->diagnostics, [](const diag::Diagnostic& d) { return diag::codeName(d.code).starts_with("TVS1"); });
  return out;
}

}  // namespace tvms::analysis
