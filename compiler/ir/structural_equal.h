#pragma once
// Structural equality of IR: what a program means, not how it was written. Vdevices compare by value
// (use sameDeclaredEntry for TVM's identity question); variables by name and kind; call attributes
// with the op's defaults filled in; module functions as a set keyed by name. Comments, spacing and
// spelling choices (R.add vs +, "cuda" vs "cuda:0") do not count, also in what the IR keeps as source
// text (a T.prim_func's annotations and body, an opaque argument).
#include <string>

#include "compiler/ir/module.h"

namespace tvms::ir {

bool valuesEqual(const Value& a, const Value& b);
bool structInfoEqual(const StructInfoPtr& a, const StructInfoPtr& b);
bool exprEqual(const ExprPtr& a, const ExprPtr& b);
bool functionsEqual(const Function& a, const Function& b);
bool modulesEqual(const IRModule& a, const IRModule& b);
// Like modulesEqual, but says where the first difference is ("function main: binding 3: ..."), or "".
std::string firstDifference(const IRModule& a, const IRModule& b);

}  // namespace tvms::ir
