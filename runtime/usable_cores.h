#pragma once
// How many threads the process should run: TVMS_NUM_THREADS when it is a positive count, else the
// cores the process may use — its CPU affinity mask, capped by a cgroup CPU quota (a container's
// `--cpus`: cgroup v2's cpu.max, v1's cfs_quota_us / cfs_period_us), rounded up, at least 1. One
// answer for the kernels' thread pool and `tvms lint`'s file workers.
#include <optional>
#include <string>

namespace tvms::runtime {

unsigned usableCores();

// The parts, for tests: the quota's cores from a cgroup v2 cpu.max text ("max 100000" -> none,
// "150000 100000" -> 2), and from cgroup v1's quota and period (quota -1 -> none).
std::optional<unsigned> coresOfCpuMax(const std::string& cpuMax);
std::optional<unsigned> coresOfCfsQuota(long long quotaUs, long long periodUs);

}  // namespace tvms::runtime
