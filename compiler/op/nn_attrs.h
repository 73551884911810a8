#pragma once
// Reading the attributes of convolutions and pooling, shared by their struct-info deduction and
// their kernels: layout strings, per-dim strides/dilation, padding.
#include <string>
#include <vector>

#include "compiler/ir/value.h"

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
// 1, 2 or 3, from the op's name (nn.conv2d -> 2).
int spatialDims(const std::string& opName);

}  // namespace tvms::op::nn
