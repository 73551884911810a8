#include "tools/tvms/file_rewrite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

namespace tvms::cli {

namespace {

bool fail(const std::string& path, const std::string& why) {
  std::cerr << "tvms: " << path << ": " << why << "\n";
  return false;
}

std::string errnoText() { return std::strerror(errno); }

std::optional<std::string> readAll(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// True while the file is the one read and holds what was read.
bool unchangedSinceRead(const std::string& target, const std::string& asRead, const FileStamp& stamp) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return false;
  if (stamp.known() && (st.st_dev != stamp.device || st.st_ino != stamp.inode || st.st_size != stamp.size ||
                        st.st_mtim.tv_sec != stamp.mtimeSeconds || st.st_mtim.tv_nsec != stamp.mtimeNanos))
    return false;
  auto now = readAll(target);
  return now && *now == asRead;
}

const char* kChanged = "changed while tvms worked on it; left as it is (run tvms again)";

// Fault injection for the tests (TVMS_FAULT_INJECT=edit-while-writing): the user saves an edit at the
// worst moment, after tvms read the file and wrote its temporary, before the check.
void injectedEdit(const std::string& target) {
  const char* fault = std::getenv("TVMS_FAULT_INJECT");
  if (!fault || std::string(fault) != "edit-while-writing") return;
  int fd = ::open(target.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  const char edit[] = "# saved by the user while tvms worked\n";
  (void)!::write(fd, edit, sizeof edit - 1);
  ::close(fd);
}

// Several hard links: a rename would give this name a new file and leave the others on the old one,
// so the text is written into the file itself.
bool writeInPlace(const std::string& path, const std::string& target, const std::string& asRead, const FileStamp& stamp,
                  const std::string& text) {
  int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail(path, "cannot write: " + errnoText());
  injectedEdit(target);
  if (!unchangedSinceRead(target, asRead, stamp)) {
    ::close(fd);
    return fail(path, kChanged);
  }
  bool ok = writeAll(fd, text) && ::ftruncate(fd, static_cast<off_t>(text.size())) == 0 && ::fsync(fd) == 0;
  std::string why = errnoText();
  ::close(fd);
  return ok || fail(path, "writing failed (" + why + "); the file may be partly written");
}

}  // namespace

bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool rewriteFile(const std::string& path, const std::string& asRead, const FileStamp& stamp, const std::string& text) {
  // Through every symbolic link to the file itself: the link stays, its target gets the text.
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved)) return fail(path, "cannot resolve: " + errnoText());
  std::string target = resolved;
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return fail(path, "cannot stat: " + errnoText());
  if (!S_ISREG(st.st_mode)) return fail(path, "is not a regular file; not rewritten");
  // Root may write anything: the mode bits say what the owner meant.
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(target.c_str(), W_OK) != 0)
    return fail(path, "is read-only; not rewritten (make it writable first)");
  if (st.st_nlink > 1) return writeInPlace(path, target, asRead, stamp, text);

  std::string dir = target.substr(0, target.rfind('/') + 1), name = target.substr(target.rfind('/') + 1);
  std::string tmp = dir + "." + name + ".tvms-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return writeInPlace(path, target, asRead, stamp, text);  // a folder we cannot add to
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  auto abandon = [&](const std::string& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail(path, why);
  };
  // The new file must be the old one's: same owner and group (where we may not give it the owner,
  // the file is written in place instead), then the same mode.
  if ((st.st_uid != ::geteuid() || st.st_gid != ::getegid()) && ::fchown(fd, st.st_uid, st.st_gid) != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return writeInPlace(path, target, asRead, stamp, text);
  }
  if (::fchmod(fd, st.st_mode & 07777) != 0) return abandon("cannot set the mode of the new text: " + errnoText());
  if (!writeAll(fd, text) || ::fsync(fd) != 0) return abandon("cannot write: " + errnoText());
  injectedEdit(target);
  if (!unchangedSinceRead(target, asRead, stamp)) return abandon(kChanged);
  if (::rename(tmp.c_str(), target.c_str()) != 0) return abandon("cannot replace: " + errnoText());
  ::close(fd);
  return true;
}

}  // namespace tvms::cli
