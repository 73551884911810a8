// Elementwise binary and unary ops, and the statistical reductions.
#include <set>

#include "compiler/op/infer_util.h"
#include "compiler/op/reduce_attrs.h"
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;
using namespace infer;
using tir::BinOp;
using tir::UnOp;

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
  // TVM's comparisons (InferStructInfoBroadcastCMP) give bool whatever the operands' dtypes: only
  // arithmetic checks that they agree.
  bool dtypeOk = boolResult || sameDType(*a, *b, name, r, 0, 1);
  Broadcast bc = broadcast(*a, *b);
  if (!bc.error.empty()) {
    r.issues.push_back({diag::Code::TVS101, name + ": " + bc.error, 1, {0, 1}});
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
    r.issues.push_back({diag::Code::TVS102, in.def.scriptName() + " needs a float tensor, got " + x->dtype +
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
  ReduceAttrs attrs = reduceAttrs(in.call);
  return reduceShape(in, *x, attrs.axes, attrs.keepdims, x->dtype);
}

// median along an axis gives (values, indices) as torch.median(dim) does; of everything, the value.
InferResult inferMedian(const InferInput& in) {
  InferResult r = inferReduce(in);
  if (!r.sinfo || !reduceAttrs(in.call).axes) return r;
  auto t = std::make_shared<StructInfo>();
  t->kind = StructInfo::Kind::Tuple;
  t->fields = {r.sinfo, withDType(*r.sinfo, "int64")};
  r.sinfo = t;
  return r;
}

InferResult inferArgReduce(const InferInput& in) {
  InferResult r;
  const StructInfo* x = tensorOperand(in, 0, r);
  if (!x) return r;
  ReduceAttrs attrs = reduceAttrs(in.call);
  return reduceShape(in, *x, attrs.axes, attrs.keepdims, "int64");
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
  struct Binary { const char* name; const char* pyOp; const char* what; ScalarFn scalar; };
  const Binary binaries[] = {
      {"add", "+", "Addition", scalar::binary<BinOp::Add>}, {"subtract", "-", "Subtraction", scalar::binary<BinOp::Sub>}, {"multiply", "*", "Multiplication", scalar::binary<BinOp::Mul>},
      {"divide", "/", "Division", scalar::binary<BinOp::Div>}, {"floor_divide", "//", "Floor division", scalar::binary<BinOp::FloorDiv>}, {"power", "**", "Power", scalar::binary<BinOp::Pow>},
      {"mod", "", "Remainder (truncated)", scalar::binary<BinOp::Mod>}, {"floor_mod", "%", "Remainder (floored)", scalar::binary<BinOp::FloorMod>},
      {"maximum", "", "Elementwise maximum", scalar::binary<BinOp::Max>}, {"minimum", "", "Elementwise minimum", scalar::binary<BinOp::Min>},
      {"log_add_exp", "", "log(exp(x1) + exp(x2))", scalar::logAddExp}, {"atan2", "", "Arc tangent of x1 / x2", scalar::binary<BinOp::Atan2>},
      {"equal", "==", "Comparison x1 == x2 (bool result)", scalar::binary<BinOp::Eq>}, {"not_equal", "!=", "Comparison x1 != x2 (bool result)", scalar::binary<BinOp::Ne>},
      {"less", "<", "Comparison x1 < x2 (bool result)", scalar::binary<BinOp::Lt>}, {"less_equal", "<=", "Comparison x1 <= x2 (bool result)", scalar::binary<BinOp::Le>},
      {"greater", ">", "Comparison x1 > x2 (bool result)", scalar::binary<BinOp::Gt>}, {"greater_equal", ">=", "Comparison x1 >= x2 (bool result)", scalar::binary<BinOp::Ge>},
      {"logical_and", "", "Logical and", scalar::binary<BinOp::And>}, {"logical_or", "", "Logical or", scalar::binary<BinOp::Or>}, {"logical_xor", "", "Logical xor", scalar::binary<BinOp::Xor>},
      {"bitwise_and", "&", "Bitwise and", scalar::binary<BinOp::And>}, {"bitwise_or", "|", "Bitwise or", scalar::binary<BinOp::Or>}, {"bitwise_xor", "^", "Bitwise xor", scalar::binary<BinOp::Xor>},
      {"left_shift", "<<", "Left shift", scalar::binary<BinOp::Shl>}, {"right_shift", ">>", "Right shift", scalar::binary<BinOp::Shr>},
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
    out.push_back(elementwiseOp(std::move(d), b.scalar));
  }

  struct Unary { const char* name; ScalarFn scalar; };
  const Unary unaries[] = {
      {"abs", scalar::unary<UnOp::Abs>},
      {"acos", scalar::unary<UnOp::Acos>},
      {"acosh", scalar::unary<UnOp::Acosh>},
      {"asin", scalar::unary<UnOp::Asin>},
      {"asinh", scalar::unary<UnOp::Asinh>},
      {"atan", scalar::unary<UnOp::Atan>},
      {"atanh", scalar::unary<UnOp::Atanh>},
      {"bitwise_not", scalar::unary<UnOp::Not>},
      {"ceil", scalar::unary<UnOp::Ceil>},
      {"cos", scalar::unary<UnOp::Cos>},
      {"cosh", scalar::unary<UnOp::Cosh>},
      {"erf", scalar::unary<UnOp::Erf>},
      {"exp", scalar::unary<UnOp::Exp>},
      {"floor", scalar::unary<UnOp::Floor>},
      {"log", scalar::unary<UnOp::Log>},
      {"logical_not", scalar::unary<UnOp::Not>},
      {"negative", scalar::unary<UnOp::Neg>},
      {"round", scalar::unary<UnOp::Round>},
      {"rsqrt", scalar::unary<UnOp::Rsqrt>},
      {"sigmoid", scalar::unary<UnOp::Sigmoid>},
      {"sign", scalar::sign},
      {"sin", scalar::unary<UnOp::Sin>},
      {"sinh", scalar::unary<UnOp::Sinh>},
      {"sqrt", scalar::unary<UnOp::Sqrt>},
      {"square", scalar::square},
      {"tan", scalar::unary<UnOp::Tan>},
      {"tanh", scalar::unary<UnOp::Tanh>},
      {"trunc", scalar::unary<UnOp::Trunc>},
      {"isfinite", scalar::isFinite},
      {"isinf", scalar::isInf},
      {"isnan", scalar::isNan}};
  for (auto& u : unaries) {
    OpDef d = op(u.name, {tensor("x")}, DeviceRule::PrimaryInput,
                 std::string("Elementwise ") + u.name + ". The result has x's shape and vdevice.");
    if (std::string_view(u.name) == "negative") d.pythonOperator = "-";
    d.infer = inferUnary;
    out.push_back(elementwiseOp(std::move(d), u.scalar));
  }
  out.push_back(elementwiseOp(op("clip", {tensor("x"), expr("min", ParamKind::Prim), expr("max", ParamKind::Prim)},
                   DeviceRule::PrimaryInput, "Clamps x to [min, max]. The result has x's shape and vdevice.", inferClip), scalar::clip));

  using kernels::Reduction;
  struct Reduce { const char* name; LegalizeFn kernel; };
  const Reduce reductions[] = {{"sum", kernels::reduceOp<Reduction::Sum>},   {"mean", kernels::reduceOp<Reduction::Mean>},
                               {"max", kernels::reduceOp<Reduction::Max>},   {"min", kernels::reduceOp<Reduction::Min>},
                               {"prod", kernels::reduceOp<Reduction::Prod>}, {"std", kernels::reduceOp<Reduction::Std>},
                               {"variance", kernels::reduceOp<Reduction::Variance>}, {"median", kernels::median}};
  for (auto& [r, kernel] : reductions)
    out.push_back(withKernel(op(r, {tensor("x"), optional("axis", ParamKind::IntList), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput,
                     std::string("Reduces x by ") + r +
                         " over `axis` (all axes when None); `keepdims` keeps reduced axes as size 1." +
                         (std::string(r) == "median" ? " Along an axis it gives (values, indices)." : ""),
                     std::string(r) == "median" ? inferMedian : inferReduce), kernel));
  struct Variant { const char* name; const char* what; LegalizeFn kernel; };
  for (auto& [r, what, kernel] : {Variant{"argmax", "maximum", kernels::argReduceOp<true>}, Variant{"argmin", "minimum", kernels::argReduceOp<false>}})
    out.push_back(withKernel(op(r, {tensor("x"), optional("axis", ParamKind::Int), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput, std::string("Index of the ") + what + " along `axis` (of the flattened tensor when None).",
                     inferArgReduce), kernel));
  for (auto& [r, what, kernel] : {Variant{"cumsum", "sum", kernels::scanOp<true>}, Variant{"cumprod", "product", kernels::scanOp<false>}})
    out.push_back(withKernel(op(r, {tensor("data"), optional("axis", ParamKind::Int), optional("dtype", ParamKind::DType),
                         optional("exclusive", ParamKind::Bool)},
                     DeviceRule::PrimaryInput, std::string("Cumulative ") + what + " along `axis` (of the flattened tensor when None).",
                     inferScan), kernel));
}

}  // namespace tvms::op
