#pragma once
// A Document owns a text, its tree-sitter tree (tree-sitter-python grammar) and its line index.
// applyEdit() edits the old tree with ts_tree_edit and reparses incrementally against it, so that
// subtrees outside the edit are reused (and keep their identity: ts_tree_get_changed_ranges sees them
// as unchanged).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/line_index.h"
#include "compiler/syntax/position.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace tvms::syntax {

class Document {
 public:
  explicit Document(std::string text);
  ~Document();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  const std::string& text() const { return text_; }
  std::string_view slice(ByteRange r) const;
  std::string_view nodeText(TSNode n) const;
  const LineIndex& lines() const { return lines_; }
  TSTree* tree() const { return tree_; }
  TSNode root() const { return ts_tree_root_node(tree_); }

  // Replaces the bytes in `range` (clamped to the text) by `newText` and reparses incrementally.
  // Returns the byte ranges of the new tree whose syntax changed.
  std::vector<ByteRange> applyEdit(ByteRange range, std::string_view newText);
  // The same, with the range in (line, column) positions of the given encoding (as editors send them).
  std::vector<ByteRange> applyEdit(LineCol begin, LineCol end, std::string_view newText, Encoding enc);

 private:
  void parse(TSTree* old);

  std::string text_;
  LineIndex lines_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
};

ByteRange rangeOf(TSNode n);

}  // namespace tvms::syntax
