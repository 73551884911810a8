#pragma once
// The one table of target kinds (as TVM's TargetKind registry): each kind a vdevice may name is
// declared once in runtime/target_kind.cpp with everything tvms asks of it — its spellings, its
// DLPack device type, CPU or GPU, the code generator that builds its kernels, the library functions
// OffloadLibraries may call on it, whether host memory beside it is pinned, and how the runtime opens
// its devices and loads its kernels. Every room asks the table; no other file spells a kind (the
// layering test checks it). A new kind is one entry here (or `registerTargetKind` from the code that
// brings it, as the test-only kind of tests/unit/test_target_kind.cpp does) plus its own backend and
// device files.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/library_attrs.h"

namespace tvms::runtime {

class DeviceAPI;
class KernelLibrary;
struct NDArray;

// What the module asks of every device it opens.
struct DeviceOptions {
  // A GPU shares the module: host memory should be page-locked, so copies to and from it run at DMA
  // speed (the CPU kinds allocate through the CUDA driver then).
  bool pinnedHostMemory = false;
};
using DeviceFactory = std::function<std::unique_ptr<DeviceAPI>(int index, const DeviceOptions& options)>;
using ModuleLoader = std::function<std::shared_ptr<KernelLibrary>(const std::vector<char>& blob)>;

// A library function the VM calls for R.call_dps_packed (OffloadLibraries' cuBLAS / cuDNN calls):
// `args` are its tensors, the output last, all on `device`; `call` its full name and its attributes,
// read once (library_attrs.h). Throws std::runtime_error on failure.
using LibraryFunction = void (*)(DeviceAPI& device, const std::vector<const NDArray*>& args, const LibraryCall& call);
// Reads a call's attributes from its full name; std::runtime_error when they are malformed.
using LibraryAttrsReader = LibraryAttrs (*)(const std::string& name);
struct LibraryOffload {
  std::string_view name;  // what R.call_dps_packed names ("tvms.cublas.matmul")
  LibraryFunction function;
  LibraryAttrsReader readAttrs = nullptr;  // null: the function takes no attributes
};

enum class DeviceClass { Cpu, Gpu, Accelerator };  // Accelerator: neither host code nor a GPU (Hexagon's DSP)

struct TargetKind {
  std::string name;                  // as I.vdevice spells it
  std::vector<std::string> aliases;  // more spellings of `--device` and tvm.device(): "cpu" for llvm, "gpu" for cuda
  int dlDeviceType = 0;              // DLPack's DLDeviceType, which TVM's R.device / tvm.device use
  std::string deviceFunction;        // TVM's constructor of its devices: tvm.cpu(0), R.cuda(1); empty: another kind's
  DeviceClass deviceClass = DeviceClass::Cpu;  // CPU kinds run each other's kernels (host code)
  std::string codegen;               // the code generator (compiler/codegen) building its kernels; empty: none yet
  std::vector<LibraryOffload> offloads;  // library functions OffloadLibraries may call on its vdevices
  bool pinsHostMemory = false;       // a module using it keeps host tensors page-locked (DMA-speed copies)
  DeviceFactory openDevice;          // null: tvms cannot run it (known to TVM only)
  ModuleLoader loadModule;           // its module blob in a .tvmx -> kernels in this process
  // The alignment (bytes) a tensor from outside (DLPack) needs for the kind's kernels and library
  // calls to take it where it lies; 0: its element size (what any kernel assumes). Less aligned, it
  // is copied once.
  size_t foreignTensorAlignment = 0;

  bool isCpu() const { return deviceClass == DeviceClass::Cpu; }
  bool offers(std::string_view libraryFunction) const;
};

// The one kind tvms asks for by name: the host's (a module without vdevices, the `--device X=cpu`
// remap, a value placed nowhere).
inline constexpr std::string_view kHostKind = "llvm";
// The code generators a kind's `codegen` names (compiler/codegen registers one backend under each).
namespace codegens {
inline constexpr std::string_view llvm = "llvm";  // the LLVM plugin: host code
inline constexpr std::string_view cuda = "cuda";  // CUDA C through NVRTC: PTX
}  // namespace codegens

// The kind named `name` (declared names only: what I.vdevice accepts), or null.
const TargetKind* findTargetKind(std::string_view name);
// The kind a name or an alias spells ("cpu" -> llvm, "gpu" -> cuda), or null.
const TargetKind* targetKindSpelled(std::string_view spelling);
// The kind whose devices TVM's `function` makes (tvm.cpu -> llvm, R.cuda -> cuda), or null.
const TargetKind* targetKindOfDeviceFunction(std::string_view function);
// The first declared kind of a DLPack device type (1 -> llvm, 2 -> cuda), or null.
const TargetKind* targetKindOfDeviceType(int dlDeviceType);
// Every kind, declared ones first in table order, then registered ones in registration order.
std::vector<const TargetKind*> targetKinds();
// Adds a kind; throws std::invalid_argument when its name or an alias is already taken.
const TargetKind& registerTargetKind(TargetKind kind);

// The library offload `name` names (its part before '?') among every kind's offloads, or null.
const LibraryOffload* findLibraryOffload(std::string_view name);
// The call `name` makes of it, its attributes read (std::runtime_error naming the call when they are
// malformed or it is in no kind's offloads): what the VM does once per library function it loads.
LibraryCall readLibraryCall(const std::string& name);

// Whether kernels built for kind `a` run on a device of kind `b`: the same kind, or two CPU kinds.
bool sameKernelFamily(std::string_view a, std::string_view b);

}  // namespace tvms::runtime
