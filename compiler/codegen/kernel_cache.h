#pragma once
// Compiled kernels on disk, keyed by what they are compiled from, so building or running an
// unchanged module again costs no code generation (CPU shared libraries, PTX).
//
// Where: $TVMS_CACHE_DIR, else $XDG_CACHE_HOME/tvms, else ~/.cache/tvms; one folder per section
// ("cpu", "cuda"). TVMS_NO_CACHE=1 (what `--no-cache` sets) turns it off.
// Entries: `<128-bit key digest><suffix>`, the payload followed by a footer holding its length and
// checksum (a shared library still loads with the footer after it), written to a temporary name and
// renamed, so concurrent processes see a whole entry or none. A damaged entry is removed and rebuilt.
// Size: at most $TVMS_CACHE_MAX_MB (default 512) MiB; storing past it removes the least recently used
// entries (a hit refreshes an entry's time).
// Ownership: the cache owns only what it made. Its root is marked (`CACHEDIR.TAG`, so backup tools skip
// it, and `.tvms-cache`) when tvms creates it or finds it empty; a root that holds anything else and
// no marker (TVMS_CACHE_DIR=$HOME, a typo) is not a cache: nothing is read, stored, evicted or
// cleared there. Inside a marked root only files named as entries are ever removed (`<32 hex><suffix>`
// in a section folder, or such a name's temporary), and `clear` also checks each one's footer.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tvms::codegen {

struct KernelCacheStats {
  int hits = 0;
  int misses = 0;  // compiled (and stored when the cache is on)
};

class KernelCache {
 public:
  // The cache this process uses (environment as above); disabled() when off or without a home.
  static KernelCache fromEnvironment();
  explicit KernelCache(std::filesystem::path root, uint64_t maxBytes = 512ull << 20) : root_(std::move(root)), maxBytes_(maxBytes) {}

  bool enabled() const { return !root_.empty(); }
  const std::filesystem::path& root() const { return root_; }

  // The path of a whole, undamaged entry for `key`, or nothing (a damaged one is removed).
  std::optional<std::filesystem::path> find(std::string_view section, std::string_view key, std::string_view suffix) const;
  // The payload of the entry, as find() would accept it.
  std::optional<std::string> read(std::string_view section, std::string_view key, std::string_view suffix) const;
  // Stores `payload` for `key` and keeps the cache within its size; the entry's path, or nothing
  // when it could not be written (a cache that cannot be written costs a compile next time).
  std::optional<std::filesystem::path> store(std::string_view section, std::string_view key, std::string_view suffix,
                                             std::string_view payload) const;

  // Why the root is not a tvms cache (it holds files and no marker), or nothing when it is one, is
  // empty, or does not exist yet.
  std::optional<std::string> notACache() const;

  // Entries and bytes under the root (tvms cache), and removing them all. Both refuse a root that is
  // not a cache (`error` says why); clear removes only entries, temporaries and, when nothing else
  // is left, the folders and markers it made.
  struct Usage {
    uint64_t entries = 0, bytes = 0;
    std::string error;
  };
  Usage usage() const;
  Usage clear() const;

  // What this process took from the cache and compiled (tvms run's report).
  static KernelCacheStats& stats();

 private:
  std::filesystem::path entryPath(std::string_view section, std::string_view key, std::string_view suffix) const;
  std::optional<std::string> verified(const std::filesystem::path& entry) const;
  void evictToFit() const;
  // Marks the root when it is new or empty; false when it is not a cache (nothing may be stored).
  bool claim() const;
  bool owned() const;  // the root holds the marker
  template <class F>
  void forEachEntry(F&& visit) const;  // every file named as an entry or its temporary, in the sections
  std::filesystem::path root_;
  uint64_t maxBytes_;
};

// 32 hex digits of XXH3-128 over `text` (cache keys).
std::string digest128(std::string_view text);

// Identifies a build of an ELF file (its GNU build-id; else its size and modification time), so a
// cache key changes whenever tvms or its code generator is rebuilt.
std::string buildIdentity(const std::filesystem::path& elfFile);

}  // namespace tvms::codegen
