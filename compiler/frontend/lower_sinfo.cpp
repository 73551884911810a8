// Annotations (struct info), shape dimensions, literals, vdevices and devices.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/python_eval.h"
#include "runtime/target_kind.h"

namespace tvms::frontend {

using namespace ir;

std::optional<Value> Lowerer::literal(TSNode n) {
  std::string_view t = typeOf(n);
  if (t == "identifier" || t == "subscript" || t == "attribute" || t == "binary_operator")
    if (auto v = pythonValue(n)) return toAttributeValue(*v);
  if (t == "integer") {
    if (auto v = integerLiteral(doc_, n)) return Value::ofInt(*v);
    return std::nullopt;
  }
  if (t == "float") {
    if (auto v = floatLiteral(doc_, n)) return Value::ofFloat(*v);
    return std::nullopt;
  }
  if (t == "true" || t == "false") return Value::ofBool(t == "true");
  if (t == "none") return Value::none();
  if (t == "string" || t == "concatenated_string") {
    if (auto s = stringLiteral(doc_, n)) return Value::ofString(*s);
    return std::nullopt;
  }
  if (t == "parenthesized_expression") {
    auto kids = namedChildren(n);
    return kids.size() == 1 ? literal(kids[0]) : std::nullopt;
  }
  if (t == "unary_operator" && text(field(n, "operator")) == "-") {
    auto v = literal(field(n, "argument"));
    if (v && v->kind == Value::Kind::Int) return Value::ofInt(-v->integer);
    if (v && v->kind == Value::Kind::Float) return Value::ofFloat(-v->real);
    return std::nullopt;
  }
  if (t == "tuple" || t == "list") {
    DepthGuard guard(*this);
    if (depth_ > kMaxDepth) return std::nullopt;
    std::vector<Value> items;
    for (TSNode c : namedChildren(n)) {
      auto v = literal(c);
      if (!v) return std::nullopt;
      items.push_back(*v);
    }
    return Value::ofList(std::move(items), t == "tuple");
  }
  if (t == "dictionary") {
    DepthGuard guard(*this);
    if (depth_ > kMaxDepth) return std::nullopt;
    Value d;
    d.kind = Value::Kind::Dict;
    for (TSNode pair : namedChildren(n)) {
      if (!isType(pair, "pair")) return std::nullopt;
      auto key = stringLiteral(doc_, field(pair, "key"));
      if (!key) return std::nullopt;
      d.dict.emplace_back(*key, literalOrOpaque(field(pair, "value")));
    }
    return d;
  }
  if (t == "call") {
    std::string name = canonicalName(field(n, "function"));
    if (name == "I.vdevice" || name == "tvm.ir.VDevice") {
      if (auto v = lowerVDeviceDecl(n)) {
        auto r = std::make_shared<VDeviceRef>();
        r->device = v;
        r->isInline = true;
        return Value::ofVDevice(r);
      }
    }
  }
  return std::nullopt;
}

Value Lowerer::literalOrOpaque(TSNode n) {
  if (auto v = literal(n)) return *v;
  return Value::ofOpaque(text(n));
}

// ---- struct info

StructInfoPtr Lowerer::lowerSInfo(TSNode n) {
  DepthGuard guard(*this);
  if (depth_ > kMaxDepth) return objectSInfo();
  if (isType(n, "identifier") || isType(n, "subscript"))  // a struct info the program made: `sinfo = R.Tensor(...)`
    if (auto v = pythonValue(n); v && v->kind == PyValue::Kind::SInfo) return v->sinfo;
  TSNode callee = isType(n, "call") ? field(n, "function") : n;
  TSNode args = isType(n, "call") ? field(n, "arguments") : TSNode{};
  std::string name = canonicalName(callee);
  auto positional = [&]() {
    std::vector<TSNode> out;
    if (!ts_node_is_null(args))
      for (TSNode a : namedChildren(args)) if (!isType(a, "keyword_argument")) out.push_back(a);
    return out;
  };
  auto keyword = [&](std::string_view key) -> TSNode {
    if (!ts_node_is_null(args))
      for (TSNode a : namedChildren(args))
        if (isType(a, "keyword_argument") && text(field(a, "name")) == key) return field(a, "value");
    return TSNode{};
  };
  StructInfoPtr out;
  if (isType(n, "none")) {
    // `-> None`: TVM gives the function the empty tuple's struct info
    auto t = std::make_shared<StructInfo>();
    t->kind = StructInfo::Kind::Tuple;
    out = t;
  } else if (name == "R.Tensor") {
    out = ts_node_is_null(args) ? tensorSInfo(std::nullopt, "") : lowerTensorSInfo(args);
  } else if (name == "R.Object" || name == "R.Any") {
    if (name == "R.Any") mod_.era = Era::V026;
    out = objectSInfo();
  } else if (name == "R.Tuple") {
    auto s = std::make_shared<StructInfo>();
    s->kind = StructInfo::Kind::Tuple;
    auto pos = positional();
    if (pos.size() == 1 && (isType(pos[0], "list") || isType(pos[0], "tuple"))) pos = namedChildren(pos[0]);
    for (TSNode f : pos) s->fields.push_back(lowerSInfo(f));
    out = s;
  } else if (name == "R.Shape") {
    auto s = std::make_shared<StructInfo>();
    s->kind = StructInfo::Kind::Shape;
    auto pos = positional();
    TSNode values = pos.empty() ? keyword("values") : pos[0];
    if (!ts_node_is_null(values) && !isType(values, "none")) {
      s->shape = lowerShapeDims(values);
      if (s->shape) s->ndim = static_cast<int>(s->shape->size());
    }
    if (TSNode nd = keyword("ndim"); !ts_node_is_null(nd))
      if (auto v = integerLiteral(doc_, nd)) s->ndim = static_cast<int>(*v);
    out = s;
  } else if (name == "R.Prim") {
    auto s = std::make_shared<StructInfo>();
    s->kind = StructInfo::Kind::Prim;
    auto pos = positional();
    TSNode dt = pos.empty() ? keyword("dtype") : pos[0];
    if (!ts_node_is_null(dt))
      if (auto str = stringLiteral(doc_, dt)) s->dtype = *str;
    if (TSNode v = keyword("value"); !ts_node_is_null(v)) {
      s->primValue = lowerDim(v);
      if (s->dtype.empty()) s->dtype = "int64";
    }
    out = s;
  } else if (name == "R.Callable") {
    auto s = std::make_shared<StructInfo>();
    s->kind = StructInfo::Kind::Func;
    auto pos = positional();
    if (!pos.empty() && (isType(pos[0], "tuple") || isType(pos[0], "list"))) {
      std::vector<StructInfoPtr> ps;
      for (TSNode p : namedChildren(pos[0])) ps.push_back(lowerSInfo(p));
      s->params = ps;
    }
    if (pos.size() > 1) s->ret = lowerSInfo(pos[1]);
    if (TSNode pur = keyword("purity"); !ts_node_is_null(pur)) s->pure = text(pur) != "False";
    out = s;
  } else if (isType(n, "attribute") && isType(field(n, "object"), "identifier") && !scopes_.empty() &&
             scopes_.back().count(text(field(n, "object")))) {
    // sinfo_args=[x.struct_info]: the Python API's struct info of a value, which TVM evaluates.
    useOfName(field(n, "object"));
    notChecked(n, "`" + text(n) + "` as struct info: the struct info of a value (the Python API) is taken as unknown");
    return nullptr;
  } else if (name == "R.DTensor") {
    // relax.distributed: a tensor sharded over a device mesh. Not modelled: any value, said once.
    notChecked(n, "relax.distributed annotations (R.DTensor): values annotated so are not checked");
    return objectSInfo();
  } else {
    reportUnsupported(n, "`" + text(n) + "` is not a struct info annotation (R.Tensor, R.Tuple, R.Shape, R.Prim, "
                         "R.Object, R.Callable)");
    return objectSInfo();
  }
  region_.map.ranges.set(out.get(), rangeOf(n));
  return out;
}

std::vector<TSNode> Lowerer::matchArguments(TSNode args, const std::vector<std::string>& names, const std::string& callName) {
  std::vector<TSNode> given(names.size());
  auto list = [&] {  // for a message only (every annotation is matched: made eagerly, it was 1% of a lint)
    std::string out;
    for (auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  size_t index = 0;
  for (TSNode a : namedChildren(args)) {
    if (isType(a, "keyword_argument")) {
      std::string key = text(field(a, "name"));
      auto at = std::find(names.begin(), names.end(), key);
      if (at == names.end()) report(diag::Code::TVS005, rangeOf(a), callName + " has no parameter '" + key + "'; it takes " + list());
      else given[static_cast<size_t>(at - names.begin())] = field(a, "value");
      continue;
    }
    if (index < names.size()) given[index++] = a;
    else report(diag::Code::TVS005, rangeOf(a), callName + " takes at most " + std::to_string(names.size()) + " arguments: " + list());
  }
  return given;
}

StructInfoPtr Lowerer::lowerTensorSInfo(TSNode args) {
  static const std::vector<std::string> kParams{"shape", "dtype", "vdevice", "ndim"};
  static const std::string kName = "R.Tensor";
  auto given = matchArguments(args, kParams, kName);
  TSNode shape = given[0], dtype = given[1], vdevice = given[2], ndim = given[3];
  // R.Tensor("float32", ndim=2): a string in the shape position is the dtype.
  if (!ts_node_is_null(shape) && (isType(shape, "string")) && ts_node_is_null(dtype)) {
    dtype = shape;
    shape = TSNode{};
  }
  std::optional<std::vector<PrimExprPtr>> dims;
  if (!ts_node_is_null(shape) && !isType(shape, "none")) {
    dims = lowerShapeDims(shape);
    bool shapeVar = isType(shape, "identifier") && !scopes_.empty() && scopes_.back().count(text(shape));
    if (shapeVar) {
      // R.Tensor(sh, "float32") with `sh` a Relax shape value: TVM ties the tensor's shape to it.
      useOfName(shape);
      notChecked(shape, "R.Tensor(shape_variable, ...): a tensor shaped by a Relax shape value is not checked");
    } else if (!dims && !capturedPython(shape)) {
      reportUnsupported(shape, "a tensor shape is a tuple of dimensions, e.g. (2, \"n\")");
    }
  }
  std::string dt;
  if (!ts_node_is_null(dtype) && !isType(dtype, "none")) {
    if (auto s = stringValue(dtype)) dt = *s;
    else if (!capturedPython(dtype)) report(diag::Code::TVS005, rangeOf(dtype), "a tensor dtype is a string such as \"float32\"");
  }
  std::shared_ptr<const VDeviceRef> vd;
  if (!ts_node_is_null(vdevice) && !isType(vdevice, "none")) {
    vd = lowerVDeviceUse(vdevice);
    if (!vd) report(diag::Code::TVS005, rangeOf(vdevice), "a tensor vdevice is a string such as \"cuda:0\"");
  }
  int rank = -1;
  if (!ts_node_is_null(ndim)) {
    if (auto v = literal(ndim); v && v->kind == Value::Kind::Int) rank = static_cast<int>(v->integer);
    else report(diag::Code::TVS005, rangeOf(ndim), "ndim is an int");
  }
  return tensorSInfo(std::move(dims), dt, vd, rank);
}

std::optional<std::vector<PrimExprPtr>> Lowerer::lowerShapeDims(TSNode n) {
  if (!isType(n, "tuple") && !isType(n, "list")) {
    // a shape the program computed: `data_shape`, `(n, *rest)`
    auto v = pythonValue(n);
    if (!v || !v->isSequence()) return std::nullopt;
    std::vector<PrimExprPtr> dims;
    for (auto& d : *v->items) {
      if (d.kind == PyValue::Kind::Int) dims.push_back(primInt(d.integer));
      else if (d.kind == PyValue::Kind::Str) dims.push_back(parseDimString(d.text, rangeOf(n)));
      else if (d.kind == PyValue::Kind::SymVar) dims.push_back(primVar(d.text));
      else return std::nullopt;
    }
    return dims;
  }
  std::vector<PrimExprPtr> dims;
  for (TSNode d : namedChildren(n)) dims.push_back(lowerDim(d));
  return dims;
}

PrimExprPtr Lowerer::lowerDim(TSNode n) {
  DepthGuard guard(*this);
  if (depth_ > kMaxDepth) return primInt(0);
  std::string_view t = typeOf(n);
  if (t == "integer") {
    auto v = integerLiteral(doc_, n);
    return primInt(v ? *v : 0);
  }
  if (t == "string") {
    auto s = stringLiteral(doc_, n);
    return parseDimString(s ? *s : "", rangeOf(n));
  }
  if (t == "identifier" || t == "subscript" || t == "attribute" || t == "binary_operator")
    if (auto v = pythonValue(n)) {
      if (v->kind == PyValue::Kind::Int) return primInt(v->integer);
      if (v->kind == PyValue::Kind::SymVar) return primVar(v->text);  // m = tirx.Var("m", "int64")
    }
  if (t == "identifier") {
    std::string name = text(n);
    if (!symbolic_.count(name) && capturedPython(n)) return primOpaque(name);
    if (!symbolic_.count(name)) {
      if (inSignature_) {
        symbolic_.insert(name);  // TVM also accepts a bare name that a string declared before; be lenient
      } else {
        report(diag::Code::TVS003, rangeOf(n), "undefined symbolic variable '" + name + "'; declare it with `" + name +
                                         " = T.int64()` or name it as a string (\"" + name + "\") in the signature");
      }
    }
    useName(NameRef::Kind::SymbolicVar, n, name, nullptr);
    return primVar(name);
  }
  if (t == "parenthesized_expression") {
    auto kids = namedChildren(n);
    if (kids.size() == 1) return lowerDim(kids[0]);
  }
  if (t == "unary_operator" && text(field(n, "operator")) == "-") {
    auto inner = lowerDim(field(n, "argument"));
    if (inner->kind == PrimExpr::Kind::Int) return primInt(-inner->value);
    auto p = std::make_shared<PrimExpr>();
    p->kind = PrimExpr::Kind::Neg;
    p->lhs = inner;
    return p;
  }
  if (t == "binary_operator") {
    std::string op = text(field(n, "operator"));
    if (op == "+" || op == "-" || op == "*" || op == "//" || op == "%" || op == "/")
      return primBinary(op, lowerDim(field(n, "left")), lowerDim(field(n, "right")));
  }
  if (t == "float") {
    auto v = floatLiteral(doc_, n);
    return primOpaque(v ? pythonFloat(*v) : text(n));
  }
  if (t == "call") {
    // T.int64(4), T.int32(n)
    std::string name = canonicalName(field(n, "function"));
    auto args = namedChildren(field(n, "arguments"));
    if ((name == "T.int64" || name == "T.int32") && args.size() == 1) return lowerDim(args[0]);
    // T.max(a, c): how a broadcast of two unrelated symbolic dims is shaped (LegalizeOps writes it)
    if ((name == "T.max" || name == "T.min") && args.size() == 2) return primBinary(name.substr(2), lowerDim(args[0]), lowerDim(args[1]));
    // T.float32(2.0), T.max(n, 1), T.Cast("int64", n), T.floordiv(n, 2): TIR expressions TVM evaluates;
    // kept as written (the checks treat them as unknown values, never as errors).
    if (name.rfind("T.", 0) == 0) {
      for (TSNode a : args) if (isType(a, "identifier") && symbolic_.count(text(a))) useName(NameRef::Kind::SymbolicVar, a, text(a), nullptr);
      return primOpaque(text(n));
    }
  }
  if (t == "comparison_operator" || t == "boolean_operator" || t == "true" || t == "false")
    return primOpaque(text(n));  // R.prim_value(n > 1), R.prim_value(True)
  reportUnsupported(n, "a dimension is an int, a symbolic variable or arithmetic of them");
  return primOpaque(text(n));
}

// "n", "n * 2", "(n + 1) // 2": a dimension written as a string in a signature declares its names.
PrimExprPtr Lowerer::parseDimString(std::string_view s, ByteRange where) {
  struct Parser {
    std::string_view s;
    size_t i = 0;
    bool failed = false;
    std::string tooLarge;  // an integer past int64 (TVM's dimensions are 64-bit)
    Lowerer& l;
    void skip() { while (i < s.size() && s[i] == ' ') ++i; }
    bool eat(std::string_view tok) {
      skip();
      if (s.substr(i, tok.size()) == tok && !(tok == "/" && s.substr(i, 2) == "//")) { i += tok.size(); return true; }
      return false;
    }
    PrimExprPtr atom() {
      skip();
      if (eat("(")) {
        auto e = sum();
        if (!eat(")")) failed = true;
        return e;
      }
      if (eat("-")) {
        auto p = std::make_shared<PrimExpr>();
        p->kind = PrimExpr::Kind::Neg;
        p->lhs = atom();
        return p;
      }
      size_t start = i;
      if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        int64_t v = 0;
        auto [end, ec] = std::from_chars(s.data() + start, s.data() + i, v);
        if (ec != std::errc() || end != s.data() + i) {
          if (tooLarge.empty()) tooLarge = std::string(s.substr(start, i - start));
          failed = true;
        }
        return primInt(v);
      }
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      if (start == i) { failed = true; return primInt(0); }
      std::string name(s.substr(start, i - start));
      l.symbolic_.insert(name);
      return primVar(name);
    }
    PrimExprPtr product() {
      auto e = atom();
      while (true) {
        std::string op = eat("//") ? "//" : eat("*") ? "*" : eat("%") ? "%" : eat("/") ? "/" : "";
        if (op.empty()) return e;
        e = primBinary(op, e, atom());
      }
    }
    PrimExprPtr sum() {
      auto e = product();
      while (true) {
        std::string op = eat("+") ? "+" : eat("-") ? "-" : "";
        if (op.empty()) return e;
        e = primBinary(op, e, product());
      }
    }
  };
  Parser p{s, 0, false, {}, *this};
  auto e = p.sum();
  p.skip();
  if (p.failed || p.i != s.size()) {
    // A TIR expression TVM evaluates ("T.max(m, 20)", "T.floordiv(n, 2) + 1"): kept as written, unknown.
    bool tirCall = p.tooLarge.empty() && s.find("T.") != std::string_view::npos && s.find('(') != std::string_view::npos;
    if (!tirCall)
      report(diag::Code::TVS005, where,
             p.tooLarge.empty() ? "the dimension \"" + std::string(s) + "\" is not a symbolic expression"
                                : "the dimension \"" + std::string(s) + "\" holds " + p.tooLarge + ", past the 64-bit integers TVM's shapes use");
    return primOpaque(pythonString(s));
  }
  if (forEditors_ && e->kind == PrimExpr::Kind::Var && inSignature_) region_.map.names.push_back({NameRef::Kind::SymbolicVar, where, e->name, true, nullptr});
  return e;
}

// ---- vdevices and devices

std::shared_ptr<VDevice> Lowerer::lowerVDeviceDecl(TSNode call) {
  if (!isType(call, "call"))
    if (auto v = pythonValue(call); v && v->kind == PyValue::Kind::VDevice) return v->vdevice;  // the object itself
  if (!isType(call, "call")) {
    reportUnsupported(call, "a vdevice is declared as I.vdevice(target, vdevice_id, memory_scope)");
    return nullptr;
  }
  std::string name = canonicalName(field(call, "function"));
  if (name != "I.vdevice" && name != "tvm.ir.VDevice") {
    reportUnsupported(call, "a vdevice is declared as I.vdevice(target, vdevice_id, memory_scope)");
    return nullptr;
  }
  auto v = std::make_shared<VDevice>();
  auto given = matchArguments(field(call, "arguments"), {"target", "vdevice_id", "memory_scope"}, "I.vdevice");
  TSNode target = given[0], id = given[1], scope = given[2];
  if (!ts_node_is_null(target)) {
    if (auto s = stringValue(target)) {
      // A target string: its kind, then options ("cuda -arch=sm_80"), kept as written.
      size_t space = s->find(' ');
      v->target.kind = s->substr(0, space);
      if (space != std::string::npos) v->target.options = s->substr(space);
    } else if (isType(target, "dictionary")) {
      v->target.config = literalOrOpaque(target);
      if (const Value* k = v->target.config.find("kind"); k && k->kind == Value::Kind::String) v->target.kind = k->text;
    } else {
      v->target.config = Value::ofOpaque(text(target));
    }
  }
  if (!ts_node_is_null(id)) {
    if (auto x = literal(id); x && x->kind == Value::Kind::Int) v->vdeviceId = x->integer;
    else report(diag::Code::TVS005, rangeOf(id), "vdevice_id is an int (the physical device ordinal)");
  }
  if (!ts_node_is_null(scope)) {
    if (auto s = stringValue(scope)) v->memoryScope = *s;
    else report(diag::Code::TVS005, rangeOf(scope), "memory_scope is a string such as \"global\"");
  }
  return v;
}

std::shared_ptr<const VDeviceRef> Lowerer::lowerVDeviceUse(TSNode n) {
  auto r = std::make_shared<VDeviceRef>();
  if (auto s = stringLiteral(doc_, n)) {
    r->spelling = *s;
    if (std::count(s->begin(), s->end(), ':') >= 2) mod_.era = Era::V026;
    r->device = mod_.lookup(*s);
    region_.map.ranges.set(r.get(), rangeOf(n));
    useName(NameRef::Kind::VDevice, n, *s, r->device.get());
    return r;
  }
  if (isType(n, "call")) {
    std::string name = canonicalName(field(n, "function"));
    if (name == "I.vdevice" || name == "tvm.ir.VDevice") {
      r->device = lowerVDeviceDecl(n);
      r->isInline = true;
      region_.map.ranges.set(r.get(), rangeOf(n));
      return r;
    }
  }
  if (auto v = pythonValue(n)) return pythonVDeviceUse(*v, n);
  return nullptr;
}

std::optional<DeviceHint> Lowerer::lowerDevice(TSNode n) {
  if (!isType(n, "call")) return std::nullopt;
  std::string name = canonicalName(field(n, "function"));
  if (name.empty()) {
    std::string dotted = dottedName(doc_, field(n, "function"));
    if (dotted.rfind("tvm.", 0) == 0 && aliases_.binds("tvm")) name = dotted;
  }
  std::vector<TSNode> pos;
  TSNode typeKw{}, indexKw{};
  for (TSNode a : namedChildren(field(n, "arguments"))) {
    if (isType(a, "keyword_argument")) {
      std::string key = text(field(a, "name"));
      if (key == "device_type" || key == "dev_type") typeKw = field(a, "value");
      else if (key == "index" || key == "dev_id") indexKw = field(a, "value");
      else return std::nullopt;
    } else {
      pos.push_back(a);
    }
  }
  auto intOf = [&](TSNode x, int fallback) -> std::optional<int> {
    if (ts_node_is_null(x)) return fallback;
    auto v = literal(x);
    if (v && v->kind == Value::Kind::Int) return static_cast<int>(v->integer);
    return std::nullopt;
  };
  std::string member = name.substr(name.rfind('.') + 1);
  bool namespaced = name.rfind("R.", 0) == 0 || name.rfind("tvm.", 0) == 0;
  if (!namespaced) return std::nullopt;
  if (member == "device") {
    TSNode t = !ts_node_is_null(typeKw) ? typeKw : (pos.empty() ? TSNode{} : pos[0]);
    TSNode i = !ts_node_is_null(indexKw) ? indexKw : (pos.size() > 1 ? pos[1] : TSNode{});
    if (ts_node_is_null(t)) return std::nullopt;
    int type = 0;
    if (auto s = stringLiteral(doc_, t)) type = deviceTypeSpelled(*s);
    else if (auto x = intOf(t, 0)) type = *x;
    auto index = intOf(i, 0);
    if (!type || !index) return std::nullopt;
    return DeviceHint{type, *index};
  }
  // R.cpu(0), R.cuda(1): the kind whose device constructor is named.
  const runtime::TargetKind* kind = runtime::targetKindOfDeviceFunction(member);
  if (!kind) return std::nullopt;
  int type = kind->dlDeviceType;
  auto index = intOf(!ts_node_is_null(indexKw) ? indexKw : (pos.empty() ? TSNode{} : pos[0]), 0);
  if (!index) return std::nullopt;
  return DeviceHint{type, *index};
}

}  // namespace tvms::frontend
