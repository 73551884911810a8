// tvms lint: diagnostics for people (text) and for CI (json, sarif, github); --fix applies fixes,
// --verify checks `# expect:` comments. Exit codes like ruff: 0 clean, 1 findings, 2 usage / IO /
// configuration errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "compiler/analysis/lint.h"
#include "compiler/diagnostics/catalogue.h"
#include "compiler/diagnostics/render_text.h"
#include "compiler/format/formatter.h"
#include "tools/tvms/commands.h"
#include "tools/tvms/lint_files.h"
#include "config/project_config.h"
#include "tools/tvms/report_formats.h"
#include "tools/tvms/source_io.h"
#include "tools/tvms/watch.h"

namespace tvms::cli {

namespace {

constexpr const char* kLintUsage = R"(usage: tvms lint [options] [paths...|-]

  --output-format FORMAT   text (default), json, sarif, github
  --fix                    apply safe fixes in place (stdin: print the fixed text)
  --unsafe-fixes           with --fix, also apply fixes that change behaviour
  --diff                   print the fixes as a unified diff instead of writing them (exit 1 if any)
  --statistics             count the diagnostics by code instead of listing them
  --watch                  lint again whenever a file under the paths changes (Ctrl-C stops)
  --stdin-filename NAME    the name of the text read from `-` (messages, [tool.tvms] lookup)
  --color WHEN             auto (default: a terminal, unless NO_COLOR is set), always, never
  --verify                 check `# expect: CODE[@COLUMN] [{{message part}}]` comments; exit 1 on a missing or unexpected diagnostic
  --select CODES           comma-separated code prefixes to enable (replaces the defaults)
  --extend-select CODES    code prefixes to enable on top of the defaults
  --ignore CODES           code prefixes to disable
  --error-on-warning       exit 1 for warnings too
  --exit-zero              exit 0 even with findings
  --no-config              do not read [tool.tvms] from pyproject.toml
)";

std::vector<std::string> splitCodes(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(std::remove_if(item.begin(), item.end(), [](char c) { return c == ' '; }), item.end());
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string displayPath(const std::string& path) {
  if (path == "-") return path;
  std::error_code ec;
  auto rel = std::filesystem::relative(path, std::filesystem::current_path(), ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return path;
  return rel.generic_string();
}

// ruff's closing line: "Found 3 errors and 1 warning." and how many the fixes would clear.
// `allRead`: every file was read (and, with --fix, written); else "All checks passed!" would be a lie.
std::string summaryLine(const std::vector<LintedFile>& files, bool unsafe, bool allRead) {
  int counts[3] = {0, 0, 0}, fixable = 0, unsafeOnly = 0;
  for (auto& f : files)
    for (auto& d : f.diagnostics) {
      ++counts[static_cast<int>(d.severity)];
      bool safe = std::any_of(d.fixes.begin(), d.fixes.end(), [&](auto& x) { return x.safe || unsafe; });
      fixable += safe;
      unsafeOnly += !safe && !d.fixes.empty();
    }
  if (!counts[0] && !counts[1] && !counts[2])
    return allRead ? "All checks passed!\n" : "No findings in the files checked; some could not be read or written (above).\n";
  static const char* names[3][2] = {{"error", "errors"}, {"warning", "warnings"}, {"note", "notes"}};
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i)
    if (counts[i]) parts.push_back(std::to_string(counts[i]) + " " + names[i][counts[i] == 1 ? 0 : 1]);
  std::string line = "Found " + parts[0];
  for (size_t i = 1; i < parts.size(); ++i) line += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  line += ".\n";
  if (fixable) line += "[*] " + std::to_string(fixable) + " fixable with the `--fix` option" + (unsafe ? " (with --unsafe-fixes)" : "") + ".\n";
  if (unsafeOnly)
    line += "(" + std::to_string(unsafeOnly) + " more with fixes that change behaviour: `--fix --unsafe-fixes`.)\n";
  return line;
}

// --statistics: one line per code, most frequent first, "[*]" where a safe fix exists.
std::string statistics(const std::vector<LintedFile>& files) {
  std::map<std::string, std::pair<int, bool>> byCode;
  for (auto& f : files)
    for (auto& d : f.diagnostics) {
      auto& [n, fixable] = byCode[std::string(diag::codeName(d.code))];
      ++n;
      fixable |= std::any_of(d.fixes.begin(), d.fixes.end(), [](auto& x) { return x.safe; });
    }
  std::vector<std::pair<std::string, std::pair<int, bool>>> rows(byCode.begin(), byCode.end());
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
  std::ostringstream out;
  for (auto& [code, v] : rows) {
    const diag::Rule* rule = diag::findRule(code);
    out << v.first << "\t" << code << "\t" << (v.second ? "[*] " : "    ") << (rule ? std::string(rule->title) : "") << "\n";
  }
  return out.str();
}

}  // namespace

// `tvms lint`'s options. nullopt with the exit code in `exit` when they say to stop (a mistake: 2;
// --help: 0).
struct LintArgs {
  std::vector<std::string> paths;
  std::string format = "text", stdinName;
  bool fix = false, unsafe = false, verify = false, errorOnWarning = false, exitZero = false, noConfig = false;
  bool diff = false, stats = false, watch = false;
  ColorChoice colorChoice = ColorChoice::Auto;
  analysis::RuleSelection cli;
  bool cliSelect = false;
};

std::optional<LintArgs> parseLintArgs(const Args& args, int& exit) {
  LintArgs l;
  auto& [paths, format, stdinName, fix, unsafe, verify, errorOnWarning, exitZero, noConfig, diff, stats, watch, colorChoice, cli, cliSelect] = l;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    auto eq = a.find('=');
    if (a.starts_with("--") && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto takeValue = [&]() -> bool {
      if (!value.empty()) return true;
      if (i + 1 >= args.size()) return false;
      value = args[++i];
      return true;
    };
    if (a == "--output-format" || a == "--select" || a == "--extend-select" || a == "--ignore" || a == "--color" ||
        a == "--stdin-filename") {
      if (!takeValue()) {
        std::cerr << "tvms lint: " << a << " needs a value\n" << kLintUsage;
        { exit = 2; return std::nullopt; }
      }
      if (a == "--output-format") format = value;
      else if (a == "--stdin-filename") stdinName = value;
      else if (a == "--color") {
        auto c = parseColorChoice(value);
        if (!c) {
          std::cerr << "tvms lint: --color takes auto, always or never, not '" << value << "'\n";
          { exit = 2; return std::nullopt; }
        }
        colorChoice = *c;
      }
      else if (a == "--select") { cli.select = splitCodes(value); cliSelect = true; }
      else if (a == "--extend-select") cli.extendSelect = splitCodes(value);
      else cli.ignore = splitCodes(value);
    } else if (a == "--fix") fix = true;
    else if (a == "--diff") diff = true;
    else if (a == "--statistics") stats = true;
    else if (a == "--watch") watch = true;
    else if (a == "--unsafe-fixes") unsafe = true;
    else if (a == "--verify") verify = true;
    else if (a == "--error-on-warning") errorOnWarning = true;
    else if (a == "--exit-zero") exitZero = true;
    else if (a == "--no-config") noConfig = true;
    else if (a == "-h" || a == "--help") { std::cout << kLintUsage; exit = 0; return std::nullopt; }
    else if (a.starts_with("-") && a != "-") {
      std::cerr << "tvms lint: unknown option '" << a << "'\n" << kLintUsage;
      { exit = 2; return std::nullopt; }
    } else paths.push_back(a);
  }
  if (format != "text" && format != "json" && format != "sarif" && format != "github") {
    std::cerr << "tvms lint: unknown output format '" << format << "' (text, json, sarif, github)\n";
    { exit = 2; return std::nullopt; }
  }
  return l;
}

int runLint(const Args& args) {
  int exit = 0;
  auto parsed = parseLintArgs(args, exit);
  if (!parsed) return exit;
  auto& [paths, format, stdinName, fix, unsafe, verify, errorOnWarning, exitZero, noConfig, diff, stats, watch, colorChoice, cli, cliSelect] = *parsed;
  if (paths.empty()) paths.push_back(stdinName.empty() ? "." : "-");
  config::Config project;
  std::string configFrom = paths[0] == "-" && !stdinName.empty() ? stdinName : paths[0];
  if (!noConfig && !config::loadConfig(configFrom, project)) return 2;
  analysis::RuleSelection rules = project.rules;
  if (cliSelect) rules.select = cli.select;
  rules.extendSelect.insert(rules.extendSelect.end(), cli.extendSelect.begin(), cli.extendSelect.end());
  rules.ignore.insert(rules.ignore.end(), cli.ignore.begin(), cli.ignore.end());

  // One lint of the paths; --watch repeats it on every change.
  auto lintOnce = [&]() -> int {
    bool ok = true;
    bool color = format == "text" && useColor(colorChoice, STDOUT_FILENO);
    if (diff) fix = true;  // --diff shows the fixes --fix would write
    int diffs = 0;
    std::vector<LintedFile> files;
    int findings = 0, verifyFailures = 0, fixed = 0;
    LintOptions options{rules, fix, unsafe, verify, !diff};
    // Files are read, and fixes written and reports printed, in order here; the lint of each batch of
    // files runs on every core the process may use (lint_files.h). A batch bounds the texts held.
    std::vector<std::string> all = expandPaths(paths, ok);
    const size_t batch = std::max<size_t>(8, 4 * size_t(workers()));
    for (size_t first = 0; first < all.size(); first += batch) {
      std::vector<std::pair<std::string, Source>> read;
      for (size_t i = first; i < std::min(all.size(), first + batch); ++i) {
        const std::string& path = all[i];
        if (config::excluded(project, path)) continue;
        auto src = readSource(path);
        if (!src) { ok = false; continue; }
        if (!mayHoldTvmScript(src->text) && !verify) continue;
        read.emplace_back(path, std::move(*src));
      }
      std::vector<TextLint> linted(read.size());
      // One file alone has the cores to itself: its functions are parsed on all of them.
      options.parseHelpers = read.size() == 1 && all.size() == 1 ? workers() - 1 : 0;
      options.leaveToExit = all.size() == 1 && !watch;
      // Without fixes the text moves through the lint and back into linted[i].text: one copy of a large
      // file, not two. Fixing keeps the original here, to write over only what was read.
      forEachInParallel(read.size(), [&](size_t i) {
        linted[i] = fix ? lintText(read[i].second.text, options) : lintText(std::move(read[i].second.text), options);
      });
      for (size_t i = 0; i < read.size(); ++i) {
        const std::string& path = read[i].first;
        const Source& src = read[i].second;
        TextLint& l = linted[i];
        if (fix && l.text != src.text) {
          std::string shown = path == "-" && !stdinName.empty() ? stdinName : displayPath(path);
          if (diff) {
            std::cout << tvms::format::unifiedDiff(src.text, l.text, shown);
            ++diffs;
          } else if (path == "-") std::cout << l.text;
          else if (!rewriteFile(path, src.text, src.stamp, l.text)) {
            // Not written: the file's findings are those of what it still holds, and nothing was applied.
            ok = false;
            l = lintText(src.text, LintOptions{rules, false, false, verify, true});
          }
        }
        fixed += l.fixes;
        if (diff) continue;
        if (verify) {
          for (auto& p : l.verifyProblems) std::cout << displayPath(path) << ": " << p << "\n";
          if (!l.verifyProblems.empty()) ++verifyFailures;
          continue;
        }
        LintedFile f{path == "-" && !stdinName.empty() ? stdinName : displayPath(path), std::move(l.text), {}, std::move(l.diagnostics)};
        for (auto& d : f.diagnostics)
          if (d.severity == diag::Severity::Error || (errorOnWarning && d.severity == diag::Severity::Warning)) ++findings;
        files.push_back(std::move(f));
      }
    }
    // A LineIndex views the text it indexes: index each file's own copy, now that `files` no longer
    // moves (indexing the loop's local `text` read freed memory under AddressSanitizer). Only the
    // positions of findings are asked of it: a clean file's is not made (0.3 ms of a 10k-line lint).
    for (auto& f : files)
      if (!f.diagnostics.empty()) f.lines.reset(f.text);
    if (diff) {
      if (!ok) return 2;
      std::cerr << "tvms lint: " << (diffs ? std::to_string(fixed) + " fix" + (fixed == 1 ? "" : "es") + " would be applied" : "no fixes to apply") << "\n";
      return diffs && !exitZero ? 1 : 0;
    }
    if (fix && fixed) std::cerr << "tvms lint: applied " << fixed << " fix" << (fixed == 1 ? "" : "es") << "\n";
    if (verify) {
      if (!ok) return 2;
      return verifyFailures ? 1 : 0;
    }
    if (format == "json") std::cout << renderJson(files);
    else if (format == "sarif") std::cout << renderSarif(files);
    else if (format == "github") std::cout << renderGithub(files);
    else if (stats)
      std::cout << statistics(files);
    else {
      // With --fix on stdin, stdout carries the fixed text alone; the report goes to stderr (as ruff).
      bool fixedToStdout = fix && std::find(paths.begin(), paths.end(), "-") != paths.end();
      std::ostream& report = fixedToStdout ? std::cerr : std::cout;
      for (auto& f : files) {
        diag::TextSource ts{f.path, f.text, &f.lines};
        for (auto& d : f.diagnostics) report << diag::renderText(d, ts, color);
      }
      report << summaryLine(files, unsafe, ok);
    }
    if (!ok) return 2;
    if (exitZero) return 0;
    return findings ? 1 : 0;
  };
  if (!watch) return lintOnce();
  if (verify || fix || format != "text" || std::find(paths.begin(), paths.end(), "-") != paths.end()) {
    std::cerr << "tvms lint: --watch lints files in text format (not with -, --fix, --diff, --verify or --output-format)\n";
    return 2;
  }
  return watchPaths(paths, lintOnce);
}

}  // namespace tvms::cli
