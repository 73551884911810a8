#pragma once
// Relations between struct infos (TVM's TypeBaseCheck and TypeLCA, restricted to what tvms can prove).
#include <optional>
#include <string>

#include "compiler/ir/module.h"

namespace tvms::analysis {

// Why `derived` provably cannot be a `base` (TVM's FailL0), or nullopt when it may be.
std::optional<std::string> contradiction(const ir::StructInfo& base, const ir::StructInfo& derived);
// What `ann` states that `value` does not (a vdevice, a shape): TVM drops it when the value is typed.
std::optional<std::string> droppedByAnnotation(const ir::StructInfo& ann, const ir::StructInfo& value);
// The least upper bound of two branches' struct infos.
ir::StructInfoPtr lca(const ir::StructInfoPtr& a, const ir::StructInfoPtr& b);
using ir::placedOn;
using ir::placedOnly;

}  // namespace tvms::analysis
