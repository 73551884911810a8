#include "compiler/codegen/kernel_cache.h"
#include "runtime/target_kind.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tvms::codegen {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'T', 'V', 'M', 'S', 'K', 'C', '0', '1'};
constexpr size_t kFooterSize = 32;  // magic, payload length, payload checksum, checksum of the first 24 bytes

std::string footerFor(std::string_view payload) {
  char f[kFooterSize];
  uint64_t length = payload.size(), sum = XXH3_64bits(payload.data(), payload.size());
  std::memcpy(f, kMagic, 8);
  std::memcpy(f + 8, &length, 8);
  std::memcpy(f + 16, &sum, 8);
  uint64_t self = XXH3_64bits(f, 24);
  std::memcpy(f + 24, &self, 8);
  return std::string(f, kFooterSize);
}

// The payload of an entry's bytes when the footer says it is whole.
std::optional<std::string_view> payloadOf(std::string_view entry) {
  if (entry.size() < kFooterSize) return std::nullopt;
  const char* f = entry.data() + entry.size() - kFooterSize;
  uint64_t length, sum, self;
  std::memcpy(&length, f + 8, 8);
  std::memcpy(&sum, f + 16, 8);
  std::memcpy(&self, f + 24, 8);
  if (std::memcmp(f, kMagic, 8) != 0 || self != XXH3_64bits(f, 24) || length != entry.size() - kFooterSize) return std::nullopt;
  std::string_view payload = entry.substr(0, length);
  if (XXH3_64bits(payload.data(), payload.size()) != sum) return std::nullopt;
  return payload;
}

std::optional<std::string> readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

fs::path defaultRoot() {
  if (const char* d = std::getenv("TVMS_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "tvms";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "tvms";
  return {};
}

// What the cache may hold: one folder per section, each holding entries with one suffix. A backend that
// caches something new adds its section here; nothing else under the root is ever touched.
struct Section {
  std::string_view name, suffix;
};
// Sections are named after the code generator that fills them ("cpu" for the LLVM plugin's, from before).
constexpr Section kSections[] = {{"cpu", ".so"}, {runtime::codegens::cuda, ".ptx"}};

constexpr const char* kMarker = ".tvms-cache";
constexpr const char* kMarkerText = "tvms kernel cache: compiled kernels, safe to delete with `tvms cache clear`\n";
// https://bford.info/cachedir/: tools that honour it (tar --exclude-caches, backup programs) skip the folder.
constexpr const char* kCacheDirTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tvms.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n";

const Section* sectionNamed(std::string_view name) {
  for (auto& s : kSections)
    if (s.name == name) return &s;
  return nullptr;
}

bool isHex32(std::string_view s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// `<32 hex><suffix>` is an entry; `<entry>.tmp<pid>` the temporary a store renames into place.
enum class EntryName { No, Entry, Temporary };
EntryName classify(std::string_view file, const Section& section) {
  if (file.size() < 32 + section.suffix.size() || !isHex32(file.substr(0, 32)) || file.substr(32, section.suffix.size()) != section.suffix)
    return EntryName::No;
  std::string_view rest = file.substr(32 + section.suffix.size());
  if (rest.empty()) return EntryName::Entry;
  if (rest.size() > 4 && rest.substr(0, 4) == ".tmp" && std::all_of(rest.begin() + 4, rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return EntryName::Temporary;
  return EntryName::No;
}

bool writeSmallFile(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

KernelCache KernelCache::fromEnvironment() {
  const char* off = std::getenv("TVMS_NO_CACHE");
  if (off && std::string_view(off) == "1") return KernelCache({});
  uint64_t maxBytes = 512ull << 20;
  if (const char* mb = std::getenv("TVMS_CACHE_MAX_MB"); mb && *mb) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(mb, &end, 10);
    if (end && *end == '\0') maxBytes = static_cast<uint64_t>(v) << 20;
  }
  return KernelCache(defaultRoot(), maxBytes);
}

bool KernelCache::owned() const {
  std::error_code ec;
  return enabled() && fs::is_regular_file(root_ / kMarker, ec);
}

template <class F>
void KernelCache::forEachEntry(F&& visit) const {
  for (auto& section : kSections) {
    std::error_code ec;
    fs::path dir = root_ / std::string(section.name);
    if (!fs::is_directory(fs::symlink_status(dir, ec))) continue;  // a link out of the cache is not followed
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      EntryName kind = classify(it->path().filename().string(), section);
      std::error_code sec;
      if (kind != EntryName::No && it->is_regular_file(sec) && !it->is_symlink(sec)) visit(it->path(), kind);
    }
  }
}

std::optional<std::string> KernelCache::notACache() const {
  if (!enabled() || owned()) return std::nullopt;
  std::error_code ec;
  auto st = fs::symlink_status(root_, ec);
  if (!fs::exists(st)) return std::nullopt;  // made, and marked, at the first store
  if (!fs::is_directory(fs::status(root_, ec))) return root_.string() + " is not a directory";
  // A cache of an earlier tvms (before the marker): only section folders holding entries. Adopted.
  bool onlyOurs = true, empty = true;
  for (auto it = fs::directory_iterator(root_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    empty = false;
    const Section* section = sectionNamed(it->path().filename().string());
    std::error_code sec;
    if (!section || !it->is_directory(sec) || it->is_symlink(sec)) { onlyOurs = false; break; }
    for (auto e = fs::directory_iterator(it->path(), sec); !sec && e != fs::directory_iterator(); e.increment(sec))
      if (classify(e->path().filename().string(), *section) == EntryName::No) { onlyOurs = false; break; }
    if (!onlyOurs) break;
  }
  if (ec) return root_.string() + " cannot be read: " + ec.message();
  if (empty || onlyOurs) return std::nullopt;
  return root_.string() + " is not a tvms cache (it holds other files and no " + kMarker +
         " marker); point TVMS_CACHE_DIR at a folder of its own";
}

bool KernelCache::claim() const {
  if (owned()) return true;
  if (notACache()) return false;
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (ec) return false;
  return writeSmallFile(root_ / "CACHEDIR.TAG", kCacheDirTag) && writeSmallFile(root_ / kMarker, kMarkerText);
}

KernelCacheStats& KernelCache::stats() {
  static KernelCacheStats s;
  return s;
}

fs::path KernelCache::entryPath(std::string_view section, std::string_view key, std::string_view suffix) const {
  return root_ / std::string(section) / (digest128(key) + std::string(suffix));
}

// The entry's payload when it is whole (a damaged entry is removed, so the next build writes a good
// one); a hit refreshes the entry's time, so it is evicted last.
std::optional<std::string> KernelCache::verified(const fs::path& entry) const {
  std::error_code ec;
  // Only a marked cache is read, and only regular files in it: a folder or link where an entry should
  // be is not ours to remove; the kernels are compiled and used without the cache.
  if (!owned() || !fs::is_regular_file(fs::symlink_status(entry, ec))) return std::nullopt;
  auto bytes = readFile(entry);
  if (!bytes) return std::nullopt;
  auto payload = payloadOf(*bytes);
  if (!payload) {
    fs::remove(entry, ec);  // damaged (a crash mid-copy, a disk error, an edit): compiled again
    return std::nullopt;
  }
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
  return std::string(*payload);
}

std::optional<fs::path> KernelCache::find(std::string_view section, std::string_view key, std::string_view suffix) const {
  if (!enabled()) return std::nullopt;
  fs::path p = entryPath(section, key, suffix);
  if (!verified(p)) return std::nullopt;
  return p;
}

std::optional<std::string> KernelCache::read(std::string_view section, std::string_view key, std::string_view suffix) const {
  if (!enabled()) return std::nullopt;
  return verified(entryPath(section, key, suffix));
}

std::optional<fs::path> KernelCache::store(std::string_view section, std::string_view key, std::string_view suffix,
                                           std::string_view payload) const {
  const Section* known = sectionNamed(section);
  if (!enabled() || !known || known->suffix != suffix || !claim()) return std::nullopt;
  fs::path entry = entryPath(section, key, suffix);
  std::error_code ec;
  fs::create_directories(entry.parent_path(), ec);
  if (fs::exists(fs::symlink_status(entry, ec)) && !fs::is_regular_file(fs::symlink_status(entry, ec)))
    return std::nullopt;  // something else stands where the entry goes: left alone, nothing cached
  fs::path tmp = entry;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    std::string footer = footerFor(payload);
    out.write(footer.data(), static_cast<std::streamsize>(footer.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      return std::nullopt;
    }
  }
  fs::rename(tmp, entry, ec);  // atomic: a reader sees the old entry, the new one, or none
  if (ec) {
    fs::remove(tmp, ec);
    return std::nullopt;
  }
  evictToFit();
  if (!fs::exists(entry, ec)) return std::nullopt;
  return entry;
}

void KernelCache::evictToFit() const {
  struct Entry {
    fs::file_time_type time;
    uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  forEachEntry([&](const fs::path& p, EntryName kind) {
    if (kind != EntryName::Entry) return;
    std::error_code fec;
    uint64_t size = fs::file_size(p, fec);
    if (fec) return;
    entries.push_back({fs::last_write_time(p, fec), size, p});
    total += size;
  });
  if (total <= maxBytes_) return;
  // Down to three quarters, so the next stores do not each pay for a scan that evicts one entry.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (auto& e : entries) {
    if (total <= maxBytes_ / 4 * 3) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

KernelCache::Usage KernelCache::usage() const {
  Usage u;
  if (!enabled()) return u;
  if (auto why = notACache()) {
    u.error = *why;
    return u;
  }
  forEachEntry([&](const fs::path& p, EntryName kind) {
    if (kind != EntryName::Entry) return;
    std::error_code ec;
    ++u.entries;
    u.bytes += fs::file_size(p, ec);
  });
  return u;
}

KernelCache::Usage KernelCache::clear() const {
  Usage removed;
  if (!enabled()) return removed;
  if (auto why = notACache()) {
    removed.error = *why + "; nothing removed";
    return removed;
  }
  std::error_code ec;
  if (!fs::exists(root_, ec)) return removed;
  forEachEntry([&](const fs::path& p, EntryName kind) {
    std::error_code rec;
    uint64_t size = fs::file_size(p, rec);
    if (kind == EntryName::Entry) {  // an entry's name and its footer both say tvms wrote it
      auto bytes = readFile(p);
      if (!bytes || !payloadOf(*bytes)) return;
    }
    if (fs::remove(p, rec)) {
      if (kind == EntryName::Entry) ++removed.entries, removed.bytes += size;
    }
  });
  // The folders and markers it made go when nothing else is left in them (fs::remove of a folder
  // removes only an empty one).
  for (auto& section : kSections) fs::remove(root_ / std::string(section.name), ec);
  bool onlyMarkers = true;
  for (auto it = fs::directory_iterator(root_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name != kMarker && name != "CACHEDIR.TAG") onlyMarkers = false;
  }
  if (!ec && onlyMarkers) {
    fs::remove(root_ / "CACHEDIR.TAG", ec);
    fs::remove(root_ / kMarker, ec);
    fs::remove(root_, ec);
  }
  return removed;
}

std::string digest128(std::string_view text) {
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64), static_cast<unsigned long long>(h.low64));
  return buf;
}

std::string buildIdentity(const fs::path& elfFile) {
  std::error_code ec;
  std::string fallback = std::to_string(fs::file_size(elfFile, ec)) + "@" +
                         std::to_string(fs::last_write_time(elfFile, ec).time_since_epoch().count());
  int fd = ::open(elfFile.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fallback;
  auto readAt = [&](void* dst, size_t n, uint64_t off) { return ::pread(fd, dst, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n); };
  std::string id;
  Elf64_Ehdr eh;
  if (readAt(&eh, sizeof eh, 0) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(Elf64_Phdr)) {
    for (int i = 0; i < eh.e_phnum && id.empty(); ++i) {
      Elf64_Phdr ph;
      if (!readAt(&ph, sizeof ph, eh.e_phoff + uint64_t(i) * sizeof ph) || ph.p_type != PT_NOTE || ph.p_filesz > (1u << 16)) continue;
      std::vector<unsigned char> notes(ph.p_filesz);
      if (!readAt(notes.data(), notes.size(), ph.p_offset)) continue;
      for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
        Elf64_Nhdr nh;
        std::memcpy(&nh, notes.data() + at, sizeof nh);
        size_t name = at + sizeof nh, desc = name + ((nh.n_namesz + 3) & ~3u), next = desc + ((nh.n_descsz + 3) & ~3u);
        if (next > notes.size()) break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name, "GNU", 4) == 0) {
          for (size_t b = 0; b < nh.n_descsz; ++b) {
            char hex[3];
            std::snprintf(hex, sizeof hex, "%02x", notes[desc + b]);
            id += hex;
          }
          break;
        }
        at = next;
      }
    }
  }
  ::close(fd);
  return id.empty() ? fallback : id;
}

}  // namespace tvms::codegen
