// Linear algebra, selection, vdevice placement and the call_* family.
#include <map>

#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

InferResult inferMatmul(const InferInput& in) {
  InferResult r;
  const StructInfo* a = tensorOperand(in, 0, r);
  const StructInfo* b = tensorOperand(in, 1, r);
  if (!a || !b) return r;
  auto outDType = stringAttr(in.attr("out_dtype"));
  if (!outDType && !sameDType(*a, *b, "R.matmul", r, 0, 1)) return r;
  std::string dt = outDType.value_or(a->dtype.empty() ? b->dtype : a->dtype);
  for (auto [t, i] : {std::pair{a, 0}, std::pair{b, 1}})
    if (t->rank() == 0) return fail(diag::Code::TVS103, "R.matmul needs tensors of rank >= 1, got a scalar", i);
  if (!a->shape || !b->shape) {
    if (a->rank() < 0 || b->rank() < 0) return ok(tensor(std::nullopt, dt));
    int rank = std::max(a->rank(), b->rank()) - (a->rank() == 1) - (b->rank() == 1);
    return ok(tensor(std::nullopt, dt, std::max(rank, 0)));
  }
  Dims x = *a->shape, y = *b->shape;
  bool vecA = x.size() == 1, vecB = y.size() == 1;
  if (vecA) x.insert(x.begin(), dim(1));
  if (vecB) y.push_back(dim(1));
  PrimExprPtr k1 = x[x.size() - 1], k2 = y[y.size() - 2];
  if (provablyDifferent(k1, k2))
    return fail(diag::Code::TVS101, "R.matmul: inner dimensions differ, " + shapeText(*a) + " @ " + shapeText(*b) + " (" +
                              dimText(k1) + " vs " + dimText(k2) + ")", 1);
  // Batch dims broadcast.
  StructInfoPtr ba = tensor(Dims(x.begin(), x.end() - 2), dt), bb = tensor(Dims(y.begin(), y.end() - 2), dt);
  Broadcast batch = broadcast(*ba, *bb);
  if (!batch.error.empty()) return fail(diag::Code::TVS101, "R.matmul: batch " + batch.error, 1);
  if (!batch.shape) return ok(tensor(std::nullopt, dt, static_cast<int>(std::max(x.size(), y.size())) - vecA - vecB));
  Dims out = *batch.shape;
  if (!vecA) out.push_back(x[x.size() - 2]);
  if (!vecB) out.push_back(y[y.size() - 1]);
  InferResult result = ok(tensor(out, dt));
  if (!sameDim(k1, k2)) result.assumedEqual.push_back({k1, k2});
  return result;
}

InferResult inferEinsum(const InferInput& in) {
  InferResult r;
  auto ts = tensorListOperand(in, 0, r);
  auto subscripts = stringAttr(in.attr("subscripts"));
  if (!ts || !subscripts) return r;
  EinsumSpec e = parseEinsum(*subscripts);
  const std::vector<std::string>& inputs = e.inputs;
  std::string rhs = e.output;
  if (inputs.size() != ts->size())
    return fail(diag::Code::TVS005, "R.einsum: the subscripts name " + std::to_string(inputs.size()) + " operands, " +
                              std::to_string(ts->size()) + " are given", 0);
  if (e.ellipsis) return ok(tensor(std::nullopt, (*ts)[0]->dtype));
  std::map<char, PrimExprPtr> dims;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const StructInfo* t = (*ts)[i];
    if (!sameDType(*(*ts)[0], *t, "R.einsum", r, 0, 0)) return r;
    if (t->rank() >= 0 && t->rank() != static_cast<int>(inputs[i].size()))
      return fail(diag::Code::TVS103, "R.einsum: operand " + std::to_string(i) + " has rank " + std::to_string(t->rank()) +
                                " but its subscript '" + inputs[i] + "' has " + std::to_string(inputs[i].size()) + " letters", 0);
    for (size_t k = 0; k < inputs[i].size(); ++k) {
      char c = inputs[i][k];
      if (!t->shape) continue;
      PrimExprPtr d = (*t->shape)[k];
      auto it = dims.find(c);
      if (it == dims.end()) dims[c] = d;
      else if (provablyDifferent(it->second, d))
        return fail(diag::Code::TVS101, "R.einsum: index '" + std::string(1, c) + "' has size " + dimText(it->second) +
                                  " and " + dimText(d), 0);
    }
  }
  Dims out;
  for (char c : rhs) {
    auto it = dims.find(c);
    if (it == dims.end()) return ok(tensor(std::nullopt, (*ts)[0]->dtype, static_cast<int>(rhs.size())));
    out.push_back(it->second);
  }
  return ok(tensor(out, (*ts)[0]->dtype));
}

// bucketize: the input's shape, int64 (int32 with out_int32); the boundaries 1-D.
InferResult inferBucketize(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* boundaries = x ? tensorOperand(in, 1, r) : nullptr;
  if (!boundaries) return r;
  if (boundaries->rank() >= 0 && boundaries->rank() != 1)
    return fail(diag::Code::TVS103, "R.bucketize: the boundaries must be 1-D, got rank " + std::to_string(boundaries->rank()));
  std::string dt = boolAttr(in.attr("out_int32"), false) ? "int32" : "int64";
  return ok(tensor(x->shape, dt, x->shape ? -1 : x->rank()));
}

// multinomial_from_uniform: prob (batch, vocab) floats, uniform_sample and sample_indices (n, 1), the
// result (n, 1) in dtype (an integer type).
InferResult inferMultinomial(const InferInput& in) {
  InferResult r;
  const StructInfo* prob = tensorOperand(in, 0, r);
  const StructInfo* sample = prob ? tensorOperand(in, 1, r) : nullptr;
  const StructInfo* rows = sample ? tensorOperand(in, 2, r) : nullptr;
  if (!rows) return r;
  for (auto [s, what] : {std::pair{prob, "prob"}, {sample, "uniform_sample"}, {rows, "sample_indices"}})
    if (s->rank() >= 0 && s->rank() != 2)
      return fail(diag::Code::TVS103, std::string("R.multinomial_from_uniform: ") + what + " must be 2-D, got rank " + std::to_string(s->rank()));
  if (!prob->dtype.empty() && !isFloatDType(prob->dtype)) return fail(diag::Code::TVS102, "R.multinomial_from_uniform: prob must be a float tensor, got " + prob->dtype);
  if (!rows->dtype.empty() && !isIntDType(rows->dtype))
    return fail(diag::Code::TVS102, "R.multinomial_from_uniform: sample_indices must be an integer tensor, got " + rows->dtype);
  std::string dt = stringAttr(in.attr("dtype")).value_or("int64");
  if (!isIntDType(dt)) return fail(diag::Code::TVS102, "R.multinomial_from_uniform: dtype must be an integer type, got " + dt);
  if (!sample->shape) return ok(tensor(std::nullopt, dt, 2));
  return ok(tensor(Dims{(*sample->shape)[0], dim(1)}, dt));
}

// quantize / dequantize: data's shape in out_dtype; scale (a float) and zero_point 0-d or 1-D, one
// value or one per index of `axis`.
InferResult inferQdq(const InferInput& in, const std::string& opName, bool quantize) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  const StructInfo* scale = x ? tensorOperand(in, 1, r) : nullptr;
  const StructInfo* zero = scale ? tensorOperand(in, 2, r) : nullptr;
  if (!zero) return r;
  std::string dt = stringAttr(in.attr("out_dtype")).value_or(quantize ? "int8" : "float32");
  if (!scale->dtype.empty() && scale->dtype.find("float") == std::string::npos)
    return fail(diag::Code::TVS102, opName + ": scale must be a float tensor, got " + scale->dtype);
  int64_t axis = intAttr(in.attr("axis")).value_or(-1);
  std::optional<int> a = x->rank() >= 0 ? normalizeAxis(axis, x->rank()) : std::optional<int>(0);
  if (x->rank() > 0 && !a) return fail(diag::Code::TVS103, opName + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(x->rank()));
  for (const StructInfo* p : {scale, zero})
    if (p->rank() > 1) return fail(diag::Code::TVS103, opName + ": scale and zero_point are 0-d or 1-D, got rank " + std::to_string(p->rank()));
  return ok(tensor(x->shape, dt, x->shape ? -1 : x->rank()));
}
InferResult inferQuantize(const InferInput& in) { return inferQdq(in, "R.quantize", true); }
InferResult inferDequantize(const InferInput& in) { return inferQdq(in, "R.dequantize", false); }

InferResult inferWhere(const InferInput& in) {
  InferResult r;
  const StructInfo* c = tensorOperand(in, 0, r);
  const StructInfo* a = tensorOperand(in, 1, r);
  const StructInfo* b = tensorOperand(in, 2, r);
  if (!c || !a || !b) return r;
  if (!c->dtype.empty() && c->dtype != "bool") return fail(diag::Code::TVS102, "R.where: the condition must be bool, got " + c->dtype, 0);
  if (!sameDType(*a, *b, "R.where", r, 1, 2)) return r;
  Broadcast ab = broadcast(*a, *b);
  if (!ab.error.empty()) return fail(diag::Code::TVS101, "R.where: " + ab.error, 2);
  StructInfoPtr t = tensor(ab.shape, a->dtype, ab.ndim);
  Broadcast all = broadcast(*c, *t);
  if (!all.error.empty()) return fail(diag::Code::TVS101, "R.where: condition " + all.error, 0);
  return ok(tensor(all.shape, a->dtype, all.shape ? -1 : all.ndim));
}

InferResult inferFma(const InferInput& in) {
  InferResult r;
  const StructInfo* t[3];
  for (int i = 0; i < 3; ++i) t[i] = tensorOperand(in, i, r);
  if (!t[0] || !t[1] || !t[2]) return r;
  for (int i = 1; i < 3; ++i) {
    if (!sameDType(*t[0], *t[i], "R.ewise_fma", r, 0, i)) return r;
    if (t[0]->shape && t[i]->shape) {
      bool same = t[0]->shape->size() == t[i]->shape->size();
      for (size_t k = 0; same && k < t[0]->shape->size(); ++k) same = !provablyDifferent((*t[0]->shape)[k], (*t[i]->shape)[k]);
      if (!same)
        return fail(diag::Code::TVS101, "R.ewise_fma needs operands of one shape, got " + shapeText(*t[0]) + " and " + shapeText(*t[i]), i);
    }
  }
  return ok(withDType(*t[0], t[0]->dtype));
}

InferResult inferOuter(const InferInput& in) {
  InferResult r;
  const StructInfo* a = tensorOperand(in, 0, r);
  const StructInfo* b = tensorOperand(in, 1, r);
  if (!a || !b) return r;
  if (!sameDType(*a, *b, "R.outer", r, 0, 1)) return r;
  for (auto [t, i] : {std::pair{a, 0}, std::pair{b, 1}})
    if (t->rank() >= 0 && t->rank() != 1) return fail(diag::Code::TVS103, "R.outer needs 1-D tensors, got rank " + std::to_string(t->rank()), i);
  if (!a->shape || !b->shape) return ok(tensor(std::nullopt, a->dtype, 2));
  return ok(tensor(Dims{(*a->shape)[0], (*b->shape)[0]}, a->dtype));
}

InferResult inferShapeOf(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto s = std::make_shared<StructInfo>();
  s->kind = StructInfo::Kind::Shape;
  s->shape = x->shape;
  s->ndim = x->rank();
  r.sinfo = s;
  return r;
}

InferResult inferTensorToShape(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  if (x->rank() >= 0 && x->rank() != 1) return fail(diag::Code::TVS103, "R.tensor_to_shape takes a 1-D tensor, got rank " + std::to_string(x->rank()));
  if (!x->dtype.empty() && !isIntDType(x->dtype)) return fail(diag::Code::TVS102, "R.tensor_to_shape takes an integer tensor, got " + x->dtype);
  auto s = std::make_shared<StructInfo>();
  s->kind = StructInfo::Kind::Shape;
  auto n = x->shape ? constInt((*x->shape)[0]) : std::nullopt;
  s->ndim = n ? static_cast<int>(*n) : -1;
  return ok(s);
}

InferResult inferShapeToTensor(const InferInput& in) {
  const StructInfo* s = in.arg(0);
  if (s && s->kind == StructInfo::Kind::Shape && s->rank() >= 0) return ok(tensor(Dims{dim(s->rank())}, "int64"));
  return ok(tensor(std::nullopt, "int64", 1));
}

InferResult inferObject(const InferInput&) { return ok(ir::objectSInfo()); }

InferResult inferPrint(const InferInput&) {
  auto t = std::make_shared<StructInfo>();
  t->kind = StructInfo::Kind::Tuple;
  return ok(t);
}

// unique: the distinct values (1-D, or x's rank along an axis), then one 1-D int64 tensor per flag
// asked for (first indices, inverse, counts), as TVM's InferStructInfoUnique: their lengths come from
// the values at run time.
InferResult inferUnique(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto axis = intAttr(in.attr("axis"));
  if (axis && x->rank() >= 0 && !axes({*axis}, x->rank(), "R.unique", r)) return r;
  std::vector<StructInfoPtr> fields;
  if (x->rank() == 0) fields.push_back(tensor(Dims{dim(1)}, x->dtype));
  else fields.push_back(tensor(std::nullopt, x->dtype, axis ? x->rank() : 1));
  for (const char* flag : {"return_index", "return_inverse", "return_counts"})
    if (boolAttr(in.attr(flag), false)) fields.push_back(x->rank() == 0 ? tensor(Dims{dim(1)}, "int64") : tensor(std::nullopt, "int64", 1));
  return ok(fields.size() == 1 ? fields[0] : tupleOf(fields));
}

// nonzero: the indices of the nonzero elements, (rank, count) int64; count is known at run time.
InferResult inferNonzero(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return ok(tensor(std::nullopt, "int64", 2));
}

// The allocation forms TVM's memory passes leave: a tensor of the written shape and dtype.
InferResult inferAllocTensorAt(const InferInput& in, size_t shapeArg) {
  return ok(tensor(shapeOperand(in, shapeArg), literalString(in.attr("dtype")).value_or("")));
}
InferResult inferMemoryAllocTensor(const InferInput& in) { return inferAllocTensorAt(in, 2); }
InferResult inferBuiltinAllocTensor(const InferInput& in) { return inferAllocTensorAt(in, 0); }
InferResult inferMemoryView(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  auto shape = in.args.size() > 1 && in.args[1] ? shapeOperand(in, 1) : x->shape;
  std::string dtype = literalString(in.attr("dtype")).value_or(x->dtype);
  return ok(tensor(shape, dtype, shape ? -1 : x->rank()));
}
InferResult inferSameTensor(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return ok(std::make_shared<StructInfo>(*x));
}

InferResult inferSize(const InferInput& in) {
  InferResult r;
  if (!tensorOperand(in, 0, r)) return r;
  return ok(tensor(Dims{}, "int64"));
}

InferResult inferWrapParam(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return ok(withDType(*x, stringAttr(in.attr("dtype")).value_or("float32")));
}

// A Param of struct info (call_tir's out_sinfo), with the name TVM's older printer used.
Param sinfo(const char* name, const char* alias) {
  Param p = make(name, ParamKind::SInfo, std::nullopt);
  p.eraAlias = alias;
  return p;
}

const char* const kCallsKernel = "the VM, calling the prim_func's kernel (built from its T.prim_func body)";

// matmul, einsum, where, ewise_fma, outer.
void addProductOps(std::vector<OpDef>& out) {
  const auto L = DeviceRule::Lenient;
  out.push_back(withKernel(op("matmul", {tensor("x1"), tensor("x2"), optional("out_dtype", ParamKind::DType)}, L,
                   "Matrix product with numpy semantics (batch dimensions broadcast). Operands on different vdevices "
                   "give a result with no vdevice in TVM (no error): it lands on the default device.", inferMatmul), kernels::matmul));
  out.push_back(withKernel(op("einsum", {expr("operands", ParamKind::TensorList), required("subscripts", ParamKind::String)}, L,
                   "Einstein summation over the operands.", inferEinsum), kernels::einsum));
  out.push_back(elementwiseOp(op("where", {tensor("condition"), tensor("x1"), tensor("x2")}, L,
                   "Selects x1 where condition holds, else x2.", inferWhere), scalar::where));
  out.push_back(elementwiseOp(op("ewise_fma", {tensor("x1"), tensor("x2"), tensor("x3")}, L, "Fused x1 * x2 + x3.", inferFma), scalar::fma));
  out.push_back(withKernel(op("outer", {tensor("x1"), tensor("x2")}, L, "Outer product of two vectors.", inferOuter), kernels::outer));
}

// to_vdevice and hint_on_device.
void addPlacementOps(std::vector<OpDef>& out) {
  out.push_back(runBy(op("to_vdevice", {tensor("data"), required("dst_vdevice", ParamKind::VDevice)}, DeviceRule::ToVDevice,
                   "Copies data to the vdevice `dst_vdevice` (a string naming a declared entry, such as \"cuda:0\"). "
                   "The result has data's shape and dtype on that vdevice. Lowers to the VM's to_device."),
                      "the VM's copy between devices"));
  {
    OpDef d = op("hint_on_device", {tensor("data"), required("device", ParamKind::Device),
                                    attr("memory_scope", ParamKind::String, s("global"))},
                 DeviceRule::HintOnDevice,
                 "Hints that data should live on `device` (R.cpu(), R.cuda(1), R.device(type, index)). Its struct "
                 "info is data's until RealizeVDevice resolves the hint to the first declared vdevice with that device "
                 "type, id and scope.");
    for (auto& p : d.params) p.positional = p.name != "data";
    out.push_back(runBy(std::move(d), "RealizeVDevice, which resolves the hint to a vdevice"));
  }
}

// call_tir, call_tir_inplace and the packed calls.
void addPackedCallOps(std::vector<OpDef>& out) {
  out.push_back(runBy(op("call_tir", {expr("gvar", ParamKind::Callee), expr("args"), sinfo("out_sinfo", "out_ty"),
                                optExpr("tir_vars", ParamKind::Shape)},
                   DeviceRule::Written,
                   "Calls the prim_func `gvar` in destination-passing style; the result is exactly `out_sinfo`."), kCallsKernel));
  out.push_back(runBy(op("call_tir_inplace", {expr("gvar", ParamKind::Callee), expr("args"),
                                        required("inplace_indices", ParamKind::IntList), sinfo("out_sinfo", "out_ty"),
                                        optExpr("tir_vars", ParamKind::Shape)},
                   DeviceRule::Written, "Like call_tir, writing the outputs into the arguments at `inplace_indices`."), kCallsKernel));
  out.push_back(runBy(op("call_dps_packed", {expr("func", ParamKind::Callee), expr("args"), sinfo("out_sinfo", "out_ty")},
                   DeviceRule::Written,
                   "Calls a packed function in destination-passing style; the result is exactly `out_sinfo`."),
                      "the VM, for the runtime's library functions (cuBLAS and cuDNN offloads); other names do not run"));
  {
    Param s = sinfo("sinfo_args", "ty_args");
    const std::string builtins = "the VM, for the VM builtins tvms has (vm.builtin.copy, vm.builtin.to_device); other names do not run";
    out.push_back(runBy(op("call_pure_packed", {expr("func", ParamKind::Callee), expr("args", ParamKind::Variadic), s},
                           DeviceRule::Written, "Calls a pure packed function; the result is exactly `sinfo_args`."), builtins));
    s.optionalNone = true;
    out.push_back(runBy(op("call_packed", {expr("func", ParamKind::Callee), expr("args", ParamKind::Variadic), s},
                           DeviceRule::Written, "Calls a packed function (impure); the result is `sinfo_args`."), builtins));
  }
}

// null_value, shape values, print and assert_op.
void addRuntimeValueOps(std::vector<OpDef>& out) {
  {
    OpDef null = runBy(op("null_value", {}, DeviceRule::NoDevice, "The null object (TVM's R.null_value()).", inferObject), "the VM");
    out.push_back(std::move(null));
  }
  out.push_back(runBy(op("shape_of", {tensor("expr")}, DeviceRule::NoDevice, "The shape of a tensor, as a shape value.", inferShapeOf),
                      "the VM, reading the tensor's shape"));
  out.push_back(runBy(op("tensor_to_shape", {tensor("expr")}, DeviceRule::NoDevice,
                         "The values of a 1-D integer tensor as a shape value (data-dependent shapes).", inferTensorToShape),
                      "the VM, reading the tensor's values; the dims they give are bound for what follows"));
  out.push_back(runBy(op("shape_to_tensor", {expr("expr", ParamKind::Shape)}, DeviceRule::NoDevice,
                         "A shape value as a 1-D int64 tensor; it has no vdevice.", inferShapeToTensor),
                      "the VM, writing the dims into a host tensor"));
  // format: a string, or R.str("...") as TVM's printer writes it (kept as written).
  out.push_back(runBy(op("print", {expr("values", ParamKind::Variadic), attr("format", ParamKind::Any, s(""))},
                         DeviceRule::NoDevice, "Prints the values at run time (impure): each `{}` of format replaced by the "
                                               "next value, or the values separated by spaces when format is empty.", inferPrint),
                      "the VM, printing to standard output"));
  out.push_back(runBy(op("assert_op", {expr("condition"), optExpr("format_args", ParamKind::Expr), attr("format", ParamKind::Any, s(""))},
                         DeviceRule::NoDevice, "Stops the run with an AssertionError when condition (a bool scalar) is false: the "
                                               "message is format with format_args in its `{}`s, the arguments joined by \", \" "
                                               "without a format, or \"Assertion Failed\".", inferPrint),
                      "the VM"));
}

// Ops whose results depend on their operands' values: bucketize, quantize, sampling, unique, nonzero.
void addDataDependentOps(std::vector<OpDef>& out) {
  out.push_back(withKernel(op("bucketize", {tensor("input_tensor"), tensor("boundaries"), attr("out_int32", ParamKind::Bool, b(false)),
                                            attr("right", ParamKind::Bool, b(false))},
                              DeviceRule::PrimaryInput, "For each element, the index of its bucket among the sorted 1-D boundaries: how many "
                                                        "lie below it (right=True: at or below it), int64 (int32 with out_int32).",
                              inferBucketize),
                           kernels::bucketize));
  out.push_back(withKernel(op("quantize", {tensor("data"), tensor("scale"), tensor("zero_point"), attr("axis", ParamKind::Int, i(-1)),
                                           attr("out_dtype", ParamKind::DType, s("int8"))},
                              DeviceRule::PrimaryInput, "clamp(round(data / scale) + zero_point) into out_dtype's range (round half to "
                                                        "even; for float8_e4m3fn / float8_e5m2 no round, the cast rounds); scale and "
                                                        "zero_point one value or one per index of axis.", inferQuantize),
                           kernels::quantize));
  out.push_back(withKernel(op("dequantize", {tensor("data"), tensor("scale"), tensor("zero_point"), attr("axis", ParamKind::Int, i(-1)),
                                             attr("out_dtype", ParamKind::DType, s("float32"))},
                              DeviceRule::PrimaryInput, "(data - zero_point) * scale in out_dtype; scale and zero_point one value or one "
                                                        "per index of axis.", inferDequantize),
                           kernels::dequantize));
  out.push_back(withKernel(op("multinomial_from_uniform", {tensor("prob"), tensor("uniform_sample"), tensor("sample_indices"),
                                                          attr("dtype", ParamKind::DType, s("int64"))},
                              DeviceRule::PrimaryInput, "For each sample i: the first index of row prob[sample_indices[i, 0]] whose running "
                                                        "sum exceeds uniform_sample[i, 0] (the last index if none does), as (n, 1) of dtype.",
                              inferMultinomial),
                           kernels::multinomialFromUniform));
  out.push_back(withShapeFunction(op("unique", {tensor("x"), attr("sorted", ParamKind::Bool, b(true)), attr("return_index", ParamKind::Bool, b(false)),
                                               attr("return_inverse", ParamKind::Bool, b(false)), attr("return_counts", ParamKind::Bool, b(false)),
                                               optional("axis", ParamKind::Int)},
                                      DeviceRule::PrimaryInput,
                                      "The distinct values of x (of the flattened tensor; along `axis`, the distinct slices), sorted or in the "
                                      "order they first occur, with the first index of each, the inverse (each element's position among them) "
                                      "and the counts when asked: a tuple then. NaNs count as one value, as numpy.unique's equal_nan.",
                                      inferUnique),
                                   kernels::uniqueShape, kernels::unique));
  out.push_back(withShapeFunction(op("nonzero", {tensor("x")}, DeviceRule::PrimaryInput,
                                     "The indices of x's nonzero elements, one column per element in row-major order: int64 of shape "
                                     "(rank, count), as numpy.nonzero stacked.", inferNonzero),
                                  kernels::nonzeroShape, kernels::nonzero));
}

// The memory forms TVM's memory passes leave.
void addMemoryOps(std::vector<OpDef>& out) {
  {
    // What TVM's memory passes (StaticPlanBlockMemory, LowerAllocTensor, KillAfterLastUse) leave in a
    // module; arguments as its printer writes them (R.prim_value(0), R.str("global"), R.dtype("float32")).
    const std::string vm = "the VM (allocations and views of its own; an offset other than 0 does not run)";
    out.push_back(runBy(op("memory.alloc_storage", {expr("size", ParamKind::Shape), attr("virtual_device_index", ParamKind::Any, i(0)),
                                                    attr("storage_scope", ParamKind::Any, s("global")), attr("dtype", ParamKind::Any, s("float32"))},
                           DeviceRule::NoDevice, "Storage of `size` bytes on the module's vdevice `virtual_device_index`; an R.Object.", inferObject),
                        vm));
    out.push_back(runBy(op("memory.alloc_tensor", {expr("storage"), expr("offset", ParamKind::Prim), expr("shape", ParamKind::Shape),
                                                   attr("dtype", ParamKind::Any, s("float32")), attr("runtime_device_index", ParamKind::Any, i(0))},
                           DeviceRule::NoDevice, "A tensor of `shape` and `dtype` in `storage` at byte `offset`.", inferMemoryAllocTensor),
                        vm));
    out.push_back(runBy(op("builtin.alloc_tensor", {expr("shape", ParamKind::Shape), attr("dtype", ParamKind::Any, s("float32")),
                                                    attr("runtime_device_index", ParamKind::Any, i(0)), attr("storage_scope", ParamKind::Any, s("global"))},
                           DeviceRule::NoDevice, "A new tensor of `shape` and `dtype` on device `runtime_device_index`.", inferBuiltinAllocTensor),
                        vm));
    for (const char* name : {"memory.kill_storage", "memory.kill_tensor"})
      out.push_back(runBy(op(name, {expr("value")}, DeviceRule::NoDevice, "Ends the storage's or tensor's life (its memory may be reused); the empty tuple.",
                             inferPrint),
                          vm));
    out.push_back(runBy(op("memory.view", {tensor("data"), optExpr("shape", ParamKind::Shape), optional("dtype", ParamKind::Any),
                                           optExpr("relative_byte_offset", ParamKind::Prim)},
                           DeviceRule::PrimaryInput, "data's bytes seen under another shape (and dtype, at a byte offset).", inferMemoryView),
                        vm));
    out.push_back(runBy(op("memory.ensure_zero_offset", {tensor("data")}, DeviceRule::PrimaryInput, "data, at offset 0 of its storage.", inferSameTensor),
                        vm));
  }
}

// size and wrap_param.
void addSizeAndParamOps(std::vector<OpDef>& out) {
  out.push_back(withKernel(op("size", {tensor("x")}, DeviceRule::NoDevice,
                              "The number of elements of x, as a 0-d int64 tensor (TVM's relax.size); it has no vdevice.", inferSize),
                           kernels::elementCount));
  out.push_back(elementwiseOp(op("wrap_param", {tensor("data"), attr("dtype", ParamKind::DType, s("float32"))}, DeviceRule::PrimaryInput,
                                 "A model parameter cast to `dtype` where its dtype differs (TVM's wrap_param): astype.", inferWrapParam),
                              scalar::asType));
}

// call_tir_with_grad, the in-place and context packed calls, closures.
void addGradientAndClosureOps(std::vector<OpDef>& out) {
  out.push_back(runBy(op("call_tir_with_grad", {expr("gvar", ParamKind::Callee), expr("args"), sinfo("out_sinfo", "out_ty"),
                                                attr("te_grad_name", ParamKind::String, s("")), attr("te_grad_kwargs", ParamKind::Any, Value::none()),
                                                optExpr("tir_vars", ParamKind::Shape)},
                         DeviceRule::Written,
                         "call_tir with the name of its gradient's TE function for TVM's Gradient pass; forward, it is call_tir "
                         "(Normalize makes it one)."),
                      kCallsKernel));
  {
    Param s = sinfo("sinfo_args", "ty_args");
    const std::string builtins = "the VM, for the VM builtins tvms has (vm.builtin.copy, vm.builtin.to_device); other names do not run";
    out.push_back(runBy(op("call_inplace_packed", {expr("func", ParamKind::Callee), expr("args", ParamKind::Variadic),
                                                   required("inplace_indices", ParamKind::IntList), s},
                           DeviceRule::Written, "Calls a packed function that writes its results into the arguments at `inplace_indices`."),
                        builtins));
    out.push_back(runBy(op("call_builtin_with_ctx", {expr("func", ParamKind::Callee), expr("args"), s}, DeviceRule::Written,
                           "Calls a VM builtin with the VM's context (what TVM's VMBuiltinLower writes); the result is `sinfo_args`."),
                        builtins));
    out.push_back(runBy(op("make_closure", {expr("func", ParamKind::Callee), expr("args")}, DeviceRule::NoDevice,
                           "A closure of the module's function `func` over the values of the tuple `args` (what TVM's LambdaLift "
                           "writes); it is an R.Object.", inferObject),
                        "the VM (a closure value)"));
    for (const char* name : {"invoke_closure", "invoke_pure_closure"})
      out.push_back(runBy(op(name, {expr("closure"), expr("args"), s}, DeviceRule::Written,
                             "Calls a closure with the tuple `args` followed by the values it captured; the result is `sinfo_args`."),
                          "the VM, calling the closure's function"));
  }
}

}  // namespace

void addOtherOps(std::vector<OpDef>& out) {
  // In this order, the order ops are listed in (tvms explain, the docs).
  addProductOps(out);
  addPlacementOps(out);
  addPackedCallOps(out);
  addRuntimeValueOps(out);
  addDataDependentOps(out);
  addMemoryOps(out);
  addSizeAndParamOps(out);
  addGradientAndClosureOps(out);
}

}  // namespace tvms::op
