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
template <typename OnToken>
void collect(const syntax::Document& doc, syntax::ByteRange range, OnToken&& onToken) {
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
      onToken(Token{text, ends, bracket});
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

// The layout's tokens of `range` in order, handed to `sink` as they are found, with the trailing
// commas that are layout left out. A comma inside brackets is held back (with any comments after
// it) until the next token says whether it is layout, so nothing is stored but the open brackets.
template <typename Sink>
void emitLayoutTokens(const syntax::Document& doc, syntax::ByteRange range, Sink&& sink) {
  struct Open {
    bool commaIsLayout;
    int commas = 0;
  };
  std::vector<Open> open;
  Token previous;            // the last token that is not a comment
  bool havePrevious = false;
  std::vector<std::string_view> held;  // a comma inside brackets, then the comments after it
  auto release = [&](bool dropComma) {
    for (size_t i = dropComma ? 1 : 0; i < held.size(); ++i) sink(held[i]);
    held.clear();
  };
  collect(doc, range, [&](const Token& t) {
    bool comment = t.text.rfind("#", 0) == 0;
    if (comment) {
      if (held.empty()) sink(t.text);
      else held.push_back(t.text);
      return;
    }
    if (t.bracket && (t.text == "(" || t.text == "[" || t.text == "{")) {
      release(false);
      bool afterExpression = havePrevious && previous.endsExpression;
      // A call's or definition's `(`, a list's `[`, any `{`: a trailing comma there is layout.
      open.push_back({t.text == "{" || (t.text == "(" && afterExpression) || (t.text == "[" && !afterExpression)});
      sink(t.text);
    } else if (t.bracket && !open.empty()) {
      Open o = open.back();
      open.pop_back();
      release(!held.empty() && (o.commaIsLayout || o.commas >= 2));  // `f(a, b,)`: the last comma is layout
      sink(t.text);
    } else if (t.text == "," && !t.bracket && !open.empty()) {
      release(false);
      ++open.back().commas;
      held.push_back(t.text);
    } else {
      release(false);
      sink(t.text);
    }
    previous = t;
    havePrevious = true;
  });
  release(false);
}

}  // namespace

std::vector<std::string_view> layoutTokens(const syntax::Document& doc, syntax::ByteRange range) {
  std::vector<std::string_view> out;
  emitLayoutTokens(doc, range, [&](std::string_view t) { out.push_back(t); });
  return out;
}

TextDigest layoutTokenDigest(const syntax::Document& doc, syntax::ByteRange range) {
  TextDigest d;
  emitLayoutTokens(doc, range, [&](std::string_view t) { d.add(t); });
  return d;
}

void TextDigest::add(std::string_view piece) {
  // FNV-1a, 64 bits, each piece followed by 0xFF (a byte no UTF-8 text holds), so ("ab", "c") and
  // ("a", "bc") differ; with the count and the total length beside it.
  for (unsigned char c : piece) hash = (hash ^ c) * 1099511628211ull;
  hash = (hash ^ 0xFFu) * 1099511628211ull;
  ++count;
  bytes += piece.size();
}

}  // namespace tvms::format
