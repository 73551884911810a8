#include "runtime/cpu_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tvms::runtime {

namespace {

// A shared library of kernels, dlopened (the mapping outlives the file, so a temporary file may go).
class SharedLibrary : public KernelLibrary {
 public:
  explicit SharedLibrary(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("cannot load the kernels: ") + dlerror());
  }
  ~SharedLibrary() override {
    if (handle_) dlclose(handle_);
  }
  const void* find(const std::string& name) const override { return dlsym(handle_, name.c_str()); }

 private:
  void* handle_ = nullptr;
};

}  // namespace

std::unique_ptr<KernelLibrary> loadCpuLibrary(const std::vector<char>& sharedLibrary) {
  // Written to a temporary file for dlopen, which needs a path.
  char path[] = "/tmp/tvms-kernels-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the kernels");
  bool written = write(fd, sharedLibrary.data(), sharedLibrary.size()) == static_cast<ssize_t>(sharedLibrary.size());
  close(fd);
  if (!written) {
    unlink(path);
    throw std::runtime_error("cannot write the kernels' library");
  }
  try {
    auto library = std::make_unique<SharedLibrary>(path);
    unlink(path);
    return library;
  } catch (...) {
    unlink(path);
    throw;
  }
}

std::unique_ptr<KernelLibrary> openCpuLibrary(const std::string& path) { return std::make_unique<SharedLibrary>(path); }

std::shared_ptr<KernelLibrary> loadCpuModule(const std::vector<char>& sharedLibrary) { return loadCpuLibrary(sharedLibrary); }

}  // namespace tvms::runtime
