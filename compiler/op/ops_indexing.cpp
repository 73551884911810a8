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

// index_tensor: data[i0, i1, ...]: the index tensors' broadcast shape, then data's remaining axes.
InferResult inferIndexTensor(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto idx = tensorListOperand(in, 1, r);
  if (!idx) return r;
  if (x->rank() >= 0 && static_cast<int>(idx->size()) > x->rank())
    return fail(diag::Code::TVS103, "R.index_tensor: " + std::to_string(idx->size()) + " index tensors for a tensor of rank " + std::to_string(x->rank()), 1);
  std::optional<Dims> shape = Dims{};
  StructInfoPtr acc = tensor(Dims{}, "int64");
  for (auto* i : *idx) {
    if (!i->dtype.empty() && !isIntDType(i->dtype)) return fail(diag::Code::TVS102, "R.index_tensor: indices must be integer tensors, got " + i->dtype, 1);
    Broadcast b = broadcast(*acc, *i);
    if (!b.error.empty()) return fail(diag::Code::TVS101, "R.index_tensor: index " + b.error, 1);
    acc = tensor(b.shape, "int64", b.shape ? -1 : b.ndim);
  }
  if (!acc->shape || !x->shape) return ok(tensor(std::nullopt, x->dtype));
  Dims out = *acc->shape;
  out.insert(out.end(), x->shape->begin() + static_cast<long>(idx->size()), x->shape->end());
  return ok(tensor(out, x->dtype));
}

InferResult inferIndexPut(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto idx = tensorListOperand(in, 1, r);
  const StructInfo* v = idx ? tensorOperand(in, 2, r) : nullptr;
  if (!idx || !v) return r;
  if (!x->dtype.empty() && !v->dtype.empty() && x->dtype != v->dtype)
    return fail(diag::Code::TVS102, "R.index_put: values are " + v->dtype + ", data is " + x->dtype, 2);
  // values must broadcast to the indexed shape (the indices' broadcast shape, then data's other axes)
  InferInput asIndexTensor = in;
  InferResult indexed = inferIndexTensor(asIndexTensor);
  if (indexed.sinfo && indexed.sinfo->shape && v->shape) {
    Broadcast b = broadcast(*v, *indexed.sinfo);
    if (!b.error.empty() || (b.shape && b.shape->size() != indexed.sinfo->shape->size()))
      return fail(diag::Code::TVS101, "R.index_put: values of shape " + shapeText(*v) + " do not broadcast to the indexed shape " +
                                          shapeText(*indexed.sinfo), 2);
    if (b.shape)
      for (size_t d = 0; d < b.shape->size(); ++d)
        if (provablyDifferent((*b.shape)[d], (*indexed.sinfo->shape)[d]))
          return fail(diag::Code::TVS101, "R.index_put: values of shape " + shapeText(*v) + " do not broadcast to the indexed shape " +
                                              shapeText(*indexed.sinfo), 2);
  }
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
  out.push_back(withKernel(op("index_tensor", {tensor("data"), expr("indices", ParamKind::TensorList)}, P,
                              "data[indices[0], indices[1], ...] (PyTorch's advanced indexing): the index tensors broadcast together.",
                              inferIndexTensor), kernels::indexTensor));
  out.push_back(withKernel(op("index_put", {tensor("data"), expr("indices", ParamKind::TensorList), tensor("values"),
                                            attr("accumulate", ParamKind::Bool, b(false))},
                              P, "data with values written (accumulate: added) at the index tuples of indices (PyTorch's index_put).",
                              inferIndexPut), kernels::indexPut));
  out.push_back(withKernel(op("slice_scatter", {tensor("input_tensor"), tensor("src"), expr("start", ParamKind::Prim),
                                                expr("end", ParamKind::Prim), expr("step", ParamKind::Prim), attr("axis", ParamKind::Int, i(0))},
                              P, "input_tensor with src written into positions start, start + step, ... < end of `axis`.",
                              inferSliceScatter), kernels::sliceScatter));
}

}  // namespace tvms::op
