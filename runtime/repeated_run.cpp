#include "runtime/repeated_run.h"

#include <chrono>

namespace tvms::runtime {

RunStats perCall(const RunStats& before, RunStats st, int64_t calls) {
  double n = static_cast<double>(calls);
  for (size_t i = 0; i < st.kernelSeconds.size(); ++i) {
    st.kernelSeconds[i] = (st.kernelSeconds[i] - before.kernelSeconds[i]) / n;
    st.kernelCalls[i] = (st.kernelCalls[i] - before.kernelCalls[i]) / calls;
  }
  st.copySeconds = (st.copySeconds - before.copySeconds) / n;
  st.bytesCopied = (st.bytesCopied - before.bytesCopied) / calls;
  st.copies = (st.copies - before.copies) / calls;
  st.inputBytesPlaced = (st.inputBytesPlaced - before.inputBytesPlaced) / calls;
  return st;
}

RepeatedRun runRepeated(VirtualMachine& vm, const std::string& entry, std::vector<Value> inputs, int64_t repeat, bool traceRepeated) {
  RepeatedRun out;
  std::vector<Value> again = repeat ? inputs : std::vector<Value>{};
  vm.enableTrace();  // per-kernel and per-copy times of the first call
  auto t = std::chrono::steady_clock::now();
  out.result = vm.invoke(entry, std::move(inputs));
  out.firstCallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  if (!repeat) {
    out.stats = vm.stats();
    return out;
  }
  // The repeated calls take their inputs where the function wants them: placed once, here, so a
  // call's time is the module's and not the upload of its weights.
  again = vm.placeInputs(entry, std::move(again), &out.inputBytesPlacedOnce);
  if (!traceRepeated) vm.disableTrace();  // timed without events
  // With CUDA graphs the first untraced call records the function (a few milliseconds, once), before
  // the timed calls, which then replay it (not for a function that cannot be recorded: a CPU
  // module's call would only be run once more).
  if (!traceRepeated && vm.mayRecord(entry)) vm.invoke(entry, again);
  RunStats before = vm.stats();
  out.perCallMs = vm.timedCalls(entry, again, repeat);
  out.stats = perCall(before, vm.stats(), repeat);
  return out;
}

}  // namespace tvms::runtime
