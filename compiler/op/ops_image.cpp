// image.resize2d with TVM's shape rule (src/relax/op/image/resize.cc): the layout's H and W become
// `size`, the rest is kept; out_dtype may change the dtype.
#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

InferResult inferResize2d(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  std::string layout = stringAttr(in.attr("layout")).value_or("NCHW");
  std::string dt = stringAttr(in.attr("out_dtype")).value_or(x->dtype);
  if (layout.size() != 4 || layout.find('H') == std::string::npos || layout.find('W') == std::string::npos)
    return ok(tensor(std::nullopt, dt, x->rank()));  // packed layouts (NCHW4c): not modelled further
  if (x->rank() >= 0 && x->rank() != 4) return fail(diag::Code::TVS103, "R.image.resize2d takes a 4-D tensor, got rank " + std::to_string(x->rank()));
  const StructInfo* size = in.arg(1);
  std::optional<Dims> hw;
  if (size && size->kind == StructInfo::Kind::Shape && size->shape) hw = *size->shape;
  if (hw && hw->size() == 1) hw = Dims{(*hw)[0], (*hw)[0]};
  if (hw && hw->size() != 2) return fail(diag::Code::TVS005, "R.image.resize2d: size has " + std::to_string(hw->size()) + " values (height, width)", 1);
  if (!x->shape || !hw) return ok(tensor(std::nullopt, dt, 4));
  Dims out = *x->shape;
  out[layout.find('H')] = (*hw)[0];
  out[layout.find('W')] = (*hw)[1];
  return ok(tensor(out, dt));
}

}  // namespace

void addImageOps(std::vector<OpDef>& out) {
  out.push_back(withKernel(op("image.resize2d", {tensor("data"), expr("size", ParamKind::Shape), optional("roi", ParamKind::Any),
                                                 attr("layout", ParamKind::String, s("NCHW")), attr("method", ParamKind::String, s("linear")),
                                                 attr("coordinate_transformation_mode", ParamKind::String, s("half_pixel")),
                                                 attr("rounding_method", ParamKind::String, s("round")), attr("cubic_alpha", ParamKind::Float, f(-0.75)),
                                                 attr("cubic_exclude", ParamKind::Int, i(0)), attr("extrapolation_value", ParamKind::Float, f(0.0)),
                                                 optional("out_dtype", ParamKind::DType)},
                              DeviceRule::PrimaryInput,
                              "Resizes the H and W axes of data to `size` by nearest_neighbor, linear or cubic sampling, the "
                              "output positions mapped back by coordinate_transformation_mode.",
                              inferResize2d),
                           kernels::resize2d));
}

}  // namespace tvms::op
