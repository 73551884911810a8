// Comments and blank lines of a region, attached to the IR items the printer emits (for `tvms fmt`).
//  - an end-of-line comment belongs to the innermost item holding the token before it;
//  - an own-line comment belongs, as a leading comment, to the next item that starts after it
//    (the outermost of those starting at the same place); comments after the last item dangle at the end;
//  - comments inside a T.prim_func body stay in its verbatim text.
#include <algorithm>
#include <cstring>

#include "compiler/frontend/lowerer.h"

namespace tvms::frontend {

namespace {

// Walks only the subtrees whose text holds a '#': a comment lies within its parent's bytes, so a
// subtree without one has none (most bindings have no comment inside them).
void collectCommentsIn(const std::string& text, TSNode root, ByteRange within, std::vector<TSNode>& out) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool done = false;
  while (!done) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    uint32_t b = std::max(ts_node_start_byte(n), within.begin);
    uint32_t e = std::min({ts_node_end_byte(n), within.end, static_cast<uint32_t>(text.size())});
    bool holds = b < e && std::memchr(text.data() + b, '#', e - b) != nullptr;
    if (holds && isType(n, "comment")) out.push_back(n);
    if (holds && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
    }
  }
  ts_tree_cursor_delete(&cursor);
}

// Comments in `within`, each from the tree that is current there (the skeleton or an island's tree).
void collectComments(const syntax::Document& doc, ByteRange within, std::vector<TSNode>& out) {
  for (auto& part : doc.treesIn(within)) {
    std::vector<TSNode> found;
    collectCommentsIn(doc.text(), part.root, part.part, found);
    for (TSNode c : found)
      if (ts_node_start_byte(c) >= part.part.begin && ts_node_start_byte(c) < part.part.end) out.push_back(c);
  }
}

bool blankLine(const syntax::Document& doc, uint32_t line) {
  auto& lines = doc.lines();
  std::string_view t = doc.slice({lines.lineStart(line), lines.lineEnd(line)});
  return t.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool commentLine(const syntax::Document& doc, uint32_t line) {
  auto& lines = doc.lines();
  std::string_view t = doc.slice({lines.lineStart(line), lines.lineEnd(line)});
  size_t k = t.find_first_not_of(" \t");
  return k != std::string_view::npos && t[k] == '#';
}

}  // namespace

ByteRange regionLines(const syntax::Document& doc, ByteRange r) {
  auto& lines = doc.lines();
  uint32_t last = lines.lineOf(r.end > r.begin ? r.end - 1 : r.end);
  return {lines.lineStart(lines.lineOf(r.begin)), lines.lineEnd(last)};
}

namespace {
std::vector<Comment> commentsOf(const syntax::Document& doc, const std::vector<TSNode>& nodes) {
  std::vector<Comment> out;
  for (TSNode n : nodes) {
    std::string t(doc.nodeText(n));
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.pop_back();
    out.push_back({rangeOf(n), t});
  }
  return out;
}
}  // namespace

std::vector<Comment> commentNodesIn(const syntax::Document& doc, ByteRange r) {
  std::vector<TSNode> nodes;
  collectComments(doc, r, nodes);
  return commentsOf(doc, nodes);
}

std::vector<Comment> commentNodesUnder(const syntax::Document& doc, TSNode root, ByteRange r) {
  std::vector<TSNode> nodes;
  collectCommentsIn(doc.text(), root, r, nodes);
  std::erase_if(nodes, [&](TSNode c) { return ts_node_start_byte(c) < r.begin || ts_node_start_byte(c) >= r.end; });
  return commentsOf(doc, nodes);
}

std::vector<std::string> commentsIn(const syntax::Document& doc, ByteRange r) {
  std::vector<std::string> out;
  for (auto& c : commentNodesIn(doc, r)) out.push_back(c.text);
  return out;
}

void Lowerer::finish() {
  // Trivia serve the formatter, which reads a whole document; read by function (a one-shot lint), the
  // functions' trees are gone by now.
  if (doc_.readsByFunction()) return;
  auto& trivia = region_.trivia;
  std::vector<TSNode> comments;
  collectComments(doc_, regionLines(doc_, region_.range), comments);
  std::sort(anchors_.begin(), anchors_.end(), [](auto& a, auto& b) {
    return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.range.end > b.range.end;
  });
  const std::string& text = doc_.text();
  for (TSNode c : comments) {
    ByteRange r = rangeOf(c);
    bool verbatim = std::any_of(verbatim_.begin(), verbatim_.end(), [&](auto& v) { return v.begin <= r.begin && r.begin < v.end; });
    if (verbatim) continue;
    std::string body(doc_.slice(r));
    uint32_t lineStart = doc_.lines().lineStart(doc_.lines().lineOf(r.begin));
    uint32_t p = r.begin;
    while (p > lineStart && (text[p - 1] == ' ' || text[p - 1] == '\t')) --p;
    bool ownLine = p == lineStart;
    if (!ownLine) {
      uint32_t token = p - 1;
      // `x: T,  # why`: the comment is about the item before the separating comma.
      if (text[token] == ',')
        while (token > lineStart && (text[token] == ',' || text[token] == ' ' || text[token] == '\t')) --token;
      // Anchors nest and are sorted by start: the innermost holding `token` is the last one starting at or
      // before it that still covers it.
      const Anchor* best = nullptr;
      auto it = std::upper_bound(anchors_.begin(), anchors_.end(), token,
                                 [](uint32_t t, const Anchor& a) { return t < a.range.begin; });
      while (it != anchors_.begin()) {
        --it;
        if (it->range.begin <= token && token < it->range.end &&
            (!best || it->range.end - it->range.begin < best->range.end - best->range.begin))
          best = &*it;
        if (best && it->range.begin < best->range.begin) break;
      }
      if (best) {
        auto& item = trivia.items[best->key];
        item.trailing = item.trailing.empty() ? body : item.trailing + "  " + body;
        // Did the comment follow the item's last token?
        uint32_t last = best->range.end;
        while (last > best->range.begin && (text[last - 1] == ' ' || text[last - 1] == '\n' || text[last - 1] == '\r')) --last;
        item.trailingAtEnd = token + 1 >= last;
        continue;
      }
      trivia.dangling.push_back(body);
      continue;
    }
    auto next = std::lower_bound(anchors_.begin(), anchors_.end(), r.end,
                                 [](const Anchor& a, uint32_t end) { return a.range.begin < end; });
    if (next == anchors_.end()) trivia.dangling.push_back(body);
    else trivia.items[next->key].leading.push_back(body);
  }
  // A blank line among the blank-or-comment lines just above an item.
  for (auto& a : anchors_) {
    uint32_t line = doc_.lines().lineOf(a.range.begin);
    bool blank = false;
    while (line > 0) {
      --line;
      if (blankLine(doc_, line)) { blank = true; break; }
      if (!commentLine(doc_, line)) break;
    }
    if (blank) trivia.items[a.key].blankBefore = true;
  }
}

}  // namespace tvms::frontend
