#pragma once
// Internal to the kernel builders: shapes as loop-IR expressions and row-major indexing.
#include <functional>

#include "compiler/op/legalize.h"

namespace tvms::op::kernels {

using tir::ExprP;
using tir::KernelBuilder;
using tir::ScalarType;
using tir::StmtP;

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
// A loop nest over every index of `dims` around body(indices), its loops named prefix0, prefix1, ...;
// `spatial`: the iterations are independent (the schedule may run them in parallel), else serial in order.
StmtP loopNest(KernelBuilder& kb, const std::vector<ExprP>& dims, const std::function<std::vector<StmtP>(const std::vector<ExprP>&)>& body,
               bool spatial, const std::string& prefix);
// A loop nest over every index of `dims` (all spatial: the schedule decides what runs in parallel) around body(indices).
StmtP outputNest(KernelBuilder& kb, const std::vector<ExprP>& dims, const std::function<std::vector<StmtP>(const std::vector<ExprP>&)>& body);
// The value v in dtype t (an integer dtype gets it truncated).
ExprP constantOf(double v, ScalarType t);
// An index read from an index tensor, counted from the end when negative, clamped into [0, n): a bad
// index never reads or writes outside a buffer.
ExprP indexInAxis(ExprP i, const ExprP& n);
// An axis attribute normalised into [0, rank) (infer::normalizeAxis); -1 when out of range, `fallback` when absent.
int axisAttr(const LegalizeInput& in, const char* name, int rank, int fallback);
// A float attribute (written as an int or a float), or `fallback`.
double floatAttr(const LegalizeInput& in, const char* name, double fallback);
// The kernel's result for `buffers` (indices into call.args), the kernel taken from kb.
LegalizeResult done(KernelBuilder& kb, std::vector<size_t> buffers);

}  // namespace tvms::op::kernels
