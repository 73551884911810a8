// The CPU GEMM at odd sizes on 1, 2, 3 and all of the machine's threads: the same bits every time
// (each output's K order does not depend on how rows and panels are dealt to threads), and the
// numbers of a float64 product of the same inputs.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime/device_api.h"
#include "runtime/npy.h"
#include "tests/cli/run_tvms.h"

TEST_CASE("cli: the CPU GEMM at odd sizes gives the same bits on 1, 2, 3 and all threads, and float64's numbers") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_threads_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string module = (dir / "mm.py").string();
  std::ofstream(module) << "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                           "    @R.function\n    def main(a: R.Tensor((3, 67, 301), \"float32\"), b: R.Tensor((301, 45), \"float32\")) -> R.Tensor((3, 67, 45), \"float32\"):\n"
                           "        c = R.matmul(a, b)\n        return c\n";
  std::shared_ptr<tvms::runtime::DeviceAPI> host = tvms::runtime::makeCpuDevice(-1);
  std::string first;
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned threads : {1u, 2u, 3u, all}) {
    INFO("threads " << threads);
    ::setenv("TVMS_NUM_THREADS", std::to_string(threads).c_str(), 1);
    std::string out = (dir / ("out" + std::to_string(threads))).string();
    auto r = tvms::test::runTvms({"run", module, "--input", "a=random:5", "--input", "b=random:6", "--output", out, "--no-cache"});
    REQUIRE(r.exitCode == 0);
    std::ifstream f(out + "/c.npy", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    if (first.empty()) first = bytes;
    CHECK(bytes == first);
  }
  ::unsetenv("TVMS_NUM_THREADS");
  // The same seeded inputs, returned by a module that only hands them back, for the float64 product.
  std::string echo = (dir / "echo.py").string();
  std::ofstream(echo) << "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                         "    @R.function\n    def main(a: R.Tensor((3, 67, 301), \"float32\"), b: R.Tensor((301, 45), \"float32\")):\n"
                         "        return (a, b)\n";
  auto e = tvms::test::runTvms({"run", echo, "--input", "a=random:5", "--input", "b=random:6", "--output", (dir / "in").string()});
  REQUIRE(e.exitCode == 0);
  auto a = tvms::runtime::readNpy((dir / "in" / "main_0.npy").string(), host);
  auto b = tvms::runtime::readNpy((dir / "in" / "main_1.npy").string(), host);
  auto c = tvms::runtime::readNpy((dir / "out1" / "c.npy").string(), host);
  const float* pa = static_cast<const float*>(a.data());
  const float* pb = static_cast<const float*>(b.data());
  const float* pc = static_cast<const float*>(c.data());
  double worst = 0;
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t i = 0; i < 67; ++i)
      for (int64_t j = 0; j < 45; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 301; ++k) want += static_cast<double>(pa[(n * 67 + i) * 301 + k]) * pb[k * 45 + j];
        worst = std::max(worst, std::abs(pc[(n * 67 + i) * 45 + j] - want) / std::max(1.0, std::abs(want)));
      }
  CHECK(worst < 1e-5);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: long CPU reductions split over the pool and column sums give the same bits on 1, 2, 3 and all threads, and float64's numbers") {
  // 700 x 1001: a whole-tensor sum and max past the split threshold (parts of whole rows), a column
  // sum in tiles of 256 columns with a remainder.
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_reduce_threads_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string module = (dir / "r.py").string();
  std::ofstream(module) << "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                           "    @R.function\n    def main(a: R.Tensor((700, 1001), \"float32\")):\n"
                           "        s = R.sum(a)\n        m = R.max(a)\n        c = R.sum(a, axis=[0])\n        return (s, m, c)\n";
  std::shared_ptr<tvms::runtime::DeviceAPI> host = tvms::runtime::makeCpuDevice(-1);
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> first(3);
  for (unsigned threads : {1u, 2u, 3u, all}) {
    INFO("threads " << threads);
    ::setenv("TVMS_NUM_THREADS", std::to_string(threads).c_str(), 1);
    std::string out = (dir / ("out" + std::to_string(threads))).string();
    auto r = tvms::test::runTvms({"run", module, "--input", "a=random:7", "--output", out, "--no-cache"});
    REQUIRE(r.exitCode == 0);
    for (int i = 0; i < 3; ++i) {
      std::ifstream f(out + "/main_" + std::to_string(i) + ".npy", std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(f)), {});
      REQUIRE(!bytes.empty());
      if (first[i].empty()) first[i] = bytes;
      CHECK(bytes == first[i]);
    }
  }
  ::unsetenv("TVMS_NUM_THREADS");
  std::string echo = (dir / "echo.py").string();
  std::ofstream(echo) << "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                         "    @R.function\n    def main(a: R.Tensor((700, 1001), \"float32\")) -> R.Tensor((700, 1001), \"float32\"):\n        return a\n";
  REQUIRE(tvms::test::runTvms({"run", echo, "--input", "a=random:7", "--output", (dir / "in").string()}).exitCode == 0);
  auto a = tvms::runtime::readNpy((dir / "in" / "a.npy").string(), host);
  const float* pa = static_cast<const float*>(a.data());
  double sum = 0, magnitude = 0, mx = -INFINITY;
  std::vector<double> cols(1001, 0.0), colMagnitude(1001, 0.0);
  for (int64_t i = 0; i < 700 * 1001; ++i) {
    sum += pa[i], magnitude += std::abs(pa[i]), mx = std::max(mx, static_cast<double>(pa[i]));
    cols[static_cast<size_t>(i % 1001)] += pa[i], colMagnitude[static_cast<size_t>(i % 1001)] += std::abs(pa[i]);
  }
  auto s = tvms::runtime::readNpy((dir / "out1" / "main_0.npy").string(), host);
  auto m = tvms::runtime::readNpy((dir / "out1" / "main_1.npy").string(), host);
  auto c = tvms::runtime::readNpy((dir / "out1" / "main_2.npy").string(), host);
  CHECK(std::abs(*static_cast<const float*>(s.data()) - sum) < 1e-6 * magnitude);
  CHECK(*static_cast<const float*>(m.data()) == static_cast<float>(mx));
  double worst = 0;
  // float32 sums of 700 terms: within a few units of rounding of the terms' magnitude.
  for (size_t j = 0; j < cols.size(); ++j) worst = std::max(worst, std::abs(static_cast<const float*>(c.data())[j] - cols[j]) / colMagnitude[j]);
  CHECK(worst < 1e-5);
  std::filesystem::remove_all(dir);
}
