#pragma once
// An IRModule: its global_infos (the vdevice list first), attrs and functions. A standalone
// @R.function / @T.prim_func outside any module is an IRModule marked standalone with one function.
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ir/vdevice.h"

namespace tvms::ir {

struct ModuleFunction {
  std::string name;
  FunctionPtr relax;  // exactly one of relax / tir is set
  PrimFuncPtr tir;
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
