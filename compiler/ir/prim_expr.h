#pragma once
// Symbolic integer expressions: shape dimensions (static or symbolic, e.g. n * 2) and prim values.
#include <cstdint>
#include <memory>
#include <string>

namespace tvms::ir {

struct PrimExpr {
  enum class Kind { Int, Var, Binary, Neg, Opaque };
  Kind kind = Kind::Int;
  int64_t value = 0;     // Int
  std::string name;      // Var: the symbolic variable; Binary: the operator (+ - * // % /); Opaque: source
  std::shared_ptr<const PrimExpr> lhs, rhs;  // Binary (lhs, rhs); Neg (lhs)
};
using PrimExprPtr = std::shared_ptr<const PrimExpr>;

PrimExprPtr primInt(int64_t v);
PrimExprPtr primVar(std::string name);
PrimExprPtr primBinary(std::string op, PrimExprPtr a, PrimExprPtr b);
PrimExprPtr primOpaque(std::string source);  // a value kept as written (T.max(n, 1)): unknown to the checks

}  // namespace tvms::ir
