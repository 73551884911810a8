#pragma once
// Internal to analysis: deduction of one Relax function.
#include "compiler/analysis/analysis.h"

namespace tvms::analysis {

using syntax::ByteRange;

struct DeduceContext {
  const ir::IRModule& module;
  const frontend::SourceMap& map;
  std::string_view text;
  // A function of the module has a syntax error and was not lowered: what it uses is unknown, so
  // "declared but unused" (TVS209) cannot be said.
  bool incomplete = false;
};

std::shared_ptr<FunctionAnalysis> deduceFunction(const DeduceContext& ctx, const ir::Function& fn);

}  // namespace tvms::analysis
