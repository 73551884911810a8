// tvms parse --dump-ir FILE: the parsed modules through the printer, canonically. What could not be
// lowered (an argument rejected, a construct not understood) is printed to stderr with exit 1: the
// printed module is then not what the file says.
#include <iostream>

#include "compiler/diagnostics/render_text.h"
#include "compiler/frontend/frontend.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

int runParse(const Args& args) {
  std::string path;
  bool dump = false;
  for (auto& a : args) {
    if (a == "-h" || a == "--help") {
      std::cout << "usage: tvms parse --dump-ir FILE   print the parsed module canonically (deterministic)\n";
      return 0;
    }
    if (a == "--dump-ir") dump = true;
    else if (a.starts_with("-") && a != "-") {
      std::cerr << "tvms parse: unknown option '" << a << "'\n";
      return 2;
    } else if (path.empty()) path = a;
    else {
      std::cerr << "tvms parse: one file at a time\n";
      return 2;
    }
  }
  if (!dump || path.empty()) {
    std::cerr << "usage: tvms parse --dump-ir FILE\n";
    return 2;
  }
  auto src = readSource(path);
  if (!src) return 2;
  if (!mayHoldTvmScript(src->text)) return 0;
  syntax::Document doc(src->text);
  auto file = frontend::lowerDocument(doc);
  ir::PrintOptions po;
  po.canonical = true;
  for (size_t i = 0; i < file.regions.size(); ++i) {
    if (i) std::cout << "\n";
    po.importHeader = i == 0;
    std::cout << ir::printModule(*file.regions[i].module, po);
  }
  int errors = 0;
  diag::TextSource ts{path, doc.text(), &doc.lines()};
  for (auto& d : file.all()) {
    if (d.severity != diag::Severity::Error) continue;
    if (!errors++) std::cerr << "tvms parse: the module printed above leaves out what could not be lowered:\n";
    std::cerr << diag::renderText(d, ts, false);
  }
  return errors ? 1 : 0;
}

}  // namespace tvms::cli
