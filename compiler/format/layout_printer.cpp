#include "compiler/format/layout_printer.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

#include "compiler/frontend/cst.h"
#include "compiler/frontend/frontend.h"
#include "compiler/ir/doc.h"

namespace tvms::format {

namespace {

using frontend::typeOf;
using ir::Doc;

bool isComment(TSNode n) { return typeOf(n) == "comment"; }

bool isFmtSkip(std::string_view comment) { return fmtSwitch(comment) == FmtSwitch::Skip; }
bool isFmtOff(std::string_view comment) { return fmtSwitch(comment) == FmtSwitch::Off; }
bool isFmtOn(std::string_view comment) { return fmtSwitch(comment) == FmtSwitch::On; }

bool isContinuation(TSNode n) { return typeOf(n) == "line_continuation"; }
bool isToken(TSNode n, std::string_view text) { return !ts_node_is_named(n) && typeOf(n) == text; }

bool isDefinition(TSNode n) {
  auto t = typeOf(n);
  return t == "function_definition" || t == "class_definition" || t == "decorated_definition";
}

// Statements with a header, a `:` and a body (and the clauses that continue one).
bool isCompound(TSNode n) {
  static const std::set<std::string_view> kinds = {
      "function_definition", "class_definition", "if_statement",  "for_statement",        "while_statement",
      "with_statement",      "try_statement",    "match_statement", "elif_clause",          "else_clause",
      "except_clause",       "except_group_clause", "finally_clause", "case_clause"};
  return kinds.count(typeOf(n)) > 0;
}

bool isClause(TSNode n) { return frontend::isClauseType(typeOf(n)); }

// Bracketed lists whose first and last children are the brackets.
bool isBracketList(TSNode n) {
  static const std::set<std::string_view> kinds = {
      "argument_list", "parameters", "tuple", "list", "dictionary", "set", "parenthesized_expression",
      "generator_expression", "list_comprehension", "set_comprehension", "dictionary_comprehension",
      "tuple_pattern", "list_pattern", "type_parameter"};
  return kinds.count(typeOf(n)) > 0;
}

bool isComprehension(TSNode n) {
  auto t = typeOf(n);
  return t == "generator_expression" || t == "list_comprehension" || t == "set_comprehension" ||
         t == "dictionary_comprehension";
}

// black writes `x**2` when both operands are simple (names, numbers, attribute chains, their negation).
bool simplePowerOperand(TSNode n) {
  auto t = typeOf(n);
  if (t == "identifier" || t == "integer" || t == "float") return true;
  if (t == "attribute") return simplePowerOperand(frontend::field(n, "object"));
  if (t == "unary_operator") return simplePowerOperand(frontend::field(n, "argument"));
  return false;
}

std::vector<TSNode> childrenOf(TSNode n) {
  std::vector<TSNode> out;
  uint32_t count = ts_node_child_count(n);
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) out.push_back(ts_node_child(n, i));
  return out;
}

std::string spaces(int n) { return std::string(static_cast<size_t>(std::max(n, 0)), ' '); }

// The space black puts between two neighbouring children `a` and `b` of `parent`.
std::string_view gap(TSNode parent, TSNode a, TSNode b) {
  const std::string_view p = typeOf(parent), at = typeOf(a), bt = typeOf(b);
  const bool aToken = !ts_node_is_named(a), bToken = !ts_node_is_named(b);
  if (bToken && (bt == "," || bt == ")" || bt == "]" || bt == "}" || bt == ":" || bt == "." || bt == ";")) return "";
  if (aToken && (at == "(" || at == "[" || at == "{" || at == ".")) return "";
  if (p == "decorator" && aToken && at == "@") return "";
  if ((p == "keyword_argument" || p == "default_parameter") && ((aToken && at == "=") || (bToken && bt == "="))) return "";
  if (p == "unary_operator" && aToken) return "";
  if ((p == "list_splat" || p == "dictionary_splat" || p == "list_splat_pattern" || p == "dictionary_splat_pattern" ||
       p == "parenthesized_list_splat" || p == "splat_type" || p == "splat_pattern") && aToken)
    return "";
  if (p == "slice" || p == "dotted_name" || p == "relative_import" || p == "import_prefix") return "";
  if ((p == "function_definition" || p == "class_definition") &&
      (bt == "parameters" || bt == "argument_list" || bt == "type_parameter"))
    return "";
  if (p == "generic_type" && bt == "type_parameter") return "";
  if (p == "binary_operator" && ((aToken && at == "**") || (bToken && bt == "**")) &&
      simplePowerOperand(frontend::field(parent, "left")) && simplePowerOperand(frontend::field(parent, "right")))
    return "";
  return " ";
}

// Adjacent texts as one, so the layout engine sees only the brackets it may break.
Doc concat(std::vector<Doc> parts, bool breakLastFirst = true) {
  std::vector<Doc> merged;
  for (auto& d : parts) {
    if (d.kind == Doc::Kind::Text && !merged.empty() && merged.back().kind == Doc::Kind::Text) merged.back().text += d.text;
    else merged.push_back(std::move(d));
  }
  if (merged.size() == 1) return std::move(merged[0]);
  return Doc::cat(std::move(merged), breakLastFirst);
}

class RegionLayout {
 public:
  RegionLayout(const syntax::Document& doc, int width) : doc_(doc), width_(width) {}

  std::string run(TSNode region, syntax::ByteRange lines, int indent) {
    if (ts_node_has_error(region)) throw LayoutRefused("it has a syntax error");
    lastSourceLine_ = lineOf(ts_node_start_byte(region));
    afterHeader_ = true;
    auto hoisted = statement(region, indent);
    for (TSNode c : hoisted) ownLineComment(c, indent, 2);
    // Comments tree-sitter put after the region's node but on its last line stay at that line's end.
    // Read by function, the functions' comments were checked as each was laid out; the skeleton holds
    // the rest (its functions' bodies are blank).
    auto comments = doc_.readsByFunction() ? frontend::commentNodesUnder(doc_, doc_.root(), lines) : frontend::commentNodesIn(doc_, lines);
    for (auto& c : comments) {
      if (emitted_.count(c.range.begin)) continue;
      if (c.range.begin >= ts_node_end_byte(region) && lineOf(c.range.begin) == lineOf(ts_node_end_byte(region) - 1) &&
          !lines_.empty()) {
        lines_.back() += "  " + c.text;
        continue;
      }
      throw LayoutRefused("a comment at line " + std::to_string(lineOf(c.range.begin) + 1) + " could not be placed");
    }
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (i) out += '\n';
      out += lines_[i];
    }
    return out;
  }

 private:
  uint32_t lineOf(uint32_t offset) const { return doc_.lines().lineOf(offset); }
  uint32_t startLine(TSNode n) const { return lineOf(ts_node_start_byte(n)); }
  uint32_t endLine(TSNode n) const { return lineOf(std::max(ts_node_end_byte(n), 1u) - 1); }
  uint32_t column(TSNode n) const { return ts_node_start_point(n).column; }
  std::string text(TSNode n) const { return std::string(doc_.nodeText(n)); }

  std::string commentText(TSNode c) {
    emitted_.insert(ts_node_start_byte(c));
    std::string t = text(c);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.pop_back();
    return t;
  }

  void trailingComment(TSNode c) {
    lines_.back() += "  " + commentText(c);
    lastSourceLine_ = startLine(c);
  }

  // Blank lines before an element: as many as the source had, at most `maxBlank`, none right after a
  // header, and at least `atLeast`.
  void blankLinesBefore(TSNode element, int maxBlank, int atLeast) {
    int written = static_cast<int>(startLine(element)) - static_cast<int>(lastSourceLine_) - 1;
    int blank = std::clamp(written, 0, maxBlank);
    if (afterHeader_) blank = 0;
    else blank = std::max(blank, atLeast);
    for (int i = 0; i < blank; ++i) lines_.emplace_back();
    afterHeader_ = false;
  }

  void ownLineComment(TSNode c, int indent, int maxBlank, int atLeast = 0) {
    blankLinesBefore(c, maxBlank, atLeast);
    lines_.push_back(spaces(indent) + commentText(c));
    lastSourceLine_ = startLine(c);
    prevWasComment_ = true;
    prevWasDefinition_ = false;
  }

  void emitDoc(const Doc& d, int indent, uint32_t sourceEndLine) {
    std::string rendered = spaces(indent) + ir::renderDoc(d, indent, width_);
    size_t pos = 0;
    while (true) {
      size_t nl = rendered.find('\n', pos);
      lines_.push_back(rendered.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    for (auto& c : trailing_) lines_.back() += "  " + c;
    trailing_.clear();
    lastSourceLine_ = sourceEndLine;
    prevWasComment_ = false;
    prevWasDefinition_ = false;
  }

  // ---- statements

  // A statement as written (`# fmt: skip`, `# fmt: off`): its first line moved to `indent`, the rest
  // kept byte for byte (inside brackets or a string, indentation is free or part of the value; a
  // compound statement's body keeps its own, which the re-parse checks).
  void asWritten(TSNode s, int indent) {
    std::string_view written = doc_.nodeText(s);
    size_t nl = written.find('\n');
    std::string first(written.substr(0, nl));
    if (!first.empty() && first.back() == '\r') first.pop_back();
    lines_.push_back(spaces(indent) + first);
    while (nl != std::string_view::npos) {
      size_t next = written.find('\n', nl + 1);
      std::string line(written.substr(nl + 1, next == std::string_view::npos ? std::string_view::npos : next - nl - 1));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines_.push_back(std::move(line));
      nl = next;
    }
    for (auto& c : frontend::commentNodesIn(doc_, syntax::rangeOf(s))) emitted_.insert(c.range.begin);
    lastSourceLine_ = endLine(s);
    prevWasComment_ = false;
    prevWasDefinition_ = false;
  }

  // Lays out a statement; returns the own-line comments at its end that belong to an outer level.
  std::vector<TSNode> statement(TSNode s, int indent) {
    if (doc_.readAlone(s)) {
      functionReadAlone(s, indent);
      return {};
    }
    if (typeOf(s) == "decorated_definition") return decorated(s, indent);
    if (isCompound(s)) return compound(s, indent);
    emitDoc(expr(s), indent, endLine(s));
    return {};
  }

  // Read by function, a function of a column-0 class is blank in the skeleton: it is laid out from its
  // own tree (parsed ahead by the helpers), whose comments are checked here, and the tree freed. Its
  // range ends with its last body line, so no comment of it belongs to an outer level.
  void functionReadAlone(TSNode skeletonNode, int indent) {
    TSNode own = doc_.definitionAt(skeletonNode);
    if (ts_node_has_error(own)) throw LayoutRefused("a syntax error at line " + std::to_string(startLine(own) + 1));
    if (!statement(own, indent).empty())
      throw LayoutRefused("a comment after the function at line " + std::to_string(startLine(own) + 1) + " could not be placed");
    for (auto& c : frontend::commentNodesUnder(doc_, own, syntax::rangeOf(own)))
      if (!emitted_.count(c.range.begin))
        throw LayoutRefused("a comment at line " + std::to_string(lineOf(c.range.begin) + 1) + " could not be placed");
    doc_.doneWith(skeletonNode);
  }

  // Decorators one per line, then the definition; no blank lines inside.
  std::vector<TSNode> decorated(TSNode s, int indent) {
    std::vector<TSNode> hoisted;
    for (TSNode c : childrenOf(s)) {
      if (isContinuation(c)) continue;
      if (isComment(c)) {
        if (startLine(c) == lastSourceLine_) trailingComment(c);
        else ownLineComment(c, indent, 0);
      } else if (typeOf(c) == "decorator") {
        emitDoc(expr(c), indent, endLine(c));
      } else {
        hoisted = statement(c, indent);
      }
    }
    return hoisted;
  }

  // A header (up to its `:`), its body, and the clauses that follow (elif/else/except/finally).
  std::vector<TSNode> compound(TSNode s, int indent) {
    std::vector<TSNode> header, pending;
    bool headerDone = false, bodyDone = false;
    const bool def = typeOf(s) == "function_definition";
    for (TSNode c : childrenOf(s)) {
      if (isContinuation(c)) continue;
      if (!headerDone && isToken(c, ":") && !header.empty()) {
        header.push_back(c);
        emitDoc(concatChildren(s, header, /*breakLastFirst=*/!def), indent, startLine(c));
        afterHeader_ = true;
        headerDone = true;
        continue;
      }
      if (typeOf(c) == "block") {
        pending = block(c, indent + 4);
        bodyDone = true;
        continue;
      }
      if (isClause(c)) {
        for (TSNode h : pending) ownLineComment(h, indent, 1);
        pending = compound(c, indent);
        continue;
      }
      if (isComment(c)) {
        if (!headerDone) throw LayoutRefused("a comment inside the header at line " + std::to_string(startLine(c) + 1));
        if (startLine(c) == lastSourceLine_) {
          trailingComment(c);
        } else {
          // Before the body it is the body's; after it (before an `else:`), the body's only when
          // written right of the statement's column.
          bool inBody = !bodyDone || column(c) > column(s);
          ownLineComment(c, inBody ? indent + 4 : indent, 1);
        }
        continue;
      }
      if (headerDone) throw LayoutRefused(std::string("unexpected ") + std::string(typeOf(c)) + " after a header");
      header.push_back(c);
    }
    if (!headerDone) throw LayoutRefused(std::string("a ") + std::string(typeOf(s)) + " without its `:`");
    prevWasDefinition_ = isDefinition(s);
    return pending;
  }

  // Whether the own-line comments from `i` on run, without blank lines between them, into a definition.
  bool leadsIntoDefinition(const std::vector<TSNode>& children, size_t i) {
    uint32_t line = startLine(children[i]);
    for (size_t j = i + 1; j < children.size(); ++j) {
      if (isContinuation(children[j])) continue;
      if (startLine(children[j]) > line + 1) return false;
      if (!isComment(children[j])) return isDefinition(children[j]);
      line = startLine(children[j]);
    }
    return false;
  }

  // The statements and comments of a body at `indent`. Own-line comments after its last statement
  // written left of the body's column belong to an outer level: they are returned.
  std::vector<TSNode> block(TSNode blk, int indent) {
    auto children = childrenOf(blk);
    int bodyColumn = -1;
    for (TSNode c : children)
      if (!isComment(c) && !isContinuation(c) && ts_node_is_named(c)) { bodyColumn = static_cast<int>(column(c)); break; }
    // The trailing own-line comments left of the body.
    size_t end = children.size();
    while (end > 0 && isComment(children[end - 1]) && static_cast<int>(column(children[end - 1])) < bodyColumn &&
           (end < 2 || startLine(children[end - 1]) != endLine(children[end - 2])))
      --end;
    std::vector<TSNode> out(children.begin() + static_cast<long>(end), children.end());
    bool joinNext = false, off = false;
    for (size_t i = 0; i < end; ++i) {
      TSNode c = children[i];
      if (isContinuation(c)) continue;
      if (isToken(c, ";")) { joinNext = true; continue; }
      if (isComment(c)) {
        if (startLine(c) == lastSourceLine_) {
          if (isFmtOff(doc_.nodeText(c)) || isFmtOn(doc_.nodeText(c)))
            throw LayoutRefused("a `# fmt: off` or `# fmt: on` after a statement at line " + std::to_string(startLine(c) + 1));
          trailingComment(c);
          continue;
        }
        if (isFmtOff(doc_.nodeText(c))) off = true;
        if (isFmtOn(doc_.nodeText(c))) off = false;
        // Comments right above a definition take the definition's blank line above them.
        bool aboveDefinition = !prevWasComment_ && leadsIntoDefinition(children, i);
        ownLineComment(c, indent, 1, aboveDefinition ? 1 : 0);
        continue;
      }
      if (off) {
        // As written, with the blank lines written before it.
        int written = static_cast<int>(startLine(c)) - static_cast<int>(lastSourceLine_) - 1;
        for (int b = 0; b < written; ++b) lines_.emplace_back();
        afterHeader_ = false;
        asWritten(c, indent);
        continue;
      }
      if (joinNext) {
        // `a = 1; b = 2` stays one line, as written.
        lines_.back() += "; " + ir::flatDoc(expr(c));
        lastSourceLine_ = endLine(c);
        joinNext = false;
        continue;
      }
      int atLeast = (isDefinition(c) && !prevWasComment_) || prevWasDefinition_ ? 1 : 0;
      blankLinesBefore(c, 1, atLeast);
      if (!isCompound(c) && typeOf(c) != "decorated_definition" && i + 1 < end && isComment(children[i + 1]) &&
          startLine(children[i + 1]) == endLine(c) && isFmtSkip(doc_.nodeText(children[i + 1]))) {
        asWritten(c, indent);
        continue;
      }
      auto hoisted = statement(c, indent);
      for (TSNode h : hoisted) {
        if (static_cast<int>(column(h)) >= bodyColumn || i + 1 < end) ownLineComment(h, indent, 1);
        else out.insert(out.begin(), h);
      }
    }
    // Hoisted comments keep their source order.
    std::sort(out.begin(), out.end(), [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
    return out;
  }

  // ---- expressions

  Doc concatChildren(TSNode parent, const std::vector<TSNode>& children, bool breakLastFirst = true) {
    std::vector<Doc> parts;
    TSNode prev{};
    bool first = true;
    for (size_t i = 0; i < children.size(); ++i) {
      TSNode c = children[i];
      if (isContinuation(c)) continue;
      if (isComment(c)) {
        // A comment after the statement's last token (tree-sitter may put it inside the statement's
        // node) ends the statement's last line. Anywhere else in an expression it has no place.
        bool last = std::all_of(children.begin() + static_cast<long>(i), children.end(), isComment);
        if (!last) throw LayoutRefused("a comment inside an expression at line " + std::to_string(startLine(c) + 1));
        trailing_.push_back(commentText(c));
        continue;
      }
      if (!first) parts.push_back(Doc::txt(std::string(gap(parent, prev, c))));
      parts.push_back(expr(c));
      prev = c;
      first = false;
    }
    if (parts.empty()) return Doc::txt("");
    return concat(std::move(parts), breakLastFirst);
  }

  Doc expr(TSNode n) {
    // Layout is recursive (here and in the Doc engine): what nests deeper than any real module is left
    // as written (the lint reports it as TVS002).
    struct Depth {
      int& d;
      explicit Depth(int& d) : d(d) { ++d; }
      ~Depth() { --d; }
    } depth(depth_);
    if (depth_ > kMaxDepth) throw LayoutRefused("it nests deeper than " + std::to_string(kMaxDepth) + " levels");
    if (ts_node_is_missing(n) || typeOf(n) == "ERROR") throw LayoutRefused("a syntax error at line " + std::to_string(startLine(n) + 1));
    auto t = typeOf(n);
    if (ts_node_child_count(n) == 0 || t == "string") return Doc::txt(text(n));
    if (isBracketList(n)) {
      auto children = childrenOf(n);
      if (children.size() >= 2 && !ts_node_is_named(children.front()) && !ts_node_is_named(children.back()))
        return bracket(n, children, 1, children.size() - 1);
    }
    if (t == "call") return concat({expr(frontend::field(n, "function")), expr(frontend::field(n, "arguments"))});
    if (t == "subscript") {
      auto children = childrenOf(n);
      size_t open = 0;
      while (open < children.size() && !isToken(children[open], "[")) ++open;
      if (open > 0 && open + 1 < children.size() && isToken(children.back(), "]")) {
        std::vector<TSNode> value(children.begin(), children.begin() + static_cast<long>(open));
        return concat({concatChildren(n, value), bracket(n, children, open + 1, children.size() - 1)});
      }
    }
    return concatChildren(n, childrenOf(n));
  }

  // The items between children[begin - 1] (an opening bracket) and children[end] (its closer).
  Doc bracket(TSNode n, const std::vector<TSNode>& children, size_t begin, size_t end) {
    std::string open = text(children[begin - 1]), close = text(children[end]);
    if (isComprehension(n)) {
      std::vector<TSNode> inner(children.begin() + static_cast<long>(begin), children.begin() + static_cast<long>(end));
      Doc d = Doc::bracket(open, {concatChildren(n, inner)}, close);
      d.trailingCommaWhenBroken = false;
      return d;
    }
    std::vector<Doc> items;
    std::vector<std::string> comments;
    std::vector<std::vector<std::string>> leading;
    std::vector<std::string> pendingLeading;
    uint32_t lastItemLine = uint32_t(-1);
    bool trailingComma = false;
    for (size_t i = begin; i < end; ++i) {
      TSNode c = children[i];
      if (isContinuation(c)) continue;
      if (isToken(c, ",")) {
        lastItemLine = startLine(c);
        trailingComma = true;
        continue;
      }
      if (isComment(c)) {
        if (isFmtOff(doc_.nodeText(c))) throw LayoutRefused("a `# fmt: off` inside brackets at line " + std::to_string(startLine(c) + 1));
        if (!items.empty() && startLine(c) == lastItemLine && comments.back().empty()) comments.back() = commentText(c);
        else pendingLeading.push_back(commentText(c));
        continue;
      }
      leading.push_back(std::move(pendingLeading));
      pendingLeading.clear();
      items.push_back(expr(c));
      comments.emplace_back();
      lastItemLine = endLine(c);
      trailingComma = false;
    }
    const size_t count = items.size();
    Doc d = Doc::bracket(open, std::move(items), close);
    d.comments = std::move(comments);
    d.leading = std::move(leading);
    d.closing = std::move(pendingLeading);
    auto t = typeOf(n);
    const bool parenthesized = t == "parenthesized_expression";
    const bool oneElementTuple = (t == "tuple" || t == "tuple_pattern") && count == 1;
    const bool subscript = t == "subscript";
    if (parenthesized) {
      d.trailingCommaWhenBroken = false;
    } else if (oneElementTuple || (subscript && count == 1)) {
      // `(x,)` and `a[i,]` are tuples: the comma is a token, not layout. A one-index subscript
      // without one must never get one.
      d.singleTrailingComma = trailingComma;
      d.trailingCommaWhenBroken = trailingComma;
    } else if (trailingComma && count > 0) {
      d.forceBreak = true;  // the magic trailing comma
    }
    return d;
  }

  static constexpr int kMaxDepth = 200;
  const syntax::Document& doc_;
  const int width_;
  int depth_ = 0;
  std::vector<std::string> lines_;
  std::set<uint32_t> emitted_;
  std::vector<std::string> trailing_;  // comments for the end of the statement being laid out
  uint32_t lastSourceLine_ = 0;
  bool afterHeader_ = false;
  bool prevWasComment_ = false;
  bool prevWasDefinition_ = false;
};

}  // namespace

FmtSwitch fmtSwitch(std::string_view comment) {
  comment.remove_prefix(std::min<size_t>(1, comment.size()));  // the '#'
  while (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
  while (!comment.empty() && (comment.back() == ' ' || comment.back() == '\t' || comment.back() == '\r')) comment.remove_suffix(1);
  if (comment == "fmt: off" || comment == "fmt:off") return FmtSwitch::Off;
  if (comment == "fmt: on" || comment == "fmt:on") return FmtSwitch::On;
  if (comment == "fmt: skip" || comment == "fmt:skip") return FmtSwitch::Skip;
  return FmtSwitch::None;
}

std::string layoutRegion(const syntax::Document& doc, TSNode region, syntax::ByteRange lines, int indent, int width) {
  return RegionLayout(doc, width).run(region, lines, indent);
}

}  // namespace tvms::format
