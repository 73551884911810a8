#pragma once
// The attributes of convolutions and pooling as typed records (ConvAttrs, PoolAttrs), read from a call
// once by every reader: struct-info deduction, the kernel builders and OffloadLibraries. Below them, the
// readers of their parts: layout strings, per-dim strides / dilation, padding.
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/value.h"

namespace tvms::ir {
struct Call;
}
namespace tvms::op {
struct OpDef;
}

namespace tvms::op::nn {

// A layout string as positions of its letters: "NHWC" -> N=0, C=3, spatial {H=1, W=2}.
// Packed layouts as TVM writes them ("NCHW4c", "OIHW4i4o": a digit count before a lowercase letter is
// a sub-axis of that primal axis) parse to their rank with `packed` set, and are not `valid`: their
// shapes are not deduced and their kernels are not built.
struct Layout {
  int batch = -1, channel = -1;     // data: N, C; kernel: O (batch slot), I (channel slot)
  std::vector<int> spatial;         // positions of D, H, W in that order
  int rank = -1;                    // number of axes, sub-axes included; -1 when the text is not a layout
  bool packed = false;
  bool valid = false;
};
Layout parseLayout(const std::string& text, char batchLetter, char channelLetter, int dims);

// strides / dilation given as one value or one per spatial dim.
std::vector<int64_t> perDim(const ir::Value* v, int dims, int64_t fallback);
// padding as one value, one per dim, or (before..., after...): before and after per dim.
struct Padding { std::vector<int64_t> before, after; };
Padding padding(const ir::Value* v, int dims);
// nn.conv1d / conv2d / conv3d and their transposes. The weight's layout letters are O and I for a
// convolution, I and O for a transposed one (IOHW): `kernel.batch` is O, resp. I.
struct ConvAttrs {
  int dims = 2;  // spatial dims, as the op's declaration says (OpDef::window)
  bool transpose = false;
  std::string dataLayoutText, kernelLayoutText, outLayoutText;  // as written; out_layout defaults to data_layout
  Layout data, kernel, out;
  std::optional<std::string> outDType;  // out_dtype when given
  int64_t groups = 1;
  std::vector<int64_t> strides, dilation, outputPadding;  // per spatial dim
  Padding padding;
  // strides, dilation, padding and output_padding are integers (not symbolic values): the output's
  // shape can be deduced.
  bool intsKnown = true;
  // Each of them has one entry, one per spatial dim, or (padding) before and after per dim: nothing
  // fell back to its default.
  bool listsExact = true;
};
ConvAttrs convAttrs(const OpDef& def, const ir::Call& call);

// nn.max_pool / avg_pool 1-3d and adaptive_avg_pool 1-3d.
struct PoolAttrs {
  int dims = 2;
  bool adaptive = false;
  std::string layoutText;  // as written; out_layout defaults to it
  Layout data, out;
  std::vector<int64_t> poolSize, strides, dilation;
  Padding padding;
  bool ceilMode = false, countIncludePad = false;
  std::optional<std::vector<int64_t>> outputSize;  // adaptive pooling's, when given
  bool intsKnown = true;  // pool_size, strides, dilation, padding and output_size are integers
};
PoolAttrs poolAttrs(const OpDef& def, const ir::Call& call);

}  // namespace tvms::op::nn
