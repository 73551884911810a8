// Parse benchmark: full parse + lower against CPython's ast.parse on the same file, and incremental
// applyEdit + re-lower of the touched function after one-character edits. Prints one comparison per
// file, measured in the same run.
//
// usage: bench_parse FILE.py [FILE.py ...]     (bench/run_all.sh generates the files)
// The CPython anchor is `python3` on PATH, or $TVMS_BENCH_PYTHON.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "compiler/frontend/frontend.h"

using namespace tvms;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

std::string shellOutput(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

// Wall time of a whole command (fork + exec + wait), in ms.
double commandMs(const std::vector<std::string>& argv) {
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return ms(Clock::now() - start);
}

struct Incremental {
  std::vector<double> samples;   // applyEdit + re-lower
  std::vector<double> reparse;   // applyEdit alone (tree-sitter incremental reparse)
  double wholeFileShare = 0;     // edits that reparsed the whole file rather than one function
};

// One-character edits inside functions: insert a character, re-lower the function; delete it again,
// re-lower. `firstToken` puts every edit at the first token of a dataflow block's first binding (the
// slow class of BASELINES.md); otherwise positions are random within function bodies.
Incremental incremental(const std::string& text, int edits, bool firstToken, unsigned seed) {
  syntax::Document doc(text);
  auto file = frontend::lowerDocument(doc);
  auto& region = file.regions.at(0);
  std::vector<uint32_t> targets;
  if (firstToken) {
    size_t pos = 0;
    while ((pos = text.find("with R.dataflow():\n", pos)) != std::string::npos) {
      pos = text.find("lv0", pos);
      targets.push_back(static_cast<uint32_t>(pos));
    }
  }
  std::mt19937 rng(seed);
  Incremental out;
  for (int i = 0; i < edits; ++i) {
    size_t fi = rng() % region.functions.size();
    auto span = region.functions[fi].range;
    uint32_t at;
    if (firstToken) {
      at = targets[rng() % targets.size()];
      fi = 0;
      for (size_t k = 0; k < region.functions.size(); ++k)
        if (region.functions[k].range.begin <= at && at < region.functions[k].range.end) fi = k;
    } else {
      // a position inside the body: after the def line
      uint32_t bodyStart = static_cast<uint32_t>(doc.text().find(":\n", span.begin)) + 2;
      at = bodyStart + rng() % std::max<uint32_t>(1, span.end - bodyStart - 1);
    }
    char c = "abcxyz_0"[rng() % 8];
    auto t0 = Clock::now();
    doc.applyEdit({at, at}, std::string(1, c));
    out.reparse.push_back(ms(Clock::now() - t0));
    frontend::relowerFunction(doc, region, fi);
    out.samples.push_back(ms(Clock::now() - t0));
    auto t1 = Clock::now();
    doc.applyEdit({at, at + 1}, "");
    out.reparse.push_back(ms(Clock::now() - t1));
    frontend::relowerFunction(doc, region, fi);
    out.samples.push_back(ms(Clock::now() - t1));
  }
  if (doc.text() != text) std::cerr << "bench_parse: edits did not restore the text\n";
  out.wholeFileShare = static_cast<double>(doc.wholeFileReparses()) / static_cast<double>(out.samples.size());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_parse FILE.py [FILE.py ...]\n";
    return 2;
  }
  const char* envPython = std::getenv("TVMS_BENCH_PYTHON");
  std::string python = envPython && *envPython ? envPython : "python3";
  std::string version = shellOutput(python + " --version");
  while (!version.empty() && version.back() == '\n') version.pop_back();
  std::printf("CPython anchor: %s (%s)\n", python.c_str(), version.c_str());
  std::printf("%-16s %7s %6s | %11s %16s %12s %7s | %14s %7s | %9s %9s %9s %11s %6s | %14s | %14s\n", "file", "lines", "KB",
              "(of it parse)", "tvms parse+lower", "ast.parse", "ratio", "python3 -c cmd", "ratio", "edit p50", "edit p90",
              "edit max", "(reparse p50)", "whole", "1st-token p50", "broken module");
  for (int i = 1; i < argc; ++i) {
    std::string path = argv[i];
    std::ifstream in(path, std::ios::binary);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    int runs = lines > 50000 ? 3 : 7;

    std::vector<double> full, parseOnly;
    for (int r = 0; r < runs; ++r) {
      auto t0 = Clock::now();
      syntax::Document doc(text);
      parseOnly.push_back(ms(Clock::now() - t0));
      auto file = frontend::lowerDocument(doc);
      full.push_back(ms(Clock::now() - t0));
      if (file.regions.empty()) std::cerr << "bench_parse: no module in " << path << "\n";
    }
    // The same module with one unclosed bracket near its start: lowering goes through error recovery.
    std::string broken = text;
    if (size_t at = broken.find("R.add(", 5000); at != std::string::npos) broken.insert(at + 6, "(");
    std::vector<double> brokenMs;
    for (int r = 0; r < runs; ++r) {
      auto t0 = Clock::now();
      syntax::Document doc(broken);
      auto file = frontend::lowerDocument(doc);
      brokenMs.push_back(ms(Clock::now() - t0));
    }
    // CPython: ast.parse alone (GC on, as TVM calls it), median of the same number of runs, in one process.
    std::string py = "import ast,sys,time\ns=open(sys.argv[1]).read()\nts=[]\nfor _ in range(" + std::to_string(runs) +
                     "):\n    t=time.perf_counter(); ast.parse(s); ts.append(time.perf_counter()-t)\n"
                     "ts.sort(); print(ts[len(ts)//2]*1000)\n";
    std::string pyFile = "/tmp/tvms_bench_ast.py";
    std::ofstream(pyFile) << py;
    double astMs = std::stod(shellOutput(python + " " + pyFile + " " + path));
    // The exact command, whole process, median of 3.
    std::vector<double> cmd;
    for (int r = 0; r < 3; ++r)
      cmd.push_back(commandMs({python, "-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", path}));
    double cmdMs = median(cmd);

    int edits = lines > 50000 ? 40 : 100;  // x2 samples (insert + delete) = 200 at 1k and 10k
    auto random = incremental(text, edits, false, 1234);
    auto first = incremental(text, lines > 50000 ? 5 : 20, true, 99);
    double p50 = median(full);
    std::string name = path.substr(path.rfind('/') + 1);
    std::printf("%-16s %7zu %6.0f | %8.1f ms %13.1f ms %9.1f ms %6.2fx | %11.1f ms %6.2fx | %6.3f ms %6.3f ms %6.2f ms %8.3f ms %5.0f%% | %11.2f ms | %11.1f ms\n",
                name.c_str(), lines, static_cast<double>(text.size()) / 1024.0, median(parseOnly), p50, astMs, p50 / astMs, cmdMs,
                p50 / cmdMs, median(random.samples), percentile(random.samples, 0.9),
                *std::max_element(random.samples.begin(), random.samples.end()), median(random.reparse),
                100.0 * random.wholeFileShare, median(first.samples), median(brokenMs));
  }
  std::printf("\nratio = tvms / CPython (lower is better; goal: <= 0.5x at 10k lines). edit = applyEdit + re-lower of\n"
              "the touched function, one character inserted or deleted at a random place in a function body\n"
              "(200 samples at 1k/10k, 80 at 100k); whole = share of those edits that reparsed the whole file instead of\n"
              "only the edited function. 1st-token = the same at the first token of a dataflow block's first binding.\n"
              "broken module = parse + lower of the same module with one unclosed bracket near its start (error recovery).\n");
  return 0;
}
