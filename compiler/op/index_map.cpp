#include "compiler/op/index_map.h"

#include <cctype>
#include <map>

#include "compiler/op/infer_util.h"

namespace tvms::op {

namespace {

using ir::PrimExpr;
using ir::PrimExprPtr;

// Recursive descent over Python's integer expressions, precedence as Python's.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<IndexMap> whole() {
    auto m = lambda();
    return m && atEnd() ? m : std::nullopt;
  }

 private:
  std::optional<IndexMap> lambda() {
    skip();
    if (take("T.index_map(")) {  // T.index_map(lambda ...: ...)
      auto m = lambda();
      return m && take(")") ? m : std::nullopt;
    }
    if (!takeWord("lambda")) return std::nullopt;
    IndexMap m;
    for (;;) {
      auto name = identifier();
      if (!name) return std::nullopt;
      m.params.push_back(*name);
      if (take(":")) break;
      if (!take(",")) return std::nullopt;
    }
    bool parenthesised = take("(");
    for (;;) {
      auto e = sum();
      if (!e) return std::nullopt;
      m.results.push_back(e);
      if (!take(",")) break;
      if (parenthesised && peek(')')) break;  // a trailing comma
    }
    if (parenthesised && !take(")")) return std::nullopt;
    return m;
  }

  PrimExprPtr sum() {
    PrimExprPtr e = product();
    while (e) {
      if (take("+")) e = binary("+", e, product());
      else if (peek('-')) { take("-"); e = binary("-", e, product()); }
      else break;
    }
    return e;
  }
  PrimExprPtr product() {
    PrimExprPtr e = atom();
    while (e) {
      if (take("//")) e = binary("//", e, atom());
      else if (take("*")) e = binary("*", e, atom());
      else if (take("%")) e = binary("%", e, atom());
      else break;
    }
    return e;
  }
  PrimExprPtr atom() {
    skip();
    // Parentheses nest without end in text a user may write: past a depth no index map needs, give up.
    if (++depth_ > kMaxDepth) return nullptr;
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    if (take("(")) {
      PrimExprPtr e = sum();
      return take(")") ? e : nullptr;
    }
    if (take("T.int64(") || take("T.int32(")) {
      PrimExprPtr e = sum();
      return take(")") ? e : nullptr;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (v > (INT64_MAX - 9) / 10) return nullptr;
        v = v * 10 + (s_[pos_++] - '0');
      }
      return ir::primInt(v);
    }
    auto name = identifier();
    return name ? ir::primVar(*name) : nullptr;
  }
  static PrimExprPtr binary(const char* op, PrimExprPtr a, PrimExprPtr b) { return a && b ? ir::primBinary(op, a, b) : nullptr; }

  std::optional<std::string> identifier() {
    skip();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (pos_ == start || std::isdigit(static_cast<unsigned char>(s_[start]))) return std::nullopt;
    return std::string(s_.substr(start, pos_ - start));
  }
  bool takeWord(std::string_view w) {
    skip();
    if (s_.substr(pos_, w.size()) != w || (pos_ + w.size() < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_ + w.size()])))) return false;
    pos_ += w.size();
    return true;
  }
  bool take(std::string_view t) {
    skip();
    if (s_.substr(pos_, t.size()) != t) return false;
    pos_ += t.size();
    return true;
  }
  bool peek(char c) {
    skip();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool atEnd() {
    skip();
    return pos_ == s_.size();
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  static constexpr int kMaxDepth = 200;
  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// The smallest and largest value of `e` over the parameters' ranges [0, extent).
struct Range {
  PrimExprPtr lo, hi;
};
std::optional<Range> rangeOf(const PrimExprPtr& e, const std::map<std::string, PrimExprPtr>& extents) {
  using namespace infer;
  switch (e->kind) {
    case PrimExpr::Kind::Int:
      if (e->value < 0) return std::nullopt;
      return Range{e, e};
    case PrimExpr::Kind::Var: {
      auto it = extents.find(e->name);
      if (it == extents.end()) return std::nullopt;
      return Range{dim(0), sub(it->second, dim(1))};
    }
    case PrimExpr::Kind::Binary: {
      auto a = rangeOf(e->lhs, extents), b = rangeOf(e->rhs, extents);
      if (!a || !b) return std::nullopt;
      const std::string& op = e->name;
      if (op == "+") return Range{add(a->lo, b->lo), add(a->hi, b->hi)};
      if (op == "*") return Range{mul(a->lo, b->lo), mul(a->hi, b->hi)};
      auto c = constInt(e->rhs);  // division and modulo by positive constants
      if (!c || *c <= 0) return std::nullopt;
      if (op == "//") return Range{floorDiv(a->lo, dim(*c)), floorDiv(a->hi, dim(*c))};
      if (op == "%") {
        auto hi = constInt(a->hi);
        return Range{dim(0), hi && *hi < *c ? a->hi : dim(*c - 1)};
      }
      return std::nullopt;  // "-" may go below zero
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<IndexMap> parseIndexMap(std::string_view text) { return Parser(text).whole(); }

std::optional<std::vector<PrimExprPtr>> indexMapShape(const IndexMap& map, const std::vector<PrimExprPtr>& shape) {
  if (map.params.size() != shape.size()) return std::nullopt;
  std::map<std::string, PrimExprPtr> extents;
  for (size_t i = 0; i < shape.size(); ++i) extents[map.params[i]] = shape[i];
  std::vector<PrimExprPtr> out;
  for (auto& r : map.results) {
    auto range = rangeOf(r, extents);
    if (!range) return std::nullopt;
    out.push_back(infer::add(range->hi, infer::dim(1)));
  }
  return out;
}

}  // namespace tvms::op
