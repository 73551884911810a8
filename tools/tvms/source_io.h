#pragma once
// Reading the files the CLI is given: paths, directories (walked for .py files) and `-` (stdin).
// Unreadable input is an error with a clear message (exit code 2), never a crash.
#include <optional>
#include <string>
#include <vector>

namespace tvms::cli {

constexpr size_t kMaxFileBytes = 64u << 20;  // larger files are refused (a tree costs ~61 bytes per source byte)

struct Source {
  std::string path;  // as given ("-" for stdin)
  std::string text;
};

// Reads one file or stdin; on failure prints "tvms: <path>: <why>" to stderr and returns nullopt.
std::optional<Source> readSource(const std::string& path);
// Expands the paths: directories become their .py files (sorted, skipping hidden and build folders).
std::vector<std::string> expandPaths(const std::vector<std::string>& paths, bool& ok);
// Cheap check before parsing: can this text hold a TVMScript region at all?
bool mayHoldTvmScript(const std::string& text);
bool writeFile(const std::string& path, const std::string& text);

// --color auto|always|never. Auto: colour on a terminal, unless NO_COLOR is set (non-empty, as
// no-color.org says); FORCE_COLOR (non-empty) turns it on anywhere.
enum class ColorChoice { Auto, Always, Never };
std::optional<ColorChoice> parseColorChoice(const std::string& value);
bool useColor(ColorChoice choice, int fd);

}  // namespace tvms::cli
