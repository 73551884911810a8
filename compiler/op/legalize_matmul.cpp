// matmul: C[b] = A[b] @ B[b or shared]. Register tiles of kMR x kNR outputs accumulate over the whole
// K loop (B's rows are contiguous, so each row of the tile vectorizes and A's element is broadcast);
// blocks of row tiles run on the thread pool; the edges that do not fill a tile take a plain
// dot-product loop. No BLAS: this is the codegen's own kernel.
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace codegen;

namespace {
constexpr int64_t kMR = 4;
constexpr int64_t kNR = 16;
constexpr int64_t kBlock = 16;  // row tiles per block (64 rows)
}  // namespace

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
  ExprP M = (*d1)[r1 - 2], K = (*d1)[r1 - 1], N = (*d2)[d2->size() - 1];
  ExprP batch = product(*d1, 0, r1 - 2);
  bool batchedB = d2->size() > 2;
  int A = kb.param("A", *t, shapeText(x1));
  int B = kb.param("B", *t, shapeText(x2));
  int C = kb.param("C", *t, shapeText(&in.out));
  int sum = kb.local("sum", *t);
  auto zero = floatImm(0, *t);

  ExprP mTiles = binary("floordiv", M, intImm(kMR)), nTiles = binary("floordiv", N, intImm(kNR));
  ExprP mFull = mTiles * intImm(kMR), nFull = nTiles * intImm(kNR);
  // Row tiles are grouped in blocks of kBlock: one block sweeps B's column panels once, each panel
  // (K x kNR) staying in cache while the block's row tiles reuse it.
  int bt = kb.loopVar("bt"), jo = kb.loopVar("jo"), k = kb.loopVar("k"), ii = kb.loopVar("ii"), it = kb.loopVar("it"), ie = kb.loopVar("ie");
  ExprP blocks = binary("floordiv", mTiles + intImm(kBlock - 1), intImm(kBlock));
  ExprP b = binary("floordiv", kb.var(bt), blocks), blockStart = binary("floormod", kb.var(bt), blocks) * intImm(kBlock);
  ExprP inBlock = binary("min", intImm(kBlock), mTiles - blockStart);
  ExprP io = blockStart + kb.var(it);
  ExprP aBase = b * M * K, bBase = batchedB ? b * K * N : intImm(0), cBase = b * M * N;
  // The tile is written out unrolled, one scalar local per output: LLVM promotes them to registers
  // and the SLP vectorizer turns each row's kNR multiply-adds (B's row is contiguous) into vector FMAs.
  std::vector<int> acc;
  for (int64_t i = 0; i < kMR * kNR; ++i) acc.push_back(kb.local("acc" + std::to_string(i), *t));
  std::vector<StmtP> init, step, flush;
  for (int64_t i = 0; i < kMR; ++i) {
    ExprP r = io * intImm(kMR) + intImm(i);
    ExprP a = kb.load(A, aBase + r * K + kb.var(k));
    for (int64_t j = 0; j < kNR; ++j) {
      int x = acc[static_cast<size_t>(i * kNR + j)];
      ExprP col = kb.var(jo) * intImm(kNR) + intImm(j);
      init.push_back(assign(x, zero));
      step.push_back(assign(x, kb.var(x) + a * kb.load(B, bBase + kb.var(k) * N + col)));
      flush.push_back(store(C, cBase + r * N + col, kb.var(x)));
    }
  }
  std::vector<StmtP> tile = init;
  tile.push_back(forLoop(k, K, step));
  tile.insert(tile.end(), flush.begin(), flush.end());
  // Columns past the last full tile, for the block's rows.
  int jr = kb.loopVar("jr"), kr = kb.loopVar("kr");
  ExprP colR = nFull + kb.var(jr);
  ExprP rowE = (blockStart + kb.var(ie)) * intImm(kMR) + kb.var(ii);
  StmtP edgeCols = forLoop(ie, inBlock, {forLoop(ii, intImm(kMR), {forLoop(jr, N - nFull, {
      assign(sum, zero),
      forLoop(kr, K, {assign(sum, kb.var(sum) + kb.load(A, aBase + rowE * K + kb.var(kr)) * kb.load(B, bBase + kb.var(kr) * N + colR))}),
      store(C, cBase + rowE * N + colR, kb.var(sum))})})});
  kb.add(forLoop(bt, batch * blocks, {forLoop(jo, nTiles, {forLoop(it, inBlock, tile)}), edgeCols}, true));
  // Rows past the last full tile, every column.
  int br = kb.loopVar("br"), ir_ = kb.loopVar("ir"), jc = kb.loopVar("jc"), kc = kb.loopVar("kc");
  ExprP rowR = mFull + kb.var(ir_);
  ExprP aB = kb.var(br) * M * K, bB = batchedB ? kb.var(br) * K * N : intImm(0), cB = kb.var(br) * M * N;
  kb.add(forLoop(br, batch, {forLoop(ir_, M - mFull, {forLoop(jc, N, {
      assign(sum, zero),
      forLoop(kc, K, {assign(sum, kb.var(sum) + kb.load(A, aB + rowR * K + kb.var(kc)) * kb.load(B, bB + kb.var(kc) * N + kb.var(jc)))}),
      store(C, cB + rowR * N + kb.var(jc), kb.var(sum))})})}));
  LegalizeResult r;
  r.bufferArgs = {0, 1};
  r.kernel = kb.take();
  return r;
}

}  // namespace tvms::op::kernels
