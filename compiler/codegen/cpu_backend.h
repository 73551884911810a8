#pragma once
// The LLVM code generator's plugin ABI. It lives in libtvms_llvm_backend.so beside the tvms binary
// (compiler/codegen/llvm), loaded on first use: libLLVM is ~40 MiB of resident pages once mapped,
// and the language server, which never compiles a kernel (tvms.run compiles in a child process),
// should not carry it. The rest of the compiler reaches it as the "llvm" entry of the backend
// registry (compiler/codegen/backend.h).
#include <memory>
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "runtime/kernel_library.h"

namespace tvms::codegen {

struct CpuBackend {
  // JIT-compiles the kernels for `target`; throws std::runtime_error with LLVM's message on failure.
  std::unique_ptr<runtime::KernelLibrary> (*jitCompile)(const std::vector<tir::Kernel>& kernels, const tir::Target& target);
  // Writes `soPath`: the kernels compiled for `target`, linked as a shared library with `cc`.
  void (*buildSharedLibrary)(const std::vector<tir::Kernel>& kernels, const tir::Target& target, const std::string& soPath);
  // The optimized LLVM IR and the assembly (tests, `tvms build --emit=llvm|asm`).
  std::string (*optimizedIR)(const std::vector<tir::Kernel>& kernels, const tir::Target& target);
  std::string (*assembly)(const std::vector<tir::Kernel>& kernels, const tir::Target& target);
};

// The plugin's entry point (C linkage, so dlsym finds it by this name).
extern "C" const CpuBackend* tvms_cpu_backend_v2();
using CpuBackendEntry = const CpuBackend* (*)();

// Loads the plugin once ($TVMS_CPU_BACKEND, else libtvms_llvm_backend.so in the executable's
// directory); throws std::runtime_error naming the path and dlopen's reason when it cannot.
const CpuBackend& cpuBackend();
// Where that plugin is looked for (its build identifies the code it generates).
std::string cpuBackendPath();

}  // namespace tvms::codegen
