#pragma once
// Symbolic integer expressions: shape dimensions (static or symbolic, e.g. n * 2) and prim values.
#include <cstdint>
#include <memory>
#include <optional>
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

// A number written as a prim value: an integer, a float literal kept as written ("1.5"), or a typed
// constant (T.float32(0.5), T.int32(3)); its dtype as TVM gives it (int64 for a bare integer,
// float32 for a bare float). Null / empty for anything else.
struct PrimNumber {
  double value = 0;
  std::string dtype;
};
std::optional<PrimNumber> primNumber(const PrimExpr& e);

}  // namespace tvms::ir
