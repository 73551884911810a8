#include "compiler/codegen/cuda/ptx_cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace tvms::codegen::cuda {

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::filesystem::path cacheDir() {
  if (const char* d = std::getenv("TVMS_CACHE_DIR"); d && *d) return std::filesystem::path(d) / "cuda";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "tvms" / "cuda";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "tvms" / "cuda";
  return {};
}

constexpr const char* kHeader = "// tvms ptx cache v1 ";

}  // namespace

std::string cachedPtx(const std::string& key, const std::function<std::string()>& compile) {
  const char* off = std::getenv("TVMS_NO_CACHE");
  std::filesystem::path dir = off && std::string(off) == "1" ? std::filesystem::path() : cacheDir();
  if (dir.empty()) return compile();
  // Two independent hashes of the key: a collision of both is not a practical worry.
  std::filesystem::path entry = dir / (hex(fnv1a(key)) + hex(fnv1a(key + "\x01")) + ".ptx");
  {
    std::ifstream in(entry, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    size_t eol = text.find('\n');
    if (in.good() || !text.empty()) {
      if (eol != std::string::npos && text.rfind(kHeader, 0) == 0 && text.substr(std::string(kHeader).size(), eol - std::string(kHeader).size()) == hex(fnv1a(text.substr(eol + 1))))
        return text.substr(eol + 1);
    }
  }
  std::string ptx = compile();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path tmp = entry;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << kHeader << hex(fnv1a(ptx)) << "\n" << ptx;
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return ptx;  // a cache that cannot be written costs a compile next time, nothing more
    }
  }
  std::filesystem::rename(tmp, entry, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return ptx;
}

}  // namespace tvms::codegen::cuda
