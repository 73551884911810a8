#pragma once
// A small layout engine for black-style line breaking. A statement is a Doc: text and bracketed
// lists. Rendering keeps a Doc on one line when it fits; otherwise it breaks one bracket (the
// Concat's preferred one first): its items go on one indented line when they fit there ("hug"),
// else one per line with a trailing comma (none after a lone item unless written, or where a comma
// would make a tuple: trailingCommaWhenBroken). An item carrying a comment always forces that.
#include <string>
#include <vector>

namespace tvms::ir {

struct Doc {
  enum class Kind { Text, Concat, Bracket };
  Kind kind = Kind::Text;
  std::string text;                   // Text
  std::vector<Doc> parts;             // Concat: the parts; Bracket: the items
  std::string open, close;            // Bracket
  std::vector<std::string> comments;  // Bracket: an end-of-line comment per item ("" = none)
  std::vector<std::vector<std::string>> leading;  // Bracket: own-line comments before each item
  bool singleTrailingComma = false;   // Bracket: a one-item tuple keeps its comma when flat: "(x,)"
  bool forceBreak = false;            // Bracket: one item per line (the source's "magic trailing comma")
  // Bracket: whether a list broken one item per line ends with a comma. Not for a parenthesized
  // expression, a comprehension or a one-index subscript, where a comma would make a tuple.
  bool trailingCommaWhenBroken = true;
  std::vector<std::string> closing;   // Bracket: own-line comments after the last item
  bool breakLastFirst = true;         // Concat: which bracket to try breaking first

  static Doc txt(std::string s) { Doc d; d.text = std::move(s); return d; }
  static Doc cat(std::vector<Doc> parts, bool breakLastFirst = true) {
    Doc d; d.kind = Kind::Concat; d.parts = std::move(parts); d.breakLastFirst = breakLastFirst; return d;
  }
  static Doc bracket(std::string open, std::vector<Doc> items, std::string close) {
    Doc d; d.kind = Kind::Bracket; d.open = std::move(open); d.parts = std::move(items); d.close = std::move(close);
    return d;
  }
};

// Renders at column `indent` (the first line is not indented by this call). Lines after the first are
// indented with spaces. Width counts columns in bytes.
std::string renderDoc(const Doc& d, int indent, int width);
// The Doc on one line, ignoring comments.
std::string flatDoc(const Doc& d);

}  // namespace tvms::ir
