// --watch through inotify: every directory under the paths is watched (a file's own directory for a
// file, since editors save by renaming a new file over the old one); changes within 100 ms are one
// batch, so a save that touches several files lints once.
#include "tools/tvms/watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>

namespace tvms::cli {

namespace fs = std::filesystem;

int watchPaths(const std::vector<std::string>& paths, const std::function<int()>& action) {
  int fd = inotify_init1(IN_CLOEXEC);
  if (fd < 0) {
    std::cerr << "tvms: --watch: inotify is not available here\n";
    return 2;
  }
  constexpr uint32_t kEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM;
  auto watchDir = [&](const fs::path& dir) { inotify_add_watch(fd, dir.c_str(), kEvents); };
  for (auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      watchDir(p);
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_directory(ec) && it->path().filename().string().rfind('.', 0) != 0) watchDir(it->path());
    } else {
      fs::path parent = fs::path(p).parent_path();
      watchDir(parent.empty() ? fs::path(".") : parent);
    }
  }
  action();
  std::cout << "Watching for file changes (Ctrl-C stops).\n" << std::flush;
  char buffer[64 * 1024];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) continue;
    if (read(fd, buffer, sizeof buffer) < 0) {
      std::cerr << "tvms: --watch: reading inotify events failed\n";
      close(fd);
      return 2;
    }
    // The rest of the batch: whatever arrives within 100 ms.
    while (poll(&p, 1, 100) > 0 && read(fd, buffer, sizeof buffer) > 0) {
    }
    std::time_t now = std::time(nullptr);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
    std::cout << "\n[" << stamp << "] File change detected, linting again.\n" << std::flush;
    action();
    std::cout << std::flush;
  }
}

}  // namespace tvms::cli
