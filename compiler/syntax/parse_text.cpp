#include "compiler/syntax/parse_text.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tvms::syntax {

bool isType(TSNode n, const char* t) { return !ts_node_is_null(n) && std::strcmp(ts_node_type(n), t) == 0; }

TSPoint pointAt(const LineIndex& lines, uint32_t offset) {
  LineCol lc = lines.toLineCol(offset, Encoding::Utf8);
  return {lc.line, lc.column};
}

TSRange tsRange(const LineIndex& lines, ByteRange r) {
  return {pointAt(lines, r.begin), pointAt(lines, r.end), r.begin, r.end};
}

TSNode undecorated(TSNode n) {
  return isType(n, "decorated_definition") ? ts_node_child_by_field_name(n, "definition", 10) : n;
}

bool isDefinition(TSNode n) {
  return isType(n, "decorated_definition") || isType(n, "function_definition");
}

namespace {

// The text as tree-sitter reads it. Two rewrites, each one byte for one byte so every offset stays
// valid:
// - tree-sitter-python ends lines at "\n" only, but Python (and the LSP) also end them at a lone
//   "\r" (old Mac files): it reads such a "\r" as "\n".
// - Brackets nested deeper than kMaxBracketDepth are read as spaces: Debian's tree-sitter 0.20.7
//   frees memory twice on ~65,000 unclosed brackets and kills the process. The frontend stops at
//   150 levels of expression anyway (TVS002), so nothing that deep is ever analysed.
// Chunks with nothing to rewrite are handed over in place.
constexpr int kMaxBracketDepth = 4096;

// Only the ranges tree-sitter is given to read (all of the text without any): an island's reparse
// scans the island, not the file (a whole-file scan was 7% of a keystroke in the server).
std::vector<uint32_t> bracketsPastDepth(std::string_view text, const std::vector<ByteRange>& ranges) {
  std::vector<uint32_t> out;
  // No deeper than there are bytes: a function's parse (a few KiB) needs no scan at all.
  size_t bytes = ranges.empty() ? text.size() : 0;
  for (auto& r : ranges) bytes += std::min<size_t>(r.end, text.size()) - std::min<size_t>(r.begin, text.size());
  if (bytes <= kMaxBracketDepth) return out;
  int depth = 0;
  auto scan = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      char c = text[i];
      if (c == '(' || c == '[' || c == '{') {
        if (++depth > kMaxBracketDepth) out.push_back(static_cast<uint32_t>(i));
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth > kMaxBracketDepth) out.push_back(static_cast<uint32_t>(i));
        if (depth > 0) --depth;
      }
    }
  };
  if (ranges.empty()) scan(0, text.size());
  for (auto& r : ranges) scan(std::min<size_t>(r.begin, text.size()), std::min<size_t>(r.end, text.size()));
  return out;
}

struct ParseInput {
  std::string_view text;
  std::vector<uint32_t> blanked;  // sorted offsets read as ' '
  const std::vector<ByteRange>& included;  // sorted; empty: all of the text
  std::string chunk;
};

// How much from `byte` one chunk holds: up to 64 KiB, and no further than the end of the included
// range `byte` is in. tree-sitter reads nothing past it (it goes on at the next range's start, a chunk
// of its own), and each chunk is searched for "\r": a function's parse (its class header, then the
// function) searched 64 KiB twice, 3% of a 10k-line lint.
size_t chunkLength(const ParseInput& in, uint32_t byte) {
  constexpr size_t kChunk = 1 << 16;
  auto range = std::upper_bound(in.included.begin(), in.included.end(), byte,
                                [](uint32_t at, const ByteRange& r) { return at < r.end; });
  if (range == in.included.end() || byte < range->begin) return kChunk;
  return std::min<size_t>(kChunk, range->end - byte);
}

const char* readChunk(void* payload, uint32_t byte, TSPoint, uint32_t* read) {
  auto& in = *static_cast<ParseInput*>(payload);
  if (byte >= in.text.size()) {
    *read = 0;
    return "";
  }
  std::string_view piece = in.text.substr(byte, chunkLength(in, byte));
  *read = static_cast<uint32_t>(piece.size());
  auto blank = std::lower_bound(in.blanked.begin(), in.blanked.end(), byte);
  bool blanks = blank != in.blanked.end() && *blank < byte + piece.size();
  if (!blanks && piece.find('\r') == std::string_view::npos) return piece.data();
  in.chunk.assign(piece);
  for (size_t i = 0; i < in.chunk.size(); ++i) {
    size_t at = byte + i;
    if (in.chunk[i] == '\r' && (at + 1 >= in.text.size() || in.text[at + 1] != '\n')) in.chunk[i] = '\n';
  }
  for (; blank != in.blanked.end() && *blank < byte + piece.size(); ++blank) in.chunk[*blank - byte] = ' ';
  return in.chunk.data();
}

}  // namespace

TSTree* parseText(TSParser* parser, const TSTree* old, std::string_view text, const std::vector<ByteRange>& included) {
  ParseInput in{text, bracketsPastDepth(text, included), included, {}};
  return ts_parser_parse(parser, old, TSInput{&in, readChunk, TSInputEncodingUTF8});
}


// The body of the class that is a header + lines tree's first statement (an island's or a span's tree
// holds its class header first); a null node when that statement is not a class with a body.
TSNode firstClassBody(TSNode root) {
  TSNode top = ts_node_named_child(root, 0);
  TSNode cls = undecorated(top);
  return isType(cls, "class_definition") ? ts_node_child_by_field_name(cls, "body", 4) : TSNode{};
}

TSParser* newPythonParser() {
  TSParser* parser = ts_parser_new();
  if (!ts_parser_set_language(parser, tree_sitter_python())) {
    ts_parser_delete(parser);
    throw std::runtime_error("tree-sitter-python grammar ABI does not match the tree-sitter runtime");
  }
  return parser;
}

TSTree* parseRangesWith(TSParser* parser, std::string_view text, const LineIndex& lines, const std::vector<ByteRange>& ranges,
                        const TSTree* old) {
  std::vector<TSRange> included;
  for (auto& r : ranges) included.push_back(tsRange(lines, r));
  ts_parser_set_included_ranges(parser, included.data(), static_cast<uint32_t>(included.size()));
  TSTree* tree = parseText(parser, old, text, ranges);
  ts_parser_set_included_ranges(parser, nullptr, 0);
  return tree;
}

}  // namespace tvms::syntax
