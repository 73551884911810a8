// The default GPU schedule, in the manner of TVM's dlight fallback: every top-level statement of the
// kernel becomes one launch. A top-level nest of spatial loops (whose extents do not depend on an
// enclosing loop) is fused into one index over all its iterations, split into blocks of kThreads
// threads bound to blockIdx.x / threadIdx.x, behind a bounds check; each thread then runs the nest's
// body for its element (reductions inside run serially in that thread). A statement with no
// spatial loop at its top runs in a single thread. After it, each top-level statement is
//   for bx in T.thread_binding(G, "blockIdx.x"): for tx in T.thread_binding(B, "threadIdx.x"): ...
// which is what the CUDA code generator launches.
#include "compiler/schedule/schedule.h"
#include "compiler/tir/rewrite.h"

namespace tvms::schedule {

using namespace tir;

namespace {

constexpr int64_t kThreads = 256;
// A flat launch (no loop in the nest's body, an elementwise pass) gives each thread this many
// elements, a block's threads apart so each load of a warp stays coalesced: independent loads in
// flight per thread are what keeps HBM busy (one element per thread leaves ~25% of the bandwidth).
constexpr int64_t kElementsPerThread = 4;

bool hasLoop(const std::vector<StmtP>& body) {
  for (auto& s : body)
    if (s->kind == Stmt::Kind::For || hasLoop(s->body)) return true;
  return false;
}

StmtP bound(int var, ExprP extent, std::vector<StmtP> body, const char* tag) {
  auto s = std::make_shared<Stmt>(*forLoop(var, std::move(extent), std::move(body), true));
  s->forKind = ForKind::ThreadBinding;
  s->threadTag = tag;
  return s;
}

StmtP launch(Kernel& k, const StmtP& top) {
  std::vector<const Stmt*> nest;
  for (const Stmt* s = top.get(); s && s->kind == Stmt::Kind::For && s->iter == IterType::Spatial && !s->keepScalar &&
                                  !readsLoopVariable(k, s->extent);) {
    nest.push_back(s);
    s = s->body.size() == 1 ? s->body[0].get() : nullptr;
  }
  int bx = newLoopVar(k, "bx"), tx = newLoopVar(k, "tx");
  if (nest.empty()) return bound(bx, intImm(1), {bound(tx, intImm(1), {top}, "threadIdx.x")}, "blockIdx.x");
  ExprP total = intImm(1);
  for (const Stmt* l : nest) total = total * l->extent;
  bool flat = !hasLoop(nest.back()->body);
  int64_t perThread = flat ? kElementsPerThread : 1;
  int e = flat ? newLoopVar(k, "e") : -1;
  ExprP fused = varRef(k, bx) * intImm(kThreads * perThread) + varRef(k, tx);
  if (flat) fused = fused + varRef(k, e) * intImm(kThreads);
  // The old loop variables as functions of the fused index, innermost fastest.
  std::map<int, ExprP> index;
  ExprP rest = fused;
  for (size_t i = nest.size(); i-- > 0;) {
    const Stmt* l = nest[i];
    index[l->var] = i == 0 ? rest : floormod(rest, l->extent);
    rest = floordiv(rest, l->extent);
  }
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
  for (auto& s : k.body) launches.push_back(launch(k, s));
  k.body = std::move(launches);
}

}  // namespace tvms::schedule
