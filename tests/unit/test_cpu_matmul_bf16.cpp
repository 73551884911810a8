// tvms.cpu.matmul_bf16 against a float64 reference on the same bfloat16 values: every block kernel
// this host can run, at odd sizes (rows, columns and K off the 32 x 32 blocks, K of one to several
// blocks, empty K; tasks of one strip and of groups of strips), batched with a shared or a batched B,
// on pools of 1, 2, 3 and the machine's threads. TVMS_TEST_BF16_KERNEL=amx (or avx512bf16, portable) tests that kernel alone and exits 77
// (CTest: skipped) on a host that lacks it; that is how the AMX kernel is run on the device.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/cpu_matmul_bf16.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "tests/support/run_helpers.h"

namespace tvms {

namespace {

using runtime::Bf16GemmKernel;

runtime::NDArray bf16Tensor(test::Host& h, std::vector<int64_t> shape) {
  runtime::NDArray a;
  a.dtype = runtime::DType::BF16;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
  return a;
}

uint16_t* bits(const runtime::NDArray& a) { return static_cast<uint16_t*>(a.data()); }

struct Shape {
  int64_t batch, m, n, k;
  bool batchedB;
};

// C against the float64 product of the same bfloat16 values: within bfloat16's rounding of the result
// (2^-8 relative, twice the half-unit) plus float32's accumulation error over K.
void checkProduct(Bf16GemmKernel kernel, const Shape& s, runtime::ThreadPool& pool, std::mt19937& rng) {
  INFO("kernel " << std::string(runtime::bf16GemmKernelName(kernel)) << ", batch " << s.batch << (s.batchedB ? " (B batched)" : "") << ", M " << s.m << ", N " << s.n << ", K "
                 << s.k << ", threads " << pool.size());
  test::Host h;
  std::vector<int64_t> lead = s.batch > 1 ? std::vector<int64_t>{s.batch} : std::vector<int64_t>{};
  auto dims = [&](bool batched, int64_t r, int64_t c) {
    std::vector<int64_t> d = batched ? lead : std::vector<int64_t>{};
    d.push_back(r);
    d.push_back(c);
    return d;
  };
  runtime::NDArray a = bf16Tensor(h, dims(true, s.m, s.k)), b = bf16Tensor(h, dims(s.batchedB, s.k, s.n)), c = bf16Tensor(h, dims(true, s.m, s.n));
  std::uniform_real_distribution<float> u(-2, 2);
  for (int64_t i = 0; i < a.numel(); ++i) bits(a)[i] = runtime::floatToBf16(u(rng));
  for (int64_t i = 0; i < b.numel(); ++i) bits(b)[i] = runtime::floatToBf16(u(rng));
  for (int64_t i = 0; i < c.numel(); ++i) bits(c)[i] = 0x7fc0;  // NaN: every element must be written
  runtime::matmulBf16(a, b, c, kernel, pool);
  int64_t worstAt = -1;
  double worst = 0;
  for (int64_t bb = 0; bb < s.batch; ++bb)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double want = 0, magnitude = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          double x = runtime::bf16ToFloat(bits(a)[(bb * s.m + i) * s.k + k]);
          double y = runtime::bf16ToFloat(bits(b)[((s.batchedB ? bb : 0) * s.k + k) * s.n + j]);
          want += x * y;
          magnitude += std::abs(x * y);
        }
        int64_t at = (bb * s.m + i) * s.n + j;
        double got = runtime::bf16ToFloat(bits(c)[at]);
        double excess = std::abs(got - want) - (std::ldexp(std::abs(want), -8) + 1e-6 * magnitude);
        if (!(excess <= worst)) {  // (NaN, an element never written, counts)
          worst = std::isnan(excess) ? INFINITY : excess;
          worstAt = at;
        }
      }
  INFO("worst element " << worstAt << " past its bound by " << worst);
  CHECK(worstAt == -1);
}

std::vector<Bf16GemmKernel> kernelsToTest() {
  const char* only = std::getenv("TVMS_TEST_BF16_KERNEL");
  std::vector<Bf16GemmKernel> out;
  for (auto k : {Bf16GemmKernel::Amx, Bf16GemmKernel::Avx512Bf16, Bf16GemmKernel::Portable}) {
    if (only && std::string(only) != runtime::bf16GemmKernelName(k)) continue;
    if (runtime::bf16GemmKernelUsable(k)) out.push_back(k);
    else if (only) {
      MESSAGE("skipped: this CPU cannot run the " << only << " kernel");
      std::exit(77);
    } else MESSAGE("not tested here: this CPU cannot run the " << std::string(runtime::bf16GemmKernelName(k)) << " kernel");
  }
  return out;
}

}  // namespace

TEST_CASE("cpu bf16 matmul: every kernel the host runs, at odd sizes and 1, 2, 3 and all threads, against float64") {
  TVMS_FRESH_RNG(rng);
  const std::vector<Shape> shapes = {
      {1, 1, 1, 1, false},      {1, 7, 17, 33, false},   {1, 33, 31, 15, false}, {1, 32, 32, 32, false},  {2, 65, 100, 64, false},
      {3, 5, 47, 300, true},    {1, 130, 70, 1100, false}, {1, 4, 5, 0, false},    {2, 40, 200, 96, true},
      {1, 40, 260, 2100, false},  // K past 2048: narrow chunks of B, one strip of A a task
  };
  std::vector<Bf16GemmKernel> kernels = kernelsToTest();
  REQUIRE(!kernels.empty());
  for (unsigned threads : {1u, 2u, 3u, 0u}) {
    runtime::ThreadPool pool(threads);  // 0: the machine's usable cores
    for (auto kernel : kernels)
      for (const Shape& s : shapes) checkProduct(kernel, s, pool, rng);
  }
}

TEST_CASE("cpu bf16 matmul: operands the library does not take are refused by name") {
  test::Host h;
  runtime::ThreadPool pool(1);
  auto a = bf16Tensor(h, {4, 8}), b = bf16Tensor(h, {9, 5}), c = bf16Tensor(h, {4, 5});
  CHECK_THROWS_WITH_AS(runtime::matmulBf16(a, b, c, Bf16GemmKernel::Portable, pool), doctest::Contains("do not chain"), std::runtime_error);
  auto b2 = bf16Tensor(h, {8, 5}), wrongC = bf16Tensor(h, {4, 6});
  CHECK_THROWS_WITH_AS(runtime::matmulBf16(a, b2, wrongC, Bf16GemmKernel::Portable, pool), doctest::Contains("is not A's batch dims x M x N"), std::runtime_error);
  auto a3 = bf16Tensor(h, {2, 4, 8}), b3 = bf16Tensor(h, {3, 8, 5}), c3 = bf16Tensor(h, {2, 4, 5});
  CHECK_THROWS_WITH_AS(runtime::matmulBf16(a3, b3, c3, Bf16GemmKernel::Portable, pool), doctest::Contains("batch dims"), std::runtime_error);
}

}  // namespace tvms
