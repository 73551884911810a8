#pragma once
// The running binary's path (/proc/self/exe), for what is installed beside it (the code generator
// plugin, docs/rules.md) and for running itself again (tvms.run's child). Empty when unreadable.
#include <filesystem>

namespace tvms::runtime {

inline std::filesystem::path selfExecutable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
}

}  // namespace tvms::runtime
