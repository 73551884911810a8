// Ops that read or write at positions held in an index tensor (ONNX's gather_elements, gather_nd,
// scatter_elements, scatter_nd), one_hot and slice_scatter, with TVM's shape rules
// (src/relax/op/tensor/manipulate.cc, index.cc).
#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

bool intIndices(const StructInfo* idx, const std::string& opName, InferResult& r) {
  if (idx->dtype.empty() || isIntDType(idx->dtype)) return true;
  r = fail(diag::Code::TVS102, opName + ": indices must be an integer tensor, got " + idx->dtype, 1);
  return false;
}

// gather_elements: the result has the indices' shape, data's dtype; both have one rank.
InferResult inferGatherElements(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* idx = x ? tensorOperand(in, 1, r) : nullptr;
  if (!x || !idx || !intIndices(idx, "R.gather_elements", r)) return r;
  if (x->rank() >= 0 && idx->rank() >= 0 && x->rank() != idx->rank())
    return fail(diag::Code::TVS103, "R.gather_elements: data has rank " + std::to_string(x->rank()) + ", indices rank " + std::to_string(idx->rank()), 1);
  if (auto axis = intAttr(in.attr("axis")); axis && x->rank() >= 0 && !axes({*axis}, x->rank(), "R.gather_elements", r)) return r;
  return ok(tensor(idx->shape, x->dtype, idx->shape ? -1 : idx->rank()));
}

// gather_nd (ONNX): indices (..., k) pick data's slices after batch_dims + k leading axes:
// the result is indices.shape[:-1] + data.shape[batch_dims + k:].
InferResult inferGatherNd(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* idx = x ? tensorOperand(in, 1, r) : nullptr;
  if (!x || !idx || !intIndices(idx, "R.gather_nd", r)) return r;
  int64_t batch = intAttr(in.attr("batch_dims")).value_or(0);
  if (!x->shape || !idx->shape || idx->shape->empty()) return ok(tensor(std::nullopt, x->dtype));
  auto k = constInt(idx->shape->back());
  if (!k) return ok(tensor(std::nullopt, x->dtype));
  if (batch < 0 || batch + *k > static_cast<int64_t>(x->shape->size()))
    return fail(diag::Code::TVS103, "R.gather_nd: batch_dims " + std::to_string(batch) + " and an index depth of " + std::to_string(*k) +
                                        " exceed data's rank " + std::to_string(x->shape->size()), 1);
  Dims out(idx->shape->begin(), idx->shape->end() - 1);
  out.insert(out.end(), x->shape->begin() + batch + *k, x->shape->end());
  return ok(tensor(out, x->dtype));
}

// scatter_elements / scatter_nd: the result is data's.
InferResult inferScatter(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* idx = x ? tensorOperand(in, 1, r) : nullptr;
  const StructInfo* upd = idx ? tensorOperand(in, 2, r) : nullptr;
  std::string name = in.def.scriptName();
  if (!x || !idx || !upd || !intIndices(idx, name, r)) return r;
  if (!x->dtype.empty() && !upd->dtype.empty() && x->dtype != upd->dtype)
    return fail(diag::Code::TVS102, name + ": updates are " + upd->dtype + ", data is " + x->dtype, 2);
  auto reduction = stringAttr(in.attr("reduction")).value_or("update");
  if (reduction != "update" && reduction != "add" && reduction != "mul" && reduction != "mean" && reduction != "max" && reduction != "min")
    return fail(diag::Code::TVS005, name + ": reduction must be update, add, mul, mean, max or min, got \"" + reduction + "\"");
  return ok(tensor(x->shape, x->dtype, x->shape ? -1 : x->rank()));
}

// one_hot: indices gain an axis of length depth at `axis`; the dtype is on_value's.
InferResult inferOneHot(const InferInput& in) {
  InferResult r;
  const StructInfo* idx = tensorOperand(in, 0, r);
  if (!idx || !intIndices(idx, "R.one_hot", r)) return r;
  const StructInfo* on = in.arg(1);
  std::string dt = on && on->kind == StructInfo::Kind::Prim && !on->dtype.empty() ? on->dtype : "float32";
  auto depth = intAttr(in.attr("depth"));
  if (depth && *depth <= 0) return fail(diag::Code::TVS005, "R.one_hot: depth must be positive");
  int64_t axis = intAttr(in.attr("axis")).value_or(-1);
  if (!idx->shape || !depth) return ok(tensor(std::nullopt, dt, idx->rank() < 0 ? -1 : idx->rank() + 1));
  int rank = static_cast<int>(idx->shape->size()) + 1;
  auto a = normalizeAxis(axis, rank);
  if (!a) return fail(diag::Code::TVS103, "R.one_hot: axis " + std::to_string(axis) + " is out of range for a result of rank " + std::to_string(rank));
  Dims out = *idx->shape;
  out.insert(out.begin() + *a, dim(*depth));
  return ok(tensor(out, dt));
}

InferResult inferSliceScatter(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* src = x ? tensorOperand(in, 1, r) : nullptr;
  if (!x || !src) return r;
  if (x->rank() >= 0 && src->rank() >= 0 && x->rank() != src->rank())
    return fail(diag::Code::TVS103, "R.slice_scatter: src has rank " + std::to_string(src->rank()) + ", input rank " + std::to_string(x->rank()), 1);
  return ok(tensor(x->shape, x->dtype, x->shape ? -1 : x->rank()));
}

}  // namespace

void addIndexingOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(withKernel(op("gather_elements", {tensor("data"), tensor("indices"), attr("axis", ParamKind::Int, i(0))}, P,
                              "data at indices along `axis` (ONNX GatherElements); the result has the indices' shape.",
                              inferGatherElements), kernels::gatherElements));
  out.push_back(withKernel(op("gather_nd", {tensor("data"), tensor("indices"), attr("batch_dims", ParamKind::Int, i(0))}, P,
                              "The slices of data at the index tuples in indices' last axis (ONNX GatherND).", inferGatherNd),
                           kernels::gatherNd));
  out.push_back(withKernel(op("scatter_elements", {tensor("data"), tensor("indices"), tensor("updates"), attr("axis", ParamKind::Int, i(0)),
                                                   attr("reduction", ParamKind::String, s("update"))},
                              P, "data with updates written (or combined: add, mul, mean, max, min) at indices along `axis` "
                                 "(ONNX ScatterElements).", inferScatter), kernels::scatterElements));
  out.push_back(withKernel(op("scatter_nd", {tensor("data"), tensor("indices"), tensor("updates"), attr("reduction", ParamKind::String, s("update"))},
                              P, "data with updates written (or combined: add, mul, max, min) at the index tuples of indices' last "
                                 "axis (ONNX ScatterND).", inferScatter), kernels::scatterNd));
  out.push_back(withKernel(op("one_hot", {tensor("indices"), expr("on_value", ParamKind::Prim), expr("off_value", ParamKind::Prim),
                                          required("depth", ParamKind::Int), attr("axis", ParamKind::Int, i(-1))},
                              P, "on_value where the new axis' position equals the index, off_value elsewhere.", inferOneHot),
                           kernels::oneHot));
  out.push_back(withKernel(op("slice_scatter", {tensor("input_tensor"), tensor("src"), expr("start", ParamKind::Prim),
                                                expr("end", ParamKind::Prim), expr("step", ParamKind::Prim), attr("axis", ParamKind::Int, i(0))},
                              P, "input_tensor with src written into positions start, start + step, ... < end of `axis`.",
                              inferSliceScatter), kernels::sliceScatter));
}

}  // namespace tvms::op
