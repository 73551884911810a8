// Issue 16 end to end through the binary: modules built in Python (IRBuilder, BlockBuilder) are
// linted with fixes that name the program's own values, left alone by fmt, converted to TVMScript,
// and built through the pipeline the program names.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/run_tvms.h"
#include "tests/support/corpus.h"

namespace {

using tvms::test::runTvms;
using tvms::test::tempFile;

std::string corpus(const std::string& rel) { return std::string(TVMS_CORPUS_DIR) + "/" + rel; }
std::string example(const std::string& rel) { return std::string(TVMS_SOURCE_DIR) + "/examples/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST_CASE("builder programs: the IRBuilder trap is TVS202 at the new I.vdevice, with the list's entry vdevice[1] as its fix") {
  auto r = runTvms({"lint", "--output-format", "json", corpus("lint/builder_irbuilder_trap.py")});
  CHECK(r.exitCode == 1);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 1);
  auto& d = j[0];
  CHECK(d["code"] == "TVS202");
  CHECK(d["location"]["row"] == 27);  // `relax.op.to_vdevice(output, I.vdevice("llvm"))`
  CHECK(d["location"]["column"] == 57);
  bool namesEntry = false;
  for (auto& rel : d["related"]) namesEntry |= rel["message"].get<std::string>().find("`vdevice[1]`") != std::string::npos;
  CHECK(namesEntry);
  REQUIRE(d["fixes"].size() == 1);
  CHECK(d["fixes"][0]["edits"][0]["content"] == "vdevice[1]");

  // --fix writes it into the Python, and the program then lints clean.
  std::string copy = tempFile("builder_trap.py", slurp(corpus("lint/builder_irbuilder_trap.py")));
  auto fixed = runTvms({"lint", "--fix", copy});
  CHECK(slurp(copy).find("relax.op.to_vdevice(output, vdevice[1])") != std::string::npos);
  auto again = runTvms({"lint", copy});
  CHECK(again.exitCode == 0);
  CHECK(again.out == "All checks passed!\n");
}

TEST_CASE("builder programs: fmt leaves them alone, silently, and lays out TVMScript reading Python values keeping the names") {
  std::string program = slurp(example("builder_conv2d.py"));
  std::string copy = tempFile("builder_fmt.py", program);
  auto r = runTvms({"fmt", copy});
  CHECK(r.exitCode == 0);
  CHECK(r.err.empty());
  CHECK(slurp(copy) == program);
  // The layout keeps every token, so the names of the Python values stay.
  std::string values = tempFile("python_values_fmt.py", slurp(corpus("lint/python_values.py")));
  auto laid = runTvms({"fmt", values});
  CHECK(laid.exitCode == 0);
  CHECK(laid.err.empty());
  CHECK(slurp(values).find("    def wrong_shape(\n        x: R.Tensor(shape, dtype, vdevice[1]), w: R.Tensor((cols * 2, rows), dtype, vdevice[1])\n    ):") !=
        std::string::npos);
  // The canonical printer would write the values in place of the names: it leaves such a module alone.
  auto canonical = runTvms({"fmt", "--canonical", "--check", corpus("lint/python_values.py")});
  CHECK(canonical.exitCode == 0);
  CHECK(canonical.err.find("reads Python values of the file") != std::string::npos);
}

TEST_CASE("builder programs: tvms convert writes the module as TVMScript that lints clean and dumps the same module") {
  std::string out = tempFile("converted.py", "");
  auto r = runTvms({"convert", example("builder_conv2d.py"), "-o", out});
  CHECK(r.exitCode == 0);
  std::string text = slurp(out);
  CHECK(text.find("from tvm.script import ir as I\nfrom tvm.script import relax as R\n") == 0);  // real imports
  CHECK(text.find("@I.ir_module") != std::string::npos);
  CHECK(text.find("R.to_vdevice(output, dst_vdevice=\"llvm:0\")") != std::string::npos);
  CHECK(runTvms({"lint", out}).exitCode == 0);
  auto a = runTvms({"parse", "--dump-ir", example("builder_conv2d.py")});
  auto b = runTvms({"parse", "--dump-ir", out});
  CHECK(a.exitCode == 0);
  CHECK(a.out == b.out);
  // A file of TVMScript only has nothing to convert.
  auto none = runTvms({"convert", corpus("lint/clean_multi_device.py")});
  CHECK(none.exitCode == 1);
  CHECK(none.err.find("already the text form") != std::string::npos);
}

TEST_CASE("builder programs: tvms build follows the program's pipeline (UpdateVDevice, partition_for_cublas)") {
  const std::string head =
      "from tvm import relax\nfrom tvm.relax.backend.cuda.cublas import partition_for_cublas\n"
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 0), I.vdevice(\"llvm\", 1)]})\n\n"
      "    @R.function\n    def main(x: R.Tensor((64, 64), \"float32\", \"cuda\"), y: R.Tensor((64, 64), \"float32\", \"cuda\")):\n"
      "        z = R.matmul(x, y)\n        return z\n\n\n";
  // UpdateVDevice(vdevice, 0) replaces entry 0: the module is then on the CPU only.
  auto updated = runTvms({"build", tempFile("update.py", head + "mod = relax.transform.UpdateVDevice(I.vdevice(\"llvm\", 0), 0)(Module)\n"
                                                              "ex = relax.build(mod, target=\"llvm\")\n"),
                          "--print-after=UpdateVDevice"});
  CHECK(updated.exitCode == 0);
  CHECK(updated.out.find("\"vdevice\": [I.vdevice(\"llvm\", 0, \"global\"), I.vdevice(\"llvm\", 1, \"global\")]") != std::string::npos);
  // cuBLAS offload where the program partitions for it, and not otherwise (as TVM does).
  auto plain = runTvms({"build", tempFile("plain.py", head + "ex = relax.build(Module, target=\"cuda\")\n"), "--print-after=OffloadLibraries"});
  CHECK(plain.out.find("tvms.cublas.matmul") == std::string::npos);
  auto offload = runTvms({"build", tempFile("offload.py", head + "ex = relax.build(partition_for_cublas(Module), target=\"cuda\")\n"),
                          "--print-after=OffloadLibraries"});
  CHECK(offload.out.find("tvms.cublas.matmul") != std::string::npos);
}

TEST_CASE("builder programs: PassContext(config={relax.backend.use_cuda_graph}) is the artifact's CUDA graph mode and --cuda-graph overrides it") {
  const std::string head =
      "import tvm\nfrom tvm import relax\nfrom tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    @R.function\n    def main(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
      "        y = R.nn.relu(x)\n        return y\n\n\n";
  auto built = [&](const std::string& name, const std::string& program, std::vector<std::string> extra = {}) {
    std::string artifact = tempFile(name + ".tvmx", "");
    std::vector<std::string> args{"build", tempFile(name + ".py", head + program), "-o", artifact};
    args.insert(args.end(), extra.begin(), extra.end());
    auto b = runTvms(args);
    REQUIRE(b.exitCode == 0);
    return artifact;
  };
  const std::string notRecorded = "cuda graph: not recorded: its device (cpu:0) does not record work for replay";
  // On: the run says why main was not recorded (a CPU device records nothing).
  std::string on = built("graph_on", "with tvm.transform.PassContext(config={\"relax.backend.use_cuda_graph\": True}):\n"
                                     "    ex = relax.build(Module, target=\"llvm\")\n");
  auto onRun = runTvms({"run", on});
  CHECK(onRun.exitCode == 0);
  CHECK(onRun.out.find(notRecorded) != std::string::npos);
  auto offRun = runTvms({"run", on, "--cuda-graph=off"});
  CHECK(offRun.out.find("cuda graph:") == std::string::npos);
  // Without the config (auto) there is nothing to say about a CPU module; --cuda-graph=on asks.
  std::string plain = built("graph_plain", "ex = relax.build(Module, target=\"llvm\")\n");
  CHECK(runTvms({"run", plain}).out.find("cuda graph:") == std::string::npos);
  CHECK(runTvms({"run", plain, "--cuda-graph=on"}).out.find(notRecorded) != std::string::npos);
  // tvms build --cuda-graph=on keeps it in the artifact too.
  CHECK(runTvms({"run", built("graph_flag", "ex = relax.build(Module, target=\"llvm\")\n", {"--cuda-graph=on"})}).out.find(notRecorded) !=
        std::string::npos);
  auto bad = runTvms({"run", plain, "--cuda-graph=yes"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("give --cuda-graph=on, off or auto") != std::string::npos);
}
