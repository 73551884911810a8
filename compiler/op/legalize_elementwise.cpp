// Elementwise kernels: the loops around the op's scalar function (OpDef::scalar, bound in the op
// registry). Same-shape operands run as one flat loop in chunks, broadcasting as a loop nest over the
// output; every loop is spatial, so the CPU schedule runs the outer one on the thread pool and
// vectorizes the inner one. Compile-time scalars (R.const(2, "float32"), Python numbers) are inlined.

#include "compiler/ir/printer.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

bool sameDims(const std::vector<ExprP>& a, const std::vector<ExprP>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (a[i]->kind == Expr::Kind::Int && b[i]->kind == Expr::Kind::Int && a[i]->intValue == b[i]->intValue) continue;
    if (a[i]->kind == Expr::Kind::Var && b[i]->kind == Expr::Kind::Var && a[i]->id == b[i]->id) continue;
    return false;
  }
  return true;
}

}  // namespace

LegalizeResult elementwise(const LegalizeInput& in) {
  if (!in.def.scalar) return failure(in.def.scriptName() + " has no scalar function in the op registry");
  auto outType = elementType(&in.out);
  if (!outType) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  LegalizeResult r;
  auto outDims = shapeExprs(kb, &in.out);
  if (!outDims) return failure("the result's shape must be known to compile " + in.def.scriptName());
  // One loop operand per tensor parameter of the op (clip's bounds are prim values, inlined).
  size_t operands = 0;
  for (auto& p : in.def.params) operands += p.kind == ParamKind::Tensor;
  struct Operand { int buffer = -1; std::vector<ExprP> dims; ExprP scalar; };
  std::vector<Operand> ops(operands);
  for (size_t i = 0; i < operands; ++i) {
    const ir::StructInfo* s = i < in.args.size() ? in.args[i] : nullptr;
    auto t = elementType(s);
    if (!t) return failure("operand " + std::to_string(i + 1) + " of " + in.def.scriptName() + " has dtype '" + (s ? s->dtype : "?") + "', which has no kernels yet");
    if (i < in.scalars.size() && in.scalars[i]) {
      ops[i].scalar = floatImm(*in.scalars[i], *t);
      continue;
    }
    auto dims = shapeExprs(kb, s);
    if (!dims) return failure("the shape of operand " + std::to_string(i + 1) + " must be known to compile " + in.def.scriptName());
    ops[i].dims = *dims;
    ops[i].buffer = kb.param(std::string(1, static_cast<char>('A' + i)), *t, shapeText(s));
    r.bufferArgs.push_back(i);
  }
  int out = kb.param("C", *outType, shapeText(&in.out));

  auto value = [&](const std::vector<ExprP>& loads) -> ExprP {
    ExprP v = in.def.scalar(loads, in);
    return !v || v->type == *outType ? v : cast(*outType, v);
  };

  bool flat = true;
  for (auto& o : ops) flat = flat && (o.scalar || sameDims(o.dims, *outDims));
  if (flat) {
    // One spatial loop over every element (the CPU schedule splits it into chunks for the pool).
    ExprP n = product(*outDims);
    int i = kb.loopVar("i");
    ExprP idx = kb.var(i);
    std::vector<ExprP> loads;
    for (auto& x : ops) loads.push_back(x.scalar ? x.scalar : kb.load(x.buffer, idx));
    ExprP v = value(loads);
    if (!v) return failure(in.def.scriptName() + " has no kernel yet");
    kb.add(forLoop(i, n, {store(out, idx, v)}, true));
  } else {
    // A loop nest over the output; each operand indexed with its broadcast (right-aligned) dims.
    size_t rank = outDims->size();
    std::vector<int> loops;
    for (size_t d = 0; d < rank; ++d) loops.push_back(kb.loopVar("i" + std::to_string(d)));
    std::vector<ExprP> loads;
    for (auto& x : ops) {
      if (x.scalar) { loads.push_back(x.scalar); continue; }
      std::vector<ExprP> idx;
      size_t offset = rank - x.dims.size();
      for (size_t d = 0; d < x.dims.size(); ++d) {
        bool broadcast = x.dims[d]->kind == Expr::Kind::Int && x.dims[d]->intValue == 1;
        ExprP i = kb.var(loops[offset + d]);
        // A symbolic dim that may or may not be the one broadcast (a against T.max(a, c)): decided
        // when the kernel runs (the VM checked the dims broadcast before the call).
        bool known = broadcast || sameDims({x.dims[d]}, {(*outDims)[offset + d]}) || x.dims[d]->kind == Expr::Kind::Int;
        idx.push_back(broadcast ? intImm(0) : known ? i : select(binary(BinOp::Eq, x.dims[d], intImm(1)), intImm(0), i));
      }
      loads.push_back(kb.load(x.buffer, flatIndex(idx, x.dims)));
    }
    ExprP v = value(loads);
    if (!v) return failure(in.def.scriptName() + " has no kernel yet");
    std::vector<ExprP> outIdx;
    for (int l : loops) outIdx.push_back(kb.var(l));
    StmtP body = store(out, flatIndex(outIdx, *outDims), v);
    for (size_t d = rank; d-- > 0;) body = forLoop(loops[d], (*outDims)[d], {body}, true);
    kb.add(body);
  }
  r.kernel = kb.take();
  return r;
}

LegalizeResult copyLike(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, in.args.empty() ? nullptr : in.args[0]);
  if (!dims) return failure("the shape of the operand must be known to compile " + in.def.scriptName());
  int a = kb.param("A", *t, shapeText(in.args[0]));
  int c = kb.param("C", *t, shapeText(&in.out));
  int i = kb.loopVar("i");
  kb.add(forLoop(i, product(*dims), {store(c, kb.var(i), kb.load(a, kb.var(i)))}, true));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// permute_dims: a loop nest over the output (outermost parallel), each element read from the input at
// the permuted index.
LegalizeResult permuteDims(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto inDims = shapeExprs(kb, x);
  auto outDims = shapeExprs(kb, &in.out);
  if (!inDims || !outDims || inDims->empty()) return failure("the shapes must be known to compile R.permute_dims");
  int rank = static_cast<int>(inDims->size());
  auto perm = infer::permutation(in.attr("axes"), rank);
  if (!perm) return failure("R.permute_dims: its axes are not a permutation of the input's " + std::to_string(rank));
  std::vector<int> axes(perm->begin(), perm->end());
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  std::vector<int> loops;
  for (int d = 0; d < rank; ++d) loops.push_back(kb.loopVar("i" + std::to_string(d)));
  std::vector<ExprP> inIdx(static_cast<size_t>(rank)), outIdx;
  for (int d = 0; d < rank; ++d) {
    inIdx[static_cast<size_t>(axes[static_cast<size_t>(d)])] = kb.var(loops[static_cast<size_t>(d)]);
    outIdx.push_back(kb.var(loops[static_cast<size_t>(d)]));
  }
  StmtP body = store(c, flatIndex(outIdx, *outDims), kb.load(a, flatIndex(inIdx, *inDims)));
  for (int d = rank; d-- > 0;) body = forLoop(loops[static_cast<size_t>(d)], (*outDims)[static_cast<size_t>(d)], {body}, true);
  kb.add(body);
  return done(kb, {0});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// outer(x1, x2): C[i, j] = x1[i] * x2[j].
LegalizeResult outer(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t || in.args.size() < 2) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->size() != 2) return failure("R.outer needs two 1-D operands of known length");
  int a = kb.param("A", *t, shapeText(in.args[0]));
  int b = kb.param("B", *t, shapeText(in.args[1]));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& idx) {
    return std::vector<StmtP>{store(c, flatIndex(idx, *od), kb.load(a, idx[0]) * kb.load(b, idx[1]))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
