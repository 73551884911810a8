#pragma once
// Helpers over tree-sitter-python nodes used by the frontend: node types, fields, text, literals.
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/document.h"

namespace tvms::frontend {

using syntax::ByteRange;

// Compared without measuring the node's type name first (a string_view of it would: strlen was 2% of a
// lint's time), and inline, a character at a time: most calls differ at the first, and lowering asks
// this about half a million times in a 10k-line file (a call to strncmp for each was 1% of a lint).
// The loop stops at the type's terminating '\0', which differs from every character of `t`, so it
// never reads past it.
inline bool isType(TSNode n, std::string_view t) {
  if (ts_node_is_null(n)) return false;
  const char* type = ts_node_type(n);
  for (char c : t)
    if (*type++ != c) return false;
  return *type == '\0';
}
inline std::string_view typeOf(TSNode n) { return ts_node_is_null(n) ? std::string_view() : ts_node_type(n); }
// A clause that continues a compound statement: elif / else / except / finally / case.
inline bool isClauseType(std::string_view t) {
  return t == "elif_clause" || t == "else_clause" || t == "except_clause" || t == "except_group_clause" ||
         t == "finally_clause" || t == "case_clause";
}
// A child by field name. Field ids are looked up once per name: the runtime's name lookup is a scan.
TSFieldId fieldId(const char* name);
inline TSNode field(TSNode n, const char* name) {
  if (ts_node_is_null(n)) return n;
  return ts_node_child_by_field_id(n, fieldId(name));
}
std::vector<TSNode> namedChildren(TSNode n);  // without comments
inline ByteRange rangeOf(TSNode n) { return syntax::rangeOf(n); }

// Decodes a Python string literal node (quotes, prefixes, escapes, implicit concatenation);
// nullopt for f-strings and byte strings, which TVMScript has no use for.
std::optional<std::string> stringLiteral(const syntax::Document& doc, TSNode n);
// Parses an integer literal node (also 0x.., 1_000); nullopt when it is not one.
std::optional<int64_t> integerLiteral(const syntax::Document& doc, TSNode n);
std::optional<double> floatLiteral(const syntax::Document& doc, TSNode n);

// True when a bracketed list (parameters, argument_list, tuple, list) ends with a comma before its
// closing bracket: black's "magic trailing comma".
bool hasTrailingComma(const syntax::Document& doc, TSNode list);

// The dotted name of an attribute chain (R.nn.conv2d -> "R.nn.conv2d"), or "" when not a plain chain.
std::string dottedName(const syntax::Document& doc, TSNode n);

}  // namespace tvms::frontend
