#pragma once
// Internal to the registry: helpers the ops' deduction rules share (dims, broadcasting, axes,
// attributes, messages). Dims are symbolic expressions; comparisons are exact where both sides are
// constants and structural otherwise (two different symbolic dims are never a provable error).
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/struct_info.h"
#include "compiler/op/infer.h"
#include "compiler/op/registry.h"

namespace tvms::op::infer {

using ir::PrimExprPtr;
using ir::StructInfo;
using ir::StructInfoPtr;
using Dims = std::vector<PrimExprPtr>;

std::optional<int64_t> constInt(const PrimExprPtr& e);
bool sameDim(const PrimExprPtr& a, const PrimExprPtr& b);
bool provablyDifferent(const PrimExprPtr& a, const PrimExprPtr& b);
// Arithmetic on dims, folding constants.
PrimExprPtr add(const PrimExprPtr& a, const PrimExprPtr& b);
PrimExprPtr sub(const PrimExprPtr& a, const PrimExprPtr& b);
PrimExprPtr mul(const PrimExprPtr& a, const PrimExprPtr& b);
PrimExprPtr floorDiv(const PrimExprPtr& a, const PrimExprPtr& b);
PrimExprPtr ceilDiv(const PrimExprPtr& a, const PrimExprPtr& b);
PrimExprPtr dim(int64_t v);
std::optional<int64_t> product(const Dims& dims);  // when every dim is constant

std::string dimText(const PrimExprPtr& d);    // "n * 2"
std::string dimsText(const Dims& d);          // "(2, n)"
std::string shapeText(const StructInfo& s);   // "(2, n)" / "ndim=2" / "unknown shape"

bool isFloatDType(const std::string& dt);
bool isIntDType(const std::string& dt);

// Result builders.
StructInfoPtr tensor(std::optional<Dims> shape, std::string dtype, int ndim = -1);
StructInfoPtr withDType(const StructInfo& like, std::string dtype);
StructInfoPtr tupleOf(std::vector<StructInfoPtr> fields);
// The value of prim operand i (R.prim_value(3), a Python int), when it is a constant.
std::optional<int64_t> primOperand(const InferInput& in, size_t i);
InferResult ok(StructInfoPtr s);
InferResult fail(diag::Code code, std::string message, int operand = -1);
InferResult unknown();

// The name of the i-th expression parameter (Call::args index), for messages.
std::string operandName(const OpDef& def, size_t i);
// The tensor operand i, or null (the result is then unknown; a known non-tensor operand is reported).
const StructInfo* tensorOperand(const InferInput& in, size_t i, InferResult& r);
// The tensors of a tuple operand (concat, stack, einsum).
std::optional<std::vector<const StructInfo*>> tensorListOperand(const InferInput& in, size_t i, InferResult& r);

// Axis normalisation: -1 means the last axis. nullopt when out of range.
std::optional<int> normalizeAxis(int64_t axis, int rank);
// An attribute that is an int or a list of ints (axis=1, axis=[0, 2]); nullopt when None or absent.
std::optional<std::vector<int64_t>> intList(const ir::Value* v);
// permute_dims' `axes` for a tensor of `rank`: each output axis's input axis, negatives resolved, every
// axis reversed when None or absent; nullopt when the list is not `rank` axes in range.
std::optional<std::vector<int64_t>> permutation(const ir::Value* axes, int64_t rank);
std::optional<int64_t> intAttr(const ir::Value* v);
std::optional<double> floatAttr(const ir::Value* v);  // a float, or an int written where a float goes
std::optional<std::string> stringAttr(const ir::Value* v);
bool boolAttr(const ir::Value* v, bool fallback);
// Attributes as TVM's printer may wrap them: "text", R.str("text") or R.dtype("float32") for a string;
// 3 or R.prim_value(3) (T.int64(3) inside) for an integer.
std::optional<std::string> literalString(const ir::Value* v);
// The dims of a shape operand: (2, n), R.shape([...]) or a shape-valued variable.
std::optional<Dims> shapeOperand(const InferInput& in, size_t i);
std::optional<int64_t> literalInt(const ir::Value* v);
// Normalises an axis list against `rank`; records TVS103 and returns nullopt when one is out of range.
std::optional<std::vector<int>> axes(const std::vector<int64_t>& written, int rank, const std::string& opName,
                                     InferResult& r, int operand = 0);

// numpy broadcasting of two shapes. nullopt shape when a rank is unknown; error text when two
// constant dims differ and neither is 1.
struct Broadcast {
  std::optional<Dims> shape;
  int ndim = -1;
  std::string error;
};
Broadcast broadcast(const StructInfo& a, const StructInfo& b);

// dtype agreement of operands; records TVS102 and returns false on a mismatch.
bool sameDType(const StructInfo& a, const StructInfo& b, const std::string& opName, InferResult& r, int ia, int ib);

// An einsum subscripts string ("ij,jk->ik", spaces ignored): the operands' letters and the output's
// (the letters seen once, in order, when no "->" is written). Shared by deduction and the kernel.
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
  bool ellipsis = false;  // "..." somewhere: not modelled further
};
EinsumSpec parseEinsum(std::string spec);

}  // namespace tvms::op::infer
