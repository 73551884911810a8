#include "runtime/capi/session.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "runtime/cuda_device.h"
#include "runtime/param_binding.h"

namespace tvms::runtime::capi {

namespace {

// Pinned host memory (kDLCUDAHost) is host memory to every CPU kernel.
constexpr int32_t kDLCudaHost = 3;
bool isHost(DLDevice d) { return d.device_type == kDLCPU || d.device_type == kDLCudaHost; }

std::string deviceText(DLDevice d) {
  const TargetKind* k = targetKindOfDeviceType(d.device_type);
  if (isHost(d)) return "the host (cpu)";
  return (k ? k->name : "device type " + std::to_string(d.device_type)) + ":" + std::to_string(d.device_id);
}

// Each slot as the DLPack device it is after the remaps.
std::shared_ptr<const std::vector<DLDevice>> dlDevicesOf(const Executable& exe, const std::map<std::string, std::string>& remap) {
  auto out = std::make_shared<std::vector<DLDevice>>();
  for (auto& slot : exe.devices) {
    DeviceChoice c = deviceFor(slot, remap);
    const TargetKind* k = targetKindSpelled(c.kind);
    DLDevice d{static_cast<DLDeviceType>(k ? k->dlDeviceType : kDLCPU), c.index};
    if (k && k->isCpu()) d.device_id = 0;  // every CPU vdevice is the host's memory
    out->push_back(d);
  }
  return out;
}

}  // namespace

Session::Session(const Executable& exe, const std::map<std::string, std::string>& remap)
    : exe_(exe), devices_(openDevices(exe, remap)), slotDevices_(dlDevicesOf(exe, remap)), host_(makeCpuDevice(-1)), vm_(exe, devices_) {
  stats = {};
}

const VMFunction& Session::function(const std::string& name) const { return exe_.functionNamed(name); }

bool Session::isBound(const std::string& function, size_t param) const {
  auto it = bound_.find(function);
  return it != bound_.end() && it->second.count(param);
}


// The parameter's own slot when the tensor is there, else any slot on the tensor's device (the VM
// copies it onto the parameter's), else the host for host memory (-1).
int Session::slotFor(const ParamSpec& p, DLDevice d) const {
  auto same = [&](size_t s) {
    DLDevice o = (*slotDevices_)[s];
    return isHost(d) ? o.device_type == kDLCPU : o.device_type == d.device_type && o.device_id == d.device_id;
  };
  if (p.slot >= 0 && same(static_cast<size_t>(p.slot))) return p.slot;
  for (size_t s = 0; s < slotDevices_->size(); ++s)
    if (same(s)) return static_cast<int>(s);
  if (isHost(d)) return -1;
  std::string have;
  for (size_t s = 0; s < slotDevices_->size(); ++s) have += (have.empty() ? "" : ", ") + exe_.devices[s].spelling + " on " + deviceText((*slotDevices_)[s]);
  throw std::invalid_argument("input '" + p.name + "' is a tensor on " + deviceText(d) + ", which is none of the module's devices (" + have + ")");
}

Value Session::tensorArgument(const ParamSpec& p, ForeignTensor f) {
  if (!f.problem.empty()) throw std::invalid_argument("input '" + p.name + "' is " + f.problem);
  const DLTensor& t = *f.tensor;
  NDArray a;
  auto dtype = dtypeOfDL(t.dtype);
  if (!dtype) throw std::invalid_argument("input '" + p.name + "' is a tensor of " + dlDataTypeName(t.dtype) + ", which tvms does not run; expected " + p.sinfo);
  a.dtype = *dtype;
  a.shape.assign(t.shape, t.shape + t.ndim);
  if (auto wrong = tensorMismatch(p, a)) throw std::invalid_argument("input '" + p.name + "' is " + *wrong + "; expected " + p.sinfo);
  size_t bytes = a.bytes();  // checked: a shape past int64 throws
  int slot = slotFor(p, t.device);
  std::shared_ptr<DeviceAPI> device = slot >= 0 ? devices_[static_cast<size_t>(slot)] : host_;
  char* data = static_cast<char*>(t.data) + t.byte_offset;
  size_t alignment = dtypeBytes(a.dtype);
  if (slot >= 0)
    if (const TargetKind* k = targetKindOfDeviceType((*slotDevices_)[static_cast<size_t>(slot)].device_type))
      alignment = std::max(alignment, k->foreignTensorAlignment);
  bool compact = isCompact(t);
  bool aligned = reinterpret_cast<uintptr_t>(data) % alignment == 0;
  if (compact && aligned) {
    a.storage = std::make_shared<Storage>(device, slot, data, bytes, f.owner);
    if (p.slot < 0 || slot == p.slot) ++stats.inputs_in_place;
    else ++stats.inputs_copied;  // on another slot: the VM copies it (its bytes counted by the call)
    return a;
  }
  // One copy into memory tvms allocated, on the tensor's own device.
  a.storage = std::make_shared<Storage>(device, slot, bytes);
  if (device->hostAccessible()) {
    if (compact) std::memcpy(a.data(), data, bytes);
    else copyCompact(t, a.data(), dtypeBytes(a.dtype));
  } else if (compact) {
    device->copyWithin(a.data(), data, bytes);
    device->synchronize();
  } else {
    throw std::invalid_argument("input '" + p.name + "' is a strided tensor on " + deviceText(t.device) +
                                "; tvms takes device tensors in row-major order (call .contiguous() first)");
  }
  ++stats.inputs_copied;
  stats.input_bytes_copied += static_cast<int64_t>(bytes);
  return a;
}

Value Session::argument(const ParamSpec& p, Argument arg) {
  if (auto* i = std::get_if<int64_t>(&arg.value)) {
    if (!p.prim) throw std::invalid_argument("input '" + p.name + "' is an integer; expected " + p.sinfo);
    return *i;
  }
  if (auto* fields = std::get_if<std::vector<Argument>>(&arg.value)) {
    if (!p.tuple) throw std::invalid_argument("input '" + p.name + "' is a tuple; expected " + p.sinfo);
    if (fields->size() != p.fields.size())
      throw std::invalid_argument("input '" + p.name + "' is a tuple of " + std::to_string(fields->size()) + " fields; expected " + p.sinfo);
    auto t = std::make_shared<TupleValue>();
    for (size_t k = 0; k < fields->size(); ++k) t->fields.push_back(argument(p.fields[k], std::move((*fields)[k])));
    return t;
  }
  auto& tensor = std::get<ForeignTensor>(arg.value);
  if (!p.tensor || p.tuple) throw std::invalid_argument("input '" + p.name + "' is a tensor; expected " + p.sinfo);
  return tensorArgument(p, std::move(tensor));
}

std::vector<Value> Session::arguments(const VMFunction& f, std::vector<Argument> args) {
  std::vector<size_t> open;
  for (size_t i = 0; i < f.params.size(); ++i)
    if (!isBound(f.name, i)) open.push_back(i);
  if (args.size() != open.size()) {
    std::string names;
    for (size_t i : open) names += (names.empty() ? "" : ", ") + f.params[i].name;
    throw std::invalid_argument(f.name + " takes " + std::to_string(open.size()) + " arguments (" + names + ")" +
                                (open.size() != f.params.size() ? ", the others bound from a params file" : "") + "; got " +
                                std::to_string(args.size()));
  }
  std::vector<Value> values(f.params.size());
  for (size_t k = 0; k < open.size(); ++k) values[open[k]] = argument(f.params[open[k]], std::move(args[k]));
  if (auto it = bound_.find(f.name); it != bound_.end())
    for (auto& [i, array] : it->second) values[i] = array;
  return values;
}

void* Session::nativeStream(int slot) { return cudaStreamOf(device(slot)); }

void Session::synchronize() {
  for (auto& d : devices_) d->synchronize();
}

Value Session::call(const std::string& name, std::vector<Argument> args) {
  const VMFunction& f = function(name);
  std::vector<Value> values = arguments(f, std::move(args));
  int64_t placedBefore = vm_.stats().inputBytesPlaced;
  Value out = vm_.invoke(name, std::move(values));
  synchronize();  // a DLPack consumer may read the outputs at once, on any stream
  ++stats.calls;
  stats.input_bytes_copied += vm_.stats().inputBytesPlaced - placedBefore;
  return out;
}

std::vector<double> Session::benchmark(const std::string& name, std::vector<Argument> args, int repeat) {
  if (repeat < 1) throw std::invalid_argument("repeat must be at least 1");
  const VMFunction& f = function(name);
  int64_t placed = 0;
  std::vector<Value> values = vm_.placeInputs(name, arguments(f, std::move(args)), &placed);
  stats.input_bytes_copied += placed;
  vm_.timedCalls(name, values, 2);  // loads the kernels; the second records the CUDA graph (where there is one)
  stats.calls += repeat + 2;
  // Wall times only: no events around each kernel (their recording costs host time per launch).
  vm_.setKernelTiming(false);
  std::vector<double> ms;
  try {
    ms = vm_.timedCalls(name, values, repeat);
  } catch (...) {
    vm_.setKernelTiming(true);
    throw;
  }
  vm_.setKernelTiming(true);
  return ms;
}

void Session::loadParams(const std::string& name, const std::string& path) {
  const VMFunction& f = function(name);
  std::map<size_t, NDArray> tensors = bindWeights(f, readWeightsFile(path, host_), path);
  // Each placed once on its parameter's device (a CPU parameter keeps the file's map where aligned).
  std::map<size_t, NDArray> placed;
  int64_t bytes = 0;
  for (auto& [i, array] : tensors) {
    const ParamSpec& p = f.params[i];
    NDArray a = array;
    if (p.slot >= 0 && devices_[static_cast<size_t>(p.slot)]->hostAccessible()) {
      a.offset = 0;
      a.storage = std::make_shared<Storage>(devices_[static_cast<size_t>(p.slot)], p.slot, array.data(), array.bytes(), std::shared_ptr<void>(array.storage));
    } else if (p.slot >= 0)
      a = vm_.toDevice(array, p.slot, &bytes);
    placed[i] = std::move(a);
  }
  synchronize();
  auto& mine = bound_[name];
  for (auto& [i, a] : placed) mine[i] = std::move(a);
  stats.params_bound += static_cast<int64_t>(placed.size());
  stats.param_bytes_placed += bytes;
}

}  // namespace tvms::runtime::capi
