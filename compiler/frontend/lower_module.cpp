// Region discovery, modules and function structure.
#include <algorithm>
#include <cctype>
#include <map>

#include "compiler/frontend/builder_program.h"
#include "compiler/frontend/python_eval.h"
#include "compiler/frontend/lower_tir.h"
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/recovery.h"
#include "compiler/frontend/syntax_errors.h"

namespace tvms::frontend {

Lowerer::Lowerer(const syntax::Document& doc, const Aliases& aliases, Region& region)
    : doc_(doc), forEditors_(!doc.readsByFunction()), aliases_(aliases), region_(region), mod_(*region.module) {}

void Lowerer::report(diag::Code code, ByteRange range, std::string message) {
  region_.diagnostics.push_back(diag::make(code, range, std::move(message)));
}

void Lowerer::reportUnsupported(TSNode n, const std::string& what) {
  report(diag::Code::TVS002, rangeOf(n), what);
}

bool Lowerer::capturedPython(TSNode n) {
  std::vector<std::string> names;
  std::vector<TSNode> stack{n};
  while (!stack.empty() && stack.size() < 256) {
    TSNode c = stack.back();
    stack.pop_back();
    if (isType(c, "identifier")) {
      std::string name = text(c);
      bool local = (!scopes_.empty() && scopes_.back().count(name)) || symbolic_.count(name);
      if (!local && aliases_.isPythonName(name)) names.push_back(name);
      continue;
    }
    if (isType(c, "attribute")) {  // np.float32, cfg.dtype: the object is what is captured
      stack.push_back(field(c, "object"));
      continue;
    }
    if (isType(c, "keyword_argument")) {
      stack.push_back(field(c, "value"));
      continue;
    }
    for (TSNode k : namedChildren(c)) stack.push_back(k);
  }
  if (names.empty()) return false;
  if (currentFunction_) currentFunction_->capturesPython = true;
  notChecked(n, "Python values not known statically (`" + names.front() +
                    "`): TVM evaluates them; the file's Python does not say what they are, so the struct info of the "
                    "function using them is not checked");
  return true;
}

// A construct TVM accepts that tvms does not model: a TVS011 note once per kind of construct in the
// region; the region is then left as written by fmt (its IR cannot print the construct back).
void Lowerer::notChecked(TSNode n, const std::string& what) {
  region_.keepAsWritten = true;
  std::string kind = what.substr(0, std::min(what.find(':'), what.find(" (")));
  if (!notedConstructs_.insert(kind).second) return;
  report(diag::Code::TVS011, rangeOf(n), "not checked: " + what);
}

void Lowerer::defineName(NameRef::Kind k, TSNode n, const std::string& name, const void* target) {
  if (forEditors_) region_.map.names.push_back({k, rangeOf(n), name, true, target});
}
void Lowerer::useName(NameRef::Kind k, TSNode n, const std::string& name, const void* target) {
  if (forEditors_) region_.map.names.push_back({k, rangeOf(n), name, false, target});
}

const Lowerer::NamesOfNode& Lowerer::namesOf(TSNode n) {
  NamesOfNode& last = lastNames_;
  const bool sameAliases = aliases_.version() == canonicalVersion_;
  if (sameAliases && !ts_node_is_null(n) && last.tree == n.tree && last.id == n.id &&
      last.begin == ts_node_start_byte(n) && last.end == ts_node_end_byte(n))
    return last;
  std::string dotted = dottedName(doc_, n);
  if (!sameAliases) {
    canonicalOf_.clear();
    canonicalVersion_ = aliases_.version();
  }
  auto [known, fresh] = canonicalOf_.try_emplace(dotted);
  if (fresh) known->second = aliases_.canonical(dotted);
  last = {n.tree, n.id, ts_node_start_byte(n), ts_node_end_byte(n), std::move(dotted), known->second};
  return last;
}

std::string Lowerer::dottedNameOf(TSNode n) { return namesOf(n).dotted; }

std::string Lowerer::canonicalName(TSNode n) {
  const NamesOfNode& names = namesOf(n);
  if (names.dotted.empty()) return "";
  std::string_view head = std::string_view(names.dotted).substr(0, names.dotted.find('.'));
  if ((head == "R" || head == "I" || head == "T") && !aliases_.binds(std::string(head)))
    aliases_.noteUse(std::string(head), rangeOf(n));
  return names.canonical;
}

// The name of a function from its text (`def NAME`), for a function whose tree is broken.
std::string Lowerer::brokenFunctionName(ByteRange range) { return functionNameInText(doc_, range); }

std::string functionNameInText(const syntax::Document& doc, ByteRange range) {
  std::string_view t = doc.slice(range);
  size_t at = t.find("def ");
  if (at == std::string_view::npos) return "";
  at += 4;
  while (at < t.size() && t[at] == ' ') ++at;
  size_t end = at;
  while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) || t[end] == '_')) ++end;
  return std::string(t.substr(at, end - at));
}

void Lowerer::anchorDecorators(const void* key, TSNode decorated) {
  for (TSNode d : namedChildren(decorated))
    if (isType(d, "decorator")) anchor(key, d);
}

ir::AttrList Lowerer::decoratorArgs(TSNode decoratorExpr) {
  ir::AttrList out;
  if (!isType(decoratorExpr, "call")) return out;
  for (TSNode a : namedChildren(field(decoratorExpr, "arguments"))) {
    if (isType(a, "keyword_argument"))
      out.emplace_back(text(field(a, "name")), literalOrOpaque(field(a, "value")));
    else
      reportUnsupported(a, "decorator arguments are written as keywords, e.g. @R.function(pure=False)");
  }
  return out;
}

// The decorator of a TVMScript function among a decorated definition's decorators, if any.
std::optional<Lowerer::FunctionNode> Lowerer::functionNode(TSNode stmt) {
  auto f = tvmscriptDecorator(stmt);
  if (f) f->args = decoratorArgs(f->decoratorExpr);
  return f;
}

// functionNode without reading the decorator's arguments (reading them reports what is wrong there).
std::optional<Lowerer::FunctionNode> Lowerer::tvmscriptDecorator(TSNode stmt) {
  if (!isType(stmt, "decorated_definition")) return std::nullopt;
  TSNode def = field(stmt, "definition");
  if (!isType(def, "function_definition")) return std::nullopt;
  for (TSNode d : namedChildren(stmt)) {
    if (!isType(d, "decorator")) continue;
    auto kids = namedChildren(d);
    if (kids.empty()) continue;
    TSNode e = kids[0];
    TSNode callee = isType(e, "call") ? field(e, "function") : e;
    std::string name = canonicalName(callee);
    if (name == "R.function" || name == "T.prim_func") return FunctionNode{stmt, def, name, {}, e};
  }
  return std::nullopt;
}

void Lowerer::reportSyntaxErrors(TSNode scope, ByteRange where) {
  if (auto d = firstSyntaxError(doc_, scope, where)) region_.diagnostics.push_back(*d);
}

ir::ModuleFunction Lowerer::lowerFunctionNode(const FunctionNode& f) {
  ir::ModuleFunction mf;
  mf.name = text(field(f.def, "name"));
  if (f.kind == "R.function") mf.relax = lowerRelaxFunction(f);
  else mf.tir = lowerPrimFunc(f);
  return mf;
}

void Lowerer::lowerModuleClass(TSNode decorated, TSNode classDef, ir::AttrList args) {
  mod_.decoratorArgs = std::move(args);
  className_ = text(field(classDef, "name"));
  mod_.name = className_;
  anchor(&mod_, decorated);
  anchorDecorators(&mod_.decoratorArgs, decorated);
  TSNode body = field(classDef, "body");
  // Functions in source order; a function whose own tree is broken (Document islands) is only reported.
  // A document read by function parses each function when it is lowered and frees it after: a member
  // keeps its skeleton node, found again through definitionAt when its turn comes.
  struct Member {
    TSNode skeleton;
    std::optional<syntax::Document::BrokenIsland> broken;
    std::string name;
  };
  std::vector<Member> functions;
  std::vector<TSNode> others;
  std::vector<TSNode> statements = doc_.statementsOf(body);
  auto misindented = misindentedFunctions(statements);
  for (size_t k = 0; k < statements.size(); ++k) {
    TSNode skeleton = statements[k];
    if (auto it = misindented.find(k); it != misindented.end()) {
      if (it->second) {
        functions.push_back({skeleton, it->second, brokenFunctionName(it->second->range)});
        globalNames_.insert(functions.back().name);
      }
      continue;
    }
    if (auto b = doc_.brokenIslandAt(skeleton)) {
      b->range.begin = ts_node_start_byte(skeleton);  // spans start at the decorator, like the others
      functions.push_back({skeleton, b, brokenFunctionName(b->range)});
      globalNames_.insert(functions.back().name);
      continue;
    }
    TSNode stmt = doc_.headerAt(skeleton);
    if (auto f = tvmscriptDecorator(stmt)) {
      functions.push_back({skeleton, std::nullopt, text(field(f->def, "name"))});
      globalNames_.insert(functions.back().name);
    } else {
      others.push_back(doc_.definitionAt(skeleton));
    }
  }
  if (functions.empty() && others.empty() && !ts_node_has_error(classDef))
    if (auto d = emptyBodyError(doc_, classDef, "class")) region_.diagnostics.push_back(*d);
  // Non-function statements first: global_infos is visible to every function wherever it stands.
  for (TSNode stmt : others) {
    region_.moduleStatements.push_back(rangeOf(stmt));
    lowerModuleStatement(stmt);
  }
  for (auto& m : functions) {
    if (m.broken) {
      lowerBrokenMember(*m.broken);
      continue;
    }
    if (auto f = functionNode(doc_.definitionAt(m.skeleton))) lowerMember(*f, m.name);
    doc_.doneWith(m.skeleton);
  }
}

void Lowerer::lowerBrokenMember(const syntax::Document::BrokenIsland& b) {
  region_.functions.push_back({brokenFunctionName(b.range), b.range, true});
  reportBrokenIsland(b);
}

void Lowerer::reportBrokenIsland(const syntax::Document::BrokenIsland& b) {
  if (auto d = firstSyntaxError(doc_, b.root, b.range)) region_.diagnostics.push_back(*d);
  else if (b.indentError) region_.diagnostics.push_back(indentationError(doc_, *b.indentError, b.range.begin - doc_.lines().lineStart(doc_.lines().lineOf(b.range.begin))));
}

// CPython reads a class body at one column; tree-sitter also accepts statements at other columns (a
// function's body line dedented part way reads as the end of the function, then more statements of the
// class). Each such statement is CPython's IndentationError, and the function before it, with what
// follows up to the next definition, is one broken function (as the Document's island for that
// function says after the same edit). The result, by the index of the statements it swallows: at the
// group's first statement the broken function (none when no definition precedes it: the error is then
// reported here), every other index maps to nothing.
std::map<size_t, std::optional<syntax::Document::BrokenIsland>> Lowerer::misindentedFunctions(const std::vector<TSNode>& statements) {
  std::map<size_t, std::optional<syntax::Document::BrokenIsland>> out;
  if (statements.empty()) return out;
  const uint32_t column = ts_node_start_point(statements[0]).column;
  auto definitionAtColumn = [&](size_t k) {
    TSNode n = statements[k];
    return (isType(n, "decorated_definition") || isType(n, "function_definition")) && ts_node_start_point(n).column == column;
  };
  for (size_t i = 0; i < statements.size(); ++i) {
    if (out.count(i) || ts_node_start_point(statements[i]).column == column) continue;
    size_t first = i;
    while (first > 0 && !out.count(first - 1) && !definitionAtColumn(first)) --first;
    size_t last = i;
    while (last + 1 < statements.size() && !definitionAtColumn(last + 1)) ++last;
    uint32_t at = ts_node_start_byte(statements[i]);
    if (!definitionAtColumn(first)) {
      region_.diagnostics.push_back(indentationError(doc_, at, column));
      region_.misindented = true;
      first = i;
    }
    for (size_t k = first; k <= last; ++k) out[k] = std::nullopt;
    if (definitionAtColumn(first)) {
      TSNode root = statements[first];
      while (!ts_node_is_null(ts_node_parent(root))) root = ts_node_parent(root);
      uint32_t end = ts_node_end_byte(statements[last]);
      ByteRange range{ts_node_start_byte(statements[first]), doc_.lines().lineEnd(doc_.lines().lineOf(end > 0 ? end - 1 : 0))};
      out[first] = syntax::Document::BrokenIsland{range, root, at};
    }
    i = last;
  }
  return out;
}

void Lowerer::lowerMember(const FunctionNode& f, const std::string& name) {
  FunctionSpan span{name, rangeOf(f.decorated), ts_node_has_error(f.decorated)};
  if (span.broken) {
    reportSyntaxErrors(f.decorated, span.range);
  } else {
    mod_.functions.push_back(lowerFunctionNode(f));
    auto& mf = mod_.functions.back();
    const void* target = mf.relax ? static_cast<const void*>(mf.relax.get()) : mf.tir.get();
    defineName(NameRef::Kind::Function, field(f.def, "name"), name, target);
  }
  region_.functions.push_back(span);
}

bool Lowerer::isGlobal(const std::string& name) const {
  auto named = [&](auto& list) { return std::any_of(list.begin(), list.end(), [&](auto& f) { return f.name == name; }); };
  return globalNames_.count(name) || (externalGlobals_ && externalGlobals_->count(name)) || named(region_.functions) ||
         named(mod_.functions) || std::find(mod_.moduleBindings.begin(), mod_.moduleBindings.end(), name) != mod_.moduleBindings.end();
}

bool Lowerer::lowerMembers(const std::vector<TSNode>& statements, const std::set<std::string>& names) {
  className_ = mod_.name;
  globalNames_ = names;
  for (TSNode stmt : statements) {
    if (auto b = doc_.brokenIslandAt(stmt)) {
      b->range.begin = ts_node_start_byte(stmt);
      lowerBrokenMember(*b);
      continue;
    }
    auto f = functionNode(doc_.definitionAt(stmt));
    if (!f) return false;
    lowerMember(*f, text(field(f->def, "name")));
  }
  return true;
}

void Lowerer::lowerModuleStatement(TSNode stmt) {
  if (ts_node_has_error(stmt)) {
    reportSyntaxErrors(stmt, rangeOf(stmt));
    return;
  }
  if (isType(stmt, "pass_statement")) return;
  if (isType(stmt, "expression_statement")) {
    auto kids = namedChildren(stmt);
    TSNode e = kids.empty() ? TSNode{} : kids[0];
    if (isType(e, "string") && kids.size() == 1) {
      reportUnsupported(stmt, "a docstring in an @I.ir_module class is not kept by TVMScript; use a comment");
      return;
    }
    if (isType(e, "call")) {
      std::string name = canonicalName(field(e, "function"));
      auto args = namedChildren(field(e, "arguments"));
      if (name == "I.module_global_infos" || name == "I.module_attrs") {
        bool infos = name == "I.module_global_infos";
        bool& seen = infos ? globalInfosSeen_ : attrsSeen_;
        ByteRange& first = infos ? globalInfosRange_ : attrsRange_;
        if (seen) {
          auto d = diag::make(diag::Code::TVS006, rangeOf(stmt), "a second " + name + " in module '" + className_ + "'");
          d.related.push_back({first, "the first " + name + " is here"});
          region_.diagnostics.push_back(d);
          return;
        }
        seen = true;
        first = rangeOf(stmt);
        if (args.size() != 1 || !isType(args[0], "dictionary")) {
          report(diag::Code::TVS005, rangeOf(e), name + " takes one dict argument");
          return;
        }
        if (!infos) {
          mod_.hasAttrs = true;
          auto v = literalOrOpaque(args[0]);
          mod_.attrs = v.dict;
          anchor(&mod_.attrs, stmt);
          return;
        }
        mod_.hasGlobalInfos = true;
        anchor(&mod_.vdevices, stmt);
        for (TSNode pair : namedChildren(args[0])) {
          if (!isType(pair, "pair")) {
            reportUnsupported(pair, "global_infos entries are written as \"key\": [...]");
            continue;
          }
          auto key = stringLiteral(doc_, field(pair, "key"));
          TSNode value = field(pair, "value");
          if (!key) {
            report(diag::Code::TVS005, rangeOf(field(pair, "key")), "global_infos keys are strings");
            continue;
          }
          if (*key != "vdevice") {
            mod_.otherGlobalInfos.emplace_back(*key, literalOrOpaque(value));
            continue;
          }
          mod_.hasVDeviceKey = true;
          if (auto list = pythonValue(value); list && list->isSequence()) {
            declarePythonVDevices(*list, value);
            continue;
          }
          if (!isType(value, "list") && !isType(value, "tuple")) {
            report(diag::Code::TVS005, rangeOf(value), "\"vdevice\" takes a list of I.vdevice(...)");
            continue;
          }
          for (TSNode item : namedChildren(value)) {
            auto v = lowerVDeviceDecl(item);
            if (!v) continue;
            mod_.vdevices.push_back(v);
            region_.map.ranges.set(v.get(), rangeOf(item));
            defineName(NameRef::Kind::VDevice, item, v->target.kind, v.get());
          }
        }
        return;
      }
    }
  }
  if (isType(stmt, "expression_statement") && !namedChildren(stmt).empty() && isType(namedChildren(stmt)[0], "assignment")) {
    // my_ext = R.ExternFunc("my_ext"): a module-level binding, an extern function of the module
    TSNode a = namedChildren(stmt)[0];
    TSNode right = field(a, "right");
    if (isType(field(a, "left"), "identifier") && isType(right, "call") &&
        canonicalName(field(right, "function")) == "R.ExternFunc") {
      // Module statements are lowered before the functions, so `cls.name` resolves in all of them.
      mod_.moduleBindings.push_back(text(field(a, "left")));
      globalNames_.insert(mod_.moduleBindings.back());
      notChecked(stmt, "a module-level R.ExternFunc binding: kept as written, `cls." + text(field(a, "left")) +
                           "` resolves to it");
      return;
    }
  }
  if (isType(stmt, "function_definition") || isType(stmt, "decorated_definition")) {
    reportUnsupported(stmt, "a function in an @I.ir_module class needs @R.function or @T.prim_func");
    return;
  }
  reportUnsupported(stmt,
                    "an @I.ir_module class body holds I.module_global_infos, I.module_attrs and decorated functions only");
}

void Lowerer::lowerStandalone(TSNode decorated, TSNode def, const std::string& decorator, ir::AttrList args) {
  mod_.standalone = true;
  std::string name = text(field(def, "name"));
  mod_.name = name;
  FunctionSpan span{name, rangeOf(decorated), ts_node_has_error(decorated)};
  if (span.broken) {
    reportSyntaxErrors(decorated, span.range);
  } else {
    mod_.functions.push_back(lowerFunctionNode(FunctionNode{decorated, def, decorator, std::move(args), {}}));
  }
  region_.functions.push_back(span);
}

bool Lowerer::relower(TSNode decorated, size_t index) {
  TSNode classDef = field(decorated, "definition");
  if (!isType(classDef, "class_definition")) return false;
  className_ = mod_.name;
  // The function's decorated definition starts where its span starts (an edit inside it moves only its end).
  TSNode node = doc_.statementAt(field(classDef, "body"), region_.functions.at(index).range.begin);
  if (!isType(node, "decorated_definition")) return false;
  if (auto b = doc_.brokenIslandAt(node)) {
    auto& span = region_.functions.at(index);
    std::string old = span.name;
    std::erase_if(mod_.functions, [&](auto& mf) { return mf.name == old; });
    b->range.begin = ts_node_start_byte(node);
    span = FunctionSpan{brokenFunctionName(b->range), b->range, true};
    reportBrokenIsland(*b);
    return true;
  }
  node = doc_.definitionAt(node);
  {
    auto f = functionNode(node);
    if (!f) return false;
    std::string name = text(field(f->def, "name"));
    auto& span = region_.functions.at(index);
    auto old = std::find_if(mod_.functions.begin(), mod_.functions.end(), [&](auto& mf) { return mf.name == span.name; });
    span = FunctionSpan{name, rangeOf(f->decorated), ts_node_has_error(f->decorated)};
    if (span.broken) {
      if (old != mod_.functions.end()) mod_.functions.erase(old);
      reportSyntaxErrors(f->decorated, span.range);
      return true;
    }
    auto fresh = lowerFunctionNode(*f);
    const void* target = fresh.relax ? static_cast<const void*>(fresh.relax.get()) : fresh.tir.get();
    defineName(NameRef::Kind::Function, field(f->def, "name"), name, target);
    if (old != mod_.functions.end()) *old = std::move(fresh);
    else mod_.functions.push_back(std::move(fresh));
    return true;
  }
}

// ---- T.prim_func: signature and buffers recorded, body kept verbatim.

std::vector<std::string> dedentedLines(std::string_view body, uint32_t column) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t nl = body.find('\n', pos);
    std::string_view line = body.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t strip = 0;
    while (strip < line.size() && strip < column && line[strip] == ' ') ++strip;
    std::string l(line.substr(strip));
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
    lines.push_back(l);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// A TIR buffer's shape: a tuple of dims, or one dim alone (`T.Buffer(16, "float32")` is rank 1).
std::optional<std::vector<ir::PrimExprPtr>> Lowerer::lowerBufferShape(TSNode shape) {
  // T.int64(3), as TVM's printer writes a rank-1 shape, is one dim too (a call is never a tuple).
  if (isType(shape, "integer") || isType(shape, "identifier") || isType(shape, "binary_operator") || isType(shape, "call"))
    return std::vector<ir::PrimExprPtr>{lowerDim(shape)};
  return lowerShapeDims(shape);
}

// One parameter of a T.prim_func's signature: `name`, or `name: T.Buffer(shape, dtype)`, `T.handle`,
// `T.int32` ... (a scalar, which may size the buffers matched after it); nullopt (reported) otherwise.
std::optional<ir::TirParam> Lowerer::lowerPrimFuncParam(TSNode p) {
  ir::TirParam tp;
  if (isType(p, "identifier")) {
    tp.name = text(p);
    return tp;
  }
  if (!isType(p, "typed_parameter")) {
    reportUnsupported(p, "T.prim_func parameters are `name: annotation`");
    return std::nullopt;
  }
  auto kids = namedChildren(p);
  tp.name = kids.empty() ? "" : text(kids[0]);
  TSNode type = field(p, "type");
  tp.annotation = text(type);
  TSNode e = namedChildren(type).empty() ? type : namedChildren(type)[0];
  std::string head = canonicalName(isType(e, "call") ? field(e, "function") : e);
  if (head == "T.Buffer" && isType(e, "call")) {
    tp.kind = ir::TirParam::Kind::Buffer;
    tp.buffer.name = tp.name;
    auto args = namedChildren(field(e, "arguments"));
    if (!args.empty()) {
      TSNode shape = isType(args[0], "keyword_argument") ? field(args[0], "value") : args[0];
      if (auto dims = lowerBufferShape(shape)) tp.buffer.shape = *dims;
    }
    for (size_t i = 0; i < args.size(); ++i) {
      TSNode a = args[i];
      if (isType(a, "keyword_argument") && text(field(a, "name")) == "dtype") a = field(a, "value");
      else if (i != 1) continue;
      if (auto s = stringLiteral(doc_, a)) tp.buffer.dtype = *s;
    }
  } else if (head == "T.handle") {
    tp.kind = ir::TirParam::Kind::Handle;
  } else if (head.rfind("T.", 0) == 0) {
    tp.kind = ir::TirParam::Kind::Scalar;
    symbolic_.insert(tp.name);  // a scalar parameter may size the buffers matched below
  }
  return tp;
}

// The body's statements the function's outline records: T.func_attr({...}), symbolic variables
// (`n = T.int32()`, or `n, c = T.int64(), T.int64()`: match_buffer shapes after them use them) and
// `X = T.match_buffer(param, shape, dtype)`.
void Lowerer::recordPrimFuncOutline(const std::vector<TSNode>& stmts, ir::PrimFunc& pf) {
  for (TSNode stmt : stmts) {
    if (!isType(stmt, "expression_statement")) continue;
    auto kids = namedChildren(stmt);
    if (kids.empty()) continue;
    TSNode e = kids[0];
    if (isType(e, "call") && canonicalName(field(e, "function")) == "T.func_attr") {
      auto args = namedChildren(field(e, "arguments"));
      if (!args.empty()) pf.attrs = literalOrOpaque(args[0]).dict;
    } else if (isType(e, "assignment")) {
      TSNode rhs = field(e, "right");
      std::string callee = isType(rhs, "call") ? canonicalName(field(rhs, "function")) : "";
      auto declared = symbolicVariablesDeclared(doc_, e, [this](TSNode n) { return canonicalName(n); });
      if (!declared.empty()) {
        symbolic_.insert(declared.begin(), declared.end());
      } else if (callee == "T.match_buffer") {
        ir::TirBuffer b;
        b.name = text(field(e, "left"));
        auto args = namedChildren(field(rhs, "arguments"));
        if (args.size() >= 2)
          if (auto dims = lowerBufferShape(args[1])) b.shape = *dims;
        if (args.size() >= 3)
          if (auto s = stringLiteral(doc_, args[2])) b.dtype = *s;
        pf.matchedBuffers.push_back(b);
      }
    }
  }
}

// The body as the loop IR, for a build that calls it, with its names for the editor and its notes.
void Lowerer::readPrimFuncBody(const FunctionNode& f, ir::PrimFunc& pf) {
  PythonNumbers pythonNumber = [this](const std::string& name) -> std::optional<PythonNumber> {
    if (!aliases_.isPythonName(name)) return std::nullopt;
    // The function reads the file's Python: an edit relowers the whole file, which evaluates it (a
    // function lowered alone has no evaluator: followEdit gives up on it).
    region_.readsPython = true;
    const PyValue* v = python_ ? python_->lookup(name) : nullptr;
    if (!v || (v->kind != PyValue::Kind::Int && v->kind != PyValue::Kind::Float && v->kind != PyValue::Kind::Bool)) return std::nullopt;
    if (v->kind == PyValue::Kind::Float) return PythonNumber{false, 0, v->real};
    return PythonNumber{true, v->kind == PyValue::Kind::Bool ? int64_t{v->boolean} : v->integer, 0};
  };
  TirRead read = readPrimFunc(doc_, f.def, [this](TSNode n) { return canonicalName(n); },
                              [this](const std::string& name) { return aliases_.isPythonName(name); }, pythonNumber);
  pf.kernel = std::move(read.kernel);
  pf.kernelError = std::move(read.error);
  // Buffers and variables of the body for the editor: definitions, uses, what hover says.
  if (forEditors_)
    for (auto& n : read.names) {
      const ir::TirSymbol& sym = *read.symbols[n.symbol];
      NameRef::Kind kind = sym.kind == ir::TirSymbol::Kind::Buffer ? NameRef::Kind::TirBuffer : NameRef::Kind::TirVar;
      region_.map.names.push_back({kind, n.range, sym.name, n.isDefinition, &sym});
    }
  pf.symbols = std::move(read.symbols);
  for (auto& d : read.diagnostics) report(d.code, d.range, d.message);
  // What tvms does not read yet is a note where it is written (TVS011), never an error: TVM takes it;
  // a build that calls the prim_func says so again.
  if (read.unreadAt)
    report(diag::Code::TVS011, *read.unreadAt,
           "not compiled: tvms does not compile " + pf.kernelError.substr(pf.kernelError.find("tvms does not compile ") + 22) +
               " (the rest of '" + pf.name + "' is not checked)");
}

ir::PrimFuncPtr Lowerer::lowerPrimFunc(const FunctionNode& f) {
  auto pf = std::make_shared<ir::PrimFunc>();
  pf->name = text(field(f.def, "name"));
  pf->decoratorArgs = f.args;
  anchor(pf.get(), f.decorated);
  anchorDecorators(&pf->decoratorArgs, f.decorated);
  region_.map.ranges.set(pf.get(), rangeOf(f.decorated));
  std::vector<std::pair<size_t, TSNode>> paramNodes;
  // Symbolic names belong to one function: a name in a buffer shape of the signature declares it, as
  // does `n = T.int32()` in the body.
  symbolic_.clear();
  inSignature_ = true;
  for (TSNode p : namedChildren(field(f.def, "parameters")))
    if (auto tp = lowerPrimFuncParam(p)) {
      pf->params.push_back(std::move(*tp));
      paramNodes.emplace_back(pf->params.size() - 1, p);
    }
  inSignature_ = false;
  for (auto& [i, node] : paramNodes) anchor(&pf->params[i], node);
  if (TSNode ret = field(f.def, "return_type"); !ts_node_is_null(ret)) pf->retAnnotation = text(ret);

  TSNode body = field(f.def, "body");
  auto stmts = namedChildren(body);
  if (!stmts.empty()) {
    // Keep the body from its first statement's line start to its end, verbatim (comments included).
    uint32_t firstLine = doc_.lines().lineOf(ts_node_start_byte(stmts.front()));
    uint32_t begin = doc_.lines().lineStart(firstLine);
    uint32_t end = ts_node_end_byte(body);
    uint32_t column = ts_node_start_point(stmts.front()).column;
    pf->bodyLines = dedentedLines(doc_.slice({begin, end}), column);
    verbatim_.push_back({begin, end});
  }
  recordPrimFuncOutline(stmts, *pf);
  readPrimFuncBody(f, *pf);
  return pf;
}

// ---- the file

bool Region::formattable() const {
  return !keepAsWritten && std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](auto& d) { return d.code == diag::Code::TVS001 || d.code == diag::Code::TVS002; });
}

std::vector<diag::Diagnostic> FileResult::all() const {
  std::vector<diag::Diagnostic> out = diagnostics;
  for (auto& r : regions) out.insert(out.end(), r.diagnostics.begin(), r.diagnostics.end());
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.range.begin < b.range.begin; });
  return out;
}

namespace {

bool isCompound(std::string_view t) {
  static const char* kinds[] = {"function_definition", "class_definition", "if_statement", "elif_clause",
                                "else_clause", "for_statement", "while_statement", "try_statement",
                                "except_clause", "finally_clause", "with_statement", "block",
                                "decorated_definition", "match_statement", "case_clause"};
  for (auto* k : kinds) if (t == k) return true;
  return false;
}

struct Candidate {
  TSNode decorated;
  TSNode def;
  std::string decorator;
  TSNode decoratorExpr;
};

// The names an assignment target, a parameter list or a loop target binds.
void bindTargets(const syntax::Document& doc, TSNode target, Aliases& aliases, int depth = 0) {
  if (ts_node_is_null(target) || depth > 20) return;
  std::string_view t = typeOf(target);
  if (t == "identifier") aliases.addPythonName(std::string(doc.nodeText(target)));
  else if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "parameters" ||
           t == "typed_parameter" || t == "default_parameter" || t == "typed_default_parameter" ||
           t == "list_splat_pattern" || t == "dictionary_splat_pattern")
    for (TSNode c : namedChildren(target)) {
      if (t == "default_parameter" || t == "typed_default_parameter") {
        bindTargets(doc, field(target, "name"), aliases, depth + 1);
        break;
      }
      bindTargets(doc, c, aliases, depth + 1);
      if (t == "typed_parameter") break;  // its first child is the name, then the type
    }
}

bool isTvmScriptDefinition(const syntax::Document& doc, const Aliases& aliases, TSNode decorated) {
  for (TSNode d : namedChildren(decorated)) {
    if (!isType(d, "decorator") || namedChildren(d).empty()) continue;
    TSNode e = namedChildren(d)[0];
    std::string name = aliases.canonical(dottedName(doc, isType(e, "call") ? field(e, "function") : e));
    if (name == "I.ir_module" || name == "R.function" || name == "T.prim_func") return true;
  }
  return false;
}

// Walks statements (never expressions) collecting imports, TVMScript region candidates and the names
// the Python around them binds.
void scanStatements(const syntax::Document& doc, TSNode n, Aliases& aliases, std::vector<TSNode>& decorated, int depth) {
  if (depth > 100) return;
  for (TSNode c : isType(n, "block") ? doc.statementsOf(n) : namedChildren(n)) {
    std::string_view t = typeOf(c);
    if (t == "expression_statement")
      for (TSNode e : namedChildren(c))
        if (isType(e, "assignment") || isType(e, "augmented_assignment")) bindTargets(doc, field(e, "left"), aliases);
    if (t == "function_definition") {
      bindTargets(doc, field(c, "parameters"), aliases);
      bindTargets(doc, field(c, "name"), aliases);  // a Python helper (an R.macro) TVMScript may call
    }
    if (t == "for_statement") bindTargets(doc, field(c, "left"), aliases);
    if (t == "decorated_definition" || t == "function_definition") c = doc.definitionAt(c);
    if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement") {
      aliases.addImport(doc, c);
    } else if (t == "decorated_definition" && isTvmScriptDefinition(doc, aliases, c)) {
      decorated.push_back(c);
    } else if (t == "decorated_definition") {
      // An ordinary decorated Python definition (a parametrized test): TVMScript may be nested in it,
      // and may use the names it binds. Its imports stay inside it.
      TSNode def = field(c, "definition");
      bindTargets(doc, field(def, "name"), aliases);
      Aliases scratch = aliases;
      if (isType(def, "function_definition")) bindTargets(doc, field(def, "parameters"), scratch);
      scanStatements(doc, def, scratch, decorated, depth + 1);
      aliases.addPythonNames(scratch);
    } else if (isCompound(t)) {
      scanStatements(doc, c, aliases, decorated, depth + 1);
    }
  }
}

// Lowers one TVMScript definition into `out`, reading the program's names through `python` (null for
// a definition the program never reached).
void lowerCandidate(const syntax::Document& doc, Aliases& aliases, TSNode candidate, PythonEvaluator* python,
                    std::vector<Region>& out, const LowerOptions& options) {
  TSNode d = doc.definitionAt(candidate);
  Region region;
  if (!options.positions) region.map.recordNothing();
  region.module = std::make_shared<ir::IRModule>();
  region.range = rangeOf(d);
  region.indentColumn = ts_node_start_point(d).column;
  Lowerer lowerer(doc, aliases, region);
  lowerer.setPython(python);
  TSNode def = field(d, "definition");
  bool matched = false;
  for (TSNode dec : namedChildren(d)) {
    if (!isType(dec, "decorator")) continue;
    auto kids = namedChildren(dec);
    if (kids.empty()) continue;
    TSNode e = kids[0];
    TSNode callee = isType(e, "call") ? field(e, "function") : e;
    std::string dotted = dottedName(doc, callee);
    std::string head = dotted.substr(0, dotted.find('.'));
    std::string name = aliases.canonical(dotted);
    if (name == "I.ir_module" && isType(def, "class_definition")) {
      lowerer.lowerModuleClass(d, def, lowerer.decoratorArgs(e));
      matched = true;
    } else if ((name == "R.function" || name == "T.prim_func") && isType(def, "function_definition")) {
      lowerer.lowerStandalone(d, def, name, lowerer.decoratorArgs(e));
      matched = true;
    }
    if (matched) {
      if (!aliases.binds(head)) aliases.noteUse(head, rangeOf(callee));
      break;
    }
  }
  if (!matched) {
    // A TVMScript decorator on the other kind of definition (@R.function on a class): TVMScript may
    // still be nested inside it. (Ordinary decorated Python definitions were walked by scanStatements.)
    std::vector<TSNode> inner;
    Aliases scratch = aliases;
    scanStatements(doc, def, scratch, inner, 1);
    for (TSNode n : inner) lowerCandidate(doc, aliases, n, nullptr, out, options);
    return;
  }
  lowerer.finish();
  bool broken = std::any_of(region.diagnostics.begin(), region.diagnostics.end(), [](auto& x) { return x.code == diag::Code::TVS001; });
  if (!broken && ts_node_has_error(d)) {
    // An error outside every function and statement (in the class header, between statements).
    if (auto e = firstSyntaxError(doc, d, rangeOf(d))) {
      region.diagnostics.push_back(*e);
      broken = true;
    }
  }
  // Recovery splits the class by indentation when its tree holds the error: tree-sitter's recovery may
  // have let a broken function swallow the ones after it. An error the Document kept inside one
  // function (a broken island) or a function with an empty body (tree-sitter's tree has no error)
  // swallowed nothing: the functions were lowered one by one already.
  if (broken && isType(def, "class_definition") && ts_node_has_error(d))
    if (auto recovered = recoverBrokenModule(doc, aliases, d)) {
      bool readsPython = region.readsPython;
      region = std::move(*recovered);
      region.readsPython |= readsPython;
      region.recovered = true;
      if (!options.positions) {  // recovery lowers with a region of its own, which records them
        region.map = SourceMap{};
        region.map.recordNothing();
      }
    }
  // Era: the spellings the source uses.
  std::string_view text = doc.slice(region.range);
  if (text.find("R.Any") != std::string_view::npos || text.find("out_ty=") != std::string_view::npos ||
      text.find("ty_args=") != std::string_view::npos)
    region.module->era = ir::Era::V026;
  out.push_back(std::move(region));
}

}  // namespace

FileResult lowerDocumentOnce(syntax::Document& doc, const LowerOptions& options) {
  FileResult result = lowerDocument(doc, options);
  if (!doc.byFunctionFailed()) return result;
  doc.parseWhole();
  return lowerDocument(doc, options);
}

FileResult lowerDocument(const syntax::Document& doc, const LowerOptions& options) {
  FileResult result;
  Aliases aliases;
  std::vector<TSNode> decorated;
  scanStatements(doc, doc.root(), aliases, decorated, 0);

  // The file's Python first: the TVMScript it reaches is lowered where it stands, reading its names;
  // the modules it builds with TVM's builder APIs become regions too.
  TvmscriptLowering lower = [&](TSNode d, PythonEvaluator* python, std::vector<Region>& out) {
    lowerCandidate(doc, aliases, d, python, out, options);
  };
  ProgramResult program = runProgram(doc, aliases, lower);
  std::vector<Region> regions = std::move(program.regions);
  const Region* built = program.pipeline ? &regions[program.pipeline->region] : nullptr;
  for (TSNode d : decorated)
    if (!program.lowered.count(ts_node_start_byte(doc.definitionAt(d)))) lowerCandidate(doc, aliases, d, nullptr, regions, options);
  if (built) built = &regions[program.pipeline->region];  // `regions` may have grown
  // Regions in source order; the pipeline's module found again after sorting. A definition inside
  // another region is part of it (recovery after a syntax error can make the whole-file tree show a
  // module's function as a statement of its own): two regions over the same text would be formatted
  // twice.
  auto nested = [&](size_t i) {
    for (size_t j = 0; j < regions.size(); ++j)
      if (j != i && !regions[i].builtByProgram && !regions[j].builtByProgram &&
          regions[j].range.begin <= regions[i].range.begin && regions[i].range.end <= regions[j].range.end &&
          (regions[j].range.begin != regions[i].range.begin || regions[j].range.end != regions[i].range.end || j < i))
        return true;
    return false;
  };
  std::vector<size_t> index;
  for (size_t i = 0; i < regions.size(); ++i)
    if (!nested(i)) index.push_back(i);
  std::stable_sort(index.begin(), index.end(), [&](size_t a, size_t b) { return regions[a].range.begin < regions[b].range.begin; });
  std::vector<ByteRange> regionRanges;
  for (size_t i : index) {
    if (built == &regions[i]) {
      result.pipeline = program.pipeline;
      result.pipeline->region = result.regions.size();
    }
    if (!regions[i].builtByProgram) regionRanges.push_back(regions[i].range);
    result.regions.push_back(std::move(regions[i]));
  }
  result.diagnostics = std::move(program.diagnostics);

  if (aliases.hasFutureAnnotations() && !result.regions.empty())
    result.diagnostics.push_back(diag::make(diag::Code::TVS009, aliases.futureAnnotationsRange(),
                                            "`from __future__ import annotations` makes the functions' annotations strings at run time "
                                            "(TVM's parser reads the source, so TVMScript still parses)"));
  static const std::map<std::string, std::string> kModules = {
      {"I", "from tvm.script import ir as I"}, {"R", "from tvm.script import relax as R"},
      {"T", "from tvm.script import tir as T"}};
  for (auto& [head, where] : aliases.implicitUses()) {
    if (result.regions.empty()) break;
    result.diagnostics.push_back(diag::make(
        diag::Code::TVS010, where, "`" + head + ".` is used without an import; assuming `" + kModules.at(head) + "`"));
  }
  // A file that imports tvm is ours: report syntax errors outside the regions too, once. When
  // tree-sitter's recovery swallowed the imports and the module into one error, the text still says
  // so: without this the file would pass with nothing checked ("All checks passed!").
  auto mentionsTvmScript = [&] {
    const std::string& t = doc.text();
    return t.find("tvm.script") != std::string::npos || t.find("@I.ir_module") != std::string::npos ||
           t.find("@R.function") != std::string::npos || t.find("@T.prim_func") != std::string::npos;
  };
  if (ts_node_has_error(doc.root()) && (aliases.importsTvm() || mentionsTvmScript())) {
    if (auto d = firstSyntaxError(doc, doc.root(), {0, static_cast<uint32_t>(doc.text().size())}, regionRanges))
      result.diagnostics.push_back(*d);
  }
  return result;
}

Aliases fileAliases(const syntax::Document& doc) {
  Aliases aliases;
  std::vector<TSNode> decorated;
  scanStatements(doc, doc.root(), aliases, decorated, 0);
  return aliases;
}

TSNode regionNode(const syntax::Document& doc, const Region& region) {
  TSNode node = ts_node_descendant_for_byte_range(doc.root(), region.range.begin, region.range.begin);
  while (!ts_node_is_null(node) && !isType(node, "decorated_definition")) node = ts_node_parent(node);
  return node;
}

bool relowerFunction(const syntax::Document& doc, Region& region, size_t index) {
  Aliases aliases = fileAliases(doc);
  TSNode node = regionNode(doc, region);
  if (ts_node_is_null(node)) return false;
  region.range = rangeOf(node);
  // Diagnostics of the function being replaced go; the others stay.
  if (index >= region.functions.size()) return false;
  ByteRange old = region.functions[index].range;
  std::erase_if(region.diagnostics, [&](auto& d) { return d.range.begin >= old.begin && d.range.begin < old.end; });
  Lowerer lowerer(doc, aliases, region);
  // A use of `R.` without its import is reported once, at the file's first (TVS010): only a whole
  // lowering knows which is first.
  return lowerer.relower(node, index) && aliases.implicitUses().empty();
}

}  // namespace tvms::frontend
