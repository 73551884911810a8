#pragma once
// Parsing text with tree-sitter-python as the Document does, and the few node tests its trees share.
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/line_index.h"
#include "compiler/syntax/position.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace tvms::syntax {

bool isType(TSNode n, const char* t);
// A decorated_definition or a function_definition.
bool isDefinition(TSNode n);
// The definition a decorated_definition decorates (its `definition` field); any other node itself.
TSNode undecorated(TSNode n);
TSPoint pointAt(const LineIndex& lines, uint32_t offset);
TSRange tsRange(const LineIndex& lines, ByteRange r);
// The body of the class that is a header + lines tree's first statement (an island's or a span's tree
// holds its class header first); a null node when that statement is not a class with a body.
TSNode firstClassBody(TSNode root);

// A parser for the pinned grammar (throws when its ABI does not match the tree-sitter runtime).
TSParser* newPythonParser();
// Parses `text` (or, given `included`, only those ranges of it: the parser's included ranges must be
// set to them) as tree-sitter reads the Document's text: a lone "\r" as "\n", brackets nested past
// 4,096 levels as spaces.
TSTree* parseText(TSParser* parser, const TSTree* old, std::string_view text, const std::vector<ByteRange>& included = {});
// A tree of only `ranges` (sorted, disjoint) of `text`, at the text's offsets (incrementally from
// `old` when given); the parser is left reading the whole text again.
TSTree* parseRangesWith(TSParser* parser, std::string_view text, const LineIndex& lines, const std::vector<ByteRange>& ranges,
                        const TSTree* old = nullptr);

}  // namespace tvms::syntax
