// The run report's figures made from a run's trace (tools/tvms/run_report): copies named by where
// they went, and how much of each copy ran beside a kernel of the device whose stream copied it.
#include <doctest/doctest.h>

#include "tools/tvms/run_report.h"

using namespace tvms;

TEST_CASE("run report: a copy's time beside its device's kernels, and its destination") {
  // Slot 0 a GPU: kernels at [0, 10) and [20, 30) us; a download on its copy stream at [5, 25) runs
  // beside both for 5 + 5 us; an upload at [40, 50) beside nothing. A CPU kernel on slot 1 at
  // [5, 25) is another device's and does not count.
  std::vector<runtime::TraceSpan> spans{
      {"k0", "kernel", 0, 0, 10, 0, -1},
      {"copy from cuda:0", "copy", 0, 5, 20, 4096, 1},
      {"cpu kernel", "kernel", 1, 5, 20, 0, -1},
      {"k1", "library", 0, 20, 10, 0, -1},
      {"copy from cpu:0", "copy", 0, 40, 10, 4096, 0},
  };
  cli::RunReport r;
  cli::addSpans(r, spans, {"cuda:0", "llvm:0"});
  CHECK(r.copyMsTraced == doctest::Approx(0.030));
  CHECK(r.copyMsOverlapped == doctest::Approx(0.010));
  REQUIRE(r.copyList.size() == 2);
  CHECK(r.copyList[0].to == "llvm:0");  // a download is on the GPU's timeline but goes to the host
  CHECK(r.copyList[0].from == "cuda:0");
  CHECK(r.copyList[1].to == "cuda:0");
  REQUIRE(r.kernels.size() == 3);
}
