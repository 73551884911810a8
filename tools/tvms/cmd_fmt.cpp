// tvms fmt: lay out TVMScript regions in place (--canonical: reprint them through the IR printer);
// --check exits 1 when a file would change; --diff prints.
#include <iostream>

#include "compiler/format/formatter.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/lint_files.h"
#include "config/project_config.h"
#include "tools/tvms/source_io.h"

namespace tvms::cli {

constexpr const char* kFmtUsage = R"(usage: tvms fmt [--check] [--diff] [--line-width N] [--canonical] [paths...|-]

  formats the TVMScript regions of Python files in place (directories: every .py below them):
  whitespace, indentation, blank lines, line breaks and trailing commas only, black's style;
  every name, string, number and comment stays as written
  --canonical        reprint through the IR printer instead, in TVM's own spellings
                     (R.cpu() -> R.device(device_type=1, index=0), dtype=/vdevice= keywords)
  --check            write nothing; exit 1 when a file would change
  --diff             print a unified diff instead of writing
  --line-width N     20 to 1000 (default: [tool.tvms] line-length, else 100)
  -                  read stdin, print the result
)";

int runFmt(const Args& args) {
  bool check = false, diff = false;
  format::FormatOptions opts;
  bool widthGiven = false;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kFmtUsage;
      return 0;
    }
    if (a == "--check") check = true;
    else if (a == "--canonical") opts.canonical = true;
    else if (a == "--diff") diff = true;
    else if (a == "--line-width" && i + 1 < args.size()) {
      try {
        opts.lineWidth = std::stoi(args[++i]);
        widthGiven = true;
      } catch (...) {
        std::cerr << "tvms fmt: --line-width takes a number\n";
        return 2;
      }
      if (opts.lineWidth < 20 || opts.lineWidth > 1000) {
        std::cerr << "tvms fmt: --line-width must be between 20 and 1000\n";
        return 2;
      }
    } else if (a.starts_with("-") && a != "-") {
      std::cerr << "tvms fmt: unknown option '" << a << "'\n";
      return 2;
    } else paths.push_back(a);
  }
  if (paths.empty()) {
    std::cerr << "tvms fmt: give files, directories or - (stdin)\n";
    return 2;
  }
  config::Config project;  // [tool.tvms]: line-length and exclude
  if (!config::loadConfig(paths[0], project)) return 2;
  if (project.lineLength && !widthGiven) opts.lineWidth = *project.lineLength;
  bool ok = true;
  auto files = expandPaths(paths, ok);
  opts.parseHelpers = workers() - 1;  // files are formatted one at a time: the others parse the reprint ahead
  int wouldChange = 0;
  for (auto& path : files) {
    if (config::excluded(project, path)) continue;
    auto src = readSource(path);
    if (!src) { ok = false; continue; }
    format::FormatResult r;
    if (mayHoldTvmScript(src->text)) {
      // The text moves through the formatter and back: one copy of a large file while it is read, not two.
      r = format::formatSource(std::move(src->text), opts);
      src->text = std::move(r.input);
    } else {
      r.text = src->text;
    }
    for (auto& n : r.notes) std::cerr << "tvms fmt: " << path << ": " << n << "\n";
    if (diff) std::cout << format::unifiedDiff(src->text, r.text, path);
    if (path == "-") {
      if (!check && !diff) std::cout << r.text;
    } else if (r.changed && !check && !diff) {
      if (!rewriteFile(path, src->text, src->stamp, r.text)) ok = false;
    }
    if (r.changed) {
      ++wouldChange;
      if (check) std::cerr << "would reformat " << path << "\n";
    }
  }
  if (!ok) return 2;
  return (check || diff) && wouldChange ? 1 : 0;
}

}  // namespace tvms::cli
