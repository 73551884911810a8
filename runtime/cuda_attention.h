#pragma once
// tvms.attention, the cuda kind's fused attention (runtime/cuda_attention.cu, compiled to PTX by nvcc
// when tvms is built and embedded here): O = softmax(Q K^T * scale + bias, causal mask) V in one kernel,
// every tensor read and written through strides, so the permutes around it need no copies.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/dtype.h"
#include "runtime/library_attrs.h"
#include "runtime/ndarray.h"

namespace tvms::runtime {

// Its name in R.call_dps_packed, with the attributes (AttentionAttrs, library_attrs.h) OffloadLibraries
// writes (attentionCallName).
inline constexpr std::string_view kAttention = "tvms.attention";

std::string attentionCallName(const AttentionAttrs& a);
AttentionAttrs parseAttentionCallName(const std::string& name);  // std::runtime_error when malformed

// Whether the kernel has an instance for this element type and feature size (float16, bfloat16 or
// float32; 64 or 128 features), and this build of tvms embeds it (nvcc was found when it was built).
bool attentionTakes(DType dtype, int64_t featureSize);

// args: Q, K, V, the bias when the call has one, the output, each laid out as the call's name says.
void cudaAttention(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);

}  // namespace tvms::runtime
