// tvms completions bash|zsh|fish: a completion script for the shell, printed (install it the usual
// way: `tvms completions bash > ~/.local/share/bash-completion/completions/tvms`).
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tools/tvms/commands.h"

namespace tvms::cli {

namespace {

// Each subcommand and its options: the one list the three scripts are made from.
const std::vector<std::pair<std::string, std::vector<std::string>>>& commands() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> list = {
      {"lint", {"--output-format", "--fix", "--unsafe-fixes", "--diff", "--verify", "--select", "--extend-select", "--ignore",
                "--statistics", "--watch", "--stdin-filename", "--color", "--error-on-warning", "--exit-zero", "--no-config", "--help"}},
      {"fmt", {"--check", "--diff", "--line-width", "--canonical", "--help"}},
      {"parse", {"--dump-ir", "--help"}},
      {"convert", {"-o", "--help"}},
      {"explain", {"--markdown", "--ops", "--help"}},
      {"build", {"-o", "--print-after", "--print-after-all", "--passes", "--update-vdevice", "--fold-vdevice-scope-change", "--emit", "--device",
                 "--no-offload", "--no-fuse", "--no-cache", "--help"}},
      {"run", {"--entry", "--input", "--dim", "--output", "--device", "--print-after", "--format", "--progress", "--random-missing",
               "--no-offload", "--no-fuse", "--no-cache", "--repeat", "--trace", "--help"}},
      {"cache", {"clear", "--help"}},
      {"graph", {"--function", "--after", "-o", "--help"}},
      {"completions", {"bash", "zsh", "fish"}},
      {"lsp", {"--help"}},
  };
  return list;
}

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (auto& x : xs) s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string bash() {
  std::string names;
  for (auto& [c, _] : commands()) names += (names.empty() ? "" : " ") + c;
  std::string s = "# tvms completion for bash\n_tvms() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
                  "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W \"" + names + " --help --version -V\" -- \"$cur\"))\n"
                  "    return\n  fi\n  local opts=\"\"\n  case \"${COMP_WORDS[1]}\" in\n";
  for (auto& [c, opts] : commands()) s += "    " + c + ") opts=\"" + join(opts) + "\" ;;\n";
  s += "  esac\n  case \"$cur\" in\n    -*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
       "    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n  esac\n}\ncomplete -o filenames -F _tvms tvms\n";
  return s;
}

std::string zsh() {
  std::string s = "#compdef tvms\n# tvms completion for zsh\n_tvms() {\n  local -a subcommands\n  subcommands=(";
  for (auto& [c, _] : commands()) s += " " + c;
  s += " )\n  if (( CURRENT == 2 )); then\n    compadd -a subcommands\n    return\n  fi\n  case $words[2] in\n";
  for (auto& [c, opts] : commands()) s += "    " + c + ") compadd -- " + join(opts) + "; _files ;;\n";
  s += "  esac\n}\ncompdef _tvms tvms\n";
  return s;
}

std::string fish() {
  std::string names;
  for (auto& [c, _] : commands()) names += (names.empty() ? "" : " ") + c;
  std::string s = "# tvms completion for fish\ncomplete -c tvms -f -n '__fish_use_subcommand' -a '" + names + "'\n";
  for (auto& [c, opts] : commands())
    for (auto& o : opts) {
      if (o.rfind("--", 0) == 0) s += "complete -c tvms -n '__fish_seen_subcommand_from " + c + "' -l " + o.substr(2) + "\n";
      else if (o.rfind("-", 0) == 0) s += "complete -c tvms -n '__fish_seen_subcommand_from " + c + "' -s " + o.substr(1) + "\n";
      else s += "complete -c tvms -f -n '__fish_seen_subcommand_from " + c + "' -a " + o + "\n";
    }
  return s;
}

}  // namespace

int runCompletions(const Args& args) {
  const char* usage = "usage: tvms completions bash|zsh|fish   print a completion script for the shell\n";
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    std::cout << usage;
    return 0;
  }
  if (args.size() != 1) {
    std::cerr << usage;
    return 2;
  }
  if (args[0] == "bash") std::cout << bash();
  else if (args[0] == "zsh") std::cout << zsh();
  else if (args[0] == "fish") std::cout << fish();
  else {
    std::cerr << "tvms completions: unknown shell '" << args[0] << "'\n" << usage;
    return 2;
  }
  return 0;
}

}  // namespace tvms::cli
