#include "tools/tvms/file_module.h"

#include <unistd.h>

#include <iostream>

#include "compiler/diagnostics/render_text.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

int printErrors(const analysis::LintResult& lint, const std::string& path, const syntax::Document& doc) {
  diag::TextSource ts{path, doc.text(), &doc.lines()};
  int errors = 0;
  for (auto& d : lint.diagnostics)
    if (d.severity == diag::Severity::Error) {
      std::cerr << diag::renderText(d, ts, useColor(ColorChoice::Auto, STDERR_FILENO));
      ++errors;
    }
  return errors;
}

const ir::IRModule* moduleToBuild(const frontend::FileResult& file) {
  if (file.pipeline) return file.regions[file.pipeline->region].module.get();
  for (auto& r : file.regions)
    if (r.module && !r.module->standalone && !r.module->functions.empty()) return r.module.get();
  for (auto& r : file.regions)
    if (r.module) return r.module.get();
  return nullptr;
}

}  // namespace tvms::cli
