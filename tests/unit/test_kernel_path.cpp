// The kernel path from LegalizeOps to the VM, made for more than one target: kernels know their
// target, call sites bind (kernel, device slot), the CPU schedule follows the target's vector width,
// the loop IR prints its schedule, backends and devices come from registries, copies are ordered by
// events.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include <unistd.h>

#include "compiler/codegen/backend.h"
#include "compiler/driver/pipeline.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/schedule/gemm.h"
#include "compiler/schedule/schedule.h"
#include "compiler/transform/legalize_ops.h"
#include "compiler/transform/passes.h"
#include "compiler/tir/target.h"
#include "runtime/cpu_matmul_bf16.h"
#include "runtime/cuda_attention.h"
#include "runtime/cuda_libraries.h"
#include "runtime/cuda_module.h"
#include "runtime/registry.h"
#include "runtime/vm.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

using namespace tvms;
using test::Host;
using test::Run;

namespace {

transform::LegalizedModule legalize(const std::string& text, const transform::DeviceRemap& remap = {}) {
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  return transform::legalizeOps(transform::realizeVDevice(transform::normalize(lowered.module())), remap);
}

const char* kExpOnCudaAndCpu =
    "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
    "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0), I.vdevice(\"llvm\", 0)]})\n\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((64,), \"float32\", \"cuda:0\"), y: R.Tensor((64,), \"float32\", \"llvm:0\"))"
    " -> R.Tuple(R.Tensor((64,), \"float32\", \"cuda:0\"), R.Tensor((64,), \"float32\", \"llvm:0\")):\n"
    "        a = R.exp(x)\n        b = R.exp(y)\n        return (a, b)\n";

// The GEMM of an M x K by K x N matmul as a kernel, tiled with `tile` for `target`.
tir::Kernel gemmKernel(const tir::Target& target, const schedule::CpuGemmTile& tile, int64_t M, int64_t N, int64_t K) {
  using namespace tir;
  KernelBuilder kb("tvmsk_gemm_test");
  int a = kb.param("A", ScalarType::F32), b = kb.param("B", ScalarType::F32), c = kb.param("C", ScalarType::F32);
  schedule::GemmOperands g;
  g.batch = intImm(1);
  g.M = intImm(M);
  g.N = intImm(N);
  g.K = intImm(K);
  g.a = [&kb, a, K](const ExprP&, const ExprP& row, const ExprP& k) { return kb.load(a, row * intImm(K) + k); };
  g.b = [&kb, b, N](const ExprP&, const ExprP& k, const ExprP& col) { return kb.load(b, k * intImm(N) + col); };
  g.cIndex = [N](const ExprP&, const ExprP& row, const ExprP& col) { return row * intImm(N) + col; };
  schedule::addCpuGemm(kb, tile, ScalarType::F32, c, g);
  Kernel k = kb.take();
  k.target = target;
  schedule::apply(k);
  return k;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Reloads of ymm registers from the stack between the first and the last FMA of the assembly.
size_t stackVectorTraffic(const std::string& assembly) {
  size_t first = assembly.find("vfmadd"), last = assembly.rfind("vfmadd");
  if (first == std::string::npos) return 0;
  size_t n = 0;
  for (size_t line = first; line < last;) {
    size_t end = assembly.find('\n', line);
    std::string text = assembly.substr(line, end - line);
    // A reload from the stack into a vector register (AT&T: the memory source comes first); the
    // tile's write-back through its staging array stores to the stack and is not a spill.
    if (text.find("(%rsp), %ymm") != std::string::npos) ++n;
    line = end + 1;
  }
  return n;
}

}  // namespace

TEST_CASE("kernel path: one kernel called on two CPU vdevices runs each call on its own device") {
  // The regression: kernels were deduplicated by body and given one device slot, so the last call
  // site won and both calls ran on llvm:1 ("device 0: 0 kernels; device 1: 2 kernels").
  std::mt19937 rng(20261203);
  Host h;
  auto x = h.tensor({1000}, rng), y = h.tensor({1000}, rng);
  Run r = test::compileAndRun(test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/same_kernel_two_cpus.py"), {x, y});
  CHECK(r.exe.kernels.size() == 1);  // the same body and target: compiled once
  CHECK(r.stats.kernelCalls == std::vector<int64_t>{1, 1});
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].slot() == 0);
  CHECK(r.outputs[1].slot() == 1);
  std::vector<double> ex, ey;
  for (int64_t i = 0; i < 1000; ++i) {
    ex.push_back(std::exp(static_cast<double>(test::at(x, i))));
    ey.push_back(std::exp(static_cast<double>(test::at(y, i))));
  }
  test::checkClose(r.outputs[0], ex, 1e-6);
  test::checkClose(r.outputs[1], ey, 1e-6);
  // Per-device kernel time comes from each device's own events.
  CHECK(r.stats.kernelSeconds[0] > 0);
  CHECK(r.stats.kernelSeconds[1] > 0);
}

TEST_CASE("kernel path: a kernel's identity is its body and its target: the same exp on cuda and llvm is two kernels") {
  auto split = legalize(kExpOnCudaAndCpu);
  REQUIRE(split.kernels.size() == 2);
  CHECK(split.kernels[0].target.kind == "cuda");
  CHECK(split.kernels[1].target.kind == "llvm");
  CHECK(split.kernelVDevices == std::vector<std::string>{"cuda:0", "llvm:0"});
  // Remapped to the CPU, both are llvm kernels with the same body: one kernel.
  auto merged = legalize(kExpOnCudaAndCpu, {{"cuda:0", "cpu"}});
  REQUIRE(merged.kernels.size() == 1);
  CHECK(merged.kernels[0].target.kind == "llvm");
}

TEST_CASE("kernel path: a kernel for a kind without a code generator is a clear error naming the vdevice") {
  std::string text = kExpOnCudaAndCpu;
  for (size_t p; (p = text.find("cuda")) != std::string::npos;) text.replace(p, 4, "rocm");
  auto lowered = test::lower(text);
  driver::BuildResult b = driver::build(lowered.module(), {});
  REQUIRE_FALSE(b.exe);
  REQUIRE(b.errors.size() == 1);
  CHECK(b.errors[0] == "kernel tvmsk_exp runs on vdevice \"rocm:0\" (rocm): tvms has no rocm code generator yet; `--device rocm:0=cpu` runs it on the CPU");
  CHECK(codegen::backendFor("llvm") != nullptr);
  CHECK(codegen::backendFor("cuda") != nullptr);
  CHECK(codegen::backendFor("rocm") == nullptr);
}

TEST_CASE("schedule: the CPU GEMM tile follows the target's vector width") {
  tir::Target avx512{"llvm", 512}, avx2{"llvm", 256};
  auto wide = schedule::cpuGemmTile(avx512, tir::ScalarType::F32);
  CHECK(wide.mr == 8);
  CHECK(wide.nr == 32);
  CHECK(wide.accumulatorRegisters() == 16);
  auto narrow = schedule::cpuGemmTile(avx2, tir::ScalarType::F32);
  CHECK(narrow.nr == 16);
  // Accumulators + two vectors of B + A's broadcast fit AVX2's 16 registers.
  CHECK(narrow.accumulatorRegisters() + 3 <= 16);
  // A task's group of panels spans 128 columns at either width (A is read once per group).
  CHECK(wide.group * wide.nr == 128);
  CHECK(narrow.group * narrow.nr == 128);
  auto doubles = schedule::cpuGemmTile(avx512, tir::ScalarType::F64);
  CHECK(doubles.accumulatorRegisters() + 3 <= 32);
}

TEST_CASE("schedule: on a 256-bit target the GEMM's register tile does not spill (the AVX-512 tile would)") {
  const codegen::Backend* llvm = codegen::backendFor("llvm");
  REQUIRE(llvm);
  tir::Target avx2{"llvm", 256};
  std::string chosen = llvm->emit({gemmKernel(avx2, schedule::cpuGemmTile(avx2, tir::ScalarType::F32), 64, 64, 64)}, avx2, "asm");
  std::string wideTile = llvm->emit({gemmKernel(avx2, schedule::cpuGemmTile({"llvm", 512}, tir::ScalarType::F32), 64, 64, 64)}, avx2, "asm");
  CHECK(count(chosen, "zmm") == 0);   // built for the target, not the AVX-512 host
  CHECK(count(chosen, "vfmadd") > 0);
  // Accumulators that do not fit the 16 ymm registers live on the stack: vector reloads through
  // %rsp among the FMAs of the micro-kernel.
  CHECK(stackVectorTraffic(chosen) == 0);
  CHECK(stackVectorTraffic(wideTile) > 10);  // what an AVX2-only host would have run before
}

TEST_CASE("schedule: LegalizeOps prints the CPU schedule (parallel and vectorized loops, the pool only for enough work) in its prim_funcs") {
  auto lowered = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/same_kernel_two_cpus.py"));
  std::string error;
  std::string text = driver::printAfter(lowered.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  // A flat loop in chunks of 16384 (one chunk here: it runs on the calling thread), each vectorized.
  CHECK(text.find("for i_0 in T.parallel(1):") != std::string::npos);
  CHECK(text.find("for i_1 in T.vectorized(T.min(16384, (1000 - (i_0 * 16384)))):") != std::string::npos);
  CHECK(text.find("C_flat[((i_0 * 16384) + i_1)] = T.exp(A_flat[((i_0 * 16384) + i_1)])") != std::string::npos);  // parameters through their flat views
  // 4M elements: 256 chunks dealt to the pool.
  auto big = test::lower(test::module("x: R.Tensor((4194304,), \"float32\")", "R.Tensor((4194304,), \"float32\")", "        y = R.exp(x)\n        return y\n"));
  std::string b = driver::printAfter(big.module(), "LegalizeOps", &error);
  CHECK(b.find("for i_0 in T.parallel(256):") != std::string::npos);
  CHECK(b.find("for i_1 in T.vectorized(T.min(16384, (4194304 - (i_0 * 16384)))):") != std::string::npos);
  CHECK(b.find("C_flat[((i_0 * 16384) + i_1)] = T.exp(A_flat[((i_0 * 16384) + i_1)])") != std::string::npos);
  // A matmul too small for the pool runs its GEMM tasks on the calling thread; a large one deals them out.
  auto small = test::lower(test::module("a: R.Tensor((64, 128), \"float32\"), b: R.Tensor((128, 32), \"float32\")", "R.Tensor((64, 32), \"float32\")",
                                        "        c = R.matmul(a, b)\n        return c\n"));
  CHECK(driver::printAfter(small.module(), "LegalizeOps", &error).find("for task in T.serial(") != std::string::npos);
  auto large = test::lower(test::module("a: R.Tensor((512, 512), \"float32\"), b: R.Tensor((512, 512), \"float32\")", "R.Tensor((512, 512), \"float32\")",
                                        "        c = R.matmul(a, b)\n        return c\n"));
  CHECK(driver::printAfter(large.module(), "LegalizeOps", &error).find("for task in T.parallel(") != std::string::npos);
  // A reduction loop is never vectorized or parallel: softmax's max and sum stay serial.
  auto softmax = test::lower(test::module("x: R.Tensor((8, 64), \"float32\")", "R.Tensor((8, 64), \"float32\")",
                                          "        y = R.nn.softmax(x)\n        return y\n"));
  std::string s = driver::printAfter(softmax.module(), "LegalizeOps", &error);
  CHECK(s.find("for k in T.serial(64):") != std::string::npos);
  CHECK(s.find("for k3 in T.vectorized(64):") != std::string::npos);
}

TEST_CASE("schedule: a transposed copy on the CPU walks 32x32 tiles, a copy that keeps its innermost dim is not tiled") {
  std::string error;
  auto transpose = test::lower(test::module("x: R.Tensor((8192, 100), \"float32\")", "R.Tensor((100, 8192), \"float32\")",
                                            "        y = R.permute_dims(x)\n        return y\n"));
  std::string t = driver::printAfter(transpose.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  // The output's rows and the input's rows split into tiles, the tiles' own loops innermost. The 4 x
  // 256 tiles are one parallel loop (4 row tiles alone would keep 12 of 16 cores idle).
  CHECK(t.find("for i0_o_fused in T.parallel(1024):") != std::string::npos);
  CHECK(t.find("for i0_i in T.serial(T.min(32, (100 - (T.floordiv(i0_o_fused, 256) * 32)))):") != std::string::npos);
  CHECK(t.find("for i1_i in T.serial(T.min(32, (8192 - (T.floormod(i0_o_fused, 256) * 32)))):") != std::string::npos);
  // Swapping the two outer dims of a 3-D tensor keeps rows whole: no tiles, the rows vectorized.
  auto rows = test::lower(test::module("x: R.Tensor((64, 32, 128), \"float32\")", "R.Tensor((32, 64, 128), \"float32\")",
                                       "        y = R.permute_dims(x, axes=[1, 0, 2])\n        return y\n"));
  std::string r = driver::printAfter(rows.module(), "LegalizeOps", &error);
  CHECK(r.find("_o in") == std::string::npos);
  CHECK(r.find("T.vectorized(128)") != std::string::npos);
}

TEST_CASE("schedule: a CPU nest whose outer loop is short takes the spatial loops inside it into one parallel loop") {
  std::string error;
  // Attention's row kernel: batch 2 outside, 512 query rows, 8 heads. Two parallel parts would use two
  // cores of sixteen: batch and rows become one loop of 1024, the heads stay inside.
  std::string t4 = test::T("(2, 512, 8, 64)");
  auto attention = test::lower(test::module("q: " + t4 + ", k: " + t4 + ", v: " + t4, t4, "        o = R.nn.attention(q, k, v)\n        return o\n"));
  std::string a = driver::printAfter(attention.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  CHECK(a.find("T.parallel(1024)") != std::string::npos);
  CHECK(a.find("T.parallel(2)") == std::string::npos);
  // An outer loop long enough on its own is left alone.
  auto sum = test::lower(test::module("x: " + test::T("(512, 64, 64)"), test::T("(512, 64)"), "        y = R.sum(x, axis=2)\n        return y\n"));
  std::string s = driver::printAfter(sum.module(), "LegalizeOps", &error);
  CHECK(s.find("T.parallel(512)") != std::string::npos);
  CHECK(s.find("_fused") == std::string::npos);
  // The innermost loop is never taken in: it is the one vectorized (2 x 64 rows of 16384 with a
  // broadcast operand: the rows fused, the 16384 vectorized).
  auto rows = test::lower(test::module("x: " + test::T("(2, 64, 16384)") + ", y: " + test::T("(64, 16384)"), test::T("(2, 64, 16384)"),
                                       "        z = R.add(x, y)\n        return z\n"));
  std::string r = driver::printAfter(rows.module(), "LegalizeOps", &error);
  CHECK(r.find("T.parallel(128)") != std::string::npos);
  CHECK(r.find("T.vectorized(16384)") != std::string::npos);
}

TEST_CASE("schedule: a long CPU reduction into one value runs in parts on the pool, a column reduction walks rows in tiles of outputs") {
  std::string error;
  auto whole = test::lower(test::module("x: R.Tensor((4096, 4096), \"float32\")", "R.Tensor((), \"float32\")", "        y = R.sum(x)\n        return y\n"));
  std::string w = driver::printAfter(whole.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  // 256 parts of 16 rows, each part's sum in a slot every task of the call shares, combined in order.
  CHECK(w.find("acc_parts = T.alloc_buffer((256,), \"float32\", scope=\"shared\")") != std::string::npos);
  CHECK(w.find("for i0_part in T.parallel(256):") != std::string::npos);
  CHECK(w.find("for i0_in in T.serial(T.min(16, (4096 - (i0_part * 16)))):") != std::string::npos);
  CHECK(w.find("acc_parts[i0_part] = acc") != std::string::npos);
  CHECK(w.find("acc = (acc + acc_parts[i0_parts])") != std::string::npos);
  // A small one stays as it was.
  auto small = test::lower(test::module("x: R.Tensor((64, 64), \"float32\")", "R.Tensor((), \"float32\")", "        y = R.sum(x)\n        return y\n"));
  CHECK(driver::printAfter(small.module(), "LegalizeOps", &error).find("_parts") == std::string::npos);
  // Column sums: 256 outputs' accumulators in a local array, each row read as one vectorized stretch.
  auto columns = test::lower(test::module("x: R.Tensor((4096, 1000), \"float32\")", "R.Tensor((1000,), \"float32\")", "        y = R.sum(x, axis=[0])\n        return y\n"));
  std::string c = driver::printAfter(columns.module(), "LegalizeOps", &error);
  CHECK(c.find("acc_cols = T.alloc_buffer((256,), \"float32\", scope=\"local\")") != std::string::npos);
  CHECK(c.find("for i1_o in T.parallel(4):") != std::string::npos);
  CHECK(c.find("acc_cols[i1_j] = (acc_cols[i1_j] + A_flat[((i0 * 1000) + ((i1_o * 256) + i1_j))])") != std::string::npos);
  CHECK(c.find("for i1_j in T.vectorized(T.min(256, (1000 - (i1_o * 256)))):") != std::string::npos);
  // A row sum reads rows contiguously already: a loop per output, as before.
  auto rows = test::lower(test::module("x: R.Tensor((4096, 1000), \"float32\")", "R.Tensor((4096,), \"float32\")", "        y = R.sum(x, axis=[1])\n        return y\n"));
  CHECK(driver::printAfter(rows.module(), "LegalizeOps", &error).find("_cols") == std::string::npos);
}

// A scheduled kernel's index expressions share subexpressions (a CPU GEMM of symbolic size: 6,850
// distinct nodes, 1.5 MB printed). The fingerprint writes each node once: 24 doublings below are 16
// million nodes as a tree and a few hundred bytes as a DAG.
TEST_CASE("loop IR: the fingerprint of a kernel is the size of its distinct nodes, and tells kernels apart") {
  using namespace tir;
  auto build = [](const char* name, int64_t last) {
    KernelBuilder kb(name);
    int a = kb.param("A", ScalarType::I64, {"1"});
    ExprP e = intImm(1);
    for (int i = 0; i < 24; ++i) e = binary(BinOp::Add, e, e);
    kb.add(store(a, intImm(0), binary(BinOp::Add, e, intImm(last))));
    return kb.take();
  };
  Kernel k = build("tvmsk_doubling", 0);
  std::string key = fingerprint(k);
  CHECK(key.size() < 2000);
  CHECK(fingerprint(build("tvmsk_doubling", 0)) == key);
  CHECK(fingerprint(build("tvmsk_doubling", 1)) != key);
  CHECK(fingerprint(build("tvmsk_other_name", 0)) != key);
  CHECK(fingerprint(build("tvmsk_other_name", 0), /*withName=*/false) == fingerprint(k, false));
}

// LegalizeOps's prim_funcs print their bodies from the kernel when the module is printed, not when built.
TEST_CASE("legalize: a built kernel's prim_func prints its body from the kernel when asked, as printKernelBody does") {
  auto lowered = test::lower(test::module("x: R.Tensor((\"n\", 8), \"float32\")", "R.Tensor((\"n\", 8), \"float32\")",
                                          "        y = R.exp(x)\n        return y\n"));
  REQUIRE(lowered.codes().empty());
  transform::LegalizedModule m = transform::legalizeOps(transform::normalize(lowered.module()));
  REQUIRE(m.errors.empty());
  REQUIRE(m.kernels.size() == 1);
  const ir::ModuleFunction* prim = nullptr;
  for (auto& f : m.module.functions)
    if (f.tir) prim = &f;
  REQUIRE(prim);
  CHECK(prim->tir->bodyLines.empty());  // nothing printed while building
  REQUIRE(prim->tir->lazyBody);
  CHECK(prim->tir->body() == tir::printKernelBody(m.kernels[0]));
  std::string printed = ir::printModule(m.module, {.canonical = true});
  CHECK(printed.find("for ") != std::string::npos);
  CHECK(printed.find(tir::printKernelBody(m.kernels[0]).back()) != std::string::npos);
  // Structural equality sees the printed body: the same lines held as text are equal, others are not.
  ir::IRModule asText = m.module;
  for (auto& f : asText.functions)
    if (f.tir) {
      auto copy = std::make_shared<ir::PrimFunc>(*f.tir);
      copy->lazyBody = nullptr;
      copy->bodyLines = f.tir->body();
      f.tir = copy;
    }
  CHECK(ir::modulesEqual(m.module, asText));
  for (auto& f : asText.functions)
    if (f.tir) f.tir->bodyLines.back() += " + 1";
  CHECK_FALSE(ir::modulesEqual(m.module, asText));
}

TEST_CASE("loop IR: thread-bound loops and shared buffers and barriers print as TVMScript and the CPU backend refuses thread-bound loops clearly") {
  using namespace tir;
  KernelBuilder kb("tvmsk_gpu_shape");
  int a = kb.param("A", ScalarType::F32, {"256"});
  int tile = kb.localArray("tile", ScalarType::F32, 128, MemoryScope::Shared);
  int bx = kb.loopVar("bx"), tx = kb.loopVar("tx");
  auto bound = [](StmtP s, const char* tag) {
    auto b = std::make_shared<Stmt>(*s);
    b->forKind = ForKind::ThreadBinding;
    b->threadTag = tag;
    return StmtP(b);
  };
  ExprP i = kb.var(bx) * intImm(128) + kb.var(tx);
  kb.add(bound(forLoop(bx, intImm(2), {bound(forLoop(tx, intImm(128), {store(tile, kb.var(tx), kb.load(a, i)), barrier(),
                                                                         store(a, i, unary(UnOp::Exp, kb.load(tile, kb.var(tx))))}, true),
                                             "threadIdx.x")}, true),
               "blockIdx.x"));
  Kernel k = kb.take();
  auto lines = printKernelBody(k);
  std::string text;
  for (auto& l : lines) text += l + "\n";
  CHECK(text.find("tile = T.alloc_buffer((128,), \"float32\", scope=\"shared\")") != std::string::npos);
  CHECK(text.find("for bx in T.thread_binding(2, thread=\"blockIdx.x\"):") != std::string::npos);
  CHECK(text.find("    for tx in T.thread_binding(128, thread=\"threadIdx.x\"):") != std::string::npos);
  CHECK(text.find("        T.tvm_storage_sync(\"shared\")") != std::string::npos);
  CHECK(text.find("A_flat[((bx * 128) + tx)] = T.exp(tile[tx])") != std::string::npos);
  CHECK(opName(BinOp::FloorDiv) == "floordiv");
  CHECK(opName(UnOp::Rsqrt) == "rsqrt");
  try {
    codegen::backendFor("llvm")->emit({k}, Target::host(), "llvm");
    FAIL("the CPU backend compiled a kernel bound to GPU threads");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("a thread_binding loop where the CPU backend cannot run one") != std::string::npos);
  }
}

namespace {

// A device whose memory the host cannot read, recording how it was asked to order work: what a
// CUDA device looks like to copyBetween and the VM.
class RecordingDevice : public runtime::DeviceAPI {
 public:
  std::vector<std::string> calls;
  std::shared_ptr<runtime::DeviceAPI> host = runtime::makeCpuDevice(-1);
  std::string name() const override { return "fake:0"; }
  bool hostAccessible() const override { return false; }
  void* alloc(size_t bytes) override { return host->alloc(bytes); }
  void free(void* p) override { host->free(p); }
  void copyFromHost(void* d, const void* s, size_t n, runtime::Stream) override { calls.push_back("h2d"); std::memcpy(d, s, n); }
  void copyToHost(void* d, const void* s, size_t n, runtime::Stream) override { calls.push_back("d2h"); std::memcpy(d, s, n); }
  void copyWithin(void* d, const void* s, size_t n, runtime::Stream) override { calls.push_back("d2d"); std::memcpy(d, s, n); }
  runtime::Stream createStream() override { return nullptr; }
  void destroyStream(runtime::Stream) override {}
  void synchronize(runtime::Stream) override { calls.push_back("synchronize-device"); }
  runtime::Event recordEvent(runtime::Stream) override { calls.push_back("record"); return new int(0); }
  void waitEvent(runtime::Stream, runtime::Event) override { calls.push_back("wait"); }
  void synchronizeEvent(runtime::Event) override { calls.push_back("synchronize-event"); }
  double elapsedSeconds(runtime::Event, runtime::Event) override { return 0.25; }
  void destroyEvent(runtime::Event e) override { delete static_cast<int*>(e); }
  std::unique_ptr<runtime::KernelLauncher> launcher(std::shared_ptr<runtime::KernelLibrary> lib) override { return host->launcher(lib); }
};

}  // namespace

TEST_CASE("runtime: a copy from a device waits for that copy's event and never for the whole device") {
  RecordingDevice dev;
  auto host = runtime::makeCpuDevice(0);
  std::vector<float> src{1, 2, 3, 4}, out(4, 0);
  void* on = dev.alloc(16);
  runtime::copyBetween(dev, on, *host, src.data(), 16);
  runtime::copyBetween(*host, out.data(), dev, on, 16);
  CHECK(out == src);
  CHECK(dev.calls == std::vector<std::string>{"h2d", "d2h", "record", "synchronize-event"});
  dev.free(on);
}

TEST_CASE("runtime: devices and module loaders come from the target-kind table") {
  CHECK(runtime::openDevice("llvm", 0) != nullptr);
  CHECK(runtime::openDevice("no-such-kind", 0) == nullptr);
  CHECK_THROWS_WITH(runtime::loadModule("no-such-kind", {}), "the artifact holds no-such-kind kernels, which this build of tvms cannot load");
  // A registered kind opens: the VM then runs the module's slot on it, timed by its own events.
  int opened = 0;
  bool pinned = true;
  runtime::TargetKind recording;
  recording.name = "recording";
  recording.dlDeviceType = 99;
  recording.openDevice = [&opened, &pinned](int, const runtime::DeviceOptions& o) {
    ++opened;
    pinned = o.pinnedHostMemory;
    return std::make_unique<RecordingDevice>();
  };
  runtime::registerTargetKind(recording);
  CHECK_THROWS_AS(runtime::registerTargetKind(recording), std::invalid_argument);  // a name is declared once
  runtime::Executable exe;
  exe.devices.push_back({"recording", 99, 0, "global", "recording:0", ""});
  auto devices = runtime::openDevices(exe, {});
  CHECK(opened == 1);
  CHECK_FALSE(pinned);  // no GPU in the module: pageable host memory
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]->name() == "fake:0");
  // With a cuda slot beside it, every device is asked for pinned host memory (the cuda slot itself
  // then fails to open on a machine without a driver, after the first slot was opened).
  runtime::Executable withGpu = exe;
  withGpu.devices.push_back({"cuda", 2, 0, "global", "cuda:0", ""});
  try {
    runtime::openDevices(withGpu, {});
  } catch (const std::runtime_error&) {
  }
  CHECK(opened == 2);
  CHECK(pinned);
  exe.devices[0] = {"metal", 8, 0, "global", "metal:0", ""};
  CHECK_THROWS_WITH(runtime::openDevices(exe, {}),
                    doctest::Contains("`--device metal:0=cpu` runs it on the CPU instead"));
}

namespace {
// The corpus's same_kernel_two_cpus module built as for `tvms build -o` (modules, no JIT).
driver::BuildResult artifactBuild() {
  auto lowered = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/same_kernel_two_cpus.py"));
  driver::BuildOptions o;
  o.compileKernels = false;
  o.buildModules = true;
  return driver::build(lowered.module(), o);
}
}  // namespace

TEST_CASE("artifacts: a .tvmx holds one module per target kind and runs like the JIT build: every truncation is a clear error") {
  driver::BuildResult b = artifactBuild();
  REQUIRE(b.exe);
  REQUIRE(b.exe->modules.size() == 1);
  CHECK(b.exe->modules[0].kind == "llvm");
  CHECK(b.exe->libraries.empty());
  std::string path = "/tmp/tvms-test-artifact-" + std::to_string(::getpid()) + ".tvmx";
  runtime::saveExecutable(*b.exe, path);
  runtime::Executable loaded = runtime::loadExecutable(path);
  REQUIRE(loaded.libraries.count("llvm") == 1);
  CHECK(loaded.kernels.size() == 1);
  CHECK(loaded.kernels[0].kind == "llvm");
  CHECK(runtime::disassemble(loaded) == runtime::disassemble(*b.exe));
  std::mt19937 rng(7);
  Host h;
  auto x = h.tensor({1000}, rng), y = h.tensor({1000}, rng);
  runtime::VirtualMachine vm(loaded, runtime::openDevices(loaded, {}));
  auto out = std::get<std::shared_ptr<runtime::TupleValue>>(vm.invoke("main", {x, y}));
  auto a = std::get<runtime::NDArray>(out->fields[0]);
  CHECK(a.slot() == 0);
  CHECK(test::at(a, 5) == doctest::Approx(std::exp(test::at(x, 5))));
  CHECK(vm.stats().kernelCalls == std::vector<int64_t>{1, 1});
  // Cut the file anywhere: loading fails with a message naming it, never a crash or a huge allocation.
  std::string bytes = test::readFile(path);
  for (size_t cut = 0; cut < bytes.size(); cut += cut < 400 ? 1 : 997) {
    std::string part = path + ".part";
    {
      FILE* f = std::fopen(part.c_str(), "wb");
      std::fwrite(bytes.data(), 1, cut, f);
      std::fclose(f);
    }
    INFO("cut at " << cut);
    CHECK_THROWS_AS(runtime::loadExecutable(part), std::runtime_error);
    std::remove(part.c_str());
  }
  std::remove(path.c_str());
}

TEST_CASE("artifacts: flipping any one byte of a .tvmx is refused when loading, never run") {
  // Every byte after the magic is under a checksum (the metadata's, a constant's or a module's),
  // so each flip is found before anything is used (version 2 ran some and crashed on others).
  driver::BuildResult b = artifactBuild();
  REQUIRE(b.exe);
  std::string path = "/tmp/tvms-test-flip-" + std::to_string(::getpid()) + ".tvmx";
  runtime::saveExecutable(*b.exe, path);
  const std::string bytes = test::readFile(path);
  std::string part = path + ".flipped";
  size_t refused = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ (1 << (at % 8)));
    {
      FILE* f = std::fopen(part.c_str(), "wb");
      std::fwrite(flipped.data(), 1, flipped.size(), f);
      std::fclose(f);
    }
    try {
      runtime::loadExecutable(part);
      FAIL("a flip at byte " << at << " of " << bytes.size() << " was loaded");
    } catch (const std::runtime_error& e) {
      ++refused;
    }
  }
  CHECK(refused == bytes.size());
  std::remove(part.c_str());
  std::remove(path.c_str());
}

TEST_CASE("offload: matmul and conv2d on cuda vdevices become cuBLAS and cuDNN calls in their own pass") {
  auto lowered = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/seed_conv2d_offload.py"));
  std::string error;
  std::string text = driver::printAfter(lowered.module(), "OffloadLibraries", &error);
  CHECK(error.empty());
  CHECK(text.find("R.call_dps_packed(\n                \"tvms.cudnn.conv2d?layout=NHWC&stride=1,1&pad=1,1&dilation=1,1&groups=1\"") != std::string::npos);
  // The runtime reads the same record back from the name; a malformed one is an error, not a guess.
  runtime::Conv2dAttrs attrs = runtime::parseConv2dCallName("tvms.cudnn.conv2d?layout=NHWC&stride=1,1&pad=1,1&dilation=1,1&groups=1");
  CHECK(attrs.nhwc);
  CHECK(attrs.pad == std::vector<int64_t>{1, 1});
  CHECK(runtime::conv2dCallName(attrs) == "tvms.cudnn.conv2d?layout=NHWC&stride=1,1&pad=1,1&dilation=1,1&groups=1");
  CHECK_THROWS_AS(runtime::parseConv2dCallName("tvms.cudnn.conv2d?layout=NHWC&stride=1"), std::runtime_error);
  CHECK_THROWS_AS(runtime::parseConv2dCallName("tvms.cudnn.conv2d?layout=HWCN&stride=1,1&pad=1,1&dilation=1,1"), std::runtime_error);
  // The pass's output is TVMScript that reads back clean.
  auto reread = test::lower(text.substr(text.find("@I.ir_module")).insert(0, "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n"));
  CHECK(reread.codes().empty());
  // Off with the option; never on a CPU vdevice (remapped or not).
  driver::BuildOptions off;
  off.offload = false;
  std::string kept;
  off.afterPass = [&](const std::string& pass, const std::string& t) { if (pass == "OffloadLibraries") kept = t; };
  driver::build(lowered.module(), off);
  CHECK(kept.find("call_dps_packed") == std::string::npos);
  // With a bias: R.nn.attention's (batch, heads, rows, keys) and a written-out additive mask of rank 2.
  auto biased = test::lower(
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n"
      "    def main(q: R.Tensor((1, 70, 3, 64), \"float16\", \"cuda\"), k: R.Tensor((1, 90, 3, 64), \"float16\", \"cuda\"), "
      "v: R.Tensor((1, 90, 3, 64), \"float16\", \"cuda\"), bias: R.Tensor((1, 3, 70, 90), \"float16\", \"cuda\"), "
      "qh: R.Tensor((3, 70, 64), \"float16\", \"cuda\"), kt: R.Tensor((3, 64, 90), \"float16\", \"cuda\"), vh: R.Tensor((3, 90, 64), \"float16\", \"cuda\"), "
      "mask: R.Tensor((70, 90), \"float16\", \"cuda\")) -> R.Tuple(R.Tensor((1, 70, 3, 64), \"float16\", \"cuda\"), R.Tensor((3, 70, 64), \"float16\", \"cuda\")):\n"
      "        o = R.nn.attention(q, k, v, bias, scale=0.5)\n"
      "        s = R.matmul(qh, kt)\n        sb = R.add(s, mask)\n        p = R.nn.softmax(sb, axis=-1)\n        o2 = R.matmul(p, vh)\n        return (o, o2)\n");
  REQUIRE(biased.codes().empty());
  std::string withBias = driver::printAfter(biased.module(), "OffloadLibraries", &error);
  CHECK(withBias.find("\"tvms.attention?q=0,2,1,3&k=0,2,1,3&v=0,2,1,3&o=0,2,1,3&scale=0.5&causal=0&bias=0,1,2,3\",\n            (q, k, v, bias),") !=
        std::string::npos);
  CHECK(withBias.find("\"tvms.attention?q=-1,0,1,2&k=-1,0,2,1&v=-1,0,1,2&o=-1,0,1,2&scale=1&causal=0&bias=-1,-1,0,1\",\n            (qh, kt, vh, mask),") !=
        std::string::npos);
  CHECK(withBias.find("R.nn.softmax") == std::string::npos);
  CHECK(runtime::parseAttentionCallName("tvms.attention?q=0,2,1,3&k=0,2,1,3&v=0,2,1,3&o=0,2,1,3&scale=0.5&causal=0&bias=-1,-1,0,1").biasAxes ==
        std::vector<int64_t>{-1, -1, 0, 1});
  driver::BuildOptions remapped;
  remapped.remap = {{"cuda:0", "cpu"}};
  remapped.afterPass = [&](const std::string& pass, const std::string& t) { if (pass == "OffloadLibraries") kept = t; };
  driver::BuildResult cpu = driver::build(lowered.module(), remapped);
  CHECK(kept.find("call_dps_packed") == std::string::npos);
  CHECK(cpu.exe);
  // cuBLASLt takes the MLP's first matmul with its bias and ReLU (x, w1, b1 and the output), cuBLAS the
  // second; the LowerToVM listing names the library functions.
  auto mlp = test::lower(test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/cpu_gpu_mlp.py"));
  std::string vm = driver::printAfter(mlp.module(), "LowerToVM", &error);
  CHECK(vm.find("# library function 0: tvms.cublaslt.matmul_bias?act=relu&transpose_b=0") != std::string::npos);
  CHECK(vm.find("# library function 1: tvms.cublas.matmul") != std::string::npos);
  CHECK(vm.find("call_library 0 0 4") != std::string::npos);
  CHECK(vm.find("call_library 1 0 3") != std::string::npos);
}

TEST_CASE("offload: a bfloat16 matmul on a CPU vdevice becomes tvms.cpu.matmul_bf16 where the host has its dot products, and nothing else does") {
  auto lowered = test::lower(
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\")]})\n\n    @R.function\n"
      "    def main(a: R.Tensor((2, 9, 40), \"bfloat16\"), b: R.Tensor((40, 7), \"bfloat16\"), c: R.Tensor((2, 40, 7), \"bfloat16\"), "
      "d: R.Tensor((1, 40, 7), \"bfloat16\"), h: R.Tensor((9, 40), \"float16\"), g: R.Tensor((40, 7), \"float16\")) "
      "-> R.Tuple(R.Tensor((2, 9, 7), \"bfloat16\"), R.Tensor((2, 9, 7), \"bfloat16\"), R.Tensor((2, 9, 7), \"bfloat16\"), R.Tensor((9, 7), \"float16\")):\n"
      "        shared = R.matmul(a, b)\n        batched = R.matmul(a, c)\n        broadcast = R.matmul(a, d)\n        half = R.matmul(h, g)\n"
      "        return (shared, batched, broadcast, half)\n");
  REQUIRE(lowered.codes().empty());
  std::string error;
  std::string text = driver::printAfter(lowered.module(), "OffloadLibraries", &error);
  CHECK(error.empty());
  auto count = [](const std::string& t, const std::string& what) {
    size_t n = 0;
    for (size_t at = t.find(what); at != std::string::npos; at = t.find(what, at + 1)) ++n;
    return n;
  };
  // The library's kernels are AMX and AVX512-BF16 (a 512-bit target): elsewhere the generated GEMM is faster.
  bool pays = tir::Target::host().vectorBits >= 512 && runtime::bestBf16GemmKernel() != runtime::Bf16GemmKernel::Portable;
  MESSAGE("this host's bfloat16 GEMM kernel: " << std::string(runtime::bf16GemmKernelName(runtime::bestBf16GemmKernel())));
  CHECK(count(text, "\"tvms.cpu.matmul_bf16\"") == (pays ? 2u : 0u));  // B shared and B batched; not B broadcast, not float16
  CHECK(count(text, "R.matmul(") == (pays ? 2u : 4u));
  driver::BuildOptions off;
  off.offload = false;
  std::string kept;
  off.afterPass = [&](const std::string& pass, const std::string& t) { if (pass == "OffloadLibraries") kept = t; };
  CHECK(driver::build(lowered.module(), off).exe);
  CHECK(count(kept, "tvms.cpu.matmul_bf16") == 0u);
}

TEST_CASE("offload: attention on a cuda vdevice becomes one tvms.attention call reading and writing through the permutes around it") {
  // BERT's form: heads split by reshape + permute, K^T by a permute, the scale, softmax, P V, heads merged.
  const std::string chain =
      "            qr = R.reshape(qb, (2, 100, 16, 64))\n            kr = R.reshape(kb, (2, 100, 16, 64))\n"
      "            vr = R.reshape(vb, (2, 100, 16, 64))\n            qh = R.permute_dims(qr, axes=[0, 2, 1, 3])\n"
      "            kh = R.permute_dims(kr, axes=[0, 2, 3, 1])\n            vh = R.permute_dims(vr, axes=[0, 2, 1, 3])\n"
      "            sc = R.matmul(qh, kh)\n            ss = R.multiply(sc, R.const(0.125, \"float16\"))\n"
      "            pr = R.nn.softmax(ss, axis=-1)\n            o = R.matmul(pr, vh)\n";
  auto moduleWith = [&](const std::string& tail, const std::string& ret) {
    const std::string t = "R.Tensor((2, 100, 1024), \"float16\", \"cuda\")";
    return "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
           "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n"
           "    def main(qb: " + t + ", kb: " + t + ", vb: " + t + ") -> " + ret + ":\n        with R.dataflow():\n" + chain + tail;
  };
  std::string error;
  auto merged = test::lower(moduleWith("            ot = R.permute_dims(o, axes=[0, 2, 1, 3])\n            out = R.reshape(ot, (2, 100, 1024))\n"
                                       "            R.output(out)\n        return out\n", "R.Tensor((2, 100, 1024), \"float16\", \"cuda\")"));
  REQUIRE(merged.codes().empty());
  std::string text = driver::printAfter(merged.module(), "OffloadLibraries", &error);
  CHECK(error.empty());
  // Q, K and V read where the reshapes left them, the output written in the merging permute's layout.
  CHECK(text.find("\"tvms.attention?q=0,2,1,3&k=0,2,1,3&v=0,2,1,3&o=0,2,1,3&scale=0.125&causal=0\",\n                (qr, kr, vr),") != std::string::npos);
  for (const char* gone : {"R.permute_dims", "R.nn.softmax", "R.multiply", "R.matmul"}) CHECK(text.find(gone) == std::string::npos);
  auto calls = runtime::parseAttentionCallName("tvms.attention?q=0,2,1,3&k=0,2,1,3&v=0,2,1,3&o=0,2,1,3&scale=0.125&causal=0");
  CHECK(calls.kAxes == std::vector<int64_t>{0, 2, 1, 3});
  CHECK(calls.scale == 0.125);
  CHECK_THROWS_AS(runtime::parseAttentionCallName("tvms.attention?q=0,2,1,3"), std::runtime_error);
  // Scores read twice stay unfused (cuBLAS and the softmax kernel).
  auto twice = test::lower(moduleWith("            s2 = R.add(sc, sc)\n            R.output(o, s2)\n        return (o, s2)\n",
                                      "R.Tuple(R.Tensor((2, 16, 100, 64), \"float16\", \"cuda\"), R.Tensor((2, 16, 100, 100), \"float16\", \"cuda\"))"));
  REQUIRE(twice.codes().empty());
  std::string kept = driver::printAfter(twice.module(), "OffloadLibraries", &error);
  CHECK(kept.find("tvms.attention") == std::string::npos);
  CHECK(kept.find("R.nn.softmax") != std::string::npos);
  // A key broadcast over the batch (matmul allows it; the kernel reads one batch per query's) stays unfused.
  auto broadcast = test::lower(
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n"
      "    def main(q: R.Tensor((2, 4, 100, 64), \"float16\", \"cuda\"), kt: R.Tensor((1, 4, 64, 100), \"float16\", \"cuda\"), "
      "v: R.Tensor((2, 4, 100, 64), \"float16\", \"cuda\")) -> R.Tensor((2, 4, 100, 64), \"float16\", \"cuda\"):\n"
      "        p = R.nn.softmax(R.matmul(q, kt), axis=-1)\n        o = R.matmul(p, v)\n        return o\n");
  REQUIRE(broadcast.codes().empty());
  CHECK(driver::printAfter(broadcast.module(), "OffloadLibraries", &error).find("tvms.attention") == std::string::npos);
  // R.nn.attention over (batch, sequence, heads, features), with its causal mask; not on a CPU vdevice.
  auto op = test::lower(
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n"
      "    def main(q: R.Tensor((1, 70, 3, 128), \"bfloat16\", \"cuda\"), k: R.Tensor((1, 90, 3, 128), \"bfloat16\", \"cuda\"), "
      "v: R.Tensor((1, 90, 3, 128), \"bfloat16\", \"cuda\")) -> R.Tensor((1, 70, 3, 128), \"bfloat16\", \"cuda\"):\n"
      "        o = R.nn.attention(q, k, v, scale=0.5, causal_mask=\"BottomRight\")\n        return o\n");
  REQUIRE(op.codes().empty());
  CHECK(driver::printAfter(op.module(), "OffloadLibraries", &error).find("\"tvms.attention?q=0,2,1,3&k=0,2,1,3&v=0,2,1,3&o=0,2,1,3&scale=0.5&causal=2\"") !=
        std::string::npos);
  // The VM reads each library call's attributes once, when it loads the executable: a malformed call
  // fails the load with the call named, not a run halfway through.
  driver::BuildResult built = driver::build(op.module(), {});
  REQUIRE(built.exe);
  REQUIRE(built.exe->libraryFunctions.size() == 1);
  std::shared_ptr<runtime::DeviceAPI> host = runtime::makeCpuDevice(0);  // the VM meets the devices only when it runs
  auto load = [&] { runtime::VirtualMachine vm(*built.exe, std::vector<std::shared_ptr<runtime::DeviceAPI>>{host}); };
  CHECK_NOTHROW(load());
  runtime::LibraryCall call = runtime::readLibraryCall(built.exe->libraryFunctions[0]);
  REQUIRE(std::holds_alternative<runtime::AttentionAttrs>(call.attrs));
  CHECK(std::get<runtime::AttentionAttrs>(call.attrs).causal == 2);
  CHECK(std::get<runtime::AttentionAttrs>(call.attrs).scale == 0.5);
  built.exe->libraryFunctions[0] = "tvms.attention?q=0,2,1,3";
  CHECK_THROWS_WITH_AS(load(), "tvms.attention: a malformed call 'tvms.attention?q=0,2,1,3'", std::runtime_error);
  built.exe->libraryFunctions[0] = "tvms.nothing?x=1";
  CHECK_THROWS_WITH_AS(load(), "library function tvms.nothing?x=1 is not in this build of tvms", std::runtime_error);
  driver::BuildOptions remapped;
  remapped.remap = {{"cuda:0", "cpu"}};
  remapped.afterPass = [&](const std::string& pass, const std::string& t) { if (pass == "OffloadLibraries") kept = t; };
  driver::build(op.module(), remapped);
  CHECK(kept.find("tvms.attention") == std::string::npos);
  // float32 takes its own kernel (full float32 on the CUDA cores); 96 features have no instance.
  for (int features : {64, 96}) {
    INFO(features << " features");
    const std::string t = "R.Tensor((1, 70, 3, " + std::to_string(features) + "), \"float32\", \"cuda\")";
    auto f32 = test::lower("from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
                           "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n"
                           "    def main(q: " + t + ", k: " + t + ", v: " + t + ") -> " + t + ":\n        o = R.nn.attention(q, k, v, causal_mask=\"TopLeft\")\n        return o\n");
    REQUIRE(f32.codes().empty());
    CHECK((driver::printAfter(f32.module(), "OffloadLibraries", &error).find("tvms.attention?q=0,2,1,3") != std::string::npos) == (features == 64));
  }
}

TEST_CASE("offload: cases cuDNN does not take keep their generated kernel") {
  std::string text = test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/seed_conv2d_offload.py");
  size_t p = text.find("padding=");
  REQUIRE(p != std::string::npos);
  size_t end = text.find(')', p);
  text.replace(p, end - p + 1, "padding=(1, 1, 0, 0)");  // asymmetric: cuDNN pads both sides alike
  auto lowered = test::lower(text);
  std::string error;
  std::string out = driver::printAfter(lowered.module(), "OffloadLibraries", &error);
  CHECK(out.find("call_dps_packed") == std::string::npos);
  CHECK(out.find("R.nn.conv2d") != std::string::npos);
}

TEST_CASE("cuda backend: kernels build to PTX without a GPU and the PTX is cached by content") {
  // NVRTC is part of the CUDA Toolkit on the machines that run these tests; no GPU is needed.
  std::string dir = "/tmp/tvms-test-cache-" + std::to_string(::getpid());
  ::setenv("TVMS_CACHE_DIR", dir.c_str(), 1);
  auto lowered = test::lower(kExpOnCudaAndCpu);
  driver::BuildOptions o;
  o.compileKernels = false;
  o.buildModules = true;
  driver::BuildResult first = driver::build(lowered.module(), o);
  INFO((first.errors.empty() ? "" : first.errors[0]));
  REQUIRE(first.exe);
  auto cuda = std::find_if(first.exe->modules.begin(), first.exe->modules.end(), [](auto& m) { return m.kind == "cuda"; });
  REQUIRE(cuda != first.exe->modules.end());
  runtime::CudaModuleImage image = runtime::parseCudaModule(cuda->blob);
  CHECK(image.ptx.find(".entry tvmsk_exp_l0") != std::string::npos);
  CHECK(image.source.find("__global__") != std::string::npos);
  REQUIRE(image.kernels.size() == 1);
  CHECK(image.kernels[0].launches[0].blockThreads == 256);
  std::vector<std::filesystem::path> entries;
  for (auto& e : std::filesystem::directory_iterator(dir + "/cuda")) entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  // A damaged entry is compiled again and replaced, never used.
  { std::ofstream(entries[0], std::ios::trunc) << "// tvms ptx cache v1 0000000000000000\ngarbage"; }
  driver::BuildResult second = driver::build(lowered.module(), o);
  REQUIRE(second.exe);
  auto again = std::find_if(second.exe->modules.begin(), second.exe->modules.end(), [](auto& m) { return m.kind == "cuda"; });
  CHECK(runtime::parseCudaModule(again->blob).ptx == image.ptx);
  std::ifstream repaired(entries[0]);
  std::string text((std::istreambuf_iterator<char>(repaired)), {});
  CHECK(text.find("garbage") == std::string::npos);
  ::unsetenv("TVMS_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

TEST_CASE("cuda backend: the grid program follows the kernel's symbolic dims") {
  std::vector<int64_t> program = {static_cast<int64_t>(runtime::DimOp::Dim), 0, static_cast<int64_t>(runtime::DimOp::Const), 255,
                                  static_cast<int64_t>(runtime::DimOp::Add), static_cast<int64_t>(runtime::DimOp::Const), 256,
                                  static_cast<int64_t>(runtime::DimOp::FloorDiv)};
  int64_t dims[] = {1000};
  CHECK(runtime::evalDimProgram(program, dims, 1) == 4);
  dims[0] = 1024;
  CHECK(runtime::evalDimProgram(program, dims, 1) == 4);
  CHECK_THROWS_AS(runtime::evalDimProgram({static_cast<int64_t>(runtime::DimOp::Dim), 3}, dims, 1), std::runtime_error);
  CHECK_THROWS_AS(runtime::parseCudaModule({'x'}), std::runtime_error);
}

TEST_CASE("compile and run: bfloat16 and float16 matmul and softmax, on the CPU and on cuda") {
  const char* target = std::getenv("TVMS_TEST_TARGET");
  bool gpu = target && std::string(target) == "cuda";
  bool offload = !(std::getenv("TVMS_TEST_OFFLOAD") && std::string(std::getenv("TVMS_TEST_OFFLOAD")) == "0");
  for (const char* dtype : {"bfloat16", "float16"}) {
    INFO(dtype);
    bool bf16 = std::string(dtype) == "bfloat16";
    std::string t = std::string("\"") + dtype + "\"";
    std::string text = test::module("a: R.Tensor((3, 37, 64), " + t + "), b: R.Tensor((64, 29), " + t + ")",
                                    "R.Tuple(R.Tensor((3, 37, 29), " + t + "), R.Tensor((3, 37, 29), " + t + "))",
                                    "        c = R.matmul(a, b)\n        d = R.nn.softmax(c)\n        return (c, d)\n");
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1, 1);
    Host h;
    auto tensor = [&](std::vector<int64_t> shape) {
      runtime::NDArray a;
      a.dtype = bf16 ? runtime::DType::BF16 : runtime::DType::F16;
      a.shape = std::move(shape);
      a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
      auto* p = static_cast<uint16_t*>(a.data());
      for (int64_t i = 0; i < a.numel(); ++i) p[i] = bf16 ? runtime::floatToBf16(u(rng)) : runtime::floatToHalf(u(rng));
      return a;
    };
    auto value = [&](const runtime::NDArray& a, int64_t i) {
      uint16_t v = static_cast<const uint16_t*>(a.data())[i];
      return static_cast<double>(bf16 ? runtime::bf16ToFloat(v) : runtime::halfToFloat(v));
    };
    auto a = tensor({3, 37, 64}), b = tensor({64, 29});
    Run r = test::compileAndRun(text, {a, b});
    // On cuda with offload the matmul is cuBLAS's (tensor cores); on a CPU with offload a bfloat16 one
    // is tvms.cpu.matmul_bf16 where the host has its dot products; otherwise the generated kernel's
    // (the CPU's GEMM computing in float32 on the 16-bit values).
    bool cpuLibrary = !gpu && offload && bf16 && tir::Target::host().vectorBits >= 512 && runtime::bestBf16GemmKernel() != runtime::Bf16GemmKernel::Portable;
    std::vector<std::string> expected;
    if (gpu && offload) expected = {"tvms.cublas.matmul"};
    if (cpuLibrary) expected = {"tvms.cpu.matmul_bf16"};
    CHECK(r.exe.libraryFunctions == expected);
    REQUIRE(r.outputs.size() == 2);
    double tol = bf16 ? 2e-2 : 2e-3;  // the outputs' own rounding: 8 (bf16) or 11 (fp16) bits of mantissa
    double worstMatmul = 0, worstSoftmax = 0;
    for (int64_t row = 0; row < 3 * 37; ++row) {
      double mx = -1e30, sum = 0;
      for (int64_t j = 0; j < 29; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 64; ++k) want += value(a, row * 64 + k) * value(b, k * 29 + j);
        worstMatmul = std::max(worstMatmul, std::abs(value(r.outputs[0], row * 29 + j) - want) / std::max(1.0, std::abs(want)));
        mx = std::max(mx, value(r.outputs[0], row * 29 + j));
      }
      // The softmax of what the softmax kernel read: the 16-bit c the matmul produced.
      for (int64_t j = 0; j < 29; ++j) sum += std::exp(value(r.outputs[0], row * 29 + j) - mx);
      for (int64_t j = 0; j < 29; ++j) {
        double want = std::exp(value(r.outputs[0], row * 29 + j) - mx) / sum;
        worstSoftmax = std::max(worstSoftmax, std::abs(value(r.outputs[1], row * 29 + j) - want));
      }
    }
    CHECK(worstMatmul < tol);
    CHECK(worstSoftmax < tol);
  }
}

TEST_CASE("gpu schedule: launches bound to blockIdx and threadIdx, 4 elements per thread when flat, a warp per row or a block per total for reductions") {
  std::string cudaModule =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((512, 64), \"float32\"), y: R.Tensor((512, 64), \"float32\")) -> R.Tensor((512, 64), \"float32\"):\n"
      "        s = R.add(x, y)\n        p = R.nn.softmax(s)\n        m = R.argmax(p, axis=1)\n        t = R.sum(p)\n        return p\n";
  auto lowered = test::lower(cudaModule);
  REQUIRE(lowered.codes().empty());
  std::string error;
  std::string text = driver::printAfter(lowered.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  // add: flat, 4 elements a block apart in each thread.
  CHECK(text.find("for bx in T.thread_binding(32, thread=\"blockIdx.x\"):") != std::string::npos);
  CHECK(text.find("for e in T.unroll(4):") != std::string::npos);
  CHECK(text.find("if ((((bx * 1024) + tx) + (e * 256)) < 32768):") != std::string::npos);
  // softmax: a warp per row, its max and sum combined across the lanes.
  CHECK(text.find("mx = T.tvm_warp_allreduce(mx, \"max\")") != std::string::npos);
  CHECK(text.find("sum = T.tvm_warp_allreduce(sum, \"+\")") != std::string::npos);
  CHECK(text.find("for k_lane in T.serial(T.floordiv(((64 - T.floormod(tx, 32)) + 31), 32)):") != std::string::npos);
  // A reduction of everything: one block, its warps' totals combined through shared memory.
  CHECK(text.find("acc_warps = T.alloc_buffer((8,), \"float32\", scope=\"shared\")") != std::string::npos);
  CHECK(text.find("for i0_lane in T.serial(T.floordiv(((512 - tx) + 255), 256)):") != std::string::npos);
  CHECK(text.find("T.tvm_storage_sync(\"shared\")") != std::string::npos);
  // The CUDA C has the shuffles; argmax (not a combiner reduction) keeps a thread per output.
  driver::BuildOptions o;
  o.compileKernels = false;
  o.emit = "cuda";
  driver::BuildResult b = driver::build(lowered.module(), o);
  INFO((b.errors.empty() ? "" : b.errors[0]));
  REQUIRE(b.exe);
  CHECK(b.kernelText.find("for (int o = 16; o > 0; o >>= 1) ") != std::string::npos);
  CHECK(b.kernelText.find("__shfl_xor_sync(0xffffffffu, ") != std::string::npos);
  CHECK(b.kernelText.find("__syncthreads();") != std::string::npos);
  CHECK(b.kernelText.find("__shared__ float b2[8];") != std::string::npos);
  CHECK(b.kernelText.find("extern \"C\" __global__ void __launch_bounds__(256) tvmsk_argmax_l0(") != std::string::npos);
}

TEST_CASE("gpu schedule: a flat launch over 16-bit elements gives each thread 8 adjacent ones, loaded into registers before any store") {
  std::string cudaModule =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((3000,), \"float16\")) -> R.Tensor((3000,), \"float16\"):\n"
      "        g = R.nn.gelu(x)\n        return g\n";
  auto lowered = test::lower(cudaModule);
  REQUIRE(lowered.codes().empty());
  std::string error;
  std::string text = driver::printAfter(lowered.module(), "LegalizeOps", &error);
  CHECK(error.empty());
  // 3000 elements, 2048 per block: 2 blocks; a whole group of 8 without checks, the last with one each.
  CHECK(text.find("for bx in T.thread_binding(2, thread=\"blockIdx.x\"):") != std::string::npos);
  CHECK(text.find("if (((((bx * 256) + tx) * 8) + 8) <= 3000):") != std::string::npos);
  CHECK(text.find("staged = T.alloc_buffer((8,), \"float16\", scope=\"local\")") != std::string::npos);
  CHECK(text.find("if (((((bx * 256) + tx) * 8) + e_tail) < 3000):") != std::string::npos);
  // The CUDA C tells the compiler its buffers are 16-byte aligned.
  driver::BuildOptions o;
  o.compileKernels = false;
  o.emit = "cuda";
  driver::BuildResult b = driver::build(lowered.module(), o);
  REQUIRE(b.exe);
  CHECK(b.kernelText.find("= (unsigned short*)__builtin_assume_aligned(") != std::string::npos);
}

TEST_CASE("cuda backend: every truncation or corruption of a cuda module is a clear error") {
  runtime::CudaModuleImage image;
  image.ptx = ".version 9.0\n.target sm_75\n";
  image.source = "extern \"C\" __global__ void k_l0() {}";
  runtime::CudaKernelInfo k;
  k.name = "tvmsk_k";
  k.buffers = 2;
  k.dims = 1;
  k.launches.push_back({"k_l0", {static_cast<int64_t>(runtime::DimOp::Dim), 0}, 256});
  image.kernels.push_back(k);
  std::vector<char> blob = runtime::serializeCudaModule(image);
  runtime::CudaModuleImage back = runtime::parseCudaModule(blob);
  REQUIRE(back.kernels.size() == 1);
  CHECK(back.kernels[0].launches[0].function == "k_l0");
  CHECK(back.kernels[0].launches[0].blockThreads == 256);
  CHECK(back.ptx == image.ptx);
  for (size_t cut = 0; cut < blob.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_THROWS_AS(runtime::parseCudaModule(std::vector<char>(blob.begin(), blob.begin() + static_cast<long>(cut))), std::runtime_error);
  }
  std::vector<char> badBlock = blob;
  badBlock[badBlock.size() - 8] = 0;  // the block size: 0 threads
  badBlock[badBlock.size() - 7] = 0;
  CHECK_THROWS_AS(runtime::parseCudaModule(badBlock), std::runtime_error);
}

TEST_CASE("devices: a vdevice remapped to another device of a kind, or to the CPU") {
  runtime::DeviceSlot slot{"cuda", 2, 1, "global", "cuda:1", ""};
  CHECK(runtime::deviceFor(slot, {}).kind == "cuda");
  CHECK(runtime::deviceFor(slot, {}).index == 1);
  auto shared = runtime::deviceFor(slot, {{"cuda:1", "cuda:0"}});
  CHECK(shared.kind == "cuda");
  CHECK(shared.index == 0);
  // Kernels built for cuda (an artifact built without the remap) never go to a CPU device; built
  // for the CPU (the remap given when compiling), they do.
  CHECK_THROWS_WITH(runtime::deviceFor(slot, {{"cuda:1", "cpu"}}), doctest::Contains("are cuda code, which a cpu device cannot run"));
  runtime::DeviceSlot builtForCpu = slot;
  builtForCpu.builtFor = "cpu";
  CHECK(runtime::deviceFor(builtForCpu, {{"cuda:1", "cpu"}}).kind == "llvm");
  CHECK_THROWS_WITH(runtime::deviceFor(slot, {{"cuda:1", "cuda:x"}}), doctest::Contains("expected cpu, a kind, or KIND:INDEX"));
  // The two-GPU pipeline on the CPU equals the same MLP on one device.
  std::string two = test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/mlp_two_gpus.py");
  std::string one = two;
  for (size_t p; (p = one.find("\"cuda:1\"")) != std::string::npos;) one.replace(p, 8, "\"cuda:0\"");
  one.replace(one.find("I.vdevice(\"cuda\", 0), I.vdevice(\"cuda\", 1)"), 42, "I.vdevice(\"cuda\", 0)");
  std::mt19937 rng(5);
  Host h;
  auto x = h.tensor({256, 512}, rng), w1 = h.tensor({512, 1024}, rng), b1 = h.tensor({1024}, rng), w2 = h.tensor({1024, 10}, rng);
  Run a = test::compileAndRun(two, {x, w1, b1, w2}, {{"cuda:0", "cpu"}, {"cuda:1", "cpu"}});
  Run b = test::compileAndRun(one, {x, w1, b1, w2}, {{"cuda:0", "cpu"}});
  CHECK(a.stats.copies == 1);
  CHECK(a.stats.bytesCopied == 256 * 1024 * 4);
  std::vector<double> want;
  for (int64_t i = 0; i < b.outputs[0].numel(); ++i) want.push_back(test::at(b.outputs[0], i));
  test::checkClose(a.outputs[0], want, 0);
}
