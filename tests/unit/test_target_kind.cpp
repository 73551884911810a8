// A target kind that only this test binary knows: registered here, in the table
// (runtime/target_kind.h), with its own device factory, and built by the code generator its entry
// names. No other room of tvms is told about it: lint accepts its vdevices, LegalizeOps builds its
// kernels for it, the backend of its code generator compiles them, the VM opens its devices through
// its factory and loads its module blob through its loader.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>

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

// "testcpu": a second CPU-like kind. Its devices are host devices it counts; its kernels are host
// code from the LLVM code generator, in a module blob of its own kind.
const runtime::TargetKind& testKind() {
  static const runtime::TargetKind& kind = [] () -> const runtime::TargetKind& {
    runtime::TargetKind k;
    k.name = "testcpu";
    k.dlDeviceType = 12;  // DLPack's kDLExtDev
    k.deviceClass = runtime::DeviceClass::Cpu;
    k.codegen = std::string(runtime::codegens::llvm);
    k.openDevice = [](int index, const runtime::DeviceOptions&) {
      ++devicesOpened;
      return runtime::makeCpuDevice(index);
    };
    k.loadModule = runtime::loadCpuModule;
    return runtime::registerTargetKind(std::move(k));
  }();
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
  CHECK((runtime::findLibraryFunction("tvms.cudnn.conv2d?layout=NCHW") != nullptr));
  CHECK((runtime::findLibraryFunction("tvms.nothing") == nullptr));
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
