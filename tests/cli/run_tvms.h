#pragma once
// Running the tvms binary in the CLI tests: a child process with stdin, stdout and stderr through
// temporary files, killed by an alarm after 60 s so a hang fails its test instead of the suite.
#include <string>
#include <vector>

namespace tvms::test {

struct Result {
  int exitCode = -1;  // 128 + the signal when the process was killed
  std::string out, err;
  double seconds = 0;
};

// Runs tvms with `args`, feeding `input` on stdin.
Result runTvms(const std::vector<std::string>& args, const std::string& input = "");
// Writes `content` to a file under the temporary directory, named for this process; returns its path.
std::string tempFile(const std::string& name, const std::string& content);

}  // namespace tvms::test
