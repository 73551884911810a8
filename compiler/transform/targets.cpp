#include "compiler/transform/targets.h"

#include "compiler/analysis/analysis.h"
#include "runtime/target_kind.h"

namespace tvms::transform {

const ir::VDevice* executionVDevice(const ir::IRModule& m, const ir::StructInfo* s) {
  if (const ir::VDevice* v = ir::placedOn(s)) return v;
  for (auto& v : m.vdevices)
    if (v->memoryScope == "global") return v.get();
  return m.vdevices.empty() ? nullptr : m.vdevices.front().get();
}

tir::Target targetOf(const ir::IRModule& m, const ir::VDevice* v, const DeviceRemap& remap) {
  if (!v) return tir::Target::forKind(std::string(runtime::kHostKind));
  auto it = remap.find(analysis::spellingOf(m, v));
  if (it == remap.end()) return tir::Target::forKind(v->target.kind);
  // "cpu" (an alias of the host's kind) or "cuda:0": the kind of that device.
  return tir::Target::forKind(it->second.substr(0, it->second.find(':')));
}

}  // namespace tvms::transform
