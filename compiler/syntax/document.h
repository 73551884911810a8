#pragma once
// A Document owns a text, its tree-sitter trees (tree-sitter-python grammar) and its line index.
//
// Reparsing is bounded by the edited function. The file is parsed once as a whole (the skeleton).
// Every function defined at column 0, or directly in the body of a class at column 0, is an island:
// an edit strictly inside one is applied with ts_tree_edit to every tree, and only that island is
// reparsed, incrementally, as a tree of its own through ts_parser_set_included_ranges (its class
// header lines and its own lines), so its nodes carry the document's byte offsets.
// An edit between the functions of a class, or one that changes which functions there are (a new
// function typed or pasted, one deleted, a line dedented out of a function), reparses a span: the
// class header, the text from the end of the last function the edit left whole to the end of the
// first function after it that it left whole, as one tree. The span's definitions become islands
// (sharing that tree), its other statements are read from it. Any other edit, or a span whose parse
// is not bounded (an unclosed bracket swallowing the next function, a line that leaves the class),
// reparses the skeleton incrementally against the old tree and drops the islands' and spans' trees.
// Whole-file incremental reparses cost up to ~150 ms at 10k lines for common edits (BASELINES.md);
// an island or span reparse costs what its functions cost.
//
// The skeleton is stale inside islands and spans that have their own tree: code that looks at a
// definition asks definitionAt(); code that lists a class body's statements asks statementsOf();
// code that walks a range asks treesIn().
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/line_index.h"
#include "compiler/syntax/position.h"
#include "compiler/syntax/shifted_tree.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace tvms::syntax {

class FunctionTrees;

// How a Document parses its text at first.
enum class Parsing {
  Whole,       // one tree of the whole file (what edits need: the language server, fmt, build)
  ByFunction,  // for a one-shot read of a large file: the functions of its column-0 classes are found
               // from the text (skeleton_scan.h), the rest is parsed as a skeleton in which their
               // bodies are blank, and each function is parsed on its own when it is asked for
               // (definitionAt) and freed when its reader says it is done (doneWith); helper threads
               // parse ahead. When the scan gives up, the file is parsed whole. When a function's own
               // parse disagrees with the skeleton's, byFunctionFailed() says so: read it again whole.
};

class Document {
 public:
  explicit Document(std::string text, Parsing parsing = Parsing::Whole, unsigned helpers = 0);
  ~Document();
  // Frees every syntax tree (the whole file's and the islands'): afterwards only the text and the
  // line index may be read. A one-shot lint drops them once lowering is done (half its memory).
  void dropTrees();
  // Drops the trees (as dropTrees) and hands the text to the caller (a one-shot lint gives it back to be
  // reported from, rather than keep a second copy of a large file); the document may then only be
  // destroyed.
  std::string releaseText();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  const std::string& text() const { return text_; }
  std::string_view slice(ByteRange r) const;
  std::string_view nodeText(TSNode n) const;
  const LineIndex& lines() const { return lines_; }
  // The whole-file tree (see above: stale inside islands that have their own tree).
  TSNode root() const { return ts_tree_root_node(tree_); }

  // The current node for a definition (decorated_definition / function_definition) found in the
  // skeleton: the same definition in its island's own tree when it has one, else the node itself.
  // Read by function, the function's own tree (parsed now unless a helper has).
  TSNode definitionAt(TSNode skeletonNode) const;
  // A node for a definition whose decorators, name and parameters are current, for a reader that looks
  // no deeper: read by function, the skeleton's own (its body is blank), so nothing is parsed.
  TSNode headerAt(TSNode skeletonNode) const;
  // Read by function, frees the tree definitionAt made for this definition (nodes of it die); asked for
  // again, it is parsed again. Nothing otherwise.
  void doneWith(TSNode skeletonNode) const;
  // Whether `node` is a definition of the skeleton whose own tree definitionAt hands out (read by
  // function: a function of a column-0 class, blank in the skeleton). A node of any other tree: false.
  bool readAlone(TSNode node) const;
  // Read by function, a second pass over the functions from the first (the helpers parse ahead of it
  // again). Nothing otherwise.
  void readFunctionsAgain() const;
  // Whether the functions are read one by one (the scan succeeded), and whether one of their own parses
  // disagreed with the skeleton: what was read from this document must then be read again after
  // parseWhole().
  bool readsByFunction() const { return functionTrees_ != nullptr; }
  bool byFunctionFailed() const;
  // Parses the whole text as Parsing::Whole does (every node and tree handed out before dies).
  void parseWhole();
  // Read by function: how many function trees were parsed, the most alive at once, and whether the
  // document was read again whole after all (for tests; kept after dropTrees).
  size_t functionTreesParsed() const;
  size_t mostFunctionTreesAlive() const;
  bool readWholeAfterAll() const { return readWholeAfterAll_; }
  // The roots to walk for `range`, each with the part of the range it is authoritative for: the
  // skeleton outside islands with trees, and each such island's tree inside it.
  struct TreePart {
    TSNode root;
    ByteRange part;
  };
  std::vector<TreePart> treesIn(ByteRange range) const;
  // treesIn's parts in order, each handed to `visit`; read by function, each function's tree is
  // parsed when its part comes and freed after its visit, so one pass over a large file holds a few
  // trees at a time (treesIn would parse them all at once).
  template <typename Visit>
  void visitTreesIn(ByteRange range, Visit&& visit) const {
    for (const LazyPart& p : partsIn(range)) {
      int k = p.function;
      visit(TreePart{k >= 0 ? functionRoot(k) : p.root, p.part});
      if (k >= 0) doneWithFunction(k);
    }
  }
  // When the definition found in the skeleton lies in an island whose own parse is broken (a syntax error
  // beside the definition, e.g. a character typed into a line's indentation): the island's range and the
  // root of its tree, to report the error from. The definition node of such an island may be partial.
  struct BrokenIsland {
    ByteRange range;
    TSNode root;
    // Where a statement after the definition stands at another column than the class body's
    // (CPython: "unexpected indent"): tree-sitter's tree has no error node for it.
    std::optional<uint32_t> indentError;
  };
  std::optional<BrokenIsland> brokenIslandAt(TSNode skeletonNode) const;
  // The statements of `body` (its named children but comments) as they stand: the skeleton's, except
  // that in a reparsed span of a class body the span's own statements replace the skeleton's stale
  // ones. Any node but the body of a column-0 class has no spans: its named children but comments.
  std::vector<TSNode> statementsOf(TSNode body) const;
  // The one statement of statementsOf(body) that starts at `start`, found without listing the others
  // (a null node when none does).
  TSNode statementAt(TSNode body, uint32_t start) const;

  // Replaces the bytes in `range` (clamped to the text) by `newText` and reparses incrementally.
  // Returns the byte ranges whose syntax changed.
  std::vector<ByteRange> applyEdit(ByteRange range, std::string_view newText);
  // The same, with the range in (line, column) positions of the given encoding (as editors send them).
  std::vector<ByteRange> applyEdit(LineCol begin, LineCol end, std::string_view newText, Encoding enc);

  // A separate tree of only `ranges` of this text (sorted, disjoint), as tree-sitter parses included
  // ranges: byte offsets are this document's. The caller owns the tree (ts_tree_delete).
  TSTree* parseRanges(const std::vector<ByteRange>& ranges) const;

  // How many edits reparsed the whole file / only an island (for tests and benchmarks).
  size_t wholeFileReparses() const { return wholeFileReparses_; }
  size_t islandReparses() const { return islandReparses_; }
  size_t spanReparses() const { return spanReparses_; }
  // The span the last edit reparsed (this text's offsets), when it reparsed one: what changed there
  // is which functions the class has; everything outside it is as it was, moved by the edit.
  std::optional<ByteRange> lastSpan() const { return lastSpan_; }
  // Whether the last edit reparsed the whole file (then the islands were found again).
  bool lastEditReparsedFile() const { return lastEditReparsedFile_; }

 private:
  struct Island {
    ByteRange header;     // the enclosing class's decorator + `class X:` lines (empty at top level)
    ByteRange range;      // the definition, whole lines
    uint32_t bodyBegin;   // start of the first body line: edits before it (decorators, the def line) may
                          // change the indentation that decides where the function ends
    ShiftedTree tree;     // its own parse (header + range), or a copy of its span's tree, once reparsed
    bool broken = false;  // its own parse holds a syntax error that tree-sitter put beside the definition
    std::optional<uint32_t> indentError;  // ... or statements at another column (BrokenIsland::indentError)
  };
  // Text of one class body reparsed as a whole (see above), from a line start to the end of a function.
  struct Span {
    ByteRange header;  // the class's header lines, as for its islands
    ByteRange range;
    ShiftedTree tree;
  };
  // treesIn's parts, with a function's part (read by function) named by its index, not parsed yet.
  struct LazyPart {
    TSNode root;  // null for a function's part
    ByteRange part;
    int function = -1;
  };
  std::vector<LazyPart> partsIn(ByteRange range) const;
  TSNode functionRoot(int k) const;
  void doneWithFunction(int k) const;
  void findIslands();
  bool readByFunction(unsigned helpers);
  int functionAt(TSNode skeletonNode) const;  // the index of the function read alone that starts there, or -1
  void dropIslandTrees();
  bool parseIsland(Island& island, TSTree* old);
  std::optional<ByteRange> reparseSpan(ByteRange oldEdit, int64_t delta);
  void replaceSpan(ByteRange header, ByteRange oldEdit, int64_t delta, ByteRange oldSpan, ByteRange span, TSTree* tree,
                   const std::vector<ByteRange>& read, const std::vector<TSNode>& statements);
  uint32_t indentAt(uint32_t lineStart) const;
  std::optional<uint32_t> codeIndentFrom(uint32_t from) const;
  std::vector<const Span*> spansOf(TSNode body) const;  // the spans of the column-0 class `body` belongs to
  bool nothingDeeperAfter(uint32_t end, uint32_t column) const;
  std::vector<ByteRange> wholeFileEdit(const TSInputEdit& edit, bool treeEdited);

  std::string text_;
  LineIndex lines_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::vector<Island> islands_;  // sorted by range
  const Island* islandAt(uint32_t at) const;
  std::vector<Span> spans_;      // sorted by range, disjoint; each holds the islands inside it
  size_t wholeFileReparses_ = 0, islandReparses_ = 0, spanReparses_ = 0;
  std::optional<ByteRange> lastSpan_;
  bool lastEditReparsedFile_ = false;
  std::unique_ptr<FunctionTrees> functionTrees_;  // read by function: the functions' own trees
  size_t functionTreesParsed_ = 0, mostFunctionTreesAlive_ = 0;  // of function trees dropped
  bool readWholeAfterAll_ = false;
  void dropFunctionTrees();
};

ByteRange rangeOf(TSNode n);

}  // namespace tvms::syntax
