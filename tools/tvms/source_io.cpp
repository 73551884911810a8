#include "tools/tvms/source_io.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "compiler/syntax/line_index.h"

namespace tvms::cli {

namespace fs = std::filesystem;

namespace {
bool fail(const std::string& path, const std::string& why) {
  std::cerr << "tvms: " << path << ": " << why << "\n";
  return false;
}
}  // namespace

std::optional<Source> readSource(const std::string& path) {
  Source s{path, {}};
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    s.text = ss.str();
  } else {
    std::error_code ec;
    if (fs::is_directory(path, ec)) { fail(path, "is a directory"); return std::nullopt; }
    std::ifstream in(path, std::ios::binary);
    if (!in) { fail(path, std::string("cannot read: ") + std::strerror(errno)); return std::nullopt; }
    auto size = fs::file_size(path, ec);
    if (!ec && size > kMaxFileBytes) {
      fail(path, "is " + std::to_string(size >> 20) + " MiB; files over " + std::to_string(kMaxFileBytes >> 20) +
                     " MiB are not analysed");
      return std::nullopt;
    }
    s.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (s.text.size() > kMaxFileBytes) {
    fail(path, "is over " + std::to_string(kMaxFileBytes >> 20) + " MiB; not analysed");
    return std::nullopt;
  }
  if (s.text.find('\0') != std::string::npos) {
    fail(path, "is not a text file (it holds NUL bytes)");
    return std::nullopt;
  }
  uint32_t bad = syntax::firstInvalidUtf8(s.text);
  if (bad != static_cast<uint32_t>(-1)) {
    syntax::LineIndex lines(s.text);
    auto lc = lines.toLineCol(bad, syntax::Encoding::Utf8);
    fail(path, "is not valid UTF-8 (line " + std::to_string(lc.line + 1) + ", byte " + std::to_string(lc.column + 1) +
                   "); Python source must be UTF-8");
    return std::nullopt;
  }
  return s;
}

std::vector<std::string> expandPaths(const std::vector<std::string>& paths, bool& ok) {
  std::vector<std::string> out;
  for (auto& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (it->is_directory(ec) && (name.starts_with(".") || name == "node_modules" || name == "build" || name == "__pycache__")) {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(ec) && it->path().extension() == ".py") found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (p != "-" && !fs::exists(p, ec)) {
      fail(p, "no such file or directory");
      ok = false;
    } else {
      out.push_back(p);
    }
  }
  return out;
}

bool mayHoldTvmScript(const std::string& text) {
  return text.find("ir_module") != std::string::npos || text.find("function") != std::string::npos ||
         text.find("prim_func") != std::string::npos || text.find("Builder") != std::string::npos;
}

bool writeFile(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tvms-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text)) return fail(path, "cannot write");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // atomic: an interrupted write never leaves half a file
  if (ec) {
    fs::remove(tmp, ec);
    return fail(path, "cannot replace: " + ec.message());
  }
  return true;
}

std::optional<ColorChoice> parseColorChoice(const std::string& value) {
  if (value == "auto") return ColorChoice::Auto;
  if (value == "always") return ColorChoice::Always;
  if (value == "never") return ColorChoice::Never;
  return std::nullopt;
}

bool useColor(ColorChoice choice, int fd) {
  if (choice != ColorChoice::Auto) return choice == ColorChoice::Always;
  auto set = [](const char* name) { const char* v = std::getenv(name); return v && *v; };
  if (set("NO_COLOR")) return false;
  if (set("FORCE_COLOR")) return true;
  return isatty(fd);
}

}  // namespace tvms::cli
