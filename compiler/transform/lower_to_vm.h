#pragma once
// LowerToVM: a legalized module -> VM bytecode. Each kernel call runs on the device slot of the
// vdevice its output lives on (tensors without one: the first "global" entry), named in the
// call_kernel instruction itself, so one kernel serves calls on several devices; R.to_vdevice becomes to_device;
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
  std::vector<tir::Kernel> kernels;
  std::vector<std::string> errors;
  int64_t storageAllocations = 0, storageReuses = 0;  // planning, for tests and --print-after
};

LoweredVM lowerToVM(LegalizedModule legalized);

}  // namespace tvms::transform
