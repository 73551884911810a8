// Bytes in as the shapes and values a module runs on: the VM's execution of compiled modules on the
// CPU. A handful of modules with symbolic dims (integer division and modulo, reductions, gathers with
// indices out of range, GEMM, softmax, concat, ...) are compiled once per process; each input picks
// one, the value of each dim (zero included) and the bytes of every input tensor (INT_MIN, -1, 0,
// NaN as they come). Whatever the values, a run must return or throw std::runtime_error: never trap
// (SIGFPE), read or write out of bounds, or hang.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/driver/pipeline.h"
#include "compiler/frontend/frontend.h"
#include "compiler/syntax/document.h"
#include "runtime/vm.h"

namespace {

using namespace tvms;

struct Param {
  runtime::DType dtype;
  std::vector<std::string> dims;  // symbolic dim names
};

struct Template {
  std::vector<Param> params;
  std::string body;  // the function's parameters and statements, after "def main("
};

const std::vector<Template>& templates() {
  using D = runtime::DType;
  static const std::vector<Template> t = {
      {{{D::I32, {"n"}}, {D::I32, {"n"}}},
       "x: R.Tensor((\"n\",), \"int32\"), y: R.Tensor((\"n\",), \"int32\")):\n"
       "        a = R.floor_divide(x, y)\n        b = R.floor_mod(x, y)\n        c = R.divide(x, y)\n"
       "        d = R.multiply(a, b)\n        e = R.subtract(c, d)\n        f = R.maximum(e, x)\n        return (a, b, c, f)\n"},
      {{{D::I64, {"n", "m"}}, {D::I64, {"n", "m"}}},
       "x: R.Tensor((\"n\", \"m\"), \"int64\"), y: R.Tensor((\"n\", \"m\"), \"int64\")):\n"
       "        a = R.floor_divide(x, y)\n        b = R.add(a, R.floor_mod(y, x))\n        f = R.astype(b, \"float32\")\n"
       "        s = R.sum(f, axis=[1])\n        mx = R.max(f, axis=[0])\n        c = R.cumsum(y, axis=1)\n        return (s, mx, c)\n"},
      {{{D::F32, {"n", "m"}}, {D::I64, {"k"}}},
       "t: R.Tensor((\"n\", \"m\"), \"float32\"), i: R.Tensor((\"k\",), \"int64\")):\n"
       "        y = R.take(t, i, axis=0)\n        z = R.take(t, i, axis=1, mode=\"wrap\")\n"
       "        w = R.take(t, i, axis=0, mode=\"clip\")\n        return (y, z, w)\n"},
      {{{D::F32, {"n", "m"}}, {D::F32, {"m", "k"}}},
       "x: R.Tensor((\"n\", \"m\"), \"float32\"), y: R.Tensor((\"m\", \"k\"), \"float32\")):\n"
       "        z = R.matmul(x, y)\n        a = R.nn.relu(z)\n        s = R.nn.softmax(a, axis=-1)\n        return s\n"},
      {{{D::I32, {"n", "m"}}},
       "x: R.Tensor((\"n\", \"m\"), \"int32\")):\n"
       "        f = R.astype(x, \"float32\")\n        e = R.exp(f)\n        l = R.less(x, R.const(3, \"int32\"))\n"
       "        w = R.where(l, f, e)\n        am = R.argmax(x, axis=1)\n        t = R.permute_dims(x, [1, 0])\n"
       "        c = R.concat((x, x), axis=0)\n        return (w, am, t, c)\n"},
  };
  return t;
}

// Each template compiled once per process (kernels through the LLVM plugin, as `tvms run` does).
runtime::Executable& compiled(size_t which) {
  static std::map<size_t, std::unique_ptr<runtime::Executable>> done;
  auto& slot = done[which];
  if (!slot) {
    std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                       "    @R.function\n    def main(" + templates()[which].body;
    syntax::Document doc(text);
    auto file = frontend::lowerDocument(doc);
    if (file.regions.empty() || !file.regions[0].module) std::abort();
    driver::BuildResult r = driver::build(*file.regions[0].module, driver::BuildOptions{});
    if (!r.exe) {
      std::fprintf(stderr, "fuzz_vm: template %zu does not compile: %s\n", which, r.errors.empty() ? "?" : r.errors.front().c_str());
      std::abort();  // a harness bug, not a finding
    }
    slot = std::make_unique<runtime::Executable>(std::move(*r.exe));
  }
  return *slot;
}

// Reads fuzzer bytes in order; zeros once they run out.
struct Bytes {
  const uint8_t* data;
  size_t size, at = 0;
  uint8_t next() { return at < size ? data[at++] : 0; }
};

}  // namespace

// libFuzzer calls this once before the first input: every template compiled up front, so no input's
// time (-timeout) pays for code generation. The replay (fuzz/replay_main.cpp) compiles lazily.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (size_t i = 0; i < templates().size(); ++i) compiled(i);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  size_t which = in.next() % templates().size();
  const Template& t = templates()[which];
  runtime::Executable& exe = compiled(which);
  static std::shared_ptr<runtime::DeviceAPI> host = runtime::makeCpuDevice(-1);
  // Dims 0..15, so inputs stay small: the harness allocates them.
  std::map<std::string, int64_t> dims;
  for (auto& p : t.params)
    for (auto& d : p.dims)
      if (!dims.count(d)) dims[d] = in.next() % 16;
  std::vector<runtime::Value> inputs;
  for (auto& p : t.params) {
    runtime::NDArray a;
    a.dtype = p.dtype;
    for (auto& d : p.dims) a.shape.push_back(dims[d]);
    a.storage = std::make_shared<runtime::Storage>(host, -1, a.bytes());
    auto* bytes = static_cast<uint8_t*>(a.data());
    for (size_t i = 0; i < a.bytes(); ++i) bytes[i] = in.next();
    inputs.push_back(a);
  }
  try {
    runtime::VirtualMachine vm(exe, runtime::openDevices(exe, {}));
    runtime::Value out = vm.invoke("main", inputs);
    (void)out;
  } catch (const std::runtime_error&) {
    // refused with a message (a shape the VM checks): what bad values must get
  }
  return 0;
}
