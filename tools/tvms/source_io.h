#pragma once
// Reading the files the CLI is given: paths, directories (walked for .py files) and `-` (stdin).
// Unreadable input is an error with a clear message (exit code 2), never a crash.
#include <optional>
#include <string>
#include <vector>

#include "tools/tvms/file_rewrite.h"

namespace tvms::cli {

constexpr size_t kMaxFileBytes = 64u << 20;  // larger files are refused (a tree costs ~61 bytes per source byte)

struct Source {
  std::string path;  // as given ("-" for stdin)
  std::string text;
  FileStamp stamp;  // the file as it was read (rewriteFile checks it is still so)
};

// Reads one file or stdin; on failure prints "tvms: <path>: <why>" to stderr and returns nullopt.
std::optional<Source> readSource(const std::string& path);
// Expands the paths: directories become their .py files (sorted, skipping hidden and build folders).
std::vector<std::string> expandPaths(const std::vector<std::string>& paths, bool& ok);
// Cheap check before parsing: can this text hold a TVMScript region at all?
bool mayHoldTvmScript(const std::string& text);
// Writes an output file tvms makes (a .dot, an .svg): to a temporary beside it, renamed into place.
bool writeFile(const std::string& path, const std::string& text);
// An output that would replace one of the inputs (`tvms build a.py -o a.py`): prints
// "tvms: <flag> <output>: is the input <input>; ..." and returns true. Links and other spellings
// of the same file count as the same file.
bool outputIsAnInput(const std::string& flag, const std::string& output, const std::vector<std::string>& inputs);

// --color auto|always|never. Auto: colour on a terminal, unless NO_COLOR is set (non-empty, as
// no-color.org says); FORCE_COLOR (non-empty) turns it on anywhere.
enum class ColorChoice { Auto, Always, Never };
std::optional<ColorChoice> parseColorChoice(const std::string& value);
bool useColor(ColorChoice choice, int fd);

}  // namespace tvms::cli
