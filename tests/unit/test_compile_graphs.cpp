// CUDA graphs (runtime/graph_capture.h): which functions the VM can record, and a recorded
// function's results against an unrecorded run's over several calls, new input addresses and a
// change of input shape. On the CPU the same calls run unrecorded (a CPU device records nothing) and
// the report says so; with TVMS_TEST_TARGET=cuda (the gpu suites) they are recorded and replayed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/graph_capture.h"
#include "runtime/repeated_run.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

using namespace tvms;

namespace {

bool onGpu() {
  const char* target = std::getenv("TVMS_TEST_TARGET");
  return target && std::string(target) == "cuda";
}

runtime::Executable built(const std::string& text, bool compileKernels = true) {
  test::Lowered lowered = test::lower(text);
  driver::BuildOptions options = test::testOptions();
  options.compileKernels = compileKernels;
  driver::BuildResult b = driver::build(lowered.module(), options);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.exe);
  return std::move(*b.exe);
}

std::string blockerOfMain(const std::string& text, int* slot) {
  runtime::Executable exe = built(text, false);
  return runtime::captureBlocker(exe.functionNamed("main"), slot);
}

const std::string kHead = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n";

}  // namespace

TEST_CASE("cuda graphs: a function is recordable when one device runs all its work and the host never waits") {
  int slot = -2;
  std::string t = test::T("(4, 4)");
  CHECK(blockerOfMain(test::module("x: " + t, t, "        y = R.nn.relu(x)\n        z = R.add(y, x)\n        return z\n"), &slot) == "");
  CHECK(slot == 0);
  CHECK(blockerOfMain(test::module("x: " + t, t, "        y = R.nn.relu(x)\n        p = R.print(y, format=\"{}\")\n        return y\n"), &slot) ==
        "it prints (R.print)");
  CHECK(blockerOfMain(test::module("x: " + t, t,
                                   "        cls = Module\n        y = R.add(x, x)\n        z = cls.helper(y)\n        return z\n\n"
                                   "    @R.function\n    def helper(a: " + t + ") -> " + t + ":\n        b = R.nn.relu(a)\n        return b\n"),
                      &slot) == "it calls another function of the module");
  CHECK(blockerOfMain(kHead + "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\", 0), I.vdevice(\"llvm\", 1)]})\n\n"
                              "    @R.function\n    def main(x: R.Tensor((4,), \"float32\", \"llvm:0\")) -> R.Tensor((4,), \"float32\", \"llvm:1\"):\n"
                              "        y = R.add(x, x)\n        z = R.to_vdevice(y, \"llvm:1\")\n        return z\n",
                      &slot) == "it copies between devices (R.to_vdevice)");
  CHECK(blockerOfMain(test::module("x: " + t, t, "        return x\n"), &slot) == "it runs no kernel");
}

TEST_CASE("compile and run: CUDA graphs: a recorded function gives an unrecorded run's results over calls and new addresses and a shape change") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x4 = h.tensor({4, 16}, rng), x8 = h.tensor({8, 16}, rng), w = h.tensor({16, 16}, rng);
  std::string text = test::module("x: R.Tensor((\"n\", 16), \"float32\"), w: " + test::T("(16, 16)"), "R.Tensor((\"n\", 16), \"float32\")",
                                  "        hm = R.matmul(x, w)\n        r = R.nn.relu(hm)\n        o = R.add(r, x)\n        return o\n");
  runtime::Executable exe = built(text);
  // The reference: every call kernel by kernel.
  runtime::VirtualMachine plain(exe, runtime::openDevices(exe, {}));
  plain.setGraphMode(runtime::GraphMode::Off);
  auto want4 = test::hostOutputs(plain, plain.invoke("main", {x4, w}));
  auto want8 = test::hostOutputs(plain, plain.invoke("main", {x8, w}));
  CHECK(plain.stats().graphReplays == 0);
  CHECK(plain.graphNote("main") == "");

  runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
  vm.setGraphMode(runtime::GraphMode::On);
  int64_t placed = 0;
  auto resident4 = vm.placeInputs("main", {x4, w}, &placed);
  auto resident8 = vm.placeInputs("main", {x8, w}, &placed);
  std::vector<runtime::Value> host4{x4, w};
  // n = 4 three times (run, recorded, replayed), n = 8 three times, n = 4 twice more (replays of the
  // first recording), then host inputs placed anew on each call (at new addresses: recorded again
  // with both inputs staged, then replayed).
  struct Call {
    const std::vector<runtime::Value>* inputs;
    const std::vector<runtime::NDArray>* want;
  };
  std::vector<Call> calls{{&resident4, &want4}, {&resident4, &want4}, {&resident4, &want4}, {&resident8, &want8}, {&resident8, &want8},
                          {&resident8, &want8}, {&resident4, &want4}, {&resident4, &want4}, {&host4, &want4},     {&host4, &want4}};
  for (size_t c = 0; c < calls.size(); ++c) {
    INFO("call " << c + 1 << ": " << vm.graphNote("main"));
    auto got = test::hostOutputs(vm, vm.invoke("main", *calls[c].inputs));
    REQUIRE(got.size() == 1);
    test::checkSame(got[0], (*calls[c].want)[0], 1e-6);
  }
  CHECK(vm.mayRecord("main") == onGpu());  // what `tvms run --repeat` asks before its untimed recording call
  CHECK(!plain.mayRecord("main"));          // graphs off
  if (onGpu()) {
    CHECK(vm.stats().graphRecordings == 3);
    CHECK(vm.stats().graphReplays == 8);
    CHECK(vm.graphNote("main").find("2 inputs copied in per call") != std::string::npos);
  } else {
    CHECK(vm.stats().graphReplays == 0);
    CHECK(vm.graphNote("main") == "not recorded: its device (cpu:0) does not record work for replay");
  }
}

TEST_CASE("cuda graphs: the build's choice travels in the artifact") {
  std::string t = test::T("(4,)");
  runtime::Executable exe = built(test::module("x: " + t, t, "        y = R.nn.relu(x)\n        return y\n"), false);
  CHECK(exe.graphs == runtime::GraphMode::Auto);
  auto path = std::filesystem::temp_directory_path() / ("tvms_graphs_" + std::to_string(::getpid()) + ".tvmx");
  for (runtime::GraphMode mode : {runtime::GraphMode::On, runtime::GraphMode::Off, runtime::GraphMode::Auto}) {
    exe.graphs = mode;
    runtime::saveExecutable(exe, path.string());
    CHECK(runtime::loadExecutable(path.string()).graphs == mode);
  }
  std::filesystem::remove(path);
  CHECK(runtime::parseGraphMode("on") == runtime::GraphMode::On);
  CHECK(!runtime::parseGraphMode("yes"));
}

TEST_CASE("compile and run: a repeated run as tvms run makes it: the first call's result, per-call figures over the repeated calls") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 16}, rng), w = h.tensor({16, 16}, rng);
  std::string text = test::module("x: " + test::T("(4, 16)") + ", w: " + test::T("(16, 16)"), test::T("(4, 16)"),
                                  "        hm = R.matmul(x, w)\n        r = R.nn.relu(hm)\n        return r\n");
  runtime::Executable exe = built(text);
  runtime::VirtualMachine reference(exe, runtime::openDevices(exe, {}));
  auto want = test::hostOutputs(reference, reference.invoke("main", {x, w}));
  for (int64_t repeat : {0, 5}) {
    INFO("repeat " << repeat);
    runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
    vm.setGraphMode(runtime::GraphMode::Off);
    runtime::RepeatedRun run = runtime::runRepeated(vm, "main", {x, w}, repeat, false);
    auto got = test::hostOutputs(vm, run.result);
    REQUIRE(got.size() == 1);
    test::checkSame(got[0], want[0], 1e-6);
    CHECK(run.perCallMs.size() == static_cast<size_t>(repeat));
    int64_t kernelsPerCall = reference.stats().kernelCalls.at(0);
    REQUIRE(kernelsPerCall > 0);
    // The first call's kernels alone, or per repeated call (the first call and any recording call left out).
    CHECK(run.stats.kernelCalls.at(0) == kernelsPerCall);
    // The inputs were placed once for the repeated calls, as placeInputs places them.
    int64_t placed = 0;
    reference.placeInputs("main", {x, w}, &placed);
    CHECK(run.inputBytesPlacedOnce == (repeat ? placed : 0));
    CHECK(run.stats.inputBytesPlaced == (repeat ? 0 : placed));  // the first call places them; a repeated one nothing
  }
  // The arithmetic: differences over the calls.
  runtime::RunStats before, after;
  before.kernelSeconds = {1.0};
  before.kernelCalls = {10};
  after.kernelSeconds = {3.0};
  after.kernelCalls = {30};
  after.bytesCopied = 400;
  after.copies = 4;
  runtime::RunStats per = runtime::perCall(before, after, 4);
  CHECK(per.kernelSeconds[0] == doctest::Approx(0.5));
  CHECK(per.kernelCalls[0] == 5);
  CHECK(per.bytesCopied == 100);
  CHECK(per.copies == 1);
}
