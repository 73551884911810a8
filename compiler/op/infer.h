#pragma once
// Struct-info deduction of one op call: the contract between the registry entries (each op's `infer`)
// and compiler/analysis, which supplies the operands' deduced struct info and turns issues into
// diagnostics at the right operand.
#include <string>
#include <vector>

#include "compiler/diagnostics/codes.h"
#include "compiler/ir/expr.h"

namespace tvms::op {

struct OpDef;

struct InferInput {
  const OpDef& def;
  const ir::Call& call;
  // Deduced struct info of each of call.args (same order); null when absent or unknown after an error.
  std::vector<ir::StructInfoPtr> args;
  const ir::StructInfo* arg(size_t i) const { return i < args.size() ? args[i].get() : nullptr; }
  const ir::Value* attr(std::string_view name) const { return call.attrValue(name); }
};

// A problem found while deducing: a catalogue code (TVS101, TVS102, TVS103, TVS203, TVS214, ...), a
// message, and the operand it is about (-1: the call itself).
struct InferIssue {
  diag::Code code;
  std::string message;
  int operand = -1;
  std::vector<int> operands;  // every operand involved (vdevice conflicts: both sides)
};

struct InferResult {
  ir::StructInfoPtr sinfo;  // null: unknown (an operand was unknown, or an error was reported)
  std::vector<InferIssue> issues;
  // Symbolic dims the rule took to be equal without proof (matmul's inner dims, a reshape's element
  // counts): TVM trusts them; tvms checks each at run time before the op's kernel runs.
  std::vector<std::pair<ir::PrimExprPtr, ir::PrimExprPtr>> assumedEqual;
};

// Shape and dtype deduction of one op; the vdevice is applied afterwards from the op's DeviceRule.
using InferFn = InferResult (*)(const InferInput&);

// Deduces a call of `def`: its shape/dtype rule, then its vdevice rule (LANGUAGE.md §6.1).
InferResult inferCall(const InferInput& in);

}  // namespace tvms::op
