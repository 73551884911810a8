#include "compiler/op/scalar_math.h"

#include <cmath>

#include "compiler/op/legalize_util.h"

namespace tvms::op::scalar {

using namespace tir;

namespace {
ExprP k(double v, const ExprP& like) { return floatImm(v, like->type); }
}  // namespace

ExprP logAddExp(const Operands& x, const LegalizeInput&) {
  // max + log(1 + exp(-|a - b|)): no overflow for large operands
  ExprP hi = max(x[0], x[1]);
  return hi + tir::unary(UnOp::Log, k(1, x[0]) + tir::unary(UnOp::Exp, tir::unary(UnOp::Neg, tir::unary(UnOp::Abs, x[0] - x[1]))));
}
ExprP square(const Operands& x, const LegalizeInput&) { return x[0] * x[0]; }
ExprP sign(const Operands& x, const LegalizeInput&) {
  return select(tir::binary(BinOp::Gt, x[0], k(0, x[0])), k(1, x[0]), select(tir::binary(BinOp::Lt, x[0], k(0, x[0])), k(-1, x[0]), k(0, x[0])));
}
ExprP isNan(const Operands& x, const LegalizeInput&) { return tir::binary(BinOp::Ne, x[0], x[0]); }
ExprP isInf(const Operands& x, const LegalizeInput&) { return tir::binary(BinOp::Eq, tir::unary(UnOp::Abs, x[0]), k(INFINITY, x[0])); }
ExprP isFinite(const Operands& x, const LegalizeInput&) { return tir::binary(BinOp::Lt, tir::unary(UnOp::Abs, x[0]), k(INFINITY, x[0])); }
ExprP identity(const Operands& x, const LegalizeInput&) { return x[0]; }
ExprP asType(const Operands& x, const LegalizeInput& in) {
  auto to = scalarTypeOf(in.out.dtype);
  return to ? cast(*to, x[0]) : nullptr;
}
ExprP clip(const Operands& x, const LegalizeInput& in) {
  auto bound = [&](size_t i) -> ExprP { return i < in.scalars.size() && in.scalars[i] ? k(*in.scalars[i], x[0]) : nullptr; };
  ExprP lo = bound(1), hi = bound(2);
  if (!lo || !hi) return nullptr;
  return min(max(x[0], lo), hi);
}
ExprP where(const Operands& x, const LegalizeInput&) {
  return select(x[0]->type == ScalarType::Bool ? x[0] : tir::binary(BinOp::Ne, x[0], intImm(0)), x[1], x[2]);
}
ExprP fma(const Operands& x, const LegalizeInput&) { return x[0] * x[1] + x[2]; }
ExprP relu(const Operands& x, const LegalizeInput&) { return max(x[0], k(0, x[0])); }
ExprP relu6(const Operands& x, const LegalizeInput&) { return min(max(x[0], k(0, x[0])), k(6, x[0])); }
ExprP leakyRelu(const Operands& x, const LegalizeInput& in) {
  return select(tir::binary(BinOp::Gt, x[0], k(0, x[0])), x[0], k(kernels::floatAttr(in, "alpha", 0.01), x[0]) * x[0]);
}
ExprP gelu(const Operands& x, const LegalizeInput&) {
  return k(0.5, x[0]) * x[0] * (k(1, x[0]) + tir::unary(UnOp::Erf, x[0] * k(M_SQRT1_2, x[0])));
}
ExprP geluTanh(const Operands& x, const LegalizeInput&) {
  ExprP inner = k(std::sqrt(2.0 / M_PI), x[0]) * (x[0] + k(0.044715, x[0]) * x[0] * x[0] * x[0]);
  return k(0.5, x[0]) * x[0] * (k(1, x[0]) + tir::unary(UnOp::Tanh, inner));
}
ExprP silu(const Operands& x, const LegalizeInput&) { return x[0] * tir::unary(UnOp::Sigmoid, x[0]); }
ExprP selu(const Operands& x, const LegalizeInput&) {
  // scale * (x > 0 ? x : alpha * (exp(x) - 1)), the constants of Klambauer et al. (as TVM uses)
  const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  return k(scale, x[0]) * select(tir::binary(BinOp::Gt, x[0], k(0, x[0])), x[0], k(alpha, x[0]) * (tir::unary(UnOp::Exp, x[0]) - k(1, x[0])));
}
ExprP softplus(const Operands& x, const LegalizeInput& in) {
  double beta = kernels::floatAttr(in, "beta", 1.0), threshold = kernels::floatAttr(in, "threshold", 20.0);
  ExprP bx = k(beta, x[0]) * x[0];
  return select(tir::binary(BinOp::Gt, bx, k(threshold, x[0])), x[0],
                tir::binary(BinOp::Div, tir::unary(UnOp::Log, k(1, x[0]) + tir::unary(UnOp::Exp, bx)), k(beta, x[0])));
}

}  // namespace tvms::op::scalar
