// The CPU schedule of a GEMM. The blocked scheme: each parallel iteration owns a group of column
// panels of kNR columns of C and a block of its rows; it walks K in blocks of kKC, packing that block of the group's panels
// of B into a contiguous local array (kKC x kNR each, zero-padded past N, read with unit stride),
// then sweeps every row tile of kMR rows over each panel in turn (the tile's rows of A stay in L1
// across the group). The tile's kMR x kNR accumulators are scalar locals written out unrolled: LLVM
// promotes them to registers and the SLP vectorizer turns each row's kNR multiply-adds into vector
// FMAs with A's element broadcast (8 x 32 floats = 16 AVX-512 registers; 6 x 16 = 12 AVX2
// registers on a 256-bit target, so nothing spills with 16 registers); the reduction loop is kept
// away from the loop vectorizer (tir::tileLoop). Rows past the last full tile use the same
// micro-kernel one row at a time; columns past N are computed on the zero padding and dropped when
// the tile is written back through a small staging array.
#include "compiler/schedule/gemm.h"

namespace tvms::schedule {

using namespace tir;

int CpuGemmTile::accumulatorRegisters() const { return static_cast<int>(mr * nr / lanes); }

CpuGemmTile cpuGemmTile(const Target& target, ScalarType t) {
  CpuGemmTile tile;
  int bits = target.vectorBits > 0 ? target.vectorBits : 128;
  int elementBits = t == ScalarType::F64 || t == ScalarType::I64 ? 64 : 32;
  tile.lanes = bits / elementBits;
  tile.vectorRegisters = bits >= 512 ? 32 : 16;
  // Two vectors of B per row; rows until the accumulators take half the register file (AVX-512:
  // 8 rows x 2 zmm = 16 of 32) or 12 of 16 (AVX2: 6 rows x 2 ymm), leaving room for B's two vectors
  // and A's broadcast.
  tile.nr = 2 * tile.lanes;
  tile.mr = tile.vectorRegisters == 32 ? 8 : 6;
  // Up to `group` column panels per parallel task, so each tile's rows of A (in L1) serve several
  // panels (1024³: ~100 -> ~140-210 GFLOP/s, 2048³: ~100 -> ~180 on the 2-core AVX-512 machine);
  // fewer for narrow matrices, which need their panels as separate tasks (addCpuGemm). A group is
  // 128 columns whatever the vector width: A is read from memory once per group, and AVX2's four
  // 16-column panels read it twice as often as AVX-512's (4096³ fell to ~0.75x numpy there).
  tile.kc = 256;
  tile.group = std::max<int64_t>(1, 128 / tile.nr);
  return tile;
}

namespace {

struct Tiler {
  Tiler(KernelBuilder& kb, ScalarType t, const GemmOperands& g, const CpuGemmTile& tile)
      : kb(kb), t(t), ct(computeType(t)), g(g), kMR(tile.mr), kNR(tile.nr), kKC(tile.kc), kGroup(tile.group) {}
  // 16-bit floats are converted once, when A and B are packed: the panels, the accumulators and the
  // staging tile are float32, and C gets the 16-bit value when the tile goes back.
  static ScalarType computeType(ScalarType t) { return t == ScalarType::F16 || t == ScalarType::BF16 ? ScalarType::F32 : t; }
  ExprP computed(ExprP e) const { return ct == t ? e : cast(ct, std::move(e)); }
  ExprP stored(ExprP e) const { return ct == t ? e : cast(t, std::move(e)); }
  KernelBuilder& kb;
  ScalarType t, ct;
  const GemmOperands& g;
  const int64_t kMR, kNR, kKC, kGroup;
  int C = -1, packedB = -1, packedA = -1, staging = -1;
  ExprP b, col0, width, k0, kLen, firstBlock, lastBlock, panelOffset;
  std::vector<int> acc;  // kMR * kNR accumulators

  // One tile of `mr` rows starting at row0 over the current K block: accumulators start from C (or
  // zero on the first block), gather the products, and go back to C for the panel's width.
  // The tile's rows of A for this K block, contiguous (only when GemmOperands::packA).
  std::vector<StmtP> packRows(int64_t mr, const ExprP& row0, const std::string& tag) {
    if (!g.packA) return {};
    int pk = kb.loopVar("ak" + tag), pr = kb.loopVar("ar" + tag);
    return {forLoop(pk, kLen, {forLoop(pr, intImm(mr), {
        store(packedA, kb.var(pk) * intImm(kMR) + kb.var(pr), computed(g.a(b, row0 + kb.var(pr), k0 + kb.var(pk))))})})};
  }

  std::vector<StmtP> tile(int64_t mr, const ExprP& row0, const std::string& tag) {
    auto zero = floatImm(0, ct);
    std::vector<StmtP> out, step, stage;
    int k = kb.loopVar("k" + tag);
    // 16-bit C: a later K block's partial sums are widened into the float32 staging tile by a loop
    // of their own, and the accumulators start from there (widening 16-bit loads inside the tile's
    // straight-line code left it scalar: 15x slower).
    if (ct != t) {
      int r = kb.loopVar("cr" + tag), j = kb.loopVar("cj" + tag);
      out.push_back(ifThen(unary(UnOp::Not, firstBlock), {forLoop(r, intImm(mr), {forLoop(j, intImm(kNR), {
          store(staging, kb.var(r) * intImm(kNR) + kb.var(j),
                computed(kb.load(C, g.cIndex(b, row0 + kb.var(r), col0 + binary(BinOp::Min, kb.var(j), width - intImm(1))))))})})}));
    }
    for (int64_t r = 0; r < mr; ++r) {
      ExprP row = row0 + intImm(r);
      ExprP a = g.packA ? kb.load(packedA, kb.var(k) * intImm(kMR) + intImm(r)) : computed(g.a(b, row, k0 + kb.var(k)));
      for (int64_t j = 0; j < kNR; ++j) {
        int x = acc[static_cast<size_t>(r * kNR + j)];
        // The column is clamped into the panel so padding columns read a valid element.
        ExprP prev = ct != t ? kb.load(staging, intImm(r * kNR + j)) : kb.load(C, g.cIndex(b, row, col0 + binary(BinOp::Min, intImm(j), width - intImm(1))));
        out.push_back(assign(x, select(firstBlock, zero, prev)));
        step.push_back(assign(x, kb.var(x) + a * kb.load(packedB, panelOffset + kb.var(k) * intImm(kNR) + intImm(j))));
        stage.push_back(store(staging, intImm(r * kNR + j), kb.var(x)));
      }
    }
    out.push_back(tileLoop(k, kLen, step));
    out.insert(out.end(), stage.begin(), stage.end());
    // The tile back to C: partial sums after an earlier K block, the final values after the last
    // (marked, so that fusion folds an elementwise epilogue into those stores alone).
    for (bool last : {false, true}) {
      int r = kb.loopVar("r" + tag), j = kb.loopVar("j" + tag);
      auto write = std::make_shared<Stmt>(*store(C, g.cIndex(b, row0 + kb.var(r), col0 + kb.var(j)), stored(kb.load(staging, kb.var(r) * intImm(kNR) + kb.var(j)))));
      write->finalValue = last;
      out.push_back(ifThen(last ? lastBlock : unary(UnOp::Not, lastBlock), {forLoop(r, intImm(mr), {forLoop(j, width, {write})})}));
    }
    return out;
  }
};
}  // namespace

// 16-bit floats: the whole of a known K in one block (up to kMaxHalfKC), so the float32 sums never
// go through the 16-bit C between blocks (that rounded them once per 256 of K) and no tile reads C.
constexpr int64_t kMaxHalfKC = 4096;
CpuGemmTile blockedForType(CpuGemmTile tile, ScalarType t, const GemmOperands& g) {
  if (t != ScalarType::F16 && t != ScalarType::BF16) return tile;
  if (g.K->kind == Expr::Kind::Int && g.K->intValue > tile.kc && g.K->intValue <= kMaxHalfKC) tile.kc = g.K->intValue;
  return tile;
}

void addCpuGemm(KernelBuilder& kb, const CpuGemmTile& chosen, ScalarType t, int c, const GemmOperands& operands) {
  const CpuGemmTile tile = blockedForType(chosen, t, operands);
  // float16 A is packed too, so each element is converted once per tile rather than at every step
  // (bfloat16's conversion is one shift: cheaper at each step than a pass over A).
  GemmOperands g = operands;
  g.packA |= t == ScalarType::F16;
  const int64_t kMR = tile.mr, kNR = tile.nr, kKC = tile.kc, kGroup = tile.group;
  Tiler tl(kb, t, g, tile);
  tl.C = c;
  tl.packedB = kb.localArray("packed_b", tl.ct, kGroup * kKC * kNR);
  if (g.packA) tl.packedA = kb.localArray("packed_a", tl.ct, kKC * kMR);
  tl.staging = kb.localArray("staging", tl.ct, kMR * kNR);
  for (int64_t i = 0; i < kMR * kNR; ++i) tl.acc.push_back(kb.local("acc" + std::to_string(i), tl.ct));

  int task = kb.loopVar("task"), kblock = kb.loopVar("kblock"), pk = kb.loopVar("pk"), pj = kb.loopVar("pj");
  int it = kb.loopVar("it"), ir = kb.loopVar("ir"), gpPack = kb.loopVar("gp"), gpTile = kb.loopVar("gt"), gpEdge = kb.loopVar("ge");
  auto ceilDiv = [](ExprP a, ExprP b) { return binary(BinOp::FloorDiv, a + b - intImm(1), b); };
  auto clamp = [](ExprP lo, ExprP v, ExprP hi) { return binary(BinOp::Max, lo, binary(BinOp::Min, v, hi)); };
  ExprP panels = ceilDiv(g.N, intImm(kNR));
  // Tasks: (batch, group of panels, block of row tiles). Narrow matrices get groups of one panel, so
  // that there are many groups; then rows are split into blocks until there are about kTasks tasks,
  // so a 16-core machine has work for every core at 256^3 too (one panel group per task left 256^3
  // with 2 tasks: 0.3x numpy there). Each task packs its own copy of its panels' K block of B.
  constexpr int64_t kTasks = 64;
  ExprP groupSize = clamp(intImm(1), binary(BinOp::FloorDiv, panels, intImm(16)), intImm(kGroup));
  ExprP groups = ceilDiv(panels, groupSize);
  ExprP rowTiles = ceilDiv(g.M, intImm(kMR));
  ExprP batchGroups = binary(BinOp::Max, intImm(1), g.batch * groups);
  ExprP wantBlocks = clamp(intImm(1), ceilDiv(intImm(kTasks), batchGroups), binary(BinOp::Max, intImm(1), rowTiles));
  ExprP tilesPerBlock = binary(BinOp::Max, intImm(1), ceilDiv(rowTiles, wantBlocks));
  ExprP mBlocks = ceilDiv(rowTiles, tilesPerBlock);
  ExprP kBlocks = ceilDiv(g.K, intImm(kKC));
  ExprP perBatch = groups * mBlocks;
  tl.b = binary(BinOp::FloorDiv, kb.var(task), perBatch);
  ExprP inBatch = binary(BinOp::FloorMod, kb.var(task), perBatch);
  ExprP firstPanel = binary(BinOp::FloorDiv, inBatch, mBlocks) * groupSize;
  ExprP row0 = binary(BinOp::FloorMod, inBatch, mBlocks) * tilesPerBlock * intImm(kMR);
  ExprP rows = binary(BinOp::Min, tilesPerBlock * intImm(kMR), g.M - row0);
  ExprP inGroup = binary(BinOp::Min, groupSize, panels - firstPanel);
  tl.k0 = kb.var(kblock) * intImm(kKC);
  tl.kLen = binary(BinOp::Min, intImm(kKC), g.K - tl.k0);
  tl.firstBlock = binary(BinOp::Eq, kb.var(kblock), intImm(0));
  tl.lastBlock = binary(BinOp::Eq, kb.var(kblock), kBlocks - intImm(1));
  // Panel gp of the group: its columns, its width, its place in packed_b.
  auto usePanel = [&](int gp) {
    tl.col0 = (firstPanel + kb.var(gp)) * intImm(kNR);
    tl.width = binary(BinOp::Min, intImm(kNR), g.N - tl.col0);
    tl.panelOffset = kb.var(gp) * intImm(kKC * kNR);
  };

  // Pack this K block of the group's panels: packed_b[gp][k][j] = B[k0 + k][col0 + j], zero past N.
  usePanel(gpPack);
  ExprP inPanel = binary(BinOp::Lt, kb.var(pj), tl.width);
  ExprP col = tl.col0 + binary(BinOp::Min, kb.var(pj), tl.width - intImm(1));
  StmtP pack = forLoop(gpPack, inGroup, {forLoop(pk, tl.kLen, {forLoop(pj, intImm(kNR), {
      store(tl.packedB, tl.panelOffset + kb.var(pk) * intImm(kNR) + kb.var(pj), select(inPanel, tl.computed(g.b(tl.b, tl.k0 + kb.var(pk), col)), floatImm(0, tl.ct)))})})});
  ExprP fullTiles = binary(BinOp::FloorDiv, rows, intImm(kMR));
  auto rowTile = [&](int64_t mr, const ExprP& row0, int gp, const std::string& tag) {
    std::vector<StmtP> body = tl.packRows(mr, row0, tag);
    usePanel(gp);
    body.push_back(forLoop(gp, inGroup, tl.tile(mr, row0, tag)));
    return body;
  };
  StmtP tiles = forLoop(it, fullTiles, rowTile(kMR, row0 + kb.var(it) * intImm(kMR), gpTile, "t"));
  StmtP rest = forLoop(ir, rows - fullTiles * intImm(kMR), rowTile(1, row0 + fullTiles * intImm(kMR) + kb.var(ir), gpEdge, "e"));
  kb.add(forLoop(task, g.batch * perBatch, {forLoop(kblock, kBlocks, {pack, tiles, rest})}, true));
}

}  // namespace tvms::schedule
