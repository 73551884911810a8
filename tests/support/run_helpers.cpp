#include "tests/support/run_helpers.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "compiler/driver/pipeline.h"
#include "tests/support/corpus.h"

namespace tvms::test {

runtime::NDArray Host::tensor(std::vector<int64_t> shape, std::mt19937& rng, double lo, double hi) {
  runtime::NDArray a;
  a.dtype = runtime::DType::F32;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(device, -1, a.bytes());
  std::uniform_real_distribution<float> u(static_cast<float>(lo), static_cast<float>(hi));
  for (int64_t i = 0; i < a.numel(); ++i) static_cast<float*>(a.data())[i] = u(rng);
  return a;
}

runtime::NDArray Host::ints(std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  runtime::NDArray a;
  a.dtype = runtime::DType::I64;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(device, -1, a.bytes());
  REQUIRE(static_cast<int64_t>(values.size()) == a.numel());
  for (size_t i = 0; i < values.size(); ++i) static_cast<int64_t*>(a.data())[i] = values[i];
  return a;
}

uint32_t freshSeed() {
  if (const char* s = std::getenv("TVMS_TEST_SEED")) return static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
  return std::random_device{}();
}

float at(const runtime::NDArray& a, int64_t i) { return static_cast<const float*>(a.data())[i]; }

double elementAsDouble(const runtime::NDArray& a, int64_t i) {
  const void* p = a.data();
  switch (a.dtype) {
    case runtime::DType::Bool: return static_cast<const uint8_t*>(p)[i] != 0;
    case runtime::DType::I32: return static_cast<const int32_t*>(p)[i];
    case runtime::DType::I64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case runtime::DType::F16: return runtime::halfToFloat(static_cast<const uint16_t*>(p)[i]);
    case runtime::DType::BF16: return runtime::bf16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case runtime::DType::F8E4M3: case runtime::DType::F8E5M2: return runtime::fp8ToFloat(static_cast<const uint8_t*>(p)[i], a.dtype);
    case runtime::DType::F32: return static_cast<const float*>(p)[i];
    case runtime::DType::F64: return static_cast<const double*>(p)[i];
    case runtime::DType::I8: return static_cast<const int8_t*>(p)[i];
    case runtime::DType::U8: return static_cast<const uint8_t*>(p)[i];
    case runtime::DType::I16: return static_cast<const int16_t*>(p)[i];
    case runtime::DType::U16: return static_cast<const uint16_t*>(p)[i];
    case runtime::DType::U32: return static_cast<const uint32_t*>(p)[i];
    case runtime::DType::U64: return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
  }
  return 0;
}

namespace {

// The widest rounding of a dtype's values: what two runs that keep intermediates differently (fused
// against unfused, blocks adding atomically in another order) may differ by.
double roundingOf(runtime::DType t) {
  return t == runtime::DType::F8E5M2 ? 2.5e-1 : t == runtime::DType::F8E4M3 ? 1.25e-1 : t == runtime::DType::BF16 ? 2e-2 : t == runtime::DType::F16 ? 2e-3 : 1e-5;
}

// TVMS_TEST_CUDA_GRAPH=1: main called four more times with CUDA graphs on — recorded on the second
// call (inputs resident on the device), replayed on the third, recorded again on the fourth (the
// host inputs placed anew at other addresses are staged) and replayed on the fifth — gives the first,
// unrecorded call's outputs each time. The summary line at exit says how many modules recorded.
struct GraphTally {
  int modules = 0, recorded = 0;
  std::map<std::string, int> notRecorded;  // why, how many
  ~GraphTally() {
    if (!modules) return;
    std::printf("cuda graphs: %d of %d modules recorded and replayed\n", recorded, modules);
    for (auto& [why, n] : notRecorded) std::printf("  %d %s\n", n, why.c_str());
  }
};
GraphTally graphTally;

void checkRecorded(runtime::VirtualMachine& vm, const std::vector<runtime::Value>& in, const std::vector<runtime::NDArray>& want) {
  vm.setGraphMode(runtime::GraphMode::On);
  int64_t placed = 0;
  std::vector<runtime::Value> resident = vm.placeInputs("main", in, &placed);
  const std::vector<runtime::Value>* calls[] = {&resident, &resident, &in, &in};
  int64_t replaysBefore = vm.stats().graphReplays;
  for (size_t c = 0; c < 4; ++c) {
    std::vector<runtime::NDArray> got = hostOutputs(vm, vm.invoke("main", *calls[c]));
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      INFO("call " << c + 2 << ", output " << i << " (" << vm.graphNote("main") << ")");
      // The same kernels on the same inputs: the same bits, except where blocks add into one output
      // atomically (a split reduction), in whatever order they finish.
      checkSame(got[i], want[i], std::max(1e-4, roundingOf(want[i].dtype)));
    }
  }
  std::string note = vm.graphNote("main");
  ++graphTally.modules;
  if (note.rfind("recorded:", 0) == 0) {
    ++graphTally.recorded;
    CHECK(vm.stats().graphReplays - replaysBefore == 4);
  } else {
    ++graphTally.notRecorded[note];
  }
}

// Builds a lowered module that lint reports no error for (as `tvms build` needs; a warning is
// allowed: tests that want none check codes()) and runs main on `inputs`.
Run buildAndRun(const Lowered& lowered, const std::vector<runtime::NDArray>& inputs, const driver::BuildOptions& options) {
  const auto& remap = options.remap;
  for (auto& d : lowered.file.all()) {
    INFO(diag::codeName(d.code) << ": " << d.message);
    REQUIRE(d.severity != diag::Severity::Error);
  }
  driver::BuildResult b = driver::build(lowered.module(), options);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.exe);
  Run r;
  r.exe = std::move(*b.exe);
  if (const char* target = std::getenv("TVMS_TEST_TARGET"); target && std::string(target) == "cuda") {
    // The GPU run of the op tests: every kernel must have been built for cuda and run there.
    REQUIRE(r.exe.devices.size() == 1);
    REQUIRE(r.exe.devices[0].kind == "cuda");
    for (auto& k : r.exe.kernels) REQUIRE(k.kind == "cuda");
  }
  r.allocations = b.storageAllocations;
  r.reuses = b.storageReuses;
  runtime::VirtualMachine vm(r.exe, runtime::openDevices(r.exe, remap));
  std::vector<runtime::Value> in(inputs.begin(), inputs.end());
  r.outputs = hostOutputs(vm, vm.invoke("main", in));
  r.stats = vm.stats();  // the first call's (what the tests check)
  if (const char* graphs = std::getenv("TVMS_TEST_CUDA_GRAPH"); graphs && std::string(graphs) == "1") checkRecorded(vm, in, r.outputs);
  return r;
}

// TVMS_TEST_ROUNDTRIP=1: the module printed after LegalizeOps (its kernels as T.prim_func text) is
// read back, built and run on the same inputs; its outputs must equal the original's bit for bit
// (the same loop IR compiles to the same code).
// Both builds unfused: the printed kernels are read back as the user's prim_funcs, which never fuse.
void checkRoundTrip(const Lowered& lowered, const std::vector<runtime::NDArray>& inputs, driver::BuildOptions options) {
  options.fuse = false;
  std::vector<runtime::NDArray> want = buildAndRun(lowered, inputs, options).outputs;
  std::string printed = printedAfterLegalizeOps(lowered.module(), options);
  INFO("printed after LegalizeOps:\n" << printed);
  Run again = buildAndRun(lower(printed), inputs, options);
  REQUIRE(again.outputs.size() == want.size());
  // Blocks that add into one output atomically (a split reduction on the GPU) add in whatever order
  // they finish: the same kernel gives the same value up to that order's rounding, not the same bits.
  if (printed.find("\"atomicAdd\"") != std::string::npos) {
    for (size_t i = 0; i < want.size(); ++i) checkSame(again.outputs[i], want[i], 1e-5);
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    REQUIRE(again.outputs[i].dtype == want[i].dtype);
    REQUIRE(again.outputs[i].shape == want[i].shape);
    const auto* a = static_cast<const unsigned char*>(again.outputs[i].data());
    const auto* b = static_cast<const unsigned char*>(want[i].data());
    size_t bytes = want[i].bytes();
    size_t first = static_cast<size_t>(std::mismatch(a, a + bytes, b).first - a);
    CHECK_MESSAGE(first == bytes, "output " << i << " differs after the round trip, first at byte " << first);
  }
}

// TVMS_TEST_FUSE_CHECK=1: the module built again without fusion gives the same outputs (exactly for
// integers; floats within rounding: a fused kernel keeps its intermediates in registers, at float32
// for 16-bit floats).
void checkUnfused(const Lowered& lowered, const std::vector<runtime::NDArray>& inputs, driver::BuildOptions options, const std::vector<runtime::NDArray>& fused) {
  options.fuse = false;
  Run unfused = buildAndRun(lowered, inputs, options);
  REQUIRE(unfused.outputs.size() == fused.size());
  // The widest rounding of the 16-bit values involved: an unfused kernel stores its 16-bit result
  // before the next reads it (a float32 output cast from a 16-bit sum differs by that rounding).
  double widest = 1e-5;
  for (auto& in : inputs) widest = std::max(widest, roundingOf(in.dtype));
  for (size_t i = 0; i < fused.size(); ++i) checkSame(fused[i], unfused.outputs[i], std::max(widest, roundingOf(fused[i].dtype)));
}

}  // namespace

std::vector<runtime::NDArray> hostOutputs(runtime::VirtualMachine& vm, const runtime::Value& out) {
  std::vector<runtime::NDArray> got;
  if (auto* t = std::get_if<runtime::NDArray>(&out)) got.push_back(vm.hostCopy(*t));
  if (auto* t = std::get_if<std::shared_ptr<runtime::TupleValue>>(&out))
    for (auto& f : (*t)->fields) got.push_back(vm.hostCopy(std::get<runtime::NDArray>(f)));
  return got;
}

driver::BuildOptions testOptions(const std::map<std::string, std::string>& remap) {
  driver::BuildOptions o;
  o.remap = remap;
  if (const char* offload = std::getenv("TVMS_TEST_OFFLOAD")) o.offload = std::string(offload) != "0";
  return o;
}

void checkSame(const runtime::NDArray& got, const runtime::NDArray& want, double tol) {
  REQUIRE(got.dtype == want.dtype);
  REQUIRE(got.shape == want.shape);
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double a = elementAsDouble(got, i), b = elementAsDouble(want, i);
    if (std::isnan(a) && std::isnan(b)) continue;
    worst = std::max(worst, std::isnan(a) != std::isnan(b) ? INFINITY : std::abs(a - b) / std::max(1.0, std::abs(b)));
  }
  CHECK_MESSAGE(worst <= tol, "largest relative difference " << worst);
}

Run compileAndRunWith(const std::string& text, const std::vector<runtime::NDArray>& inputs, const driver::BuildOptions& options) {
  return buildAndRun(lower(text), inputs, options);
}

std::string printedAfterLegalizeOps(const ir::IRModule& m, driver::BuildOptions options) {
  options.compileKernels = false;
  options.stopAfter = "LegalizeOps";
  std::string printed;
  options.afterPass = [&](const std::string& pass, const std::string& text) { if (pass == "LegalizeOps") printed = text; };
  driver::BuildResult b = driver::build(m, options);
  REQUIRE_MESSAGE(!printed.empty(), (b.errors.empty() ? "" : b.errors.front()));
  // The printer writes the imports as comments, as TVM's does; read back, they are the file's imports.
  for (size_t at = 0; (at = printed.find("# from tvm.script", at)) != std::string::npos;) printed.erase(at, 2);
  return printed;
}

Run compileAndRun(const std::string& text, std::vector<runtime::NDArray> inputs, std::map<std::string, std::string> remap) {
  Lowered lowered = lower(text);
  Run r = buildAndRun(lowered, inputs, testOptions(remap));
  if (const char* rt = std::getenv("TVMS_TEST_ROUNDTRIP"); rt && std::string(rt) == "1") checkRoundTrip(lowered, inputs, testOptions(remap));
  if (const char* fc = std::getenv("TVMS_TEST_FUSE_CHECK"); fc && std::string(fc) == "1") checkUnfused(lowered, inputs, testOptions(remap), r.outputs);
  return r;
}

void checkClose(const runtime::NDArray& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  double worst = 0;
  // Any dtype: an integer output compares exactly (tol 0) where a float view of its bits would not.
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(elementAsDouble(got, static_cast<int64_t>(i)) - want[i]) / std::max(1.0, std::abs(want[i])));
  CHECK(worst <= tol);
}

bool libraryEpilogues() {
  const char* target = std::getenv("TVMS_TEST_TARGET");
  const char* offload = std::getenv("TVMS_TEST_OFFLOAD");
  return target && std::string(target) == "cuda" && !(offload && std::string(offload) == "0");
}

std::string module(const std::string& params, const std::string& ret, const std::string& body) {
  const char* target = std::getenv("TVMS_TEST_TARGET");
  std::string vdevices = target && std::string(target) == "cuda" ? "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n" : "";
  return "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n" + vdevices +
         "    @R.function\n    def main(" + params + ") -> " + ret + ":\n" + body;
}

}  // namespace tvms::test
