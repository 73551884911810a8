#pragma once
// The VM: registers holding tensors, tuples and ints, a dim heap per frame for symbolic shapes, and
// one DeviceAPI per slot of the executable's device list. Kernels run through each slot's launcher
// (the slot's device runs the library of its target kind); kernel times are measured by the slot's
// own events, so an asynchronous device reports its own clock, not the host's.
#include <chrono>
#include <deque>
#include <iosfwd>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/executable.h"
#include "runtime/graph_capture.h"
#include "runtime/registry.h"

namespace tvms::runtime {

struct TupleValue;
struct ClosureValue;
// R.shape([...]) and R.shape_of(x) as a value (TVM's ShapeTuple).
struct ShapeValue {
  std::vector<int64_t> dims;
};
using Value = std::variant<std::monostate, NDArray, std::shared_ptr<TupleValue>, int64_t, std::shared_ptr<Storage>, ShapeValue,
                           std::shared_ptr<ClosureValue>>;
struct TupleValue {
  std::vector<Value> fields;
};
// R.make_closure(cls.f, (captured...)): a function of the executable with the values it captured,
// which R.invoke_closure passes after its own arguments (TVM's VMClosure binds the last arguments).
struct ClosureValue {
  size_t function = 0;
  std::vector<Value> captured;
};

// One span of a device's timeline (VirtualMachine::enableTrace): a kernel, a library call or a copy
// onto the device, in microseconds from the start of the traced calls by that device's clock.
struct TraceSpan {
  std::string name;
  std::string category;  // "kernel", "library", "copy"
  int slot = 0;          // the device whose timeline it is on (a copy: the device whose stream copies)
  double startUs = 0, durationUs = 0;
  int64_t bytes = 0;     // copies
  int destination = -1;  // copies: the slot copied to
};

struct RunStats {
  std::vector<double> kernelSeconds;   // per device slot, by that device's events
  std::vector<int64_t> kernelCalls;    // per device slot
  int64_t bytesCopied = 0;             // between devices by to_device
  double copySeconds = 0;              // their time, by the destination device's events
  int64_t copies = 0;
  int64_t inputBytesPlaced = 0;        // inputs copied onto their parameter's device
  int64_t instructions = 0;
  int64_t graphRecordings = 0;         // CUDA graphs recorded (runtime/graph_capture.h)
  int64_t graphReplays = 0;            // calls run as a replay of one
};

class VirtualMachine {
 public:
  // `devices[i]` serves slot i; the VM checks their count against the executable.
  VirtualMachine(const Executable& exe, std::vector<std::shared_ptr<DeviceAPI>> devices);
  // Gives back the events it still holds: the trace's origins, and those of a call that threw.
  ~VirtualMachine();
  VirtualMachine(const VirtualMachine&) = delete;
  VirtualMachine& operator=(const VirtualMachine&) = delete;
  // Runs `function`. Inputs may live anywhere: each is checked against its ParamSpec (a clear error
  // naming the parameter) and copied onto its parameter's slot when it is elsewhere.
  Value invoke(const std::string& function, std::vector<Value> inputs);
  // `inputs` with each tensor already on its parameter's slot (tuples field by field), copied there
  // once: a caller that calls `function` again and again (--repeat, a benchmark) passes these, and
  // invoke copies nothing. The bytes copied are added to `*placedBytes`.
  std::vector<Value> placeInputs(const std::string& function, std::vector<Value> inputs, int64_t* placedBytes);
  // `repeat` calls of `function` on `placed` (placeInputs' result), each waited for on every device:
  // their wall times in milliseconds (what `tvms run --repeat` and the C API's benchmark report).
  std::vector<double> timedCalls(const std::string& function, const std::vector<Value>& placed, int64_t repeat);
  const RunStats& stats() const { return stats_; }
  // CUDA graphs (runtime/graph_capture.h): the executable's mode unless set. Off runs every call
  // kernel by kernel.
  void setGraphMode(GraphMode mode) { graphMode_ = mode; }
  GraphMode graphMode() const { return graphMode_; }
  // What became of `function`'s recording ("recorded: 24 kernels in one graph, replayed 99 times",
  // "not recorded: it copies between devices"); "" when it was never considered.
  std::string graphNote(const std::string& function) const;
  // Whether a call of `function` may be recorded (after one call: its bytecode and device were
  // looked at then), i.e. graphs are on and nothing in it or its device rules recording out.
  bool mayRecord(const std::string& function) const;
  // Events around each kernel and library call (stats().kernelSeconds): on unless turned off. A
  // replayed graph is timed as one span either way.
  void setKernelTiming(bool on) { kernelTiming_ = on; }
  // Keep every kernel, library call and copy as a span of its device's timeline from now on.
  void enableTrace() { tracing_ = true; }
  void disableTrace() { tracing_ = false; }  // the spans so far are kept
  const std::vector<TraceSpan>& trace() const { return trace_; }
  DeviceAPI& device(int slot) { return *devices_.at(slot); }
  // Where R.print writes (standard output unless set; the caller keeps the stream alive).
  void setPrintStream(std::ostream& out) { printTo_ = &out; }
  // A copy of `a` on `slot`.
  NDArray toDevice(const NDArray& a, int slot, int64_t* counter = nullptr);
  // A host tensor (slot -1 means host memory owned by a CPU device of its own).
  NDArray hostCopy(const NDArray& a);

 private:
  // How deep calls between the module's functions may nest (each level is a frame of run()).
  static constexpr int kMaxCallDepth = 1000;
  int callDepth_ = 0;
  Value run(const VMFunction& f, std::vector<Value> args);
  // A call from `caller`: of the function a[0] with registers a[1...] (CallFunc), or of `closure`'s
  // function with those and then what it captured (InvokeClosure); nested at most kMaxCallDepth deep.
  [[gnu::noinline]] Value callFunction(const VMFunction& caller, const std::vector<int64_t>& a, const std::vector<Value>& r, const ClosureValue* closure);
  [[gnu::noinline]] std::vector<Value> callArguments(const std::vector<int64_t>& a, const std::vector<Value>& r, const ClosureValue* closure);
  [[gnu::noinline]] Value makeClosure(const std::vector<int64_t>& a, const std::vector<Value>& r);
  [[noreturn, gnu::noinline, gnu::cold]] void badCall(const VMFunction& caller, const VMFunction& callee, size_t given);
  const ClosureValue* closureIn(const Value& v, const VMFunction& f);
  void callKernel(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::vector<int64_t>& heap);
  void callLibrary(const std::vector<int64_t>& a, const std::vector<Value>& r);
  // R.print / R.assert_op: the values of registers a[from...] as text, formatted by string `format`.
  std::string formatted(int64_t format, const std::vector<int64_t>& a, size_t from, const std::vector<Value>& r, const char* joiner);
  std::string valueText(const Value& v);
  [[gnu::noinline]] void bindArguments(const VMFunction& f, std::vector<Value>& args, std::vector<Value>& r, std::vector<int64_t>& heap);
  [[gnu::noinline]] Value makeShape(const std::vector<int64_t>& a, const std::vector<int64_t>& heap);
  [[gnu::noinline]] Value shapeToTensor(const Value& shape, int slot);
  [[gnu::noinline]] Value tensorToShape(const Value& tensor);
  [[gnu::noinline]] void shapeDims(const std::vector<int64_t>& a, const std::vector<Value>& r, std::vector<int64_t>& heap);
  [[gnu::noinline]] void printValues(const std::vector<int64_t>& a, const std::vector<Value>& r);
  [[gnu::noinline]] void assertTrue(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::string& fn);
  void checkDims(const std::vector<int64_t>& a, const std::vector<int64_t>& heap);
  struct ComputedDim {
    const ParamSpec* param;
    const ParamSpec::Dim* dim;
    int64_t got;
  };
  void place(const ParamSpec& p, Value& v, int64_t* placedBytes);
  Value view(const std::vector<int64_t>& a, const std::vector<Value>& r, const std::vector<int64_t>& heap);
  void bindParam(const ParamSpec& p, Value& v, std::vector<int64_t>& heap, const std::string& fn, std::vector<ComputedDim>& computed);
  std::ostream* printTo_;
  const void* resolve(size_t kernel, int slot);
  void collectTimings();  // adds the device-measured times of finished kernel calls to stats_
  const Executable& exe_;
  std::vector<std::shared_ptr<DeviceAPI>> devices_;
  std::shared_ptr<DeviceAPI> host_;
  std::vector<std::map<std::string, std::unique_ptr<KernelLauncher>>> launchers_;  // per slot, per target kind
  std::vector<const void*> resolved_;  // kernel * slots + slot -> its handle on that slot (null: not yet)
  std::vector<LibraryFunction> libraryFunctions_;  // exe.libraryFunctions, found at construction
  std::vector<LibraryCall> libraryCalls_;          // ... and their attributes, read then
  struct Timing {
    int slot;
    Event begin, end;
    const std::string* name;
    const char* category;
    int64_t bytes;
    bool endOwned = true;  // false: `end` belongs to a PendingWork of inFlight_
    int destination = -1;  // copies
  };
  // Copies between the host and a device still in flight, and the storages marked pending by them.
  struct InFlightCopy {
    std::shared_ptr<PendingWork> work;
    std::vector<std::shared_ptr<Storage>> touched;
  };
  std::vector<InFlightCopy> inFlight_;
  void settleCopies();
  void awaitCopies(DeviceAPI& device, const NDArray& t);
  std::vector<Timing> timings_;
  bool tracing_ = false;
  std::vector<Event> traceBase_;  // per slot: the event the trace's times count from
  std::vector<double> traceOffsetSeconds_;  // per slot: host time from slot 0's base event to this one's
  std::vector<TraceSpan> trace_;
  std::deque<std::string> copyLabels_;  // names of traced copies (stable addresses for Timing::name)
  void traceOrigin();
  std::vector<void*> buffers_;
  std::vector<int64_t> dims_;
  std::vector<std::vector<NDArray>> constants_;  // per constant, per slot (made on first use)
  RunStats stats_;
  bool kernelTiming_ = true;
  // CUDA graphs (vm_graphs.cpp). Declared after devices_: recordings are destroyed before the
  // devices whose memory they hold.
  GraphMode graphMode_ = GraphMode::Auto;
  bool recording_ = false;  // a device is capturing: no events, no host waits
  std::map<const VMFunction*, std::unique_ptr<FunctionGraphs>> graphs_;
  // The call run as a replay of its recording; nullopt: run it kernel by kernel (first call for
  // these shapes, traced, not recordable, or recording failed). Places `inputs` on their slots.
  std::optional<Value> invokeRecorded(const VMFunction& f, std::vector<Value>& inputs);
  // Records `f` on `inputs` (`leaves`: their tensors and integers, tuples flattened) into `shapes`;
  // false (with shapes.failed set) when the device could not record it.
  [[gnu::noinline]] bool record(const VMFunction& f, int slot, FunctionGraphs::PerShapes& shapes, const std::vector<Value>& inputs,
                                const std::vector<const Value*>& leaves);
  Value replay(RecordedCall& call, const std::vector<const Value*>& leaves, int slot);
  Value copyOut(const Value& v, int slot);
};

// Which device serves a slot: its own kind and index, or what `remap` says for its spelling: "cpu",
// or "KIND:INDEX" ("cuda:1" -> "cuda:0" puts both cuda vdevices on GPU 0, each with its own stream).
struct DeviceChoice {
  std::string kind;
  int index = 0;
};
DeviceChoice deviceFor(const DeviceSlot& slot, const std::map<std::string, std::string>& remap);
// A --device target: "cpu" (an llvm device), "KIND" (index `index`) or "KIND:INDEX"; nullopt when
// it is none of those or names a kind no device is registered for.
std::optional<DeviceChoice> parseDevice(const std::string& spelling, int index = 0);

// Devices for an executable on this machine: CPU slots get CPU devices; `remap` maps a spelling
// ("cuda:0") to "cpu" for testing without the device, or to another device ("cuda:1" -> "cuda:0").
// Throws naming a vdevice whose device is missing.
std::vector<std::shared_ptr<DeviceAPI>> openDevices(const Executable& exe, const std::map<std::string, std::string>& remap);

}  // namespace tvms::runtime
