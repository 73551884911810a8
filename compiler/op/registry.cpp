// Lookup machinery of the op registry; the op tables themselves are in ops_*.cpp.
#include "compiler/op/registry.h"

#include <stdexcept>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "compiler/op/tables.h"

namespace tvms::op {

bool isExpressionKind(ParamKind k) {
  switch (k) {
    case ParamKind::Tensor: case ParamKind::TensorList: case ParamKind::Expr: case ParamKind::Shape:
    case ParamKind::Prim: case ParamKind::Callee: case ParamKind::Variadic: return true;
    default: return false;
  }
}
bool isAttributeKind(ParamKind k) { return !isExpressionKind(k) && k != ParamKind::SInfo; }

std::string_view kindName(ParamKind k) {
  switch (k) {
    case ParamKind::Tensor: return "a tensor";
    case ParamKind::TensorList: return "a tuple of tensors";
    case ParamKind::Expr: return "an expression";
    case ParamKind::Shape: return "a shape";
    case ParamKind::Prim: return "a number or symbolic value";
    case ParamKind::Callee: return "a function";
    case ParamKind::Variadic: return "arguments";
    case ParamKind::Int: return "an int";
    case ParamKind::Float: return "a float";
    case ParamKind::Bool: return "a bool";
    case ParamKind::String: return "a string";
    case ParamKind::IntList: return "an int or a list of ints";
    case ParamKind::DType: return "a dtype string";
    case ParamKind::VDevice: return "a vdevice (a string such as \"cuda:0\")";
    case ParamKind::Device: return "a device (R.cpu(), R.cuda(0), R.device(type, index))";
    case ParamKind::Any: return "a literal";
    case ParamKind::SInfo: return "a struct info (R.Tensor(...))";
  }
  return "?";
}

const Param* OpDef::param(std::string_view n) const {
  for (auto& p : params)
    if (p.name == n || (!p.eraAlias.empty() && p.eraAlias == n)) return &p;
  return nullptr;
}

std::string OpDef::scriptName() const { return name.rfind("relax.", 0) == 0 ? "R." + name.substr(6) : name; }

namespace {
std::string defaultText(const ir::Value& v) {
  switch (v.kind) {
    case ir::Value::Kind::None: return "None";
    case ir::Value::Kind::Bool: return v.boolean ? "True" : "False";
    case ir::Value::Kind::Int: return std::to_string(v.integer);
    case ir::Value::Kind::Float: {
      std::string s = std::to_string(v.real);
      while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
      return s;
    }
    case ir::Value::Kind::String: return "\"" + v.text + "\"";
    case ir::Value::Kind::List: {
      std::string s = v.isTuple ? "(" : "[";
      for (size_t i = 0; i < v.items.size(); ++i) s += (i ? ", " : "") + defaultText(v.items[i]);
      if (v.isTuple && v.items.size() == 1) s += ",";
      return s + (v.isTuple ? ")" : "]");
    }
    default: return "...";
  }
}
}  // namespace

std::string Param::text() const {
  std::string s = kind == ParamKind::Variadic ? "*" + name : name;
  if (defaultValue) s += "=" + defaultText(*defaultValue);
  else if (optionalNone) s += "=None";
  return s;
}

std::string OpDef::signature() const {
  std::string s = scriptName() + "(";
  if (!modelled) return s + "...)";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i].text();
  return s + ")";
}

namespace {

struct Registry {
  std::vector<std::unique_ptr<OpDef>> owned;
  std::vector<const OpDef*> all;
  std::unordered_map<std::string, const OpDef*> byName;

  Registry() {
    std::vector<OpDef> defs;
    addElementwiseOps(defs);
    addNnOps(defs);
    addManipulationOps(defs);
    addOtherOps(defs);
    addRearrangeOps(defs);
    addIndexingOps(defs);
    addAttentionLossOps(defs);
    addImageOps(defs);
    for (auto& d : defs) {
      if (byName.count(d.name)) continue;  // declared once: the first declaration stands
      owned.push_back(std::make_unique<OpDef>(std::move(d)));
      all.push_back(owned.back().get());
      byName[owned.back()->name] = owned.back().get();
    }
    std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->name < b->name; });
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

std::string registryName(std::string_view n) {
  if (n.rfind("R.", 0) == 0) return "relax." + std::string(n.substr(2));
  return std::string(n);
}


}  // namespace

const OpDef* findOp(std::string_view name) {
  auto& r = registry();
  auto it = r.byName.find(registryName(name));
  return it == r.byName.end() ? nullptr : it->second;
}

const OpDef* findOpByPythonOperator(std::string_view pyOp, bool unary) {
  for (auto* d : registry().all) {
    if (d->pythonOperator != pyOp) continue;
    size_t tensors = std::count_if(d->params.begin(), d->params.end(), [](auto& p) { return p.kind == ParamKind::Tensor; });
    if ((tensors == 1) == unary) return d;
  }
  return nullptr;
}

bool isKnownOpName(std::string_view name) {
  std::string n = registryName(name);
  if (findOp(n)) return true;
  static const char* kFamilies[] = {"relax.memory.", "relax.vm.", "relax.builtin.", "relax.ccl.", "relax.dist.",
                                    "relax.grad.",   "relax.inspect.", "relax.vision.", "relax.image."};
  for (auto* f : kFamilies)
    if (n.rfind(f, 0) == 0 && n.size() > std::string_view(f).size()) return true;
  return false;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

const std::vector<const OpDef*>& allOps() { return registry().all; }

std::vector<std::string> closestOpNames(std::string_view name, size_t max) {
  std::string n = registryName(name);
  std::vector<std::pair<size_t, std::string>> scored;
  for (auto* d : registry().all) {
    size_t dist = editDistance(n, d->name);
    if (dist <= std::max<size_t>(2, n.size() / 4)) scored.emplace_back(dist, d->name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (auto& [d, s] : scored) {
    if (out.size() >= max) break;
    out.push_back(s);
  }
  return out;
}

namespace builtin {
namespace {
const OpDef& required(const char* name) {
  const OpDef* d = findOp(name);
  if (!d) throw std::logic_error(std::string("the op registry lacks ") + name);
  return *d;
}
}  // namespace
const OpDef& callTir() {
  static const OpDef& d = required("relax.call_tir");
  return d;
}

const OpDef& memoryAllocStorage() {
  static const OpDef& d = required("relax.memory.alloc_storage");
  return d;
}
const OpDef& memoryAllocTensor() {
  static const OpDef& d = required("relax.memory.alloc_tensor");
  return d;
}
const OpDef& builtinAllocTensor() {
  static const OpDef& d = required("relax.builtin.alloc_tensor");
  return d;
}
const OpDef& memoryKillStorage() {
  static const OpDef& d = required("relax.memory.kill_storage");
  return d;
}
const OpDef& memoryKillTensor() {
  static const OpDef& d = required("relax.memory.kill_tensor");
  return d;
}
const OpDef& memoryView() {
  static const OpDef& d = required("relax.memory.view");
  return d;
}
const OpDef& memoryEnsureZeroOffset() {
  static const OpDef& d = required("relax.memory.ensure_zero_offset");
  return d;
}
const OpDef& callTirWithGrad() {
  static const OpDef& d = required("relax.call_tir_with_grad");
  return d;
}
const OpDef& callInplacePacked() {
  static const OpDef& d = required("relax.call_inplace_packed");
  return d;
}
const OpDef& callBuiltinWithCtx() {
  static const OpDef& d = required("relax.call_builtin_with_ctx");
  return d;
}
const OpDef& makeClosure() {
  static const OpDef& d = required("relax.make_closure");
  return d;
}
const OpDef& invokeClosure() {
  static const OpDef& d = required("relax.invoke_closure");
  return d;
}
const OpDef& invokePureClosure() {
  static const OpDef& d = required("relax.invoke_pure_closure");
  return d;
}

const OpDef& callTirInplace() {
  static const OpDef& d = required("relax.call_tir_inplace");
  return d;
}
const OpDef& toVDevice() {
  static const OpDef& d = required("relax.to_vdevice");
  return d;
}
const OpDef& hintOnDevice() {
  static const OpDef& d = required("relax.hint_on_device");
  return d;
}
const OpDef& callDpsPacked() {
  static const OpDef& d = required("relax.call_dps_packed");
  return d;
}
const OpDef& print() {
  static const OpDef& d = required("relax.print");
  return d;
}
const OpDef& assertOp() {
  static const OpDef& d = required("relax.assert_op");
  return d;
}
const OpDef& callPacked() {
  static const OpDef& d = required("relax.call_packed");
  return d;
}
const OpDef& callPurePacked() {
  static const OpDef& d = required("relax.call_pure_packed");
  return d;
}
const OpDef& nullValue() {
  static const OpDef& d = required("relax.null_value");
  return d;
}
const OpDef& reshape() {
  static const OpDef& d = required("relax.reshape");
  return d;
}

const OpDef& shapeOf() {
  static const OpDef& d = required("relax.shape_of");
  return d;
}
const OpDef& tensorToShape() {
  static const OpDef& d = required("relax.tensor_to_shape");
  return d;
}
const OpDef& shapeToTensor() {
  static const OpDef& d = required("relax.shape_to_tensor");
  return d;
}
}  // namespace builtin

}  // namespace tvms::op
