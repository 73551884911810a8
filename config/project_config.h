#pragma once
// `[tool.tvms]` in the nearest pyproject.toml (read with toml++): rule selection and formatting, for
// the command line and the language server.
#include <optional>
#include <string>
#include <vector>

#include "compiler/analysis/lint.h"

namespace tvms::config {

struct Config {
  std::string path;  // the pyproject.toml read, empty when none
  analysis::RuleSelection rules;
  std::optional<int> lineLength;     // tvms fmt's line width (--line-width wins)
  std::vector<std::string> exclude;  // glob patterns (fnmatch) matched against a path and each of its parts
  std::optional<bool> offload;       // tvms build/run: OffloadLibraries on cuda vdevices (--no-offload wins)
};

// True when `path` matches one of the config's exclude patterns.
bool excluded(const Config& c, const std::string& path);

// Looks for pyproject.toml from `start` (a file or directory) upwards. Returns false on an invalid
// [tool.tvms], with TVS901 errors ("pyproject.toml:3:1: error[TVS901]: ...") printed to stderr, or
// collected in `errors` when given (the language server logs them).
bool loadConfig(const std::string& start, Config& out, std::vector<std::string>* errors = nullptr);

}  // namespace tvms::config
