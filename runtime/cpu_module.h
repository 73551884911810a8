#pragma once
// The CPU kinds' module blob: a shared library of kernels of the C ABI (kernel_abi.h), written by
// the llvm backend and dlopened here.
#include <memory>
#include <vector>

#include "runtime/kernel_library.h"

namespace tvms::runtime {

std::shared_ptr<KernelLibrary> loadCpuModule(const std::vector<char>& sharedLibrary);

}  // namespace tvms::runtime
