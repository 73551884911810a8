#pragma once
// Shapes known only at run time, as TVM's VM runs them (its VMShapeLower): where deduction before
// LegalizeOps left a result's shape unknown but the operands' shapes are symbolic and known, the
// result gets a shape over those dims (a broadcast of two unrelated dims is T.max(a, c)); and every
// fact the shape rests on that no one proved (the dims broadcast, matmul's inner dims agree, a
// reshape keeps the element count) becomes a check the VM makes before the kernel runs, with a
// message naming the op and its binding.
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/op/registry.h"

namespace tvms::transform {

struct DimCheck {
  ir::PrimExprPtr a, b;
  bool broadcast = false;  // a and b broadcast (equal, or one is 1); else they are equal
  std::string message;     // "R.add (bound to 'z'): dim 0 (a, c) does not broadcast"
};

struct RuntimeShape {
  ir::StructInfoPtr result;  // the result with a shape where the annotation had none; null: unchanged
  std::vector<DimCheck> checks;
};

// The call's operands are variables (after Normalize) whose annotations hold what is known now;
// `scalars` marks the operands inlined as compile-time numbers.
RuntimeShape runtimeShape(const op::OpDef& def, const ir::Call& call, const ir::StructInfoPtr& result, const std::string& bound,
                          const std::vector<std::optional<double>>& scalars);

// A shape value of known rank and unknown values (R.tensor_to_shape's result) with a symbolic dim
// per value, named after it (lv_dim0, ...), which the VM binds when the value is made; null otherwise.
ir::StructInfoPtr shapedShapeValue(const ir::Var& v);

// A tensor parameter of known rank and no shape (R.Tensor(ndim=2)) with a symbolic dim per axis,
// named after it (x_dim0, x_dim1), which the VM binds from the argument; an integer parameter
// (R.Prim("int64")) a value named after it; null for any other.
ir::StructInfoPtr shapedParam(const ir::Var& p);

}  // namespace tvms::transform
