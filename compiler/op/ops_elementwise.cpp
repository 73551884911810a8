// Elementwise binary and unary ops, and the statistical reductions.
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;

namespace {

// A binary operand: a tensor, or a prim value / Python number acting as a 0-d tensor.
const StructInfo* scalarOrTensor(const InferInput& in, size_t i, InferResult& r, StructInfoPtr& holder) {
  const StructInfo* s = in.arg(i);
  if (s && s->kind == StructInfo::Kind::Prim) {
    holder = tensor(Dims{}, s->dtype);
    return holder.get();
  }
  return tensorOperand(in, i, r);
}

InferResult binaryRule(const InferInput& in, bool boolResult) {
  InferResult r;
  StructInfoPtr ha, hb;
  const StructInfo* a = scalarOrTensor(in, 0, r, ha);
  const StructInfo* b = scalarOrTensor(in, 1, r, hb);
  if (!a || !b) return r;
  const std::string name = in.def.scriptName();
  bool dtypeOk = sameDType(*a, *b, name, r, 0, 1);
  Broadcast bc = broadcast(*a, *b);
  if (!bc.error.empty()) {
    r.issues.push_back({"TVS101", name + ": " + bc.error, 1, {0, 1}});
    return r;
  }
  if (!dtypeOk) return r;
  std::string dt = boolResult ? "bool" : (a->dtype.empty() ? b->dtype : a->dtype);
  r.sinfo = tensor(bc.shape, dt, bc.shape ? -1 : bc.ndim);
  return r;
}
InferResult inferArith(const InferInput& in) { return binaryRule(in, false); }
InferResult inferCompare(const InferInput& in) { return binaryRule(in, true); }

// TVM's unary ops that require a float dtype (InferTypeUnaryArith<require_float_dtype=true>).
const std::set<std::string> kFloatUnaries = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos",  "cosh", "erf",
                                             "exp",  "log",   "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan",  "tanh"};

InferResult inferUnary(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  std::string op = in.def.name.substr(6);
  if (kFloatUnaries.count(op) && !x->dtype.empty() && !isFloatDType(x->dtype)) {
    r.issues.push_back({"TVS102", in.def.scriptName() + " needs a float tensor, got " + x->dtype +
                                      " (cast it with R.astype)", 0, {}});
    return r;
  }
  bool predicate = op == "isfinite" || op == "isinf" || op == "isnan";
  r.sinfo = predicate ? withDType(*x, "bool") : withDType(*x, x->dtype);
  return r;
}

// The shape after reducing `axes` (all when absent), keeping them as 1 with keepdims.
InferResult reduceShape(const InferInput& in, const StructInfo& x, std::optional<std::vector<int64_t>> written,
                        bool keepdims, std::string dtype) {
  InferResult r;
  int rank = x.rank();
  if (rank < 0) {
    r.sinfo = tensor(std::nullopt, dtype, keepdims || !written ? (keepdims ? -1 : 0) : -1);
    return r;
  }
  std::vector<int> ax;
  if (written) {
    auto n = axes(*written, rank, in.def.scriptName(), r);
    if (!n) return r;
    ax = *n;
  } else {
    for (int i = 0; i < rank; ++i) ax.push_back(i);
  }
  std::set<int> reduced(ax.begin(), ax.end());
  if (!x.shape) {
    r.sinfo = tensor(std::nullopt, dtype, keepdims ? rank : rank - static_cast<int>(reduced.size()));
    return r;
  }
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced.count(i)) out.push_back((*x.shape)[i]);
    else if (keepdims) out.push_back(dim(1));
  }
  r.sinfo = tensor(out, dtype);
  return r;
}

InferResult inferReduce(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return reduceShape(in, *x, intList(in.attr("axis")), boolAttr(in.attr("keepdims"), false), x->dtype);
}

InferResult inferArgReduce(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  return reduceShape(in, *x, intList(in.attr("axis")), boolAttr(in.attr("keepdims"), false), "int64");
}

InferResult inferScan(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  std::string dt = stringAttr(in.attr("dtype")).value_or(x->dtype);
  if (auto axis = intAttr(in.attr("axis"))) {
    if (x->rank() >= 0 && !normalizeAxis(*axis, x->rank())) {
      axes({*axis}, x->rank(), in.def.scriptName(), r);
      return r;
    }
    r.sinfo = withDType(*x, dt);
    return r;
  }
  // No axis: the scan runs over the flattened tensor.
  if (x->shape) {
    PrimExprPtr n = dim(1);
    for (auto& d : *x->shape) n = mul(n, d);
    r.sinfo = tensor(Dims{n}, dt);
  } else {
    r.sinfo = tensor(std::nullopt, dt, 1);
  }
  return r;
}

InferResult inferClip(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (x) r.sinfo = withDType(*x, x->dtype);
  return r;
}

}  // namespace

void addElementwiseOps(std::vector<OpDef>& out) {
  struct Binary { const char* name; const char* pyOp; const char* what; };
  const Binary binaries[] = {
      {"add", "+", "Addition"}, {"subtract", "-", "Subtraction"}, {"multiply", "*", "Multiplication"},
      {"divide", "/", "Division"}, {"floor_divide", "//", "Floor division"}, {"power", "**", "Power"},
      {"mod", "", "Remainder (truncated)"}, {"floor_mod", "%", "Remainder (floored)"},
      {"maximum", "", "Elementwise maximum"}, {"minimum", "", "Elementwise minimum"},
      {"log_add_exp", "", "log(exp(x1) + exp(x2))"}, {"atan2", "", "Arc tangent of x1 / x2"},
      {"equal", "==", "Comparison x1 == x2 (bool result)"}, {"not_equal", "!=", "Comparison x1 != x2 (bool result)"},
      {"less", "<", "Comparison x1 < x2 (bool result)"}, {"less_equal", "<=", "Comparison x1 <= x2 (bool result)"},
      {"greater", ">", "Comparison x1 > x2 (bool result)"}, {"greater_equal", ">=", "Comparison x1 >= x2 (bool result)"},
      {"logical_and", "", "Logical and"}, {"logical_or", "", "Logical or"}, {"logical_xor", "", "Logical xor"},
      {"bitwise_and", "&", "Bitwise and"}, {"bitwise_or", "|", "Bitwise or"}, {"bitwise_xor", "^", "Bitwise xor"},
      {"left_shift", "<<", "Left shift"}, {"right_shift", ">>", "Right shift"},
  };
  for (auto& b : binaries) {
    OpDef d = op(b.name, {tensor("x1"), tensor("x2")}, DeviceRule::Strict,
                 std::string(b.what) +
                     " with numpy-style broadcasting. Both operands must have the same dtype and, when both are "
                     "placed, the same vdevice; the result lives on that vdevice.");
    d.pythonOperator = b.pyOp;
    std::string_view n = b.name;
    bool compare = n == "equal" || n == "not_equal" || n == "less" || n == "less_equal" || n == "greater" ||
                   n == "greater_equal";
    d.infer = compare ? inferCompare : inferArith;
    d.legalize = kernels::elementwise;
    out.push_back(std::move(d));
  }

  const char* unaries[] = {"abs",   "acos",  "acosh",  "asin",  "asinh", "atan",     "atanh", "bitwise_not",
                           "ceil",  "cos",   "cosh",   "erf",   "exp",   "floor",    "log",   "logical_not",
                           "negative", "round", "rsqrt", "sigmoid", "sign", "sin",   "sinh",  "sqrt",
                           "square", "tan",  "tanh",   "trunc", "isfinite", "isinf", "isnan"};
  for (auto* u : unaries) {
    OpDef d = op(u, {tensor("x")}, DeviceRule::PrimaryInput,
                 std::string("Elementwise ") + u + ". The result has x's shape and vdevice.");
    if (std::string_view(u) == "negative") d.pythonOperator = "-";
    d.infer = inferUnary;
    d.legalize = kernels::elementwise;
    out.push_back(std::move(d));
  }
  out.push_back(withKernel(op("clip", {tensor("x"), expr("min", ParamKind::Prim), expr("max", ParamKind::Prim)},
                   DeviceRule::PrimaryInput, "Clamps x to [min, max]. The result has x's shape and vdevice.", inferClip), kernels::elementwise));

  const char* reductions[] = {"sum", "mean", "max", "min", "prod", "std", "variance", "median"};
  for (auto* r : reductions)
    out.push_back(withKernel(op(r, {tensor("x"), optional("axis", ParamKind::IntList), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput,
                     std::string("Reduces x by ") + r +
                         " over `axis` (all axes when None); `keepdims` keeps reduced axes as size 1.",
                     inferReduce), std::string(r) == "median" ? kernels::median : kernels::reduce));
  for (auto* r : {"argmax", "argmin"})
    out.push_back(withKernel(op(r, {tensor("x"), optional("axis", ParamKind::Int), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput, std::string("Index of the ") + (r[3] == 'm' && r[4] == 'a' ? "maximum" : "minimum") +
                                                   " along `axis` (of the flattened tensor when None).",
                     inferArgReduce), kernels::argReduce));
  for (auto* r : {"cumsum", "cumprod"})
    out.push_back(withKernel(op(r, {tensor("data"), optional("axis", ParamKind::Int), optional("dtype", ParamKind::DType),
                         optional("exclusive", ParamKind::Bool)},
                     DeviceRule::PrimaryInput, std::string("Cumulative ") + (r[3] == 's' ? "sum" : "product") +
                                                   " along `axis` (of the flattened tensor when None).",
                     inferScan), kernels::scan));
}

}  // namespace tvms::op
