// Relax expressions, and op calls checked and normalised through the op registry.
#include <algorithm>

#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/python_eval.h"

namespace tvms::frontend {

using namespace ir;

ExprPtr Lowerer::opaque(TSNode n) {
  auto e = std::make_shared<OpaqueExpr>(text(n));
  region_.map.ranges.set(e.get(), rangeOf(n));
  return e;
}

ExprPtr Lowerer::useOfName(TSNode ident) {
  std::string name = text(ident);
  if (!scopes_.empty()) {
    auto& scope = scopes_.back();
    if (auto it = scope.find(name); it != scope.end()) {
      useName(NameRef::Kind::Var, ident, name, it->second.get());
      return it->second;
    }
  }
  if (auto it = expiredDataflow_.find(name); it != expiredDataflow_.end()) {
    auto d = diag::make(diag::Code::TVS007, rangeOf(ident),
                        "'" + name + "' is a dataflow variable of an earlier R.dataflow() block, and the block does not "
                        "pass it to R.output");
    d.related.push_back({it->second, "the block that binds '" + name + "'"});
    region_.diagnostics.push_back(d);
    return opaque(ident);
  }
  if (symbolic_.count(name)) {
    useName(NameRef::Kind::SymbolicVar, ident, name, nullptr);
    return std::make_shared<PrimValue>(primVar(name));
  }
  // A function of the module by its bare name (R.call_tir(where, ...)): TVM's parser declares every
  // function of the class before it parses their bodies.
  if (!className_.empty() && isGlobal(name)) {
    useName(NameRef::Kind::Function, ident, name, nullptr);
    auto g = std::make_shared<GlobalVar>(name);
    region_.map.ranges.set(g.get(), rangeOf(ident));
    return g;
  }
  if (python_) {
    // A name of the program: a Relax value it built (a builder program's variable), or a number.
    if (const PyValue* v = python_->lookup(name)) {
      if (v->kind == PyValue::Kind::Relax && v->relax) {
        if (auto* var = as<Var>(v->relax)) useName(NameRef::Kind::Var, ident, name, var);
        return v->relax;
      }
      if (v->kind == PyValue::Kind::Int || v->kind == PyValue::Kind::Float || v->kind == PyValue::Kind::Bool) {
        auto c = std::make_shared<Constant>();
        c->value = *toAttributeValue(*v);
        c->pythonLiteral = true;
        region_.map.ranges.set(c.get(), rangeOf(ident));
        region_.readsPython = true;
        return c;
      }
    }
  }
  if (capturedPython(ident)) return opaque(ident);
  // Near names in scope, for "did you mean".
  std::string hint;
  if (!scopes_.empty()) {
    size_t best = 3;
    for (auto& [k, v] : scopes_.back()) {
      size_t common = 0;
      size_t d = 0;
      for (size_t i = 0; i < std::max(k.size(), name.size()); ++i)
        (i < k.size() && i < name.size() && k[i] == name[i]) ? ++common : ++d;
      if (d < best && common > 0) { best = d; hint = k; }
    }
  }
  report(diag::Code::TVS003, rangeOf(ident), "undefined name '" + name + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  return opaque(ident);
}

ExprPtr Lowerer::lowerLenient(TSNode n) {
  std::string_view t = typeOf(n);
  if (t == "lambda" || t == "list_comprehension" || t == "generator_expression" || t == "dictionary" ||
      t == "conditional_expression" || t == "keyword_argument")
    return opaque(n);
  if (t == "call") {  // a struct info passed to an op tvms does not model (call_tir_with_grad's out_sinfo)
    std::string callee = canonicalName(field(n, "function"));
    for (const char* s : {"R.Tensor", "R.Tuple", "R.Shape", "R.Prim", "R.Object", "R.Callable"})
      if (callee == s) return opaque(n);
  }
  return lowerExpr(n);
}

ExprPtr Lowerer::lowerExpr(TSNode n) {
  DepthGuard guard(*this);
  if (depth_ > kMaxDepth) {
    if (depth_ == kMaxDepth + 1) reportUnsupported(n, "expression nested too deeply (more than 150 levels)");
    return std::make_shared<OpaqueExpr>("...");
  }
  ExprPtr out;
  std::string_view t = typeOf(n);
  if (python_ && (t == "attribute" || t == "subscript"))  // `frame.output_vars[0]`: a Relax value the program holds
    if (auto v = pythonValue(n); v && v->kind == PyValue::Kind::Relax && v->relax) return v->relax;
  if (t == "identifier") {
    out = useOfName(n);
  } else if (t == "integer" || t == "float" || t == "true" || t == "false") {
    auto c = std::make_shared<Constant>();
    c->value = literalOrOpaque(n);
    c->pythonLiteral = true;
    out = c;
  } else if (t == "unary_operator") {
    TSNode arg = field(n, "argument");
    std::string opText = text(field(n, "operator"));
    if (opText == "-" && (isType(arg, "integer") || isType(arg, "float"))) {
      auto c = std::make_shared<Constant>();
      c->value = literalOrOpaque(n);
      c->pythonLiteral = true;
      out = c;
    } else {
      out = lowerOperator(n);
    }
  } else if (t == "string" || t == "concatenated_string") {
    auto s = stringLiteral(doc_, n);
    if (!s) {
      reportUnsupported(n, "f-strings and byte strings are not TVMScript values");
      return opaque(n);
    }
    out = std::make_shared<StringImm>(*s);
  } else if (t == "parenthesized_expression") {
    auto kids = namedChildren(n);
    if (kids.size() != 1) return opaque(n);
    return lowerExpr(kids[0]);
  } else if (t == "tuple" || t == "list" || t == "expression_list") {  // `return x, y`: a tuple without parentheses
    std::vector<ExprPtr> fields;
    std::vector<TSNode> kids = namedChildren(n);
    for (TSNode c : kids) fields.push_back(lowerExpr(c));
    out = std::make_shared<Tuple>(std::move(fields));
    for (size_t i = 0; i < kids.size(); ++i) operandAt(out.get(), i, kids[i]);
  } else if (t == "subscript") {
    TSNode value = field(n, "value");
    auto subs = namedChildren(n);
    TSNode index = subs.size() >= 2 ? subs[1] : TSNode{};
    // metadata["relax.expr.Constant"][i]
    if (isType(value, "subscript") && dottedName(doc_, field(value, "value")) == "metadata") {
      auto idx = integerLiteral(doc_, index);
      auto c = std::make_shared<Constant>();
      c->metadataIndex = idx ? static_cast<int>(*idx) : 0;
      out = c;
    } else if (auto idx = integerLiteral(doc_, index); idx && subs.size() == 2) {
      out = std::make_shared<TupleGetItem>(lowerExpr(value), static_cast<int>(*idx));
    } else {
      reportUnsupported(n, "indexing takes a constant integer (a tuple item); slice tensors with R.strided_slice");
      return opaque(n);
    }
  } else if (t == "attribute") {
    std::string dotted = dottedName(doc_, n);
    std::string head = dotted.substr(0, dotted.find('.'));
    std::string member = dotted.substr(dotted.find('.') + 1);
    if (isModuleName(head) && member.find('.') == std::string::npos) {
      if (!isGlobal(member))
        report(diag::Code::TVS003, rangeOf(field(n, "attribute")), "module '" + className_ + "' has no function '" + member + "'");
      else
        useName(NameRef::Kind::Function, field(n, "attribute"), member, nullptr);
      out = std::make_shared<GlobalVar>(member);
    } else {
      std::string name = canonicalName(n);
      if (name.rfind("R.", 0) == 0 || name.rfind("I.", 0) == 0 || name.rfind("T.", 0) == 0) {
        reportUnsupported(n, "`" + dotted + "` is not a value here");
      } else if (!scopes_.empty() && scopes_.back().count(head)) {
        // x.ty, x.struct_info, ...: the Python API's attributes, which TVM's parser evaluates.
        notChecked(n, "`" + dotted + "`: attributes of Relax values (the Python API) are not checked");
      } else {
        report(diag::Code::TVS003, rangeOf(n), "undefined name '" + dotted + "'");
      }
      return opaque(n);
    }
  } else if (t == "call") {
    out = lowerCall(n);
    if (out && out->kind == Expr::Kind::Call && hasTrailingComma(doc_, field(n, "arguments")))
      region_.trivia.magicCommas.insert(out.get());
  } else if (t == "binary_operator" || t == "comparison_operator") {
    out = lowerOperator(n);
  } else if (t == "none") {
    reportUnsupported(n, "None is not a Relax value");
    return opaque(n);
  } else if (t == "lambda") {
    reportUnsupported(n, "lambda is not allowed in an R.function");
    return opaque(n);
  } else if (t == "list_splat" || t == "dictionary_splat") {
    reportUnsupported(n, "starred arguments are not allowed in TVMScript");
    return opaque(n);
  } else if (t == "ERROR") {
    return opaque(n);
  } else {
    reportUnsupported(n, "`" + std::string(t) + "` is not a Relax expression");
    return opaque(n);
  }
  // A variable's range is its definition; its uses are recorded as operands of what uses them.
  if (out->kind != Expr::Kind::Var) region_.map.ranges.set(out.get(), rangeOf(n));
  return out;
}

ExprPtr Lowerer::lowerOperator(TSNode n) {
  bool unary = isType(n, "unary_operator");
  std::vector<TSNode> operands;
  std::string pyOp;
  if (isType(n, "comparison_operator")) {
    auto kids = namedChildren(n);
    if (kids.size() != 2) {
      reportUnsupported(n, "chained comparisons are not TVMScript; compare two values at a time");
      return opaque(n);
    }
    operands = kids;
    // the operator token sits between the operands
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
      TSNode c = ts_node_child(n, i);
      if (!ts_node_is_named(c)) pyOp += (pyOp.empty() ? "" : " ") + text(c);
    }
  } else if (unary) {
    operands = {field(n, "argument")};
    pyOp = text(field(n, "operator"));
  } else {
    operands = {field(n, "left"), field(n, "right")};
    pyOp = text(field(n, "operator"));
  }
  const op::OpDef* def = op::findOpByPythonOperator(pyOp, unary);
  if (!def) {
    reportUnsupported(n, "the operator `" + pyOp + "` has no Relax op; call the op (R.logical_and, ...)");
    return opaque(n);
  }
  auto call = std::make_shared<Call>();
  call->op = def->name;
  call->def = def;
  call->infix = unary ? "u-" : pyOp;
  for (TSNode o : operands) {
    operandAt(call.get(), call->args.size(), o);
    call->args.push_back(lowerExpr(o));
  }
  return call;
}

namespace {
// A call of a registered op with the given operands and every attribute at its default.
ExprPtr callWithDefaults(const std::string& opName, std::vector<ExprPtr> args, AttrList explicitAttrs = {}) {
  const op::OpDef* def = op::findOp(opName);
  auto call = std::make_shared<Call>();
  call->op = opName;
  call->def = def;
  call->args = std::move(args);
  if (!def) return call;
  for (auto& p : def->params) {
    if (op::isExpressionKind(p.kind) || p.kind == op::ParamKind::SInfo || p.kind == op::ParamKind::Variadic) continue;
    auto given = std::find_if(explicitAttrs.begin(), explicitAttrs.end(), [&](auto& a) { return a.first == p.name; });
    if (given != explicitAttrs.end()) call->attrs.push_back({p.name, given->second, true, p.positional});
    else if (p.defaultValue) call->attrs.push_back({p.name, *p.defaultValue, false, p.positional});
  }
  return call;
}
}  // namespace

// The constructors of values TVMScript writes as calls (R.const, R.shape, R.prim_value, R.str,
// R.dtype, R.tuple) and the Python API's node constructors TVM's parser evaluates in TVMScript too
// (R.ExternFunc, R.TupleGetItem); nullopt for any other name.
std::optional<ExprPtr> Lowerer::lowerValueConstructor(const std::string& name, TSNode n, TSNode args) {
  auto positional = [&]() {
    std::vector<TSNode> out;
    for (TSNode a : namedChildren(args)) if (!isType(a, "keyword_argument")) out.push_back(a);
    return out;
  };
  if (name == "R.const") {
    auto c = std::make_shared<Constant>();
    auto pos = positional();
    if (pos.empty()) {
      report(diag::Code::TVS005, rangeOf(n), "R.const(value, dtype) needs a value");
      return opaque(n);
    }
    c->value = literalOrOpaque(pos[0]);
    if (auto array = pythonValue(pos[0]); array && array->kind == PyValue::Kind::Array) {
      // relax.const(np.random.randn(*shape).astype(dtype)): the array's shape and dtype, values unknown
      c->arrayShape.emplace();
      for (auto& d : *array->items) c->arrayShape->push_back(d.integer);
      c->dtype = array->dtype;
    }
    TSNode dt = pos.size() > 1 ? pos[1] : TSNode{};
    for (TSNode a : namedChildren(args))
      if (isType(a, "keyword_argument") && text(field(a, "name")) == "dtype") dt = field(a, "value");
    if (!ts_node_is_null(dt)) {
      if (auto s = stringValue(dt)) c->dtype = *s;
      else if (!capturedPython(dt)) report(diag::Code::TVS005, rangeOf(dt), "the dtype of R.const is a string such as \"float32\"");
    }
    return c;
  }
  if (name == "R.shape" || name == "R.ShapeExpr") {  // R.ShapeExpr: the Python API's constructor of the same node
    auto pos = positional();
    if (pos.size() != 1) {
      report(diag::Code::TVS005, rangeOf(n), name + " takes one list of dimensions");
      return opaque(n);
    }
    auto dims = lowerShapeDims(pos[0]);
    return std::make_shared<ShapeExpr>(dims ? *dims : std::vector<PrimExprPtr>{});
  }
  if (name == "R.prim_value") {
    auto pos = positional();
    if (pos.size() != 1) {
      report(diag::Code::TVS005, rangeOf(n), "R.prim_value takes one value");
      return opaque(n);
    }
    return std::make_shared<PrimValue>(lowerDim(pos[0]));
  }
  if (name == "R.str" || name == "R.dtype") {
    auto pos = positional();
    auto s = pos.size() == 1 ? stringLiteral(doc_, pos[0]) : std::nullopt;
    if (!s) {
      report(diag::Code::TVS005, rangeOf(n), name + " takes one string");
      return opaque(n);
    }
    if (name == "R.str") return std::make_shared<StringImm>(*s);
    return std::make_shared<DataTypeImm>(*s);
  }
  if (name == "R.tuple") {
    std::vector<ExprPtr> fields;
    auto pos = positional();
    for (TSNode a : pos) fields.push_back(lowerExpr(a));
    auto tuple = std::make_shared<Tuple>(std::move(fields));
    for (size_t i = 0; i < pos.size(); ++i) operandAt(tuple.get(), i, pos[i]);
    return tuple;
  }
  // The Python API's node constructors, which TVM's parser evaluates inside TVMScript too.
  if (name == "R.ExternFunc") {
    auto pos = positional();
    auto s = pos.size() == 1 ? stringLiteral(doc_, pos[0]) : std::nullopt;
    if (!s) {
      report(diag::Code::TVS005, rangeOf(n), "R.ExternFunc takes the function's name as a string");
      return opaque(n);
    }
    return std::make_shared<ExternFunc>(*s);
  }
  if (name == "R.TupleGetItem") {
    auto pos = positional();
    auto idx = pos.size() == 2 ? integerLiteral(doc_, pos[1]) : std::nullopt;
    if (!idx) {
      report(diag::Code::TVS005, rangeOf(n), "R.TupleGetItem(tuple, index) takes a tuple and a constant index");
      return opaque(n);
    }
    return std::make_shared<TupleGetItem>(lowerExpr(pos[0]), static_cast<int>(*idx));
  }
  return std::nullopt;
}

ExprPtr Lowerer::lowerCall(TSNode n) {
  TSNode fnNode = field(n, "function");
  TSNode args = field(n, "arguments");
  if (isType(args, "generator_expression")) {
    reportUnsupported(args, "generator expressions are not TVMScript");
    return opaque(n);
  }
  auto positional = [&]() {
    std::vector<TSNode> out;
    for (TSNode a : namedChildren(args)) if (!isType(a, "keyword_argument")) out.push_back(a);
    return out;
  };
  std::string dotted = dottedNameOf(fnNode);
  std::string head = dotted.substr(0, dotted.find('.'));
  std::string member = dotted.find('.') == std::string::npos ? "" : dotted.substr(dotted.find('.') + 1);

  // cls.fn(...) / Module.fn(...): a call of a module function; so is fn(...) by its bare name where no
  // local value has that name (TVM's parser declares the class's functions before their bodies).
  bool bareModuleFunction = isType(fnNode, "identifier") && !className_.empty() && isGlobal(dotted) &&
                            !(!scopes_.empty() && scopes_.back().count(dotted));
  if ((isModuleName(head) && !member.empty() && member.find('.') == std::string::npos) || bareModuleFunction) {
    auto call = std::make_shared<Call>();
    call->callee = lowerExpr(fnNode);
    for (TSNode a : namedChildren(args)) {
      if (isType(a, "keyword_argument")) reportUnsupported(a, "module functions take positional arguments");
      else {
        operandAt(call.get(), call->args.size(), a);
        call->args.push_back(lowerExpr(a));
      }
    }
    return call;
  }
  // x.astype("float16"): the Python API's method on Relax values (ExprWithOp.astype), i.e. R.astype.
  if (isType(fnNode, "attribute") && text(field(fnNode, "attribute")) == "astype" &&
      isType(field(fnNode, "object"), "identifier") && !scopes_.empty() && scopes_.back().count(text(field(fnNode, "object")))) {
    auto pos = positional();
    if (auto dtype = pos.size() == 1 ? stringLiteral(doc_, pos[0]) : std::nullopt) {
      TSNode object = field(fnNode, "object");
      auto call = callWithDefaults("relax.astype", {lowerExpr(object)}, {{"dtype", Value::ofString(*dtype)}});
      operandAt(call.get(), 0, object);
      return call;
    }
  }
  // A call of a local value (a closure).
  if (isType(fnNode, "identifier") && !scopes_.empty() && scopes_.back().count(dotted)) {
    auto call = std::make_shared<Call>();
    call->callee = lowerExpr(fnNode);
    for (TSNode a : positional()) {
      operandAt(call.get(), call->args.size(), a);
      call->args.push_back(lowerExpr(a));
    }
    return call;
  }

  std::string name = canonicalName(fnNode);
  if (name.empty()) {
    if (isType(fnNode, "identifier")) return useOfName(fnNode);
    reportUnsupported(n, "`" + text(fnNode) + "(...)` is a Python call, not TVMScript");
    return opaque(n);
  }
  if (auto value = lowerValueConstructor(name, n, args)) return *value;
  // R.emit_te(te_func, args...): TVM runs the TE function (a TOPI op, a lambda) while parsing. Its
  // result is unknown here; the Relax values it takes are still uses.
  if (name == "R.emit_te") {
    for (TSNode a : positional())
      if (isType(a, "identifier") && !scopes_.empty() && scopes_.back().count(text(a))) useOfName(a);
    notChecked(n, "R.emit_te: TVM runs the TE function while parsing; its result is not checked");
    return opaque(n);
  }
  // R.linear is a Python helper in TVM, not an op: matmul(data, permute_dims(weight)) (+ bias).
  if (name == "R.linear") return lowerLinear(n, args);
  if (name == "R.match_cast" || name == "R.output" || name == "R.dataflow" || name == "R.func_attr") {
    reportUnsupported(n, name + " is a statement, not a value here");
    return opaque(n);
  }
  if (name.rfind("R.", 0) == 0) {
    std::string opName = "relax." + name.substr(2);
    if (const op::OpDef* def = op::findOp(opName)) {
      if (def->modelled) return lowerOpCall(*def, n, args);
      return lowerUnmodelledCall(opName, args);
    }
    if (op::isKnownOpName(opName)) return lowerUnmodelledCall(opName, args);
    auto d = diag::make(diag::Code::TVS004, rangeOf(fnNode), "unknown op `" + dotted + "`");
    auto near = op::closestOpNames(opName, 1);
    if (!near.empty()) {
      std::string script = "R." + near[0].substr(6);
      d.message += "; did you mean `" + script + "`?";
      std::string prefix = dotted.substr(0, dotted.find('.'));
      d.fixes.push_back({"Replace with " + script, {{rangeOf(fnNode), prefix + "." + near[0].substr(6)}}, false});
    }
    region_.diagnostics.push_back(d);
    return lowerUnmodelledCall(opName, args);
  }
  reportUnsupported(n, "`" + dotted + "(...)` is not a Relax expression");
  return opaque(n);
}


ExprPtr Lowerer::lowerLinear(TSNode n, TSNode args) {
  auto given = matchArguments(args, {"data", "weight", "bias", "out_dtype"}, "R.linear");
  TSNode data = given[0], weight = given[1], bias = given[2], outDType = given[3];
  if (ts_node_is_null(data) || ts_node_is_null(weight)) {
    report(diag::Code::TVS005, rangeOf(n), "R.linear needs data and weight: R.linear(data, weight, bias=None, out_dtype=None)");
    return opaque(n);
  }
  AttrList matmulAttrs;
  if (!ts_node_is_null(outDType) && !isType(outDType, "none"))
    if (auto s = stringLiteral(doc_, outDType)) matmulAttrs.emplace_back("out_dtype", Value::ofString(*s));
  ExprPtr transposed = callWithDefaults("relax.permute_dims", {lowerExpr(weight)});
  region_.map.ranges.set(transposed.get(), rangeOf(weight));
  ExprPtr product = callWithDefaults("relax.matmul", {lowerExpr(data), transposed}, matmulAttrs);
  region_.map.ranges.set(product.get(), rangeOf(n));
  if (ts_node_is_null(bias) || isType(bias, "none")) return product;
  return callWithDefaults("relax.add", {product, lowerExpr(bias)});
}

ExprPtr Lowerer::lowerUnmodelledCall(const std::string& opName, TSNode args) {
  auto call = std::make_shared<Call>();
  call->op = opName;
  call->def = op::findOp(opName);  // null for a name the registry lacks
  for (TSNode a : namedChildren(args)) {
    if (isType(a, "keyword_argument")) {
      call->attrs.push_back({text(field(a, "name")), literalOrOpaque(field(a, "value")), true, false});
    } else {
      operandAt(call.get(), call->args.size(), a);
      call->args.push_back(lowerLenient(a));
    }
  }
  return call;
}

ExprPtr Lowerer::lowerOpCall(const op::OpDef& def, TSNode callNode, TSNode args) {
  const std::string script = def.scriptName();
  std::vector<std::pair<const op::Param*, TSNode>> given;
  std::vector<TSNode> variadic;
  size_t nextPositional = 0;
  auto paramNames = [&]() {
    std::string s;
    for (auto& p : def.params) s += (s.empty() ? "" : ", ") + p.name;
    return s;
  };
  for (TSNode a : namedChildren(args)) {
    if (isType(a, "list_splat") || isType(a, "dictionary_splat")) {
      reportUnsupported(a, "starred arguments are not allowed in TVMScript");
      continue;
    }
    if (isType(a, "keyword_argument")) {
      std::string key = text(field(a, "name"));
      const op::Param* p = def.param(key);
      if (!p) {
        auto d = diag::make(diag::Code::TVS005, rangeOf(a), script + " has no parameter '" + key + "'; its parameters are " + paramNames());
        d.related.push_back({rangeOf(field(callNode, "function")), "signature: " + def.signature()});
        region_.diagnostics.push_back(d);
        continue;
      }
      if (!p->eraAlias.empty() && key == p->eraAlias) mod_.era = Era::V026;
      bool dup = std::any_of(given.begin(), given.end(), [&](auto& g) { return g.first == p; });
      if (dup) {
        report(diag::Code::TVS005, rangeOf(a), script + " got '" + p->name + "' twice");
        continue;
      }
      given.emplace_back(p, field(a, "value"));
      continue;
    }
    if (nextPositional < def.params.size() && def.params[nextPositional].kind == op::ParamKind::Variadic) {
      variadic.push_back(a);
      continue;
    }
    if (nextPositional >= def.params.size()) {
      report(diag::Code::TVS005, rangeOf(a), script + " takes " + std::to_string(def.params.size()) + " argument" +
                                       (def.params.size() == 1 ? "" : "s") + ": " + def.signature());
      continue;
    }
    given.emplace_back(&def.params[nextPositional++], a);
  }

  auto call = std::make_shared<Call>();
  call->op = def.name;
  call->def = &def;
  size_t lastArg = 0;
  bool afterSInfo = false;  // expression parameters past out_sinfo print as keywords (call_tir's tir_vars)
  for (auto& p : def.params) {
    if (p.kind == op::ParamKind::SInfo) afterSInfo = true;
    else if (afterSInfo && op::isExpressionKind(p.kind)) {
      if (call->trailingArgNames.empty()) call->trailingArgsFrom = static_cast<uint32_t>(call->args.size());
      call->trailingArgNames.push_back(p.name);
    }
    auto it = std::find_if(given.begin(), given.end(), [&](auto& g) { return g.first == &p; });
    bool present = it != given.end();
    if (p.kind == op::ParamKind::Variadic) {
      for (TSNode v : variadic) {
        operandAt(call.get(), call->args.size(), v);
        call->args.push_back(lowerExpr(v));
      }
      lastArg = call->args.size();
      continue;
    }
    if (p.kind == op::ParamKind::SInfo) {
      if (!present) {
        if (p.required()) {
          report(diag::Code::TVS005, rangeOf(callNode), script + " needs '" + p.name + "' (the result's struct info)");
        }
        continue;
      }
      TSNode v = it->second;
      while (isType(v, "parenthesized_expression") && namedChildren(v).size() == 1) v = namedChildren(v)[0];
      call->sinfoKey = p.name == "out_sinfo" ? Call::SInfoArgsKey::OutSInfo : Call::SInfoArgsKey::SInfoArgs;
      if (isType(v, "list") || isType(v, "tuple")) {
        call->sinfoArgsAsList = true;
        for (TSNode s : namedChildren(v)) call->sinfoArgs.push_back(lowerSInfo(s));
      } else {
        call->sinfoArgs.push_back(lowerSInfo(v));
      }
      continue;
    }
    if (op::isExpressionKind(p.kind)) {
      if (!present) {
        if (p.required()) {
          report(diag::Code::TVS005, rangeOf(callNode), script + " needs argument '" + p.name + "': " + def.signature());
        }
        call->args.push_back(nullptr);
        continue;
      }
      operandAt(call.get(), call->args.size(), it->second);
      call->args.push_back(argumentForKind(p, it->second));
      lastArg = call->args.size();
      continue;
    }
    // An attribute.
    if (!present) {
      if (!p.defaultValue) {
        report(diag::Code::TVS005, rangeOf(callNode), script + " needs argument '" + p.name + "': " + def.signature());
        continue;
      }
      call->attrs.push_back({p.name, *p.defaultValue, false, p.positional});
      continue;
    }
    if (auto v = attributeForKind(p, it->second, def)) call->attrs.push_back({p.name, *v, true, p.positional});
  }
  call->args.resize(lastArg);  // trailing absent optional expressions
  return call;
}

ExprPtr Lowerer::argumentForKind(const op::Param& p, TSNode arg) {
  switch (p.kind) {
    case op::ParamKind::TensorList:
      return lowerExpr(arg);  // a tuple or list literal lowers to a Tuple
    case op::ParamKind::Shape:
      if (isType(arg, "tuple") || isType(arg, "list")) {
        auto dims = lowerShapeDims(arg);
        auto e = std::make_shared<ShapeExpr>(dims ? *dims : std::vector<PrimExprPtr>{});
        region_.map.ranges.set(e.get(), rangeOf(arg));
        return e;
      }
      return lowerExpr(arg);
    case op::ParamKind::Prim:
      if (isType(arg, "integer") || isType(arg, "float") || isType(arg, "unary_operator") ||
          (isType(arg, "identifier") && symbolic_.count(text(arg)))) {
        auto e = std::make_shared<PrimValue>(lowerDim(arg));
        region_.map.ranges.set(e.get(), rangeOf(arg));
        return e;
      }
      return lowerExpr(arg);
    case op::ParamKind::Callee:
      if (auto s = stringLiteral(doc_, arg)) {
        auto e = std::make_shared<ExternFunc>(*s);
        region_.map.ranges.set(e.get(), rangeOf(arg));
        return e;
      }
      return lowerExpr(arg);
    default:
      return lowerExpr(arg);
  }
}

// An int attribute written with symbolic variables (`begin=[n - 2]`, `pool_size=(k, k)`): TVM takes
// PrimExprs there. Items are Prim values; deduction treats them as unknown, never as errors.
std::optional<Value> Lowerer::symbolicIntValue(TSNode arg, bool list) {
  auto item = [&](TSNode n) -> std::optional<Value> {
    if (auto v = literal(n); v && v->kind == Value::Kind::Int) return v;
    std::string_view t = typeOf(n);
    bool symbolic = (t == "identifier" && symbolic_.count(text(n))) || t == "binary_operator" ||
                    t == "parenthesized_expression" || t == "unary_operator" ||
                    (t == "call" && canonicalName(field(n, "function")).rfind("T.", 0) == 0);
    if (!symbolic) return std::nullopt;
    return Value::ofPrim(lowerDim(n));
  };
  if (list && (isType(arg, "list") || isType(arg, "tuple"))) {
    std::vector<Value> items;
    for (TSNode c : namedChildren(arg)) {
      auto v = item(c);
      if (!v) return std::nullopt;
      items.push_back(*v);
    }
    return Value::ofList(std::move(items), isType(arg, "tuple"));
  }
  return item(arg);
}

std::optional<Value> Lowerer::attributeForKind(const op::Param& p, TSNode arg, const op::OpDef& def) {
  auto wrong = [&](const std::string& got) -> std::optional<Value> {
    auto d = diag::make(diag::Code::TVS005, rangeOf(arg), "argument '" + p.name + "' of " + def.scriptName() + " must be " +
                                                    std::string(op::kindName(p.kind)) + ", got " + got);
    d.related.push_back({rangeOf(arg), "signature: " + def.signature()});
    region_.diagnostics.push_back(d);
    return std::nullopt;
  };
  if (p.kind == op::ParamKind::VDevice) {
    if (auto r = lowerVDeviceUse(arg)) return Value::ofVDevice(r);
    return wrong("`" + text(arg) + "`");
  }
  if (p.kind == op::ParamKind::Device) {
    if (auto d = lowerDevice(arg)) return Value::ofDevice(*d);
    return wrong("`" + text(arg) + "`");
  }
  auto v = literal(arg);
  if (!v && (p.kind == op::ParamKind::Int || p.kind == op::ParamKind::IntList))
    v = symbolicIntValue(arg, p.kind == op::ParamKind::IntList);
  // A name bound to a lambda the file writes: known (its source); any other Python value is not.
  if (!v && isType(arg, "identifier"))
    if (auto py = pythonValue(arg); py && py->kind == PyValue::Kind::Lambda) return Value::ofOpaque(py->text);
  if (!v && capturedPython(arg)) return Value::ofOpaque(text(arg));
  if (!v) {
    if (p.kind == op::ParamKind::Any) return literalOrOpaque(arg);
    std::string what = isType(arg, "identifier") ? "the variable '" + text(arg) + "'" : "`" + text(arg) + "`";
    return wrong(what);
  }
  using K = Value::Kind;
  bool none = v->kind == K::None;
  bool allowNone = p.defaultValue && p.defaultValue->kind == K::None;
  switch (p.kind) {
    case op::ParamKind::Int:
      if (v->kind == K::Int || v->kind == K::Prim || (none && allowNone)) return v;
      break;
    case op::ParamKind::Float:
      if (v->kind == K::Float || (none && allowNone)) return v;
      if (v->kind == K::Int) return Value::ofFloat(static_cast<double>(v->integer));
      break;
    case op::ParamKind::Bool:
      if (v->kind == K::Bool || (none && allowNone)) return v;
      break;
    case op::ParamKind::String:
    case op::ParamKind::DType:
      if (v->kind == K::String || (none && allowNone)) return v;
      break;
    case op::ParamKind::IntList:
      if (v->kind == K::Int || (none && allowNone)) return v;
      if (v->kind == K::Prim) return v;
      if (v->kind == K::List &&
          std::all_of(v->items.begin(), v->items.end(), [](auto& i) { return i.kind == K::Int || i.kind == K::Prim; }))
        return v;
      break;
    case op::ParamKind::Any: return v;
    default: break;
  }
  static const char* names[] = {"None", "a bool", "an int", "a float", "a string", "a list", "a dict",
                                "a vdevice", "a device", "a struct info", "a symbolic value", "an expression"};
  return wrong(names[static_cast<int>(v->kind)]);
}

}  // namespace tvms::frontend
