#pragma once
// A function run as `tvms run` runs it: one call with every kernel and copy timed (the report's and
// --trace's spans), then, with a repeat count, the same call again with its inputs placed on their
// devices once: an untimed call that records the CUDA graph where one may be recorded, then `repeat`
// calls each waited for on every device. The CLI only reads inputs before and reports after.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/vm.h"

namespace tvms::runtime {

struct RepeatedRun {
  Value result;                    // the first call's
  double firstCallSeconds = 0;     // its wall time (it loads the kernels)
  std::vector<double> perCallMs;   // the repeated calls' wall times, in order
  int64_t inputBytesPlacedOnce = 0;
  // The first call's figures; with repeated calls, per call over those calls (the first left out).
  RunStats stats;
};

// `traceRepeated`: keep the repeated calls' spans too (--trace), instead of timing them without events.
RepeatedRun runRepeated(VirtualMachine& vm, const std::string& entry, std::vector<Value> inputs, int64_t repeat, bool traceRepeated);

// `after - before` over `calls` calls, per call.
RunStats perCall(const RunStats& before, RunStats after, int64_t calls);

}  // namespace tvms::runtime
