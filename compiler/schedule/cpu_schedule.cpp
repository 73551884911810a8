#include <map>
#include <optional>

#include "compiler/schedule/schedule.h"
#include "compiler/tir/rewrite.h"

namespace tvms::schedule {

using namespace tir;

namespace {

constexpr int64_t kChunk = 16384;  // elements per parallel part of a flat loop
// A top-level loop nest (not a flat loop) that runs fewer body statements than this stays on the
// calling thread: waking the pool costs more than the work (multi_cpu's 64x128 @ 128x32 matmul took
// 70 us on two threads, 7 us on one; the wake-up dominates up to about a million scalar statements).
constexpr int64_t kMinParallelWork = int64_t{1} << 20;
constexpr int64_t kUnbounded = int64_t{1} << 40;

// An upper bound of an integer expression of constants, the kernel's loop variables (bounded by
// their loops, `bounds`) and min / floordiv / floormod / + / * / - of them (dims and indices are never
// negative); kUnbounded where none is known (a symbolic dim).
int64_t upperBound(const ExprP& e, const std::map<int, int64_t>& bounds) {
  if (!e) return kUnbounded;
  auto sat = [](int64_t v) { return std::min(v, kUnbounded); };
  switch (e->kind) {
    case Expr::Kind::Int: return std::max<int64_t>(0, e->intValue);
    case Expr::Kind::Var: {
      auto it = bounds.find(e->id);
      return it == bounds.end() ? kUnbounded : it->second;
    }
    case Expr::Kind::Binary: {
      int64_t a = upperBound(e->a, bounds), b = upperBound(e->b, bounds);
      switch (e->binOp) {
        case BinOp::Min: return std::min(a, b);
        case BinOp::Max: return std::max(a, b);
        case BinOp::Add: return sat(a + b);
        case BinOp::Sub: return a;
        case BinOp::Mul: return a == 0 || b == 0 ? 0 : a >= kUnbounded / std::max<int64_t>(1, b) ? kUnbounded : a * b;
        case BinOp::FloorDiv: return e->b->kind == Expr::Kind::Int && e->b->intValue > 0 ? a / e->b->intValue : a;
        case BinOp::FloorMod: return e->b->kind == Expr::Kind::Int && e->b->intValue > 0 ? e->b->intValue - 1 : a;
        default: return kUnbounded;
      }
    }
    default: return kUnbounded;
  }
}

// At most how many statements `s` runs (each loop's trips times its body's).
int64_t staticWork(const StmtP& s, std::map<int, int64_t>& bounds) {
  auto sum = [&](const std::vector<StmtP>& body) {
    int64_t total = 0;
    for (auto& b : body) total = std::min(kUnbounded, total + staticWork(b, bounds));
    return std::max<int64_t>(1, total);
  };
  if (s->kind == Stmt::Kind::For) {
    int64_t trips = upperBound(s->extent, bounds);
    bounds[s->var] = trips > 0 ? trips - 1 : 0;
    int64_t body = sum(s->body);
    return trips == 0 ? 0 : trips >= kUnbounded / body ? kUnbounded : trips * body;
  }
  if (s->kind == Stmt::Kind::Seq || s->kind == Stmt::Kind::If) return sum(s->body);
  return 1;
}

// Every load inside `e` reads with stride 0 or 1 in v.
bool loadsContiguous(const ExprP& e, int v) {
  if (!e) return true;
  if (e->kind == Expr::Kind::Load) {
    auto s = strideOf(e->a, v);
    return s && (*s == 0 || *s == 1);
  }
  return loadsContiguous(e->a, v) && loadsContiguous(e->b, v) && loadsContiguous(e->c, v);
}

// Stores of contiguous elements, and temporaries (a fused epilogue's value named once per iteration).
bool vectorizable(const Kernel& k, const Stmt& loop) {
  if (loop.keepScalar || loop.iter != IterType::Spatial) return false;
  for (auto& s : loop.body) {
    if (s->kind == Stmt::Kind::Assign && k.vars[static_cast<size_t>(s->var)].temporary && loadsContiguous(s->value, loop.var)) continue;
    if (s->kind != Stmt::Kind::Store) return false;  // an inner loop, a scalar carried across iterations
    if (strideOf(s->index, loop.var) != std::optional<int64_t>(1)) return false;
    if (!loadsContiguous(s->value, loop.var)) return false;
  }
  return !loop.body.empty();
}

// A top-level spatial loop with no loop inside (a flat elementwise pass) split as
// `for i_0 in parallel(ceil(n / kChunk)): for i_1 in vectorized(min(kChunk, n - i_0 * kChunk))`:
// each task of the pool streams a contiguous chunk, each chunk in vector lanes.
StmtP splitFlat(Kernel& k, const Stmt& loop) {
  const std::string name = k.vars[static_cast<size_t>(loop.var)].name;  // a copy: newLoopVar grows k.vars
  int outer = newLoopVar(k, name + "_0"), inner = newLoopVar(k, name + "_1");
  ExprP o = varRef(k, outer), n = loop.extent;
  std::vector<StmtP> body;
  for (auto& s : loop.body) body.push_back(substitute(s, {{loop.var, o * intImm(kChunk) + varRef(k, inner)}}));
  StmtP innerLoop = forLoop(inner, min(intImm(kChunk), n - o * intImm(kChunk)), body, true);
  if (vectorizable(k, *innerLoop)) {
    auto v = std::make_shared<Stmt>(*innerLoop);
    v->forKind = ForKind::Vectorized;
    innerLoop = v;
  }
  auto outerLoop = std::make_shared<Stmt>(*forLoop(outer, floordiv(n + intImm(kChunk - 1), intImm(kChunk)), {innerLoop}, true));
  outerLoop->forKind = ForKind::Parallel;
  return outerLoop;
}

// Loads in `e` that walk memory with stride other than 0 or 1 in `inner` (a transpose's read) and
// with stride 1 in `outer`: the loops a tile turns into short walks over cache lines already loaded.
bool transposedLoad(const ExprP& e, int inner, int outer) {
  if (!e) return false;
  if (e->kind == Expr::Kind::Load) {
    auto in = strideOf(e->a, inner);
    if (!(in && (*in == 0 || *in == 1)) && strideOf(e->a, outer) == std::optional<int64_t>(1)) return true;
  }
  return transposedLoad(e->a, inner, outer) || transposedLoad(e->b, inner, outer) || transposedLoad(e->c, inner, outer);
}

// A perfect nest of spatial loops whose innermost loop stores with unit stride but reads another
// tensor across its rows (permute_dims, a transposed copy inside a fused kernel): read that way, every
// element is a new cache line and, at power-of-two row lengths, the same cache set and a new page
// (8192^2 float32 moved at 1 GB/s per core). Tiled, the nest walks kTile x kTile squares: the outer loops
// (the load's unit-stride loop and the innermost, split) move first, the tile's two loops last, so a
// square's kTile input rows stay in L1 while it is written. Spatial loops are independent, so any
// order is the same computation. Returns null where the nest is not of that form.
constexpr int64_t kTile = 32;

StmtP tileTransposedNest(Kernel& k, const StmtP& top) {
  std::vector<StmtP> nest;
  for (StmtP s = top; s->kind == Stmt::Kind::For; s = s->body.front()) {
    if (s->iter != IterType::Spatial || s->keepScalar) return nullptr;
    nest.push_back(s);
    if (s->body.size() != 1 || s->body.front()->kind != Stmt::Kind::For) break;
  }
  if (nest.size() < 2) return nullptr;
  for (auto& l : nest)  // reordered loops must not bound each other
    for (auto& other : nest)
      if (strideOf(l->extent, other->var) != std::optional<int64_t>(0)) return nullptr;
  const Stmt& innermost = *nest.back();
  int in = innermost.var, outerAt = -1;
  for (auto& s : innermost.body) {
    if (s->kind == Stmt::Kind::Store && strideOf(s->index, in) == std::optional<int64_t>(1)) continue;
    if (s->kind == Stmt::Kind::Assign && k.vars[static_cast<size_t>(s->var)].temporary) continue;
    return nullptr;
  }
  for (int j = static_cast<int>(nest.size()) - 2; j >= 0 && outerAt < 0; --j)
    for (auto& s : innermost.body)
      if (transposedLoad(s->value, in, nest[static_cast<size_t>(j)]->var)) outerAt = j;
  if (outerAt < 0) return nullptr;
  // Each tiled loop v becomes v_o (whole tiles, kept in the nest's order) and v_i (within the tile).
  std::map<int, ExprP> split;
  std::vector<std::pair<int, ExprP>> inners;  // (v_i, its extent) for the two tiled loops
  std::vector<std::pair<int, ExprP>> order;   // the new nest, outermost first, before the tile loops
  for (size_t j = 0; j < nest.size(); ++j) {
    const Stmt& l = *nest[j];
    if (static_cast<int>(j) != outerAt && j + 1 != nest.size()) {
      order.emplace_back(l.var, l.extent);
      continue;
    }
    const std::string name = k.vars[static_cast<size_t>(l.var)].name;  // a copy: newLoopVar grows k.vars
    int o = newLoopVar(k, name + "_o"), i = newLoopVar(k, name + "_i");
    split[l.var] = varRef(k, o) * intImm(kTile) + varRef(k, i);
    order.emplace_back(o, floordiv(l.extent + intImm(kTile - 1), intImm(kTile)));
    inners.emplace_back(i, min(intImm(kTile), l.extent - varRef(k, o) * intImm(kTile)));
  }
  std::vector<StmtP> body;
  for (auto& s : innermost.body) body.push_back(substitute(s, split));
  for (auto it = inners.rbegin(); it != inners.rend(); ++it) body = {forLoop(it->first, it->second, body, true)};
  for (auto it = order.rbegin(); it != order.rend(); ++it) body = {forLoop(it->first, it->second, body, true)};
  return body.front();
}

StmtP scheduleLoop(const Kernel& k, const StmtP& s, bool topLevel) {
  if (s->kind == Stmt::Kind::Seq) {
    auto copy = std::make_shared<Stmt>(*s);
    for (auto& b : copy->body) b = scheduleLoop(k, b, false);  // the thread pool runs only a kernel's own top-level loops
    return copy;
  }
  if (s->kind != Stmt::Kind::For) return s;
  auto copy = std::make_shared<Stmt>(*s);
  if (topLevel && s->iter == IterType::Spatial) copy->forKind = ForKind::Parallel;
  else if (vectorizable(k, *s)) copy->forKind = ForKind::Vectorized;
  for (auto& b : copy->body) b = scheduleLoop(k, b, false);
  return copy;
}

}  // namespace

// A flat loop is cut into chunks of kChunk whatever its size (one chunk runs on the calling thread:
// ThreadPool::parallelFor does not wake the pool for one part); its statements move memory, so a
// million of them is already worth the pool. Any other nest gets the pool only for enough work.
void applyCpu(Kernel& k) {
  for (auto& s : k.body) {
    std::map<int, int64_t> bounds;
    if (s->kind == Stmt::Kind::For && s->iter == IterType::Spatial && !s->keepScalar && !containsLoop(s->body)) s = splitFlat(k, *s);
    else {
      if (s->kind == Stmt::Kind::For)
        if (StmtP tiled = tileTransposedNest(k, s)) s = tiled;
      s = scheduleLoop(k, s, staticWork(s, bounds) >= kMinParallelWork);
    }
  }
}

void apply(Kernel& k) {
  if (k.target.isCpu()) applyCpu(k);
  else if (k.target.isGpu()) applyGpu(k);
}

}  // namespace tvms::schedule
