#pragma once
// `--watch`: run an action, then again whenever a file under the given paths changes (inotify),
// until the process is interrupted.
#include <functional>
#include <string>
#include <vector>

namespace tvms::cli {

// Runs `action` once, then after each batch of changes; returns only on an inotify error (exit 2).
int watchPaths(const std::vector<std::string>& paths, const std::function<int()>& action);

}  // namespace tvms::cli
