// Buffer compaction (compact.h): indices split into fixed and varying terms, the varying ones bounded
// by interval arithmetic over their loops' extents.
#include "compiler/tir/compact.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "compiler/tir/rewrite.h"

namespace tvms::tir {

namespace {

struct Interval {
  int64_t lo = 0, hi = 0;
};

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Interval arithmetic that gives up (nullopt) where a bound would overflow 64 bits.
std::optional<Interval> add(Interval a, Interval b) {
  Interval r;
  if (__builtin_add_overflow(a.lo, b.lo, &r.lo) || __builtin_add_overflow(a.hi, b.hi, &r.hi)) return std::nullopt;
  return r;
}
std::optional<Interval> negate(Interval a) {
  if (a.lo == INT64_MIN || a.hi == INT64_MIN) return std::nullopt;
  return Interval{-a.hi, -a.lo};
}
std::optional<Interval> multiply(Interval a, Interval b) {
  int64_t p[4];
  if (__builtin_mul_overflow(a.lo, b.lo, &p[0]) || __builtin_mul_overflow(a.lo, b.hi, &p[1]) || __builtin_mul_overflow(a.hi, b.lo, &p[2]) ||
      __builtin_mul_overflow(a.hi, b.hi, &p[3]))
    return std::nullopt;
  return Interval{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

// The values `e` takes as each varying loop runs over [0, extent); nullopt for an expression outside
// + - * (by a constant) floordiv / floormod (by a positive constant) min max of integers.
std::optional<Interval> bounds(const ExprP& e, const std::map<int, int64_t>& varying) {
  switch (e->kind) {
    case Expr::Kind::Int: return Interval{e->intValue, e->intValue};
    case Expr::Kind::Var: {
      auto it = varying.find(e->id);
      if (it == varying.end() || it->second < 1) return std::nullopt;
      return Interval{0, it->second - 1};
    }
    case Expr::Kind::Cast:
      if (isFloat(e->type) || isFloat(e->a->type)) return std::nullopt;
      return bounds(e->a, varying);
    case Expr::Kind::Binary: {
      auto a = bounds(e->a, varying), b = bounds(e->b, varying);
      if (!a || !b) return std::nullopt;
      int64_t c = b->lo;
      bool constant = b->lo == b->hi;
      switch (e->binOp) {
        case BinOp::Add: return add(*a, *b);
        case BinOp::Sub: {
          auto nb = negate(*b);
          return nb ? add(*a, *nb) : std::nullopt;
        }
        case BinOp::Mul: return multiply(*a, *b);
        case BinOp::FloorDiv:
          if (!constant || c <= 0) return std::nullopt;
          return Interval{floorDiv(a->lo, c), floorDiv(a->hi, c)};
        case BinOp::FloorMod:
          if (!constant || c <= 0) return std::nullopt;
          if (floorDiv(a->lo, c) == floorDiv(a->hi, c)) return Interval{a->lo - floorDiv(a->lo, c) * c, a->hi - floorDiv(a->hi, c) * c};
          return Interval{0, c - 1};
        case BinOp::Min: return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
        case BinOp::Max: return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

// A top-level sum as its terms with their signs.
void terms(const ExprP& e, int sign, std::vector<std::pair<ExprP, int>>& out) {
  if (e->kind == Expr::Kind::Cast && !isFloat(e->type) && !isFloat(e->a->type)) return terms(e->a, sign, out);
  if (e->kind == Expr::Kind::Binary && (e->binOp == BinOp::Add || e->binOp == BinOp::Sub)) {
    terms(e->a, sign, out);
    terms(e->b, e->binOp == BinOp::Add ? sign : -sign, out);
    return;
  }
  out.push_back({e, sign});
}

// An expression's structure as text: equal keys, equal expressions.
std::string key(const ExprP& e) {
  if (!e) return "_";
  std::string k = "(" + std::to_string(static_cast<int>(e->kind)) + "," + std::to_string(static_cast<int>(e->type)) + ",";
  switch (e->kind) {
    case Expr::Kind::Int: k += std::to_string(e->intValue); break;
    case Expr::Kind::Var: case Expr::Kind::Load: k += std::to_string(e->id); break;
    case Expr::Kind::Binary: k += std::to_string(static_cast<int>(e->binOp)); break;
    case Expr::Kind::Unary: k += std::to_string(static_cast<int>(e->unOp)); break;
    default: break;
  }
  return k + key(e->a) + key(e->b) + key(e->c) + ")";
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> valueRange(const ExprP& e, const std::map<int, int64_t>& loopExtents) {
  auto b = bounds(e, loopExtents);
  if (!b) return std::nullopt;
  return std::make_pair(b->lo, b->hi);
}

std::optional<CompactedRegion> compactRegion(const std::vector<BufferAccess>& accesses, const std::map<int, LoopInfo>& loops, bool shared) {
  if (accesses.empty()) return std::nullopt;
  // Where the array lives: the loops around every access (a block's shared array above its threads).
  std::vector<int> place = accesses[0].loops;
  for (auto& a : accesses) {
    size_t n = 0;
    while (n < place.size() && n < a.loops.size() && place[n] == a.loops[n]) ++n;
    place.resize(n);
  }
  if (shared)
    for (size_t i = 0; i < place.size(); ++i)
      if (auto it = loops.find(place[i]); it != loops.end() && it->second.threadAxis) {
        place.resize(i);
        break;
      }
  std::set<int> fixed(place.begin(), place.end());
  size_t rank = accesses[0].index.size();
  CompactedRegion out;
  for (size_t axis = 0; axis < rank; ++axis) {
    std::string fixedKey;
    ExprP fixedPart;
    std::optional<Interval> range;
    for (size_t n = 0; n < accesses.size(); ++n) {
      const BufferAccess& a = accesses[n];
      if (a.index.size() != rank) return std::nullopt;
      std::map<int, int64_t> varying;
      for (int id : a.loops) {
        if (fixed.count(id)) continue;
        auto it = loops.find(id);
        if (it == loops.end() || !it->second.extent || it->second.extent->kind != Expr::Kind::Int) return std::nullopt;
        varying[id] = it->second.extent->intValue;
      }
      std::vector<std::pair<ExprP, int>> parts;
      terms(a.index[axis], 1, parts);
      std::vector<std::string> fixedKeys;
      ExprP fixedSum = intImm(0);
      Interval inner{0, 0};
      for (auto& [term, sign] : parts) {
        std::set<int> vars;
        variablesOf(term, vars);
        bool anyVarying = std::any_of(vars.begin(), vars.end(), [&](int id) { return varying.count(id); });
        bool allVarying = std::all_of(vars.begin(), vars.end(), [&](int id) { return varying.count(id); });
        if (anyVarying && !allVarying) return std::nullopt;  // a term mixing both kinds does not split
        if (!anyVarying && (term->kind != Expr::Kind::Int)) {
          fixedKeys.push_back((sign > 0 ? "+" : "-") + key(term));
          fixedSum = binary(sign > 0 ? BinOp::Add : BinOp::Sub, fixedSum, cast(ScalarType::I64, term));
          continue;
        }
        auto b = bounds(term, varying);
        if (b && sign < 0) b = negate(*b);
        auto sum = b ? add(inner, *b) : std::nullopt;
        if (!sum) return std::nullopt;
        inner = *sum;
      }
      std::sort(fixedKeys.begin(), fixedKeys.end());
      std::string k;
      for (auto& f : fixedKeys) k += f + ";";
      if (n == 0) {
        fixedKey = k;
        fixedPart = fixedSum;
        range = inner;
      } else {
        if (k != fixedKey) return std::nullopt;  // accesses whose fixed parts differ: no one region
        range = Interval{std::min(range->lo, inner.lo), std::max(range->hi, inner.hi)};
      }
    }
    int64_t extent;
    if (__builtin_sub_overflow(range->hi, range->lo, &extent) || extent == INT64_MAX) return std::nullopt;
    out.offset.push_back(binary(BinOp::Add, fixedPart, intImm(range->lo)));
    out.extent.push_back(extent + 1);
  }
  return out;
}

}  // namespace tvms::tir
