// Users' T.prim_funcs compiled and run (compiler/frontend/lower_tir.cpp): Relax calls them through
// R.call_tir; each kernel's results against a float64 reference computed here, on fresh random
// inputs. With TVMS_TEST_TARGET=cuda the same modules are built for cuda:0 (the `gpu` entries).
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <cstdlib>
#include <cstring>

#include "compiler/driver/pipeline.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;
using test::Host;

bool onCuda() {
  const char* t = std::getenv("TVMS_TEST_TARGET");
  return t && std::string(t) == "cuda";
}

// A module of prim_funcs (each indented 4) and a Relax main (its def line and body, indented 4),
// importing tir as T (or, as TVM's printer does today, tirx).
std::string tirModule(const std::string& prims, const std::string& main, bool tirx = false) {
  std::string vdevices = onCuda() ? "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n" : "";
  return "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import " + std::string(tirx ? "tirx" : "tir") + " as T\n\n\n"
         "@I.ir_module\nclass Module:\n" + vdevices + prims + "\n    @R.function\n" + main;
}

// A main calling prim_func `func` once on a 1-D float32 tensor of `n` elements.
std::string oneCallMain(const std::string& func, int n) {
  std::string t = "R.Tensor((" + std::to_string(n) + ",), \"float32\")";
  return "    def main(x: " + t + ") -> " + t + ":\n        cls = Module\n        y = R.call_tir(cls." + func + ", (x,), out_sinfo=" + t +
         ")\n        return y\n";
}

// The errors of building `text` (which lint reports no error for: a prim_func tvms does not read is a
// TVS011 note) without compiling its kernels.
std::vector<std::string> buildErrors(const std::string& text) {
  auto lowered = test::lower(text);
  for (auto& code : lowered.codes()) CHECK(code == "TVS011");
  driver::BuildOptions o;
  o.compileKernels = false;
  return driver::build(lowered.module(), o).errors;
}

const char* kBlocks = R"(    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func(private=True)
    def matmul(A: T.Buffer((4, 8), "float32"), W: T.Buffer((8, 3), "float32"), C: T.Buffer((4, 3), "float32")):
        for i, j, k in T.grid(4, 3, 8):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.spatial(3, j)
                vk = T.axis.reduce(8, k)
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]
)";

}  // namespace

TEST_CASE("compile and run: user T.prim_funcs with blocks (spatial, T.init reduction) called through R.call_tir") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(kBlocks, R"(    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4, 8), "float32"))
        z = R.call_tir(cls.matmul, (y, w), out_sinfo=R.Tensor((4, 3), "float32"))
        return z
)");
  auto x = h.tensor({4, 8}, rng), w = h.tensor({8, 3}, rng);
  auto r = compileAndRun(text, {x, w});
  std::vector<double> want(12);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 8; ++k) want[i * 3 + j] += (double(at(x, i * 8 + k)) + 1) * at(w, k * 3 + j);
  checkClose(r.outputs.at(0), want, 1e-5);
  CHECK(r.exe.kernels.size() == 2);
}

TEST_CASE("compile and run: a user T.prim_func of symbolic shape binds its dims from its arguments' shapes") {
  TVMS_FRESH_RNG(rng);
  Host h;
  // The prim_func's n and the Relax function's m are different names: the call binds n = m.
  std::string text = tirModule(R"(    @T.prim_func
    def scale_rows(a: T.handle, s: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 4), "float32")
        S = T.match_buffer(s, (n,), "float32")
        B = T.match_buffer(b, (n, 4), "float32")
        for i in range(n):
            for j in T.serial(4):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] * S[vi]
)",
                               R"(    def main(x: R.Tensor(("m", 4), "float32"), s: R.Tensor(("m",), "float32")) -> R.Tensor(("m", 4), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.scale_rows, (x, s), out_sinfo=R.Tensor((m, 4), "float32"))
        return y
)");
  for (int64_t m : {1, 5, 33}) {
    auto x = h.tensor({m, 4}, rng), s = h.tensor({m}, rng);
    auto r = compileAndRun(text, {x, s});
    std::vector<double> want(static_cast<size_t>(m * 4));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < 4; ++j) want[static_cast<size_t>(i * 4 + j)] = double(at(x, i * 4 + j)) * at(s, i);
    checkClose(r.outputs.at(0), want, 1e-6);
  }
}

TEST_CASE("compile and run: a user T.prim_func without blocks: lets, if/elif/else, intrinsics, casts, a local buffer") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def rowwise(A: T.Buffer((3, 16), "float32"), B: T.Buffer((3, 16), "float32"), M: T.Buffer((3,), "float32")):
        acc = T.alloc_buffer((1,), "float32", scope="local")
        for i in range(3):
            acc[0] = T.min_value("float32")
            for j in range(16):
                acc[0] = T.max(acc[0], A[i, j])
            M[i] = acc[0]
            for j in range(16):
                v = A[i, j] - acc[0]
                if j % 2 == 0:
                    B[i, j] = T.exp(v)
                elif j == 15:
                    B[i, j] = T.float32(-7)
                else:
                    B[i, j] = T.if_then_else(v > T.float32(-0.5), T.Cast("float32", j), T.sqrt(-v) * 2.0)
)",
                               R"(    def main(x: R.Tensor((3, 16), "float32")) -> R.Tuple(R.Tensor((3, 16), "float32"), R.Tensor((3,), "float32")):
        cls = Module
        y = R.call_tir(cls.rowwise, (x,), out_sinfo=[R.Tensor((3, 16), "float32"), R.Tensor((3,), "float32")])
        return y
)");
  auto x = h.tensor({3, 16}, rng);
  auto r = compileAndRun(text, {x});
  REQUIRE(r.outputs.size() == 2);
  std::vector<double> b(48), m(3);
  for (int i = 0; i < 3; ++i) {
    double mx = -1e30;
    for (int j = 0; j < 16; ++j) mx = std::max(mx, double(at(x, i * 16 + j)));
    m[i] = mx;
    for (int j = 0; j < 16; ++j) {
      double v = double(at(x, i * 16 + j)) - mx;
      b[i * 16 + j] = j % 2 == 0 ? std::exp(v) : j == 15 ? -7.0 : (v > -0.5 ? double(j) : std::sqrt(-v) * 2.0);
    }
  }
  checkClose(r.outputs[0], b, 1e-5);
  checkClose(r.outputs[1], m, 0);
}

TEST_CASE("compile and run: a user T.prim_func named like a generated kernel, called twice, beside ops") {
  TVMS_FRESH_RNG(rng);
  Host h;
  // `add` is also the name LegalizeOps would give R.add's kernel: both must keep their own code.
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        for i in T.parallel(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = A[vi] * T.float32(10) + B[vi]
)",
                               R"(    def main(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        a = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((8,), "float32"))
        b = R.add(a, y)
        c = R.call_tir(cls.add, (b, x), out_sinfo=R.Tensor((8,), "float32"))
        return c
)");
  auto x = h.tensor({8}, rng), y = h.tensor({8}, rng);
  auto r = compileAndRun(text, {x, y});
  std::vector<double> want(8);
  for (int i = 0; i < 8; ++i) {
    double a = 10.0 * at(x, i) + at(y, i), b = a + at(y, i);
    want[i] = 10.0 * b + at(x, i);
  }
  checkClose(r.outputs.at(0), want, 1e-5);
  CHECK(r.exe.kernels.size() == 2);  // the prim_func once, R.add's kernel under another name
}

TEST_CASE("compile and run: a T.prim_func tvms does not read is a build error naming the line, and a TVS011 note in lint, never a lint error") {
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def loops(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.call_extern("float32", "my_vendor_fn", A[i])
)",
                               oneCallMain("loops", 8));
  CHECK(test::lower(text).codes() == std::vector<std::string>{"TVS011"});  // a note where it is written
  auto errors = buildErrors(text);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("R.call_tir of 'loops' (bound to 'y'): line ") != std::string::npos);
  CHECK(errors[0].find(": tvms does not compile the call T.call_extern in a prim_func expression yet") != std::string::npos);
}

TEST_CASE("compile and run: a user kernel bound to GPU threads runs on a CPU vdevice as serial loops, unless its threads cooperate") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string main = oneCallMain("copy", 64);
  std::string bound = tirModule(R"(    @T.prim_func(private=True)
    def copy(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(3)
)",
                                main);
  auto x = h.tensor({64}, rng);
  auto r = compileAndRun(bound, {x});
  std::vector<double> want(64);
  for (int i = 0; i < 64; ++i) want[i] = 3.0 * at(x, i);
  checkClose(r.outputs.at(0), want, 1e-6);
  if (onCuda()) return;
  // Threads that share memory and wait for each other cannot run one after another.
  std::string shared = tirModule(R"(    @T.prim_func(private=True)
    def copy(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        S = T.alloc_buffer((32,), "float32", scope="shared")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                S[tx] = A[bx * 32 + tx]
                T.tvm_storage_sync("shared")
                B[bx * 32 + tx] = S[31 - tx]
)",
                                 main);
  auto errors = buildErrors(shared);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("its GPU threads share memory or wait at a barrier") != std::string::npos);
}

TEST_CASE("compile and run: prim_funcs as TVM's LegalizeOps prints them (tirx, T.sblock, T.int64 shapes, symbolic match_buffer)") {
  TVMS_FRESH_RNG(rng);
  Host h;
  // The broadcasting add of a (1, c, d) and an (a, b, c, 1) tensor, written the way TVM prints it.
  std::string text = tirModule(R"(    @T.prim_func(private=True, s_tir=True)
    def add(var_rxplaceholder: T.handle, var_rxplaceholder_1: T.handle, var_T_add: T.handle):
        T.func_attr({"tirx.noalias": True})
        a = T.int64()
        b = T.int64()
        c = T.int64()
        d = T.int64()
        rxplaceholder = T.match_buffer(var_rxplaceholder, [T.int64(1), c, d], dtype="float32")
        rxplaceholder_1 = T.match_buffer(var_rxplaceholder_1, [a, b, c, T.int64(1)], dtype="float32")
        T_add = T.match_buffer(var_T_add, [a, b, c, d], dtype="float32")
        for i0, i1, i2, i3 in T.grid(a, b, c, d):
            with T.sblock("T_add"):
                ax0, ax1, ax2, ax3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(rxplaceholder[T.int64(0), ax2, ax3], rxplaceholder_1[ax0, ax1, ax2, T.int64(0)])
                T.writes(T_add[ax0, ax1, ax2, ax3])
                T_add[ax0, ax1, ax2, ax3] = rxplaceholder[T.int64(0), ax2, ax3] + rxplaceholder_1[ax0, ax1, ax2, T.int64(0)]

    @T.prim_func(private=True, s_tir=True)
    def sum(rxplaceholder: T.Buffer((T.int64(2), T.int64(3), T.int64(4), T.int64(5)), "float32"), rxplaceholder_red: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(5), T.int64(3), T.int64(4)):
            with T.sblock("rxplaceholder_red"):
                ax0, ax1, k1, k2 = T.axis.remap("SSRR", [i0, i1, i2, i3])
                T.reads(rxplaceholder[ax0, k1, k2, ax1])
                T.writes(rxplaceholder_red[ax0, ax1])
                with T.init():
                    rxplaceholder_red[ax0, ax1] = T.float32(0)
                rxplaceholder_red[ax0, ax1] = rxplaceholder_red[ax0, ax1] + rxplaceholder[ax0, k1, k2, ax1]
)",
                               R"(    def main(x: R.Tensor((1, "c", "d"), "float32"), y: R.Tensor(("a", "b", "c", 1), "float32"), z: R.Tensor((2, 3, 4, 5), "float32")):
        a = T.int64()
        b = T.int64()
        c = T.int64()
        d = T.int64()
        cls = Module
        gv = R.call_tir(cls.add, (x, y), R.Tensor((a, b, c, d), dtype="float32"))
        s = R.call_tir(cls.sum, (z,), R.Tensor((2, 5), dtype="float32"))
        return (gv, s)
)",
                               true);
  const int64_t A = 2, B = 3, C = 4, D = 5;
  auto x = h.tensor({1, C, D}, rng), y = h.tensor({A, B, C, 1}, rng), z = h.tensor({2, 3, 4, 5}, rng);
  auto r = compileAndRun(text, {x, y, z});
  REQUIRE(r.outputs.size() == 2);
  std::vector<double> add(static_cast<size_t>(A * B * C * D)), sum(10);
  for (int64_t i = 0; i < A; ++i)
    for (int64_t j = 0; j < B; ++j)
      for (int64_t k = 0; k < C; ++k)
        for (int64_t l = 0; l < D; ++l)
          add[static_cast<size_t>(((i * B + j) * C + k) * D + l)] = double(at(x, k * D + l)) + at(y, (i * B + j) * C + k);
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < 5; ++l)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) sum[i * 5 + l] += at(z, ((i * 3 + j) * 4 + k) * 5 + l);
  checkClose(r.outputs[0], add, 1e-6);
  checkClose(r.outputs[1], sum, 1e-5);
}

namespace {

// Variables renamed v0, v1, ... in order of first appearance in each kernel: the reader numbers a kernel's variables
// in the order the text declares them, the op builders in the order they made them.
std::string canonicalVariables(const std::string& source) {
  std::map<std::string, std::string> names;
  std::string out;
  for (size_t i = 0; i < source.size();) {
    if (source.compare(i, 10, "__global__") == 0) names.clear();  // each kernel numbers its own
    bool start = source[i] == 'v' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(source[i - 1])) || source[i - 1] == '_'));
    size_t j = i + 1;
    while (start && j < source.size() && std::isdigit(static_cast<unsigned char>(source[j]))) ++j;
    if (start && j > i + 1 && (j == source.size() || !(std::isalnum(static_cast<unsigned char>(source[j])) || source[j] == '_'))) {
      std::string v = source.substr(i, j - i);
      auto it = names.emplace(v, "v" + std::to_string(names.size())).first;
      out += it->second;
      i = j;
      continue;
    }
    out += source[i++];
  }
  return out;
}

std::string cudaSource(const std::string& text, const driver::BuildOptions& base) {
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o = base;
  o.emit = "cuda";
  auto b = driver::build(lowered.module(), o);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.errors.empty());
  return b.kernelText;
}

}  // namespace

TEST_CASE("tir round trip: GPU kernels (thread bindings, shared memory, warp reductions) printed after LegalizeOps read back to the same CUDA") {
  // Built here through NVRTC-free emission (--emit=cuda): no GPU needed.
  driver::BuildOptions o;
  o.compileKernels = false;
  o.offload = false;  // the GPU's own matmul / conv kernels, not cuBLAS / cuDNN
  const char* head = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                     "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n    @R.function\n";
  const char* bodies[] = {
      // per-row reductions (a warp or a block per output), softmax, a full reduction, a matmul, a conv
      "    def main(x: R.Tensor((64, 1000), \"float32\", \"cuda\")):\n        y = R.nn.softmax(x, axis=-1)\n        s = R.sum(x)\n        return (y, s)\n",
      "    def main(x: R.Tensor((300, 40), \"float32\", \"cuda\"), g: R.Tensor((40,), \"float32\", \"cuda\"), b: R.Tensor((40,), \"float32\", \"cuda\")):\n"
      "        y = R.nn.layer_norm(x, g, b, axes=[-1])\n        m = R.max(x, axis=0)\n        return (y, m)\n",
      "    def main(a: R.Tensor((64, 96), \"float32\", \"cuda\"), w: R.Tensor((96, 32), \"float32\", \"cuda\")):\n        y = R.matmul(a, w)\n        return y\n",
      "    def main(x: R.Tensor((2, 3, 16, 16), \"float32\", \"cuda\"), w: R.Tensor((8, 3, 3, 3), \"float32\", \"cuda\")):\n"
      "        y = R.nn.conv2d(x, w, padding=[1, 1])\n        return y\n",
  };
  for (const char* body : bodies) {
    std::string text = std::string(head) + body;
    INFO(text);
    std::string printed = test::printedAfterLegalizeOps(test::lower(text).module(), o);
    INFO("printed:\n" << printed);
    REQUIRE(printed.find("T.thread_binding") != std::string::npos);
    CHECK(canonicalVariables(cudaSource(printed, o)) == canonicalVariables(cudaSource(text, o)));
  }
}

TEST_CASE("compile and run: symbolic dims declared together (n, m = T.int64(), T.int64()) and a shape written as an expression of them") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func
    def correlate(a: T.handle, k: T.handle, o: T.handle):
        n, m = T.int64(), T.int64()
        A = T.match_buffer(a, (n,))
        K = T.match_buffer(k, (m,))
        O = T.match_buffer(o, (n - m + T.int64(1),))
        for i, j in T.grid(n - m + T.int64(1), m):
            with T.block("O"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    O[vi] = T.float32(0)
                O[vi] = O[vi] + A[vi + vj] * K[vj]
)",
                               R"(    def main(x: R.Tensor(("p",), "float32"), k: R.Tensor(("q",), "float32")) -> R.Tensor(("p - q + 1",), "float32"):
        p = T.int64()
        q = T.int64()
        cls = Module
        y = R.call_tir(cls.correlate, (x, k), out_sinfo=R.Tensor((p - q + 1,), "float32"))
        return y
)");
  CHECK(test::lower(text).codes().empty());  // no TVS003 for the symbols declared together
  auto x = h.tensor({10}, rng), k = h.tensor({3}, rng);
  auto r = compileAndRun(text, {x, k});
  std::vector<double> want(8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 3; ++j) want[i] += double(at(x, i + j)) * at(k, j);
  checkClose(r.outputs.at(0), want, 1e-6);
}

TEST_CASE("compile and run: R.call_tir_inplace writes into its argument (one output in place, one new) and later ops see it") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def scale_and_sum(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), S: T.Buffer((1,), "float32")):
        S[0] = T.float32(0)
        for i in range(8):
            A[i] = A[i] * B[i]
            S[0] = S[0] + A[i]
)",
                               R"(    def main(x: R.Tensor((8,), "float32"), w: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((1,), "float32")):
        cls = Module
        a = R.add(x, x)
        y = R.call_tir_inplace(cls.scale_and_sum, (a, w), inplace_indices=[0, -1], out_sinfo=[R.Tensor((8,), "float32"), R.Tensor((1,), "float32")])
        scaled = y[0]
        z = R.add(scaled, x)
        return (z, y[1])
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({8}, rng), w = h.tensor({8}, rng);
  auto r = compileAndRun(text, {x, w});
  REQUIRE(r.outputs.size() == 2);
  std::vector<double> z(8), s(1);
  for (int i = 0; i < 8; ++i) {
    double a = 2.0 * at(x, i) * at(w, i);
    z[i] = a + at(x, i);
    s[0] += a;
  }
  checkClose(r.outputs[0], z, 1e-5);
  checkClose(r.outputs[1], s, 1e-5);
}

namespace {

// A matmul tiled by hand for a GPU: 2-D blocks of 16x16 threads, tiles staged in shared memory between
// barriers (its threads cooperate: it runs on a cuda vdevice only).
const char* kTiledMatmul = R"(    @T.prim_func(private=True)
    def tiled(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        As = T.alloc_buffer((16, 16), "float32", scope="shared")
        Bs = T.alloc_buffer((16, 16), "float32", scope="shared")
        acc = T.alloc_buffer((1,), "float32", scope="local")
        for by in T.thread_binding(4, thread="blockIdx.y"):
            for bx in T.thread_binding(4, thread="blockIdx.x"):
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        acc[0] = T.float32(0)
                        for k0 in range(4):
                            As[ty, tx] = A[by * 16 + ty, k0 * 16 + tx]
                            Bs[ty, tx] = B[k0 * 16 + ty, bx * 16 + tx]
                            T.tvm_storage_sync("shared")
                            for k1 in range(16):
                                acc[0] = acc[0] + As[ty, k1] * Bs[k1, tx]
                            T.tvm_storage_sync("shared")
                        C[by * 16 + ty, bx * 16 + tx] = acc[0]
)";
const char* kTiledMain = R"(    def main(a: R.Tensor((64, 64), "float32"), b: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):
        cls = Module
        c = R.call_tir(cls.tiled, (a, b), out_sinfo=R.Tensor((64, 64), "float32"))
        return c
)";

}  // namespace

TEST_CASE("compile and run: a matmul tiled by hand (2-D blocks and threads, shared memory, barriers) on the GPU, refused on a CPU") {
  std::string text = tirModule(kTiledMatmul, kTiledMain);
  if (!onCuda()) {
    auto errors = buildErrors(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("share memory or wait at a barrier") != std::string::npos);
    return;
  }
  TVMS_FRESH_RNG(rng);
  Host h;
  auto a = h.tensor({64, 64}, rng), w = h.tensor({64, 64}, rng);
  auto r = compileAndRun(text, {a, w});
  std::vector<double> want(64 * 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      for (int k = 0; k < 64; ++k) want[i * 64 + j] += double(at(a, i * 64 + k)) * at(w, k * 64 + j);
  checkClose(r.outputs.at(0), want, 1e-5);
}

TEST_CASE("tir: a kernel bound to 2-D blocks and threads is launched as one blockIdx.x around one threadIdx.x, and NVRTC compiles it") {
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n\n"
                     "@I.ir_module\nclass Module:\n    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n" +
                     std::string(kTiledMatmul) + "\n    @R.function\n" + kTiledMain;
  // Every tensor of main on the cuda vdevice (the module's only one).
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o;
  o.compileKernels = false;
  o.emit = "cuda";
  o.buildModules = true;  // through NVRTC: the CUDA C is valid
  auto b = driver::build(lowered.module(), o);
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.errors.empty());
  CHECK(b.kernelText.find("__launch_bounds__(256) tvmsk_tiled_l0") != std::string::npos);  // 16 x 16 threads
  CHECK(b.kernelText.find("__shared__ float") != std::string::npos);
  CHECK(b.kernelText.find("__syncthreads();") != std::string::npos);
  REQUIRE(b.exe);
  REQUIRE(b.exe->modules.size() == 1);
}

TEST_CASE("compile and run: integer scalar parameters from R.prim_value and tir_vars, and R.call_tir_inplace with one index") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def shift(A: T.Buffer((8,), "float32"), k: T.int64, B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.Cast("float32", k)

    @T.prim_func(private=True)
    def ramp(a: T.handle, n: T.int64):
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            A[i] = T.Cast("float32", i) * T.float32(2)

    @T.prim_func(private=True)
    def accumulate(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = A[i] + B[i]
)",
                               R"(    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        s = R.call_tir(cls.shift, (x, R.prim_value(T.int64(3))), out_sinfo=R.Tensor((8,), "float32"))
        r = R.call_tir(cls.ramp, (), out_sinfo=R.Tensor((8,), "float32"), tir_vars=R.shape([8]))
        a = R.call_tir_inplace(cls.accumulate, (s, r), 0, out_sinfo=R.Tensor((8,), "float32"))
        return a
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({8}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(8);
  for (int i = 0; i < 8; ++i) want[i] = double(at(x, i)) + 3 + 2.0 * i;
  checkClose(r.outputs.at(0), want, 1e-6);
}

TEST_CASE("tir: a local allocation larger than a kernel's stack holds (or any of more elements than 64 bits count) is a build error, never a crashed run") {
  const char* cases[][2] = {{"(4096, 4096), \"float32\", scope=\"local\"", "16777216 elements (over 1 MiB"},
                            {"(4294967296, 4294967296), \"float32\"", "more elements than 64 bits count"}};
  for (auto& [shape, says] : cases) {
    std::string text = tirModule(std::string(R"(    @T.prim_func(private=True)
    def big(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        tmp = T.alloc_buffer()") + shape + R"()
        for i in range(4):
            tmp[T.Cast("int64", A[i]) % T.int64(4096), i] = A[i]
        for i in range(4):
            B[i] = tmp[T.Cast("int64", A[i]) % T.int64(4096), i]
)",
                                 oneCallMain("big", 4));
    INFO(shape);
    auto errors = buildErrors(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find(says) != std::string::npos);
  }
}

// A global-scope T.alloc_buffer (TVM's default scope) is a workspace the VM allocates for the call:
// written by one loop nest and read by the next, which the default GPU schedule runs as two launches
// (a per-thread array would lose it between them), as large as the device holds, and of symbolic size.
TEST_CASE("compile and run: global T.alloc_buffers are workspaces of the call: shared across loop nests, 64 MiB, of symbolic shape") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func
    def padded_window_sum(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        with T.block("root"):
            acc = T.alloc_buffer((2,), scope="local")
            pad = T.alloc_buffer((n + T.int64(2),))
            big = T.alloc_buffer((T.int64(4096), T.int64(4096)))
            for i in T.grid(n + T.int64(2)):
                with T.block("pad"):
                    vi = T.axis.spatial(n + T.int64(2), i)
                    pad[vi] = T.if_then_else(T.int64(1) <= vi and vi <= n, A[vi - T.int64(1)], T.float32(0))
            for i in range(n):
                with T.block("big"):
                    vi = T.axis.spatial(n, i)
                    big[T.int64(4095), vi % T.int64(4096)] = pad[vi + T.int64(1)] * T.float32(2)
            for i in range(n):
                with T.block("B"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = pad[vi] + pad[vi + T.int64(1)] + pad[vi + T.int64(2)] + big[T.int64(4095), vi % T.int64(4096)]
)",
                               R"(    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.padded_window_sum, (x,), out_sinfo=R.Tensor((m,), "float32"))
        z = R.call_tir(cls.padded_window_sum, (y,), out_sinfo=R.Tensor((m,), "float32"))
        return z
)");
  for (int64_t m : {1, 7, 1000}) {
    auto x = h.tensor({m}, rng);
    auto r = compileAndRun(text, {x});
    auto once = [&](const std::vector<double>& in) {
      std::vector<double> out(in.size());
      for (size_t i = 0; i < in.size(); ++i)
        out[i] = (i ? in[i - 1] : 0) + in[i] + (i + 1 < in.size() ? in[i + 1] : 0) + 2 * in[i];
      return out;
    };
    std::vector<double> in(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) in[static_cast<size_t>(i)] = at(x, i);
    INFO("m = " << m);
    checkClose(r.outputs.at(0), once(once(in)), 1e-5);
  }
}

// The forms TVM's printer gives kernels after its lowering passes: thread launches (T.launch_thread
// naming its tag, or an env thread), with T.let and annotated lets, vector stores of T.ramp and
// T.broadcast, A.shape[i], T.assume, and a parameter's compact strides, offset and alignment.
TEST_CASE("compile and run: lowered TIR forms: T.launch_thread and T.env_thread, T.let, typed lets, T.ramp / T.broadcast, A.shape, T.assume, T.attr, strides") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func
    def launched(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 8), "float32", strides=(8, 1), align=64, offset_factor=1, elem_offset=0)
        B = T.match_buffer(b, (n, 8), "float32")
        bx = T.launch_thread("blockIdx.x", n)
        tx = T.env_thread("threadIdx.x")
        T.launch_thread(tx, 2)
        T.evaluate(T.assume(n > 0))
        T.attr(0, "pragma_scope", "seq")
        with T.let(base, bx * T.int64(8) + tx * T.int64(4)):
            k: T.int64 = base + T.int64(0)
            B[k // T.int64(8), T.ramp(k % T.int64(8), 1, 4)] = A[k // T.int64(8), T.ramp(k % T.int64(8), 1, 4)] * T.broadcast(T.float32(2), 4) + T.Cast("float32", A.shape[1])
)",
                               R"(    def main(x: R.Tensor(("m", 8), "float32")) -> R.Tensor(("m", 8), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.launched, (x,), out_sinfo=R.Tensor((m, 8), "float32"))
        return y
)");
  CHECK(test::lower(text).codes().empty());
  for (int64_t m : {1, 6}) {
    auto x = h.tensor({m, 8}, rng);
    auto r = compileAndRun(text, {x});
    std::vector<double> want(static_cast<size_t>(m * 8));
    for (int64_t i = 0; i < m * 8; ++i) want[static_cast<size_t>(i)] = 2.0 * at(x, i) + 8;
    checkClose(r.outputs.at(0), want, 1e-6);
  }
}

TEST_CASE("tir: strides that are not compact, an element offset and a vector outside a store are build errors naming them") {
  const char* cases[][2] = {{"A = T.match_buffer(a, (4, 8), \"float32\", strides=(16, 1))", "strides (16, 1)"},
                            {"A = T.match_buffer(a, (4, 8), \"float32\", elem_offset=4)", "at an element offset"},
                            {"A = T.match_buffer(a, (4, 8), \"float32\")\n        v = T.ramp(0, 1, 4)", "a vector expression outside a buffer store"}};
  for (auto& [decl, says] : cases) {
    std::string text = tirModule(std::string(R"(    @T.prim_func(private=True)
    def f(a: T.handle, B: T.Buffer((4, 8), "float32")):
        )") + decl + R"(
        for i, j in T.grid(4, 8):
            B[i, j] = A[i, j]
)",
                                 R"(    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 8), "float32"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((4, 8), "float32"))
        return y
)");
    INFO(decl);
    auto errors = buildErrors(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find(says) != std::string::npos);
  }
}

// `while` runs serially as written, its state in a local buffer as TIR keeps mutable values; each
// element's loop here runs a data-dependent number of times (Collatz steps).
TEST_CASE("compile and run: a while loop per element, its counter in a local buffer") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def collatz_steps(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.block("steps"):
                vi = T.axis.spatial(64, i)
                x = T.alloc_buffer((1,), "int64", scope="local")
                x[0] = T.Cast("int64", T.fabs(A[vi]) * T.float32(100)) + T.int64(1)
                B[vi] = T.float32(0)
                while x[0] != T.int64(1):
                    x[0] = T.if_then_else(x[0] % T.int64(2) == T.int64(0), x[0] // T.int64(2), x[0] * T.int64(3) + T.int64(1))
                    B[vi] = B[vi] + T.float32(1)
)",
                               oneCallMain("collatz_steps", 64));
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({64}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(64);
  for (int i = 0; i < 64; ++i) {
    int64_t v = static_cast<int64_t>(std::fabs(at(x, i)) * 100.0f) + 1, steps = 0;
    while (v != 1) {
      v = v % 2 == 0 ? v / 2 : 3 * v + 1;
      ++steps;
    }
    want[static_cast<size_t>(i)] = static_cast<double>(steps);
  }
  checkClose(r.outputs.at(0), want, 0);
}

// TVS405: an accumulation through an axis declared spatial is reported, and built as the reduction it
// is (its loop serial), so the result is right whatever the schedule parallelises.
TEST_CASE("compile and run: a reduction through an axis declared spatial is reported (TVS405) and runs serially, giving the sum") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def row_sum(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64,), "float32")):
        for i, k in T.grid(64, 256):
            with T.block("B"):
                vi, vk = T.axis.remap("SS", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
)",
                               R"(    def main(x: R.Tensor((64, 256), "float32")) -> R.Tensor((64,), "float32"):
        cls = Module
        y = R.call_tir(cls.row_sum, (x,), out_sinfo=R.Tensor((64,), "float32"))
        return y
)");
  CHECK(test::lower(text).codes() == std::vector<std::string>{"TVS405"});
  auto x = h.tensor({64, 256}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(64, 0.0);
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t k = 0; k < 256; ++k) want[static_cast<size_t>(i)] += at(x, i * 256 + k);
  checkClose(r.outputs.at(0), want, 1e-4);
}

// As TVM's printer and tests write them: a prim_func called by its bare name (TVM declares the class's
// functions before their bodies), a rank-1 shape written T.int64(n) without a tuple, rank-0 buffers
// indexed [()], and a block outside any loop (T.axis.spatial(1, 0)).
TEST_CASE("compile and run: a prim_func called by bare name, a T.int64(n) shape, rank-0 buffers and a block outside loops") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func
    def dot_neg(A: T.Buffer(T.int64(16), "float32"), B: T.Buffer(T.int64(16), "float32"), C: T.Buffer((), "float32")):
        acc = T.alloc_buffer([], dtype="float32")
        for i in T.serial(T.int64(16)):
            with T.block("acc"):
                k = T.axis.reduce(T.int64(16), i)
                with T.init():
                    acc[()] = T.float32(0)
                acc[()] = acc[()] + A[k] * B[k]
        with T.block("C"):
            vi = T.axis.spatial(1, T.int64(0))
            T.reads(acc[()])
            T.writes(C[()])
            C[()] = acc[()] * T.float32(-1)
)",
                               R"(    def main(x: R.Tensor((16,), "float32"), y: R.Tensor((16,), "float32")) -> R.Tensor((), "float32"):
        gv = R.call_tir(dot_neg, (x, y), out_sinfo=R.Tensor((), "float32"))
        return gv
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({16}, rng), y = h.tensor({16}, rng);
  auto r = compileAndRun(text, {x, y});
  double want = 0;
  for (int i = 0; i < 16; ++i) want -= double(at(x, i)) * at(y, i);
  checkClose(r.outputs.at(0), {want}, 1e-5);
}

// As TVM's FuseTIR writes kernels: loops over `for iters in T.grid(*X.shape)` remapped from the tuple,
// an intermediate of X.shape; and a Primitive Relax function the user wrote around two call_tirs of a
// user kernel, which fusion leaves as a call of that function (a user's kernel does not fuse).
TEST_CASE("compile and run: T.grid(*X.shape) over a tuple of loop variables, T.alloc_buffer(X.shape), a user's Primitive function") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def twice(X: T.Buffer([T.int64(4), T.int64(8)], "float32"), Z: T.Buffer([T.int64(4), T.int64(8)], "float32")):
        Y = T.alloc_buffer(X.shape, "float32")
        for iters in T.grid(*X.shape):
            with T.block("Y"):
                i, j = T.axis.remap("SS", iters)
                Y[i, j] = X[i, j] * i + j
        for iters in T.grid(*X.shape):
            with T.block("Z"):
                i, j = T.axis.remap("SS", iters)
                Z[i, j] = Y[i, j] * i + j

    @T.prim_func(private=True)
    def once(a: T.handle, b: T.handle):
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(a, [m, n], "float32")
        B = T.match_buffer(b, [m, n], "float32")
        for iters in T.grid(m, n):
            with T.block("compute"):
                i, j = T.axis.remap("SS", iters)
                B[i, j] = A[i, j] * i + j

    @R.function(private=True)
    def fused_once_once(x: R.Tensor([4, 8], "float32")) -> R.Tensor([4, 8], dtype="float32"):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.once, [x], out_sinfo=R.Tensor([4, 8], "float32"))
            z = R.call_tir(cls.once, [y], out_sinfo=R.Tensor([4, 8], "float32"))
            R.output(z)
        return z
)",
                               R"(    def main(x: R.Tensor([4, 8], "float32")) -> R.Tuple(R.Tensor([4, 8], "float32"), R.Tensor([4, 8], "float32")):
        cls = Module
        a = R.call_tir(cls.twice, [x], out_sinfo=R.Tensor([4, 8], "float32"))
        b = cls.fused_once_once(x)
        return (a, b)
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({4, 8}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) want[static_cast<size_t>(i * 8 + j)] = (double(at(x, i * 8 + j)) * i + j) * i + j;
  REQUIRE(r.outputs.size() == 2);
  checkClose(r.outputs[0], want, 1e-5);
  checkClose(r.outputs[1], want, 1e-5);
}

// A module of prim_funcs alone is compiled as TVM's build compiles it: every prim_func, for the target
// its T.func_attr names, else the host; one that cannot be read is an error naming it.
TEST_CASE("tir: prim_funcs no R.call_tir calls are built, for the target T.func_attr names or the host") {
  std::string prims = R"(from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def on_host(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] * T.float32(2)

    @T.prim_func
    def on_gpu(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"target": T.target({"arch": "sm_86", "keys": ["cuda", "gpu"], "kind": "cuda", "tag": ""}), "tir.noalias": True})
        for i in T.thread_binding(8, thread="threadIdx.x"):
            B[i] = A[i] + T.float32(1)
)";
  auto lowered = test::lower(prims);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o;
  o.emit = "cuda";
  driver::BuildResult r = driver::build(lowered.module(), o);
  INFO((r.errors.empty() ? "" : r.errors.front()));
  REQUIRE(r.errors.empty());
  CHECK(r.kernelText.find("tvmsk_on_gpu") != std::string::npos);
  CHECK(r.kernelText.find("tvmsk_on_host") == std::string::npos);  // the host's kernel is LLVM's, not in the CUDA text
  o.emit = "";
  o.compileKernels = false;
  std::string unread = prims + R"(
    @T.prim_func
    def vendor(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.call_extern("float32", "vendor_fn", A[i])
)";
  auto errors = driver::build(test::lower(unread).module(), o).errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("prim_func 'vendor' (built for llvm, as no R.call_tir calls it): line ") != std::string::npos);
}

// A 4-bit weight decode as quantized models write it (TVM's dlight tests): uint32 words holding eight
// nibbles, scales and zeros as bfloat16 bits in uint32 halves, read back with T.shift_right /
// T.bitwise_and / T.shift_left and T.reinterpret; a uint16 copy of each nibble on the side; the
// nibble a let in TVM's newest spelling (`v: T.let[T.uint32] = ...`).
TEST_CASE("compile and run: uint32 / uint16 buffers, bitwise intrinsics and T.reinterpret (an int4 decode)") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def decode(W: T.Buffer((T.int64(2), T.int64(4)), "uint32"), S: T.Buffer((T.int64(1), T.int64(4)), "uint32"), D: T.Buffer((T.int64(16), T.int64(4)), "float32"), N: T.Buffer((T.int64(16), T.int64(4)), "uint16")):
        for i, j in T.grid(T.int64(16), T.int64(4)):
            with T.block("decode"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                nibble: T.let[T.uint32] = T.bitwise_and(T.shift_right(W[v_i // T.int64(8), v_j], T.Cast("uint32", v_i % T.int64(8) * T.int64(4))), T.uint32(15))
                D[v_i, v_j] = T.Cast("float32", nibble) * T.reinterpret("float32", T.shift_left(T.bitwise_and(S[v_i // T.int64(32), v_j], T.uint32(65535)), T.uint32(16))) + T.reinterpret("float32", T.shift_left(T.bitwise_and(T.shift_right(S[v_i // T.int64(32), v_j], T.uint32(16)), T.uint32(65535)), T.uint32(16)))
                N[v_i, v_j] = T.Cast("uint16", T.bitwise_xor(nibble, T.uint32(65535)))
)",
                               R"(    def main(w: R.Tensor((2, 4), "uint32"), s: R.Tensor((1, 4), "uint32")) -> R.Tuple(R.Tensor((16, 4), "float32"), R.Tensor((16, 4), "uint16")):
        cls = Module
        y = R.call_tir(cls.decode, (w, s), out_sinfo=[R.Tensor((16, 4), "float32"), R.Tensor((16, 4), "uint16")])
        return y
)");
  CHECK(test::lower(text).codes().empty());
  auto u32 = [&](std::vector<int64_t> shape, const std::vector<uint32_t>& values) {
    runtime::NDArray a;
    a.dtype = runtime::DType::U32;
    a.shape = std::move(shape);
    a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
    std::memcpy(a.data(), values.data(), a.bytes());
    return a;
  };
  std::vector<uint32_t> words(8), scales(4);
  for (auto& w : words) w = static_cast<uint32_t>(rng());
  for (int j = 0; j < 4; ++j) {  // scale and zero as bfloat16 bits (the high halves of small floats)
    float scale = 0.01f * static_cast<float>(j + 1), zero = -0.5f * static_cast<float>(j);
    uint32_t sb, zb;
    std::memcpy(&sb, &scale, 4);
    std::memcpy(&zb, &zero, 4);
    scales[static_cast<size_t>(j)] = (sb >> 16) | (zb & 0xffff0000u);
  }
  auto r = compileAndRun(text, {u32({2, 4}, words), u32({1, 4}, scales)});
  REQUIRE(r.outputs.size() == 2);
  REQUIRE(r.outputs[1].dtype == runtime::DType::U16);
  std::vector<double> want(64), nibbles(64);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) {
      uint32_t nibble = (words[static_cast<size_t>(i / 8 * 4 + j)] >> (i % 8 * 4)) & 15u;
      uint32_t s = scales[static_cast<size_t>(j)], sb = (s & 0xffffu) << 16, zb = (s >> 16) << 16;
      float scale, zero;
      std::memcpy(&scale, &sb, 4);
      std::memcpy(&zero, &zb, 4);
      want[static_cast<size_t>(i * 4 + j)] = static_cast<double>(static_cast<float>(nibble) * scale + zero);
      nibbles[static_cast<size_t>(i * 4 + j)] = static_cast<double>(static_cast<uint16_t>(nibble ^ 65535u));
    }
  checkClose(r.outputs[0], want, 1e-6);
  checkClose(r.outputs[1], nibbles, 0);
}

// Compaction (tir/compact.h), as TVM's CompactBufferAllocation: a scheduled kernel declares its local
// and shared arrays with the logical shape of what they cache and touches one block's or one thread's
// region of it. A 2 MiB local array indexed by a block's row keeps one row per thread; its indices
// subtract the row (tir: the second case checks the shared one and NVRTC).
TEST_CASE("compile and run: a local array declared at its logical shape (2 MiB) is compacted to the region one thread touches") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def rows(A: T.Buffer((T.int64(1024), T.int64(512)), "float32"), B: T.Buffer((T.int64(1024), T.int64(512)), "float32")):
        A_local = T.alloc_buffer((T.int64(1024), T.int64(512)), scope="local")
        for i in T.thread_binding(T.int64(1024), thread="blockIdx.x"):
            for j in range(T.int64(512)):
                with T.block("A_local"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    A_local[vi, vj] = A[vi, vj] * T.float32(2)
            for j in range(T.int64(512)):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A_local[vi, vj] + A_local[vi, T.int64(511) - vj]
)",
                               R"(    def main(x: R.Tensor((1024, 512), "float32")) -> R.Tensor((1024, 512), "float32"):
        cls = Module
        y = R.call_tir(cls.rows, (x,), out_sinfo=R.Tensor((1024, 512), "float32"))
        return y
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({1024, 512}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(1024 * 512);
  for (int i = 0; i < 1024; ++i)
    for (int j = 0; j < 512; ++j) want[static_cast<size_t>(i * 512 + j)] = 2.0 * at(x, i * 512 + j) + 2.0 * at(x, i * 512 + 511 - j);
  checkClose(r.outputs.at(0), want, 1e-6);
}

// DLight's transpose as its tests print it (sizes of our own): the shared array is declared 512 x 4096
// (8 MiB) and each block stages a 16 x 8 tile. Compacted, it builds (through NVRTC here) and runs on
// cuda; on a CPU it is refused for its cooperating threads, not for its size. As printed by TVM, it
// has no barrier between the stages: tvms inserts it, as TVM's ThreadSync does.
const char* kSharedTranspose = R"(    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(512), T.int64(4096)), "float32"), T_transpose: T.Buffer((T.int64(4096), T.int64(512)), "float32")):
        T.func_attr({"tir.is_scheduled": True, "tir.noalias": True})
        A_shared = T.alloc_buffer((T.int64(512), T.int64(4096)), scope="shared")
        for ax0_0_0 in T.thread_binding(T.int64(512), thread="blockIdx.y", annotations={"pragma_auto_unroll_max_step": 256, "pragma_unroll_explicit": 1}):
            for ax1_0 in T.thread_binding(T.int64(32), thread="blockIdx.x"):
                for ax0_ax1_fused_0 in range(T.int64(1)):
                    for ax0_ax1_fused_1 in T.thread_binding(T.int64(8), thread="threadIdx.y"):
                        for ax0_ax1_fused_2 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                            for ax0_ax1_fused_3 in T.unroll(T.int64(1)):
                                with T.sblock("A_shared"):
                                    v0 = T.axis.spatial(T.int64(512), ax1_0 * T.int64(16) + (ax0_ax1_fused_0 * T.int64(128) + ax0_ax1_fused_1 * T.int64(16) + ax0_ax1_fused_2 + ax0_ax1_fused_3) // T.int64(8))
                                    v1 = T.axis.spatial(T.int64(4096), ax0_0_0 * T.int64(8) + (ax0_ax1_fused_0 * T.int64(128) + ax0_ax1_fused_1 * T.int64(16) + ax0_ax1_fused_2 + ax0_ax1_fused_3) % T.int64(8))
                                    T.reads(A[v0, v1])
                                    T.writes(A_shared[v0, v1])
                                    A_shared[v0, v1] = A[v0, v1]
                for ax0_0_1 in T.thread_binding(T.int64(8), thread="threadIdx.y"):
                    for ax1_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                        with T.sblock("T_transpose"):
                            v0 = T.axis.spatial(T.int64(4096), ax0_0_0 * T.int64(8) + ax0_0_1)
                            v1 = T.axis.spatial(T.int64(512), ax1_0 * T.int64(16) + ax1_1)
                            T.reads(A_shared[v1, v0])
                            T.writes(T_transpose[v0, v1])
                            T_transpose[v0, v1] = A_shared[v1, v0]
)";
const char* kSharedTransposeMain = R"(    def main(x: R.Tensor((512, 4096), "float32")) -> R.Tensor((4096, 512), "float32"):
        cls = Module
        y = R.call_tir(cls.transpose, (x,), out_sinfo=R.Tensor((4096, 512), "float32"))
        return y
)";

TEST_CASE("compile and run: DLight's shared-memory transpose, its 8 MiB shared array compacted to a block's 16 x 8 tile") {
  std::string text = tirModule(kSharedTranspose, kSharedTransposeMain);
  if (!onCuda()) {
    auto errors = buildErrors(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("share memory or wait at a barrier") != std::string::npos);
    // The CUDA it becomes: a 16 x 8 float tile of shared memory, through NVRTC.
    std::string cuda = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n\n"
                       "@I.ir_module\nclass Module:\n    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0)]})\n\n" +
                       std::string(kSharedTranspose) + "\n    @R.function\n" + kSharedTransposeMain;
    auto lowered = test::lower(cuda);
    REQUIRE(lowered.codes().empty());
    driver::BuildOptions o;
    o.compileKernels = false;
    o.emit = "cuda";
    o.buildModules = true;
    auto b = driver::build(lowered.module(), o);
    INFO((b.errors.empty() ? "" : b.errors.front()));
    REQUIRE(b.errors.empty());
    CHECK(b.kernelText.find("__shared__ float b2[128];") != std::string::npos);
    // No barrier is written: the tile's writes and the reads of other threads' elements need one (ThreadSync).
    CHECK(b.kernelText.find("__syncthreads();") != std::string::npos);
    return;
  }
  TVMS_FRESH_RNG(rng);
  Host h;
  auto x = h.tensor({512, 4096}, rng);
  auto r = compileAndRun(text, {x});
  std::vector<double> want(4096 * 512);
  for (int i = 0; i < 4096; ++i)
    for (int j = 0; j < 512; ++j) want[static_cast<size_t>(i * 512 + j)] = at(x, j * 4096 + i);
  checkClose(r.outputs.at(0), want, 0);
}

// As TVM's LegalizeOps writes scatter_elements: T.parallel loops inside a root block with a T.attr
// pragma. On a CPU the block's statements become the kernel's top level, so the loops run on the pool.
TEST_CASE("compile and run: T.parallel loops inside a block (a scatter as TVM legalizes it) run on a CPU") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def scatter(X: T.Buffer((T.int64(64), T.int64(4)), "float32"), U: T.Buffer((T.int64(64),), "float32"), out_buf: T.Buffer((T.int64(64), T.int64(4)), "float32")):
        with T.sblock("scatter_generic"):
            T.attr(0, "pragma_scope", "seq")
            for i in T.parallel(T.int64(256)):
                out_buf[i // T.int64(4), i % T.int64(4)] = X[i // T.int64(4), i % T.int64(4)]
            for fused in T.parallel(T.int64(64)):
                for k in range(T.int64(1)):
                    out_buf[fused, (fused + k) % T.int64(4)] = U[fused]
)",
                               R"(    def main(x: R.Tensor((64, 4), "float32"), u: R.Tensor((64,), "float32")) -> R.Tensor((64, 4), "float32"):
        cls = Module
        y = R.call_tir(cls.scatter, (x, u), out_sinfo=R.Tensor((64, 4), "float32"))
        return y
)");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({64, 4}, rng), u = h.tensor({64}, rng);
  auto r = compileAndRun(text, {x, u});
  std::vector<double> want(256);
  for (int i = 0; i < 256; ++i) want[static_cast<size_t>(i)] = at(x, i);
  for (int f = 0; f < 64; ++f) want[static_cast<size_t>(f * 4 + f % 4)] = at(u, f);
  checkClose(r.outputs.at(0), want, 0);
}

// Float scalar parameters (`s: T.float32`), passed as R.prim_value of a number: their float64 bits
// travel in the dims argument and the kernel reads them back exactly.
TEST_CASE("compile and run: float scalar parameters from R.prim_value(T.float32(...)) and a float64 one") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def axpb(A: T.Buffer(16, "float32"), s: T.float32, b: T.float64, B: T.Buffer(16, "float32")):
        for i in range(16):
            B[i] = A[i] * s + T.Cast("float32", b)
)",
                               R"(    def main(y: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
        cls = Module
        z = R.call_tir(cls.axpb, (y, R.prim_value(T.float32(2.5)), R.prim_value(T.float64(-0.125))), out_sinfo=R.Tensor((16,), "float32"))
        return z
)");
  CHECK(test::lower(text).codes().empty());
  auto y = h.tensor({16}, rng);
  auto r = compileAndRun(text, {y});
  std::vector<double> want(16);
  for (int i = 0; i < 16; ++i) want[static_cast<size_t>(i)] = static_cast<double>(at(y, i) * 2.5f + -0.125f);
  checkClose(r.outputs.at(0), want, 1e-6);
}

// A number the file's Python binds, read inside a prim_func as TVM's parser reads it. (Not a
// "compile and run:" case: users' prim_funcs print as written, so the module printed after
// LegalizeOps names SCALE without the Python that binds it, and the round trip cannot read it back.)
TEST_CASE("tir: a prim_func reading numbers of the file's Python (SCALE = 2.5, OFFSET = 3) compiles and runs") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string text = tirModule(R"(    @T.prim_func(private=True)
    def scaled(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] * SCALE + T.Cast("float32", OFFSET)
)",
                               oneCallMain("scaled", 8));
  text.insert(text.find("\n\n\n@I.ir_module") + 3, "SCALE = 2.5\nOFFSET = 3\n\n\n");
  CHECK(test::lower(text).codes().empty());
  auto x = h.tensor({8}, rng);
  auto r = test::compileAndRunWith(text, {x}, test::testOptions());  // never the round trip (see above)
  std::vector<double> want(8);
  for (int i = 0; i < 8; ++i) want[static_cast<size_t>(i)] = double(at(x, i)) * 2.5 + 3;
  checkClose(r.outputs.at(0), want, 1e-6);
}
