#include "compiler/format/token_check.h"

#include <string_view>

#include <tree_sitter/api.h>

namespace tvms::format {

namespace {

struct Token {
  std::string_view text;  // into the document's text (a large module has a million tokens: no copies)
  bool endsExpression = false;  // a name, a string or a closing bracket: a `(` or `[` after it is a call or subscript
  bool bracket = false;         // a bracket token, not a string or comment that happens to read ")"
};

bool overlaps(TSNode n, syntax::ByteRange range) { return ts_node_end_byte(n) > range.begin && ts_node_start_byte(n) < range.end; }

// The leaves (and whole strings) within `range`, in order. A cursor walks the tree: ts_node_child(i)
// scans the siblings before i, which made a class of thousands of functions quadratic.
void collect(const syntax::Document& doc, syntax::ByteRange range, std::vector<Token>& out) {
  TSTreeCursor cursor = ts_tree_cursor_new(doc.root());
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    std::string_view type = ts_node_type(n);
    bool inside = overlaps(n, range) && type != "line_continuation";
    if (inside && (ts_node_child_count(n) == 0 || type == "string")) {
      std::string_view text = doc.nodeText(n);
      if (type == "comment")
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
      bool isNamed = ts_node_is_named(n);
      bool bracket = !isNamed && (text == "(" || text == ")" || text == "[" || text == "]" || text == "{" || text == "}");
      bool ends = (isNamed && (type == "identifier" || type == "string")) || (bracket && (text == ")" || text == "]"));
      if (type == "comment") ends = false;
      out.push_back({text, ends, bracket});
      inside = false;  // a token: its children (a string's parts) are not looked at
    }
    if (inside && ts_tree_cursor_goto_first_child(&cursor)) continue;
    // Next sibling, or up until there is one.
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return;
      }
    }
  }
}

}  // namespace

std::vector<std::string_view> layoutTokens(const syntax::Document& doc, syntax::ByteRange range) {
  std::vector<Token> tokens;
  collect(doc, range, tokens);
  struct Open {
    bool commaIsLayout;
    int commas = 0;
  };
  std::vector<Open> open;
  std::vector<std::string_view> out;
  out.reserve(tokens.size());
  const Token* previous = nullptr;  // the last token that is not a comment
  size_t previousIndex = 0;         // its position in `out`
  for (auto& t : tokens) {
    if (t.bracket && (t.text == "(" || t.text == "[" || t.text == "{")) {
      bool afterExpression = previous && previous->endsExpression;
      // A call's or definition's `(`, a list's `[`, any `{`: a trailing comma there is layout.
      open.push_back({t.text == "{" || (t.text == "(" && afterExpression) || (t.text == "[" && !afterExpression)});
    } else if (t.bracket && !open.empty()) {
      Open o = open.back();
      open.pop_back();
      if (previous && previous->text == "," && !previous->bracket && (o.commaIsLayout || o.commas >= 2))
        out.erase(out.begin() + static_cast<long>(previousIndex));
    } else if (t.text == "," && !open.empty()) {
      ++open.back().commas;
    }
    out.push_back(t.text);
    if (t.text.rfind("#", 0) != 0) {
      previous = &t;
      previousIndex = out.size() - 1;
    }
  }
  return out;
}

}  // namespace tvms::format
