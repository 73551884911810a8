#pragma once
// The attributes of the runtime's library calls (R.call_dps_packed of a cuBLAS, cuDNN or tvms.attention
// offload), one record per family. OffloadLibraries fills a record and writes it into the call's name
// after '?' ("tvms.cudnn.conv2d?layout=NHWC&stride=1,1&..."): that text is what the printed module and
// the .tvmx carry. The VM reads each name back into its record once, when it loads the executable
// (LibraryOffload::readAttrs), and hands the record to the library function on every call.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tvms::runtime {

// tvms.cudnn.conv2d ("?layout=NHWC&stride=1,1&pad=1,1&dilation=1,1&groups=1"); the groups follow from
// the weight's channels, as cuDNN reads them.
struct Conv2dAttrs {
  bool nhwc = false;  // NHWC data with OHWI weights, else NCHW with OIHW
  std::vector<int64_t> stride{1, 1}, pad{0, 0}, dilation{1, 1};
  int64_t groups = 1;
};

// tvms.cublaslt.matmul_bias ("?act=relu&transpose_b=0").
struct GemmEpilogueAttrs {
  std::string activation = "none";  // none, relu, gelu_tanh (cuBLASLt's GELU is the tanh form)
  bool transposeB = false;
};

// tvms.attention: for each of Q, K, V and the output, the axis of its tensor holding each logical axis
// (batch, head, row, feature), -1 for a batch axis a rank-3 tensor does not have.
struct AttentionAttrs {
  std::vector<int64_t> qAxes, kAxes, vAxes, oAxes;
  double scale = 1;
  int causal = 0;  // 0 none, 1 TopLeft (key j seen by query i when j <= i), 2 BottomRight (j <= i + S_kv - S_q)
  // The bias's axis for each logical axis (batch, head, query row, key), -1 where it has none (it
  // broadcasts there, as it does along an axis of extent 1); empty: no bias.
  std::vector<int64_t> biasAxes;
};

// A call's record; monostate for a function without attributes (tvms.cublas.matmul).
using LibraryAttrs = std::variant<std::monostate, Conv2dAttrs, GemmEpilogueAttrs, AttentionAttrs>;

// One library function the executable calls, as the VM holds it: its full name (for errors, the trace
// and caches keyed by it) and its attributes, read once.
struct LibraryCall {
  std::string name;
  LibraryAttrs attrs;
};

}  // namespace tvms::runtime
