#pragma once
// Editor features as functions over the compiler's own types (no JSON here): the server turns their
// results into LSP messages. `Snapshot` is one analysed version of a document.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/analysis/lint.h"

namespace tvms::server {

struct Snapshot {
  std::unique_ptr<syntax::Document> doc;
  analysis::LintResult lint;
  int64_t version = 0;
};

struct HoverText {
  std::string markdown;
  syntax::ByteRange range;
};

// Hover at a byte offset: a variable's deduced struct info (vdevice with its target and device id), an
// op's signature and doc, a vdevice string's declared entry, a `# noqa: TVSxxx` rule. Nothing outside
// TVMScript regions.
std::optional<HoverText> hoverAt(const Snapshot& s, uint32_t offset);

struct QuickFix {
  std::string title;
  const diag::Diagnostic* diagnostic;
  std::vector<diag::TextEdit> edits;
  bool preferred = false;
};
// The fixes of the diagnostics overlapping `range`, plus "add # noqa" for each.
std::vector<QuickFix> quickFixes(const Snapshot& s, syntax::ByteRange range);

}  // namespace tvms::server

namespace tvms::server {

// The name under the cursor, its definition and every use (variables, functions, vdevices).
struct NameTarget {
  const frontend::NameRef* at = nullptr;
  std::vector<const frontend::NameRef*> all;  // definition(s) first, then uses, in text order
};
std::optional<NameTarget> nameAt(const Snapshot& s, uint32_t offset);

struct Symbol {
  std::string name, detail;
  enum class Kind { Module, Function, Variable } kind;
  syntax::ByteRange range, selection;
  std::vector<Symbol> children;
};
std::vector<Symbol> documentSymbols(const Snapshot& s);

struct InlayHint {
  uint32_t offset;  // after the bound name
  std::string label;  // ": R.Tensor((2, 3), dtype=\"float32\", vdevice=\"cuda:0\")"
};
std::vector<InlayHint> inlayHints(const Snapshot& s, syntax::ByteRange range);

}  // namespace tvms::server

namespace tvms::server {

struct Completion {
  std::string label, detail, documentation;
  enum class Kind { Function, Variable, Value, Keyword } kind;
};
// Completions at `offset`: after `R.` / `R.nn.` the registry's ops (with signatures) and R.'s
// constructors, after `I.` / `T.` their members, inside a string of a vdevice position the module's
// vdevice spellings and dtypes, elsewhere the variables in scope. Empty outside TVMScript regions.
std::vector<Completion> completionsAt(const Snapshot& s, uint32_t offset);

}  // namespace tvms::server

namespace tvms::server {
// Foldable ranges: each region, each function, each `with R.dataflow():` block.
std::vector<syntax::ByteRange> foldingRanges(const Snapshot& s);
}  // namespace tvms::server

namespace tvms::server {
// The syntax nodes around `offset`, innermost first (selectionRange: expand selection).
std::vector<syntax::ByteRange> selectionChain(const Snapshot& s, uint32_t offset);
}  // namespace tvms::server
