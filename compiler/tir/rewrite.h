#pragma once
// Rewrites of loop IR that schedules share: substituting expressions for variables (a fused or
// split loop's old variables become expressions of the new ones), and reading which variables an
// expression uses.
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "compiler/tir/loop_ir.h"

namespace tvms::tir {

// `e` with every node rewritten by `f`, children first (a node whose children and f leave it alone
// is shared, not copied). A node the input shares (held in several places) is rewritten once and its
// result shared the same way, so `f` must depend on the node alone.
ExprP mapExpr(const ExprP& e, const std::function<ExprP(const ExprP&)>& f);
// A copy of `s` and the statements in it, each expression of each rewritten by mapExpr(e, f); `fields`
// (when given) adjusts each copied statement's own fields (a variable or buffer renumbered).
StmtP mapStmt(const StmtP& s, const std::function<ExprP(const ExprP&)>& f, const std::function<void(Stmt&)>& fields = {});
std::vector<StmtP> mapStmts(const std::vector<StmtP>& body, const std::function<ExprP(const ExprP&)>& f,
                            const std::function<void(Stmt&)>& fields = {});
// `e` with every Var whose id is in `with` replaced by its expression.
ExprP substitute(const ExprP& e, const std::map<int, ExprP>& with);
StmtP substitute(const StmtP& s, const std::map<int, ExprP>& with);
// The variables of a row-major nest (`vars` over `extents`, outermost first) that give flat index
// `flat`: the innermost is flat mod its extent, the outermost what is left.
std::map<int, ExprP> rowMajorIndex(const std::vector<int>& vars, const std::vector<ExprP>& extents, ExprP flat);
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
// The kernel's buffers reordered so that its parameters come first, in their order, then its local
// arrays (what the backends assume), every load and store renumbered.
void orderParamsFirst(Kernel& k);
// Whether any statement of `body`, at any depth, is a loop.
bool containsLoop(const std::vector<StmtP>& body);

}  // namespace tvms::tir
