#include "compiler/driver/pipeline.h"

#include <chrono>
#include <map>
#include <stdexcept>

#include "compiler/codegen/backend.h"
#include "compiler/codegen/kernel_cache.h"
#include "compiler/driver/pass_list.h"
#include "compiler/ir/printer.h"
#include "compiler/transform/lower_to_vm.h"
#include "compiler/transform/passes.h"
#include "runtime/target_kind.h"

namespace tvms::driver {

namespace {

// What --print-after shows after a pass: the module as TVMScript, or after LowerToVM the bytecode.
std::string printed(const PipelineState& s) {
  if (s.vm) return runtime::disassemble(s.vm->exe);
  return ir::printModule(s.legal.module, {.canonical = true, .importHeader = true});
}

// The kernels by target kind, each group to the code generator of its kind: loaded into this process
// (compileKernels), built into module blobs (buildModules), printed (emit). Errors go to `r.errors`.
void generateCode(transform::LoweredVM& vm, const std::vector<std::string>& kernelVDevices, const BuildOptions& options,
                  BuildResult& r) {
  std::map<std::string, std::vector<tir::Kernel>> byKind;
  std::map<std::string, tir::Target> targets;
  std::map<std::string, std::string> firstVDevice;  // per kind, for messages
  for (size_t i = 0; i < vm.kernels.size(); ++i) {
    const tir::Kernel& k = vm.kernels[i];
    const std::string& where = i < kernelVDevices.size() ? kernelVDevices[i] : k.target.kind;
    if (!codegen::backendFor(k.target.kind)) {
      r.errors.push_back("kernel " + k.name + " runs on vdevice \"" + where + "\" (" + k.target.kind + "): tvms has no " + k.target.kind +
                         " code generator yet; `--device " + where + "=cpu` runs it on the CPU");
      continue;
    }
    byKind[k.target.kind].push_back(k);
    targets[k.target.kind] = k.target;
    firstVDevice.emplace(k.target.kind, where);
  }
  if (!r.errors.empty()) return;
  std::string kind;
  codegen::KernelCacheStats before = codegen::KernelCache::stats();
  auto codegenStart = std::chrono::steady_clock::now();
  try {
    std::string cannotEmit;
    for (auto& [k, kernels] : byKind) {
      kind = k;
      const codegen::Backend& backend = *codegen::backendFor(kind);
      const tir::Target& target = targets[kind];
      // --emit prints the kernels of every kind whose backend prints that text (cuda for --emit=cuda).
      if (!options.emit.empty()) try {
          r.kernelText += backend.emit(kernels, target, options.emit);
        } catch (const std::invalid_argument& e) {
          cannotEmit = e.what();
        }
      if (options.compileKernels) vm.exe.libraries[kind] = backend.load(kernels, target);
      if (options.buildModules) vm.exe.modules.push_back({kind, backend.build(kernels, target)});
    }
    if (!options.emit.empty() && r.kernelText.empty() && !cannotEmit.empty()) {
      r.errors.push_back(cannotEmit);
      return;
    }
  } catch (const std::exception& e) {
    // The code generator of a kind failed (LLVM, or NVRTC missing or refusing): say which vdevice's
    // kernels, and how to build them for the CPU instead.
    std::string where = firstVDevice.count(kind) ? firstVDevice[kind] : kind;
    const runtime::TargetKind* k = runtime::findTargetKind(kind);
    std::string hint = k && !k->isCpu() ? "; `--device " + where + "=cpu` builds its kernels for the CPU instead" : "";
    r.errors.push_back(std::string(e.what()) + hint);
    return;
  }
  r.codegenMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - codegenStart).count();
  r.kernelModulesCached = codegen::KernelCache::stats().hits - before.hits;
  r.kernelModulesCompiled = codegen::KernelCache::stats().misses - before.misses;
}

}  // namespace

const std::vector<std::string>& passNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Pass& p : passList()) out.emplace_back(p.name);
    return out;
  }();
  return names;
}

BuildResult build(const ir::IRModule& input, const BuildOptions& options) { return build(ir::IRModule(input), options); }

BuildResult build(ir::IRModule&& input, const BuildOptions& options) {
  BuildResult r;
  std::string why;
  std::vector<const Pass*> plan = planPasses(options, &why);
  if (!why.empty()) {
    r.errors.push_back(why);
    return r;
  }
  PipelineState s;
  s.legal.module = std::move(input);
  auto printsAfter = [&](const Pass* p) {
    return options.afterPass && (!options.wantsAfterPass || options.wantsAfterPass(std::string(p->name)));
  };
  for (size_t i = 0; i < plan.size(); ++i) {
    const Pass* p = plan[i];
    if (s.ranNext) {  // the pass before did this one's work (PipelineState::ranNext)
      s.ranNext = false;
    } else {
      s.nextPass = i + 1 < plan.size() ? plan[i + 1]->name : std::string_view();
      s.printedAfter = printsAfter(p);
      p->run(s, options);
    }
    if (!s.errors.empty()) {
      r.errors = std::move(s.errors);
      return r;
    }
    if (printsAfter(p)) options.afterPass(std::string(p->name), printed(s));
  }
  if (s.vm) {
    r.storageAllocations = s.vm->storageAllocations;
    r.storageReuses = s.vm->storageReuses;
    r.errors = std::move(s.vm->errors);
  } else {
    r.errors = std::move(s.legal.errors);  // ops LegalizeOps could not lower, when the build stopped after it
  }
  if (!r.errors.empty()) return r;
  if (!s.vm || !options.passes.empty() || !options.stopAfter.empty()) {
    r.stopped = true;
    return r;
  }
  generateCode(*s.vm, s.legal.kernelVDevices, options, r);
  if (r.errors.empty()) {
    r.exe = std::move(s.vm->exe);
    r.exe->graphs = options.graphs;
  }
  return r;
}

std::string printAfter(const ir::IRModule& m, const std::string& pass, std::string* error) {
  std::string found;
  BuildOptions o;
  o.compileKernels = false;
  o.stopAfter = pass;
  o.afterPass = [&](const std::string&, const std::string& text) { found = text; };
  o.wantsAfterPass = [&](const std::string& p) { return p == pass; };
  BuildResult r = build(m, o);
  if (found.empty() && error) *error = r.errors.empty() ? "the build did not reach " + pass : r.errors.front();
  return found;
}

}  // namespace tvms::driver
