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
#include "compiler/frontend/range_table.h"
#include "compiler/ir/module.h"
#include "compiler/ir/printer.h"
#include "compiler/syntax/document.h"

namespace tvms::frontend {

using syntax::ByteRange;

// A name in the text: a definition or a use of a variable, function, symbolic variable or vdevice.
struct NameRef {
  enum class Kind { Var, Function, SymbolicVar, VDevice, TirBuffer, TirVar };  // Tir*: target is an ir::TirSymbol
  Kind kind;
  ByteRange range;
  std::string name;
  bool isDefinition = false;
  const void* target = nullptr;  // the ir::Var / ir::Function / ir::PrimFunc / ir::VDevice it denotes
};

using RangeTable = RangeTableOf<const void*>;

// The i-th operand of a Call / Tuple / return / binding.
struct OperandKey {
  const void* parent;
  uint32_t index;
  bool operator==(const OperandKey&) const = default;
};
struct OperandKeyHash {
  size_t operator()(const OperandKey& k) const { return std::hash<const void*>()(k.parent) * 31 + k.index; }
};

struct SourceMap {
  RangeTable ranges;  // IR object (Expr, Binding, Var, Function, StructInfo, VDeviceRef, VDevice) -> text
  std::vector<NameRef> names;
  // The text of each operand of a Call (keyed by (call, index of Call::args); no entry or an empty
  // range for an absent optional argument) and of each field of a Tuple, in one contiguous table so an
  // edit shifts them in one pass. A variable's own entry in `ranges` is its definition, so a
  // use of it is found here.
  RangeTableOf<OperandKey, OperandKeyHash> operands;
  ByteRange operand(const void* parent, size_t i) const {
    const ByteRange* r = operands.find({parent, static_cast<uint32_t>(i)});
    return r ? *r : ByteRange{};
  }
  const ByteRange* find(const void* node) const { return ranges.find(node); }
  // The lowering records no positions (ranges and operands stay empty).
  void recordNothing() {
    ranges.stopRecording();
    operands.stopRecording();
  }
  // How the file's Python names a declared vdevice list entry (`vdevice[1]`), when the list came from a
  // Python value: fixes then name the entry the way the program can.
  std::unordered_map<const void*, std::string> pythonSpellings;
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
  std::vector<ByteRange> moduleStatements;  // a module class's statements that are not functions
  std::vector<diag::Diagnostic> diagnostics;
  bool keepAsWritten = false;  // holds a construct the IR cannot print back (TVS011): fmt leaves it alone
  bool readsPython = false;    // TVMScript that read Python values of the file: an edit lowers the file again
  // Built by a Python program (IRBuilder / BlockBuilder, builder_program.h), not written as TVMScript:
  // fmt leaves it alone, `tvms convert` prints it. `range` covers the program's statements.
  bool builtByProgram = false;
  // Some of what built it was not followed (a loop, bb.emit_te): uses may be missing, so the checks
  // that need the whole module (TVS209, an unused vdevice) are not made.
  bool partial = false;
  // Lowered by error recovery (recovery.h: the class split by indentation, each function parsed on its
  // own): its names come from separate trees, so an edit lowers it again as a whole.
  bool recovered = false;
  // Statements of the class body at another column that no function holds (lower_module.cpp:
  // misindentedFunctions): the functions after them were not lowered, so an edit lowers it again.
  bool misindented = false;
  bool formattable() const;    // no syntax errors, no unsupported constructs, nothing kept as written
};

// What the file's Python does with a module it made or wrote: the passes it names, its offload
// partitioning, relax.build's target. `tvms run FILE` runs that module through that pipeline.
struct ProgramPipeline {
  size_t region = 0;  // the module relax.build (or tvm.compile) compiles
  std::vector<std::string> passes;
  std::vector<std::pair<size_t, std::shared_ptr<const ir::VDevice>>> updateVDevice;
  bool offload = false;  // partition_for_cublas / partition_for_cudnn
  std::string target;    // relax.build's target as given, "" when none
  // PassContext(config={"relax.backend.use_cuda_graph": ...}) around relax.build; unset when not given.
  std::optional<bool> useCudaGraph;
};

struct FileResult {
  std::vector<Region> regions;
  std::optional<ProgramPipeline> pipeline;
  std::vector<diag::Diagnostic> diagnostics;  // file-level (TVS009, TVS010, syntax errors outside regions)
  std::vector<diag::Diagnostic> all() const;
};

struct LowerOptions {
  // Keep the IR's source positions (Region::map's ranges and operands): what lint's checks and the
  // editors read. `tvms fmt` reads only the regions' bounds and syntax errors: a large module's
  // positions were a fifth of its lowering's memory.
  bool positions = true;
};
FileResult lowerDocument(const syntax::Document& doc, const LowerOptions& options = {});
// lowerDocument for a document read by function (syntax::Parsing::ByFunction): when a function's own
// parse disagreed with the skeleton's, the file is parsed whole and lowered again.
FileResult lowerDocumentOnce(syntax::Document& doc, const LowerOptions& options = {});

// The region's range widened to whole lines (what the formatter replaces).
ByteRange regionLines(const syntax::Document& doc, ByteRange regionRange);
// The comments within a range, in order (the formatter checks it kept every one).
std::vector<std::string> commentsIn(const syntax::Document& doc, ByteRange range);
struct Comment {
  ByteRange range;
  std::string text;  // "# noqa: TVS201", trailing blanks removed
};
std::vector<Comment> commentNodesIn(const syntax::Document& doc, ByteRange range);
// The same from one tree only (`root`'s), whatever tree the document holds current there.
std::vector<Comment> commentNodesUnder(const syntax::Document& doc, TSNode root, ByteRange range);

// Re-lowers function `index` of `region` after an edit inside it, leaving the other functions' IR
// (and their analysis) untouched. Returns false when the function can no longer be found.
bool relowerFunction(const syntax::Document& doc, Region& region, size_t index);
// The region's decorated definition in the whole-file tree (a module class: the body that
// Document::statementsOf lists).
TSNode regionNode(const syntax::Document& doc, const Region& region);
// The imports and Python names of the file (what lowering a function reads besides its own text).
class Aliases;
Aliases fileAliases(const syntax::Document& doc);

// Follows one edit that replaced the old bytes `edit` by `newLength` bytes (`doc` already holds the
// new text): when the edit lies strictly inside one function of a class region, that function is
// re-lowered and every range after the edit is shifted. Returns the region's index; nullopt when the
// edit is not of that kind or the result is doubtful: then `file` is unusable and the caller lowers
// the document again.
std::optional<size_t> followEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength);
// Moves every endpoint at or after `from` by `delta` (diagnostic ranges, related locations, fix edits).
void shiftDiagnostics(std::vector<diag::Diagnostic>& ds, uint32_t from, int64_t delta);

}  // namespace tvms::frontend
