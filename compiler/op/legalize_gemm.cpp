// The blocked scheme: each parallel iteration owns one column panel of kNR columns of C; it walks K
// in blocks of kKC, packing that block of B's panel into a contiguous local array (kKC x kNR,
// zero-padded past N, so it stays in L1 and is read with unit stride), then sweeps every row tile of
// kMR rows over it. The tile's kMR x kNR accumulators are scalar locals written out unrolled: LLVM
// promotes them to registers and the SLP vectorizer turns each row's kNR multiply-adds into vector
// FMAs with A's element broadcast (8 x 32 floats = 16 AVX-512 registers); the reduction loop is kept
// away from the loop vectorizer (codegen::tileLoop). Rows past the last full tile use the same
// micro-kernel one row at a time; columns past N are computed on the zero padding and dropped when
// the tile is written back through a small staging array.
#include "compiler/op/legalize_gemm.h"

namespace tvms::op::kernels {

using namespace codegen;

namespace {
constexpr int64_t kMR = 8;
constexpr int64_t kNR = 32;
constexpr int64_t kKC = 256;

struct Tiler {
  Tiler(KernelBuilder& kb, ScalarType t, const GemmOperands& g) : kb(kb), t(t), g(g) {}
  KernelBuilder& kb;
  ScalarType t;
  const GemmOperands& g;
  int C = -1, packedB = -1, packedA = -1, staging = -1;
  ExprP b, col0, width, k0, kLen, firstBlock;
  std::vector<int> acc;  // kMR * kNR accumulators

  // One tile of `mr` rows starting at row0 over the current K block: accumulators start from C (or
  // zero on the first block), gather the products, and go back to C for the panel's width.
  std::vector<StmtP> tile(int64_t mr, const ExprP& row0, const std::string& tag) {
    auto zero = floatImm(0, t);
    std::vector<StmtP> out, step, stage;
    int k = kb.loopVar("k" + tag);
    if (g.packA) {
      int pk = kb.loopVar("ak" + tag), pr = kb.loopVar("ar" + tag);
      out.push_back(forLoop(pk, kLen, {forLoop(pr, intImm(mr), {
          store(packedA, kb.var(pk) * intImm(kMR) + kb.var(pr), g.a(b, row0 + kb.var(pr), k0 + kb.var(pk)))})}));
    }
    for (int64_t r = 0; r < mr; ++r) {
      ExprP row = row0 + intImm(r);
      ExprP a = g.packA ? kb.load(packedA, kb.var(k) * intImm(kMR) + intImm(r)) : g.a(b, row, k0 + kb.var(k));
      for (int64_t j = 0; j < kNR; ++j) {
        int x = acc[static_cast<size_t>(r * kNR + j)];
        // The column is clamped into the panel so padding columns read a valid element.
        ExprP prev = kb.load(C, g.cIndex(b, row, col0 + binary("min", intImm(j), width - intImm(1))));
        out.push_back(assign(x, select(firstBlock, zero, prev)));
        step.push_back(assign(x, kb.var(x) + a * kb.load(packedB, kb.var(k) * intImm(kNR) + intImm(j))));
        stage.push_back(store(staging, intImm(r * kNR + j), kb.var(x)));
      }
    }
    out.push_back(tileLoop(k, kLen, step));
    out.insert(out.end(), stage.begin(), stage.end());
    int r = kb.loopVar("r" + tag), j = kb.loopVar("j" + tag);
    out.push_back(forLoop(r, intImm(mr), {forLoop(j, width, {
        store(C, g.cIndex(b, row0 + kb.var(r), col0 + kb.var(j)), kb.load(staging, kb.var(r) * intImm(kNR) + kb.var(j)))})}));
    return out;
  }
};
}  // namespace

void addTiledGemm(KernelBuilder& kb, ScalarType t, int c, const GemmOperands& g) {
  Tiler tl(kb, t, g);
  tl.C = c;
  tl.packedB = kb.localArray("packed_b", t, kKC * kNR);
  if (g.packA) tl.packedA = kb.localArray("packed_a", t, kKC * kMR);
  tl.staging = kb.localArray("staging", t, kMR * kNR);
  for (int64_t i = 0; i < kMR * kNR; ++i) tl.acc.push_back(kb.local("acc" + std::to_string(i), t));

  int task = kb.loopVar("task"), kblock = kb.loopVar("kblock"), pk = kb.loopVar("pk"), pj = kb.loopVar("pj");
  int it = kb.loopVar("it"), ir = kb.loopVar("ir");
  ExprP panels = binary("floordiv", g.N + intImm(kNR - 1), intImm(kNR));
  ExprP kBlocks = binary("floordiv", g.K + intImm(kKC - 1), intImm(kKC));
  tl.b = binary("floordiv", kb.var(task), panels);
  tl.col0 = binary("floormod", kb.var(task), panels) * intImm(kNR);
  tl.width = binary("min", intImm(kNR), g.N - tl.col0);
  tl.k0 = kb.var(kblock) * intImm(kKC);
  tl.kLen = binary("min", intImm(kKC), g.K - tl.k0);
  tl.firstBlock = binary("==", kb.var(kblock), intImm(0));

  // Pack this K block of the panel: packed_b[k][j] = B[k0 + k][col0 + j], zero past N.
  ExprP inPanel = binary("<", kb.var(pj), tl.width);
  ExprP col = tl.col0 + binary("min", kb.var(pj), tl.width - intImm(1));
  StmtP pack = forLoop(pk, tl.kLen, {forLoop(pj, intImm(kNR), {
      store(tl.packedB, kb.var(pk) * intImm(kNR) + kb.var(pj), select(inPanel, g.b(tl.b, tl.k0 + kb.var(pk), col), floatImm(0, t)))})});
  ExprP fullTiles = binary("floordiv", g.M, intImm(kMR));
  StmtP tiles = forLoop(it, fullTiles, tl.tile(kMR, kb.var(it) * intImm(kMR), "t"));
  StmtP rest = forLoop(ir, g.M - fullTiles * intImm(kMR), tl.tile(1, fullTiles * intImm(kMR) + kb.var(ir), "e"));
  kb.add(forLoop(task, g.batch * panels, {forLoop(kblock, kBlocks, {pack, tiles, rest})}, true));
}

}  // namespace tvms::op::kernels
