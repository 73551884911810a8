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

// The Relax functions a code lens offers to run ("Run main"), at their first line (the decorator).
struct RunLens {
  std::string function;
  syntax::ByteRange range;
};
std::vector<RunLens> runLenses(const Snapshot& s);

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

namespace tvms::server {

// Rename the name at `offset` to `newName`: a variable (its definition and uses), a function (its
// definition and every `cls.f` / `Module.f` use) or a vdevice. A vdevice is renamed by giving its
// entry a new target kind ("rocm", or a spelling "rocm:0" whose kind is taken): the declaration's kind
// string changes, and every vdevice string in the module whose spelling changes with it (the renamed
// entry, and the entries of the old and new kinds re-indexed after it) is rewritten. Returns the
// edits, or an error message when the name cannot be renamed so.
struct RenameResult {
  std::vector<diag::TextEdit> edits;
  std::string error;
};
// The range the client should offer for renaming (the name, or a vdevice string's content).
std::optional<syntax::ByteRange> renameRange(const Snapshot& s, uint32_t offset);
RenameResult renameAt(const Snapshot& s, uint32_t offset, const std::string& newName);

// Case-insensitive subsequence match, as editors' symbol search expects ("lvz" matches "layer_z").
bool fuzzyMatches(std::string_view query, std::string_view name);

// The signature of the op call around `offset`: label "R.nn.softmax(data, axis=-1)", each
// parameter's [begin, end) in the label, and the parameter the cursor is on (by position, or by
// keyword when the argument is written `name=`).
struct SignatureHelp {
  std::string label, documentation;
  std::vector<std::pair<uint32_t, uint32_t>> parameters;
  int active = 0;
};
std::optional<SignatureHelp> signatureAt(const Snapshot& s, uint32_t offset);

// Semantic tokens: namespaces (R, I, T), ops and other R./I./T. members, variables (parameters,
// dataflow variables marked), functions, symbolic variables and vdevice strings, each with a
// modifier for the device kind it lives on (from the deduced struct info / the declared entry), so
// themes can colour by placement.
struct SemanticToken {
  uint32_t offset, length;
  uint32_t type;       // index into semanticTokenTypes()
  uint32_t modifiers;  // bit set over semanticTokenModifiers()
};
const std::vector<std::string>& semanticTokenTypes();
const std::vector<std::string>& semanticTokenModifiers();
std::vector<SemanticToken> semanticTokens(const Snapshot& s);

}  // namespace tvms::server

namespace tvms::server {

// textDocument/typeDefinition: for a variable the struct info that defines it (its annotation, a
// match_cast's struct info, else the value it was deduced from); for a vdevice string its declared
// I.vdevice entry.
std::optional<syntax::ByteRange> typeDefinitionAt(const Snapshot& s, uint32_t offset);

// The rule codes written in `# noqa: TVS201` comments, each with its range (document links to the
// rules page).
struct RuleLink {
  std::string code;
  syntax::ByteRange range;
};
std::vector<RuleLink> noqaRuleLinks(const Snapshot& s);

}  // namespace tvms::server

namespace tvms::server {

// Call hierarchy between the functions of a module: `cls.f(x)` and `R.call_tir(cls.kernel, ...)`.
struct CallSite {
  std::string caller, callee;
  syntax::ByteRange range;  // the call
};
std::vector<CallSite> callSites(const Snapshot& s, size_t region);
struct CallableAt {
  std::string name;
  size_t region = 0;
  syntax::ByteRange range, selection;  // the whole definition, its name
  bool primFunc = false;
};
std::optional<CallableAt> callableAt(const Snapshot& s, uint32_t offset);  // a function's name or a use of it
std::optional<CallableAt> callableIn(const Snapshot& s, size_t region, const std::string& name);

}  // namespace tvms::server
