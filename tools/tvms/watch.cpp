// --watch through inotify: every directory under the paths is watched (a file's own directory for a
// file, since editors save by renaming a new file over the old one), and so is every directory made
// (or moved) under them later; changes within 100 ms are one batch, so a save that touches several
// files lints once.
#include "tools/tvms/watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <unordered_map>

namespace tvms::cli {

namespace fs = std::filesystem;

int watchPaths(const std::vector<std::string>& paths, const std::function<int()>& action) {
  int fd = inotify_init1(IN_CLOEXEC);
  if (fd < 0) {
    std::cerr << "tvms: --watch: inotify is not available here\n";
    return 2;
  }
  constexpr uint32_t kEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM;
  std::unordered_map<int, fs::path> trees;  // watch -> directory, for directories watched with all below them
  auto hidden = [](const fs::path& p) { return p.filename().string().rfind('.', 0) == 0; };
  auto watchTree = [&](const fs::path& root) {
    std::error_code ec;
    int wd = inotify_add_watch(fd, root.c_str(), kEvents);
    if (wd >= 0) trees[wd] = root;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_directory(ec)) continue;
      if (hidden(it->path())) {
        it.disable_recursion_pending();
        continue;
      }
      if (int sub = inotify_add_watch(fd, it->path().c_str(), kEvents); sub >= 0) trees[sub] = it->path();
    }
  };
  for (auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      watchTree(p);
    } else {
      fs::path parent = fs::path(p).parent_path();
      inotify_add_watch(fd, (parent.empty() ? fs::path(".") : parent).c_str(), kEvents);
    }
  }
  // A directory made or moved into a watched tree is watched too, with what it already holds.
  auto followNewDirectories = [&](const char* data, ssize_t length) {
    for (ssize_t at = 0; at < length;) {
      auto* ev = reinterpret_cast<const inotify_event*>(data + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (!(ev->mask & IN_ISDIR) || !(ev->mask & (IN_CREATE | IN_MOVED_TO)) || ev->len == 0) continue;
      auto tree = trees.find(ev->wd);
      if (tree == trees.end()) continue;
      fs::path made = tree->second / ev->name;
      if (!hidden(made)) watchTree(made);
    }
  };
  action();
  std::cout << "Watching for file changes (Ctrl-C stops).\n" << std::flush;
  alignas(inotify_event) char buffer[64 * 1024];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) continue;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0) {
      std::cerr << "tvms: --watch: reading inotify events failed\n";
      close(fd);
      return 2;
    }
    followNewDirectories(buffer, n);
    // The rest of the batch: whatever arrives within 100 ms.
    while (poll(&p, 1, 100) > 0 && (n = read(fd, buffer, sizeof buffer)) > 0) followNewDirectories(buffer, n);
    std::time_t now = std::time(nullptr);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
    std::cout << "\n[" << stamp << "] File change detected, linting again.\n" << std::flush;
    action();
    std::cout << std::flush;
  }
}

}  // namespace tvms::cli
