// analyzeModule: per-function deduction (reused when neither the function nor its module context
// changed), then the module's vdevice checks.
#include "compiler/analysis/analysis.h"

#include <algorithm>

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
std::string vdeviceKey(const ir::IRModule& m) {
  std::string key;
  for (auto& v : m.vdevices) key += v->target.kind + "/" + std::to_string(v->vdeviceId) + "/" + v->memoryScope + ";";
  return key + "\n";
}

std::string signatureKey(const ir::IRModule& m, const ir::ModuleFunction& f) {
  std::string key = f.name + "(";
  if (f.relax) {
    for (auto& p : f.relax->params) key += ir::printStructInfo(p->annotation, m) + ",";
    key += ")" + ir::printStructInfo(f.relax->retAnnotation, m);
  } else if (f.tir) {
    for (auto& p : f.tir->params) key += p.name + ":" + p.annotation + ",";  // names appear in TVS107
    for (auto& b : f.tir->matchedBuffers) key += b.name + b.dtype + std::to_string(b.shape.size()) + ",";
    key += ")";
  }
  return key + "\n";
}

// What a function's deduction depends on beyond its own body: the vdevice list and every signature.
// A function whose analysis is reused (same object, same vdevice list) keeps its printed signature:
// printing 500 signatures per keystroke was a tenth of the language server's time.
std::string contextKey(const ir::IRModule& m, const ModuleAnalysis* previous, std::vector<std::string>& signatures) {
  std::string key = vdeviceKey(m);
  bool sameDevices = previous && previous->contextKey.compare(0, key.size(), key) == 0;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const auto& f = m.functions[i];
    const FunctionAnalysis* prev = sameDevices && i < previous->functions.size() ? previous->functions[i].get() : nullptr;
    signatures.push_back(prev && prev->analyzes(f.relax) ? prev->signatureKey : signatureKey(m, f));
    key += signatures.back();
  }
  return key;
}
}  // namespace

ModuleAnalysis analyzeModule(const frontend::Region& region, std::string_view text, const ModuleAnalysis* previous) {
  ModuleAnalysis out;
  if (!region.module) return out;
  const ir::IRModule& m = *region.module;
  DeduceContext ctx{m, region.map, text};
  ctx.incomplete = region.partial ||
                   std::any_of(region.functions.begin(), region.functions.end(), [](auto& f) { return f.broken; });
  std::vector<std::string> signatures;
  out.contextKey = contextKey(m, previous, signatures);
  bool sameContext = previous && previous->contextKey == out.contextKey;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const auto& f = m.functions[i];
    if (!f.relax) { out.functions.push_back(nullptr); continue; }
    if (sameContext && i < previous->functions.size() && previous->functions[i] &&
        previous->functions[i]->analyzes(f.relax)) {
      out.functions.push_back(previous->functions[i]);
      continue;
    }
    auto fa = deduceFunction(ctx, *f.relax);
    fa->owner = f.relax;
    fa->signatureKey = signatures[i];
    // The chains served the function's own diagnostics (already made); kept, their ranges would have to
    // follow every edit.
    for (auto& [var, fact] : fa->vars) std::vector<diag::Related>().swap(fact.placement);
    checkPlacement(ctx, *f.relax, fa->diagnostics, fa->diagnostics);
    collectVDeviceUses(*f.relax, fa->vdeviceUses, fa->hints);
    out.functions.push_back(fa);
    ++out.deduced;
  }
  checkVDevices(ctx, out.functions, out.diagnostics);
  return out;
}

std::shared_ptr<const FunctionAnalysis> deduceWithoutSource(const ir::IRModule& m, const ir::Function& fn) {
  static const frontend::SourceMap kNoSource;
  DeduceContext ctx{m, kNoSource, ""};
  return deduceFunction(ctx, fn);
}

}  // namespace tvms::analysis
