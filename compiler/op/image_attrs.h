#pragma once
// The attributes of image.resize2d / resize3d as one typed record, read from a call once by
// struct-info deduction and by the resize kernel builder.
#include <optional>
#include <string>

namespace tvms::ir {
struct Call;
}

namespace tvms::op {

struct ResizeAttrs {
  std::string layout;  // as written; NCHW (2-D) or NCDHW (3-D) when absent
  std::string method = "linear", coordinateMode = "half_pixel", rounding = "round";
  double cubicAlpha = -0.75;
  bool cubicExclude = false;
  std::optional<std::string> outDType;  // out_dtype when given
};
// `spatialDims`: 2 for resize2d, 3 for resize3d (the default layout's).
ResizeAttrs resizeAttrs(const ir::Call& call, int spatialDims);

}  // namespace tvms::op
