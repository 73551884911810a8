// The C API's entry points: handles over the C++ runtime, every exception turned into a status and
// a per-thread message (no C++ exception crosses into C, ctypes or another language's FFI).
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "runtime/capi/session.h"
#include "runtime/capi/tvms_runtime.h"
#include "runtime/device_api.h"

#ifndef TVMS_VERSION
#define TVMS_VERSION "unknown"
#endif

struct tvms_executable {
  tvms::runtime::Executable exe;
};

struct tvms_vm {
  std::unique_ptr<tvms::runtime::capi::Session> session;
  std::vector<std::string> deviceNames;  // stable storage for tvms_device_stats::device
};

struct tvms_value {
  tvms::runtime::Value value;
  std::shared_ptr<const std::vector<DLDevice>> slotDevices;  // the VM's slots as DLPack devices (values may outlive the VM)
  std::vector<int64_t> dims;                                  // what tvms_value_shape hands out
};

namespace {

using namespace tvms::runtime;

thread_local std::string lastError;

tvms_status failWith(tvms_status s, const char* message) {
  lastError = message;
  return s;
}

// Runs `body`; an exception becomes a status: a wrong argument, out of memory, or `otherwise` (what
// a failure of this entry point is: a file, a device, a run).
template <typename Body>
tvms_status guarded(tvms_status otherwise, Body&& body) {
  try {
    body();
    return TVMS_OK;
  } catch (const std::invalid_argument& e) {
    return failWith(TVMS_ERROR_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return failWith(TVMS_ERROR_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return failWith(otherwise, e.what());
  } catch (...) {
    return failWith(TVMS_ERROR_INTERNAL, "an unknown error");
  }
}

tvms_status nullArgument(const char* what) { return failWith(TVMS_ERROR_ARGUMENT, (std::string(what) + " is null").c_str()); }

// Every tensor of `args` taken first (so each deleter runs once whatever is refused after), then
// checked as the session converts them.
capi::Argument taken(const tvms_arg& a) {
  capi::Argument out;
  switch (a.kind) {
    case TVMS_ARG_DLPACK_VERSIONED: out.value = capi::adoptDLPack(a.tensor, true); break;
    case TVMS_ARG_DLPACK: out.value = capi::adoptDLPack(a.tensor, false); break;
    case TVMS_ARG_INT: out.value = a.value; break;
    case TVMS_ARG_TUPLE: {
      std::vector<capi::Argument> fields;
      const auto* items = static_cast<const tvms_arg*>(a.tensor);
      for (int64_t i = 0; items && i < a.value; ++i) fields.push_back(taken(items[i]));
      out.value = std::move(fields);
      break;
    }
    default: {
      capi::ForeignTensor bad;
      bad.problem = "an argument of unknown kind " + std::to_string(a.kind);
      out.value = std::move(bad);
    }
  }
  return out;
}

std::vector<capi::Argument> takenAll(int32_t n, const tvms_arg* args) {
  std::vector<capi::Argument> out;
  for (int32_t i = 0; args && i < n; ++i) out.push_back(taken(args[i]));
  return out;
}

const NDArray& tensorOf(const tvms_value* v) {
  if (!v) throw std::invalid_argument("the value is null");
  auto* t = std::get_if<NDArray>(&v->value);
  if (!t) throw std::invalid_argument("the value is not a tensor");
  return *t;
}

DLDevice deviceOf(const tvms_value* v, const NDArray& a) {
  if (a.slot() >= 0 && static_cast<size_t>(a.slot()) < v->slotDevices->size()) return (*v->slotDevices)[static_cast<size_t>(a.slot())];
  return {kDLCPU, 0};
}

tvms_value* newValue(Value value, std::shared_ptr<const std::vector<DLDevice>> devices) {
  return new tvms_value{std::move(value), std::move(devices), {}};
}

}  // namespace

extern "C" {

const char* tvms_version(void) { return TVMS_VERSION; }
const char* tvms_last_error(void) { return lastError.c_str(); }

tvms_status tvms_executable_load(const char* path, tvms_executable** out) {
  if (!path || !out) return nullArgument(!path ? "path" : "out");
  *out = nullptr;
  return guarded(TVMS_ERROR_FILE, [&] { *out = new tvms_executable{loadExecutable(path)}; });
}

void tvms_executable_free(tvms_executable* exe) { delete exe; }

int32_t tvms_executable_num_functions(const tvms_executable* exe) { return exe ? static_cast<int32_t>(exe->exe.functions.size()) : 0; }

const char* tvms_executable_function_name(const tvms_executable* exe, int32_t i) {
  if (!exe || i < 0 || static_cast<size_t>(i) >= exe->exe.functions.size()) return nullptr;
  return exe->exe.functions[static_cast<size_t>(i)].name.c_str();
}

int32_t tvms_executable_num_devices(const tvms_executable* exe) { return exe ? static_cast<int32_t>(exe->exe.devices.size()) : 0; }

tvms_status tvms_executable_device(const tvms_executable* exe, int32_t i, const char** spelling, const char** kind, int32_t* type, int64_t* index) {
  if (!exe || i < 0 || static_cast<size_t>(i) >= exe->exe.devices.size()) return failWith(TVMS_ERROR_ARGUMENT, "no such device slot");
  const DeviceSlot& d = exe->exe.devices[static_cast<size_t>(i)];
  if (spelling) *spelling = d.spelling.c_str();
  if (kind) *kind = d.kind.c_str();
  if (type) *type = d.deviceType;
  if (index) *index = d.vdeviceId;
  return TVMS_OK;
}

tvms_status tvms_vm_create(const tvms_executable* exe, const char* const* remapFrom, const char* const* remapTo, int32_t n, tvms_vm** out) {
  if (!exe || !out) return nullArgument(!exe ? "the executable" : "out");
  *out = nullptr;
  return guarded(TVMS_ERROR_DEVICE, [&] {
    std::map<std::string, std::string> remap;
    for (int32_t i = 0; i < n; ++i) {
      if (!remapFrom || !remapTo || !remapFrom[i] || !remapTo[i]) throw std::invalid_argument("a null device remap");
      remap[remapFrom[i]] = remapTo[i];
    }
    auto vm = std::make_unique<tvms_vm>();
    vm->session = std::make_unique<capi::Session>(exe->exe, remap);
    for (size_t s = 0; s < vm->session->numDevices(); ++s) vm->deviceNames.push_back(vm->session->device(static_cast<int>(s)).name());
    *out = vm.release();
  });
}

void tvms_vm_free(tvms_vm* vm) { delete vm; }

tvms_status tvms_vm_num_params(tvms_vm* vm, const char* function, int32_t* n) {
  if (!vm || !function || !n) return nullArgument("an argument");
  return guarded(TVMS_ERROR_ARGUMENT, [&] { *n = static_cast<int32_t>(vm->session->function(function).params.size()); });
}

tvms_status tvms_vm_param(tvms_vm* vm, const char* function, int32_t i, const char** name, const char** structInfo, int32_t* bound) {
  if (!vm || !function) return nullArgument("an argument");
  return guarded(TVMS_ERROR_ARGUMENT, [&] {
    const VMFunction& f = vm->session->function(function);
    if (i < 0 || static_cast<size_t>(i) >= f.params.size()) throw std::invalid_argument(std::string(function) + " has no parameter " + std::to_string(i));
    const ParamSpec& p = f.params[static_cast<size_t>(i)];
    if (name) *name = p.name.c_str();
    if (structInfo) *structInfo = p.sinfo.c_str();
    if (bound) *bound = vm->session->isBound(function, static_cast<size_t>(i));
  });
}

tvms_status tvms_vm_load_params(tvms_vm* vm, const char* function, const char* path) {
  if (!vm || !function || !path) return nullArgument("an argument");
  return guarded(TVMS_ERROR_FILE, [&] { vm->session->loadParams(function, path); });
}

tvms_status tvms_vm_call(tvms_vm* vm, const char* function, int32_t n, const tvms_arg* args, tvms_value** out) {
  std::vector<capi::Argument> taken = takenAll(n, args);  // before anything can fail: ownership moves in every case
  if (!vm || !function || !out) return nullArgument("an argument");
  *out = nullptr;
  return guarded(TVMS_ERROR_RUN, [&] {
    Value result = vm->session->call(function, std::move(taken));
    *out = newValue(std::move(result), vm->session->slotDevices());
  });
}

tvms_status tvms_vm_benchmark(tvms_vm* vm, const char* function, int32_t n, const tvms_arg* args, int32_t repeat, double* ms) {
  std::vector<capi::Argument> taken = takenAll(n, args);
  if (!vm || !function || !ms) return nullArgument("an argument");
  return guarded(TVMS_ERROR_RUN, [&] {
    std::vector<double> times = vm->session->benchmark(function, std::move(taken), repeat);
    std::copy(times.begin(), times.end(), ms);
  });
}

tvms_status tvms_vm_stats(tvms_vm* vm, tvms_stats* out) {
  if (!vm || !out) return nullArgument("an argument");
  *out = vm->session->stats;
  const RunStats& r = vm->session->runStats();
  out->bytes_copied_between_devices = r.bytesCopied;
  out->copies_between_devices = r.copies;
  out->copy_seconds = r.copySeconds;
  return TVMS_OK;
}

int32_t tvms_vm_num_devices(tvms_vm* vm) { return vm ? static_cast<int32_t>(vm->session->numDevices()) : 0; }

tvms_status tvms_vm_device_stats(tvms_vm* vm, int32_t slot, tvms_device_stats* out) {
  if (!vm || !out) return nullArgument("an argument");
  if (slot < 0 || static_cast<size_t>(slot) >= vm->session->numDevices()) return failWith(TVMS_ERROR_ARGUMENT, "no such device slot");
  const RunStats& r = vm->session->runStats();
  DLDevice d = vm->session->slotDevice(slot);
  *out = {vm->session->spelling(slot).c_str(), vm->deviceNames[static_cast<size_t>(slot)].c_str(), d.device_type, d.device_id,
          r.kernelCalls[static_cast<size_t>(slot)], r.kernelSeconds[static_cast<size_t>(slot)],
          static_cast<int64_t>(vm->session->device(slot).peakBytes())};
  return TVMS_OK;
}

void* tvms_vm_device_stream(tvms_vm* vm, int32_t slot) {
  if (!vm || slot < 0 || static_cast<size_t>(slot) >= vm->session->numDevices()) return nullptr;
  try {
    return vm->session->nativeStream(slot);
  } catch (...) {
    return nullptr;
  }
}

int32_t tvms_value_get_kind(const tvms_value* v) {
  if (!v) return TVMS_VALUE_NONE;
  if (std::holds_alternative<NDArray>(v->value)) return TVMS_VALUE_TENSOR;
  if (std::holds_alternative<std::shared_ptr<TupleValue>>(v->value)) return TVMS_VALUE_TUPLE;
  if (std::holds_alternative<int64_t>(v->value)) return TVMS_VALUE_INT;
  if (std::holds_alternative<ShapeValue>(v->value)) return TVMS_VALUE_SHAPE;
  return TVMS_VALUE_NONE;
}

int32_t tvms_value_tuple_size(const tvms_value* v) {
  auto* t = v ? std::get_if<std::shared_ptr<TupleValue>>(&v->value) : nullptr;
  return t && *t ? static_cast<int32_t>((*t)->fields.size()) : 0;
}

tvms_status tvms_value_tuple_get(const tvms_value* v, int32_t i, tvms_value** out) {
  auto* t = v ? std::get_if<std::shared_ptr<TupleValue>>(&v->value) : nullptr;
  if (!t || !*t || !out) return failWith(TVMS_ERROR_ARGUMENT, "the value is not a tuple");
  if (i < 0 || static_cast<size_t>(i) >= (*t)->fields.size()) return failWith(TVMS_ERROR_ARGUMENT, "no such tuple field");
  return guarded(TVMS_ERROR_INTERNAL, [&] { *out = newValue((*t)->fields[static_cast<size_t>(i)], v->slotDevices); });
}

int64_t tvms_value_int(const tvms_value* v) {
  auto* i = v ? std::get_if<int64_t>(&v->value) : nullptr;
  return i ? *i : 0;
}

tvms_status tvms_value_shape(const tvms_value* v, const int64_t** dims, int32_t* ndim) {
  if (!v || !dims || !ndim) return nullArgument("an argument");
  auto* mutableValue = const_cast<tvms_value*>(v);
  if (auto* s = std::get_if<ShapeValue>(&v->value)) mutableValue->dims = s->dims;
  else if (auto* t = std::get_if<NDArray>(&v->value)) mutableValue->dims = t->shape;
  else return failWith(TVMS_ERROR_ARGUMENT, "the value is neither a tensor nor a shape");
  *dims = mutableValue->dims.data();
  *ndim = static_cast<int32_t>(mutableValue->dims.size());
  return TVMS_OK;
}

const char* tvms_value_dtype(const tvms_value* v) {
  auto* t = v ? std::get_if<NDArray>(&v->value) : nullptr;
  return t ? dtypeName(t->dtype).data() : nullptr;
}

tvms_status tvms_value_device(const tvms_value* v, int32_t* type, int32_t* id) {
  if (!type || !id) return nullArgument("an argument");
  return guarded(TVMS_ERROR_ARGUMENT, [&] {
    DLDevice d = deviceOf(v, tensorOf(v));
    *type = d.device_type;
    *id = d.device_id;
  });
}

void* tvms_value_data(const tvms_value* v) {
  auto* t = v ? std::get_if<NDArray>(&v->value) : nullptr;
  return t && t->storage ? t->data() : nullptr;
}

tvms_status tvms_value_to_dlpack_versioned(const tvms_value* v, DLManagedTensorVersioned** out) {
  if (!out) return nullArgument("out");
  return guarded(TVMS_ERROR_ARGUMENT, [&] {
    const NDArray& a = tensorOf(v);
    *out = capi::exportVersioned(a, deviceOf(v, a));
  });
}

tvms_status tvms_value_to_dlpack(const tvms_value* v, DLManagedTensor** out) {
  if (!out) return nullArgument("out");
  return guarded(TVMS_ERROR_ARGUMENT, [&] {
    const NDArray& a = tensorOf(v);
    *out = capi::exportLegacy(a, deviceOf(v, a));
  });
}

tvms_status tvms_value_to_host(const tvms_value* v, tvms_value** out) {
  if (!out) return nullArgument("out");
  return guarded(TVMS_ERROR_RUN, [&] {
    const NDArray& a = tensorOf(v);
    *out = newValue(capi::hostCopyOf(a), v->slotDevices);
  });
}

void tvms_value_free(tvms_value* v) { delete v; }

}  // extern "C"
