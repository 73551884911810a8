#pragma once
// The CPU backend: loop IR -> LLVM IR -> O3 (host CPU features, so inner loops vectorize for the
// machine that runs them) -> ORC LLJIT for in-process runs, or an object file linked by the system
// linker into the shared library of a .tvmx artifact. LLVM's headers stay inside this folder.
#include <memory>
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "runtime/kernel_library.h"

namespace tvms::codegen::llvm_backend {

// JIT-compiles the kernels; throws std::runtime_error with LLVM's message on failure.
std::unique_ptr<runtime::KernelLibrary> jitCompile(const std::vector<tir::Kernel>& kernels, const tir::Target& target);

// Writes `soPath`: the kernels compiled for the host CPU, linked as a shared library with `cc`.
void buildSharedLibrary(const std::vector<tir::Kernel>& kernels, const tir::Target& target, const std::string& soPath);

// The optimized LLVM IR (after O3), for tests and `tvms build --emit=llvm`.
std::string optimizedIR(const std::vector<tir::Kernel>& kernels, const tir::Target& target);
// The host assembly of the kernels, for `tvms build --emit=asm`.
std::string assembly(const std::vector<tir::Kernel>& kernels, const tir::Target& target);

}  // namespace tvms::codegen::llvm_backend
