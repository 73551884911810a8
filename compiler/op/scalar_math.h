#pragma once
// The scalar functions of the elementwise ops (TVM keeps these in TOPI): each computes one element of
// the result from the values of the op's tensor operands at that element (x[i] for its i-th tensor
// parameter) and the call (attributes, compile-time scalars). The op registry binds each op to its
// function (OpDef::scalar); kernels::elementwise builds the loops around it.
#include <vector>

#include "compiler/op/legalize.h"

namespace tvms::op::scalar {

using tir::ExprP;
using Operands = std::vector<ExprP>;

template <tir::BinOp Op>
ExprP binary(const Operands& x, const LegalizeInput&) { return tir::binary(Op, x[0], x[1]); }
template <tir::UnOp Op>
ExprP unary(const Operands& x, const LegalizeInput&) { return tir::unary(Op, x[0]); }

ExprP logAddExp(const Operands& x, const LegalizeInput& in);
ExprP square(const Operands& x, const LegalizeInput& in);
ExprP sign(const Operands& x, const LegalizeInput& in);
ExprP isNan(const Operands& x, const LegalizeInput& in);
ExprP isInf(const Operands& x, const LegalizeInput& in);
ExprP isFinite(const Operands& x, const LegalizeInput& in);
ExprP identity(const Operands& x, const LegalizeInput& in);  // broadcast_to: the loops do the broadcasting
ExprP asType(const Operands& x, const LegalizeInput& in);
ExprP clip(const Operands& x, const LegalizeInput& in);      // null unless both bounds are compile-time scalars
ExprP where(const Operands& x, const LegalizeInput& in);
ExprP fma(const Operands& x, const LegalizeInput& in);
ExprP relu(const Operands& x, const LegalizeInput& in);
ExprP relu6(const Operands& x, const LegalizeInput& in);  // min(max(x, 0), 6)
ExprP leakyRelu(const Operands& x, const LegalizeInput& in);
ExprP gelu(const Operands& x, const LegalizeInput& in);
ExprP geluTanh(const Operands& x, const LegalizeInput& in);
ExprP silu(const Operands& x, const LegalizeInput& in);
ExprP selu(const Operands& x, const LegalizeInput& in);
ExprP softplus(const Operands& x, const LegalizeInput& in);

}  // namespace tvms::op::scalar
