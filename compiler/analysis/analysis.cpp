// analyzeModule: per-function deduction (reused when neither the function nor its module context
// changed), then the module's vdevice checks.
#include "compiler/analysis/analysis.h"

#include "compiler/analysis/checks.h"
#include "compiler/ir/printer.h"

namespace tvms::analysis {

std::string spellingOf(const ir::IRModule& m, const ir::VDevice* v) {
  int k = m.kindIndexOf(v);
  if (k < 0) return v ? v->target.kind : "?";
  return v->target.kind + ":" + std::to_string(k);
}

std::vector<diag::Diagnostic> ModuleAnalysis::all() const {
  std::vector<diag::Diagnostic> out = diagnostics;
  for (auto& f : functions)
    if (f) out.insert(out.end(), f->diagnostics.begin(), f->diagnostics.end());
  return out;
}

namespace {
// What a function's deduction depends on beyond its own body: the vdevice list and every signature.
std::string contextKey(const ir::IRModule& m) {
  std::string key;
  for (auto& v : m.vdevices) key += v->target.kind + "/" + std::to_string(v->vdeviceId) + "/" + v->memoryScope + ";";
  for (auto& f : m.functions) {
    key += f.name + "(";
    if (f.relax) {
      for (auto& p : f.relax->params) key += ir::printStructInfo(p->annotation, m) + ",";
      key += ")" + ir::printStructInfo(f.relax->retAnnotation, m);
    } else if (f.tir) {
      for (auto& p : f.tir->params) key += p.annotation + ",";
      for (auto& b : f.tir->matchedBuffers) key += b.name + b.dtype + std::to_string(b.shape.size()) + ",";
      key += ")";
    }
    key += "\n";
  }
  return key;
}
}  // namespace

ModuleAnalysis analyzeModule(const frontend::Region& region, std::string_view text, const ModuleAnalysis* previous) {
  ModuleAnalysis out;
  if (!region.module) return out;
  const ir::IRModule& m = *region.module;
  DeduceContext ctx{m, region.map, text};
  out.contextKey = contextKey(m);
  bool sameContext = previous && previous->contextKey == out.contextKey;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const auto& f = m.functions[i];
    if (!f.relax) { out.functions.push_back(nullptr); continue; }
    if (sameContext && i < previous->functions.size() && previous->functions[i] &&
        previous->functions[i]->function == f.relax.get()) {
      out.functions.push_back(previous->functions[i]);
      continue;
    }
    auto fa = deduceFunction(ctx, *f.relax);
    checkPlacement(ctx, *f.relax, fa->diagnostics, fa->diagnostics);
    out.functions.push_back(fa);
    ++out.deduced;
  }
  checkVDevices(ctx, out.diagnostics);
  return out;
}

}  // namespace tvms::analysis
