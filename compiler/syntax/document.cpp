#include "compiler/syntax/document.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tvms::syntax {

ByteRange rangeOf(TSNode n) { return {ts_node_start_byte(n), ts_node_end_byte(n)}; }

namespace {

bool isType(TSNode n, const char* t) { return !ts_node_is_null(n) && std::strcmp(ts_node_type(n), t) == 0; }

TSPoint pointAt(const LineIndex& lines, uint32_t offset) {
  LineCol lc = lines.toLineCol(offset, Encoding::Utf8);
  return {lc.line, lc.column};
}

TSRange tsRange(const LineIndex& lines, ByteRange r) {
  return {pointAt(lines, r.begin), pointAt(lines, r.end), r.begin, r.end};
}

bool isDefinition(TSNode n) {
  return isType(n, "decorated_definition") || isType(n, "function_definition");
}

// Shifts a range for an edit that lies outside it.
void shift(ByteRange& r, uint32_t editBegin, int64_t delta) {
  if (r.begin >= editBegin) {
    r.begin = static_cast<uint32_t>(r.begin + delta);
    r.end = static_cast<uint32_t>(r.end + delta);
  }
}

// The text as tree-sitter reads it. Two rewrites, each one byte for one byte so every offset stays
// valid:
// - tree-sitter-python ends lines at "\n" only, but Python (and the LSP) also end them at a lone
//   "\r" (old Mac files): it reads such a "\r" as "\n".
// - Brackets nested deeper than kMaxBracketDepth are read as spaces: Debian's tree-sitter 0.20.7
//   frees memory twice on ~65,000 unclosed brackets and kills the process. The frontend stops at
//   150 levels of expression anyway (TVS002), so nothing that deep is ever analysed.
// Chunks with nothing to rewrite are handed over in place.
constexpr int kMaxBracketDepth = 4096;

// Only the ranges tree-sitter is given to read (all of the text without any): an island's reparse
// scans the island, not the file (a whole-file scan was 7% of a keystroke in the server).
std::vector<uint32_t> bracketsPastDepth(std::string_view text, const std::vector<ByteRange>& ranges) {
  std::vector<uint32_t> out;
  int depth = 0;
  auto scan = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      char c = text[i];
      if (c == '(' || c == '[' || c == '{') {
        if (++depth > kMaxBracketDepth) out.push_back(static_cast<uint32_t>(i));
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth > kMaxBracketDepth) out.push_back(static_cast<uint32_t>(i));
        if (depth > 0) --depth;
      }
    }
  };
  if (ranges.empty()) scan(0, text.size());
  for (auto& r : ranges) scan(std::min<size_t>(r.begin, text.size()), std::min<size_t>(r.end, text.size()));
  return out;
}

struct ParseInput {
  std::string_view text;
  std::vector<uint32_t> blanked;  // sorted offsets read as ' '
  std::string chunk;
};
const char* readChunk(void* payload, uint32_t byte, TSPoint, uint32_t* read) {
  auto& in = *static_cast<ParseInput*>(payload);
  if (byte >= in.text.size()) {
    *read = 0;
    return "";
  }
  constexpr size_t kChunk = 1 << 16;
  std::string_view piece = in.text.substr(byte, kChunk);
  *read = static_cast<uint32_t>(piece.size());
  auto blank = std::lower_bound(in.blanked.begin(), in.blanked.end(), byte);
  bool blanks = blank != in.blanked.end() && *blank < byte + piece.size();
  if (!blanks && piece.find('\r') == std::string_view::npos) return piece.data();
  in.chunk.assign(piece);
  for (size_t i = 0; i < in.chunk.size(); ++i) {
    size_t at = byte + i;
    if (in.chunk[i] == '\r' && (at + 1 >= in.text.size() || in.text[at + 1] != '\n')) in.chunk[i] = '\n';
  }
  for (; blank != in.blanked.end() && *blank < byte + piece.size(); ++blank) in.chunk[*blank - byte] = ' ';
  return in.chunk.data();
}

TSTree* parseText(TSParser* parser, const TSTree* old, std::string_view text, const std::vector<ByteRange>& included = {}) {
  ParseInput in{text, bracketsPastDepth(text, included), {}};
  return ts_parser_parse(parser, old, TSInput{&in, readChunk, TSInputEncodingUTF8});
}

}  // namespace

Document::Document(std::string text) : text_(std::move(text)) {
  parser_ = ts_parser_new();
  if (!ts_parser_set_language(parser_, tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python grammar ABI does not match the tree-sitter runtime");
  lines_.reset(text_);
  tree_ = parseText(parser_, nullptr, text_);
  findIslands();
}

Document::~Document() {
  dropIslandTrees();
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

std::string_view Document::slice(ByteRange r) const {
  r.end = std::min<uint32_t>(r.end, static_cast<uint32_t>(text_.size()));
  r.begin = std::min(r.begin, r.end);
  return std::string_view(text_).substr(r.begin, r.end - r.begin);
}

std::string_view Document::nodeText(TSNode n) const { return slice(rangeOf(n)); }

void Document::dropIslandTrees() {
  for (auto& i : islands_)
    if (i.tree) ts_tree_delete(i.tree);
  islands_.clear();
}

// Islands: definitions at column 0 and the definitions directly in a column-0 class body, when the
// skeleton holds no error there (a broken region is reparsed as a whole).
void Document::findIslands() {
  dropIslandTrees();
  auto firstBodyLine = [&](TSNode definition) {
    TSNode def = isType(definition, "decorated_definition") ? ts_node_child_by_field_name(definition, "definition", 10) : definition;
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    uint32_t line = lines_.lineOf(ts_node_start_byte(ts_node_is_null(body) ? def : body));
    // a body on the def line itself (`def f(): return x`) has no body line: the island is never used
    if (!ts_node_is_null(body) && line == lines_.lineOf(ts_node_start_byte(def))) return static_cast<uint32_t>(-1);
    return lines_.lineStart(line);
  };
  auto wholeLines = [&](TSNode n) {
    uint32_t b = lines_.lineStart(lines_.lineOf(ts_node_start_byte(n)));
    uint32_t lastLine = lines_.lineOf(ts_node_end_byte(n) > 0 ? ts_node_end_byte(n) - 1 : 0);
    return ByteRange{b, lines_.lineEnd(lastLine)};
  };
  TSNode root = ts_tree_root_node(tree_);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode top = ts_tree_cursor_current_node(&cursor);
      if (ts_node_start_point(top).column != 0 || ts_node_has_error(top)) continue;
      TSNode def = isType(top, "decorated_definition") ? ts_node_child_by_field_name(top, "definition", 10) : top;
      if (isDefinition(top) && isType(def, "function_definition")) {
        islands_.push_back({{0, 0}, wholeLines(top), firstBodyLine(top), nullptr});
      } else if (isType(def, "class_definition")) {
        TSNode body = ts_node_child_by_field_name(def, "body", 4);
        if (ts_node_is_null(body)) continue;
        uint32_t bodyLine = lines_.lineOf(ts_node_start_byte(body));
        uint32_t headerEndLine = lines_.lineOf(ts_node_start_byte(def));
        if (bodyLine == headerEndLine) continue;  // `class X: pass` on one line
        ByteRange header{lines_.lineStart(lines_.lineOf(ts_node_start_byte(top))), lines_.lineStart(headerEndLine + 1)};
        TSTreeCursor inner = ts_tree_cursor_new(body);
        if (ts_tree_cursor_goto_first_child(&inner)) {
          do {
            TSNode stmt = ts_tree_cursor_current_node(&inner);
            if (isDefinition(stmt)) islands_.push_back({header, wholeLines(stmt), firstBodyLine(stmt), nullptr});
          } while (ts_tree_cursor_goto_next_sibling(&inner));
        }
        ts_tree_cursor_delete(&inner);
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

// Parses an island on its own: its header lines and its own lines, at their document offsets.
bool Document::parseIsland(Island& island, TSTree* old) {
  std::vector<TSRange> ranges;
  std::vector<ByteRange> read;
  if (island.header.end > island.header.begin) read.push_back(island.header);
  read.push_back(island.range);
  for (auto& r : read) ranges.push_back(tsRange(lines_, r));
  ts_parser_set_included_ranges(parser_, ranges.data(), static_cast<uint32_t>(ranges.size()));
  TSTree* fresh = parseText(parser_, old, text_, read);
  ts_parser_set_included_ranges(parser_, nullptr, 0);
  if (!fresh) return false;
  // The island must still be one definition that ends where the island ends (no dedent that closed
  // it, no second statement).
  TSNode root = ts_tree_root_node(fresh);
  TSNode scope = root;
  bool extraAtTop = false;  // the island's lines also produced statements outside the class
  if (island.header.end > island.header.begin) {
    TSNode top = ts_node_named_child(root, 0);
    TSNode def = isType(top, "decorated_definition") ? ts_node_child_by_field_name(top, "definition", 10) : top;
    scope = ts_node_child_by_field_name(def, "body", 4);
    extraAtTop = ts_node_named_child_count(root) != 1;
    if (ts_node_is_null(scope) || !isType(def, "class_definition")) {
      ts_tree_delete(fresh);
      return false;
    }
  }
  uint32_t defs = 0;
  TSNode only{};
  for (uint32_t i = 0; i < ts_node_named_child_count(scope); ++i) {
    TSNode c = ts_node_named_child(scope, i);
    if (isType(c, "comment")) continue;
    ++defs;
    only = c;
  }
  bool ok = !extraAtTop && defs == 1 && isDefinition(only) && ts_node_start_byte(only) >= island.range.begin &&
            lines_.lineOf(ts_node_end_byte(only) > 0 ? ts_node_end_byte(only) - 1 : 0) ==
                lines_.lineOf(island.range.end > island.range.begin ? island.range.end - 1 : island.range.end);
  // A parse with a syntax error stays bounded to the island too (it is reported as one broken
  // function) as long as the island still starts with its definition; a clean parse that is not one
  // definition means the function's extent changed, and only the whole file can say how.
  bool broken = !ok && ts_node_has_error(root) && defs >= 1 && isDefinition(ts_node_named_child(scope, 0)) &&
                ts_node_start_byte(ts_node_named_child(scope, 0)) >= island.range.begin;
  if (!ok && !broken) {
    ts_tree_delete(fresh);
    return false;
  }
  if (island.tree && island.tree != old) ts_tree_delete(island.tree);
  island.tree = fresh;
  island.broken = broken;
  return true;
}

TSTree* Document::parseRanges(const std::vector<ByteRange>& ranges) const {
  std::vector<TSRange> included;
  for (auto& r : ranges) included.push_back(tsRange(lines_, r));
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  ts_parser_set_included_ranges(parser, included.data(), static_cast<uint32_t>(included.size()));
  TSTree* tree = parseText(parser, nullptr, text_, ranges);
  ts_parser_delete(parser);
  return tree;
}

TSNode Document::definitionAt(TSNode skeletonNode) const {
  uint32_t begin = ts_node_start_byte(skeletonNode);
  for (auto& i : islands_) {
    if (!i.tree || begin < i.range.begin || begin >= i.range.end) continue;
    TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(i.tree), begin, begin);
    while (!ts_node_is_null(n) && !(isDefinition(n) && ts_node_start_byte(n) == begin)) n = ts_node_parent(n);
    // Prefer the outermost definition starting here (decorated_definition over its function_definition).
    while (!ts_node_is_null(n) && isDefinition(ts_node_parent(n)) && ts_node_start_byte(ts_node_parent(n)) == begin)
      n = ts_node_parent(n);
    if (!ts_node_is_null(n)) return n;
  }
  return skeletonNode;
}

std::optional<Document::BrokenIsland> Document::brokenIslandAt(TSNode skeletonNode) const {
  uint32_t begin = ts_node_start_byte(skeletonNode);
  for (auto& i : islands_)
    if (i.tree && i.broken && begin >= i.range.begin && begin < i.range.end)
      return BrokenIsland{i.range, ts_tree_root_node(i.tree)};
  return std::nullopt;
}

std::vector<Document::TreePart> Document::treesIn(ByteRange range) const {
  std::vector<TreePart> out;
  uint32_t pos = range.begin;
  for (auto& i : islands_) {
    if (!i.tree || i.range.end <= range.begin || i.range.begin >= range.end) continue;
    if (i.range.begin > pos) out.push_back({root(), {pos, i.range.begin}});
    out.push_back({ts_tree_root_node(i.tree), {std::max(i.range.begin, range.begin), std::min(i.range.end, range.end)}});
    pos = i.range.end;
  }
  if (pos < range.end) out.push_back({root(), {pos, range.end}});
  return out;
}

std::vector<ByteRange> Document::wholeFileEdit(const TSInputEdit& edit, bool treeEdited) {
  ++wholeFileReparses_;
  TSTree* old = tree_;
  if (!treeEdited) ts_tree_edit(old, &edit);
  TSTree* fresh = parseText(parser_, old, text_);
  uint32_t count = 0;
  TSRange* changed = ts_tree_get_changed_ranges(old, fresh, &count);
  std::vector<ByteRange> out;
  for (uint32_t i = 0; i < count; ++i) out.push_back({changed[i].start_byte, changed[i].end_byte});
  free(changed);
  ts_tree_delete(old);
  tree_ = fresh;
  findIslands();
  return out;
}

std::vector<ByteRange> Document::applyEdit(ByteRange range, std::string_view newText) {
  const auto size = static_cast<uint32_t>(text_.size());
  range.end = std::min(range.end, size);
  range.begin = std::min(range.begin, range.end);
  const int64_t delta = static_cast<int64_t>(newText.size()) - (range.end - range.begin);

  TSInputEdit edit{};
  edit.start_byte = range.begin;
  edit.old_end_byte = range.end;
  edit.new_end_byte = range.begin + static_cast<uint32_t>(newText.size());
  edit.start_point = pointAt(lines_, range.begin);
  edit.old_end_point = pointAt(lines_, range.end);

  // The island holding the edit: anywhere in its body lines, or on its decorator / def lines when the
  // edit adds or removes no line break and stays clear of the line's indentation (so the lines that
  // decide where the function ends keep their indentation).
  auto sameLines = [&] {
    if (newText.find_first_of("\r\n") != std::string_view::npos) return false;
    if (slice(range).find_first_of("\r\n") != std::string_view::npos) return false;
    uint32_t lineStart = lines_.lineStart(lines_.lineOf(range.begin));
    uint32_t indentEnd = lineStart;
    while (indentEnd < text_.size() && (text_[indentEnd] == ' ' || text_[indentEnd] == '\t')) ++indentEnd;
    return range.begin > indentEnd;
  }();
  auto island = std::find_if(islands_.begin(), islands_.end(), [&](const Island& i) {
    if (i.bodyBegin == static_cast<uint32_t>(-1) || range.end > i.range.end) return false;
    return i.bodyBegin <= range.begin || (i.range.begin < range.begin && sameLines);
  });

  text_.replace(range.begin, range.end - range.begin, newText);
  lines_.applyEdit(text_, range.begin, range.end, newText);
  edit.new_end_point = pointAt(lines_, edit.new_end_byte);

  if (island == islands_.end()) return wholeFileEdit(edit, false);

  // Bounded: every tree learns the edit, only the island is reparsed.
  ts_tree_edit(tree_, &edit);
  for (auto& i : islands_) {
    if (i.tree) ts_tree_edit(i.tree, &edit);
    if (&i == &*island) continue;
    shift(i.header, range.begin, delta);
    shift(i.range, range.begin, delta);
    if (i.bodyBegin != static_cast<uint32_t>(-1) && i.bodyBegin >= range.begin) i.bodyBegin = static_cast<uint32_t>(i.bodyBegin + delta);
  }
  island->range.end = static_cast<uint32_t>(island->range.end + delta);
  TSTree* old = island->tree;
  if (!parseIsland(*island, old)) return wholeFileEdit(edit, true);
  ++islandReparses_;
  std::vector<ByteRange> out;
  if (old) {
    uint32_t count = 0;
    TSRange* changed = ts_tree_get_changed_ranges(old, island->tree, &count);
    for (uint32_t i = 0; i < count; ++i) out.push_back({changed[i].start_byte, changed[i].end_byte});
    free(changed);
    ts_tree_delete(old);
  } else {
    out.push_back(island->range);
  }
  return out;
}

std::vector<ByteRange> Document::applyEdit(LineCol begin, LineCol end, std::string_view newText, Encoding enc) {
  uint32_t b = lines_.toOffset(begin, enc);
  uint32_t e = lines_.toOffset(end, enc);
  if (e < b) std::swap(b, e);
  return applyEdit(ByteRange{b, e}, newText);
}

}  // namespace tvms::syntax
