#include "compiler/format/token_check.h"

#include <string_view>

#include <tree_sitter/api.h>

namespace tvms::format {

namespace {

struct Token {
  std::string text;
  bool endsExpression = false;  // a name, a string or a closing bracket: a `(` or `[` after it is a call or subscript
  bool bracket = false;         // a bracket token, not a string or comment that happens to read ")"
};

void collect(const syntax::Document& doc, TSNode n, syntax::ByteRange range, std::vector<Token>& out) {
  if (ts_node_end_byte(n) <= range.begin || ts_node_start_byte(n) >= range.end) return;
  std::string_view type = ts_node_type(n);
  if (type == "line_continuation") return;
  uint32_t count = ts_node_child_count(n);
  if (count == 0 || type == "string") {
    std::string text(doc.nodeText(n));
    if (type == "comment")
      while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    bool isNamed = ts_node_is_named(n);
    bool bracket = !isNamed && (text == "(" || text == ")" || text == "[" || text == "]" || text == "{" || text == "}");
    bool ends = (isNamed && (type == "identifier" || type == "string")) || (bracket && (text == ")" || text == "]"));
    if (type == "comment") ends = false;
    out.push_back({std::move(text), ends, bracket});
    return;
  }
  for (uint32_t i = 0; i < count; ++i) collect(doc, ts_node_child(n, i), range, out);
}

}  // namespace

std::vector<std::string> layoutTokens(const syntax::Document& doc, syntax::ByteRange range) {
  std::vector<Token> tokens;
  collect(doc, doc.root(), range, tokens);
  struct Open {
    bool commaIsLayout;
    int commas = 0;
  };
  std::vector<Open> open;
  std::vector<std::string> out;
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
