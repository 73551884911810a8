#pragma once
// What `tvms run` reports about one run: each output's placement and a numeric summary (with a
// histogram and a downsampled 2-D preview for editors to draw), time per device, bytes copied.
// Printed as text for people, or as one JSON object (`--format json`) for the language server's
// tvms.run command, which runs `tvms run` in a child process.
#include <ostream>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/vm.h"

namespace tvms::cli {

struct OutputReport {
  std::string name, shape, dtype, vdevice;
  std::vector<int64_t> dims;
  bool numeric = false;  // float outputs get the statistics below
  double min = 0, max = 0, mean = 0;
  std::vector<double> first;            // the first few elements
  std::vector<int64_t> firstIntegers;   // integer and bool outputs: their first few elements
  std::vector<int64_t> histogram;       // kHistogramBins counts over [min, max]
  int64_t previewRows = 0, previewCols = 0;
  std::vector<double> preview;          // row-major previewRows x previewCols means of the last two dims' blocks
  std::string npyPath;                  // where --output wrote it
};

struct DeviceReport {
  int index = 0;
  std::string vdevice, device;
  int64_t kernels = 0;
  double ms = 0;
  int64_t peakBytes = 0;  // the most tensor (and library workspace) bytes held on it at once
};

// Each kernel (or library call) by device, over the traced calls, and each copy between devices.
struct KernelReport {
  int device = 0;
  std::string name;
  int64_t calls = 0;
  double ms = 0;
};
struct CopyReport {
  std::string from, to;  // devices, as the VM names them / the vdevice of the destination slot
  int64_t bytes = 0;
  double ms = 0;
};

struct RunReport {
  std::string entry;
  std::vector<OutputReport> outputs;
  std::vector<DeviceReport> devices;
  std::vector<KernelReport> kernels;  // most time first
  std::vector<CopyReport> copyList;   // in order
  double copyMsTraced = 0, copyMsOverlapped = 0;  // the traced copies' time, and how much of it ran beside a kernel of their device
  int64_t tracedCalls = 0;            // the calls the kernel and copy lists cover
  double compileMs = 0, runMs = 0;
  double codegenMs = 0;  // part of compileMs
  int kernelModulesCached = 0, kernelModulesCompiled = 0;
  int64_t bytesCopied = 0, copies = 0, inputBytesPlaced = 0;
  double copyMs = 0;  // the to_device copies, by the destination device's clock
  // --repeat N: N more calls after the first, each waited for on every device.
  int64_t repeat = 0;
  int64_t inputBytesPlacedOnce = 0;
  std::string graphNote;  // what became of the entry's CUDA graph (VirtualMachine::graphNote); "" when nothing to say  // --repeat: inputs copied onto their devices once, before the repeated calls
  double p50Ms = 0, p90Ms = 0, minMs = 0;
};

// Statistics of a host tensor (the caller copies device tensors to the host first).
OutputReport describeOutput(const std::string& name, const runtime::NDArray& hostTensor, const std::string& vdevice);

// A Chrome / Perfetto trace (chrome://tracing, ui.perfetto.dev): one timeline per device slot with
// its kernels, library calls and the copies onto it. False when the file cannot be written.
bool writeChromeTrace(const std::string& path, const std::vector<runtime::TraceSpan>& spans, const std::vector<std::string>& deviceNames);

// Fills r.kernels and r.copyList from a run's trace; `slotNames` are the vdevices of the slots.
void addSpans(RunReport& r, const std::vector<runtime::TraceSpan>& spans, const std::vector<std::string>& slotNames);

void printText(std::ostream& os, const RunReport& r);
void printJson(std::ostream& os, const RunReport& r);  // includes "text": what printText prints

}  // namespace tvms::cli
