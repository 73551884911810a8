// Linear algebra, selection, vdevice placement and the call_* family.
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;

void addOtherOps(std::vector<OpDef>& out) {
  const auto L = DeviceRule::Lenient;
  out.push_back(op("matmul", {tensor("x1"), tensor("x2"), optional("out_dtype", ParamKind::DType)}, L,
                   "Matrix product with numpy semantics (batch dimensions broadcast). Operands on different vdevices "
                   "give a result with no vdevice in TVM (no error): it lands on the default device."));
  out.push_back(op("einsum", {expr("operands", ParamKind::TensorList), required("subscripts", ParamKind::String)}, L,
                   "Einstein summation over the operands."));
  out.push_back(op("where", {tensor("condition"), tensor("x1"), tensor("x2")}, L,
                   "Selects x1 where condition holds, else x2."));
  out.push_back(op("ewise_fma", {tensor("x1"), tensor("x2"), tensor("x3")}, L, "Fused x1 * x2 + x3."));
  out.push_back(op("outer", {tensor("x1"), tensor("x2")}, L, "Outer product of two vectors."));

  out.push_back(op("to_vdevice", {tensor("data"), required("dst_vdevice", ParamKind::VDevice)}, DeviceRule::ToVDevice,
                   "Copies data to the vdevice `dst_vdevice` (a string naming a declared entry, such as \"cuda:0\"). "
                   "The result has data's shape and dtype on that vdevice. Lowers to the VM's to_device."));
  {
    OpDef d = op("hint_on_device", {tensor("data"), required("device", ParamKind::Device),
                                    attr("memory_scope", ParamKind::String, s("global"))},
                 DeviceRule::HintOnDevice,
                 "Hints that data should live on `device` (R.cpu(), R.cuda(1), R.device(type, index)). Its struct "
                 "info is data's until RealizeVDevice resolves the hint to the first declared vdevice with that device "
                 "type, id and scope.");
    for (auto& p : d.params) p.positional = p.name != "data";
    out.push_back(std::move(d));
  }

  auto sinfo = [](const char* name, const char* alias) {
    Param p{name, ParamKind::SInfo, std::nullopt};
    p.eraAlias = alias;
    return p;
  };
  out.push_back(op("call_tir", {expr("gvar", ParamKind::Callee), expr("args"), sinfo("out_sinfo", "out_ty"),
                                optExpr("tir_vars", ParamKind::Shape)},
                   DeviceRule::Written,
                   "Calls the prim_func `gvar` in destination-passing style; the result is exactly `out_sinfo`."));
  out.push_back(op("call_tir_inplace", {expr("gvar", ParamKind::Callee), expr("args"),
                                        required("inplace_indices", ParamKind::IntList), sinfo("out_sinfo", "out_ty"),
                                        optExpr("tir_vars", ParamKind::Shape)},
                   DeviceRule::Written, "Like call_tir, writing the outputs into the arguments at `inplace_indices`."));
  out.push_back(op("call_dps_packed", {expr("func", ParamKind::Callee), expr("args"), sinfo("out_sinfo", "out_ty")},
                   DeviceRule::Written,
                   "Calls a packed function in destination-passing style; the result is exactly `out_sinfo`."));
  {
    Param s = sinfo("sinfo_args", "ty_args");
    out.push_back(op("call_pure_packed", {expr("func", ParamKind::Callee), expr("args", ParamKind::Variadic), s},
                     DeviceRule::Written, "Calls a pure packed function; the result is exactly `sinfo_args`."));
    s.optionalNone = true;
    out.push_back(op("call_packed", {expr("func", ParamKind::Callee), expr("args", ParamKind::Variadic), s},
                     DeviceRule::Written, "Calls a packed function (impure); the result is `sinfo_args`."));
  }
  out.push_back(op("shape_of", {tensor("expr")}, DeviceRule::NoDevice, "The shape of a tensor, as a shape value."));
  out.push_back(op("print", {expr("values", ParamKind::Variadic), attr("format", ParamKind::String, s(""))},
                   DeviceRule::NoDevice, "Prints the values at run time (impure)."));

  for (auto* n : {"unique", "nonzero", "bucketize", "quantize", "dequantize", "multinomial_from_uniform",
                  "shape_to_tensor", "tensor_to_shape", "size", "assert_op", "null_value", "call_tir_with_grad",
                  "call_inplace_packed", "call_builtin_with_ctx", "invoke_closure", "invoke_pure_closure",
                  "make_closure", "wrap_param", "image.resize2d", "image.resize3d", "image.affine_grid",
                  "image.grid_sample"})
    out.push_back(unmodelled(n));
}

}  // namespace tvms::op
