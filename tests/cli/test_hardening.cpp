// Issue 20's reproductions, end to end through the binary: each was a hang, a crash, lost text or
// an "internal error" before. Files under tests/corpus/reliability are the reproductions as filed.
#include <doctest/doctest.h>

#include <string>

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
  auto dump = runTvms({"parse", "--dump-ir", tempFile("minus200.py", module(minus))});
  CHECK(dump.exitCode == 0);
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
