#pragma once
// What one tvms_vm is: a VirtualMachine over an executable's opened devices, the DLPack device each
// slot is, the parameters a weights file bound (placed once), and the figures the C API reports.
// C++ with exceptions; c_api.cpp turns them into status codes.
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "runtime/capi/dlpack_tensors.h"
#include "runtime/vm.h"

namespace tvms::runtime::capi {

// An argument as the C caller gave it: a DLPack tensor, an integer, or a tuple of arguments.
struct Argument {
  std::variant<ForeignTensor, int64_t, std::vector<Argument>> value;
};

class Session {
 public:
  Session(const Executable& exe, const std::map<std::string, std::string>& remap);

  // `args` for the function's parameters that no weights file bound, in order.
  Value call(const std::string& function, std::vector<Argument> args);
  // Places the arguments once, one warm-up call, then `repeat` timed calls (ms each).
  std::vector<double> benchmark(const std::string& function, std::vector<Argument> args, int repeat);
  void loadParams(const std::string& function, const std::string& path);

  const VMFunction& function(const std::string& name) const;
  bool isBound(const std::string& function, size_t param) const;
  size_t numDevices() const { return devices_.size(); }
  DeviceAPI& device(int slot) { return *devices_.at(static_cast<size_t>(slot)); }
  void* nativeStream(int slot);  // the CUDA stream of a slot's work, null for a CPU slot
  DLDevice slotDevice(int slot) const { return slotDevices_->at(static_cast<size_t>(slot)); }
  // Every slot as a DLPack device, shared with the values a call returns (they may outlive the VM).
  const std::shared_ptr<const std::vector<DLDevice>>& slotDevices() const { return slotDevices_; }
  const std::string& spelling(int slot) const { return exe_.devices.at(static_cast<size_t>(slot)).spelling; }
  const RunStats& runStats() const { return vm_.stats(); }
  tvms_stats stats;

 private:
  std::vector<Value> arguments(const VMFunction& f, std::vector<Argument> args);
  Value argument(const ParamSpec& p, Argument a);
  Value tensorArgument(const ParamSpec& p, ForeignTensor t);
  int slotFor(const ParamSpec& p, DLDevice device) const;
  void synchronize();

  const Executable& exe_;
  std::vector<std::shared_ptr<DeviceAPI>> devices_;
  std::shared_ptr<const std::vector<DLDevice>> slotDevices_;
  std::shared_ptr<DeviceAPI> host_;
  VirtualMachine vm_;
  std::map<std::string, std::map<size_t, NDArray>> bound_;  // function -> parameter index -> its placed tensor
};

}  // namespace tvms::runtime::capi
