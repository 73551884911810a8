#include "compiler/op/image_attrs.h"

#include "compiler/ir/expr.h"
#include "compiler/op/infer_util.h"

namespace tvms::op {

ResizeAttrs resizeAttrs(const ir::Call& call, int spatialDims) {
  auto value = [&](const char* name) -> const ir::Value* {
    const ir::CallAttr* a = call.attr(name);
    return a ? &a->value : nullptr;
  };
  ResizeAttrs r;
  r.layout = infer::stringAttr(value("layout")).value_or(spatialDims == 2 ? "NCHW" : "NCDHW");
  r.method = infer::stringAttr(value("method")).value_or(r.method);
  r.coordinateMode = infer::stringAttr(value("coordinate_transformation_mode")).value_or(r.coordinateMode);
  r.rounding = infer::stringAttr(value("rounding_method")).value_or(r.rounding);
  if (const ir::Value* a = value("cubic_alpha")) {
    if (a->kind == ir::Value::Kind::Float) r.cubicAlpha = a->real;
    if (a->kind == ir::Value::Kind::Int) r.cubicAlpha = static_cast<double>(a->integer);
  }
  r.cubicExclude = infer::intAttr(value("cubic_exclude")).value_or(0) != 0;
  if (auto d = infer::stringAttr(value("out_dtype")); d && !d->empty()) r.outDType = *d;
  return r;
}

}  // namespace tvms::op
