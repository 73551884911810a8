// ruff's conventions for the command line (issue 18): --help everywhere, one version, colour control,
// a summary line, --statistics, --stdin-filename, --diff, shell completions, pre-commit hooks, an
// install that runs from anywhere, and `tvms build` saying what it did.
#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/run_tvms.h"
#include "tests/support/corpus.h"

namespace {

using tvms::test::runTvms;
using tvms::test::tempFile;
namespace fs = std::filesystem;

std::string corpus(const std::string& rel) { return std::string(TVMS_CORPUS_DIR) + "/" + rel; }
std::string source(const std::string& rel) { return std::string(TVMS_SOURCE_DIR) + "/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Sets an environment variable for the children run inside one scope.
struct Env {
  std::string name;
  Env(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~Env() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("cli conventions: --help for every subcommand, -V and --version from the one CMake version") {
  for (const char* cmd : {"lint", "fmt", "parse", "convert", "explain", "build", "run", "cache", "completions", "graph", "lsp"}) {
    auto r = runTvms({cmd, "--help"});
    INFO(cmd);
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("usage") != std::string::npos);
  }
  auto v = runTvms({"-V"});
  CHECK(v.exitCode == 0);
  CHECK(v.out == std::string("tvms ") + TVMS_EXPECTED_VERSION + "\n");
  CHECK(runTvms({"--version"}).out == v.out);
  // The VS Code extension carries the same number.
  std::string pkg = slurp(source("editors/vscode/package.json"));
  CHECK(pkg.find(std::string("\"version\": \"") + TVMS_EXPECTED_VERSION + "\"") != std::string::npos);
}

TEST_CASE("cli conventions: lint closes with a summary line, --statistics counts by code") {
  auto r = runTvms({"lint", corpus("lint/structure.py")});
  CHECK(r.exitCode == 1);
  CHECK(std::regex_search(r.out, std::regex("\nFound [0-9]+ errors[^\n]*\\.\n")));
  auto clean = runTvms({"lint", corpus("lint/clean_multi_device.py")});
  CHECK(clean.out == "All checks passed!\n");
  auto fixable = runTvms({"lint", corpus("lint/inline_vdevice_literal.py")});
  CHECK(fixable.out.find("[*] 1 fixable with the `--fix` option.") != std::string::npos);
  auto unsafe = runTvms({"lint", corpus("lint/undeclared_vdevice.py")});
  CHECK(unsafe.out.find("(2 more with fixes that change behaviour: `--fix --unsafe-fixes`.)") != std::string::npos);
  auto stats = runTvms({"lint", "--statistics", corpus("lint/structure.py")});
  CHECK(stats.exitCode == 1);
  CHECK(std::regex_search(stats.out, std::regex("^[0-9]+\tTVS0[0-9]{2}\t")));
  CHECK(stats.out.find(" | ") == std::string::npos);  // no source excerpts
}

TEST_CASE("cli conventions: --color always, never, NO_COLOR and FORCE_COLOR") {
  const std::string file = corpus("lint/structure.py");
  CHECK(runTvms({"lint", "--color", "always", file}).out.find("\x1b[") != std::string::npos);
  CHECK(runTvms({"lint", "--color=never", file}).out.find("\x1b[") == std::string::npos);
  CHECK(runTvms({"lint", "--color", "sometimes", file}).exitCode == 2);
  {
    Env force("FORCE_COLOR", "1");
    CHECK(runTvms({"lint", file}).out.find("\x1b[") != std::string::npos);
    Env no("NO_COLOR", "1");  // NO_COLOR wins over FORCE_COLOR
    CHECK(runTvms({"lint", file}).out.find("\x1b[") == std::string::npos);
  }
}

TEST_CASE("cli conventions: --stdin-filename names stdin's text, --diff shows the fixes without writing them") {
  std::string text = slurp(corpus("lint/undeclared_vdevice.py"));
  auto r = runTvms({"lint", "--stdin-filename", "pkg/model.py", "-"}, text);
  CHECK(r.out.find("pkg/model.py:") != std::string::npos);
  CHECK(r.out.find("-:") == std::string::npos);
  std::string fixable = slurp(corpus("lint/inline_vdevice_literal.py"));
  std::string copy = tempFile("diff_me.py", fixable);
  auto d = runTvms({"lint", "--diff", copy});
  CHECK(d.exitCode == 1);
  CHECK(d.out.find("--- ") != std::string::npos);
  CHECK(d.out.find("\n+") != std::string::npos);
  CHECK(slurp(copy) == fixable);  // nothing written
  auto none = runTvms({"lint", "--diff", corpus("lint/clean_multi_device.py")});
  CHECK(none.exitCode == 0);
  CHECK(none.out.empty());
}

TEST_CASE("cli conventions: shell completions for bash (syntax-checked), zsh and fish name every subcommand") {
  for (const char* sh : {"bash", "zsh", "fish"}) {
    auto r = runTvms({"completions", sh});
    INFO(sh);
    CHECK(r.exitCode == 0);
    for (const char* cmd : {"lint", "fmt", "convert", "build", "run", "completions"}) CHECK(r.out.find(cmd) != std::string::npos);
    CHECK(r.out.find("canonical") != std::string::npos);  // fmt's options too (fish spells it `-l canonical`)
  }
  std::string script = tempFile("tvms.bash", runTvms({"completions", "bash"}).out);
  CHECK(shell("bash -n " + script) == 0);
  CHECK(shell("bash -c 'source " + script + " && complete -p tvms' > /dev/null") == 0);
  CHECK(runTvms({"completions", "powershell"}).exitCode == 2);
}

TEST_CASE("cli conventions: the pre-commit hooks' entries run as pre-commit runs them (entry + file names)") {
  std::string hooks = slurp(source(".pre-commit-hooks.yaml"));
  std::regex entry("\n  entry: ([^\n]+)");
  int found = 0;
  for (auto it = std::sregex_iterator(hooks.begin(), hooks.end(), entry); it != std::sregex_iterator(); ++it) {
    std::string command = (*it)[1];
    REQUIRE(command.rfind("tvms ", 0) == 0);
    std::string copy = tempFile("hook_" + std::to_string(found) + ".py", slurp(corpus("lint/structure.py")));
    auto r = runTvms({command.substr(5), copy});
    INFO(command);
    CHECK(r.exitCode != 2);  // a finding (1) or clean (0), never a usage error
    ++found;
  }
  CHECK(found == 2);
}

TEST_CASE("cli conventions: tvms build without -o says what it checked") {
  auto r = runTvms({"build", corpus("run/multi_cpu.py")});
  CHECK(r.exitCode == 0);
  CHECK(r.err.find("checked and lowered") != std::string::npos);
  CHECK(r.err.find("nothing written: add -o FILE.tvmx") != std::string::npos);
}

TEST_CASE("cli conventions: cmake --install gives a tree that runs when copied elsewhere, and says where it looked for its plugin") {
  fs::path root = fs::temp_directory_path() / ("tvms_install_" + std::to_string(getpid()));
  fs::remove_all(root);
  REQUIRE(shell(std::string(TVMS_CMAKE) + " --install " + TVMS_BUILD_DIR + " --prefix " + (root / "a").string() + " > /dev/null") == 0);
  fs::copy(root / "a", root / "b", fs::copy_options::recursive);
  fs::remove_all(root / "a");  // the copy must not lean on where it was installed
  std::string tvms = (root / "b" / "bin" / "tvms").string();
  CHECK(fs::exists(root / "b" / "share" / "doc" / "tvms" / "rules.md"));
  std::string cache = (root / "cache").string();
  setenv("TVMS_CACHE_DIR", cache.c_str(), 1);
  auto run = shell(tvms + " run --no-cache " + corpus("run/multi_cpu.py") + " > /dev/null 2>&1");
  CHECK(run == 0);
  // Without its plugin it names the places it looked.
  for (auto& e : fs::recursive_directory_iterator(root / "b"))
    if (e.path().filename() == "libtvms_llvm_backend.so") fs::remove(e.path());
  std::string err = (root / "err.txt").string();
  CHECK(shell(tvms + " run --no-cache " + corpus("run/multi_cpu.py") + " > /dev/null 2> " + err) != 0);
  std::string message = slurp(err);
  CHECK(message.find("looked in:") != std::string::npos);
  CHECK(message.find("lib/tvms/libtvms_llvm_backend.so") != std::string::npos);
  unsetenv("TVMS_CACHE_DIR");
  fs::remove_all(root);
}

TEST_CASE("cli conventions: the README's GitHub Actions step, run as written, annotates the files") {
  std::string readme = slurp(source("README.md"));
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex("run: (tvms lint --output-format github \\.)\n")));
  fs::path dir = fs::temp_directory_path() / ("tvms_gha_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(corpus("lint/undeclared_vdevice.py"), dir / "model.py", fs::copy_options::overwrite_existing);
  std::string out = (dir / "out.txt").string();
  std::string command = m[1];
  int rc = shell("cd " + dir.string() + " && " + std::string(TVMS_BINARY) + command.substr(4) + " > " + out);
  CHECK(rc == 1);
  CHECK(slurp(out).find("::error file=model.py,line=") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("cli conventions: lint --watch lints again when a file changes") {
  fs::path dir = fs::temp_directory_path() / ("tvms_watch_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string file = (dir / "model.py").string(), out = (dir / "out.txt").string(), pid = (dir / "pid").string();
  fs::copy_file(corpus("lint/clean_multi_device.py"), file);
  REQUIRE(shell("sh -c '" + std::string(TVMS_BINARY) + " lint --watch " + file + " > " + out + " 2>&1 & echo $! > " + pid + "'") == 0);
  auto waitFor = [&](const std::string& needle, size_t count) {
    for (int i = 0; i < 400; ++i) {  // up to 40 s on a loaded machine
      std::string text = slurp(out);
      size_t n = 0;
      for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
      if (n >= count) return true;
      usleep(100000);
    }
    return false;
  };
  CHECK(waitFor("Watching for file changes", 1));
  CHECK(slurp(out).find("All checks passed!") != std::string::npos);
  // An editor's save: the new text written to another file, renamed over the old one.
  std::string text = slurp(file);
  text.replace(text.find("R.add("), 6, "R.addd(");
  {
    std::ofstream f(file + ".tmp", std::ios::binary);
    f << text;
  }
  fs::rename(file + ".tmp", file);
  CHECK(waitFor("File change detected", 1));
  CHECK(waitFor("error[TVS004]", 1));
  pid_t child = std::stoi(slurp(pid));
  kill(child, SIGTERM);
  fs::remove_all(dir);
}

TEST_CASE("cli conventions: lint --watch DIR also watches directories made under it after it started") {
  fs::path base = fs::temp_directory_path() / ("tvms_watch_tree_" + std::to_string(getpid()));
  fs::remove_all(base);
  fs::path dir = base / "project";
  fs::create_directories(dir);
  std::string out = (base / "out.txt").string(), pid = (base / "pid").string();
  fs::copy_file(corpus("lint/clean_multi_device.py"), dir / "model.py");
  REQUIRE(shell("sh -c '" + std::string(TVMS_BINARY) + " lint --watch " + dir.string() + " > " + out + " 2>&1 & echo $! > " + pid + "'") == 0);
  auto waitFor = [&](const std::string& needle) {
    for (int i = 0; i < 400; ++i) {  // up to 40 s on a loaded machine
      if (slurp(out).find(needle) != std::string::npos) return true;
      usleep(100000);
    }
    return false;
  };
  CHECK(waitFor("Watching for file changes"));
  // A new package, then (a separate event) a file with an error in it.
  fs::create_directories(dir / "sub" / "deeper");
  usleep(300000);
  std::string text = slurp(corpus("lint/clean_multi_device.py"));
  text.replace(text.find("R.add("), 6, "R.addd(");
  {
    std::ofstream f(dir / "sub" / "deeper" / "new_model.py", std::ios::binary);
    f << text;
  }
  CHECK(waitFor("new_model.py"));
  CHECK(waitFor("error[TVS004]"));
  kill(std::stoi(slurp(pid)), SIGTERM);
  fs::remove_all(base);
}

TEST_CASE("cli conventions: tvms run reports each kernel's time, each copy, each device's peak memory and the histogram's bin edges") {
  auto text = runTvms({"run", corpus("run/multi_cpu.py")});
  CHECK(text.exitCode == 0);
  CHECK(text.out.find("kernels by time:\n") != std::string::npos);
  CHECK(std::regex_search(text.out, std::regex("\n  [a-z_0-9]+ on \"llvm:0\": 1 call, [0-9.]+ ms\n")));
  CHECK(std::regex_search(text.out, std::regex("\n  copy [^\n]+ -> \"llvm:1\": 8192 bytes, [0-9.]+ ms\n")));
  // Peak memory: llvm:0 holds x (32 KiB), y (16 KiB) and x @ y (8 KiB) at once; llvm:1 holds z
  // (2 KiB), the copy (8 KiB) and the result (4 KiB).
  CHECK(text.out.find("device 0 \"llvm:0\" (cpu:0): 1 kernels") != std::string::npos);
  CHECK(std::regex_search(text.out, std::regex("device 0 \"llvm:0\"[^\n]+, peak memory 56.0 KiB\n")));
  CHECK(std::regex_search(text.out, std::regex("device 1 \"llvm:1\"[^\n]+, peak memory 14.0 KiB\n")));
  auto r = runTvms({"run", corpus("run/multi_cpu.py"), "--format", "json"});
  REQUIRE(r.exitCode == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["kernels"].size() == 2);
  CHECK(j["kernels"][0]["ms"].get<double>() >= j["kernels"][1]["ms"].get<double>());  // most time first
  std::set<int> devices{j["kernels"][0]["device"].get<int>(), j["kernels"][1]["device"].get<int>()};
  CHECK(devices == std::set<int>{0, 1});
  REQUIRE(j["copyList"].size() == 1);
  CHECK(j["copyList"][0]["bytes"] == 8192);
  CHECK(j["copyList"][0]["to"] == "llvm:1");
  CHECK(j["devices"][0]["peakBytes"] == 64 * 128 * 4 + 128 * 32 * 4 + 64 * 32 * 4);
  CHECK(j["devices"][1]["peakBytes"] == 32 * 16 * 4 + 64 * 32 * 4 + 64 * 16 * 4);
  auto& out = j["outputs"][0];
  REQUIRE(out["histogramEdges"].size() == out["histogram"].size() + 1);
  CHECK(out["histogramEdges"][0].get<double>() == out["min"].get<double>());
  CHECK(std::abs(out["histogramEdges"].back().get<double>() - out["max"].get<double>()) < 1e-9);
}

TEST_CASE("cli conventions: tvms graph draws a function's dataflow coloured by vdevice, copies with their bytes (DOT and SVG)") {
  auto dot = runTvms({"graph", source("examples/cpu_gpu_mlp.py")});
  REQUIRE(dot.exitCode == 0);
  CHECK(dot.out.rfind("digraph \"main\" {", 0) == 0);
  CHECK(dot.out.find("label=\"copy 524288 bytes\"") != std::string::npos);  // x (256 x 512 float32) to cuda
  CHECK(dot.out.find("legend0 [label=\"cuda:0\"") != std::string::npos);
  // SVG through Graphviz: it parses, and every binding of main is named in it.
  std::string svg = (fs::temp_directory_path() / ("tvms_graph_" + std::to_string(getpid()) + ".svg")).string();
  auto r = runTvms({"graph", source("examples/cpu_gpu_mlp.py"), "-o", svg});
  REQUIRE(r.exitCode == 0);
  std::string check = "python3 -c \"import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); "
                      "s = {x.text.split(' ')[0] for x in t.iter('{http://www.w3.org/2000/svg}text') if x.text}; "
                      "sys.exit(0 if {'x', 'w1', 'b1', 'w2', 'xg', 'lv', 'h', 'a', 'logits', 'out'} <= s else 1)\" " + svg;
  CHECK(shell(check) == 0);
  fs::remove(svg);
  CHECK(runTvms({"graph", source("examples/cpu_gpu_mlp.py"), "--function", "nope"}).exitCode == 1);
  CHECK(runTvms({"graph", source("examples/cpu_gpu_mlp.py"), "--after", "LowerToVM"}).exitCode == 2);
}

TEST_CASE("cli conventions: tvms lsp takes the --stdio and --clientProcessId that vscode-languageclient appends") {
  // A real VS Code (tests/editors/vscode_e2e) starts the server as `tvms lsp --stdio`; it was refused.
  auto frame = [](const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; };
  std::string session = frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})") +
                        frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") + frame(R"({"jsonrpc":"2.0","method":"exit"})");
  for (auto args : {std::vector<std::string>{"lsp", "--stdio"}, std::vector<std::string>{"lsp", "--stdio", "--clientProcessId=4242"},
                    std::vector<std::string>{"lsp", "--clientProcessId", "4242", "--stdio"}}) {
    auto r = runTvms(args, session);
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("\"capabilities\"") != std::string::npos);
  }
  auto bad = runTvms({"lsp", "--tcp"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("tvms lsp: unknown option '--tcp'") != std::string::npos);
}
