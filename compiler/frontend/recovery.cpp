// Error recovery for a module whose class body holds a syntax error. tree-sitter's recovery often lets
// one broken function swallow the rest of the file, so the module is split by indentation into its
// statements and functions, and each function is parsed on its own: a tree of only the class header,
// the module statements and that function (tree-sitter's included ranges), so byte offsets stay those
// of the real document and the cost stays linear. A broken function then costs only itself.
#include <algorithm>
#include <memory>
#include <set>

#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/recovery.h"

namespace tvms::frontend {

namespace {

struct Chunk {
  uint32_t begin, end;  // whole lines
  bool function;
};

uint32_t indentOf(std::string_view line) {
  uint32_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

bool blankOrComment(std::string_view line) {
  size_t k = line.find_first_not_of(" \t\r");
  return k == std::string_view::npos || line[k] == '#';
}

}  // namespace

std::optional<Region> recoverBrokenModule(const syntax::Document& doc, const Aliases& aliases, TSNode decorated) {
  TSNode classDef = field(decorated, "definition");
  if (!isType(classDef, "class_definition")) return std::nullopt;
  auto& lines = doc.lines();
  const std::string& text = doc.text();
  uint32_t headerLine = lines.lineOf(ts_node_start_byte(classDef));
  uint32_t firstBodyLine = headerLine + 1;
  uint32_t regionIndent = ts_node_start_point(decorated).column;
  // The body: lines after the header, up to the first code line indented at most as the decorator.
  uint32_t bodyIndent = 0;
  std::vector<Chunk> chunks;
  uint32_t line = firstBodyLine;
  for (; line < lines.lineCount(); ++line) {
    std::string_view l = doc.slice({lines.lineStart(line), lines.lineEnd(line)});
    if (blankOrComment(l)) continue;
    uint32_t ind = indentOf(l);
    if (ind <= regionIndent) break;
    if (!bodyIndent) bodyIndent = ind;
    if (ind != bodyIndent) continue;
    std::string_view code = l.substr(ind);
    bool startsFunction = code.starts_with("@") || code.starts_with("def ");
    bool continuesDecorators = !chunks.empty() && chunks.back().function && code.starts_with("def ") &&
                               [&] {
                                 // the previous code line at this indent was a decorator
                                 for (uint32_t k = line; k-- > firstBodyLine;) {
                                   std::string_view p = doc.slice({lines.lineStart(k), lines.lineEnd(k)});
                                   if (blankOrComment(p)) continue;
                                   return indentOf(p) == bodyIndent && p.substr(indentOf(p)).starts_with("@");
                                 }
                                 return false;
                               }();
    if (continuesDecorators) continue;
    if (!chunks.empty()) chunks.back().end = lines.lineStart(line);
    chunks.push_back({lines.lineStart(line), 0, startsFunction});
  }
  uint32_t bodyEnd = line < lines.lineCount() ? lines.lineStart(line) : static_cast<uint32_t>(text.size());
  if (chunks.empty()) return std::nullopt;
  chunks.back().end = bodyEnd;

  uint32_t headerBegin = lines.lineStart(lines.lineOf(ts_node_start_byte(decorated)));
  uint32_t headerEnd = lines.lineStart(firstBodyLine);
  auto includedRanges = [&](const Chunk* only) {
    std::vector<ByteRange> ranges{{headerBegin, headerEnd}};
    for (auto& c : chunks)
      if (!c.function || &c == only) ranges.push_back({c.begin, c.end});
    return ranges;
  };

  std::set<std::string> functionNames;
  for (auto& c : chunks)
    if (c.function) functionNames.insert(functionNameInText(doc, {c.begin, c.end}));

  Region merged;
  merged.module = std::make_shared<ir::IRModule>();
  merged.range = {ts_node_start_byte(decorated), bodyEnd};
  merged.indentColumn = regionIndent;
  bool first = true;
  auto lowerPart = [&](const Chunk* only) -> bool {
    std::unique_ptr<TSTree, void (*)(TSTree*)> part(doc.parseRanges(includedRanges(only)), ts_tree_delete);
    if (!part) return false;
    TSNode node = ts_node_descendant_for_byte_range(ts_tree_root_node(part.get()), ts_node_start_byte(decorated),
                                                    ts_node_start_byte(decorated));
    while (!ts_node_is_null(node) && !isType(node, "decorated_definition")) node = ts_node_parent(node);
    if (ts_node_is_null(node)) return false;
    Region r;
    r.module = std::make_shared<ir::IRModule>();
    r.range = rangeOf(node);
    Lowerer lowerer(doc, aliases, r);
    lowerer.declareGlobals(&functionNames);
    lowerer.lowerModuleClass(node, field(node, "definition"), lowerer.decoratorArgs(namedChildren(namedChildren(node)[0])[0]));
    ByteRange scope = only ? ByteRange{only->begin, only->end} : ByteRange{headerBegin, bodyEnd};
    for (auto& d : r.diagnostics)
      if (first || (d.range.begin >= scope.begin && d.range.begin < scope.end)) merged.diagnostics.push_back(d);
    if (first) {
      auto fns = std::move(merged.module->functions);
      *merged.module = *r.module;
      merged.module->functions = std::move(fns);
      first = false;
    }
    for (auto& f : r.module->functions) merged.module->functions.push_back(f);
    for (auto& f : r.functions) merged.functions.push_back(f);
    // Each part lowers the module statements again into its own module, freed when the part is done
    // (only the first part's are kept): only the entries of what is kept may come over, or a freed
    // object's address, reused by a later part's allocation, would find the freed object's range.
    auto kept = [&](ByteRange x) { return !only || (x.begin >= scope.begin && x.begin < scope.end); };
    merged.map.ranges.merge(r.map.ranges, kept);
    merged.map.operands.merge(r.map.operands, kept);
    // Every part lowers the module statements again; their names are kept once, from the first part.
    for (auto& n : r.map.names)
      if (kept(n.range)) merged.map.names.push_back(n);
    return true;
  };
  // The module statements alone, then each function with them.
  if (!lowerPart(nullptr)) return std::nullopt;
  for (auto& c : chunks)
    if (c.function && !lowerPart(&c)) return std::nullopt;
  // A syntax error outside every function (in a module statement or the header) is still reported.
  if (std::none_of(merged.diagnostics.begin(), merged.diagnostics.end(), [](auto& d) { return d.code == diag::Code::TVS001; }))
    return std::nullopt;
  return merged;
}

}  // namespace tvms::frontend
