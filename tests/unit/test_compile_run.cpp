// The compiler and the VM end to end on the CPU: every op with a kernel against a float64 reference
// computed here, on fresh random inputs each run; multi-vdevice modules against their single-device
// twins; storage reuse; bad inputs as clear errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "compiler/codegen/backend.h"
#include "compiler/driver/pipeline.h"
#include "compiler/transform/legalize_ops.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/kernel_prims.h"
#include "compiler/transform/rewriter.h"
#include "runtime/vm.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::Host;
using test::Run;
using test::at;
using test::checkClose;
using test::compileAndRun;
using test::module;

std::vector<double> matmulRef(const runtime::NDArray& a, const runtime::NDArray& b, int64_t batch, int64_t M, int64_t K, int64_t N, bool batchedB) {
  std::vector<double> c(static_cast<size_t>(batch * M * N));
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += double(at(a, p * M * K + i * K + k)) * at(b, (batchedB ? p * K * N : 0) + k * N + j);
        c[static_cast<size_t>(p * M * N + i * N + j)] = s;
      }
  return c;
}

}  // namespace

TEST_CASE("compile and run: unary ops against float64 references") {
  TVMS_FRESH_RNG(rng);
  Host h;
  struct U { const char* op; std::function<double(double)> f; double lo, hi; };
  const U ops[] = {
      {"R.exp", [](double x) { return std::exp(x); }, -3, 3}, {"R.log", [](double x) { return std::log(x); }, 0.1, 5},
      {"R.sqrt", [](double x) { return std::sqrt(x); }, 0, 9}, {"R.tanh", [](double x) { return std::tanh(x); }, -4, 4},
      {"R.sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -6, 6}, {"R.abs", [](double x) { return std::abs(x); }, -2, 2},
      {"R.negative", [](double x) { return -x; }, -2, 2}, {"R.floor", [](double x) { return std::floor(x); }, -5, 5},
      {"R.square", [](double x) { return x * x; }, -3, 3}, {"R.nn.relu", [](double x) { return std::max(x, 0.0); }, -2, 2},
      {"R.nn.relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }, -3, 9},
      {"R.nn.silu", [](double x) { return x / (1 + std::exp(-x)); }, -4, 4},
      {"R.nn.gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -3, 3},
      {"R.ceil", [](double x) { return std::ceil(x); }, -5, 5}, {"R.trunc", [](double x) { return std::trunc(x); }, -5, 5},
      {"R.round", [](double x) { return std::nearbyint(x); }, -5, 5}, {"R.sign", [](double x) { return (x > 0) - (x < 0); }, -2, 2},
      {"R.sin", [](double x) { return std::sin(x); }, -3, 3}, {"R.cos", [](double x) { return std::cos(x); }, -3, 3},
      {"R.tan", [](double x) { return std::tan(x); }, -1.2, 1.2}, {"R.erf", [](double x) { return std::erf(x); }, -2, 2},
      {"R.rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.5, 4}, {"R.asin", [](double x) { return std::asin(x); }, -0.99, 0.99},
      {"R.acos", [](double x) { return std::acos(x); }, -0.99, 0.99}, {"R.atan", [](double x) { return std::atan(x); }, -4, 4},
      {"R.sinh", [](double x) { return std::sinh(x); }, -3, 3}, {"R.cosh", [](double x) { return std::cosh(x); }, -3, 3},
      {"R.asinh", [](double x) { return std::asinh(x); }, -4, 4}, {"R.acosh", [](double x) { return std::acosh(x); }, 1, 5},
      {"R.atanh", [](double x) { return std::atanh(x); }, -0.9, 0.9},
  };
  for (auto& u : ops) {
    INFO(u.op);
    auto x = h.tensor({37, 53}, rng, u.lo, u.hi);
    Run r = compileAndRun(module("x: R.Tensor((37, 53), \"float32\")", "R.Tensor((37, 53), \"float32\")",
                                 std::string("        y = ") + u.op + "(x)\n        return y\n"), {x});
    std::vector<double> want;
    for (int64_t i = 0; i < x.numel(); ++i) want.push_back(u.f(at(x, i)));
    checkClose(r.outputs.at(0), want, 1e-5);
  }
}

TEST_CASE("compile and run: binary ops, broadcasting, inlined constants") {
  TVMS_FRESH_RNG(rng);
  Host h;
  auto a = h.tensor({8, 1, 33}, rng), b = h.tensor({5, 33}, rng, 0.5, 2);
  struct B { const char* op; std::function<double(double, double)> f; };
  const B ops[] = {{"R.add", [](double x, double y) { return x + y; }}, {"R.subtract", [](double x, double y) { return x - y; }},
                   {"R.multiply", [](double x, double y) { return x * y; }}, {"R.divide", [](double x, double y) { return x / y; }},
                   {"R.maximum", [](double x, double y) { return std::max(x, y); }}, {"R.minimum", [](double x, double y) { return std::min(x, y); }},
                   {"R.power", [](double x, double y) { return std::pow(std::abs(x), y); }}};
  for (auto& o : ops) {
    INFO(o.op);
    std::string lhs = std::string(o.op) == "R.power" ? "R.abs(a)" : "a";
    Run r = compileAndRun(module("a: R.Tensor((8, 1, 33), \"float32\"), b: R.Tensor((5, 33), \"float32\")", "R.Tensor((8, 5, 33), \"float32\")",
                                 std::string("        y = ") + o.op + "(" + lhs + ", b)\n        return y\n"), {a, b});
    std::vector<double> want;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 33; ++k) want.push_back(o.f(at(a, i * 33 + k), at(b, j * 33 + k)));
    checkClose(r.outputs.at(0), want, 1e-5);
  }
  // Same shapes take the flat loop; a constant and a Python number are inlined.
  auto x = h.tensor({100003}, rng), y = h.tensor({100003}, rng);
  Run r = compileAndRun(module("x: R.Tensor((100003,), \"float32\"), y: R.Tensor((100003,), \"float32\")", "R.Tensor((100003,), \"float32\")",
                               "        z = R.add(R.multiply(x, R.const(3, \"float32\")), y)\n        w = z - 1.5\n        return w\n"),
                        {x, y});
  std::vector<double> want;
  for (int64_t i = 0; i < x.numel(); ++i) want.push_back(double(at(x, i)) * 3 + at(y, i) - 1.5);
  checkClose(r.outputs.at(0), want);
}

TEST_CASE("compile and run: matmul (tiles and edges, batches), reductions, softmax, reshape") {
  TVMS_FRESH_RNG(rng);
  Host h;
  for (auto [M, K, N] : {std::array<int64_t, 3>{37, 45, 70}, {64, 128, 32}, {3, 5, 2}, {130, 67, 97}, {20, 600, 45}, {9, 257, 33}}) {
    auto a = h.tensor({M, K}, rng), b = h.tensor({K, N}, rng);
    auto dims = [](int64_t x, int64_t y) { return "(" + std::to_string(x) + ", " + std::to_string(y) + ")"; };
    Run r = compileAndRun(module("a: R.Tensor(" + dims(M, K) + ", \"float32\"), b: R.Tensor(" + dims(K, N) + ", \"float32\")",
                                 "R.Tensor(" + dims(M, N) + ", \"float32\")", "        c = R.matmul(a, b)\n        return c\n"),
                          {a, b});
    checkClose(r.outputs.at(0), matmulRef(a, b, 1, M, K, N, false), 1e-4);
  }
  auto a = h.tensor({3, 9, 20}, rng), b = h.tensor({3, 20, 40}, rng);
  Run r = compileAndRun(module("a: R.Tensor((3, 9, 20), \"float32\"), b: R.Tensor((3, 20, 40), \"float32\")", "R.Tensor((3, 9, 40), \"float32\")",
                               "        c = R.matmul(a, b)\n        return c\n"), {a, b});
  checkClose(r.outputs.at(0), matmulRef(a, b, 3, 9, 20, 40, true), 1e-4);

  auto x = h.tensor({6, 7, 5}, rng);
  Run red = compileAndRun(module("x: R.Tensor((6, 7, 5), \"float32\")", "R.Tuple(R.Tensor((6, 5), \"float32\"), R.Tensor((6, 1, 5), \"float32\"), R.Tensor((), \"float32\"), R.Tensor((6, 7, 5), \"float32\"), R.Tensor((35, 6), \"float32\"))",
                                 "        s = R.sum(x, axis=[1])\n        m = R.max(x, axis=[1], keepdims=True)\n        a = R.mean(x)\n"
                                 "        p = R.nn.softmax(x, axis=1)\n        q = R.reshape(x, (35, 6))\n        return (s, m, a, p, q)\n"),
                          {x});
  std::vector<double> sum, mx, soft, all{0};
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 5; ++k) {
      double s = 0, m = -INFINITY;
      for (int j = 0; j < 7; ++j) { s += at(x, (i * 7 + j) * 5 + k); m = std::max(m, double(at(x, (i * 7 + j) * 5 + k))); }
      sum.push_back(s);
      mx.push_back(m);
    }
  for (int64_t i = 0; i < x.numel(); ++i) all[0] += at(x, i) / double(x.numel());
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j)
      for (int k = 0; k < 5; ++k) {
        double e = 0;
        for (int jj = 0; jj < 7; ++jj) e += std::exp(double(at(x, (i * 7 + jj) * 5 + k)) - mx[i * 5 + k]);
        soft.push_back(std::exp(double(at(x, (i * 7 + j) * 5 + k)) - mx[i * 5 + k]) / e);
      }
  std::vector<double> same;
  for (int64_t i = 0; i < x.numel(); ++i) same.push_back(at(x, i));
  REQUIRE(red.outputs.size() == 5);
  checkClose(red.outputs[0], sum);
  checkClose(red.outputs[1], mx);
  checkClose(red.outputs[2], all);
  checkClose(red.outputs[3], soft);
  checkClose(red.outputs[4], same, 0);
  CHECK(red.outputs[4].shape == std::vector<int64_t>{35, 6});
}

TEST_CASE("compile and run: permute_dims with axes and reversed") {
  // Dims of 35 and 70 cross the CPU schedule's 32x32 transpose tiles with remainders on both loops.
  TVMS_FRESH_RNG(rng);
  Host h;
  auto x = h.tensor({35, 4, 70}, rng);
  Run r = compileAndRun(module("x: R.Tensor((35, 4, 70), \"float32\")", "R.Tuple(R.Tensor((70, 35, 4), \"float32\"), R.Tensor((70, 4, 35), \"float32\"))",
                               "        p = R.permute_dims(x, axes=[2, 0, 1])\n        q = R.permute_dims(x)\n        return (p, q)\n"),
                        {x});
  std::vector<double> p, q;
  for (int k = 0; k < 70; ++k)
    for (int i = 0; i < 35; ++i)
      for (int j = 0; j < 4; ++j) p.push_back(at(x, (i * 4 + j) * 70 + k));
  for (int k = 0; k < 70; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 35; ++i) q.push_back(at(x, (i * 4 + j) * 70 + k));
  REQUIRE(r.outputs.size() == 2);
  checkClose(r.outputs[0], p, 0);
  checkClose(r.outputs[1], q, 0);
}

TEST_CASE("compile and run: a module with two CPU vdevices equals its single-device twin: copies are real") {
  TVMS_FRESH_RNG(rng);
  Host h;
  std::string two = test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/multi_cpu.py");
  std::string one = two;
  for (std::string from : {"\"llvm:1\"", "\"llvm:0\""})
    for (size_t p; (p = one.find(from)) != std::string::npos;) one.replace(p, from.size(), "\"llvm\"");
  one.replace(one.find("I.vdevice(\"llvm\", 0), I.vdevice(\"llvm\", 1)"), 42, "I.vdevice(\"llvm\", 0)");
  auto x = h.tensor({64, 128}, rng), y = h.tensor({128, 32}, rng), z = h.tensor({32, 16}, rng);
  Run a = compileAndRun(two, {x, y, z});
  Run b = compileAndRun(one, {x, y, z});
  REQUIRE(a.exe.devices.size() == 2);
  REQUIRE(b.exe.devices.size() == 1);
  CHECK(a.outputs[0].slot() == 1);
  CHECK(a.stats.copies == 1);                       // lv0 moved from llvm:0 to llvm:1
  CHECK(a.stats.bytesCopied == 64 * 32 * 4);
  CHECK(a.stats.kernelCalls == std::vector<int64_t>{1, 1});
  CHECK(b.stats.kernelCalls == std::vector<int64_t>{2});
  std::vector<double> want;
  for (int64_t i = 0; i < b.outputs[0].numel(); ++i) want.push_back(at(b.outputs[0], i));
  checkClose(a.outputs[0], want, 0);
}

TEST_CASE("compile and run: storage is reused after a tensor's last use, per device") {
  TVMS_FRESH_RNG(rng);
  Host h;
  auto x = h.tensor({256}, rng);
  driver::BuildOptions unfused = test::testOptions();
  unfused.fuse = false;  // the planner's own test: fused, the chain would be one kernel and one tensor
  Run r = test::compileAndRunWith(module("x: R.Tensor((256,), \"float32\")", "R.Tensor((256,), \"float32\")",
                                   "        a = R.tanh(x)\n        b = R.tanh(a)\n        c = R.tanh(b)\n        d = R.tanh(c)\n        return d\n"),
                            {x}, unfused);
  CHECK(r.allocations == 2);  // a and b; c takes a's storage, d takes b's
  CHECK(r.reuses == 2);
  CHECK(r.exe.kernels.size() == 1);  // four identical tanh kernels are built once
  std::vector<double> want;
  for (int64_t i = 0; i < 256; ++i) want.push_back(std::tanh(std::tanh(std::tanh(std::tanh(double(at(x, i)))))));
  checkClose(r.outputs[0], want, 1e-4);
}

TEST_CASE("compile and run: wrong inputs are clear errors naming the parameter and its struct info") {
  TVMS_FRESH_RNG(rng);
  Host h;
  auto lowered = test::lower(module("x: R.Tensor((\"n\", 8), \"float32\"), y: R.Tensor((\"n\", 8), \"float32\")", "R.Tensor((\"n\", 8), \"float32\")",
                                    "        z = R.add(x, y)\n        return z\n"));
  driver::BuildResult b = driver::build(lowered.module(), {});
  REQUIRE(b.exe);
  runtime::VirtualMachine vm(*b.exe, runtime::openDevices(*b.exe, {}));
  auto ok = h.tensor({5, 8}, rng), badShape = h.tensor({5, 9}, rng), otherN = h.tensor({4, 8}, rng);
  auto error = [&](std::vector<runtime::Value> in, const std::string& fn = "main") {
    try { vm.invoke(fn, std::move(in)); } catch (const std::exception& e) { return std::string(e.what()); }
    return std::string();
  };
  CHECK(error({ok, badShape}).find("input 'y' of main: shape (5, 9); expected R.Tensor((n, 8), dtype=\"float32\"") == 0);
  CHECK(error({ok, otherN}).find("(n is 5 from an earlier input)") != std::string::npos);
  CHECK(error({ok}).find("takes 2 inputs") != std::string::npos);
  runtime::NDArray ints = ok;
  ints.dtype = runtime::DType::I32;  // same bytes, the wrong dtype
  CHECK(error({ok, ints}).find("input 'y' of main: dtype int32; expected R.Tensor((n, 8), dtype=\"float32\"") == 0);
  CHECK(error({ok, ok}, "nope").find("no function 'nope'") == 0);
  auto out = std::get<runtime::NDArray>(vm.invoke("main", {ok, ok}));
  CHECK(out.shape == std::vector<int64_t>{5, 8});
}

TEST_CASE("compile: a vdevice this build cannot compile for is a clear error with the remap hint") {
  std::string text = test::readFile(std::string(TVMS_CORPUS_DIR) + "/run/cpu_gpu_mlp.py");
  for (std::string from : {"\"cuda\"", "cuda:0"})
    for (size_t p; (p = text.find(from)) != std::string::npos;) text.replace(p, from.size(), from[0] == '"' ? "\"metal\"" : "metal:0");
  auto lowered = test::lower(text);
  REQUIRE(lowered.codes().empty());
  driver::BuildResult b = driver::build(lowered.module(), {});
  REQUIRE_FALSE(b.exe);
  REQUIRE_FALSE(b.errors.empty());
  CHECK(b.errors[0].find("--device metal:0=cpu") != std::string::npos);
  driver::BuildOptions o;
  o.remap = {{"metal:0", "cpu"}};
  CHECK(driver::build(lowered.module(), o).exe);
}

TEST_CASE("codegen: the inner loops of elementwise and matmul kernels vectorize (vector types in the O3 IR)") {
  auto lowered = test::lower(module("a: R.Tensor((4096,), \"float32\"), b: R.Tensor((256, 256), \"float32\")", "R.Tuple(R.Tensor((4096,), \"float32\"), R.Tensor((256, 256), \"float32\"))",
                                    "        c = R.add(a, a)\n        d = R.matmul(b, b)\n        return (c, d)\n"));
  // The kernels of LegalizeOps, compiled to IR the way the JIT compiles them.
  transform::LegalizedModule legal = transform::legalizeOps(transform::realizeVDevice(transform::normalize(lowered.module())));
  REQUIRE(legal.kernels.size() == 2);
  for (auto& k : legal.kernels) {
    std::string ir = codegen::backendFor("llvm")->emit({k}, k.target, "llvm");
    INFO(k.name);
    CHECK(ir.find(" x float>") != std::string::npos);
  }
}

// Normalize makes equal struct infos one object (ir::StructInfoInterner): the passes after it hold
// one per distinct value, not one per variable (a 1 MB module's build: 31.5 -> 27.8 MiB).
TEST_CASE("normalize: variables of equal struct info share one object, and unequal ones do not") {
  auto lowered = test::lower(test::module("x: R.Tensor((\"n\", 8), \"float32\"), y: R.Tensor((\"n\", 8), \"float32\")",
                                          "R.Tensor((\"n\", 8), \"float32\")",
                                          "        a = R.exp(x)\n        b = R.add(a, y)\n"
                                          "        c: R.Tensor((\"n\", 8), \"float32\") = R.nn.relu(b)\n"
                                          "        d = R.astype(c, \"float16\")\n        e = R.astype(d, \"float32\")\n        return e\n"));
  REQUIRE(lowered.codes().empty());
  ir::IRModule m = transform::normalize(lowered.module());
  const ir::Function& main = *m.function("main")->relax;
  std::map<std::string, const ir::StructInfo*> sinfo;
  for (auto& p : main.params) sinfo[p->name] = p->annotation.get();
  transform::forEachBinding(main, [&](const ir::Binding& b) { sinfo[b.vars[0]->name] = b.vars[0]->annotation.get(); });
  REQUIRE(sinfo.size() == 7);
  for (const char* v : {"y", "a", "b", "c", "e"}) {
    INFO(v);
    CHECK(sinfo[v] == sinfo["x"]);
  }
  CHECK(sinfo["d"] != sinfo["x"]);
  CHECK(sinfo["d"]->dtype == "float16");
  CHECK(main.retAnnotation.get() == sinfo["x"]);
}

// LowerToVM releases the variables that die at one binding in the order of their first use: the
// bytecode must not follow where the heap put the variables (an unordered map's order did).
TEST_CASE("lower to vm: values dying at one binding are released in the order of their first use") {
  std::string body;
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    body += "        a" + n + " = R.exp(x)\n        b" + n + " = R.sin(x)\n        c" + n + " = R.add(a" + n + ", b" + n + ")\n";
  }
  body += "        s = R.add(c0, c1)\n";
  for (int i = 2; i < 12; ++i) body += "        s = R.add(c" + std::to_string(i) + ", s)\n";
  body += "        return s\n";
  auto lowered = test::lower(test::module("x: R.Tensor((4,), \"float32\")", "R.Tensor((4,), \"float32\")", body));
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o = test::testOptions();
  o.fuse = false;  // one kernel call per binding: each add is where its two operands die
  o.compileKernels = false;
  o.stopAfter = "LowerToVM";
  std::string text;
  o.afterPass = [&](const std::string& p, const std::string& t) { if (p == "LowerToVM") text = t; };
  driver::build(lowered.module(), o);
  REQUIRE(!text.empty());
  // Each add is the first and last use of both its operands, which were defined in the order they are
  // read (a_i before b_i, every c_i before s): consecutive releases free ascending registers.
  int pairs = 0, previous = -1;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto at = line.find(": release ");
    if (at == std::string::npos) {
      previous = -1;
      continue;
    }
    int reg = std::stoi(line.substr(at + 10));
    if (previous >= 0) {
      INFO(line);
      CHECK(previous < reg);
      ++pairs;
    }
    previous = reg;
  }
  CHECK(pairs >= 12);
}

TEST_CASE("legalize: every call of one kernel names the same GlobalVar (as TVM's one per function), and KernelRefs one tir_vars per kernel") {
  auto lowered = test::lower(module("a: R.Tensor((\"n\", 8), \"float32\")", "R.Tensor((\"n\", 8), \"float32\")",
                                    "        b = R.exp(a)\n        c = R.exp(b)\n        d = R.exp(c)\n        return d\n"));
  transform::LegalizedModule legal = transform::legalizeOps(transform::realizeVDevice(transform::normalize(lowered.module())));
  std::vector<const ir::Call*> calls;
  for (auto& f : legal.module.functions)
    if (f.relax)
      transform::forEachBinding(*f.relax, [&](const ir::Binding& b) {
        if (auto* c = ir::as<ir::Call>(b.value); c && c->def == &op::builtin::callTir()) calls.push_back(c);
      });
  REQUIRE(calls.size() == 3);
  for (auto* c : calls) {
    CHECK(c->args[0] == calls[0]->args[0]);  // one kernel (the same shapes), one GlobalVar
    CHECK(ir::as<ir::GlobalVar>(c->args[0])->name == ir::as<ir::GlobalVar>(calls[0]->args[0])->name);
  }
  // tir_vars: one ShapeExpr per kernel, none for a kernel without free dims.
  transform::KernelRefs refs;
  const ir::ExprPtr& first = refs.tirVars("k", {"n", "m"});
  REQUIRE(first);
  CHECK(refs.tirVars("k", {"n", "m"}) == first);
  CHECK(refs.tirVars("other", {"n", "m"}) != first);
  CHECK_FALSE(refs.tirVars("none", {}));
  CHECK(refs.globalVar("k") == refs.globalVar("k"));
  CHECK(refs.globalVar("k") != refs.globalVar("other"));
}
