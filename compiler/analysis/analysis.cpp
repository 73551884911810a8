// analyzeModule: per-function deduction (reused when neither the function nor its module context
// changed), then the module's vdevice checks.
#include "compiler/analysis/analysis.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "compiler/analysis/checks.h"
#include "compiler/ir/structural_equal.h"
#include "runtime/for_each_in_parallel.h"

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
  return key;
}

Signature signatureOf(const ir::ModuleFunction& f) {
  Signature sig;
  sig.defined = true;
  if (f.relax) {
    for (auto& p : f.relax->params) sig.params.push_back(p->annotation);
    sig.ret = f.relax->retAnnotation;
  } else if (f.tir) {
    for (auto& p : f.tir->params) sig.primParams.push_back(p.name + ":" + p.annotation);  // names appear in TVS107
    for (auto& b : f.tir->matchedBuffers) sig.primParams.push_back(b.name + " " + b.dtype + " " + std::to_string(b.shape.size()));
  }
  return sig;
}

}  // namespace

bool Signature::operator==(const Signature& other) const {
  if (defined != other.defined || primParams != other.primParams || params.size() != other.params.size()) return false;
  for (size_t i = 0; i < params.size(); ++i)
    if (!ir::structInfoEqual(params[i], other.params[i])) return false;
  return ir::structInfoEqual(ret, other.ret);
}

ModuleAnalysis analyzeModule(const frontend::Region& region, std::string_view text, const ModuleAnalysis* previous,
                             bool keepFacts, unsigned helpers) {
  ModuleAnalysis out;
  if (!region.module) return out;
  const ir::IRModule& m = *region.module;
  DeduceContext ctx{m, region.map, text};
  ctx.incomplete = region.partial ||
                   std::any_of(region.functions.begin(), region.functions.end(), [](auto& f) { return f.broken; });
  // A function's deduction depends on its own body, the vdevice list and the signatures of the module
  // functions it calls: an analysis is reused for the very function object it analysed while those
  // hold (so typing in one function, or adding or deleting another, re-deduces only what changed).
  const std::string devices = vdeviceKey(m);
  // The earlier analysis of a function object: looked for just after the last one found (an edit
  // keeps the functions' order, adding or dropping a few), and only when that fails in a map of all
  // of them (built once; building it on every keystroke cost ~0.2 ms at 500 functions).
  size_t cursor = 0;
  std::optional<std::unordered_map<const ir::Function*, const std::shared_ptr<const FunctionAnalysis>*>> earlier;
  auto reusable = [&](const ir::ModuleFunction& f) -> const std::shared_ptr<const FunctionAnalysis>* {
    if (!previous || !f.relax) return nullptr;
    auto fits = [&](const std::shared_ptr<const FunctionAnalysis>& fa) {
      return fa && fa->function == f.relax.get() && fa->deviceKey == devices && fa->analyzes(f.relax);
    };
    constexpr size_t kNear = 16;
    const auto& before = previous->functions;
    for (size_t k = cursor; k < before.size() && k < cursor + kNear; ++k)
      if (fits(before[k])) {
        cursor = k + 1;
        return &before[k];
      }
    if (!earlier) {
      earlier.emplace();
      earlier->reserve(before.size());
      for (auto& fa : before)
        if (fa) earlier->emplace(fa->function, &fa);
    }
    auto it = earlier->find(f.relax.get());
    if (it == earlier->end() || !fits(*it->second)) return nullptr;
    cursor = static_cast<size_t>(it->second - before.data()) + 1;
    return it->second;
  };
  // Signatures: a reused function keeps its own, and the map points at them.
  std::vector<Signature> made;  // signatures made now, for functions not reused
  made.reserve(m.functions.size());
  std::vector<const std::shared_ptr<const FunctionAnalysis>*> candidates;
  std::vector<const Signature*> signatureFor;
  for (const auto& f : m.functions) {
    candidates.push_back(reusable(f));
    if (candidates.back()) {
      signatureFor.push_back(&(*candidates.back())->signature);
    } else {
      made.push_back(signatureOf(f));
      signatureFor.push_back(&made.back());
    }
  }
  // Looked up only for functions that call others (`cls.f`): made at the first lookup, before any
  // deduction runs on another thread.
  std::optional<std::unordered_map<std::string_view, const Signature*>> signatures;
  auto makeSignatures = [&] {
    if (signatures) return;
    signatures.emplace();
    signatures->reserve(m.functions.size());
    for (size_t i = 0; i < m.functions.size(); ++i) (*signatures)[m.functions[i].name] = signatureFor[i];
  };
  static const Signature kUndefined;
  auto signatureNamed = [&](const std::string& name) -> const Signature& {
    makeSignatures();
    auto it = signatures->find(name);
    return it == signatures->end() ? kUndefined : *it->second;
  };
  out.functions.resize(m.functions.size());
  std::vector<size_t> toDeduce;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (!m.functions[i].relax) continue;  // null: a prim_func
    if (auto* prev = candidates[i];
        prev && std::all_of((*prev)->signaturesUsed.begin(), (*prev)->signaturesUsed.end(),
                            [&](auto& used) { return signatureNamed(used.first) == used.second; })) {
      out.functions[i] = *prev;
      continue;
    }
    toDeduce.push_back(i);
  }
  // Each function's deduction reads only the module, the source map and the signatures: the
  // functions of a large module are deduced on several threads, each result in its function's place.
  // A few functions are not worth a thread's start (~50 us): a helper for every 32.
  constexpr size_t kPerThread = 32;
  const unsigned threads = 1 + static_cast<unsigned>(std::min<size_t>(helpers, toDeduce.size() / kPerThread));
  if (threads > 1) makeSignatures();
  runtime::forEachInParallel(toDeduce.size(), threads, [&](size_t k) {
    const size_t i = toDeduce[k];
    const auto& f = m.functions[i];
    auto fa = deduceFunction(ctx, *f.relax);
    fa->owner = f.relax;
    fa->signature = *signatureFor[i];
    fa->deviceKey = devices;
    for (auto& name : fa->globalsUsed) fa->signaturesUsed.emplace_back(name, signatureNamed(name));
    // The chains served the function's own diagnostics (already made); kept, their ranges would have to
    // follow every edit.
    for (auto& [var, fact] : fa->vars) std::vector<diag::Related>().swap(fact.placement);
    checkPlacement(ctx, *f.relax, fa->diagnostics, fa->diagnostics);
    collectVDeviceUses(*f.relax, fa->vdeviceUses, fa->hints);
    if (!keepFacts) decltype(fa->vars)().swap(fa->vars);
    out.functions[i] = fa;
  });
  out.deduced = toDeduce.size();
  checkVDevices(ctx, out.functions, out.diagnostics);
  return out;
}

std::shared_ptr<const FunctionAnalysis> deduceWithoutSource(const ir::IRModule& m, const ir::Function& fn) {
  static const frontend::SourceMap kNoSource;
  DeduceContext ctx{m, kNoSource, ""};
  return deduceFunction(ctx, fn);
}

}  // namespace tvms::analysis
