// Tensors made from a value (full, full_like, zeros, ones, zeros_like, ones_like) and the triangles
// of a matrix (tril, triu): loop nests over the output, the outermost parallel.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

// size: x's element count, a product of its dims (symbolic ones read from the dims argument).
LegalizeResult elementCount(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, x);
  if (!dims) return failure("R.size needs its operand's shape to compile (its rank at least: the dims are bound when it runs)");
  int out = kb.param("count", ScalarType::I64, shapeText(&in.out));
  kb.add(store(out, intImm(0), product(*dims)));
  return done(kb, {});
}

LegalizeResult fill(const LegalizeInput& in, Fill op) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, &in.out);
  if (!dims) return failure("the result's shape must be known to compile " + in.def.scriptName());
  std::vector<size_t> buffers;
  ExprP value;
  if (op == Fill::Zeros) value = constantOf(0, *t);
  else if (op == Fill::Ones) value = constantOf(1, *t);
  else {  // full(shape, fill_value), full_like(x, fill_value): a compile-time scalar, else a 0-d tensor
    if (in.scalars.size() > 1 && in.scalars[1]) {
      value = constantOf(*in.scalars[1], *t);
    } else {
      auto ft = elementType(in.args.size() > 1 ? in.args[1] : nullptr);
      if (!ft) return failure(in.def.scriptName() + ": fill_value must be a scalar tensor of a supported dtype");
      int f = kb.param("fill_value", *ft, shapeText(in.args[1]));
      value = kb.load(f, intImm(0));
      if (*ft != *t) value = cast(*t, value);
      buffers.push_back(1);
    }
  }
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *dims, [&](const std::vector<ExprP>& idx) { return std::vector<StmtP>{store(c, flatIndex(idx, *dims), value)}; }));
  return done(kb, buffers);
}

LegalizeResult triangle(const LegalizeInput& in, bool lower) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, &in.out);
  if (!dims || dims->size() < 2) return failure(in.def.scriptName() + " needs a tensor of rank >= 2 with a known shape");
  int64_t k = infer::intAttr(in.attr("k")).value_or(0);
  int a = kb.param("A", *t, shapeText(in.args[0]));
  int c = kb.param("C", *t, shapeText(&in.out));
  ExprP zero = constantOf(0, *t);
  kb.add(outputNest(kb, *dims, [&](const std::vector<ExprP>& idx) {
    ExprP diagonal = idx[idx.size() - 1] - idx[idx.size() - 2];  // column - row
    ExprP keep = lower ? binary(BinOp::Le, diagonal, intImm(k)) : binary(BinOp::Ge, diagonal, intImm(k));
    ExprP at = flatIndex(idx, *dims);
    return std::vector<StmtP>{store(c, at, select(keep, kb.load(a, at), zero))};
  }));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
