// matmul: C[b] = A[b] @ B[b or shared], the codegen's own tiled GEMM (legalize_gemm.h); no BLAS.
#include "compiler/op/legalize_gemm.h"

namespace tvms::op::kernels {

using namespace codegen;

LegalizeResult matmul(const LegalizeInput& in) {
  const ir::StructInfo* x1 = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* x2 = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x1);
  if (!t || !isFloat(*t) || !x2 || x2->dtype != x1->dtype || in.out.dtype != x1->dtype)
    return failure("matmul kernels take two float32 or two float64 tensors (and out_dtype equal to theirs)");
  KernelBuilder kb(in.kernelName);
  auto d1 = shapeExprs(kb, x1), d2 = shapeExprs(kb, x2), dc = shapeExprs(kb, &in.out);
  if (!d1 || !d2 || !dc) return failure("the operands' shapes must be known to compile R.matmul");
  if (d1->size() < 2 || d2->size() < 2) return failure("R.matmul of a 1-D operand has no kernel yet (reshape it to 2-D)");
  if (d2->size() > 2 && d2->size() != d1->size()) return failure("R.matmul with broadcast batch dims has no kernel yet");
  size_t r1 = d1->size();
  GemmOperands g;
  g.M = (*d1)[r1 - 2];
  g.K = (*d1)[r1 - 1];
  g.N = (*d2)[d2->size() - 1];
  g.batch = product(*d1, 0, r1 - 2);
  bool batchedB = d2->size() > 2;
  int A = kb.param("A", *t, shapeText(x1));
  int B = kb.param("B", *t, shapeText(x2));
  int C = kb.param("C", *t, shapeText(&in.out));
  ExprP M = g.M, K = g.K, N = g.N;
  g.a = [&kb, A, M, K](const ExprP& b, const ExprP& row, const ExprP& k) { return kb.load(A, (b * M + row) * K + k); };
  g.b = [&kb, B, K, N, batchedB](const ExprP& b, const ExprP& k, const ExprP& col) {
    return kb.load(B, (batchedB ? b * K + k : k) * N + col);
  };
  g.cIndex = [M, N](const ExprP& b, const ExprP& row, const ExprP& col) { return (b * M + row) * N + col; };
  addTiledGemm(kb, *t, C, g);
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
