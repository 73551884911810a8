#include "runtime/cpu_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tvms::runtime {

namespace {

// Loading writes the library to a temporary file and dlopens it (the mapping outlives the file).
class SharedLibrary : public KernelLibrary {
 public:
  explicit SharedLibrary(const std::vector<char>& bytes) {
    char path[] = "/tmp/tvms-kernels-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for the kernels");
    if (write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      close(fd);
      unlink(path);
      throw std::runtime_error("cannot write the kernels' library");
    }
    close(fd);
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    unlink(path);
    if (!handle_) throw std::runtime_error(std::string("cannot load the artifact's kernels: ") + dlerror());
  }
  ~SharedLibrary() override {
    if (handle_) dlclose(handle_);
  }
  const void* find(const std::string& name) const override { return dlsym(handle_, name.c_str()); }

 private:
  void* handle_ = nullptr;
};

}  // namespace

std::shared_ptr<KernelLibrary> loadCpuModule(const std::vector<char>& sharedLibrary) {
  return std::make_shared<SharedLibrary>(sharedLibrary);
}

}  // namespace tvms::runtime
