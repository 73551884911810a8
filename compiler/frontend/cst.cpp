#include "compiler/frontend/cst.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace tvms::frontend {

TSFieldId fieldId(const char* name) {
  // Keyed by the literal's address; a new spelling of the same name just gets its own entry.
  static thread_local std::unordered_map<const char*, TSFieldId> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  TSFieldId id = ts_language_field_id_for_name(tree_sitter_python(), name, static_cast<uint32_t>(std::strlen(name)));
  cache.emplace(name, id);
  return id;
}

std::vector<TSNode> namedChildren(TSNode n) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n)) return out;
  // Few named children (a call's arguments, an annotation's) are asked for by number: the count is
  // stored in the node, and each ts_node_named_child scans from the first child, which costs less
  // than a cursor's walk up to about 8 (a 10k-line lint: 2.3% fewer instructions). Past ~16 the
  // scans' quadratic cost loses.
  constexpr uint32_t kFewChildren = 8;
  if (uint32_t count = ts_node_named_child_count(n); count <= kFewChildren) {
    out.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
      if (TSNode c = ts_node_named_child(n, i); !isType(c, "comment")) out.push_back(c);
    return out;
  }
  // More: a cursor walk. One cursor per thread, reset onto each node (a new one allocates its stack);
  // between calls it points into a tree that only the next reset reads past.
  thread_local struct Cursor {
    TSTreeCursor c{};
    bool made = false;
    ~Cursor() {
      if (made) ts_tree_cursor_delete(&c);
    }
  } cursor;
  if (cursor.made) {
    ts_tree_cursor_reset(&cursor.c, n);
  } else {
    cursor.c = ts_tree_cursor_new(n);
    cursor.made = true;
  }
  if (ts_tree_cursor_goto_first_child(&cursor.c)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor.c);
      if (ts_node_is_named(c) && !isType(c, "comment")) out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor.c));
  }
  return out;
}

namespace {

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) out += static_cast<char>(cp);
  else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::optional<std::string> decodeOne(std::string_view text) {
  size_t q = text.find_first_of("'\"");
  if (q == std::string_view::npos) return std::nullopt;
  std::string prefix;
  for (char c : text.substr(0, q)) prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (prefix.find('f') != std::string::npos || prefix.find('b') != std::string::npos) return std::nullopt;
  bool raw = prefix.find('r') != std::string::npos;
  text = text.substr(q);
  size_t quoteLen = (text.size() >= 6 && (text.substr(0, 3) == "\"\"\"" || text.substr(0, 3) == "'''")) ? 3 : 1;
  if (text.size() < 2 * quoteLen) return std::nullopt;
  std::string_view body = text.substr(quoteLen, text.size() - 2 * quoteLen);
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || raw || i + 1 >= body.size()) { out += c; continue; }
    char e = body[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case '\n': break;
      case 'x': case 'u': case 'U': {
        size_t len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (i + len < body.size() + 1) {
          uint32_t cp = static_cast<uint32_t>(std::strtoul(std::string(body.substr(i + 1, len)).c_str(), nullptr, 16));
          appendUtf8(out, cp);
          i += len;
        }
        break;
      }
      default: out += '\\'; out += e;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> stringLiteral(const syntax::Document& doc, TSNode n) {
  if (isType(n, "concatenated_string")) {
    std::string out;
    for (TSNode c : namedChildren(n)) {
      auto part = stringLiteral(doc, c);
      if (!part) return std::nullopt;
      out += *part;
    }
    return out;
  }
  if (!isType(n, "string")) return std::nullopt;
  std::string_view text = doc.nodeText(n);
  // Only an f-string holds interpolations: a string whose prefix is raw, bytes or unicode alone is
  // not looked into (every dtype and device string of a module is read here).
  std::string_view prefix = text.substr(0, text.find_first_of("'\""));
  if (prefix.find_first_not_of("rRbBuU") != std::string_view::npos)
    for (TSNode c : namedChildren(n))
      if (isType(c, "interpolation")) return std::nullopt;
  return decodeOne(text);
}

std::optional<int64_t> integerLiteral(const syntax::Document& doc, TSNode n) {
  if (!isType(n, "integer")) return std::nullopt;
  std::string t;
  for (char c : doc.nodeText(n)) if (c != '_') t += c;
  int base = 10;
  size_t start = 0;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) { base = 16; start = 2; }
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'o' || t[1] == 'O')) { base = 8; start = 2; }
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) { base = 2; start = 2; }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data() + start, t.data() + t.size(), v, base);
  if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<double> floatLiteral(const syntax::Document& doc, TSNode n) {
  if (!isType(n, "float")) return std::nullopt;
  std::string t;
  for (char c : doc.nodeText(n)) if (c != '_') t += c;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

bool hasTrailingComma(const syntax::Document& doc, TSNode list) {
  if (ts_node_is_null(list)) return false;
  // From the text first (asked of every call; each ts_node_child below scans from the first child):
  // the last character before the closing bracket, blanks skipped. Unless its line has a '#' before
  // it (it may be in a comment) or it is a backslash (a continued line), it is the trailing comma or
  // there is none.
  std::string_view t = doc.nodeText(list);
  if (!t.empty() && (t.back() == ')' || t.back() == ']' || t.back() == '}')) {
    size_t end = t.size() - 1;
    while (end > 0 && std::isspace(static_cast<unsigned char>(t[end - 1]))) --end;
    if (end > 0 && t[end - 1] != '\\') {
      size_t lineStart = t.find_last_of("\r\n", end - 1);
      lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
      if (t.substr(lineStart, end - lineStart).find('#') == std::string_view::npos) return t[end - 1] == ',';
    }
  }
  for (uint32_t i = ts_node_child_count(list); i-- > 0;) {
    TSNode c = ts_node_child(list, i);
    std::string_view t = typeOf(c);
    if (t == ")" || t == "]" || t == "}" || t == "comment") continue;
    return t == ",";
  }
  return false;
}

namespace {

// Whether `t` is names joined by dots (`R.nn.relu`), none of them a literal: then an attribute node of
// that text is a chain of identifiers written without blanks or comments, and its dotted name is its
// text.
bool plainDottedText(std::string_view t) {
  size_t start = 0;
  for (;;) {
    size_t end = t.find('.', start);
    std::string_view part = t.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0])) || part == "None" || part == "True" || part == "False")
      return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

}  // namespace

std::string dottedName(const syntax::Document& doc, TSNode n) {
  if (isType(n, "identifier")) return std::string(doc.nodeText(n));
  if (isType(n, "attribute")) {
    // Most are: the text itself, without a walk down the chain (two field lookups a link).
    if (std::string_view t = doc.nodeText(n); !ts_node_has_error(n) && plainDottedText(t)) return std::string(t);
    std::string head = dottedName(doc, field(n, "object"));
    if (head.empty()) return "";
    return head + "." + std::string(doc.nodeText(field(n, "attribute")));
  }
  return "";
}

}  // namespace tvms::frontend
