#include "compiler/codegen/cpu_backend.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "runtime/self_path.h"

namespace tvms::codegen {

namespace {
constexpr const char* kPluginName = "libtvms_llvm_backend.so";

}  // namespace

// Where the plugin may be: $TVMS_CPU_BACKEND, else beside the binary (the build tree) and where
// `cmake --install` puts it relative to the binary (bin/../lib/tvms), so a copied install finds it.
std::vector<std::string> cpuBackendCandidates() {
  if (const char* p = std::getenv("TVMS_CPU_BACKEND"); p && *p) return {p};
  auto exe = runtime::selfExecutable();
  if (exe.empty()) return {kPluginName};
  return {(exe.parent_path() / kPluginName).string(),
          (exe.parent_path() / TVMS_PLUGIN_FROM_BIN / kPluginName).lexically_normal().string()};
}

std::string cpuBackendPath() {
  auto candidates = cpuBackendCandidates();
  for (auto& c : candidates)
    if (std::filesystem::exists(c)) return c;
  return candidates.front();
}

const CpuBackend& cpuBackend() {
  static const CpuBackend* backend = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string path = cpuBackendPath();
    if (!std::filesystem::exists(path)) {
      failure = "cannot find the CPU code generator " + std::string(kPluginName) + "; looked in:";
      for (auto& c : cpuBackendCandidates()) failure += " " + c;
      failure += " (set TVMS_CPU_BACKEND to its path, or rebuild with ./dev build)";
      return;
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: kernels and their vtables live there
    if (!handle) { failure = "cannot load the CPU code generator " + path + ": " + ::dlerror() + " (rebuild with ./dev build)"; return; }
    auto entry = reinterpret_cast<CpuBackendEntry>(::dlsym(handle, "tvms_cpu_backend_v2"));
    if (!entry) { failure = path + " is not a tvms CPU backend (no tvms_cpu_backend_v2)"; return; }
    backend = entry();
  });
  if (!backend) throw std::runtime_error(failure);
  return *backend;
}

}  // namespace tvms::codegen
