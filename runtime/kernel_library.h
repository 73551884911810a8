#pragma once
// The compiled kernels of one target kind, found by name: JIT'd in-process by a code generator
// (compiler/codegen) or loaded from the module blob of a .tvmx artifact (runtime/module_loader.h).
// What a kernel handle is belongs to the kind: a host function of the C ABI (kernel_abi.h) for
// CPU kinds; the device's launcher (device_api.h) knows how to run it.
#include <string>

#include "runtime/kernel_abi.h"

namespace tvms::runtime {

class KernelLibrary {
 public:
  virtual ~KernelLibrary() = default;
  // Null when there is no such kernel.
  virtual const void* find(const std::string& name) const = 0;
};

}  // namespace tvms::runtime
