#pragma once
// Reads a T.prim_func into the loop IR (compiler/tir): what tvms compiles when Relax calls a user's
// kernel through R.call_tir. The TIR of TVM's tests and printer, in its common forms: T.Buffer and
// T.handle + T.match_buffer parameters (static and symbolic shapes), T.grid / range / T.serial /
// T.parallel / T.vectorized / T.unroll / T.thread_binding loops, blocks (T.block / T.sblock) with
// T.axis.spatial / reduce / remap, T.init and T.where, T.alloc_buffer, buffer loads and stores,
// if / else, lets, and the arithmetic, comparison, cast and math intrinsics of TIR expressions.
// A construct it does not read leaves the function unread with the reason (`TirRead::error`, said
// when a build needs the kernel); reading never reports a lint diagnostic.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/ir/expr.h"
#include "compiler/syntax/document.h"
#include "compiler/tir/loop_ir.h"

namespace tvms::frontend {

struct TirRead {
  std::shared_ptr<const tir::Kernel> kernel;  // null when not read
  std::string error;                           // why not, with the line
  std::optional<syntax::ByteRange> unreadAt;   // the construct not read (not a mistake): where lint notes it
  // Mistakes lint reports (TVS401-406): the one that stopped the reading (a mistake TVM rejects too,
  // not a construct tvms does not read), and those found on the way (the kernel is still read).
  std::vector<diag::Diagnostic> diagnostics;
  // The buffers and variables resolved, and where each is defined and used (up to the first construct
  // not read): what the editor's hover, definition and references use.
  struct Name {
    syntax::ByteRange range;
    size_t symbol = 0;  // into `symbols`
    bool isDefinition = false;
  };
  std::vector<std::shared_ptr<const ir::TirSymbol>> symbols;
  std::vector<Name> names;
};

// A number the file's Python binds to a name (`SCALE = 2.0` at module level): TVM's parser reads such
// constants inside a prim_func, as an int or a float literal.
struct PythonNumber {
  bool integer = true;
  int64_t intValue = 0;
  double floatValue = 0;
};
using PythonNumbers = std::function<std::optional<PythonNumber>(const std::string&)>;

// `def`: the function_definition node of the prim_func. `canonicalName` resolves an attribute chain
// or identifier to its canonical dotted name ("T.grid" whatever the module's alias of tir is);
// `isPythonName` says whether the file's Python binds a name (TVM's parser reads it from there).
TirRead readPrimFunc(const syntax::Document& doc, TSNode def, const std::function<std::string(TSNode)>& canonicalName,
                     const std::function<bool(const std::string&)>& isPythonName, const PythonNumbers& pythonNumber = {});

// The symbolic variables an assignment of a prim_func body declares: `n = T.int64()`, or several at
// once, `n, c = T.int64(), T.int64()` (as TVM's printer writes them); empty for any other statement.
std::vector<std::string> symbolicVariablesDeclared(const syntax::Document& doc, TSNode assignment,
                                                   const std::function<std::string(TSNode)>& canonicalName);

}  // namespace tvms::frontend
