#include "compiler/driver/pipeline.h"

#include <chrono>
#include <map>
#include <stdexcept>

#include "compiler/codegen/backend.h"
#include "compiler/codegen/kernel_cache.h"
#include "compiler/ir/printer.h"
#include "compiler/transform/lower_to_vm.h"
#include "compiler/transform/passes.h"
#include "runtime/target_kind.h"

namespace tvms::driver {

const std::vector<std::string>& passNames() {
  static const std::vector<std::string> names = {"UpdateVDevice", "Normalize", "RealizeVDevice", "OffloadLibraries", "LegalizeOps",
                                                 "FoldVDeviceScopeChange", "LowerToVM"};
  return names;
}

BuildResult build(const ir::IRModule& input, const BuildOptions& options) {
  BuildResult r;
  auto show = [&](const char* pass, const ir::IRModule& m) {
    if (options.afterPass) options.afterPass(pass, ir::printModule(m, {.canonical = true, .importHeader = true}));
  };
  ir::IRModule m = input;
  for (auto& [index, vdevice] : options.updateVDevice) {
    if (index >= m.vdevices.size()) {
      r.errors.push_back("UpdateVDevice: index " + std::to_string(index) + " is past the module's vdevice list (" +
                         std::to_string(m.vdevices.size()) + " entries)");
      return r;
    }
    m = transform::updateVDevice(m, vdevice, index);
  }
  if (!options.updateVDevice.empty()) show("UpdateVDevice", m);
  m = transform::normalize(m);
  show("Normalize", m);
  std::vector<diag::Diagnostic> conflicts;
  m = transform::realizeVDevice(m, &conflicts);
  show("RealizeVDevice", m);
  if (options.offload) m = transform::offloadLibraries(m, options.remap);
  show("OffloadLibraries", m);
  transform::LegalizedModule legal = transform::legalizeOps(m, options.remap);
  show("LegalizeOps", legal.module);
  if (options.foldVDeviceScopeChange) {
    legal.module = transform::foldVDeviceScopeChange(legal.module);
    show("FoldVDeviceScopeChange", legal.module);
  }
  std::vector<std::string> kernelVDevices = legal.kernelVDevices;
  transform::LoweredVM vm = transform::lowerToVM(std::move(legal));
  for (auto& slot : vm.exe.devices)  // the artifact remembers which vdevices were built for another device
    if (auto it = options.remap.find(slot.spelling); it != options.remap.end()) slot.builtFor = it->second;
  r.storageAllocations = vm.storageAllocations;
  r.storageReuses = vm.storageReuses;
  if (options.afterPass) options.afterPass("LowerToVM", runtime::disassemble(vm.exe));
  r.errors = std::move(vm.errors);
  if (!r.errors.empty()) return r;
  // The kernels by target kind, each group to the backend of its kind.
  std::map<std::string, std::vector<tir::Kernel>> byKind;
  std::map<std::string, tir::Target> targets;
  std::map<std::string, std::string> firstVDevice;  // per kind, for messages
  for (size_t i = 0; i < vm.kernels.size(); ++i) {
    const tir::Kernel& k = vm.kernels[i];
    if (!codegen::backendFor(k.target.kind)) {
      const std::string& where = kernelVDevices[i];
      r.errors.push_back("kernel " + k.name + " runs on vdevice \"" + where + "\" (" + k.target.kind + "): tvms has no " + k.target.kind +
                         " code generator yet; `--device " + where + "=cpu` runs it on the CPU");
      continue;
    }
    byKind[k.target.kind].push_back(k);
    targets[k.target.kind] = k.target;
    firstVDevice.emplace(k.target.kind, kernelVDevices[i]);
  }
  if (!r.errors.empty()) return r;
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
      return r;
    }
  } catch (const std::exception& e) {
    // The code generator of a kind failed (LLVM, or NVRTC missing or refusing): say which vdevice's
    // kernels, and how to build them for the CPU instead.
    std::string where = firstVDevice.count(kind) ? firstVDevice[kind] : kind;
    const runtime::TargetKind* k = runtime::findTargetKind(kind);
    std::string hint = k && !k->isCpu() ? "; `--device " + where + "=cpu` builds its kernels for the CPU instead" : "";
    r.errors.push_back(std::string(e.what()) + hint);
    return r;
  }
  r.codegenMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - codegenStart).count();
  r.kernelModulesCached = codegen::KernelCache::stats().hits - before.hits;
  r.kernelModulesCompiled = codegen::KernelCache::stats().misses - before.misses;
  r.exe = std::move(vm.exe);
  return r;
}

std::string printAfter(const ir::IRModule& m, const std::string& pass, std::string* error) {
  std::string found;
  BuildOptions o;
  o.compileKernels = false;
  o.afterPass = [&](const std::string& p, const std::string& text) { if (p == pass) found = text; };
  BuildResult r = build(m, o);
  if (found.empty() && error) {
    *error = "unknown pass '" + pass + "' (passes: Normalize, RealizeVDevice, OffloadLibraries, LegalizeOps, LowerToVM; "
             "UpdateVDevice and FoldVDeviceScopeChange when asked for: `tvms build --update-vdevice`, "
             "`--fold-vdevice-scope-change`)";
    if (!r.errors.empty()) *error = r.errors.front();
  }
  return found;
}

}  // namespace tvms::driver
