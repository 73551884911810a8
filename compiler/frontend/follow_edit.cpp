// followEdit: keeps a FileResult true after a one-function edit without lowering the file again.
#include <algorithm>

#include "compiler/frontend/frontend.h"

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

}  // namespace

void shiftDiagnostics(std::vector<diag::Diagnostic>& ds, uint32_t from, int64_t delta) {
  shiftDiagnostics(ds, Shift{from, delta});
}

std::optional<size_t> followEdit(const syntax::Document& doc, FileResult& file, ByteRange edit, uint32_t newLength) {
  // Only an edit strictly inside one function of a class region is followed: its span's first and last
  // bytes are untouched, so the function still starts where it started.
  if (file.pipeline || std::any_of(file.regions.begin(), file.regions.end(), [](auto& r) { return r.builtByProgram; }))
    return std::nullopt;
  size_t regionIndex = file.regions.size(), fn = 0;
  for (size_t r = 0; r < file.regions.size() && regionIndex == file.regions.size(); ++r) {
    auto& region = file.regions[r];
    if (!region.module || !(region.range.begin < edit.begin && edit.end < region.range.end)) continue;
    // A region with a syntax error was lowered by recovery (lowerDocument's chunks): its functions and
    // names come from separate trees, so it is lowered again as a whole.
    if (std::any_of(region.diagnostics.begin(), region.diagnostics.end(), [](auto& d) { return d.code == "TVS001"; }))
      return std::nullopt;
    // A module nested in Python (inside a test function, as TVM's tests write them) is not split into
    // per-function islands the way a top-level one is: an edit that breaks one of its functions was
    // seen by the whole lowering and not by the function's own, so it is lowered again as a whole.
    if (region.indentColumn > 0) return std::nullopt;
    // TVMScript that reads the program's values (and modules the program builds) is lowered with the
    // program evaluated, which only a whole lowering does.
    if (region.readsPython) return std::nullopt;
    for (size_t i = 0; i < region.functions.size(); ++i) {
      ByteRange span = region.functions[i].range;
      if (span.begin < edit.begin && edit.end < span.end) { regionIndex = r; fn = i; break; }
    }
  }
  if (regionIndex == file.regions.size()) return std::nullopt;
  Region& region = file.regions[regionIndex];
  const ByteRange oldSpan = region.functions[fn].range;
  // File-level diagnostics (TVS010 at the first implicit `R.`) are made while lowering the whole file:
  // one inside the edited function would have to be made again, so the file is lowered again.
  if (std::any_of(file.diagnostics.begin(), file.diagnostics.end(),
                  [&](auto& d) { return d.range.end >= oldSpan.begin && d.range.begin <= oldSpan.end; }))
    return std::nullopt;
  // Other functions resolve `cls.name` against the module's names while they are lowered (TVS003):
  // a renamed function changes what they say, so it is lowered again as a whole.
  const std::string oldName = fn < region.module->functions.size() ? region.module->functions[fn].name : "";
  const Shift shift{edit.end, static_cast<int64_t>(newLength) - static_cast<int64_t>(edit.end - edit.begin)};

  // The edited function's names, ranges and diagnostics go (its IR is replaced); everything after moves.
  std::erase_if(region.map.names, [&](const NameRef& n) { return inside(n.range, oldSpan); });
  for (auto& n : region.map.names) n.range = shift.of(n.range);
  region.map.ranges.update([&](ByteRange& r) {
    if (inside(r, oldSpan)) return false;
    r = shift.of(r);
    return true;
  });
  region.map.operands.update([&](ByteRange& r) {
    if (inside(r, oldSpan)) return false;
    r = shift.of(r);
    return true;
  });
  std::erase_if(region.diagnostics, [&](auto& d) { return d.range.begin >= oldSpan.begin && d.range.begin < oldSpan.end; });
  shiftDiagnostics(region.diagnostics, shift);
  shiftDiagnostics(file.diagnostics, shift);
  for (size_t i = 0; i < region.functions.size(); ++i)
    if (i != fn) region.functions[i].range = shift.of(region.functions[i].range);
  region.range = shift.of(region.range);
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

  if (!relowerFunction(doc, region, fn)) return std::nullopt;
  // The function must still end where the edit moved its end: otherwise the edit split or merged
  // definitions and the region's list of functions is no longer this one.
  if (region.functions[fn].range.end != shift.at(oldSpan.end) || region.functions[fn].range.begin != oldSpan.begin)
    return std::nullopt;
  // A function the edit broke: a whole lowering recovers more of it (lowerDocument's chunked recovery)
  // than its island alone shows, and the two must agree.
  if (region.functions[fn].broken) return std::nullopt;
  if (fn >= region.module->functions.size() || region.module->functions[fn].name != oldName) return std::nullopt;
  return regionIndex;
}

}  // namespace tvms::frontend
