// tvms parse --dump-ir FILE: the parsed modules through the printer, canonically. What could not be
// lowered (an argument rejected, a construct not understood) is printed to stderr with exit 1: the
// printed module is then not what the file says. With --after PASS: every module after that pass of
// `tvms build`'s pipeline (no kernels compiled); the language server's "Show IR after pass" runs this
// in a child process, so a module that crashes a pass cannot take the server down.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "compiler/diagnostics/render_text.h"
#include "compiler/driver/pipeline.h"
#include "compiler/frontend/frontend.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

int runParse(const Args& args) {
  std::string path, after;
  bool dump = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << "usage: tvms parse --dump-ir [--after PASS] FILE   print the parsed module canonically (deterministic),\n"
                   "       or every module after PASS of the build pipeline (Normalize ... LowerToVM)\n";
      return 0;
    }
    if (a == "--dump-ir") dump = true;
    else if (a == "--after" && i + 1 < args.size()) after = args[++i];
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
  if (!after.empty()) {
    bool known = false;
    for (auto& p : driver::passNames()) known |= p == after;
    if (!known) {
      std::cerr << "tvms parse: unknown pass '" << after << "'\n";
      return 2;
    }
    // Fault injection for the language server's isolation test (tests/lsp): a pass that crashes.
    if (const char* fault = std::getenv("TVMS_FAULT_INJECT"); fault && std::string(fault) == "segv-in-passes") std::raise(SIGSEGV);
    std::string out, why;
    for (auto& region : file.regions) {
      if (!region.module) continue;
      std::string text = driver::printAfter(*region.module, after, &why);
      if (text.empty()) break;
      out += text + "\n";
    }
    if (!why.empty()) {
      std::cerr << why << "\n";
      return 1;
    }
    std::cout << out;
    return 0;
  }
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
