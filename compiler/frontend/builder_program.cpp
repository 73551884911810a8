// TVM's builder APIs given their meaning over the static evaluator (see builder_program.h): the
// IRBuilder's and BlockBuilder's frames and calls. Modules are assembled in builder_modules.cpp, the
// pipeline is modelled in builder_pipeline.cpp. Each builder program (an IRBuilder or a BlockBuilder) lowers into its own
// Region through a Lowerer that reads the program's names, so the functions it builds have the same
// IR and source map as TVMScript: expressions keep their ranges, variables are defined at the Python
// names they are assigned to.
#include "compiler/frontend/builder_program.h"

#include <algorithm>

#include "compiler/frontend/builder_modules.h"
#include "compiler/frontend/builder_objects.h"
#include "compiler/frontend/builder_pipeline.h"
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/python_eval.h"
#include "compiler/op/registry.h"
#include "runtime/target_kind.h"

namespace tvms::frontend {

using namespace ir;
using namespace builder;

namespace {

// The builder API's own spellings as the parser's: `relax_builder.emit` is `R.emit`.
std::string builderName(std::string n) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"tvm.script.ir_builder.relax.", "R."}, {"tvm.script.ir_builder.ir.", "I."}, {"tvm.script.parser.relax.", "R."},
      {"tvm.relax.script.ir_builder.", "R."}};
  for (auto& [from, to] : prefixes)
    if (n.rfind(from, 0) == 0) n = to + n.substr(std::string_view(from).size());
  // The builder API's newer spellings with a trailing underscore.
  if (n == "R.func_name_") return "R.func_name";
  if (n == "R.arg_") return "R.arg";
  if (n == "R.func_ret_type_" || n == "R.func_ret_struct_info_") return "R.func_ret_struct_info";
  return n;
}

// The node of argument `index` (positional) or `name` (keyword) of a call's argument list, without
// evaluating anything: what builders lower themselves must be lowered once.
TSNode argumentNode(TSNode list, size_t index, std::string_view name, const syntax::Document& doc) {
  size_t position = 0;
  for (TSNode a : namedChildren(list)) {
    if (isType(a, "keyword_argument")) {
      if (doc.nodeText(field(a, "name")) == name) return field(a, "value");
      continue;
    }
    if (isType(a, "list_splat") || isType(a, "dictionary_splat")) return TSNode{};
    if (position++ == index) return a;
  }
  return TSNode{};
}

// `name = <call>`: the name node, else null.
TSNode assignmentTarget(TSNode call) {
  TSNode p = ts_node_parent(call);
  if (isType(p, "assignment") && ts_node_eq(field(p, "right"), call) && isType(field(p, "left"), "identifier"))
    return field(p, "left");
  return TSNode{};
}

class Program final : public PythonEvaluator::Hooks {
 public:
  Program(const syntax::Document& doc, const Aliases& aliases, const TvmscriptLowering& lower)
      : doc_(doc), aliases_(aliases), lowerTvmscript_(lower), py_(doc, aliases, *this) {}

  ProgramResult run() {
    py_.run();
    ProgramResult out;
    for (auto& st : states_) finishRegion(*st);
    // A module whose program was not followed everywhere inside its statements may miss uses.
    for (auto& r : regions_) {
      if (!r->builtByProgram) continue;
      for (auto& d : py_.diagnostics())
        if (d.code == diag::Code::TVS011 && d.range.begin >= r->range.begin && d.range.begin < r->range.end) r->partial = true;
      for (auto& d : r->diagnostics) r->partial |= d.code == diag::Code::TVS011;
    }
    // Modules built in one file get distinct class names (Module, Module_1, ...), as `tvms convert`
    // writes them side by side.
    int built = 0;
    for (auto& r : regions_)
      if (r->builtByProgram && !r->module->functions.empty() && built++) r->module->name = "Module_" + std::to_string(built - 1);
    // A builder state that built no function (struct info made for TVMScript, a builder unused) is
    // no module: its region goes, and the pipeline's index follows.
    std::optional<size_t> pipelineRegion;
    const std::optional<ProgramPipeline>& pipeline = pipelineModel_.pipeline();
    for (size_t i = 0; i < regions_.size(); ++i) {
      Region& r = *regions_[i];
      if (r.builtByProgram && r.module->functions.empty() && !builtSomething_.count(i)) continue;
      if (pipeline && pipeline->region == i) pipelineRegion = out.regions.size();
      out.regions.push_back(std::move(r));
    }
    out.lowered = lowered_;
    if (pipeline && pipelineRegion) {
      out.pipeline = pipeline;
      out.pipeline->region = *pipelineRegion;
    }
    out.diagnostics = std::move(py_.diagnostics());
    return out;
  }

  // ---- Hooks
  PyValue tvmscript(TSNode decorated) override {
    uint32_t at = ts_node_start_byte(doc_.definitionAt(decorated));
    if (auto it = definitions_.find(at); it != definitions_.end()) return it->second;  // reached again
    std::vector<Region> made;
    lowerTvmscript_(decorated, &py_, made);
    lowered_.insert(at);
    PyValue bound = PyValue::unknown("a TVMScript definition");
    for (auto& r : made) {
      size_t index = regions_.size();
      regions_.push_back(std::make_unique<Region>(std::move(r)));
      Region& region = *regions_.back();
      if (!region.module) continue;
      if (!region.module->standalone) {
        auto m = std::make_shared<ModuleObj>();
        m->region = index;
        bound = PyValue::ofObject(m);
      } else if (!region.module->functions.empty()) {
        auto f = std::make_shared<FunctionObj>();
        f->region = index;
        f->relax = region.module->functions[0].relax;
        f->tir = region.module->functions[0].tir;
        bound = PyValue::ofObject(f);
      }
    }
    definitions_[at] = bound;
    return bound;
  }

  std::optional<PyValue> attribute(const PyValue& object, const std::string& name, TSNode) override {
    if (auto* f = object.as<DataflowFrameObj>(); f && name == "output_vars") {
      PyValue v = PyValue::ofSequence({}, false);
      v.items = f->outputs;
      return v;
    }
    return std::nullopt;
  }

  std::optional<PyValue> subscript(const PyValue& object, const PyValue& index, TSNode) override {
    if (auto* m = object.as<ModuleObj>(); m && index.kind == PyValue::Kind::Str) {
      Region& r = *regions_[m->region];
      if (auto* mf = r.module->function(index.text)) {
        auto f = std::make_shared<FunctionObj>();
        f->region = m->region;
        f->relax = mf->relax;
        f->tir = mf->tir;
        return PyValue::ofObject(f);
      }
    }
    return std::nullopt;
  }

  std::optional<PyValue> enter(const PyValue& value, TSNode item) override {
    if (auto* b = value.as<IRBuilderObj>()) {
      irbuilders_.push_back(b->st);
      extend(*b->st, item);
      return value;
    }
    if (auto* f = value.as<FunctionFrameObj>()) {
      beginFunction(*f, item);
      return value;
    }
    if (auto* d = value.as<DataflowFrameObj>()) {
      auto& st = *d->st;
      if (!st.fn) return value;
      st.block = std::make_shared<BindingBlock>();
      st.block->dataflow = true;
      st.seq->blocks.push_back(st.block);
      st.outputs = d->outputs;
      return value;
    }
    if (auto* m = value.as<ModuleFrameObj>()) {
      m->st->moduleFrame = true;
      return value;
    }
    if (pipelineModel_.enter(value)) return value;
    return std::nullopt;
  }

  void exit(const PyValue& value, TSNode item) override {
    if (value.as<IRBuilderObj>()) {
      if (!irbuilders_.empty()) irbuilders_.pop_back();
    } else if (auto* f = value.as<FunctionFrameObj>()) {
      endFunction(*f->st, item);
    } else if (auto* d = value.as<DataflowFrameObj>()) {
      auto& st = *d->st;
      if (st.block && st.block->dataflow) st.block = nullptr;
      st.outputs = nullptr;
    } else {
      pipelineModel_.exit(value);
    }
  }

  std::optional<PyValue> call(const PyValue& callee, TSNode call) override {
    if (auto* m = callee.as<BoundMethod>()) return method(*m, call);
    if (auto applied = pipelineModel_.callObject(callee, call)) return applied;
    if (callee.kind != PyValue::Kind::Namespace) return std::nullopt;
    std::string name = builderName(py_.canonicalName(callee));
    if (name == "tvm.script.ir_builder.IRBuilder" || name == "tvm.script.ir_builder.base.IRBuilder") {
      auto b = std::make_shared<IRBuilderObj>();
      b->st = newState(call, false);
      return PyValue::ofObject(b);
    }
    if (name == "tvm.relax.BlockBuilder") {
      auto b = std::make_shared<BlockBuilderObj>();
      b->st = newState(call, true);
      return PyValue::ofObject(b);
    }
    if (name == "tvm.relax.Var" || name == "tvm.relax.DataflowVar") return newVarValue(call, name == "tvm.relax.DataflowVar");
    if (name == "tvm.IRModule" || name == "tvm.ir.IRModule" || name == "tvm.ir.module.IRModule") return modules_.assemble(call);
    if (name == "tvm.IRModule.from_expr" || name == "tvm.ir.IRModule.from_expr") return modules_.assemble(call, "main");
    if (auto r = pipelineModel_.call(name, call)) return r;  // passes, PassContext, relax.build, the VM
    if (name.rfind("R.", 0) == 0 || name.rfind("I.", 0) == 0) return scriptCall(name, call);
    return std::nullopt;
  }

 private:
  // ---- builder states and their regions
  std::shared_ptr<BuilderState> newState(TSNode call, bool blockBuilder) {
    // Variables and struct info made before the builder (TVM's tests make relax.Var first): the
    // builder adopts the state they were lowered into.
    if (blockBuilder && !states_.empty() && states_.back()->pending && states_.back()->frame == py_.frameId()) {
      auto st = states_.back();
      st->pending = false;
      extend(*st, call);
      return st;
    }
    auto st = std::make_shared<BuilderState>();
    st->frame = py_.frameId();
    st->region = regions_.size();
    st->isBlockBuilder = blockBuilder;
    regions_.push_back(std::make_unique<Region>());
    Region& r = *regions_.back();
    r.module = std::make_shared<IRModule>();
    r.builtByProgram = true;
    r.keepAsWritten = true;
    TSNode stmt = statementOf(call);
    r.range = rangeOf(stmt);
    r.indentColumn = ts_node_start_point(stmt).column;
    st->lowerer = std::make_unique<Lowerer>(doc_, aliases_, r);
    st->lowerer->setPython(&py_);
    states_.push_back(st);
    return st;
  }
  Region& regionOf(const BuilderState& st) { return *regions_[st.region]; }
  void extend(BuilderState& st, TSNode n) { extendToStatement(regionOf(st), n); }
  void finishRegion(BuilderState& st) {
    Region& r = regionOf(st);
    if (st.fn) endFunction(st, TSNode{});  // a function frame never closed (an error, or a loop not followed)
    // An IRBuilder function never put in a module is still checked, as the module TVM would make of it.
    if (r.module->functions.empty())
      if (auto* f = st.result.as<FunctionObj>(); f && f->relax) r.module->functions.push_back({f->relax->name, f->relax, nullptr});
  }
  // The IRBuilder state the R.* builder functions act on: the innermost `with IRBuilder()`.
  BuilderState* current() { return irbuilders_.empty() ? nullptr : irbuilders_.back().get(); }
  // The state whose Lowerer lowers an expression made outside any `emit`: the innermost IRBuilder,
  // else the last BlockBuilder made.
  BuilderState* lowering(TSNode call) {
    if (auto* c = current()) return c;
    if (!states_.empty() && states_.back()->isBlockBuilder && states_.back()->frame == py_.frameId())
      return states_.back().get();
    auto st = newState(call, true);  // before any builder: the next BlockBuilder adopts it
    st->pending = true;
    return st.get();
  }

  // ---- functions
  void beginFunction(FunctionFrameObj& f, TSNode item) {
    auto& st = *f.st;
    // A function begun inside another (a subroutine made while main is collected) pauses it.
    if (st.fn) st.suspended.push_back({st.fn, st.seq, st.block, st.outputs});
    st.fn = std::make_shared<Function>();
    st.fn->name = f.name.empty() ? "main" : f.name;
    st.seq = std::make_shared<SeqExpr>();
    st.fn->body = st.seq;
    st.block = nullptr;
    st.lowerer->enterBuilderFunction(st.fn.get());
    if (f.params.isSequence())
      for (auto& p : *f.params.items)
        if (p.kind == PyValue::Kind::Relax)
          if (auto v = std::dynamic_pointer_cast<Var>(p.relax)) st.fn->params.push_back(v);
    Region& r = regionOf(st);
    TSNode with = statementOf(item);
    r.functions.push_back({st.fn->name, rangeOf(with), false});
    r.map.ranges.set(st.fn.get(), rangeOf(with));
    extend(st, item);
  }
  void endFunction(BuilderState& st, TSNode item) {
    if (!st.fn) return;
    builtSomething_.insert(st.region);
    if (!ts_node_is_null(item)) extend(st, item);
    Region& r = regionOf(st);
    if (!r.functions.empty()) r.functions.back().name = st.fn->name;
    auto fobj = std::make_shared<FunctionObj>();
    fobj->region = st.region;
    fobj->relax = st.fn;
    if (st.isBlockBuilder || st.moduleFrame) {
      r.module->functions.push_back({st.fn->name, st.fn, nullptr});
      r.map.names.push_back({NameRef::Kind::Function, r.map.find(st.fn.get()) ? *r.map.find(st.fn.get()) : ByteRange{},
                             st.fn->name, true, st.fn.get()});
    }
    st.result = PyValue::ofObject(fobj);
    st.fn = nullptr;
    st.seq = nullptr;
    st.block = nullptr;
    if (!st.suspended.empty()) {
      auto& s = st.suspended.back();
      st.fn = s.fn;
      st.seq = s.seq;
      st.block = s.block;
      st.outputs = s.outputs;
      st.suspended.pop_back();
      st.lowerer->enterBuilderFunction(st.fn.get());
    }
  }
  BindingBlock& block(BuilderState& st) {
    if (!st.block) {
      st.block = std::make_shared<BindingBlock>();
      st.seq->blocks.push_back(st.block);
    }
    return *st.block;
  }
  VarPtr newVar(BuilderState& st, TSNode call, std::string name, StructInfoPtr ann, bool dataflow) {
    TSNode target = assignmentTarget(call);
    if (name.empty()) name = ts_node_is_null(target) ? "lv" : py_.text(target);
    auto v = std::make_shared<Var>(name, std::move(ann), dataflow);
    Region& r = regionOf(st);
    r.map.ranges.set(v.get(), rangeOf(ts_node_is_null(target) ? call : target));
    if (!ts_node_is_null(target)) st.lowerer->defineBuilderName(target, name, v.get());
    return v;
  }
  // A Relax value named by `n`: what the program holds (a variable, an op call it evaluated), else the
  // expression lowered as TVMScript (`output + bias` reads the program's names). Lowered once.
  ExprPtr relaxValue(BuilderState& st, TSNode n) {
    PyValue v = py_.eval(n);
    if (v.kind == PyValue::Kind::Relax && v.relax) return v.relax;
    if (isType(n, "call")) {
      // subroutine(A, B) with `subroutine` the GlobalVar bb.emit_func_output returned
      PyValue callee = py_.eval(field(n, "function"));
      if (callee.kind == PyValue::Kind::Relax && as<GlobalVar>(callee.relax)) {
        auto c = std::make_shared<Call>();
        c->callee = callee.relax;
        for (TSNode a : namedChildren(field(n, "arguments"))) {
          if (isType(a, "keyword_argument")) continue;
          regionOf(st).map.operands.set({c.get(), static_cast<uint32_t>(c->args.size())}, rangeOf(a));
          c->args.push_back(relaxValue(st, a));
        }
        regionOf(st).map.ranges.set(c.get(), rangeOf(n));
        return c;
      }
    }
    // A call the evaluator could not follow (bb.call_te, a library's function) is no TVMScript to
    // lower: its value is unknown, and the function using it is not checked for struct info.
    if (isType(n, "call")) return unknownValue(st, n, v);
    return st.lowerer->lowerBuilderExpr(n);
  }
  ExprPtr unknownValue(BuilderState& st, TSNode n, const PyValue& v) {
    if (st.fn) st.fn->capturesPython = true;
    std::string what = py_.text(isType(n, "call") ? field(n, "function") : n);
    if (what.size() > 40) what = what.substr(0, 40) + "...";
    if (isType(n, "call")) what += "(...)";
    st.lowerer->noteNotChecked(n, "a value the program computes (`" + what + "`: " + (v.known() ? describe(v) : v.text) +
                                      "): the struct info of the function using it is not checked");
    auto e = std::make_shared<OpaqueExpr>(py_.text(n));
    regionOf(st).map.ranges.set(e.get(), rangeOf(n));
    return e;
  }
  StructInfoPtr structInfo(BuilderState& st, TSNode n) {
    if (ts_node_is_null(n)) return nullptr;
    PyValue v = py_.eval(n);
    if (v.kind == PyValue::Kind::SInfo) return v.sinfo;
    if (!v.known()) {  // a parameter of an uncalled function, a library's value: unknown, not an error
      unknownValue(st, n, v);
      return nullptr;
    }
    if (isType(n, "call")) {
      std::string name = builderName(py_.canonicalName(py_.eval(field(n, "function"))));
      if (name.rfind("R.", 0) != 0) {  // not a struct info TVMScript spells: unknown, not an error
        unknownValue(st, n, v);
        return nullptr;
      }
    }
    return st.lowerer->lowerBuilderSInfo(n);
  }
  TSNode arg(TSNode call, size_t index, std::string_view name) { return argumentNode(field(call, "arguments"), index, name, doc_); }

  // `value` bound to a new variable in the open block: R.emit, bb.emit, bb.emit_output.
  PyValue emit(BuilderState& st, TSNode call, TSNode valueNode, StructInfoPtr ann, bool output, std::string nameHint = "") {
    if (!st.fn) {
      py_.notFollowed(call, "an emit outside a function frame (`with relax_builder.function():` / `with bb.function(...)`)");
      return PyValue::unknown("an emit outside a function");
    }
    extend(st, call);
    ExprPtr value = relaxValue(st, valueNode);
    BindingBlock& b = block(st);
    bool dataflow = b.dataflow && !output;
    auto binding = std::make_shared<Binding>();
    binding->vars.push_back(newVar(st, call, std::move(nameHint), std::move(ann), dataflow));
    binding->value = value;
    Region& r = regionOf(st);
    r.map.ranges.set(binding.get(), rangeOf(statementOf(call)));
    r.map.operands.set({binding.get(), 0}, rangeOf(valueNode));
    b.bindings.push_back(binding);
    return PyValue::ofRelax(binding->vars[0]);
  }
  PyValue matchCast(BuilderState& st, TSNode call, TSNode valueNode, TSNode sinfoNode) {
    if (!st.fn || ts_node_is_null(valueNode) || ts_node_is_null(sinfoNode)) return PyValue::unknown("a match_cast");
    extend(st, call);
    auto binding = std::make_shared<Binding>();
    binding->kind = Binding::Kind::MatchCast;
    binding->value = relaxValue(st, valueNode);
    binding->castSInfo = structInfo(st, sinfoNode);
    BindingBlock& b = block(st);
    binding->vars.push_back(newVar(st, call, "", nullptr, b.dataflow));
    Region& r = regionOf(st);
    r.map.ranges.set(binding.get(), rangeOf(statementOf(call)));
    r.map.operands.set({binding.get(), 0}, rangeOf(valueNode));
    b.bindings.push_back(binding);
    return PyValue::ofRelax(binding->vars[0]);
  }
  void functionReturn(BuilderState& st, TSNode call, TSNode valueNode) {
    if (!st.fn || ts_node_is_null(valueNode)) return;
    extend(st, call);
    st.seq->body = relaxValue(st, valueNode);
    Region& r = regionOf(st);
    r.map.operands.set({st.seq.get(), 0}, rangeOf(valueNode));
    r.map.ranges.set(st.seq.get(), rangeOf(statementOf(call)));
  }
  PyValue newVarValue(TSNode call, bool dataflow) {
    BuilderState* st = lowering(call);
    PyValue name = py_.eval(arg(call, 0, "name_hint"));
    if (name.kind != PyValue::Kind::Str) return PyValue::unknown("a relax.Var whose name is not known statically");
    StructInfoPtr ann = structInfo(*st, arg(call, 1, "struct_info"));
    extend(*st, call);
    return PyValue::ofRelax(newVar(*st, call, name.text, ann, dataflow));
  }

  // ---- R.* / I.* called from Python: the IRBuilder API, struct info, ops
  std::optional<PyValue> scriptCall(const std::string& name, TSNode call) {
    TSNode argList = field(call, "arguments");
    BuilderState* st = current();
    static const char* frameApi[] = {"R.function", "R.func_name", "R.func_attr", "R.arg", "R.func_ret_struct_info",
                                     "R.dataflow", "R.emit", "R.emit_match_cast", "R.output", "R.func_ret_value",
                                     "I.ir_module", "I.module_global_infos"};
    bool isFrameApi = std::any_of(std::begin(frameApi), std::end(frameApi), [&](const char* f) { return name == f; });
    if (isFrameApi && !st) {
      py_.notFollowed(call, "`" + name + "` outside `with IRBuilder()`: the IRBuilder API needs an active builder");
      return PyValue::unknown("the IRBuilder API without a builder");
    }
    if (isFrameApi) extend(*st, call);
    if (name == "R.function") {
      auto f = std::make_shared<FunctionFrameObj>();
      f->st = irbuilders_.back();
      return PyValue::ofObject(f);
    }
    if (name == "R.dataflow") {
      auto d = std::make_shared<DataflowFrameObj>();
      d->st = irbuilders_.back();
      return PyValue::ofObject(d);
    }
    if (name == "I.ir_module") {
      auto m = std::make_shared<ModuleFrameObj>();
      m->st = irbuilders_.back();
      return PyValue::ofObject(m);
    }
    if (name == "I.module_global_infos") {
      auto args = py_.arguments(argList);
      if (!args.positional.empty()) modules_.setGlobalInfos(st->region, args.positional[0], args.positionalNodes[0]);
      return PyValue::none();
    }
    if (isFrameApi && !st->fn && name != "R.function") {
      py_.notFollowed(call, "`" + name + "` outside a function frame (`with relax_builder.function():`)");
      return PyValue::unknown("the IRBuilder API outside a function");
    }
    if (name == "R.func_name") {
      PyValue fname = py_.eval(arg(call, 0, "name"));
      if (fname.kind == PyValue::Kind::Str) {
        st->fn->name = fname.text;
        auto& r = regionOf(*st);
        if (!r.functions.empty()) r.functions.back().name = st->fn->name;
      }
      return PyValue::none();
    }
    if (name == "R.func_attr") return PyValue::none();  // attributes change no check
    if (name == "R.arg") {
      PyValue pname = py_.eval(arg(call, 0, "name"));
      TSNode sinfo = arg(call, 1, "struct_info");
      if (pname.kind != PyValue::Kind::Str || ts_node_is_null(sinfo)) return PyValue::unknown("an R.arg");
      auto v = newVar(*st, call, pname.text, structInfo(*st, sinfo), false);
      st->fn->params.push_back(v);
      return PyValue::ofRelax(v);
    }
    if (name == "R.func_ret_struct_info") {
      st->fn->retAnnotation = structInfo(*st, arg(call, 0, "ret_sinfo"));
      return PyValue::none();
    }
    if (name == "R.emit") {
      TSNode value = arg(call, 0, "value");
      if (ts_node_is_null(value)) return PyValue::unknown("an emit of nothing");
      return emit(*st, call, value, structInfo(*st, arg(call, 1, "annotate_struct_info")), false);
    }
    if (name == "R.emit_match_cast") return matchCast(*st, call, arg(call, 0, "value"), arg(call, 1, "struct_info"));
    if (name == "R.output") {
      auto args = py_.arguments(argList);
      for (auto& v : args.positional)
        if (v.kind == PyValue::Kind::Relax)
          if (auto* var = as<Var>(v.relax)) {
            var->isDataflow = false;
            if (st->outputs) st->outputs->push_back(v);
          }
      return PyValue::none();
    }
    if (name == "R.func_ret_value") {
      functionReturn(*st, call, arg(call, 0, "value"));
      return PyValue::none();
    }
    // Struct info and ops, lowered by the builder that will use them.
    BuilderState* l = lowering(call);
    if (!l) return std::nullopt;
    static const char* sinfoNames[] = {"R.Tensor", "R.Tuple", "R.Shape", "R.Prim", "R.Object", "R.Callable"};
    if (std::any_of(std::begin(sinfoNames), std::end(sinfoNames), [&](const char* s) { return name == s; })) {
      PyValue v;
      v.kind = PyValue::Kind::SInfo;
      v.sinfo = l->lowerer->lowerBuilderSInfo(call);
      return v;
    }
    if (name.rfind("R.", 0) == 0) {
      // An op of the registry, or a value TVMScript spells with R.: lowered. Anything else of R. in a
      // program is the builder API's (R.emit_var_binding, ...), not followed.
      static const char* values[] = {"R.const", "R.shape", "R.ShapeExpr", "R.prim_value", "R.str", "R.dtype", "R.tuple",
                                     "R.TupleGetItem", "R.ExternFunc", "R.linear"};
      std::string opName = "relax." + name.substr(2);
      bool value = std::any_of(std::begin(values), std::end(values), [&](const char* v) { return name == v; });
      if (value || op::findOp(opName) || op::isKnownOpName(opName)) return PyValue::ofRelax(l->lowerer->lowerBuilderExpr(call));
      py_.notFollowed(call, "`" + name + "(...)` of the builder API is not followed");
      return PyValue::unknown("`" + name + "(...)`");
    }
    return std::nullopt;
  }

  // ---- BlockBuilder and module methods
  std::optional<PyValue> method(const BoundMethod& m, TSNode call) {
    TSNode argList = field(call, "arguments");
    if (auto* b = m.receiver.as<BlockBuilderObj>()) {
      auto& st = *b->st;
      extend(st, call);
      if (m.name == "function") {
        auto f = std::make_shared<FunctionFrameObj>();
        f->st = b->st;
        if (PyValue n = py_.eval(arg(call, 0, "name")); n.kind == PyValue::Kind::Str) f->name = n.text;
        if (TSNode p = arg(call, 1, "params"); !ts_node_is_null(p)) f->params = py_.eval(p);
        return PyValue::ofObject(f);
      }
      if (m.name == "dataflow") {
        auto d = std::make_shared<DataflowFrameObj>();
        d->st = b->st;
        return PyValue::ofObject(d);
      }
      if (m.name == "emit" || m.name == "emit_output" || m.name == "emit_normalized") {
        TSNode value = arg(call, 0, m.name == "emit_output" ? "output" : "expr");
        if (ts_node_is_null(value)) return PyValue::unknown("an emit of nothing");
        std::string hint;
        if (PyValue h = py_.eval(arg(call, 1, "name_hint")); h.kind == PyValue::Kind::Str) hint = h.text;
        return emit(st, call, value, nullptr, m.name == "emit_output", hint);
      }
      if (m.name == "match_cast") return matchCast(st, call, arg(call, 0, "value"), arg(call, 1, "struct_info"));
      if (m.name == "emit_func_output") {
        if (!st.fn) return PyValue::none();
        // params given here when bb.function had none
        if (TSNode pn = arg(call, 1, "params"); !ts_node_is_null(pn) && st.fn->params.empty())
          if (PyValue p = py_.eval(pn); p.isSequence())
            for (auto& x : *p.items)
              if (auto v = std::dynamic_pointer_cast<Var>(x.relax)) st.fn->params.push_back(v);
        functionReturn(st, call, arg(call, 0, "output"));
        return PyValue::ofRelax(std::make_shared<GlobalVar>(st.fn->name));  // TVM returns the function's GlobalVar
      }
      if (m.name == "get" || m.name == "finalize") {
        auto mod = std::make_shared<ModuleObj>();
        mod->region = st.region;
        return PyValue::ofObject(mod);
      }
      if (m.name == "add_func") {
        // A function the file wrote in TVMScript (a @T.prim_func, a standalone @R.function), added under
        // a name: calls of the GlobalVar it returns are checked against it.
        PyValue f = py_.eval(arg(call, 0, "func"));
        PyValue name = py_.eval(arg(call, 1, "func_name"));
        auto* fn = f.as<FunctionObj>();
        if (fn && name.kind == PyValue::Kind::Str) {
          Region& r = regionOf(st);
          if (!r.module->function(name.text)) {
            // The copy is where the original is written (its own region's map says where; another map may
            // hold an entry of a freed object at the original's address): its range is set either way,
            // so an entry this map kept for a freed object at the copy's address is never read for it.
            const void* original = fn->relax ? static_cast<const void*>(fn->relax.get()) : static_cast<const void*>(fn->tir.get());
            const ByteRange* at = fn->region < regions_.size() ? regions_[fn->region]->map.find(original) : nullptr;
            ByteRange range = at ? *at : ByteRange{};
            if (fn->relax) {
              auto copy = std::make_shared<Function>(*fn->relax);
              copy->name = name.text;
              r.map.ranges.set(copy.get(), range);
              r.module->functions.push_back({name.text, copy, nullptr});
            } else if (fn->tir) {
              auto copy = std::make_shared<PrimFunc>(*fn->tir);
              copy->name = name.text;
              r.map.ranges.set(copy.get(), range);
              r.module->functions.push_back({name.text, nullptr, copy});
            }
            builtSomething_.insert(st.region);
          }
          return PyValue::ofRelax(std::make_shared<GlobalVar>(name.text));
        }
      }
      if (m.name == "emit_te" || m.name == "call_te" || m.name == "add_func" || m.name == "update_func") {
        py_.notFollowed(call, "`bb." + m.name + "(...)`: TVM runs the function to make a PrimFunc; its result is not known to tvms");
        if (st.fn) st.fn->capturesPython = true;
        return PyValue::unknown("bb." + m.name);
      }
      return std::nullopt;
    }
    if (auto* b = m.receiver.as<IRBuilderObj>()) {
      if (m.name == "get") {
        if (b->st->moduleFrame) {
          auto mod = std::make_shared<ModuleObj>();
          mod->region = b->st->region;
          return PyValue::ofObject(mod);
        }
        return b->st->result;
      }
      return std::nullopt;
    }
    if (auto* mod = m.receiver.as<ModuleObj>()) {
      if (m.name == "update_global_info") {
        auto args = py_.arguments(argList);
        const PyValue* key = args.get(0, "name");
        if (key && key->kind == PyValue::Kind::Str && key->text == "vdevice" && args.positional.size() > 1)
          modules_.setVDevices(mod->region, args.positional[1], args.positionalNodes[1]);
        return PyValue::none();
      }
      if (m.name == "show" || m.name == "script") return PyValue::none();
      return std::nullopt;
    }
    return std::nullopt;
  }

  const syntax::Document& doc_;
  const Aliases& aliases_;
  const TvmscriptLowering& lowerTvmscript_;
  PythonEvaluator py_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::vector<std::shared_ptr<BuilderState>> states_;
  std::vector<std::shared_ptr<BuilderState>> irbuilders_;
  std::map<uint32_t, PyValue> definitions_;
  std::set<uint32_t> lowered_;
  std::set<size_t> builtSomething_;
  PipelineModel pipelineModel_{py_, regions_};
  ModuleAssembly modules_{py_, regions_, states_};
};

}  // namespace

ProgramResult runProgram(const syntax::Document& doc, const Aliases& aliases, const TvmscriptLowering& lowerTvmscript) {
  Program program(doc, aliases, lowerTvmscript);
  return program.run();
}

}  // namespace tvms::frontend
