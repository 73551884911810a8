#pragma once
// LegalizeOps: every op call becomes R.call_tir of a kernel built by the op's registry entry; the
// kernels are returned beside the module (as loop IR) and added to it as T.prim_funcs whose bodies
// print the loop IR, so the module prints and reads back.
#include <string>
#include <vector>

#include "compiler/codegen/loop_ir.h"
#include "compiler/ir/module.h"

namespace tvms::transform {

struct LegalizedModule {
  ir::IRModule module;
  std::vector<codegen::Kernel> kernels;  // symbol = "tvmsk_" + the prim func's name
  std::vector<std::string> errors;       // ops that could not be lowered, with why
};

// Input: a normalized, realized module.
LegalizedModule legalizeOps(const ir::IRModule& m);

constexpr const char* kKernelSymbolPrefix = "tvmsk_";

}  // namespace tvms::transform
