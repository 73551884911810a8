#pragma once
// The CPU kinds' module blob: a shared library of kernels of the C ABI (kernel_abi.h), written by
// the llvm backend and dlopened here.
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_library.h"

namespace tvms::runtime {

std::shared_ptr<KernelLibrary> loadCpuModule(const std::vector<char>& sharedLibrary);
// The same as one object (the compiler's backend); from a shared library on disk (the kernel cache's entries), dlopened where it lies.
std::unique_ptr<KernelLibrary> loadCpuLibrary(const std::vector<char>& sharedLibrary);
std::unique_ptr<KernelLibrary> openCpuLibrary(const std::string& path);

}  // namespace tvms::runtime
