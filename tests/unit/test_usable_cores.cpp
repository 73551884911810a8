// usableCores: TVMS_NUM_THREADS, the affinity mask, a cgroup CPU quota.
#include <doctest/doctest.h>
#include <sched.h>
#include <stdlib.h>

#include "runtime/usable_cores.h"

using tvms::runtime::coresOfCfsQuota;
using tvms::runtime::coresOfCpuMax;
using tvms::runtime::usableCores;

TEST_CASE("usable cores: a cgroup quota in cores, rounded up, and no quota is none") {
  CHECK_FALSE(coresOfCpuMax("max 100000").has_value());
  CHECK(coresOfCpuMax("150000 100000") == 2u);
  CHECK(coresOfCpuMax("200000 100000") == 2u);
  CHECK(coresOfCpuMax("50000 100000") == 1u);
  CHECK_FALSE(coresOfCpuMax("").has_value());
  CHECK_FALSE(coresOfCpuMax("garbage").has_value());
  CHECK_FALSE(coresOfCfsQuota(-1, 100000).has_value());
  CHECK(coresOfCfsQuota(400000, 100000) == 4u);
}

TEST_CASE("usable cores: TVMS_NUM_THREADS when it is a positive count, else the affinity mask") {
  ::setenv("TVMS_NUM_THREADS", "3", 1);
  CHECK(usableCores() == 3u);
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  unsigned allowed = static_cast<unsigned>(CPU_COUNT(&set));
  for (const char* bad : {"0", "-2", "lots", "3x", ""}) {
    INFO(bad);
    ::setenv("TVMS_NUM_THREADS", bad, 1);
    CHECK(usableCores() >= 1u);
    CHECK(usableCores() <= allowed);
  }
  ::unsetenv("TVMS_NUM_THREADS");
  CHECK(usableCores() <= allowed);
  // One core allowed: one thread, whatever the machine has.
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) {
      CPU_SET(c, &one);
      break;
    }
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  CHECK(usableCores() == 1u);
  REQUIRE(sched_setaffinity(0, sizeof set, &set) == 0);
}
