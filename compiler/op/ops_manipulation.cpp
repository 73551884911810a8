// Shape manipulation, creation, indexing and sorting ops.
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {


InferResult inferReshape(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto target = shapeOperand(in, 1);
  if (!target) return ok(tensor(std::nullopt, x->dtype));
  Dims out = *target;
  int inferred = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (auto c = constInt(out[i]); c && *c == -1) {
      if (inferred >= 0) return fail(diag::Code::TVS101, "R.reshape: at most one dimension may be -1", 1);
      inferred = static_cast<int>(i);
    }
  }
  std::optional<int64_t> have;
  if (x->shape) have = product(*x->shape);
  if (inferred >= 0) {
    Dims known = out;
    known.erase(known.begin() + inferred);
    auto rest = product(known);
    if ((!have || !rest) && x->shape) {
      // Symbolic: the -1 is the element count over the other dims, checked to divide at run time.
      PrimExprPtr count = dim(1), others = dim(1);
      for (auto& d : *x->shape) count = mul(count, d);
      for (auto& d : known) others = mul(others, d);
      out[inferred] = floorDiv(count, others);
      InferResult result = ok(tensor(out, x->dtype));
      result.assumedEqual.push_back({count, mul(out[inferred], others)});
      return result;
    }
    if (!have || !rest) return ok(tensor(std::nullopt, x->dtype, static_cast<int>(out.size())));
    if (*rest == 0 || *have % *rest != 0)
      return fail(diag::Code::TVS101, "R.reshape: " + std::to_string(*have) + " elements of " + shapeText(*x) +
                                " cannot fill " + dimsText(*target), 1);
    out[inferred] = dim(*have / *rest);
    return ok(tensor(out, x->dtype));
  }
  auto want = product(out);
  const int64_t haveCount = have.value_or(-1), wantCount = want.value_or(-1);
  if (haveCount >= 0 && wantCount >= 0 && haveCount != wantCount)
    return fail(diag::Code::TVS101, "R.reshape changes the element count: " + shapeText(*x) + " has " + std::to_string(haveCount) +
                              " elements, " + dimsText(out) + " has " + std::to_string(wantCount), 1);
  InferResult result = ok(tensor(out, x->dtype));
  if (x->shape && (haveCount < 0 || wantCount < 0)) {  // symbolic counts: equal only at run time
    PrimExprPtr from = dim(1), to = dim(1);
    for (auto& d : *x->shape) from = mul(from, d);
    for (auto& d : out) to = mul(to, d);
    if (!sameDim(from, to)) result.assumedEqual.push_back({from, to});
  }
  return result;
}

InferResult inferPermute(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  int rank = x->rank();
  auto written = intList(in.attr("axes"));
  if (rank < 0) return ok(tensor(std::nullopt, x->dtype));
  std::vector<int> perm;
  if (written) {
    if (static_cast<int>(written->size()) != rank)
      return fail(diag::Code::TVS103, "R.permute_dims: " + std::to_string(written->size()) + " axes for a tensor of rank " +
                                std::to_string(rank));
    auto n = axes(*written, rank, "R.permute_dims", r);
    if (!n) return r;
    perm = *n;
    if (std::set<int>(perm.begin(), perm.end()).size() != perm.size())
      return fail(diag::Code::TVS103, "R.permute_dims: axes repeat an axis");
  } else {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype, rank));
  Dims out;
  for (int a : perm) out.push_back((*x->shape)[a]);
  return ok(tensor(out, x->dtype));
}

InferResult inferExpandDims(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto written = intList(in.attr("axis")).value_or(std::vector<int64_t>{});
  int rank = x->rank();
  if (rank < 0) return ok(tensor(std::nullopt, x->dtype));
  int outRank = rank + static_cast<int>(written.size());
  auto n = axes(written, outRank, "R.expand_dims", r);
  if (!n) return r;
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype, outRank));
  std::set<int> inserted(n->begin(), n->end());
  Dims out;
  size_t k = 0;
  for (int i = 0; i < outRank; ++i) out.push_back(inserted.count(i) ? dim(1) : (*x->shape)[k++]);
  return ok(tensor(out, x->dtype));
}

InferResult inferSqueeze(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype));
  int rank = x->rank();
  std::set<int> drop;
  if (auto written = intList(in.attr("axis"))) {
    auto n = axes(*written, rank, "R.squeeze", r);
    if (!n) return r;
    // An axis whose size is not 1 is kept, as TVM's current squeeze (and PyTorch's) does.
    for (int a : *n)
      if (!provablyDifferent((*x->shape)[a], dim(1))) drop.insert(a);
  } else {
    for (int i = 0; i < rank; ++i)
      if (auto c = constInt((*x->shape)[i]); c && *c == 1) drop.insert(i);
  }
  Dims out;
  for (int i = 0; i < rank; ++i) if (!drop.count(i)) out.push_back((*x->shape)[i]);
  return ok(tensor(out, x->dtype));
}

InferResult inferFlatten(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype, 1));
  PrimExprPtr n = dim(1);
  for (auto& d : *x->shape) n = mul(n, d);
  return ok(tensor(Dims{n}, x->dtype));
}

InferResult inferBroadcastTo(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto target = shapeOperand(in, 1);
  if (!target) return ok(tensor(std::nullopt, x->dtype));
  StructInfoPtr t = tensor(*target, x->dtype);
  Broadcast b = broadcast(*x, *t);
  if (!b.error.empty()) return fail(diag::Code::TVS101, "R.broadcast_to: " + b.error, 1);
  if (x->shape && x->shape->size() > target->size())
    return fail(diag::Code::TVS101, "R.broadcast_to: cannot broadcast " + shapeText(*x) + " to the lower rank " + dimsText(*target), 1);
  return ok(t);
}

InferResult inferTake(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  // A scalar index (R.prim_value): the axis is taken away, as indexing with an int does.
  if (in.args.size() > 1 && in.args[1] && in.args[1]->kind == StructInfo::Kind::Prim) {
    auto axis = intAttr(in.attr("axis"));
    if (!axis) return ok(tensor(Dims{}, x->dtype));
    auto n = axes({*axis}, x->rank(), "R.take", r);
    if (!n) return r;
    if (!x->shape) return ok(tensor(std::nullopt, x->dtype, x->rank() - 1));
    Dims out = *x->shape;
    out.erase(out.begin() + (*n)[0]);
    return ok(tensor(out, x->dtype));
  }
  const StructInfo* idx = tensorOperand(in, 1, r);
  if (!idx) return r;
  if (!idx->dtype.empty() && !isIntDType(idx->dtype))
    return fail(diag::Code::TVS102, "R.take: indices must be an integer tensor, got " + idx->dtype, 1);
  auto axis = intAttr(in.attr("axis"));
  if (!axis) return ok(tensor(idx->shape, x->dtype, idx->shape ? -1 : idx->ndim));
  auto n = axes({*axis}, x->rank(), "R.take", r);
  if (!n) return r;
  if (!x->shape || !idx->shape) return ok(tensor(std::nullopt, x->dtype));
  Dims out(x->shape->begin(), x->shape->begin() + (*n)[0]);
  out.insert(out.end(), idx->shape->begin(), idx->shape->end());
  out.insert(out.end(), x->shape->begin() + (*n)[0] + 1, x->shape->end());
  return ok(tensor(out, x->dtype));
}

InferResult inferStridedSlice(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto written = intList(in.attr("axes"));
  auto begin = intList(in.attr("begin"));
  auto end = intList(in.attr("end"));
  auto strides = intList(in.attr("strides"));
  if (!written || !begin || !end) return ok(tensor(std::nullopt, x->dtype, x->rank()));
  if (begin->size() != written->size() || end->size() != written->size() || (strides && strides->size() != written->size() && strides->size() != 1))
    return fail(diag::Code::TVS005, "R.strided_slice: axes, begin, end (and strides) must have the same length");
  auto n = axes(*written, x->rank(), "R.strided_slice", r);
  if (!n) return r;
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype, x->rank()));
  Dims out = *x->shape;
  for (size_t k = 0; k < n->size(); ++k) {
    int a = (*n)[k];
    int64_t step = strides ? (*strides)[strides->size() == 1 ? 0 : k] : 1;
    auto len = constInt(out[a]);
    if (!len || step == 0) return ok(tensor(std::nullopt, x->dtype, x->rank()));
    auto clampIndex = [&](int64_t v) {
      if (v < 0) v += *len;
      int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? *len : *len - 1;
      return std::clamp(v, lo, hi);
    };
    int64_t b = clampIndex((*begin)[k]), e = clampIndex((*end)[k]);
    int64_t count = step > 0 ? (e > b ? (e - b + step - 1) / step : 0) : (b > e ? (b - e - step - 1) / -step : 0);
    out[a] = dim(count);
  }
  return ok(tensor(out, x->dtype));
}

InferResult inferSplit(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  const ir::Value* ios = in.attr("indices_or_sections");
  auto axis = intAttr(in.attr("axis")).value_or(0);
  auto n = axes({axis}, x->rank(), "R.split", r);
  if (!n || x->rank() < 0) return r.issues.empty() ? unknown() : r;
  int a = (*n)[0];
  std::vector<StructInfoPtr> parts;
  if (ios && ios->kind == ir::Value::Kind::Int) {
    int64_t sections = ios->integer;
    if (sections <= 0) return fail(diag::Code::TVS005, "R.split: the number of sections must be positive");
    if (sections == 1) return ok(tupleOf({tensor(x->shape, x->dtype, x->shape ? -1 : x->rank())}));
    // As TVM: each piece is ceil(len / sections) long, the last one what is left.
    PrimExprPtr len = x->shape ? (*x->shape)[a] : nullptr;
    PrimExprPtr piece = len ? ceilDiv(len, dim(sections)) : nullptr;
    for (int64_t i = 0; i < sections; ++i) {
      if (!x->shape) { parts.push_back(tensor(std::nullopt, x->dtype, x->rank())); continue; }
      Dims d = *x->shape;
      d[a] = i + 1 < sections ? piece : sub(len, mul(piece, dim(sections - 1)));
      if (auto c = constInt(d[a]); c && *c < 0) d[a] = dim(0);
      parts.push_back(tensor(d, x->dtype));
    }
    return ok(tupleOf(parts));
  }
  auto indices = intList(ios);
  if (!indices) return unknown();
  int64_t prev = 0;
  auto len = x->shape ? constInt((*x->shape)[a]) : std::nullopt;
  for (size_t i = 0; i <= indices->size(); ++i) {
    if (!x->shape) { parts.push_back(tensor(std::nullopt, x->dtype, x->rank())); continue; }
    Dims d = *x->shape;
    if (i < indices->size()) {
      d[a] = dim((*indices)[i] - prev);
      prev = (*indices)[i];
    } else {
      d[a] = len ? dim(*len - prev) : sub((*x->shape)[a], dim(prev));
    }
    parts.push_back(tensor(d, x->dtype));
  }
  return ok(tupleOf(parts));
}

// concat / stack: every tensor the same dtype and rank, and the same dims except (concat) the axis.
InferResult joinRule(const InferInput& in, bool stack) {
  InferResult r;
  auto ts = tensorListOperand(in, 0, r);
  if (!ts || ts->empty()) return r;
  const std::string name = in.def.scriptName();
  const StructInfo& first = *(*ts)[0];
  for (size_t i = 1; i < ts->size(); ++i)
    if (!sameDType(first, *(*ts)[i], name, r, 0, 0)) return r;
  int rank = first.rank();
  for (auto* t : *ts)
    if (t->rank() >= 0 && rank >= 0 && t->rank() != rank)
      return fail(diag::Code::TVS103, name + ": tensors of different ranks (" + std::to_string(rank) + " and " +
                                std::to_string(t->rank()) + ")", 0);
  int64_t axis = intAttr(in.attr("axis")).value_or(0);
  if (rank < 0) return ok(tensor(std::nullopt, first.dtype));
  auto n = axes({axis}, stack ? rank + 1 : rank, name, r);
  if (!n) return r;
  int a = (*n)[0];
  for (auto* t : *ts) if (!t->shape) return ok(tensor(std::nullopt, first.dtype, stack ? rank + 1 : rank));
  Dims out = *first.shape;
  PrimExprPtr total = out.empty() ? dim(0) : out[stack ? 0 : a];
  for (size_t i = 1; i < ts->size(); ++i) {
    const Dims& d = *(*ts)[i]->shape;
    for (int k = 0; k < rank; ++k) {
      if (!stack && k == a) continue;
      if (provablyDifferent(out[k], d[k]))
        return fail(diag::Code::TVS101, name + ": shapes " + dimsText(out) + " and " + dimsText(d) + " differ in axis " +
                                  std::to_string(k) + (stack ? "" : " (only the concatenation axis may differ)"), 0);
    }
    if (!stack) total = add(total, d[a]);
  }
  if (stack) out.insert(out.begin() + a, dim(static_cast<int64_t>(ts->size())));
  else out[a] = total;
  return ok(tensor(out, first.dtype));
}
InferResult inferConcat(const InferInput& in) { return joinRule(in, false); }
InferResult inferStack(const InferInput& in) { return joinRule(in, true); }

InferResult inferSameShape(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return ok(withDType(*x, stringAttr(in.attr("dtype")).value_or(x->dtype)));
}

InferResult inferTriangle(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (x->rank() >= 0 && x->rank() < 2)
    return fail(diag::Code::TVS103, in.def.scriptName() + " needs a tensor of rank >= 2, got rank " + std::to_string(x->rank()), 0);
  return ok(withDType(*x, x->dtype));
}

InferResult inferFull(const InferInput& in) {
  InferResult r;
  const StructInfo* fill = tensorOperand(in, 1, r);
  auto shape = shapeOperand(in, 0);
  std::string dt = stringAttr(in.attr("dtype")).value_or(fill ? fill->dtype : "");
  if (fill && fill->rank() > 0)
    return fail(diag::Code::TVS103, "R.full: fill_value must be a scalar (rank 0), got rank " + std::to_string(fill->rank()), 1);
  return ok(tensor(shape, dt));
}

InferResult inferFilled(const InferInput& in) {
  auto shape = shapeOperand(in, 0);
  return ok(tensor(shape, stringAttr(in.attr("dtype")).value_or("")));
}

InferResult inferArange(const InferInput& in) {
  std::string dt = stringAttr(in.attr("dtype")).value_or("int64");
  auto start = primOperand(in, 0), end = primOperand(in, 1);
  int64_t step = intAttr(in.attr("step")).value_or(1);
  if (in.args.size() < 2 || !in.args[1]) { end = start; start = 0; }
  if (step == 0) return fail(diag::Code::TVS005, "R.arange: step must not be 0");
  if (start && end) {
    int64_t n = std::max<int64_t>(0, (*end - *start + step + (step > 0 ? -1 : 1)) / step);
    return ok(tensor(Dims{dim(n)}, dt));
  }
  return ok(tensor(std::nullopt, dt, 1));
}

InferResult inferAsType(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return ok(withDType(*x, stringAttr(in.attr("dtype")).value_or("")));
}

InferResult inferSort(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (auto axis = intAttr(in.attr("axis")); axis && x->rank() >= 0 && !axes({*axis}, x->rank(), in.def.scriptName(), r))
    return r;
  bool indices = in.def.name == "relax.argsort";
  return ok(withDType(*x, indices ? stringAttr(in.attr("dtype")).value_or("int32") : x->dtype));
}

InferResult inferTopk(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  int64_t axis = intAttr(in.attr("axis")).value_or(-1);
  int64_t k = intAttr(in.attr("k")).value_or(1);
  std::string idt = stringAttr(in.attr("dtype")).value_or("int32");
  std::string ret = stringAttr(in.attr("ret_type")).value_or("both");
  std::optional<Dims> shape;
  if (x->rank() >= 0) {
    auto n = axes({axis}, x->rank(), "R.topk", r);
    if (!n) return r;
    if (x->shape) {
      shape = *x->shape;
      if (auto len = constInt((*shape)[(*n)[0]]); len && k > *len)
        return fail(diag::Code::TVS101, "R.topk: k=" + std::to_string(k) + " is larger than axis " + std::to_string((*n)[0]) +
                                  " (size " + std::to_string(*len) + ")");
      if (k >= 1) (*shape)[(*n)[0]] = dim(k);
    }
  }
  auto values = tensor(shape, x->dtype, shape ? -1 : x->rank());
  auto idx = tensor(shape, idt, shape ? -1 : x->rank());
  if (ret == "values") return ok(values);
  if (ret == "indices") return ok(idx);
  return ok(tupleOf({values, idx}));
}

// dynamic_strided_slice: begin, end and strides are 1-D int64 tensors read at run time, so only the
// rank of the result is known (x's).
InferResult inferDynamicStridedSlice(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  for (int i = 1; i <= 3; ++i) {
    const StructInfo* t = tensorOperand(in, i, r);
    if (!t) return r;
    if (t->rank() >= 0 && t->rank() != 1) return fail(diag::Code::TVS103, "R.dynamic_strided_slice: begin, end and strides must be 1-D, got rank " + std::to_string(t->rank()), i);
    if (!t->dtype.empty() && !isIntDType(t->dtype)) return fail(diag::Code::TVS102, "R.dynamic_strided_slice: begin, end and strides must be integer tensors, got " + t->dtype, i);
    auto n = t->shape ? constInt((*t->shape)[0]) : std::nullopt;
    if (n && x->rank() >= 0 && *n > x->rank())
      return fail(diag::Code::TVS101, "R.dynamic_strided_slice: " + std::to_string(*n) + " values for a tensor of rank " + std::to_string(x->rank()), i);
  }
  return ok(tensor(std::nullopt, x->dtype, x->rank()));
}

}  // namespace

void addManipulationOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(withKernel(op("reshape", {tensor("x"), expr("shape", ParamKind::Shape)}, P,
                   "Reshapes x to `shape` (one dimension may be -1); the element count must not change.", inferReshape),
                           kernels::copyLike));
  out.push_back(withKernel(op("permute_dims", {tensor("x"), optional("axes", ParamKind::IntList)}, P,
                   "Permutes the axes of x (reverses them when `axes` is None).", inferPermute), kernels::permuteDims));
  out.push_back(withKernel(op("expand_dims", {tensor("x"), required("axis", ParamKind::IntList)}, P,
                   "Inserts size-1 axes at `axis`.", inferExpandDims), kernels::copyLike));
  out.push_back(withKernel(op("squeeze", {tensor("x"), optional("axis", ParamKind::IntList)}, P,
                   "Removes size-1 axes (those in `axis`, or all of them).", inferSqueeze), kernels::copyLike));
  out.push_back(withKernel(op("flatten", {tensor("x")}, P, "Flattens x to one dimension.", inferFlatten), kernels::copyLike));
  out.push_back(elementwiseOp(op("broadcast_to", {tensor("x"), expr("shape", ParamKind::Shape)}, P,
                   "Broadcasts x to `shape`, numpy-style.", inferBroadcastTo), scalar::identity));
  out.push_back(withKernel(op("take", {tensor("x"), tensor("indices"), optional("axis", ParamKind::Int),
                            attr("mode", ParamKind::String, s("fast"))},
                   P, "Gathers elements of x at `indices` along `axis` (of the flattened tensor when None).", inferTake), kernels::take));
  out.push_back(withKernel(op("strided_slice",
                   {tensor("x"), required("axes", ParamKind::IntList), required("begin", ParamKind::IntList),
                    required("end", ParamKind::IntList), optional("strides", ParamKind::IntList),
                    attr("assume_inbound", ParamKind::Bool, b(false))},
                   P, "Slices x along `axes` from `begin` to `end` with `strides`.", inferStridedSlice), kernels::stridedSlice));
  out.push_back(withKernel(op("split", {tensor("x"), required("indices_or_sections", ParamKind::IntList),
                             attr("axis", ParamKind::Int, i(0))},
                   P, "Splits x along `axis` into equal sections or at the given indices; returns a tuple.", inferSplit), kernels::split));
  out.push_back(withKernel(op("concat", {expr("tensors", ParamKind::TensorList), attr("axis", ParamKind::Int, i(0))},
                   DeviceRule::Lenient, "Concatenates the tensors along `axis`. Tensors on different vdevices "
                                        "give a result with no vdevice in TVM (no error).", inferConcat), kernels::joinOp<false>));
  out.push_back(withKernel(op("stack", {expr("tensors", ParamKind::TensorList), attr("axis", ParamKind::Int, i(0))},
                   DeviceRule::Lenient, "Stacks the tensors along a new axis `axis`.", inferStack), kernels::joinOp<true>));
  out.push_back(withKernel(op("tril", {tensor("x"), attr("k", ParamKind::Int, i(0))}, P, "Lower triangle of x.", inferTriangle), kernels::triangleOp<true>));
  out.push_back(withKernel(op("triu", {tensor("x"), attr("k", ParamKind::Int, i(0))}, P, "Upper triangle of x.", inferTriangle), kernels::triangleOp<false>));

  out.push_back(withKernel(op("full", {expr("shape", ParamKind::Shape), tensor("fill_value"), optional("dtype", ParamKind::DType)},
                   DeviceRule::FillValue, "A tensor of `shape` filled with fill_value; it takes fill_value's vdevice.", inferFull), kernels::fillOp<kernels::Fill::Value>));
  for (auto* n : {"full_like"})
    out.push_back(withKernel(op(n, {tensor("x"), tensor("fill_value"), optional("dtype", ParamKind::DType)}, P,
                     "A tensor like x filled with fill_value.", inferSameShape), kernels::fillOp<kernels::Fill::Value>));
  for (auto* n : {"zeros_like", "ones_like"})
    out.push_back(withKernel(op(n, {tensor("x"), optional("dtype", ParamKind::DType)}, P,
                     std::string("A tensor like x filled with ") + (n[0] == 'z' ? "zeros." : "ones."), inferSameShape),
                             n[0] == 'z' ? kernels::fillOp<kernels::Fill::Zeros> : kernels::fillOp<kernels::Fill::Ones>));
  for (auto* n : {"zeros", "ones"})
    out.push_back(withKernel(op(n, {expr("shape", ParamKind::Shape), required("dtype", ParamKind::DType)}, DeviceRule::NoDevice,
                     std::string("A tensor of `shape` filled with ") + (n[0] == 'z' ? "zeros" : "ones") +
                         "; it has no vdevice.", inferFilled), n[0] == 'z' ? kernels::fillOp<kernels::Fill::Zeros> : kernels::fillOp<kernels::Fill::Ones>));
  out.push_back(withKernel(op("arange", {expr("start", ParamKind::Prim), optExpr("end", ParamKind::Prim),
                              attr("step", ParamKind::Any, i(1)), optional("dtype", ParamKind::DType)},
                   DeviceRule::NoDevice, "Evenly spaced values in [start, end); it has no vdevice.", inferArange), kernels::arange));
  out.push_back(elementwiseOp(op("astype", {tensor("x"), required("dtype", ParamKind::DType)}, P, "Casts x to `dtype`.", inferAsType), scalar::asType));

  out.push_back(withKernel(op("sort", {tensor("x"), attr("axis", ParamKind::Int, i(-1)), attr("descending", ParamKind::Bool, b(false))},
                   P, "Sorts x along `axis`.", inferSort), kernels::orderingOp<kernels::Ordering::Sort>));
  out.push_back(withKernel(op("argsort", {tensor("data"), attr("axis", ParamKind::Int, i(-1)),
                               attr("descending", ParamKind::Bool, b(false)), attr("dtype", ParamKind::DType, s("int32"))},
                   P, "Indices that sort data along `axis`.", inferSort), kernels::orderingOp<kernels::Ordering::Argsort>));
  out.push_back(withKernel(op("topk", {tensor("data"), attr("k", ParamKind::Int, i(1)), attr("axis", ParamKind::Int, i(-1)),
                            attr("ret_type", ParamKind::String, s("both")), attr("largest", ParamKind::Bool, b(true)),
                            attr("dtype", ParamKind::DType, s("int32"))},
                   P, "The k largest (or smallest) elements along `axis`, with their indices.", inferTopk), kernels::orderingOp<kernels::Ordering::Topk>));

  out.push_back(withShapeFunction(op("dynamic_strided_slice", {tensor("x"), tensor("begin"), tensor("end"), tensor("strides")}, P,
                                     "Slices x as strided_slice does, with begin, end and strides given as 1-D integer tensors (one value per "
                                     "leading axis) read at run time: numpy's slicing, negative values counted from the end, clamped; the "
                                     "result's shape comes from the values (a stride of 0 gives an empty axis).",
                                     inferDynamicStridedSlice),
                                  kernels::dynamicStridedSliceShape, kernels::dynamicStridedSlice));
}

}  // namespace tvms::op
