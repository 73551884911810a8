// Issue 20's reproductions, end to end through the binary: each was a hang, a crash, lost text or
// an "internal error" before. Files under tests/corpus/reliability are the reproductions as filed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/run_tvms.h"
#include "tests/support/corpus.h"

namespace {

using tvms::test::runTvms;
using tvms::test::tempFile;

std::string reliability(const std::string& name) { return std::string(TVMS_CORPUS_DIR) + "/reliability/" + name; }

}  // namespace

namespace {

std::string module(const std::string& binding) {
  return "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\nclass M:\n    @R.function\n"
         "    def main(x: R.Tensor((2,), \"float32\")):\n        zz = " + binding + "\n        return zz\n";
}

}  // namespace

TEST_CASE("hardening: printing is not exponential in nesting depth (fmt and parse --dump-ir)") {
  // 22 levels took 16 s before (twice as long for each level more); 200 levels would never end.
  for (const char* file : {"hang_fmt_nested_calls_22.py", "hang_printer_nested_unary_22.py"}) {
    auto fmt = runTvms({"fmt", "--diff", reliability(file)});
    CHECK_MESSAGE(fmt.exitCode < 2, file);
    auto dump = runTvms({"parse", "--dump-ir", reliability(file)});
    CHECK_MESSAGE(dump.exitCode == 0, file);
  }
  std::string calls = "x", minus = "x";
  for (int i = 0; i < 200; ++i) {
    calls = "R.negative(" + calls + ")";
    minus = "-" + minus;
  }
  auto fmt = runTvms({"fmt", "-"}, module(calls));
  REQUIRE(fmt.exitCode == 0);
  // Broken one call per line: all 200 calls are there, and formatting the result changes nothing.
  size_t count = 0;
  for (size_t at = fmt.out.find("R.negative("); at != std::string::npos; at = fmt.out.find("R.negative(", at + 1)) ++count;
  CHECK(count == 200);
  auto again = runTvms({"fmt", "-"}, fmt.out);
  CHECK(again.out == fmt.out);
  // 200 levels is past the lowering's 150: the module still prints, and what was cut is said (exit 1).
  auto dump = runTvms({"parse", "--dump-ir", tempFile("minus200.py", module(minus))});
  CHECK(dump.exitCode == 1);
  CHECK(dump.err.find("nested too deeply") != std::string::npos);
  CHECK(dump.out.find("zz") != std::string::npos);
}

TEST_CASE("hardening: fmt keeps every line ending as written (LF, CRLF, lone CR, mixed)") {
  // The filed reproduction: "... as R\r@R.function" lost its import line.
  std::string original = tvms::test::readFile(reliability("fmt_lone_cr_deletes_line.py"));
  std::string path = tempFile("lone_cr.py", original);
  REQUIRE(runTvms({"fmt", path}).exitCode == 0);
  std::string formatted = tvms::test::readFile(path);
  CHECK(formatted.find("from tvm.script import relax as R\r@R.function") != std::string::npos);
  CHECK(formatted.find("from tvm.script import ir as I\n") == 0);

  auto body = [](const std::string& eol) {
    return "from tvm.script import relax as R" + eol + eol + "@R.function" + eol + "def f(x: R.Tensor((2,), \"float32\")):" + eol +
           "    y = R.add(x,x)" + eol + "    return y" + eol;
  };
  for (std::string eol : {"\n", "\r\n", "\r"}) {
    auto r = runTvms({"fmt", "-"}, body(eol));
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("R.add(x, x)" + eol + "    return y" + eol) != std::string::npos);
    if (eol != "\n") CHECK(r.out.find_first_of("\n") == (eol == "\r\n" ? r.out.find("\r\n") + 1 : std::string::npos));
    CHECK(runTvms({"fmt", "-"}, r.out).out == r.out);  // idempotent
  }
  // Mixed: lines outside the function keep theirs; the reprinted function takes its first line's.
  std::string mixed = "import os\r\nfrom tvm.script import relax as R\r\r@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = R.add(x,x)\n    return y\n";
  auto r = runTvms({"fmt", "-"}, mixed);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("import os\r\nfrom tvm.script import relax as R\r\r@R.function\n") == 0);
  CHECK(r.out.find("R.add(x, x)\n    return y\n") != std::string::npos);
}

TEST_CASE("hardening: an integer past 64 bits in a dimension string is a diagnostic, not an internal error") {
  auto r = runTvms({"lint", reliability("internal_error_stoll.py")});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.out.find("holds 999999999999999999999, past the 64-bit integers") != std::string::npos);
}

TEST_CASE("hardening: lint's JSON and SARIF carry a syntax error's snippet among accented names (it was cut inside a character)") {
  std::string line = "    y = x x ";
  for (int i = 0; i < 20; ++i) line += "\xc3\xa9\xc3\xa9 ";
  std::string text = "from tvm.script import relax as R\n\n@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n" + line + "\n    return x\n";
  std::string path = tempFile("accents.py", text);
  for (const char* format : {"json", "sarif", "text", "github"}) {
    auto r = runTvms({"lint", "--output-format", format, path});
    CHECK_MESSAGE(r.exitCode == 1, format);
    CHECK_MESSAGE(r.err.find("internal error") == std::string::npos, format);
    CHECK_MESSAGE(r.out.find("x x \xc3\xa9\xc3\xa9") != std::string::npos, format);
  }
}

namespace {

// A .npy file (version 1.0) with `shape` written as given and `bytes` of data after the header.
std::string npy(const std::string& name, const std::string& shape, size_t bytes) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return tempFile(name, file + header + std::string(bytes, '\0'));
}

const char* kSymbolic = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.add(x, x)
        return y
)";

}  // namespace

TEST_CASE("hardening: every subcommand's --help prints its usage and exits 0") {
  for (const char* command : {"lint", "fmt", "parse", "explain", "build", "run", "lsp", "cache"}) {
    auto r = runTvms({command, "--help"});
    CHECK_MESSAGE(r.exitCode == 0, command);
    CHECK_MESSAGE(r.out.find("usage: tvms " + std::string(command)) != std::string::npos, command);
  }
}

TEST_CASE("hardening: bad run arguments are exit 2 with the valid spellings (no stoull, no segfault)") {
  std::string path = tempFile("sym.py", kSymbolic);
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  std::vector<Case> cases = {
      {{"--input", "x=random:abc"}, "a seed is a non-negative integer"},
      {{"--dim", "n=-1"}, "a dimension is a non-negative integer"},
      {{"--dim", "n=12abc"}, "a dimension is a non-negative integer"},
      {{"--device", "cuda:0=tpu"}, "cpu, cuda:N or llvm:N"},
  };
  for (auto& c : cases) {
    std::vector<std::string> args{"run", path};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = runTvms(args);
    INFO(c.args[0] << " " << c.args[1] << ": " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  // A --dim that contradicts an input's shape.
  auto contradiction = runTvms({"run", path, "--dim", "n=4", "--input", "x=" + npy("five.npy", "(5,)", 20)});
  CHECK(contradiction.exitCode == 2);
  CHECK(contradiction.err.find("has n = 5, but n = 4") != std::string::npos);
}

TEST_CASE("hardening: a .npy with a negative dimension or an overflowing shape is a clear error") {
  std::string path = tempFile("sym2.py", kSymbolic);
  for (auto [shape, says] : std::vector<std::pair<std::string, std::string>>{
           {"(-3,)", "not a non-negative integer: '-3'"},
           {"(4294967296, 4294967296, 16)", "too large"},
           {"(99999999999,)", "the file holds 4"},
           {"(3,x)", "not a non-negative integer: 'x'"}}) {
    auto r = runTvms({"run", path, "--input", "x=" + npy("bad.npy", shape, 16)});
    INFO(shape << ": " << r.err);
    CHECK(r.exitCode == 1);
    CHECK(r.err.find(says) != std::string::npos);
  }
  auto fine = runTvms({"run", path, "--input", "x=" + npy("ok.npy", "(4,)", 16)});
  CHECK(fine.exitCode == 0);
}

TEST_CASE("hardening: tvms run prints and writes every output of a nested tuple") {
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                     "    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = R.add(x, x)\n        z = R.multiply(x, x)\n"
                     "        t = (y, z)\n        u = (x, t)\n        return u\n";
  auto dir = std::filesystem::temp_directory_path() / ("tvms_nested_" + std::to_string(getpid()));
  auto r = runTvms({"run", tempFile("nested.py", text), "--output", dir.string()});
  REQUIRE(r.exitCode == 0);
  for (const char* name : {"u_0", "u_1_0", "u_1_1"}) {
    CHECK_MESSAGE(r.out.find(std::string(name) + ": shape (2,)") != std::string::npos, name);
    CHECK_MESSAGE(std::filesystem::exists(dir / (std::string(name) + ".npy")), name);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("hardening: a name bound twice in R.dataflow() leaves the block once, as its last binding") {
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                     "    @R.function\n    def main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n"
                     "        with R.dataflow():\n            y = R.add(x, x)\n            y = R.multiply(y, y)\n            R.output(y)\n"
                     "        return y\n";
  auto dump = runTvms({"parse", "--dump-ir", tempFile("rebind.py", text)});
  REQUIRE(dump.exitCode == 0);
  CHECK(dump.out.find("R.output(y)\n") != std::string::npos);
  CHECK(dump.out.find("R.output(y, y)") == std::string::npos);
  CHECK(runTvms({"lint", tempFile("rebind2.py", text)}).exitCode == 0);
}

TEST_CASE("hardening: 70,000 unclosed brackets in a decorated function do not crash the parser (tree-sitter 0.20.7 freed memory twice)") {
  std::string text = "from tvm.script import relax as R\n\n@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = " +
                     std::string(70000, '[') + "\n    return x\n";
  std::string path = tempFile("deep_brackets.py", text);
  auto lint = runTvms({"lint", path});
  CHECK(lint.exitCode == 1);
  CHECK(lint.out.find("error[TVS00") != std::string::npos);
  CHECK(runTvms({"fmt", "--check", path}).exitCode < 2);
  CHECK(runTvms({"parse", "--dump-ir", path}).exitCode < 128);
}

TEST_CASE("hardening: a .tvmx built with --device records it: it runs there without the flag, and refuses a device of another kind") {
  std::string artifact = tempFile("remapped.tvmx", "");
  std::string example = std::string(TVMS_SOURCE_DIR) + "/examples/cpu_gpu_mlp.py";
  REQUIRE(runTvms({"build", example, "--device", "cuda:0=cpu", "-o", artifact}).exitCode == 0);
  auto plain = runTvms({"run", artifact});
  CHECK(plain.exitCode == 0);
  CHECK(plain.out.find("out: shape (256, 10)") != std::string::npos);
  auto gpu = runTvms({"run", artifact, "--device", "cuda:0=cuda:0"});
  CHECK(gpu.exitCode == 1);
  CHECK(gpu.err.find("were built for cpu (tvms build --device cuda:0=cpu)") != std::string::npos);
}
