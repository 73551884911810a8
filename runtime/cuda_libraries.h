#pragma once
// The runtime's library functions for cuda vdevices (the cuda kind's offloads, runtime/target_kind.cpp): cuBLAS for
// matmul, cuDNN for conv2d, both loaded with dlopen on first use and bound to the slot's stream.
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/ndarray.h"

namespace tvms::runtime {

// Their names in R.call_dps_packed (OffloadLibraries writes them, the VM finds them by them).
inline constexpr std::string_view kCublasMatmul = "tvms.cublas.matmul";
inline constexpr std::string_view kCublasMatmulTransB = "tvms.cublas.matmul_transpose_b";
inline constexpr std::string_view kCudnnConv2d = "tvms.cudnn.conv2d";

// kCublasMatmul: C (..., M, N) = A (..., M, K) @ B (K, N) or (..., K, N); float32 (no TF32) / float64,
// float16 / bfloat16 on the tensor cores with float32 accumulation.
void cublasMatmul(DeviceAPI& device, const std::vector<const NDArray*>& args, const std::string& name);
// kCublasMatmulTransB: C (..., M, N) = A (..., M, K) @ B^T, B stored (N, K) or (..., N, K): a permute that
// only fed the matmul's B becomes cuBLAS's transpose instead of a copy kernel (OffloadLibraries).
void cublasMatmulTransposeB(DeviceAPI& device, const std::vector<const NDArray*>& args, const std::string& name);
// kCudnnConv2d "?layout=NHWC&stride=..&pad=..&dilation=..&groups=..": NCHW/OIHW or NHWC/OHWI,
// float32 (no TF32 engines) / float64; the output in the data's layout. In runtime/cudnn_conv.cpp.
void cudnnConv2d(DeviceAPI& device, const std::vector<const NDArray*>& args, const std::string& name);

}  // namespace tvms::runtime
