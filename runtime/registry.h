#pragma once
// The runtime's side of the target-kind table (runtime/target_kind.h): opening a device of a kind
// (an index -> a DeviceAPI), loading a module blob of a kind from a .tvmx (bytes -> a KernelLibrary),
// and the library functions R.call_dps_packed calls, by name.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/kernel_library.h"
#include "runtime/ndarray.h"
#include "runtime/target_kind.h"

namespace tvms::runtime {

// A device of `kind`, or null when no factory is registered for it (the factory itself throws
// with its reason when the kind is known but the device cannot be opened).
std::unique_ptr<DeviceAPI> openDevice(const std::string& kind, int index, const DeviceOptions& options = {});
// Whether tvms can open devices of the kind `kind` spells.
bool hasDeviceKind(const std::string& kind);

// Throws std::runtime_error naming the kind when none is registered or the blob does not load.
std::shared_ptr<KernelLibrary> loadModule(const std::string& kind, const std::vector<char>& blob);

}  // namespace tvms::runtime
