// Reading [tool.tvms] from pyproject.toml.
#include "config/project_config.h"

#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <fnmatch.h>

#include <filesystem>
#include <iostream>

namespace tvms::config {

namespace fs = std::filesystem;

namespace {

// The errors of the config being read ("pyproject.toml:3:1: error[TVS901]: ...").
thread_local std::vector<std::string>* errors = nullptr;

void error(const std::string& path, const toml::source_region& where, const std::string& msg) {
  std::string line = path + ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column) +
                     ": error[TVS901]: " + msg;
  if (errors) errors->push_back(line);
  else std::cerr << line << "\n";
}

bool stringList(const std::string& path, const toml::node& n, const std::string& key, std::vector<std::string>& out) {
  const toml::array* arr = n.as_array();
  if (!arr) {
    error(path, n.source(), "'" + key + "' must be a list of strings, e.g. [\"TVS2\"]");
    return false;
  }
  for (auto& item : *arr) {
    auto s = item.value<std::string>();
    if (!s) {
      error(path, item.source(), "'" + key + "' must be a list of strings");
      return false;
    }
    out.push_back(*s);
  }
  return true;
}

}  // namespace

bool loadConfig(const std::string& start, Config& out, std::vector<std::string>* errorsOut) {
  errors = errorsOut;
  struct Reset { ~Reset() { errors = nullptr; } } reset;
  std::error_code ec;
  fs::path dir = fs::absolute(start.empty() || start == "-" ? fs::path(".") : fs::path(start), ec);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    fs::path candidate = dir / "pyproject.toml";
    if (fs::exists(candidate, ec)) {
      out.path = candidate.string();
      break;
    }
    if (dir == dir.root_path()) break;
  }
  if (out.path.empty()) return true;
  toml::parse_result parsed = toml::parse_file(out.path);
  if (!parsed) {
    error(out.path, parsed.error().source(), "invalid TOML: " + std::string(parsed.error().description()));
    return false;
  }
  const toml::table& root = parsed.table();
  const toml::node* tool = root.get("tool");
  const toml::node* section = tool && tool->is_table() ? tool->as_table()->get("tvms") : nullptr;
  if (!section) return true;
  if (!section->is_table()) {
    error(out.path, section->source(), "[tool.tvms] must be a table");
    return false;
  }
  bool ok = true;
  for (auto& [key, value] : *section->as_table()) {
    std::string k(key.str());
    if (k == "select") ok &= stringList(out.path, value, k, out.rules.select);
    else if (k == "extend-select") ok &= stringList(out.path, value, k, out.rules.extendSelect);
    else if (k == "ignore") ok &= stringList(out.path, value, k, out.rules.ignore);
    else if (k == "exclude") ok &= stringList(out.path, value, k, out.exclude);
    else if (k == "line-length") {
      auto v = value.value<int64_t>();
      if (!v || *v < 20 || *v > 1000) {
        error(out.path, value.source(), "'line-length' must be an integer between 20 and 1000");
        ok = false;
      } else {
        out.lineLength = static_cast<int>(*v);
      }
    } else if (k == "offload") {
      auto v = value.value<bool>();
      if (!v) {
        error(out.path, value.source(), "'offload' must be true or false");
        ok = false;
      } else {
        out.offload = *v;
      }
    } else {
      error(out.path, key.source(), "unknown key '" + k + "' in [tool.tvms] (known: select, extend-select, ignore, exclude, line-length, offload)");
      ok = false;
    }
  }
  return ok;
}

bool excluded(const Config& c, const std::string& path) {
  if (c.exclude.empty() || path == "-") return false;
  std::string generic = fs::path(path).lexically_normal().generic_string();
  for (auto& pattern : c.exclude) {
    if (fnmatch(pattern.c_str(), generic.c_str(), 0) == 0) return true;
    for (auto& part : fs::path(generic))
      if (fnmatch(pattern.c_str(), part.string().c_str(), 0) == 0) return true;
  }
  return false;
}

}  // namespace tvms::config
