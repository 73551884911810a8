#pragma once
// Prints IR as TVMScript in TVM's printed style (LANGUAGE.md §9). Two uses:
//  - canonical dumps (`tvms parse --dump-ir`): every call attribute with defaults, functions sorted,
//    operators spelled as ops; structurally equal modules print identically;
//  - formatting (`tvms fmt`): written attributes only, source order, Python operators kept, and the
//    comments and blank lines that the frontend collected (Trivia) put back beside their statements.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/module.h"

namespace tvms::ir {

// Comments and spacing around printable items. Keys are the addresses of IR objects: a Binding, a
// parameter Var, a Function / PrimFunc / TirParam, a BindingBlock (its `with` line), &block->bindings
// (its R.output line), a SeqExpr (its `return` line, or an If branch's header), the module itself
// (the class line), &module.decoratorArgs / &fn.decoratorArgs (decorator lines), &module.attrs / &module.vdevices (the I.module_* lines), &fn.attrs (R.func_attr),
// &fn.symbolicVars[i].
struct Trivia {
  struct Item {
    std::vector<std::string> leading;  // own-line comments before the item
    std::string trailing;              // end-of-line comment(s) after the item's first line
    bool trailingAtEnd = false;        // ... or after its last line (the comment followed its last token)
    bool blankBefore = false;          // a blank line separated it from what came before
  };
  std::unordered_map<const void*, Item> items;
  std::vector<std::string> dangling;  // comments after the last item of the region
  // Brackets written with a trailing comma ("magic trailing comma", as black and ruff read it): a Call,
  // or &fn.params for a parameter list. They stay one item per line.
  std::unordered_set<const void*> magicCommas;
  const Item* find(const void* key) const {
    auto it = items.find(key);
    return it == items.end() ? nullptr : &it->second;
  }
};

struct PrintOptions {
  bool canonical = true;
  int lineWidth = 100;
  int indent = 0;                    // column of the region's first line
  const Trivia* trivia = nullptr;
  bool importHeader = false;         // "# from tvm.script import ir as I" lines, as TVM prints them
};

std::string printModule(const IRModule& m, const PrintOptions& opts = {});
// One struct info / expression / value, as it would appear inside `m` (vdevices print relative to it).
std::string printStructInfo(const StructInfoPtr& s, const IRModule& m, bool inSignature = false);
std::string printExpr(const ExprPtr& e, const IRModule& m);
std::string printValue(const Value& v, const IRModule& m);
std::string printPrimExpr(const PrimExprPtr& p);
std::string pythonString(std::string_view s);
std::string pythonFloat(double d);

}  // namespace tvms::ir
