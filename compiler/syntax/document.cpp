#include "compiler/syntax/document.h"

#include <algorithm>
#include <stdexcept>

namespace tvms::syntax {

ByteRange rangeOf(TSNode n) { return {ts_node_start_byte(n), ts_node_end_byte(n)}; }

Document::Document(std::string text) : text_(std::move(text)) {
  parser_ = ts_parser_new();
  if (!ts_parser_set_language(parser_, tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python grammar ABI does not match the tree-sitter runtime");
  parse(nullptr);
}

Document::~Document() {
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

std::string_view Document::slice(ByteRange r) const {
  r.end = std::min<uint32_t>(r.end, static_cast<uint32_t>(text_.size()));
  r.begin = std::min(r.begin, r.end);
  return std::string_view(text_).substr(r.begin, r.end - r.begin);
}

std::string_view Document::nodeText(TSNode n) const { return slice(rangeOf(n)); }

void Document::parse(TSTree* old) {
  lines_.reset(text_);
  TSTree* fresh = ts_parser_parse_string(parser_, old, text_.data(), static_cast<uint32_t>(text_.size()));
  tree_ = fresh;
}

namespace {
// tree-sitter points are (row, byte column).
TSPoint pointAt(const LineIndex& lines, uint32_t offset) {
  LineCol lc = lines.toLineCol(offset, Encoding::Utf8);
  return {lc.line, lc.column};
}
}  // namespace

std::vector<ByteRange> Document::applyEdit(ByteRange range, std::string_view newText) {
  const auto size = static_cast<uint32_t>(text_.size());
  range.end = std::min(range.end, size);
  range.begin = std::min(range.begin, range.end);

  TSInputEdit edit{};
  edit.start_byte = range.begin;
  edit.old_end_byte = range.end;
  edit.new_end_byte = range.begin + static_cast<uint32_t>(newText.size());
  edit.start_point = pointAt(lines_, range.begin);
  edit.old_end_point = pointAt(lines_, range.end);

  text_.replace(range.begin, range.end - range.begin, newText);
  lines_.reset(text_);
  edit.new_end_point = pointAt(lines_, edit.new_end_byte);

  TSTree* old = tree_;
  ts_tree_edit(old, &edit);
  TSTree* fresh = ts_parser_parse_string(parser_, old, text_.data(), static_cast<uint32_t>(text_.size()));
  uint32_t count = 0;
  TSRange* changed = ts_tree_get_changed_ranges(old, fresh, &count);
  std::vector<ByteRange> out;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) out.push_back({changed[i].start_byte, changed[i].end_byte});
  free(changed);
  ts_tree_delete(old);
  tree_ = fresh;
  return out;
}

std::vector<ByteRange> Document::applyEdit(LineCol begin, LineCol end, std::string_view newText, Encoding enc) {
  uint32_t b = lines_.toOffset(begin, enc);
  uint32_t e = lines_.toOffset(end, enc);
  if (e < b) std::swap(b, e);
  return applyEdit(ByteRange{b, e}, newText);
}

}  // namespace tvms::syntax
