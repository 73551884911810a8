// matmul: C[b] = A[b] @ B[b or shared], the codegen's own kernel (no BLAS). The classic blocked
// scheme: each parallel iteration owns one column panel of kNR columns of C; it walks K in blocks of
// kKC rows, packing that block of B's panel into a contiguous local array (kKC x kNR, zero-padded past
// N, so it stays in L1 and is read with unit stride), then sweeps every row tile of kMR rows over it.
// The tile's kMR x kNR accumulators are scalar locals, written out unrolled: LLVM promotes them to
// registers and the SLP vectorizer turns each row's kNR multiply-adds into vector FMAs with A's
// element broadcast (8 x 32 floats = 16 AVX-512 registers). Rows past the last full tile use the
// same micro-kernel one row at a time; columns past N are computed on the zero padding and dropped
// when the tile is written back through a small staging array.
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace codegen;

namespace {
constexpr int64_t kMR = 8;
constexpr int64_t kNR = 32;
constexpr int64_t kKC = 256;

struct MatmulKernel {
  KernelBuilder& kb;
  ScalarType t;
  int A, B, C, packed, staging;
  ExprP K, N, aBase, cBase, col0, width, k0, kLen, firstBlock;
  std::vector<int> acc;  // kMR * kNR accumulators

  // One tile of `mr` rows starting at row0, over the current K block: accumulators start from C
  // (or zero on the first block), gather the products, and go back to C for the panel's width.
  std::vector<StmtP> tile(int64_t mr, const ExprP& row0, const std::string& tag) {
    auto zero = floatImm(0, t);
    std::vector<StmtP> out, step, stage;
    int k = kb.loopVar("k" + tag);
    for (int64_t r = 0; r < mr; ++r) {
      ExprP rowC = cBase + (row0 + intImm(r)) * N + col0;
      ExprP a = kb.load(A, aBase + (row0 + intImm(r)) * K + k0 + kb.var(k));
      for (int64_t j = 0; j < kNR; ++j) {
        int x = acc[static_cast<size_t>(r * kNR + j)];
        // The load index is clamped into the panel so padding columns read a valid element.
        ExprP prev = kb.load(C, rowC + binary("min", intImm(j), width - intImm(1)));
        out.push_back(assign(x, select(firstBlock, zero, prev)));
        step.push_back(assign(x, kb.var(x) + a * kb.load(packed, kb.var(k) * intImm(kNR) + intImm(j))));
        stage.push_back(store(staging, intImm(r * kNR + j), kb.var(x)));
      }
    }
    out.push_back(tileLoop(k, kLen, step));
    out.insert(out.end(), stage.begin(), stage.end());
    int r = kb.loopVar("r" + tag), j = kb.loopVar("j" + tag);
    out.push_back(forLoop(r, intImm(mr), {forLoop(j, width, {
        store(C, cBase + (row0 + kb.var(r)) * N + col0 + kb.var(j), kb.load(staging, kb.var(r) * intImm(kNR) + kb.var(j)))})}));
    return out;
  }
};
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

  MatmulKernel mk{kb, *t, 0, 0, 0, 0, 0, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  mk.A = kb.param("A", *t, shapeText(x1));
  mk.B = kb.param("B", *t, shapeText(x2));
  mk.C = kb.param("C", *t, shapeText(&in.out));
  mk.packed = kb.localArray("packed", *t, kKC * kNR);
  mk.staging = kb.localArray("staging", *t, kMR * kNR);
  for (int64_t i = 0; i < kMR * kNR; ++i) mk.acc.push_back(kb.local("acc" + std::to_string(i), *t));

  int task = kb.loopVar("task"), kb_ = kb.loopVar("kblock"), pk = kb.loopVar("pk"), pj = kb.loopVar("pj");
  int it = kb.loopVar("it"), ir_ = kb.loopVar("ir");
  ExprP panels = binary("floordiv", N + intImm(kNR - 1), intImm(kNR));
  ExprP kBlocks = binary("floordiv", K + intImm(kKC - 1), intImm(kKC));
  ExprP b = binary("floordiv", kb.var(task), panels);
  mk.K = K;
  mk.N = N;
  mk.aBase = b * M * K;
  mk.cBase = b * M * N;
  mk.col0 = binary("floormod", kb.var(task), panels) * intImm(kNR);
  mk.width = binary("min", intImm(kNR), N - mk.col0);
  mk.k0 = kb.var(kb_) * intImm(kKC);
  mk.kLen = binary("min", intImm(kKC), K - mk.k0);
  mk.firstBlock = binary("==", kb.var(kb_), intImm(0));
  ExprP bBase = batchedB ? b * K * N : intImm(0);

  // Pack this K block of the panel: packed[k][j] = B[k0 + k][col0 + j], zero past N.
  auto inPanel = binary("<", kb.var(pj), mk.width);
  ExprP src = bBase + (mk.k0 + kb.var(pk)) * N + mk.col0 + binary("min", kb.var(pj), mk.width - intImm(1));
  StmtP pack = forLoop(pk, mk.kLen, {forLoop(pj, intImm(kNR), {
      store(mk.packed, kb.var(pk) * intImm(kNR) + kb.var(pj), select(inPanel, kb.load(mk.B, src), floatImm(0, *t)))})});
  ExprP fullTiles = binary("floordiv", M, intImm(kMR));
  StmtP tiles = forLoop(it, fullTiles, mk.tile(kMR, kb.var(it) * intImm(kMR), "t"));
  StmtP rest = forLoop(ir_, M - fullTiles * intImm(kMR), mk.tile(1, fullTiles * intImm(kMR) + kb.var(ir_), "e"));
  kb.add(forLoop(task, batch * panels, {forLoop(kb_, kBlocks, {pack, tiles, rest})}, true));
  LegalizeResult r;
  r.bufferArgs = {0, 1};
  r.kernel = kb.take();
  return r;
}

}  // namespace tvms::op::kernels
