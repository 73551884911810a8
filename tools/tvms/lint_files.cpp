#include "tools/tvms/lint_files.h"

#include "runtime/for_each_in_parallel.h"
#include "runtime/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace tvms::cli {

int applyFixes(std::string& text, const std::vector<diag::Diagnostic>& ds, bool unsafe) {
  std::vector<const diag::Fix*> chosen;
  std::vector<syntax::ByteRange> taken;
  auto overlaps = [&](syntax::ByteRange r) {
    for (auto& t : taken)
      if (r.begin < t.end && t.begin < r.end) return true;
      else if (r.begin == r.end && t.begin <= r.begin && r.begin <= t.end) return true;
    return false;
  };
  for (auto& d : ds) {
    for (auto& f : d.fixes) {
      if (!f.safe && !unsafe) continue;
      if (std::any_of(f.edits.begin(), f.edits.end(), [&](auto& e) { return overlaps(e.range); })) break;
      chosen.push_back(&f);
      for (auto& e : f.edits) taken.push_back(e.range);
      break;
    }
  }
  std::vector<diag::TextEdit> edits;
  for (auto* f : chosen) edits.insert(edits.end(), f->edits.begin(), f->edits.end());
  std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.range.begin > b.range.begin; });
  for (auto& e : edits) {
    if (e.range.end > text.size() || e.range.begin > e.range.end) continue;
    text.replace(e.range.begin, e.range.end - e.range.begin, e.newText);
  }
  return static_cast<int>(chosen.size());
}

namespace {

// What LintOptions::leaveToExit leaves: reachable from here until the process ends, never freed.
struct LeftToExit {
  std::mutex mutex;
  std::vector<std::shared_ptr<void>> objects;
};
LeftToExit& leftToExit() {
  static auto* left = new LeftToExit;
  return *left;
}

// The findings (or, verifying, the unmet expectations) of one lint of `text` into `out`, and the text
// back in out.text: the document holds the only copy while it lints (a large file's lint is bound by
// its memory).
void lintOnce(std::string text, const LintOptions& options, TextLint& out) {
  auto doc = std::make_shared<syntax::Document>(std::move(text), syntax::Parsing::ByFunction, options.parseHelpers);
  auto r = std::make_shared<analysis::LintResult>(analysis::lintDocumentOnce(*doc, options.rules, options.parseHelpers));
  if (options.verify) out.verifyProblems = analysis::verifyExpectations(*r, doc->lines());
  else out.diagnostics = std::move(r->diagnostics);
  out.text = doc->releaseText();
  if (options.leaveToExit) {
    std::lock_guard<std::mutex> lock(leftToExit().mutex);
    leftToExit().objects.push_back(std::move(r));
    leftToExit().objects.push_back(std::move(doc));
  }
}

}  // namespace

TextLint lintText(std::string text, const LintOptions& options) {
  TextLint out;
  if (!options.fix) {
    lintOnce(std::move(text), options, out);
    return out;
  }
  out.text = std::move(text);
  for (int round = 0; round < 10; ++round) {
    syntax::Document doc(out.text, syntax::Parsing::ByFunction, options.parseHelpers);
    auto r = analysis::lintDocumentOnce(doc, options.rules, options.parseHelpers);
    int n = applyFixes(out.text, r.diagnostics, options.unsafe);
    if (!n) break;
    out.fixes += n;
  }
  if (options.lintAfterFix) lintOnce(std::move(out.text), options, out);
  return out;
}

unsigned workers() { return runtime::usableCores(); }

void forEachInParallel(size_t n, const std::function<void(size_t)>& job) { runtime::forEachInParallel(n, workers(), job); }

}  // namespace tvms::cli
