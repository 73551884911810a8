#pragma once
// Internal to analysis: the module-level vdevice checks (TVS201, 202, 205, 206, 208-211, 213) and the
// RealizeVDevice conflict check (TVS204).
#include "compiler/analysis/deduce.h"

namespace tvms::analysis {

void checkVDevices(const DeduceContext& ctx, std::vector<diag::Diagnostic>& out);
// `reported`: diagnostics deduction already gave (a meeting already reported as TVS203/214 is not
// reported again).
void checkPlacement(const DeduceContext& ctx, const ir::Function& fn, const std::vector<diag::Diagnostic>& reported,
                    std::vector<diag::Diagnostic>& out);

}  // namespace tvms::analysis
