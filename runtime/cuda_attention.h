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
#include "runtime/ndarray.h"

namespace tvms::runtime {

// Its name in R.call_dps_packed, with the attributes OffloadLibraries writes (attentionCallName).
inline constexpr std::string_view kAttention = "tvms.attention";

// The attributes of one call: for each of Q, K, V and the output, the axis of its tensor holding each
// logical axis (batch, head, row, feature), -1 for a batch axis a rank-3 tensor does not have.
struct AttentionAttrs {
  std::vector<int64_t> qAxes, kAxes, vAxes, oAxes;
  double scale = 1;
  int causal = 0;  // 0 none, 1 TopLeft (key j seen by query i when j <= i), 2 BottomRight (j <= i + S_kv - S_q)
  // The bias's axis for each logical axis (batch, head, query row, key), -1 where it has none (it
  // broadcasts there, as it does along an axis of extent 1); empty: no bias.
  std::vector<int64_t> biasAxes;
};
std::string attentionCallName(const AttentionAttrs& a);
AttentionAttrs parseAttentionCallName(const std::string& name);  // std::runtime_error when malformed

// Whether the kernel has an instance for this element type and feature size (float16, bfloat16 or
// float32; 64 or 128 features), and this build of tvms embeds it (nvcc was found when it was built).
bool attentionTakes(DType dtype, int64_t featureSize);

// args: Q, K, V, the bias when the call has one, the output, each laid out as the call's name says.
void cudaAttention(DeviceAPI& device, const std::vector<const NDArray*>& args, const std::string& name);

}  // namespace tvms::runtime
