#pragma once
// Where a computation runs and what its kernel is built for, shared by LegalizeOps (the kernel's
// target) and LowerToVM (the call's device slot), so the two can never disagree.
#include <map>
#include <string>

#include "compiler/ir/module.h"
#include "compiler/tir/target.h"

namespace tvms::transform {

// `remap`: vdevice spelling ("cuda:0") -> "cpu", to run a module on a machine without that device,
// or -> another device ("cuda:1" -> "cuda:0": both on GPU 0).
using DeviceRemap = std::map<std::string, std::string>;

// The vdevice a value of struct info `s` lives on: its own, else the module's first "global"
// vdevice; null when the module declares none (it then runs on the host, slot 0).
const ir::VDevice* executionVDevice(const ir::IRModule& m, const ir::StructInfo* s);

// The target a kernel on `v` is built for: its target kind, "llvm" when `remap` sends its spelling
// to the CPU or when there is no vdevice.
tir::Target targetOf(const ir::IRModule& m, const ir::VDevice* v, const DeviceRemap& remap);

}  // namespace tvms::transform
