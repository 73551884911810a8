#pragma once
// Rewriting a user's file in place (tvms fmt, tvms lint --fix) without losing anything they own:
// - the file keeps its mode, owner, group and links: a symbolic link is written through (its target
//   gets the text, the link stays a link), a file with several hard links is written in place so
//   every name still shows it;
// - a read-only file is refused, not replaced (replacing needs only a writable folder);
// - an edit saved while tvms worked wins: the file must still hold, byte for byte, what tvms read
//   (same inode, size and modification time too), else it is left as it is and the caller says so;
// - otherwise the text goes to a temporary beside the target (a name of tvms's own, mode and owner
//   copied) that is renamed over it, so an interrupted write never leaves half a file.
#include <string>

namespace tvms::cli {

// Identifies the file the text was read from, as fstat saw it when it was read.
struct FileStamp {
  unsigned long long device = 0, inode = 0;
  long long size = -1, mtimeSeconds = 0, mtimeNanos = 0;
  bool known() const { return size >= 0; }
};

// Writes all of `text` to `fd` (retrying short writes and EINTR); false on an error.
bool writeAll(int fd, const std::string& text);

// Replaces the contents of `path` (read as `asRead`, stamped `stamp`) with `text`. On failure prints
// "tvms: <path>: <why>" to stderr and returns false; the file is then unchanged.
bool rewriteFile(const std::string& path, const std::string& asRead, const FileStamp& stamp, const std::string& text);

}  // namespace tvms::cli
