#include "compiler/format/token_check.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include <tree_sitter/api.h>

#include "compiler/frontend/cst.h"

namespace tvms::format {

namespace {

struct Token {
  std::string_view text;  // into the document's text (a large module has a million tokens: no copies)
  bool endsExpression = false;  // a name, a string or a closing bracket: a `(` or `[` after it is a call or subscript
  bool bracket = false;         // a bracket token, not a string or comment that happens to read ")"
};

bool overlaps(TSNode n, syntax::ByteRange range) { return ts_node_end_byte(n) > range.begin && ts_node_start_byte(n) < range.end; }

// A statement's start in the shape: a byte no token holds, then its depth in blocks.
std::string_view statementMarker(int blocks) {
  static const auto markers = [] {
    std::vector<std::string> m(256);
    for (int d = 0; d < 256; ++d) m[d] = std::string("\x01") + static_cast<char>(d);
    return m;
  }();
  return markers[static_cast<size_t>(std::clamp(blocks, 0, 255))];
}

// The leaves (and whole strings) within `range` of the tree at `root`, in order, and where each
// statement and clause starts (`onStatement(blocks)`: how many blocks hold it). A cursor walks the
// tree: ts_node_child(i) scans the siblings before i, which made a class of thousands of functions
// quadratic.
template <typename OnToken, typename OnStatement>
void collect(const syntax::Document& doc, TSNode root, syntax::ByteRange range, OnToken&& onToken, OnStatement&& onStatement) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  // For each node above the current one: whether its children are statements (a module or a block).
  std::vector<bool> holdsStatements;
  int blocks = 0;  // how many of them are blocks
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    std::string_view type = ts_node_type(n);
    bool inside = overlaps(n, range) && type != "line_continuation";
    bool statement = ts_node_is_named(n) && type != "comment" &&
                     ((!holdsStatements.empty() && holdsStatements.back()) || frontend::isClauseType(type));
    if (inside && statement && ts_node_start_byte(n) >= range.begin) onStatement(blocks);
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
    // Down to the first child that reaches into the range: a part between two functions of a class of
    // thousands is found without walking the functions before it.
    if (inside && ts_tree_cursor_goto_first_child_for_byte(&cursor, range.begin) >= 0) {
      holdsStatements.push_back(type == "module" || type == "block");
      blocks += type == "block";
      continue;
    }
    // The next sibling that starts before the range's end (none after it can), or up until there is one.
    while (!ts_tree_cursor_goto_next_sibling(&cursor) || ts_node_start_byte(ts_tree_cursor_current_node(&cursor)) >= range.end) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return;
      }
      holdsStatements.pop_back();
      blocks -= std::string_view(ts_node_type(ts_tree_cursor_current_node(&cursor))) == "block";
    }
  }
}

enum class Piece { Token, Comment, Statement };

// The layout's tokens of `range` in order, handed to `sink` as they are found, with the trailing
// commas that are layout left out, and the statements' starts. A comma inside brackets is held back
// (with any comments after it) until the next token says whether it is layout, so nothing is stored
// but the open brackets. Read by function, each function's own tree is walked and freed in turn.
template <typename Sink>
void emitLayoutTokens(const syntax::Document& doc, syntax::ByteRange range, Sink&& sink) {
  struct Open {
    bool commaIsLayout;
    int commas = 0;
  };
  std::vector<Open> open;
  Token previous;            // the last token that is not a comment
  bool havePrevious = false;
  std::vector<std::pair<std::string_view, Piece>> held;  // a comma inside brackets, then what came after it
  auto release = [&](bool dropComma) {
    for (size_t i = dropComma ? 1 : 0; i < held.size(); ++i) sink(held[i].first, held[i].second);
    held.clear();
  };
  auto pass = [&](std::string_view text, Piece piece) {
    if (held.empty()) sink(text, piece);
    else held.emplace_back(text, piece);
  };
  auto onToken = [&](const Token& t) {
    if (t.text.rfind("#", 0) == 0) {
      pass(t.text, Piece::Comment);
      return;
    }
    if (t.bracket && (t.text == "(" || t.text == "[" || t.text == "{")) {
      release(false);
      bool afterExpression = havePrevious && previous.endsExpression;
      // A call's or definition's `(`, a list's `[`, any `{`: a trailing comma there is layout.
      open.push_back({t.text == "{" || (t.text == "(" && afterExpression) || (t.text == "[" && !afterExpression)});
      sink(t.text, Piece::Token);
    } else if (t.bracket && !open.empty()) {
      Open o = open.back();
      open.pop_back();
      release(!held.empty() && (o.commaIsLayout || o.commas >= 2));  // `f(a, b,)`: the last comma is layout
      sink(t.text, Piece::Token);
    } else if (t.text == "," && !t.bracket && !open.empty()) {
      release(false);
      ++open.back().commas;
      held.emplace_back(t.text, Piece::Token);
    } else {
      release(false);
      sink(t.text, Piece::Token);
    }
    previous = t;
    havePrevious = true;
  };
  auto onStatement = [&](int blocks) { pass(statementMarker(blocks), Piece::Statement); };
  doc.visitTreesIn(range, [&](const syntax::Document::TreePart& p) { collect(doc, p.root, p.part, onToken, onStatement); });
  release(false);
}

}  // namespace

std::vector<std::string_view> layoutTokens(const syntax::Document& doc, syntax::ByteRange range) {
  std::vector<std::string_view> out;
  emitLayoutTokens(doc, range, [&](std::string_view t, Piece p) {
    if (p != Piece::Statement) out.push_back(t);
  });
  return out;
}

LayoutKept layoutKept(const syntax::Document& doc, syntax::ByteRange range) {
  LayoutKept k;
  emitLayoutTokens(doc, range, [&](std::string_view t, Piece p) {
    if (p != Piece::Statement) k.tokens.add(t);
    if (p != Piece::Comment) k.shape.add(t);
    if (p == Piece::Comment) k.comments.add(t);
  });
  return k;
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
