// tvms: one binary for TVMScript (Relax with virtual devices): lint, fmt, parse, explain, run.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include "server/server.h"
#include "tools/tvms/commands.h"

namespace {

constexpr const char* kUsage = R"(tvms: a toolchain for TVMScript (Apache TVM's Relax) with virtual devices

usage: tvms <command> [options]

commands:
  lint [paths...|-]        report diagnostics (tvms lint --help)
  fmt [--check] [--diff] [--line-width N] [paths...|-]
                           format the TVMScript regions of Python files in place
  parse --dump-ir FILE     print the parsed module canonically (deterministic)
  convert FILE [-o OUT.py] write the module a Python program builds (IRBuilder, BlockBuilder) as TVMScript
  explain CODE             explain a diagnostic code (e.g. TVS201)
  build FILE [-o X.tvmx]   compile the module (--print-after=PASS, --print-after-all, --passes=A,B)
  run FILE [--input ...]   compile (or load a .tvmx) and run a function on the vdevices
  cache [clear]            where compiled kernels are kept, and emptying it
  graph FILE [-o X.svg]    a function's dataflow coloured by vdevice, copies labelled with bytes (DOT / SVG)
  completions SHELL        a completion script for bash, zsh or fish
  lsp                      the language server over stdio
  -V, --version            print the version

Every command takes --help. Colour: --color auto|always|never on lint, or NO_COLOR / FORCE_COLOR.
)";

}  // namespace

// A child of the language server (server/child_process.h names its parent in TVMS_PARENT_PID) ends
// when the server ends, however it ends: the kernel sends SIGKILL when the parent goes. When the
// parent went before this line ran, this process already has another parent and stops now.
void endWithParent() {
  const char* parent = std::getenv("TVMS_PARENT_PID");
  if (!parent || !*parent) return;
  std::string pid = parent;
  ::unsetenv("TVMS_PARENT_PID");
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (std::to_string(::getppid()) != pid) std::_Exit(1);
}

int main(int argc, char** argv) {
  endWithParent();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "-V" || args[0] == "version") {
    std::cout << "tvms " TVMS_VERSION "\n";
    return 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "fmt") return tvms::cli::runFmt(args);
    if (cmd == "parse") return tvms::cli::runParse(args);
    if (cmd == "lint") return tvms::cli::runLint(args);
    if (cmd == "explain") return tvms::cli::runExplain(args);
    if (cmd == "run") return tvms::cli::runRun(args);
    if (cmd == "build") return tvms::cli::runBuild(args);
    if (cmd == "cache") return tvms::cli::runCache(args);
    if (cmd == "convert") return tvms::cli::runConvert(args);
    if (cmd == "completions") return tvms::cli::runCompletions(args);
    if (cmd == "graph") return tvms::cli::runGraph(args);
    if (cmd == "lsp") {
      // vscode-languageclient appends `--stdio` for its stdio transport (the only one tvms speaks) and
      // may pass `--clientProcessId`: both are accepted (the server ends when stdin closes anyway).
      for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--stdio" || a.rfind("--clientProcessId=", 0) == 0) continue;
        if (a == "--clientProcessId" && i + 1 < args.size()) {
          ++i;
          continue;
        }
        bool help = a == "-h" || a == "--help";
        if (!help) std::cerr << "tvms lsp: unknown option '" << a << "'\n";
        (help ? std::cout : std::cerr) << "usage: tvms lsp [--stdio]   the language server, JSON-RPC over stdin/stdout (editors start it)\n";
        return help ? 0 : 2;
      }
      return tvms::server::runLanguageServer();
    }
  } catch (const std::exception& e) {
    std::cerr << "tvms: internal error: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "tvms: unknown command '" << cmd << "'\n" << kUsage;
  return 2;
}
