// tvms lint: diagnostics as text (rustc/clang style), and `tvms run`, which for now lints a file and
// prints its formatted modules.
#include <unistd.h>

#include <iostream>

#include "compiler/diagnostics/render_text.h"
#include "compiler/format/formatter.h"
#include "compiler/frontend/frontend.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

namespace {

// Lints one source; returns the number of error-level diagnostics.
int lintOne(const Source& src, bool color) {
  if (!mayHoldTvmScript(src.text)) return 0;
  syntax::Document doc(src.text);
  auto file = frontend::lowerDocument(doc);
  int errors = 0;
  diag::TextSource ts{src.path, doc.text(), &doc.lines()};
  for (auto& d : file.all()) {
    std::cout << diag::renderText(d, ts, color);
    if (d.severity == diag::Severity::Error) ++errors;
  }
  return errors;
}

}  // namespace

int runLint(const Args& args) {
  std::vector<std::string> paths;
  for (auto& a : args) {
    if (a.starts_with("-") && a != "-") {
      std::cerr << "tvms lint: unknown option '" << a << "'\n";
      return 2;
    }
    paths.push_back(a);
  }
  if (paths.empty()) paths.push_back(".");
  bool ok = true;
  int errors = 0;
  bool color = isatty(STDOUT_FILENO);
  for (auto& path : expandPaths(paths, ok)) {
    auto src = readSource(path);
    if (!src) { ok = false; continue; }
    errors += lintOne(*src, color);
  }
  if (!ok) return 2;
  return errors ? 1 : 0;
}

int runRun(const Args& args) {
  if (args.size() != 1) {
    std::cerr << "usage: tvms run FILE\n";
    return 2;
  }
  auto src = readSource(args[0]);
  if (!src) return 2;
  int errors = lintOne(*src, isatty(STDOUT_FILENO));
  std::cout << (errors ? "" : "no errors\n");
  auto r = format::formatSource(src->text);
  for (auto& n : r.notes) std::cerr << "tvms run: " << n << "\n";
  syntax::Document doc(r.text);
  auto file = frontend::lowerDocument(doc);
  for (auto& region : file.regions) std::cout << "\n" << doc.slice(frontend::regionLines(doc, region.range)) << "\n";
  std::cout << "\n(compiling and running on the vdevices comes with the compiler issue)\n";
  return errors ? 1 : 0;
}

}  // namespace tvms::cli
