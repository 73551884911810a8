#include "runtime/registry.h"

#include <stdexcept>

namespace tvms::runtime {

std::unique_ptr<DeviceAPI> openDevice(const std::string& kind, int index, const DeviceOptions& options) {
  const TargetKind* k = targetKindSpelled(kind);
  if (!k || !k->openDevice) return nullptr;
  return k->openDevice(index, options);
}

bool hasDeviceKind(const std::string& kind) {
  const TargetKind* k = targetKindSpelled(kind);
  return k && k->openDevice;
}

std::shared_ptr<KernelLibrary> loadModule(const std::string& kind, const std::vector<char>& blob) {
  const TargetKind* k = targetKindSpelled(kind);
  if (!k || !k->loadModule) throw std::runtime_error("the artifact holds " + kind + " kernels, which this build of tvms cannot load");
  return k->loadModule(blob);
}

}  // namespace tvms::runtime
