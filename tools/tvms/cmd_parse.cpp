// tvms parse --dump-ir FILE: the parsed modules through the printer, canonically.
#include <iostream>

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
  return 0;
}

}  // namespace tvms::cli
