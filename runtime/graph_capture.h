#pragma once
// CUDA graphs in the VM (TVM's relax.backend.use_cuda_graph, torch.compile's "reduce-overhead"): a
// function whose work all runs on one device that can record it (DeviceAPI::canCapture) is run
// normally on its first call for a set of input shapes, recorded on the second (its kernels, library
// calls and allocations, captured from the device's stream) and replayed after: one launch instead of
// one per kernel, and no VM dispatch per call.
//
// What a replay must keep true, and how:
// - The recorded kernels name addresses. Memory allocated while recording belongs to the recording
//   (DeviceAPI::beginCapture). An input is recorded at its own address and kept alive by the
//   recording; when a later call brings that input at another address, the input is "staged": the
//   function is recorded again reading a buffer of the recording's own, into which each call copies
//   the input first (so weights passed at the same address each call cost nothing, and an activation
//   that is a new tensor each call costs one device copy).
// - The results are copied out of the recording's memory into fresh tensors after each replay, so a
//   result the caller still holds is never overwritten by the next call.
// - Each set of input shapes (and integer inputs) has its own recording: a shape change records again.
// A function that copies between devices, reads values on the host (data-dependent shapes, R.If on a
// tensor, R.print, R.assert_op), or calls another function is not recorded (captureBlocker says why).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/executable.h"

namespace tvms::runtime {

// Why `f`'s work cannot be recorded as one device's work ("" when it can); `*slot` is the device slot
// its tensors are on (-1 when it has none). Read from the bytecode alone: the devices are not asked.
std::string captureBlocker(const VMFunction& f, int* slot);

// One recording of a function for one set of input shapes.
struct RecordedCall {
  std::unique_ptr<CapturedWork> work;  // first member, so destroyed last: it owns the addresses below
  std::vector<const void*> addresses;  // per input leaf (tuples flattened): the address recorded
  std::vector<std::shared_ptr<Storage>> staging;  // per leaf: the recording's own copy of a staged input, else null
  std::vector<std::shared_ptr<Storage>> kept;     // the inputs recorded at their own address, kept alive
  std::shared_ptr<void> output;  // the result at the recording's addresses (a Value, type-erased)
  int64_t kernels = 0;           // kernel and library calls one replay runs
};

// The recordings of one function.
struct FunctionGraphs {
  bool analysed = false;
  std::string blocker;  // captureBlocker's answer, or the device's refusal
  int slot = -1;
  bool deviceRecords = false;  // its device (or, when it has none, some device of the VM) can record
  struct PerShapes {
    int64_t calls = 0;            // calls run without a recording (the first, and traced ones)
    std::set<size_t> staged;      // input leaves copied into the recording's buffers
    std::unique_ptr<RecordedCall> recorded;
    std::string failed;           // why recording failed: this set of shapes runs unrecorded
  };
  std::map<std::vector<int64_t>, PerShapes> byShapes;
  std::string note;              // what happened, for the run report
  int64_t replays = 0;
};

// More input shapes than this and a function's further shapes run unrecorded (each recording holds
// the memory of a call).
constexpr size_t kMaxRecordingsPerFunction = 8;

// Whether a recording pays for itself in auto mode: a replay saves each call's launch and dispatch
// (a few microseconds of host time per kernel) but copies the results out of the graph's memory
// (at device-copy speed). One large elementwise kernel would get slower; a layer of a dozen calls
// with a few MB of result gets faster. "" when it pays, else why not.
std::string recordingCost(int64_t calls, int64_t resultBytes);

}  // namespace tvms::runtime
