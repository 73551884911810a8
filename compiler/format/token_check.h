#pragma once
// What a layout-only change must keep: the region's tokens in order, comments included. The
// formatter compares them before and after (its safety check), and so do the tests.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/syntax/document.h"

namespace tvms::format {

// Every token of the tree within `range`: leaves, a whole string literal as one token, comments
// (trailing whitespace trimmed); line continuations are layout and left out. A trailing comma before a
// closing bracket is left out where it is layout: in a call's or a definition's parentheses, a list,
// a dict or a set, and in any bracket with another comma at its level. Kept where it makes a tuple:
// `(x,)` and `a[i,]`. The views are into the document's text.
std::vector<std::string_view> layoutTokens(const syntax::Document& doc, syntax::ByteRange range);

// A digest of a sequence of texts: equal sequences give equal digests, different ones a different
// digest but with a chance of about 2^-64. What the formatter keeps of a large region instead of its
// million tokens (16 bytes each, the largest part of the check's memory).
struct TextDigest {
  uint64_t hash = 14695981039346656037ull;
  uint64_t count = 0, bytes = 0;
  void add(std::string_view piece);
  bool operator==(const TextDigest&) const = default;
};
// What a layout-only change must keep of a range, read in one walk (one function's tree at a time where
// the document is read by function):
//  - tokens: layoutTokens' sequence, comments included;
//  - shape: the same without comments, and where each statement and clause starts with how many
//    blocks hold it. Equal tokens with an equal shape are the same program (as black compares ASTs):
//    it tells `return x` from `return` / `x`, and a statement from one moved in or out of a block.
//    It is read from the tree's statements, not from where the functions' trees begin, so a text read
//    by function and one read whole give the same digests.
//  - comments: the comments alone, in order.
struct LayoutKept {
  TextDigest tokens, shape, comments;
};
LayoutKept layoutKept(const syntax::Document& doc, syntax::ByteRange range);

}  // namespace tvms::format
