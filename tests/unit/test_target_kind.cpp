// A target kind that only this test binary knows: registered here, in the table
// (runtime/target_kind.h), with its own device factory, and built by the code generator its entry
// names. No other room of tvms is told about it: lint accepts its vdevices, LegalizeOps builds its
// kernels for it, the backend of its code generator compiles them, the VM opens its devices through
// its factory and loads its module blob through its loader.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "compiler/analysis/lint.h"
#include "compiler/codegen/backend.h"
#include "compiler/driver/pipeline.h"
#include "runtime/cpu_module.h"
#include "runtime/device_api.h"
#include "runtime/executable.h"
#include "runtime/target_kind.h"
#include "runtime/vm.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

using namespace tvms;

namespace {

std::atomic<int> devicesOpened{0};

// A CPU-like kind of this binary: its kernels are host code from the LLVM code generator, in a module
// blob of its own kind; `open` makes its devices.
const runtime::TargetKind& registerHostCodeKind(const char* name, std::function<std::unique_ptr<runtime::DeviceAPI>(int)> open) {
  runtime::TargetKind k;
  k.name = name;
  k.dlDeviceType = 12;  // DLPack's kDLExtDev
  k.deviceClass = runtime::DeviceClass::Cpu;
  k.codegen = std::string(runtime::codegens::llvm);
  k.openDevice = [open](int index, const runtime::DeviceOptions&) { return open(index); };
  k.loadModule = runtime::loadCpuModule;
  return runtime::registerTargetKind(std::move(k));
}

// `text` (which must lint clean) built with the default options.
runtime::Executable builtModule(const std::string& text, driver::BuildOptions options = {}) {
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildResult b = driver::build(lowered.module(), options);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.exe);
  return std::move(*b.exe);
}

// "testcpu": a second CPU-like kind whose devices are host devices it counts.
const runtime::TargetKind& testKind() {
  static const runtime::TargetKind& kind = registerHostCodeKind("testcpu", [](int index) -> std::unique_ptr<runtime::DeviceAPI> {
    ++devicesOpened;
    return runtime::makeCpuDevice(index);
  });
  return kind;
}

const char* kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("testcpu", 0), I.vdevice("llvm", 0)]})

    @R.function
    def main(x: R.Tensor((4, 8), "float32", "testcpu:0"), w: R.Tensor((8, 3), "float32", "testcpu:0")) -> R.Tensor((4, 3), "float32", "llvm:0"):
        y: R.Tensor((4, 3), "float32", "testcpu:0") = R.matmul(x, w)
        z: R.Tensor((4, 3), "float32", "testcpu:0") = R.add(y, y)
        out: R.Tensor((4, 3), "float32", "llvm:0") = R.to_vdevice(z, "llvm:0")
        return out
)";

}  // namespace

TEST_CASE("target kinds: a kind registered by this binary alone lints, builds and runs a module") {
  const runtime::TargetKind& kind = testKind();
  CHECK(runtime::findTargetKind("testcpu") == &kind);
  CHECK(runtime::sameKernelFamily("testcpu", "llvm"));  // host code both
  CHECK(codegen::backendFor("testcpu") == codegen::backendFor("llvm"));

  // Lint: a declared kind, so no TVS205 "unknown target kind".
  auto lowered = test::lower(kModule);
  CHECK(lowered.codes().empty());

  // The build: the matmul and add kernels are built for testcpu, in a module blob of that kind.
  driver::BuildOptions o;
  o.buildModules = true;
  driver::BuildResult b = driver::build(lowered.module(), o);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.exe);
  REQUIRE(b.exe->devices.size() == 2);
  CHECK(b.exe->devices[0].kind == "testcpu");
  CHECK(b.exe->devices[0].deviceType == 12);
  bool kernelsForIt = false;
  for (auto& k : b.exe->kernels) kernelsForIt |= k.kind == "testcpu";
  CHECK(kernelsForIt);
  bool blobOfIt = false;
  for (auto& m : b.exe->modules) blobOfIt |= m.kind == "testcpu";
  CHECK(blobOfIt);

  // The run, through the .tvmx path (the module blob loaded by the kind's loader) and on devices its
  // factory opened.
  std::string path = (std::filesystem::temp_directory_path() / ("tvms-testcpu-" + std::to_string(::getpid()) + ".tvmx")).string();
  runtime::saveExecutable(*b.exe, path);
  runtime::Executable exe = runtime::loadExecutable(path);
  std::filesystem::remove(path);
  int before = devicesOpened;
  runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
  CHECK(devicesOpened == before + 1);
  TVMS_FRESH_RNG(rng);
  test::Host host;
  runtime::NDArray x = host.tensor({4, 8}, rng), w = host.tensor({8, 3}, rng);
  runtime::Value out = vm.invoke("main", {x, w});
  runtime::NDArray got = vm.hostCopy(std::get<runtime::NDArray>(out));
  std::vector<double> want(12);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 8; ++k) s += double(test::at(x, i * 8 + k)) * test::at(w, k * 3 + j);
      want[i * 3 + j] = 2 * s;
    }
  test::checkClose(got, want, 1e-5);
}

TEST_CASE("target kinds: the table answers by name, alias and device type, and a name is declared once") {
  const runtime::TargetKind* host = runtime::findTargetKind(runtime::kHostKind);
  REQUIRE(host);
  CHECK(host->isCpu());
  CHECK(runtime::targetKindSpelled("cpu") == host);     // --device X=cpu
  CHECK(runtime::findTargetKind("cpu") == nullptr);     // not a name I.vdevice accepts
  CHECK(runtime::targetKindOfDeviceType(1) == host);    // R.device(1, 0), tvm.cpu()
  CHECK(runtime::targetKindOfDeviceFunction("cpu") == host);
  const runtime::TargetKind* gpu = runtime::targetKindSpelled("gpu");
  REQUIRE(gpu);
  CHECK(gpu->pinsHostMemory);
  CHECK(gpu->offers("tvms.cublas.matmul"));
  CHECK_FALSE(host->offers("tvms.cublas.matmul"));
  CHECK((runtime::findLibraryOffload("tvms.cudnn.conv2d?layout=NCHW") != nullptr));
  CHECK((runtime::findLibraryOffload("tvms.nothing") == nullptr));
  // Known to TVM, not built by tvms: in the table without a code generator or a device.
  const runtime::TargetKind* rocm = runtime::findTargetKind("rocm");
  REQUIRE(rocm);
  CHECK(rocm->dlDeviceType == 10);
  CHECK_FALSE(rocm->openDevice);
  CHECK(codegen::backendFor("rocm") == nullptr);
  runtime::TargetKind again;
  again.name = "twin";
  again.aliases = {"cpu"};
  CHECK_THROWS_AS(runtime::registerTargetKind(again), std::invalid_argument);
}

namespace {

// "slowcopy": a device whose memory the host may not read directly (so the VM's copies to and from it
// are its asynchronous ones) and whose asynchronous copies land 3 ms after they are issued, on a
// thread of their own: a result read before the VM waits for its copy is garbage. Its kernels are host
// code (a CPU device's launcher) that first waits for the uploads queued before them, as a CUDA
// stream waits for the copy stream's event.
struct DelayedEvent {
  std::shared_future<void> done;
};

std::shared_future<void> doneNow() {
  std::promise<void> p;
  p.set_value();
  return p.get_future().share();
}

class SlowCopyDevice : public runtime::DeviceAPI {
 public:
  explicit SlowCopyDevice(int index) : cpu_(runtime::makeCpuDevice(index)) {}
  ~SlowCopyDevice() override { waitForUploads(); }
  std::string name() const override { return "slowcopy:0"; }
  bool hostAccessible() const override { return false; }
  void* alloc(size_t bytes) override { return cpu_->alloc(bytes); }
  void free(void* p) override { cpu_->free(p); }
  void copyFromHost(void* dst, const void* src, size_t bytes, runtime::Stream) override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes, runtime::Stream) override {
    waitForUploads();
    std::memcpy(dst, src, bytes);
  }
  void copyWithin(void* dst, const void* src, size_t bytes, runtime::Stream) override { std::memcpy(dst, src, bytes); }
  CopyEvents copyFromHostAsync(void* dst, const void* src, size_t bytes) override {
    auto done = later(dst, src, bytes);
    uploads_.push_back(done);
    return {new DelayedEvent{doneNow()}, new DelayedEvent{done}};
  }
  CopyEvents copyToHostAsync(void* dst, const void* src, size_t bytes) override {
    waitForUploads();  // after the device's queued work
    return {new DelayedEvent{doneNow()}, new DelayedEvent{later(dst, src, bytes)}};
  }
  runtime::Stream createStream() override { return nullptr; }
  void destroyStream(runtime::Stream) override {}
  void synchronize(runtime::Stream) override { waitForUploads(); }
  runtime::Event recordEvent(runtime::Stream) override { return new DelayedEvent{doneNow()}; }
  void waitEvent(runtime::Stream, runtime::Event e) override { static_cast<DelayedEvent*>(e)->done.wait(); }
  void synchronizeEvent(runtime::Event e) override { static_cast<DelayedEvent*>(e)->done.wait(); }
  double elapsedSeconds(runtime::Event, runtime::Event end) override {
    synchronizeEvent(end);
    return 0;
  }
  void destroyEvent(runtime::Event e) override { delete static_cast<DelayedEvent*>(e); }
  std::unique_ptr<runtime::KernelLauncher> launcher(std::shared_ptr<runtime::KernelLibrary> library) override {
    return std::make_unique<Launcher>(*this, cpu_->launcher(std::move(library)));
  }
  void waitForUploads() {
    for (auto& u : uploads_) u.wait();
    uploads_.clear();
  }
  static inline std::atomic<int> asyncCopies{0};

 private:
  class Launcher : public runtime::KernelLauncher {
   public:
    Launcher(SlowCopyDevice& d, std::unique_ptr<runtime::KernelLauncher> cpu) : device_(d), cpu_(std::move(cpu)) {}
    const void* resolve(const std::string& name) override { return cpu_->resolve(name); }
    int32_t launch(const void* kernel, void* const* buffers, const int64_t* dims) override {
      device_.waitForUploads();
      return cpu_->launch(kernel, buffers, dims);
    }

   private:
    SlowCopyDevice& device_;
    std::unique_ptr<runtime::KernelLauncher> cpu_;
  };
  static std::shared_future<void> later(void* dst, const void* src, size_t bytes) {
    ++asyncCopies;
    return std::async(std::launch::async, [=] {
             std::this_thread::sleep_for(std::chrono::milliseconds(3));
             std::memcpy(dst, src, bytes);
           }).share();
  }
  std::shared_ptr<runtime::DeviceAPI> cpu_;
  std::vector<std::shared_future<void>> uploads_;
};

const runtime::TargetKind& slowCopyKind() {
  static const runtime::TargetKind& kind =
      registerHostCodeKind("slowcopy", [](int index) -> std::unique_ptr<runtime::DeviceAPI> { return std::make_unique<SlowCopyDevice>(index); });
  return kind;
}

}  // namespace

TEST_CASE("target kinds: copies to and from a device overlap the host's work and are waited for by whatever reads what they write") {
  slowCopyKind();
  // Two micro-batches: rows gathered on the host, uploaded, multiplied on the device, downloaded and
  // added to the rows again on the host (a host kernel reading a download's result).
  std::string text = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("slowcopy", 0), I.vdevice("llvm", 0)]})

    @R.function
    def main(x: R.Tensor((64, 32), "float32", "llvm:0"), w: R.Tensor((32, 32), "float32", "slowcopy:0")) -> R.Tensor((64, 32), "float32", "llvm:0"):
        q0 = R.strided_slice(x, axes=[0], begin=[0], end=[32])
        g0 = R.to_vdevice(q0, "slowcopy:0")
        h0 = R.matmul(g0, w)
        o0 = R.to_vdevice(h0, "llvm:0")
        r0 = R.add(o0, q0)
        q1 = R.strided_slice(x, axes=[0], begin=[32], end=[64])
        g1 = R.to_vdevice(q1, "slowcopy:0")
        h1 = R.matmul(g1, w)
        o1 = R.to_vdevice(h1, "llvm:0")
        r1 = R.add(o1, q1)
        out = R.concat((r0, r1), axis=0)
        return out
)";
  runtime::Executable exe = builtModule(text);
  runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
  TVMS_FRESH_RNG(rng);
  test::Host host;
  runtime::NDArray x = host.tensor({64, 32}, rng), w = host.tensor({32, 32}, rng);
  std::vector<double> want(64 * 32);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 32; ++j) {
      double s = test::at(x, i * 32 + j);
      for (int k = 0; k < 32; ++k) s += double(test::at(x, i * 32 + k)) * test::at(w, k * 32 + j);
      want[static_cast<size_t>(i * 32 + j)] = s;
    }
  for (int call = 0; call < 3; ++call) {
    INFO("call " << call + 1);
    int before = SlowCopyDevice::asyncCopies;
    runtime::Value out = vm.invoke("main", {x, w});
    CHECK(SlowCopyDevice::asyncCopies - before == 5);  // w placed, two uploads, two downloads
    test::checkClose(vm.hostCopy(std::get<runtime::NDArray>(out)), want, 1e-5);
  }
}

namespace {

// "recordcpu": a device that records its work as a CUDA device captures its stream: while recording,
// a kernel launch is kept (its buffers and dims) instead of run, memory allocated belongs to the
// recording, and the recording replays the launches. Its memory is the host's, but the VM may not
// read it in place (results come back through its copies), as with a GPU. With `failNext` the next
// recording fails, as a capture does when something in it cannot be captured.
class RecordingCpuDevice : public runtime::DeviceAPI {
 public:
  explicit RecordingCpuDevice(int index) : cpu_(runtime::makeCpuDevice(index)) {}
  std::string name() const override { return "recordcpu:0"; }
  bool hostAccessible() const override { return false; }
  void* alloc(size_t bytes) override {
    void* p = cpu_->alloc(bytes);
    if (recording_) recording_->memory.push_back(p), owned_.insert(p);
    return p;
  }
  void free(void* p) override {
    if (owned_.count(p)) return;                  // the recording frees it
    if (recording_) return recording_->memory.push_back(p);  // the recorded launches may name it
    cpu_->free(p);
  }
  void copyFromHost(void* dst, const void* src, size_t bytes, runtime::Stream) override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes, runtime::Stream) override { std::memcpy(dst, src, bytes); }
  void copyWithin(void* dst, const void* src, size_t bytes, runtime::Stream) override { std::memcpy(dst, src, bytes); }
  runtime::Stream createStream() override { return nullptr; }
  void destroyStream(runtime::Stream) override {}
  void synchronize(runtime::Stream) override {}
  runtime::Event recordEvent(runtime::Stream s) override { return cpu_->recordEvent(s); }
  void waitEvent(runtime::Stream, runtime::Event) override {}
  void synchronizeEvent(runtime::Event) override {}
  double elapsedSeconds(runtime::Event b, runtime::Event e) override { return cpu_->elapsedSeconds(b, e); }
  void destroyEvent(runtime::Event e) override { cpu_->destroyEvent(e); }
  std::unique_ptr<runtime::KernelLauncher> launcher(std::shared_ptr<runtime::KernelLibrary> library) override {
    return std::make_unique<Launcher>(*this, cpu_->launcher(std::move(library)));
  }

  bool canCapture() const override { return true; }
  void beginCapture() override {
    if (refuseBegin) throw std::runtime_error("recordcpu:0 will not record now");
    recording_ = std::make_unique<Recording>(*this);
  }
  std::unique_ptr<runtime::CapturedWork> endCapture() override {
    if (failNext) recording_->why_ = "this recording was told to fail";
    failNext = false;
    return std::move(recording_);
  }
  static inline int launchesRun = 0;  // kernels run, recorded or not
  bool failNext = false;
  bool refuseBegin = false;  // beginCapture throws, as cuStreamBeginCapture may fail
  // Each kernel's buffer and dim counts (a recorded launch copies its arguments), from the bytecode.
  static inline std::map<std::string, std::pair<size_t, size_t>> signatures;
  static void learnSignatures(const runtime::Executable& exe) {
    for (auto& f : exe.functions)
      for (auto& in : f.code)
        if (in.op == runtime::Opcode::CallKernel)
          signatures[exe.kernels.at(static_cast<size_t>(in.args[0])).name] = {static_cast<size_t>(in.args[2]), in.args.size() - 3 - static_cast<size_t>(in.args[2])};
  }

 private:
  struct Launch {
    runtime::KernelLauncher* launcher;
    const void* kernel;
    std::vector<void*> buffers;
    std::vector<int64_t> dims;
  };
  struct Recording : runtime::CapturedWork {
    explicit Recording(RecordingCpuDevice& d) : device(d) {}
    ~Recording() override {
      for (void* p : memory) {
        device.owned_.erase(p);
        device.cpu_->free(p);
      }
    }
    bool ok() const override { return why_.empty(); }
    const std::string& why() const override { return why_; }
    size_t nodes() const override { return launches.size(); }
    void launch() override {
      for (auto& l : launches) REQUIRE(device.run(*l.launcher, l.kernel, l.buffers.data(), l.dims.data()) == 0);
    }
    RecordingCpuDevice& device;
    std::vector<Launch> launches;
    std::vector<void*> memory;
    std::string why_;
  };
  class Launcher : public runtime::KernelLauncher {
   public:
    Launcher(RecordingCpuDevice& d, std::unique_ptr<runtime::KernelLauncher> cpu) : device_(d), cpu_(std::move(cpu)) {}
    const void* resolve(const std::string& name) override {
      const void* handle = cpu_->resolve(name);
      counts_[handle] = signatures.at(name);
      return handle;
    }
    int32_t launch(const void* kernel, void* const* buffers, const int64_t* dims) override {
      if (!device_.recording_) return device_.run(*cpu_, kernel, buffers, dims);
      auto [nBuffers, nDims] = counts_.at(kernel);
      device_.recording_->launches.push_back({cpu_.get(), kernel, std::vector<void*>(buffers, buffers + nBuffers), std::vector<int64_t>(dims, dims + nDims)});
      return 0;
    }

   private:
    RecordingCpuDevice& device_;
    std::unique_ptr<runtime::KernelLauncher> cpu_;
    std::map<const void*, std::pair<size_t, size_t>> counts_;
  };
  int32_t run(runtime::KernelLauncher& l, const void* kernel, void* const* buffers, const int64_t* dims) {
    ++launchesRun;
    return l.launch(kernel, buffers, dims);
  }
  std::shared_ptr<runtime::DeviceAPI> cpu_;
  std::unique_ptr<Recording> recording_;
  std::set<void*> owned_;
};

const runtime::TargetKind& recordingKind() {
  static const runtime::TargetKind& kind =
      registerHostCodeKind("recordcpu", [](int index) -> std::unique_ptr<runtime::DeviceAPI> { return std::make_unique<RecordingCpuDevice>(index); });
  return kind;
}

}  // namespace

TEST_CASE("target kinds: the VM records a function on a device that records and replays it over calls and new addresses and shapes") {
  recordingKind();
  std::string text = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("recordcpu", 0)]})

    @R.function
    def main(x: R.Tensor(("n", 16), "float32", "recordcpu:0"), w: R.Tensor((16, 16), "float32", "recordcpu:0")) -> R.Tuple(R.Tensor(("n", 16), "float32", "recordcpu:0"), R.Tensor((16, 16), "float32", "recordcpu:0")):
        h = R.matmul(x, w)
        r = R.nn.relu(h)
        o = R.add(r, x)
        return (o, w)
)";
  runtime::Executable exe = builtModule(text);
  RecordingCpuDevice::learnSignatures(exe);
  TVMS_FRESH_RNG(rng);
  test::Host host;
  runtime::NDArray x4 = host.tensor({4, 16}, rng), x4b = host.tensor({4, 16}, rng), x8 = host.tensor({8, 16}, rng), w = host.tensor({16, 16}, rng);
  auto want = [&](const runtime::NDArray& x, int64_t n) {
    std::vector<double> out(static_cast<size_t>(n * 16));
    for (int64_t i = 0; i < n; ++i)
      for (int j = 0; j < 16; ++j) {
        double s = 0;
        for (int k = 0; k < 16; ++k) s += double(test::at(x, i * 16 + k)) * test::at(w, k * 16 + j);
        out[static_cast<size_t>(i * 16 + j)] = std::max(0.0, s) + test::at(x, i * 16 + j);
      }
    return out;
  };
  std::vector<double> want4 = want(x4, 4), want4b = want(x4b, 4), want8 = want(x8, 8), wantW(256);
  for (int i = 0; i < 256; ++i) wantW[static_cast<size_t>(i)] = test::at(w, i);

  runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
  vm.setGraphMode(runtime::GraphMode::On);
  CHECK(!vm.mayRecord("main"));  // not known before a call
  int64_t placed = 0;
  auto resident4 = vm.placeInputs("main", {x4, w}, &placed), resident8 = vm.placeInputs("main", {x8, w}, &placed);
  auto resident4b = vm.placeInputs("main", {x4b, resident4[1]}, &placed);  // another x, the same w
  std::vector<runtime::Value> host4{x4, w};
  // n = 4: run, recorded, replayed; n = 8 the same; n = 4 replayed; x at another address (other
  // values): recorded again with x staged, replayed with the first x copied in; then host inputs,
  // placed anew on the call (w at a new address too): recorded again with both staged.
  struct Call {
    const std::vector<runtime::Value>* inputs;
    const std::vector<double>* want;
    bool replayed, recorded;
  };
  std::vector<Call> calls{{&resident4, &want4, false, false}, {&resident4, &want4, true, true},   {&resident4, &want4, true, false},
                          {&resident8, &want8, false, false}, {&resident8, &want8, true, true},   {&resident8, &want8, true, false},
                          {&resident4, &want4, true, false},  {&resident4b, &want4b, true, true}, {&resident4, &want4, true, false},
                          {&host4, &want4, true, true}};
  std::vector<runtime::Value> held;  // every result kept while later calls run: none is overwritten
  for (size_t c = 0; c < calls.size(); ++c) {
    INFO("call " << c + 1 << ": " << vm.graphNote("main"));
    int64_t instructions = vm.stats().instructions, replays = vm.stats().graphReplays, recordings = vm.stats().graphRecordings;
    held.push_back(vm.invoke("main", *calls[c].inputs));
    CHECK((vm.stats().graphReplays - replays == 1) == calls[c].replayed);
    CHECK((vm.stats().graphRecordings - recordings == 1) == calls[c].recorded);
    CHECK(vm.mayRecord("main"));
    if (calls[c].replayed && !calls[c].recorded) CHECK(vm.stats().instructions == instructions);  // a replay runs no bytecode
  }
  for (size_t c = 0; c < calls.size(); ++c) {
    INFO("call " << c + 1);
    auto& fields = std::get<std::shared_ptr<runtime::TupleValue>>(held[c])->fields;
    test::checkClose(vm.hostCopy(std::get<runtime::NDArray>(fields[0])), *calls[c].want, 1e-5);
    test::checkClose(vm.hostCopy(std::get<runtime::NDArray>(fields[1])), wantW, 0);
  }
  CHECK(vm.stats().graphRecordings == 4);
  CHECK(vm.stats().graphReplays == 8);
  CHECK(vm.graphNote("main") ==
        "recorded: 1 kernel and library calls in one CUDA graph of 1 nodes (2 sets of input shapes, 2 inputs copied in per call), replayed 8 times");

  // A recording the device cannot make: the call runs kernel by kernel, and so do later ones of those shapes.
  runtime::VirtualMachine again(exe, runtime::openDevices(exe, {}));
  again.setGraphMode(runtime::GraphMode::On);
  again.invoke("main", resident4);
  static_cast<RecordingCpuDevice&>(again.device(0)).failNext = true;
  for (int c = 0; c < 3; ++c) {
    runtime::Value out = again.invoke("main", resident4);
    auto& fields = std::get<std::shared_ptr<runtime::TupleValue>>(out)->fields;
    test::checkClose(again.hostCopy(std::get<runtime::NDArray>(fields[0])), want4, 1e-5);
  }
  CHECK(again.stats().graphReplays == 0);
  CHECK(again.graphNote("main") == "not recorded: this recording was told to fail");

  // A device that refuses to begin recording: the same.
  runtime::VirtualMachine refused(exe, runtime::openDevices(exe, {}));
  refused.setGraphMode(runtime::GraphMode::On);
  static_cast<RecordingCpuDevice&>(refused.device(0)).refuseBegin = true;
  for (int c = 0; c < 3; ++c) {
    runtime::Value out = refused.invoke("main", resident4);
    auto& fields = std::get<std::shared_ptr<runtime::TupleValue>>(out)->fields;
    test::checkClose(refused.hostCopy(std::get<runtime::NDArray>(fields[0])), want4, 1e-5);
  }
  CHECK(refused.stats().graphReplays == 0);
  CHECK(refused.graphNote("main") == "not recorded: recordcpu:0 will not record now");
}

TEST_CASE("target kinds: in auto mode a function whose results cost more to copy out than its launches save runs unrecorded") {
  CHECK(runtime::recordingCost(12, 8 << 20) == "");  // a layer: a dozen calls, 8 MiB out
  CHECK(runtime::recordingCost(1, 16 << 10) == "");  // a GEMV: one call, a small result
  CHECK(runtime::recordingCost(1, 32 << 20).rfind("replaying 1 kernel and library call would save less than copying its 32 MiB", 0) == 0);
  recordingKind();
  runtime::Executable exe = builtModule(R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("recordcpu", 0)]})

    @R.function
    def main(x: R.Tensor((2048, 2048), "float32", "recordcpu:0")) -> R.Tensor((2048, 2048), "float32", "recordcpu:0"):
        y = R.add(x, x)
        return y
)");
  RecordingCpuDevice::learnSignatures(exe);
  TVMS_FRESH_RNG(rng);
  test::Host host;
  runtime::NDArray x = host.tensor({2048, 2048}, rng);
  for (runtime::GraphMode mode : {runtime::GraphMode::Auto, runtime::GraphMode::On}) {
    runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
    vm.setGraphMode(mode);
    int64_t placed = 0;
    auto resident = vm.placeInputs("main", {x}, &placed);
    for (int c = 0; c < 3; ++c) {
      runtime::NDArray y = vm.hostCopy(std::get<runtime::NDArray>(vm.invoke("main", resident)));
      CHECK(test::at(y, 12345) == 2 * test::at(x, 12345));
    }
    INFO(vm.graphNote("main"));
    if (mode == runtime::GraphMode::Auto) {
      CHECK(vm.stats().graphReplays == 0);
      CHECK(vm.graphNote("main").rfind("not recorded: replaying 1 kernel and library call would save less", 0) == 0);
    } else {
      CHECK(vm.stats().graphReplays == 2);
    }
  }
}
