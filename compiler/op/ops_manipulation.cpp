// Shape manipulation, creation, indexing and sorting ops.
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;

void addManipulationOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(op("reshape", {tensor("x"), expr("shape", ParamKind::Shape)}, P,
                   "Reshapes x to `shape` (one dimension may be -1); the element count must not change."));
  out.push_back(op("permute_dims", {tensor("x"), optional("axes", ParamKind::IntList)}, P,
                   "Permutes the axes of x (reverses them when `axes` is None)."));
  out.push_back(op("expand_dims", {tensor("x"), required("axis", ParamKind::IntList)}, P,
                   "Inserts size-1 axes at `axis`."));
  out.push_back(op("squeeze", {tensor("x"), optional("axis", ParamKind::IntList)}, P,
                   "Removes size-1 axes (those in `axis`, or all of them)."));
  out.push_back(op("flatten", {tensor("x")}, P, "Flattens x to one dimension."));
  out.push_back(op("broadcast_to", {tensor("x"), expr("shape", ParamKind::Shape)}, P,
                   "Broadcasts x to `shape`, numpy-style."));
  out.push_back(op("take", {tensor("x"), tensor("indices"), optional("axis", ParamKind::Int),
                            attr("mode", ParamKind::String, s("fast"))},
                   P, "Gathers elements of x at `indices` along `axis` (of the flattened tensor when None)."));
  out.push_back(op("strided_slice",
                   {tensor("x"), required("axes", ParamKind::IntList), required("begin", ParamKind::IntList),
                    required("end", ParamKind::IntList), optional("strides", ParamKind::IntList),
                    attr("assume_inbound", ParamKind::Bool, b(false))},
                   P, "Slices x along `axes` from `begin` to `end` with `strides`."));
  out.push_back(op("split", {tensor("x"), required("indices_or_sections", ParamKind::IntList),
                             attr("axis", ParamKind::Int, i(0))},
                   P, "Splits x along `axis` into equal sections or at the given indices; returns a tuple."));
  out.push_back(op("concat", {expr("tensors", ParamKind::TensorList), attr("axis", ParamKind::Int, i(0))},
                   DeviceRule::Lenient, "Concatenates the tensors along `axis`. Tensors on different vdevices "
                                        "give a result with no vdevice in TVM (no error)."));
  out.push_back(op("stack", {expr("tensors", ParamKind::TensorList), attr("axis", ParamKind::Int, i(0))},
                   DeviceRule::Lenient, "Stacks the tensors along a new axis `axis`."));
  out.push_back(op("tril", {tensor("x"), attr("k", ParamKind::Int, i(0))}, P, "Lower triangle of x."));
  out.push_back(op("triu", {tensor("x"), attr("k", ParamKind::Int, i(0))}, P, "Upper triangle of x."));

  out.push_back(op("full", {expr("shape", ParamKind::Shape), tensor("fill_value"), optional("dtype", ParamKind::DType)},
                   DeviceRule::FillValue, "A tensor of `shape` filled with fill_value; it takes fill_value's vdevice."));
  for (auto* n : {"full_like"})
    out.push_back(op(n, {tensor("x"), tensor("fill_value"), optional("dtype", ParamKind::DType)}, P,
                     "A tensor like x filled with fill_value."));
  for (auto* n : {"zeros_like", "ones_like"})
    out.push_back(op(n, {tensor("x"), optional("dtype", ParamKind::DType)}, P,
                     std::string("A tensor like x filled with ") + (n[0] == 'z' ? "zeros." : "ones.")));
  for (auto* n : {"zeros", "ones"})
    out.push_back(op(n, {expr("shape", ParamKind::Shape), required("dtype", ParamKind::DType)}, DeviceRule::NoDevice,
                     std::string("A tensor of `shape` filled with ") + (n[0] == 'z' ? "zeros" : "ones") +
                         "; it has no vdevice."));
  out.push_back(op("arange", {expr("start", ParamKind::Prim), optExpr("end", ParamKind::Prim),
                              attr("step", ParamKind::Any, i(1)), optional("dtype", ParamKind::DType)},
                   DeviceRule::NoDevice, "Evenly spaced values in [start, end); it has no vdevice."));
  out.push_back(op("astype", {tensor("x"), required("dtype", ParamKind::DType)}, P, "Casts x to `dtype`."));

  out.push_back(op("sort", {tensor("x"), attr("axis", ParamKind::Int, i(-1)), attr("descending", ParamKind::Bool, b(false))},
                   P, "Sorts x along `axis`."));
  out.push_back(op("argsort", {tensor("data"), attr("axis", ParamKind::Int, i(-1)),
                               attr("descending", ParamKind::Bool, b(false)), attr("dtype", ParamKind::DType, s("int32"))},
                   P, "Indices that sort data along `axis`."));
  out.push_back(op("topk", {tensor("data"), attr("k", ParamKind::Int, i(1)), attr("axis", ParamKind::Int, i(-1)),
                            attr("ret_type", ParamKind::String, s("both")), attr("largest", ParamKind::Bool, b(true)),
                            attr("dtype", ParamKind::DType, s("int32"))},
                   P, "The k largest (or smallest) elements along `axis`, with their indices."));

  for (auto* n : {"tile", "repeat", "flip", "collapse_sum_like", "collapse_sum_to", "layout_transform",
                  "gather_elements", "gather_nd", "scatter_elements", "scatter_nd", "dynamic_strided_slice",
                  "slice_scatter", "index_put", "index_tensor", "reverse_sequence", "meshgrid", "one_hot", "eye",
                  "eye_like", "hamming_window"})
    out.push_back(unmodelled(n));
}

}  // namespace tvms::op
