// The plugin's entry point: the LLVM backend's functions as a CpuBackend (compiler/codegen/cpu_backend.h).
#include "compiler/codegen/cpu_backend.h"
#include "compiler/codegen/llvm/llvm_backend.h"

extern "C" __attribute__((visibility("default"))) const tvms::codegen::CpuBackend* tvms_cpu_backend_v2() {
  namespace lb = tvms::codegen::llvm_backend;
  static const tvms::codegen::CpuBackend backend{lb::jitCompile, lb::buildSharedLibrary, lb::optimizedIR, lb::assembly};
  return &backend;
}
