#pragma once
// The CPU code generator as the rest of the compiler sees it. It lives in a plugin,
// libtvms_llvm_backend.so beside the tvms binary (compiler/codegen/llvm), loaded on first use:
// libLLVM is ~40 MiB of resident pages once mapped, and the language server, which never compiles a
// kernel (tvms.run compiles in a child process), should not carry it.
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/loop_ir.h"
#include "runtime/kernel_library.h"

namespace tvms::codegen {

struct CpuBackend {
  // JIT-compiles the kernels; throws std::runtime_error with LLVM's message on failure.
  std::unique_ptr<runtime::KernelLibrary> (*jitCompile)(const std::vector<Kernel>& kernels);
  // Writes `soPath`: the kernels compiled for the host CPU, linked as a shared library with `cc`.
  void (*buildSharedLibrary)(const std::vector<Kernel>& kernels, const std::string& soPath);
  // The optimized LLVM IR and the host assembly (tests, `tvms build --emit=llvm|asm`).
  std::string (*optimizedIR)(const std::vector<Kernel>& kernels);
  std::string (*assembly)(const std::vector<Kernel>& kernels);
};

// The plugin's entry point (C linkage, so dlsym finds it by this name).
extern "C" const CpuBackend* tvms_cpu_backend_v1();
using CpuBackendEntry = const CpuBackend* (*)();

// Loads the plugin once ($TVMS_CPU_BACKEND, else libtvms_llvm_backend.so in the executable's
// directory); throws std::runtime_error naming the path and dlopen's reason when it cannot.
const CpuBackend& cpuBackend();

}  // namespace tvms::codegen
