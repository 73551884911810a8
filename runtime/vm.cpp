#include "runtime/vm.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "runtime/registry.h"
#include "runtime/shape_math.h"
#include "runtime/value_text.h"

namespace tvms::runtime {

namespace {

int64_t operand(const std::vector<int64_t>& heap, int64_t isSlot, int64_t value) {
  return isSlot ? heap.at(static_cast<size_t>(value)) : value;
}

// The dims written as operand pairs in a[from], a[from + 1], ... (LowerToVM's pushDims).
std::vector<int64_t> dimsOf(const std::vector<int64_t>& a, size_t from, const std::vector<int64_t>& heap) {
  std::vector<int64_t> dims;
  for (size_t k = from; k + 1 < a.size(); k += 2) dims.push_back(operand(heap, a[k], a[k + 1]));
  return dims;
}

const NDArray& tensorIn(const Value& v, const char* what) {
  if (auto* t = std::get_if<NDArray>(&v)) return *t;
  throw std::runtime_error(std::string("the VM expected a tensor ") + what);
}

}  // namespace

const VMFunction* Executable::function(const std::string& name) const {
  for (auto& f : functions) if (f.name == name) return &f;
  return nullptr;
}

const VMFunction& Executable::functionNamed(const std::string& name) const {
  if (const VMFunction* f = function(name)) return *f;
  std::string known;
  for (auto& g : functions) known += (known.empty() ? "" : ", ") + g.name;
  throw std::invalid_argument("no function '" + name + "' in the module (it has: " + known + ")");
}

VirtualMachine::VirtualMachine(const Executable& exe, std::vector<std::shared_ptr<DeviceAPI>> devices)
    : printTo_(&std::cout), exe_(exe), devices_(std::move(devices)), host_(makeCpuDevice(-1)) {
  if (devices_.size() != exe.devices.size())
    throw std::runtime_error("the VM got " + std::to_string(devices_.size()) + " devices for a module with " +
                             std::to_string(exe.devices.size()) + " vdevices");
  for (auto& k : exe.kernels) {
    auto lib = exe.libraries.find(k.kind);
    if (lib == exe.libraries.end() || !lib->second || !lib->second->find(k.name))
      throw std::runtime_error("kernel " + k.name + " is missing from the executable's " + k.kind + " library");
  }
  // Each library call's function found and its attributes read once, here: a malformed call fails the
  // load, not a run halfway.
  for (auto& name : exe.libraryFunctions) {
    libraryCalls_.push_back(readLibraryCall(name));  // throws for a function no kind offers
    libraryFunctions_.push_back(findLibraryOffload(name)->function);
  }
  launchers_.resize(devices_.size());
  resolved_.assign(exe.kernels.size() * devices_.size(), nullptr);
  constants_.resize(exe.constants.size());
  stats_.kernelSeconds.assign(exe.devices.size(), 0);
  stats_.kernelCalls.assign(exe.devices.size(), 0);
  graphMode_ = exe.graphs;
}

NDArray VirtualMachine::toDevice(const NDArray& a, int slot, int64_t* counter) {
  NDArray out;
  out.dtype = a.dtype;
  out.shape = a.shape;
  DeviceAPI& from = *a.storage->device;
  DeviceAPI& to = *devices_.at(slot);
  // Between the host and a device the copy runs on the device's copy stream and nobody waits: the
  // host goes on (a CPU vdevice's next kernel, the next micro-batch) while it and the device's
  // kernels proceed. What it reads and writes is marked pending until it ends (Storage::pending):
  // a kernel touching that memory waits for it first, and the call waits for every copy before it
  // returns (settleCopies).
  bool upload = from.hostAccessible() && !to.hostAccessible(), download = !from.hostAccessible() && to.hostAccessible();
  DeviceAPI::CopyEvents events;
  int timeline = slot;  // whose clock the events are (the device with the copy stream)
  if (upload || download) {
    if (upload) a.storage->hostWait();  // a host source still being downloaded into
    out.storage = upload ? std::make_shared<Storage>(devices_[slot], slot, a.bytes(), Storage::ForIncomingCopy{})
                         : std::make_shared<Storage>(devices_[slot], slot, a.bytes());
    events = upload ? to.copyFromHostAsync(out.data(), a.data(), a.bytes()) : from.copyToHostAsync(out.data(), a.data(), a.bytes());
    if (download) timeline = a.slot();
    if (events.end) {
      auto work = std::make_shared<PendingWork>(upload ? &to : &from, events.end);
      a.storage->pending = work;
      if (download) out.storage->pending = work;
      inFlight_.push_back({work, {a.storage, out.storage}});
    }
  } else {
    out.storage = std::make_shared<Storage>(devices_[slot], slot, a.bytes());
    a.storage->hostWait();
    events.begin = counter ? nullptr : to.recordEvent();
    copyBetween(to, out.data(), from, a.data(), a.bytes());
    if (events.begin) events.end = to.recordEvent();
  }
  if (events.begin && !counter && kernelTiming_ && timeline >= 0) {
    // A span of the timeline of the device that copies; read and freed with the kernels' events.
    copyLabels_.push_back("copy from " + from.name());
    timings_.push_back({timeline, events.begin, events.end, &copyLabels_.back(), "copy", static_cast<int64_t>(a.bytes()),
                        /*endOwned=*/!(upload || download), slot});
  } else {
    DeviceAPI& clock = timeline >= 0 ? *devices_[static_cast<size_t>(timeline)] : to;
    if (events.begin) clock.destroyEvent(events.begin);
    if (events.end && !(upload || download)) clock.destroyEvent(events.end);
  }
  if (counter) {
    *counter += static_cast<int64_t>(a.bytes());
  } else {
    stats_.bytesCopied += static_cast<int64_t>(a.bytes());
    ++stats_.copies;
  }
  return out;
}

NDArray VirtualMachine::hostCopy(const NDArray& a) { return runtime::hostCopy(a, host_); }

Value VirtualMachine::invoke(const std::string& name, std::vector<Value> inputs) {
  const VMFunction* f = &exe_.functionNamed(name);
  if (inputs.size() != f->params.size())
    throw std::runtime_error(name + " takes " + std::to_string(f->params.size()) + " inputs, got " + std::to_string(inputs.size()));
  if (tracing_ && traceBase_.empty()) traceOrigin();
  try {
    std::optional<Value> replayed;
    if (graphMode_ != GraphMode::Off) replayed = invokeRecorded(*f, inputs);
    Value out = replayed ? std::move(*replayed) : run(*f, std::move(inputs));
    // Timings first: a copy's end event belongs to its PendingWork, which settling gives back.
    collectTimings();
    settleCopies();
    return out;
  } catch (...) {
    collectTimings();
    settleCopies();
    throw;
  }
}

// R.reshape and its kin where the compiler proved a copy unneeded (RewriteDataflowReshape): the same
// bytes under other dims, sharing the storage (which stays alive while either tensor does).
Value VirtualMachine::view(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::vector<int64_t>& heap) {
  const NDArray& t = tensorIn(r[a[0]], "to view");
  NDArray v;
  v.dtype = t.dtype;
  v.storage = t.storage;
  v.offset = t.offset;
  v.shape = dimsOf(a, 1, heap);
  if (v.bytes() != t.bytes()) throw std::runtime_error("a view of " + t.shapeText() + " as " + v.shapeText() + " changes the element count");
  return v;
}

std::vector<Value> VirtualMachine::placeInputs(const std::string& name, std::vector<Value> inputs, int64_t* placedBytes) {
  const VMFunction* f = exe_.function(name);
  if (!f) throw std::runtime_error("no function '" + name + "' in the module");
  for (size_t i = 0; i < inputs.size() && i < f->params.size(); ++i) place(f->params[i], inputs[i], placedBytes);
  settleCopies();
  for (size_t d = 0; d < devices_.size(); ++d) devices_[d]->synchronize();
  return inputs;
}

std::vector<double> VirtualMachine::timedCalls(const std::string& name, const std::vector<Value>& placed, int64_t repeat) {
  std::vector<double> ms;
  for (int64_t i = 0; i < repeat; ++i) {
    auto t = std::chrono::steady_clock::now();
    invoke(name, placed);
    for (auto& d : devices_) d->synchronize();
    ms.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1e3);
  }
  return ms;
}

// Only what bindParam would copy is copied (a tensor on another slot); what it would refuse is left
// for invoke to refuse with its message.
void VirtualMachine::place(const ParamSpec& p, Value& v, int64_t* placedBytes) {
  if (p.tuple) {
    auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v);
    if (!t || !*t || (*t)->fields.size() != p.fields.size()) return;
    auto copy = std::make_shared<TupleValue>(**t);
    for (size_t k = 0; k < p.fields.size(); ++k) place(p.fields[k], copy->fields[k], placedBytes);
    v = copy;
    return;
  }
  auto* t = std::get_if<NDArray>(&v);
  if (p.tensor && t && p.slot >= 0 && t->slot() != p.slot) v = toDevice(*t, p.slot, placedBytes);
}

const void* VirtualMachine::resolve(size_t kernel, int slot) {
  const void*& handle = resolved_.at(kernel * devices_.size() + static_cast<size_t>(slot));
  if (handle) return handle;
  const KernelRef& k = exe_.kernels.at(kernel);
  auto& launcher = launchers_.at(static_cast<size_t>(slot))[k.kind];
  if (!launcher) launcher = devices_[slot]->launcher(exe_.libraries.at(k.kind));
  handle = launcher->resolve(k.name);
  if (!handle) throw std::runtime_error("kernel " + k.name + " cannot run on " + devices_[slot]->name());
  return handle;
}

void VirtualMachine::callKernel(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::vector<int64_t>& heap) {
  size_t kernel = static_cast<size_t>(a[0]);
  int slot = static_cast<int>(a[1]);
  size_t nBuf = static_cast<size_t>(a[2]);
  buffers_.clear();
  dims_.clear();
  DeviceAPI& device = *devices_[slot];
  for (size_t k = 0; k < nBuf; ++k) {
    const NDArray& t = tensorIn(r[a[3 + k]], "as a kernel argument");
    if (t.storage->pending) awaitCopies(device, t);
    buffers_.push_back(t.data());
  }
  for (size_t k = 3 + nBuf; k < a.size(); ++k) dims_.push_back(heap.at(static_cast<size_t>(a[k])));
  const void* handle = resolve(kernel, slot);
  KernelLauncher& launcher = *launchers_[slot][exe_.kernels[kernel].kind];
  bool timed = kernelTiming_ && !recording_;  // a device that records has no events to give
  Event begin = timed ? device.recordEvent() : nullptr;
  int32_t rc = launcher.launch(handle, buffers_.data(), dims_.data());
  if (timed) timings_.push_back({slot, begin, device.recordEvent(), &exe_.kernels[kernel].name, "kernel", 0});
  ++stats_.kernelCalls[slot];
  if (rc != 0) throw std::runtime_error("kernel " + exe_.kernels[kernel].name + " failed (" + std::to_string(rc) + ") on " + device.name());
}

void VirtualMachine::callLibrary(const std::vector<int64_t>& a, const std::vector<Value>& r) {
  size_t fn = static_cast<size_t>(a[0]);
  int slot = static_cast<int>(a[1]);
  std::vector<const NDArray*> args;
  DeviceAPI& device = *devices_[slot];
  for (size_t k = 0; k < static_cast<size_t>(a[2]); ++k) {
    args.push_back(&tensorIn(r[a[3 + k]], "as a library function's argument"));
    if (args.back()->storage->pending) awaitCopies(device, *args.back());
  }
  bool timed = kernelTiming_ && !recording_;
  Event begin = timed ? device.recordEvent() : nullptr;
  libraryFunctions_.at(fn)(device, args, libraryCalls_[fn]);
  if (timed) timings_.push_back({slot, begin, device.recordEvent(), &exe_.libraryFunctions[fn], "library", 0});
  ++stats_.kernelCalls[slot];
}

// Parameters: checked against their struct info, bound symbolic dims, placed on their slot; dims
// written as expressions (x: R.Tensor(("m", "n * 3"))) checked once every dim is bound.
void VirtualMachine::bindArguments(const VMFunction& f, std::vector<Value>& args, std::vector<Value>& r, std::vector<int64_t>& heap) {
  std::vector<ComputedDim> computed;
  for (size_t i = 0; i < f.params.size(); ++i) {
    bindParam(f.params[i], args[i], heap, f.name, computed);
    r[i] = std::move(args[i]);
  }
  for (auto& c : computed) {
    int64_t want = evalDimProgram(c.dim->program, [&](int64_t slot) { return heap.at(static_cast<size_t>(slot)); });
    if (want != c.got)
      throw std::runtime_error("input '" + c.param->name + "' of " + f.name + ": dim " + c.dim->name + " is " + std::to_string(want) + ", got " +
                               std::to_string(c.got) + "; expected " + c.param->sinfo);
  }
}

Value VirtualMachine::makeShape(const std::vector<int64_t>& a, const std::vector<int64_t>& heap) {
  ShapeValue shape;
  shape.dims = dimsOf(a, 0, heap);
  return shape;
}

Value VirtualMachine::shapeToTensor(const Value& v, int slot) {
  auto* shape = std::get_if<ShapeValue>(&v);
  if (!shape) throw std::runtime_error("R.shape_to_tensor expected a shape value");
  NDArray t;
  t.dtype = DType::I64;
  t.shape = {static_cast<int64_t>(shape->dims.size())};
  t.storage = std::make_shared<Storage>(devices_.at(slot), slot, t.bytes());
  devices_[slot]->copyFromHost(t.data(), shape->dims.data(), t.bytes());
  devices_[slot]->synchronize();
  return t;
}

Value VirtualMachine::tensorToShape(const Value& v) {
  NDArray h = hostCopy(tensorIn(v, "for R.tensor_to_shape"));
  if (h.shape.size() != 1 || (h.dtype != DType::I64 && h.dtype != DType::I32))
    throw std::runtime_error("R.tensor_to_shape takes a 1-D int32 / int64 tensor, got " + std::string(dtypeName(h.dtype)) + " of shape " + h.shapeText());
  ShapeValue shape;
  for (int64_t i = 0; i < h.shape[0]; ++i) {
    int64_t d = h.dtype == DType::I64 ? static_cast<const int64_t*>(h.data())[i] : static_cast<const int32_t*>(h.data())[i];
    if (d < 0) throw std::runtime_error("R.tensor_to_shape: dim " + std::to_string(i) + " is " + std::to_string(d) + ", a negative size");
    shape.dims.push_back(d);
  }
  return shape;
}

void VirtualMachine::shapeDims(const std::vector<int64_t>& a, const std::vector<Value>& r, std::vector<int64_t>& heap) {
  auto* shape = std::get_if<ShapeValue>(&r[a[0]]);
  if (!shape) throw std::runtime_error("the VM expected a shape value");
  if (shape->dims.size() + 1 != a.size())
    throw std::runtime_error("a shape of " + std::to_string(shape->dims.size()) + " dims where " + std::to_string(a.size() - 1) + " were declared");
  for (size_t i = 1; i < a.size(); ++i)
    if (a[i] >= 0) heap.at(static_cast<size_t>(a[i])) = shape->dims[i - 1];
}

void VirtualMachine::printValues(const std::vector<int64_t>& a, const std::vector<Value>& r) {
  *printTo_ << formatted(a[0], a, 1, r, " ") << std::endl;
}

void VirtualMachine::assertTrue(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::string& fn) {
  NDArray h = hostCopy(tensorIn(r[a[0]], "as an assert_op condition"));
  if (h.numel() != 1) throw std::runtime_error("the condition of R.assert_op must be a scalar, got shape " + h.shapeText());
  bool ok = h.dtype == DType::Bool ? *static_cast<const uint8_t*>(h.data()) != 0 : h.dtype == DType::I32 ? *static_cast<const int32_t*>(h.data()) != 0
          : h.dtype == DType::I64 ? *static_cast<const int64_t*>(h.data()) != 0 : true;
  if (ok) return;
  std::string message = formatted(a[1], a, 2, r, ", ");
  throw std::runtime_error("AssertionError: " + (message.empty() ? std::string("Assertion Failed") : message) + " (R.assert_op in " + fn + ")");
}

// A fact LegalizeOps could not prove about two symbolic dims, checked before the call that relies
// on it: 'B' they broadcast (equal, or one is 1), 'E' they are equal. a[5] is the message.
void VirtualMachine::checkDims(const std::vector<int64_t>& a, const std::vector<int64_t>& heap) {
  int64_t x = operand(heap, a[1], a[2]), y = operand(heap, a[3], a[4]);
  bool ok = a[0] == 'E' ? x == y : (x == y || x == 1 || y == 1);
  if (!ok) throw std::runtime_error(exe_.strings.at(static_cast<size_t>(a[5])) + ", got " + std::to_string(x) + " and " + std::to_string(y));
}

// An argument against its parameter: a tensor's dtype, rank and fixed dims checked, its symbolic
// dims bound (or checked against an earlier binding), the tensor copied onto the parameter's slot;
// a tuple field by field.
void VirtualMachine::bindParam(const ParamSpec& p, Value& v, std::vector<int64_t>& heap, const std::string& fn, std::vector<ComputedDim>& computed) {
  auto fail = [&](const std::string& why) { throw std::runtime_error("input '" + p.name + "' of " + fn + ": " + why + "; expected " + p.sinfo); };
  if (p.tuple) {
    auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v);
    if (!t || !*t) fail("not a tuple");
    if ((*t)->fields.size() != p.fields.size()) fail("a tuple of " + std::to_string((*t)->fields.size()) + " fields");
    auto copy = std::make_shared<TupleValue>(**t);
    for (size_t k = 0; k < p.fields.size(); ++k) bindParam(p.fields[k], copy->fields[k], heap, fn, computed);
    v = copy;
    return;
  }
  if (p.prim) {  // an integer argument: its value is a symbolic dim of the function
    auto* i = std::get_if<int64_t>(&v);
    if (!i) fail("not an integer");
    if (!p.dims.empty() && p.dims[0].kind == ParamSpec::Dim::Bind) heap.at(static_cast<size_t>(p.dims[0].value)) = *i;
    if (!p.dims.empty() && p.dims[0].kind == ParamSpec::Dim::Check && heap.at(static_cast<size_t>(p.dims[0].value)) != *i)
      fail(std::to_string(*i) + " (" + p.dims[0].name + " is " + std::to_string(heap[static_cast<size_t>(p.dims[0].value)]) + " from an earlier input)");
    return;
  }
  if (!p.tensor) return;
  auto* t = std::get_if<NDArray>(&v);
  if (!t) fail("not a tensor");
  if (!p.dtype.empty() && dtypeName(t->dtype) != p.dtype) fail("dtype " + std::string(dtypeName(t->dtype)));
  if (p.ndim >= 0 && static_cast<int>(t->shape.size()) != p.ndim) fail("shape " + t->shapeText());
  for (size_t d = 0; d < p.dims.size() && d < t->shape.size(); ++d) {
    const auto& dim = p.dims[d];
    int64_t got = t->shape[d];
    if (dim.kind == ParamSpec::Dim::Fixed && got != dim.value) fail("shape " + t->shapeText());
    if (dim.kind == ParamSpec::Dim::Bind) heap.at(static_cast<size_t>(dim.value)) = got;
    if (dim.kind == ParamSpec::Dim::Computed) computed.push_back({&p, &dim, got});
    if (dim.kind == ParamSpec::Dim::Check && heap.at(static_cast<size_t>(dim.value)) != got)
      fail("shape " + t->shapeText() + " (" + dim.name + " is " + std::to_string(heap[static_cast<size_t>(dim.value)]) + " from an earlier input)");
  }
  if (p.slot >= 0 && t->slot() != p.slot) v = toDevice(*t, p.slot, &stats_.inputBytesPlaced);
}

std::string VirtualMachine::valueText(const Value& v) {
  if (auto* t = std::get_if<NDArray>(&v)) return hostTensorText(hostCopy(*t));
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* shape = std::get_if<ShapeValue>(&v)) {
    std::string out = "[";
    for (size_t k = 0; k < shape->dims.size(); ++k) out += (k ? ", " : "") + std::to_string(shape->dims[k]);
    return out + "]";
  }
  if (auto* c = std::get_if<std::shared_ptr<ClosureValue>>(&v)) return "<closure of " + exe_.functions.at((*c)->function).name + ">";
  if (auto* t = std::get_if<std::shared_ptr<TupleValue>>(&v)) {
    std::string out = "(";
    for (size_t k = 0; k < (*t)->fields.size(); ++k) out += (k ? ", " : "") + valueText((*t)->fields[k]);
    return out + ((*t)->fields.size() == 1 ? ",)" : ")");
  }
  return "None";
}

// TVM's print and assert: the format with each "{}" replaced by the next value, or without a format
// the values joined (print: by spaces; assert: by ", ").
std::string VirtualMachine::formatted(int64_t format, const std::vector<int64_t>& a, size_t from, const std::vector<Value>& r, const char* joiner) {
  std::vector<std::string> values;
  for (size_t k = from; k < a.size(); ++k) values.push_back(valueText(r[a[k]]));
  if (format >= 0 && !exe_.strings.at(static_cast<size_t>(format)).empty()) return formatWithBraces(exe_.strings[static_cast<size_t>(format)], values);
  std::string out;
  for (size_t k = 0; k < values.size(); ++k) out += (k ? joiner : "") + values[k];
  return out;
}

VirtualMachine::~VirtualMachine() {
  for (auto& t : timings_) {
    devices_[t.slot]->destroyEvent(t.begin);
    if (t.endOwned) devices_[t.slot]->destroyEvent(t.end);
  }
  try {
    settleCopies();  // no storage may keep a mark whose event outlives its device
  } catch (...) {
  }
  for (size_t slot = 0; slot < traceBase_.size() && slot < devices_.size(); ++slot) devices_[slot]->destroyEvent(traceBase_[slot]);
}

void VirtualMachine::traceOrigin() {
  // Every device's clock counts from its own event, recorded one device after another at the first
  // traced call; the host time between those records is added back, so spans of different devices
  // line up (without it a copy on device 1 could appear to start before the kernel on device 0 that
  // it waited for: by 16 us under AddressSanitizer).
  auto first = std::chrono::steady_clock::now();
  for (auto& d : devices_) {
    traceOffsetSeconds_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count());
    traceBase_.push_back(d->recordEvent());
  }
}

void VirtualMachine::collectTimings() {
  for (auto& t : timings_) {
    DeviceAPI& d = *devices_[t.slot];
    double seconds = d.elapsedSeconds(t.begin, t.end);
    if (std::strcmp(t.category, "copy") != 0) stats_.kernelSeconds[t.slot] += seconds;  // copies are counted apart
    else stats_.copySeconds += seconds;
    if (tracing_)
      trace_.push_back({*t.name, t.category, t.slot, (d.elapsedSeconds(traceBase_[t.slot], t.begin) + traceOffsetSeconds_[t.slot]) * 1e6, seconds * 1e6, t.bytes,
                        t.destination});
    d.destroyEvent(t.begin);
    if (t.endOwned) d.destroyEvent(t.end);
  }
  timings_.clear();
}

// The copies of the call are waited for (their memory is the caller's again) and their marks cleared.
void VirtualMachine::settleCopies() {
  for (auto& c : inFlight_) {
    c.work->device->synchronizeEvent(c.work->event);
    for (auto& s : c.touched)
      if (s->pending == c.work) s->pending.reset();
  }
  inFlight_.clear();
}

// Memory a copy on another stream still reads or writes: a host kernel waits for the copy, a
// device's stream is ordered after it (no host wait).
void VirtualMachine::awaitCopies(DeviceAPI& device, const NDArray& t) {
  const std::shared_ptr<PendingWork>& p = t.storage->pending;
  if (!p) return;
  if (device.hostAccessible()) t.storage->hostWait();
  else if (p->device == &device) device.waitEvent(nullptr, p->event);
  else t.storage->hostWait();
}

// Out of line and cold: its message's temporaries stay off the stack of every level of a deep recursion.
void VirtualMachine::badCall(const VMFunction& caller, const VMFunction& callee, size_t given) {
  if (given != callee.params.size())
    throw std::runtime_error(caller.name + " calls " + callee.name + " with " + std::to_string(given) + " arguments; it takes " +
                             std::to_string(callee.params.size()));
  throw std::runtime_error("calls between the module's functions nest deeper than " + std::to_string(kMaxCallDepth) + " (" + caller.name +
                           " calls " + callee.name + " there): a recursion without an end?");
}

const ClosureValue* VirtualMachine::closureIn(const Value& v, const VMFunction& f) {
  auto* closure = std::get_if<std::shared_ptr<ClosureValue>>(&v);
  if (!closure || !*closure) throw std::runtime_error("R.invoke_closure in " + f.name + " expected a closure (R.make_closure's value)");
  return closure->get();
}

Value VirtualMachine::makeClosure(const std::vector<int64_t>& a, const std::vector<Value>& r) {
  auto closure = std::make_shared<ClosureValue>();
  closure->function = static_cast<size_t>(a[0]);
  for (size_t k = 1; k < a.size(); ++k) closure->captured.push_back(r[a[k]]);
  return closure;
}

std::vector<Value> VirtualMachine::callArguments(const std::vector<int64_t>& a, const std::vector<Value>& r, const ClosureValue* closure) {
  std::vector<Value> args;
  for (size_t k = 1; k < a.size(); ++k) args.push_back(r[a[k]]);
  if (closure) args.insert(args.end(), closure->captured.begin(), closure->captured.end());
  return args;
}

// Each level of a recursion between the module's functions is a run() frame and this one: it keeps
// nothing of its own on the stack (the arguments are gathered, and a bad call reported, out of line).
Value VirtualMachine::callFunction(const VMFunction& caller, const std::vector<int64_t>& a, const std::vector<Value>& r, const ClosureValue* closure) {
  std::vector<Value> args = callArguments(a, r, closure);
  const VMFunction& callee = exe_.functions.at(closure ? closure->function : static_cast<size_t>(a[0]));
  // Recursion without an end would overflow the stack (a segfault): a clear error instead.
  if (args.size() != callee.params.size() || callDepth_ >= kMaxCallDepth) badCall(caller, callee, args.size());
  ++callDepth_;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{callDepth_};
  return run(callee, std::move(args));
}

Value VirtualMachine::run(const VMFunction& f, std::vector<Value> args) {
  std::vector<Value> r(static_cast<size_t>(f.numRegisters));
  std::vector<int64_t> heap(static_cast<size_t>(f.numDims), 0);
  // Parameters: checked against their struct info, bound symbolic dims, placed on their slot.
  bindArguments(f, args, r, heap);
  size_t pc = 0;
  const auto& code = f.code;
  while (pc < code.size()) {
    const Instruction& in = code[pc++];
    const auto& a = in.args;
    ++stats_.instructions;
    switch (in.op) {
      case Opcode::ComputeDim:
        if (a[0] == 'B' || a[0] == 'E') {
          checkDims(a, heap);
          break;
        }
        heap.at(static_cast<size_t>(in.dst)) = shapeOp(a[0], operand(heap, a[1], a[2]), operand(heap, a[3], a[4]));
        break;
      case Opcode::AllocStorage: {
        int slot = static_cast<int>(a[0]);
        int64_t bytes = operand(heap, a[1], a[2]);
        if (bytes < 0) throw std::runtime_error("a storage of " + std::to_string(bytes) + " bytes: a negative dimension in the shape");
        r[in.dst] = std::make_shared<Storage>(devices_.at(slot), slot, static_cast<size_t>(bytes));
        break;
      }
      case Opcode::AllocTensor: {
        NDArray t;
        t.storage = std::get<std::shared_ptr<Storage>>(r[a[0]]);
        t.dtype = static_cast<DType>(a[1]);
        t.shape = dimsOf(a, 2, heap);
        if (t.bytes() > t.storage->bytes) throw std::runtime_error("internal error: a tensor larger than its storage");
        r[in.dst] = std::move(t);
        break;
      }
      case Opcode::CallKernel: callKernel(a, r, heap); break;
      case Opcode::CallLibrary: callLibrary(a, r); break;
      case Opcode::ToDevice: r[in.dst] = toDevice(tensorIn(r[a[0]], "to copy"), static_cast<int>(a[1])); break;
      case Opcode::LoadConst: {
        auto& perSlot = constants_[a[0]];
        int slot = static_cast<int>(a[1]);
        if (perSlot.empty()) perSlot.resize(devices_.size());
        if (!perSlot[slot].storage) {
          const ConstantData& c = exe_.constants[a[0]];
          NDArray t;
          t.dtype = c.dtype;
          t.shape = c.shape;
          t.storage = std::make_shared<Storage>(devices_[slot], slot, c.bytes.size());
          devices_[slot]->copyFromHost(t.data(), c.bytes.data(), c.bytes.size());
          devices_[slot]->synchronize();
          perSlot[slot] = t;
        }
        r[in.dst] = perSlot[slot];
        break;
      }
      case Opcode::MakeTuple: {
        auto t = std::make_shared<TupleValue>();
        for (auto reg : a) t->fields.push_back(r[reg]);
        r[in.dst] = std::move(t);
        break;
      }
      case Opcode::GetItem: {
        auto* t = std::get_if<std::shared_ptr<TupleValue>>(&r[a[0]]);
        if (!t || static_cast<size_t>(a[1]) >= (*t)->fields.size()) throw std::runtime_error("the VM expected a tuple");
        Value v = (*t)->fields[a[1]];
        r[in.dst] = std::move(v);
        break;
      }
      case Opcode::Move: r[in.dst] = r[a[0]]; break;
      // Out of line, as every case with locals of its own: run() recurses through them, so its frame
      // (the stack a recursion 1,000 deep takes, sanitizers included) holds no case's locals.
      case Opcode::CallFunc: r[in.dst] = callFunction(f, a, r, nullptr); break;
      case Opcode::MakeClosure: r[in.dst] = makeClosure(a, r); break;
      case Opcode::InvokeClosure: r[in.dst] = callFunction(f, a, r, closureIn(r[a[0]], f)); break;
      case Opcode::IfNot: {
        if (auto* i = std::get_if<int64_t>(&r[a[0]])) {  // a prim value condition
          if (*i == 0) pc = static_cast<size_t>(a[1]);
          break;
        }
        const NDArray& c = tensorIn(r[a[0]], "as an if condition");
        NDArray h = hostCopy(c);
        bool v = h.dtype == DType::Bool ? *static_cast<const uint8_t*>(h.data()) != 0 : *static_cast<const int64_t*>(h.data()) != 0;
        if (!v) pc = static_cast<size_t>(a[1]);
        break;
      }
      case Opcode::Goto: pc = static_cast<size_t>(a[0]); break;
      case Opcode::Ret: return r[a[0]];
      case Opcode::Release: r[a[0]] = std::monostate{}; break;
      // Each rarely used instruction in a function of its own: run() is one stack frame per nested
      // call between functions, and its size bounds how deep they may nest (under ASan too).
      case Opcode::MakeShape: r[in.dst] = makeShape(a, heap); break;
      case Opcode::ShapeOf: r[in.dst] = ShapeValue{tensorIn(r[a[0]], "to take the shape of").shape}; break;
      case Opcode::MakeInt: r[in.dst] = operand(heap, a[0], a[1]); break;
      case Opcode::ShapeToTensor: r[in.dst] = shapeToTensor(r[a[0]], static_cast<int>(a[1])); break;
      case Opcode::TensorToShape: r[in.dst] = tensorToShape(r[a[0]]); break;
      case Opcode::ShapeDims: shapeDims(a, r, heap); break;
      case Opcode::View: r[in.dst] = view(a, r, heap); break;
      case Opcode::Print: printValues(a, r); r[in.dst] = std::make_shared<TupleValue>(); break;
      case Opcode::Assert: assertTrue(a, r, f.name); r[in.dst] = std::make_shared<TupleValue>(); break;
    }
  }
  throw std::runtime_error("function " + f.name + " ended without returning");
}

std::optional<DeviceChoice> parseDevice(const std::string& spelling, int index) {
  DeviceChoice c{spelling, index};
  if (size_t colon = spelling.find(':'); colon != std::string::npos) {
    // "cuda:0": another device of a kind (two vdevices on one GPU are two streams of that GPU).
    std::string digits = spelling.substr(colon + 1);
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    c = {spelling.substr(0, colon), std::stoi(digits)};
  }
  // An alias ("cpu", "gpu") names its kind.
  const TargetKind* kind = targetKindSpelled(c.kind);
  if (!kind || !kind->openDevice) return std::nullopt;
  c.kind = kind->name;
  return c;
}

DeviceChoice deviceFor(const DeviceSlot& slot, const std::map<std::string, std::string>& remap) {
  DeviceChoice own{slot.kind, static_cast<int>(slot.vdeviceId)};
  auto it = remap.find(slot.spelling);
  if (it == remap.end() && slot.builtFor.empty()) return own;
  const std::string& to = it != remap.end() ? it->second : slot.builtFor;
  auto c = parseDevice(to, own.index);
  if (!c) throw std::runtime_error("--device " + slot.spelling + "=" + to + ": expected cpu, a kind, or KIND:INDEX such as cuda:0");
  // Kernels built for the CPU cannot run on a GPU, nor the reverse. An artifact built without a remap
  // holds the slot's kernels for its own kind (PTX for a cuda slot): another kind of device cannot
  // run them (launching PTX as a host function would jump into data).
  if (it != remap.end() && slot.builtFor.empty() && !sameKernelFamily(slot.kind, c->kind))
    throw std::runtime_error("--device " + slot.spelling + "=" + to + ": this artifact's kernels for " + slot.spelling + " are " +
                             slot.kind + " code, which a " + to + " device cannot run; build it for " + to +
                             " (tvms build --device " + slot.spelling + "=" + to + "), or run the module's .py with this --device");
  if (it != remap.end() && !slot.builtFor.empty()) {
    auto built = parseDevice(slot.builtFor, own.index);
    if (built && built->kind != c->kind)
      throw std::runtime_error("--device " + slot.spelling + "=" + to + ": this artifact's kernels for " + slot.spelling + " were built for " +
                               slot.builtFor + " (tvms build --device " + slot.spelling + "=" + slot.builtFor + "); build it again for " + to);
  }
  return *c;
}

std::vector<std::shared_ptr<DeviceAPI>> openDevices(const Executable& exe, const std::map<std::string, std::string>& remap) {
  std::vector<std::shared_ptr<DeviceAPI>> out;
  // A module with cuda slots keeps its host tensors in pinned memory (DMA-speed copies).
  DeviceOptions options;
  for (auto& d : exe.devices)
    if (const TargetKind* k = findTargetKind(deviceFor(d, remap).kind)) options.pinnedHostMemory |= k->pinsHostMemory;
  for (size_t i = 0; i < exe.devices.size(); ++i) {
    const DeviceSlot& d = exe.devices[i];
    DeviceChoice choice = deviceFor(d, remap);
    const std::string& kind = choice.kind;
    std::unique_ptr<DeviceAPI> device;
    try {
      device = openDevice(kind, choice.index, options);
    } catch (const std::exception& e) {
      throw std::runtime_error("vdevice " + std::to_string(i) + " (\"" + d.spelling + "\") needs a " + kind + " device: " + e.what() +
                               "; `--device " + d.spelling + "=cpu` runs it on the CPU instead");
    }
    if (device) {
      out.push_back(std::move(device));
      continue;
    }
    throw std::runtime_error("vdevice " + std::to_string(i) + " (\"" + d.spelling + "\", I.vdevice(\"" + d.kind + "\", " +
                             std::to_string(d.vdeviceId) + ")) needs a " + d.kind +
                             " device, which this build of tvms cannot open yet; `--device " + d.spelling +
                             "=cpu` runs it on the CPU instead");
  }
  return out;
}

}  // namespace tvms::runtime
