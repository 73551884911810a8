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

}  // namespace tvms::frontend
