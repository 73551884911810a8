#pragma once
// The runtime's library functions for cuda vdevices (the cuda kind's offloads, runtime/target_kind.cpp): cuBLAS for
// matmul, cuDNN for conv2d, both loaded with dlopen on first use and bound to the slot's stream.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/library_attrs.h"
#include "runtime/ndarray.h"

namespace tvms::runtime {

// Their names in R.call_dps_packed (OffloadLibraries writes them, the VM finds them by them).
inline constexpr std::string_view kCublasMatmul = "tvms.cublas.matmul";
inline constexpr std::string_view kCublasMatmulTransB = "tvms.cublas.matmul_transpose_b";
inline constexpr std::string_view kCudnnConv2d = "tvms.cudnn.conv2d";
inline constexpr std::string_view kCublasLtMatmulBias = "tvms.cublaslt.matmul_bias";

// kCublasMatmul: C (..., M, N) = A (..., M, K) @ B (K, N) or (..., K, N); float32 (no TF32) / float64,
// float16 / bfloat16 on the tensor cores with float32 accumulation.
void cublasMatmul(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);
// kCublasMatmulTransB: C (..., M, N) = A (..., M, K) @ B^T, B stored (N, K) or (..., N, K): a permute that
// only fed the matmul's B becomes cuBLAS's transpose instead of a copy kernel (OffloadLibraries).
void cublasMatmulTransposeB(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);
// kCudnnConv2d's attributes (library_attrs.h) written into the call's name and read back.
std::string conv2dCallName(const Conv2dAttrs& a);
Conv2dAttrs parseConv2dCallName(const std::string& name);  // std::runtime_error when malformed

// kCublasLtMatmulBias: C = act(A (..., M, K) @ B + bias) in one cuBLASLt call, the bias (N,) and the
// activation applied by its epilogue; B (K, N), or stored (N, K) with transposeB; float32 (no TF32),
// float16 / bfloat16. Its attributes in its name ("tvms.cublaslt.matmul_bias?act=relu&transpose_b=0"),
// written by OffloadLibraries. In runtime/cublaslt_epilogue.cpp.
std::string gemmEpilogueCallName(const GemmEpilogueAttrs& a);
GemmEpilogueAttrs parseGemmEpilogueCallName(const std::string& name);  // std::runtime_error when malformed
void cublasLtMatmulBias(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);

// kCudnnConv2d: NCHW/OIHW or NHWC/OHWI, float32 (no TF32 engines) / float64; the output in the data's
// layout. In runtime/cudnn_conv.cpp.
void cudnnConv2d(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);

}  // namespace tvms::runtime
