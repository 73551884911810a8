// The kernel cache (compiler/codegen/kernel_cache.h): entries are whole or absent, damaged ones are
// rebuilt, the size stays bounded (least recently used go first), concurrent writers are safe, and
// a second build of an unchanged module takes its CPU kernels from the cache and runs them.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "compiler/codegen/kernel_cache.h"
#include "compiler/driver/pipeline.h"
#include "runtime/self_path.h"
#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

using namespace tvms;
namespace fs = std::filesystem;

namespace {

// A fresh directory for one test, removed when it ends; TVMS_CACHE_DIR points at it meanwhile.
struct ScratchCache {
  fs::path dir;
  std::string previous;
  bool hadPrevious = false;
  explicit ScratchCache(const std::string& name) {
    dir = fs::temp_directory_path() / ("tvms-cache-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    if (const char* p = std::getenv("TVMS_CACHE_DIR")) previous = p, hadPrevious = true;
    ::setenv("TVMS_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScratchCache() {
    if (hadPrevious) ::setenv("TVMS_CACHE_DIR", previous.c_str(), 1);
    else ::unsetenv("TVMS_CACHE_DIR");
    fs::remove_all(dir);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::vector<fs::path> filesUnder(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) out.push_back(it->path());
  return out;
}

const char* kTwoOps = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1000,), "float32"), y: R.Tensor((1000,), "float32")) -> R.Tensor((1000,), "float32"):
        z = R.add(x, y)
        w = R.exp(z)
        return w
)";

}  // namespace

TEST_CASE("kernel cache: an entry is found whole, a damaged or truncated one is removed, never used") {
  ScratchCache scratch("entries");
  codegen::KernelCache cache(scratch.dir);
  std::string payload(5000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  auto stored = cache.store("cpu", "key one", ".so", payload);
  REQUIRE(stored);
  CHECK(cache.read("cpu", "key one", ".so") == payload);
  CHECK_FALSE(cache.read("cpu", "key two", ".so"));
  CHECK_FALSE(cache.read("cuda", "key one", ".so"));  // sections are apart

  std::string bytes = slurp(*stored);
  TVMS_FRESH_RNG(rng);
  for (int round = 0; round < 20; ++round) {
    std::string damaged = bytes;
    size_t at = std::uniform_int_distribution<size_t>(0, damaged.size() - 1)(rng);
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng() % 255));
    std::ofstream(*stored, std::ios::binary | std::ios::trunc) << damaged;
    INFO("flipped byte " << at);
    CHECK_FALSE(cache.find("cpu", "key one", ".so"));
    CHECK_FALSE(fs::exists(*stored));  // removed, so the next build writes a good one
  }
  std::ofstream(*stored, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  CHECK_FALSE(cache.read("cpu", "key one", ".so"));
  REQUIRE(cache.store("cpu", "key one", ".so", payload));
  CHECK(cache.read("cpu", "key one", ".so") == payload);
}

TEST_CASE("kernel cache: storing past the size bound removes the least recently used entries") {
  ScratchCache scratch("bound");
  const uint64_t entryBytes = 1024 + 32;  // payload + footer
  codegen::KernelCache cache(scratch.dir, 3 * entryBytes);
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) {
    auto p = cache.store("cpu", "entry " + std::to_string(i), ".so", std::string(1024, static_cast<char>('a' + i)));
    REQUIRE(p);
    fs::last_write_time(*p, old + std::chrono::minutes(i));  // entry 0 oldest
  }
  CHECK(cache.usage().entries == 3);
  REQUIRE(cache.find("cpu", "entry 0", ".so"));  // a hit makes the oldest the most recently used
  REQUIRE(cache.store("cpu", "entry 3", ".so", std::string(1024, 'd')));
  CHECK(cache.usage().bytes <= 3 * entryBytes);
  CHECK(cache.read("cpu", "entry 0", ".so"));
  CHECK_FALSE(cache.read("cpu", "entry 1", ".so"));
  CHECK(cache.read("cpu", "entry 3", ".so"));
}

TEST_CASE("kernel cache: processes writing the same entry at once leave one whole entry and no temporaries") {
  ScratchCache scratch("concurrent");
  std::string payload(1 << 20, 'x');
  for (size_t i = 0; i < payload.size(); i += 4096) payload[i] = static_cast<char>(i >> 12);
  std::vector<pid_t> children;
  for (int c = 0; c < 6; ++c) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      codegen::KernelCache cache(scratch.dir);
      bool ok = true;
      for (int i = 0; i < 15; ++i) {
        cache.store("cpu", "shared key", ".so", payload);
        auto got = cache.read("cpu", "shared key", ".so");  // may be a miss while another renames: never torn
        if (got && *got != payload) ok = false;
      }
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  codegen::KernelCache cache(scratch.dir);
  CHECK(cache.read("cpu", "shared key", ".so") == payload);
  auto files = filesUnder(scratch.dir / "cpu");
  CHECK(files.size() == 1);
}

TEST_CASE("kernel cache: it owns only what it made: an unmarked folder of other files is never read, written, evicted or cleared") {
  ScratchCache scratch("ownership");
  fs::create_directories(scratch.dir / "cpu");
  // A user's folder that happens to hold files with entry names and footers tvms would accept.
  codegen::KernelCache elsewhere(scratch.dir.string() + "-elsewhere");
  auto made = elsewhere.store("cpu", "k", ".so", std::string(2000, 'a'));
  REQUIRE(made);
  fs::copy_file(*made, scratch.dir / "cpu" / made->filename());
  std::ofstream(scratch.dir / "thesis.tex") << "years of work";
  fs::remove_all(scratch.dir.string() + "-elsewhere");

  codegen::KernelCache cache(scratch.dir, 1);  // a bound of one byte: any store would evict everything
  REQUIRE(cache.notACache());
  CHECK_FALSE(cache.read("cpu", "k", ".so"));
  CHECK_FALSE(cache.store("cpu", "other", ".so", std::string(100, 'b')));
  CHECK_FALSE(cache.usage().error.empty());
  CHECK_FALSE(cache.clear().error.empty());
  CHECK(slurp(scratch.dir / "thesis.tex") == "years of work");
  CHECK(fs::exists(scratch.dir / "cpu" / made->filename()));
  CHECK_FALSE(fs::exists(scratch.dir / ".tvms-cache"));

  // A cache of an earlier tvms (section folders of entries, no marker) is adopted, then marked.
  fs::remove(scratch.dir / "thesis.tex");
  codegen::KernelCache old(scratch.dir);
  CHECK_FALSE(old.notACache());
  CHECK(old.store("cpu", "new", ".so", std::string(10, 'c')));
  CHECK(fs::exists(scratch.dir / ".tvms-cache"));
  CHECK(old.read("cpu", "k", ".so") == std::string(2000, 'a'));
  // Unknown sections and suffixes are not stored (nothing but kSections lands under the root).
  CHECK_FALSE(old.store("../outside", "x", ".so", "y"));
  CHECK_FALSE(old.store("cpu", "x", ".txt", "y"));
}

TEST_CASE("kernel cache: off with TVMS_NO_CACHE=1, keys tell builds of tvms apart") {
  ::setenv("TVMS_NO_CACHE", "1", 1);
  CHECK_FALSE(codegen::KernelCache::fromEnvironment().enabled());
  ::unsetenv("TVMS_NO_CACHE");
  CHECK(codegen::KernelCache::fromEnvironment().enabled());
  // This test binary's GNU build-id: hex, stable, and not the file-size fallback ("N@T").
  std::string id = codegen::buildIdentity(runtime::selfExecutable());
  CHECK(id.size() >= 16);
  CHECK(id.find('@') == std::string::npos);
  CHECK(id == codegen::buildIdentity(runtime::selfExecutable()));
  CHECK(codegen::digest128("a") != codegen::digest128("b"));
  CHECK(codegen::digest128("a").size() == 32);
}

TEST_CASE("kernel cache: the second build of an unchanged module loads its CPU kernels from the cache and runs them") {
  ScratchCache scratch("llvm");
  auto lowered = test::lower(kTwoOps);
  REQUIRE(lowered.codes().empty());
  driver::BuildOptions o;
  driver::BuildResult first = driver::build(lowered.module(), o);
  REQUIRE(first.errors.empty());
  CHECK(first.kernelModulesCompiled == 1);
  CHECK(first.kernelModulesCached == 0);
  driver::BuildResult second = driver::build(lowered.module(), o);
  REQUIRE(second.errors.empty());
  CHECK(second.kernelModulesCached == 1);
  CHECK(second.kernelModulesCompiled == 0);

  // The cached kernels compute what they should.
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({1000}, rng), y = h.tensor({1000}, rng);
  test::Run r = test::compileAndRun(kTwoOps, {x, y});
  std::vector<double> want;
  for (int64_t i = 0; i < 1000; ++i) want.push_back(std::exp(double(test::at(x, i)) + double(test::at(y, i))));
  test::checkClose(r.outputs[0], want, 1e-6);

  // A damaged entry is compiled again (and replaced); an artifact build reuses the same entry.
  auto files = filesUnder(scratch.dir / "cpu");
  REQUIRE(files.size() == 1);
  {
    // Replaced, not truncated in place: this process still has the entry mapped from the builds above
    // (the cache itself only ever renames over or removes entries, for the same reason).
    fs::path damaged = files[0].string() + ".damaged";
    std::ofstream(damaged, std::ios::binary) << "not a shared library";
    fs::rename(damaged, files[0]);
  }
  driver::BuildResult third = driver::build(lowered.module(), o);
  REQUIRE(third.errors.empty());
  CHECK(third.kernelModulesCompiled == 1);
  driver::BuildOptions artifact;
  artifact.compileKernels = false;
  artifact.buildModules = true;
  driver::BuildResult fourth = driver::build(lowered.module(), artifact);
  REQUIRE(fourth.errors.empty());
  CHECK(fourth.kernelModulesCached == 1);
}
