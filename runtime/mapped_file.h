#pragma once
// A file mapped into memory, private and copy-on-write: tensors may point into it (weights files), a
// write through one never reaches the file, and the map goes when the last holder lets it go.
#include <cstddef>
#include <memory>
#include <string>

namespace tvms::runtime {

struct MappedFile {
  char* data = nullptr;
  size_t size = 0;
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
};

// Throws std::runtime_error naming `path` when it cannot be opened or mapped. An empty file maps to
// no bytes (data null, size 0).
std::shared_ptr<MappedFile> mapFile(const std::string& path);

}  // namespace tvms::runtime
