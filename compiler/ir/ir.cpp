// Small helpers of the IR data types.
#include <charconv>

#include "compiler/ir/module.h"
#include "compiler/ir/structural_equal.h"
#include "runtime/target_kind.h"

namespace tvms::ir {

int deviceTypeOfKind(std::string_view kind) {
  const runtime::TargetKind* k = runtime::findTargetKind(kind);
  return k ? k->dlDeviceType : 0;
}
int deviceTypeSpelled(std::string_view spelling) {
  const runtime::TargetKind* k = runtime::targetKindSpelled(spelling);
  return k ? k->dlDeviceType : 0;
}

bool isKnownTargetKind(std::string_view kind) { return deviceTypeOfKind(kind) != 0; }

bool sameValue(const VDevice& a, const VDevice& b) {
  return a.target.kind == b.target.kind && a.target.options == b.target.options &&
         valuesEqual(a.target.config, b.target.config) &&
         a.vdeviceId == b.vdeviceId && a.memoryScope == b.memoryScope;
}

bool sameValue(const VDeviceRef& a, const VDeviceRef& b) {
  if (a.device && b.device) return sameValue(*a.device, *b.device);
  if (!a.device && !b.device) return a.spelling == b.spelling;
  return false;
}

PrimExprPtr primInt(int64_t v) {
  auto p = std::make_shared<PrimExpr>();
  p->kind = PrimExpr::Kind::Int;
  p->value = v;
  return p;
}
PrimExprPtr primVar(std::string name) {
  auto p = std::make_shared<PrimExpr>();
  p->kind = PrimExpr::Kind::Var;
  p->name = std::move(name);
  return p;
}
PrimExprPtr primOpaque(std::string source) {
  auto p = std::make_shared<PrimExpr>();
  p->kind = PrimExpr::Kind::Opaque;
  p->name = std::move(source);
  return p;
}
std::optional<PrimNumber> primNumber(const PrimExpr& e) {
  if (e.kind == PrimExpr::Kind::Int) return PrimNumber{static_cast<double>(e.value), "int64"};
  if (e.kind == PrimExpr::Kind::Neg && e.lhs) {
    auto v = primNumber(*e.lhs);
    if (v) v->value = -v->value;
    return v;
  }
  if (e.kind != PrimExpr::Kind::Opaque) return std::nullopt;
  std::string text = e.name, dtype = "float32";
  // T.float32(0.5) / T.int32(3): the dtype is the constructor's name
  if (text.rfind("T.", 0) == 0 && text.size() > 3 && text.back() == ')') {
    size_t open = text.find('(');
    if (open == std::string::npos) return std::nullopt;
    dtype = text.substr(2, open - 2);
    text = text.substr(open + 1, text.size() - open - 2);
    if (dtype.rfind("float", 0) != 0 && dtype.rfind("int", 0) != 0 && dtype.rfind("uint", 0) != 0 && dtype != "bfloat16") return std::nullopt;
  }
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    while (used < text.size() && text[used] == ' ') ++used;
    if (used != text.size()) return std::nullopt;
    return PrimNumber{v, dtype};
  } catch (...) {
    return std::nullopt;
  }
}

PrimExprPtr primBinary(std::string op, PrimExprPtr a, PrimExprPtr b) {
  auto p = std::make_shared<PrimExpr>();
  p->kind = PrimExpr::Kind::Binary;
  p->name = std::move(op);
  p->lhs = std::move(a);
  p->rhs = std::move(b);
  return p;
}

StructInfoPtr objectSInfo() { return std::make_shared<StructInfo>(); }

const VDevice* placedOn(const StructInfo* s) {
  if (!s || s->kind != StructInfo::Kind::Tensor || !s->vdevice || s->vdevice->isInline) return nullptr;
  return s->vdevice->device.get();
}

StructInfoPtr withVDevice(const StructInfoPtr& s, std::shared_ptr<const VDeviceRef> v) {
  if (!s || (s->kind != StructInfo::Kind::Tensor && s->kind != StructInfo::Kind::Tuple)) return s;
  auto out = std::make_shared<StructInfo>(*s);
  if (s->kind == StructInfo::Kind::Tensor) out->vdevice = std::move(v);
  else for (auto& f : out->fields) f = withVDevice(f, v);
  return out;
}

StructInfoPtr placedOnly(const StructInfoPtr& s) {
  if (!s) return s;
  if (s->kind == StructInfo::Kind::Tensor && s->vdevice && !placedOn(s.get())) return withVDevice(s, nullptr);
  if (s->kind == StructInfo::Kind::Tuple) {
    auto out = std::make_shared<StructInfo>(*s);
    for (auto& f : out->fields) f = placedOnly(f);
    return out;
  }
  return s;
}
StructInfoPtr primSInfo(PrimExprPtr value) {
  auto s = std::make_shared<StructInfo>();
  s->kind = StructInfo::Kind::Prim;
  auto number = value ? primNumber(*value) : std::nullopt;
  s->dtype = number ? number->dtype : "int64";
  s->primValue = std::move(value);
  return s;
}

StructInfoPtr tensorSInfo(std::optional<std::vector<PrimExprPtr>> shape, std::string dtype,
                          std::shared_ptr<const VDeviceRef> vdevice, int ndim) {
  auto s = std::make_shared<StructInfo>();
  s->kind = StructInfo::Kind::Tensor;
  s->ndim = shape ? static_cast<int>(shape->size()) : ndim;
  s->shape = std::move(shape);
  s->dtype = std::move(dtype);
  s->vdevice = std::move(vdevice);
  return s;
}

namespace {
bool boolArg(const AttrList& args, std::string_view key, bool fallback) {
  for (auto& [k, v] : args)
    if (k == key && v.kind == Value::Kind::Bool) return v.boolean;
  return fallback;
}
}  // namespace
bool Function::isPure() const { return boolArg(decoratorArgs, "pure", true); }
bool Function::isPrivate() const { return boolArg(decoratorArgs, "private", false); }

const ModuleFunction* IRModule::function(std::string_view n) const { return functionIndex.find(functions, n); }

const ModuleFunction* FunctionIndex::find(const std::vector<ModuleFunction>& functions, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto hit = [&]() -> const ModuleFunction* {
    auto it = byName_.find(name);
    if (it == byName_.end() || it->second >= functions.size() || functions[it->second].name != name) return nullptr;
    return &functions[it->second];
  };
  if (const ModuleFunction* f = hit()) return f;
  // Absent or stale: index the functions as they are now (the first of a name, as a scan from the
  // start finds it), then look again.
  byName_.clear();
  for (size_t i = 0; i < functions.size(); ++i) byName_.emplace(functions[i].name, i);
  return hit();
}

int IRModule::indexOf(const VDevice* v) const {
  for (size_t i = 0; i < vdevices.size(); ++i) if (vdevices[i].get() == v) return static_cast<int>(i);
  return -1;
}

int IRModule::kindIndexOf(const VDevice* v) const {
  int k = 0;
  for (auto& d : vdevices) {
    if (d.get() == v) return k;
    if (d->target.kind == v->target.kind) ++k;
  }
  return -1;
}

std::shared_ptr<const VDevice> IRModule::lookup(std::string_view spelling) const {
  std::string_view kind = spelling, rest;
  if (auto colon = spelling.find(':'); colon != std::string_view::npos) {
    kind = spelling.substr(0, colon);
    rest = spelling.substr(colon + 1);
    if (auto c2 = rest.find(':'); c2 != std::string_view::npos) rest = rest.substr(0, c2);  // scope ignored
  }
  int index = 0;
  if (!rest.empty()) {
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
    if (ec != std::errc() || ptr != rest.data() + rest.size()) return nullptr;
  } else if (spelling.find(':') != std::string_view::npos) {
    return nullptr;
  }
  if (index < 0 || index >= static_cast<int>(vdevices.size())) return nullptr;  // TVM bounds by list length
  if (kind == "vdevice") return vdevices[index];
  int seen = 0;
  for (auto& d : vdevices)
    if (d->target.kind == kind && seen++ == index) return d;
  return nullptr;
}

const VDevice* IRModule::hintedEntry(const Call& c) const {
  const CallAttr* dev = c.attr("device");
  if (!dev || dev->value.kind != Value::Kind::Device) return nullptr;
  const CallAttr* s = c.attr("memory_scope");
  return hintedEntry(dev->value.device, s && s->value.kind == Value::Kind::String ? s->value.text : "global");
}

const VDevice* IRModule::hintedEntry(const DeviceHint& device, std::string_view scope) const {
  for (auto& v : vdevices)
    if (deviceTypeOfKind(v->target.kind) == device.deviceType && v->vdeviceId == device.index && v->memoryScope == scope)
      return v.get();
  return nullptr;
}

bool sameDeclaredEntry(const IRModule& m, const VDeviceRef& a, const VDeviceRef& b) {
  return a.device && a.device == b.device && !a.isInline && m.indexOf(a.device.get()) >= 0;
}

std::string constantDType(const Constant& c) {
  const Value* v = &c.value;
  while (v->kind == Value::Kind::List && !v->items.empty()) v = &v->items[0];
  if (c.pythonLiteral && v->kind == Value::Kind::Bool) return "bool";  // `x + True`
  if (!c.dtype.empty()) return c.dtype;
  if (c.pythonLiteral) return "";
  if (v->kind == Value::Kind::Bool) return "bool";
  if (v->kind == Value::Kind::Int) return "int32";
  if (v->kind == Value::Kind::Float) return "float32";
  return "";
}

namespace {
// Appends the elements of `v` at nesting depth `depth`, checking each level against `shape`.
bool flattenRows(const Value& v, size_t depth, ListConstant& out) {
  if (depth == out.shape.size()) {
    if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Float && v.kind != Value::Kind::Bool) return false;
    out.elements.push_back(&v);
    return true;
  }
  if (v.kind != Value::Kind::List || static_cast<int64_t>(v.items.size()) != out.shape[depth]) return false;
  for (auto& item : v.items)
    if (!flattenRows(item, depth + 1, out)) return false;
  return true;
}
}  // namespace

std::optional<ListConstant> listConstant(const Constant& c) {
  if (c.value.kind != Value::Kind::List || c.metadataIndex >= 0 || c.arrayShape) return std::nullopt;
  ListConstant out;
  for (const Value* v = &c.value; v->kind == Value::Kind::List; v = &v->items[0]) {
    out.shape.push_back(static_cast<int64_t>(v->items.size()));
    if (v->items.empty()) break;
  }
  out.dtype = constantDType(c);
  if (out.dtype.empty() || !flattenRows(c.value, 0, out)) return std::nullopt;
  return out;
}

}  // namespace tvms::ir
