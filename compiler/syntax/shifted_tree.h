#pragma once
// A tree-sitter tree of some ranges of a document (parsed as included ranges, so its nodes carry the
// document's offsets) that learns the document's edits lazily.
//
// Every tree of a Document must learn every edit, and ts_tree_edit walks the tree's nodes along the
// edit's position each time (~2 us a tree: ~1 ms a keystroke once a long session has made ~500
// island trees). Most edits fall outside a given tree's ranges, in text it never read: they only move
// those ranges (and the end of the text, where the root node ends). ShiftedTree sums such edits up
// and applies them as one edit per moved range, when the tree is next read. An edit inside one of its ranges is applied at once.
//
// Not thread-safe, even through const members: reading may apply the pending edits (a Document is
// read by one thread at a time).
#include <array>
#include <cstdint>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/position.h"

namespace tvms::syntax {

class LineIndex;

class ShiftedTree {
 public:
  ShiftedTree() = default;
  // Takes `tree`, parsed from `ranges` (sorted, at most two, empty ones ignored) of a text of
  // `textSize` bytes that `lines` indexes.
  ShiftedTree(TSTree* tree, const std::vector<ByteRange>& ranges, const LineIndex& lines, uint32_t textSize);

  explicit operator bool() const { return tree_ != nullptr; }
  // The tree with every edit so far applied.
  TSTree* get() const;
  TSNode root() const { return ts_tree_root_node(get()); }
  // Whether edits wait to be applied (for tests: reading applies them).
  bool pending() const;
  // Learns an edit of the document (as ts_tree_edit takes it: the old text's offsets and points).
  void edit(const TSInputEdit& e);
  // A second tree sharing this one's nodes (ts_tree_copy), with the same pending edits.
  ShiftedTree copy() const;
  // Deletes the tree (owners copy ShiftedTree around as they copied the raw pointer; one releases).
  void release();

 private:
  struct Place {
    uint32_t begin = 0, end = 0;
    TSPoint beginPoint{}, endPoint{};
  };
  static void move(Place& p, const TSInputEdit& e);
  static bool sameStart(const Place& a, const Place& b);  // the same begin byte and point

  mutable TSTree* tree_ = nullptr;
  uint8_t count_ = 0;
  std::array<Place, 2> now_{};           // where the ranges are in the document
  mutable std::array<Place, 2> seen_{};  // where the tree has them
  Place end_{};                          // the end of the document (the root node's extent reaches it)
  mutable Place seenEnd_{};
};

}  // namespace tvms::syntax
