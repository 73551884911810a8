#pragma once
// Targets and virtual devices, as declared in I.module_global_infos({"vdevice": [...]}).
#include <memory>
#include <string>

#include "compiler/ir/value.h"

namespace tvms::ir {

struct Target {
  std::string kind;      // "llvm", "cuda", ...
  std::string options;   // what a target string has after its kind, as written: " -arch=sm_80"
  Value config;          // Dict when written as a config dict ({"kind": "cuda", "arch": "sm_90"}), else None
  bool writtenAsDict() const { return config.kind == Value::Kind::Dict; }
};

struct VDevice {
  Target target;
  int64_t vdeviceId = 0;          // the physical device ordinal on the target's device type
  std::string memoryScope = "global";
};

// DLPack device type code of a target kind (llvm/c = 1, cuda = 2, ...: runtime/target_kind.h); 0
// when the table has no kind of that name.
int deviceTypeOfKind(std::string_view kind);
// The same for a kind's name or alias (R.device("cpu", 0), tvm.device("gpu")).
int deviceTypeSpelled(std::string_view spelling);
bool isKnownTargetKind(std::string_view kind);

// A use of a vdevice from a tensor annotation, R.to_vdevice or similar.
// `device` points at the declared list entry the spelling resolved to (TVM's identity), or at a fresh
// object for an inline I.vdevice(...) written in a body (isInline), or is null when the spelling names
// no declared entry.
struct VDeviceRef {
  std::shared_ptr<const VDevice> device;
  std::string spelling;   // as written ("cuda", "cuda:0", "vdevice:1", "cuda:0:global"); empty for inline
  bool isInline = false;
};

// Value equality of two vdevices: kind, config, vdevice_id and memory scope.
bool sameValue(const VDevice& a, const VDevice& b);
// Value equality of two references (unresolved spellings compare by their text).
bool sameValue(const VDeviceRef& a, const VDeviceRef& b);

}  // namespace tvms::ir
