// Elementwise binary and unary ops, and the statistical reductions.
#include "compiler/op/tables.h"

namespace tvms::op {

using namespace decl;

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
    out.push_back(std::move(d));
  }
  out.push_back(op("clip", {tensor("x"), expr("min", ParamKind::Prim), expr("max", ParamKind::Prim)},
                   DeviceRule::PrimaryInput, "Clamps x to [min, max]. The result has x's shape and vdevice."));

  const char* reductions[] = {"sum", "mean", "max", "min", "prod", "std", "variance", "median"};
  for (auto* r : reductions)
    out.push_back(op(r, {tensor("x"), optional("axis", ParamKind::IntList), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput,
                     std::string("Reduces x by ") + r +
                         " over `axis` (all axes when None); `keepdims` keeps reduced axes as size 1."));
  for (auto* r : {"argmax", "argmin"})
    out.push_back(op(r, {tensor("x"), optional("axis", ParamKind::Int), attr("keepdims", ParamKind::Bool, b(false))},
                     DeviceRule::PrimaryInput, std::string("Index of the ") + (r[3] == 'm' && r[4] == 'a' ? "maximum" : "minimum") +
                                                   " along `axis` (of the flattened tensor when None)."));
  for (auto* r : {"cumsum", "cumprod"})
    out.push_back(op(r, {tensor("data"), optional("axis", ParamKind::Int), optional("dtype", ParamKind::DType),
                         optional("exclusive", ParamKind::Bool)},
                     DeviceRule::PrimaryInput, std::string("Cumulative ") + (r[3] == 's' ? "sum" : "product") +
                                                   " along `axis` (of the flattened tensor when None)."));
}

}  // namespace tvms::op
