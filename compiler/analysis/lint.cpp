// lintDocument: the whole lint of one document, and the verify convention.
#include "compiler/analysis/lint.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <strings.h>
#include <set>

#include "compiler/diagnostics/catalogue.h"
#include "runtime/free_memory.h"

namespace tvms::analysis {

namespace {

bool matchesPrefix(std::string_view code, const std::vector<std::string>& prefixes) {
  for (auto& p : prefixes)
    if (p == "ALL" || code.substr(0, p.size()) == p) return true;
  return false;
}

bool exactly(std::string_view code, const std::vector<std::string>& prefixes) {
  return std::find(prefixes.begin(), prefixes.end(), code) != prefixes.end();
}

// The next code of a list after a marker ("noqa:", "expect:"), separators skipped: TVS201, TVS203 ...
// Its end in `at`; nullopt at the list's end (anything that does not look like a code ends it).
std::optional<std::string> nextCode(const std::string& s, size_t& at) {
  size_t i = at;
  while (i < s.size() && (s[i] == ' ' || s[i] == ',' || s[i] == '\t')) ++i;
  size_t j = i;
  while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i || !std::isupper(static_cast<unsigned char>(s[i])) || !std::isdigit(static_cast<unsigned char>(s[j - 1]))) return std::nullopt;
  at = j;
  return s.substr(i, j - i);
}

std::vector<std::string> codesAfter(const std::string& s, size_t pos) {
  std::vector<std::string> out;
  while (auto code = nextCode(s, pos)) out.push_back(*code);
  return out;
}

// What an `# expect:` comment asks for after the marker: codes, each with an optional `@COLUMN` and an
// optional `{{message substring}}` after it ("TVS203@9 {{operands}}, TVS101").
std::vector<Expectation> expectationsAfter(const std::string& s, size_t pos) {
  std::vector<Expectation> out;
  while (auto code = nextCode(s, pos)) {
    Expectation e{*code, std::nullopt, ""};
    if (pos < s.size() && s[pos] == '@') {
      size_t k = pos + 1;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
      if (k > pos + 1 && k - pos - 1 <= 9) e.column = static_cast<uint32_t>(std::stoul(s.substr(pos + 1, k - pos - 1)));  // no overflow
      pos = k;
    }
    size_t k = pos;
    while (k < s.size() && s[k] == ' ') ++k;
    if (s.compare(k, 2, "{{") == 0) {
      size_t close = s.find("}}", k + 2);
      if (close != std::string::npos) {
        e.message = s.substr(k + 2, close - k - 2);
        pos = close + 2;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Finds "# <marker>" inside a comment token (which may hold several '#' parts).
std::optional<size_t> directive(const std::string& comment, std::string_view marker) {
  for (size_t hash = comment.find('#'); hash != std::string::npos; hash = comment.find('#', hash + 1)) {
    size_t i = hash + 1;
    while (i < comment.size() && comment[i] == ' ') ++i;
    std::string lower;
    for (size_t k = i; k < comment.size() && k < i + marker.size(); ++k) lower += static_cast<char>(std::tolower(comment[k]));
    if (lower == marker) return i + marker.size();
  }
  return std::nullopt;
}

struct Noqa {
  frontend::Comment comment;
  uint32_t line;
  bool bare = false;
  std::vector<std::string> codes;
  std::set<std::string> used;
  bool usedBare = false;
};

}  // namespace

bool RuleSelection::enabled(std::string_view code) const {
  const diag::Rule* rule = diag::findRule(code);
  bool byDefault = rule ? rule->enabledByDefault : true;
  bool on;
  if (!select.empty()) on = byDefault ? matchesPrefix(code, select) : exactly(code, select);
  else on = byDefault;
  if (!on) on = byDefault ? matchesPrefix(code, extendSelect) : exactly(code, extendSelect);
  if (on && matchesPrefix(code, ignore)) on = false;
  return on;
}

namespace {

// The comments that may hold a directive: only lines that mention "noqa" or "expect:" are walked, since
// most comments (and at 10k lines there are thousands) are prose.
std::vector<frontend::Comment> directiveComments(const syntax::Document& doc) {
  // Each marker is found by a rare byte of it ('q' of noqa, ':' of expect:) with memchr, then compared
  // case-insensitively around it: a byte-by-byte case-insensitive search was most of a keystroke's lint.
  const std::string& t = doc.text();
  std::set<uint32_t> lines;
  auto scan = [&](std::string_view marker, size_t rare) {
    for (char c : {static_cast<char>(std::tolower(static_cast<unsigned char>(marker[rare]))),
                   static_cast<char>(std::toupper(static_cast<unsigned char>(marker[rare])))}) {
      for (const char* p = static_cast<const char*>(std::memchr(t.data(), c, t.size())); p;
           p = static_cast<const char*>(std::memchr(p + 1, c, t.size() - static_cast<size_t>(p + 1 - t.data())))) {
        size_t at = static_cast<size_t>(p - t.data());
        if (at < rare || at - rare + marker.size() > t.size()) continue;
        if (strncasecmp(t.data() + at - rare, marker.data(), marker.size()) == 0) lines.insert(doc.lines().lineOf(static_cast<uint32_t>(at - rare)));
      }
      if (std::tolower(static_cast<unsigned char>(c)) == std::toupper(static_cast<unsigned char>(c))) break;  // ':' has one case
    }
  };
  scan("noqa", 2);
  scan("expect:", 6);
  std::vector<frontend::Comment> out;
  for (uint32_t l : lines) {
    auto found = frontend::commentNodesIn(doc, {doc.lines().lineStart(l), doc.lines().lineEnd(l)});
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// The diagnostics of `out.file` and `out.analyses`, selected, de-duplicated and suppressed.
void assemble(LintResult& out, const syntax::Document& doc, const RuleSelection& rules, std::vector<frontend::Comment> comments) {
  out.diagnostics.clear();
  out.expectations.clear();
  std::vector<diag::Diagnostic> all = out.file.diagnostics;
  for (size_t i = 0; i < out.file.regions.size(); ++i) {
    auto& region = out.file.regions[i];
    auto more = out.analyses[i].all();
    more.insert(more.begin(), region.diagnostics.begin(), region.diagnostics.end());
    if (region.builtByProgram || region.readsPython)  // TVMScript edits do not fit the program's Python
      for (auto& d : more) std::erase_if(d.fixes, [](auto& f) { return !f.python; });
    all.insert(all.end(), more.begin(), more.end());
  }
  const syntax::LineIndex& lines = doc.lines();

  // Expectations (the verify convention) anywhere in the file.
  bool fileNoqa = false;
  std::vector<Noqa> noqas;
  auto inRegion = [&](uint32_t offset) {
    for (auto& r : out.file.regions) if (r.range.begin <= offset && offset < r.range.end) return true;
    return false;
  };
  for (auto& c : comments) {
    uint32_t line = lines.lineOf(c.range.begin);
    if (auto p = directive(c.text, "expect:")) {
      auto wanted = expectationsAfter(c.text, *p);
      auto& v = out.expectations[line];
      v.insert(v.end(), wanted.begin(), wanted.end());
    }
    if (directive(c.text, "tvms: noqa")) fileNoqa = true;
    else if (auto p = directive(c.text, "noqa"); p && inRegion(c.range.begin)) {
      Noqa n{c, line, false, {}, {}, false};
      if (*p < c.text.size() && c.text[*p] == ':') n.codes = codesAfter(c.text, *p + 1);
      n.bare = n.codes.empty();
      noqas.push_back(std::move(n));
    }
  }

  std::sort(all.begin(), all.end(), [](auto& a, auto& b) {
    return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.code < b.code;
  });
  std::set<std::tuple<diag::Code, uint32_t, uint32_t>> seen;
  for (auto& d : all) {
    if (!seen.insert({d.code, d.range.begin, d.range.end}).second) continue;
    if (!rules.enabled(d.code)) continue;
    if (fileNoqa) continue;
    uint32_t line = lines.lineOf(d.range.begin);
    bool suppressed = false;
    std::string name(diag::codeName(d.code));  // as a `# noqa:` comment spells it
    for (auto& n : noqas) {
      if (n.line != line) continue;
      if (n.bare) { n.usedBare = true; suppressed = true; }
      else if (std::find(n.codes.begin(), n.codes.end(), name) != n.codes.end()) { n.used.insert(name); suppressed = true; }
    }
    if (!suppressed) out.diagnostics.push_back(d);
  }
  if (!fileNoqa && rules.enabled(diag::Code::TVS900)) {
    for (auto& n : noqas) {
      std::vector<std::string> unused;
      if (n.bare && !n.usedBare) unused.push_back("");
      for (auto& code : n.codes)
        if (code.rfind("TVS", 0) == 0 && !n.used.count(code)) unused.push_back(code);
      for (auto& code : unused) {
        auto d = diag::make(diag::Code::TVS900, n.comment.range,
                            code.empty() ? "this `# noqa` suppresses nothing" : "`# noqa: " + code + "` suppresses nothing on this line");
        // The whole comment can go when nothing of it is used and it holds only the directive.
        bool onlyDirective = n.comment.text.find('#', 1) == std::string::npos;
        if (onlyDirective && n.used.empty() && !n.usedBare && (n.bare || unused.size() == n.codes.size())) {
          uint32_t from = n.comment.range.begin;
          while (from > 0 && (doc.text()[from - 1] == ' ' || doc.text()[from - 1] == '\t')) --from;
          d.fixes.push_back({"Remove the unused `# noqa`", {{{from, n.comment.range.end}, ""}}, true});
        }
        out.diagnostics.push_back(std::move(d));
      }
    }
    std::sort(out.diagnostics.begin(), out.diagnostics.end(), [](auto& a, auto& b) {
      return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.code < b.code;
    });
  }
}

// A copy of `fa` with every endpoint at or after `from` moved by `delta`, or `fa` itself when none is.
std::shared_ptr<const FunctionAnalysis> shifted(const std::shared_ptr<const FunctionAnalysis>& fa, uint32_t from, int64_t delta) {
  if (!fa) return fa;
  auto after = [&](ByteRange r) { return r.end >= from; };
  bool moves = std::any_of(fa->diagnostics.begin(), fa->diagnostics.end(), [&](auto& d) {
    return after(d.range) || std::any_of(d.related.begin(), d.related.end(), [&](auto& r) { return after(r.range); });
  });
  if (!moves) return fa;
  auto copy = std::make_shared<FunctionAnalysis>(*fa);
  frontend::shiftDiagnostics(copy->diagnostics, from, delta);
  return copy;
}

}  // namespace

LintResult lintDocument(const syntax::Document& doc, const RuleSelection& rules) {
  LintResult out;
  out.file = frontend::lowerDocument(doc);
  for (auto& region : out.file.regions) out.analyses.push_back(analyzeModule(region, doc.text()));
  assemble(out, doc, rules, directiveComments(doc));
  return out;
}

LintResult lintDocumentOnce(syntax::Document& doc, const RuleSelection& rules, unsigned helpers) {
  LintResult out;
  out.file = frontend::lowerDocumentOnce(doc);
  std::vector<frontend::Comment> comments = directiveComments(doc);  // the last use of the trees
  doc.dropTrees();
  runtime::returnFreeMemory();  // the trees' pages, most on the parse helpers' heaps, which the analysis does not use
  for (auto& region : out.file.regions) out.analyses.push_back(analyzeModule(region, doc.text(), nullptr, false, helpers));
  assemble(out, doc, rules, std::move(comments));
  return out;
}

bool followEdit(LintResult& r, const syntax::Document& doc, ByteRange edit, uint32_t newLength) {
  // The function being replaced: its analysis must not be reused, even if its successor happens to be
  // allocated at the same address.
  std::vector<const ir::Function*> replaced;
  for (auto& region : r.file.regions)
    for (auto& span : region.functions)
      if (region.module && span.range.begin < edit.begin && edit.end < span.range.end)
        for (auto& f : region.module->functions)
          if (f.name == span.name && f.relax) replaced.push_back(f.relax.get());
  auto regionIndex = frontend::followEdit(doc, r.file, edit, newLength);
  if (!regionIndex || r.analyses.size() != r.file.regions.size()) return false;
  int64_t delta = static_cast<int64_t>(newLength) - static_cast<int64_t>(edit.end - edit.begin);
  for (auto& analysis : r.analyses)
    for (auto& fa : analysis.functions) {
      if (fa && std::find(replaced.begin(), replaced.end(), fa->function) != replaced.end()) fa = nullptr;
      else fa = shifted(fa, edit.end, delta);
    }
  return true;
}

void finishLint(LintResult& r, const syntax::Document& doc, const RuleSelection& rules) {
  for (size_t i = 0; i < r.file.regions.size(); ++i) {
    ModuleAnalysis previous = std::move(r.analyses[i]);
    r.analyses[i] = analyzeModule(r.file.regions[i], doc.text(), &previous);
  }
  assemble(r, doc, rules, directiveComments(doc));
}

std::vector<std::string> verifyExpectations(const LintResult& r, const syntax::LineIndex& lines) {
  std::map<uint32_t, std::vector<const diag::Diagnostic*>> got;
  for (auto& d : r.diagnostics) got[lines.lineOf(d.range.begin)].push_back(&d);
  auto columnOf = [&](const diag::Diagnostic& d) { return d.range.begin - lines.lineStart(lines.lineOf(d.range.begin)) + 1; };
  auto describe = [&](const diag::Diagnostic& d) {
    return std::string(diag::codeName(d.code)) + " at column " + std::to_string(columnOf(d)) + " (\"" + d.message + "\")";
  };
  std::vector<std::string> problems;
  std::set<uint32_t> linesSeen;
  for (auto& [l, _] : got) linesSeen.insert(l);
  for (auto& [l, _] : r.expectations) linesSeen.insert(l);
  for (uint32_t l : linesSeen) {
    std::vector<const diag::Diagnostic*> have = got.count(l) ? got[l] : std::vector<const diag::Diagnostic*>{};
    const std::string at = "line " + std::to_string(l + 1) + ": ";
    if (auto it = r.expectations.find(l); it != r.expectations.end())
      for (const Expectation& e : it->second) {
        auto meets = [&](const diag::Diagnostic* d) {
          return diag::codeName(d->code) == e.code && (!e.column || columnOf(*d) == *e.column) && d->message.find(e.message) != std::string::npos;
        };
        auto h = std::find_if(have.begin(), have.end(), meets);
        if (h != have.end()) {
          have.erase(h);
          continue;
        }
        std::string want = e.code + (e.column ? " at column " + std::to_string(*e.column) : "") + (e.message.empty() ? "" : " with \"" + e.message + "\"");
        std::string instead;
        for (const diag::Diagnostic* d : have)
          if (diag::codeName(d->code) == e.code) instead += (instead.empty() ? " (reported: " : "; ") + describe(*d);
        problems.push_back(at + "expected " + want + ", not reported" + (instead.empty() ? "" : instead + ")"));
      }
    for (const diag::Diagnostic* d : have) problems.push_back(at + "unexpected " + describe(*d));
  }
  return problems;
}

}  // namespace tvms::analysis
