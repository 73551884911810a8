#pragma once
// NVRTC, the CUDA Toolkit's runtime compiler, loaded with dlopen on first use (libnvrtc.so.13):
// tvms builds without the toolkit and only a build of cuda kernels needs it. No GPU is needed.
#include <string>

namespace tvms::codegen::cuda {

// CUDA C -> PTX for the virtual architecture `arch` ("compute_75": every GPU CUDA 13 supports;
// the driver compiles it for the GPU it finds and caches the result). Throws std::runtime_error
// with NVRTC's log on a compile error, or naming the library when NVRTC cannot be loaded.
std::string compileToPtx(const std::string& source, const std::string& arch);

}  // namespace tvms::codegen::cuda
