#pragma once
// Internal to the kernel builders: shapes as loop-IR expressions and row-major indexing.
#include "compiler/op/legalize.h"

namespace tvms::op::kernels {

using codegen::ExprP;
using codegen::KernelBuilder;
using codegen::ScalarType;

// A dimension as a loop-IR expression (symbolic dims become the kernel's dims arguments); null
// when it is not expressible (an opaque expression).
ExprP dimExpr(KernelBuilder& kb, const ir::PrimExprPtr& d);
// All dims of a tensor struct info; nullopt when the shape is unknown.
std::optional<std::vector<ExprP>> shapeExprs(KernelBuilder& kb, const ir::StructInfo* s);
ExprP product(const std::vector<ExprP>& dims, size_t begin = 0, size_t end = SIZE_MAX);
// Printed dims for the T.Buffer of a parameter.
std::vector<std::string> shapeText(const ir::StructInfo* s);
std::optional<ScalarType> elementType(const ir::StructInfo* s);
LegalizeResult failure(std::string why);
// Row-major flat index of `indices` in a tensor of `dims`.
ExprP flatIndex(const std::vector<ExprP>& indices, const std::vector<ExprP>& dims);

}  // namespace tvms::op::kernels
