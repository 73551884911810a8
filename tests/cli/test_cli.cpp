// The tvms binary end to end: exit codes, messages, bad input (empty, binary, invalid UTF-8, huge,
// deeply nested, all-Python), fmt in place / --check / --diff / stdin, parse --dump-ir, explain.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/run_tvms.h"
#include "tests/support/corpus.h"

namespace {

using tvms::test::Result;
using tvms::test::runTvms;
using tvms::test::tempFile;

std::string corpus(const std::string& rel) { return std::string(TVMS_CORPUS_DIR) + "/" + rel; }

const char* kModule = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.add(x,x)
        return y
)";

}  // namespace

TEST_CASE("cli: empty files and all-Python files give no diagnostics and exit 0") {
  auto empty = runTvms({"lint", tempFile("empty.py", "")});
  CHECK(empty.exitCode == 0);
  CHECK(empty.out == "All checks passed!\n");
  auto plain = runTvms({"lint", tempFile("plain.py", "import os\n\ndef main():\n    print(os.getcwd())\n")});
  CHECK(plain.exitCode == 0);
  CHECK(plain.out == "All checks passed!\n");
  CHECK(runTvms({"fmt", "--check", tempFile("plain2.py", "x  =  1\n")}).exitCode == 0);
}

TEST_CASE("cli: unreadable input is exit 2 with a clear message") {
  auto binary = runTvms({"lint", tempFile("bin.py", std::string("\x7f" "ELF\0\0\x01", 7))});
  CHECK(binary.exitCode == 2);
  CHECK(binary.err.find("not a text file") != std::string::npos);
  auto utf8 = runTvms({"lint", tempFile("latin1.py", "x = 'caf\xe9'\n")});
  CHECK(utf8.exitCode == 2);
  CHECK(utf8.err.find("not valid UTF-8 (line 1, byte 9)") != std::string::npos);
  auto missing = runTvms({"lint", "/nonexistent/file.py"});
  CHECK(missing.exitCode == 2);
  CHECK(missing.err.find("no such file") != std::string::npos);
  CHECK(runTvms({"parse", "--dump-ir", "/nonexistent.py"}).exitCode == 2);
  CHECK(runTvms({"frobnicate"}).exitCode == 2);
  CHECK(runTvms({"fmt", "--bogus", "x.py"}).exitCode == 2);
}

TEST_CASE("cli: a 50 MB file is handled, and one past the size limit is refused clearly") {
  std::string line = "value_" + std::string(80, 'x') + " = [1, 2, 3]  # plain python\n";
  std::string big;
  while (big.size() < 50u << 20) big += line;
  std::string bigPath = tempFile("big.py", big);
  auto r = runTvms({"lint", bigPath});
  CHECK(r.exitCode == 0);
  CHECK(r.out == "All checks passed!\n");
  std::filesystem::remove(bigPath);
  while (big.size() < 65u << 20) big += line;
  std::string hugePath = tempFile("huge.py", big);
  auto huge = runTvms({"lint", hugePath});
  CHECK(huge.exitCode == 2);
  CHECK(huge.err.find("not analysed") != std::string::npos);
  std::filesystem::remove(hugePath);
}

TEST_CASE("cli: 10,000-deep nested brackets give a diagnostic, not a crash") {
  std::string text = std::string(kModule);
  text.replace(text.find("R.add(x,x)"), 10, std::string(10000, '(') + "x" + std::string(10000, ')'));
  auto r = runTvms({"lint", tempFile("deep.py", text)});
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("TVS002") != std::string::npos);
  auto unbalanced = runTvms({"lint", tempFile("deep2.py", std::string(kModule) + std::string(10000, '['))});
  CHECK(unbalanced.exitCode == 1);
  CHECK(unbalanced.out.find("TVS001") != std::string::npos);
  CHECK(runTvms({"fmt", "--check", tempFile("deep3.py", text)}).exitCode == 0);  // left as written
}

TEST_CASE("cli: a module tree-sitter cannot read at all is an error that says why, not a pass") {
  // CPython accepts a line inside brackets that starts left of its statement; tree-sitter-python's
  // recovery then swallows the imports and the module into one error, and lint said "All checks passed!".
  auto r = runTvms({"lint", corpus("lint/dedented_continuation.py")});
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("dedented_continuation.py:12:9: error[TVS001]: invalid syntax: `y = R.multiply(x, (x +` "
                   "(a line inside brackets starts left of the line that opened them: CPython accepts that, but tvms's "
                   "parser (tree-sitter-python) does not; indent it further)") != std::string::npos);
  CHECK(r.out.find("All checks passed!") == std::string::npos);
}

TEST_CASE("cli: lint prints rustc-style diagnostics and exits 1 on errors") {
  auto r = runTvms({"lint", corpus("lint/structure.py")});
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("structure.py:11:17: error[TVS004]: unknown op `R.sqrtt`; did you mean `R.sqrt`?") != std::string::npos);
  CHECK(r.out.find("11 |             b = R.sqrtt(a)") != std::string::npos);
  CHECK(r.out.find("   |                 ^^^^^^^\n") != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);  // no colour when not on a terminal
  auto dir = runTvms({"lint", "--verify", corpus("frontend")});
  CHECK(dir.exitCode == 0);
  auto stdinLint = runTvms({"lint", "-"}, tvms::test::readFile(corpus("lint/syntax_error.py")));
  CHECK(stdinLint.exitCode == 1);
  CHECK(stdinLint.out.find("-:11:18: error[TVS001]: '(' was never closed") != std::string::npos);
  CHECK(stdinLint.out.find("-:16:27: error[TVS003]") != std::string::npos);
}

TEST_CASE("cli: fmt in place, --check, --diff and stdin") {
  std::string path = tempFile("fmt.py", kModule);
  auto check = runTvms({"fmt", "--check", path});
  CHECK(check.exitCode == 1);
  CHECK(check.err.find("would reformat") != std::string::npos);
  CHECK(tvms::test::readFile(path) == kModule);  // --check never writes
  auto diff = runTvms({"fmt", "--diff", path});
  CHECK(diff.exitCode == 1);
  CHECK(diff.out.find("\n-        y = R.add(x,x)\n") != std::string::npos);
  CHECK(diff.out.find("\n+        y = R.add(x, x)\n") != std::string::npos);
  CHECK(tvms::test::readFile(path) == kModule);
  CHECK(runTvms({"fmt", path}).exitCode == 0);
  std::string formatted = tvms::test::readFile(path);
  CHECK(formatted.find("y = R.add(x, x)") != std::string::npos);
  CHECK(runTvms({"fmt", "--check", path}).exitCode == 0);
  auto piped = runTvms({"fmt", "-"}, kModule);
  CHECK(piped.exitCode == 0);
  CHECK(piped.out == formatted);
}

TEST_CASE("cli: parse --dump-ir is deterministic and spelling-independent") {
  auto a = runTvms({"parse", "--dump-ir", corpus("run/seed_conv2d_offload.py")});
  auto b = runTvms({"parse", "--dump-ir", corpus("run/seed_conv2d_offload.py")});
  CHECK(a.exitCode == 0);
  CHECK(a.out == b.out);
  CHECK(a.out.find("# from tvm.script import ir as I") == 0);
  CHECK(a.out.find(R"(host = R.to_vdevice(biased, dst_vdevice="llvm:0"))") != std::string::npos);
  // The dump parses back to the same dump.
  auto again = runTvms({"parse", "--dump-ir", tempFile("dump.py", "from tvm.script import ir as I\nfrom tvm.script import relax as R\n" + a.out)});
  CHECK(again.out == a.out);
  CHECK(runTvms({"parse", corpus("run/multi_cpu.py")}).exitCode == 2);  // --dump-ir is required
}

TEST_CASE("cli: explain and run") {
  auto e = runTvms({"explain", "tvs202"});
  CHECK(e.exitCode == 0);
  CHECK(e.out.find("TVS202 (inline-vdevice), error") == 0);
  CHECK(e.out.find("The vdevice is not in the ir_module.") != std::string::npos);
  CHECK(runTvms({"explain", "TVS999"}).exitCode == 2);
}

TEST_CASE("cli: R.print writes to standard output and a false R.assert_op stops the run with its message, also from an artifact") {
  const std::string printed = "4\nNumber: 4\nTuple: (4, 4)\n4 (4, 4)\nm = [[1.5 2.]\n [3. -4.25]]\n";
  auto run = runTvms({"run", corpus("run/print_and_assert.py")});
  CHECK(run.exitCode == 0);
  CHECK(run.out.rfind(printed, 0) == 0);
  auto fails = runTvms({"run", corpus("run/print_and_assert.py"), "--entry", "fails"});
  CHECK(fails.exitCode == 1);
  CHECK(fails.err.find("AssertionError: ") != std::string::npos);
  CHECK(fails.err.find("(R.assert_op in fails)") != std::string::npos);
  // The format strings travel in the .tvmx.
  std::string artifact = tempFile("print_and_assert.tvmx", "");
  REQUIRE(runTvms({"build", corpus("run/print_and_assert.py"), "-o", artifact}).exitCode == 0);
  auto again = runTvms({"run", artifact});
  CHECK(again.exitCode == 0);
  CHECK(again.out.rfind(printed, 0) == 0);
}

TEST_CASE("cli: shapes known only at run time run, and dims that do not broadcast or agree stop the run naming the op") {
  auto dims = [](std::vector<std::string> v) {
    std::vector<std::string> args{"run", corpus("run/runtime_shapes.py"), "--dim", "z_dim0=1", "--dim", "z_dim1=4"};
    for (auto& d : v) {
      args.push_back("--dim");
      args.push_back(d);
    }
    return runTvms(args);
  };
  auto ok = dims({"a=4", "b=4", "c=4", "d=4"});
  CHECK(ok.exitCode == 0);
  CHECK(ok.out.find("shape (4, 4), float32") != std::string::npos);
  auto broadcast = dims({"a=3", "b=4", "c=4", "d=4"});
  CHECK(broadcast.exitCode == 1);
  CHECK(broadcast.err.find("R.add (bound to 's'): dim 0 of the operands (a, c) does not broadcast, got 3 and 4") != std::string::npos);
  auto inner = dims({"a=1", "b=4", "c=5", "d=4"});
  CHECK(inner.exitCode == 1);
  CHECK(inner.err.find("R.matmul (bound to 'm'): b and c must be equal, got 4 and 5") != std::string::npos);
}

TEST_CASE("cli: a tuple parameter runs from random values or from a directory of .npy files (or an .npz: tests/python), binding its symbolic dims") {
  auto random = runTvms({"run", corpus("run/tuple_param.py"), "--dim", "n=3"});
  CHECK(random.exitCode == 0);
  CHECK(random.out.find("gv: shape (3, 7), float32") == 0);
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_tuple_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  REQUIRE(runTvms({"run", corpus("run/tuple_param.py"), "--entry", "parts", "--output", dir.string()}).exitCode == 0);
  std::filesystem::rename(dir / "parts_0.npy", dir / "0.npy");
  std::filesystem::rename(dir / "parts_1.npy", dir / "1.npy");
  auto fromFiles = runTvms({"run", corpus("run/tuple_param.py"), "--input", "t=" + dir.string()});
  CHECK(fromFiles.exitCode == 0);
  CHECK(fromFiles.out.find("gv: shape (3, 6), float32") == 0);  // n = 2, from 1.npy
  auto notDir = runTvms({"run", corpus("run/tuple_param.py"), "--input", "t=" + (dir / "0.npy").string()});
  CHECK(notDir.exitCode != 0);
  CHECK(notDir.err.find("is a tuple: pass a directory holding 0.npy, 1.npy") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: shape values and prim values run: shape_of, R.shape given to reshape, shape_to_tensor, an if on a prim value") {
  auto run = [](const std::string& entry, std::vector<std::string> dims) {
    std::vector<std::string> args{"run", corpus("run/shape_values.py"), "--entry", entry};
    for (auto& d : dims) {
      args.push_back("--dim");
      args.push_back(d);
    }
    return runTvms(args);
  };
  CHECK(run("get_shape", {"t_dim0=2", "t_dim1=3", "t_dim2=4"}).out.rfind("lv: shape (3,), int64, on \"host\": first [2, 3, 4]\n", 0) == 0);
  CHECK(run("reshaped", {"a=2", "b=3"}).out.rfind("gv: shape (3, 2), float32", 0) == 0);
  CHECK(run("as_tensor", {"m=2", "n=3"}).out.rfind("lv: shape (3,), int64, on \"llvm:0\": first [2, 6, 7]\n", 0) == 0);
  CHECK(run("pick", {"n=3"}).out.rfind("out: shape (), int64, on \"host\": first [35]\n", 0) == 0);
  CHECK(run("pick", {"n=0"}).out.rfind("out: shape (), int64, on \"host\": first [10]\n", 0) == 0);
}

TEST_CASE("cli: a parameter dim written as an expression (n * 3) is made from --dim and checked when the argument comes from a file") {
  auto made = runTvms({"run", corpus("run/computed_dims.py"), "--dim", "n=2", "--dim", "m=2"});
  CHECK(made.exitCode == 0);
  CHECK(made.out.find("gv_2: shape (2, 2), float32") != std::string::npos);
  auto missing = runTvms({"run", corpus("run/computed_dims.py"), "--dim", "m=2"});
  CHECK(missing.exitCode != 0);
  CHECK(missing.err.find("pass --dim n=VALUE") != std::string::npos);
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_computed_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  REQUIRE(runTvms({"run", corpus("run/computed_dims.py"), "--entry", "seven", "--output", dir.string()}).exitCode == 0);
  auto wrong = runTvms({"run", corpus("run/computed_dims.py"), "--dim", "n=2", "--input", "x=" + (dir / "x.npy").string(), "--input", "dumb_param=random"});
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.err.find("input 'x' of main: dim n * 3 is 6, got 7") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: vm.builtin.copy / to_device through call_pure_packed and R.null_value run, and an unknown packed function is named") {
  auto x = runTvms({"run", corpus("run/vm_builtins.py"), "--input", "x=random:3"});
  CHECK(x.exitCode == 0);
  auto same = runTvms({"run", corpus("run/tuple_param.py"), "--entry", "parts", "--input", "x=random:3", "--input", "y=random:1"});
  // The copy of the copy is x itself: the same first values as x printed by another module.
  auto firstValues = [](const std::string& out) { return out.substr(out.find("first ["), 40); };
  CHECK(firstValues(x.out) == firstValues(same.out));
  auto unknown = runTvms({"run", tempFile("unknown_packed.py", "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n"
                                                               "@I.ir_module\nclass Module:\n    @R.function\n"
                                                               "    def main(x: R.Tensor((3, 4), \"float32\")):\n"
                                                               "        z = R.call_pure_packed(\"test.vm.add\", x, x, sinfo_args=(R.Tensor((3, 4), dtype=\"float32\")))\n"
                                                               "        return z\n")});
  CHECK(unknown.exitCode == 1);
  CHECK(unknown.err.find("the packed function 'test.vm.add' is not in tvms") != std::string::npos);
}

TEST_CASE("cli: a data-dependent shape (R.tensor_to_shape) binds its dims for the reshape after it, which is checked when it runs") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_dd_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  REQUIRE(runTvms({"run", corpus("run/data_dependent_shape.py"), "--entry", "dims", "--output", dir.string()}).exitCode == 0);
  auto ok = runTvms({"run", corpus("run/data_dependent_shape.py"), "--input", "x=" + (dir / "x.npy").string(), "--input", "y=random"});
  CHECK(ok.exitCode == 0);
  CHECK(ok.out.rfind("gv: shape (2, 8), float32", 0) == 0);
  auto wrong = runTvms({"run", corpus("run/data_dependent_shape.py"), "--input", "x=random:7", "--input", "y=random"});  // values 0..9: not 16 elements
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.err.find("R.reshape (bound to 'gv'): 16 and lv_dim0 * lv_dim1 must be equal") != std::string::npos);
  std::filesystem::remove_all(dir);
}

// A 1-D int64 .npy (version 1.0: magic, header padded to 64 bytes, the values little-endian).
void writeInt64Npy(const std::filesystem::path& path, const std::vector<int64_t>& values) {
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(int64_t)));
}

TEST_CASE("cli: R.match_cast of a shape value binds its dims for what follows, and checks fixed ones when it runs") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_match_cast_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  writeInt64Npy(dir / "x28.npy", {2, 8});
  writeInt64Npy(dir / "x44.npy", {4, 4});
  auto bound = runTvms({"run", corpus("run/match_cast_shape.py"), "--input", "x=" + (dir / "x28.npy").string(), "--input", "y=random"});
  CHECK(bound.exitCode == 0);
  CHECK(bound.out.rfind("w: shape (2, 8), float32", 0) == 0);
  auto other = runTvms({"run", corpus("run/match_cast_shape.py"), "--input", "x=" + (dir / "x44.npy").string(), "--input", "y=random"});
  CHECK(other.exitCode == 0);
  CHECK(other.out.rfind("w: shape (4, 4), float32", 0) == 0);
  auto fixed = runTvms({"run", corpus("run/match_cast_shape.py"), "--entry", "fixed", "--input", "x=" + (dir / "x44.npy").string(), "--input", "y=random"});
  CHECK(fixed.exitCode == 1);
  CHECK(fixed.err.find("R.match_cast (bound to 't'): dim 0 of the value must equal the cast's 2, got 4 and 2") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: an op TVM runs only through a contrib library says which, and call_inplace_packed of a function tvms lacks names it") {
  std::string header = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n";
  auto varLen = runTvms({"build", tempFile("attention_var_len.py", header +
      "    def main(q: R.Tensor((1, 8, 2, 16), \"float16\"), k: R.Tensor((1, 8, 2, 16), \"float16\"), v: R.Tensor((1, 8, 2, 16), \"float16\"),\n"
      "             sq: R.Tensor((3,), \"int32\")):\n"
      "        o = R.nn.attention_var_len(q, k, v, sq)\n        return o\n")});
  CHECK(varLen.exitCode == 1);
  CHECK(varLen.err.find("R.nn.attention_var_len (bound to 'o') has no kernel in tvms: TVM runs it only through CUTLASS") != std::string::npos);
  auto ops = runTvms({"explain", "--ops"});
  CHECK(ops.out.find("runs: not in tvms: TVM runs it only through CUTLASS") != std::string::npos);
  auto inplace = runTvms({"run", tempFile("inplace_packed.py", header +
      "    def main(x: R.Tensor((3,), \"float32\")):\n"
      "        z = R.call_inplace_packed(\"test.vm.inplace_add\", x, x, inplace_indices=[0], sinfo_args=(R.Tensor((3,), \"float32\"),))\n"
      "        return z\n")});
  CHECK(inplace.exitCode == 1);
  CHECK(inplace.err.find("the packed function 'test.vm.inplace_add' is not in tvms") != std::string::npos);
}

TEST_CASE("cli: dynamic_strided_slice, unique and nonzero shape their results at run time, and an annotated shape is checked when it runs") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_dd_ops_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto vector = [&](const std::string& name, const std::vector<int64_t>& values) {
    writeInt64Npy(dir / name, values);
    return name.substr(0, name.find('.')) + "=" + (dir / name).string();
  };
  std::string begin = vector("begin.npy", {0, 1, 0}), end = vector("end.npy", {2, 3, 4}), unit = vector("strides.npy", {1, 1, 1});
  auto ok = runTvms({"run", corpus("run/data_dependent_ops.py"), "--input", "x=random", "--input", begin, "--input", end, "--input", unit});
  CHECK(ok.exitCode == 0);
  CHECK(ok.out.rfind("gv: shape (2, 2, 4), float32", 0) == 0);
  std::string two = vector("strides.npy", {1, 2, 1});  // one row of the middle axis where the annotation says two
  auto wrong = runTvms({"run", corpus("run/data_dependent_ops.py"), "--input", "x=random", "--input", begin, "--input", end, "--input", two});
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.err.find("R.dynamic_strided_slice (bound to 'gv'): dim 1 of its result must equal its annotation (computed, annotated), got 1 and 2") !=
        std::string::npos);
  auto sets = runTvms({"run", corpus("run/data_dependent_ops.py"), "--entry", "sets", "--input", "x=random"});
  CHECK(sets.exitCode == 0);
  CHECK(sets.out.find("gv_0_0: shape (24,), float32") != std::string::npos);  // random floats: all distinct
  CHECK(sets.out.find("gv_1: shape (3, 24), int64") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: an integer parameter (R.Prim(\"int64\")) is given with --input NAME=VALUE and indexes like a written one") {
  auto given = runTvms({"run", corpus("run/prim_param.py"), "--input", "x=random:5", "--input", "index=2"});
  auto fixed = runTvms({"run", corpus("run/prim_param.py"), "--entry", "fixed", "--input", "x=random:5"});
  CHECK(given.exitCode == 0);
  CHECK(fixed.exitCode == 0);
  auto firstLine = [](const std::string& out) { return out.substr(0, out.find('\n')); };
  CHECK(firstLine(given.out) == firstLine(fixed.out));
  auto other = runTvms({"run", corpus("run/prim_param.py"), "--input", "x=random:5", "--input", "index=0"});
  CHECK(firstLine(other.out) != firstLine(fixed.out));
  auto bad = runTvms({"run", corpus("run/prim_param.py"), "--input", "x=random", "--input", "index=two"});
  CHECK(bad.exitCode != 0);
  CHECK(bad.err.find("is an integer: pass --input index=VALUE") != std::string::npos);
}

TEST_CASE("cli: tvms run and tvms build: two CPU vdevices, .tvmx artifacts, .npy in and out, clear input errors") {
  auto run = runTvms({"run", corpus("run/multi_cpu.py"), "--input", "x=random:1", "--input", "y=random:2", "--input", "z=random:3"});
  CHECK(run.exitCode == 0);
  CHECK(run.out.find("gv: shape (64, 16), float32, on \"llvm:1\": min ") == 0);
  CHECK(run.out.find("copied between devices: 8192 bytes in 1 copies") != std::string::npos);
  CHECK(run.out.find("device 1 \"llvm:1\" (cpu:1): 1 kernels") != std::string::npos);
  // One kernel called on two devices runs on each (the last call site used to win: "0 kernels; 2 kernels").
  auto shared = runTvms({"run", corpus("run/same_kernel_two_cpus.py")});
  CHECK(shared.exitCode == 0);
  CHECK(shared.out.find("device 0 \"llvm:0\" (cpu:0): 1 kernels") != std::string::npos);
  CHECK(shared.out.find("device 1 \"llvm:1\" (cpu:1): 1 kernels") != std::string::npos);

  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_run_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string artifact = (dir / "multi.tvmx").string();
  auto build = runTvms({"build", corpus("run/multi_cpu.py"), "-o", artifact});
  CHECK(build.exitCode == 0);
  REQUIRE(std::filesystem::exists(artifact));
  auto fromArtifact = runTvms({"run", artifact, "--input", "x=random:1", "--input", "y=random:2", "--input", "z=random:3", "--output", dir.string()});
  CHECK(fromArtifact.exitCode == 0);
  // The same inputs give the same numbers from the source and from the artifact.
  CHECK(fromArtifact.out.substr(0, fromArtifact.out.find('\n')) == run.out.substr(0, run.out.find('\n')));
  CHECK(std::filesystem::exists(dir / "gv.npy"));

  // A tuple result: DIR/<function>_<i>.npy.
  std::string tupleModule = (dir / "pair.py").string();
  {
    std::ofstream m(tupleModule);
    m << "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n"
         "    def main(x: R.Tensor((2, 3), \"float32\")):\n        y = R.add(x, x)\n        return (x, y)\n";
  }
  auto pair = runTvms({"run", tupleModule, "--output", dir.string()});
  CHECK(pair.exitCode == 0);
  CHECK(pair.out.find("main_1: shape (2, 3), float32") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "main_0.npy"));
  CHECK(std::filesystem::exists(dir / "main_1.npy"));

  // An output fed back as an input; its symbolic dim comes from the file.
  auto sym = runTvms({"run", corpus("run/symbolic_batch.py"), "--dim", "n=5", "--output", dir.string()});
  CHECK(sym.exitCode == 0);
  CHECK(sym.out.find("z: shape (5, 8), float32") == 0);
  auto again = runTvms({"run", corpus("run/symbolic_batch.py"), "--input", "x=" + (dir / "z.npy").string()});
  CHECK(again.exitCode == 0);
  CHECK(again.out.find("z: shape (5, 8), float32") == 0);

  auto wrong = runTvms({"run", corpus("run/multi_cpu.py"), "--input", "x=" + (dir / "z.npy").string(), "--input", "y=random", "--input", "z=random"});
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.err.find("input 'x' of main: shape (5, 8); expected R.Tensor((64, 128), dtype=\"float32\", vdevice=\"llvm:0\")") != std::string::npos);
  auto missing = runTvms({"run", corpus("run/multi_cpu.py"), "--input", "x=random"});
  CHECK(missing.exitCode == 2);
  // --random-missing fills the others; --format json is one object with the text inside.
  auto json = runTvms({"run", corpus("run/multi_cpu.py"), "--input", "x=random:1", "--random-missing", "--format", "json"});
  CHECK(json.exitCode == 0);
  auto summary = nlohmann::json::parse(json.out);
  CHECK(summary["outputs"][0]["vdevice"] == "llvm:1");
  CHECK(summary["copies"] == 1);
  CHECK(summary["text"].get<std::string>().find("copied between devices: 8192 bytes") != std::string::npos);
  // --emit=asm / --emit=llvm print the kernels' code, named tvmsk_<op>.
  auto asmText = runTvms({"build", corpus("run/multi_cpu.py"), "--emit=asm"});
  CHECK(asmText.exitCode == 0);
  CHECK(asmText.out.find("tvmsk_matmul:") != std::string::npos);
  auto llvmText = runTvms({"build", corpus("run/multi_cpu.py"), "--emit=llvm"});
  CHECK(llvmText.out.find("i32 @tvmsk_matmul(ptr") != std::string::npos);
  CHECK(missing.err.find("missing input 'y' (R.Tensor((128, 32)") != std::string::npos);
  auto entry = runTvms({"run", corpus("run/multi_cpu.py"), "--entry", "nope"});
  CHECK(entry.exitCode == 2);
  CHECK(entry.err.find("no function 'nope'") != std::string::npos);
  auto symbolic = runTvms({"run", corpus("run/symbolic_batch.py")});
  CHECK(symbolic.exitCode == 2);
  CHECK(symbolic.err.find("--dim n=VALUE") != std::string::npos);
  // The code generator is a plugin beside the binary; without it, a clear error (and lint still works).
  setenv("TVMS_CPU_BACKEND", "/nonexistent/libtvms_llvm_backend.so", 1);
  auto noBackend = runTvms({"run", corpus("run/multi_cpu.py")});
  auto lintWithout = runTvms({"lint", corpus("run/multi_cpu.py")});
  unsetenv("TVMS_CPU_BACKEND");
  CHECK(noBackend.exitCode == 1);
  CHECK(noBackend.err.find("cannot find the CPU code generator libtvms_llvm_backend.so; looked in: /nonexistent/libtvms_llvm_backend.so") !=
        std::string::npos);
  CHECK(lintWithout.exitCode == 0);
  auto cuda = runTvms({"run", corpus("run/cpu_gpu_mlp.py")});
  CHECK(cuda.exitCode == 1);
  CHECK(cuda.err.find("`--device cuda:0=cpu` runs it on the CPU") != std::string::npos);
  auto remapped = runTvms({"run", corpus("run/cpu_gpu_mlp.py"), "--device", "cuda:0=cpu"});
  CHECK(remapped.exitCode == 0);
  CHECK(remapped.out.find("out: shape (256, 10), float32, on \"llvm:0\"") == 0);
  auto damaged = runTvms({"run", tempFile("bad.tvmx", "TVMX0004garbage")});
  CHECK(damaged.exitCode == 1);
  CHECK(damaged.err.find("damaged artifact metadata") != std::string::npos);
  auto older = runTvms({"run", tempFile("old.tvmx", "TVMX0001garbage")});
  CHECK(older.exitCode == 1);
  CHECK(older.err.find("rebuild it with tvms build") != std::string::npos);

  // --print-after prints TVMScript that lints clean again (kernels as T.prim_func, bytecode as comments).
  auto printed = runTvms({"build", corpus("run/multi_cpu.py"), "--print-after=LegalizeOps"});
  CHECK(printed.exitCode == 0);
  CHECK(printed.out.find("R.call_tir(") != std::string::npos);
  CHECK(printed.out.find("@T.prim_func") != std::string::npos);
  CHECK(runTvms({"lint", tempFile("legalized.py", printed.out)}).exitCode == 0);
  auto all = runTvms({"build", corpus("run/multi_cpu.py"), "--print-after-all"});
  for (const char* pass : {"# after Normalize", "# after RealizeVDevice", "# after LegalizeOps", "# after LowerToVM", "call_kernel", "to_device"})
    CHECK(all.out.find(pass) != std::string::npos);
  CHECK(runTvms({"build", corpus("run/multi_cpu.py"), "--print-after=Nope"}).exitCode == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: --print-after stops after the pass it prints, and --passes runs exactly the passes named") {
  // A module on a kind tvms has no code generator for: the full build fails at code generation, so
  // a build that stops after a pass must not get there.
  std::string rocm = tempFile("rocm.py",
                              "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                              "    I.module_global_infos({\"vdevice\": [I.vdevice(\"rocm\", 0)]})\n\n    @R.function\n"
                              "    def main(x: R.Tensor((4,), \"float32\", \"rocm:0\")) -> R.Tensor((4,), \"float32\", \"rocm:0\"):\n"
                              "        y = R.add(x, x)\n        return y\n");
  CHECK(runTvms({"build", rocm}).exitCode == 1);
  auto normalized = runTvms({"build", rocm, "--print-after=Normalize"});
  CHECK(normalized.exitCode == 0);
  CHECK(normalized.out.find("# after Normalize") != std::string::npos);
  CHECK(normalized.out.find("# after RealizeVDevice") == std::string::npos);
  CHECK(normalized.err.find("stopped after") != std::string::npos);
  auto lowered = runTvms({"build", rocm, "--print-after=LowerToVM"});
  CHECK(lowered.exitCode == 0);
  CHECK(lowered.out.find("call_kernel") != std::string::npos);
  // --print-after with -o compiles as asked (and here fails at code generation after printing).
  auto withOutput = runTvms({"build", rocm, "--print-after=Normalize", "-o", tempFile("rocm.tvmx", "")});
  CHECK(withOutput.exitCode == 1);
  CHECK(withOutput.out.find("# after Normalize") != std::string::npos);

  // --passes: these passes in this order, the module printed after the last one.
  auto two = runTvms({"build", rocm, "--passes=Normalize,LegalizeOps"});
  CHECK(two.exitCode == 0);
  CHECK(two.out.find("# after LegalizeOps") != std::string::npos);
  CHECK(two.out.find("# after Normalize") == std::string::npos);
  CHECK(two.out.find("R.call_tir(") != std::string::npos);
  auto missing = runTvms({"build", rocm, "--passes=LegalizeOps"});
  CHECK(missing.exitCode == 1);
  CHECK(missing.err.find("LegalizeOps needs Normalize before it") != std::string::npos);
  auto unknown = runTvms({"build", rocm, "--passes=Normalize,Nope"});
  CHECK(unknown.exitCode == 1);
  CHECK(unknown.err.find("unknown pass 'Nope' (passes: UpdateVDevice, Normalize,") != std::string::npos);
  CHECK(runTvms({"build", rocm, "--passes=Normalize,Normalize"}).err.find("twice") != std::string::npos);
  CHECK(runTvms({"build", rocm, "--passes=Normalize", "-o", tempFile("out.tvmx", "")}).exitCode == 2);
  // A pass outside the default pipeline runs when named.
  auto folded = runTvms({"build", corpus("passes/fold_scope_change.before.py"), "--passes=Normalize,LegalizeOps,FoldVDeviceScopeChange"});
  CHECK(folded.exitCode == 0);
  CHECK(folded.out.find("# after FoldVDeviceScopeChange") != std::string::npos);
  CHECK(runTvms({"build", rocm, "--passes=UpdateVDevice"}).err.find("--update-vdevice=INDEX:KIND") != std::string::npos);
}

TEST_CASE("cli: TVM's opt-in passes on the command line: --update-vdevice and --fold-vdevice-scope-change") {
  // UpdateVDevice(I.vdevice("cuda", 1), 1): entry 1 is replaced and what sat on it follows.
  auto updated = runTvms({"build", corpus("passes/update_vdevice.before.py"), "--update-vdevice=1:cuda:1",
                          "--print-after=UpdateVDevice"});
  CHECK(updated.exitCode == 0);
  CHECK(updated.out.find("# after UpdateVDevice") != std::string::npos);
  CHECK(updated.out.find("I.vdevice(\"cuda\", 1, \"global\")") != std::string::npos);
  // Asking to print a pass that does not run says how to run it; a malformed spec is refused.
  // (exit 1, not 2: the file's own program may call UpdateVDevice, so this is known only after reading it)
  auto notAsked = runTvms({"build", corpus("passes/update_vdevice.before.py"), "--print-after=UpdateVDevice"});
  CHECK(notAsked.exitCode == 1);
  CHECK(notAsked.err.find("--update-vdevice=INDEX:KIND") != std::string::npos);
  CHECK(runTvms({"build", corpus("passes/update_vdevice.before.py"), "--update-vdevice=x:cuda"}).exitCode == 2);
  auto past = runTvms({"build", corpus("passes/update_vdevice.before.py"), "--update-vdevice=7:cuda"});
  CHECK(past.exitCode != 0);
  CHECK(past.err.find("past the module's vdevice list") != std::string::npos);

  auto folded = runTvms({"build", corpus("passes/fold_scope_change.before.py"), "--fold-vdevice-scope-change",
                         "--print-after=FoldVDeviceScopeChange"});
  CHECK(folded.out.find("# after FoldVDeviceScopeChange") != std::string::npos);
  CHECK(folded.out.find("R.to_vdevice(\n            lv,") == std::string::npos);
  CHECK(folded.out.find("lv2, dst_vdevice=\"opencl:1\"") != std::string::npos);  // two consumers: kept
  auto foldNotAsked = runTvms({"build", corpus("passes/fold_scope_change.before.py"), "--print-after=FoldVDeviceScopeChange"});
  CHECK(foldNotAsked.exitCode == 1);
  CHECK(foldNotAsked.err.find("runs only when asked for: add --fold-vdevice-scope-change") != std::string::npos);
}

TEST_CASE("cli: TVS009 (future annotations) is reported only when selected: TVM's own tests use the import") {
  auto plain = runTvms({"lint", corpus("lint/future_import.py")});
  CHECK(plain.out.find("TVS009") == std::string::npos);
  auto selected = runTvms({"lint", "--extend-select", "TVS009", corpus("lint/future_import.py")});
  CHECK(selected.out.find("warning[TVS009]") != std::string::npos);
}

TEST_CASE("cli: explain --ops lists every op with its defaults and what runs it") {
  auto r = runTvms({"explain", "--ops"});
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("R.nn.relu6(data)\n") != std::string::npos);
  CHECK(r.out.find("R.median(x, axis=None, keepdims=False)\n") != std::string::npos);
  CHECK(r.out.find("R.nn.conv2d(data, weight, strides=[1, 1], padding=[0, 0]") != std::string::npos);
  CHECK(r.out.find("R.tile(data, repeats)\n    Repeats data `repeats` times along each axis (numpy.tile).\n    runs: a kernel") != std::string::npos);
  CHECK(r.out.find("runs: the VM's copy between devices") != std::string::npos);  // to_vdevice
  // Data-dependent shapes: a kernel too. An op TVM runs only through a library names it.
  CHECK(r.out.find("R.dynamic_strided_slice(x, begin, end, strides)\n") != std::string::npos);
  CHECK(r.out.find("runs: not in tvms: TVM runs it only through CUTLASS") != std::string::npos);
  // Nothing is left known by name only, so no such list is printed.
  size_t known = r.out.find("Known to TVM, not modelled");
  CHECK(known == std::string::npos);
  CHECK(r.out.find("R.quantize(data, scale, zero_point, axis=-1, out_dtype=\"int8\")") != std::string::npos);
}

TEST_CASE("cli: parse --dump-ir says what it could not lower and exits 1") {
  auto r = runTvms({"parse", "--dump-ir", tempFile("dropped.py", "from tvm.script import relax as R\n\n@R.function\n"
                                                                 "def f(x: R.Tensor((2,), \"float32\")):\n"
                                                                 "    y = R.add(x, x, x)\n    return y\n")});
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("y = R.add(x, x)") != std::string::npos);
  CHECK(r.err.find("could not be lowered") != std::string::npos);
  CHECK(r.err.find("R.add takes 2 arguments") != std::string::npos);
  CHECK(runTvms({"parse", "--dump-ir", corpus("lint/tvm_tirx_calls_and_tuples.py")}).exitCode == 0);
}

TEST_CASE("cli: fmt walks directories for .py files and --check writes nothing") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cli_dir_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "pkg" / ".hidden");
  { std::ofstream(dir / "pkg" / "a.py") << kModule; }
  { std::ofstream(dir / "pkg" / ".hidden" / "b.py") << kModule; }  // hidden folders are skipped
  { std::ofstream(dir / "pkg" / "notes.txt") << kModule; }        // only .py files
  auto check = runTvms({"fmt", "--check", dir.string()});
  CHECK(check.exitCode == 1);
  CHECK(check.err.find("a.py") != std::string::npos);
  CHECK(check.err.find("b.py") == std::string::npos);
  CHECK(tvms::test::readFile((dir / "pkg" / "a.py").string()) == kModule);
  CHECK(runTvms({"fmt", dir.string()}).exitCode == 0);
  CHECK(tvms::test::readFile((dir / "pkg" / "a.py").string()) != kModule);
  CHECK(tvms::test::readFile((dir / "pkg" / ".hidden" / "b.py").string()) == kModule);
  CHECK(tvms::test::readFile((dir / "pkg" / "notes.txt").string()) == kModule);
  CHECK(runTvms({"fmt", "--check", dir.string()}).exitCode == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: lint --output-format json is one array with codes, ranges, related notes and fixes") {
  auto r = runTvms({"lint", "--output-format", "json", corpus("lint/operands_on_two_devices.py")});
  CHECK(r.exitCode == 1);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 1);
  CHECK(j[0]["code"] == "TVS203");
  CHECK(j[0]["severity"] == "error");
  CHECK(j[0]["location"]["row"] == 15);
  CHECK(j[0]["location"]["column"] == 22);
  CHECK(j[0]["end_location"]["column"] == 23);
  CHECK(j[0]["related"].size() >= 3);
  CHECK(j[0]["fixes"][0]["applicability"] == "unsafe");
  CHECK(j[0]["fixes"][0]["edits"][0]["content"] == "R.to_vdevice(b, \"cuda:0\")");
  auto clean = runTvms({"lint", "--output-format=json", corpus("lint/clean_multi_device.py")});
  CHECK(clean.exitCode == 0);
  CHECK(nlohmann::json::parse(clean.out).empty());
}

TEST_CASE("cli: lint --output-format github prints workflow commands") {
  auto r = runTvms({"lint", "--output-format", "github", corpus("lint/hints_and_propagation.py")});
  CHECK(r.exitCode == 0);  // warnings only
  CHECK(r.out.find("::warning file=") == 0);
  CHECK(r.out.find("hints_and_propagation.py,line=13,col=9,endLine=13,endColumn=24,title=tvms TVS204::two devices meet here") !=
        std::string::npos);
  size_t lines = std::count(r.out.begin(), r.out.end(), '\n');
  CHECK(lines == 3);
}

TEST_CASE("cli: lint --output-format sarif is valid SARIF 2.1.0 (official schema, ajv)") {
  auto r = runTvms({"lint", "--output-format", "sarif", corpus("lint")});
  CHECK(r.exitCode == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["version"] == "2.1.0");
  auto& run = j["runs"][0];
  CHECK(run["tool"]["driver"]["rules"].size() >= 30);
  CHECK(run["results"].size() >= 30);
  for (auto& res : run["results"]) {
    std::string uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    CHECK(uri.find('/') != 0);  // relative to the source root, or an absolute file URI
    if (uri.rfind("file://", 0) != 0) CHECK(res["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%");
  }
  std::string validator = std::string(TVMS_SOURCE_DIR) + "/tests/sarif/validate.mjs";
  REQUIRE_MESSAGE(std::filesystem::exists(std::string(TVMS_SOURCE_DIR) + "/tests/sarif/node_modules/ajv-draft-04"),
                  "run ./dev test (it installs the SARIF schema check with npm ci in tests/sarif)");
  std::string out = tempFile("out.sarif", r.out);
  std::string cmd = "node " + validator + " " + out + " >/dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  std::string broken = tempFile("broken.sarif", R"({"version": "2.1.0", "runs": [{"tool": {}}]})");
  CHECK(std::system(("node " + validator + " " + broken + " >/dev/null 2>&1").c_str()) != 0);  // the check can fail
  std::filesystem::remove(out);
  std::filesystem::remove(broken);
}

TEST_CASE("cli: lint exit codes: warnings, --error-on-warning, --exit-zero, usage errors") {
  std::string warnings = corpus("lint/lenient_matmul.py");
  CHECK(runTvms({"lint", warnings}).exitCode == 0);
  CHECK(runTvms({"lint", "--error-on-warning", warnings}).exitCode == 1);
  CHECK(runTvms({"lint", "--exit-zero", corpus("lint/structure.py")}).exitCode == 0);
  CHECK(runTvms({"lint", "--bogus"}).exitCode == 2);
  CHECK(runTvms({"lint", "--output-format", "xml", warnings}).exitCode == 2);
  CHECK(runTvms({"lint", "/nonexistent/file.py"}).exitCode == 2);
  auto ignored = runTvms({"lint", "--ignore", "TVS0", corpus("lint/structure.py")});
  CHECK(ignored.exitCode == 0);
  CHECK(ignored.out == "All checks passed!\n");
  auto selected = runTvms({"lint", "--select", "TVS004", corpus("lint/structure.py")});
  CHECK(selected.out.find("TVS004") != std::string::npos);
  CHECK(selected.out.find("TVS003") == std::string::npos);
}

TEST_CASE("cli: lint --verify fails on a missing or an unexpected diagnostic") {
  std::string text = tvms::test::readFile(corpus("lint/operands_on_two_devices.py"));
  CHECK(runTvms({"lint", "--verify", tempFile("v_ok.py", text)}).exitCode == 0);
  std::string missing = text;
  missing.replace(missing.find("# expect: TVS203"), 16, "# expect: TVS201");
  auto m = runTvms({"lint", "--verify", tempFile("v_missing.py", missing)});
  CHECK(m.exitCode == 1);
  CHECK(m.out.find("line 15: expected TVS201, not reported") != std::string::npos);
  CHECK(m.out.find("line 15: unexpected TVS203") != std::string::npos);
  // An expectation may pin the column (1-based) and a substring of the message.
  std::string pinned = text;
  pinned.replace(pinned.find("# expect: TVS203"), 16, "# expect: TVS203@22 {{operands are on different vdevices}}");
  CHECK(runTvms({"lint", "--verify", tempFile("v_pinned.py", pinned)}).exitCode == 0);
  std::string column = text;
  column.replace(column.find("# expect: TVS203"), 16, "# expect: TVS203@9");
  auto c = runTvms({"lint", "--verify", tempFile("v_column.py", column)});
  CHECK(c.exitCode == 1);
  CHECK(c.out.find("line 15: expected TVS203 at column 9, not reported (reported: TVS203 at column 22 (\"R.add: operands are on different") != std::string::npos);
  std::string message = text;
  message.replace(message.find("# expect: TVS203"), 16, "# expect: TVS203 {{same vdevice}}");
  auto w = runTvms({"lint", "--verify", tempFile("v_message.py", message)});
  CHECK(w.exitCode == 1);
  CHECK(w.out.find("line 15: expected TVS203 with \"same vdevice\", not reported") != std::string::npos);
  // A column too long to be one is no column (and no crash).
  std::string huge = text;
  huge.replace(huge.find("# expect: TVS203"), 16, "# expect: TVS203@99999999999999999999999");
  CHECK(runTvms({"lint", "--verify", tempFile("v_huge.py", huge)}).exitCode == 0);
}

TEST_CASE("cli: lint --fix applies the safe fixes in place, and the result lints clean") {
  std::string path = tempFile("fix.py", tvms::test::readFile(corpus("lint/inline_vdevice_literal.py")));
  auto r = runTvms({"lint", "--fix", path});
  CHECK(r.exitCode == 0);
  std::string fixed = tvms::test::readFile(path);
  CHECK(fixed.find("R.to_vdevice(conv, \"llvm:0\")") != std::string::npos);
  CHECK(runTvms({"lint", path}).out == "All checks passed!\n");
  // Unsafe fixes only with --unsafe-fixes.
  std::string two = tempFile("fix2.py", tvms::test::readFile(corpus("lint/operands_on_two_devices.py")));
  CHECK(runTvms({"lint", "--fix", two}).exitCode == 1);
  CHECK(runTvms({"lint", "--fix", "--unsafe-fixes", two}).exitCode == 0);
  CHECK(tvms::test::readFile(two).find("R.add(c, R.to_vdevice(b, \"cuda:0\"))") != std::string::npos);
  auto stdinFix = runTvms({"lint", "--fix", "-"}, tvms::test::readFile(corpus("lint/inline_vdevice_literal.py")));
  CHECK(stdinFix.out.find("\"llvm:0\"") != std::string::npos);
  // stdout is the fixed text alone (an editor replaces the buffer with it); the report goes to stderr.
  CHECK(stdinFix.out.find("All checks passed") == std::string::npos);
  CHECK(stdinFix.err.find("All checks passed!") != std::string::npos);
  std::filesystem::remove(path);
  std::filesystem::remove(two);
}

TEST_CASE("cli: lint reads [tool.tvms] from the nearest pyproject.toml: a bad key is TVS901, exit 2") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_cfg_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "pkg");
  std::string module = tvms::test::readFile(corpus("lint/structure.py"));
  { std::ofstream(dir / "pkg" / "m.py") << module; }
  { std::ofstream(dir / "pyproject.toml") << "[project]\nname = \"x\"\n\n[tool.tvms]\nignore = [\"TVS003\", \"TVS004\"]\n"; }
  auto r = runTvms({"lint", (dir / "pkg" / "m.py").string()});
  CHECK(r.out.find("TVS007") != std::string::npos);
  CHECK(r.out.find("TVS003") == std::string::npos);
  CHECK(r.out.find("TVS004") == std::string::npos);
  CHECK(runTvms({"lint", "--no-config", (dir / "pkg" / "m.py").string()}).out.find("TVS003") != std::string::npos);
  // exclude skips matching files in lint and fmt; line-length sets fmt's width.
  { std::ofstream(dir / "pkg" / "gen_m.py") << module; }
  { std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\nexclude = [\"gen_*\"]\nline-length = 40\n"; }
  auto dirLint = runTvms({"lint", (dir / "pkg").string()});
  CHECK(dirLint.out.find("m.py") != std::string::npos);
  CHECK(dirLint.out.find("gen_m.py") == std::string::npos);
  std::string wide = tvms::test::readFile(corpus("lint/clean_multi_device.py"));
  { std::ofstream(dir / "pkg" / "w.py") << wide; }
  auto narrow = runTvms({"fmt", "--diff", (dir / "pkg" / "w.py").string()});            // 40 from the config
  auto wide100 = runTvms({"fmt", "--diff", "--line-width", "100", (dir / "pkg" / "w.py").string()});  // the flag wins
  CHECK(narrow.out.find("+") != std::string::npos);
  CHECK(narrow.out != wide100.out);
  CHECK(runTvms({"fmt", "--diff", (dir / "pkg" / "gen_m.py").string()}).out.empty());  // excluded
  { std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\nignore = [\"TVS003\"]\nline-lenght = 80\n"; }
  auto bad = runTvms({"lint", (dir / "pkg" / "m.py").string()});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("pyproject.toml:3:1: error[TVS901]: unknown key 'line-lenght'") != std::string::npos);
  { std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\nselect = \"TVS2\"\n"; }
  CHECK(runTvms({"lint", (dir / "pkg" / "m.py").string()}).err.find("'select' must be a list of strings") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: tvms run --trace writes a Chrome trace of each device's kernels and copies") {
  std::string path = (std::filesystem::temp_directory_path() / ("tvms_trace_" + std::to_string(getpid()) + ".json")).string();
  auto run = runTvms({"run", corpus("run/multi_cpu.py"), "--trace", path, "--repeat", "3"});
  REQUIRE(run.exitCode == 0);
  CHECK(run.out.find("repeated 3 times: p50 ") != std::string::npos);
  std::ifstream in(path);
  nlohmann::json trace = nlohmann::json::parse(in);
  std::map<int, std::string> threads;
  std::vector<nlohmann::json> spans;
  for (auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") threads[e.at("tid").get<int>()] = e.at("args").at("name");
    if (e.at("ph") == "X") spans.push_back(e);
  }
  REQUIRE(threads.size() == 2);
  CHECK(threads[0].find("llvm:0") != std::string::npos);
  CHECK(threads[1].find("llvm:1") != std::string::npos);
  // Four calls (the first and three repeats): each a matmul on device 0, a copy onto device 1, a matmul there.
  REQUIRE(spans.size() == 12);
  for (size_t i = 0; i < spans.size(); i += 3) {
    CHECK(spans[i].at("tid") == 0);
    CHECK(spans[i].at("cat") == "kernel");
    CHECK(spans[i + 1].at("tid") == 1);
    CHECK(spans[i + 1].at("cat") == "copy");
    CHECK(spans[i + 1].at("args").at("bytes") == 64 * 32 * 4);
    CHECK(spans[i + 2].at("tid") == 1);
    // In order on the timeline: the copy starts after the kernel that made its source ends.
    CHECK(spans[i + 1].at("ts").get<double>() >= spans[i].at("ts").get<double>() + spans[i].at("dur").get<double>() - 1.0);
    for (size_t k = 0; k < 3; ++k) CHECK(spans[i + k].at("dur").get<double>() >= 0);
  }
  std::filesystem::remove(path);
}

TEST_CASE("cli: tvms run --repeat places the inputs on their devices once, not on every call") {
  auto run = runTvms({"run", corpus("run/multi_cpu.py"), "--random-missing", "--repeat", "4", "--format", "json"});
  REQUIRE(run.exitCode == 0);
  nlohmann::json report = nlohmann::json::parse(run.out);
  // x and y on llvm:0, z on llvm:1: (64*128 + 128*32 + 32*16) floats placed once before the repeats.
  CHECK(report.at("repeat").at("inputBytesPlacedOnce") == (64 * 128 + 128 * 32 + 32 * 16) * 4);
  CHECK(report.at("inputBytesPlaced") == 0);  // per repeated call: nothing uploaded again
  CHECK(report.at("bytesCopied") == 64 * 32 * 4);  // the module's own copy still runs on every call
}

TEST_CASE("cli: library offload is on for cuda vdevices and off with --no-offload or offload = false in [tool.tvms]") {
  auto dir = std::filesystem::temp_directory_path() / ("tvms_offload_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(corpus("run/cpu_gpu_mlp.py"), dir / "mlp.py", std::filesystem::copy_options::overwrite_existing);
  std::string module = (dir / "mlp.py").string();
  auto on = runTvms({"build", module, "--print-after=OffloadLibraries"});
  CHECK(on.exitCode == 0);
  CHECK(on.out.find("R.call_dps_packed(") != std::string::npos);
  CHECK(on.out.find("\"tvms.cublas.matmul\"") != std::string::npos);
  auto flag = runTvms({"build", module, "--print-after=OffloadLibraries", "--no-offload"});
  CHECK(flag.exitCode == 0);
  CHECK(flag.out.find("call_dps_packed") == std::string::npos);
  { std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\noffload = false\n"; }
  auto config = runTvms({"build", module, "--print-after=OffloadLibraries"});
  CHECK(config.exitCode == 0);
  CHECK(config.out.find("call_dps_packed") == std::string::npos);
  { std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\noffload = \"no\"\n"; }
  auto bad = runTvms({"build", module});
  CHECK(bad.exitCode != 0);
  CHECK(bad.err.find("'offload' must be true or false") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: a second tvms run of an unchanged module takes its kernels from the cache, --no-cache compiles, tvms cache clear empties it") {
  std::string dir = std::filesystem::temp_directory_path() / ("tvms-cli-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::string previous = std::getenv("TVMS_CACHE_DIR") ? std::getenv("TVMS_CACHE_DIR") : "";
  ::setenv("TVMS_CACHE_DIR", dir.c_str(), 1);
  auto first = runTvms({"run", corpus("run/multi_cpu.py"), "--format", "json"});
  auto second = runTvms({"run", corpus("run/multi_cpu.py"), "--format", "json"});
  auto bypass = runTvms({"run", corpus("run/multi_cpu.py"), "--no-cache"});
  auto shown = runTvms({"cache"});
  auto cleared = runTvms({"cache", "clear"});
  if (previous.empty()) ::unsetenv("TVMS_CACHE_DIR");
  else ::setenv("TVMS_CACHE_DIR", previous.c_str(), 1);
  REQUIRE(first.exitCode == 0);
  REQUIRE(second.exitCode == 0);
  auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  CHECK(a["kernelCache"]["compiled"] == 1);
  CHECK(a["kernelCache"]["hits"] == 0);
  CHECK(b["kernelCache"]["hits"] == 1);
  CHECK(b["kernelCache"]["compiled"] == 0);
  CHECK(a["outputs"] == b["outputs"]);  // the cached kernels compute the same values
  CHECK(bypass.exitCode == 0);
  CHECK(bypass.out.find("1 compiled") != std::string::npos);
  CHECK(shown.out.find("1 entries") != std::string::npos);
  CHECK(cleared.exitCode == 0);
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("cli: the one-shot commands run on mimalloc with ordinary pages and the language server keeps freed pages 2 s") {
  // mimalloc says its options at start-up when MIMALLOC_VERBOSE=1 (tools/tvms/allocator.cpp sets them).
  ::setenv("MIMALLOC_VERBOSE", "1", 1);
  auto lint = runTvms({"lint", corpus("run/multi_cpu.py")});
  auto lsp = runTvms({"lsp", "--help"});
  ::unsetenv("MIMALLOC_VERBOSE");
  CHECK(lint.exitCode == 0);
  CHECK(lint.err.find("mimalloc") != std::string::npos);  // the allocator is mimalloc's, whose options follow
  // No large OS pages: with them a 5 MB lint run after a memory-heavy process was 30% slower, and every
  // one-shot command's peak memory higher (bench/RESULTS.md, ninth session of issue 36).
  CHECK(lint.err.find("option 'large_os_pages': 0") != std::string::npos);
  CHECK(lsp.exitCode == 0);
  CHECK(lsp.err.find("option 'large_os_pages': 0") != std::string::npos);
  // The server keeps freed memory 2 s (not 25 ms): a keystroke after a pause must not fault its pages
  // in again (bench/lsp); the one-shot commands keep mimalloc's default.
  CHECK(lsp.err.find("option 'decommit_delay': 2000") != std::string::npos);
  CHECK(lsp.err.find("option 'segment_decommit_delay': 2000") != std::string::npos);
  CHECK(lint.err.find("option 'decommit_delay': 2000") == std::string::npos);
}

TEST_CASE("cli: without a system linker tvms run still runs its kernels (JIT) and caches nothing") {
  std::string dir = std::filesystem::temp_directory_path() / ("tvms-cli-nocc-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::string previous = std::getenv("TVMS_CACHE_DIR") ? std::getenv("TVMS_CACHE_DIR") : "";
  ::setenv("TVMS_CACHE_DIR", dir.c_str(), 1);
  ::setenv("CC", "/nonexistent/cc", 1);
  auto r = runTvms({"run", corpus("run/multi_cpu.py")});
  ::unsetenv("CC");
  if (previous.empty()) ::unsetenv("TVMS_CACHE_DIR");
  else ::setenv("TVMS_CACHE_DIR", previous.c_str(), 1);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("1 compiled") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "cpu"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: users' T.prim_funcs build for a cuda vdevice: the default GPU schedule where unbound, the author's bindings kept") {
  // NVRTC builds the PTX; no GPU is needed (tests/gpu runs this module's artifact on the GPU).
  std::string module = corpus("run/user_prim_funcs_cuda.py");
  auto cuda = runTvms({"build", module, "--emit=cuda"});
  REQUIRE(cuda.exitCode == 0);
  CHECK(cuda.out.find("__launch_bounds__(32) tvmsk_bound_l0") != std::string::npos);   // 32 threads, as written
  CHECK(cuda.out.find("__launch_bounds__(256) tvmsk_matmul_l0") != std::string::npos);  // the default schedule's block
  auto built = runTvms({"build", module, "-o", tempFile("user_prims.tvmx", "")});
  CHECK(built.exitCode == 0);
  CHECK(built.err.find("4 kernels") != std::string::npos);
  // Remapped to the CPU, the hand-bound kernel runs its threads as serial loops.
  CHECK(runTvms({"run", module, "--device", "cuda:0=cpu"}).exitCode == 0);
}
