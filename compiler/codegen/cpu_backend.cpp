#include "compiler/codegen/cpu_backend.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "runtime/self_path.h"

namespace tvms::codegen {

namespace {
constexpr const char* kPluginName = "libtvms_llvm_backend.so";

}  // namespace

std::string cpuBackendPath() {
  if (const char* p = std::getenv("TVMS_CPU_BACKEND"); p && *p) return p;
  auto exe = runtime::selfExecutable();
  return exe.empty() ? kPluginName : (exe.parent_path() / kPluginName).string();
}

const CpuBackend& cpuBackend() {
  static const CpuBackend* backend = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string path = cpuBackendPath();
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
