#include "compiler/syntax/shifted_tree.h"

#include <stdexcept>

#include "compiler/syntax/line_index.h"

namespace tvms::syntax {

namespace {

// tree-sitter's own arithmetic for points after an edit (a point's column is relative to the row's start).
TSPoint pointSub(TSPoint a, TSPoint b) { return a.row > b.row ? TSPoint{a.row - b.row, a.column} : TSPoint{0, a.column - b.column}; }
TSPoint pointAdd(TSPoint a, TSPoint b) { return b.row > 0 ? TSPoint{a.row + b.row, b.column} : TSPoint{a.row, a.column + b.column}; }

}  // namespace

ShiftedTree::ShiftedTree(TSTree* tree, const std::vector<ByteRange>& ranges, const LineIndex& lines, uint32_t textSize)
    : tree_(tree) {
  for (const ByteRange& r : ranges) {
    if (r.end <= r.begin) continue;
    if (count_ == now_.size()) throw std::logic_error("ShiftedTree holds at most two ranges");
    LineCol b = lines.toLineCol(r.begin, Encoding::Utf8), e = lines.toLineCol(r.end, Encoding::Utf8);
    now_[count_++] = {r.begin, r.end, {b.line, b.column}, {e.line, e.column}};
  }
  LineCol end = lines.toLineCol(textSize, Encoding::Utf8);
  end_ = {textSize, textSize, {end.line, end.column}, {end.line, end.column}};
  seen_ = now_;
  seenEnd_ = end_;
}

bool ShiftedTree::sameStart(const Place& a, const Place& b) {
  return a.begin == b.begin && a.beginPoint.row == b.beginPoint.row && a.beginPoint.column == b.beginPoint.column;
}

// The same rule ts_tree_edit applies to a tree's included ranges.
void ShiftedTree::move(Place& p, const TSInputEdit& e) {
  auto at = [&](uint32_t& byte, TSPoint& point) {
    if (byte >= e.old_end_byte) {
      byte = e.new_end_byte + (byte - e.old_end_byte);
      point = pointAdd(e.new_end_point, pointSub(point, e.old_end_point));
    } else if (byte > e.start_byte) {
      byte = e.start_byte;
      point = e.start_point;
    }
  };
  at(p.end, p.endPoint);
  at(p.begin, p.beginPoint);
}

void ShiftedTree::edit(const TSInputEdit& e) {
  if (!tree_) return;
  bool inside = false;
  // (An edit starting right at a range's end counts as inside: tree-sitter extends the range over it.)
  for (uint8_t k = 0; k < count_; ++k) inside |= e.old_end_byte > now_[k].begin && e.start_byte <= now_[k].end;
  if (inside) {
    ts_tree_edit(get(), &e);
    for (uint8_t k = 0; k < count_; ++k) move(now_[k], e);
    move(end_, e);
    seen_ = now_;
    seenEnd_ = end_;
    return;
  }
  // Every range lies wholly before the edit (unchanged) or wholly after it (moved).
  for (uint8_t k = 0; k < count_; ++k) move(now_[k], e);
  move(end_, e);
}

bool ShiftedTree::pending() const {
  for (uint8_t k = 0; k < count_; ++k)
    if (!sameStart(seen_[k], now_[k])) return true;
  return !sameStart(seenEnd_, end_);
}

TSTree* ShiftedTree::get() const {
  for (uint8_t k = 0; k < count_; ++k) {
    if (sameStart(seen_[k], now_[k])) continue;
    // The text before range k (from the end of range k-1, where the tree already has it) was
    // replaced: one edit moves the range, and the ones after it, to where they are.
    TSInputEdit gap{};
    gap.start_byte = k == 0 ? 0 : now_[k - 1].end;
    gap.start_point = k == 0 ? TSPoint{0, 0} : now_[k - 1].endPoint;
    gap.old_end_byte = seen_[k].begin;
    gap.old_end_point = seen_[k].beginPoint;
    gap.new_end_byte = now_[k].begin;
    gap.new_end_point = now_[k].beginPoint;
    ts_tree_edit(tree_, &gap);
    for (uint8_t j = k; j < count_; ++j) move(seen_[j], gap);
    move(seenEnd_, gap);
  }
  if (count_ > 0 && !sameStart(seenEnd_, end_)) {
    // The text after the last range (where the tree's root ends, at the end of the text).
    TSInputEdit tail{};
    tail.start_byte = now_[count_ - 1].end;
    tail.start_point = now_[count_ - 1].endPoint;
    tail.old_end_byte = seenEnd_.begin;
    tail.old_end_point = seenEnd_.beginPoint;
    tail.new_end_byte = end_.begin;
    tail.new_end_point = end_.beginPoint;
    ts_tree_edit(tree_, &tail);
    seenEnd_ = end_;
  }
  return tree_;
}

ShiftedTree ShiftedTree::copy() const {
  ShiftedTree out = *this;
  out.tree_ = tree_ ? ts_tree_copy(tree_) : nullptr;
  return out;
}

void ShiftedTree::release() {
  if (tree_) ts_tree_delete(tree_);
  tree_ = nullptr;
}

}  // namespace tvms::syntax
