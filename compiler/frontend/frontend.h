#pragma once
// CST -> Relax IR. Finds the TVMScript regions of a Python file (@I.ir_module classes, top-level
// @R.function / @T.prim_func functions, wherever they are defined) and lowers each to an IRModule,
// with a source range for every node and every name in a side table. It never throws: broken or
// unsupported text becomes diagnostics and the rest is still lowered.
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/ir/module.h"
#include "compiler/ir/printer.h"
#include "compiler/syntax/document.h"

namespace tvms::frontend {

using syntax::ByteRange;

// A name in the text: a definition or a use of a variable, function, symbolic variable or vdevice.
struct NameRef {
  enum class Kind { Var, Function, SymbolicVar, VDevice };
  Kind kind;
  ByteRange range;
  std::string name;
  bool isDefinition = false;
  const void* target = nullptr;  // the ir::Var / ir::Function / ir::PrimFunc / ir::VDevice it denotes
};

struct SourceMap {
  std::unordered_map<const void*, ByteRange> ranges;  // IR object (Expr, Binding, Var, Function, StructInfo, VDeviceRef, VDevice) -> text
  std::vector<NameRef> names;
  // The text of each operand of a Call (aligned with Call::args; empty range for an absent optional
  // argument) and of each field of a Tuple. A variable's own entry in `ranges` is its definition, so a
  // use of it is found here.
  std::unordered_map<const void*, std::vector<ByteRange>> operands;
  ByteRange operand(const void* parent, size_t i) const {
    auto it = operands.find(parent);
    if (it == operands.end() || i >= it->second.size()) return {};
    return it->second[i];
  }
  const ByteRange* find(const void* node) const {
    auto it = ranges.find(node);
    return it == ranges.end() ? nullptr : &it->second;
  }
};

struct FunctionSpan {
  std::string name;
  ByteRange range;     // the whole decorated definition
  bool broken = false; // holds a syntax error: reported, not lowered
};

struct Region {
  std::shared_ptr<ir::IRModule> module;
  SourceMap map;
  ir::Trivia trivia;        // comments and blank lines, for the formatter
  ByteRange range;          // the decorated class or function
  uint32_t indentColumn = 0;
  std::vector<FunctionSpan> functions;
  std::vector<diag::Diagnostic> diagnostics;
  bool formattable() const;  // no syntax errors and no unsupported constructs
};

struct FileResult {
  std::vector<Region> regions;
  std::vector<diag::Diagnostic> diagnostics;  // file-level (TVS009, TVS010, syntax errors outside regions)
  std::vector<diag::Diagnostic> all() const;
};

FileResult lowerDocument(const syntax::Document& doc);

// The region's range widened to whole lines (what the formatter replaces).
ByteRange regionLines(const syntax::Document& doc, ByteRange regionRange);
// The comments within a range, in order (the formatter checks it kept every one).
std::vector<std::string> commentsIn(const syntax::Document& doc, ByteRange range);
struct Comment {
  ByteRange range;
  std::string text;  // "# noqa: TVS201", trailing blanks removed
};
std::vector<Comment> commentNodesIn(const syntax::Document& doc, ByteRange range);

// Re-lowers function `index` of `region` after an edit inside it, leaving the other functions' IR
// (and their analysis) untouched. Returns false when the function can no longer be found.
bool relowerFunction(const syntax::Document& doc, Region& region, size_t index);

// Follows one edit that replaced the old bytes `edit` by `newLength` bytes (`doc` already holds the
// new text): when the edit lies strictly inside one function of a class region, that function is
// re-lowered and every range after the edit is shifted. Returns the region's index; nullopt when the
// edit is not of that kind or the result is doubtful: then `file` is unusable and the caller lowers
// the document again.
std::optional<size_t> followEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength);
// Moves every endpoint at or after `from` by `delta` (diagnostic ranges, related locations, fix edits).
void shiftDiagnostics(std::vector<diag::Diagnostic>& ds, uint32_t from, int64_t delta);

}  // namespace tvms::frontend
