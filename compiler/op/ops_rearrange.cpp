// Ops that rearrange or repeat a tensor's elements (tile, repeat, flip, nn.pad, nn.pixel_shuffle,
// nn.batch_flatten, meshgrid, collapse_sum_*) and build one from sizes (eye, eye_like), with TVM's
// shape rules (src/relax/op/tensor/manipulate.cc, create.cc, nn/nn.cc).
#include "compiler/op/index_map.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

// tile: a data of rank d and repeats of length l give rank max(d, l); the shorter is padded with
// leading 1s, and each dim is multiplied by its repeat.
InferResult inferTile(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto reps = intList(in.attr("repeats"));
  if (!reps) return ok(tensor(std::nullopt, x->dtype));
  for (int64_t v : *reps)
    if (v < 0) return fail(diag::Code::TVS005, "R.tile: repeats must not be negative, got " + std::to_string(v));
  if (!x->shape) return ok(tensor(std::nullopt, x->dtype, x->rank() < 0 ? -1 : std::max<int>(x->rank(), static_cast<int>(reps->size()))));
  size_t rank = std::max(x->shape->size(), reps->size());
  Dims out;
  for (size_t i = 0; i < rank; ++i) {
    size_t fromX = rank - x->shape->size(), fromR = rank - reps->size();
    PrimExprPtr d = i >= fromX ? (*x->shape)[i - fromX] : dim(1);
    int64_t rep = i >= fromR ? (*reps)[i - fromR] : 1;
    out.push_back(mul(d, dim(rep)));
  }
  return ok(tensor(out, x->dtype));
}

// repeat: each element `repeats` times along `axis`, or of the flattened tensor when axis is None.
InferResult inferRepeat(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto reps = intAttr(in.attr("repeats"));
  if (reps && *reps < 0) return fail(diag::Code::TVS005, "R.repeat: repeats must not be negative");
  auto axis = intAttr(in.attr("axis"));
  if (!axis) {
    if (!x->shape || !reps) return ok(tensor(std::nullopt, x->dtype, 1));
    PrimExprPtr n = dim(1);
    for (auto& d : *x->shape) n = mul(n, d);
    return ok(tensor(Dims{mul(n, dim(*reps))}, x->dtype));
  }
  auto n = axes({*axis}, x->rank(), "R.repeat", r);
  if (!n && x->rank() >= 0) return r;
  if (!x->shape || !reps) return ok(tensor(std::nullopt, x->dtype, x->rank()));
  Dims out = *x->shape;
  out[(*n)[0]] = mul(out[(*n)[0]], dim(*reps));
  return ok(tensor(out, x->dtype));
}

InferResult inferFlip(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (auto axis = intAttr(in.attr("axis")); axis && x->rank() >= 0 && !axes({*axis}, x->rank(), "R.flip", r)) return r;
  return ok(tensor(x->shape, x->dtype, x->shape ? -1 : x->rank()));
}

// nn.pad: pad_width holds (before, after) per axis, leading axes first.
InferResult inferPad(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto width = intList(in.attr("pad_width"));
  if (!width || !x->shape) return ok(tensor(std::nullopt, x->dtype, x->rank()));
  size_t rank = x->shape->size();
  if (width->size() != 2 * rank)
    return fail(diag::Code::TVS005, "R.nn.pad: pad_width has " + std::to_string(width->size()) + " entries for a tensor of rank " +
                                        std::to_string(rank) + " (two per axis)");
  Dims out;
  for (size_t i = 0; i < rank; ++i) out.push_back(add((*x->shape)[i], dim((*width)[2 * i] + (*width)[2 * i + 1])));
  return ok(tensor(out, x->dtype));
}

// nn.pixel_shuffle (NCHW): (N, C * r * r, H, W) -> (N, C, H * r, W * r).
InferResult inferPixelShuffle(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto f = intAttr(in.attr("upscale_factor"));
  if (x->rank() >= 0 && x->rank() != 4) return fail(diag::Code::TVS103, "R.nn.pixel_shuffle takes a 4-D NCHW tensor, got rank " + std::to_string(x->rank()));
  if (!f || *f <= 0 || !x->shape) return ok(tensor(std::nullopt, x->dtype, 4));
  const Dims& s = *x->shape;
  if (auto c = constInt(s[1]); c && *c % (*f * *f) != 0)
    return fail(diag::Code::TVS101, "R.nn.pixel_shuffle: channels " + std::to_string(*c) + " are not a multiple of " + std::to_string(*f * *f));
  return ok(tensor(Dims{s[0], floorDiv(s[1], dim(*f * *f)), mul(s[2], dim(*f)), mul(s[3], dim(*f))}, x->dtype));
}

InferResult inferBatchFlatten(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (!x->shape || x->shape->empty()) return ok(tensor(std::nullopt, x->dtype, 2));
  PrimExprPtr rest = dim(1);
  for (size_t i = 1; i < x->shape->size(); ++i) rest = mul(rest, (*x->shape)[i]);
  return ok(tensor(Dims{(*x->shape)[0], rest}, x->dtype));
}

// meshgrid: N vectors give N tensors of their lengths' shape ("xy" swaps the first two axes).
InferResult inferMeshgrid(const InferInput& in) {
  InferResult r;
  auto xs = tensorListOperand(in, 0, r);
  if (!xs) return r;
  std::string indexing = stringAttr(in.attr("indexing")).value_or("ij");
  if (indexing != "ij" && indexing != "xy") return fail(diag::Code::TVS005, "R.meshgrid: indexing must be \"ij\" or \"xy\", got \"" + indexing + "\"");
  std::optional<Dims> shape = Dims{};
  for (auto* x : *xs) {
    if (x->rank() > 1) return fail(diag::Code::TVS103, "R.meshgrid takes 1-D tensors, got rank " + std::to_string(x->rank()));
    if (!x->shape) shape.reset();
    else if (shape) shape->push_back(x->shape->empty() ? dim(1) : (*x->shape)[0]);
  }
  if (shape && indexing == "xy" && shape->size() >= 2) std::swap((*shape)[0], (*shape)[1]);
  std::vector<StructInfoPtr> fields;
  for (auto* x : *xs) fields.push_back(tensor(shape, x->dtype, shape ? -1 : static_cast<int>(xs->size())));
  return ok(tupleOf(std::move(fields)));
}

// eye(n, m=None, k=0): an n x m matrix with ones on diagonal k.
InferResult inferEye(const InferInput& in) {
  std::string dt = stringAttr(in.attr("dtype")).value_or("float32");
  auto n = primOperand(in, 0);
  auto m = in.arg(1) ? primOperand(in, 1) : n;
  if ((n && *n < 0) || (m && *m < 0)) return fail(diag::Code::TVS005, "R.eye: the sizes must not be negative");
  if (!n || !m) return ok(tensor(std::nullopt, dt, 2));
  return ok(tensor(Dims{dim(*n), dim(*m)}, dt));
}

// reverse_sequence: data's shape; seq_lengths a 1-D integer tensor of data's batch_axis length.
InferResult inferReverseSequence(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* lengths = x ? tensorOperand(in, 1, r) : nullptr;
  if (!lengths) return r;
  if (!lengths->dtype.empty() && lengths->dtype != "int32" && lengths->dtype != "int64")
    return fail(diag::Code::TVS102, "R.reverse_sequence: seq_lengths must be int32 or int64, got " + lengths->dtype);
  if (lengths->rank() >= 0 && lengths->rank() != 1) return fail(diag::Code::TVS103, "R.reverse_sequence: seq_lengths must be 1-D");
  if (x->rank() >= 0) {
    auto seq = normalizeAxis(intAttr(in.attr("seq_axis")).value_or(1), x->rank());
    auto batch = normalizeAxis(intAttr(in.attr("batch_axis")).value_or(0), x->rank());
    if (!seq || !batch || *seq == *batch)
      return fail(diag::Code::TVS103, "R.reverse_sequence: seq_axis and batch_axis must be two different axes of a rank-" + std::to_string(x->rank()) + " tensor");
  }
  return ok(tensor(x->shape, x->dtype, x->shape ? -1 : x->rank()));
}

// hamming_window: a 1-D window of window_size elements.
InferResult inferHammingWindow(const InferInput& in) {
  std::string dt = stringAttr(in.attr("dtype")).value_or("float32");
  auto n = primOperand(in, 0);
  if (n && *n < 0) return fail(diag::Code::TVS005, "R.hamming_window: the window size must not be negative");
  if (!n) return ok(tensor(std::nullopt, dt, 1));
  return ok(tensor(Dims{dim(*n)}, dt));
}

InferResult inferEyeLike(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (x->rank() >= 0 && x->rank() != 2) return fail(diag::Code::TVS103, "R.eye_like takes a 2-D tensor, got rank " + std::to_string(x->rank()));
  std::string dt = stringAttr(in.attr("dtype")).value_or(x->dtype);
  return ok(tensor(x->shape, dt, 2));
}

// collapse_sum_to / collapse_sum_like: data summed down to a shape it broadcasts from.
InferResult collapseTo(const StructInfo& x, const std::optional<Dims>& target, const std::string& opName) {
  if (!target) return ok(tensor(std::nullopt, x.dtype));
  if (x.shape) {
    const Dims& s = *x.shape;
    if (target->size() > s.size())
      return fail(diag::Code::TVS101, opName + ": the target " + dimsText(*target) + " has more axes than the data " + dimsText(s));
    for (size_t i = 0; i < target->size(); ++i) {
      const PrimExprPtr& t = (*target)[target->size() - 1 - i];
      const PrimExprPtr& d = s[s.size() - 1 - i];
      auto tc = constInt(t);
      if (!(tc && *tc == 1) && provablyDifferent(t, d))
        return fail(diag::Code::TVS101, opName + ": the data " + dimsText(s) + " does not broadcast from " + dimsText(*target));
    }
  }
  return ok(tensor(*target, x.dtype));
}

InferResult inferCollapseSumTo(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  const StructInfo* s = in.arg(1);
  std::optional<Dims> target;
  if (s && s->kind == StructInfo::Kind::Shape && s->shape) target = *s->shape;
  return collapseTo(*x, target, "R.collapse_sum_to");
}

InferResult inferCollapseSumLike(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* t = x ? tensorOperand(in, 1, r) : nullptr;
  if (!x || !t) return r;
  return collapseTo(*x, t->shape, "R.collapse_sum_like");
}

// layout_transform: the shape the index map gives (each result's largest value + 1); its rank alone
// when the map is not a lambda tvms reads (a Python value it cannot see).
InferResult inferLayoutTransform(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  const ir::Value* v = in.attr("index_map");
  auto map = v && v->kind == ir::Value::Kind::Opaque ? parseIndexMap(v->text) : std::nullopt;
  if (!map) return ok(tensor(std::nullopt, x->dtype));
  if (x->rank() >= 0 && x->rank() != static_cast<int>(map->params.size()))
    return fail(diag::Code::TVS103, "R.layout_transform: the index map takes " + std::to_string(map->params.size()) +
                                        " indices, the tensor has rank " + std::to_string(x->rank()));
  auto shape = x->shape ? indexMapShape(*map, *x->shape) : std::nullopt;
  return ok(tensor(shape, x->dtype, shape ? -1 : static_cast<int>(map->results.size())));
}

}  // namespace

void addRearrangeOps(std::vector<OpDef>& out) {
  const auto P = DeviceRule::PrimaryInput;
  out.push_back(withKernel(op("tile", {tensor("data"), required("repeats", ParamKind::IntList)}, P,
                              "Repeats data `repeats` times along each axis (numpy.tile).", inferTile), kernels::tile));
  out.push_back(withKernel(op("repeat", {tensor("data"), required("repeats", ParamKind::Int), optional("axis", ParamKind::Int)}, P,
                              "Repeats each element `repeats` times along `axis` (of the flattened tensor when None).", inferRepeat),
                           kernels::repeat));
  out.push_back(withKernel(op("flip", {tensor("data"), required("axis", ParamKind::Int)}, P,
                              "Reverses the order of the elements along `axis`.", inferFlip), kernels::flip));
  // pad_value: a float attribute in TVM today; older TVM took an expression in third place
  // (R.nn.pad(x, w, R.const(0, "int32"), pad_mode="constant")), so any literal is kept as written.
  out.push_back(withKernel(op("nn.pad", {tensor("data"), required("pad_width", ParamKind::IntList),
                                         attr("pad_value", ParamKind::Any, f(0.0)), attr("pad_mode", ParamKind::String, s("constant"))},
                              P, "Pads data by pad_width (before, after per axis) with pad_value (\"constant\"), the edge "
                                 "element (\"edge\") or the reflection (\"reflect\").", inferPad), kernels::pad));
  out.push_back(withKernel(op("nn.pixel_shuffle", {tensor("data"), required("upscale_factor", ParamKind::Int)}, P,
                              "Rearranges (N, C*r*r, H, W) into (N, C, H*r, W*r).", inferPixelShuffle), kernels::pixelShuffle));
  out.push_back(withKernel(op("nn.batch_flatten", {tensor("data")}, P, "Flattens all axes but the first.", inferBatchFlatten),
                           kernels::copyLike));
  out.push_back(withKernel(op("meshgrid", {expr("tensors", ParamKind::TensorList), attr("indexing", ParamKind::String, s("ij"))},
                              DeviceRule::Lenient, "Coordinate grids of 1-D tensors (\"ij\": matrix, \"xy\": Cartesian indexing).",
                              inferMeshgrid), kernels::meshgrid));
  out.push_back(withKernel(op("eye", {expr("n", ParamKind::Prim), optExpr("m", ParamKind::Prim), optExpr("k", ParamKind::Prim),
                                      attr("dtype", ParamKind::DType, s("float32"))},
                              DeviceRule::NoDevice, "An n x m matrix (m defaults to n) with ones on diagonal k; it has no vdevice.", inferEye),
                           kernels::eye));
  out.push_back(withKernel(op("reverse_sequence", {tensor("data"), tensor("seq_lengths"), attr("seq_axis", ParamKind::Int, i(1)),
                                                  attr("batch_axis", ParamKind::Int, i(0))},
                              P, "For each index along batch_axis, the first seq_lengths[i] elements along seq_axis reversed, the "
                                 "rest as they are.", inferReverseSequence), kernels::reverseSequence));
  out.push_back(withKernel(op("hamming_window", {expr("window_size", ParamKind::Prim), expr("periodic", ParamKind::Prim),
                                                 expr("alpha", ParamKind::Prim), expr("beta", ParamKind::Prim), attr("dtype", ParamKind::DType, s("float32"))},
                              DeviceRule::NoDevice, "alpha - beta * cos(2 pi n / D) for n < window_size, D the size when periodic, else "
                                                    "the size - 1; it has no vdevice.", inferHammingWindow),
                           kernels::hammingWindow));
  out.push_back(withKernel(op("eye_like", {tensor("x"), optExpr("k", ParamKind::Prim), optional("dtype", ParamKind::DType)}, P,
                              "A matrix of x's shape with ones on diagonal k.", inferEyeLike), kernels::eye));
  out.push_back(withKernel(op("layout_transform", {tensor("x"), required("index_map", ParamKind::Any), attr("pad_value", ParamKind::Any, Value::none()),
                                                   attr("axis_separators", ParamKind::Any, Value::none()),
                                                   attr("input_axis_separators", ParamKind::Any, Value::none())},
                              P, "x rearranged by index_map (a lambda from input indices to output indices); positions the map "
                                 "does not reach are pad_value.", inferLayoutTransform),
                           kernels::layoutTransform));
  out.push_back(withKernel(op("collapse_sum_to", {tensor("data"), expr("shape", ParamKind::Shape)}, P,
                              "Sums data down to `shape`, which it broadcasts from (the gradient of broadcasting).", inferCollapseSumTo),
                           kernels::collapseSum));
  out.push_back(withKernel(op("collapse_sum_like", {tensor("data"), tensor("collapse_target")}, P,
                              "Sums data down to collapse_target's shape.", inferCollapseSumLike), kernels::collapseSum));
}

}  // namespace tvms::op
