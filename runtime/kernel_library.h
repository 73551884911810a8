#pragma once
// Where the VM finds kernels by name: JIT'd in-process (compiler/codegen/llvm) or a shared library
// loaded from a .tvmx artifact (runtime/executable.cpp).
#include <string>

#include "runtime/kernel_abi.h"

namespace tvms::runtime {

class KernelLibrary {
 public:
  virtual ~KernelLibrary() = default;
  // Null when there is no such kernel.
  virtual TvmsKernelFn find(const std::string& name) const = 0;
};

}  // namespace tvms::runtime
