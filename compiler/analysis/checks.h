#pragma once
// Internal to analysis: the module-level vdevice checks (TVS201, 202, 205, 206, 208-211, 213) and the
// RealizeVDevice conflict check (TVS204).
#include "compiler/analysis/deduce.h"

namespace tvms::analysis {

// The function's vdevice strings, I.vdevice(...) values and hint_on_device calls, in text order: what
// checkVDevices works from, collected with the function's deduction and reused with it.
void collectVDeviceUses(const ir::Function& fn, std::vector<const ir::VDeviceRef*>& uses, std::vector<const ir::Call*>& hints);
// `functions`: the module's analyses (aligned with its functions); their collected uses are reused.
void checkVDevices(const DeduceContext& ctx, const std::vector<std::shared_ptr<const FunctionAnalysis>>& functions,
                   std::vector<diag::Diagnostic>& out);
// `reported`: diagnostics deduction already gave (a meeting already reported as TVS203/214 is not
// reported again).
void checkPlacement(const DeduceContext& ctx, const ir::Function& fn, const std::vector<diag::Diagnostic>& reported,
                    std::vector<diag::Diagnostic>& out);

}  // namespace tvms::analysis
