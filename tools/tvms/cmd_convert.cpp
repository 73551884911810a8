// tvms convert FILE [-o OUT.py]: the module a Python program builds (IRBuilder, BlockBuilder,
// tvm.IRModule(...)) written out as a TVMScript file, so a builder program can move to the text form.
#include <fstream>
#include <iostream>

#include "compiler/diagnostics/render_text.h"
#include "compiler/frontend/frontend.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

namespace {

constexpr const char* kUsage =
    "usage: tvms convert FILE [-o OUT.py]   write the module FILE's Python builds (IRBuilder, BlockBuilder) as TVMScript\n";

// The printer's "# from tvm.script import ..." header as real imports: the result is a Python file.
std::string withImports(std::string text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size() && text.compare(pos, 7, "# from ") == 0) {
    size_t nl = text.find('\n', pos);
    out += text.substr(pos + 2, nl - pos - 2) + "\n";
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out + "\n" + text.substr(pos);
}

}  // namespace

int runConvert(const Args& args) {
  std::string path, out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "-o" && i + 1 < args.size()) out = args[++i];
    else if (a.starts_with("-") && a != "-") {
      std::cerr << "tvms convert: unknown option '" << a << "'\n" << kUsage;
      return 2;
    } else if (path.empty()) path = a;
    else {
      std::cerr << "tvms convert: one file at a time\n";
      return 2;
    }
  }
  if (path.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (!out.empty() && outputIsAnInput("-o", out, {path})) return 2;
  auto src = readSource(path);
  if (!src) return 2;
  syntax::Document doc(src->text);
  auto file = frontend::lowerDocument(doc);
  // The module relax.build compiles, else every module the program builds.
  std::vector<const frontend::Region*> modules;
  if (file.pipeline && file.regions[file.pipeline->region].builtByProgram) modules.push_back(&file.regions[file.pipeline->region]);
  else
    for (auto& r : file.regions)
      if (r.builtByProgram && r.module && !r.module->functions.empty()) modules.push_back(&r);
  if (modules.empty()) {
    std::cerr << "tvms convert: " << path << ": no module built by a Python program (IRBuilder, BlockBuilder) in this file"
              << (file.regions.empty() ? "" : "; its TVMScript is already the text form") << "\n";
    return 1;
  }
  ir::PrintOptions po;
  po.canonical = false;
  std::string text;
  for (size_t i = 0; i < modules.size(); ++i) {
    po.importHeader = i == 0;
    std::string m = ir::printModule(*modules[i]->module, po);
    text += i == 0 ? withImports(m) : "\n\n" + m;
  }
  if (!text.empty() && text.back() != '\n') text += "\n";
  // What could not be lowered is not in the output: say so, and fail.
  int errors = 0;
  diag::TextSource ts{path, doc.text(), &doc.lines()};
  for (auto* r : modules)
    for (auto& d : r->diagnostics) {
      if (d.severity != diag::Severity::Error) continue;
      if (!errors++) std::cerr << "tvms convert: the module written leaves out what could not be lowered:\n";
      std::cerr << diag::renderText(d, ts, false);
    }
  if (out.empty()) {
    std::cout << text;
  } else {
    if (!writeFile(out, text)) return 2;
  }
  return errors ? 1 : 0;
}

}  // namespace tvms::cli
