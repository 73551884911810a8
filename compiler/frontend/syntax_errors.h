#pragma once
// TVS001: one syntax diagnostic per broken scope, placed where a person looks for it.
#include <optional>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/frontend/cst.h"

namespace tvms::frontend {

// The first ERROR / MISSING node under `scope` within `where` (skipping `exclude` ranges), reported at
// the bracket that was never closed when that is the cause (as CPython does), else at the error.
std::optional<diag::Diagnostic> firstSyntaxError(const syntax::Document& doc, TSNode scope, ByteRange where,
                                                 const std::vector<ByteRange>& exclude = {});

// A class or function whose body holds no statement (`class M:` at the end of the file, or followed by
// comments only): tree-sitter-python accepts it, CPython does not ("expected an indented block").
std::optional<diag::Diagnostic> emptyBodyError(const syntax::Document& doc, TSNode definition, const char* what);
// Its message names the definition's line: after an edit added or removed lines above it, the line
// its range now starts on.
void renumberEmptyBodyErrors(std::vector<diag::Diagnostic>& ds, const syntax::Document& doc);
// A statement at `at` in a block indented at `blockColumn` that starts at another column, CPython's
// IndentationError ("unexpected indent" deeper, "unindent does not match ..." shallower), on its line.
diag::Diagnostic indentationError(const syntax::Document& doc, uint32_t at, uint32_t blockColumn);

}  // namespace tvms::frontend
