#pragma once
// The cuda kind's module blob, written by the CUDA code generator (compiler/codegen/cuda) and read by
// the CUDA device (runtime/cuda_device.cpp): PTX for all kernels, their CUDA C source (for
// `--emit=cuda` and bug reports), and per kernel its launches: one __global__ function each, run in
// order on the device's stream, with the grid's block count as a small program over the kernel's
// symbolic dims (so one build serves every shape its dims allow).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_library.h"

namespace tvms::runtime {

// A stack program over int64: the grid size of a launch from the dims the kernel receives.
enum class DimOp : int64_t { Const, Dim, Add, Sub, Mul, FloorDiv, FloorMod, Min, Max };
int64_t evalDimProgram(const std::vector<int64_t>& program, const int64_t* dims, size_t dimCount);

struct CudaLaunch {
  std::string function;              // the __global__ function's name in the PTX
  std::vector<int64_t> gridProgram;  // blocks (blockIdx.x extent)
  int64_t blockThreads = 1;          // threads per block (threadIdx.x extent)
};

struct CudaKernelInfo {
  std::string name;     // tvmsk_<op>, as the VM names it
  int buffers = 0;      // parameters: the buffers (inputs then outputs), then each dim as an int64
  int dims = 0;
  std::vector<CudaLaunch> launches;
};

struct CudaModuleImage {
  std::string ptx;
  std::string source;
  std::vector<CudaKernelInfo> kernels;
};

std::vector<char> serializeCudaModule(const CudaModuleImage& image);
// Throws std::runtime_error when the blob is not a cuda module of this version.
CudaModuleImage parseCudaModule(const std::vector<char>& blob);

// The KernelLibrary of the cuda kind: the image; find() gives a CudaKernelInfo*. A CUDA device's
// launcher loads the PTX into its own context.
class CudaLibrary : public KernelLibrary {
 public:
  explicit CudaLibrary(CudaModuleImage image) : image_(std::move(image)) {}
  const void* find(const std::string& name) const override;
  const CudaModuleImage& image() const { return image_; }

 private:
  CudaModuleImage image_;
};

std::shared_ptr<KernelLibrary> loadCudaModule(const std::vector<char>& blob);

}  // namespace tvms::runtime
