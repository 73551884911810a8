#pragma once
// The subcommands of the tvms binary. Each returns the process exit code: 0 success, 1 findings
// (lint errors, fmt --check would reformat), 2 usage / IO errors.
#include <string>
#include <vector>

namespace tvms::cli {

using Args = std::vector<std::string>;

int runFmt(const Args& args);
int runParse(const Args& args);
int runLint(const Args& args);
int runExplain(const Args& args);
int runRun(const Args& args);
int runBuild(const Args& args);
int runCache(const Args& args);
int runConvert(const Args& args);
int runCompletions(const Args& args);
int runGraph(const Args& args);

}  // namespace tvms::cli
