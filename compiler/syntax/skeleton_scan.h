#pragma once
// Reading a file by function (a one-shot lint of a large file): the functions of each column-0 class
// are found from the text's logical lines, without a parse, and the file is parsed once as a
// "skeleton" in which their bodies are blank. Each function is then parsed on its own when it is
// lowered, and its tree freed right after (Document::Parsing::ByFunction). A whole-file tree costs
// ~50 bytes per byte of source; the skeleton costs what the file's headers cost.
//
// The scan reads Python's lexical structure only as far as it needs to find where logical lines
// start: strings (single or triple quoted, any prefix), comments, brackets and backslash
// continuations. Anything it is unsure of (a tab or a carriage return in the text, an unclosed
// string or bracket, a class body line at a column other than the body's) makes it give up, and the
// file is parsed whole, as always. Whatever it finds is checked again by the parses (see Document).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/syntax/position.h"

namespace tvms::syntax {

// A function directly in the body of a column-0 class, with its body on lines of its own.
struct ScannedFunction {
  ByteRange header;    // the class's decorator and `class X:` lines (whole lines)
  ByteRange range;     // the function: from its first decorator's line start to the end of its last body line
  uint32_t bodyBegin;  // the start of its first body line
  uint32_t column;     // the column of its `def` (the class body's)
  ByteRange signature; // from its `def` to the `:` that ends the line (what the skeleton keeps but the parameters)
  uint32_t definitionBegin = 0;  // where its definition starts (its first decorator, or `def`)
  uint32_t definitionEnd = 0;    // where it ends: its last line's last character (a comment there included)
  uint32_t lastLineBegin = 0;    // the start of its last body line (the one with the skeleton's `x`s)
};

struct Skeleton {
  std::string text;                        // the text with each function's body blanked (same length, same lines)
  std::vector<ScannedFunction> functions;  // sorted, disjoint
};

// The skeleton of `text`, or nothing when the scan gives up or finds no function worth reading alone.
// In the skeleton each function's body lines are spaces but for one statement of `x`s on its last
// line, from one column right of its `def` to that line's last character, so the definition ends
// where it does in the text; its parameters and return annotation are spaces too (`def f(   ):`):
// they are most of a module's header bytes, and only the function's own tree is read for them.
std::optional<Skeleton> scanSkeleton(std::string_view text);

// What of the skeleton a parser reads: all of it but each function's blank body lines before its
// last (from bodyBegin to lastLineBegin). They hold only spaces and line breaks, which Python's
// grammar skips, but tree-sitter still lexes them byte by byte: most of the skeleton's parse (10k
// lines: 18 -> 5 ms). But tree-sitter's lexer finds its place among the included ranges by a scan
// from the first one, token after token, so with more than kMostSkippedBodies bodies to skip the
// skeleton is read whole (one range): at 51,000 functions the ranges made its parse 1.6 -> 9.3 s.
constexpr size_t kMostSkippedBodies = 4096;
std::vector<ByteRange> skeletonReadRanges(const Skeleton& skeleton);

}  // namespace tvms::syntax
