// matmul: C[b] = A[b] @ B[b or shared], the codegen's own tiled GEMM (compiler/schedule/gemm.h: the target's schedule builds it); no BLAS.
#include "compiler/op/legalize_util.h"
#include "compiler/schedule/gemm.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {
// Row-major flat index of batch position `b` of `outBatch` in an operand whose batch dims are
// `batch` (right-aligned; a dim of 1 broadcasts).
ExprP batchIndex(const ExprP& b, const std::vector<ExprP>& outBatch, const std::vector<ExprP>& batch) {
  if (batch.empty()) return intImm(0);
  std::vector<ExprP> coord(outBatch.size());
  ExprP rest = b;
  for (size_t i = outBatch.size(); i-- > 0;) {
    coord[i] = i == 0 ? rest : binary(BinOp::FloorMod, rest, outBatch[i]);
    rest = binary(BinOp::FloorDiv, rest, outBatch[i]);
  }
  ExprP idx = intImm(0);
  size_t offset = outBatch.size() - batch.size();
  for (size_t i = 0; i < batch.size(); ++i) {
    bool one = batch[i]->kind == Expr::Kind::Int && batch[i]->intValue == 1;
    idx = idx * batch[i] + (one ? intImm(0) : coord[offset + i]);
  }
  return idx;
}
}  // namespace

LegalizeResult matmul(const LegalizeInput& in) {
  const ir::StructInfo* x1 = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* x2 = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x1);
  if (!t || !isFloat(*t) || !x2 || x2->dtype != x1->dtype || in.out.dtype != x1->dtype)
    return failure("matmul kernels take two float tensors of one dtype (and out_dtype equal to theirs)");
  KernelBuilder kb(in.kernelName);
  auto d1 = shapeExprs(kb, x1), d2 = shapeExprs(kb, x2), dc = shapeExprs(kb, &in.out);
  if (!d1 || !d2 || !dc) return failure("the operands' shapes must be known to compile R.matmul");
  if (d1->empty() || d2->empty()) return failure("R.matmul of a 0-D operand has no kernel");
  // A 1-D operand is a matrix of one row (x1) or one column (x2), its dim dropped from the result.
  std::vector<ExprP> s1 = *d1, s2 = *d2;
  if (s1.size() == 1) s1.insert(s1.begin(), intImm(1));
  if (s2.size() == 1) s2.push_back(intImm(1));
  schedule::GemmOperands g;
  g.M = s1[s1.size() - 2];
  g.K = s1[s1.size() - 1];
  g.N = s2[s2.size() - 1];
  std::vector<ExprP> batch1(s1.begin(), s1.end() - 2), batch2(s2.begin(), s2.end() - 2);
  // The result's batch dims: numpy broadcasting of the two.
  std::vector<ExprP> outBatch(std::max(batch1.size(), batch2.size()));
  for (size_t i = 0; i < outBatch.size(); ++i) {
    size_t from = outBatch.size() - i;
    ExprP a1 = from <= batch1.size() ? batch1[batch1.size() - from] : nullptr, a2 = from <= batch2.size() ? batch2[batch2.size() - from] : nullptr;
    bool one1 = !a1 || (a1->kind == Expr::Kind::Int && a1->intValue == 1);
    outBatch[i] = one1 ? (a2 ? a2 : intImm(1)) : a1;
  }
  g.batch = product(outBatch);
  int A = kb.param("A", *t, shapeText(x1));
  int B = kb.param("B", *t, shapeText(x2));
  int C = kb.param("C", *t, shapeText(&in.out));
  ExprP M = g.M, K = g.K, N = g.N;
  g.a = [&kb, A, M, K, outBatch, batch1](const ExprP& b, const ExprP& row, const ExprP& k) {
    return kb.load(A, (batchIndex(b, outBatch, batch1) * M + row) * K + k);
  };
  g.b = [&kb, B, K, N, outBatch, batch2](const ExprP& b, const ExprP& k, const ExprP& col) {
    return kb.load(B, (batchIndex(b, outBatch, batch2) * K + k) * N + col);
  };
  g.cIndex = [M, N](const ExprP& b, const ExprP& row, const ExprP& col) { return (b * M + row) * N + col; };
  schedule::addGemm(kb, in.target, *t, C, g);
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
