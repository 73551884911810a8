#pragma once
// Test helpers for the compile-and-run tests: host tensors of fresh random values, building a module
// through the whole pipeline and running main on the VM, comparing against float64 references.
#include <map>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "compiler/driver/pipeline.h"
#include "runtime/vm.h"

namespace tvms::test {

struct Host {
  std::shared_ptr<runtime::DeviceAPI> device = runtime::makeCpuDevice(-1);
  runtime::NDArray tensor(std::vector<int64_t> shape, std::mt19937& rng, double lo = -1, double hi = 1);
  // An int64 tensor holding `values` (row-major).
  runtime::NDArray ints(std::vector<int64_t> shape, const std::vector<int64_t>& values);
};

// A seed drawn afresh each run, or TVMS_TEST_SEED's when set (to rerun a failure).
uint32_t freshSeed();
// Declares `name`, a generator from a fresh seed, and attaches the seed to every failure report of
// the enclosing test case ("random seed N (rerun with TVMS_TEST_SEED=N)").
#define TVMS_FRESH_RNG(name)                                                                        \
  const uint32_t name##Seed = ::tvms::test::freshSeed();                                            \
  INFO("random seed " << name##Seed << " (rerun with TVMS_TEST_SEED=" << name##Seed << ")"); \
  std::mt19937 name(name##Seed)
float at(const runtime::NDArray& a, int64_t i);
// Element i of a host tensor of any dtype, as a double.
double elementAsDouble(const runtime::NDArray& a, int64_t i);

struct Run {
  runtime::Executable exe;
  std::vector<runtime::NDArray> outputs;
  runtime::RunStats stats;
  int64_t allocations = 0, reuses = 0;
};

// Builds `text` (which must lint clean), runs main on `inputs`; REQUIREs that both work. Outputs
// come back in host memory, wherever they were computed. TVMS_TEST_OFFLOAD=0 builds without
// OffloadLibraries (the GPU's own matmul and conv kernels instead of cuBLAS / cuDNN).
Run compileAndRun(const std::string& text, std::vector<runtime::NDArray> inputs, std::map<std::string, std::string> remap = {});
// Whether the modules compileAndRun builds take library epilogues (cuBLASLt's bias after a matmul):
// on cuda (TVMS_TEST_TARGET=cuda) with offload on.
bool libraryEpilogues();
// The options compileAndRun builds with: `remap`, OffloadLibraries off with TVMS_TEST_OFFLOAD=0.
driver::BuildOptions testOptions(const std::map<std::string, std::string>& remap = {});
// A function's result as host tensors: a tensor, or a tuple's tensor fields.
std::vector<runtime::NDArray> hostOutputs(runtime::VirtualMachine& vm, const runtime::Value& out);
// Builds `text` (which must lint clean) with `options` and runs main on `inputs`.
Run compileAndRunWith(const std::string& text, const std::vector<runtime::NDArray>& inputs, const driver::BuildOptions& options);
// Same dtype and shape, every element within `tol` (relative past 1; NaN where the other has NaN).
void checkSame(const runtime::NDArray& got, const runtime::NDArray& want, double tol);
// The module after LegalizeOps as `tvms build --print-after=LegalizeOps` prints it (with `options`),
// its import comments made imports again: a module tvms reads back.
std::string printedAfterLegalizeOps(const ir::IRModule& m, driver::BuildOptions options);
// max |got - want| / max(1, |want|) over all elements is within tol.
void checkClose(const runtime::NDArray& got, const std::vector<double>& want, double tol = 2e-5);
// R.Tensor(shape, dtype) as TVMScript: T("(2, 3)") is R.Tensor((2, 3), "float32").
inline std::string T(const std::string& shape, const std::string& dtype = "\"float32\"") { return "R.Tensor(" + shape + ", " + dtype + ")"; }
// A module of one function main(params) -> ret with `body` (indented 8 spaces). With
// TVMS_TEST_TARGET=cuda it declares one vdevice, cuda:0, so every kernel is built for the GPU.
std::string module(const std::string& params, const std::string& ret, const std::string& body);

}  // namespace tvms::test
