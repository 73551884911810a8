// Launch canonicalization for kernels their authors bound to GPU threads (schedule.h): the CUDA
// backend launches one-dimensional grids of one-dimensional blocks, so a perfect nest of bindings
// over blockIdx.x/y/z, with threadIdx.x/y/z loops anywhere inside (one nest, or one per stage of the
// block as DLight schedules write), becomes one blockIdx.x loop around one threadIdx.x loop, each
// original index recovered by division and remainder (x fastest, as CUDA numbers them).
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/schedule/schedule.h"
#include "compiler/tir/rewrite.h"

namespace tvms::schedule {

using namespace tir;

namespace {

// A loop bound to blockIdx.x/y/z (level 'b') or threadIdx.x/y/z (level 't').
bool isBinding(const Stmt& s, char level) {
  if (s.kind != Stmt::Kind::For || s.forKind != ForKind::ThreadBinding) return false;
  std::string prefix = level == 'b' ? "blockIdx." : "threadIdx.";
  const std::string& t = s.threadTag;
  return t.size() == prefix.size() + 1 && t.compare(0, prefix.size(), prefix) == 0 && std::string("xyz").find(t.back()) != std::string::npos;
}

// One level (blocks or threads) of a perfect nest: the loops bound at it, outermost first, and the
// statements inside them.
struct Level {
  std::map<char, const Stmt*> byAxis;  // 'x', 'y', 'z'
  std::vector<StmtP> inner;
};

// Peels the perfect nest of `level` bindings starting at `s`; false when the nest is not perfect
// (a statement beside a binding loop) or binds an axis twice.
bool peel(const StmtP& s, char level, Level& out) {
  const Stmt* at = s.get();
  std::vector<StmtP> body{s};
  while (body.size() == 1 && isBinding(*body[0], level)) {
    at = body[0].get();
    char axis = at->threadTag.back();
    if (out.byAxis.count(axis)) return false;
    out.byAxis[axis] = at;
    body = at->body;
  }
  out.inner = body;
  return true;
}

// extent_x * extent_y * extent_z of a level's loops (1 for a missing axis).
ExprP product(const Level& l) {
  ExprP p = intImm(1);
  for (char a : {'x', 'y', 'z'})
    if (auto it = l.byAxis.find(a); it != l.byAxis.end()) p = p * it->second->extent;
  return p;
}

// The original loop variables as expressions of the linear index `linear`.
void recover(const Level& l, const ExprP& linear, std::map<int, ExprP>& with) {
  ExprP stride = intImm(1);
  for (char a : {'x', 'y', 'z'}) {
    auto it = l.byAxis.find(a);
    if (it == l.byAxis.end()) continue;
    with[it->second->var] = floormod(floordiv(linear, stride), it->second->extent);
    stride = stride * it->second->extent;
  }
}

// The thread axes bound anywhere inside a block (after a schedule such as DLight's, each stage of
// a block — staging a tile into shared memory, computing from it — binds them again); false when
// two loops bind one axis with different extents (one launch has one block shape).
bool collectThreads(const std::vector<StmtP>& body, std::map<char, ExprP>& extents) {
  for (auto& s : body) {
    if (isBinding(*s, 't')) {
      char axis = s->threadTag.back();
      auto [it, fresh] = extents.emplace(axis, s->extent);
      bool same = fresh || it->second == s->extent ||
                  (it->second->kind == Expr::Kind::Int && s->extent->kind == Expr::Kind::Int && it->second->intValue == s->extent->intValue);
      if (!same) return false;
    }
    if (!collectThreads(s->body, extents)) return false;
  }
  return true;
}

// `body` with every thread-bound loop replaced by its body, its variable the thread's index on that
// axis (`axisIndex`): every thread of the launch runs the block's statements, each stage with its
// own index.
std::vector<StmtP> unbind(const std::vector<StmtP>& body, const std::map<char, ExprP>& axisIndex) {
  std::vector<StmtP> out;
  for (auto& s : body) {
    if (isBinding(*s, 't')) {
      std::map<int, ExprP> with{{s->var, axisIndex.at(s->threadTag.back())}};
      for (auto& inner : unbind(s->body, axisIndex)) out.push_back(substitute(inner, with));
      continue;
    }
    auto copy = std::make_shared<Stmt>(*s);
    copy->body = unbind(s->body, axisIndex);
    out.push_back(copy);
  }
  return out;
}

// The shared buffers a statement reads and writes, at any depth.
void sharedAccesses(const Kernel& k, const ExprP& e, std::set<int>& read) {
  if (!e) return;
  if (e->kind == Expr::Kind::Load && k.buffers[static_cast<size_t>(e->id)].scope == MemoryScope::Shared) read.insert(e->id);
  sharedAccesses(k, e->a, read);
  sharedAccesses(k, e->b, read);
  sharedAccesses(k, e->c, read);
}
void sharedAccesses(const Kernel& k, const StmtP& s, std::set<int>& read, std::set<int>& written) {
  for (const ExprP* e : {&s->extent, &s->index, &s->value, &s->cond}) sharedAccesses(k, *e, read);
  if (s->kind == Stmt::Kind::Store && k.buffers[static_cast<size_t>(s->buffer)].scope == MemoryScope::Shared) written.insert(s->buffer);
  for (auto& b : s->body) sharedAccesses(k, b, read, written);
}

bool meets(const std::set<int>& a, const std::set<int>& b) {
  return std::any_of(a.begin(), a.end(), [&](int x) { return b.count(x); });
}

// TVM's ThreadSync for one block's statements (every thread runs them all): a barrier before a
// statement that reads or writes shared memory another thread may have written since the last one,
// or writes what another may still be reading; in a serial loop, also at the end of the body when
// the next iteration's writes would meet this one's accesses. Barriers go only between statements of
// the block and of its serial loops, where every thread arrives, never inside a condition.
std::vector<StmtP> threadSync(const Kernel& k, const std::vector<StmtP>& body, bool loopBody) {
  std::vector<StmtP> out;
  std::set<int> readSince, writtenSince, readAll, writtenAll;
  for (auto& s : body) {
    if (s->kind == Stmt::Kind::Barrier) {
      readSince.clear();
      writtenSince.clear();
      out.push_back(s);
      continue;
    }
    std::set<int> r, w;
    sharedAccesses(k, s, r, w);
    if (meets(r, writtenSince) || meets(w, writtenSince) || meets(w, readSince)) {
      out.push_back(barrier());
      readSince.clear();
      writtenSince.clear();
    }
    StmtP kept = s;
    if (s->kind == Stmt::Kind::For && s->forKind != ForKind::ThreadBinding && !w.empty()) {
      auto loop = std::make_shared<Stmt>(*s);
      loop->body = threadSync(k, s->body, true);
      kept = loop;
    }
    out.push_back(kept);
    readSince.insert(r.begin(), r.end());
    writtenSince.insert(w.begin(), w.end());
    readAll.insert(r.begin(), r.end());
    writtenAll.insert(w.begin(), w.end());
  }
  // The next iteration's writes against this one's reads (and the other way round).
  bool carried = !writtenAll.empty() && !readAll.empty();
  if (loopBody && carried && !out.empty() && out.back()->kind != Stmt::Kind::Barrier && !(readSince.empty() && writtenSince.empty()))
    out.push_back(barrier());
  return out;
}

StmtP canonical(Kernel& k, const StmtP& top) {
  Level blocks;
  if (!peel(top, 'b', blocks)) return top;
  std::map<char, ExprP> threadExtents;
  if (!collectThreads(blocks.inner, threadExtents)) return top;  // left for the backend to refuse
  std::map<char, ExprP> nested;
  bool alreadyCanonical = blocks.byAxis.size() == 1 && blocks.byAxis.count('x') && blocks.inner.size() == 1 &&
                          isBinding(*blocks.inner[0], 't') && blocks.inner[0]->threadTag == "threadIdx.x" &&
                          collectThreads(blocks.inner[0]->body, nested) && nested.empty();
  if (alreadyCanonical || (blocks.byAxis.empty() && threadExtents.empty())) return top;
  ExprP threadCount = intImm(1);
  for (char a : {'x', 'y', 'z'})
    if (auto it = threadExtents.find(a); it != threadExtents.end()) threadCount = threadCount * it->second;
  if (threadCount->kind != Expr::Kind::Int) return top;  // a block's size must be static: left for the backend to refuse
  int bx = newLoopVar(k, "blockIdx_x"), tx = newLoopVar(k, "threadIdx_x");
  std::map<int, ExprP> with;
  recover(blocks, varRef(k, bx), with);
  std::map<char, ExprP> axisIndex;  // each thread axis from the linear thread index, x fastest
  ExprP stride = intImm(1);
  for (char a : {'x', 'y', 'z'}) {
    auto it = threadExtents.find(a);
    if (it == threadExtents.end()) continue;
    axisIndex[a] = floormod(floordiv(varRef(k, tx), stride), it->second);
    stride = stride * it->second;
  }
  std::vector<StmtP> body;
  for (auto& s : unbind(blocks.inner, axisIndex)) body.push_back(substitute(s, with));
  body = threadSync(k, body, false);
  auto thread = std::make_shared<Stmt>(*forLoop(tx, threadCount, body, true));
  thread->forKind = ForKind::ThreadBinding;
  thread->threadTag = "threadIdx.x";
  auto block = std::make_shared<Stmt>(*forLoop(bx, product(blocks), {thread}, true));
  block->forKind = ForKind::ThreadBinding;
  block->threadTag = "blockIdx.x";
  return block;
}

}  // namespace

void canonicalizeGpuLaunches(Kernel& k) {
  for (auto& s : k.body) s = canonical(k, s);
}

}  // namespace tvms::schedule
