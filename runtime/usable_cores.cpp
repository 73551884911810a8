#include "runtime/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace tvms::runtime {

namespace {

std::optional<long long> number(const std::string& s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string firstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<unsigned> cgroupQuotaCores() {
  if (auto v2 = coresOfCpuMax(firstLine("/sys/fs/cgroup/cpu.max"))) return v2;
  auto quota = number(firstLine("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"));
  auto period = number(firstLine("/sys/fs/cgroup/cpu/cpu.cfs_period_us"));
  if (quota && period) return coresOfCfsQuota(*quota, *period);
  return std::nullopt;
}

}  // namespace

std::optional<unsigned> coresOfCfsQuota(long long quotaUs, long long periodUs) {
  if (quotaUs <= 0 || periodUs <= 0) return std::nullopt;
  return static_cast<unsigned>(std::max(1LL, (quotaUs + periodUs - 1) / periodUs));
}

std::optional<unsigned> coresOfCpuMax(const std::string& cpuMax) {
  std::istringstream in(cpuMax);
  std::string quota, period;
  if (!(in >> quota >> period) || quota == "max") return std::nullopt;
  auto q = number(quota), p = number(period);
  if (!q || !p) return std::nullopt;
  return coresOfCfsQuota(*q, *p);
}

unsigned usableCores() {
  if (const char* env = std::getenv("TVMS_NUM_THREADS"))
    if (auto n = number(env); n && *n > 0 && *n <= 4096) return static_cast<unsigned>(*n);
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) cores = static_cast<unsigned>(CPU_COUNT(&set));
  if (auto quota = cgroupQuotaCores()) cores = std::min(cores, *quota);
  return std::max(1u, cores);
}

}  // namespace tvms::runtime
