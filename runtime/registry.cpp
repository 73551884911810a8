#include "runtime/registry.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime/cpu_module.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_libraries.h"
#include "runtime/cuda_module.h"

namespace tvms::runtime {

namespace {

constexpr const char* kCpuKinds[] = {"llvm", "c", "cpu"};

bool isCpuKind(const std::string& kind) {
  for (const char* k : kCpuKinds)
    if (kind == k) return true;
  return false;
}

struct Registries {
  std::mutex mutex;
  std::map<std::string, DeviceFactory> devices;
  std::map<std::string, ModuleLoader> loaders;
  std::map<std::string, LibraryFunction> functions;
  Registries() {
    for (const char* kind : kCpuKinds) {
      devices[kind] = [](int index, const DeviceOptions& o) {
        return makeCpuDevice(index, o.pinnedHostMemory ? HostMemory::Pinned : HostMemory::Pageable);
      };
      loaders[kind] = loadCpuModule;
    }
    devices["cuda"] = [](int index, const DeviceOptions&) { return makeCudaDevice(index); };
    loaders["cuda"] = loadCudaModule;
    functions["tvms.cublas.matmul"] = cublasMatmul;
    functions["tvms.cudnn.conv2d"] = cudnnConv2d;
  }
};

Registries& registries() {
  static Registries r;
  return r;
}

}  // namespace

void registerDevice(const std::string& kind, DeviceFactory factory) {
  auto& r = registries();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.devices[kind] = std::move(factory);
}

std::unique_ptr<DeviceAPI> openDevice(const std::string& kind, int index, const DeviceOptions& options) {
  auto& r = registries();
  DeviceFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.devices.find(kind);
    if (it == r.devices.end()) return nullptr;
    factory = it->second;
  }
  return factory(index, options);
}

bool sameKernelFamily(const std::string& a, const std::string& b) { return a == b || (isCpuKind(a) && isCpuKind(b)); }

bool hasDeviceKind(const std::string& kind) {
  auto& r = registries();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.devices.count(kind) > 0;
}

void registerLibraryFunction(const std::string& prefix, LibraryFunction fn) {
  auto& r = registries();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[prefix] = fn;
}

LibraryFunction findLibraryFunction(const std::string& name) {
  auto& r = registries();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name.substr(0, name.find('?')));
  return it == r.functions.end() ? nullptr : it->second;
}

void registerModuleLoader(const std::string& kind, ModuleLoader loader) {
  auto& r = registries();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.loaders[kind] = std::move(loader);
}

std::shared_ptr<KernelLibrary> loadModule(const std::string& kind, const std::vector<char>& blob) {
  auto& r = registries();
  ModuleLoader loader;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.loaders.find(kind);
    if (it == r.loaders.end())
      throw std::runtime_error("the artifact holds " + kind + " kernels, which this build of tvms cannot load");
    loader = it->second;
  }
  return loader(blob);
}

}  // namespace tvms::runtime
