#pragma once
// Machine-readable lint reports: JSON (one array), SARIF 2.1.0, GitHub workflow annotations.
// Lines are 1-based; columns are 1-based UTF-16 code units (as in the text output and LSP).
#include <string>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/syntax/line_index.h"

namespace tvms::cli {

struct LintedFile {
  std::string path;                 // as reported (relative to the working directory when below it)
  std::string text;
  syntax::LineIndex lines;          // of `text` (this copy), when it has findings: reset once the vector of files is final
  std::vector<diag::Diagnostic> diagnostics;
};

std::string renderJson(const std::vector<LintedFile>& files);
std::string renderSarif(const std::vector<LintedFile>& files);
std::string renderGithub(const std::vector<LintedFile>& files);

}  // namespace tvms::cli
