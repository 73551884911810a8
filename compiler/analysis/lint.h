#pragma once
// One document linted: frontend diagnostics, deduction and vdevice checks, rule selection, `# noqa`
// suppression (with TVS900 for suppressions that suppressed nothing) and the `# expect:` comments of
// the verify convention. Shared by `tvms lint` and the language server.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/analysis/analysis.h"

namespace tvms::analysis {

struct RuleSelection {
  std::vector<std::string> select;        // code prefixes; empty: the default rules
  std::vector<std::string> extendSelect;  // added to select (or to the defaults)
  std::vector<std::string> ignore;        // code prefixes dropped
  bool enabled(std::string_view code) const;  // a code or a prefix of codes, as selections spell them
  bool enabled(diag::Code code) const { return enabled(diag::codeName(code)); }
};

// One diagnostic a `# expect:` comment asks for on its line (MLIR's `expected-error {{...}}`, ruff's
// fixtures): its code, and where given the column it starts at (1-based, in bytes) and a substring of
// its message.
struct Expectation {
  std::string code;
  std::optional<uint32_t> column;
  std::string message;
};

struct LintResult {
  frontend::FileResult file;
  std::vector<ModuleAnalysis> analyses;   // aligned with file.regions
  std::vector<diag::Diagnostic> diagnostics;  // selected, not suppressed, sorted by position
  // `# expect: CODE[@COLUMN] [{{text}}], ...` comments: line (0-based) -> what each expects, in order.
  std::map<uint32_t, std::vector<Expectation>> expectations;
};

LintResult lintDocument(const syntax::Document& doc, const RuleSelection& rules = {});
// The same for a one-shot lint (tvms lint): the document's syntax trees are dropped once the file is
// lowered, so the analysis reuses their memory; `doc` keeps only its text and lines after it. The
// functions are deduced on `helpers` more threads (those that parsed them, for a document read by
// function).
LintResult lintDocumentOnce(syntax::Document& doc, const RuleSelection& rules = {}, unsigned helpers = 0);

// Incremental lint, as the language server types: after each `doc.applyEdit` that replaced the old
// bytes `edit` by `newLength` bytes, `followEdit` re-lowers the edited function and shifts the rest;
// after the last edit, `finishLint` re-analyses (reusing every unchanged function) and re-assembles
// the diagnostics. When `followEdit` returns false, `r` is unusable: lint the document again.
bool followEdit(LintResult& r, const syntax::Document& doc, ByteRange edit, uint32_t newLength);
void finishLint(LintResult& r, const syntax::Document& doc, const RuleSelection& rules = {});

// The verify convention: every expectation met and nothing else reported. Returns the problems as
// diagnostic-like lines ("missing TVS201 on line 12", "unexpected TVS203 on line 14").
std::vector<std::string> verifyExpectations(const LintResult& r, const syntax::LineIndex& lines);

}  // namespace tvms::analysis
