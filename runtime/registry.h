#pragma once
// The runtime's registries, keyed by target kind: how to open a device of a kind (an index -> a
// DeviceAPI) and how to load a module blob of a kind from a .tvmx (bytes -> a KernelLibrary). The
// CPU kinds ("llvm", "c", "cpu") are built in; the CUDA device registers "cuda" (next issue).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/kernel_library.h"
#include "runtime/ndarray.h"

namespace tvms::runtime {

// What the module asks of every device it opens.
struct DeviceOptions {
  // A GPU shares the module: host memory should be page-locked, so copies to and from it run at DMA
  // speed (the CPU kinds allocate through the CUDA driver then).
  bool pinnedHostMemory = false;
};
using DeviceFactory = std::function<std::unique_ptr<DeviceAPI>(int index, const DeviceOptions& options)>;
using ModuleLoader = std::function<std::shared_ptr<KernelLibrary>(const std::vector<char>& blob)>;

void registerDevice(const std::string& kind, DeviceFactory factory);
// A device of `kind`, or null when no factory is registered for it (the factory itself throws
// with its reason when the kind is known but the device cannot be opened).
std::unique_ptr<DeviceAPI> openDevice(const std::string& kind, int index, const DeviceOptions& options = {});
// Whether a device factory is registered for `kind`.
bool hasDeviceKind(const std::string& kind);
// Whether kernels built for kind `a` run on a device of kind `b`: the same kind, or two CPU kinds.
bool sameKernelFamily(const std::string& a, const std::string& b);

// A library function the VM calls for R.call_dps_packed (OffloadLibraries' cuBLAS / cuDNN calls):
// `args` are its tensors, the output last, all on `device`; `name` is the full name, whose text after
// '?' carries the call's attributes. Throws std::runtime_error on failure.
using LibraryFunction = void (*)(DeviceAPI& device, const std::vector<const NDArray*>& args, const std::string& name);
void registerLibraryFunction(const std::string& prefix, LibraryFunction fn);
// The function for `name` (registered under the part before '?'), or null.
LibraryFunction findLibraryFunction(const std::string& name);

void registerModuleLoader(const std::string& kind, ModuleLoader loader);
// Throws std::runtime_error naming the kind when none is registered or the blob does not load.
std::shared_ptr<KernelLibrary> loadModule(const std::string& kind, const std::vector<char>& blob);

}  // namespace tvms::runtime
