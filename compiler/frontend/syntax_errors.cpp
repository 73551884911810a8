#include <cstring>
#include "compiler/frontend/syntax_errors.h"

namespace tvms::frontend {

namespace {

bool excluded(uint32_t offset, const std::vector<ByteRange>& exclude) {
  for (auto& r : exclude) if (r.begin <= offset && offset < r.end) return true;
  return false;
}

// The first ERROR or MISSING node strictly inside `error`, or a null node.
TSNode findNestedError(TSNode error) {
  for (uint32_t i = 0; i < ts_node_child_count(error); ++i) {
    TSNode c = ts_node_child(error, i);
    if (isType(c, "ERROR") || ts_node_is_missing(c)) {
      TSNode deeper = isType(c, "ERROR") ? findNestedError(c) : TSNode{};
      return ts_node_is_null(deeper) ? c : deeper;
    }
    if (ts_node_has_error(c)) {
      TSNode deeper = findNestedError(c);
      if (!ts_node_is_null(deeper)) return deeper;
    }
  }
  return TSNode{};
}

// Calls f(offset, char) for each byte of [begin, end) outside comments and one-line string literals
// (a comment's ending newline included) until f returns false. Enough to follow brackets.
template <typename F>
void forEachCodeByte(std::string_view text, uint32_t begin, uint32_t end, F f) {
  for (uint32_t i = begin; i < end && i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      while (i < end && i < text.size() && text[i] != '\n') ++i;
      if (i >= end || i >= text.size()) return;
    } else if (c == '"' || c == '\'') {
      char q = c;
      for (++i; i < end && i < text.size() && text[i] != q && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (!f(i, text[i])) return;
  }
}

// A line inside brackets that starts left of the line that opened them, near `line`: CPython reads
// it, tree-sitter-python does not (its indentation scanner ends the block there).
bool dedentedContinuationNear(const syntax::Document& doc, uint32_t line) {
  std::string_view text = doc.text();
  auto& lines = doc.lines();
  int depth = 0;
  uint32_t openIndent = 0;
  bool dedented = false, found = false;
  auto indentOf = [&](uint32_t l) {
    uint32_t p = lines.lineStart(l), q = p;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    return q - p;
  };
  uint32_t first = line >= 3 ? line - 3 : 0, last = line + 3;
  forEachCodeByte(text, 0, static_cast<uint32_t>(text.size()), [&](uint32_t i, char c) {
    if (c == '(' || c == '[' || c == '{') {
      if (depth++ == 0) openIndent = indentOf(lines.lineOf(i));
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      // Only brackets that do close: an unclosed one also leaves the next lines "inside" it.
      if (--depth == 0 && dedented) return !(found = true);
    } else if (c == '\n') {
      uint32_t next = lines.lineOf(i) + 1;
      if (depth > 0 && next >= first && next <= last && indentOf(next) < openIndent) dedented = true;
      if (next > (depth > 0 ? last + 50 : last)) return false;
    }
    return true;
  });
  return found;
}

// Iterative depth-first search for the first error node, descending only into subtrees that hold one.
TSNode findError(TSNode scope, ByteRange where, const std::vector<ByteRange>& exclude) {
  TSTreeCursor cursor = ts_tree_cursor_new(scope);
  TSNode found{};
  bool done = false;
  while (!done) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    bool inside = ts_node_end_byte(n) > where.begin && ts_node_start_byte(n) < where.end;
    if (inside && (isType(n, "ERROR") || ts_node_is_missing(n)) && !excluded(ts_node_start_byte(n), exclude)) {
      found = n;
      // An error that swallowed much of the file (the imports too) says little where it starts: the
      // first error nested in it is nearer the cause.
      if (isType(n, "ERROR")) {
        TSNode inner = findNestedError(n);
        if (!ts_node_is_null(inner)) found = inner;
      }
      break;
    }
    if (inside && ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return found;
}

// The statement that holds `n` (its nearest ancestor directly inside a block or the module).
TSNode enclosingStatement(TSNode n) {
  TSNode cur = n;
  while (true) {
    TSNode parent = ts_node_parent(cur);
    if (ts_node_is_null(parent)) return cur;
    std::string_view t = typeOf(parent);
    if (t == "block" || t == "module") return cur;
    cur = parent;
  }
}

// An opening bracket in [begin, end) that is never closed, skipping strings and comments.
std::optional<uint32_t> unclosedBracket(std::string_view text, uint32_t begin, uint32_t end) {
  std::vector<uint32_t> stack;
  forEachCodeByte(text, begin, end, [&](uint32_t i, char c) {
    if (c == '(' || c == '[' || c == '{') stack.push_back(i);
    else if ((c == ')' || c == ']' || c == '}') && !stack.empty()) stack.pop_back();
    return true;
  });
  if (stack.empty()) return std::nullopt;
  return stack.front();
}

}  // namespace

std::optional<diag::Diagnostic> firstSyntaxError(const syntax::Document& doc, TSNode scope, ByteRange where,
                                                 const std::vector<ByteRange>& exclude) {
  TSNode err = findError(scope, where, exclude);
  if (ts_node_is_null(err)) return std::nullopt;
  const std::string& text = doc.text();
  TSNode stmt = enclosingStatement(err);
  uint32_t from = std::max(ts_node_start_byte(stmt), where.begin);
  uint32_t to = std::max(ts_node_end_byte(err), ts_node_end_byte(stmt));
  // A dedented line inside brackets makes tree-sitter's error look like an unclosed bracket.
  const bool dedented = dedentedContinuationNear(doc, doc.lines().lineOf(ts_node_start_byte(err)));
  if (auto open = dedented ? std::nullopt : unclosedBracket(text, from, std::min(to, where.end))) {
    std::string br(1, text[*open]);
    return diag::make(diag::Code::TVS001, {*open, *open + 1}, "'" + br + "' was never closed");
  }
  ByteRange r = rangeOf(err);
  if (ts_node_is_missing(err)) {
    return diag::make(diag::Code::TVS001, {r.begin, r.begin + 1 > text.size() ? r.begin : r.begin + 1},
                      std::string("expected '") + ts_node_type(err) + "'");
  }
  // Report an ERROR node on its first line only: it may swallow the rest of the file.
  uint32_t lineEnd = doc.lines().lineEnd(doc.lines().lineOf(r.begin));
  if (r.end > lineEnd) r.end = std::max(lineEnd, r.begin + 1);
  std::string snippet(doc.slice(r));
  if (snippet.size() > 40) {
    // Cut at a character boundary: never inside a multi-byte UTF-8 sequence.
    size_t cut = 40;
    while (cut > 0 && (static_cast<unsigned char>(snippet[cut]) & 0xC0) == 0x80) --cut;
    snippet = snippet.substr(0, cut) + "...";
  }
  std::string message = "invalid syntax" + (snippet.empty() ? std::string() : ": `" + snippet + "`");
  if (dedented)
    message += " (a line inside brackets starts left of the line that opened them: CPython accepts that, but "
               "tvms's parser (tree-sitter-python) does not; indent it further)";
  return diag::make(diag::Code::TVS001, r, message);
}

namespace {
constexpr const char* kExpectedBlock = "expected an indented block after ";
constexpr const char* kDefinitionOnLine = " definition on line ";
}  // namespace

std::optional<diag::Diagnostic> emptyBodyError(const syntax::Document& doc, TSNode definition, const char* what) {
  TSNode body = ts_node_child_by_field_name(definition, "body", 4);
  if (ts_node_is_null(body)) return std::nullopt;
  for (TSNode n : namedChildren(body))
    if (!isType(n, "comment")) return std::nullopt;
  // The tree may be one of recovery's partial trees (a class header without its functions): the text
  // decides. A body is the first line after the definition that is neither blank nor a comment, when
  // it is indented deeper than the definition.
  uint32_t end = ts_node_end_byte(definition);
  auto next = doc.lines().nextCodeLineIndent(doc.lines().lineOf(end > 0 ? end - 1 : 0));
  if (next && *next > ts_node_start_point(definition).column) return std::nullopt;
  uint32_t begin = ts_node_start_byte(definition), line = doc.lines().lineOf(begin);
  size_t eol = doc.text().find_first_of("\r\n", begin);  // the definition's first line
  ByteRange r{begin, static_cast<uint32_t>(std::min<size_t>(eol == std::string::npos ? doc.text().size() : eol, ts_node_end_byte(definition)))};
  if (r.end <= r.begin) r.end = r.begin + 1;
  return diag::make(diag::Code::TVS001, r, std::string(kExpectedBlock) + what + kDefinitionOnLine + std::to_string(line + 1));
}

void renumberEmptyBodyErrors(std::vector<diag::Diagnostic>& ds, const syntax::Document& doc) {
  for (auto& d : ds) {
    if (d.code != diag::Code::TVS001 || !d.message.starts_with(kExpectedBlock)) continue;
    size_t at = d.message.find(kDefinitionOnLine);
    if (at == std::string::npos) continue;
    d.message = d.message.substr(0, at + std::strlen(kDefinitionOnLine)) + std::to_string(doc.lines().lineOf(d.range.begin) + 1);
  }
}

diag::Diagnostic indentationError(const syntax::Document& doc, uint32_t at, uint32_t blockColumn) {
  auto& lines = doc.lines();
  uint32_t line = lines.lineOf(at);
  uint32_t column = at - lines.lineStart(line);
  ByteRange r{at, std::max(at + 1, lines.lineEnd(line))};
  return diag::make(diag::Code::TVS001, r, column > blockColumn ? "unexpected indent" : "unindent does not match any outer indentation level");
}

}  // namespace tvms::frontend
