// Fusion (FuseOps + FuseTIR) end to end: each module is built fused and unfused (--no-fuse) and run
// on the same fresh random inputs; the outputs must agree and the fused build must run the number of
// kernels its groups give. One module per family: elementwise and broadcast chains, injective
// prologues of reductions (scale -> softmax, exp -> sum, transpose -> mean), a norm's elementwise
// epilogue, a GEMM's bias and activation, integers; and what must not fuse: a value used twice, two
// vdevices.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "compiler/driver/pass_list.h"
#include "compiler/ir/printer.h"
#include "compiler/tir/rewrite.h"
#include "compiler/transform/fuse.h"
#include "compiler/transform/passes.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::module;
using test::T;

struct Both {
  test::Run fused, unfused;
};

// Built both ways; outputs compared (floats within rounding: a fused kernel keeps intermediates in registers).
Both fusedAndUnfused(const std::string& text, const std::vector<runtime::NDArray>& inputs, double tol = 1e-5) {
  driver::BuildOptions on = test::testOptions(), off = test::testOptions();
  off.fuse = false;
  Both b{test::compileAndRunWith(text, inputs, on), test::compileAndRunWith(text, inputs, off)};
  REQUIRE(b.fused.outputs.size() == b.unfused.outputs.size());
  for (size_t i = 0; i < b.fused.outputs.size(); ++i) {
    INFO("output " << i);
    test::checkSame(b.fused.outputs[i], b.unfused.outputs[i], tol);
  }
  return b;
}

int64_t kernelCalls(const test::Run& r) {
  int64_t n = 0;
  for (int64_t c : r.stats.kernelCalls) n += c;
  return n;
}

std::string printedAfter(const std::string& text, const std::string& pass) {
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o = test::testOptions();
  o.compileKernels = false;
  o.stopAfter = pass;
  std::string printed;
  o.afterPass = [&](const std::string& p, const std::string& t) { if (p == pass) printed = t; };
  driver::BuildResult b = driver::build(lowered.module(), o);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(!printed.empty());
  return printed;
}

// A module with one cuda vdevice, up to main's `def`.
const std::string kCudaMain =
    "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
    "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n"
    "    @R.function\n";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("compile and run: fusion of an elementwise and broadcast chain into one kernel") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({33, 128}, rng), bias = h.tensor({128}, rng);
  std::string text = module("x: " + T("(33, 128)") + ", bias: " + T("(128,)"), T("(33, 128)"),
                            "        a = R.add(x, bias)\n        b = R.multiply(a, R.const(2.0, \"float32\"))\n"
                            "        c = R.tanh(b)\n        d = R.subtract(c, x)\n        e = R.nn.relu(d)\n        return e\n");
  Both b = fusedAndUnfused(text, {x, bias});
  CHECK(kernelCalls(b.fused) == 1);
  CHECK(kernelCalls(b.unfused) == 5);
  std::string fused = printedAfter(text, "FuseTIR");
  CHECK(fused.find("def fused_add_multiply_tanh_subtract_nn_relu(") != std::string::npos);
  CHECK(count(fused, "@T.prim_func") == 1);  // the members' kernels went with the calls of them
  std::string groups = printedAfter(text, "FuseOps");
  CHECK(groups.find("R.func_attr({\"Primitive\": True})") != std::string::npos);
  CHECK(groups.find("= cls.fused_add_multiply_tanh_subtract_nn_relu(\n            x, bias\n        )") != std::string::npos);
}

TEST_CASE("compile and run: fusion of injective prologues into reductions (scale -> softmax, exp -> sum, transpose -> mean)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({48, 40}, rng, -2, 2);
  std::string text = module("x: " + T("(48, 40)"), "R.Tuple(" + T("(48, 40)") + ", " + T("(48,)") + ", " + T("(48,)") + ")",
                            "        s = R.multiply(x, R.const(0.125, \"float32\"))\n        p = R.nn.softmax(s, axis=-1)\n"
                            "        t = R.exp(x)\n        m = R.sum(t, axis=[1])\n"
                            "        u = R.permute_dims(x)\n        v = R.mean(u, axis=[0])\n        return (p, m, v)\n");
  Both b = fusedAndUnfused(text, {x});
  CHECK(kernelCalls(b.fused) == 3);
  CHECK(kernelCalls(b.unfused) == 6);
}

TEST_CASE("compile and run: fusion of a norm with its elementwise epilogue and prologue (add, layer_norm, scale, SiLU, residual, ReLU)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({64, 96}, rng), y = h.tensor({64, 96}, rng), g = h.tensor({96}, rng), beta = h.tensor({96}, rng);
  std::string text = module("x: " + T("(64, 96)") + ", y: " + T("(64, 96)") + ", g: " + T("(96,)") + ", beta: " + T("(96,)"), T("(64, 96)"),
                            "        a = R.add(x, y)\n        n = R.nn.layer_norm(a, g, beta, axes=[-1])\n"
                            "        s = R.multiply(n, R.const(0.5, \"float32\"))\n        t = R.nn.silu(s)\n"
                            "        r = R.add(t, x)\n        o = R.nn.relu(r)\n        return o\n");
  Both b = fusedAndUnfused(text, {x, y, g, beta});
  CHECK(kernelCalls(b.fused) == 1);
  CHECK(kernelCalls(b.unfused) == 6);
  // SiLU reads the norm's value twice: computed once per element into a temporary.
  std::string fused = printedAfter(text, "FuseTIR");
  CHECK(fused.find("def fused_add_nn_layer_norm_multiply_nn_silu_add_nn_relu(") != std::string::npos);
  CHECK(fused.find("T.decl_scalar(\"float32\")") != std::string::npos);
  // On a CPU the loop that stores through the temporary is still vectorized.
  if (!std::getenv("TVMS_TEST_TARGET")) CHECK(fused.find("for k3 in T.vectorized(96):") != std::string::npos);
}

TEST_CASE("compile and run: fusion after a matmul (bias and GELU), rms_norm with a cast, and integers") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({16, 64}, rng), w = h.tensor({64, 48}, rng), bias = h.tensor({48}, rng);
  auto i = h.ints({4, 5}, {1, -2, 3, 4, 5, 6, -7, 8, 9, 10, 11, 12, 13, -14, 15, 16, 17, 18, 19, 20});
  std::string text = module("x: " + T("(16, 64)") + ", w: " + T("(64, 48)") + ", bias: " + T("(48,)") + ", i: R.Tensor((4, 5), \"int64\")",
                            "R.Tuple(" + T("(16, 48)") + ", R.Tensor((16, 48), \"float64\"), R.Tensor((4, 5), \"int64\"))",
                            "        m = R.matmul(x, w)\n        a = R.add(m, bias)\n        g = R.nn.gelu(a)\n"
                            "        n = R.nn.rms_norm(g, bias, axes=[-1])\n        c = R.astype(n, \"float64\")\n"
                            "        j = R.multiply(i, i)\n        k = R.add(j, i)\n        return (g, c, k)\n");
  Both b = fusedAndUnfused(text, {x, w, bias, i});
  // The matmul stays a GEMM (or a library call); the bias and GELU run as one kernel, the norm and
  // its cast as another, the integers as a third. On cuda with offload, cuBLASLt's epilogue takes the
  // bias in both builds, and GELU (exact, not its tanh form) is a kernel of its own.
  CHECK(kernelCalls(b.fused) < kernelCalls(b.unfused));
  CHECK(kernelCalls(b.unfused) - kernelCalls(b.fused) >= (test::libraryEpilogues() ? 2 : 3));
}

TEST_CASE("compile and run: fusion leaves a value used twice, and never joins two vdevices (two CPU vdevices)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({8, 32}, rng);
  std::string twice = module("x: " + T("(8, 32)"), T("(8, 32)"),
                             "        a = R.exp(x)\n        b = R.multiply(a, a)\n        c = R.add(b, a)\n        return c\n");
  Both b = fusedAndUnfused(twice, {x});
  CHECK(kernelCalls(b.fused) == 2);  // a is read by two calls: it is made once; b and c fuse
  std::string two =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\", 0), I.vdevice(\"llvm\", 1)]})\n\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((8, 32), \"float32\", \"llvm:0\")) -> R.Tensor((8, 32), \"float32\", \"llvm:1\"):\n"
      "        a: R.Tensor((8, 32), \"float32\", \"llvm:0\") = R.exp(x)\n"
      "        b: R.Tensor((8, 32), \"float32\", \"llvm:1\") = R.to_vdevice(a, \"llvm:1\")\n"
      "        c: R.Tensor((8, 32), \"float32\", \"llvm:1\") = R.nn.relu(b)\n"
      "        d: R.Tensor((8, 32), \"float32\", \"llvm:1\") = R.multiply(c, b)\n"
      "        return d\n";
  Both split = fusedAndUnfused(two, {x});
  // exp on llvm:0 stays alone; relu and multiply on llvm:1 fuse (b is read twice, but it is the copy's
  // result, not a kernel's).
  CHECK(split.fused.stats.kernelCalls == std::vector<int64_t>{1, 1});
  CHECK(split.unfused.stats.kernelCalls == std::vector<int64_t>{1, 2});
  std::string groups = printedAfter(two, "FuseOps");
  CHECK(groups.find("= cls.fused_nn_relu_multiply(b)") != std::string::npos);
  CHECK(groups.find("fused_exp") == std::string::npos);
  CHECK(groups.find("a: R.Tensor((8, 32), dtype=\"float32\", vdevice=\"llvm:0\") = R.call_tir(\n            cls.exp,") != std::string::npos);
}

TEST_CASE("compile and run: reshape, flatten, expand_dims and squeeze that fusion leaves alone are views of their operand's storage") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 6, 8}, rng), w = h.tensor({8, 5}, rng);
  std::string text = module("x: " + T("(4, 6, 8)") + ", w: " + T("(8, 5)"),
                            "R.Tuple(" + T("(24, 5)") + ", " + T("(4, 1, 6, 8)") + ", " + T("(192,)") + ", " + T("(4, 6, 8)") + ")",
                            "        a = R.reshape(x, (24, 8))\n        m = R.matmul(a, w)\n        e = R.expand_dims(x, axis=[1])\n"
                            "        f = R.flatten(x)\n        s = R.squeeze(e, axis=[1])\n        return (m, e, f, s)\n");
  Both b = fusedAndUnfused(text, {x, w});
  CHECK(kernelCalls(b.fused) == 1);  // the matmul (or its library call: no kernel at all)
  std::string printed = printedAfter(text, "RewriteDataflowReshape");
  // (a's reshape is a view too where the matmul is a library call or a CPU GEMM; a generated GPU matmul
  // inlines it instead.)
  CHECK(printed.find("= R.reshape(x, R.shape([4, 1, 6, 8]))") != std::string::npos);
  CHECK(printed.find("= R.reshape(e, R.shape([4, 6, 8]))") != std::string::npos);
  CHECK(printed.find("def expand_dims") == std::string::npos);  // no kernel is built for a view
  // On the VM: the outputs share the (placed) input's storage; nothing was copied.
  auto lowered = test::lower(text);
  driver::BuildResult built = driver::build(lowered.module(), test::testOptions());
  REQUIRE(built.exe);
  runtime::VirtualMachine vm(*built.exe, runtime::openDevices(*built.exe, {}));
  int64_t placed = 0;
  std::vector<runtime::Value> inputs = vm.placeInputs("main", {x, w}, &placed);
  CHECK(placed == (4 * 6 * 8 + 8 * 5) * 4);
  auto out = std::get<std::shared_ptr<runtime::TupleValue>>(vm.invoke("main", inputs));
  const auto& input = std::get<runtime::NDArray>(inputs[0]);
  for (size_t i = 1; i < 4; ++i) {
    const auto& v = std::get<runtime::NDArray>(out->fields[i]);
    CHECK(v.storage == input.storage);
    CHECK(v.numel() == input.numel());
  }
  CHECK(std::get<runtime::NDArray>(out->fields[1]).shape == std::vector<int64_t>{4, 1, 6, 8});
  CHECK(vm.stats().bytesCopied == 0);
  CHECK(vm.stats().inputBytesPlaced == 0);
}

TEST_CASE("fusion: a producer read many times per element (a matmul's operand) is not inlined, and the matmul's epilogue is folded") {
  std::string text = kCudaMain +
      "    def main(x: R.Tensor((64, 128), \"float32\"), w: R.Tensor((128, 96), \"float32\")) -> R.Tensor((64, 96), \"float32\"):\n"
      "        a = R.nn.gelu(x)\n        m = R.matmul(a, w)\n        b = R.nn.relu(m)\n        return b\n";
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o;
  o.offload = false;  // the generated matmul (a plain loop nest on cuda), not cuBLAS
  o.compileKernels = false;
  o.stopAfter = "FuseTIR";
  std::string printed;
  o.afterPass = [&](const std::string& p, const std::string& t) { if (p == "FuseTIR") printed = t; };
  driver::build(lowered.module(), o);
  CHECK(printed.find("def nn_gelu(") != std::string::npos);        // GELU would run 96 times per element inside the matmul
  CHECK(printed.find("def fused_matmul_nn_relu(") != std::string::npos);  // ReLU applied as the matmul stores
  // A 3x3 max pool reads each element up to 9 times: its ReLU prologue is inlined.
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({1, 4, 9, 9}, rng);
  std::string pool = module("x: " + T("(1, 4, 9, 9)"), T("(1, 4, 9, 9)"),
                            "        a = R.nn.relu(x)\n        p = R.nn.max_pool2d(a, pool_size=[3, 3], padding=[1, 1, 1, 1])\n        return p\n");
  Both b = fusedAndUnfused(pool, {x});
  CHECK(kernelCalls(b.fused) == 1);
}

TEST_CASE("compile and run: a permute that only feeds a matmul's B becomes the GEMM's transpose on cuda (attention's K^T)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto q = h.tensor({2, 3, 5, 8}, rng), k = h.tensor({2, 5, 3, 8}, rng), a = h.tensor({6, 8}, rng), b = h.tensor({7, 8}, rng);
  std::string text = module("q: " + T("(2, 3, 5, 8)") + ", k: " + T("(2, 5, 3, 8)") + ", a: " + T("(6, 8)") + ", b: " + T("(7, 8)"),
                            "R.Tuple(" + T("(2, 3, 5, 5)") + ", " + T("(6, 7)") + ")",
                            "        kt = R.permute_dims(k, axes=[0, 2, 3, 1])\n        s = R.matmul(q, kt)\n"
                            "        bt = R.permute_dims(b)\n        m = R.matmul(a, bt)\n        return (s, m)\n");
  test::Run r = test::compileAndRun(text, {q, k, a, b});
  std::vector<double> ws, wm;
  for (int n = 0; n < 2; ++n)
    for (int hh = 0; hh < 3; ++hh)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
          double acc = 0;
          for (int d = 0; d < 8; ++d) acc += test::at(q, ((n * 3 + hh) * 5 + i) * 8 + d) * test::at(k, ((n * 5 + j) * 3 + hh) * 8 + d);
          ws.push_back(acc);
        }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j) {
      double acc = 0;
      for (int d = 0; d < 8; ++d) acc += test::at(a, i * 8 + d) * test::at(b, j * 8 + d);
      wm.push_back(acc);
    }
  test::checkClose(r.outputs[0], ws, 1e-5);
  test::checkClose(r.outputs[1], wm, 1e-5);
}

TEST_CASE("offload: the transposed B's permute keeps only its other axes, or goes") {
  std::string text = kCudaMain +
      "    def main(q: R.Tensor((2, 3, 5, 8), \"float32\"), k: R.Tensor((2, 5, 3, 8), \"float32\"), a: R.Tensor((6, 8), \"float32\"), "
      "b: R.Tensor((7, 8), \"float32\")) -> R.Tuple(R.Tensor((2, 3, 5, 5), \"float32\"), R.Tensor((6, 7), \"float32\"), R.Tensor((8, 7), \"float32\")):\n"
      "        kt = R.permute_dims(k, axes=[0, 2, 3, 1])\n        s = R.matmul(q, kt)\n"
      "        bt = R.permute_dims(b)\n        m = R.matmul(a, bt)\n        bu = R.permute_dims(b)\n        return (s, m, bu)\n";
  std::string printed = printedAfter(text, "OffloadLibraries");
  CHECK(printed.find("kt: R.Tensor((2, 3, 5, 8), dtype=\"float32\") = R.permute_dims(k, axes=[0, 2, 1, 3])") != std::string::npos);
  CHECK(count(printed, "\"tvms.cublas.matmul_transpose_b\"") == 2);
  CHECK(printed.find("(a, b),") != std::string::npos);  // B^T is b itself: no permute at all
  CHECK(printed.find("bu: R.Tensor((8, 7), dtype=\"float32\") = R.permute_dims(b") != std::string::npos);  // not a matmul's: kept
}

TEST_CASE("compile and run: long reductions into few outputs (a sum of everything, a mean of 4 long rows): several blocks per output on cuda") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 131072}, rng);
  std::string text = module("x: " + T("(4, 131072)"), "R.Tuple(" + T("()") + ", " + T("(4,)") + ")",
                            "        s = R.sum(x)\n        m = R.mean(x, axis=[1])\n        return (s, m)\n");
  test::Run r = test::compileAndRun(text, {x});
  double total = 0;
  std::vector<double> means(4, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    total += test::at(x, i);
    means[static_cast<size_t>(i / 131072)] += test::at(x, i) / 131072.0;
  }
  // Half a million floats added in float32 (serially on a CPU): ~1e-4 of rounding is expected.
  test::checkClose(r.outputs[0], {total}, 2e-3);
  test::checkClose(r.outputs[1], means, 1e-5);
}

TEST_CASE("gpu schedule: a split reduction adds its blocks' parts atomically, printed as TVM's atomicAdd extern and read back") {
  std::string text = kCudaMain +
      "    def main(x: R.Tensor((4096, 4096), \"float16\")) -> R.Tensor((), \"float16\"):\n        y = R.sum(x)\n        return y\n";
  auto lowered = test::lower(text);
  std::string printed = test::printedAfterLegalizeOps(lowered.module(), driver::BuildOptions{});
  CHECK(printed.find("for bx in T.thread_binding(1024, thread=\"blockIdx.x\"):") != std::string::npos);
  CHECK(printed.find("T.evaluate(T.call_extern(\"float16\", \"atomicAdd\", T.address_of(C_flat[0]), acc))") != std::string::npos);
  CHECK(printed.find("C_flat[0] = T.Cast(\"float16\", 0)") != std::string::npos);  // the first launch zeroes the output
  // Read back, the kernel is the user's: its CUDA adds atomically again.
  auto again = test::lower(printed);
  REQUIRE(again.codes().empty());
  driver::BuildOptions o;
  o.compileKernels = false;
  o.emit = "cuda";
  driver::BuildResult b = driver::build(again.module(), o);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  CHECK(b.kernelText.find("tvms_atomic_add_half(&") != std::string::npos);
}

TEST_CASE("compile and run: a column sum (a thread per column, the rows cut into parts) and softmax over long rows (a block per row) on cuda") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2048, 1024}, rng), y = h.tensor({3, 4096}, rng, -4, 4);
  std::string text = module("x: " + T("(2048, 1024)") + ", y: " + T("(3, 4096)"), "R.Tuple(" + T("(1024,)") + ", " + T("(3, 4096)") + ")",
                            "        c = R.sum(x, axis=[0])\n        p = R.nn.softmax(y, axis=-1)\n        return (c, p)\n");
  test::Run r = test::compileAndRun(text, {x, y});
  std::vector<double> cols(1024, 0), soft;
  for (int64_t i = 0; i < x.numel(); ++i) cols[static_cast<size_t>(i % 1024)] += test::at(x, i);
  for (int row = 0; row < 3; ++row) {
    double mx = -1e30, sum = 0;
    for (int j = 0; j < 4096; ++j) mx = std::max(mx, double(test::at(y, row * 4096 + j)));
    for (int j = 0; j < 4096; ++j) sum += std::exp(test::at(y, row * 4096 + j) - mx);
    for (int j = 0; j < 4096; ++j) soft.push_back(std::exp(test::at(y, row * 4096 + j) - mx) / sum);
  }
  test::checkClose(r.outputs[0], cols, 1e-4);
  test::checkClose(r.outputs[1], soft, 1e-5);
}

TEST_CASE("gpu schedule: column sums get a thread per column and parts of rows, long rows a block each") {
  std::string text = kCudaMain +
      "    def main(x: R.Tensor((4096, 4096), \"float32\")) -> R.Tuple(R.Tensor((4096,), \"float32\"), R.Tensor((4096, 4096), \"float32\")):\n"
      "        c = R.sum(x, axis=[0])\n        p = R.nn.softmax(x, axis=-1)\n        return (c, p)\n";
  auto lowered = test::lower(text);
  std::string printed = test::printedAfterLegalizeOps(lowered.module(), driver::BuildOptions{});
  // The column sum: 16 groups of 256 columns x 64 parts of 64 rows; neighbouring threads, neighbouring columns.
  CHECK(printed.find("if (((T.floormod(bx, 16) * 256) + tx) < 4096):") != std::string::npos);
  CHECK(printed.find("for i0_flat_part in T.serial(T.min(64, (4096 - (T.floordiv(bx, 16) * 64)))):") != std::string::npos);
  CHECK(printed.find("T.address_of(C_flat[((T.floormod(bx, 16) * 256) + tx)]), acc))") != std::string::npos);
  // Softmax over rows of 4096: a block of 256 lanes per row, its warps combined in shared memory.
  CHECK(printed.find("for k_lane in T.serial(T.floordiv(((4096 - tx) + 255), 256)):") != std::string::npos);
  CHECK(printed.find("mx_warps = T.alloc_buffer((8,), \"float32\", scope=\"shared\")") != std::string::npos);
}

// Random chains of ops (elementwise, broadcast, transposes, reshapes, reductions with keepdims, softmax,
// layer_norm, residuals that give a value two uses) built fused and unfused: the outputs must agree.
TEST_CASE("compile and run: fusion of random op chains gives the unfused outputs") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int64_t R = 6, C = 10;
  for (int round = 0; round < 12; ++round) {
    std::string body;
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> values{{"x", {R, C}}};
    auto pick = [&](std::pair<int64_t, int64_t> shape) -> std::string {
      std::vector<std::string> same;
      for (auto& [n, s] : values)
        if (s == shape) same.push_back(n);
      return same.empty() ? "" : same[std::uniform_int_distribution<size_t>(0, same.size() - 1)(rng)];
    };
    for (int i = 0; i < 8; ++i) {
      auto [last, shape] = values.back();
      std::string v = "v" + std::to_string(i), line;
      auto out = shape;
      switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
        case 0: line = "R.tanh(" + last + ")"; break;
        case 1: line = "R.nn.silu(" + last + ")"; break;
        case 2: line = "R.multiply(" + last + ", R.const(0.5, \"float32\"))"; break;
        case 3: {
          std::string other = pick(shape);
          line = "R.add(" + last + ", " + (other.empty() ? last : other) + ")";
          break;
        }
        case 4: line = "R.permute_dims(" + last + ")", out = {shape.second, shape.first}; break;
        case 5: line = "R.reshape(" + last + ", (" + std::to_string(shape.second) + ", " + std::to_string(shape.first) + "))", out = {shape.second, shape.first}; break;
        case 6: line = "R.nn.softmax(" + last + ", axis=-1)"; break;
        case 7: {
          std::string s = v + "s";
          body += "        " + s + " = R.sum(" + last + ", axis=[1], keepdims=True)\n";
          line = "R.subtract(" + last + ", " + s + ")";
          break;
        }
        case 8:
          if (shape.second != C) { line = "R.sigmoid(" + last + ")"; break; }
          line = "R.nn.layer_norm(" + last + ", g, b, axes=[-1])";
          break;
        default: line = "R.nn.relu(" + last + ")"; break;
      }
      body += "        " + v + " = " + line + "\n";
      values.push_back({v, out});
    }
    auto [result, shape] = values.back();
    std::string text = module("x: " + T("(6, 10)") + ", g: " + T("(10,)") + ", b: " + T("(10,)"),
                              T("(" + std::to_string(shape.first) + ", " + std::to_string(shape.second) + ")"), body + "        return " + result + "\n");
    INFO("module:\n" << text);
    auto x = h.tensor({R, C}, rng), g = h.tensor({C}, rng), b = h.tensor({C}, rng);
    fusedAndUnfused(text, {x, g, b});
  }
}

TEST_CASE("compile and run: a view's storage goes back to the pool when the last of its names dies") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto p = h.tensor({8, 16}, rng);
  std::string text = module("p: " + T("(8, 16)"), T("(16, 8)"),
                            "        a = R.exp(p)\n        v = R.reshape(a, (16, 8))\n        b = R.tanh(v)\n"
                            "        c = R.sigmoid(b)\n        d = R.negative(c)\n        return d\n");
  driver::BuildOptions o = test::testOptions();
  o.fuse = false;  // one kernel per op, so the view and the pool are what is tested
  test::Run r = test::compileAndRunWith(text, {p}, o);
  // a (viewed as v) and b are allocated; after tanh neither a nor v is used: c takes their storage,
  // d takes b's.
  CHECK(r.allocations == 2);
  CHECK(r.reuses == 2);
  std::vector<double> want;
  for (int64_t i = 0; i < 128; ++i) want.push_back(-1 / (1 + std::exp(-std::tanh(std::exp(double(test::at(p, i)))))));
  test::checkClose(r.outputs[0], want, 1e-5);
  // Returned, a view keeps its storage out of the pool: the tensor it shares is the output's.
  std::string returned = module("p: " + T("(8, 16)"), "R.Tuple(" + T("(16, 8)") + ", " + T("(8, 16)") + ")",
                                "        a = R.exp(p)\n        v = R.reshape(a, (16, 8))\n        b = R.tanh(p)\n"
                                "        c = R.sigmoid(b)\n        return (v, c)\n");
  test::Run kept = test::compileAndRunWith(returned, {p}, o);
  CHECK(kept.allocations == 3);  // a (returned through v), b, and c (a's storage is not reused)
  std::vector<double> va, vc;
  for (int64_t i = 0; i < 128; ++i) {
    va.push_back(std::exp(double(test::at(p, i))));
    vc.push_back(1 / (1 + std::exp(-std::tanh(double(test::at(p, i))))));
  }
  test::checkClose(kept.outputs[0], va, 1e-5);
  test::checkClose(kept.outputs[1], vc, 1e-5);
}

TEST_CASE("compile and run: a value read twice by one call (x * x) still fuses, before and after a norm") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({16, 32}, rng), g = h.tensor({32}, rng), b = h.tensor({32}, rng);
  std::string text = module("x: " + T("(16, 32)") + ", g: " + T("(32,)") + ", b: " + T("(32,)"), T("(16, 32)"),
                            "        a = R.subtract(x, R.const(1.0, \"float32\"))\n        sq = R.multiply(a, a)\n"
                            "        n = R.nn.layer_norm(sq, g, b, axes=[-1])\n        t = R.multiply(n, n)\n        return t\n");
  Both both = fusedAndUnfused(text, {x, g, b});
  CHECK(kernelCalls(both.fused) == 1);
  CHECK(kernelCalls(both.unfused) == 4);
}

TEST_CASE("compile and run: each epilogue kind after a matmul (bias, GELU, SiLU, ReLU, residual, cast) matches its unfused form") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({12, 40}, rng), w = h.tensor({40, 24}, rng), bias = h.tensor({24}, rng), res = h.tensor({12, 24}, rng);
  const std::vector<std::string> epilogues = {"R.nn.gelu(m1)", "R.nn.silu(m1)", "R.nn.relu(m1)", "R.add(m1, r)", "R.astype(m1, \"float64\")"};
  for (const std::string& e : epilogues) {
    INFO(e);
    bool cast = e.find("astype") != std::string::npos;
    std::string text = module("x: " + T("(12, 40)") + ", w: " + T("(40, 24)") + ", bias: " + T("(24,)") + ", r: " + T("(12, 24)"),
                              cast ? "R.Tensor((12, 24), \"float64\")" : T("(12, 24)"),
                              "        m = R.matmul(x, w)\n        m1 = R.add(m, bias)\n        o = " + e + "\n        return o\n");
    Both b = fusedAndUnfused(text, {x, w, bias, res});
    // On a CPU the tiled GEMM takes its epilogue into its final stores (one kernel; a cast stays apart,
    // since the GEMM's partial sums go through the output); a generated GPU matmul (offload off) folds
    // it into its stores; cuBLAS keeps it as one kernel after: fewer calls every way, except where
    // cuBLASLt's epilogue already took the bias in both builds (cuda with offload).
    if (test::libraryEpilogues()) CHECK(kernelCalls(b.fused) <= kernelCalls(b.unfused));
    else CHECK(kernelCalls(b.fused) < kernelCalls(b.unfused));
    if (!std::getenv("TVMS_TEST_TARGET")) CHECK(kernelCalls(b.fused) == (cast ? 2 : 1));
  }
}

TEST_CASE("compile and run: a CPU GEMM whose K takes several blocks folds its epilogue into the last block's stores alone") {
  // K = 600: three blocks of 256, the partial sums kept in the output between them; odd M and N
  // leave partial row tiles and a partial panel; the epilogue (bias, GELU, residual) reads other inputs.
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({37, 600}, rng), w = h.tensor({600, 45}, rng), bias = h.tensor({45}, rng), res = h.tensor({37, 45}, rng);
  std::string text = module("x: " + T("(37, 600)") + ", w: " + T("(600, 45)") + ", bias: " + T("(45,)") + ", r: " + T("(37, 45)"), T("(37, 45)"),
                            "        m = R.matmul(x, w)\n        a = R.add(m, bias)\n        g = R.nn.gelu(a)\n        o = R.add(g, r)\n        return o\n");
  Both b = fusedAndUnfused(text, {x, w, bias, res}, 1e-4);
  if (!std::getenv("TVMS_TEST_TARGET")) {
    CHECK(kernelCalls(b.fused) == 1);
    std::string fused = printedAfter(text, "FuseTIR");
    CHECK(fused.find("def fused_matmul_add_nn_gelu_add(") != std::string::npos);
    CHECK(fused.find("if (kblock == 2):") != std::string::npos);  // the epilogue in the last block's stores
  }
  // A GEMM takes no prologue: the GELU before it stays its own kernel (it would run per column panel).
  std::string prologue = module("x: " + T("(37, 600)") + ", w: " + T("(600, 45)"), T("(37, 45)"),
                                "        a = R.nn.gelu(x)\n        m = R.matmul(a, w)\n        return m\n");
  Both p = fusedAndUnfused(prologue, {x, w}, 1e-4);
  CHECK(kernelCalls(p.fused) == kernelCalls(p.unfused));
}

TEST_CASE("compile and run: a matmul with a bias and ReLU or tanh GELU after it (one cuBLASLt call with its epilogue on cuda)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 5, 16}, rng), w = h.tensor({16, 12}, rng), wt = h.tensor({12, 16}, rng), bias = h.tensor({12}, rng);
  std::string body =
      "        a = R.matmul(x, w)\n        b = R.add(a, bias)\n        r = R.nn.relu(b)\n"
      "        c = R.matmul(x, w)\n        d = R.add(bias, c)\n        g = R.nn.gelu_tanh(d)\n"
      "        e = R.matmul(x, w)\n        p = R.add(e, bias)\n"
      "        t = R.permute_dims(wt)\n        f = R.matmul(x, t)\n        q = R.add(f, bias)\n"
      "        return (r, g, p, q)\n";
  std::string o = T("(2, 5, 12)");
  test::Run r = test::compileAndRun(module("x: " + T("(2, 5, 16)") + ", w: " + T("(16, 12)") + ", wt: " + T("(12, 16)") + ", bias: " + T("(12,)"),
                                           "R.Tuple(" + o + ", " + o + ", " + o + ", " + o + ")", body),
                                    {x, w, wt, bias});
  std::vector<double> relu, gelu, plain, transposed;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 12; ++j) {
      double v = test::at(bias, j), vt = test::at(bias, j);
      for (int k = 0; k < 16; ++k) {
        v += static_cast<double>(test::at(x, i * 16 + k)) * test::at(w, k * 12 + j);
        vt += static_cast<double>(test::at(x, i * 16 + k)) * test::at(wt, j * 16 + k);
      }
      relu.push_back(std::max(v, 0.0));
      gelu.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
      plain.push_back(v);
      transposed.push_back(vt);
    }
  test::checkClose(r.outputs[0], relu, 1e-5);
  test::checkClose(r.outputs[1], gelu, 1e-5);
  test::checkClose(r.outputs[2], plain, 1e-5);
  test::checkClose(r.outputs[3], transposed, 1e-5);
}

TEST_CASE("offload: matmul + bias (+ ReLU / tanh GELU) is one cuBLASLt call on cuda, but not with exact GELU, a shared product or a 3-D B") {
  std::string text = kCudaMain +
      "    def main(x: R.Tensor((2, 5, 16), \"float16\"), w: R.Tensor((16, 12), \"float16\"), bias: R.Tensor((12,), \"float16\"), "
      "w3: R.Tensor((2, 16, 12), \"float16\")):\n"
      "        a = R.matmul(x, w)\n        b = R.add(a, bias)\n        r = R.nn.relu(b)\n"
      "        c = R.matmul(x, w)\n        d = R.add(c, bias)\n        g = R.nn.gelu(d)\n"
      "        e = R.matmul(x, w)\n        p = R.add(e, bias)\n        s = R.add(e, p)\n"
      "        m = R.matmul(x, w3)\n        n = R.add(m, bias)\n"
      "        return (r, g, s, n)\n";
  std::string printed = printedAfter(text, "OffloadLibraries");
  CHECK(count(printed, "\"tvms.cublaslt.matmul_bias?act=relu&transpose_b=0\"") == 1);
  CHECK(count(printed, "\"tvms.cublaslt.matmul_bias?act=none&transpose_b=0\"") == 1);  // d: its exact GELU stays a kernel
  CHECK(printed.find("R.nn.gelu(d)") != std::string::npos);
  CHECK(printed.find("R.add(e, p)") != std::string::npos);           // e has two uses: a plain cuBLAS matmul
  CHECK(count(printed, "\"tvms.cublas.matmul\"") == 2);             // e, and m (a 3-D B)
  CHECK(printed.find("b: R.Tensor") == std::string::npos);          // the chain's intermediates are gone
  CHECK(printed.find("a: R.Tensor") == std::string::npos);
}

TEST_CASE("build: the module is printed only after the passes wantsAfterPass asks for") {
  std::string text = kCudaMain +
      "    def main(x: R.Tensor((4, 8), \"float32\")) -> R.Tensor((4, 8), \"float32\"):\n"
      "        a = R.nn.relu(x)\n        b = R.exp(a)\n        return b\n";
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o = test::testOptions();
  o.compileKernels = false;
  std::vector<std::string> printed;
  o.afterPass = [&](const std::string& p, const std::string& t) {
    CHECK_FALSE(t.empty());
    printed.push_back(p);
  };
  o.wantsAfterPass = [](const std::string& p) { return p == "LegalizeOps" || p == "FuseTIR"; };
  driver::build(lowered.module(), o);
  CHECK(printed == std::vector<std::string>{"LegalizeOps", "FuseTIR"});
  // Without the filter, after every pass of the plan.
  printed.clear();
  o.wantsAfterPass = nullptr;
  driver::build(lowered.module(), o);
  CHECK(printed.size() > 2);
}

// FuseOps then FuseTIR one function at a time (fuseOpsAndTIR) is the two passes over the whole
// module, without the whole module's groups at once: the same module after them. The pipeline takes
// it when nothing prints between the two passes.
TEST_CASE("fusion: FuseOps and FuseTIR function by function give the module the two passes give, and the pipeline runs them so") {
  std::string layers;
  for (int i = 0; i < 3; ++i)
    layers += "    @R.function\n    def layer" + std::to_string(i) +
              "(x: R.Tensor((4, 8), \"float32\"), w: R.Tensor((8, 8), \"float32\")) -> R.Tensor((4, 8), \"float32\"):\n"
              "        a = R.add(x, x)\n        b = R.nn.relu(a)\n        c = R.matmul(b, w)\n        d = R.exp(c)\n"
              "        e = R.multiply(d, " + (i == 1 ? std::string("d") : std::string("c")) + ")\n        return e\n\n";
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n" + layers;
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  auto legalized = [&] { return transform::legalizeOps(transform::realizeVDevice(transform::normalize(lowered.module()))); };
  transform::LegalizedModule whole = transform::fuseTIR(transform::fuseOps(legalized()));
  transform::LegalizedModule byFunction = transform::fuseOpsAndTIR(legalized());
  REQUIRE(whole.errors.empty());
  std::string expected = ir::printModule(whole.module, {.canonical = true});
  CHECK(ir::printModule(byFunction.module, {.canonical = true}) == expected);
  CHECK(expected.find("def fused_add_nn_relu(") != std::string::npos);
  CHECK(byFunction.kernels.size() == whole.kernels.size());
  for (size_t i = 0; i < whole.kernels.size(); ++i) CHECK(byFunction.kernels[i].name == whole.kernels[i].name);

  // The pipeline's FuseOps does FuseTIR's work too when FuseTIR comes next and nothing prints between.
  const driver::Pass* fuseOps = driver::findPass("FuseOps");
  REQUIRE(fuseOps);
  driver::PipelineState s;
  s.legal = legalized();
  s.nextPass = "FuseTIR";
  fuseOps->run(s, test::testOptions());
  CHECK(s.ranNext);
  CHECK(ir::printModule(s.legal.module, {.canonical = true}) == expected);
  // Printed after FuseOps: the groups, as the pass alone leaves them.
  driver::PipelineState printed;
  printed.legal = legalized();
  printed.nextPass = "FuseTIR";
  printed.printedAfter = true;
  fuseOps->run(printed, test::testOptions());
  CHECK_FALSE(printed.ranNext);
  CHECK(ir::printModule(printed.legal.module, {.canonical = true}).find("R.func_attr({\"Primitive\": True})") != std::string::npos);
  // And through the driver, printed after FuseTIR alone or after both: the same text.
  CHECK(printedAfter(text, "FuseTIR").find("def fused_add_nn_relu(") != std::string::npos);
  driver::BuildOptions both = test::testOptions();
  both.compileKernels = false;
  both.stopAfter = "FuseTIR";
  std::string afterBoth;
  both.afterPass = [&](const std::string& p, const std::string& t) { if (p == "FuseTIR") afterBoth = t; };
  both.wantsAfterPass = [](const std::string& p) { return p == "FuseOps" || p == "FuseTIR"; };
  driver::build(lowered.module(), both);
  CHECK(afterBoth == printedAfter(text, "FuseTIR"));
}

// A GEMM's compute reuses its index expressions (303,157 nodes walked, 6,850 distinct in a 64x64 one):
// fusion's rewrites must keep what is shared shared, or a fusion's dry run grows to every path (14 MiB
// for one GEMM with a prologue).
TEST_CASE("tir rewrite: mapExpr, substitute and mapStmts rewrite a shared subexpression once and keep it shared") {
  tir::Kernel k;
  const int i = tir::newLoopVar(k, "i");
  tir::ExprP x = tir::varRef(k, i);
  const int depth = 16;  // 2^16 paths from the root to the variable, 17 distinct nodes
  for (int d = 0; d < depth; ++d) x = x + x;
  auto checkShared = [&](tir::ExprP e, int64_t leaf) {
    for (int d = 0; d < depth; ++d) {
      REQUIRE(e->a);
      CHECK(e->a == e->b);
      e = e->a;
    }
    CHECK(e->kind == tir::Expr::Kind::Int);
    CHECK(e->intValue == leaf);
  };
  checkShared(tir::substitute(x, {{i, tir::intImm(3)}}), 3);
  int rewritten = 0;
  tir::ExprP mapped = tir::mapExpr(x, [&](const tir::ExprP& n) {
    ++rewritten;
    return n->kind == tir::Expr::Kind::Var ? tir::intImm(5) : n;
  });
  checkShared(mapped, 5);
  CHECK(rewritten == depth + 1);  // each distinct node once
  // Across the statements of one body too: two stores of the same value share its rewrite.
  std::vector<tir::StmtP> body{tir::store(0, tir::intImm(0), x), tir::store(0, tir::intImm(1), x)};
  auto out = tir::mapStmts(body, [&](const tir::ExprP& n) { return n->kind == tir::Expr::Kind::Var ? tir::intImm(7) : n; });
  REQUIRE(out.size() == 2);
  CHECK(out[0]->value == out[1]->value);
  checkShared(out[0]->value, 7);
}
