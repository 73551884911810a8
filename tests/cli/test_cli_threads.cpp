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
