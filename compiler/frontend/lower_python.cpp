// Python values read by TVMScript: `R.Tensor(shape, dtype)`, `R.to_vdevice(x, vdevice[1])`,
// `I.module_global_infos({"vdevice": vdevice})` with names the file's Python binds, as TVM's parser
// evaluates them. The evaluator (python_eval.h) knows their values; what it does not know keeps the
// old behaviour (a TVS011 note, the function not checked).
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/python_eval.h"

namespace tvms::frontend {

using namespace ir;

std::optional<PyValue> Lowerer::pythonValue(TSNode n) {
  if (!python_) return std::nullopt;
  std::string_view t = typeOf(n);
  if (t != "identifier" && t != "subscript" && t != "attribute" && t != "binary_operator" && t != "call" &&
      t != "parenthesized_expression" && t != "unary_operator")
    return std::nullopt;
  // Every name in it must be the program's (not a Relax variable or symbolic name of this function),
  // and it must hold at least one that is not a TVMScript namespace.
  bool programName = false;
  std::vector<TSNode> stack{n};
  while (!stack.empty()) {
    TSNode c = stack.back();
    stack.pop_back();
    if (isType(c, "identifier")) {
      std::string name = text(c);
      if ((!scopes_.empty() && scopes_.back().count(name)) || symbolic_.count(name)) return std::nullopt;
      const PyValue* v = python_->lookup(name);
      if (v && v->kind != PyValue::Kind::Namespace) programName = true;
      continue;
    }
    if (isType(c, "attribute")) { stack.push_back(field(c, "object")); continue; }
    if (isType(c, "keyword_argument")) { stack.push_back(field(c, "value")); continue; }
    for (TSNode k : namedChildren(c)) stack.push_back(k);
  }
  if (!programName) return std::nullopt;
  PyValue v = python_->evalPure(n);
  if (!v.known()) return std::nullopt;
  region_.readsPython = true;
  return v;
}

std::optional<std::string> Lowerer::stringValue(TSNode n) {
  if (auto s = stringLiteral(doc_, n)) return s;
  if (auto v = pythonValue(n); v && v->kind == PyValue::Kind::Str) return v->text;
  return std::nullopt;
}

// A vdevice object of the program used in TVMScript: the declared entry when it is that very object
// (TVM's identity), else a new object, as an inline I.vdevice(...) is.
std::shared_ptr<const VDeviceRef> Lowerer::pythonVDeviceUse(const PyValue& v, TSNode n) {
  if (v.kind == PyValue::Kind::Str) {
    auto r = std::make_shared<VDeviceRef>();
    r->spelling = v.text;
    r->device = mod_.lookup(v.text);
    region_.map.ranges.set(r.get(), rangeOf(n));
    useName(NameRef::Kind::VDevice, n, v.text, r->device.get());
    return r;
  }
  if (v.kind != PyValue::Kind::VDevice) return nullptr;
  auto r = std::make_shared<VDeviceRef>();
  r->device = v.vdevice;
  int k = mod_.kindIndexOf(v.vdevice.get());
  if (k >= 0) r->spelling = v.vdevice->target.kind + ":" + std::to_string(k);
  else r->isInline = true;
  region_.map.ranges.set(r.get(), rangeOf(n));
  if (k >= 0) useName(NameRef::Kind::VDevice, n, r->spelling, r->device.get());
  pythonRefs_.push_back(r);
  return r;
}

// `"vdevice": vdevice` with a list the program made: its very objects are the module's entries (as in
// TVM, where the list is the one Python object), each at the I.vdevice call that made it.
void Lowerer::declarePythonVDevices(const PyValue& list, TSNode where) {
  std::string listName = text(where);
  for (size_t i = 0; i < list.items->size(); ++i) {
    const PyValue& item = (*list.items)[i];
    if (item.kind != PyValue::Kind::VDevice) {
      report(diag::Code::TVS005, rangeOf(where), "\"vdevice\" takes a list of I.vdevice(...); entry " + std::to_string(i) + " is " +
                                           describe(item));
      continue;
    }
    mod_.vdevices.push_back(item.vdevice);
    ByteRange made = item.origin.end > item.origin.begin ? item.origin : rangeOf(where);
    region_.map.ranges.set(item.vdevice.get(), made);
    region_.map.names.push_back({NameRef::Kind::VDevice, made, item.vdevice->target.kind, true, item.vdevice.get()});
    if (isType(where, "identifier")) region_.map.pythonSpellings[item.vdevice.get()] = listName + "[" + std::to_string(i) + "]";
  }
}

}  // namespace tvms::frontend
