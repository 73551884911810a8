// numpy's .npz: a zip archive whose entries are .npy files named NAME.npy (np.savez stores them,
// np.savez_compressed deflates them). numpy writes every entry with zip64 fields (force_zip64), so
// sizes and offsets are read from the zip64 extra field wherever the 32-bit field says 0xFFFFFFFF.
// The central directory is what is trusted (as zipfile does); each local header only gives where
// the entry's data starts.
#include <zlib.h>

#include <cstring>
#include <istream>
#include <set>
#include <stdexcept>
#include <streambuf>

#include "runtime/mapped_file.h"
#include "runtime/npy.h"
#include "runtime/weights_file.h"

namespace tvms::runtime {

namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;
constexpr uint32_t kStored = 0, kDeflated = 8;

// Little-endian fields of the mapped archive, every read bounds-checked.
class ZipReader {
 public:
  ZipReader(const MappedFile& f, const std::string& path) : f_(f), path_(path) {}
  std::runtime_error fail(const std::string& why) const { return std::runtime_error(path_ + ": " + why); }
  uint64_t get(uint64_t at, int bytes) const {
    if (at > f_.size || static_cast<uint64_t>(bytes) > f_.size - at) throw fail("damaged zip archive (a field past the end of the file)");
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(f_.data[at + static_cast<uint64_t>(i)]);
    return v;
  }
  std::string_view bytes(uint64_t at, uint64_t n) const {
    if (at > f_.size || n > f_.size - at) throw fail("damaged zip archive (an entry runs past the end of the file)");
    return {f_.data + at, n};
  }
  uint64_t size() const { return f_.size; }

 private:
  const MappedFile& f_;
  const std::string& path_;
};

struct Entry {
  std::string name;
  uint32_t method = 0, flags = 0;
  uint64_t compressedBytes = 0, bytes = 0, localHeader = 0;
};

// Where the central directory is and how many entries it has (zip64 when the classic record is full).
std::pair<uint64_t, uint64_t> directoryOf(const ZipReader& z) {
  if (z.size() < 22) throw z.fail("not an .npz (too short for a zip archive)");
  uint64_t lowest = z.size() > 22 + 65535 ? z.size() - 22 - 65535 : 0;
  for (uint64_t at = z.size() - 22;; --at) {
    if (z.get(at, 4) == kEndOfDirectory) {
      uint64_t entries = z.get(at + 10, 2), offset = z.get(at + 16, 4);
      if ((entries == 0xFFFF || offset == 0xFFFFFFFF) && at >= 20 && z.get(at - 20, 4) == kZip64Locator) {
        uint64_t record = z.get(at - 20 + 8, 8);
        if (z.get(record, 4) != kZip64End) throw z.fail("damaged zip archive (no zip64 end record where its locator points)");
        entries = z.get(record + 32, 8);
        offset = z.get(record + 48, 8);
      }
      return {offset, entries};
    }
    if (at == lowest) break;
  }
  throw z.fail("not an .npz (no zip end-of-directory record)");
}

std::vector<Entry> entriesOf(const ZipReader& z) {
  auto [at, count] = directoryOf(z);
  std::vector<Entry> out;
  for (uint64_t i = 0; i < count; ++i) {
    if (z.get(at, 4) != kDirectoryEntry) throw z.fail("damaged zip archive (entry " + std::to_string(i) + " of the directory)");
    Entry e;
    e.flags = static_cast<uint32_t>(z.get(at + 8, 2));
    e.method = static_cast<uint32_t>(z.get(at + 10, 2));
    e.compressedBytes = z.get(at + 20, 4);
    e.bytes = z.get(at + 24, 4);
    uint64_t nameLen = z.get(at + 28, 2), extraLen = z.get(at + 30, 2), commentLen = z.get(at + 32, 2);
    e.localHeader = z.get(at + 42, 4);
    e.name = std::string(z.bytes(at + 46, nameLen));
    // zip64: the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
    for (uint64_t x = at + 46 + nameLen, end = x + extraLen; x + 4 <= end;) {
      uint64_t id = z.get(x, 2), len = z.get(x + 2, 2), field = x + 4;
      if (id == 1) {
        if (e.bytes == 0xFFFFFFFF) { e.bytes = z.get(field, 8); field += 8; }
        if (e.compressedBytes == 0xFFFFFFFF) { e.compressedBytes = z.get(field, 8); field += 8; }
        if (e.localHeader == 0xFFFFFFFF) { e.localHeader = z.get(field, 8); }
      }
      x += 4 + len;
    }
    out.push_back(std::move(e));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

std::string inflated(std::string_view packed, uint64_t bytes, const ZipReader& z, const std::string& entry) {
  std::string out(bytes, '\0');
  z_stream s{};
  if (inflateInit2(&s, -MAX_WBITS) != Z_OK) throw z.fail("zlib cannot start inflating " + entry);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  // zlib counts in 32 bits: feed and drain in steps.
  uint64_t inLeft = packed.size(), outLeft = bytes;
  int rc = Z_OK;
  while (rc == Z_OK) {
    s.avail_in = static_cast<uInt>(std::min<uint64_t>(inLeft, 1u << 30));
    s.avail_out = static_cast<uInt>(std::min<uint64_t>(outLeft, 1u << 30));
    uInt in0 = s.avail_in, out0 = s.avail_out;
    rc = inflate(&s, Z_NO_FLUSH);
    inLeft -= in0 - s.avail_in;
    outLeft -= out0 - s.avail_out;
    if (rc == Z_OK && in0 == s.avail_in && out0 == s.avail_out) break;  // no progress: truncated or past the size
  }
  inflateEnd(&s);
  if (rc != Z_STREAM_END || outLeft != 0) throw z.fail("the deflated entry " + entry + " is damaged (or not of its stated size)");
  return out;
}

// A read-only stream over bytes of the map (the .npy reader reads a stream).
struct SpanBuffer : std::streambuf {
  explicit SpanBuffer(std::string_view b) {
    char* p = const_cast<char*>(b.data());
    setg(p, p, p + b.size());
  }
};

}  // namespace

std::vector<NamedTensor> readNpz(const std::string& path, const std::shared_ptr<DeviceAPI>& host) {
  std::shared_ptr<MappedFile> file = mapFile(path);
  ZipReader z(*file, path);
  std::vector<NamedTensor> out;
  std::set<std::string> seen;
  for (const Entry& e : entriesOf(z)) {
    if (e.name.size() < 5 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
      throw z.fail("entry '" + e.name + "' is not a .npy file (an .npz holds NAME.npy entries)");
    std::string name = e.name.substr(0, e.name.size() - 4);
    if (!seen.insert(name).second) throw z.fail("the archive holds '" + e.name + "' twice");
    if (e.flags & 1) throw z.fail("entry '" + e.name + "' is encrypted");
    if (z.get(e.localHeader, 4) != kLocalHeader) throw z.fail("damaged zip archive (no local header for '" + e.name + "')");
    uint64_t data = e.localHeader + 30 + z.get(e.localHeader + 26, 2) + z.get(e.localHeader + 28, 2);
    std::string_view packed = z.bytes(data, e.compressedBytes);
    std::string unpacked;
    std::string_view npy = packed;
    if (e.method == kDeflated) {
      unpacked = inflated(packed, e.bytes, z, e.name);
      npy = unpacked;
    } else if (e.method != kStored || e.compressedBytes != e.bytes) {
      throw z.fail("entry '" + e.name + "' is compressed with method " + std::to_string(e.method) + " (np.savez stores, np.savez_compressed deflates)");
    }
    SpanBuffer buffer(npy);
    std::istream in(&buffer);
    out.push_back({name, readNpy(in, npy.size(), host, path + ": " + e.name)});
  }
  return out;
}

std::vector<NamedTensor> readWeightsFile(const std::string& path, const std::shared_ptr<DeviceAPI>& host) {
  std::shared_ptr<MappedFile> file = mapFile(path);
  bool zip = file->size >= 4 && std::memcmp(file->data, "PK", 2) == 0 && (file->data[2] == 3 || file->data[2] == 5);
  file.reset();
  return zip ? readNpz(path, host) : readSafetensors(path, host);
}

}  // namespace tvms::runtime
