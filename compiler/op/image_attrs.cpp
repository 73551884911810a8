#include "compiler/op/image_attrs.h"

#include "compiler/ir/expr.h"
#include "compiler/op/infer_util.h"

namespace tvms::op {

ResizeAttrs resizeAttrs(const ir::Call& call, int spatialDims) {
  ResizeAttrs r;
  r.layout = infer::stringAttr(call.attrValue("layout")).value_or(spatialDims == 2 ? "NCHW" : "NCDHW");
  r.method = infer::stringAttr(call.attrValue("method")).value_or(r.method);
  r.coordinateMode = infer::stringAttr(call.attrValue("coordinate_transformation_mode")).value_or(r.coordinateMode);
  r.rounding = infer::stringAttr(call.attrValue("rounding_method")).value_or(r.rounding);
  r.cubicAlpha = infer::floatAttr(call.attrValue("cubic_alpha")).value_or(r.cubicAlpha);
  r.cubicExclude = infer::intAttr(call.attrValue("cubic_exclude")).value_or(0) != 0;
  if (auto d = infer::stringAttr(call.attrValue("out_dtype")); d && !d->empty()) r.outDType = *d;
  return r;
}

}  // namespace tvms::op
