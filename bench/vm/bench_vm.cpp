// bench/vm: the compiled kernels and the VM on this machine, one JSON line per measurement
// (bench/vm/bench_vm.py runs it and numpy in the same run and prints the comparison).
//   add N:       R.add of two float32 vectors of N elements (12 bytes moved per element)
//   matmul N:    float32 N x N @ N x N
//   conv2d:      the seed's conv2d, NHWC 16x32x32x16 by OHWI 32x3x3x16, padding 1
//   dispatch:    a function of 10,000 tiny ops (8-element adds): time per VM instruction
//   build:       Normalize..LowerToVM + JIT of the multi-vdevice example
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/driver/pipeline.h"
#include "compiler/frontend/frontend.h"
#include "runtime/vm.h"

using namespace tvms;
using Clock = std::chrono::steady_clock;

namespace {

struct Compiled {
  std::unique_ptr<syntax::Document> doc;
  runtime::Executable exe;
};

Compiled compile(const std::string& text) {
  Compiled c;
  c.doc = std::make_unique<syntax::Document>(text);
  auto file = frontend::lowerDocument(*c.doc);
  auto r = driver::build(*file.regions.at(0).module, {});
  if (!r.exe) { std::fprintf(stderr, "bench_vm: %s\n", r.errors.empty() ? "build failed" : r.errors[0].c_str()); std::exit(1); }
  c.exe = std::move(*r.exe);
  return c;
}

std::string header() { return "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n"; }

runtime::NDArray tensor(const std::shared_ptr<runtime::DeviceAPI>& dev, std::vector<int64_t> shape) {
  runtime::NDArray a;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(dev, 0, a.bytes());
  for (int64_t i = 0; i < a.numel(); ++i) static_cast<float*>(a.data())[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  return a;
}

// Best of `reps` runs of main, in seconds.
double timeMain(runtime::VirtualMachine& vm, const std::vector<runtime::Value>& in, int reps) {
  vm.invoke("main", in);  // warm-up
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    vm.invoke("main", in);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string example = argc > 1 ? argv[1] : "examples/multi_cpu.py";
  for (int64_t n : {1000000LL, 16000000LL}) {
    std::string ns = std::to_string(n);
    auto c = compile(header() + "    def main(a: R.Tensor((" + ns + ",), \"float32\"), b: R.Tensor((" + ns + ",), \"float32\")) -> R.Tensor((" + ns +
                     ",), \"float32\"):\n        c = R.add(a, b)\n        return c\n");
    auto devs = runtime::openDevices(c.exe, {});
    runtime::VirtualMachine vm(c.exe, devs);
    std::vector<runtime::Value> in{tensor(devs[0], {n}), tensor(devs[0], {n})};
    double s = timeMain(vm, in, n > 4000000 ? 10 : 50);
    std::printf("{\"bench\": \"add\", \"n\": %lld, \"seconds\": %.9f}\n", static_cast<long long>(n), s);
  }
  for (int64_t n : {256LL, 512LL, 1024LL, 2048LL, 4096LL}) {
    std::string ns = std::to_string(n);
    std::string t = "R.Tensor((" + ns + ", " + ns + "), \"float32\")";
    auto c = compile(header() + "    def main(a: " + t + ", b: " + t + ") -> " + t + ":\n        c = R.matmul(a, b)\n        return c\n");
    auto devs = runtime::openDevices(c.exe, {});
    runtime::VirtualMachine vm(c.exe, devs);
    std::vector<runtime::Value> in{tensor(devs[0], {n, n}), tensor(devs[0], {n, n})};
    double s = timeMain(vm, in, n >= 2048 ? 2 : 5);
    std::printf("{\"bench\": \"matmul\", \"n\": %lld, \"seconds\": %.9f}\n", static_cast<long long>(n), s);
  }
  {
    auto c = compile(header() + "    def main(x: R.Tensor((16, 32, 32, 16), \"float32\"), w: R.Tensor((32, 3, 3, 16), \"float32\")) -> "
                                "R.Tensor((16, 32, 32, 32), \"float32\"):\n        y = R.nn.conv2d(x, w, padding=(1, 1), "
                                "data_layout=\"NHWC\", kernel_layout=\"OHWI\")\n        return y\n");
    auto devs = runtime::openDevices(c.exe, {});
    runtime::VirtualMachine vm(c.exe, devs);
    std::vector<runtime::Value> in{tensor(devs[0], {16, 32, 32, 16}), tensor(devs[0], {32, 3, 3, 16})};
    std::printf("{\"bench\": \"conv2d\", \"flops\": %lld, \"seconds\": %.9f}\n", 2LL * 16 * 32 * 32 * 32 * 3 * 3 * 16, timeMain(vm, in, 10));
  }
  {
    std::ostringstream body;
    body << "    def main(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n        v0 = R.add(x, x)\n";
    for (int i = 1; i < 10000; ++i) body << "        v" << i << " = R.add(v" << i - 1 << ", x)\n";
    body << "        return v9999\n";
    auto t0 = Clock::now();
    auto c = compile(header() + body.str());
    double compileSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    auto devs = runtime::openDevices(c.exe, {});
    runtime::VirtualMachine vm(c.exe, devs);
    std::vector<runtime::Value> in{tensor(devs[0], {8})};
    vm.invoke("main", in);
    int64_t before = vm.stats().instructions;
    vm.invoke("main", in);
    int64_t instructions = vm.stats().instructions - before;
    double s = timeMain(vm, in, 20);
    std::printf("{\"bench\": \"dispatch\", \"instructions\": %lld, \"seconds\": %.9f, \"compile_seconds\": %.6f}\n",
                static_cast<long long>(instructions), s, compileSeconds);
  }
  {
    std::ifstream f(example);
    std::stringstream text;
    text << f.rdbuf();
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
      auto t0 = Clock::now();
      compile(text.str());
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::printf("{\"bench\": \"build\", \"file\": \"%s\", \"seconds\": %.6f}\n", example.c_str(), best);
  }
}
