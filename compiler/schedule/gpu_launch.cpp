// Launch canonicalization for kernels their authors bound to GPU threads (schedule.h): the CUDA
// backend launches one-dimensional grids of one-dimensional blocks, so a perfect nest of bindings
// over blockIdx.x/y/z and then threadIdx.x/y/z becomes one blockIdx.x loop around one threadIdx.x
// loop, each original index recovered by division and remainder (x fastest, as CUDA numbers them).
#include <algorithm>
#include <map>
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

StmtP canonical(Kernel& k, const StmtP& top) {
  Level blocks, threads;
  if (!peel(top, 'b', blocks)) return top;
  if (blocks.inner.size() == 1) {
    if (!peel(blocks.inner[0], 't', threads)) return top;
  } else {
    threads.inner = blocks.inner;
  }
  bool alreadyCanonical = blocks.byAxis.size() == 1 && blocks.byAxis.count('x') && threads.byAxis.size() == 1 && threads.byAxis.count('x');
  if (alreadyCanonical || (blocks.byAxis.empty() && threads.byAxis.empty())) return top;
  ExprP threadCount = product(threads);
  if (threadCount->kind != Expr::Kind::Int) return top;  // a block's size must be static: left for the backend to refuse
  int bx = newLoopVar(k, "blockIdx_x"), tx = newLoopVar(k, "threadIdx_x");
  std::map<int, ExprP> with;
  recover(blocks, varRef(k, bx), with);
  recover(threads, varRef(k, tx), with);
  std::vector<StmtP> body;
  for (auto& s : threads.inner) body.push_back(substitute(s, with));
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
