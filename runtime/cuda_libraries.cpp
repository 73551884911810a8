#include "runtime/cuda_libraries.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime/offload_library.h"

namespace tvms::runtime {

namespace {

// ---- cuBLAS -------------------------------------------------------------------------------------
struct Cublas {
  int (*create)(void**);
  int (*setStream)(void*, void*);
  int (*setWorkspace)(void*, void*, size_t);
  int (*sgemmStridedBatched)(void*, int, int, int, int, int, const float*, const float*, int, long long, const float*, int, long long,
                             const float*, float*, int, long long, int);
  int (*gemmStridedBatchedEx)(void*, int, int, int, int, int, const void*, const void*, int, int, long long, const void*, int, int, long long,
                              const void*, void*, int, int, long long, int, int, int);
  int (*dgemmStridedBatched)(void*, int, int, int, int, int, const double*, const double*, int, long long, const double*, int, long long,
                             const double*, double*, int, long long, int);
};
const Cublas& cublas() {
  static Cublas c;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = openOffloadLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "cuBLAS (libcublas.so.13)");
    bindOrThrow(h, c.create, "cublasCreate_v2", "cuBLAS");
    bindOrThrow(h, c.setStream, "cublasSetStream_v2", "cuBLAS");
    bindOrThrow(h, c.setWorkspace, "cublasSetWorkspace_v2", "cuBLAS");
    bindOrThrow(h, c.sgemmStridedBatched, "cublasSgemmStridedBatched", "cuBLAS");
    bindOrThrow(h, c.dgemmStridedBatched, "cublasDgemmStridedBatched", "cuBLAS");
    bindOrThrow(h, c.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx", "cuBLAS");
  });
  return c;
}

// One handle per stream (a handle belongs to the context current when it was made), with a workspace
// of its own kept for the process: without one cuBLAS allocates its workspace stream-ordered, and a
// CUDA graph recording the stream (graph_capture.h) would record that allocation too.
constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;  // what NVIDIA advises for Hopper

void* cublasHandle(DeviceAPI& device, void* stream) {
  static std::mutex mu;
  static std::map<void*, void*> handles;
  std::lock_guard<std::mutex> lock(mu);
  void*& h = handles[stream];
  if (!h) {
    if (int rc = cublas().create(&h)) throw std::runtime_error("cublasCreate failed (" + std::to_string(rc) + ")");
    cublas().setStream(h, stream);  // (resets the workspace to the default: set it after)
    void* workspace = device.alloc(kCublasWorkspaceBytes);
    if (int rc = cublas().setWorkspace(h, workspace, kCublasWorkspaceBytes)) throw std::runtime_error("cublasSetWorkspace failed (" + std::to_string(rc) + ")");
  }
  return h;
}

}  // namespace

namespace {

// Row-major C = A @ op(B) is column-major C^T = op(B)^T @ A^T: cuBLAS multiplies B by A, B transposed
// (CUBLAS_OP_T = 1) when it is stored (N, K).
void gemm(DeviceAPI& device, const std::vector<const NDArray*>& args, std::string_view name, bool transposeB) {
  void* stream = offloadStream(device, std::string(name).c_str());
  if (args.size() != 3) throw std::runtime_error(std::string(name) + " takes A, B and the output");
  const NDArray &a = *args[0], &b = *args[1], &c = *args[2];
  size_t ra = a.shape.size(), rb = b.shape.size();
  if (ra < 2 || rb < 2 || a.dtype != b.dtype || a.dtype != c.dtype || !isFloatDType(a.dtype))
    throw std::runtime_error(std::string(name) + ": unsupported operands " + a.shapeText() + " @ " + b.shapeText());
  int64_t M = a.shape[ra - 2], K = a.shape[ra - 1], N = b.shape[rb - (transposeB ? 2 : 1)];
  if (b.shape[rb - (transposeB ? 1 : 2)] != K) throw std::runtime_error(std::string(name) + ": " + a.shapeText() + " @ " + b.shapeText() + " do not chain");
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < ra; ++i) batch *= a.shape[i];
  long long strideB = rb == 2 ? 0 : K * N;
  int opB = transposeB ? 1 : 0, ldb = static_cast<int>(transposeB ? K : N);
  void* h = cublasHandle(device, stream);
  int rc;
  if (a.dtype == DType::F16 || a.dtype == DType::BF16) {
    // Tensor cores, float32 accumulation (cudaDataType CUDA_R_16F = 2, CUDA_R_16BF = 14; CUBLAS_COMPUTE_32F = 68).
    const float one = 1, zero = 0;
    int type = a.dtype == DType::F16 ? 2 : 14;
    rc = cublas().gemmStridedBatchedEx(h, opB, 0, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &one, b.data(), type, ldb, strideB,
                                       a.data(), type, static_cast<int>(K), M * K, &zero, c.data(), type, static_cast<int>(N), M * N,
                                       static_cast<int>(batch), 68, -1 /* CUBLAS_GEMM_DEFAULT */);
  } else if (a.dtype == DType::F32) {
    const float one = 1, zero = 0;
    rc = cublas().sgemmStridedBatched(h, opB, 0, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &one, static_cast<const float*>(b.data()),
                                      ldb, strideB, static_cast<const float*>(a.data()), static_cast<int>(K), M * K, &zero,
                                      static_cast<float*>(c.data()), static_cast<int>(N), M * N, static_cast<int>(batch));
  } else {
    const double one = 1, zero = 0;
    rc = cublas().dgemmStridedBatched(h, opB, 0, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &one, static_cast<const double*>(b.data()),
                                      ldb, strideB, static_cast<const double*>(a.data()), static_cast<int>(K), M * K, &zero,
                                      static_cast<double*>(c.data()), static_cast<int>(N), M * N, static_cast<int>(batch));
  }
  if (rc) throw std::runtime_error("cuBLAS gemm failed (status " + std::to_string(rc) + ")");
}

}  // namespace

void cublasMatmul(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall&) { gemm(device, args, kCublasMatmul, false); }

void cublasMatmulTransposeB(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall&) {
  gemm(device, args, kCublasMatmulTransB, true);
}

}  // namespace tvms::runtime
