#include "compiler/format/formatter.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "compiler/frontend/frontend.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/syntax/line_index.h"

namespace tvms::format {

namespace {

struct Replacement {
  syntax::ByteRange range;
  std::string text;
  size_t region;
};

std::string applyReplacements(const std::string& text, const std::vector<Replacement>& reps) {
  std::string out;
  uint32_t pos = 0;
  for (auto& r : reps) {
    out.append(text, pos, r.range.begin - pos);
    out += r.text;
    pos = r.range.end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

// The ending of the line holding `offset` as written ("\r\n", "\r" or "\n"; "\n" when it has none).
std::string lineEndingAt(const syntax::Document& doc, uint32_t offset) {
  const std::string& text = doc.text();
  uint32_t end = doc.lines().lineEnd(doc.lines().lineOf(offset));
  if (end >= text.size()) return "\n";
  if (text[end] == '\r') return end + 1 < text.size() && text[end + 1] == '\n' ? "\r\n" : "\r";
  return "\n";
}

// The printer ends lines with "\n"; a reprinted region takes the ending its first line had, so a
// CRLF or old-Mac file stays one (lines outside the regions are never touched).
std::string withLineEnding(std::string printed, const std::string& ending) {
  if (ending == "\n") return printed;
  std::string out;
  out.reserve(printed.size() + printed.size() / 16);
  for (char c : printed) {
    if (c == '\n') out += ending;
    else out += c;
  }
  return out;
}

// Only spaces and tabs stand between the start of the region's first line and the region.
bool startsAtIndent(const syntax::Document& doc, syntax::ByteRange range) {
  uint32_t lineStart = doc.lines().lineStart(doc.lines().lineOf(range.begin));
  for (uint32_t p = lineStart; p < range.begin; ++p)
    if (doc.text()[p] != ' ' && doc.text()[p] != '\t') return false;
  return true;
}

// Whether the first line after `region` that holds code is indented no deeper than the region's
// first line. When it is deeper, tree-sitter's recovery has cut the region short of its body (the
// rest of the body lies outside it, in an error): reprinting the region alone would add to a body
// that the next run cuts again (fuzz_frontend: `pass` added on every run).
bool endsAtDedent(const syntax::LineIndex& lines, syntax::ByteRange region) {
  uint32_t column = region.begin - lines.lineStart(lines.lineOf(region.begin));
  auto next = lines.nextCodeLineIndent(lines.lineOf(region.end > 0 ? region.end - 1 : 0));
  return !next || *next <= column;
}

}  // namespace

FormatResult formatSource(const std::string& text, const FormatOptions& opts) {
  FormatResult result;
  result.text = text;
  // Python source is UTF-8 (the CLI and the server's JSON refuse anything else before it gets here);
  // on other bytes tree-sitter's recovery can move a region's end between two runs, so such text is
  // never reprinted (fuzz_frontend found both cases below).
  if (uint32_t bad = syntax::firstInvalidUtf8(text); bad != uint32_t(-1)) {
    result.notes.push_back("left as written: not valid UTF-8 at byte " + std::to_string(bad + 1));
    return result;
  }
  // CPython refuses source with NUL bytes, and tree-sitter's scanner reads one as the end of input.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    result.notes.push_back("left as written: a NUL byte at byte " + std::to_string(nul + 1));
    return result;
  }
  syntax::Document doc(text);
  frontend::FileResult file = frontend::lowerDocument(doc);
  std::set<size_t> skip;
  for (size_t i = 0; i < file.regions.size(); ++i) {
    auto& r = file.regions[i];
    if (r.builtByProgram) {  // Python that builds a module, not TVMScript: not ours to format
      skip.insert(i);
      continue;
    }
    if (r.readsPython) {  // the printer would write the values in place of the Python names
      skip.insert(i);
      result.notes.push_back("line " + std::to_string(doc.lines().lineOf(r.range.begin) + 1) +
                             ": left as written (it reads Python values of the file, which reprinting would replace "
                             "by their values)");
      continue;
    }
    if (!startsAtIndent(doc, r.range)) {
      // Reprinting replaces whole lines: what stands before the region on its first line (a control
      // character tree-sitter skipped, which CPython rejects) would be lost and the indent misread.
      skip.insert(i);
      result.notes.push_back("line " + std::to_string(doc.lines().lineOf(r.range.begin) + 1) +
                             ": left as written (something other than indentation precedes it on its line)");
      continue;
    }
    if (!r.formattable() || !endsAtDedent(doc.lines(), r.range)) {
      skip.insert(i);
      uint32_t line = doc.lines().lineOf(r.range.begin) + 1;
      bool syntax = std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == "TVS001"; });
      bool unsupported = std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == "TVS002"; });
      result.notes.push_back("line " + std::to_string(line) + ": left as written (it has " +
                             (syntax        ? "a syntax error)"
                              : unsupported ? "a construct TVMScript does not allow)"
                                            : "a construct tvms does not model yet, TVS011)"));
    }
  }
  // Reprint, then check: each reprinted region must lower to an equal module with the same comments.
  for (size_t attempt = 0; attempt <= file.regions.size(); ++attempt) {
    std::vector<Replacement> reps;
    for (size_t i = 0; i < file.regions.size(); ++i) {
      if (skip.count(i)) continue;
      auto& r = file.regions[i];
      syntax::ByteRange lines = frontend::regionLines(doc, r.range);
      ir::PrintOptions po;
      po.canonical = false;
      po.lineWidth = opts.lineWidth;
      po.indent = static_cast<int>(r.indentColumn);
      po.trivia = &r.trivia;
      std::string printed = ir::printModule(*r.module, po);
      if (!printed.empty() && printed.back() == '\n') printed.pop_back();
      reps.push_back({lines, withLineEnding(std::move(printed), lineEndingAt(doc, lines.begin)), i});
    }
    if (reps.empty()) return result;
    std::string candidate = applyReplacements(text, reps);
    syntax::Document after(candidate);
    frontend::FileResult check = frontend::lowerDocument(after);
    bool ok = check.regions.size() == file.regions.size();
    for (size_t i = 0; ok && i < file.regions.size(); ++i) {
      if (skip.count(i)) continue;
      auto& before = file.regions[i];
      auto& now = check.regions[i];
      std::string diff = ir::firstDifference(*before.module, *now.module);
      bool commentsKept = frontend::commentsIn(doc, frontend::regionLines(doc, before.range)) ==
                          frontend::commentsIn(after, frontend::regionLines(after, now.range));
      if (diff.empty() && commentsKept && now.formattable()) continue;
      skip.insert(i);
      uint32_t line = doc.lines().lineOf(before.range.begin) + 1;
      result.notes.push_back("line " + std::to_string(line) + ": left as written (internal check failed: " +
                             (diff.empty() ? std::string(commentsKept ? "the reprint does not parse cleanly" : "comments moved out of order") : diff) +
                             "); please report it");
      ok = false;
    }
    if (ok) {
      result.text = std::move(candidate);
      result.changed = result.text != text;
      return result;
    }
  }
  return result;
}

// ---- unified diff (Myers' O(ND) algorithm over lines)

namespace {

std::vector<std::string_view> splitLines(const std::string& s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) { out.push_back(std::string_view(s).substr(pos)); break; }
    out.push_back(std::string_view(s).substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  return out;
}

// Edit script: for each line, ' ' kept, '-' removed (from a), '+' added (from b). The common prefix and
// suffix are trimmed first, and each step keeps only its diagonals [-d-1, d+1], so memory is O(D^2).
std::vector<std::pair<char, std::string_view>> myers(const std::vector<std::string_view>& a0,
                                                     const std::vector<std::string_view>& b0) {
  size_t pre = 0;
  while (pre < a0.size() && pre < b0.size() && a0[pre] == b0[pre]) ++pre;
  size_t suf = 0;
  while (suf < a0.size() - pre && suf < b0.size() - pre && a0[a0.size() - 1 - suf] == b0[b0.size() - 1 - suf]) ++suf;
  std::vector<std::string_view> a(a0.begin() + pre, a0.end() - suf), b(b0.begin() + pre, b0.end() - suf);
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size()), max = n + m;
  std::vector<int> v(2 * max + 3, 0);
  auto V = [&](std::vector<int>& vec, int k) -> int& { return vec[max + 1 + k]; };
  std::vector<std::vector<int>> trace;  // trace[d][j] = v[k] before step d, for k = j - d - 1
  int found = 0;
  for (int d = 0; d <= max; ++d) {
    std::vector<int> slice(2 * d + 3);
    for (int k = -d - 1; k <= d + 1; ++k) slice[k + d + 1] = (std::abs(k) <= max + 1) ? V(v, k) : 0;
    trace.push_back(std::move(slice));
    bool done = false;
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && V(v, k - 1) < V(v, k + 1))) ? V(v, k + 1) : V(v, k - 1) + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) { ++x; ++y; }
      V(v, k) = x;
      if (x >= n && y >= m) { done = true; break; }
    }
    if (done) { found = d; break; }
  }
  std::vector<std::pair<char, std::string_view>> script;
  for (size_t i = 0; i < suf; ++i) script.emplace_back(' ', a0[a0.size() - 1 - i]);
  int x = n, y = m;
  for (int d = found; d > 0; --d) {
    const auto& vd = trace[d];
    auto at = [&](int k) { return vd[k + d + 1]; };
    int k = x - y;
    int prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    int prevX = at(prevK), prevY = prevX - prevK;
    while (x > prevX && y > prevY) script.emplace_back(' ', a[--x]), --y;
    if (x == prevX) script.emplace_back('+', b[--y]);
    else script.emplace_back('-', a[--x]);
  }
  while (x > 0 && y > 0) script.emplace_back(' ', a[--x]), --y;
  for (size_t i = pre; i > 0; --i) script.emplace_back(' ', a0[i - 1]);
  return {script.rbegin(), script.rend()};
}

}  // namespace

std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& path) {
  if (before == after) return "";
  auto a = splitLines(before), b = splitLines(after);
  auto script = myers(a, b);
  std::string out = "--- " + path + "\n+++ " + path + "\n";
  const size_t context = 3;
  size_t i = 0;
  int lineA = 1, lineB = 1;
  std::vector<int> posA(script.size() + 1), posB(script.size() + 1);
  for (size_t k = 0; k < script.size(); ++k) {
    posA[k] = lineA;
    posB[k] = lineB;
    if (script[k].first != '+') ++lineA;
    if (script[k].first != '-') ++lineB;
  }
  posA[script.size()] = lineA;
  posB[script.size()] = lineB;
  while (i < script.size()) {
    if (script[i].first == ' ') { ++i; continue; }
    size_t start = i >= context ? i - context : 0;
    size_t end = i;
    // extend the hunk while changes are within 2*context of each other
    while (end < script.size()) {
      if (script[end].first != ' ') { ++end; continue; }
      size_t run = end;
      while (run < script.size() && script[run].first == ' ') ++run;
      if (run < script.size() && run - end <= 2 * context) { end = run; continue; }
      end = std::min(end + context, script.size());
      break;
    }
    int countA = 0, countB = 0;
    for (size_t k = start; k < end; ++k) {
      if (script[k].first != '+') ++countA;
      if (script[k].first != '-') ++countB;
    }
    out += "@@ -" + std::to_string(countA ? posA[start] : posA[start] - 1) + "," + std::to_string(countA) + " +" +
           std::to_string(countB ? posB[start] : posB[start] - 1) + "," + std::to_string(countB) + " @@\n";
    for (size_t k = start; k < end; ++k) {
      out += script[k].first;
      out += script[k].second;
      if (script[k].second.empty() || script[k].second.back() != '\n') out += "\n\\ No newline at end of file\n";
    }
    i = end;
  }
  return out;
}

}  // namespace tvms::format
