// followEdit: keeps a FileResult true after a one-function edit without lowering the file again.
#include <algorithm>
#include <iterator>
#include <set>
#include <string_view>
#include <unordered_map>

#include "compiler/frontend/frontend.h"
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/recovery.h"
#include "compiler/frontend/syntax_errors.h"

namespace tvms::frontend {

namespace {

// The range an old endpoint denotes after an edit that replaced old bytes [e.begin, e.end): endpoints
// at or after the edit's end move by `delta`; the ones before it stay.
struct Shift {
  uint32_t from;
  int64_t delta;
  uint32_t at(uint32_t p) const { return p >= from ? static_cast<uint32_t>(p + delta) : p; }
  ByteRange of(ByteRange r) const { return {at(r.begin), at(r.end)}; }
};

bool inside(ByteRange r, ByteRange span) { return r.begin >= span.begin && r.end <= span.end && r.end > r.begin; }

void shiftDiagnostics(std::vector<diag::Diagnostic>& ds, const Shift& s) {
  for (auto& d : ds) {
    d.range = s.of(d.range);
    for (auto& r : d.related) r.range = s.of(r.range);
    for (auto& f : d.fixes)
      for (auto& e : f.edits) e.range = s.of(e.range);
  }
}

// The region's names, source ranges and diagnostics inside `gone` (old offsets: functions whose IR is
// replaced) are dropped; the rest move with the edit.
void forgetAndShift(Region& region, const std::vector<ByteRange>& gone, const Shift& shift) {
  // The region's maps hold a range per IR node of the file (~100k at 10k lines): most lie outside
  // every gone range, which one comparison with their hull tells.
  ByteRange hull{UINT32_MAX, 0};
  for (ByteRange g : gone) hull = {std::min(hull.begin, g.begin), std::max(hull.end, g.end)};
  auto isGone = [&](ByteRange r) {
    return r.begin >= hull.begin && r.end <= hull.end && std::any_of(gone.begin(), gone.end(), [&](ByteRange g) { return inside(r, g); });
  };
  auto startsInGone = [&](ByteRange r) {
    return r.begin >= hull.begin && r.begin < hull.end &&
           std::any_of(gone.begin(), gone.end(), [&](ByteRange g) { return r.begin >= g.begin && r.begin < g.end; });
  };
  std::erase_if(region.map.names, [&](const NameRef& n) { return isGone(n.range); });
  for (auto& n : region.map.names) n.range = shift.of(n.range);
  region.map.ranges.update([&](ByteRange& r) {
    if (isGone(r)) return false;
    r = shift.of(r);
    return true;
  });
  region.map.operands.update([&](ByteRange& r) {
    if (isGone(r)) return false;
    r = shift.of(r);
    return true;
  });
  std::erase_if(region.diagnostics, [&](auto& d) { return startsInGone(d.range); });
  shiftDiagnostics(region.diagnostics, shift);
  for (auto& r : region.moduleStatements) r = shift.of(r);
}

void shiftOtherRegions(FileResult& file, size_t regionIndex, const Shift& shift) {
  for (size_t r = 0; r < file.regions.size(); ++r)
    if (r != regionIndex) {
      auto& other = file.regions[r];
      other.range = shift.of(other.range);
      for (auto& f : other.functions) f.range = shift.of(f.range);
      for (auto& n : other.map.names) n.range = shift.of(n.range);
      other.map.ranges.update([&](ByteRange& r) { r = shift.of(r); return true; });
      other.map.operands.update([&](ByteRange& r) { r = shift.of(r); return true; });
      shiftDiagnostics(other.diagnostics, shift);
    }
}

// Orders a module's functions as `spans` (source order) has their names; a name it lacks counts as its
// first. Keyed once: sorting 500 functions by name lookups in a map cost ~8% of a paste.
void putInSourceOrder(std::vector<ir::ModuleFunction>& functions, const std::vector<FunctionSpan>& spans) {
  std::unordered_map<std::string_view, size_t> order;
  order.reserve(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) order.emplace(spans[i].name, i);
  std::vector<std::pair<size_t, size_t>> keyed;  // (source position, index in `functions`)
  keyed.reserve(functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    auto it = order.find(functions[i].name);
    keyed.emplace_back(it == order.end() ? 0 : it->second, i);
  }
  if (std::is_sorted(keyed.begin(), keyed.end())) return;
  std::stable_sort(keyed.begin(), keyed.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<ir::ModuleFunction> sorted;
  sorted.reserve(functions.size());
  for (auto& [position, index] : keyed) sorted.push_back(std::move(functions[index]));
  functions = std::move(sorted);
}

// The region a follow may update: a top-level module class written in the file, lowered from its own
// tree (not by recovery, not reading the program's values), holding the old bytes `edit`.
std::optional<size_t> followableRegion(const FileResult& file, ByteRange edit) {
  if (file.pipeline || std::any_of(file.regions.begin(), file.regions.end(), [](auto& r) { return r.builtByProgram; }))
    return std::nullopt;
  for (size_t r = 0; r < file.regions.size(); ++r) {
    auto& region = file.regions[r];
    if (!region.module || !(region.range.begin < edit.begin && edit.end < region.range.end)) continue;
    // A module nested in Python (inside a test function, as TVM's tests write them) is not split into
    // per-function islands the way a top-level one is; TVMScript that reads the program's values (and
    // modules the program builds) is lowered with the program evaluated, which only a whole lowering
    // does; a module lowered by recovery has its functions and names from separate trees.
    if (region.indentColumn > 0 || region.readsPython || region.recovered || region.misindented) return std::nullopt;
    return r;
  }
  return std::nullopt;
}

// An edit that changed which functions the class has (the Document reparsed `span`, new offsets):
// the functions the span holds are lowered, the others keep their IR (and so their analysis).
std::optional<size_t> followSpanEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength,
                                     ByteRange span) {
  auto regionIndex = followableRegion(file, edit);
  if (!regionIndex) return std::nullopt;
  Region& region = file.regions[*regionIndex];
  if (region.module->standalone) return std::nullopt;
  const Shift shift{edit.end, static_cast<int64_t>(newLength) - static_cast<int64_t>(edit.end - edit.begin)};
  TSNode decorated = regionNode(doc, region);
  TSNode classDef = field(decorated, "definition");
  if (!isType(classDef, "class_definition") || shift.at(region.range.end) != ts_node_end_byte(decorated) ||
      span.begin < ts_node_start_byte(decorated) || span.end > ts_node_end_byte(decorated))
    return std::nullopt;

  // The span's old extent: what was lowered from there goes, but for what the edit left as it was.
  const ByteRange oldSpan{span.begin, static_cast<uint32_t>(span.end - (shift.delta))};
  const std::vector<TSNode> statements = doc.statementsOf(field(classDef, "body"));
  std::vector<TSNode> fresh;
  for (TSNode stmt : statements)
    if (ts_node_start_byte(stmt) >= span.begin && ts_node_start_byte(stmt) < span.end) fresh.push_back(stmt);
  std::vector<ByteRange> gone, keptInSpan;  // old offsets
  auto untouched = [&](ByteRange r) { return r.end <= edit.begin || r.begin >= edit.end; };
  // A module statement (global_infos, attributes, an extern binding) decides every function: one the
  // edit changed, or one it made, means the module is lowered as a whole.
  for (ByteRange m : region.moduleStatements) {
    if (m.end <= oldSpan.begin || m.begin >= oldSpan.end) continue;
    auto same = std::find_if(fresh.begin(), fresh.end(), [&](TSNode n) { return rangeOf(n) == shift.of(m); });
    if (!untouched(m) || same == fresh.end()) return std::nullopt;
    keptInSpan.push_back(m);
    fresh.erase(same);
  }
  // Which functions stay: the ones the edit did not touch that are outside the span (in new offsets),
  // or in it with the very same extent (the function after the edit, which the span reparse includes).
  std::vector<FunctionSpan> kept;
  for (auto& f : region.functions) {
    ByteRange now = shift.of(f.range);
    auto same = std::find_if(fresh.begin(), fresh.end(), [&](TSNode n) { return rangeOf(n) == now && !doc.brokenIslandAt(n); });
    if (untouched(f.range) && (now.end <= span.begin || now.begin >= span.end)) {
      kept.push_back({f.name, now, f.broken});
    } else if (untouched(f.range) && !f.broken && same != fresh.end()) {
      kept.push_back({f.name, now, false});
      keptInSpan.push_back(f.range);
      fresh.erase(same);
    } else {
      gone.push_back(f.range);
    }
  }
  // What was lowered from the rest of the span's old extent goes too.
  std::sort(keptInSpan.begin(), keptInSpan.end(), [](ByteRange a, ByteRange b) { return a.begin < b.begin; });
  uint32_t from = oldSpan.begin;
  for (ByteRange k : keptInSpan) {
    if (k.begin > from) gone.push_back({from, k.begin});
    from = std::max(from, k.end);
  }
  if (from < oldSpan.end) gone.push_back({from, oldSpan.end});
  if (std::any_of(fresh.begin(), fresh.end(), [](TSNode n) { return !isType(n, "decorated_definition") && !isType(n, "function_definition"); }))
    return std::nullopt;
  if (std::any_of(file.diagnostics.begin(), file.diagnostics.end(), [&](auto& d) {
        return std::any_of(gone.begin(), gone.end(), [&](ByteRange g) { return d.range.end >= g.begin && d.range.begin <= g.end; }) ||
               (d.range.end >= edit.begin && d.range.begin <= edit.end);
      }))
    return std::nullopt;

  // Names: every function's name resolves `cls.name` in the others. A kept function that used a name
  // that went, or failed on one that came, is lowered again too.
  std::set<std::string> goneNames, freshNames;
  for (auto& f : region.functions)
    if (std::find(gone.begin(), gone.end(), f.range) != gone.end()) goneNames.insert(f.name);
  for (TSNode stmt : fresh)
    if (!freshNames.insert(functionNameInText(doc, rangeOf(stmt))).second) return std::nullopt;
  for (auto& k : kept) {
    // Functions are removed from the module by name: a name both gone and kept (or made again) is
    // left to a whole lowering. A name the module already had twice (Python keeps the last) is kept.
    if (freshNames.count(k.name) || goneNames.count(k.name)) return std::nullopt;
  }
  std::vector<std::string> changed;
  std::set_symmetric_difference(goneNames.begin(), goneNames.end(), freshNames.begin(), freshNames.end(), std::back_inserter(changed));
  if (!changed.empty()) {
    // Where kept functions resolved a name that went (a function use) or failed to resolve one that
    // came (TVS003 "module ... has no function"): `cls.name` is the only way a function's lowering
    // reads the others' names (Lowerer::isGlobal).
    std::vector<ByteRange> dependent;  // new offsets
    std::set<std::string> changedNames(changed.begin(), changed.end());
    for (auto& n : region.map.names)
      if (n.kind == NameRef::Kind::Function && !n.isDefinition && changedNames.count(n.name)) dependent.push_back(shift.of(n.range));
    for (auto& d : region.diagnostics)
      if (d.code == diag::Code::TVS003 && changedNames.count(std::string(doc.slice(shift.of(d.range))))) dependent.push_back(shift.of(d.range));
    for (size_t i = 0; i < kept.size();) {
      ByteRange k = kept[i].range;
      if (std::none_of(dependent.begin(), dependent.end(), [&](ByteRange r) { return r.begin >= k.begin && r.end <= k.end; })) { ++i; continue; }
      if (std::count_if(kept.begin(), kept.end(), [&](auto& other) { return other.name == kept[i].name; }) > 1) return std::nullopt;
      auto stmt = std::find_if(statements.begin(), statements.end(), [&](TSNode n) { return ts_node_start_byte(n) == k.begin; });
      if (stmt == statements.end()) return std::nullopt;
      fresh.push_back(*stmt);
      // its old range, for forgetting what it held
      auto old = std::find_if(region.functions.begin(), region.functions.end(), [&](auto& f) { return shift.of(f.range) == k; });
      gone.push_back(old->range);
      goneNames.insert(kept[i].name);
      freshNames.insert(kept[i].name);
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (kept.empty() && fresh.empty()) return std::nullopt;

  forgetAndShift(region, gone, shift);
  shiftDiagnostics(file.diagnostics, shift);
  shiftOtherRegions(file, *regionIndex, shift);
  region.range = shift.of(region.range);
  std::erase_if(region.module->functions, [&](const ir::ModuleFunction& f) { return goneNames.count(f.name) > 0; });
  region.functions = kept;
  std::sort(fresh.begin(), fresh.end(), [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
  Aliases aliases = fileAliases(doc);
  Lowerer lowerer(doc, aliases, region);
  // A use of `R.` without its import is reported once, at the file's first (TVS010): a whole lowering.
  if (!lowerer.lowerMembers(fresh, freshNames) || !aliases.implicitUses().empty() || region.readsPython) return std::nullopt;
  // Source order, for the functions and for the module (whose order its analyses follow).
  std::stable_sort(region.functions.begin(), region.functions.end(), [](auto& a, auto& b) { return a.range.begin < b.range.begin; });
  putInSourceOrder(region.module->functions, region.functions);
  return regionIndex;
}

std::optional<size_t> followOneEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength);

}  // namespace

void shiftDiagnostics(std::vector<diag::Diagnostic>& ds, uint32_t from, int64_t delta) {
  shiftDiagnostics(ds, Shift{from, delta});
}

std::optional<size_t> followEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength) {
  auto followed = followOneEdit(doc, file, edit, newLength);
  if (followed)
    for (auto& region : file.regions) renumberEmptyBodyErrors(region.diagnostics, doc);
  return followed;
}

namespace {
std::optional<size_t> followOneEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength) {
  if (auto span = doc.lastSpan()) return followSpanEdit(doc, file, edit, newLength, *span);
  // Otherwise only an edit strictly inside one function of a class region is followed: its span's
  // first and last bytes are untouched, so the function still starts where it started.
  auto found = followableRegion(file, edit);
  if (!found) return std::nullopt;
  const size_t regionIndex = *found;
  size_t fn = file.regions[regionIndex].functions.size();
  for (size_t i = 0; i < file.regions[regionIndex].functions.size(); ++i) {
    ByteRange span = file.regions[regionIndex].functions[i].range;
    if (span.begin < edit.begin && edit.end < span.end) { fn = i; break; }
  }
  if (fn == file.regions[regionIndex].functions.size()) return std::nullopt;
  Region& region = file.regions[regionIndex];
  // A region with a syntax error: which functions an edit inside one of them leaves standing is only
  // as sure as the Document's island reparse; a whole-file reparse may have moved them, so the region
  // is lowered again as a whole.
  if (doc.lastEditReparsedFile() &&
      std::any_of(region.diagnostics.begin(), region.diagnostics.end(), [](auto& d) { return d.code == diag::Code::TVS001; }))
    return std::nullopt;
  const ByteRange oldSpan = region.functions[fn].range;
  // File-level diagnostics (TVS010 at the first implicit `R.`) are made while lowering the whole file:
  // one inside the edited function would have to be made again, so the file is lowered again.
  if (std::any_of(file.diagnostics.begin(), file.diagnostics.end(),
                  [&](auto& d) { return d.range.end >= oldSpan.begin && d.range.begin <= oldSpan.end; }))
    return std::nullopt;
  // Other functions resolve `cls.name` against the module's names while they are lowered (TVS003):
  // a renamed function changes what they say, so it is lowered again as a whole.
  const std::string oldName = region.functions[fn].name;
  const Shift shift{edit.end, static_cast<int64_t>(newLength) - static_cast<int64_t>(edit.end - edit.begin)};

  // The edited function's names, ranges and diagnostics go (its IR is replaced); everything after moves.
  forgetAndShift(region, {oldSpan}, shift);
  shiftDiagnostics(file.diagnostics, shift);
  for (size_t i = 0; i < region.functions.size(); ++i)
    if (i != fn) region.functions[i].range = shift.of(region.functions[i].range);
  region.range = shift.of(region.range);
  shiftOtherRegions(file, regionIndex, shift);
  // The function's own extent in the new text: relowering drops the diagnostics inside it, and with
  // its old extent a shrinking edit dropped the next statement's (already moved there).
  region.functions[fn].range = {oldSpan.begin, shift.at(oldSpan.end)};

  if (!relowerFunction(doc, region, fn)) return std::nullopt;
  // The function now reads the file's Python (a prim_func's constant): only a whole lowering evaluates it.
  if (region.readsPython) return std::nullopt;
  // The function must still end where the edit moved its end: otherwise the edit split or merged
  // definitions and the region's list of functions is no longer this one.
  if (region.functions[fn].range.end != shift.at(oldSpan.end) || region.functions[fn].range.begin != oldSpan.begin)
    return std::nullopt;
  // A function the edit broke, after a whole-file reparse: a whole lowering may recover more of it
  // (lowerDocument's chunked recovery). A broken island of a module class is what a whole lowering
  // shows too; a broken standalone function, or one in a file with file-level diagnostics (its uses
  // of `R.` without an import are not seen while it is broken), is lowered whole.
  if (region.functions[fn].broken && (doc.lastEditReparsedFile() || region.module->standalone || !file.diagnostics.empty()))
    return std::nullopt;
  if (region.functions[fn].name != oldName) return std::nullopt;
  return regionIndex;
}

}  // namespace

}  // namespace tvms::frontend
