#include "compiler/ir/doc.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tvms::ir {

namespace {

bool ownComments(const Doc& d) {
  if (d.kind != Doc::Kind::Bracket) return false;
  if (d.forceBreak && !d.parts.empty()) return true;
  for (auto& c : d.comments) if (!c.empty()) return true;
  for (auto& l : d.leading) if (!l.empty()) return true;
  return !d.closing.empty();
}

void flatInto(const Doc& d, std::string& out) {
  switch (d.kind) {
    case Doc::Kind::Text: out += d.text; break;
    case Doc::Kind::Concat: for (auto& p : d.parts) flatInto(p, out); break;
    case Doc::Kind::Bracket:
      out += d.open;
      for (size_t i = 0; i < d.parts.size(); ++i) {
        if (i) out += ", ";
        flatInto(d.parts[i], out);
      }
      if (d.singleTrailingComma && d.parts.size() == 1) out += ",";
      out += d.close;
      break;
  }
}

bool allLinesFit(const std::string& s, int firstCol, int width) {
  int col = firstCol;
  for (char c : s) {
    if (c == '\n') { col = 0; continue; }
    if (++col > width) return false;
  }
  return true;
}

std::string spaces(int n) { return std::string(static_cast<size_t>(std::max(n, 0)), ' '); }

// One rendering. A Concat tries several breaks and each try renders its parts again, so without
// memory the work doubles with every level of nesting (22 nested calls took 16 s). Every
// (doc, column, indent) is laid out once here and every doc's comment check is made once, so a
// rendering costs at most a few layouts per doc.
class Layout {
 public:
  explicit Layout(int width) : width(width) {}
  std::string render(const Doc& d, int col, int indent);

 private:
  bool hasComments(const Doc& d);
  std::string renderBracketBroken(const Doc& d, int indent);
  std::string renderConcatBreaking(const Doc& d, size_t which, int col, int indent);
  std::string layout(const Doc& d, int col, int indent);

  const int width;
  std::unordered_map<const Doc*, bool> comments_;
  std::map<std::tuple<const Doc*, int, int>, std::string> rendered_;
};

bool Layout::hasComments(const Doc& d) {
  auto it = comments_.find(&d);
  if (it != comments_.end()) return it->second;
  bool any = ownComments(d);
  for (size_t i = 0; !any && i < d.parts.size(); ++i) any = hasComments(d.parts[i]);
  return comments_[&d] = any;
}

std::string Layout::render(const Doc& d, int col, int indent) {
  auto key = std::make_tuple(&d, col, indent);
  auto it = rendered_.find(key);
  if (it != rendered_.end()) return it->second;
  std::string out = layout(d, col, indent);
  rendered_.emplace(key, out);
  return out;
}

std::string Layout::renderBracketBroken(const Doc& d, int indent) {
  const int inner = indent + 4;
  std::string out = d.open;
  if (!hasComments(d)) {
    std::string body;
    for (size_t i = 0; i < d.parts.size(); ++i) {
      if (i) body += ", ";
      flatInto(d.parts[i], body);
    }
    if (d.singleTrailingComma && d.parts.size() == 1) body += ",";
    if (inner + static_cast<int>(body.size()) <= width) return out + "\n" + spaces(inner) + body + "\n" + spaces(indent) + d.close;
  }
  for (size_t i = 0; i < d.parts.size(); ++i) {
    if (i < d.leading.size())
      for (auto& c : d.leading[i]) out += "\n" + spaces(inner) + c;
    out += "\n" + spaces(inner) + render(d.parts[i], inner, inner);
    // black: a comma after every item of a list split one per line, none after a lone item (`f(\n    x\n)`)
    // unless it was written (magic) or makes a tuple.
    bool comma = i + 1 < d.parts.size() || (d.singleTrailingComma && d.parts.size() == 1) ||
                 (d.trailingCommaWhenBroken && (d.parts.size() > 1 || d.forceBreak));
    if (comma) out += ",";
    if (i < d.comments.size() && !d.comments[i].empty()) out += "  " + d.comments[i];
  }
  for (auto& c : d.closing) out += "\n" + spaces(inner) + c;
  return out + "\n" + spaces(indent) + d.close;
}

// Renders a Concat with bracket `which` broken and the others flat.
std::string Layout::renderConcatBreaking(const Doc& d, size_t which, int col, int indent) {
  std::string out;
  for (size_t i = 0; i < d.parts.size(); ++i) {
    const Doc& p = d.parts[i];
    if (i == which) {
      out += renderBracketBroken(p, indent);
    } else if (hasComments(p)) {
      out += render(p, col, indent);
    } else {
      flatInto(p, out);
    }
    auto nl = out.rfind('\n');
    col = nl == std::string::npos ? col + static_cast<int>(out.size()) : static_cast<int>(out.size() - nl - 1);
  }
  return out;
}

std::string Layout::layout(const Doc& d, int col, int indent) {
  if (!hasComments(d)) {
    std::string flat;
    flatInto(d, flat);
    if (col + static_cast<int>(flat.size()) <= width || d.kind == Doc::Kind::Text) return flat;
  }
  if (d.kind == Doc::Kind::Bracket) return renderBracketBroken(d, indent);
  // Concat: try breaking each bracket in preference order; take the first whose lines all fit.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < d.parts.size(); ++i)
    if (d.parts[i].kind != Doc::Kind::Text) candidates.push_back(i);
  if (candidates.empty()) {
    std::string flat;
    flatInto(d, flat);
    return flat;
  }
  if (d.breakLastFirst) std::reverse(candidates.begin(), candidates.end());
  // A bracket holding a comment must break: prefer it.
  std::stable_partition(candidates.begin(), candidates.end(), [&](size_t i) { return hasComments(d.parts[i]); });
  std::string first;
  for (size_t c : candidates) {
    if (d.parts[c].kind == Doc::Kind::Concat) {
      // A nested Concat (e.g. a call inside the statement) breaks by its own rules.
      std::string out;
      int k = col;
      for (size_t i = 0; i < d.parts.size(); ++i) {
        std::string piece = (i == c || hasComments(d.parts[i])) ? render(d.parts[i], k, indent) : flatDoc(d.parts[i]);
        out += piece;
        auto nl = out.rfind('\n');
        k = nl == std::string::npos ? col + static_cast<int>(out.size()) : static_cast<int>(out.size() - nl - 1);
      }
      if (first.empty()) first = out;
      if (allLinesFit(out, col, width)) return out;
      continue;
    }
    std::string out = renderConcatBreaking(d, c, col, indent);
    if (first.empty()) first = out;
    if (allLinesFit(out, col, width)) return out;
  }
  // No single break is enough: break every part that does not fit where it lands.
  std::string out;
  int k = col;
  for (auto& p : d.parts) {
    out += render(p, k, indent);
    auto nl = out.rfind('\n');
    k = nl == std::string::npos ? col + static_cast<int>(out.size()) : static_cast<int>(out.size() - nl - 1);
  }
  if (allLinesFit(out, col, width)) return out;
  return first;
}

}  // namespace

std::string flatDoc(const Doc& d) {
  std::string out;
  flatInto(d, out);
  return out;
}

std::string renderDoc(const Doc& d, int indent, int width) { return Layout(width).render(d, indent, indent); }

}  // namespace tvms::ir
