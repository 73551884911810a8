// tvms cache: where compiled kernels are kept (compiler/codegen/kernel_cache.h), how much is there,
// and `tvms cache clear` to empty it (as `ruff clean` does for ruff's cache).
#include <iostream>

#include "compiler/codegen/kernel_cache.h"
#include "tools/tvms/commands.h"

namespace tvms::cli {

namespace {
constexpr const char* kCacheUsage =
    "usage: tvms cache [clear]   show the kernel cache (directory, entries, size), or empty it\n"
    "       where: $TVMS_CACHE_DIR, else $XDG_CACHE_HOME/tvms, else ~/.cache/tvms; at most $TVMS_CACHE_MAX_MB\n"
    "       (default 512) MiB; TVMS_NO_CACHE=1 or `tvms build|run --no-cache` bypasses it\n";
}  // namespace

int runCache(const Args& args) {
  if (args.size() > 1 || (args.size() == 1 && args[0] != "clear")) {
    bool help = args.size() == 1 && (args[0] == "-h" || args[0] == "--help");
    (help ? std::cout : std::cerr) << kCacheUsage;
    return help ? 0 : 2;
  }
  codegen::KernelCache cache = codegen::KernelCache::fromEnvironment();
  if (!cache.enabled()) {
    std::cout << "tvms: the kernel cache is off (TVMS_NO_CACHE=1, or no HOME to put it in)\n";
    return 0;
  }
  if (!args.empty()) {
    auto removed = cache.clear();
    if (!removed.error.empty()) {
      std::cerr << "tvms cache clear: " << removed.error << "\n";
      return 2;
    }
    std::cout << "tvms: removed " << removed.entries << " entries (" << removed.bytes << " bytes) from " << cache.root().string()
              << "\n";
    return 0;
  }
  auto u = cache.usage();
  if (!u.error.empty()) {
    std::cerr << "tvms cache: " << u.error << "\n";
    return 2;
  }
  std::cout << cache.root().string() << ": " << u.entries << " entries, " << u.bytes << " bytes\n";
  return 0;
}

}  // namespace tvms::cli
