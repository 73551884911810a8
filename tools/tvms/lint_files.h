#pragma once
// The work of `tvms lint` on one file's text, apart from reading, writing and printing, so the files of
// a run are linted on every core the process may use (the output stays in the order of the files).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "compiler/analysis/lint.h"

namespace tvms::cli {

struct LintOptions {
  analysis::RuleSelection rules;
  bool fix = false;      // apply fixes (up to 10 rounds, each relinting)
  bool unsafe = false;   // with fix: behaviour-changing fixes too
  bool verify = false;   // check `# expect:` comments instead of reporting
  bool lintAfterFix = true;  // false for --diff: the fixed text is all that is wanted
  unsigned parseHelpers = 0;  // threads that parse a file's functions ahead of its lowering (syntax::Parsing::ByFunction) and deduce them after
  // Leave the file's document and IR for the process's exit to free (as clang's -disable-free): for a
  // command that lints one file and ends (freeing a large module object by object is ~5% of its lint).
  bool leaveToExit = false;
};

struct TextLint {
  std::string text;  // the text linted: with LintOptions::fix, after the fixes (the input when none applied)
  int fixes = 0;
  std::vector<diag::Diagnostic> diagnostics;  // of `text`
  std::vector<std::string> verifyProblems;    // with verify
};

// Applies one round of fixes to `text`; returns how many were applied. Fixes whose edits overlap an
// already-chosen one wait for the next round.
int applyFixes(std::string& text, const std::vector<diag::Diagnostic>& ds, bool unsafe);

// Fixes (when asked) and lints `text`; pure: safe to run on several threads at once. The text is taken
// over and handed back in TextLint::text (a caller that keeps its own passes a copy).
TextLint lintText(std::string text, const LintOptions& options);

// Runs job(0) ... job(n - 1) on up to `workers()` threads; each index once.
void forEachInParallel(size_t n, const std::function<void(size_t)>& job);
// The threads lint uses: the CPUs this process may run on (sched_getaffinity), or TVMS_NUM_THREADS.
unsigned workers();

}  // namespace tvms::cli
