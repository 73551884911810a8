#include "tests/cli/run_tvms.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/corpus.h"

namespace tvms::test {

// Runs tvms with `args`, feeding `input` on stdin; collects stdout and stderr (via temp files, so
// large outputs never block).
Result runTvms(const std::vector<std::string>& args, const std::string& input) {
  auto dir = std::filesystem::temp_directory_path();
  std::string tag = std::to_string(getpid()) + "_" + std::to_string(rand());
  auto inPath = dir / ("tvms_in_" + tag), outPath = dir / ("tvms_out_" + tag), errPath = dir / ("tvms_err_" + tag);
  { std::ofstream(inPath, std::ios::binary) << input; }
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    freopen(inPath.c_str(), "rb", stdin);
    freopen(outPath.c_str(), "wb", stdout);
    freopen(errPath.c_str(), "wb", stderr);
    std::vector<char*> argv{const_cast<char*>(TVMS_BINARY)};
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    alarm(60);  // a hang fails the test instead of blocking the suite
    execv(TVMS_BINARY, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = tvms::test::readFile(outPath);
  r.err = tvms::test::readFile(errPath);
  std::filesystem::remove(inPath);
  std::filesystem::remove(outPath);
  std::filesystem::remove(errPath);
  return r;
}

std::string tempFile(const std::string& name, const std::string& content) {
  auto p = std::filesystem::temp_directory_path() / ("tvms_cli_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

}  // namespace tvms::test
