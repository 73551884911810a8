#include "tools/tvms/source_io.h"

#include <fcntl.h>
#include <sys/stat.h>
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
  Source s{path, {}, {}};
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    s.text = ss.str();
  } else {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) { fail(path, std::string("cannot read: ") + std::strerror(errno)); return std::nullopt; }
    struct stat st {};
    ::fstat(fd, &st);
    if (S_ISDIR(st.st_mode)) { ::close(fd); fail(path, "is a directory"); return std::nullopt; }
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
      ::close(fd);
      fail(path, "is " + std::to_string(st.st_size >> 20) + " MiB; files over " + std::to_string(kMaxFileBytes >> 20) +
                     " MiB are not analysed");
      return std::nullopt;
    }
    if (S_ISREG(st.st_mode))
      s.stamp = {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
                 static_cast<long long>(st.st_mtim.tv_sec), static_cast<long long>(st.st_mtim.tv_nsec)};
    if (S_ISREG(st.st_mode)) s.text.reserve(static_cast<size_t>(st.st_size));  // read into place, not regrown
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) { ::close(fd); fail(path, std::string("cannot read: ") + std::strerror(errno)); return std::nullopt; }
      if (n == 0) break;
      s.text.append(buf, static_cast<size_t>(n));
      if (s.text.size() > kMaxFileBytes) break;  // a file that grows while read (or a pipe) stops here
    }
    ::close(fd);
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

namespace {
// The .py files under `dir`, skipping hidden and build folders; a folder that cannot be read is an
// error (said, and `ok` false), never skipped without a word.
void pythonFilesUnder(const fs::path& dir, std::vector<std::string>& found, bool& ok) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    fail(dir.string(), "cannot read directory: " + ec.message());
    ok = false;
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      fail(dir.string(), "cannot read directory: " + ec.message());
      ok = false;
      return;
    }
    std::error_code sec;
    std::string name = it->path().filename().string();
    // A link to a folder is not followed (it could loop, or lead out of the tree).
    if (it->is_directory(sec) && !it->is_symlink(sec)) {
      if (name.starts_with(".") || name == "node_modules" || name == "build" || name == "__pycache__") continue;
      pythonFilesUnder(it->path(), found, ok);
    } else if (it->is_regular_file(sec) && it->path().extension() == ".py") {
      found.push_back(it->path().string());
    }
  }
}
}  // namespace

std::vector<std::string> expandPaths(const std::vector<std::string>& paths, bool& ok) {
  std::vector<std::string> out;
  for (auto& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      pythonFilesUnder(p, found, ok);
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
  // A temporary of tvms's own beside the output (never a name a user file may have), renamed over it.
  std::string tmp = path + ".tvms-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return fail(path, std::string("cannot write: ") + std::strerror(errno));
  mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = writeAll(fd, text) && ::fchmod(fd, 0666 & ~mask) == 0;  // an output's usual mode, not mkstemp's 0600
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(path, "cannot write");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // atomic: an interrupted write never leaves half a file
  if (ec) {
    fs::remove(tmp, ec);
    return fail(path, "cannot replace: " + ec.message());
  }
  return true;
}

bool outputIsAnInput(const std::string& flag, const std::string& output, const std::vector<std::string>& inputs) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(output, ec);
  for (auto& input : inputs) {
    if (input.empty() || input == "-") continue;
    std::error_code iec;
    bool same = fs::exists(output, iec) && fs::equivalent(output, input, iec);
    if (!same) {
      fs::path in = fs::weakly_canonical(input, iec);
      same = !ec && !iec && in == out;
    }
    if (same) {
      std::cerr << "tvms: " << flag << " " << output << ": is the input " << input
                << "; writing it would replace the input (give another path)\n";
      return true;
    }
  }
  return false;
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
