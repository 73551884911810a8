#include "compiler/codegen/cuda/cuda_backend.h"

#include <stdexcept>

#include "compiler/codegen/cuda/cuda_emit.h"
#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/codegen/kernel_cache.h"
#include "runtime/target_kind.h"

namespace tvms::codegen {

namespace {

// compute_75 is the oldest architecture CUDA 13 compiles for; its PTX runs on every later GPU
// (the driver compiles it for the GPU at load, sm_90 on an H200, and caches that by content).
constexpr const char* kPtxArch = "compute_75";

// The kernels as CUDA C, their launches, and the PTX (from the cache when the source is unchanged).
runtime::CudaModuleImage compile(const std::vector<tir::Kernel>& kernels) {
  cuda::CudaSource src = cuda::emitCuda(kernels);
  runtime::CudaModuleImage image;
  image.source = src.source;
  image.kernels = std::move(src.kernels);
  KernelCache cache = KernelCache::fromEnvironment();
  std::string key = std::string("tvms ptx v2\n") + kPtxArch + "\n" + image.source;
  if (auto hit = cache.read(runtime::codegens::cuda, key, ".ptx")) {
    ++KernelCache::stats().hits;
    image.ptx = std::move(*hit);
    return image;
  }
  ++KernelCache::stats().misses;
  image.ptx = cuda::compileToPtx(image.source, kPtxArch);
  cache.store(runtime::codegens::cuda, key, ".ptx", image.ptx);
  return image;
}

class CudaBackend : public Backend {
 public:
  std::vector<char> build(const std::vector<tir::Kernel>& kernels, const tir::Target&) const override {
    return runtime::serializeCudaModule(compile(kernels));
  }
  std::unique_ptr<runtime::KernelLibrary> load(const std::vector<tir::Kernel>& kernels, const tir::Target&) const override {
    return std::make_unique<runtime::CudaLibrary>(compile(kernels));
  }
  std::string emit(const std::vector<tir::Kernel>& kernels, const tir::Target&, const std::string& what) const override {
    if (what == "cuda") return cuda::emitCuda(kernels).source;  // --emit's format, not a target kind
    if (what == "ptx") return cuda::compileToPtx(cuda::emitCuda(kernels).source, kPtxArch);
    throw std::invalid_argument("the cuda backend prints --emit=cuda or --emit=ptx, not '" + what + "'");
  }
};

}  // namespace

const Backend& cudaBackend() {
  static const CudaBackend backend;
  return backend;
}

}  // namespace tvms::codegen
