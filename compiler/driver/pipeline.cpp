#include "compiler/driver/pipeline.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "compiler/codegen/cpu_backend.h"
#include "compiler/ir/printer.h"
#include "compiler/transform/lower_to_vm.h"
#include "compiler/transform/passes.h"

namespace tvms::driver {

const std::vector<std::string>& passNames() {
  static const std::vector<std::string> names = {"Normalize", "RealizeVDevice", "LegalizeOps", "LowerToVM"};
  return names;
}

BuildResult build(const ir::IRModule& input, const BuildOptions& options) {
  BuildResult r;
  auto show = [&](const char* pass, const ir::IRModule& m) {
    if (options.afterPass) options.afterPass(pass, ir::printModule(m, {.canonical = true, .importHeader = true}));
  };
  ir::IRModule m = transform::normalize(input);
  show("Normalize", m);
  std::vector<diag::Diagnostic> conflicts;
  m = transform::realizeVDevice(m, &conflicts);
  show("RealizeVDevice", m);
  transform::LegalizedModule legal = transform::legalizeOps(m);
  show("LegalizeOps", legal.module);
  transform::LoweredVM vm = transform::lowerToVM(std::move(legal), options.remap);
  r.storageAllocations = vm.storageAllocations;
  r.storageReuses = vm.storageReuses;
  if (options.afterPass) options.afterPass("LowerToVM", runtime::disassemble(vm.exe));
  r.errors = std::move(vm.errors);
  if (!r.errors.empty()) return r;
  try {
    if (options.emit == "llvm") r.kernelText = codegen::cpuBackend().optimizedIR(vm.kernels);
    if (options.emit == "asm") r.kernelText = codegen::cpuBackend().assembly(vm.kernels);
    if (options.compileKernels && !vm.kernels.empty()) vm.exe.library = codegen::cpuBackend().jitCompile(vm.kernels);
    if (!options.sharedLibrary.empty()) {
      codegen::cpuBackend().buildSharedLibrary(vm.kernels, options.sharedLibrary);
      std::ifstream so(options.sharedLibrary, std::ios::binary);
      vm.exe.sharedLibrary.assign(std::istreambuf_iterator<char>(so), {});
    }
  } catch (const std::exception& e) {
    r.errors.push_back(e.what());
    return r;
  }
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
    *error = "unknown pass '" + pass + "' (passes: Normalize, RealizeVDevice, LegalizeOps, LowerToVM)";
    if (!r.errors.empty()) *error = r.errors.front();
  }
  return found;
}

}  // namespace tvms::driver
