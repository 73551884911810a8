#pragma once
// Internal to the CUDA backend: loop IR (scheduled for a GPU) -> CUDA C source and the launch table.
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "runtime/cuda_module.h"

namespace tvms::codegen::cuda {

struct CudaSource {
  std::string source;
  std::vector<runtime::CudaKernelInfo> kernels;
};

// Throws std::runtime_error naming the kernel when it is not scheduled for a GPU.
CudaSource emitCuda(const std::vector<tir::Kernel>& kernels);

}  // namespace tvms::codegen::cuda
