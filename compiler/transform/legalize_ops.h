#pragma once
// LegalizeOps: every op call becomes R.call_tir of a kernel built by the op's registry entry for the
// target of the vdevice its output lives on, then scheduled for that target (compiler/schedule); the
// kernels are returned beside the module (as loop IR) and added to it as T.prim_funcs whose bodies
// print the loop IR, so the module prints and reads back.
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "compiler/ir/module.h"
#include "compiler/transform/runtime_shapes.h"
#include "compiler/transform/targets.h"

namespace tvms::transform {

struct LegalizedModule {
  ir::IRModule module;
  std::vector<tir::Kernel> kernels;  // symbol = "tvmsk_" + the prim func's name; each knows its target
  std::vector<tir::Kernel> computes;  // per kernel: as its builder made it, before the schedule (what fusion reads)
  std::vector<std::string> kernelVDevices;  // per kernel: the spelling of the first vdevice it runs on (messages)
  std::vector<std::string> errors;   // ops that could not be lowered, with why
  // Facts about symbolic dims to check at run time before a binding (by its variable), runtime_shapes.h.
  std::unordered_map<const ir::Var*, std::vector<DimCheck>> dimChecks;
};

// Input: a normalized, realized module. `remap` sends vdevices to the CPU (their kernels are built for llvm).
LegalizedModule legalizeOps(const ir::IRModule& m, const DeviceRemap& remap = {});
// The same on a module it takes over, each function's old form freed as its legalized one comes.
LegalizedModule legalizeOps(ir::IRModule&& m, const DeviceRemap& remap = {});

constexpr const char* kKernelSymbolPrefix = "tvmsk_";

}  // namespace tvms::transform
