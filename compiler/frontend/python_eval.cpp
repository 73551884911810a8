// The static Python evaluator (see python_eval.h).
#include "compiler/frontend/python_eval.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/printer.h"
#include "runtime/target_kind.h"

namespace tvms::frontend {

namespace {

constexpr int kMaxCallDepth = 16;
// Values past these sizes are not built (doubling a list in straight-line code would exhaust memory).
constexpr size_t kMaxSequence = 1 << 16;
constexpr size_t kMaxString = 1 << 20;
// Statements executed in all: past this, calls are not followed (helpers calling helpers twice each).
constexpr uint64_t kMaxSteps = 2'000'000;

// numpy's dtype spellings as TVM's ("float32"); np.float32 is "numpy.float32".
std::string dtypeName(const PyValue& v) {
  if (v.kind == PyValue::Kind::Str) return v.text;
  if (v.kind == PyValue::Kind::Namespace && v.text.rfind("numpy.", 0) == 0) return v.text.substr(6);
  return "";
}

bool isInt(const PyValue& v) { return v.kind == PyValue::Kind::Int || v.kind == PyValue::Kind::Bool; }
int64_t intOf(const PyValue& v) { return v.kind == PyValue::Kind::Bool ? v.boolean : v.integer; }
bool isNumber(const PyValue& v) { return isInt(v) || v.kind == PyValue::Kind::Float; }
double realOf(const PyValue& v) { return v.kind == PyValue::Kind::Float ? v.real : static_cast<double>(intOf(v)); }

// Python's floor division and modulo.
int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

std::optional<bool> truthOf(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::None: return false;
    case PyValue::Kind::Bool: return v.boolean;
    case PyValue::Kind::Int: return v.integer != 0;
    case PyValue::Kind::Float: return v.real != 0;
    case PyValue::Kind::Str: return !v.text.empty();
    case PyValue::Kind::Tuple:
    case PyValue::Kind::List: return !v.items->empty();
    case PyValue::Kind::Dict: return !v.dict->empty();
    default: return std::nullopt;
  }
}

bool sameKey(const PyValue& a, const PyValue& b) {
  if (a.kind == PyValue::Kind::Str && b.kind == PyValue::Kind::Str) return a.text == b.text;
  if (isInt(a) && isInt(b)) return intOf(a) == intOf(b);
  return false;
}

}  // namespace

std::string describe(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::Unknown: return "<unknown>";
    case PyValue::Kind::None: return "None";
    case PyValue::Kind::Bool: return v.boolean ? "True" : "False";
    case PyValue::Kind::Int: return std::to_string(v.integer);
    case PyValue::Kind::Float: return ir::pythonFloat(v.real);
    case PyValue::Kind::Str: return "\"" + v.text + "\"";
    case PyValue::Kind::Tuple:
    case PyValue::Kind::List: {
      bool tuple = v.kind == PyValue::Kind::Tuple;
      std::string s = tuple ? "(" : "[";
      for (size_t i = 0; i < v.items->size(); ++i) {
        if (i == 8) {
          s += ", ...";
          break;
        }
        s += (i ? ", " : "") + describe((*v.items)[i]);
      }
      if (tuple && v.items->size() == 1) s += ",";
      return s + (tuple ? ")" : "]");
    }
    case PyValue::Kind::Dict: return "{...}";
    case PyValue::Kind::VDevice: return "I.vdevice(\"" + v.vdevice->target.kind + "\", " + std::to_string(v.vdevice->vdeviceId) + ")";
    case PyValue::Kind::Device: return "device(" + std::to_string(v.device.deviceType) + ", " + std::to_string(v.device.index) + ")";
    case PyValue::Kind::Relax: return "a Relax expression";
    case PyValue::Kind::SInfo: return "a struct info";
    case PyValue::Kind::Array: return "an array";
    case PyValue::Kind::SymVar: return v.text;
    case PyValue::Kind::Namespace: return v.text;
    case PyValue::Kind::PyFunction: return "a function";
    case PyValue::Kind::Lambda: return v.text;
    case PyValue::Kind::Object: return v.object->typeName();
  }
  return "?";
}

std::optional<ir::Value> toAttributeValue(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::None: return ir::Value::none();
    case PyValue::Kind::Bool: return ir::Value::ofBool(v.boolean);
    case PyValue::Kind::Int: return ir::Value::ofInt(v.integer);
    case PyValue::Kind::Float: return ir::Value::ofFloat(v.real);
    case PyValue::Kind::Str: return ir::Value::ofString(v.text);
    case PyValue::Kind::Tuple:
    case PyValue::Kind::List: {
      std::vector<ir::Value> items;
      for (auto& i : *v.items) {
        auto x = toAttributeValue(i);
        if (!x) return std::nullopt;
        items.push_back(*x);
      }
      return ir::Value::ofList(std::move(items), v.kind == PyValue::Kind::Tuple);
    }
    default: return std::nullopt;
  }
}

const PyValue* PythonEvaluator::Arguments::keyword(std::string_view name) const {
  for (auto& [k, v] : keywords) if (k == name) return &v;
  return nullptr;
}
const PyValue* PythonEvaluator::Arguments::get(size_t index, std::string_view name) const {
  if (auto* k = keyword(name)) return k;
  return index < positional.size() ? &positional[index] : nullptr;
}
TSNode PythonEvaluator::Arguments::nodeOf(size_t index, std::string_view name) const {
  for (size_t i = 0; i < keywords.size(); ++i) if (keywords[i].first == name) return keywordNodes[i];
  return index < positionalNodes.size() ? positionalNodes[index] : TSNode{};
}

PythonEvaluator::PythonEvaluator(const syntax::Document& doc, const Aliases& aliases, Hooks& hooks)
    : doc_(doc), aliases_(aliases), hooks_(hooks) {
  globals_["__name__"] = PyValue::ofStr("__main__");
}

void PythonEvaluator::notFollowed(TSNode n, const std::string& what) {
  std::string kind = what.substr(0, std::min(what.find(':'), what.find(" (")));
  if (!notedConstructs_.insert(kind).second) return;
  diagnostics_.push_back(diag::make(diag::Code::TVS011, rangeOf(n), "not checked: " + what));
}

const PyValue* PythonEvaluator::lookup(const std::string& name) const {
  if (!locals_.empty())
    if (auto it = locals_.back().find(name); it != locals_.back().end()) return &it->second;
  if (auto it = globals_.find(name); it != globals_.end()) return &it->second;
  return nullptr;
}

std::string PythonEvaluator::canonicalName(const PyValue& ns) const {
  return ns.kind == PyValue::Kind::Namespace ? normalizeTvmPath(ns.text) : "";
}

std::string PythonEvaluator::spellingOf(const PyValue& v) const {
  auto find = [&](const Scope& scope) -> std::string {
    std::string best;
    for (auto& [name, x] : scope) {
      if (v.kind == PyValue::Kind::VDevice && x.kind == PyValue::Kind::VDevice && x.vdevice == v.vdevice) return name;
      if (v.isSequence() && x.isSequence() && x.items == v.items) return name;
      if (v.kind == PyValue::Kind::VDevice && x.isSequence())
        for (size_t i = 0; i < x.items->size(); ++i)
          if ((*x.items)[i].kind == PyValue::Kind::VDevice && (*x.items)[i].vdevice == v.vdevice && best.empty())
            best = name + "[" + std::to_string(i) + "]";
    }
    return best;
  };
  if (!locals_.empty())
    if (auto s = find(locals_.back()); !s.empty()) return s;
  return find(globals_);
}

void PythonEvaluator::run() {
  exec(doc_.root());
  // Functions nothing called (pytest's test functions, helpers): their bodies still build modules.
  for (size_t i = 0; i < functionDefinitions_.size(); ++i) {
    TSNode def = functionDefinitions_[i];
    if (executedFunctions_.count(ts_node_start_byte(def))) continue;
    executedFunctions_.insert(ts_node_start_byte(def));
    locals_.emplace_back();
    frameIds_.push_back(nextFrameId_++);
    std::vector<TSNode> params = namedChildren(field(def, "parameters"));
    for (TSNode p : params) {
      TSNode name = isType(p, "identifier") ? p : field(p, "name");
      if (isType(p, "typed_parameter") && !namedChildren(p).empty()) name = namedChildren(p)[0];
      if (isType(name, "identifier")) locals_.back()[text(name)] = PyValue::unknown("the parameter '" + text(name) + "'");
    }
    exec(field(def, "body"));
    returned_ = false;
    locals_.pop_back();
    frameIds_.pop_back();
  }
}

void PythonEvaluator::exec(TSNode block) {
  // Blocks nested past this are not followed (the parser accepts thousands of levels; the stack would not).
  if (blockDepth_ >= 100) {
    notFollowed(block, "statements nested more than 100 blocks deep");
    forgetAssignedIn(block, "assigned in a block nested too deeply");
    return;
  }
  ++blockDepth_;
  struct Leave { int& d; ~Leave() { --d; } } leave{blockDepth_};
  for (TSNode stmt : namedChildren(block)) {
    if (returned_) return;
    statement(stmt);
  }
}

void PythonEvaluator::bind(TSNode target, const PyValue& value) {
  std::string_view t = typeOf(target);
  if (bindDepth_ > 100) return;  // ((((a)))) a hundred levels deep: not followed
  ++bindDepth_;
  struct Leave { int& d; ~Leave() { --d; } } leave{bindDepth_};
  Scope& scope = locals_.empty() ? globals_ : locals_.back();
  if (t == "identifier") {
    scope[text(target)] = value;
    return;
  }
  if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" || t == "list" ||
      t == "expression_list") {
    auto targets = namedChildren(target);
    bool splat = std::any_of(targets.begin(), targets.end(), [](TSNode n) { return isType(n, "list_splat_pattern"); });
    if (value.isSequence() && !splat && value.items->size() == targets.size()) {
      for (size_t i = 0; i < targets.size(); ++i) bind(targets[i], (*value.items)[i]);
      return;
    }
    for (TSNode n : targets)
      bind(isType(n, "list_splat_pattern") && !namedChildren(n).empty() ? namedChildren(n)[0] : n,
           PyValue::unknown(value.known() ? "unpacking " + describe(value) : value.text));
    return;
  }
  if (t == "parenthesized_expression" && namedChildren(target).size() == 1) bind(namedChildren(target)[0], value);
  // obj.attr = ..., xs[i] = ...: the object changes in ways not followed; its name keeps its value.
}

void PythonEvaluator::forgetAssignedIn(TSNode n, const std::string& why) {
  std::vector<TSNode> stack{n};
  while (!stack.empty()) {
    TSNode c = stack.back();
    stack.pop_back();
    if (isType(c, "assignment") || isType(c, "augmented_assignment")) bind(field(c, "left"), PyValue::unknown(why));
    if (isType(c, "for_statement")) bind(field(c, "left"), PyValue::unknown(why));
    if (isType(c, "function_definition") || isType(c, "class_definition")) continue;
    for (TSNode k : namedChildren(c)) stack.push_back(k);
  }
}

void PythonEvaluator::importStatement(TSNode stmt) {
  Scope& scope = locals_.empty() ? globals_ : locals_.back();
  if (isType(stmt, "import_statement")) {
    for (TSNode c : namedChildren(stmt)) {
      if (isType(c, "aliased_import")) {
        scope[text(field(c, "alias"))] = PyValue::ofNamespace(text(field(c, "name")));
      } else {
        std::string name = text(c);
        std::string head = name.substr(0, name.find('.'));
        scope[head] = PyValue::ofNamespace(head);
      }
    }
    return;
  }
  if (isType(stmt, "import_from_statement")) {
    TSNode module = field(stmt, "module_name");
    std::string from = text(module);
    for (TSNode c : namedChildren(stmt)) {
      if (ts_node_eq(c, module)) continue;
      if (isType(c, "wildcard_import")) continue;
      TSNode name = isType(c, "aliased_import") ? field(c, "name") : c;
      TSNode bound = isType(c, "aliased_import") ? field(c, "alias") : c;
      scope[text(bound)] = PyValue::ofNamespace(from + "." + text(name));
    }
  }
}

void PythonEvaluator::statement(TSNode stmt) {
  std::string_view t = typeOf(stmt);
  ++steps_;
  if (ts_node_has_error(stmt)) return;  // the syntax error is reported elsewhere
  if (t == "import_statement" || t == "import_from_statement") return importStatement(stmt);
  if (t == "expression_statement") {
    for (TSNode e : namedChildren(stmt)) {
      if (isType(e, "assignment")) {
        // a = b = value: the right side is itself an assignment
        TSNode right = field(e, "right");
        if (ts_node_is_null(right)) continue;  // `x: int` declares only
        std::vector<TSNode> targets{field(e, "left")};
        while (isType(right, "assignment")) {
          targets.push_back(field(right, "left"));
          right = field(right, "right");
        }
        PyValue v = eval(right);
        for (TSNode target : targets) bind(target, v);
      } else if (isType(e, "augmented_assignment")) {
        std::string op = text(field(e, "operator"));
        op.pop_back();  // "+=" -> "+"
        TSNode left = field(e, "left");
        PyValue v = binary(op, eval(left), eval(field(e, "right")));
        bind(left, v);
      } else {
        eval(e);
      }
    }
    return;
  }
  if (t == "function_definition") {
    Scope& scope = locals_.empty() ? globals_ : locals_.back();
    PyValue f;
    f.kind = PyValue::Kind::PyFunction;
    f.node = stmt;
    scope[text(field(stmt, "name"))] = f;
    if (locals_.empty() || depth_ == 0) functionDefinitions_.push_back(stmt);
    return;
  }
  if (t == "decorated_definition") {
    TSNode def = field(stmt, "definition");
    bool tvmscript = false;
    for (TSNode d : namedChildren(stmt)) {
      if (!isType(d, "decorator") || namedChildren(d).empty()) continue;
      TSNode e = namedChildren(d)[0];
      std::string name = aliases_.canonical(dottedName(doc_, isType(e, "call") ? field(e, "function") : e));
      tvmscript |= name == "I.ir_module" || name == "R.function" || name == "T.prim_func";
    }
    if (tvmscript) {
      Scope& scope = locals_.empty() ? globals_ : locals_.back();
      scope[text(field(def, "name"))] = hooks_.tvmscript(stmt);
      return;
    }
    return statement(def);  // pytest marks and the like: the definition itself
  }
  if (t == "class_definition") {
    (locals_.empty() ? globals_ : locals_.back())[text(field(stmt, "name"))] = PyValue::unknown("a class");
    return;
  }
  if (t == "return_statement") {
    auto kids = namedChildren(stmt);
    returnValue_ = kids.empty() ? PyValue::none() : eval(kids[0]);
    returned_ = true;
    return;
  }
  if (t == "if_statement") {
    std::optional<bool> cond = truthOf(eval(field(stmt, "condition")));
    if (!cond) {
      notFollowed(field(stmt, "condition"), "an `if` on a value not known statically: what its branches build or bind is not followed");
      forgetAssignedIn(stmt, "assigned in an `if` not followed");
      return;
    }
    if (*cond) return exec(field(stmt, "consequence"));
    for (TSNode alt : namedChildren(stmt)) {
      if (isType(alt, "elif_clause")) {
        auto c = truthOf(eval(field(alt, "condition")));
        if (!c) {
          notFollowed(alt, "an `if` on a value not known statically: what its branches build or bind is not followed");
          forgetAssignedIn(stmt, "assigned in an `if` not followed");
          return;
        }
        if (*c) return exec(field(alt, "consequence"));
      } else if (isType(alt, "else_clause")) {
        return exec(field(alt, "body"));
      }
    }
    return;
  }
  if (t == "for_statement" || t == "while_statement") {
    notFollowed(stmt, "a loop: what its body builds or binds is not followed");
    forgetAssignedIn(stmt, "assigned in a loop not followed");
    return;
  }
  if (t == "with_statement") return withStatement(stmt);
  if (t == "try_statement") return exec(field(stmt, "body"));
  // pass, assert, del, global, raise, print: nothing the evaluator needs
}

void PythonEvaluator::withStatement(TSNode stmt) {
  std::vector<std::pair<PyValue, TSNode>> entered;
  for (TSNode clause : namedChildren(stmt)) {
    if (!isType(clause, "with_clause")) continue;
    for (TSNode item : namedChildren(clause)) {
      TSNode value = field(item, "value");
      TSNode alias{};
      if (isType(value, "as_pattern")) {
        alias = field(value, "alias");
        if (!namedChildren(alias).empty()) alias = namedChildren(alias)[0];
        value = namedChildren(value).empty() ? TSNode{} : namedChildren(value)[0];
      }
      PyValue v = eval(value);
      auto as = hooks_.enter(v, item);
      if (!ts_node_is_null(alias)) bind(alias, as ? *as : PyValue::unknown("what `with` binds"));
      entered.emplace_back(v, item);
    }
  }
  exec(field(stmt, "body"));
  for (auto it = entered.rbegin(); it != entered.rend(); ++it) hooks_.exit(it->first, it->second);
}

PyValue PythonEvaluator::evalPure(TSNode expr) {
  bool was = pure_;
  pure_ = true;
  PyValue v = eval(expr);
  pure_ = was;
  return v;
}

PythonEvaluator::Arguments PythonEvaluator::arguments(TSNode list) {
  Arguments a;
  for (TSNode arg : namedChildren(list)) {
    if (isType(arg, "keyword_argument")) {
      a.keywords.emplace_back(text(field(arg, "name")), eval(field(arg, "value")));
      a.keywordNodes.push_back(field(arg, "value"));
    } else if (isType(arg, "list_splat")) {
      PyValue v = namedChildren(arg).empty() ? PyValue::unknown("") : eval(namedChildren(arg)[0]);
      if (v.isSequence()) {
        for (auto& x : *v.items) { a.positional.push_back(x); a.positionalNodes.push_back(arg); }
      } else {
        a.positional.push_back(PyValue::unknown("a `*` argument not known statically"));
        a.positionalNodes.push_back(arg);
      }
    } else if (isType(arg, "dictionary_splat")) {
      // **kwargs: not followed; the call sees the rest
    } else {
      a.positional.push_back(eval(arg));
      a.positionalNodes.push_back(arg);
    }
  }
  return a;
}

// a < b, a == b, ...: numbers and strings known statically; anything else is unknown.
PyValue PythonEvaluator::comparison(TSNode n) {
  auto kids = namedChildren(n);
  if (kids.size() != 2) return PyValue::unknown("a chained comparison");
  PyValue a = eval(kids[0]), b = eval(kids[1]);
  std::string op;
  for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
    TSNode c = ts_node_child(n, i);
    if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + std::string(ts_node_type(c));
  }
  if (isNumber(a) && isNumber(b)) {
    double x = realOf(a), y = realOf(b);
    if (op == "==") return PyValue::ofBool(x == y);
    if (op == "!=") return PyValue::ofBool(x != y);
    if (op == "<") return PyValue::ofBool(x < y);
    if (op == "<=") return PyValue::ofBool(x <= y);
    if (op == ">") return PyValue::ofBool(x > y);
    if (op == ">=") return PyValue::ofBool(x >= y);
  }
  if (a.kind == PyValue::Kind::Str && b.kind == PyValue::Kind::Str) {
    if (op == "==") return PyValue::ofBool(a.text == b.text);
    if (op == "!=") return PyValue::ofBool(a.text != b.text);
  }
  return PyValue::unknown("a comparison of values not known statically");
}

PyValue PythonEvaluator::eval(TSNode n) {
  if (ts_node_is_null(n)) return PyValue::unknown("nothing");
  if (++depth_ > 200) {
    --depth_;
    return PyValue::unknown("an expression nested too deeply");
  }
  struct Leave { int& d; ~Leave() { --d; } } leave{depth_};
  std::string_view t = typeOf(n);
  if (t == "integer") {
    auto v = integerLiteral(doc_, n);
    return v ? PyValue::ofInt(*v) : PyValue::unknown("an integer past 64 bits");
  }
  if (t == "float") {
    auto v = floatLiteral(doc_, n);
    return v ? PyValue::ofFloat(*v) : PyValue::unknown("a float");
  }
  if (t == "true" || t == "false") return PyValue::ofBool(t == "true");
  if (t == "none") return PyValue::none();
  if (t == "string" || t == "concatenated_string") {
    if (auto s = stringLiteral(doc_, n)) return PyValue::ofStr(*s);
    if (t == "string") return fstring(n);
    return PyValue::unknown("a string not known statically");
  }
  if (t == "identifier") {
    std::string name = text(n);
    if (auto* v = lookup(name)) return *v;
    static const char* builtins[] = {"len", "range", "int", "float", "str", "tuple", "list", "print", "dict", "min", "max", "abs", "bool"};
    for (auto* b : builtins) if (name == b) return PyValue::ofNamespace(std::string("builtins.") + b);
    if (name == "R" || name == "I" || name == "T") return PyValue::ofNamespace(name);
    return PyValue::unknown("`" + name + "` is not known here");
  }
  if (t == "parenthesized_expression") {
    auto kids = namedChildren(n);
    return kids.size() == 1 ? eval(kids[0]) : PyValue::unknown("an expression");
  }
  if (t == "lambda") {  // kept as its source: R.layout_transform reads it as an index map
    PyValue v;
    v.kind = PyValue::Kind::Lambda;
    v.text = text(n);
    return v;
  }
  if (t == "tuple" || t == "list" || t == "expression_list") {
    PyList items;
    for (TSNode c : namedChildren(n)) {
      if (isType(c, "list_splat")) {
        PyValue v = namedChildren(c).empty() ? PyValue::unknown("") : eval(namedChildren(c)[0]);
        if (!v.isSequence()) return PyValue::unknown("a `*` splat not known statically");
        items.insert(items.end(), v.items->begin(), v.items->end());
      } else {
        items.push_back(eval(c));
      }
    }
    PyValue v = PyValue::ofSequence(std::move(items), t != "list");
    v.origin = rangeOf(n);
    return v;
  }
  if (t == "dictionary") {
    PyValue v;
    v.kind = PyValue::Kind::Dict;
    v.dict = std::make_shared<std::vector<std::pair<PyValue, PyValue>>>();
    for (TSNode p : namedChildren(n)) {
      if (!isType(p, "pair")) return PyValue::unknown("a dict with `**` not known statically");
      v.dict->emplace_back(eval(field(p, "key")), eval(field(p, "value")));
    }
    v.origin = rangeOf(n);
    return v;
  }
  if (t == "attribute") {
    PyValue object = eval(field(n, "object"));
    return attribute(object, text(field(n, "attribute")), n);
  }
  if (t == "subscript") {
    PyValue object = eval(field(n, "value"));
    return subscript(object, field(n, "subscript"), n);
  }
  if (t == "binary_operator") return binary(text(field(n, "operator")), eval(field(n, "left")), eval(field(n, "right")));
  if (t == "unary_operator") {
    PyValue v = eval(field(n, "argument"));
    std::string op = text(field(n, "operator"));
    if (op == "-" && v.kind == PyValue::Kind::Int) return PyValue::ofInt(-v.integer);
    if (op == "-" && v.kind == PyValue::Kind::Float) return PyValue::ofFloat(-v.real);
    if (op == "+" && isNumber(v)) return v;
    return PyValue::unknown("an operator on a value not known statically");
  }
  if (t == "not_operator") {
    auto b = truthOf(eval(field(n, "argument")));
    return b ? PyValue::ofBool(!*b) : PyValue::unknown("`not` of a value not known statically");
  }
  if (t == "boolean_operator") {
    PyValue a = eval(field(n, "left"));
    auto b = truthOf(a);
    if (!b) return PyValue::unknown("`and`/`or` of a value not known statically");
    bool isAnd = text(field(n, "operator")) == "and";
    return (*b == isAnd) ? eval(field(n, "right")) : a;
  }
  if (t == "comparison_operator") return comparison(n);
  if (t == "conditional_expression") {
    auto kids = namedChildren(n);
    if (kids.size() != 3) return PyValue::unknown("a conditional expression");
    auto c = truthOf(eval(kids[1]));
    if (!c) return PyValue::unknown("a conditional expression on a value not known statically");
    return eval(*c ? kids[0] : kids[2]);
  }
  if (t == "call") return evalCall(n);
  return PyValue::unknown("`" + std::string(t) + "` is not followed");
}

PyValue PythonEvaluator::fstring(TSNode n) {
  std::string out;
  for (TSNode c : namedChildren(n)) {
    std::string_view t = typeOf(c);
    if (t == "string_start" || t == "string_end") {
      std::string s = text(c);
      if (t == "string_start" && s.find_first_of("bB") != std::string::npos) return PyValue::unknown("a byte string");
      continue;
    }
    if (t == "string_content") {
      std::string s = text(c);
      if (s.find('\\') != std::string::npos || s.find("{{") != std::string::npos) return PyValue::unknown("an f-string with escapes");
      out += s;
    } else if (t == "interpolation") {
      if (!ts_node_is_null(field(c, "format_specifier")) || !ts_node_is_null(field(c, "type_conversion")))
        return PyValue::unknown("an f-string with a format");
      PyValue v = eval(field(c, "expression"));
      if (v.kind == PyValue::Kind::Str) out += v.text;
      else if (v.kind == PyValue::Kind::Int) out += std::to_string(v.integer);
      else return PyValue::unknown("an f-string of values not known statically");
      if (out.size() > kMaxString) return PyValue::unknown("a string too long");
    } else {
      return PyValue::unknown("a string not known statically");
    }
  }
  return PyValue::ofStr(out);
}

PyValue PythonEvaluator::binary(const std::string& op, const PyValue& a, const PyValue& b) {
  if (!a.known()) return a;
  if (!b.known()) return b;
  if (isInt(a) && isInt(b)) {
    int64_t x = intOf(a), y = intOf(b), r = 0;
    if (op == "+" && !__builtin_add_overflow(x, y, &r)) return PyValue::ofInt(r);
    if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return PyValue::ofInt(r);
    if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return PyValue::ofInt(r);
    if (op == "//" && y != 0 && !(x == INT64_MIN && y == -1)) return PyValue::ofInt(floorDiv(x, y));
    if (op == "%" && y != 0 && !(x == INT64_MIN && y == -1)) return PyValue::ofInt(floorMod(x, y));
    if (op == "/" && y != 0) return PyValue::ofFloat(static_cast<double>(x) / static_cast<double>(y));
    if (op == "**" && y >= 0 && y < 64) {
      int64_t p = 1;
      for (int64_t i = 0; i < y; ++i)
        if (__builtin_mul_overflow(p, x, &p)) return PyValue::unknown("an integer past 64 bits");
      return PyValue::ofInt(p);
    }
    return PyValue::unknown("integer arithmetic past 64 bits or by zero");
  }
  if (isNumber(a) && isNumber(b)) {
    double x = realOf(a), y = realOf(b);
    if (op == "+") return PyValue::ofFloat(x + y);
    if (op == "-") return PyValue::ofFloat(x - y);
    if (op == "*") return PyValue::ofFloat(x * y);
    if (op == "/" && y != 0) return PyValue::ofFloat(x / y);
    if (op == "**") return PyValue::ofFloat(std::pow(x, y));
    return PyValue::unknown("float arithmetic not followed");
  }
  if (op == "+" && a.kind == PyValue::Kind::Str && b.kind == PyValue::Kind::Str && a.text.size() + b.text.size() <= kMaxString)
    return PyValue::ofStr(a.text + b.text);
  if (op == "+" && a.isSequence() && b.kind == a.kind && a.items->size() + b.items->size() <= kMaxSequence) {
    PyList items = *a.items;
    items.insert(items.end(), b.items->begin(), b.items->end());
    return PyValue::ofSequence(std::move(items), a.kind == PyValue::Kind::Tuple);
  }
  if (op == "*" && a.isSequence() && isInt(b) && intOf(b) >= 0 && intOf(b) <= static_cast<int64_t>(kMaxSequence) &&
      a.items->size() * static_cast<size_t>(intOf(b)) <= kMaxSequence) {
    PyList items;
    for (int64_t i = 0; i < intOf(b); ++i) items.insert(items.end(), a.items->begin(), a.items->end());
    return PyValue::ofSequence(std::move(items), a.kind == PyValue::Kind::Tuple);
  }
  return PyValue::unknown("`" + op + "` of " + describe(a) + " and " + describe(b) + " is not followed");
}

PyValue PythonEvaluator::attribute(const PyValue& object, const std::string& name, TSNode node) {
  if (object.kind == PyValue::Kind::Namespace) return PyValue::ofNamespace(object.text + "." + name);
  if (object.kind == PyValue::Kind::Array) {
    if (name == "shape") return PyValue::ofSequence(*object.items, true);
    if (name == "dtype") return PyValue::ofStr(object.dtype);
    if (name == "ndim") return PyValue::ofInt(static_cast<int64_t>(object.items->size()));
  }
  if (object.kind == PyValue::Kind::Object)  // the hooks' attributes have no effect
    if (auto v = hooks_.attribute(object, name, node)) return *v;
  if (object.known() && object.kind != PyValue::Kind::PyFunction) {
    auto m = std::make_shared<BoundMethod>();
    m->receiver = object;
    m->name = name;
    return PyValue::ofObject(m);
  }
  return object.known() ? PyValue::unknown("`." + name + "` is not followed") : object;
}

PyValue PythonEvaluator::subscript(const PyValue& object, TSNode indexNode, TSNode node) {
  if (isType(indexNode, "slice")) {
    if (!object.isSequence()) return PyValue::unknown("a slice of a value not known statically");
    // [start:stop:step] with ints or absent parts
    int64_t size = static_cast<int64_t>(object.items->size());
    std::vector<std::optional<int64_t>> parts;
    std::vector<TSNode> kids;
    for (uint32_t i = 0; i < ts_node_child_count(indexNode); ++i) kids.push_back(ts_node_child(indexNode, i));
    std::optional<int64_t> cur;
    bool have = false;
    for (TSNode k : kids) {
      if (!ts_node_is_named(k)) {  // ':'
        parts.push_back(have ? cur : std::nullopt);
        cur.reset();
        have = false;
        continue;
      }
      PyValue v = eval(k);
      if (!isInt(v)) return PyValue::unknown("a slice bound not known statically");
      cur = intOf(v);
      have = true;
    }
    parts.push_back(have ? cur : std::nullopt);
    int64_t step = parts.size() > 2 && parts[2] ? *parts[2] : 1;
    if (step != 1) return PyValue::unknown("a slice with a step");
    auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
      if (!x) return dflt;
      int64_t v = *x < 0 ? *x + size : *x;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t begin = clamp(parts[0], 0), end = clamp(parts.size() > 1 ? parts[1] : std::nullopt, size);
    PyList items;
    for (int64_t i = begin; i < end; ++i) items.push_back((*object.items)[static_cast<size_t>(i)]);
    return PyValue::ofSequence(std::move(items), object.kind == PyValue::Kind::Tuple);
  }
  PyValue index = eval(indexNode);
  if (object.isSequence() && isInt(index)) {
    int64_t i = intOf(index), size = static_cast<int64_t>(object.items->size());
    if (i < 0) i += size;
    if (i < 0 || i >= size) return PyValue::unknown("an index past the end of " + describe(object));
    return (*object.items)[static_cast<size_t>(i)];
  }
  if (object.kind == PyValue::Kind::Str && isInt(index)) {
    int64_t i = intOf(index), size = static_cast<int64_t>(object.text.size());
    if (i < 0) i += size;
    if (i >= 0 && i < size) return PyValue::ofStr(object.text.substr(static_cast<size_t>(i), 1));
  }
  if (object.kind == PyValue::Kind::Dict) {
    for (auto& [k, v] : *object.dict) if (sameKey(k, index)) return v;
    return PyValue::unknown("a dict key not known statically");
  }
  if (object.kind == PyValue::Kind::Object)
    if (auto v = hooks_.subscript(object, index, node)) return *v;
  return object.known() ? PyValue::unknown("an index not followed") : object;
}

PyValue PythonEvaluator::evalCall(TSNode call) {
  PyValue callee = eval(field(call, "function"));
  if (!callee.known()) return callee;
  TSNode argList = field(call, "arguments");
  if (callee.kind == PyValue::Kind::Namespace) {
    std::string name = canonicalName(callee);
    if (name.rfind("builtins.", 0) == 0) return builtinCall(name.substr(9), arguments(argList), call);
  }
  if (callee.kind == PyValue::Kind::PyFunction) {
    if (pure_) return PyValue::unknown("a call of a function of the file");
    return callFunction(callee, call, arguments(argList));
  }
  if (auto m = callee.as<BoundMethod>(); m && m->receiver.kind == PyValue::Kind::Array) {
    // arr.astype(dtype): the same shape, another dtype
    Arguments args = arguments(argList);
    if (m->name == "astype" && !args.positional.empty() && !dtypeName(args.positional[0]).empty()) {
      PyValue out = m->receiver;
      out.dtype = numpyDType(dtypeName(args.positional[0]));
      return out;
    }
    return PyValue::unknown("`." + m->name + "(...)` of an array is not followed");
  }
  if (pure_) {
    // What TVMScript may compute from captured values without effects: vdevice and device objects.
    std::string name = canonicalName(callee);
    if (name != "I.vdevice" && name != "tvm.ir.VDevice" && name.rfind("tvm.", 0) != 0 && name.rfind("numpy", 0) != 0)
      return PyValue::unknown("a call");
  }
  if (callee.kind == PyValue::Kind::Namespace)
    if (auto v = valueCall(canonicalName(callee), arguments(argList), call)) return *v;
  if (auto v = hooks_.call(callee, call)) return *v;
  std::string shown = callee.kind == PyValue::Kind::Namespace ? canonicalName(callee) : describe(callee);
  return PyValue::unknown("`" + shown + "(...)` is not followed");
}

namespace {

std::optional<PyValue> arrayOf(PyList shape, std::string dtype) {
  for (auto& d : shape) if (d.kind != PyValue::Kind::Int) return std::nullopt;
  PyValue a;
  a.kind = PyValue::Kind::Array;
  a.items = std::make_shared<PyList>(std::move(shape));
  a.dtype = std::move(dtype);
  return a;
}

}  // namespace

std::string numpyDType(const std::string& s) { return s == "float" ? "float64" : s == "int" ? "int64" : s; }

// Calls that make plain values: vdevice and device objects, targets, numpy and tvm arrays.
std::optional<PyValue> PythonEvaluator::valueCall(const std::string& name, const Arguments& args, TSNode call) {
  if (name == "I.vdevice" || name == "tvm.ir.VDevice" || name == "tvm.ir.global_info.VDevice") {
    auto v = std::make_shared<ir::VDevice>();
    if (const PyValue* t = args.get(0, "target")) {
      if (t->kind == PyValue::Kind::Str) {
        size_t space = t->text.find(' ');
        v->target.kind = t->text.substr(0, space);
        if (space != std::string::npos) v->target.options = t->text.substr(space);
      } else if (t->kind == PyValue::Kind::Device) {
        const runtime::TargetKind* kind = runtime::targetKindOfDeviceType(t->device.deviceType);
        v->target.kind = kind ? kind->name : "";
      } else if (auto cfg = toAttributeValue(*t)) {
        v->target.config = *cfg;
      } else {
        return PyValue::unknown("a vdevice whose target is not known statically");
      }
    }
    if (const PyValue* id = args.get(1, "vdevice_id")) {
      if (id->kind != PyValue::Kind::Int) return PyValue::unknown("a vdevice whose id is not known statically");
      v->vdeviceId = id->integer;
    }
    if (const PyValue* scope = args.get(2, "memory_scope")) {
      if (scope->kind != PyValue::Kind::Str) return PyValue::unknown("a vdevice whose memory scope is not known statically");
      v->memoryScope = scope->text;
    }
    PyValue out;
    out.kind = PyValue::Kind::VDevice;
    out.vdevice = std::move(v);
    out.origin = rangeOf(call);
    return out;
  }
  if (name == "tvm.tirx.Var" || name == "tvm.tir.Var" || name == "tvm.tirx.SizeVar" || name == "tvm.tir.SizeVar") {
    const PyValue* n = args.get(0, "name");
    const PyValue* dt = args.get(1, "dtype");
    if (!n || n->kind != PyValue::Kind::Str) return PyValue::unknown("a symbolic variable whose name is not known statically");
    PyValue v;
    v.kind = PyValue::Kind::SymVar;
    v.text = n->text;
    v.dtype = dt && dt->kind == PyValue::Kind::Str ? dt->text : "int32";
    return v;
  }
  if (name == "tvm.target.Target") {
    const PyValue* t = args.get(0, "target");
    if (t && t->kind == PyValue::Kind::Str) return *t;
    return PyValue::unknown("a target not known statically");
  }
  // tvm.cpu(0), tvm.cuda(1), tvm.gpu(1) (TVM's old name of tvm.cuda), tvm.device("cuda", 0)
  std::string member = name.substr(name.rfind('.') + 1);
  bool tvmDevice = name.rfind("tvm.", 0) == 0 && std::count(name.begin(), name.end(), '.') == 1;
  const runtime::TargetKind* constructed = runtime::targetKindOfDeviceFunction(member);
  if (const runtime::TargetKind* k = runtime::targetKindSpelled(member); !constructed && k && k->name != member)
    constructed = k;  // an alias: tvm.gpu
  if (tvmDevice && (constructed || member == "device")) {
    PyValue d;
    d.kind = PyValue::Kind::Device;
    size_t indexAt = member == "device" ? 1 : 0;
    if (member == "device") {
      const PyValue* kind = args.get(0, "dev_type");
      if (!kind || kind->kind != PyValue::Kind::Str) return PyValue::unknown("a device not known statically");
      d.device.deviceType = ir::deviceTypeSpelled(kind->text);
    } else {
      d.device.deviceType = constructed->dlDeviceType;
    }
    if (const PyValue* i = args.get(indexAt, "dev_id")) {
      if (i->kind != PyValue::Kind::Int) return PyValue::unknown("a device index not known statically");
      d.device.index = static_cast<int>(i->integer);
    }
    return d;
  }
  // numpy: the shape and dtype of arrays the program makes (their values are not known)
  if (name == "numpy.random.randn" || name == "numpy.random.rand") return arrayOf(args.positional, "float64");
  if (name == "numpy.random.uniform" || name == "numpy.random.normal") {
    const PyValue* size = args.get(2, "size");
    if (size && size->isSequence()) return arrayOf(*size->items, "float64");
    return std::nullopt;
  }
  if (name == "numpy.zeros" || name == "numpy.ones" || name == "numpy.empty" || name == "numpy.full") {
    const PyValue* shape = args.get(0, "shape");
    const PyValue* dtype = args.get(name == "numpy.full" ? 2 : 1, "dtype");
    std::string dt = dtype ? numpyDType(dtypeName(*dtype)) : "float64";
    if (shape && shape->isSequence()) return arrayOf(*shape->items, dt);
    if (shape && shape->kind == PyValue::Kind::Int) return arrayOf({*shape}, dt);
    return std::nullopt;
  }
  if (name == "tvm.nd.array" || name == "tvm.runtime.tensor" || name == "tvm.runtime.ndarray.array") {
    const PyValue* a = args.get(0, "data");
    if (a && a->kind == PyValue::Kind::Array) return *a;
  }
  return std::nullopt;
}

PyValue PythonEvaluator::builtinCall(const std::string& name, const Arguments& args, TSNode call) {
  const PyValue* a = args.positional.empty() ? nullptr : &args.positional[0];
  if (name == "print") return PyValue::none();
  if (!a) return PyValue::unknown("`" + name + "()`");
  if (name == "len") {
    if (a->isSequence()) return PyValue::ofInt(static_cast<int64_t>(a->items->size()));
    if (a->kind == PyValue::Kind::Str) return PyValue::ofInt(static_cast<int64_t>(a->text.size()));
    if (a->kind == PyValue::Kind::Dict) return PyValue::ofInt(static_cast<int64_t>(a->dict->size()));
  }
  if ((name == "tuple" || name == "list") && a->isSequence()) return PyValue::ofSequence(*a->items, name == "tuple");
  if (name == "int" && isNumber(*a)) return PyValue::ofInt(static_cast<int64_t>(realOf(*a)));
  if (name == "float" && isNumber(*a)) return PyValue::ofFloat(realOf(*a));
  if (name == "str" && a->kind == PyValue::Kind::Str) return *a;
  if (name == "str" && a->kind == PyValue::Kind::Int) return PyValue::ofStr(std::to_string(a->integer));
  if ((name == "min" || name == "max") && args.positional.size() >= 2 &&
      std::all_of(args.positional.begin(), args.positional.end(), isInt)) {
    int64_t r = intOf(args.positional[0]);
    for (auto& x : args.positional) r = name == "min" ? std::min(r, intOf(x)) : std::max(r, intOf(x));
    return PyValue::ofInt(r);
  }
  (void)call;
  return PyValue::unknown("`" + name + "(...)` of " + describe(*a));
}

PyValue PythonEvaluator::callFunction(const PyValue& fn, TSNode call, const Arguments& args) {
  TSNode def = fn.node;
  if (static_cast<int>(locals_.size()) >= kMaxCallDepth) return PyValue::unknown("a call nested too deeply");
  if (steps_ > kMaxSteps) {
    notFollowed(call, "calls past two million executed statements");
    return PyValue::unknown("a call past the evaluator's budget");
  }
  executedFunctions_.insert(ts_node_start_byte(def));
  Scope scope;
  size_t index = 0;
  for (TSNode p : namedChildren(field(def, "parameters"))) {
    std::string_view t = typeOf(p);
    TSNode nameNode = p;
    TSNode dflt{};
    if (t == "default_parameter" || t == "typed_default_parameter") {
      nameNode = field(p, "name");
      dflt = field(p, "value");
    } else if (t == "typed_parameter") {
      nameNode = namedChildren(p).empty() ? TSNode{} : namedChildren(p)[0];
    }
    if (!isType(nameNode, "identifier")) {
      notFollowed(call, "a call of a function with `*args` or `**kwargs`: its body is checked with them unknown");
      for (TSNode q : namedChildren(field(def, "parameters")))
        if (isType(q, "identifier")) scope[text(q)] = PyValue::unknown("a parameter");
      break;
    }
    std::string name = text(nameNode);
    if (const PyValue* v = args.get(index, name)) scope[name] = *v;
    else if (!ts_node_is_null(dflt)) scope[name] = eval(dflt);
    else scope[name] = PyValue::unknown("the parameter '" + name + "'");
    ++index;
  }
  locals_.push_back(std::move(scope));
  frameIds_.push_back(nextFrameId_++);
  exec(field(def, "body"));
  PyValue result = returned_ ? returnValue_ : PyValue::none();
  returned_ = false;
  returnValue_ = PyValue{};
  locals_.pop_back();
  frameIds_.pop_back();
  return result;
}

}  // namespace tvms::frontend
