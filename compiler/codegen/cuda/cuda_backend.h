#pragma once
// The "cuda" entry of the backend registry: loop IR scheduled for a GPU -> CUDA C -> PTX through
// NVRTC, in a module blob with each kernel's launches (runtime/cuda_module.h). Building needs the
// CUDA Toolkit's NVRTC but no GPU: an artifact built here runs on any GPU the driver supports.
#include "compiler/codegen/backend.h"

namespace tvms::codegen {

const Backend& cudaBackend();

}  // namespace tvms::codegen
