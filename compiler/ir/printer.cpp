#include "compiler/ir/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "compiler/ir/doc.h"

namespace tvms::ir {

std::string pythonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string pythonFloat(double d) {
  if (std::isnan(d)) return "float(\"nan\")";
  if (std::isinf(d)) return d > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, end);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

namespace {

int precedenceOf(std::string_view op) {
  if (op == "**") return 7;
  if (op == "u-") return 6;
  if (op == "*" || op == "/" || op == "//" || op == "%") return 5;
  if (op == "+" || op == "-") return 4;
  if (op == "&") return 3;
  if (op == "^") return 2;
  if (op == "|") return 1;
  return 0;  // comparisons
}

std::string primText(const PrimExprPtr& p, int parentPrec = -1) {
  if (!p) return "None";
  switch (p->kind) {
    case PrimExpr::Kind::Int: return std::to_string(p->value);
    case PrimExpr::Kind::Var: return p->name;
    case PrimExpr::Kind::Opaque: return p->name;
    case PrimExpr::Kind::Neg: return "-" + primText(p->lhs, 6);
    case PrimExpr::Kind::Binary: {
      if (p->name == "max" || p->name == "min") return "T." + p->name + "(" + primText(p->lhs) + ", " + primText(p->rhs) + ")";
      int prec = precedenceOf(p->name);
      std::string s = primText(p->lhs, prec) + " " + p->name + " " + primText(p->rhs, prec + 1);
      return prec < parentPrec ? "(" + s + ")" : s;
    }
  }
  return "";
}

class Printer {
 public:
  Printer(const IRModule& m, const PrintOptions& o) : m_(m), o_(o) {}

  // ---- values, struct info, expressions as Docs ----

  std::string vdeviceSpelling(const VDeviceRef& r) {
    if (!r.device || r.isInline) return r.spelling;
    int k = m_.kindIndexOf(r.device.get());
    if (k < 0) return r.spelling;
    std::string s = r.device->target.kind + ":" + std::to_string(k);
    if (m_.era == Era::V026) s += ":" + r.device->memoryScope;
    return s;
  }

  Doc vdeviceDecl(const VDevice& v) {
    Doc target = v.target.writtenAsDict() ? value(v.target.config) : Doc::txt(pythonString(v.target.kind + v.target.options));
    return call("I.vdevice", {target, Doc::txt(std::to_string(v.vdeviceId)), Doc::txt(pythonString(v.memoryScope))});
  }

  Doc vdeviceRef(const VDeviceRef& r) {
    if (r.isInline && r.device) return vdeviceDecl(*r.device);
    return Doc::txt(pythonString(vdeviceSpelling(r)));
  }

  static Doc call(std::string callee, std::vector<Doc> args) {
    return Doc::cat({Doc::txt(std::move(callee)), Doc::bracket("(", std::move(args), ")")});
  }

  Doc value(const Value& v) {
    switch (v.kind) {
      case Value::Kind::None: return Doc::txt("None");
      case Value::Kind::Bool: return Doc::txt(v.boolean ? "True" : "False");
      case Value::Kind::Int: return Doc::txt(std::to_string(v.integer));
      case Value::Kind::Float: return Doc::txt(pythonFloat(v.real));
      case Value::Kind::String: return Doc::txt(pythonString(v.text));
      case Value::Kind::Opaque: return Doc::txt(v.text);
      case Value::Kind::List: {
        std::vector<Doc> items;
        for (auto& i : v.items) items.push_back(value(i));
        Doc d = v.isTuple ? Doc::bracket("(", std::move(items), ")") : Doc::bracket("[", std::move(items), "]");
        d.singleTrailingComma = v.isTuple;
        return d;
      }
      case Value::Kind::Dict: {
        std::vector<const std::pair<std::string, Value>*> entries;
        for (auto& kv : v.dict) entries.push_back(&kv);
        if (o_.canonical) std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->first < b->first; });
        std::vector<Doc> items;
        for (auto* kv : entries) items.push_back(Doc::cat({Doc::txt(pythonString(kv->first) + ": "), value(kv->second)}));
        return Doc::bracket("{", std::move(items), "}");
      }
      case Value::Kind::VDevice: return v.vdevice ? vdeviceRef(*v.vdevice) : Doc::txt("None");
      case Value::Kind::Device:
        return call("R.device", {Doc::txt("device_type=" + std::to_string(v.device.deviceType)),
                                 Doc::txt("index=" + std::to_string(v.device.index))});
      case Value::Kind::StructInfo: return sinfo(v.sinfo, false);
      case Value::Kind::Prim: return Doc::txt(primText(v.prim));
    }
    return Doc::txt("None");
  }

  Doc dims(const std::vector<PrimExprPtr>& shape, bool quoteSymbolic, bool asList = false) {
    std::vector<Doc> items;
    for (auto& d : shape) {
      // An opaque dimension is source text as written (a string literal stays one), never re-quoted.
      bool symbolic = d && d->kind != PrimExpr::Kind::Int && d->kind != PrimExpr::Kind::Opaque;
      items.push_back(Doc::txt(symbolic && quoteSymbolic ? pythonString(primText(d)) : primText(d)));
    }
    Doc b = asList ? Doc::bracket("[", std::move(items), "]") : Doc::bracket("(", std::move(items), ")");
    b.singleTrailingComma = !asList;
    return b;
  }

  Doc sinfo(const StructInfoPtr& s, bool inSignature) {
    if (!s) return Doc::txt(m_.era == Era::V026 ? "R.Any" : "R.Object");
    switch (s->kind) {
      case StructInfo::Kind::Object: return Doc::txt(m_.era == Era::V026 ? "R.Any" : "R.Object");
      case StructInfo::Kind::Prim:
        if (s->primValue) return call("R.Prim", {Doc::txt("value=" + primText(s->primValue))});
        return call("R.Prim", {Doc::txt(pythonString(s->dtype))});
      case StructInfo::Kind::Shape:
        if (s->shape) return call("R.Shape", {dims(*s->shape, inSignature, true)});
        if (s->ndim >= 0) return call("R.Shape", {Doc::txt("ndim=" + std::to_string(s->ndim))});
        return Doc::txt("R.Shape");
      case StructInfo::Kind::Tensor: {
        std::vector<Doc> args;
        if (s->shape) args.push_back(dims(*s->shape, inSignature));
        if (!s->dtype.empty()) args.push_back(Doc::txt("dtype=" + pythonString(s->dtype)));
        if (!s->shape && s->ndim >= 0) args.push_back(Doc::txt("ndim=" + std::to_string(s->ndim)));
        if (s->vdevice) args.push_back(Doc::cat({Doc::txt("vdevice="), vdeviceRef(*s->vdevice)}));
        if (args.empty()) return Doc::txt("R.Tensor");
        return call("R.Tensor", std::move(args));
      }
      case StructInfo::Kind::Tuple: {
        std::vector<Doc> fields;
        for (auto& f : s->fields) fields.push_back(sinfo(f, inSignature));
        return call("R.Tuple", std::move(fields));
      }
      case StructInfo::Kind::Func: {
        std::vector<Doc> args;
        if (s->params) {
          std::vector<Doc> ps;
          for (auto& p : *s->params) ps.push_back(sinfo(p, inSignature));
          Doc b = Doc::bracket("(", std::move(ps), ")");
          b.singleTrailingComma = true;
          args.push_back(b);
        }
        args.push_back(sinfo(s->ret, inSignature));
        if (!s->pure) args.push_back(Doc::txt("purity=False"));
        return call("R.Callable", std::move(args));
      }
    }
    return Doc::txt("R.Object");
  }

  std::string opSpelling(const std::string& op) {
    // "relax.nn.conv2d" -> "R.nn.conv2d"
    if (op.rfind("relax.", 0) == 0) return "R." + op.substr(6);
    return op;
  }

  Doc operand(const ExprPtr& e, int prec) {
    Doc d = expr(e);
    if (auto* c = as<Call>(e); c && !o_.canonical && !c->infix.empty()) {
      int inner = c->infix == "u-" ? 6 : precedenceOf(c->infix);
      if (inner < prec) return Doc::cat({Doc::txt("("), d, Doc::txt(")")});
    }
    return d;
  }

  Doc callDoc(const Call& c) {
    if (!o_.canonical && !c.infix.empty()) {
      if (c.infix == "u-" && c.args.size() == 1) return Doc::cat({Doc::txt("-"), operand(c.args[0], 6)});
      if (c.args.size() == 2) {
        int prec = precedenceOf(c.infix);
        bool rightAssoc = c.infix == "**";
        return Doc::cat({operand(c.args[0], rightAssoc ? prec + 1 : prec), Doc::txt(" " + c.infix + " "),
                         operand(c.args[1], rightAssoc ? prec : prec + 1)});
      }
    }
    std::string callee;
    if (!c.op.empty()) callee = opSpelling(c.op);
    else if (auto* g = as<GlobalVar>(c.callee)) callee = m_.standalone ? g->name : "cls." + g->name;
    else callee = flatDoc(expr(c.callee));
    std::vector<Doc> args;
    size_t positionalArgs = c.trailingArgNames.empty() ? c.args.size() : std::min<size_t>(c.trailingArgsFrom, c.args.size());
    for (size_t i = 0; i < positionalArgs; ++i) args.push_back(c.args[i] ? expr(c.args[i]) : Doc::txt("None"));
    for (auto& a : c.attrs)
      if (a.positional && (o_.canonical || a.written)) args.push_back(value(a.value));
    for (auto& a : c.attrs)
      if (!a.positional && (o_.canonical || a.written)) args.push_back(Doc::cat({Doc::txt(a.name + "="), value(a.value)}));
    if (c.sinfoKey != Call::SInfoArgsKey::None) {
      bool v26 = m_.era == Era::V026;
      std::string key = c.sinfoKey == Call::SInfoArgsKey::OutSInfo ? (v26 ? "out_ty" : "out_sinfo")
                                                                  : (v26 ? "ty_args" : "sinfo_args");
      std::vector<Doc> infos;
      for (auto& s : c.sinfoArgs) infos.push_back(sinfo(s, false));
      Doc v = (c.sinfoArgsAsList || infos.size() != 1) ? Doc::bracket("[", std::move(infos), "]") : infos[0];
      args.push_back(Doc::cat({Doc::txt(key + "="), v}));
    }
    for (size_t i = positionalArgs; i < c.args.size(); ++i) {
      size_t k = i - positionalArgs;
      std::string name = k < c.trailingArgNames.size() ? c.trailingArgNames[k] : "arg" + std::to_string(i);
      if (c.args[i]) args.push_back(Doc::cat({Doc::txt(name + "="), expr(c.args[i])}));
    }
    Doc d = call(callee, std::move(args));
    if (o_.trivia && o_.trivia->magicCommas.count(&c)) d.parts[1].forceBreak = true;
    return d;
  }

  Doc expr(const ExprPtr& e) {
    if (!e) return Doc::txt("None");
    switch (e->kind) {
      case Expr::Kind::Var: return Doc::txt(static_cast<const Var&>(*e).name);
      case Expr::Kind::GlobalVar: {
        auto& g = static_cast<const GlobalVar&>(*e);
        return Doc::txt(m_.standalone ? g.name : "cls." + g.name);
      }
      case Expr::Kind::Constant: {
        auto& c = static_cast<const Constant&>(*e);
        if (c.metadataIndex >= 0) return Doc::txt("metadata[\"relax.expr.Constant\"][" + std::to_string(c.metadataIndex) + "]");
        if (c.pythonLiteral) return value(c.value);  // `x * 2`: the operand as written
        std::vector<Doc> args{value(c.value)};
        if (!c.dtype.empty()) args.push_back(Doc::txt(pythonString(c.dtype)));
        return call("R.const", std::move(args));
      }
      case Expr::Kind::PrimValue:
        return call("R.prim_value", {Doc::txt(primText(static_cast<const PrimValue&>(*e).value))});
      case Expr::Kind::StringImm: return call("R.str", {Doc::txt(pythonString(static_cast<const StringImm&>(*e).value))});
      case Expr::Kind::DataTypeImm:
        return call("R.dtype", {Doc::txt(pythonString(static_cast<const DataTypeImm&>(*e).dtype))});
      case Expr::Kind::ShapeExpr: return call("R.shape", {dims(static_cast<const ShapeExpr&>(*e).values, false, true)});
      case Expr::Kind::Tuple: {
        std::vector<Doc> fields;
        for (auto& f : static_cast<const Tuple&>(*e).fields) fields.push_back(expr(f));
        Doc b = Doc::bracket("(", std::move(fields), ")");
        b.singleTrailingComma = true;
        return b;
      }
      case Expr::Kind::TupleGetItem: {
        auto& t = static_cast<const TupleGetItem&>(*e);
        return Doc::cat({expr(t.tuple), Doc::txt("[" + std::to_string(t.index) + "]")});
      }
      case Expr::Kind::Opaque: return Doc::txt(static_cast<const OpaqueExpr&>(*e).text);
      case Expr::Kind::ExternFunc: return Doc::txt(pythonString(static_cast<const ExternFunc&>(*e).symbol));
      case Expr::Kind::Call: return callDoc(static_cast<const Call&>(*e));
      case Expr::Kind::If:
      case Expr::Kind::SeqExpr: return Doc::txt("...");  // statements, printed by the block printer
    }
    return Doc::txt("None");
  }

  // ---- statements ----

  std::string pad(int level) const { return std::string(static_cast<size_t>(o_.indent + 4 * level), ' '); }

  const Trivia::Item* trivia(const void* key) const { return o_.trivia ? o_.trivia->find(key) : nullptr; }

  void leading(const void* key, int level, bool allowBlank = true) {
    const Trivia::Item* t = trivia(key);
    if (!t) return;
    if (t->blankBefore && allowBlank && !out_.empty() && !endsWithBlankLine() && !afterHeader()) out_ += "\n";
    for (auto& c : t->leading) out_ += pad(level) + c + "\n";
  }

  // True right after a line that opens a block (def, class, with, if, else): no blank line there.
  bool afterHeader() const {
    if (out_.size() < 2) return false;
    size_t start = out_.rfind('\n', out_.size() - 2);
    std::string_view last = std::string_view(out_).substr(start == std::string::npos ? 0 : start + 1);
    last.remove_suffix(1);
    if (auto hash = last.find("  #"); hash != std::string_view::npos) last = last.substr(0, hash);
    while (!last.empty() && last.back() == ' ') last.remove_suffix(1);
    return !last.empty() && last.back() == ':';
  }

  bool endsWithBlankLine() const { return out_.size() >= 2 && out_[out_.size() - 1] == '\n' && out_[out_.size() - 2] == '\n'; }

  // Emits a statement: rendered doc, with the trailing comment after its first line.
  void statement(const void* key, int level, const Doc& d) {
    leading(key, level);
    std::string text = renderDoc(d, o_.indent + 4 * level, o_.lineWidth);
    withTrailing(key, text);
    out_ += pad(level) + text + "\n";
  }

  // Puts the item's end-of-line comment after its first line, or after its last when it followed the
  // item's last token.
  void withTrailing(const void* key, std::string& text) {
    const Trivia::Item* t = trivia(key);
    if (!t || t->trailing.empty()) return;
    auto nl = text.find('\n');
    if (nl == std::string::npos || t->trailingAtEnd) text += "  " + t->trailing;
    else text.insert(nl, "  " + t->trailing);
  }

  void decoratorLine(const void* key, const Doc& d, int level) {
    std::string text = renderDoc(d, o_.indent + 4 * level, o_.lineWidth);
    withTrailing(key, text);
    out_ += pad(level) + text + "\n";
  }

  Doc annotated(const Var& v, bool inSignature) {
    if (!v.annotation) return Doc::txt(v.name);
    return Doc::cat({Doc::txt(v.name + ": "), sinfo(v.annotation, inSignature)});
  }

  void binding(const Binding& b, int level) {
    if (auto* iff = as<If>(b.value)) {
      leading(&b, level);
      std::string header = "if " + flatDoc(expr(iff->cond)) + ":";
      const Trivia::Item* t = trivia(&b);
      out_ += pad(level) + header + (t && !t->trailing.empty() ? "  " + t->trailing : "") + "\n";
      branch(*iff->thenBranch, b, level + 1);
      leading(iff->elseBranch.get(), level, false);
      const Trivia::Item* te = trivia(iff->elseBranch.get());
      out_ += pad(level) + "else:" + (te && !te->trailing.empty() ? "  " + te->trailing : "") + "\n";
      branch(*iff->elseBranch, b, level + 1);
      return;
    }
    if (b.verbatim) {
      leading(&b, level);
      for (auto& line : *b.verbatim) out_ += line.empty() ? "\n" : pad(level) + line + "\n";
      return;
    }
    Doc lhs;
    if (b.kind == Binding::Kind::Unpack) {
      std::string names;
      for (size_t i = 0; i < b.vars.size(); ++i) names += (i ? ", " : "") + b.vars[i]->name;
      lhs = Doc::txt(names);
    } else {
      lhs = annotated(*b.vars.at(0), false);
    }
    // A packed function's name prints as a string where a call takes it; bound to a variable it is the
    // node itself, as TVM prints it.
    Doc rhs = b.value && b.value->kind == Expr::Kind::ExternFunc ? call("R.ExternFunc", {expr(b.value)}) : expr(b.value);
    if (b.kind == Binding::Kind::MatchCast) rhs = call("R.match_cast", {rhs, sinfo(b.castSInfo, false)});
    statement(&b, level, Doc::cat({lhs, Doc::txt(" = "), rhs}));
  }

  void branch(const SeqExpr& s, const Binding& outer, int level) {
    for (auto& blk : s.blocks)
      for (auto& b : blk->bindings) binding(*b, level);
    // The branch's value is normally the variable its last binding defines (TVM's printed form).
    auto* v = as<Var>(s.body);
    bool boundHere = false;
    if (v && !s.blocks.empty() && !s.blocks.back()->bindings.empty()) {
      auto& last = s.blocks.back()->bindings.back();
      boundHere = (last->kind == Binding::Kind::Var || last->kind == Binding::Kind::MatchCast) &&
                  last->vars[0]->name == v->name;
    }
    if (!boundHere && !outer.vars.empty())
      statement(&s, level, Doc::cat({Doc::txt(outer.vars[0]->name + " = "), expr(s.body)}));
    if (s.blocks.empty() && !s.body) out_ += pad(level) + "pass\n";
  }

  void block(const BindingBlock& blk, int level) {
    if (!blk.dataflow) {
      for (auto& b : blk.bindings) binding(*b, level);
      return;
    }
    statement(&blk, level, Doc::txt("with R.dataflow():"));
    for (auto& b : blk.bindings) binding(*b, level + 1);
    std::vector<Doc> outs;
    for (auto& b : blk.bindings)
      for (auto& v : b->vars)
        if (!v->isDataflow) outs.push_back(Doc::txt(v->name));
    statement(&blk.bindings, level + 1, call("R.output", std::move(outs)));
  }

  Doc decorator(const std::string& name, const AttrList& args) {
    if (args.empty()) return Doc::txt("@" + name);
    std::vector<Doc> items;
    for (auto& [k, v] : args) items.push_back(Doc::cat({Doc::txt(k + "="), value(v)}));
    return Doc::cat({Doc::txt("@" + name), Doc::bracket("(", std::move(items), ")")});
  }

  Doc params(const std::vector<Doc>& ps, const std::vector<std::string>& comments) {
    Doc b = Doc::bracket("(", ps, ")");
    b.comments = comments;
    return b;
  }

  void function(const Function& f, int level) {
    leading(&f, level);
    decoratorLine(&f.decoratorArgs, decorator("R.function", f.decoratorArgs), level);
    std::vector<Doc> ps;
    std::vector<std::string> comments;
    std::vector<std::vector<std::string>> leadingComments;
    for (auto& p : f.params) {
      ps.push_back(annotated(*p, true));
      const Trivia::Item* t = trivia(p.get());
      comments.push_back(t ? t->trailing : "");
      leadingComments.push_back(t ? t->leading : std::vector<std::string>{});
    }
    Doc plist = params(ps, comments);
    plist.leading = leadingComments;
    plist.forceBreak = o_.trivia && o_.trivia->magicCommas.count(&f.params);
    std::vector<Doc> header{Doc::txt("def " + f.name), plist};
    if (f.retAnnotation) {
      header.push_back(Doc::txt(" -> "));
      header.push_back(sinfo(f.retAnnotation, true));
    }
    header.push_back(Doc::txt(":"));
    Doc head = Doc::cat(std::move(header), /*breakLastFirst=*/false);
    std::string text = renderDoc(head, o_.indent + 4 * level, o_.lineWidth);
    // A comment on a def line follows its `:`, which ends the (possibly wrapped) header.
    if (const Trivia::Item* t = trivia(&f); t && !t->trailing.empty()) text += "  " + t->trailing;
    out_ += pad(level) + text + "\n";
    int body = level + 1;
    for (size_t i = 0; i < f.symbolicVars.size(); ++i) {
      auto& s = f.symbolicVars[i];
      statement(&f.symbolicVars[i], body, Doc::txt(s.name + " = T." + s.dtype + "()"));
    }
    if (f.hasFuncAttr) statement(&f.attrs, body, call("R.func_attr", {attrDict(f.attrs)}));
    if (!f.moduleAlias.empty()) statement(&f.moduleAlias, body, Doc::txt(f.moduleAlias + " = " + m_.name));
    if (f.body) {
      for (auto& blk : f.body->blocks) block(*blk, body);
      if (f.body->body) statement(f.body.get(), body, Doc::cat({Doc::txt("return "), expr(f.body->body)}));
    }
    if (!f.body || (f.body->blocks.empty() && !f.body->body && f.symbolicVars.empty() && !f.hasFuncAttr &&
                    f.moduleAlias.empty()))
      out_ += pad(body) + "pass\n";
  }

  Doc attrDict(const AttrList& attrs) {
    Value v;
    v.kind = Value::Kind::Dict;
    v.dict = attrs;
    return value(v);
  }

  void primFunc(const PrimFunc& f, int level) {
    leading(&f, level);
    decoratorLine(&f.decoratorArgs, decorator("T.prim_func", f.decoratorArgs), level);
    std::vector<Doc> ps;
    std::vector<std::string> comments;
    for (auto& p : f.params) {
      ps.push_back(Doc::txt(p.annotation.empty() ? p.name : p.name + ": " + p.annotation));
      const Trivia::Item* t = trivia(&p);
      comments.push_back(t ? t->trailing : "");
    }
    std::vector<Doc> header{Doc::txt("def " + f.name), params(ps, comments)};
    if (!f.retAnnotation.empty()) header.push_back(Doc::txt(" -> " + f.retAnnotation));
    header.push_back(Doc::txt(":"));
    std::string text = renderDoc(Doc::cat(std::move(header), false), o_.indent + 4 * level, o_.lineWidth);
    // A comment on a def line follows its `:`, which ends the (possibly wrapped) header.
    if (const Trivia::Item* t = trivia(&f); t && !t->trailing.empty()) text += "  " + t->trailing;
    out_ += pad(level) + text + "\n";
    std::vector<std::string> printed;  // a built kernel's body, printed now; a read one's lines as they are
    const std::vector<std::string>& body = f.lazyBody ? (printed = f.body()) : f.bodyLines;
    if (body.empty()) out_ += pad(level + 1) + "pass\n";
    for (auto& line : body) out_ += line.empty() ? "\n" : pad(level + 1) + line + "\n";
  }

  Doc globalInfos() {
    std::vector<std::pair<std::string, Doc>> entries;
    if (m_.hasVDeviceKey) {
      std::vector<Doc> list;
      for (auto& v : m_.vdevices) list.push_back(vdeviceDecl(*v));
      entries.emplace_back("vdevice", Doc::bracket("[", std::move(list), "]"));
    }
    for (auto& [k, v] : m_.otherGlobalInfos) entries.emplace_back(k, value(v));
    if (o_.canonical) std::stable_sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<Doc> items;
    for (auto& [k, d] : entries) items.push_back(Doc::cat({Doc::txt(pythonString(k) + ": "), d}));
    return call("I.module_global_infos", {Doc::bracket("{", std::move(items), "}")});
  }

  void moduleFunction(const ModuleFunction& f, int level) {
    if (f.relax) function(*f.relax, level);
    else primFunc(*f.tir, level);
  }

  std::string module() {
    if (o_.importHeader) {
      out_ += "# from tvm.script import ir as I\n# from tvm.script import relax as R\n";
      bool tir = std::any_of(m_.functions.begin(), m_.functions.end(), [](auto& f) { return f.tir != nullptr; });
      if (tir) out_ += "# from tvm.script import tir as T\n";
      out_ += "\n";
    }
    std::vector<const ModuleFunction*> fns;
    for (auto& f : m_.functions) fns.push_back(&f);
    if (o_.canonical) std::stable_sort(fns.begin(), fns.end(), [](auto* a, auto* b) { return a->name < b->name; });
    if (m_.standalone) {
      for (auto* f : fns) moduleFunction(*f, 0);
    } else {
      leading(&m_, 0);
      decoratorLine(&m_.decoratorArgs, decorator("I.ir_module", m_.decoratorArgs), 0);
      const Trivia::Item* t = trivia(&m_);
      out_ += pad(0) + "class " + m_.name + ":" + (t && !t->trailing.empty() ? "  " + t->trailing : "") + "\n";
      bool any = false;
      if (m_.hasAttrs) {
        statement(&m_.attrs, 1, call("I.module_attrs", {attrDict(m_.attrs)}));
        any = true;
      }
      if (m_.hasGlobalInfos) {
        statement(&m_.vdevices, 1, globalInfos());
        any = true;
      }
      for (auto* f : fns) {
        if (any && !endsWithBlankLine()) out_ += "\n";
        moduleFunction(*f, 1);
        any = true;
      }
      if (!any) out_ += pad(1) + "pass\n";
    }
    if (o_.trivia)
      for (auto& c : o_.trivia->dangling) out_ += pad(m_.standalone ? 0 : 1) + c + "\n";
    return out_;
  }

  std::string out_;

 private:
  const IRModule& m_;
  const PrintOptions& o_;
};

}  // namespace

std::string printModule(const IRModule& m, const PrintOptions& opts) { return Printer(m, opts).module(); }

std::string printStructInfo(const StructInfoPtr& s, const IRModule& m, bool inSignature) {
  PrintOptions o;
  return flatDoc(Printer(m, o).sinfo(s, inSignature));
}
std::string printExpr(const ExprPtr& e, const IRModule& m) {
  PrintOptions o;
  return flatDoc(Printer(m, o).expr(e));
}
std::string printValue(const Value& v, const IRModule& m) {
  PrintOptions o;
  return flatDoc(Printer(m, o).value(v));
}
std::string printPrimExpr(const PrimExprPtr& p) { return primText(p); }

}  // namespace tvms::ir
