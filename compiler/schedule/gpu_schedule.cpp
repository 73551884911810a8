// The default GPU schedule, in the manner of TVM's dlight fallback: every top-level statement of the
// kernel becomes one launch. A top-level nest of spatial loops (whose extents do not depend on an
// enclosing loop) is fused into one index over all its iterations, split into blocks of kThreads
// threads bound to blockIdx.x / threadIdx.x, behind a bounds check; each thread then runs the nest's
// body for its element (reductions inside run serially in that thread). A statement with no
// spatial loop at its top runs in a single thread. After it, each top-level statement is
//   for bx in T.thread_binding(G, "blockIdx.x"): for tx in T.thread_binding(B, "threadIdx.x"): ...
// which is what the CUDA code generator launches.
#include "compiler/schedule/reduction_form.h"
#include "compiler/schedule/schedule.h"
#include "compiler/tir/rewrite.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace tvms::schedule {

using namespace tir;

namespace {

constexpr int64_t kThreads = 256;
// A flat launch (no loop in the nest's body, an elementwise pass) gives each thread this many
// elements, a block's threads apart so each load of a warp stays coalesced: independent loads in
// flight per thread are what keeps HBM busy (one element per thread leaves ~25% of the bandwidth).
constexpr int64_t kElementsPerThread = 4;

// Every parameter 16-bit or narrower: a flat launch gives each thread twice the elements, adjacent ones
// (contiguousElements), so as many bytes are in flight per thread as with 32-bit elements (GELU in
// float16 ran at 1.5x PyTorch's time, 1.0x since). A whole group (all but the launch's last) runs
// without a bound check per element and loads all its values before it stores any, and the CUDA
// backend declares every buffer 16-byte aligned (as the runtime's allocations and the C API's adopted
// tensors are), so the compiler may merge the loads; NVRTC keeps them 2-byte loads today.
bool narrowElements(const Kernel& k) {
  for (auto& b : k.buffers)
    if (b.param && runtime::dtypeBytes(b.type) > 2) return false;
  return true;
}
constexpr int64_t kNarrowElementsPerThread = 8;

StmtP bound(int var, ExprP extent, std::vector<StmtP> body, const char* tag) {
  auto s = std::make_shared<Stmt>(*forLoop(var, std::move(extent), std::move(body), true));
  s->forKind = ForKind::ThreadBinding;
  s->threadTag = tag;
  return s;
}

// ---- Warp per output: reductions across the 32 lanes of a warp --------------------------------
// When the body of each output element is uniform set-up (assigns), reduction loops whose every
// assignment is `acc = acc op e` (op: + * max min), loops that only store, and stores, a warp takes
// one output: each loop's iterations are dealt to the lanes (lane, lane + 32, ...), each accumulator
// is combined across the warp by shuffles (every lane gets the total), and stores outside loops are
// made by lane 0. Softmax, layer norm, sums and means take this form; argmax and scans do not.
constexpr int64_t kWarp = 32;
constexpr int64_t kWarpsPerBlock = kThreads / kWarp;
constexpr int64_t kWarpModeMaxOutputs = 32768;  // more outputs than this keep the GPU busy one per thread...
// ...unless each output reduces a row at least this long that lies contiguous in memory: a thread per
// row would read with a row's stride between neighbouring threads (softmax over 65,536 rows of 512
// ran 13x slower than a warp per row), where a warp's lanes read one row's neighbouring elements.
constexpr int64_t kWarpModeMinRow = 64;
// Rows at least this long get a block of kThreads lanes each rather than a warp: a warp alone keeps too
// few loads in flight per row (softmax over 4,096 rows of 4,096 floats ran at 1.8x PyTorch's time).
constexpr int64_t kBlockModeMinRow = 2048;
// Fewer outputs than this (a full reduction has one) get a whole block each: 256 lanes, the warps'
// totals combined through shared memory.
constexpr int64_t kBlockModeMaxOutputs = 256;

// Assigns nothing carried between iterations (a temporary is named and used within one).
bool assignsNothing(const Kernel& k, const std::vector<StmtP>& body) {
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::Assign && !k.vars[static_cast<size_t>(s->var)].temporary) return false;
    if (s->kind == Stmt::Kind::WarpReduce || !assignsNothing(k, s->body)) return false;
  }
  return true;
}

// After a warp all-reduce of `acc` in a block of several warps per output: each warp's lane 0 leaves
// its total in shared memory, and every thread adds the warps' totals up in the same order.
std::vector<StmtP> combineWarps(Kernel& k, int acc, BinOp op, const ExprP& tx) {
  int64_t warps = kThreads / kWarp;
  ScalarType t = k.vars[static_cast<size_t>(acc)].type;
  k.buffers.push_back({k.vars[static_cast<size_t>(acc)].name + "_warps", t, false, warps, {}, MemoryScope::Shared});
  int shared = static_cast<int>(k.buffers.size()) - 1;
  auto load = [&](int64_t w) { return loadRef(k, shared, intImm(w)); };
  std::vector<StmtP> out{ifThen(binary(BinOp::Eq, floormod(tx, intImm(kWarp)), intImm(0)), {store(shared, floordiv(tx, intImm(kWarp)), varRef(k, acc))}),
                         barrier()};
  ExprP total = load(0);
  for (int64_t w = 1; w < warps; ++w) total = binary(op, total, load(w));
  out.push_back(assign(acc, total));
  out.push_back(barrier());  // the shared slots may be written again by a later reduction
  return out;
}

// The body per output for `lanes` threads (a warp, or a block), or nothing when the body does not
// have the form above.
std::optional<std::vector<StmtP>> laneBody(Kernel& k, const std::vector<StmtP>& body, const ExprP& lane, int64_t lanes, const ExprP& tx) {
  std::vector<StmtP> out;
  bool reduces = false;
  for (auto& s : body) {
    switch (s->kind) {
      case Stmt::Kind::Assign: out.push_back(s); break;
      case Stmt::Kind::Store: out.push_back(ifThen(binary(BinOp::Eq, lane, intImm(0)), {s})); break;
      case Stmt::Kind::For: {
        std::map<int, BinOp> accumulators;
        bool reduction = reductionBody(s->body, accumulators) && !accumulators.empty();
        if (!reduction && !assignsNothing(k, s->body)) return std::nullopt;
        if (s->forKind == ForKind::ThreadBinding || s->keepScalar) return std::nullopt;
        int j = newLoopVar(k, k.vars[static_cast<size_t>(s->var)].name + "_lane");
        std::vector<StmtP> inner;
        for (auto& b : s->body) inner.push_back(substitute(b, {{s->var, lane + varRef(k, j) * intImm(lanes)}}));
        out.push_back(forLoop(j, floordiv(s->extent - lane + intImm(lanes - 1), intImm(lanes)), inner));
        for (auto& [acc, op] : accumulators) {
          out.push_back(warpReduce(acc, op));
          if (lanes > kWarp)
            for (auto& c : combineWarps(k, acc, op, tx)) out.push_back(c);
        }
        reduces |= reduction;
        break;
      }
      default: return std::nullopt;
    }
  }
  if (!reduces) return std::nullopt;
  return out;
}

// The longest static extent of a reduction loop in `body` (0: none, or only symbolic ones).
int64_t longestReduction(const std::vector<StmtP>& body) {
  int64_t longest = 0;
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::For && s->iter == IterType::Reduction && s->extent->kind == Expr::Kind::Int)
      longest = std::max(longest, s->extent->intValue);
    longest = std::max(longest, longestReduction(s->body));
  }
  return longest;
}

// Whether some reduction loop of `body` (as written per output) runs over at least kWarpModeMinRow
// (or a symbolic count of) elements that some load reads contiguously, one after the next.
bool reducesContiguousRows(const Kernel& k, const std::vector<StmtP>& body) {
  std::function<bool(const ExprP&, int)> contiguousLoad = [&](const ExprP& e, int v) -> bool {
    if (!e) return false;
    if (e->kind == Expr::Kind::Load && strideOf(e->a, v) == std::optional<int64_t>(1)) return true;
    return contiguousLoad(e->a, v) || contiguousLoad(e->b, v) || contiguousLoad(e->c, v);
  };
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::For && s->iter == IterType::Reduction && !readsLoopVariable(k, s->extent) &&
        (s->extent->kind != Expr::Kind::Int || s->extent->intValue >= kWarpModeMinRow))
      for (auto& x : s->body)
        if (x->kind == Stmt::Kind::Assign && contiguousLoad(x->value, s->var)) return true;
    if (reducesContiguousRows(k, s->body)) return true;
  }
  return false;
}

// The perfect nest of spatial loops at the top of a statement (extents free of loop variables): the
// outputs a launch shares out.
std::vector<const Stmt*> spatialNest(const Kernel& k, const StmtP& top) {
  std::vector<const Stmt*> nest;
  for (const Stmt* s = top.get(); s && s->kind == Stmt::Kind::For && s->iter == IterType::Spatial && !s->keepScalar &&
                                  !readsLoopVariable(k, s->extent);) {
    nest.push_back(s);
    s = s->body.size() == 1 ? s->body[0].get() : nullptr;
  }
  return nest;
}

// The nest's loop variables as functions of a flat index `f`, innermost fastest.
std::map<int, ExprP> nestIndex(const std::vector<const Stmt*>& nest, ExprP f) {
  std::vector<int> vars;
  std::vector<ExprP> extents;
  for (const Stmt* l : nest) {
    vars.push_back(l->var);
    extents.push_back(l->extent);
  }
  return rowMajorIndex(vars, extents, std::move(f));
}

// ---- Several blocks per output: long reductions into few outputs ------------------------------
// A reduction of everything (R.sum of 16M floats) in one block leaves the GPU idle. When there are
// few outputs (at most kBlockModeMaxOutputs) and each sums a long range (kSplitMinLength or more),
// the range is cut into parts, a block per (output, part): one launch sets the outputs to zero, the
// next has each block reduce its part (its warps combined through shared memory) and add it into
// the output atomically. The stored value must be linear in the sum (sum, mean: sum * or / a
// constant), so adding the parts' values gives the whole's.
constexpr int64_t kSplitMinLength = 1 << 16;
constexpr int64_t kSplitElementsPerBlock = 16384;
constexpr int64_t kSplitMaxParts = 2048;

bool linearIn(const ExprP& e, int acc) {
  std::set<int> vars;
  auto free = [&](const ExprP& x) {
    vars.clear();
    variablesOf(x, vars);
    return !vars.count(acc);
  };
  switch (e->kind) {
    case Expr::Kind::Var: return e->id == acc;
    case Expr::Kind::Cast: return isFloat(e->type) && linearIn(e->a, acc);
    case Expr::Kind::Binary:
      if (e->binOp == BinOp::Mul) return (linearIn(e->a, acc) && free(e->b)) || (free(e->a) && linearIn(e->b, acc));
      if (e->binOp == BinOp::Div) return isFloat(e->type) && linearIn(e->a, acc) && free(e->b);
      return false;
    default: return false;
  }
}

bool isZero(const ExprP& e) {
  return (e->kind == Expr::Kind::Int && e->intValue == 0) || (e->kind == Expr::Kind::Float && e->floatValue == 0) ||
         (e->kind == Expr::Kind::Cast && isZero(e->a));
}

// A perfect nest of reduction loops whose innermost body only accumulates: one loop over the product
// of their extents (static), the old variables by div / mod of the new one.
std::optional<StmtP> flatReduction(Kernel& k, const Stmt& top) {
  std::vector<const Stmt*> loops;
  const Stmt* s = &top;
  for (; s->kind == Stmt::Kind::For && s->iter == IterType::Reduction && s->forKind == ForKind::Serial && !s->keepScalar; s = s->body[0].get()) {
    if (s->extent->kind != Expr::Kind::Int) return std::nullopt;
    loops.push_back(s);
    if (s->body.size() != 1 || s->body[0]->kind != Stmt::Kind::For) break;
  }
  if (loops.empty()) return std::nullopt;
  int64_t total = 1;
  for (const Stmt* l : loops) total *= l->extent->intValue;
  const std::string name = k.vars[static_cast<size_t>(loops[0]->var)].name;  // a copy: newLoopVar grows k.vars
  int flat = newLoopVar(k, name + "_flat");
  std::map<int, ExprP> index = nestIndex(loops, varRef(k, flat));
  std::vector<StmtP> body;
  for (auto& b : loops.back()->body) body.push_back(substitute(b, index));
  return forLoop(flat, intImm(total), body);
}

// Column reductions (R.sum(x, axis=0)): neighbouring outputs read neighbouring elements, so a thread
// per output reads coalesced; the rows are cut into parts, a thread per (output, part), each adding its
// part's value atomically. A warp per column read across rows (1.9x PyTorch's time at 4096x4096).
constexpr int64_t kColumnModeMinOutputs = 1024;
constexpr int64_t kColumnModeMinLength = 1024;
constexpr int64_t kColumnRowsPerThread = 64;
constexpr int64_t kColumnMaxParts = 256;

// One output's share of a split sum: the accumulator set, the reduction over the part of the range
// from `start` (chunk elements, fewer at the end), its value added into the output atomically. `body`
// is [acc = 0, the reduction, the store]; `at` places the nest's variables at the output.
std::vector<StmtP> partOfSum(Kernel& k, const std::vector<StmtP>& body, const Stmt& loop, const ExprP& start, int64_t chunk,
                             const std::map<int, ExprP>& at) {
  int j = newLoopVar(k, k.vars[static_cast<size_t>(loop.var)].name + "_part");
  std::vector<StmtP> inner;
  for (auto& b : loop.body) inner.push_back(substitute(substitute(b, {{loop.var, start + varRef(k, j)}}), at));
  return {substitute(body[0], at), forLoop(j, min(intImm(chunk), loop.extent - start), inner),
          atomicAddTo(body[2]->buffer, substitute(body[2]->index, at), substitute(body[2]->value, at))};
}

StmtP columnLaunch(Kernel& k, const std::vector<StmtP>& body, const Stmt& loop, const std::vector<const Stmt*>& nest, int64_t total, int64_t parts,
                   int64_t chunk) {
  int64_t groups = (total + kThreads - 1) / kThreads;
  int bx = newLoopVar(k, "bx"), tx = newLoopVar(k, "tx");
  ExprP output = floormod(varRef(k, bx), intImm(groups)) * intImm(kThreads) + varRef(k, tx);
  ExprP start = floordiv(varRef(k, bx), intImm(groups)) * intImm(chunk);
  std::vector<StmtP> perOutput = partOfSum(k, body, loop, start, chunk, nestIndex(nest, output));
  return bound(bx, intImm(groups * parts), {bound(tx, intImm(kThreads), {ifThen(binary(BinOp::Lt, output, intImm(total)), perOutput)}, "threadIdx.x")},
               "blockIdx.x");
}

StmtP launch(Kernel& k, const StmtP& top);

std::optional<std::vector<StmtP>> splitLaunches(Kernel& k, const StmtP& top, const std::vector<const Stmt*>& nest, int64_t total) {
  std::vector<StmtP> body;
  std::function<void(const std::vector<StmtP>&)> flatten = [&](const std::vector<StmtP>& b) {
    for (auto& x : b) {
      if (x->kind == Stmt::Kind::Seq) flatten(x->body);
      else body.push_back(x);
    }
  };
  flatten(nest.empty() ? std::vector<StmtP>{top} : nest.back()->body);
  if (body.size() != 3 || body[0]->kind != Stmt::Kind::Assign || !isZero(body[0]->value) || body[2]->kind != Stmt::Kind::Store) return std::nullopt;
  int acc = body[0]->var;
  auto loop = flatReduction(k, *body[1]);
  if (!loop) return std::nullopt;
  std::map<int, BinOp> accumulators;
  if (containsLoop((*loop)->body) || !reductionBody((*loop)->body, accumulators) || accumulators.size() != 1 || !accumulators.count(acc) ||
      accumulators[acc] != BinOp::Add)
    return std::nullopt;
  int64_t length = (*loop)->extent->intValue;
  ScalarType t = k.buffers[static_cast<size_t>(body[2]->buffer)].type;
  if (!linearIn(body[2]->value, acc) || t == ScalarType::Bool || t == ScalarType::BF16) return std::nullopt;
  bool blocks = total <= kBlockModeMaxOutputs && length >= kSplitMinLength;
  bool columns = total >= kColumnModeMinOutputs && length >= kColumnModeMinLength && !reducesContiguousRows(k, body);
  if (!blocks && !columns) return std::nullopt;
  // Launch 1: every output zero.
  int o = newLoopVar(k, "o");
  StmtP zero = forLoop(o, intImm(total), {store(body[2]->buffer, substitute(body[2]->index, nestIndex(nest, varRef(k, o))), cast(t, intImm(0)))}, true);
  int64_t parts = blocks ? std::min(kSplitMaxParts, (length + kSplitElementsPerBlock - 1) / kSplitElementsPerBlock)
                         : std::min(kColumnMaxParts, (length + kColumnRowsPerThread - 1) / kColumnRowsPerThread);
  int64_t chunk = (length + parts - 1) / parts;
  if (!blocks) return std::vector<StmtP>{launch(k, zero), columnLaunch(k, body, **loop, nest, total, parts, chunk)};
  // Launch 2: block bx reduces part bx % parts of output bx / parts.
  int bx = newLoopVar(k, "bx"), tx = newLoopVar(k, "tx");
  ExprP start = floormod(varRef(k, bx), intImm(parts)) * intImm(chunk);
  std::vector<StmtP> perOutput = partOfSum(k, body, **loop, start, chunk, nestIndex(nest, floordiv(varRef(k, bx), intImm(parts))));
  auto lanes = laneBody(k, perOutput, varRef(k, tx), kThreads, varRef(k, tx));
  if (!lanes) return std::nullopt;
  return std::vector<StmtP>{launch(k, zero), bound(bx, intImm(total * parts), {bound(tx, intImm(kThreads), *lanes, "threadIdx.x")}, "blockIdx.x")};
}

// One launch per top-level statement, or two for a reduction split across blocks.
std::vector<StmtP> launches(Kernel& k, const StmtP& top) {
  std::vector<const Stmt*> nest = spatialNest(k, top);
  int64_t staticTotal = 1;
  bool known = true;
  for (const Stmt* l : nest) {
    if (l->extent->kind != Expr::Kind::Int) known = false;
    else staticTotal *= l->extent->intValue;
  }
  if (known)
    if (auto split = splitLaunches(k, top, nest, staticTotal)) return *split;
  return {launch(k, top)};
}

// A flat launch over narrow elements (narrowElements): thread t takes elements [8t, 8t + 8), unrolled;
// a whole group without bound checks, the launch's last group with one per element.
StmtP contiguousElements(Kernel& k, const std::vector<const Stmt*>& nest, const ExprP& total, int bx, int tx) {
  const int64_t per = kNarrowElementsPerThread;
  ExprP base = (varRef(k, bx) * intImm(kThreads) + varRef(k, tx)) * intImm(per);
  auto unrolledLoop = [&](int e, std::vector<StmtP> body) {
    auto unrolled = std::make_shared<Stmt>(*forLoop(e, intImm(per), std::move(body), true));
    unrolled->forKind = ForKind::Unrolled;
    return StmtP(unrolled);
  };
  auto group = [&](bool checked) {
    int e = newLoopVar(k, checked ? "e_tail" : "e");
    ExprP at = base + varRef(k, e);
    std::map<int, ExprP> index = nestIndex(nest, at);
    std::vector<StmtP> body;
    for (auto& s : nest.back()->body) body.push_back(substitute(s, index));
    return unrolledLoop(e, checked ? std::vector<StmtP>{ifThen(binary(BinOp::Lt, at, total), body)} : body);
  };
  // One output: the group's values computed into registers first, then stored, so every load comes
  // before any store and the compiler may merge them (it cannot move a load above a store it cannot
  // prove apart).
  auto staged = [&]() -> StmtP {
    const std::vector<StmtP>& body = nest.back()->body;
    if (body.size() != 1 || body[0]->kind != Stmt::Kind::Store) return group(false);
    const Stmt& store0 = *body[0];
    int values = static_cast<int>(k.buffers.size());
    k.buffers.push_back({"staged", store0.value->type, false, per, {}, MemoryScope::Local});
    int e = newLoopVar(k, "e"), w = newLoopVar(k, "e_store");
    StmtP compute = substitute(body[0], nestIndex(nest, base + varRef(k, e)));
    ExprP value = compute->value;
    ExprP outAt = substitute(body[0], nestIndex(nest, base + varRef(k, w)))->index;
    return seq({unrolledLoop(e, {store(values, varRef(k, e), value)}),
                unrolledLoop(w, {store(store0.buffer, outAt, loadRef(k, values, varRef(k, w)))})});
  };
  StmtP whole = ifThen(binary(BinOp::Le, base + intImm(per), total), {staged()});
  StmtP tail = ifThen(binary(BinOp::Gt, base + intImm(per), total), {group(true)});
  ExprP blocks = floordiv(total + intImm(kThreads * per - 1), intImm(kThreads * per));
  return bound(bx, blocks, {bound(tx, intImm(kThreads), {whole, tail}, "threadIdx.x")}, "blockIdx.x");
}

StmtP launch(Kernel& k, const StmtP& top) {
  std::vector<const Stmt*> nest = spatialNest(k, top);
  int bx = newLoopVar(k, "bx"), tx = newLoopVar(k, "tx");
  ExprP total = intImm(1);
  for (const Stmt* l : nest) total = total * l->extent;
  auto indexOf = [&](ExprP f) { return nestIndex(nest, f); };
  if (total->kind != Expr::Kind::Int || total->intValue <= kWarpModeMaxOutputs ||
      reducesContiguousRows(k, nest.empty() ? std::vector<StmtP>{top} : nest.back()->body)) {
    // A warp per output, or a block when there are few outputs (one, for a reduction of everything).
    bool block = (total->kind == Expr::Kind::Int && total->intValue <= kBlockModeMaxOutputs) ||
                 longestReduction(nest.empty() ? std::vector<StmtP>{top} : nest.back()->body) >= kBlockModeMinRow;
    int64_t lanes = block ? kThreads : kWarp;
    ExprP lane = block ? varRef(k, tx) : floormod(varRef(k, tx), intImm(kWarp));
    ExprP output = block ? varRef(k, bx) : varRef(k, bx) * intImm(kWarpsPerBlock) + floordiv(varRef(k, tx), intImm(kWarp));
    std::vector<StmtP> perOutput;
    std::function<void(const std::vector<StmtP>&)> flatten = [&](const std::vector<StmtP>& body) {
      for (auto& s : body) {
        if (s->kind == Stmt::Kind::Seq) flatten(s->body);
        else perOutput.push_back(nest.empty() ? s : substitute(s, indexOf(output)));
      }
    };
    flatten(nest.empty() ? std::vector<StmtP>{top} : nest.back()->body);
    size_t buffersBefore = k.buffers.size();
    if (auto body = laneBody(k, perOutput, lane, lanes, varRef(k, tx))) {
      ExprP blocks = block ? total : floordiv(total + intImm(kWarpsPerBlock - 1), intImm(kWarpsPerBlock));
      // The bounds check is the same for all the lanes of an output, so every lane reaches the
      // shuffles and barriers.
      return bound(bx, blocks, {bound(tx, intImm(kThreads), {ifThen(binary(BinOp::Lt, output, total), *body)}, "threadIdx.x")}, "blockIdx.x");
    }
    k.buffers.resize(buffersBefore);  // the shared arrays of a plan given up
  }
  if (nest.empty()) return bound(bx, intImm(1), {bound(tx, intImm(1), {top}, "threadIdx.x")}, "blockIdx.x");
  bool flat = !containsLoop(nest.back()->body);
  if (flat && narrowElements(k)) return contiguousElements(k, nest, total, bx, tx);
  int64_t perThread = flat ? kElementsPerThread : 1;
  int e = flat ? newLoopVar(k, "e") : -1;
  ExprP fused = varRef(k, bx) * intImm(kThreads * perThread) + varRef(k, tx);
  if (flat) fused = fused + varRef(k, e) * intImm(kThreads);
  std::map<int, ExprP> index = indexOf(fused);
  std::vector<StmtP> body;
  for (auto& s : nest.back()->body) body.push_back(substitute(s, index));
  ExprP blocks = floordiv(total + intImm(kThreads * perThread - 1), intImm(kThreads * perThread));
  StmtP element = ifThen(binary(BinOp::Lt, fused, total), body);
  if (flat) {
    auto unrolled = std::make_shared<Stmt>(*forLoop(e, intImm(perThread), {element}, true));
    unrolled->forKind = ForKind::Unrolled;
    element = unrolled;
  }
  return bound(bx, blocks, {bound(tx, intImm(kThreads), {element}, "threadIdx.x")}, "blockIdx.x");
}

}  // namespace

void applyGpu(Kernel& k) {
  std::vector<StmtP> launches;
  for (auto& s : k.body)
    for (auto& l : schedule::launches(k, s)) launches.push_back(l);
  k.body = std::move(launches);
}

}  // namespace tvms::schedule
