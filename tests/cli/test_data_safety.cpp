// Issue 36's findings, end to end through the binary: what tvms writes and deletes (the kernel cache,
// outputs, files rewritten in place) never costs the user a file, and what a module computes never
// crashes the process. Each case failed (lost a file, or crashed) before its fix.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/run_tvms.h"
#include "tests/support/corpus.h"

namespace fs = std::filesystem;
using tvms::test::readFile;
using tvms::test::runTvms;
using tvms::test::tempFile;

namespace {

// A fresh folder for one test, removed (with everything in it) when the test ends.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) {
    dir = fs::temp_directory_path() / ("tvms-safety-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

// Runs tvms with one environment variable set (the child inherits it).
tvms::test::Result runWith(const char* name, const std::string& value, const std::vector<std::string>& args) {
  const char* old = std::getenv(name);
  std::string previous = old ? old : "";
  ::setenv(name, value.c_str(), 1);
  auto r = runTvms(args);
  if (old) ::setenv(name, previous.c_str(), 1);
  else ::unsetenv(name);
  return r;
}

std::string corpus(const std::string& rel) { return std::string(TVMS_CORPUS_DIR) + "/" + rel; }

const char* kUnformatted = R"(from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.add(x,x)
        return y
)";

std::string module(const std::string& params, const std::string& body) {
  return "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n"
         "    def main(" + params + "):\n" + body;
}

// A little-endian int32 .npy (version 1.0) holding `values`.
std::string int32Npy(const Scratch& s, const std::string& name, const std::vector<int32_t>& values) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  return s.file(name, file);
}

std::vector<int32_t> int32Values(const std::string& npyPath) {
  std::string bytes = readFile(npyPath);
  REQUIRE(bytes.size() > 10);
  size_t headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  std::vector<int32_t> out((bytes.size() - 10 - headerLength) / 4);
  std::memcpy(out.data(), bytes.data() + 10 + headerLength, out.size() * 4);
  return out;
}

}  // namespace

TEST_CASE("data safety: tvms cache refuses a folder it did not make (a user's folder, a plain file, /) and removes nothing") {
  Scratch s("cache-refuse");
  std::string precious = s.file("mine/notes.txt", "precious");
  s.file("mine/sub/more.txt", "more");
  for (std::string root : {(s.dir / "mine").string(), precious, std::string("/")}) {
    INFO(root);
    auto listed = runWith("TVMS_CACHE_DIR", root, {"cache"});
    CHECK(listed.exitCode == 2);
    CHECK(listed.err.find("not a") != std::string::npos);
    CHECK(listed.out.find("entries") == std::string::npos);  // no thousands of "entries" of /
    auto cleared = runWith("TVMS_CACHE_DIR", root, {"cache", "clear"});
    CHECK(cleared.exitCode == 2);
    CHECK(cleared.err.find("nothing removed") != std::string::npos);
  }
  CHECK(readFile(precious) == "precious");
  CHECK(readFile((s.dir / "mine/sub/more.txt").string()) == "more");
  // A build with such a folder as its cache runs uncached, says so, and writes nothing there.
  auto run = runWith("TVMS_CACHE_DIR", (s.dir / "mine").string(), {"run", corpus("run/multi_cpu.py")});
  CHECK(run.exitCode == 0);
  CHECK(run.err.find("the kernel cache is off") != std::string::npos);
  CHECK_FALSE(fs::exists(s.dir / "mine" / "cpu"));
  CHECK_FALSE(fs::exists(s.dir / "mine" / "CACHEDIR.TAG"));
}

TEST_CASE("data safety: tvms cache clear removes its entries and only them, and a user's file inside the cache stays") {
  Scratch s("cache-clear");
  std::string root = (s.dir / "cache").string();
  REQUIRE(runWith("TVMS_CACHE_DIR", root, {"run", corpus("run/multi_cpu.py")}).exitCode == 0);
  // Marked as a cache (CACHEDIR.TAG per bford.info/cachedir, and tvms's own marker).
  CHECK(readFile(root + "/CACHEDIR.TAG").rfind("Signature: 8a477f597d28d172789f06886806bc55", 0) == 0);
  CHECK(fs::exists(root + "/.tvms-cache"));
  // Files that are not entries: a user's note, a file named like an entry with no footer, a folder.
  std::string note = s.file("cache/cpu/notes.txt", "mine");
  std::string lookalike = s.file("cache/cpu/0123456789abcdef0123456789abcdef.so", "not written by tvms");
  std::string top = s.file("cache/README", "mine too");
  auto listed = runWith("TVMS_CACHE_DIR", root, {"cache"});
  CHECK(listed.exitCode == 0);
  CHECK(listed.out.find(": 2 entries") != std::string::npos);  // the kernel module and the lookalike (by name)
  auto cleared = runWith("TVMS_CACHE_DIR", root, {"cache", "clear"});
  CHECK(cleared.exitCode == 0);
  CHECK(cleared.out.find("removed 1 entries") != std::string::npos);
  CHECK(readFile(note) == "mine");
  CHECK(readFile(lookalike) == "not written by tvms");
  CHECK(readFile(top) == "mine too");
  // A cache holding only its own: clear removes the folder it made.
  fs::remove(note);
  fs::remove(lookalike);
  fs::remove(top);
  REQUIRE(runWith("TVMS_CACHE_DIR", root, {"run", corpus("run/multi_cpu.py")}).exitCode == 0);
  CHECK(runWith("TVMS_CACHE_DIR", root, {"cache", "clear"}).exitCode == 0);
  CHECK_FALSE(fs::exists(root));
}

TEST_CASE("data safety: a folder where a cache entry goes is left alone, and the run compiles and uses its kernels") {
  Scratch s("cache-folder-entry");
  std::string root = (s.dir / "cache").string();
  REQUIRE(runWith("TVMS_CACHE_DIR", root, {"run", corpus("run/multi_cpu.py")}).exitCode == 0);
  std::vector<fs::path> entries;
  for (auto& e : fs::directory_iterator(root + "/cpu")) entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  fs::remove(entries[0]);
  s.file((entries[0] / "inside.txt").lexically_relative(s.dir).string(), "a folder's file");
  auto again = runWith("TVMS_CACHE_DIR", root, {"run", corpus("run/multi_cpu.py"), "--format", "json"});
  INFO(again.err);
  CHECK(again.exitCode == 0);
  CHECK(again.out.find("\"compiled\":1") != std::string::npos);
  CHECK(readFile((entries[0] / "inside.txt").string()) == "a folder's file");
  auto artifact = runWith("TVMS_CACHE_DIR", root, {"build", corpus("run/multi_cpu.py"), "-o", (s.dir / "m.tvmx").string()});
  CHECK(artifact.exitCode == 0);
  CHECK(runTvms({"run", (s.dir / "m.tvmx").string()}).exitCode == 0);
}

TEST_CASE("data safety: an output path that is an input is refused, through links too (build, graph, convert, run)") {
  Scratch s("output-over-input");
  std::string source = readFile(corpus("run/multi_cpu.py"));
  std::string a = s.file("a.py", source);
  fs::create_symlink(a, s.dir / "alias.py");
  std::string alias = (s.dir / "alias.py").string();
  struct Case {
    std::vector<std::string> args;
    const char* flag;
  };
  std::vector<Case> cases = {
      {{"build", a, "-o", a}, "-o"},
      {{"build", a, "-o", alias}, "-o"},
      {{"build", a, "-o", (s.dir / "." / "a.py").string()}, "-o"},
      {{"graph", a, "-o", a}, "-o"},
      {{"convert", a, "-o", a}, "-o"},
      {{"run", a, "--trace", a}, "--trace"},
  };
  for (auto& c : cases) {
    auto r = runTvms(c.args);
    INFO(c.args[0] << " " << c.args.back() << ": " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find(std::string(c.flag) + " ") != std::string::npos);
    CHECK(r.err.find("is the input") != std::string::npos);
    CHECK(readFile(a) == source);
  }
  // run --output DIR: an output .npy that is an input .npy is refused before anything is written.
  std::string x = int32Npy(s, "out/gv.npy", {1, 2});
  auto r = runTvms({"run", a, "--input", "x=" + x, "--output", (s.dir / "out").string()});
  CHECK(r.exitCode != 0);
  CHECK(int32Values(x) == std::vector<int32_t>{1, 2});
}

TEST_CASE("data safety: fmt keeps a file's mode, owner, symlink and hard links, and refuses a read-only file") {
  Scratch s("fmt-keeps");
  auto formatted = [](const std::string& p) { return readFile(p).find("R.add(x, x)") != std::string::npos; };

  std::string script = s.file("script.py", kUnformatted);
  fs::permissions(script, fs::perms(0755));
  REQUIRE(runTvms({"fmt", script}).exitCode == 0);
  CHECK(formatted(script));
  CHECK((fs::status(script).permissions() & fs::perms::mask) == fs::perms(0755));

  std::string target = s.file("target.py", kUnformatted);
  fs::create_symlink("target.py", s.dir / "link.py");
  REQUIRE(runTvms({"fmt", (s.dir / "link.py").string()}).exitCode == 0);
  CHECK(fs::is_symlink(s.dir / "link.py"));  // still a link
  CHECK(formatted(target));                   // its target got the text

  std::string first = s.file("first.py", kUnformatted);
  fs::create_hard_link(first, s.dir / "second.py");
  REQUIRE(runTvms({"fmt", first}).exitCode == 0);
  CHECK(fs::hard_link_count(first) == 2);
  CHECK(formatted((s.dir / "second.py").string()));

  std::string readOnly = s.file("readonly.py", kUnformatted);
  fs::permissions(readOnly, fs::perms(0444));
  auto refused = runTvms({"fmt", readOnly});
  CHECK(refused.exitCode == 2);
  CHECK(refused.err.find("is read-only") != std::string::npos);
  CHECK(readFile(readOnly) == kUnformatted);
  CHECK((fs::status(readOnly).permissions() & fs::perms::mask) == fs::perms(0444));

  if (::geteuid() == 0) {  // giving a file away needs root: the owner and group stay the file's
    std::string owned = s.file("owned.py", kUnformatted);
    REQUIRE(::chown(owned.c_str(), 65534, 65534) == 0);
    REQUIRE(runTvms({"fmt", owned}).exitCode == 0);
    struct stat st {};
    REQUIRE(::stat(owned.c_str(), &st) == 0);
    CHECK(st.st_uid == 65534u);
    CHECK(st.st_gid == 65534u);
    CHECK(formatted(owned));
  }
  // No temporary of tvms's is left beside the files.
  for (auto& e : fs::directory_iterator(s.dir)) CHECK(e.path().filename().string().find("tvms-") == std::string::npos);
}

TEST_CASE("data safety: an edit saved while fmt or lint --fix works is kept, and tvms says it left the file") {
  Scratch s("concurrent-edit");
  std::string plain = s.file("plain.py", kUnformatted);
  auto fmt = runWith("TVMS_FAULT_INJECT", "edit-while-writing", {"fmt", plain});
  CHECK(fmt.exitCode == 2);
  CHECK(fmt.err.find("changed while tvms worked on it; left as it is") != std::string::npos);
  CHECK(readFile(plain) == std::string(kUnformatted) + "# saved by the user while tvms worked\n");

  std::string linked = s.file("linked.py", kUnformatted);  // several links: written in place, checked first too
  fs::create_hard_link(linked, s.dir / "linked2.py");
  auto inPlace = runWith("TVMS_FAULT_INJECT", "edit-while-writing", {"fmt", linked});
  CHECK(inPlace.exitCode == 2);
  CHECK(readFile(linked) == std::string(kUnformatted) + "# saved by the user while tvms worked\n");

  std::string fixable = s.file("fixable.py", readFile(corpus("lint/inline_vdevice_literal.py")));
  std::string before = readFile(fixable);
  auto fix = runWith("TVMS_FAULT_INJECT", "edit-while-writing", {"lint", "--fix", fixable});
  CHECK(fix.exitCode == 2);
  CHECK(fix.err.find("left as it is") != std::string::npos);
  CHECK(fix.err.find("applied") == std::string::npos);
  CHECK(readFile(fixable) == before + "# saved by the user while tvms worked\n");
}

TEST_CASE("data safety: lint --fix that cannot write the file says so, applies nothing and reports the findings") {
  Scratch s("fix-unwritable");
  std::string path = s.file("fixable.py", readFile(corpus("lint/inline_vdevice_literal.py")));
  fs::permissions(path, fs::perms(0444));
  auto r = runTvms({"lint", "--fix", path});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("is read-only") != std::string::npos);
  CHECK(r.err.find("applied") == std::string::npos);
  CHECK(r.out.find("All checks passed!") == std::string::npos);
  CHECK(r.out.find("TVS202") != std::string::npos);  // what the file still holds
}

TEST_CASE("data safety: tvms lint DIR reports a folder it cannot read instead of skipping it") {
  Scratch s("unreadable-dir");
  s.file("tree/ok.py", readFile(corpus("run/multi_cpu.py")));
  s.file("tree/locked/hidden.py", readFile(corpus("run/multi_cpu.py")));
  fs::permissions(s.dir, fs::perms(0755));
  fs::permissions(s.dir / "tree", fs::perms(0755));
  fs::permissions(s.dir / "tree" / "locked", fs::perms::none);
  std::string out = (s.dir / "out.txt").string(), err = (s.dir / "err.txt").string();
  // Root reads any folder: the lint then runs as nobody, for whom the mode holds.
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Raw descriptors, not freopen: flushing the test's inherited stdio buffers would print its output twice.
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(125);
    std::string dir = (s.dir / "tree").string();
    ::execl(TVMS_BINARY, TVMS_BINARY, "lint", dir.c_str(), nullptr);
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  std::string errors = readFile(err);
  INFO(errors);
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(errors.find("locked: cannot read directory") != std::string::npos);
  CHECK(readFile(out).find("All checks passed!") == std::string::npos);
}

TEST_CASE("hardening: --repeat takes a plain decimal count within its bound") {
  for (const char* bad : {"99999999999999999999", "1e3", "5x", "0", "-1", "", "2000000"}) {
    auto r = runTvms({"run", corpus("run/multi_cpu.py"), "--repeat", bad});
    INFO(bad << ": " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("give a count of calls from 1 to 1000000") != std::string::npos);
  }
  auto traced = runTvms({"run", corpus("run/multi_cpu.py"), "--repeat", "20000", "--trace", tempFile("t.json", "")});
  CHECK(traced.exitCode == 2);
  auto ok = runTvms({"run", corpus("run/multi_cpu.py"), "--repeat", "3", "--format", "json"});
  CHECK(ok.exitCode == 0);
  CHECK(ok.out.find("\"calls\":3") != std::string::npos);
}

TEST_CASE("hardening: an element count past int64 is a lint error (TVS108) and a run-time error for symbolic dims") {
  std::string ones = tempFile("huge_ones.py", module("x: R.Tensor((2,), \"float32\")",
                                                     "        y = R.ones((4611686018427387905, 4), \"float32\")\n        return y\n"));
  auto lint = runTvms({"lint", ones});
  CHECK(lint.exitCode == 1);
  CHECK(lint.out.find("TVS108") != std::string::npos);
  auto run = runTvms({"run", ones});
  CHECK(run.exitCode == 1);  // refused before anything is allocated, not exit 139
  std::string wide = tempFile("huge_param.py", module("x: R.Tensor((4294967296, 4294967296, 16), \"float32\")", "        return x\n"));
  CHECK(runTvms({"lint", wide}).out.find("TVS108") != std::string::npos);

  std::string dyn = tempFile("dyn_add.py", module("x: R.Tensor((\"n\", 4), \"float32\")", "        y = R.add(x, x)\n        return y\n"));
  for (const char* n : {"4611686018427387905", "2305843009213693952"}) {
    auto r = runTvms({"run", dyn, "--dim", std::string("n=") + n});
    INFO(n << ": " << r.err);
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("does not fit a 64-bit integer") != std::string::npos);
  }
}

TEST_CASE("hardening: integer division and modulo by zero and INT_MIN // -1 give NumPy's results on the CPU, no SIGFPE") {
  Scratch s("int-division");
  std::string path = s.file("div.py", module("x: R.Tensor((6,), \"int32\"), y: R.Tensor((6,), \"int32\")",
                                             "        a = R.floor_divide(x, y)\n        b = R.floor_mod(x, y)\n"
                                             "        c = R.divide(x, y)\n        d = R.floor_divide(x, R.const(0, \"int32\"))\n"
                                             "        return (a, b, c, d)\n"));
  std::string x = int32Npy(s, "x.npy", {7, -7, INT_MIN, INT_MIN, 7, -7});
  std::string y = int32Npy(s, "y.npy", {0, 0, -1, 0, 2, 2});
  auto r = runTvms({"run", path, "--input", "x=" + x, "--input", "y=" + y, "--output", (s.dir / "out").string()});
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  // numpy: x // 0 == 0, x % 0 == 0, INT_MIN // -1 == INT_MIN (wraps), floor semantics elsewhere.
  CHECK(int32Values((s.dir / "out/main_0.npy").string()) == std::vector<int32_t>{0, 0, INT_MIN, 0, 3, -4});
  CHECK(int32Values((s.dir / "out/main_1.npy").string()) == std::vector<int32_t>{0, 0, 0, 0, 1, 1});
  CHECK(int32Values((s.dir / "out/main_3.npy").string()) == std::vector<int32_t>{0, 0, 0, 0, 0, 0});
  auto divided = int32Values((s.dir / "out/main_2.npy").string());
  REQUIRE(divided.size() == 6);
  CHECK(divided[0] == 0);
  CHECK(divided[2] == INT_MIN);
}

TEST_CASE("hardening: endless recursion between Relax functions is a clear error, not a stack overflow") {
  std::string path = tempFile("recursion.py", R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = Module.g(x)
        return y

    @R.function
    def g(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = Module.f(x)
        return y

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = Module.f(x)
        return y
)");
  auto r = runTvms({"run", path});
  INFO(r.err);
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("nest deeper than 1000") != std::string::npos);
}

TEST_CASE("hardening: a tensor constant operand runs when its values are written, else is a build error, never a crash") {
  // R.take's indices as a list constant: a buffer of the constant's own shape (it crashed the compiler).
  std::string take = tempFile("take_const.py", module("table: R.Tensor((4, 3), \"float32\")",
                                                      "        y = R.take(table, R.const([[0, 1], [2, 3]], \"int64\"), axis=0)\n        return y\n"));
  auto r = runTvms({"run", take, "--format", "json"});
  INFO(r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("\"shape\":[2,2,3]") != std::string::npos);
  // A constant from a numpy array of the file's Python: its values are not in the module.
  std::string array = tempFile("conv_array.py", "import numpy as np\n" + module("x: R.Tensor((1, 3, 8, 8), \"float32\")",
                                                                               "        y = R.nn.conv2d(x, R.const(W))\n        return y\n"));
  std::string text = readFile(array);
  text.insert(text.find("@I.ir_module"), "W = np.ones((4, 3, 3, 3), \"float32\")\n\n\n");
  std::ofstream(array, std::ios::trunc) << text;
  auto conv = runTvms({"build", array});
  INFO(conv.err);
  CHECK(conv.exitCode == 1);
  CHECK(conv.err.find("values are not written in the module") != std::string::npos);
  // The view the language server shows runs the same passes: the module as far as it was legalized.
  auto view = runTvms({"parse", "--dump-ir", "--after", "LegalizeOps", array});
  CHECK(view.exitCode == 0);
  CHECK(view.out.find("R.nn.conv2d(") != std::string::npos);
}

TEST_CASE("hardening: a .tvmx holding CUDA kernels is refused on a CPU device, not launched there") {
  Scratch s("cuda-tvmx-on-cpu");
  std::string artifact = (s.dir / "mlp.tvmx").string();
  auto built = runTvms({"build", corpus("run/cpu_gpu_mlp.py"), "-o", artifact});
  INFO(built.err);
  REQUIRE(built.exitCode == 0);  // NVRTC builds the PTX; no GPU needed
  auto r = runTvms({"run", artifact, "--device", "cuda:0=cpu"});
  INFO(r.err);
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("are cuda code, which a cpu device cannot run") != std::string::npos);
  // The module's .py with the same remap compiles its kernels for the CPU and runs.
  CHECK(runTvms({"run", corpus("run/cpu_gpu_mlp.py"), "--device", "cuda:0=cpu"}).exitCode == 0);
}

TEST_CASE("hardening: --device naming no vdevice of the module is a warning, so one command line serves many modules") {
  auto r = runTvms({"run", corpus("run/multi_cpu.py"), "--device", "cuda:0=cpu"});
  CHECK(r.exitCode == 0);
  CHECK(r.err.find("warning: --device cuda:0=cpu: the module has no vdevice cuda:0") != std::string::npos);
}
