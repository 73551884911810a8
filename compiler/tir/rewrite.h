#pragma once
// Rewrites of loop IR that schedules share: substituting expressions for variables (a fused or
// split loop's old variables become expressions of the new ones), and reading which variables an
// expression uses.
#include <map>
#include <optional>
#include <set>

#include "compiler/tir/loop_ir.h"

namespace tvms::tir {

// `e` with every Var whose id is in `with` replaced by its expression.
ExprP substitute(const ExprP& e, const std::map<int, ExprP>& with);
StmtP substitute(const StmtP& s, const std::map<int, ExprP>& with);
// The ids of the variables `e` reads.
void variablesOf(const ExprP& e, std::set<int>& out);
// Whether `e` reads any of the kernel's loop variables.
bool readsLoopVariable(const Kernel& k, const ExprP& e);
// A new loop variable of the kernel, and a reference to a variable (for schedules, which work on a
// built kernel rather than through a KernelBuilder).
int newLoopVar(Kernel& k, std::string name);
ExprP varRef(const Kernel& k, int id);
ExprP loadRef(const Kernel& k, int buffer, ExprP index);
// The coefficient of loop variable `v` in an index expression, when the index is linear in it (0:
// free of v); nullopt otherwise.
std::optional<int64_t> strideOf(const ExprP& e, int v);
// Whether any statement of `body`, at any depth, is a loop.
bool containsLoop(const std::vector<StmtP>& body);

}  // namespace tvms::tir
