#include "compiler/frontend/syntax_errors.h"

namespace tvms::frontend {

namespace {

bool excluded(uint32_t offset, const std::vector<ByteRange>& exclude) {
  for (auto& r : exclude) if (r.begin <= offset && offset < r.end) return true;
  return false;
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
  for (uint32_t i = begin; i < end && i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      while (i < end && text[i] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      char q = c;
      for (++i; i < end && text[i] != q && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      stack.push_back(i);
    } else if (c == ')' || c == ']' || c == '}') {
      if (!stack.empty()) stack.pop_back();
    }
  }
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
  if (auto open = unclosedBracket(text, from, std::min(to, where.end))) {
    std::string br(1, text[*open]);
    return diag::make("TVS001", {*open, *open + 1}, "'" + br + "' was never closed");
  }
  ByteRange r = rangeOf(err);
  if (ts_node_is_missing(err)) {
    return diag::make("TVS001", {r.begin, r.begin + 1 > text.size() ? r.begin : r.begin + 1},
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
  return diag::make("TVS001", r, "invalid syntax" + (snippet.empty() ? std::string() : ": `" + snippet + "`"));
}

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
  return diag::make("TVS001", r, std::string("expected an indented block after ") + what + " definition on line " + std::to_string(line + 1));
}

}  // namespace tvms::frontend
