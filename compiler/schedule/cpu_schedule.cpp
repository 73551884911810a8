#include <map>
#include <optional>

#include "compiler/schedule/reduction_form.h"
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
  if (s->kind == Stmt::Kind::While) return kUnbounded;  // its trip count is not known
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

// A long reduction into one value (R.sum / R.max / R.mean of a whole tensor): `acc = init; for ...:
// acc = acc op e; out = f(acc)` at the kernel's top level ran on one core (14 GB/s of a 16-core
// machine's ~90). Its outermost loop is cut into parts of at least kSplitPartWork iterations, each
// part reduced by a task of the pool into its slot of a scratch array the kernel's tasks share
// (a "shared" buffer: on a CPU, memory of the whole kernel call), then the parts combined in order on
// the calling thread. The parts depend on the shapes only, so the result is the same bits on any
// number of threads.
constexpr int64_t kSplitMinWork = int64_t{1} << 18;
constexpr int64_t kSplitPartWork = int64_t{1} << 16;
constexpr int64_t kSplitMaxParts = 256;

std::optional<std::vector<StmtP>> splitReduction(Kernel& k, const StmtP& init, const StmtP& loop, const StmtP& finish) {
  if (init->kind != Stmt::Kind::Assign || loop->kind != Stmt::Kind::For || finish->kind != Stmt::Kind::Store) return std::nullopt;
  int acc = init->var;
  if (k.vars[static_cast<size_t>(acc)].temporary || loop->iter != IterType::Reduction || loop->keepScalar || loop->forKind != ForKind::Serial ||
      loop->extent->kind != Expr::Kind::Int)
    return std::nullopt;
  std::map<int, BinOp> accumulators;
  if (!reductionBody({loop}, accumulators) || accumulators.size() != 1 || !accumulators.count(acc)) return std::nullopt;
  std::map<int, int64_t> bounds;
  int64_t work = staticWork(loop, bounds), extent = loop->extent->intValue;
  if (work < kSplitMinWork || extent < 2) return std::nullopt;
  int64_t parts = std::min({kSplitMaxParts, extent, work / kSplitPartWork});
  int64_t chunk = (extent + parts - 1) / parts;
  parts = (extent + chunk - 1) / chunk;
  ScalarType t = k.vars[static_cast<size_t>(acc)].type;
  k.buffers.push_back({k.vars[static_cast<size_t>(acc)].name + "_parts", t, false, parts, {}, MemoryScope::Shared});
  int partial = static_cast<int>(k.buffers.size()) - 1;
  const std::string name = k.vars[static_cast<size_t>(loop->var)].name;  // a copy: newLoopVar grows k.vars
  int part = newLoopVar(k, name + "_part"), inner = newLoopVar(k, name + "_in"), combine = newLoopVar(k, name + "_parts");
  ExprP start = varRef(k, part) * intImm(chunk);
  std::vector<StmtP> body;
  for (auto& b : loop->body) body.push_back(substitute(b, {{loop->var, start + varRef(k, inner)}}));
  auto task = std::make_shared<Stmt>(*forLoop(part, intImm(parts), {init, forLoop(inner, min(intImm(chunk), intImm(extent) - start), body),
                                                                    store(partial, varRef(k, part), varRef(k, acc))}, true));
  task->forKind = ForKind::Parallel;
  StmtP gather = forLoop(combine, intImm(parts), {assign(acc, binary(accumulators.at(acc), varRef(k, acc), loadRef(k, partial, varRef(k, combine))))});
  return std::vector<StmtP>{task, init, gather, finish};
}

// A reduction across rows (R.sum(x, axis=0), a mean over the batch): a spatial loop over outputs
// whose body is `acc = init; for r: acc = acc op e; out = f(acc)` and whose load walks the outputs
// contiguously but the reduced rows with a stride. One output per iteration read a column, a new
// cache line per element (4096^2 column sum: 59 ms on two cores, against 2.5 ms for the whole sum).
// Tiled, kColumnTile outputs keep their accumulators in a local array and each reduced row is read
// as one contiguous, vectorized stretch:
//   for o in ceil(N / kColumnTile): accs[:] = init; for r: accs[j] = accs[j] op e(r, o*T + j); out[o*T + j] = f(accs[j])
constexpr int64_t kColumnTile = 256;

std::optional<StmtP> tileColumnReduction(Kernel& k, const Stmt& loop) {
  if (loop.kind != Stmt::Kind::For || loop.iter != IterType::Spatial || loop.keepScalar || loop.body.empty()) return std::nullopt;
  std::vector<StmtP> items = loop.body.size() == 1 && loop.body[0]->kind == Stmt::Kind::Seq ? loop.body[0]->body : loop.body;
  if (items.size() == 1 && items[0]->kind == Stmt::Kind::For) {  // an outer spatial loop: look inside
    auto inner = tileColumnReduction(k, *items[0]);
    if (!inner) return std::nullopt;
    auto copy = std::make_shared<Stmt>(loop);
    copy->body = {*inner};
    return StmtP(copy);
  }
  if (items.size() != 3) return std::nullopt;
  const StmtP &init = items[0], &red = items[1], &finish = items[2];
  if (init->kind != Stmt::Kind::Assign || red->kind != Stmt::Kind::For || finish->kind != Stmt::Kind::Store || red->iter != IterType::Reduction ||
      red->keepScalar || red->body.size() != 1)
    return std::nullopt;
  int acc = init->var, s = loop.var, r = red->var;
  auto op = combinerOf(*red->body[0]);
  if (!op || red->body[0]->var != acc || k.vars[static_cast<size_t>(acc)].temporary) return std::nullopt;
  ExprP e = combinedOperand(*red->body[0]);
  if (!loadsContiguous(e, s) || loadsContiguous(e, r) || strideOf(red->extent, s) != std::optional<int64_t>(0)) return std::nullopt;
  ScalarType t = k.vars[static_cast<size_t>(acc)].type;
  k.buffers.push_back({k.vars[static_cast<size_t>(acc)].name + "_cols", t, false, kColumnTile, {}, MemoryScope::Local});
  int accs = static_cast<int>(k.buffers.size()) - 1;
  const std::string name = k.vars[static_cast<size_t>(s)].name;  // a copy: newLoopVar grows k.vars
  int o = newLoopVar(k, name + "_o");
  auto lanes = [&](auto&& body) {  // for j in min(T, N - o*T): body(j, the output index)
    int j = newLoopVar(k, name + "_j");
    ExprP at = varRef(k, o) * intImm(kColumnTile) + varRef(k, j);
    return forLoop(j, min(intImm(kColumnTile), loop.extent - varRef(k, o) * intImm(kColumnTile)), body(varRef(k, j), at), true);
  };
  StmtP zero = lanes([&](ExprP j, ExprP) { return std::vector<StmtP>{store(accs, j, init->value)}; });
  StmtP rows = forLoop(r, red->extent, {lanes([&](ExprP j, ExprP at) {
                         return std::vector<StmtP>{store(accs, j, binary(*op, loadRef(k, accs, j), substitute(e, {{s, at}})))};
                       })});
  StmtP out = lanes([&](ExprP j, ExprP at) { return std::vector<StmtP>{substitute(finish, {{s, at}, {acc, loadRef(k, accs, j)}})}; });
  return forLoop(o, floordiv(loop.extent + intImm(kColumnTile - 1), intImm(kColumnTile)), {zero, rows, out}, true);
}

// A nest whose outer spatial loop has fewer iterations than a many-core host's pool wants (an
// attention kernel's batch of 2: at most 2 of 16 cores busy) takes the spatial loops right inside
// it into one loop: `for b, i, h` becomes `for f in b*i*h` with b, i and h recovered from f. Only a
// perfect nest of spatial loops of known extents, until there are kWantParts iterations; their
// iterations are independent, so they may be dealt out in any order.
constexpr int64_t kWantParts = 256;
StmtP fuseSmallOuterLoops(Kernel& k, const StmtP& s) {
  std::vector<int> vars;
  std::vector<ExprP> extents;
  int64_t product = 1;
  const Stmt* innermost = nullptr;  // the last loop taken: its body becomes the fused loop's
  for (const Stmt* loop = s.get();;) {
    // The nest's innermost loop stays a loop of its own: it is the one vectorized.
    if (loop->kind != Stmt::Kind::For || loop->iter != IterType::Spatial || loop->keepScalar || loop->extent->kind != Expr::Kind::Int ||
        loop->extent->intValue <= 0 || !containsLoop(loop->body))
      break;
    vars.push_back(loop->var);
    extents.push_back(loop->extent);
    product *= loop->extent->intValue;
    innermost = loop;
    if (product >= kWantParts || loop->body.size() != 1) break;
    loop = loop->body[0].get();
  }
  if (vars.size() < 2 || extents[0]->intValue >= kWantParts) return s;
  int fused = newLoopVar(k, k.vars[static_cast<size_t>(vars[0])].name + "_fused");
  std::map<int, ExprP> at = rowMajorIndex(vars, extents, varRef(k, fused));
  std::vector<StmtP> body;
  for (auto& b : innermost->body) body.push_back(substitute(b, at));
  return forLoop(fused, intImm(product), std::move(body), true);
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
  // Split reductions, at the top level or in a top-level sequence (a full reduction's kernel is one):
  // the parts' loop must be a top-level statement to run on the pool, so such a sequence is spliced in.
  std::vector<StmtP> body;
  for (auto& s : k.body) {
    std::vector<StmtP> items = s->kind == Stmt::Kind::Seq ? s->body : std::vector<StmtP>{s};
    bool split = false;
    for (size_t i = 0; i + 2 < items.size(); ++i)
      if (auto parts = splitReduction(k, items[i], items[i + 1], items[i + 2])) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i), items.begin() + static_cast<std::ptrdiff_t>(i + 3));
        items.insert(items.begin() + static_cast<std::ptrdiff_t>(i), parts->begin(), parts->end());
        i += parts->size() - 1;
        split = true;
      }
    if (split) body.insert(body.end(), items.begin(), items.end());
    else body.push_back(s);
  }
  k.body = std::move(body);
  for (auto& s : k.body) {
    if (s->forKind == ForKind::Parallel) continue;  // a split reduction's parts, scheduled above
    std::map<int, int64_t> bounds;
    if (s->kind == Stmt::Kind::For && s->iter == IterType::Spatial && !s->keepScalar && !containsLoop(s->body)) s = splitFlat(k, *s);
    else {
      if (s->kind == Stmt::Kind::For) {
        if (StmtP tiled = tileTransposedNest(k, s)) s = tiled;
        else if (auto columns = tileColumnReduction(k, *s)) s = *columns;
      }
      bool parallel = staticWork(s, bounds) >= kMinParallelWork;
      if (parallel) s = fuseSmallOuterLoops(k, s);
      s = scheduleLoop(k, s, parallel);
    }
  }
}

void apply(Kernel& k) {
  if (k.target.isCpu()) applyCpu(k);
  else if (k.target.isGpu()) applyGpu(k);
}

}  // namespace tvms::schedule
