#pragma once
// Internal to analysis: deduction of one Relax function.
#include "compiler/analysis/analysis.h"

namespace tvms::analysis {

using syntax::ByteRange;

struct DeduceContext {
  const ir::IRModule& module;
  const frontend::SourceMap& map;
  std::string_view text;
};

std::shared_ptr<FunctionAnalysis> deduceFunction(const DeduceContext& ctx, const ir::Function& fn);

}  // namespace tvms::analysis
