#pragma once
// A GEMM as the op builders describe it and the target's schedule builds it: C[b] (M x N) +=
// A[b] (M x K) @ B[b] (K x N), where A, B and C are not buffers but index functions, so a
// convolution is a GEMM over an implicit im2col matrix without materialising it. matmul and the
// convolutions (compiler/op) say what is multiplied; `addGemm` picks the target's schedule.
#include <functional>
#include <string>

#include "compiler/tir/loop_ir.h"

namespace tvms::schedule {

struct GemmOperands {
  tir::ExprP batch, M, N, K;
  // Element (row, k) of A and (k, col) of B for batch b (called only with row < M, k < K, col < N).
  std::function<tir::ExprP(const tir::ExprP& b, const tir::ExprP& row, const tir::ExprP& k)> a;
  std::function<tir::ExprP(const tir::ExprP& b, const tir::ExprP& k, const tir::ExprP& col)> b;
  // The flat index of C's element (row, col) in the output buffer.
  std::function<tir::ExprP(const tir::ExprP& b, const tir::ExprP& row, const tir::ExprP& col)> cIndex;
  // Copy each tile's rows of A into a contiguous local array first: for an A whose elements are
  // costly to address (a convolution's padded windows), so the inner loop reads it with unit stride.
  bool packA = false;
};

// The CPU register tile: mr rows by nr columns of accumulators, K in blocks of kc, up to `group`
// column panels per parallel task. Sized from the target's vector width so the accumulators and
// the operands of one step fit the vector register file (32 zmm on AVX-512, 16 ymm/xmm below).
struct CpuGemmTile {
  int64_t mr = 8, nr = 32, kc = 256, group = 4;
  int vectorRegisters = 32;  // what the tile was sized for
  int accumulatorRegisters() const;  // mr * nr / lanes
  int lanes = 16;            // elements of the type per vector register
};
CpuGemmTile cpuGemmTile(const tir::Target& target, tir::ScalarType t);

// Adds the GEMM to the kernel scheduled for `target`; `c` is the output buffer. A CPU target gets
// the tiled CPU schedule; a target without a GEMM schedule gets the plain compute (spatial loops over
// batch, rows and columns around a reduction over K), which its own schedule may rewrite.
void addGemm(tir::KernelBuilder& kb, const tir::Target& target, tir::ScalarType t, int c, const GemmOperands& g);

// The two forms addGemm chooses between.
void addCpuGemm(tir::KernelBuilder& kb, const CpuGemmTile& tile, tir::ScalarType t, int c, const GemmOperands& g);
void addPlainGemm(tir::KernelBuilder& kb, tir::ScalarType t, int c, const GemmOperands& g);

}  // namespace tvms::schedule
