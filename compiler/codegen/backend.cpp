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

namespace tvms::codegen {

namespace {

// "llvm": the plugin, loaded the first time a kernel is compiled (not when the registry is read).
class LlvmBackend : public Backend {
 public:
  std::vector<char> build(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const override {
    char path[] = "/tmp/tvms-build-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for the kernels' shared library");
    close(fd);
    std::vector<char> bytes;
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
  std::unique_ptr<runtime::KernelLibrary> load(const std::vector<tir::Kernel>& kernels, const tir::Target& target) const override {
    return cpuBackend().jitCompile(kernels, target);
  }
  std::string emit(const std::vector<tir::Kernel>& kernels, const tir::Target& target, const std::string& what) const override {
    if (what == "llvm") return cpuBackend().optimizedIR(kernels, target);
    if (what == "asm") return cpuBackend().assembly(kernels, target);
    throw std::invalid_argument("the llvm backend prints --emit=llvm or --emit=asm, not '" + what + "'");
  }
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, const Backend*> byKind;
  Registry() {
    static const LlvmBackend llvm;
    for (const char* kind : {"llvm", "c", "cpu"}) byKind[kind] = &llvm;
    byKind["cuda"] = &cudaBackend();
  }
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const Backend* backendFor(const std::string& kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byKind.find(kind);
  return it == r.byKind.end() ? nullptr : it->second;
}

void registerBackend(const std::string& kind, const Backend* backend) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.byKind[kind] = backend;
}

}  // namespace tvms::codegen
