#pragma once
// An IRModule: its global_infos (the vdevice list first), attrs and functions. A standalone
// @R.function / @T.prim_func outside any module is an IRModule marked standalone with one function.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ir/vdevice.h"

namespace tvms::ir {

struct ModuleFunction {
  std::string name;
  FunctionPtr relax;  // exactly one of relax / tir is set
  PrimFuncPtr tir;
};

// Where each function of a module stands, by name, for IRModule::function: a module of tens of
// thousands of functions was searched from the start for every call between them (quadratic in a
// printed model's size). A cache, checked on every hit and rebuilt when stale (the functions are a
// plain vector anyone may change); a copy of a module starts with an empty one. Lookups may come
// from several threads.
class FunctionIndex {
 public:
  FunctionIndex() = default;
  FunctionIndex(const FunctionIndex&) {}
  FunctionIndex& operator=(const FunctionIndex&) {
    std::lock_guard<std::mutex> lock(mu_);
    byName_.clear();
    return *this;
  }
  const ModuleFunction* find(const std::vector<ModuleFunction>& functions, std::string_view name) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, size_t, Hash, std::equal_to<>> byName_;
};

// Which TVM era's spelling the module uses: v0.25 (StructInfo: R.Object, out_sinfo, "cuda:0") or
// v0.26 (Type: R.Any, out_ty, "cuda:0:global").
enum class Era { V025, V026 };

struct IRModule {
  std::string name = "Module";
  bool standalone = false;
  AttrList decoratorArgs;  // @I.ir_module(s_tir=True)
  bool hasAttrs = false;
  AttrList attrs;          // I.module_attrs({...})
  bool hasGlobalInfos = false;
  bool hasVDeviceKey = false;
  std::vector<std::shared_ptr<const VDevice>> vdevices;  // global_infos["vdevice"]; position = device index
  AttrList otherGlobalInfos;                             // keys other than "vdevice", kept
  std::vector<std::string> moduleBindings;  // names bound in the class body (my_ext = R.ExternFunc(...)): `cls.my_ext`
  std::vector<ModuleFunction> functions;                 // in source order
  Era era = Era::V025;
  FunctionIndex functionIndex;  // function(name)'s cache

  const ModuleFunction* function(std::string_view name) const;
  // Position of a declared entry in the vdevice list (by identity), or -1.
  int indexOf(const VDevice* v) const;
  // i such that the entry is the i-th of its kind in list order (TVM's FindVDeviceIndexByTargetKind), or -1.
  int kindIndexOf(const VDevice* v) const;
  // Resolves "kind", "kind:i", "kind:i:scope", "vdevice:i" to the declared entry; null when none.
  std::shared_ptr<const VDevice> lookup(std::string_view spelling) const;
  // The entry R.hint_on_device(x, device, scope) resolves to: the first with that device type,
  // vdevice_id and memory scope (TVM's RealizeVDevice lookup); null when none matches.
  const VDevice* hintedEntry(const DeviceHint& device, std::string_view scope) const;
  // The same for a call R.hint_on_device(x, device, memory_scope); null when it names none.
  const VDevice* hintedEntry(const Call& hint) const;
};

// True when both references are the very same declared entry of `m` (TVM's identity), which an inline
// I.vdevice(...) never is, even when equal in value.
bool sameDeclaredEntry(const IRModule& m, const VDeviceRef& a, const VDeviceRef& b);

}  // namespace tvms::ir
