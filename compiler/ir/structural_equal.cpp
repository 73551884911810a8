#include "compiler/ir/structural_equal.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace tvms::ir {

namespace {

// Source text the IR keeps as written (a T.prim_func's annotations and body, an opaque argument)
// without what does not count: whitespace, line breaks and comments outside string literals, and a
// comma right before a closing bracket. `A:T.Buffer((4,4),"f")` and `A: T.Buffer((4, 4), "f")` match.
std::string withoutLayout(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'') {  // a string literal, as written (triple quotes included)
      bool triple = text.substr(i, 3) == std::string(3, c);
      size_t close = i + (triple ? 3 : 1);
      while (close < text.size()) {
        if (text[close] == '\\') { close += 2; continue; }
        if (triple ? text.substr(close, 3) == std::string(3, c) : text[close] == c) { close += triple ? 3 : 1; break; }
        ++close;
      }
      out.append(text.substr(i, std::min(close, text.size()) - i));
      i = close - 1;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') continue;
    if ((c == ')' || c == ']' || c == '}') && !out.empty() && out.back() == ',') out.pop_back();
    out += c;
  }
  return out;
}

bool sameSource(std::string_view a, std::string_view b) { return a == b || withoutLayout(a) == withoutLayout(b); }

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

// Compares two IR trees; on the first mismatch records a human-readable path to it.
class Comparer {
 public:
  std::string where;

  bool fail(std::string what) {
    if (where.empty()) where = std::move(what);
    return false;
  }

  bool prim(const PrimExprPtr& a, const PrimExprPtr& b) {
    if (!a || !b) return !a && !b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case PrimExpr::Kind::Int: return a->value == b->value;
      case PrimExpr::Kind::Var: return a->name == b->name;
      case PrimExpr::Kind::Opaque: return sameSource(a->name, b->name);  // its source text
      case PrimExpr::Kind::Neg: return prim(a->lhs, b->lhs);
      case PrimExpr::Kind::Binary: return a->name == b->name && prim(a->lhs, b->lhs) && prim(a->rhs, b->rhs);
    }
    return false;
  }

  bool value(const Value& a, const Value& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Value::Kind::None: return true;
      case Value::Kind::Bool: return a.boolean == b.boolean;
      case Value::Kind::Int: return a.integer == b.integer;
      case Value::Kind::Float: return a.real == b.real;
      case Value::Kind::String:
      case Value::Kind::Opaque: return sameSource(a.text, b.text);
      case Value::Kind::List:
        return a.items.size() == b.items.size() &&
               std::equal(a.items.begin(), a.items.end(), b.items.begin(),
                          [&](const Value& x, const Value& y) { return value(x, y); });
      case Value::Kind::Dict: {
        if (a.dict.size() != b.dict.size()) return false;
        for (auto& [k, v] : a.dict) {
          const Value* other = b.find(k);
          if (!other || !value(v, *other)) return false;
        }
        return true;
      }
      case Value::Kind::VDevice: return a.vdevice && b.vdevice && sameValue(*a.vdevice, *b.vdevice);
      case Value::Kind::Device: return a.device == b.device;
      case Value::Kind::StructInfo: return sinfo(a.sinfo, b.sinfo);
      case Value::Kind::Prim: return prim(a.prim, b.prim);
    }
    return false;
  }

  bool vdev(const std::shared_ptr<const VDeviceRef>& a, const std::shared_ptr<const VDeviceRef>& b) {
    if (!a || !b) return !a && !b;
    return sameValue(*a, *b);
  }

  bool shape(const std::optional<std::vector<PrimExprPtr>>& a, const std::optional<std::vector<PrimExprPtr>>& b) {
    if (!a || !b) return !a && !b;
    if (a->size() != b->size()) return false;
    for (size_t i = 0; i < a->size(); ++i) if (!prim((*a)[i], (*b)[i])) return false;
    return true;
  }

  bool sinfoList(const std::vector<StructInfoPtr>& a, const std::vector<StructInfoPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) if (!sinfo(a[i], b[i])) return false;
    return true;
  }

  bool sinfo(const StructInfoPtr& a, const StructInfoPtr& b) {
    if (!a || !b) return !a && !b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case StructInfo::Kind::Object: return true;
      case StructInfo::Kind::Prim: return a->dtype == b->dtype && prim(a->primValue, b->primValue);
      case StructInfo::Kind::Shape: return shape(a->shape, b->shape) && a->ndim == b->ndim;
      case StructInfo::Kind::Tensor:
        return shape(a->shape, b->shape) && a->ndim == b->ndim && a->dtype == b->dtype && vdev(a->vdevice, b->vdevice);
      case StructInfo::Kind::Tuple: return sinfoList(a->fields, b->fields);
      case StructInfo::Kind::Func:
        if (a->params.has_value() != b->params.has_value()) return false;
        if (a->params && !sinfoList(*a->params, *b->params)) return false;
        return a->pure == b->pure && sinfo(a->ret, b->ret);
    }
    return false;
  }

  bool var(const Var& a, const Var& b) {
    return a.name == b.name && a.isDataflow == b.isDataflow && sinfo(a.annotation, b.annotation);
  }

  bool exprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) if (!expr(a[i], b[i])) return false;
    return true;
  }

  bool expr(const ExprPtr& a, const ExprPtr& b) {
    if (!a || !b) return !a && !b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case Expr::Kind::Var: {
        auto& x = static_cast<const Var&>(*a);
        auto& y = static_cast<const Var&>(*b);
        return x.name == y.name && x.isDataflow == y.isDataflow;  // a use: the name picks the binding
      }
      case Expr::Kind::GlobalVar:
        return static_cast<const GlobalVar&>(*a).name == static_cast<const GlobalVar&>(*b).name;
      case Expr::Kind::Constant: {
        auto& x = static_cast<const Constant&>(*a);
        auto& y = static_cast<const Constant&>(*b);
        return x.metadataIndex == y.metadataIndex && x.dtype == y.dtype && value(x.value, y.value) &&
               x.pythonLiteral == y.pythonLiteral && x.arrayShape == y.arrayShape;
      }
      case Expr::Kind::PrimValue:
        return prim(static_cast<const PrimValue&>(*a).value, static_cast<const PrimValue&>(*b).value);
      case Expr::Kind::StringImm:
        return static_cast<const StringImm&>(*a).value == static_cast<const StringImm&>(*b).value;
      case Expr::Kind::DataTypeImm:
        return static_cast<const DataTypeImm&>(*a).dtype == static_cast<const DataTypeImm&>(*b).dtype;
      case Expr::Kind::ShapeExpr: {
        auto& x = static_cast<const ShapeExpr&>(*a).values;
        auto& y = static_cast<const ShapeExpr&>(*b).values;
        return shape(x, y);
      }
      case Expr::Kind::Tuple:
        return exprs(static_cast<const Tuple&>(*a).fields, static_cast<const Tuple&>(*b).fields);
      case Expr::Kind::TupleGetItem: {
        auto& x = static_cast<const TupleGetItem&>(*a);
        auto& y = static_cast<const TupleGetItem&>(*b);
        return x.index == y.index && expr(x.tuple, y.tuple);
      }
      case Expr::Kind::Opaque:
        return sameSource(static_cast<const OpaqueExpr&>(*a).text, static_cast<const OpaqueExpr&>(*b).text);
      case Expr::Kind::ExternFunc:
        return static_cast<const ExternFunc&>(*a).symbol == static_cast<const ExternFunc&>(*b).symbol;
      case Expr::Kind::Call: return call(static_cast<const Call&>(*a), static_cast<const Call&>(*b));
      case Expr::Kind::If: {
        auto& x = static_cast<const If&>(*a);
        auto& y = static_cast<const If&>(*b);
        return expr(x.cond, y.cond) && seq(*x.thenBranch, *y.thenBranch) && seq(*x.elseBranch, *y.elseBranch);
      }
      case Expr::Kind::SeqExpr:
        return seq(static_cast<const SeqExpr&>(*a), static_cast<const SeqExpr&>(*b));
    }
    return false;
  }

  bool call(const Call& a, const Call& b) {
    if (a.op != b.op || !expr(a.callee, b.callee) || !exprs(a.args, b.args)) return false;
    if (a.attrs.size() != b.attrs.size()) return false;
    for (auto& x : a.attrs) {
      const CallAttr* y = b.attr(x.name);
      if (!y || !value(x.value, y->value)) return false;
    }
    return sinfoList(a.sinfoArgs, b.sinfoArgs);
  }

  bool binding(const Binding& a, const Binding& b) {
    if (a.kind != b.kind || a.vars.size() != b.vars.size()) return false;
    for (size_t i = 0; i < a.vars.size(); ++i) if (!var(*a.vars[i], *b.vars[i])) return false;
    return expr(a.value, b.value) && sinfo(a.castSInfo, b.castSInfo);
  }

  bool seq(const SeqExpr& a, const SeqExpr& b) {
    if (a.blocks.size() != b.blocks.size()) return fail("a different number of binding blocks");
    for (size_t i = 0; i < a.blocks.size(); ++i) {
      auto& x = *a.blocks[i];
      auto& y = *b.blocks[i];
      if (x.dataflow != y.dataflow) return fail("block " + std::to_string(i) + ": dataflow differs");
      if (x.bindings.size() != y.bindings.size())
        return fail("block " + std::to_string(i) + ": a different number of bindings");
      for (size_t j = 0; j < x.bindings.size(); ++j)
        if (!binding(*x.bindings[j], *y.bindings[j])) {
          auto& vars = x.bindings[j]->vars;
          return fail("binding of '" + (vars.empty() ? std::string("?") : vars[0]->name) + "' differs");
        }
    }
    if (!expr(a.body, b.body)) return fail("the returned value differs");
    return true;
  }

  bool attrList(const AttrList& a, const AttrList& b) {
    if (a.size() != b.size()) return false;
    for (auto& [k, v] : a) {
      auto it = std::find_if(b.begin(), b.end(), [&](auto& kv) { return kv.first == k; });
      if (it == b.end() || !value(v, it->second)) return false;
    }
    return true;
  }

  bool function(const Function& a, const Function& b) {
    if (a.name != b.name) return fail("names differ");
    if (!attrList(a.decoratorArgs, b.decoratorArgs)) return fail("decorator arguments differ");
    if (a.params.size() != b.params.size()) return fail("a different number of parameters");
    for (size_t i = 0; i < a.params.size(); ++i)
      if (!var(*a.params[i], *b.params[i])) return fail("parameter '" + a.params[i]->name + "' differs");
    if (!sinfo(a.retAnnotation, b.retAnnotation)) return fail("return annotation differs");
    if (a.symbolicVars.size() != b.symbolicVars.size()) return fail("symbolic variables differ");
    for (size_t i = 0; i < a.symbolicVars.size(); ++i)
      if (a.symbolicVars[i].name != b.symbolicVars[i].name || a.symbolicVars[i].dtype != b.symbolicVars[i].dtype)
        return fail("symbolic variables differ");
    if (a.hasFuncAttr != b.hasFuncAttr || !attrList(a.attrs, b.attrs)) return fail("R.func_attr differs");
    if (!a.body || !b.body) return (!a.body && !b.body) || fail("body differs");
    return seq(*a.body, *b.body);
  }

  bool buffer(const TirBuffer& a, const TirBuffer& b) {
    return a.name == b.name && a.dtype == b.dtype && shape(a.shape, b.shape);
  }

  bool primFunc(const PrimFunc& a, const PrimFunc& b) {
    if (!attrList(a.decoratorArgs, b.decoratorArgs)) return fail("decorator arguments differ");
    if (a.params.size() != b.params.size()) return fail("a different number of parameters");
    for (size_t i = 0; i < a.params.size(); ++i) {
      auto& x = a.params[i];
      auto& y = b.params[i];
      if (x.name != y.name || x.kind != y.kind || !sameSource(x.annotation, y.annotation) || !buffer(x.buffer, y.buffer))
        return fail("parameter '" + x.name + "' differs");
    }
    if (!sameSource(a.retAnnotation, b.retAnnotation)) return fail("return annotation differs");
    if (!attrList(a.attrs, b.attrs)) return fail("T.func_attr differs");
    // A built kernel's body is printed for the comparison; a read one's lines are compared in place
    // (fmt checks every file it formats this way).
    auto sameBody = [&](const std::vector<std::string>& x, const std::vector<std::string>& y) { return x == y || sameSource(joined(x), joined(y)); };
    if (!(a.lazyBody || b.lazyBody ? sameBody(a.body(), b.body()) : sameBody(a.bodyLines, b.bodyLines))) return fail("body differs");
    return true;
  }

  bool module(const IRModule& a, const IRModule& b) {
    if (a.standalone != b.standalone) return fail("one is a module, the other a standalone function");
    if (!attrList(a.decoratorArgs, b.decoratorArgs)) return fail("module decorator arguments differ");
    if (a.hasAttrs != b.hasAttrs || !attrList(a.attrs, b.attrs)) return fail("module attrs differ");
    if (a.hasGlobalInfos != b.hasGlobalInfos || a.hasVDeviceKey != b.hasVDeviceKey)
      return fail("global_infos differ");
    if (a.vdevices.size() != b.vdevices.size()) return fail("vdevice lists differ in length");
    for (size_t i = 0; i < a.vdevices.size(); ++i)
      if (!sameValue(*a.vdevices[i], *b.vdevices[i])) return fail("vdevice " + std::to_string(i) + " differs");
    if (!attrList(a.otherGlobalInfos, b.otherGlobalInfos)) return fail("global_infos differ");
    if (a.functions.size() != b.functions.size()) return fail("a different number of functions");
    for (auto& f : a.functions) {
      const ModuleFunction* g = b.function(f.name);
      if (!g) return fail("function '" + f.name + "' is missing");
      bool ok = f.relax ? (g->relax && function(*f.relax, *g->relax))
                        : (g->tir && primFunc(*f.tir, *g->tir));
      if (!ok) {
        std::string inner = where;
        where.clear();
        return fail("function '" + f.name + "': " + (inner.empty() ? "differs" : inner));
      }
    }
    return true;
  }
};

}  // namespace

bool valuesEqual(const Value& a, const Value& b) { return Comparer().value(a, b); }
bool structInfoEqual(const StructInfoPtr& a, const StructInfoPtr& b) { return Comparer().sinfo(a, b); }
bool exprEqual(const ExprPtr& a, const ExprPtr& b) { return Comparer().expr(a, b); }
bool functionsEqual(const Function& a, const Function& b) { return Comparer().function(a, b); }
bool modulesEqual(const IRModule& a, const IRModule& b) { return Comparer().module(a, b); }
std::string firstDifference(const IRModule& a, const IRModule& b) {
  Comparer c;
  if (c.module(a, b)) return "";
  return c.where.empty() ? "modules differ" : c.where;
}

}  // namespace tvms::ir
