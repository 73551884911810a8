// Relax function bodies: parameters, bindings, dataflow blocks, if/else, return.
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/syntax_errors.h"

namespace tvms::frontend {

using namespace ir;

// Accumulates the binding blocks of one SeqExpr (a function body or an If branch).
struct BodyBuilder {
  BodyBuilder(Lowerer& lowerer, Function& function) : l(lowerer), fn(function) {}
  Lowerer& l;
  Function& fn;
  SeqExprPtr seq = std::make_shared<SeqExpr>();
  BindingBlockPtr plain;
  bool returned = false;
  bool isBranch = false;

  BindingBlock& plainBlock() {
    if (!plain) {
      plain = std::make_shared<BindingBlock>();
      seq->blocks.push_back(plain);
    }
    return *plain;
  }

  VarPtr bindName(TSNode ident, StructInfoPtr ann, bool dataflow) {
    std::string name = l.text(ident);
    auto v = std::make_shared<Var>(name, std::move(ann), dataflow);
    l.scopes_.back()[name] = v;
    l.expiredDataflow_.erase(name);
    l.region_.map.ranges.set(v.get(), rangeOf(ident));
    l.defineName(NameRef::Kind::Var, ident, name, v.get());
    return v;
  }

  // One statement into `block`; `outputs` are the names a dataflow block passes to R.output.
  void statement(TSNode stmt, BindingBlock& block, const std::set<std::string>* outputs) {
    if (returned) {
      l.reportUnsupported(stmt, "a statement after `return`: the return ends the function body");
      return;
    }
    std::string_view t = typeOf(stmt);
    if (t == "pass_statement") return;
    if (t == "return_statement") {
      if (block.dataflow) {
        l.reportUnsupported(stmt, "`return` inside R.dataflow(): return after the block, through R.output");
        return;
      }
      auto kids = namedChildren(stmt);
      seq->body = kids.empty() ? nullptr : l.lowerExpr(kids[0]);
      if (!kids.empty()) l.operandAt(seq.get(), 0, kids[0]);  // the returned expression's text
      if (kids.empty()) l.reportUnsupported(stmt, "a Relax function returns a value: `return x`");
      l.anchor(seq.get(), stmt);
      returned = true;
      return;
    }
    if (t == "with_statement") return withBlock(stmt, block);
    if (t == "if_statement") return ifStatement(stmt, block);
    if (t == "expression_statement") {
      auto kids = namedChildren(stmt);
      if (kids.size() != 1) {
        l.reportUnsupported(stmt, "one expression or assignment per statement");
        return;
      }
      TSNode e = kids[0];
      if (isType(e, "assignment")) return assignment(stmt, e, block, outputs);
      if (isType(e, "augmented_assignment")) {
        l.reportUnsupported(e, "augmented assignment (`+=`) rebinds in place; write `x = R.add(x, y)`");
        return;
      }
      if (isType(e, "string")) return;  // a docstring
      if (isType(e, "call")) {
        std::string name = l.canonicalName(field(e, "function"));
        if (name == "R.func_attr") return funcAttr(stmt, e);
        if (name == "R.output") {
          l.reportUnsupported(stmt, "R.output(...) ends a `with R.dataflow():` block and stands last in it");
          return;
        }
      }
      // An expression evaluated for its effect (R.print, R.call_packed): bound to `_`.
      auto b = std::make_shared<Binding>();
      auto v = std::make_shared<Var>("_", nullptr, block.dataflow);
      b->vars.push_back(v);
      b->value = l.lowerExpr(e);
      l.region_.map.ranges.set(b.get(), rangeOf(stmt));
      l.anchor(b.get(), stmt);
      block.bindings.push_back(b);
      return;
    }
    if (t == "for_statement" || t == "while_statement")
      return l.reportUnsupported(stmt, "loops are not allowed in an R.function (use a T.prim_func, or R.call_tir)");
    if (t == "decorated_definition")
      if (auto f = l.functionNode(stmt); f && f->kind == "R.function") return closure(stmt, *f, block, outputs);
    if (t == "function_definition" || t == "decorated_definition" || t == "class_definition")
      return l.reportUnsupported(stmt, "nested definitions other than @R.function are not allowed in an R.function");
    l.reportUnsupported(stmt, "`" + std::string(t) +
                                  "` is not allowed here; an R.function body holds bindings, `with R.dataflow():`, "
                                  "`if`/`else` and `return`");
  }

  // A nested @R.function (a closure, as TVM allows): its name is bound to a value of its signature,
  // so calls of it are checked; its body is kept as written and not checked (a TVS011 note says so).
  void closure(TSNode stmt, const Lowerer::FunctionNode& f, BindingBlock& block, const std::set<std::string>* outputs) {
    auto sig = std::make_shared<StructInfo>();
    sig->kind = StructInfo::Kind::Func;
    // Its parameters' annotations are its signature; an unannotated parameter leaves it open ("any").
    std::vector<StructInfoPtr> params;
    bool allTyped = true;
    l.inSignature_ = true;
    for (TSNode p : namedChildren(field(f.def, "parameters"))) {
      TSNode type = field(p, "type");
      if (!isType(p, "typed_parameter") || ts_node_is_null(type)) {
        allTyped = false;
        break;
      }
      auto kids = namedChildren(type);
      params.push_back(l.lowerSInfo(kids.empty() ? type : kids[0]));
    }
    if (allTyped) sig->params = params;
    if (TSNode ret = field(f.def, "return_type"); !ts_node_is_null(ret)) {
      auto kids = namedChildren(ret);
      sig->ret = l.lowerSInfo(kids.empty() ? ret : kids[0]);
    }
    l.inSignature_ = false;
    auto b = std::make_shared<Binding>();
    TSNode nameNode = field(f.def, "name");
    std::string name = l.text(nameNode);
    b->vars.push_back(bindName(nameNode, sig, block.dataflow && !(outputs && outputs->count(name))));
    b->value = l.opaque(stmt);
    uint32_t begin = l.doc_.lines().lineStart(l.doc_.lines().lineOf(ts_node_start_byte(stmt)));
    b->verbatim = std::make_shared<const std::vector<std::string>>(dedentedLines(l.doc_.slice({begin, ts_node_end_byte(stmt)}), ts_node_start_point(stmt).column));
    l.verbatim_.push_back({begin, ts_node_end_byte(stmt)});
    l.region_.map.ranges.set(b.get(), rangeOf(stmt));
    l.anchor(b.get(), stmt);
    l.report(diag::Code::TVS011, rangeOf(field(f.def, "name")),
             "not checked: the body of the nested @R.function '" + name + "' (a closure); its calls are checked "
             "against its signature");
    block.bindings.push_back(b);
  }

  void funcAttr(TSNode stmt, TSNode call) {
    auto args = namedChildren(field(call, "arguments"));
    if (args.size() != 1 || !isType(args[0], "dictionary")) {
      l.report(diag::Code::TVS005, rangeOf(call), "R.func_attr takes one dict argument");
      return;
    }
    fn.hasFuncAttr = true;
    fn.attrs = l.literalOrOpaque(args[0]).dict;
    l.anchor(&fn.attrs, stmt);
  }

  void assignment(TSNode stmt, TSNode e, BindingBlock& block, const std::set<std::string>* outputs) {
    TSNode left = field(e, "left");
    TSNode right = field(e, "right");
    TSNode type = field(e, "type");
    if (ts_node_is_null(right)) {
      l.reportUnsupported(e, "an annotation without a value; write `x: R.Tensor(...) = value`");
      return;
    }
    if (isType(right, "assignment")) {
      l.reportUnsupported(e, "chained assignment (`a = b = ...`) is not TVMScript");
      return;
    }
    // cls = Module: the name now means the module (TVM's printer writes this line; `cls.f` follows).
    if (isType(left, "identifier") && isType(right, "identifier") && ts_node_is_null(type) && !l.mod_.standalone &&
        l.text(right) == l.className_) {
      fn.moduleAlias = l.text(left);
      l.moduleAliases_.insert(fn.moduleAlias);
      l.anchor(&fn.moduleAlias, stmt);
      return;
    }
    // n = T.int64(), or m, n = T.int64(), T.int64(): symbolic variables.
    if (ts_node_is_null(type)) {
      auto declaration = [&](TSNode value) -> std::string {
        if (!isType(value, "call")) return "";
        // T.int64(is_size_var=True): a size (non-negative) variable; tvms treats it as any other
        for (TSNode a : namedChildren(field(value, "arguments")))
          if (!isType(a, "keyword_argument") || l.text(field(a, "name")) != "is_size_var") return "";
        std::string callee = l.canonicalName(field(value, "function"));
        return callee == "T.int64" || callee == "T.int32" ? callee.substr(2) : "";
      };
      std::vector<TSNode> names, values;
      if (isType(left, "identifier")) {
        names = {left};
        values = {right};
      } else if ((isType(left, "pattern_list") || isType(left, "tuple_pattern")) &&
                 (isType(right, "expression_list") || isType(right, "tuple"))) {
        names = namedChildren(left);
        values = namedChildren(right);
      }
      bool all = !names.empty() && names.size() == values.size();
      for (size_t i = 0; all && i < names.size(); ++i)
        all = isType(names[i], "identifier") && !declaration(values[i]).empty();
      if (all) {
        for (size_t i = 0; i < names.size(); ++i) {
          std::string name = l.text(names[i]);
          fn.symbolicVars.push_back({name, declaration(values[i])});
          l.symbolic_.insert(name);
          l.defineName(NameRef::Kind::SymbolicVar, names[i], name, nullptr);
          symbolicAnchors.emplace_back(fn.symbolicVars.size() - 1, rangeOf(stmt));
        }
        return;
      }
    }
    auto b = std::make_shared<Binding>();
    StructInfoPtr ann;
    if (!ts_node_is_null(type)) {
      auto kids = namedChildren(type);
      ann = l.lowerSInfo(kids.empty() ? type : kids[0]);
    }
    // Value first: `x = R.add(x, y)` uses the previous x.
    if (isType(right, "call") && l.canonicalName(field(right, "function")) == "R.match_cast") {
      auto args = namedChildren(field(right, "arguments"));
      if (args.size() != 2) {
        l.report(diag::Code::TVS005, rangeOf(right), "R.match_cast(value, struct_info) takes two arguments");
        return;
      }
      b->kind = Binding::Kind::MatchCast;
      l.operandAt(b.get(), 0, args[0]);
      b->value = l.lowerExpr(args[0]);
      b->castSInfo = l.lowerSInfo(args[1]);
    } else {
      l.operandAt(b.get(), 0, right);
      b->value = l.lowerExpr(right);
    }
    if (!ts_node_is_null(type)) l.operandAt(b.get(), 1, type);  // the annotation
    auto isOutput = [&](const std::string& n) { return !block.dataflow || (outputs && outputs->count(n)); };
    if (isType(left, "identifier")) {
      b->vars.push_back(bindName(left, ann, !isOutput(l.text(left))));
    } else if (isType(left, "pattern_list") || isType(left, "tuple_pattern")) {
      if (ann) l.reportUnsupported(type, "an annotation on tuple unpacking; annotate the tuple's variable instead");
      b->kind = Binding::Kind::Unpack;
      for (TSNode name : namedChildren(left)) {
        if (!isType(name, "identifier")) {
          l.reportUnsupported(name, "only names can be unpacked into");
          return;
        }
        b->vars.push_back(bindName(name, nullptr, !isOutput(l.text(name))));
      }
    } else {
      l.reportUnsupported(left, "the left side of a binding is a name or a tuple of names");
      return;
    }
    l.region_.map.ranges.set(b.get(), rangeOf(stmt));
    l.anchor(b.get(), stmt);
    block.bindings.push_back(b);
  }

  void withBlock(TSNode stmt, BindingBlock& outer) {
    TSNode clause{};
    for (TSNode c : namedChildren(stmt)) if (isType(c, "with_clause")) clause = c;
    auto items = namedChildren(clause);
    TSNode value = items.size() == 1 ? field(items[0], "value") : TSNode{};
    if (ts_node_is_null(value) || !isType(value, "call") || l.canonicalName(field(value, "function")) != "R.dataflow" ||
        !ts_node_is_null(field(items[0], "alias"))) {
      l.reportUnsupported(stmt, "the only `with` in an R.function is `with R.dataflow():`");
      return;
    }
    if (outer.dataflow || isBranch) {
      l.reportUnsupported(stmt, isBranch ? "R.dataflow() blocks are not allowed inside `if`"
                                         : "R.dataflow() blocks do not nest");
      return;
    }
    auto block = std::make_shared<BindingBlock>();
    block->dataflow = true;
    seq->blocks.push_back(block);
    plain.reset();
    l.anchor(block.get(), ts_node_start_byte(stmt) < ts_node_start_byte(value) ? ByteRange{ts_node_start_byte(stmt), ts_node_end_byte(clause) + 1} : rangeOf(stmt));

    auto stmts = namedChildren(field(stmt, "body"));
    // R.output(...) must stand last; its names leave the block as ordinary vars.
    std::set<std::string> outputs;
    TSNode outputStmt{};
    if (!stmts.empty()) {
      TSNode last = stmts.back();
      auto kids = namedChildren(last);
      if (isType(last, "expression_statement") && kids.size() == 1 && isType(kids[0], "call") &&
          l.canonicalName(field(kids[0], "function")) == "R.output") {
        outputStmt = last;
        stmts.pop_back();
        for (TSNode a : namedChildren(field(kids[0], "arguments"))) {
          if (isType(a, "identifier")) outputs.insert(l.text(a));
          else l.reportUnsupported(a, "R.output takes the names of variables bound in the block");
        }
      }
    }
    std::vector<std::string> bound;
    for (TSNode s : stmts) {
      size_t before = block->bindings.size();
      statement(s, *block, &outputs);
      for (size_t i = before; i < block->bindings.size(); ++i)
        for (auto& v : block->bindings[i]->vars) bound.push_back(v->name);
    }
    // A name bound more than once leaves the block as its last binding only (as in TVM): the
    // earlier bindings of an output name stay dataflow variables.
    std::map<std::string, VarPtr> lastOf;
    for (auto& binding : block->bindings)
      for (auto& v : binding->vars) {
        if (!outputs.count(v->name)) continue;
        if (auto& prev = lastOf[v->name]) prev->isDataflow = true;
        lastOf[v->name] = v;
      }
    if (!ts_node_is_null(outputStmt)) {
      l.anchor(&block->bindings, outputStmt);
      for (TSNode a : namedChildren(field(namedChildren(outputStmt)[0], "arguments"))) {
        if (!isType(a, "identifier")) continue;
        std::string n = l.text(a);
        auto it = l.scopes_.back().find(n);
        if (std::find(bound.begin(), bound.end(), n) == bound.end() || it == l.scopes_.back().end()) {
          l.report(diag::Code::TVS003, rangeOf(a), "R.output names '" + n + "', which the block does not bind");
          continue;
        }
        l.useName(NameRef::Kind::Var, a, n, it->second.get());
      }
    }
    // Dataflow variables leave scope with the block.
    for (auto& name : bound) {
      auto it = l.scopes_.back().find(name);
      if (it != l.scopes_.back().end() && it->second->isDataflow) {
        l.scopes_.back().erase(it);
        l.expiredDataflow_[name] = rangeOf(stmt);
      }
    }
  }

  void ifStatement(TSNode stmt, BindingBlock& block) {
    if (block.dataflow) {
      l.reportUnsupported(stmt, "`if` is not allowed inside R.dataflow(); put it after the block");
      return;
    }
    TSNode alt = field(stmt, "alternative");
    TSNode elseClause{};
    for (TSNode c : namedChildren(stmt))
      if (isType(c, "else_clause")) elseClause = c;
      else if (isType(c, "elif_clause")) alt = c;
    if (isType(alt, "elif_clause")) {
      l.reportUnsupported(alt, "`elif` is not TVMScript; nest an `if` inside `else:`");
      return;
    }
    if (ts_node_is_null(elseClause)) {
      l.reportUnsupported(stmt, "an `if` in an R.function needs an `else:` branch that binds the same name");
      return;
    }
    auto iff = std::make_shared<If>();
    iff->cond = l.lowerExpr(field(stmt, "condition"));
    std::string thenName, elseName;
    iff->thenBranch = branch(field(stmt, "consequence"), thenName);
    iff->elseBranch = branch(field(elseClause, "body"), elseName);
    l.anchor(iff->elseBranch.get(), ByteRange{ts_node_start_byte(elseClause), ts_node_start_byte(elseClause) + 5});
    if (thenName.empty() || thenName != elseName) {
      l.reportUnsupported(stmt, "both branches of an `if` must end by binding the same name");
      return;
    }
    auto b = std::make_shared<Binding>();
    TSNode nameNode = field(stmt, "condition");
    auto v = std::make_shared<Var>(thenName, nullptr, false);
    l.scopes_.back()[thenName] = v;
    l.region_.map.ranges.set(v.get(), rangeOf(nameNode));
    b->vars.push_back(v);
    b->value = iff;
    l.region_.map.ranges.set(b.get(), rangeOf(stmt));
    l.region_.map.ranges.set(iff.get(), rangeOf(stmt));
    l.anchor(b.get(), ByteRange{ts_node_start_byte(stmt), ts_node_end_byte(field(stmt, "condition")) + 1});
    block.bindings.push_back(b);
  }

  SeqExprPtr branch(TSNode body, std::string& lastName) {
    l.scopes_.push_back(l.scopes_.back());  // a branch sees the outer names; its own do not leak
    BodyBuilder inner(l, fn);
    inner.isBranch = true;
    for (TSNode s : namedChildren(body)) inner.statement(s, inner.plainBlock(), nullptr);
    auto& blocks = inner.seq->blocks;
    if (!blocks.empty() && !blocks.back()->bindings.empty()) {
      auto& last = blocks.back()->bindings.back();
      if (last->kind == Binding::Kind::Var || last->kind == Binding::Kind::MatchCast) {  // a branch may end in R.match_cast
        lastName = last->vars[0]->name;
        inner.seq->body = last->vars[0];
      }
    }
    symbolicAnchors.insert(symbolicAnchors.end(), inner.symbolicAnchors.begin(), inner.symbolicAnchors.end());
    l.scopes_.pop_back();
    return inner.seq;
  }

  std::vector<std::pair<size_t, ByteRange>> symbolicAnchors;
};

void Lowerer::lowerParameters(TSNode params, Function& fn) {
  inSignature_ = true;
  if (hasTrailingComma(doc_, params)) region_.trivia.magicCommas.insert(&fn.params);
  for (TSNode p : namedChildren(params)) {
    TSNode nameNode;
    StructInfoPtr ann;
    if (isType(p, "typed_parameter")) {
      auto kids = namedChildren(p);
      nameNode = kids.empty() ? p : kids[0];
      TSNode type = field(p, "type");
      auto tk = namedChildren(type);
      ann = lowerSInfo(tk.empty() ? type : tk[0]);
    } else if (isType(p, "identifier")) {
      nameNode = p;
      report(diag::Code::TVS002, rangeOf(p), "parameter '" + text(p) + "' needs a struct info annotation, e.g. R.Tensor((2, 3), \"float32\")");
    } else {
      reportUnsupported(p, "R.function parameters are `name: annotation` (no defaults, no *args or **kwargs)");
      continue;
    }
    if (!isType(nameNode, "identifier")) {
      reportUnsupported(p, "R.function parameters are plain names");
      continue;
    }
    std::string name = text(nameNode);
    auto v = std::make_shared<Var>(name, ann, false);
    scopes_.back()[name] = v;
    region_.map.ranges.set(v.get(), rangeOf(nameNode));
    defineName(NameRef::Kind::Var, nameNode, name, v.get());
    anchor(v.get(), p);
    fn.params.push_back(v);
  }
  inSignature_ = false;
}

SeqExprPtr Lowerer::lowerBody(TSNode block, Function& fn) {
  BodyBuilder b(*this, fn);
  for (TSNode stmt : namedChildren(block)) b.statement(stmt, b.plainBlock(), nullptr);
  // Drop empty plain blocks (opened before a dataflow block or at the end).
  std::erase_if(b.seq->blocks, [](auto& blk) { return !blk->dataflow && blk->bindings.empty(); });
  for (auto& [i, r] : b.symbolicAnchors) anchor(&fn.symbolicVars[i], r);
  if (!b.returned) report(diag::Code::TVS008, rangeOf(block), "function '" + fn.name + "' has no `return`");
  return b.seq;
}

FunctionPtr Lowerer::lowerRelaxFunction(const FunctionNode& f) {
  auto fn = std::make_shared<Function>();
  fn->name = text(field(f.def, "name"));
  fn->decoratorArgs = f.args;
  anchor(fn.get(), f.decorated);
  anchorDecorators(&fn->decoratorArgs, f.decorated);
  region_.map.ranges.set(fn.get(), rangeOf(f.decorated));
  scopes_.assign(1, {});
  expiredDataflow_.clear();
  symbolic_.clear();
  moduleAliases_.clear();
  currentFunction_ = fn.get();
  lowerParameters(field(f.def, "parameters"), *fn);
  if (TSNode ret = field(f.def, "return_type"); !ts_node_is_null(ret)) {
    inSignature_ = true;
    auto kids = namedChildren(ret);
    fn->retAnnotation = lowerSInfo(kids.empty() ? ret : kids[0]);
    inSignature_ = false;
  }
  if (!ts_node_has_error(f.def))
    if (auto d = emptyBodyError(doc_, f.def, "function")) {
      region_.diagnostics.push_back(*d);
      return fn;  // no body: nothing more to say (not also "has no return")
    }
  fn->body = lowerBody(field(f.def, "body"), *fn);
  currentFunction_ = nullptr;
  return fn;
}

}  // namespace tvms::frontend
