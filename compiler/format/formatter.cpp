#include "compiler/format/formatter.h"

#include <algorithm>
#include <map>
#include <memory>
#include <cstdlib>
#include <optional>
#include <set>

#include "compiler/format/layout_printer.h"
#include "compiler/format/token_check.h"
#include "compiler/frontend/frontend.h"
#include "compiler/ir/printer.h"
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

// What a region is: a (decorated) class or function definition.
bool isRegionDefinition(TSNode n) {
  std::string_view type = ts_node_type(n);
  return type == "decorated_definition" || type == "class_definition" || type == "function_definition";
}

// The region's definition in the file's tree: the innermost definition with exactly the region's
// range (a block holding only that definition has the same range).
TSNode regionNode(const syntax::Document& doc, syntax::ByteRange range) {
  TSNode n = ts_node_descendant_for_byte_range(doc.root(), range.begin, range.end);
  while (!ts_node_is_null(n)) {
    if (isRegionDefinition(n) && ts_node_start_byte(n) == range.begin && ts_node_end_byte(n) == range.end) return n;
    n = ts_node_parent(n);
  }
  throw LayoutRefused("its definition was not found in the syntax tree");
}

std::string lineNote(const syntax::Document& doc, const frontend::Region& r, const std::string& why) {
  return "line " + std::to_string(doc.lines().lineOf(r.range.begin) + 1) + ": left as written (" + why + ")";
}

bool hasSyntaxError(const frontend::Region& r) {
  return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == diag::Code::TVS001; });
}

// Why a region cannot be reprinted at all, or "" when it can. The canonical printer needs the whole
// module modelled; the layout needs only a clean syntax tree.
std::string whyLeftAsWritten(const syntax::Document& doc, const frontend::Region& r, bool canonical) {
  if (!startsAtIndent(doc, r.range))
    // Reprinting replaces whole lines: what stands before the region on its first line (a control
    // character tree-sitter skipped, which CPython rejects) would be lost and the indent misread.
    return "something other than indentation precedes it on its line";
  if (hasSyntaxError(r) || !endsAtDedent(doc.lines(), r.range)) return "it has a syntax error";
  // Lines are indented with spaces; a region indented with tabs (inside a tab-indented function)
  // would then mix the two with the lines around it.
  uint32_t lineStart = doc.lines().lineStart(doc.lines().lineOf(r.range.begin));
  if (doc.slice({lineStart, r.range.begin}).find('\t') != std::string_view::npos) return "it is indented with tabs";
  // black's `# fmt: off` / `# fmt: on` and `# fmt: skip` are honoured by the layout (layout_printer);
  // the canonical printer reprints from the IR, so it leaves such a module as written.
  if (canonical)
    for (auto& c : frontend::commentsIn(doc, frontend::regionLines(doc, r.range))) {
      FmtSwitch f = fmtSwitch(c);
      if (f == FmtSwitch::Off || f == FmtSwitch::Skip) return std::string("it has a `# fmt: ") + (f == FmtSwitch::Off ? "off" : "skip") + "` comment";
    }
  if (!canonical) return "";
  if (r.readsPython) return "it reads Python values of the file, which reprinting would replace by their values";
  if (r.formattable()) return "";
  bool unsupported = std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) { return d.code == diag::Code::TVS002; });
  return unsupported ? "it has a construct TVMScript does not allow" : "it has a construct tvms does not model yet, TVS011";
}

// The region's new text, or nullopt (with a note) when it is left as written.
std::optional<std::string> reprint(const syntax::Document& doc, const frontend::Region& r, syntax::ByteRange lines,
                                   const FormatOptions& opts, std::vector<std::string>& notes) {
  if (opts.canonical) {
    ir::PrintOptions po;
    po.canonical = false;
    po.lineWidth = opts.lineWidth;
    po.indent = static_cast<int>(r.indentColumn);
    po.trivia = &r.trivia;
    std::string printed = ir::printModule(*r.module, po);
    if (!printed.empty() && printed.back() == '\n') printed.pop_back();
    return printed;
  }
  try {
    return layoutRegion(doc, regionNode(doc, r.range), lines, static_cast<int>(r.indentColumn), opts.lineWidth);
  } catch (const LayoutRefused& e) {
    notes.push_back(lineNote(doc, r, e.what()));
    return std::nullopt;
  }
}

// What a reprint of a region must keep, read from a text's trees: its comments in order and (for the
// layout) its tokens and the shape of its statements, as digests (a large module's tokens would be
// tens of megabytes).
LayoutKept keptIn(const syntax::Document& d, syntax::ByteRange lines, bool canonical) {
  if (!canonical) return layoutKept(d, lines);
  LayoutKept k;
  for (auto& c : frontend::commentsIn(d, lines)) k.comments.add(c);
  return k;
}

// The digests of the reprint against the original's. "" when they agree.
std::string keptDiffers(const LayoutKept& before, const LayoutKept& after, bool canonical) {
  if (before.comments != after.comments) return "comments moved out of order";
  if (canonical) return "";
  if (before.tokens != after.tokens) return "a token changed";
  if (before.shape != after.shape) return "a statement moved into or out of a block, or was split or joined";
  return "";
}

// The canonical reprint against the original's module: where it lies, its syntax, and the module's
// meaning. "" when it holds.
std::string checkCanonical(syntax::ByteRange expectedLines, const frontend::Region& was, const syntax::Document& candidate,
                           const frontend::Region& now) {
  if (hasSyntaxError(now)) return "the reprint does not parse cleanly";
  if (frontend::regionLines(candidate, now.range) != expectedLines) return "the reprint moved the module's bounds";
  std::string diff = ir::firstDifference(*was.module, *now.module);
  if (!diff.empty()) return diff;
  if (!now.formattable()) return "the reprint does not lower cleanly";
  return "";
}

// The outermost definition starting at the first character of `lines` (a reprinted region starts at
// its indentation), or a null node.
TSNode definitionOnLines(const syntax::Document& doc, syntax::ByteRange lines) {
  std::string_view text = doc.slice(lines);
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  uint32_t begin = lines.begin + static_cast<uint32_t>(first);
  TSNode n = ts_node_descendant_for_byte_range(doc.root(), begin, begin), found{};
  for (; !ts_node_is_null(n) && ts_node_start_byte(n) == begin; n = ts_node_parent(n))
    if (isRegionDefinition(n)) found = n;
  return found;
}

// The laid-out region in the candidate: one clean definition over exactly the expected lines, with
// the original's tokens, comments and statement shape. "" when it holds.
std::string checkLayout(const LayoutKept& before, syntax::ByteRange expectedLines, const syntax::Document& candidate) {
  TSNode node = definitionOnLines(candidate, expectedLines);
  if (ts_node_is_null(node) || ts_node_has_error(node)) return "the reprint does not parse cleanly";
  if (frontend::regionLines(candidate, syntax::rangeOf(node)) != expectedLines) return "the reprint moved the module's bounds";
  return keptDiffers(before, layoutKept(candidate, expectedLines), false);
}

// Where each region's lines lie in the candidate: the replacements before it shift them, and its
// own replacement, if it has one, gives their new length.
std::map<size_t, syntax::ByteRange> linesInCandidate(const syntax::Document& doc, const std::vector<frontend::Region>& regions,
                                                     const std::set<size_t>& skip, const std::vector<Replacement>& reps) {
  std::map<size_t, syntax::ByteRange> out;
  int64_t shift = 0;
  size_t next = 0;  // reps are in file order, as the regions are
  for (size_t i = 0; i < regions.size(); ++i) {
    syntax::ByteRange lines = frontend::regionLines(doc, regions[i].range);
    uint32_t length = lines.end - lines.begin;
    bool replaced = next < reps.size() && reps[next].region == i;
    if (replaced) length = static_cast<uint32_t>(reps[next].text.size());
    if (!skip.count(i)) out[i] = {static_cast<uint32_t>(lines.begin + shift), static_cast<uint32_t>(lines.begin + shift + length)};
    if (replaced) shift += static_cast<int64_t>(reps[next++].text.size()) - (lines.end - lines.begin);
  }
  return out;
}

// A text's modules lowered as a one-shot lint reads a file: by function, each function's tree freed
// once it is lowered (its whole-file tree would cost ~50 bytes per byte of source). The layout's
// region search (without positions) and the canonical check's candidate are read so.
struct Lowered {
  std::unique_ptr<syntax::Document> doc;
  frontend::FileResult file;
};
Lowered lowerByFunction(std::string text, unsigned helpers, frontend::LowerOptions options = {}) {
  Lowered out{std::make_unique<syntax::Document>(std::move(text), syntax::Parsing::ByFunction, helpers), {}};
  out.file = frontend::lowerDocumentOnce(*out.doc, options);
  return out;
}

// Each region's failure, checked against the candidate text: "" where it holds. The layout's check is
// syntactic (a clean definition over the expected lines with the original's tokens and statement
// shape), read by function as lint reads a file; the canonical printer's compares the lowered modules.
std::map<size_t, std::string> checkCandidate(syntax::Document& doc, const std::vector<frontend::Region>& regions,
                                             const std::set<size_t>& skip, const std::vector<Replacement>& reps,
                                             const std::string& candidate, const FormatOptions& opts) {
  std::map<size_t, syntax::ByteRange> expected = linesInCandidate(doc, regions, skip, reps);
  std::map<size_t, LayoutKept> before;
  doc.readFunctionsAgain();
  for (auto& r : reps) before[r.region] = keptIn(doc, frontend::regionLines(doc, regions[r.region].range), opts.canonical);
  std::map<size_t, std::string> failures;
  if (!opts.canonical) {
    syntax::Document parsed(candidate, syntax::Parsing::ByFunction, opts.parseHelpers);
    for (auto& r : reps) failures[r.region] = checkLayout(before[r.region], expected[r.region], parsed);
    if (parsed.byFunctionFailed()) {  // a function's own parse disagreed with the skeleton: read it whole
      parsed.parseWhole();
      for (auto& r : reps) failures[r.region] = checkLayout(before[r.region], expected[r.region], parsed);
    }
    return failures;
  }
  // What the canonical check compares is read from each text's whole-file tree, which is freed before
  // the next is made; the candidate is then lowered function by function.
  doc.dropTrees();
  {
    syntax::Document parsed(candidate);
    for (auto& r : reps) {
      std::string differs = keptDiffers(before[r.region], keptIn(parsed, expected[r.region], true), true);
      if (!differs.empty()) failures[r.region] = differs;
    }
  }
  Lowered check = lowerByFunction(candidate, opts.parseHelpers);
  check.doc->dropTrees();
  if (check.file.regions.size() != regions.size()) {  // should not happen: the reprint made or lost a region
    for (auto& r : reps) failures[r.region] = "the reprint changed which modules the file has";
    return failures;
  }
  for (auto& r : reps)
    if (failures[r.region].empty())
      failures[r.region] = checkCanonical(expected[r.region], regions[r.region], *check.doc, check.file.regions[r.region]);
  return failures;
}

}  // namespace

namespace {

// formatSource, with the text left empty where it is the input's (a copy made only at the end, after
// the lowering's peak). The document read holds the input while it works: the only copy.
FormatResult reprintRegions(std::string text, const FormatOptions& opts) {
  FormatResult result;
  // Python source is UTF-8 (the CLI and the server's JSON refuse anything else before it gets here);
  // on other bytes tree-sitter's recovery can move a region's end between two runs, so such text is
  // never reprinted (fuzz_frontend found both cases below).
  if (uint32_t bad = syntax::firstInvalidUtf8(text); bad != uint32_t(-1)) {
    result.notes.push_back("left as written: not valid UTF-8 at byte " + std::to_string(bad + 1));
    result.input = std::move(text);
    return result;
  }
  // CPython refuses source with NUL bytes, and tree-sitter's scanner reads one as the end of input.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    result.notes.push_back("left as written: a NUL byte at byte " + std::to_string(nul + 1));
    result.input = std::move(text);
    return result;
  }
  // The regions. The canonical printer reprints from the modules and their trivia: it lowers the
  // whole-file tree. The layout needs only the regions' bounds and syntax from the lowering: the file
  // is read by function as lint reads it (the modules freed once found), and the layout and its check
  // walk the same skeleton and each function's own tree in turn, freed as they go, so no whole-file
  // tree (~55 bytes per byte of source) or second lowering is ever made.
  std::unique_ptr<syntax::Document> whole;
  frontend::FileResult file;
  if (opts.canonical) {
    whole = std::make_unique<syntax::Document>(std::move(text));
    file = frontend::lowerDocument(*whole);
  } else {
    Lowered read = lowerByFunction(std::move(text), opts.parseHelpers, frontend::LowerOptions{.positions = false});
    whole = std::move(read.doc);
    file = std::move(read.file);
    for (auto& r : file.regions) {
      r.module.reset();
      r.map = {};
    }
  }
  syntax::Document& doc = *whole;
  auto handBack = [&]() -> FormatResult {
    result.input = doc.releaseText();
    return std::move(result);
  };
  std::set<size_t> skip;
  for (size_t i = 0; i < file.regions.size(); ++i) {
    auto& r = file.regions[i];
    if (r.builtByProgram) {  // Python that builds a module, not TVMScript: not ours to format
      skip.insert(i);
      continue;
    }
    std::string why = whyLeftAsWritten(doc, r, opts.canonical);
    if (why.empty()) continue;
    skip.insert(i);
    result.notes.push_back(lineNote(doc, r, why));
  }
  // Reprint, then check each region; one that fails the check is left as written and the rest tried again.
  for (size_t attempt = 0; attempt <= file.regions.size(); ++attempt) {
    if (attempt > 0 && opts.canonical) doc.parseWhole();  // its tree was freed for the check
    doc.readFunctionsAgain();
    std::vector<Replacement> reps;
    for (size_t i = 0; i < file.regions.size(); ++i) {
      if (skip.count(i)) continue;
      auto& r = file.regions[i];
      syntax::ByteRange lines = frontend::regionLines(doc, r.range);
      auto printed = reprint(doc, r, lines, opts, result.notes);
      if (!printed) {
        skip.insert(i);
        continue;
      }
      if (static_cast<int>(i) == opts.spoilRegionForTest) *printed += "  # spoilt";
      std::string replacement = withLineEnding(std::move(*printed), lineEndingAt(doc, lines.begin));
      // A region already laid out needs no replacement, and no check: its text stays byte for byte.
      // (`fmt --check` of formatted files then costs one lowering and one layout.)
      if (doc.slice(lines) == replacement) continue;
      reps.push_back({lines, std::move(replacement), i});
    }
    if (reps.empty()) return handBack();
    std::string candidate = applyReplacements(doc.text(), reps);
    bool ok = true;
    for (auto& [i, failure] : checkCandidate(doc, file.regions, skip, reps, candidate, opts)) {
      if (failure.empty()) continue;
      skip.insert(i);
      result.notes.push_back(lineNote(doc, file.regions[i], "internal check failed: " + failure + "; please report it"));
      ok = false;
    }
    if (ok) {
      result.text = std::move(candidate);
      result.changed = result.text != doc.text();
      return handBack();
    }
  }
  return handBack();
}

}  // namespace

FormatResult formatSource(std::string text, const FormatOptions& opts) {
  FormatResult result = reprintRegions(std::move(text), opts);
  if (!result.changed) result.text = result.input;
  return result;
}

}  // namespace tvms::format
