#include "compiler/codegen/kernel_cache.h"

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

bool isTemporary(const fs::path& p) { return p.filename().string().find(".tmp") != std::string::npos; }

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
  auto bytes = readFile(entry);
  if (!bytes) return std::nullopt;
  std::error_code ec;
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
  if (!enabled()) return std::nullopt;
  fs::path entry = entryPath(section, key, suffix);
  std::error_code ec;
  fs::create_directories(entry.parent_path(), ec);
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
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || isTemporary(it->path())) continue;
    uint64_t size = it->file_size(ec);
    if (ec) continue;
    entries.push_back({it->last_write_time(ec), size, it->path()});
    total += size;
  }
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
  std::error_code ec;
  if (!enabled()) return u;
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || isTemporary(it->path())) continue;
    ++u.entries;
    u.bytes += it->file_size(ec);
  }
  return u;
}

void KernelCache::clear() const {
  std::error_code ec;
  if (enabled()) fs::remove_all(root_, ec);
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
