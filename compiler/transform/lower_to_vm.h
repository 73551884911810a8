#pragma once
// LowerToVM: a legalized module -> VM bytecode. Kernels take the device slot of the vdevice their
// output lives on (tensors without one: the first "global" entry); R.to_vdevice becomes to_device;
// storage is planned per device: a tensor's storage returns to a per-device pool after its last use
// and a later allocation of no more bytes on the same device reuses it.
#include <map>
#include <string>
#include <vector>

#include "compiler/transform/legalize_ops.h"
#include "runtime/executable.h"

namespace tvms::transform {

struct LoweredVM {
  runtime::Executable exe;   // library left empty: the caller compiles `kernels` for it
  std::vector<codegen::Kernel> kernels;
  std::vector<std::string> errors;
  int64_t storageAllocations = 0, storageReuses = 0;  // planning, for tests and --print-after
};

// `remap`: vdevice spelling -> "cpu", for running a module on a machine without that device.
LoweredVM lowerToVM(LegalizedModule legalized, const std::map<std::string, std::string>& remap = {});

}  // namespace tvms::transform
