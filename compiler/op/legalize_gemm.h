#pragma once
// The tiled GEMM that matmul and conv2d kernels share: C[b] (M x N) += A[b] (M x K) @ B[b] (K x N),
// where A, B and C are not buffers but index functions, so a convolution is a GEMM over an implicit
// im2col matrix without materialising it. Internal to the kernel builders.
#include <functional>

#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

struct GemmOperands {
  ExprP batch, M, N, K;
  // Element (row, k) of A and (k, col) of B for batch b (called only with row < M, k < K, col < N).
  std::function<ExprP(const ExprP& b, const ExprP& row, const ExprP& k)> a;
  std::function<ExprP(const ExprP& b, const ExprP& k, const ExprP& col)> b;
  // The flat index of C's element (row, col) in the output buffer.
  std::function<ExprP(const ExprP& b, const ExprP& row, const ExprP& col)> cIndex;
  // Copy each tile's rows of A into a contiguous local array first: for an A whose elements are
  // costly to address (a convolution's padded windows), so the inner loop reads it with unit stride.
  bool packA = false;
};

// Adds the GEMM to the kernel as one parallel loop over (batch, column panel); `c` is the output buffer.
void addTiledGemm(KernelBuilder& kb, ScalarType t, int c, const GemmOperands& g);

}  // namespace tvms::op::kernels
