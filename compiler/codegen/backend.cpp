#include "compiler/codegen/backend.h"

#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "compiler/codegen/cpu_backend.h"
#include "compiler/codegen/cuda/cuda_backend.h"
#include "compiler/codegen/kernel_cache.h"
#include "runtime/cpu_module.h"
#include "runtime/self_path.h"
#include "runtime/target_kind.h"

namespace tvms::codegen {

namespace {

// This machine's CPU as /proc/cpuinfo names it (model and feature flags): the plugin compiles for the
// host's CPU, so a cache shared between machines must not hand one machine's code to another.
const std::string& hostCpuIdentity() {
  static const std::string id = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, out;
    while (std::getline(in, line) && out.size() < 2 * 4096) {
      if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) out += line + "\n";
      if (line.empty() && !out.empty()) break;  // the first processor is enough
    }
    return out;
  }();
  return id;
}

// What CPU kernels are compiled from: each kernel's fingerprint, the target, this CPU, and the builds
// of tvms and of its LLVM plugin (a rebuilt compiler never reuses an older compiler's code).
std::string cpuCacheKey(const std::vector<tir::Kernel>& kernels, const tir::Target& target) {
  static const std::string builders = buildIdentity(runtime::selfExecutable()) + "\n" + buildIdentity(cpuBackendPath()) + "\n";
  std::string key = "tvms cpu kernels v1\n" + builders + hostCpuIdentity() + target.key() + "\n";
  for (auto& k : kernels) key += tir::fingerprint(k) + "\n";
  return key;
}

std::string compileSharedLibrary(const std::vector<tir::Kernel>& kernels, const tir::Target& target) {
  char path[] = "/tmp/tvms-build-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the kernels' shared library");
  close(fd);
  std::string bytes;
  try {
    cpuBackend().buildSharedLibrary(kernels, target, path);
    std::ifstream so(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(so), {});
  } catch (...) {
    std::remove(path);
    throw;
  }
  std::remove(path);
  return bytes;
}

// "llvm": the plugin, loaded the first time a kernel is compiled (not when the registry is read).
// Compiled kernels are kept in the kernel cache as shared libraries: an unchanged module's kernels
// are dlopened from there without loading LLVM at all.
class LlvmBackend : public Backend {
 public:
  std::vector<char> build(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const override {
    KernelCache cache = KernelCache::fromEnvironment();
    std::string key = cache.enabled() ? cpuCacheKey(kernels, target) : std::string();
    if (cache.enabled())
      if (auto hit = cache.read("cpu", key, ".so")) {
        ++KernelCache::stats().hits;
        return std::vector<char>(hit->begin(), hit->end());
      }
    ++KernelCache::stats().misses;
    std::string so = compileSharedLibrary(kernels, target);
    cache.store("cpu", key, ".so", so);
    return std::vector<char>(so.begin(), so.end());
  }
  std::unique_ptr<runtime::KernelLibrary> load(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const override {
    KernelCache cache = KernelCache::fromEnvironment();
    if (!cache.enabled()) {  // without a cache the JIT is the fastest way to running kernels
      ++KernelCache::stats().misses;
      return cpuBackend().jitCompile(kernels, target);
    }
    std::string key = cpuCacheKey(kernels, target);
    if (auto hit = cache.find("cpu", key, ".so")) try {
        auto library = runtime::openCpuLibrary(hit->string());
        ++KernelCache::stats().hits;
        return library;
      } catch (const std::exception&) {
        // evicted by another process between find and dlopen: compiled below
      }
    ++KernelCache::stats().misses;
    std::string so;
    try {
      so = compileSharedLibrary(kernels, target);
    } catch (const std::runtime_error&) {
      // No system linker (`cc`) on this machine: the JIT needs none; nothing is cached then.
      return cpuBackend().jitCompile(kernels, target);
    }
    if (auto stored = cache.store("cpu", key, ".so", so)) try {
        return runtime::openCpuLibrary(stored->string());
      } catch (const std::exception&) {
      }
    return runtime::loadCpuLibrary(std::vector<char>(so.begin(), so.end()));
  }
  std::string emit(const std::vector<tir::Kernel>& kernels, const tir::Target& target, const std::string& what) const override {
    if (what == "llvm") return cpuBackend().optimizedIR(kernels, target);  // --emit's format, not a target kind
    if (what == "asm") return cpuBackend().assembly(kernels, target);
    throw std::invalid_argument("the llvm backend prints --emit=llvm or --emit=asm, not '" + what + "'");
  }
};

// The code generators by name; a target kind names its own (runtime/target_kind.h's `codegen`).
struct Registry {
  std::mutex mutex;
  std::map<std::string, const Backend*, std::less<>> byName;
  Registry() {
    static const LlvmBackend llvm;
    byName.emplace(runtime::codegens::llvm, &llvm);
    byName.emplace(runtime::codegens::cuda, &cudaBackend());
  }
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const Backend* backendFor(const std::string& kind) {
  const runtime::TargetKind* k = runtime::targetKindSpelled(kind);
  if (!k || k->codegen.empty()) return nullptr;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byName.find(k->codegen);
  return it == r.byName.end() ? nullptr : it->second;
}

void registerBackend(const std::string& codegen, const Backend* backend) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.byName[codegen] = backend;
}

}  // namespace tvms::codegen
