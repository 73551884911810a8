#pragma once
// The module a file's build-like commands (build, run, graph) act on, after the file lints without
// errors.
#include <string>

#include "compiler/analysis/lint.h"

namespace tvms::cli {

// Prints the lint's errors to stderr (source excerpts, colour on a terminal) and returns how many.
int printErrors(const analysis::LintResult& lint, const std::string& path, const syntax::Document& doc);

// The module the file's program passes to relax.build, else the first module written or built with
// functions, else a standalone function; null when the file has none.
const ir::IRModule* moduleToBuild(const frontend::FileResult& file);

}  // namespace tvms::cli
