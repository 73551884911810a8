// image.resize2d / resize3d with TVM's shape rule (src/relax/op/image/resize.cc): the layout's H and W
// (D, H and W) become `size`, the rest is kept; out_dtype may change the dtype.
#include "compiler/op/image_attrs.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/nn_attrs.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

// resize2d / resize3d: the layout's spatial axes (H, W or D, H, W) become `size` (one value for all).
InferResult inferResize(const InferInput& in, const std::string& opName, const std::string& spatial) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  const int rank = static_cast<int>(spatial.size()) + 2;
  const ResizeAttrs attrs = resizeAttrs(in.call, static_cast<int>(spatial.size()));
  const std::string& layout = attrs.layout;
  std::string dt = attrs.outDType.value_or(x->dtype);
  bool plain = static_cast<int>(layout.size()) == rank;
  for (char c : spatial) plain = plain && layout.find(c) != std::string::npos;
  if (!plain) return ok(tensor(std::nullopt, dt, x->rank()));  // packed layouts (NCHW4c): not modelled further
  if (x->rank() >= 0 && x->rank() != rank)
    return fail(diag::Code::TVS103, opName + " takes a " + std::to_string(rank) + "-D tensor, got rank " + std::to_string(x->rank()));
  const StructInfo* size = in.arg(1);
  std::optional<Dims> sizes;
  if (size && size->kind == StructInfo::Kind::Shape && size->shape) sizes = *size->shape;
  if (sizes && sizes->size() == 1) sizes = Dims(spatial.size(), (*sizes)[0]);
  if (sizes && sizes->size() != spatial.size())
    return fail(diag::Code::TVS005, opName + ": size has " + std::to_string(sizes->size()) + " values (" + std::to_string(spatial.size()) + " expected)", 1);
  if (!x->shape || !sizes) return ok(tensor(std::nullopt, dt, rank));
  Dims out = *x->shape;
  for (size_t k = 0; k < spatial.size(); ++k) out[layout.find(spatial[k])] = (*sizes)[k];
  return ok(tensor(out, dt));
}
// affine_grid: theta (N, 2, 3) and size (H, W) give (N, 2, H, W); with align_corners both sizes
// must be above 1 (the grid's step divides by size - 1).
InferResult inferAffineGrid(const InferInput& in) {
  InferResult r;
  const StructInfo* theta = tensorOperand(in, 0, r);
  if (!theta) return r;
  if (theta->rank() >= 0 && theta->rank() != 3) return fail(diag::Code::TVS103, "R.image.affine_grid takes theta of shape (N, 2, 3), got rank " + std::to_string(theta->rank()));
  const StructInfo* size = in.arg(1);
  std::optional<Dims> hw;
  if (size && size->kind == StructInfo::Kind::Shape && size->shape) hw = *size->shape;
  if (hw && hw->size() != 2) return fail(diag::Code::TVS005, "R.image.affine_grid: size has " + std::to_string(hw->size()) + " values (height, width)", 1);
  if (hw && boolAttr(in.attr("align_corners"), true))
    for (auto& d : *hw)
      if (auto v = constInt(d); v && *v <= 1)
        return fail(diag::Code::TVS005, "R.image.affine_grid: with align_corners the target height and width must be above 1", 1);
  if (!theta->shape || !hw) return ok(tensor(std::nullopt, theta->dtype, 4));
  return ok(tensor(Dims{(*theta->shape)[0], dim(2), (*hw)[0], (*hw)[1]}, theta->dtype));
}

// grid_sample: data (N, C, H, W) and grid (N, H_out, W_out, 2) give (N, C, H_out, W_out).
InferResult inferGridSample(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* grid = x ? tensorOperand(in, 1, r) : nullptr;
  if (!grid) return r;
  if (x->rank() >= 0 && x->rank() != 4 && x->rank() != 5)
    return fail(diag::Code::TVS103, "R.image.grid_sample takes 4-D (NCHW) or 5-D (NCDHW) data, got rank " + std::to_string(x->rank()));
  if (grid->rank() >= 0 && x->rank() >= 0 && grid->rank() != x->rank())
    return fail(diag::Code::TVS103, "R.image.grid_sample takes a grid of data's rank ((N, H, W, 2) or (N, D, H, W, 3)), got rank " + std::to_string(grid->rank()), 1);
  int rank = x->rank() >= 0 ? x->rank() : grid->rank();
  if (!x->shape || !grid->shape) return ok(tensor(std::nullopt, x->dtype, rank));
  Dims out{(*x->shape)[0], (*x->shape)[1]};
  for (size_t k = 1; k + 1 < grid->shape->size(); ++k) out.push_back((*grid->shape)[k]);
  return ok(tensor(out, x->dtype));
}

// roi_align / roi_pool: (rois, C, pooled_h, pooled_w), or NHWC (rois, pooled_h, pooled_w, C).
InferResult inferRoi(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* rois = x ? tensorOperand(in, 1, r) : nullptr;
  if (!rois) return r;
  std::string name = in.def.scriptName();
  if (x->rank() >= 0 && x->rank() != 4) return fail(diag::Code::TVS103, name + " takes 4-D data, got rank " + std::to_string(x->rank()));
  if (rois->rank() >= 0 && rois->rank() != 2) return fail(diag::Code::TVS103, name + " takes rois of shape (n, 5), got rank " + std::to_string(rois->rank()), 1);
  if (rois->shape && rois->shape->size() == 2)
    if (auto five = constInt((*rois->shape)[1]); five && *five != 5)
      return fail(diag::Code::TVS101, name + ": each region is [batch index, x1, y1, x2, y2], got " + std::to_string(*five) + " values", 1);
  std::vector<int64_t> sizes = nn::perDim(in.attr("pooled_size"), 2, 0);  // 0: not one or two integers
  if (sizes[0] <= 0 || sizes[1] <= 0) return fail(diag::Code::TVS005, name + ": pooled_size must be one or two positive integers");
  bool nhwc = stringAttr(in.attr("layout")).value_or("NCHW") == "NHWC";
  if (!x->shape || !rois->shape) return ok(tensor(std::nullopt, x->dtype, 4));
  PrimExprPtr n = (*rois->shape)[0], c = (*x->shape)[nhwc ? 3 : 1];
  Dims out = nhwc ? Dims{n, dim(sizes[0]), dim(sizes[1]), c} : Dims{n, c, dim(sizes[0]), dim(sizes[1])};
  return ok(tensor(out, x->dtype));
}

InferResult inferResize2d(const InferInput& in) { return inferResize(in, "R.image.resize2d", "HW"); }
InferResult inferResize3d(const InferInput& in) { return inferResize(in, "R.image.resize3d", "DHW"); }

}  // namespace

void addImageOps(std::vector<OpDef>& out) {
  // The attributes both resizes take, after data and size.
  auto resizeParams = [](const char* layout) {
    return std::vector<Param>{tensor("data"), expr("size", ParamKind::Shape), optional("roi", ParamKind::Any),
                              attr("layout", ParamKind::String, s(layout)), attr("method", ParamKind::String, s("linear")),
                              attr("coordinate_transformation_mode", ParamKind::String, s("half_pixel")),
                              attr("rounding_method", ParamKind::String, s("round")), attr("cubic_alpha", ParamKind::Float, f(-0.75)),
                              attr("cubic_exclude", ParamKind::Int, i(0)), attr("extrapolation_value", ParamKind::Float, f(0.0)),
                              optional("out_dtype", ParamKind::DType)};
  };
  out.push_back(withKernel(op("image.resize2d", resizeParams("NCHW"), DeviceRule::PrimaryInput,
                              "Resizes the H and W axes of data to `size` by nearest_neighbor, linear or cubic sampling, the "
                              "output positions mapped back by coordinate_transformation_mode.",
                              inferResize2d),
                           kernels::resize2d));
  out.push_back(withKernel(op("image.resize3d", resizeParams("NCDHW"), DeviceRule::PrimaryInput,
                              "Resizes the D, H and W axes of data to `size` as resize2d does its two.", inferResize3d),
                           kernels::resize3d));
  out.push_back(withKernel(op("image.grid_sample", {tensor("data"), tensor("grid"), attr("method", ParamKind::String, s("bilinear")),
                                                    attr("layout", ParamKind::String, s("NCHW")), attr("padding_mode", ParamKind::String, s("zeros")),
                                                    attr("align_corners", ParamKind::Bool, b(false))},
                              DeviceRule::PrimaryInput, "Samples data (NCHW, or NCDHW) at the grid's normalised (x, y[, z]) positions "
                                                        "(grid (N, H, W, 2) or (N, D, H, W, 3)): nearest, bilinear (trilinear in 3-D) "
                                                        "or bicubic (2-D); outside the image zeros, the border, or the image reflected.",
                              inferGridSample),
                           kernels::gridSample));
  out.push_back(withKernel(op("vision.roi_align", {tensor("data"), tensor("rois"), required("pooled_size", ParamKind::IntList),
                                                   required("spatial_scale", ParamKind::Float), attr("sample_ratio", ParamKind::Int, i(-1)),
                                                   attr("aligned", ParamKind::Bool, b(false)), attr("layout", ParamKind::String, s("NCHW")),
                                                   attr("mode", ParamKind::String, s("avg"))},
                              DeviceRule::PrimaryInput,
                              "Pools each region of interest (rois (n, 5): batch index, x1, y1, x2, y2) into pooled_size bins of "
                              "bilinear samples, averaged (mode \"avg\") or their max.", inferRoi),
                           kernels::roiAlign));
  out.push_back(withKernel(op("vision.roi_pool", {tensor("data"), tensor("rois"), required("pooled_size", ParamKind::IntList),
                                                  required("spatial_scale", ParamKind::Float), attr("layout", ParamKind::String, s("NCHW"))},
                              DeviceRule::PrimaryInput, "The max of each region's pixels in pooled_size bins (0 for an empty bin).", inferRoi),
                           kernels::roiPool));
  out.push_back(withKernel(op("image.affine_grid", {tensor("data"), expr("size", ParamKind::Shape), attr("align_corners", ParamKind::Bool, b(true))},
                              DeviceRule::PrimaryInput,
                              "A 2-D sampling grid (N, 2, H, W): the affine matrices data (N, 2, 3) applied to a uniform grid of "
                              "size (H, W) over [-1, 1].", inferAffineGrid),
                           kernels::affineGrid));
}

}  // namespace tvms::op
