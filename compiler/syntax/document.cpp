#include "compiler/syntax/document.h"

#include "compiler/syntax/function_trees.h"
#include "compiler/syntax/parse_text.h"
#include "compiler/syntax/skeleton_scan.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tvms::syntax {

ByteRange rangeOf(TSNode n) { return {ts_node_start_byte(n), ts_node_end_byte(n)}; }

Document::Document(std::string text, Parsing parsing, unsigned helpers) : text_(std::move(text)) {
  parser_ = newPythonParser();
  lines_.reset(text_);
  if (parsing == Parsing::ByFunction && readByFunction(helpers)) return;
  tree_ = parseText(parser_, nullptr, text_);
  findIslands();
}

void Document::parseWhole() {
  readWholeAfterAll_ |= functionTrees_ != nullptr;
  dropTrees();
  tree_ = parseText(parser_, nullptr, text_);
  findIslands();
}

void Document::dropFunctionTrees() {
  if (!functionTrees_) return;
  functionTreesParsed_ += functionTrees_->parsed();
  mostFunctionTreesAlive_ = std::max(mostFunctionTreesAlive_, functionTrees_->mostAlive());
  functionTrees_.reset();
}

void Document::dropTrees() {
  dropFunctionTrees();
  dropIslandTrees();
  islands_.clear();
  spans_.clear();
  if (tree_) ts_tree_delete(tree_);
  tree_ = nullptr;
}

std::string Document::releaseText() {
  dropTrees();
  return std::move(text_);
}

Document::~Document() {
  functionTrees_.reset();
  dropIslandTrees();
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

std::string_view Document::slice(ByteRange r) const {
  r.end = std::min<uint32_t>(r.end, static_cast<uint32_t>(text_.size()));
  r.begin = std::min(r.begin, r.end);
  return std::string_view(text_).substr(r.begin, r.end - r.begin);
}

std::string_view Document::nodeText(TSNode n) const { return slice(rangeOf(n)); }

void Document::dropIslandTrees() {
  for (auto& i : islands_)
    i.tree.release();
  islands_.clear();
  for (auto& s : spans_) s.tree.release();
  spans_.clear();
}

namespace {

// The first body line's start of a definition, or -1 when its body is on the def line itself
// (`def f(): return x`): such an island is never used for edits.
uint32_t firstBodyLine(const LineIndex& lines, TSNode definition) {
  TSNode def = undecorated(definition);
  TSNode body = ts_node_child_by_field_name(def, "body", 4);
  uint32_t line = lines.lineOf(ts_node_start_byte(ts_node_is_null(body) ? def : body));
  if (!ts_node_is_null(body) && line == lines.lineOf(ts_node_start_byte(def))) return static_cast<uint32_t>(-1);
  return lines.lineStart(line);
}

ByteRange wholeLines(const LineIndex& lines, TSNode n) {
  uint32_t b = lines.lineStart(lines.lineOf(ts_node_start_byte(n)));
  uint32_t lastLine = lines.lineOf(ts_node_end_byte(n) > 0 ? ts_node_end_byte(n) - 1 : 0);
  return ByteRange{b, lines.lineEnd(lastLine)};
}

// Moves a range for an edit that replaced old bytes `edit` (delta bytes longer): a range after it
// moves, a range holding it grows.
void follow(ByteRange& r, ByteRange edit, int64_t delta) {
  if (r.begin >= edit.end) {
    r.begin = static_cast<uint32_t>(r.begin + delta);
    r.end = static_cast<uint32_t>(r.end + delta);
  } else if (r.end >= edit.end) {
    r.end = static_cast<uint32_t>(r.end + delta);
  }
}

// The class definition whose body is `body`, and the node at column 0 that holds it (its decorated
// definition, or itself), when `body` is the body of a column-0 class; null nodes otherwise.
std::pair<TSNode, TSNode> columnZeroClassOf(TSNode body) {
  TSNode cls = ts_node_parent(body);
  if (!isType(cls, "class_definition")) return {};
  TSNode top = isType(ts_node_parent(cls), "decorated_definition") ? ts_node_parent(cls) : cls;
  if (!isType(ts_node_parent(top), "module") || ts_node_start_point(top).column != 0) return {};
  return {cls, top};
}

}  // namespace

// Islands: definitions at column 0 and the definitions directly in a column-0 class body, when the
// skeleton holds no error there (a broken region is reparsed as a whole).
void Document::findIslands() {
  dropIslandTrees();
  TSNode root = ts_tree_root_node(tree_);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode top = ts_tree_cursor_current_node(&cursor);
      if (ts_node_start_point(top).column != 0 || ts_node_has_error(top)) continue;
      TSNode def = undecorated(top);
      if (isDefinition(top) && isType(def, "function_definition")) {
        islands_.push_back({{0, 0}, wholeLines(lines_, top), firstBodyLine(lines_, top), {}, false, std::nullopt});
      } else if (isType(def, "class_definition")) {
        TSNode body = ts_node_child_by_field_name(def, "body", 4);
        if (ts_node_is_null(body)) continue;
        uint32_t bodyLine = lines_.lineOf(ts_node_start_byte(body));
        uint32_t headerEndLine = lines_.lineOf(ts_node_start_byte(def));
        if (bodyLine == headerEndLine) continue;  // `class X: pass` on one line
        ByteRange header{lines_.lineStart(lines_.lineOf(ts_node_start_byte(top))), lines_.lineStart(headerEndLine + 1)};
        TSTreeCursor inner = ts_tree_cursor_new(body);
        if (ts_tree_cursor_goto_first_child(&inner)) {
          do {
            TSNode stmt = ts_tree_cursor_current_node(&inner);
            if (isDefinition(stmt)) islands_.push_back({header, wholeLines(lines_, stmt), firstBodyLine(lines_, stmt), {}, false, std::nullopt});
          } while (ts_tree_cursor_goto_next_sibling(&inner));
        }
        ts_tree_cursor_delete(&inner);
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

// Parses an island on its own: its header lines and its own lines, at their document offsets.
bool Document::parseIsland(Island& island, TSTree* old) {
  std::vector<ByteRange> read;
  if (island.header.end > island.header.begin) read.push_back(island.header);
  read.push_back(island.range);
  TSTree* fresh = parseRangesWith(parser_, text_, lines_, read, old);
  if (!fresh) return false;
  // The island must still be one definition that ends where the island ends (no dedent that closed
  // it, no second statement).
  TSNode root = ts_tree_root_node(fresh);
  TSNode scope = root;
  bool extraAtTop = false;  // the island's lines also produced statements outside the class
  if (island.header.end > island.header.begin) {
    scope = firstClassBody(root);
    extraAtTop = ts_node_named_child_count(root) != 1;
    if (ts_node_is_null(scope)) {
      ts_tree_delete(fresh);
      return false;
    }
  }
  uint32_t defs = 0;
  TSNode only{};
  for (uint32_t i = 0; i < ts_node_named_child_count(scope); ++i) {
    TSNode c = ts_node_named_child(scope, i);
    if (isType(c, "comment")) continue;
    ++defs;
    only = c;
  }
  bool ok = !extraAtTop && defs == 1 && isDefinition(only) && ts_node_start_byte(only) >= island.range.begin &&
            lines_.lineOf(ts_node_end_byte(only) > 0 ? ts_node_end_byte(only) - 1 : 0) ==
                lines_.lineOf(island.range.end > island.range.begin ? island.range.end - 1 : island.range.end);
  // A parse with a syntax error stays bounded to the island too (it is reported as one broken
  // function) as long as the island still starts with its definition; a clean parse that is not one
  // definition means the function's extent changed, and only the whole file can say how.
  bool startsWithDefinition = defs >= 1 && isDefinition(ts_node_named_child(scope, 0)) &&
                              ts_node_start_byte(ts_node_named_child(scope, 0)) >= island.range.begin;
  bool broken = !ok && ts_node_has_error(root) && startsWithDefinition;
  // A body line dedented part way (to the class body's column, then deeper lines) ends the function in
  // tree-sitter's reading, which accepts the deeper lines as more statements of the class; CPython
  // stops there ("unexpected indent"). The function is broken, and the error stays in it.
  std::optional<uint32_t> indentError;
  // (Only when no other definition starts at the body's column among them: then the frontend's reading
  // of the whole file's tree, the function up to the next definition, is the same broken function.)
  if (!ok && !broken && !extraAtTop && startsWithDefinition) {
    uint32_t column = ts_node_start_point(ts_node_named_child(scope, 0)).column;
    bool another = false;
    for (uint32_t i = 1; i < ts_node_named_child_count(scope); ++i) {
      TSNode c = ts_node_named_child(scope, i);
      if (isType(c, "comment")) continue;
      if (ts_node_start_point(c).column != column) {
        if (!indentError) indentError = ts_node_start_byte(c);
      } else {
        another |= isDefinition(c);
      }
    }
    if (another) indentError.reset();
    broken = indentError.has_value();
  }
  if (!ok && !broken) {
    ts_tree_delete(fresh);
    return false;
  }
  island.tree = ShiftedTree(fresh, read, lines_, static_cast<uint32_t>(text_.size()));  // the caller owns `old`
  island.broken = broken;
  island.indentError = indentError;
  return true;
}

TSTree* Document::parseRanges(const std::vector<ByteRange>& ranges) const {
  TSParser* parser = newPythonParser();
  TSTree* tree = parseRangesWith(parser, text_, lines_, ranges);
  ts_parser_delete(parser);
  return tree;
}

namespace {

// The outermost definition starting at `begin` in the tree under `root` (decorated_definition over its
// function_definition), or a null node.
TSNode definitionStartingAt(TSNode root, uint32_t begin) {
  TSNode n = ts_node_descendant_for_byte_range(root, begin, begin);
  while (!ts_node_is_null(n) && !(isDefinition(n) && ts_node_start_byte(n) == begin)) n = ts_node_parent(n);
  while (!ts_node_is_null(n) && isDefinition(ts_node_parent(n)) && ts_node_start_byte(ts_node_parent(n)) == begin)
    n = ts_node_parent(n);
  return n;
}

// The definitions directly in the bodies of the column-0 classes under `root`, in order.
std::vector<TSNode> classBodyDefinitions(TSNode root) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  auto eachChild = [&cursor](TSNode parent, auto&& visit) {
    ts_tree_cursor_reset(&cursor, parent);
    if (!ts_tree_cursor_goto_first_child(&cursor)) return;
    do visit(ts_tree_cursor_current_node(&cursor));
    while (ts_tree_cursor_goto_next_sibling(&cursor));
  };
  std::vector<TSNode> bodies;
  eachChild(root, [&](TSNode top) {
    if (ts_node_start_point(top).column != 0) return;
    TSNode cls = undecorated(top);
    if (!isType(cls, "class_definition")) return;
    TSNode body = ts_node_child_by_field_name(cls, "body", 4);
    if (!ts_node_is_null(body)) bodies.push_back(body);
  });
  for (TSNode body : bodies)
    eachChild(body, [&](TSNode stmt) {
      if (isDefinition(stmt)) out.push_back(stmt);
    });
  ts_tree_cursor_delete(&cursor);
  return out;
}

}  // namespace

// Read by function: the scan's functions must be definitions of the skeleton over the same lines,
// ending where the scan says, and the skeleton clean; else the file is parsed whole. The helpers start
// on the functions while the skeleton is parsed.
bool Document::readByFunction(unsigned helpers) {
  auto skeleton = scanSkeleton(text_);
  if (!skeleton) return false;
  std::vector<FunctionTrees::Function> functions;
  for (auto& f : skeleton->functions) functions.push_back({f.header, f.range, f.definitionBegin, f.definitionEnd});
  auto trees = std::make_unique<FunctionTrees>(text_, lines_, std::move(functions), helpers);
  TSTree* tree = parseRangesWith(parser_, skeleton->text, lines_, skeletonReadRanges(*skeleton));
  if (!tree) return false;
  TSNode root = ts_tree_root_node(tree);
  bool ok = !ts_node_has_error(root);
  // Each scanned function, in order, must be the next definition of the skeleton's column-0 class
  // bodies, starting and ending where the scan says. One walk over those bodies: a search from the
  // root for each function (ts_node_parent scans a class body's children from the first) was 1.6 ms
  // of a 10k-line lint before its lowering could start.
  std::vector<TSNode> definitions;
  if (ok) definitions = classBodyDefinitions(root);
  ok = ok && definitions.size() >= skeleton->functions.size();
  size_t next = 0;
  for (size_t i = 0; ok && i < skeleton->functions.size(); ++i) {
    const ScannedFunction& f = skeleton->functions[i];
    while (next < definitions.size() && ts_node_start_byte(definitions[next]) < f.definitionBegin) ++next;
    ok = next < definitions.size() && ts_node_start_byte(definitions[next]) == f.definitionBegin &&
         ts_node_end_byte(definitions[next]) == f.definitionEnd;
    if (ok) {
      ByteRange lines = wholeLines(lines_, definitions[next]);
      ok = lines.begin == f.range.begin && lines.end == f.range.end;
    }
  }
  if (!ok) {
    ts_tree_delete(tree);
    return false;
  }
  tree_ = tree;
  functionTrees_ = std::move(trees);
  return true;
}

int Document::functionAt(TSNode skeletonNode) const {
  if (!functionTrees_) return -1;
  uint32_t begin = ts_node_start_byte(skeletonNode);
  int k = functionTrees_->indexAt(begin);
  return k >= 0 && functionTrees_->function(k).begin == begin ? k : -1;
}

bool Document::byFunctionFailed() const { return functionTrees_ && functionTrees_->failed(); }
size_t Document::functionTreesParsed() const { return functionTreesParsed_ + (functionTrees_ ? functionTrees_->parsed() : 0); }
size_t Document::mostFunctionTreesAlive() const {
  return std::max(mostFunctionTreesAlive_, functionTrees_ ? functionTrees_->mostAlive() : 0);
}

TSNode Document::headerAt(TSNode skeletonNode) const {
  return functionAt(skeletonNode) >= 0 ? skeletonNode : definitionAt(skeletonNode);
}

void Document::doneWith(TSNode skeletonNode) const {
  if (int k = functionAt(skeletonNode); k >= 0) functionTrees_->doneWith(static_cast<size_t>(k));
}

// The island whose range holds `at`: islands are sorted by range and never overlap, so the last one
// beginning at or before `at` is the only candidate (a binary search: lowering asks once per member).
const Document::Island* Document::islandAt(uint32_t at) const {
  auto after = std::upper_bound(islands_.begin(), islands_.end(), at, [](uint32_t b, const Island& i) { return b < i.range.begin; });
  if (after == islands_.begin()) return nullptr;
  const Island& i = *std::prev(after);
  return at < i.range.end ? &i : nullptr;
}

TSNode Document::definitionAt(TSNode skeletonNode) const {
  uint32_t begin = ts_node_start_byte(skeletonNode);
  if (int k = functionAt(skeletonNode); k >= 0) {
    TSNode n = definitionStartingAt(functionTrees_->root(static_cast<size_t>(k)), begin);
    return ts_node_is_null(n) ? skeletonNode : n;
  }
  if (const Island* i = islandAt(begin); i && i->tree) {
    TSNode n = definitionStartingAt(i->tree.root(), begin);
    if (!ts_node_is_null(n)) return n;
  }
  return skeletonNode;
}

std::optional<Document::BrokenIsland> Document::brokenIslandAt(TSNode skeletonNode) const {
  const Island* i = islandAt(ts_node_start_byte(skeletonNode));
  if (i && i->tree && i->broken) return BrokenIsland{i->range, i->tree.root(), i->indentError};
  return std::nullopt;
}

std::vector<Document::TreePart> Document::treesIn(ByteRange range) const {
  std::vector<TreePart> out;
  for (const LazyPart& p : partsIn(range)) out.push_back({p.function >= 0 ? functionRoot(p.function) : p.root, p.part});
  return out;
}

TSNode Document::functionRoot(int k) const { return functionTrees_->root(static_cast<size_t>(k)); }
void Document::doneWithFunction(int k) const { functionTrees_->doneWith(static_cast<size_t>(k)); }

bool Document::readAlone(TSNode node) const { return functionTrees_ && node.tree == tree_ && functionAt(node) >= 0; }

void Document::readFunctionsAgain() const {
  if (functionTrees_) functionTrees_->rewind();
}

std::vector<Document::LazyPart> Document::partsIn(ByteRange range) const {
  // Each island's tree inside the island, each span's tree in the rest of the span, each function read
  // alone in its range, the skeleton elsewhere.
  std::vector<LazyPart> owned;
  for (auto& i : islands_)
    if (i.tree) owned.push_back({i.tree.root(), i.range});
  if (functionTrees_) {
    // The functions are sorted and disjoint: those overlapping the range are found by binary search.
    size_t first = functionTrees_->firstEndingAfter(range.begin);
    for (size_t f = first; f < functionTrees_->size(); ++f) {
      ByteRange r = functionTrees_->function(f).range;
      if (r.begin >= range.end) break;
      if (r.end > range.begin) owned.push_back({TSNode{}, r, static_cast<int>(f)});
    }
  }
  for (auto& sp : spans_) {
    uint32_t pos = sp.range.begin;
    for (auto& i : islands_) {
      if (!i.tree || i.range.end <= sp.range.begin || i.range.begin >= sp.range.end) continue;
      if (i.range.begin > pos) owned.push_back({sp.tree.root(), {pos, i.range.begin}});
      pos = std::max(pos, i.range.end);
    }
    if (pos < sp.range.end) owned.push_back({sp.tree.root(), {pos, sp.range.end}});
  }
  std::sort(owned.begin(), owned.end(), [](const LazyPart& a, const LazyPart& b) { return a.part.begin < b.part.begin; });
  std::vector<LazyPart> out;
  uint32_t pos = range.begin;
  for (auto& o : owned) {
    if (o.part.end <= range.begin || o.part.begin >= range.end) continue;
    if (o.part.begin > pos) out.push_back({root(), {pos, o.part.begin}});
    out.push_back({o.root, {std::max(o.part.begin, range.begin), std::min(o.part.end, range.end)}, o.function});
    pos = std::max(pos, o.part.end);
  }
  if (pos < range.end) out.push_back({root(), {pos, range.end}});
  return out;
}

std::vector<const Document::Span*> Document::spansOf(TSNode body) const {
  std::vector<const Span*> out;
  auto [cls, top] = columnZeroClassOf(body);
  if (ts_node_is_null(cls)) return out;
  uint32_t headerBegin = lines_.lineStart(lines_.lineOf(ts_node_start_byte(top)));
  for (auto& sp : spans_)
    if (sp.header.begin == headerBegin) out.push_back(&sp);
  return out;
}

TSNode Document::statementAt(TSNode body, uint32_t start) const {
  for (const Span* sp : spansOf(body))
    if (start >= sp->range.begin && start < sp->range.end) {
      body = firstClassBody(sp->tree.root());
      break;
    }
  TSNode n = ts_node_descendant_for_byte_range(body, start, start);
  while (!ts_node_is_null(n) && !ts_node_eq(ts_node_parent(n), body)) n = ts_node_parent(n);
  return !ts_node_is_null(n) && ts_node_start_byte(n) == start ? n : TSNode{};
}

std::vector<TSNode> Document::statementsOf(TSNode body) const {
  std::vector<TSNode> out;
  std::vector<const Span*> spans = spansOf(body);
  size_t next = 0;
  // Named children but comments (comments are trivia, found through treesIn), by cursor: indexing
  // named children is linear in the index.
  auto eachStatement = [](TSNode parent, auto&& visit) {
    TSTreeCursor cursor = ts_tree_cursor_new(parent);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        TSNode c = ts_tree_cursor_current_node(&cursor);
        if (ts_node_is_named(c) && !isType(c, "comment")) visit(c);
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  };
  auto emitSpan = [&](const Span& sp) {
    eachStatement(firstClassBody(sp.tree.root()), [&](TSNode c) {
      if (ts_node_start_byte(c) >= sp.range.begin && ts_node_start_byte(c) < sp.range.end) out.push_back(c);
    });
  };
  eachStatement(body, [&](TSNode c) {
    uint32_t at = ts_node_start_byte(c);
    while (next < spans.size() && spans[next]->range.end <= at) emitSpan(*spans[next++]);
    if (next < spans.size() && at >= spans[next]->range.begin) return;  // stale: the span says what is there
    out.push_back(c);
  });
  while (next < spans.size()) emitSpan(*spans[next++]);
  return out;
}

std::vector<ByteRange> Document::wholeFileEdit(const TSInputEdit& edit, bool treeEdited) {
  ++wholeFileReparses_;
  lastEditReparsedFile_ = true;
  TSTree* old = tree_;
  if (!treeEdited) ts_tree_edit(old, &edit);
  TSTree* fresh = parseText(parser_, old, text_);
  uint32_t count = 0;
  TSRange* changed = ts_tree_get_changed_ranges(old, fresh, &count);
  std::vector<ByteRange> out;
  for (uint32_t i = 0; i < count; ++i) out.push_back({changed[i].start_byte, changed[i].end_byte});
  free(changed);
  ts_tree_delete(old);
  tree_ = fresh;
  findIslands();
  return out;
}

std::vector<ByteRange> Document::applyEdit(ByteRange range, std::string_view newText) {
  if (functionTrees_) parseWhole();  // edits follow the whole-file tree and its islands
  const auto size = static_cast<uint32_t>(text_.size());
  range.end = std::min(range.end, size);
  range.begin = std::min(range.begin, range.end);
  const int64_t delta = static_cast<int64_t>(newText.size()) - (range.end - range.begin);
  lastSpan_.reset();
  lastEditReparsedFile_ = false;

  TSInputEdit edit{};
  edit.start_byte = range.begin;
  edit.old_end_byte = range.end;
  edit.new_end_byte = range.begin + static_cast<uint32_t>(newText.size());
  edit.start_point = pointAt(lines_, range.begin);
  edit.old_end_point = pointAt(lines_, range.end);

  // The island holding the edit: anywhere in its body lines, or on its decorator / def lines when the
  // edit adds or removes no line break and stays clear of the line's indentation (so the lines that
  // decide where the function ends keep their indentation).
  auto sameLines = [&] {
    if (newText.find_first_of("\r\n") != std::string_view::npos) return false;
    if (slice(range).find_first_of("\r\n") != std::string_view::npos) return false;
    uint32_t lineStart = lines_.lineStart(lines_.lineOf(range.begin));
    uint32_t indentEnd = lineStart;
    while (indentEnd < text_.size() && (text_[indentEnd] == ' ' || text_[indentEnd] == '\t')) ++indentEnd;
    return range.begin > indentEnd;
  }();
  auto island = std::find_if(islands_.begin(), islands_.end(), [&](const Island& i) {
    if (i.bodyBegin == static_cast<uint32_t>(-1) || range.end > i.range.end) return false;
    return i.bodyBegin <= range.begin || (i.range.begin < range.begin && sameLines);
  });

  text_.replace(range.begin, range.end - range.begin, newText);
  lines_.applyEdit(text_, range.begin, range.end, newText);
  edit.new_end_point = pointAt(lines_, edit.new_end_byte);

  // Every tree learns the edit; only the island, or else the span of the class around the edit, is
  // reparsed, or else the whole file.
  const ByteRange oldEdit = range;
  ts_tree_edit(tree_, &edit);
  // Without an island to reparse, the trees of the islands and spans the edit touches are dropped
  // whatever follows (a span reparse takes them in, a whole-file reparse drops every one): editing
  // them would cost a walk over every node the edit deletes, in each tree (~20 ms for a 200-line
  // paste undone, whose functions share one span tree).
  auto dropped = [&](ByteRange r) { return island == islands_.end() && r.begin <= oldEdit.end && r.end >= oldEdit.begin; };
  for (auto& i : islands_)
    if (!dropped(i.range)) i.tree.edit(edit);
  for (auto& sp : spans_)
    if (!dropped(sp.range)) sp.tree.edit(edit);
  if (island != islands_.end()) {
    island->range.end = static_cast<uint32_t>(island->range.end + delta);
    ShiftedTree old = island->tree;
    if (nothingDeeperAfter(island->range.end, indentAt(island->range.begin)) && parseIsland(*island, old.get())) {
      ++islandReparses_;
      for (auto& i : islands_) {
        if (&i == &*island) continue;
        follow(i.header, oldEdit, delta);
        follow(i.range, oldEdit, delta);
        if (i.bodyBegin != static_cast<uint32_t>(-1) && i.bodyBegin >= oldEdit.end) i.bodyBegin = static_cast<uint32_t>(i.bodyBegin + delta);
      }
      for (auto& sp : spans_) follow(sp.range, oldEdit, delta);
      std::vector<ByteRange> out;
      if (old) {
        uint32_t count = 0;
        TSRange* changed = ts_tree_get_changed_ranges(old.get(), island->tree.get(), &count);
        for (uint32_t i = 0; i < count; ++i) out.push_back({changed[i].start_byte, changed[i].end_byte});
        free(changed);
        old.release();
      } else {
        out.push_back(island->range);
      }
      return out;
    }
    island->range.end = static_cast<uint32_t>(island->range.end - delta);  // back to the old text's offsets
  }
  if (auto span = reparseSpan(oldEdit, delta)) {
    lastSpan_ = span;
    return {*span};
  }
  return wholeFileEdit(edit, true);
}

uint32_t Document::indentAt(uint32_t lineStart) const {
  uint32_t p = lineStart;
  while (p < text_.size() && text_[p] == ' ') ++p;
  return p - lineStart;
}

// The indentation of the first line of code (neither blank nor only a comment) from the line holding
// `from` on. Spans start below a class header, never on the first line (nothing there: no span).
std::optional<uint32_t> Document::codeIndentFrom(uint32_t from) const {
  uint32_t line = lines_.lineOf(from);
  return line == 0 ? std::nullopt : lines_.nextCodeLineIndent(line - 1);
}

// Whether the code after a function's last line (ending at `end`) starts at `column` or left of it.
// tree-sitter accepts a class body's statements at deeper columns too; such a line would join the
// function when an edit made it able to, which only a parse of more than the function can tell.
bool Document::nothingDeeperAfter(uint32_t end, uint32_t column) const {
  auto indent = lines_.nextCodeLineIndent(lines_.lineOf(end));
  return !indent || *indent <= column;
}

// A span reparse (see the header). Offsets of islands and spans are still the old text's here.
// The span's islands and spans go, the ones after it move, and its definitions (`statements`, from
// `tree`, parsed over `read`) become islands, in source order as they are made (sorting ~500 islands
// cost 6% of a paste); the span becomes a span.
void Document::replaceSpan(ByteRange header, ByteRange oldEdit, int64_t delta, ByteRange oldSpan, ByteRange span, TSTree* tree,
                           const std::vector<ByteRange>& read, const std::vector<TSNode>& statements) {
  std::vector<Island> islands;
  islands.reserve(islands_.size() + statements.size());
  ShiftedTree spanTree(tree, read, lines_, static_cast<uint32_t>(text_.size()));
  bool spanIslandsAdded = false;
  auto addSpanIslands = [&] {
    for (TSNode c : statements)
      if (isDefinition(c))
        islands.push_back({header, wholeLines(lines_, c), firstBodyLine(lines_, c), spanTree.copy(), ts_node_has_error(c), std::nullopt});
    spanIslandsAdded = true;
  };
  for (auto& i : islands_) {
    if (!spanIslandsAdded && i.range.begin >= oldSpan.begin) addSpanIslands();
    if (i.range.begin >= oldSpan.begin && i.range.begin < oldSpan.end) {
      i.tree.release();
      continue;
    }
    if (i.range.begin >= oldSpan.end) {
      follow(i.header, oldEdit, delta);
      follow(i.range, oldEdit, delta);
      if (i.bodyBegin != static_cast<uint32_t>(-1)) i.bodyBegin = static_cast<uint32_t>(i.bodyBegin + delta);
    }
    islands.push_back(i);
  }
  if (!spanIslandsAdded) addSpanIslands();
  islands_ = std::move(islands);
  std::vector<Span> spans;
  for (auto& sp : spans_) {
    if (sp.range.begin >= oldSpan.begin && sp.range.end <= oldSpan.end) {
      sp.tree.release();
      continue;
    }
    follow(sp.range, oldEdit, delta);
    spans.push_back(sp);
  }
  spans.push_back({header, span, spanTree});
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.range.begin < b.range.begin; });
  spans_ = std::move(spans);
}

std::optional<ByteRange> Document::reparseSpan(ByteRange oldEdit, int64_t delta) {
  constexpr uint32_t kMaxSpanBytes = 256 * 1024;  // past this, a whole-file reparse (which also resets the spans)
  auto lineAfter = [&](uint32_t oldOffset) {  // the start of the line after an old offset before the edit
    uint32_t line = lines_.lineOf(oldOffset);
    return line + 1 < lines_.lineCount() ? lines_.lineStart(line + 1) : static_cast<uint32_t>(text_.size());
  };
  // The first function after the edit that it left whole, and the last one before it.
  size_t next = 0;
  while (next < islands_.size() && islands_[next].range.begin < oldEdit.end) ++next;
  if (next == islands_.size()) return std::nullopt;
  const ByteRange header = islands_[next].header;
  if (header.end <= header.begin || oldEdit.begin < header.end) return std::nullopt;  // top-level functions; the header
  // The function after the edit still starts a line; the span's first line of code starts at the class
  // body's column: a deeper one continues the function before it (a body typed under a new `def`
  // line), which then joins the span.
  const uint32_t nextBegin = static_cast<uint32_t>(islands_[next].range.begin + delta);
  if (nextBegin > 0 && text_[nextBegin - 1] != '\n') return std::nullopt;
  const uint32_t bodyColumn = indentAt(nextBegin);
  size_t before = next;  // islands [before, next) lie before the edit and join the span
  while (before > 0 && islands_[before - 1].range.end >= oldEdit.begin) --before;
  uint32_t begin = 0, end = islands_[next].range.end;
  for (int attempt = 0;; ++attempt) {
    bool sameClass = before > 0 && islands_[before - 1].header.begin == header.begin;
    begin = sameClass ? lineAfter(islands_[before - 1].range.end) : header.end;
    if (!sameClass || attempt == 1) break;
    auto indent = codeIndentFrom(begin <= oldEdit.begin ? begin : static_cast<uint32_t>(begin + delta));
    if (!indent || *indent <= bodyColumn) break;
    --before;
  }
  for (auto& sp : spans_)
    if (sp.range.begin < end && sp.range.end > begin) {
      if (sp.header.begin != header.begin) return std::nullopt;
      begin = std::min(begin, sp.range.begin);
      end = std::max(end, sp.range.end);
    }
  if (oldEdit.begin < begin || end - begin > kMaxSpanBytes) return std::nullopt;
  const ByteRange oldSpan{begin, end};
  const ByteRange span{begin, static_cast<uint32_t>(end + delta)};
  if (auto indent = codeIndentFrom(span.begin); !indent || *indent != bodyColumn) return std::nullopt;
  if (!nothingDeeperAfter(span.end, bodyColumn)) return std::nullopt;

  const std::vector<ByteRange> read{header, span};
  TSTree* tree = parseRangesWith(parser_, text_, lines_, read);
  if (!tree) return std::nullopt;
  // One class whose body ends with the function after the edit, unchanged; a syntax error only inside
  // the definitions before it (each is then a broken island, as an island's own error is).
  TSNode root = ts_tree_root_node(tree);
  TSNode body = firstClassBody(root);
  std::vector<TSNode> statements;
  bool bounded = ts_node_named_child_count(root) == 1 && !ts_node_is_null(body);
  uint32_t brokenDefinitions = 0;
  if (bounded)
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
      TSNode c = ts_node_named_child(body, i);
      if (isType(c, "comment")) continue;
      // tree-sitter accepts statements of a class body at other columns (a body line dedented part
      // way) where a whole-file parse may see an error: only the whole file can say what they are.
      bounded &= ts_node_start_point(c).column == bodyColumn;
      if (ts_node_has_error(c)) {
        bounded &= isDefinition(c);
        ++brokenDefinitions;
      }
      statements.push_back(c);
    }
  auto lastLine = [&](TSNode n) { return lines_.lineOf(ts_node_end_byte(n) > 0 ? ts_node_end_byte(n) - 1 : 0); };
  // The function after the edit is still one clean definition (more decorators typed above it may
  // join it), and the span still ends with a clean definition on its last line.
  const uint32_t nextDef = nextBegin + bodyColumn;
  bool nextWhole = std::any_of(statements.begin(), statements.end(), [&](TSNode c) {
    return ts_node_start_byte(c) <= nextDef && nextDef < ts_node_end_byte(c) && isDefinition(c) && !ts_node_has_error(c);
  });
  bounded = bounded && nextWhole && isDefinition(statements.back()) && !ts_node_has_error(statements.back()) &&
            lastLine(statements.back()) == lines_.lineOf(span.end > span.begin ? span.end - 1 : span.end) &&
            ts_node_start_byte(statements.front()) >= span.begin && (!ts_node_has_error(root) || brokenDefinitions > 0);
  if (!bounded) {
    ts_tree_delete(tree);
    return std::nullopt;
  }

  replaceSpan(header, oldEdit, delta, oldSpan, span, tree, read, statements);
  ++spanReparses_;
  return span;
}

std::vector<ByteRange> Document::applyEdit(LineCol begin, LineCol end, std::string_view newText, Encoding enc) {
  uint32_t b = lines_.toOffset(begin, enc);
  uint32_t e = lines_.toOffset(end, enc);
  if (e < b) std::swap(b, e);
  return applyEdit(ByteRange{b, e}, newText);
}

}  // namespace tvms::syntax
